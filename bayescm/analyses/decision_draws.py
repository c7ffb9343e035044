"""Per-draw rates at many thresholds, from a scores fit's weights or a batch keyed by threshold.

The decision analyses (:mod:`bayescm.analyses.decision`, :mod:`bayescm.analyses.cost`) need,
for every posterior draw, the true- and false-positive rates of each system at each threshold and
the prevalence. A nonparametric scores fit has them all in each draw's item weights: the weights
are drawn again from the seed the result records (:mod:`bayescm.models.scores_weights`), so they
are the fit's own draws, and one draw gives one whole curve. A batch of confusion matrices keyed
by threshold (``bcm.fit({"0.1": cm_10, "0.2": cm_20})``) has them per matrix.

Convention (``dcurves``): an item is positive at threshold ``t`` when its risk is ``>= t``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr
from scipy import sparse

from bayescm.core import container as box
from bayescm.core.streams import seed_from_attrs
from bayescm.models import registry
from bayescm.models.scores_observed import scores_from_tree
from bayescm.models.scores_weights import WeightLayout

__all__ = ["DEFAULT_THRESHOLDS", "RateDraws", "check_thresholds", "rate_draws"]

DEFAULT_THRESHOLDS = np.round(np.arange(0.01, 1.00, 0.01), 2)
"""0.01, 0.02, ..., 0.99: the grid of ``dcurves`` (inclusive of both ends)."""

_WEIGHTED = ("dirichlet_process", "bayesian_bootstrap")


@dataclass
class RateDraws:
    """Draws of ``tpr`` and ``fpr`` ``(chain, draw, system, threshold)`` and ``prevalence``.

    ``prevalence`` is ``(chain, draw)`` for a scores fit (the systems share the items) and
    ``(chain, draw, threshold)`` for a batch of matrices (one fit per threshold). ``coherent``
    says whether one draw is one whole curve (a scores fit) or the thresholds were drawn
    independently (a batch of matrices).
    """

    tpr: np.ndarray
    fpr: np.ndarray
    prevalence: np.ndarray
    thresholds: np.ndarray
    systems: list[str]
    coherent: bool
    source: str


def check_thresholds(thresholds: Any) -> np.ndarray:
    """Sorted distinct thresholds strictly inside (0, 1); the ``dcurves`` grid for None.

    Examples
    --------
    >>> from bayescm.analyses.decision_draws import check_thresholds
    >>> check_thresholds([0.3, 0.1]).tolist(), check_thresholds(None).size
    ([0.1, 0.3], 99)
    >>> check_thresholds([0, 0.5])
    Traceback (most recent call last):
    ...
    ValueError: thresholds must lie strictly between 0 and 1 (a threshold probability t gives ...
    """
    if thresholds is None:
        return DEFAULT_THRESHOLDS.copy()
    try:  # True is not 1.0 and "0.1" is not 0.1 here: both are refused, not converted
        flat = np.ravel(np.asarray(thresholds, dtype=object))
    except ValueError:
        flat = np.empty(0, dtype=object)
    if isinstance(thresholds, (str, bytes)) or any(
            isinstance(v, (str, bytes, bool, np.bool_)) for v in flat):
        raise TypeError(f"thresholds must be numbers in (0, 1), got {thresholds!r}.")
    try:
        t = np.atleast_1d(np.asarray(thresholds, dtype=float))
    except (TypeError, ValueError):
        raise TypeError(f"thresholds must be numbers in (0, 1), got {thresholds!r}.") from None
    if t.ndim != 1 or t.size == 0:
        raise ValueError("thresholds must be a non-empty 1-D sequence of numbers in (0, 1).")
    if not np.all(np.isfinite(t)) or np.any(t <= 0) or np.any(t >= 1):
        bad = t[~(np.isfinite(t) & (t > 0) & (t < 1))]
        raise ValueError("thresholds must lie strictly between 0 and 1 (a threshold "
                         "probability t gives false positives the weight t / (1 - t)); got "
                         f"{bad.tolist()}.")
    return np.unique(t)


def rate_draws(idata: xr.DataTree, thresholds: Any, analysis: str) -> RateDraws:
    """The per-draw rates a decision analysis needs, from a scores fit or a threshold batch.

    Raises
    ------
    ValueError
        A fit of another kind, a parametric scores fit (no item weights), scores that are not
        risks in [0, 1], thresholds outside (0, 1), or a batch whose names are not thresholds.
    """
    kind = registry.kind_of(idata, analysis, remedy=(
        f"{analysis} needs per-threshold rates: fit the risks, bcm.fit(bcm.Scores(y, "
        "{'A': risk_a, ...})), or confusion matrices keyed by threshold, bcm.fit({'0.1': "
        "cm_10, '0.2': cm_20, ...})."))
    if kind.accepts_matrices:
        if thresholds is not None:
            raise ValueError(f"{analysis} of confusion matrices reads the thresholds from the "
                             "batch names (bcm.fit({'0.1': cm_10, ...})); drop thresholds=.")
        return _matrix_rates(idata, analysis)
    return _scores_rates(idata, check_thresholds(thresholds), analysis)


def _scores_rates(idata: xr.DataTree, thresholds: np.ndarray, analysis: str) -> RateDraws:
    attrs = box.root_attrs(idata)
    method = str(attrs.get("method"))
    if method not in _WEIGHTED:
        raise ValueError(f"{analysis} reads the item weights of a nonparametric scores fit; "
                         f"this one is method={method!r} (parametric curves). Fit with "
                         "method='dirichlet_process' (the default) or 'bootstrap'.")
    seq = seed_from_attrs(attrs, strict=True)
    if seq is None:
        raise ValueError(f"{analysis} draws the fit's item weights again from its recorded "
                         "seed, and this result records none; refit it (bcm.refit).")
    data, _ = scores_from_tree(idata)
    for name, s in data.scores.items():
        if np.any(s < 0) or np.any(s > 1):
            raise ValueError(f"{analysis} needs risks (predicted probabilities in [0, 1]); "
                             f"the scores of {name!r} run from {s.min():g} to {s.max():g}. "
                             "Calibrate them to probabilities first.")
    post = box.get_group(idata, "posterior")
    chains, draws = int(post.sizes["chain"]), int(post.sizes["draw"])
    layout = WeightLayout(data, novel=method == "dirichlet_process")
    n_t = thresholds.size
    # per system: column k of the sparse matrix sums the positives whose risk passes exactly
    # k thresholds (bin k), column n_t + 1 + k the negatives; -inf atoms pass none, +inf all
    y = layout.y
    mats = []
    for name in data.names:
        passed = np.searchsorted(thresholds, layout.scores[name], side="right")
        col = np.where(y, passed, n_t + 1 + passed)
        mats.append(sparse.csr_array((np.ones(y.size, np.float32), (np.arange(y.size), col)),
                                     shape=(y.size, 2 * (n_t + 1))))
    stack = sparse.hstack(mats, format="csr")
    total = chains * draws
    tp = np.empty((total, len(data.names), n_t))
    fp = np.empty_like(tp)
    prevalence = np.empty(total)
    pos_cols = y.astype(np.float32)
    start = 0
    for w in layout.chunks(seq, total):
        m = w.shape[0]
        bins = np.asarray((stack.T @ w.T).T, dtype=np.float64)
        bins = bins.reshape(m, len(data.names), 2, n_t + 1)
        above = np.cumsum(bins[..., ::-1], axis=-1)[..., ::-1]  # weight passing >= k thresholds
        w_all = w.sum(axis=1, dtype=np.float64)
        w_pos = np.asarray(w @ pos_cols, dtype=np.float64)
        tp[start:start + m] = above[:, :, 0, 1:] / w_pos[:, None, None]
        fp[start:start + m] = above[:, :, 1, 1:] / (w_all - w_pos)[:, None, None]
        prevalence[start:start + m] = w_pos / w_all
        start += m
    shape = (chains, draws)
    return RateDraws(tp.reshape(shape + tp.shape[1:]), fp.reshape(shape + fp.shape[1:]),
                     prevalence.reshape(shape), thresholds, list(data.names), True,
                     f"scores fit ({method})")


def _matrix_rates(idata: xr.DataTree, analysis: str) -> RateDraws:
    post = box.get_group(idata, "posterior")
    fixed = None  # a fixed prevalence (a curated test set) lives in constant_data
    if "prevalence" not in post and box.has_group(idata, "constant_data") and "prevalence" in (
            const := box.get_group(idata, "constant_data")):
        fixed = float(np.asarray(const["prevalence"].values).reshape(-1)[0])
    missing = [v for v in ("tpr", "tnr") + (() if fixed is not None else ("prevalence",))
               if v not in post]
    if missing or "classifier" not in post.dims or any(
            d not in ("chain", "draw", "classifier") for d in post["tpr"].dims):
        raise ValueError(f"{analysis} of confusion matrices needs a binary batch keyed by "
                         "threshold, bcm.fit({'0.1': cm_10, '0.2': cm_20, ...}); this result "
                         "is not one. For whole curves, fit the risks: bcm.fit(bcm.Scores(y, "
                         "risk)).")
    names = [str(v) for v in post["classifier"].values]
    try:
        values = np.array([float(n) for n in names])
    except ValueError:
        raise ValueError(f"{analysis} reads each matrix's threshold from its batch name; "
                         f"these names are not numbers: {names}. Fit bcm.fit({{'0.1': cm_10, "
                         "'0.2': cm_20, ...}) (one matrix per threshold).") from None
    check_thresholds(values)
    order = np.argsort(values)
    if np.unique(values).size != values.size:
        raise ValueError(f"{analysis}: two matrices of the batch have the same threshold.")

    def arr(name: str) -> np.ndarray:
        da = post[name].transpose("chain", "draw", "classifier")
        return np.asarray(da.values, dtype=float)[..., order]

    tpr, tnr = arr("tpr"), arr("tnr")
    prevalence = arr("prevalence") if fixed is None else np.full(tpr.shape, fixed)
    return RateDraws(tpr[:, :, None, :], (1.0 - tnr)[:, :, None, :], prevalence,
                     values[order], ["A"], False, "confusion matrices keyed by threshold")
