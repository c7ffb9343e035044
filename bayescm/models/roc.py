r"""Posteriors of whole ROC and PR curves from weighted items: the Bayesian bootstrap and its tools.

The Bayesian bootstrap (Rubin 1981; for ROC curves Gu, Ghosal & Roy 2008) puts a flat Dirichlet
on the probabilities of the observed test items: every posterior draw is a set of weights
:math:`w \sim \mathrm{Dirichlet}(1, \dots, 1)` over the ``n`` items, and every quantity of the
test set is its weighted version. Because one draw weighs *all* items at once, each draw is one
whole, monotone ROC curve, and the AUC, the partial AUC, the PR curve, the average precision,
the Brier score, the log-loss and the confusion matrix at any threshold all come from the same
draws. Refining the threshold grid adds no noise (the bands are those of the curve, not of
separately sampled points), and a second classifier scored on the same items shares the weights,
which keeps the correlation of the two (the paired comparison).

What it assumes: the test items are exchangeable draws from the population, and the population
has no score values other than the observed ones (the curve's steps sit at the observed
scores). Ties in a score form one step of the curve, which is what "ties count as half" means
for the AUC (the trapezoid over a tied step). At a fixed threshold the four weighted cells are
exactly a Dirichlet(TP, FN, FP, TN) draw, i.e. :func:`bayescm.fit` with Haldane priors.

That assumption is what fails for small samples with a high AUC: a curve that cannot leave the
observed scores gives AUC intervals that are too narrow, and a point mass at AUC = 1 for
separated classes. The default fit (:mod:`bayescm.models.roc_dp`) therefore adds four *novel
atoms* to the items, above and below every score in each class, with their own weights; the
functions here read them as any other items (an atom at ``+inf`` of each class forms one tied
step, read as the diagonal across it). ``method="bootstrap"`` is this module's plain form.

All functions are vectorised over draws (weights of shape ``(draws, n)``) and work on chunks of
draws, so memory stays bounded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["CurveDraws", "bayesian_bootstrap_weights", "curve_bands", "curve_draws",
           "interp_rows", "item_sums", "loss_draws", "search_rows", "threshold_cells"]

EPS = float(np.finfo(float).eps)
"""Scores are clipped to ``[EPS, 1 - EPS]`` for the log-loss (scikit-learn's convention)."""


def bayesian_bootstrap_weights(rng: np.random.Generator, draws: int, n: int,
                               dtype: Any = np.float64) -> np.ndarray:
    """Unnormalised Dirichlet(1, ..., 1) weights: standard exponentials of shape ``(draws, n)``.

    Every quantity here is a ratio of weighted sums, so the normalisation cancels.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.roc import bayesian_bootstrap_weights
    >>> bayesian_bootstrap_weights(np.random.default_rng(0), 3, 5).shape
    (3, 5)
    """
    return rng.standard_exponential((draws, n), dtype=dtype)


def interp_rows(x: np.ndarray, y: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """Piecewise-linear interpolation of every row of ``(x, y)`` at ``grid``, vectorised.

    ``x`` is non-decreasing along each row and covers the grid (``x[:, 0] <= grid[0]``,
    ``x[:, -1] >= grid[-1]``). Where ``x`` repeats (a vertical step of a curve) the value at the
    step is the last, highest vertex, so a ROC curve is read right-continuously.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.roc import interp_rows
    >>> x = np.array([[0.0, 0.5, 0.5, 1.0]]); y = np.array([[0.0, 0.2, 0.8, 1.0]])
    >>> interp_rows(x, y, np.array([0.25, 0.5, 0.75])).round(2).tolist()
    [[0.1, 0.8, 0.9]]
    """
    d, v = x.shape
    offset = 2.0 * np.arange(d)[:, None]
    flat_x = (x + offset).ravel()
    targets = (grid[None, :] + offset).ravel()
    idx = np.searchsorted(flat_x, targets, side="right") - 1
    row_start = (np.arange(d) * v).repeat(grid.size)
    idx = np.clip(idx, row_start, row_start + v - 1)
    nxt = np.minimum(idx + 1, row_start + v - 1)
    x0, x1 = flat_x[idx], flat_x[nxt]
    y0, y1 = y.ravel()[idx], y.ravel()[nxt]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.where(x1 > x0, (targets - x0) / (x1 - x0), 0.0)
    return (y0 + np.clip(t, 0.0, 1.0) * (y1 - y0)).reshape(d, grid.size)


class CurveDraws:
    """Items of one classifier sorted by score, split by class, ready to turn weights into curves.

    A *step* is one distinct score (tied items form one step of the curve). For each negative
    item the counts of positives before and through its step (``neg_pb``, ``neg_pe``) and of
    negatives before and through it (``neg_nb``, ``neg_ne``); for each positive the counts of
    negatives before its step (``pos_nb``) and of positives and negatives through it
    (``pos_pe``, ``pos_ne``). With these, every curve quantity is a gather from the cumulative
    weights of each class (:func:`curve_draws`).

    Parameters
    ----------
    y : ndarray of bool
        True for positive items.
    scores : ndarray of float
        The classifier's scores (higher = more positive).
    columns : ndarray of int, optional
        The column of the weight matrix that holds each item's weight (default: item ``i`` in
        column ``i``). Weights laid out in this classifier's order (its positives by score,
        then its negatives) are read as two slices, without a copy.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.roc import CurveDraws
    >>> c = CurveDraws(np.array([True, False, True]), np.array([0.9, 0.4, 0.4]))
    >>> c.n_steps, c.neg_pb.tolist(), c.neg_pe.tolist()
    (2, [1], [2])
    """

    def __init__(self, y: np.ndarray, scores: np.ndarray,
                 columns: np.ndarray | None = None) -> None:
        order = np.argsort(-scores, kind="stable")
        self.order = order
        self.y_sorted = ys = y[order]
        s = scores[order]
        first = np.r_[True, s[1:] != s[:-1]]
        self.starts = np.flatnonzero(first)  # one step per distinct score
        self.ends = np.r_[self.starts[1:] - 1, s.size - 1]  # last item of each step
        self.step_scores = s[self.starts]
        self.n_steps = int(self.starts.size)
        step = np.cumsum(first) - 1  # the step of each sorted item
        pos_through = np.cumsum(ys)[self.ends]
        neg_through = np.cumsum(~ys)[self.ends]
        pos_before = np.r_[0, pos_through[:-1]]
        neg_before = np.r_[0, neg_through[:-1]]
        self.pos_items, self.neg_items = order[ys], order[~ys]
        self.n_pos, self.n_neg = int(self.pos_items.size), int(self.neg_items.size)
        on_neg, on_pos = step[~ys], step[ys]
        self.neg_pb, self.neg_pe = pos_before[on_neg], pos_through[on_neg]
        self.neg_nb, self.neg_ne = neg_before[on_neg], neg_through[on_neg]
        self.pos_nb, self.pos_pe = neg_before[on_pos], pos_through[on_pos]
        self.pos_ne = neg_through[on_pos]
        self.mixed = bool(np.any(self.neg_pb != self.neg_pe))  # a step holds both classes
        self.pos_tied = bool(np.any(self.pos_pe != np.arange(1, self.n_pos + 1)))
        self.first_step = (int(pos_through[0]), int(neg_through[0]))
        where = np.arange(y.size) if columns is None else np.asarray(columns)
        self.pos_cols, self.neg_cols = where[self.pos_items], where[self.neg_items]
        self.sorted_cols = where[order]

    def weights_of(self, weights: np.ndarray, positive: bool) -> np.ndarray:
        """The weights of the positives (or negatives) in score order, ``(D, n_class)``."""
        cols = self.pos_cols if positive else self.neg_cols
        start = int(cols[0])
        if np.array_equal(cols, np.arange(start, start + cols.size)):
            return weights[:, start:start + cols.size]  # laid out in this order: a view
        return np.take(weights, cols, axis=1)  # rows stay contiguous (fancy indexing would not)

    def cells(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Cumulative weighted positives and negatives above each step, shape ``(D, steps)``."""
        w = np.take(weights, self.sorted_cols, axis=1)
        tp = np.cumsum(w * self.y_sorted.astype(w.dtype), axis=1)
        total = np.cumsum(w, axis=1, out=w)
        if self.n_steps < tp.shape[1]:  # ties: read the sums at the end of each step
            tp, total = tp[:, self.ends], total[:, self.ends]
        total -= tp
        return tp, total


def search_rows(a: np.ndarray, targets: np.ndarray, side: str = "left") -> np.ndarray:
    """``np.searchsorted`` of ``targets[i]`` in ``a[i]`` for every row ``i``, in one call.

    ``a`` is non-negative and non-decreasing along each row; the rows are shifted apart by
    offsets (float64) so that one sorted array holds them all.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.roc import search_rows
    >>> search_rows(np.array([[1.0, 2.0, 3.0], [5.0, 6.0, 7.0]]),
    ...             np.array([[2.5, 0.0], [6.0, 9.0]]), side="right").tolist()
    [[2, 0], [2, 3]]
    """
    d, m = a.shape
    top = np.abs(np.asarray(a[:, -1], dtype=np.float64)) + np.abs(targets).max(axis=1) + 1.0
    base = np.r_[0.0, np.cumsum(2.0 * top)[:-1]]
    flat = np.add(a, base[:, None], dtype=np.float64).ravel()
    idx = np.searchsorted(flat, (targets + base[:, None]).ravel(), side=side)  # type: ignore[call-overload]
    return np.clip(idx.reshape(targets.shape) - (np.arange(d) * m)[:, None], 0, m)


def curve_draws(y: np.ndarray, scores: np.ndarray, weights: np.ndarray, fpr_grid: np.ndarray,
                recall_grid: np.ndarray, fpr_range: tuple[float, float],
                curve: CurveDraws | None = None) -> dict[str, np.ndarray]:
    """ROC and PR curves, AUC, partial AUC and average precision for each row of ``weights``.

    The cumulative weights of the positives and of the negatives (in score order) are all it
    takes: the AUC sums, over the positives, the negative weight below each (half of it for a
    tied step); the ROC curve at FPR ``f`` is read on the step where the negatives' cumulative
    weight passes ``f`` times their total (linear within a tied step); the precision is read at
    the end of each positive's step.

    Returns
    -------
    dict
        ``auc``, ``auc_partial`` (area over ``fpr_range``, not standardised),
        ``average_precision`` (shape ``(D,)``), ``roc`` (TPR on ``fpr_grid``, ``(D, G)``) and
        ``pr`` (precision on ``recall_grid``: the precision at the highest threshold that
        reaches that recall, ``(D, R)``).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.roc import curve_draws
    >>> y = np.array([True, True, False, False]); s = np.array([0.9, 0.6, 0.6, 0.1])
    >>> out = curve_draws(y, s, np.ones((1, 4)), np.linspace(0, 1, 5), np.linspace(0, 1, 5),
    ...                   (0.0, 0.5))
    >>> float(out["auc"][0])   # the tie counts as half: (1 + 1 + 1 + 0.5) / 4
    0.875
    >>> out["roc"][0].tolist()   # the tied step is the diagonal from (0, 0.5) to (0.5, 1)
    [0.5, 0.75, 1.0, 1.0, 1.0]
    """
    c = CurveDraws(y, scores) if curve is None else curve
    d = weights.shape[0]
    rows = np.arange(d)[:, None]
    wp, wn = c.weights_of(weights, True), c.weights_of(weights, False)
    tp0 = np.zeros((d, c.n_pos + 1), weights.dtype)  # cumulative weights, a leading 0
    fp0 = np.zeros((d, c.n_neg + 1), weights.dtype)
    np.cumsum(wp, axis=1, out=tp0[:, 1:])
    np.cumsum(wn, axis=1, out=fp0[:, 1:])
    w_pos = tp0[:, -1].astype(np.float64)
    w_neg = fp0[:, -1].astype(np.float64)
    scale = w_pos * w_neg
    # AUC: each positive weighs the negative weight below it (half of its tied negatives)
    fp_at = np.take(fp0, c.pos_ne, axis=1)  # negative weight through each positive's step
    above = np.einsum("ij,ij->i", wp, fp_at, dtype=np.float64)
    if c.mixed:
        above += np.einsum("ij,ij->i", wp, np.take(fp0, c.pos_nb, axis=1), dtype=np.float64)
        above *= 0.5
    area = scale - above
    # ROC on the grid and the ends of the partial AUC: the first negative past x
    lo, hi = fpr_range
    x = np.concatenate([fpr_grid, [lo, hi]])[None, :] * w_neg[:, None]
    k = search_rows(fp0[:, 1:], x, side="right")
    beyond = k >= c.n_neg  # past the last negative: the top right corner
    k = np.minimum(k, c.n_neg - 1)
    f0, f1 = fp0[rows, c.neg_nb[k]], fp0[rows, c.neg_ne[k]]
    t0, t1 = tp0[rows, c.neg_pb[k]], tp0[rows, c.neg_pe[k]]
    with np.errstate(invalid="ignore", divide="ignore"):
        t = np.clip(np.where(f1 > f0, (x - f0) / (f1 - f0), 0.0), 0.0, 1.0)
    at = np.where(beyond, w_pos[:, None], t0 + t * (t1 - t0))
    roc = at[:, :-2] / w_pos[:, None]
    ends = []
    for j, f in ((-2, lo), (-1, hi)):
        if f <= 0 or f >= 1:
            ends.append(np.zeros(d) if f <= 0 else area)
            continue
        before = c.neg_nb[k[:, j]]  # whole steps left of x (their trapezoids), then a part
        m = int(before.max())
        strips = np.take(tp0, c.neg_pb[:m], axis=1)  # on the first m negatives only
        if c.mixed:
            strips += np.take(tp0, c.neg_pe[:m], axis=1)
            strips *= 0.5
        strips *= wn[:, :m]
        prefix = np.zeros((d, m + 1))
        np.cumsum(strips, axis=1, dtype=np.float64, out=prefix[:, 1:])
        part = (x[:, j] - f0[:, j]) * (t0[:, j] + at[:, j]) / 2.0
        ends.append(np.where(beyond[:, j], area, prefix[np.arange(d), before] + part))
    auc = area / scale
    partial = (ends[1] - ends[0]) / scale
    # precision at the end of each positive's step; AP weighs it by the positive's weight
    tp_at = np.take(tp0, c.pos_pe, axis=1) if c.pos_tied else tp0[:, 1:]
    precision = fp_at
    precision += tp_at
    with np.errstate(invalid="ignore", divide="ignore"):
        np.divide(tp_at, precision, out=precision)
    ap = np.einsum("ij,ij->i", wp, precision, dtype=np.float64) / w_pos
    # PR: the precision at the first step whose recall reaches r (recall 0: the first step)
    i = np.minimum(search_rows(tp0[:, 1:], (recall_grid[None, :] - 1e-12) * w_pos[:, None]),
                   c.n_pos - 1)
    pr = precision[rows, i]
    if np.any(recall_grid <= 1e-12):
        p, n = c.first_step
        tp_first = tp0[:, p].astype(np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            first = tp_first / (tp_first + fp0[:, n])
        pr[:, recall_grid <= 1e-12] = first[:, None]
    return {"auc": auc, "auc_partial": partial, "average_precision": ap, "roc": roc, "pr": pr}


def loss_draws(y: np.ndarray, scores: np.ndarray, weights: np.ndarray) -> dict[str, np.ndarray]:
    """Weighted Brier score and log-loss of probability scores, one per row of ``weights``.

    NaN when a score lies outside [0, 1] (not a probability).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.roc import loss_draws
    >>> out = loss_draws(np.array([True, False]), np.array([0.8, 0.4]), np.ones((1, 2)))
    >>> round(float(out["brier"][0]), 3)
    0.1
    """
    return item_sums(y, scores, weights, 0.5)[0]


def item_sums(y: np.ndarray, scores: np.ndarray, weights: np.ndarray, threshold: float,
              observed: np.ndarray | None = None
              ) -> tuple[dict[str, np.ndarray], tuple[np.ndarray, ...]]:
    """Brier score, log-loss and the cells at ``threshold``, from one product of the weights.

    ``observed`` (boolean per item, default all) marks the items the losses weigh: the novel
    atoms of the Dirichlet-process fit (:mod:`bayescm.models.roc_dp`) count in the cells but
    have no score a loss could read.

    Returns
    -------
    losses : dict
        ``brier`` and ``log_loss`` per row of ``weights`` (NaN for scores outside [0, 1]).
    cells : tuple of ndarray
        Weighted cell proportions ``(tp, fn, fp, tn)`` when ``score >= threshold`` is positive.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.roc import item_sums
    >>> losses, cells = item_sums(np.array([True, False]), np.array([0.8, 0.4]),
    ...                           np.ones((1, 2)), 0.5)
    >>> round(float(losses["brier"][0]), 3), [float(c[0]) for c in cells]
    (0.1, [0.5, 0.0, 0.0, 0.5])
    """
    predicted = scores >= threshold
    columns = [y & predicted, y & ~predicted, ~y & predicted, ~y & ~predicted]
    seen = scores if observed is None else np.where(observed, scores, 0.5)
    probabilities = not (np.any(seen < 0) or np.any(seen > 1))
    if probabilities:
        target = y.astype(float)
        p = np.clip(seen, EPS, 1 - EPS)
        columns += [(seen - target) ** 2, target * np.log(p) + (1 - target) * np.log1p(-p)]
        if observed is not None:
            columns = columns[:4] + [c * observed for c in columns[4:]] + [observed]
    matrix = np.stack(columns, axis=1).astype(weights.dtype)
    sums = np.asarray(weights @ matrix, dtype=np.float64)  # one pass over the weights
    total = sums[:, :4].sum(axis=1)
    cells = tuple(np.ascontiguousarray(sums[:, i] / total) for i in range(4))
    if not probabilities:
        nan = np.full(weights.shape[0], np.nan)
        return {"brier": nan, "log_loss": nan.copy()}, cells
    weighed = total if observed is None else sums[:, 6]
    return {"brier": sums[:, 4] / weighed, "log_loss": -sums[:, 5] / weighed}, cells


def curve_bands(draws: np.ndarray, prob: float) -> dict[str, np.ndarray]:
    """Pointwise and simultaneous credible bands of curve draws ``(D, G)``.

    * pointwise: the HDI of the curve's value at each grid point;
    * simultaneous (whole-curve): ``mean +- c * sd`` with ``c`` the ``prob`` quantile of
      ``max_g |curve_g - mean_g| / sd_g`` over the draws, so that a fraction ``prob`` of the
      posterior curves lies inside the band everywhere at once.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.roc import curve_bands
    >>> rng = np.random.default_rng(0)
    >>> bands = curve_bands(rng.normal(size=(4000, 50)), 0.95)
    >>> bool(np.all(bands["simultaneous_upper"] > bands["pointwise_upper"]))
    True
    """
    from bayescm.core.stats import hdi

    mean = np.nanmean(draws, axis=0)
    sd = np.nanstd(draws, axis=0)
    point = hdi(draws.T, prob)
    floor = max(float(np.nanmax(sd)) * 1e-6, 1e-12)
    z = np.nanmax(np.abs(draws - mean) / np.maximum(sd, floor), axis=1)
    c = float(np.quantile(z, prob))
    return {"mean": mean, "pointwise_lower": point[:, 0], "pointwise_upper": point[:, 1],
            "simultaneous_lower": mean - c * sd, "simultaneous_upper": mean + c * sd,
            "simultaneous_c": np.asarray(c)}


def threshold_cells(y: np.ndarray, scores: np.ndarray, weights: np.ndarray, threshold: float
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Weighted cell proportions ``(tp, fn, fp, tn)`` when ``score >= threshold`` is positive.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.roc import threshold_cells
    >>> cells = threshold_cells(np.array([True, False]), np.array([0.7, 0.6]), np.ones((1, 2)),
    ...                         0.5)
    >>> [float(c[0]) for c in cells]
    [0.5, 0.0, 0.5, 0.0]
    """
    tp, fn, fp, tn = item_sums(y, scores, weights, threshold)[1]
    return tp, fn, fp, tn


def scores_as_dict(scores: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A plain dict copy (helper for pickling-friendly results)."""
    return {k: np.asarray(v) for k, v in scores.items()}
