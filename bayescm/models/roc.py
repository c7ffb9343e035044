r"""Posteriors of whole ROC and PR curves from scored items: the Bayesian bootstrap.

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

All functions are vectorised over draws (weights of shape ``(draws, n)``) and work on chunks of
draws, so memory stays bounded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["CurveDraws", "bayesian_bootstrap_weights", "calibration_draws", "curve_bands",
           "curve_draws", "interp_rows", "loss_draws"]

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
    """Sorted items of one classifier, ready to turn weights into curves.

    Parameters
    ----------
    y : ndarray of bool
        True for positive items.
    scores : ndarray of float
        The classifier's scores (higher = more positive).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.roc import CurveDraws
    >>> c = CurveDraws(np.array([True, False, True]), np.array([0.9, 0.4, 0.4]))
    >>> c.n_steps
    2
    """

    def __init__(self, y: np.ndarray, scores: np.ndarray) -> None:
        order = np.argsort(-scores, kind="stable")
        self.order = order
        self.y_sorted = y[order]
        s = scores[order]
        self.starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])  # one step per distinct score
        self.ends = np.r_[self.starts[1:] - 1, s.size - 1]  # last item of each step
        self.step_scores = s[self.starts]
        self.n_steps = int(self.starts.size)
        self._positive = self.y_sorted.astype(float)

    def cells(self, weights: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Cumulative weighted positives and negatives above each step, shape ``(D, steps)``."""
        w = weights[:, self.order]
        tp = np.cumsum(w * self._positive.astype(w.dtype, copy=False), axis=1)
        total = np.cumsum(w, axis=1, out=w)
        if self.n_steps < tp.shape[1]:  # ties: read the sums at the end of each step
            tp, total = tp[:, self.ends], total[:, self.ends]
        total -= tp
        return tp, total


def curve_draws(y: np.ndarray, scores: np.ndarray, weights: np.ndarray, fpr_grid: np.ndarray,
                recall_grid: np.ndarray, fpr_range: tuple[float, float],
                curve: CurveDraws | None = None) -> dict[str, np.ndarray]:
    """ROC and PR curves, AUC, partial AUC and average precision for each row of ``weights``.

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
    """
    c = CurveDraws(y, scores) if curve is None else curve
    tp, fp = c.cells(weights)
    d, v = tp.shape
    tpr, fpr = np.zeros((d, v + 1), tp.dtype), np.zeros((d, v + 1), tp.dtype)
    with np.errstate(invalid="ignore", divide="ignore"):
        np.divide(tp, tp[:, -1:], out=tpr[:, 1:])
        np.divide(fp, fp[:, -1:], out=fpr[:, 1:])
    # exact areas: trapezoids between the vertices (a tied step is a diagonal segment)
    seg = np.diff(fpr, axis=1)
    seg *= tpr[:, 1:] + tpr[:, :-1]
    seg *= 0.5
    auc = seg.sum(axis=1, dtype=np.float64)
    roc = interp_rows(fpr, tpr, fpr_grid)
    partial = _area_to(fpr, tpr, seg, fpr_range[1]) - _area_to(fpr, tpr, seg, fpr_range[0])
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = tp / (tp + fp)
    ap = np.einsum("ij,ij->i", np.diff(tpr, axis=1), precision, dtype=np.float64)
    # precision at the first step whose recall reaches r (vertex j >= 1 of tpr is step j - 1)
    offset = 2.0 * np.arange(d)[:, None]
    idx = np.searchsorted((tpr + offset).ravel(), (recall_grid[None, :] + offset).ravel() -
                          1e-12, side="left")
    row = np.arange(d).repeat(recall_grid.size)
    step = np.clip(idx - row * (v + 1), 1, v) - 1
    pr = precision[row, step].reshape(d, recall_grid.size)
    return {"auc": auc, "auc_partial": partial, "average_precision": ap, "roc": roc, "pr": pr}


def _area_to(fpr: np.ndarray, tpr: np.ndarray, seg: np.ndarray, f: float) -> np.ndarray:
    """Area under each row's ROC curve from FPR 0 to ``f`` (exact, piecewise linear)."""
    if f <= 0:
        return np.zeros(fpr.shape[0])
    if f >= 1:
        return seg.sum(axis=1, dtype=np.float64)
    inside = fpr[:, 1:] <= f  # whole segments left of f
    area = np.einsum("ij,ij->i", seg, inside, dtype=np.float64)
    k = inside.sum(axis=1)  # the vertex where the curve crosses f
    rows = np.arange(fpr.shape[0])
    x0, y0 = fpr[rows, k], tpr[rows, k]
    y_at = interp_rows(fpr, tpr, np.array([f]))[:, 0]
    return area + (f - x0) * (y0 + y_at) / 2.0


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
    total = weights.sum(axis=1)
    if np.any(scores < 0) or np.any(scores > 1):
        nan = np.full(weights.shape[0], np.nan)
        return {"brier": nan, "log_loss": nan.copy()}
    target = y.astype(float)
    p = np.clip(scores, EPS, 1 - EPS)
    brier = weights @ ((scores - target) ** 2) / total
    loss = -(weights @ (target * np.log(p) + (1 - target) * np.log1p(-p))) / total
    return {"brier": brier, "log_loss": loss}


