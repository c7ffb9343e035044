"""The joint model of two classifiers scored on the same items: a Dirichlet over K^3 cells.

Each item falls in one cell (true class, prediction of A, prediction of B). The prior keeps each
classifier's margin equal to :func:`bayescm.fit`'s prior, so each classifier's marginal posterior
is exactly the one ``fit`` gives its own matrix, while the joint draws keep the correlation.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.stats import hdi, hdi_prob_for
from bayescm.core.streams import record, seed_sequence
from bayescm.core.validate import check_int
from bayescm.metrics.catalogue import catalogue_for, resolve_metrics
from bayescm.metrics.metric import Metric
from bayescm.models.base import ModelKind, Parameter
from bayescm.models.paired_prior import (
    _draw_cells,
    _proper,
    _rng,
    _structured_prior,
    paired_alpha,
)
from bayescm.models.pipeline import diagnostic_variables
from bayescm.models.registry import register
from bayescm.priors import Dirichlet
from bayescm.priors.protocol import Family


def kind_and_catalogue(n_classes: int, positive: Hashable | None
                       ) -> tuple[str, dict[str, Metric]]:
    """The metric family of a comparison (binary with a positive class) and its catalogue."""
    if positive is not None:
        if n_classes != 2:
            raise ValueError(
                f"positive= makes a binary analysis, but there are {n_classes} classes; drop "
                "positive for a multiclass comparison or relabel to two classes."
            )
        return "binary", catalogue_for("binary")
    try:
        return "multiclass", catalogue_for("multiclass")
    except ValueError:
        raise ValueError(
            "Without positive= the comparison is multiclass, which needs the multiclass metric "
            "catalogue (bayescm.metrics.catalogue_for('multiclass')), not available in this "
            "version; for two classes pass positive=<the positive class>."
        ) from None


def check_rope(rope: Any, names: Sequence[str]) -> dict[str, float]:
    """The ROPE half-width of every compared metric (one number, or a mapping), checked."""
    if isinstance(rope, Mapping):
        unknown = [k for k in rope if k not in names]
        if unknown:
            raise ValueError(f"rope names {unknown}, which are not compared ({list(names)}).")
        values = {k: rope.get(k, 0.0) for k in names}
    else:
        values = dict.fromkeys(names, rope)
    out = {}
    for k, v in values.items():
        if isinstance(v, bool) or not isinstance(v, (int, float, np.number)):
            raise TypeError(f"rope must be a number >= 0 (or a mapping metric -> number): {v!r}")
        if not np.isfinite(v) or v < 0:
            raise ValueError(f"rope must be a finite number >= 0, got {v} for {k}.")
        out[k] = float(v)
    return out


def check_pair_names(names: Any) -> list[str]:
    """The two classifiers' names (distinct text), else a ValueError."""
    names = [str(n) for n in names]
    if len(names) != 2 or names[0] == names[1]:
        raise ValueError(f"names must be two different labels for A and B, got {names}.")
    return names


def metric_values(metric: Metric, theta: np.ndarray, kind: str) -> np.ndarray:
    """A metric on confusion probabilities ``theta[..., true, pred]`` (any leading shape)."""
    from bayescm.metrics import evaluate_theta  # the one evaluation on theta

    return evaluate_theta([metric], theta, kind)[metric.name]


def _ordered_only() -> tuple[str, ...]:
    try:
        from bayescm.metrics.multiclass import ORDERED_ONLY
    except ImportError:  # pragma: no cover - older layouts
        return ()
    return tuple(ORDERED_ONLY)


def select_metrics(metrics: Any, catalogue: dict[str, Metric], kind: str, ordered: bool = False
                    ) -> list[Metric]:
    """Resolve the metrics; drop per-class and (unordered classes) ordered-only metrics.

    Asking for them by name is an error; the default selection just leaves them out.
    """
    everything = metrics is None or (isinstance(metrics, str) and metrics.lower() == "all")
    selected = resolve_metrics(metrics, catalogue, kind)
    per_class = [m.name for m in selected if m.kind == "per_class"]
    if per_class and not everything:
        raise ValueError(
            f"Per-class metrics {per_class} carry a class dim and are not compared pairwise; "
            "compare their macro averages (e.g. 'f1_macro') instead."
        )
    needs_order = [] if kind == "binary" or ordered else [
        m.name for m in selected if m.name in _ordered_only() and catalogue.get(m.name) is m]
    if needs_order and not everything:
        raise ValueError(
            f"{needs_order} need ordered classes; pass ordered=True (with labels in their order)."
        )
    return [m for m in selected if m.kind != "per_class" and m.name not in needs_order]


def _direction(metric: Metric) -> str | None:
    if metric.higher_is_better is None:
        return None
    return "higher" if metric.higher_is_better else "lower"


