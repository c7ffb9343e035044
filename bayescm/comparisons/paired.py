"""Paired comparison of two classifiers evaluated on the same test samples.

When classifiers A and B predict the same samples their errors are correlated (they usually fail
on the same hard cases). Two separate posteriors, one per confusion matrix, throw that away and
make the difference look more uncertain than it is. The joint model keeps it: every sample falls
into one cell ``(true class k, prediction of A l, prediction of B m)`` of a ``K x K x K`` table,

::

    p      ~ Dirichlet(alpha)                     over the K^3 cells
    counts ~ Multinomial(N, p)
    theta_A[k, l] = sum_m p[k, l, m]              (A's confusion probability matrix)
    theta_B[k, m] = sum_l p[k, l, m]              (B's)

The Dirichlet is conjugate, so the posterior ``Dirichlet(alpha + counts)`` is drawn exactly and
both classifiers' metrics (and their difference) come from the same draws. For accuracy alone a
2 x 2 agreement table (both right, only A right, only B right, both wrong) is enough:
:func:`compare_paired_counts`.

Metrics are those of the catalogue: binary metrics ``metric(tp, fn, fp, tn)`` (pass
``positive``), and multiclass overall metrics ``metric(theta)`` when the multiclass catalogue is
available (``bayescm.metrics.base.catalogue_for("multiclass")``). Per-class metrics are not compared
here; compare their macro averages.

Result layout (an ArviZ-schema tree): the posterior holds ``cells`` (the joint probabilities),
``theta`` with dims ``(classifier, true_class, pred_class)``, every metric with dim
``classifier`` = ``["A", "B"]`` (or the given ``names``), and ``<metric>_diff`` = A minus B. The
``comparison`` group (dim ``metric``) holds the mean and HDI of each difference and
``p_a_better``, ``p_rope`` (|difference| <= rope), ``p_b_better``, which sum to 1; "better"
follows the metric's direction (lower is better for error rates). Because the classifiers share
one joint posterior, :func:`bayescm.comparisons.compare.prob_superior` with the batch form
``prob_superior(result, "A", "B", metric=...)`` pairs the draws correctly too.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from bayescm._version import __version__
from bayescm.core import container as box
from bayescm.core.confusion import _as_label_array
from bayescm.core.exact import draw_dirichlet
from bayescm.core.stats import HDI_PROB, check_prob, hdi
from bayescm.core.streams import record, seed_sequence, streams
from bayescm.core.validate import keyword_checked
from bayescm.metrics.base import Metric, catalogue_for, resolve_metrics
from bayescm.models.pipeline import check_int, diagnostic_variables
from bayescm.priors.base import Beta, Dirichlet, Fixed, resolve_prior

__all__ = ["compare_paired", "compare_paired_counts", "comparison_table", "encode_labels"]

AGREEMENT = ("both_right", "only_a_right", "only_b_right", "both_wrong")
"""Cells of the 2 x 2 agreement table of :func:`compare_paired_counts`."""


# ---------------------------------------------------------------------------- inputs
@keyword_checked
def encode_labels(
    y_true: Iterable[Hashable],
    preds: Sequence[Iterable[Hashable]],
    labels: Sequence[Hashable] | None = None,
    positive: Hashable | None = None,
    pred_names: Sequence[str] = ("pred_a", "pred_b"),
) -> tuple[list[Hashable], np.ndarray, list[np.ndarray]]:
    """Integer codes of true labels and of one or more prediction vectors.

    The class order is ``labels`` or the sorted union of all inputs, with ``positive`` moved
    first (the binary convention: positive class in row 0).

    Examples
    --------
    >>> from bayescm.comparisons.paired import encode_labels
    >>> classes, t, (a,) = encode_labels(["n", "p", "p"], [["p", "p", "n"]], positive="p")
    >>> classes, t.tolist(), a.tolist()
    (['p', 'n'], [1, 0, 0], [0, 0, 1])
    """
    t = _as_label_array(y_true, "y_true")
    ps = [_as_label_array(p, name) for p, name in zip(preds, pred_names, strict=False)]
    for p, name in zip(ps, pred_names, strict=False):
        if p.size != t.size:
            raise ValueError(
                f"y_true has {t.size} labels but {name} has {p.size}; every prediction vector "
                "must cover the same samples."
            )
    if t.size == 0:
        raise ValueError("No samples: y_true is empty.")
    seen = list(dict.fromkeys([*t.tolist(), *(v for p in ps for v in p.tolist())]))
    if labels is None:
        try:
            classes = sorted(seen)
        except TypeError:
            classes = seen
    else:
        if isinstance(labels, (str, bytes)):
            raise TypeError(f"labels must be a sequence of class labels, got {labels!r}.")
        classes = list(labels)
        if len(set(classes)) != len(classes):
            raise ValueError("labels contains duplicates.")
    if positive is not None:
        if positive not in classes:
            raise ValueError(f"positive={positive!r} is not among the classes {classes}.")
        classes = [positive] + [c for c in classes if c != positive]
    index = {c: i for i, c in enumerate(classes)}
    unknown = [v for v in seen if v not in index]
    if unknown:
        raise ValueError(f"Labels {unknown[:5]} occur in the data but not in labels={classes}.")
    if len(classes) < 2:
        raise ValueError(f"Only one class ({classes}) occurs; pass labels=[...] naming all.")

    def codes(arr: np.ndarray) -> np.ndarray:
        return np.fromiter((index[v] for v in arr.tolist()), dtype=np.int64, count=arr.size)

    return classes, codes(t), [codes(p) for p in ps]


def _kind_and_catalogue(n_classes: int, positive: Hashable | None) -> tuple[str, dict[str, Metric]]:
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
            "catalogue (bayescm.metrics.base.catalogue_for('multiclass')), not available in this "
            "version; for two classes pass positive=<the positive class>."
        ) from None


def _paired_alpha(prior: Any, n_cells: int) -> np.ndarray:
    """The Dirichlet concentration over the cells from a prior name or bcm.Dirichlet."""
    if isinstance(prior, Dirichlet):
        alpha = np.asarray(prior.alpha, dtype=float)
        if alpha.ndim == 1 and alpha.size != n_cells:
            raise ValueError(
                f"The Dirichlet prior has {alpha.size} entries but the joint table has "
                f"{n_cells} cells (K^3 in the order true, A, B; or 4 for the agreement table)."
            )
        return np.broadcast_to(alpha, (n_cells,)).astype(float)
    if isinstance(prior, Fixed):
        raise ValueError("A paired comparison cannot fix the cell probabilities; use a prior.")
    p = resolve_prior(prior, "the joint cell probabilities")
    if not isinstance(p, Beta) or p.alpha != p.beta:
        raise TypeError(
            "The paired model takes a symmetric Dirichlet over its cells: pass 'laplace' "
            "(alpha = 1), 'jeffreys' (1/2), 'haldane' (0) or bcm.Dirichlet(alpha); got "
            f"{prior!r}."
        )
    return np.full(n_cells, p.alpha)


def _check_rope(rope: Any, names: Sequence[str]) -> dict[str, float]:
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


def _check_names(names: Any) -> list[str]:
    names = [str(n) for n in names]
    if len(names) != 2 or names[0] == names[1]:
        raise ValueError(f"names must be two different labels for A and B, got {names}.")
    return names


def _proper(alpha: Any) -> bool:
    parts = alpha if isinstance(alpha, tuple) else (alpha,)
    return all(bool(np.all(np.asarray(a) > 0)) for a in parts)


def _draw_cells(rng: np.random.Generator, alpha: Any, counts: np.ndarray, chains: int,
                draws: int, check: bool = False) -> np.ndarray:
    """Cell probabilities ``(chains, draws, *counts.shape)`` from the conjugate posterior."""
    if not isinstance(alpha, tuple):  # one Dirichlet over every cell
        post = counts.reshape(-1).astype(float) + alpha
        if check:
            _check_positive_cells(post.reshape(counts.shape))
        return draw_dirichlet(rng, post, chains, draws).reshape((chains, draws) + counts.shape)
    prev_alpha, joint_alpha = alpha
    k = counts.shape[0]
    prev_post = prev_alpha + counts.sum(axis=(1, 2))
    joint_post = joint_alpha + counts
    if check:
        _check_positive_cells(joint_post, prev_post)
    prev = draw_dirichlet(rng, prev_post, chains, draws)  # (chains, draws, K)
    joint = draw_dirichlet(rng, joint_post.reshape(k, -1), chains, draws)  # (.., K, K * K)
    return (prev[..., None] * joint).reshape((chains, draws) + counts.shape)


def _check_positive_cells(joint: np.ndarray, prev: np.ndarray | None = None) -> None:
    bad = joint <= 0
    if prev is not None and np.any(prev <= 0):
        raise ValueError("The improper (Haldane) prior leaves a true class without samples and "
                         "without concentration, so the posterior is improper; use "
                         "prior='weak' or 'jeffreys'.")
    if np.any(bad):
        cell = np.unravel_index(int(np.argmax(bad)), joint.shape)
        raise ValueError(
            f"The improper (Haldane) prior leaves cell {tuple(map(int, cell))} with zero count "
            "and zero concentration, so the posterior is improper; use prior='weak' or "
            "'jeffreys'."
        )


def _structured_prior(prior: Any, labels: list[str]) -> tuple[tuple[np.ndarray, np.ndarray],
                                                               dict[str, Any]]:
    """The paired prior that has ``fit``'s prior as each classifier's margin.

    For each true class ``k`` with ``fit``'s rates concentration ``beta_k`` the (A, B) pairs get
    ``alpha_k[l, m] = beta_k[l] beta_k[m] / sum(beta_k)``: its row and column sums are
    ``beta_k``, so (Dirichlet aggregation) A's and B's rates have exactly ``fit``'s prior and
    posterior, and the total strength per true class is ``fit``'s, not K times it.
    """
    from bayescm.models.multiclass import _alpha, resolve_multiclass_priors

    k = len(labels)
    chosen = resolve_multiclass_priors(labels, prior)
    prev = np.asarray(_alpha(chosen["prevalence"], (k,)), dtype=float)
    rates = np.asarray(_alpha(chosen["rates"], (k, k)), dtype=float)
    total = rates.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        joint = np.where(total[:, None, None] > 0,
                         rates[:, :, None] * rates[:, None, :] / total[:, None, None], 0.0)
    record = {"dist": "paired", "name": chosen["rates"].name, "prevalence": prev.tolist(),
              "rates": rates.tolist()}
    return (prev, joint), record


def _rng(seq: np.random.SeedSequence) -> tuple[np.random.Generator, np.random.Generator]:
    post, prior = streams(seq, 2)
    return post, prior


# ---------------------------------------------------------------------------- metrics
def _metric_values(metric: Metric, theta: np.ndarray, kind: str) -> np.ndarray:
    """A metric on confusion probabilities ``theta[..., true, pred]`` (any leading shape)."""
    if kind == "binary":
        value = metric(theta[..., 0, 0], theta[..., 0, 1], theta[..., 1, 0], theta[..., 1, 1])
    else:
        value = metric(theta)
    value = np.asarray(value, dtype=float)
    if value.shape != theta.shape[:-2]:
        value = np.broadcast_to(value, theta.shape[:-2]).copy()
    return value


def _ordered_only() -> tuple[str, ...]:
    try:
        from bayescm.metrics.multiclass import ORDERED_ONLY
    except ImportError:  # pragma: no cover - older layouts
        return ()
    return tuple(ORDERED_ONLY)


def _select_metrics(metrics: Any, catalogue: dict[str, Metric], kind: str, ordered: bool = False
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
        value = _metric_values(m, theta, kind)
        out[m.name] = (lead + ("classifier",), value, {"long_name": m.long_name})
        with np.errstate(invalid="ignore", over="ignore"):  # inf - inf: undefined (NaN)
            diff = value[..., 0] - value[..., 1]
        out[f"{m.name}_diff"] = (lead, diff, {"long_name": f"{m.long_name}: A minus B"})
    return out


def _tree(
    counts: np.ndarray, alpha: np.ndarray, cell_dims: tuple[str, ...], coords: dict[str, Any],
    theta_fn: Any, metrics: Sequence[Metric], kind: str, rope: Mapping[str, float],
    draws: int, chains: int, random_seed: Any, hdi_prob: float, attrs: dict[str, Any],
    extra_observed: Mapping[str, Any] = (), store_theta: bool = True,
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
              "diagnostic": ["r_hat", "ess_bulk"], "metric": [m.name for m in metrics],
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
        {"counts": (cell_dims, counts, {"long_name": "joint counts"}), **dict(extra_observed)},
        coords)
    return box.make_tree(groups, {
        "bayescm_version": __version__, "method": "exact", "hdi_prob": hdi_prob,
        "draws": draws, "chains": chains,
        **record(seq),
        "rope": box.json_attr(dict(rope)),
        "metrics": box.json_attr([m.name for m in metrics]),
        **attrs,
    })


# ---------------------------------------------------------------------------- public
@keyword_checked
def compare_paired(
    y_true: Iterable[Hashable],
    pred_a: Iterable[Hashable],
    pred_b: Iterable[Hashable],
    metrics: Iterable[str | Metric] | str | Metric | None = None,
    labels: Sequence[Hashable] | None = None,
    positive: Hashable | None = None,
    prior: Any = None,
    rope: float | Mapping[str, float] = 0.0,
    draws: int = 5000,
    chains: int = 4,
    random_seed: int | np.random.Generator | None = None,
    *,
    ordered: bool = False,
    names: Sequence[str] = ("A", "B"),
    hdi_prob: float = HDI_PROB,
) -> xr.DataTree:
    """Bayesian paired comparison of two classifiers scored on the same samples.

    Fits the joint Dirichlet-multinomial model of (true class, prediction of A, prediction of
    B) described in the module notes, so both classifiers' metrics and their difference come
    from one posterior that keeps the correlation of their errors.

    Parameters
    ----------
    y_true, pred_a, pred_b : sequence of hashable
        True labels and the two classifiers' predictions for the same samples (equal lengths).
    metrics : str, Metric or list of them, optional
        Metrics to compare (aliases accepted); default the whole catalogue except per-class
        metrics.
    labels : sequence of hashable, optional
        Classes and their order; default the sorted union of the inputs.
    positive : hashable, optional
        The positive class: makes a binary analysis (required for two classes unless the
        multiclass catalogue is available).
    prior : str or Dirichlet, optional
        A named prior of :func:`~bayescm.fit` (default ``"weak"``, which is Laplace for two
        classes; ``"laplace"``, ``"jeffreys"``, ``"flat"``, ``"haldane"``): the prevalence gets
        ``fit``'s prevalence prior and each true class a Dirichlet over the (A, B) prediction
        pairs whose margins are ``fit``'s rates prior, so each classifier's marginal posterior
        is exactly ``fit``'s on its own matrix and the prior's strength does not grow like
        ``K^3`` (the former flat Dirichlet put 1,000 pseudo-counts on the cells at K = 10). Or
        ``bcm.Dirichlet(alpha)`` with a scalar or ``K^3`` values (order true, A, B): one
        Dirichlet over the cells themselves.
    rope : float or mapping of metric -> float, default 0.0
        Half-width of the region of practical equivalence for the difference A - B.
    draws, chains : int
        Posterior draws per chain and chains (exact, independent draws).
    random_seed : int or numpy Generator, optional
        Same seed, same draws.
    ordered : bool, default False
        Multiclass: whether the classes are ordered (``labels`` in their order); adds the
        weighted kappas and class-distance errors to the default metrics.
    names : pair of str, default ("A", "B")
        Coordinates of the ``classifier`` dim.
    hdi_prob : float, default 0.95
        Probability of the HDI in the ``comparison`` group.

    Returns
    -------
    xarray.DataTree
        Groups ``posterior`` (``cells``; ``theta`` and each metric with a ``classifier`` dim;
        ``<metric>_diff``), ``prior``, ``observed_data`` (``counts`` with dims ``true_class,
        pred_a, pred_b``; ``marginal_counts`` per classifier), ``observed_metrics``,
        ``diagnostics`` and ``comparison`` (dim ``metric``: ``diff_mean, diff_hdi_lower,
        diff_hdi_upper, p_a_better, p_rope, p_b_better, rope, higher_is_better``); see
        :func:`comparison_table`.

    Raises
    ------
    ValueError
        Unequal lengths, unknown metric or label, a per-class metric, a negative rope, an
        improper (Haldane) posterior, a multiclass problem without the multiclass catalogue.

    See Also
    --------
    compare_paired_counts : accuracy from the 2 x 2 agreement table only.
    bayescm.analyses.frequentist.bootstrap : the frequentist joint bootstrap.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.comparisons.paired import compare_paired, comparison_table
    >>> y = np.array([1] * 50 + [0] * 50)
    >>> a = y.copy(); a[:10] = 1 - a[:10]            # A wrong on samples 0-9
    >>> b = y.copy(); b[:16] = 1 - b[:16]            # B wrong on 0-15: the same plus six more
    >>> res = compare_paired(y, a, b, metrics=["acc", "err"], positive=1, random_seed=0)
    >>> res["posterior"]["acc"].dims
    ('chain', 'draw', 'classifier')
    >>> table = comparison_table(res)
    >>> bool(table.loc["acc", "p_a_better"] > 0.95)
    True
    >>> table.loc["acc", "p_a_better"] == table.loc["err", "p_a_better"]
    np.True_
    """
    classes, t, (a, b) = encode_labels(y_true, [pred_a, pred_b], labels, positive)
    k = len(classes)
    kind, catalogue = _kind_and_catalogue(k, positive)
    selected = _select_metrics(metrics, catalogue, kind, bool(ordered))
    draws = check_int(draws, "draws", 1)
    chains = check_int(chains, "chains", 1)
    hdi_prob = check_prob(hdi_prob)
    names = _check_names(names)
    rope_map = _check_rope(rope, [m.name for m in selected])
    str_classes = [str(c) for c in classes]
    if isinstance(prior, Dirichlet):  # a concentration over the K^3 cells themselves
        alpha: Any = _paired_alpha(prior, k ** 3)
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
    attrs = {"model": kind, "comparison": "paired: prevalence x Dirichlet over (A, B) per true "
                                          "class",
             "labels": box.json_attr(str_classes), "classifiers": box.json_attr(names),
             "prior": box.json_attr(prior_record)}
    if positive is not None:
        attrs["positive"] = str(positive)
    if ordered:
        attrs["ordered"] = 1
    return _tree(counts, alpha, ("true_class", "pred_a", "pred_b"), coords, theta_fn, selected,
                 kind, rope_map, draws, chains, random_seed, hdi_prob, attrs,
                 {"marginal_counts": (("classifier", "true_class", "pred_class"), marginal,
                                      {"long_name": "each classifier's confusion matrix"})})


@keyword_checked
def compare_paired_counts(
    both_right: int,
    only_a_right: int,
    only_b_right: int,
    both_wrong: int,
    *,
    rope: float = 0.0,
    prior: Any = "laplace",
    draws: int = 5000,
    chains: int = 4,
    random_seed: int | np.random.Generator | None = None,
    names: Sequence[str] = ("A", "B"),
    hdi_prob: float = HDI_PROB,
) -> xr.DataTree:
    """Paired comparison of two accuracies from the 2 x 2 agreement table alone.

    ``p ~ Dirichlet(alpha + counts)`` over the four cells (both right, only A right, only B
    right, both wrong); ``acc_A = p_both + p_onlyA``, ``acc_B = p_both + p_onlyB`` and the
    difference is ``p_onlyA - p_onlyB``: only the discordant samples inform it (the Bayesian
    counterpart of McNemar's test).

    Parameters
    ----------
    both_right, only_a_right, only_b_right, both_wrong : int
        Counts of samples in each agreement cell.
    rope : float, default 0.0
        Half-width of the region of practical equivalence for acc_A - acc_B.
    prior : str or Dirichlet, default "laplace"
        Symmetric Dirichlet over the four cells (``"laplace"`` alpha = 1, ``"jeffreys"`` 1/2,
        ``"haldane"`` 0) or ``bcm.Dirichlet`` with one or four values.
    draws, chains : int
        Posterior draws per chain and chains.
    random_seed : int or numpy Generator, optional
        Same seed, same draws.
    names : pair of str, default ("A", "B")
        Coordinates of the ``classifier`` dim.
    hdi_prob : float, default 0.95
        Probability of the HDI in the ``comparison`` group.

    Returns
    -------
    xarray.DataTree
        As :func:`compare_paired` with the single metric ``acc``; ``cells`` has the dim
        ``agreement``.

    Examples
    --------
    >>> from bayescm.comparisons.paired import compare_paired_counts, comparison_table
    >>> res = compare_paired_counts(740, 10, 40, 210, rope=0.01, random_seed=0)
    >>> table = comparison_table(res)
    >>> round(float(table.loc["acc", "diff_mean"]), 3)
    -0.03
    >>> bool(table.loc["acc", "p_b_better"] > 0.95)
    True
    """
    values = {"both_right": both_right, "only_a_right": only_a_right,
              "only_b_right": only_b_right, "both_wrong": both_wrong}
    for key, v in values.items():
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{key} must be a count (non-negative integer), got {v!r}.")
        if v < 0:
            raise ValueError(f"{key} must be a non-negative count, got {v}.")
    counts = np.array(list(values.values()), dtype=np.int64)
    if counts.sum() == 0:
        raise ValueError("The agreement table is empty: all four counts are 0.")
    draws = check_int(draws, "draws", 1)
    chains = check_int(chains, "chains", 1)
    hdi_prob = check_prob(hdi_prob)
    names = _check_names(names)
    acc = catalogue_for("binary")["acc"]
    rope_map = _check_rope(rope, ["acc"])
    alpha = _paired_alpha(prior, 4)

    def theta_fn(cells: np.ndarray) -> np.ndarray:
        # each classifier as a 2 x 2 matrix [[right, wrong], [0, 0]] whose tp + tn is the
        # accuracy (used only to evaluate the catalogue's accuracy; not stored)
        right_a = cells[..., 0] + cells[..., 1]
        right_b = cells[..., 0] + cells[..., 2]
        zero = np.zeros_like(right_a)
        mats = [np.stack([np.stack([r, 1.0 - r], -1), np.stack([zero, zero], -1)], -2)
                for r in (right_a, right_b)]
        return np.stack(mats, axis=-3)

    coords = {"agreement": list(AGREEMENT), "classifier": names}
    attrs = {"model": "binary", "comparison": "paired: Dirichlet over the agreement table",
             "classifiers": box.json_attr(names),
             "prior": box.json_attr({"dist": "Dirichlet", "alpha": alpha.tolist()})}
    tree = _tree(counts, alpha, ("agreement",), coords, theta_fn, [acc], "binary", rope_map,
                 draws, chains, random_seed, hdi_prob, attrs, store_theta=False)
    return tree


@keyword_checked
def comparison_table(idata: xr.DataTree) -> pd.DataFrame:
    """The ``comparison`` group of a paired result as a table (one row per metric).

    Examples
    --------
    >>> from bayescm.comparisons.paired import compare_paired_counts, comparison_table
    >>> table = comparison_table(compare_paired_counts(50, 5, 5, 40, random_seed=1))
    >>> list(table.columns[:3])
    ['diff_mean', 'diff_hdi_lower', 'diff_hdi_upper']
    """
    ds = box.get_group(idata, "comparison")
    return ds.to_dataframe()
