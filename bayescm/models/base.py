"""The model contract: what every model kind declares and provides.

A *model kind* (binary, multiclass, the paired joint model, the hierarchical model, scores) is
a subclass of :class:`ModelKind` registered under a key (:func:`bayescm.models.registry.register`).
The key is what a result tree stores in its root attribute ``model``; :func:`bayescm.fit`,
:func:`bayescm.load` and every analysis ask the registry for the kind instead of branching on
strings. A kind declares

* ``key``, ``description`` (for messages: "a paired comparison") and ``analyses`` (the analyses
  that apply to its results, checked by :func:`bayescm.models.registry.require`);
* ``parameters``: a table of :class:`Parameter` (dims, long name, conjugate family, whether it
  can be fixed), from which the prior keywords, dims and long names follow;
* ``has_exact``: whether a closed-form (exact) sampler exists for conjugate priors;

and implements the steps of the fitting pipeline: resolve priors, draw the parameters (exactly
with NumPy, or build the PyMC model for NUTS), derive ``theta`` and the metrics, and the observed
point values, which :func:`bayescm.models.fitting.fit_standard` runs; kinds with their own data
(scores) or their own sampler (the hierarchical model) override :meth:`ModelKind.fit`.

Examples
--------
>>> from bayescm.models import registry
>>> kind = registry.get("binary")
>>> [p.name for p in kind.parameters], kind.has_exact
(['prevalence', 'tpr', 'tnr'], True)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from bayescm.priors.protocol import Family, conjugate_to

if TYPE_CHECKING:
    import pymc as pm
    import xarray as xr

    from bayescm.metrics.metric import Metric

__all__ = ["ANALYSES", "Derived", "ModelKind", "Parameter"]

Derived = dict[str, tuple[tuple[str, ...], np.ndarray]]
"""Derived arrays by name: ``(extra dims, array)`` with the sample (and batch) axes leading."""

ANALYSES = ("summary", "with_prevalence", "posterior_predictive", "prior_predictive",
            "prob_superior", "rank_probabilities", "informedness", "refit", "curve_bands",
            "sroc_regions", "group_gaps", "paired_comparison", "theta", "item_level",
            "net_benefit", "expected_cost", "cost_curve", "corrected", "rater_rates",
            "test_rates")
"""The analyses a kind can declare (``ModelKind.analyses``); any other raises a ValueError
naming the kind (:func:`bayescm.models.registry.require`). ``curve_bands``: whole curves per
draw (scores); ``sroc_regions``: a population of groups with a summary ROC (a hierarchical
fit); ``group_gaps``: several groups of one classifier to compare draw by draw;
``paired_comparison``: two classifiers on one test set; ``theta``: a confusion probability
matrix per draw (figures of theta); ``item_level``: systems evaluated item by item (the
accuracy forest with the naive and CR1 intervals, paired differences, pass@k);
``net_benefit`` and ``expected_cost``: rates at thresholds per draw (scores, or binary
matrices keyed by threshold) and TPR, TNR and prevalence (decisions); ``corrected``: an
apparent rate beside the true rate behind it (an imperfect test or judge); ``rater_rates``:
raters' confusion matrices and items' latent classes (a Dawid-Skene fit: its two figures);
``test_rates``: tests' TPR and TNR and populations' prevalences without a gold standard (a
Hui-Walter fit: its figure)."""
DEFAULT_ANALYSES = frozenset(("summary", "with_prevalence", "posterior_predictive",
                              "prior_predictive", "prob_superior", "rank_probabilities",
                              "informedness", "refit", "theta"))
"""What a kind fitted from confusion matrices declares unless it says otherwise."""


@dataclass(frozen=True)
class Parameter:
    """One parameter of a model kind, as the kind's table declares it.

    Parameters
    ----------
    name : str
        The variable name in the posterior and the key in ``priors={...}``.
    dims : tuple of str
        Dims beyond the sample dims and the batch dim (``()`` for a scalar).
    long_name : str
        Human-readable name, stored as the variable's ``long_name``.
    family : Family or None
        The conjugate prior family (:class:`~bayescm.priors.protocol.Family`; None: no closed
        form, sampled with NUTS). :meth:`takes` asks a prior whether it is conjugate to it.
    fixable : bool
        Whether :class:`~bayescm.Fixed` may replace its prior (the prevalence).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.base import Parameter
    >>> from bayescm.priors.protocol import Family
    >>> tpr = Parameter("tpr", (), "true positive rate", Family.BETA)
    >>> tpr.fixable, tpr.takes(bcm.priors.Jeffreys()), tpr.takes(bcm.priors.Normal(0, 1))
    (False, True, False)
    """

    name: str
    dims: tuple[str, ...]
    long_name: str
    family: Family | None = None
    fixable: bool = False

    def takes(self, prior: Any) -> bool:
        """Whether ``prior`` is conjugate to this parameter (the exact sampler can use it)."""
        return self.family is not None and conjugate_to(prior, self.family)


class ModelKind(ABC):
    """Base class of every model kind: the declarative table plus the pipeline's steps.

    Subclasses set the class attributes and implement the abstract methods; the defaults of
    the other methods follow from the parameter table. An instance is bound to the class
    labels of one fit (and kind-specific options such as ``ordered``).

    Parameters
    ----------
    labels : sequence of str
        Class labels in row order (binary: positive class first).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models import registry
    >>> kind = registry.for_data(bcm.ConfusionMatrix.from_counts(tp=1, fn=2, tn=3, fp=4))
    >>> kind.key, kind.prior_arguments
    ('binary', ('prevalence', 'tpr', 'tnr'))
    """

    key: ClassVar[str]
    description: ClassVar[str] = ""
    parameters: ClassVar[tuple[Parameter, ...]] = ()
    has_exact: ClassVar[bool] = False
    accepts_matrices: ClassVar[bool] = True
    """Whether the kind is fitted from confusion matrices (counts)."""
    default_draws: ClassVar[int] = 5000
    """Draws per chain when ``fit`` is not given ``draws``."""
    metric_family: ClassVar[str] = "binary"
    """What custom metrics take: ``"binary"`` (cells tp, fn, fp, tn) or ``"multiclass"`` (theta)."""
    analyses: ClassVar[frozenset[str]] = DEFAULT_ANALYSES
    catalogue: dict[str, Metric]
    pooled_groups: ClassVar[bool] = False
    """Whether results hold several partially pooled groups (per-group, pooled and new-group
    rates); analyses that exchange parameters treat those rows together."""
    scale_free: ClassVar[bool] = False
    """Whether every metric is invariant to the scale of theta (then counts can be used)."""
    standard_pipeline: ClassVar[bool] = True
    """Whether :func:`bayescm.fit` runs the standard pipeline of matrix kinds
    (:func:`~bayescm.models.fitting.fit_standard`), or the kind's own :meth:`fit`."""
    elementwise: ClassVar[bool] = False
    """Whether :meth:`derive` works element by element on any leading shape (the batch path
    may then lay the draws out classifier-major and skip transpositions)."""
    own_data_model: ClassVar[bool] = False
    """Whether :meth:`build_pymc` builds the model from the data the kind was made from (an
    item-level log), not from confusion-matrix counts (then :func:`bayescm.build_model` takes
    that data)."""
    figures: ClassVar[tuple[str, ...]] = ("metrics",)
    """The figures a specification draws for this kind by default, by the name of the
    ``bcm.plots`` function without ``plot_`` (``"metrics"``, ``"roc"``, ``"sroc"``, ...)."""

    def __init__(self, labels: Sequence[Any]) -> None:
        self.labels = [str(v) for v in labels]

    # ------------------------------------------------------------ declared, derived
    @property
    def name(self) -> str:
        """The registry key (kept for code that reads ``kind.name``)."""
        return self.key

    @property
    def prior_arguments(self) -> tuple[str, ...]:
        """Parameter names accepted in ``priors={...}`` and as keywords."""
        return tuple(p.name for p in self.parameters)

    @property
    def parameter_long_names(self) -> dict[str, str]:
        """Long names of the parameters, by name."""
        return {p.name: p.long_name for p in self.parameters}

    def parameter(self, name: str) -> Parameter:
        """The table entry of parameter ``name``."""
        for p in self.parameters:
            if p.name == name:
                return p
        raise KeyError(f"The {self.key} model has no parameter {name!r}; its parameters are "
                       f"{', '.join(self.prior_arguments)}.")

    def param_dims(self, name: str) -> tuple[str, ...]:
        """Dims of a parameter beyond the sample and batch dims."""
        return self.parameter(name).dims

    @property
    def batch_dims(self) -> tuple[str, ...]:
        """Dims a result may add in front of the parameters' own (a batch of classifiers)."""
        return ("classifier",)

    def check_layout(self, dims: Mapping[str, tuple[str, ...]]) -> None:
        """Raise a ValueError when a stored parameter's dims are not the table's.

        ``dims`` maps posterior variables to their dims. Called on every tree read
        (:func:`bayescm.core.schema.validate`), so a result whose ``model`` attribute names
        another kind (a binary ``model`` on a 3-class tree) is refused when loaded, not three
        calls later.
        """
        for p in self.parameters:
            if p.name not in dims:
                continue
            own = set(dims[p.name]) - {"chain", "draw", "prior_choice"}
            extra = own - set(p.dims) - set(self.batch_dims)
            if extra or not set(p.dims) <= own:
                raise ValueError(
                    f"The result's attribute 'model' says {self.key!r}, whose {p.name!r} has "
                    f"dims {p.dims}, but the stored {p.name!r} has {tuple(dims[p.name])}; the "
                    "tree was edited or not written by bcm.fit. Refit it, or restore the "
                    "attribute.")

    def coords(self) -> dict[str, Any]:
        """Coordinates of the kind's own dims (the cell dims by default)."""
        return {"true_class": self.labels, "pred_class": self.labels}

    def root_attrs(self) -> dict[str, Any]:
        """Kind-specific root attributes needed to rebuild the kind (see :meth:`from_attrs`)."""
        return {}

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any], labels: Sequence[Any]) -> ModelKind:
        """Rebuild the kind from a result tree's root attributes and labels."""
        return cls(labels)

    @classmethod
    def accepts(cls, data: Any) -> bool:
        """Whether ``fit(data)`` with ``model="auto"`` should use this kind."""
        return False

    @classmethod
    def from_data(cls, data: Any) -> ModelKind:
        """The kind bound to the labels (and options) of ``data``."""
        raise TypeError(f"The {cls.key} model is not fitted from {type(data).__name__}.")

    def free(self, priors: Mapping[str, Any]) -> list[str]:
        """Parameters that are sampled (not fixed)."""
        return [p.name for p in self.parameters
                if not getattr(priors.get(p.name), "fixed", False)]

    def improper(self, priors: Mapping[str, Any]) -> bool:
        """Whether any sampled parameter has an improper prior."""
        return any(getattr(priors.get(p), "proper", True) is False for p in self.free(priors))

    def select_metrics(self, selected: Sequence[Metric], priors: Mapping[str, Any]
                       ) -> list[Metric]:
        """Metrics computed besides the parameters (which are always stored)."""
        own = set(self.prior_arguments)
        return [m for m in selected if m.name not in own]

    # ------------------------------------------------------------ the pipeline's steps
    @abstractmethod
    def resolve_priors(self, prior: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """Every parameter's prior: ``prior`` for all, ``overrides`` for some, validated."""

    def exact_posterior(self, counts: np.ndarray, priors: Mapping[str, Any],
                        rng: np.random.Generator, chains: int, draws: int,
                        names: list[str] | None) -> dict[str, np.ndarray]:
        """Closed-form posterior draws ``(chains, draws, B, *dims)`` of the free parameters."""
        raise NotImplementedError(f"The {self.key} model has no exact sampler; use NUTS.")

    def exact_prior(self, priors: Mapping[str, Any], rng: np.random.Generator, chains: int,
                    draws: int) -> dict[str, np.ndarray] | None:
        """Prior draws ``(chains, draws, *dims)`` with NumPy, or None (PyMC draws them)."""
        return None

    @abstractmethod
    def build_pymc(self, names: list[str] | None, counts: np.ndarray,
                   priors: Mapping[str, Any]) -> pm.Model:
        """The PyMC model of ``(B, K, K)`` counts (``names`` None: a single matrix)."""

    @abstractmethod
    def observed(self, counts: np.ndarray, priors: Mapping[str, Any]
                 ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Point values of the free parameters and ``theta = counts / N``, per classifier."""

    @abstractmethod
    def derive(self, params: Mapping[str, np.ndarray], priors: Mapping[str, Any],
               selected: Sequence[Metric], theta: np.ndarray | None = None,
               skip: Any = None) -> Derived:
        """Parameters, ``theta`` and metrics as ``{name: (extra_dims, array)}``."""

    def fit(self, ctx: Any, options: Mapping[str, Any]) -> xr.DataTree:
        """A kind's own way to fit (its own data or sampler), when it declares one.

        ``ctx`` is the :class:`~bayescm.models.context.FitContext` of the call and ``options``
        ``fit``'s sampler options. Kinds that keep :attr:`standard_pipeline` never reach this:
        :func:`bayescm.fit` runs :func:`~bayescm.models.fitting.fit_standard` for them (draw,
        derive, diagnostics, prior group, observed values, assemble). Kinds with their own data
        (scores) or their own sampler (the hierarchical model) set ``standard_pipeline =
        False`` and override this method.
        """
        raise NotImplementedError(f"The {self.key} model declares standard_pipeline = False "
                                  "but has no fit of its own.")

    def refit_arguments(self, ctx: Any, idata: xr.DataTree
                        ) -> tuple[Any, dict[str, Any], dict[str, Any]]:
        """What :func:`bayescm.refit` fits again: the data, ``fit``'s options and the priors.

        ``ctx`` is the tree's :class:`~bayescm.models.context.FitContext`. By default the
        matrices rebuilt from the counts, no options, the tree's priors; a kind fitted from
        other data (scores) rebuilds it from its tree.
        """
        return ctx.matrices(), {}, dict(ctx.priors)

    @classmethod
    def example(cls, random_seed: int = 0) -> xr.DataTree:
        """A small fitted result of this kind (for documentation and the contract tests)."""
        raise NotImplementedError(f"The {cls.key} model has no example.")