def _comparison(
    diffs: Mapping[str, np.ndarray], metrics: Sequence[Metric], rope: Mapping[str, float],
    hdi_prob: float,
) -> dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]]:
    """Per-metric decision probabilities from the draws of A - B, shape ``(chain, draw)``."""
    names = [m.name for m in metrics]
    flat = np.stack([diffs[n].reshape(-1) for n in names])
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        mean = flat.mean(axis=1)
        bounds = hdi(flat, hdi_prob)
        width = np.array([rope[n] for n in names])[:, None]
        above = (flat > width).mean(axis=1)
        below = (flat < -width).mean(axis=1)
    defined = ~np.isnan(flat).any(axis=1)
    inside = np.where(defined, 1.0 - above - below, np.nan)
    direction = [_direction(m) for m in metrics]
    a_better = np.array([a if d == "higher" else b if d == "lower" else np.nan
                         for a, b, d in zip(above, below, direction, strict=True)])
    b_better = np.array([b if d == "higher" else a if d == "lower" else np.nan
                         for a, b, d in zip(above, below, direction, strict=True)])
    a_better[~defined] = np.nan
    b_better[~defined] = np.nan
    return {
        "diff_mean": (("metric",), mean, {"long_name": "posterior mean of A - B"}),
        "diff_hdi_lower": (("metric",), bounds[:, 0], {"long_name": "HDI lower bound of A - B"}),
        "diff_hdi_upper": (("metric",), bounds[:, 1], {"long_name": "HDI upper bound of A - B"}),
        "p_a_better": (("metric",), a_better,
                       {"long_name": "P(A better by more than rope); NaN for descriptive metrics"}),
        "p_rope": (("metric",), inside, {"long_name": "P(|A - B| <= rope)"}),
        "p_b_better": (("metric",), b_better,
                       {"long_name": "P(B better by more than rope); NaN for descriptive metrics"}),
        "rope": (("metric",), width[:, 0], {"long_name": "half-width of the ROPE"}),
        "higher_is_better": (("metric",), np.array([
            np.nan if d is None else float(d == "higher") for d in direction]),
            {"long_name": "1 if higher is better, 0 if lower, NaN if descriptive"}),
    }


def _derive(theta: np.ndarray, metrics: Sequence[Metric], kind: str, lead: tuple[str, ...]
            ) -> dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]]:
    """Metric variables (dim classifier) and differences from ``theta[..., 2, K, K]``."""
    out: dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]] = {}
    for m in metrics:
        value = metric_values(m, theta, kind)
        out[m.name] = (lead + ("classifier",), value, {"long_name": m.long_name})
        with np.errstate(invalid="ignore", over="ignore"):  # inf - inf: undefined (NaN)
            diff = value[..., 0] - value[..., 1]
        out[f"{m.name}_diff"] = (lead, diff, {"long_name": f"{m.long_name}: A minus B"})
    return out


