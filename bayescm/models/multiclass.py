"""The multiclass model (Tötsch & Hoffmann 2021, "c + 1 multinomials"): K + 1 Dirichlets.

::

    prevalence ~ Dirichlet(alpha_prev)        row sums ~ Multinomial(N, prevalence)
    rates[k]   ~ Dirichlet(alpha_rates[k])    counts[k, :] ~ Multinomial(row sum k, rates[k])
    theta[k, l] = prevalence[k] * rates[k, l]

With Dirichlet priors the posterior is K + 1 independent Dirichlets,
``prevalence ~ Dirichlet(alpha_prev + row sums)`` and ``rates[k] ~ Dirichlet(alpha_rates[k] +
counts[k])``, which the exact path draws with NumPy for a whole batch at once. For K = 2 with the
positive class first this is the binary model: ``rates[0] = (tpr, 1 - tpr)`` and
``rates[1] = (1 - tnr, tnr)``. A class that never occurs (an empty row) keeps its prior row.

Priors: ``"laplace"`` = Dirichlet(1), ``"jeffreys"`` = Dirichlet(1/2), ``"haldane"`` =
Dirichlet(0) (improper: every count it needs must be positive), any :class:`~bayescm.Dirichlet`,
``Fixed`` class shares for the prevalence, one prior per true class for the rates (a list or a
``{label: prior}`` mapping, e.g. Dirichlets built from an earlier study's rows), or any object
with ``create_variable(name)`` (sampled with NUTS). A :class:`~bayescm.Beta` other than the three
presets is rejected: a Beta is a prior for one proportion, and its two parameters do not say how
to spread the concentration over K classes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescm.core.exact import draw_dirichlet
from bayescm.metrics.evaluation import evaluate_theta
from bayescm.metrics.metric import Metric
from bayescm.metrics.multiclass import MULTICLASS_METRICS, ORDERED_ONLY
from bayescm.models.base import ModelKind, Parameter
from bayescm.models.binary import inside_shares, is_fixed
from bayescm.models.registry import register
from bayescm.priors import Dirichlet, Fixed, PresetDirichlet, RatesByClass, is_conjugate  # noqa: F401
from bayescm.priors.multiclass import (  # the prior resolution lives with the priors
    check_proper,
    concentration_of,
    conjugate_rows,  # noqa: F401
    numeric_vector,  # noqa: F401
    preset_row,  # noqa: F401
    prevalence_variable,
    rates_prior,  # noqa: F401
    resolve_multiclass_priors,
)
from bayescm.priors.protocol import Family, family_of

if TYPE_CHECKING:
    import pymc as pm

__all__ = ["MulticlassModel"]

PARAMETERS = ("prevalence", "rates")
CELL_DIMS = ("true_class", "pred_class")


@register
class MulticlassModel(ModelKind):
    """The multiclass model kind (K >= 2 classes, no positive class): K + 1 Dirichlets.

    The registered kind ``"multiclass"`` of :class:`~bayescm.models.base.ModelKind`.

    Parameters
    ----------
    labels : sequence of str
        Class labels in row order.
    ordered : bool, default False
        Whether the classes are ordered (adds weighted Kappa and class-distance errors).

    Examples
    --------
    >>> import bayescm as bcm
    >>> cm = bcm.ConfusionMatrix([[15, 3, 0], [6, 18, 3], [0, 3, 12]], labels=["a", "b", "c"])
    >>> idata = bcm.fit(cm, random_seed=0, draws=500)
    >>> idata["posterior"]["tpr"].dims
    ('chain', 'draw', 'class')
    """

    key = "multiclass"
    description = "a multiclass fit"
    metric_family = "multiclass"
    has_exact = True
    scale_free = True  # every metric is invariant to the scale of theta (counts work)
    parameters = (
        Parameter("prevalence", ("class",), "class prevalence (share of each true class)",
                  Family.DIRICHLET, fixable=True),
        Parameter("rates", CELL_DIMS, "prediction rates: P(predicted class | true class)",
                  Family.DIRICHLET),
    )

    def __init__(self, labels: Sequence[str], ordered: bool = False) -> None:
        super().__init__(labels)
        self.ordered = bool(ordered)
        self.catalogue: dict[str, Metric] = MULTICLASS_METRICS

    @classmethod
    def accepts(cls, data: Any) -> bool:
        """A ConfusionMatrix without a positive class (or a mapping / sequence of them)."""
        from bayescm.models.binary import _first_matrix

        first = _first_matrix(data)
        return first is not None and not first.is_binary

    @classmethod
    def from_data(cls, data: Any) -> MulticlassModel:
        """The kind bound to the labels and order of the (first) matrix."""
        from bayescm.models.binary import _first_matrix

        first = _first_matrix(data)
        if first is None:
            raise TypeError("The multiclass model needs bcm.ConfusionMatrix objects.")
        return cls(first.coords, ordered=first.ordered)

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any], labels: Sequence[Any]) -> MulticlassModel:
        """Labels and the ``ordered`` flag from a tree's root attributes."""
        return cls(labels, ordered=bool(attrs.get("ordered", 0)))

    def root_attrs(self) -> dict[str, Any]:
        """``ordered = 1`` for ordered classes."""
        return {"ordered": 1} if self.ordered else {}

    @classmethod
    def example(cls, random_seed: int = 0) -> Any:
        """Three ordered classes, 4 x 500 draws."""
        from bayescm.core.confusion import ConfusionMatrix
        from bayescm.models.fitting import fit

        cm = ConfusionMatrix([[30, 4, 1], [3, 25, 5], [0, 4, 28]], labels=["low", "mid", "high"],
                             ordered=True)
        return fit(cm, draws=500, random_seed=random_seed)

    def coords(self) -> dict[str, Any]:
        """Coordinates of the class dims."""
        return {"true_class": self.labels, "pred_class": self.labels, "class": self.labels}

    def resolve_priors(self, prior: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """Priors of ``prevalence`` and ``rates`` (see :func:`resolve_multiclass_priors`)."""
        return resolve_multiclass_priors(self.labels, prior, overrides.get("prevalence"),
                                         overrides.get("rates"))

    def exact_posterior(
        self, counts: np.ndarray, priors: Mapping[str, Any], rng: np.random.Generator,
        chains: int, draws: int, names: list[str] | None,
    ) -> dict[str, np.ndarray]:
        """Independent posterior draws for ``(B, K, K)`` counts.

        ``prevalence`` has shape ``(chains, draws, B, K)`` and ``rates`` ``(chains, draws, B, K,
        K)``. Raises a ``ValueError`` naming the parameter, class (and classifier) when an
        improper prior meets a zero count.
        """
        k = counts.shape[-1]
        counts = counts.astype(float)
        rows = counts.sum(axis=-1)
        out = {}
        if "prevalence" in self.free(priors):
            a = concentration_of(priors["prevalence"], (k,)) + rows
            check_proper(a, priors["prevalence"], "prevalence", self.labels, "row sum", names,
                          rows == 0)
            out["prevalence"] = draw_dirichlet(rng, a, chains, draws)
        a = concentration_of(priors["rates"], (k, k)) + counts
        check_proper(a, priors["rates"], "rates", self.labels, "counts", names, rows == 0)
        out["rates"] = draw_dirichlet(rng, a, chains, draws)
        return out

    def exact_prior(self, priors: Mapping[str, Any], rng: np.random.Generator, chains: int,
                    draws: int) -> dict[str, np.ndarray] | None:
        """Prior draws with NumPy (no batch axis), or None if they need PyMC or are improper."""
        k = len(self.labels)
        free = self.free(priors)
        used = [priors[p] for p in free]
        if not all(family_of(p) is Family.DIRICHLET and p.proper for p in used):
            return None
        shapes = {"prevalence": (k,), "rates": (k, k)}
        return {p: draw_dirichlet(rng, concentration_of(priors[p], shapes[p]), chains, draws)
                for p in free}

    def build_pymc(self, names: list[str] | None, counts: np.ndarray,
                   priors: Mapping[str, Any]) -> pm.Model:
        """The PyMC model for ``(B, K, K)`` counts (``names`` None: a single matrix)."""
        import pymc as pm

        k = counts.shape[-1]
        batch = np.asarray(counts, dtype=float)
        for p, shape, desc in (("prevalence", (k,), "row sum"), ("rates", (k, k), "counts")):
            prior = priors[p]
            if is_conjugate(prior) and not is_fixed(prior) and not prior.proper:
                data = batch.sum(axis=-1) if p == "prevalence" else batch
                check_proper(concentration_of(prior, shape) + data, prior, p, self.labels, desc,
                             names, batch.sum(axis=-1) == 0)
        coords: dict[str, Any] = self.coords()
        dims: tuple[str, ...] = ()
        counts = np.asarray(counts)
        if names is None:
            counts = counts[0]
        else:
            coords["classifier"] = names
            dims = ("classifier",)
        rows = counts.sum(axis=-1)
        with pm.Model(coords=coords) as model:
            prior = priors["prevalence"]
            if is_fixed(prior):
                value = np.broadcast_to(np.asarray(prior.value), rows.shape)
                prev = pm.Data("prevalence", value, dims=dims + ("class",))
            else:
                prev = prevalence_variable("prevalence", prior, (k,), dims + ("class",), rows.shape)
                pm.Multinomial("class_counts", n=rows.sum(axis=-1), p=prev, observed=rows,
                               dims=dims + ("class",))
            rates = prevalence_variable("rates", priors["rates"], (k, k), dims + CELL_DIMS,
                                     counts.shape)
            pm.Multinomial("counts", n=rows, p=rates, observed=counts, dims=dims + CELL_DIMS)
            pm.Deterministic("theta", prev[..., :, None] * rates, dims=dims + CELL_DIMS)
        return model

    def observed(self, counts: np.ndarray, priors: Mapping[str, Any]
                 ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Point estimates of the free parameters and ``theta = counts / N``, per classifier.

        The observed rates of a class that never occurs are NaN (0/0: undefined).
        """
        counts = counts.astype(float)
        rows = counts.sum(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            theta = counts / counts.sum(axis=(-2, -1))[..., None, None]
            params = {"prevalence": rows / rows.sum(axis=-1, keepdims=True),
                      "rates": counts / rows[..., None]}
        return {p: params[p] for p in self.free(priors)}, theta

    def derive(self, params: Mapping[str, np.ndarray], priors: Mapping[str, Any],
               selected: Sequence[Metric], theta: np.ndarray | None = None,
               skip: Any = None
               ) -> dict[str, tuple[tuple[str, ...], np.ndarray]]:
        """Parameters, ``theta`` and metrics as ``{name: (extra_dims, array)}``.

        Built-in metrics share one set of one-vs-rest cells; custom metrics get ``theta``.
        ``skip`` (per averaged metric, ``(B, K)``: the classes where it is undefined at the
        observed counts, :func:`~bayescm.metrics.multiclass.undefined_classes`) leaves those
        classes out of that metric's macro and weighted averages (and the balanced accuracy's
        recalls), as the observed values must: observed and posterior averages then cover
        the same classes, metric by metric.
        """
        if theta is None:
            fixed = priors["prevalence"]
            prev = (np.asarray(fixed.value, dtype=float) if is_fixed(fixed)
                    else params["prevalence"])
            theta = inside_shares(prev)[..., :, None] * params["rates"]
        out: dict[str, tuple[tuple[str, ...], np.ndarray]] = {
            name: (self.param_dims(name), arr) for name, arr in params.items()}
        values = evaluate_theta(selected, theta, "multiclass", skip)
        for m in selected:
            out[m.name] = (("class",) if m.kind == "per_class" else (), values[m.name])
        out["theta"] = (CELL_DIMS, theta)
        return out

    def select_metrics(self, selected: Sequence[Metric], priors: Mapping[str, Any]
                       ) -> list[Metric]:
        """Metrics computed besides the parameters (which are always stored).

        Ordered-only metrics (weighted Kappa, class distances) are dropped from the default
        selection of unordered classes and raise an error when asked for by name.
        """
        chosen = [m for m in selected if m.name not in PARAMETERS]
        if self.ordered:
            return chosen
        everything = list(MULTICLASS_METRICS.values())
        ordered = [m.name for m in selected if MULTICLASS_METRICS.get(m.name) is m
                   and m.name in ORDERED_ONLY]
        if ordered and list(selected) != everything:
            raise ValueError(
                f"{ordered} need ordered classes; create the matrix with "
                "bcm.ConfusionMatrix(counts, labels=[...], ordered=True) (labels in their order)."
            )
        return [m for m in chosen if m.name not in ORDERED_ONLY or MULTICLASS_METRICS.get(
            m.name) is not m]
