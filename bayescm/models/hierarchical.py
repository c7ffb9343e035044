"""The registered kind ``"hierarchical"``: several groups' binary matrices, partially pooled.

The model (the bivariate binomial-normal model of diagnostic meta-analysis) is written in
:mod:`bayescm.models.hierarchical_build`, sampled and assembled into a result tree by
:mod:`bayescm.models.hierarchical_fit`; its priors live in
:mod:`bayescm.models.hierarchical_priors`. This module declares the kind (its parameters,
analyses and what data select it) and re-exports the model's public names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescm.core.deprecation import moved
from bayescm.metrics.binary import BINARY_METRICS
from bayescm.models.base import ModelKind, Parameter
from bayescm.models.hierarchical_build import (  # the public namespace bcm.hierarchical
    GROUP_VARIABLES,
    LONG_NAMES,
    POPULATION_VARIABLES,
    build_hierarchical_model,
    sroc_draws,
)
from bayescm.models.hierarchical_priors import (
    HIERARCHICAL_PARAMETERS,
    default_priors,
    resolve_priors,
)
from bayescm.models.registry import register

if TYPE_CHECKING:
    import pymc as pm

_EXAMPLES: dict[int, Any] = {}
"""The example fits made so far in this process, by seed (see ``HierarchicalModel.example``)."""

__all__ = ["GROUP_VARIABLES", "HIERARCHICAL_PARAMETERS", "POPULATION_VARIABLES",
           "HierarchicalModel", "build_hierarchical_model", "default_priors", "resolve_priors",
           "sroc_draws"]

__getattr__ = moved(__name__, {name: ("bayescm.priors", name)
                               for name in ("Normal", "HalfNormal", "LKJ")})


@register
class HierarchicalModel(ModelKind):
    """The registered kind ``"hierarchical"``: binary matrices of several groups, partially pooled.

    Fitted with ``bcm.fit(matrices, model="hierarchical", group="study")`` (NUTS, 4 x 1,000
    draws by default); priors are keyed by :data:`HIERARCHICAL_PARAMETERS` in ``priors={...}``.

    Examples
    --------
    >>> from bayescm.models.hierarchical import HierarchicalModel
    >>> HierarchicalModel.has_exact, HierarchicalModel.default_draws
    (False, 1000)
    """

    key = "hierarchical"
    standard_pipeline = False  # its own fit
    description = "a hierarchical (partially pooled) fit"
    default_draws = 1000
    parameters = tuple(Parameter(name, (), LONG_NAMES.get(name, "prevalence of each group"), None)
                       for name in HIERARCHICAL_PARAMETERS)
    analyses = frozenset({"summary", "informedness", "prob_superior", "rank_probabilities",
                          "with_prevalence", "sroc_regions", "group_gaps"})
    figures = ("group_forest", "sroc")
    pooled_groups = True
    catalogue = BINARY_METRICS

    def __init__(self, labels: Sequence[Any], group: str | None = None) -> None:
        super().__init__(labels)
        self.group = group

    @classmethod
    def from_data(cls, data: Any) -> ModelKind:
        """Binary matrices keyed by group name; multiclass ones go to the multiclass kind.

        ``model="hierarchical"`` names both: binary matrices (a positive class) get the
        bivariate model of this module, matrices of more classes (or two classes without a
        positive one) :class:`~bayescm.models.hierarchical_multiclass.MulticlassHierarchicalModel`.
        """
        from bayescm.core.confusion import as_batch

        if not isinstance(data, Mapping):
            raise TypeError("model='hierarchical' needs a mapping {group name: "
                            f"ConfusionMatrix}}, got {type(data).__name__}.")
        _, mats = as_batch(data)
        if not mats[0].is_binary:
            from bayescm.models.hierarchical_multiclass import MulticlassHierarchicalModel

            return MulticlassHierarchicalModel.from_data(data)
        return cls(mats[0].coords)

    @property
    def batch_dims(self) -> tuple[str, ...]:
        """The group dim (named by the user)."""
        return (self.group or "classifier",)

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any], labels: Sequence[Any]) -> HierarchicalModel:
        """Labels and the group dim's name."""
        return cls(labels, group=attrs.get("group"))

    def root_attrs(self) -> dict[str, Any]:
        """The positive class and the group dim's name."""
        return {"positive": self.labels[0], **({"group": self.group} if self.group else {})}

    @classmethod
    def example(cls, random_seed: int = 0) -> Any:
        """Six sites of one diagnostic test (one with a zero cell), 2 x 500 NUTS draws.

        The sites are :meth:`example_sites`; PyMC's own sampler in one process, so the example
        is the same whether or not nutpie is installed. A fit takes a few seconds (compiling and
        sampling), so the result is kept per seed for the process and each call returns its
        own deep copy: the documentation's examples share one fit.
        """
        if random_seed not in _EXAMPLES:
            from bayescm.models.fitting import fit

            _EXAMPLES[random_seed] = fit(cls.example_sites(), model="hierarchical",
                                         group="site", draws=500, tune=500, chains=2,
                                         nuts_sampler="pymc", cores=1, target_accept=0.95,
                                         random_seed=random_seed)
        return _EXAMPLES[random_seed].copy(deep=True)

    @staticmethod
    def example_sites() -> dict[str, Any]:
        """The example's six sites as ``{name: ConfusionMatrix}`` (site E: no false negative).

        Examples
        --------
        >>> from bayescm.models.hierarchical import HierarchicalModel
        >>> HierarchicalModel.example_sites()["E"].cells
        {'tp': 25, 'fn': 0, 'fp': 10, 'tn': 66}
        """
        from bayescm.core.confusion import ConfusionMatrix

        cells = {"A": (45, 5, 8, 92), "B": (30, 6, 12, 70), "C": (60, 4, 9, 120),
                 "D": (18, 5, 3, 40), "E": (25, 0, 10, 66), "F": (40, 9, 6, 85)}
        return {k: ConfusionMatrix.from_counts(tp=tp, fn=fn, fp=fp, tn=tn)
                for k, (tp, fn, fp, tn) in cells.items()}

    def select_metrics(self, selected: Sequence[Any], priors: Mapping[str, Any]) -> list[Any]:
        """Binary metrics besides the per-group prevalence, TPR and TNR (always stored)."""
        return [m for m in selected if m.name not in ("prevalence", "tpr", "tnr")]

    def resolve_priors(self, prior: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults merged under ``priors={...}``; a single ``prior=`` has no meaning here."""
        if prior is not None:
            raise ValueError("The hierarchical model's priors are set with priors={...} (keys: "
                             f"{', '.join(HIERARCHICAL_PARAMETERS)}), not prior=.")
        return resolve_priors(overrides)

    def build_pymc(self, names: list[str] | None, counts: np.ndarray,
                   priors: Mapping[str, Any]) -> pm.Model:
        """The PyMC model (:func:`build_hierarchical_model`) over the group dim."""
        return build_hierarchical_model(names or [], counts, self.group or "group", priors)

    def observed(self, counts: np.ndarray, priors: Mapping[str, Any]) -> Any:
        """Unpooled per-group point values (as the binary model)."""
        from bayescm.models.binary import BinaryModel

        return BinaryModel(self.labels).observed(counts, {"prevalence": None})

    def derive(self, params: Mapping[str, np.ndarray], priors: Mapping[str, Any],
               selected: Sequence[Any], theta: np.ndarray | None = None,
               skip: Any = None) -> Any:
        """Per-group binary metrics from per-group prevalence, TPR and TNR."""
        from bayescm.models.binary import BinaryModel
        from bayescm.priors import Laplace

        flat = {"prevalence": Laplace(), "tpr": Laplace(), "tnr": Laplace()}
        return BinaryModel(self.labels).derive(params, flat, selected, theta=theta)

    def fit(self, ctx: Any, options: Mapping[str, Any]) -> Any:
        """NUTS on the non-centred model, then the per-group, pooled and new-group outputs."""
        from bayescm.models.checks import sampler_options

        options = dict(options)
        group = options.pop("group", None)
        if not isinstance(group, str) or not group.isidentifier():
            raise ValueError(f"model='hierarchical' needs group='name' naming the group dim "
                             f"(e.g. 'site', 'study', 'subgroup'), got group={group!r}.")
        if ctx.method not in ("auto", "nuts"):
            raise ValueError(f"The hierarchical model is sampled with NUTS; "
                             f"method={ctx.method!r} is not available for it.")
        progressbar = bool(options.pop("progressbar", False))
        extra = options.pop("sampler_kwargs", None)
        if extra is not None and not isinstance(extra, Mapping):
            raise TypeError(f"sampler_kwargs must be a mapping of pymc.sample options, got "
                            f"{extra!r}.")
        from bayescm.models.hierarchical_fit import fit_hierarchical, sampler_defaults

        # validated like every NUTS fit, naming the sampler (nutpie when installed)
        merged = {**dict(extra or {}), **options}
        options = sampler_options("nuts", None, {**sampler_defaults(merged, ctx.chains),
                                                 **merged})
        self.group = group

        return fit_hierarchical(ctx, group, progressbar=progressbar, options=options)