def joint_result(
    counts: np.ndarray, alpha: np.ndarray, cell_dims: tuple[str, ...], coords: dict[str, Any],
    theta_fn: Any, metrics: Sequence[Metric], kind: str, rope: Mapping[str, float],
    draws: int, chains: int, random_seed: Any, hdi_prob: float, attrs: dict[str, Any],
    extra_observed: Mapping[str, Any] | None = None, store_theta: bool = True,
) -> xr.DataTree:
    """Draw the joint posterior (and prior) and assemble the result tree.

    ``alpha`` is either one concentration per cell (a single Dirichlet over the cells) or a pair
    ``(prevalence alpha (K,), joint alpha (K, K, K))``: the prevalence of the true classes and,
    for each true class, a Dirichlet over the (A, B) prediction pairs.
    """
    seq = seed_sequence(random_seed)
    rng_post, rng_prior = _rng(seq)
    lead = box.SAMPLE_DIMS
    coords = {"chain": np.arange(chains), "draw": np.arange(draws),
              "diagnostic": ["r_hat", "ess_mean"], "metric": [m.name for m in metrics],
              **coords}
    cells = _draw_cells(rng_post, alpha, counts, chains, draws, check=True)
    theta = theta_fn(cells)
    posterior = {"cells": (lead + cell_dims, cells, {"long_name": "joint cell probabilities"})}
    if store_theta:
        posterior["theta"] = (lead + ("classifier", "true_class", "pred_class"), theta,
                              {"long_name": "confusion probability matrix of each classifier "
                                            "(rows true, columns predicted)"})
    posterior.update(_derive(theta, metrics, kind, lead))
    diffs = {m.name: posterior[f"{m.name}_diff"][1] for m in metrics}
    groups = {
        "posterior": box.make_dataset(posterior, coords, {"method": "exact"}),
        "diagnostics": box.make_dataset(diagnostic_variables(posterior, "split", "mean"), coords, {
            "r_hat_method": "split", "ess_method": "mean",
            "note": "exact draws are independent; classic split R-hat and Geyer ESS"}),
        "comparison": box.make_dataset(_comparison(diffs, metrics, rope, hdi_prob), coords, {
            "hdi_prob": hdi_prob,
            "note": "p_a_better + p_rope + p_b_better = 1; 'better' follows the metric's "
                    "direction; A - B differences come from one joint posterior"}),
    }
    if _proper(alpha):
        prior_cells = _draw_cells(rng_prior, alpha, np.zeros_like(counts), chains, draws)
        prior_vars = {"cells": (lead + cell_dims, prior_cells,
                                {"long_name": "joint cell probabilities"})}
        prior_vars.update(_derive(theta_fn(prior_cells), metrics, kind, lead))
        groups["prior"] = box.make_dataset(prior_vars, coords, {"method": "exact"})
    n = counts.sum()
    with np.errstate(invalid="ignore", divide="ignore"):
        obs_theta = theta_fn(counts[None, None] / n)[0, 0]
    groups["observed_metrics"] = box.make_dataset(
        _derive(obs_theta, metrics, kind, ()),
        coords, {"note": "metrics at the observed proportions; NaN means undefined"})
    groups["observed_data"] = box.make_dataset(
        {"counts": (cell_dims, counts, {"long_name": "joint counts"}), **(extra_observed or {})},
        coords)
    from bayescm.models.context import FitContext, assemble

    family = str(attrs.pop("family"))
    labels = box.read_json_attr_text(attrs.pop("labels")) if "labels" in attrs else []
    ctx = FitContext(kind=PairedModel(labels, family=family,
                                      ordered=bool(attrs.pop("ordered", 0))),
                     priors={}, metrics=list(metrics), counts=None, names=None, draws=draws,
                     chains=chains, hdi_prob=hdi_prob, method="exact", seed=seq)
    tree = assemble(ctx, groups, method="exact", rope=box.json_attr(dict(rope)), **record(seq),
                    **attrs)
    del tree.attrs["priors"]  # the joint prior is recorded under "prior"
    return tree


def joint_tree(classes: Sequence[Any], t: np.ndarray, a: np.ndarray, b: np.ndarray, *,
               positive: Hashable | None, ordered: bool, metrics: Any, prior: Any, draws: Any,
               chains: Any, random_seed: Any, hdi_prob: float | None, names: Any,
               rope: Any) -> xr.DataTree:
    """The paired result of integer-coded labels ``t`` and predictions ``a``, ``b``.

    :func:`bayescm.compare_paired` validates and encodes the labels and calls this; see there
    for the arguments.
    """
    k = len(classes)
    kind, catalogue = kind_and_catalogue(k, positive)
    selected = select_metrics(metrics, catalogue, kind, bool(ordered))
    draws = check_int(draws, "draws", 1)
    chains = check_int(chains, "chains", 1)
    hdi_prob = hdi_prob_for(hdi_prob)
    names = check_pair_names(names)
    rope_map = check_rope(rope, [m.name for m in selected])
    str_classes = [str(c) for c in classes]
    if isinstance(prior, Dirichlet):  # a concentration over the K^3 cells themselves
        alpha: Any = paired_alpha(prior, k ** 3)
        prior_record: dict[str, Any] = {"dist": "Dirichlet", "alpha": alpha.tolist()
                                        if np.unique(alpha).size > 1 else float(alpha[0])}
    else:
        alpha, prior_record = _structured_prior(prior, str_classes)
    counts = np.bincount((t * k + a) * k + b, minlength=k ** 3).reshape(k, k, k)

    def theta_fn(cells: np.ndarray) -> np.ndarray:
        return np.stack([cells.sum(axis=-1), cells.sum(axis=-2)], axis=-3)

    coords = {"true_class": str_classes, "pred_class": str_classes, "pred_a": str_classes,
              "pred_b": str_classes, "classifier": names}
    marginal = np.stack([counts.sum(axis=-1), counts.sum(axis=-2)])
    attrs: dict[str, Any] = {
        "family": kind,
        "comparison": "paired: prevalence x Dirichlet over (A, B) per true class",
        "labels": box.json_attr(str_classes), "classifiers": box.json_attr(names),
        "prior": box.json_attr(prior_record)}
    if positive is not None:
        attrs["positive"] = str(positive)
    if ordered:
        attrs["ordered"] = 1
    return joint_result(counts, alpha, ("true_class", "pred_a", "pred_b"), coords, theta_fn,
                        selected, kind, rope_map, draws, chains, random_seed, hdi_prob, attrs,
                 {"marginal_counts": (("classifier", "true_class", "pred_class"), marginal,
                                      {"long_name": "each classifier's confusion matrix"})})