def calibration_draws(rng: np.random.Generator, y: np.ndarray, scores: np.ndarray, draws: int,
                      n_bins: int = 10) -> dict[str, np.ndarray]:
    """Reliability curve and expected calibration error (ECE), with a calibrated reference.

    Scores are put in ``n_bins`` equal-width bins of [0, 1]. In each bin the event rate gets a
    flat Beta(1, 1) prior, so its posterior is ``Beta(1 + k, 1 + n - k)`` for ``k`` positives of
    ``n`` items: a bin of all 0 or all 1 keeps an honest width (the bootstrap would give zero
    width there). ``ece = sum_b (n_b / N) |rate_b - mean score_b|`` per draw. Because the plug-in
    ECE is positive even for a perfectly calibrated classifier, ``ece_reference`` is the same
    statistic for labels simulated from the scores themselves (``y* ~ Bernoulli(score)``):
    calibration is in doubt when ``ece`` clearly exceeds ``ece_reference``.

    Returns
    -------
    dict
        ``reliability`` ``(draws, n_bins)`` (NaN for empty bins), ``ece``, ``ece_reference``
        ``(draws,)``, ``bin_count``, ``bin_positives``, ``bin_score`` ``(n_bins,)``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.roc import calibration_draws
    >>> rng = np.random.default_rng(0)
    >>> s = rng.random(500); y = rng.random(500) < s
    >>> out = calibration_draws(rng, y, s, 2000)
    >>> bool(abs(out["ece"].mean() - out["ece_reference"].mean()) < 0.03)
    True
    """
    if np.any(scores < 0) or np.any(scores > 1):
        nan = np.full(draws, np.nan)
        return {"reliability": np.full((draws, n_bins), np.nan), "ece": nan,
                "ece_reference": nan.copy(), "bin_count": np.zeros(n_bins),
                "bin_positives": np.zeros(n_bins), "bin_score": np.full(n_bins, np.nan)}
    bins = np.minimum((scores * n_bins).astype(int), n_bins - 1)
    count = np.bincount(bins, minlength=n_bins).astype(float)
    positives = np.bincount(bins, weights=y.astype(float), minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_score = np.bincount(bins, weights=scores, minlength=n_bins) / count
    share = count / count.sum()
    rate = rng.beta(1.0 + positives, 1.0 + count - positives, size=(draws, n_bins))
    used = count > 0
    ece = np.abs(rate[:, used] - mean_score[used]) @ share[used]
    # reference: labels drawn from the scores (perfect calibration), summed per bin exactly
    sim_pos = _simulated_bin_positives(rng, bins, scores, n_bins, draws)
    ref_rate = rng.beta(1.0 + sim_pos, 1.0 + count - sim_pos)
    reference = np.abs(ref_rate[:, used] - mean_score[used]) @ share[used]
    rate[:, ~used] = np.nan
    return {"reliability": rate, "ece": ece, "ece_reference": reference, "bin_count": count,
            "bin_positives": positives, "bin_score": mean_score}


def _simulated_bin_positives(rng: np.random.Generator, bins: np.ndarray, scores: np.ndarray,
                             n_bins: int, draws: int, chunk: int = 256) -> np.ndarray:
    """Positives per bin when every item is a Bernoulli(score) event, ``(draws, n_bins)``."""
    out = np.empty((draws, n_bins))
    onehot = np.zeros((scores.size, n_bins))
    onehot[np.arange(scores.size), bins] = 1.0
    for start in range(0, draws, chunk):
        m = min(chunk, draws - start)
        events = (rng.random((m, scores.size)) < scores).astype(float)
        out[start:start + m] = events @ onehot
    return out


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
    predicted = scores >= threshold
    groups = np.stack([y & predicted, y & ~predicted, ~y & predicted, ~y & ~predicted], axis=1)
    sums = (weights @ groups.astype(weights.dtype)).astype(np.float64)  # (D, 4)
    sums /= sums.sum(axis=1, keepdims=True)
    tp, fn, fp, tn = (np.ascontiguousarray(sums[:, i]) for i in range(4))
    return tp, fn, fp, tn


def scores_as_dict(scores: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    """A plain dict copy (helper for pickling-friendly results)."""
    return {k: np.asarray(v) for k, v in scores.items()}
