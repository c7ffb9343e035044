"""The kind ``"stratified"``: a population's metrics from items labelled within strata.

``bcm.fit(bcm.StratifiedSample(counts, sizes))``. Within stratum ``s`` the items' cells
(true class, prediction) have probabilities ``phi_s ~ Dirichlet(a + n_s)`` over the cells the
stratum can hold (:meth:`~bayescm.core.stratified.StratifiedSample.possible`; ``a`` is the
prior's concentration per cell, 1 by default: uniform over the stratum's possible cells).

The population is finite: the stratum's ``N_s - n_s`` unlabelled items are drawn, per
posterior draw, as ``Multinomial(N_s - n_s, phi_s)``
(:func:`~bayescm.models.stratified_fit.population_draws`: sampling without replacement from
the stratum, the labelled items known), and every metric is that of the population's own
confusion matrix, ``sum_s (n_s + U_s) / N``: what an auditor of these cases wants to know.
``finite=False`` gives the super-population instead, ``sum_s (N_s / N) phi_s``.

Treating the labelled items as a random sample of the population instead weighs each stratum
by its labelled share: with 200 flagged and 300 unflagged items of 3,000 and 997,000, the
flagged cases count 133 times too much, and TPR, prevalence, F1 and accuracy come out badly
wrong (PPV and NPV, read within their strata, do not).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bayescm.metrics.binary import BINARY_METRICS
from bayescm.models.base import ModelKind, Parameter
from bayescm.models.registry import register

__all__ = ["STRATIFIED_PARAMETERS", "StratifiedModel"]

STRATIFIED_PARAMETERS = ("cells",)
"""The parameter whose prior can be swapped: each stratum's cell probabilities."""