@register
class PairedModel(ModelKind):
    """The registered kind ``"paired"``: two classifiers' joint posterior on shared items.

    Results come from :func:`bayescm.compare_paired` (labels and two prediction vectors) or
    :func:`bayescm.compare_paired_counts` (the 2 x 2 agreement table), not from ``fit``. The
    posterior holds both classifiers' metrics (dim ``classifier``), so ``summary``,
    ``prob_superior`` and ``rank_probabilities`` apply; analyses of one classifier's fit
    (``with_prevalence``, the predictive distributions) do not.

    Parameters
    ----------
    labels : sequence of str
        Class labels (empty for the agreement table).
    family : {"binary", "multiclass"}
        Which metric catalogue the comparison used.
    ordered : bool
        Whether the classes are ordered.

    Examples
    --------
    >>> from bayescm.models.paired import PairedModel
    >>> PairedModel(["p", "n"], family="binary").catalogue["tpr"].long_name
    'true positive rate (sensitivity)'
    """

    key = "paired"
    standard_pipeline = False  # its own fit
    description = "a paired comparison"
    accepts_matrices = False
    has_exact = True
    analyses = frozenset({"summary", "prob_superior", "rank_probabilities",
                          "paired_comparison"})
    parameters = (Parameter("cells", ("true_class", "pred_a", "pred_b"),
                            "joint cell probabilities", Family.DIRICHLET),)

    def __init__(self, labels: Sequence[Any], family: str = "multiclass",
                 ordered: bool = False) -> None:
        super().__init__(labels)
        if family not in ("binary", "multiclass"):
            raise ValueError(f"family must be 'binary' or 'multiclass', got {family!r}.")
        self.family = family
        self.ordered = bool(ordered)
        self.catalogue = catalogue_for(family)

    @property
    def metric_family(self) -> str:  # type: ignore[override]
        """The family of the compared metrics."""
        return self.family

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any], labels: Sequence[Any]) -> PairedModel:
        """Family, labels and order from the tree's attributes."""
        family = attrs.get("family", "binary" if "positive" in attrs or not labels
                           else "multiclass")
        return cls(labels, family=str(family), ordered=bool(attrs.get("ordered", 0)))

    def check_layout(self, dims: Mapping[str, tuple[str, ...]]) -> None:
        """The cells of labelled items (true, A, B), or of the agreement table (no labels)."""
        if not self.labels and "cells" in dims:
            if tuple(d for d in dims["cells"] if d not in ("chain", "draw")) != ("agreement",):
                raise ValueError("The result's attribute 'model' says 'paired' without labels "
                                 "(an agreement table), but its 'cells' have dims "
                                 f"{dims['cells']}; the tree was edited or not written by "
                                 "bcm.compare.compare_paired_counts.")
            return
        super().check_layout(dims)

    def root_attrs(self) -> dict[str, Any]:
        """The metric family (and the order of ordered classes)."""
        return {"family": self.family, **({"ordered": 1} if self.ordered else {})}

    @classmethod
    def example(cls, random_seed: int = 0) -> Any:
        """Two classifiers on 60 items of three classes, 4 x 500 draws."""
        rng = np.random.default_rng(random_seed)
        y = rng.integers(0, 3, 60)
        a = np.where(rng.random(60) < 0.8, y, rng.integers(0, 3, 60))
        b = np.where(rng.random(60) < 0.7, y, rng.integers(0, 3, 60))
        return joint_tree(["a", "b", "c"], y, a, b, positive=None, ordered=False, metrics=None,
                          prior=None, draws=500, chains=4, random_seed=random_seed,
                          hdi_prob=None, names=("A", "B"), rope=0.0)

    def resolve_priors(self, prior: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """Not used: :func:`bayescm.compare_paired` builds the joint prior."""
        raise TypeError("Paired comparisons are made with bcm.compare_paired(y_true, pred_a, "
                        "pred_b, ...), not bcm.fit.")

    def build_pymc(self, names: Any, counts: Any, priors: Any) -> Any:
        """No PyMC model: the joint Dirichlet posterior is drawn exactly."""
        raise ValueError("The paired model is drawn exactly; it has no PyMC model.")

    def observed(self, counts: Any, priors: Any) -> Any:
        """Not used (see :func:`bayescm.compare_paired`)."""
        raise NotImplementedError

    def derive(self, params: Any, priors: Any, selected: Any, theta: Any = None,
               skip: Any = None) -> Any:
        """Not used (see :func:`bayescm.compare_paired`)."""
        raise NotImplementedError

    def fit(self, ctx: Any, options: Mapping[str, Any]) -> Any:
        """Not fitted through ``bcm.fit``: use :func:`bayescm.compare_paired`."""
        return self.resolve_priors(None, {})  # raises, naming compare_paired