@register
class StratifiedModel(ModelKind):
    """Metrics of a population from a stratified audit (exact draws; no NUTS).

    The posterior holds every metric of the population (``tpr``, ``tnr``, ``prevalence``,
    ``ppv``, ``npv``, ``acc``, ``f1``, ... for a binary audit; the multiclass catalogue
    otherwise) and ``cells``, each stratum's cell probabilities.

    Examples
    --------
    >>> import bayescm as bcm
    >>> audit = bcm.StratifiedSample(
    ...     {"flagged": bcm.ConfusionMatrix.from_counts(tp=150, fn=0, fp=50, tn=0),
    ...      "unflagged": bcm.ConfusionMatrix.from_counts(tp=0, fn=3, fp=0, tn=297)},
    ...     {"flagged": 3_000, "unflagged": 997_000})
    >>> idata = bcm.fit(audit, random_seed=0)
    >>> round(float(idata["posterior"]["ppv"].mean()), 2)  # doctest: +MC
    0.75
    >>> round(float(idata["posterior"]["prevalence"].mean()), 3)  # doctest: +MC
    0.014
    """

    key = "stratified"
    standard_pipeline = False
    accepts_matrices = False
    has_exact = True
    description = "a stratified audit of a population"
    default_draws = 2000
    parameters = (Parameter("cells", ("stratum", "true_class", "pred_class"),
                            "cell probabilities within each stratum", None),)
    analyses = frozenset({"summary", "informedness", "prob_superior", "rank_probabilities"})

    def __init__(self, labels: Sequence[Any], positive: bool = True,
                 finite: bool = True) -> None:
        super().__init__(labels)
        self.binary = bool(positive)
        self.finite = bool(finite)

    @property
    def catalogue(self) -> Any:  # type: ignore[override]
        """The binary catalogue for a binary audit, else the multiclass one."""
        from bayescm.metrics.multiclass import MULTICLASS_METRICS

        return BINARY_METRICS if self.binary else MULTICLASS_METRICS

    @property
    def metric_family(self) -> str:  # type: ignore[override]
        """``binary`` or ``multiclass``."""
        return "binary" if self.binary else "multiclass"

    @classmethod
    def accepts(cls, data: Any) -> bool:
        """A :class:`~bayescm.StratifiedSample`."""
        from bayescm.core.stratified import StratifiedSample

        return isinstance(data, StratifiedSample)

    @classmethod
    def from_data(cls, data: Any) -> StratifiedModel:
        """The kind of the audit's classes."""
        from bayescm.core.stratified import StratifiedSample

        if not isinstance(data, StratifiedSample):
            raise TypeError("The stratified model needs bcm.StratifiedSample(counts, sizes), "
                            f"got {type(data).__name__}.")
        return cls(data.first.coords, positive=data.first.is_binary)

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any], labels: Sequence[Any]) -> StratifiedModel:
        """Labels, whether the audit is binary, and the population's kind."""
        return cls(labels, positive="positive" in attrs,
                   finite=attrs.get("population", "finite") == "finite")

    def root_attrs(self) -> dict[str, Any]:
        """The positive class of a binary audit and the population's kind."""
        out: dict[str, Any] = {"population": "finite" if self.finite else "super-population"}
        return {**out, **({"positive": self.labels[0]} if self.binary else {})}

    def coords(self) -> dict[str, Any]:
        """Coordinates of the class dims."""
        return {"true_class": self.labels, "pred_class": self.labels, "class": self.labels}

    def resolve_priors(self, prior: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """Each stratum's cells: a preset whose ``alpha`` is the concentration per cell.

        ``prior="laplace"`` (the default, 1 per cell: uniform over the stratum's possible
        cells) or ``"jeffreys"`` (1/2 per cell); ``priors={"cells": ...}`` the same. The
        default keeps the 95 % HDI of a population's TPR at its promise where it rests on a
        handful of positives among unflagged labels (0.93, 186 of 200 simulated audits, against
        0.92 over 400 with Jeffreys': ``benchmarks/exact_coverage_table.md``).
        """
        from bayescm.priors import resolve_prior
        from bayescm.priors.presets import Laplace

        given = overrides.get("cells", prior)
        chosen = Laplace() if given is None else resolve_prior(given, "cells")
        alpha = getattr(chosen, "alpha", None)
        if (not isinstance(alpha, (int, float)) or getattr(chosen, "beta", alpha) != alpha
                or alpha <= 0):
            raise TypeError("The cells of a stratum take a symmetric prior with a positive "
                            "concentration per cell: 'jeffreys' (1/2), 'laplace' or 'flat' (1) "
                            f"or bcm.Beta(a, a); got {chosen!r}.")
        return {"cells": chosen}

    def build_pymc(self, names: Any, counts: np.ndarray, priors: Mapping[str, Any]) -> Any:
        """No PyMC model: the posterior is drawn exactly."""
        raise TypeError("The stratified model is drawn exactly; it has no PyMC model.")

    def observed(self, counts: np.ndarray, priors: Mapping[str, Any]) -> Any:
        """Parameters and ``theta`` of the population at the weighted counts (see fit)."""
        from bayescm.models.stratified_fit import params_of

        theta = np.asarray(counts, dtype=float)
        theta = theta / theta.sum(axis=(-2, -1), keepdims=True)
        return params_of(theta, self.binary), theta

    def derive(self, params: Mapping[str, np.ndarray], priors: Mapping[str, Any],
               selected: Sequence[Any], theta: np.ndarray | None = None,
               skip: Any = None) -> Any:
        """Every metric of the population, from its cells ``theta``."""
        from bayescm.models.binary import BinaryModel
        from bayescm.models.multiclass import MulticlassModel
        from bayescm.priors import Beta, Weak

        if self.binary:
            flat = {"prevalence": Beta(1, 1), "tpr": Beta(1, 1), "tnr": Beta(1, 1)}
            return BinaryModel(self.labels).derive(params, flat, selected, theta, skip)
        return MulticlassModel(self.labels).derive(params, {"prevalence": Weak()}, selected,
                                                   theta, skip)

    def select_metrics(self, selected: Sequence[Any], priors: Mapping[str, Any]) -> list[Any]:
        """The catalogue's choice (ordered-only metrics left out)."""
        from bayescm.models.multiclass import MulticlassModel

        if self.binary:
            return list(selected)
        return MulticlassModel(self.labels).select_metrics(selected, {})

    def fit(self, ctx: Any, options: Mapping[str, Any]) -> Any:
        """Exact draws of every stratum and of the population (see the module docstring)."""
        from bayescm.core.resources import check_memory
        from bayescm.models.stratified_fit import fit_stratified

        options = dict(options)
        finite = options.pop("finite", True)
        if not isinstance(finite, (bool, np.bool_)):
            raise TypeError(f"finite= is True (the population's own matrix) or False (the "
                            f"super-population), got {finite!r}.")
        self.finite = bool(finite)
        if options:
            raise TypeError(f"fit() of a stratified audit got unknown options {sorted(options)}"
                            "; it takes finite=True (the population's own matrix) or False.")
        if ctx.method not in ("auto", "exact"):
            raise ValueError(f"The stratified model is drawn exactly; method={ctx.method!r} is "
                             "not available for it.")
        check_memory(float(ctx.draws) * ctx.chains * (3 * np.size(ctx.counts) + 40),
                     "This fit", ["fewer draws (draws=)", "fewer chains (chains=)"])
        return fit_stratified(ctx, self.finite)

    @classmethod
    def example(cls, random_seed: int = 0) -> Any:
        """A binary audit: 200 of 3,000 flagged and 300 of 997,000 unflagged cases labelled."""
        from bayescm.core.confusion import ConfusionMatrix
        from bayescm.core.stratified import StratifiedSample
        from bayescm.models.fitting import fit

        audit = StratifiedSample(
            {"flagged": ConfusionMatrix.from_counts(tp=150, fn=0, fp=50, tn=0),
             "unflagged": ConfusionMatrix.from_counts(tp=0, fn=3, fp=0, tn=297)},
            {"flagged": 3_000, "unflagged": 997_000})
        return fit(audit, random_seed=random_seed)
