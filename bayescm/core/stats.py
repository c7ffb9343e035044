"""Interval statistics on draws, vectorised over series."""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescm.core.config import rcParams
from bayescm.core.diagnostics import geyer_sequence, geyer_tail
from bayescm.core.validate import check_probability, keyword_checked

__all__ = ["HDI_PROB", "check_prob", "hdi", "hdi_prob_for", "hdi_rows", "moments_rhat_ess_rows",
           "rowdot"]

HDI_PROB = 0.95
"""The paper's interval probability (95 % HDI), the default of ``rcParams["stats.hdi_prob"]``.

Functions take ``hdi_prob=None`` and resolve it with :func:`hdi_prob_for`, so a change of the
setting reaches every default; this constant is the value the setting starts from.
"""


def check_prob(prob: float, name: str = "hdi_prob") -> float:
    """Validate a probability strictly inside (0, 1) (see :mod:`bayescm.core.validate`)."""
    return check_probability(prob, name)


def hdi_prob_for(hdi_prob: float | None = None, idata: Any = None) -> float:
    """The interval probability to use: the argument, else the result's, else the setting.

    One rule for every function that takes ``hdi_prob=None``: an explicit argument wins; a
    fitted result (``idata``) contributes the probability it recorded (its root attribute
    ``hdi_prob``), so its summaries stay as they were computed; otherwise
    ``rcParams["stats.hdi_prob"]``.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.core.stats import hdi_prob_for
    >>> hdi_prob_for(0.9), hdi_prob_for()
    (0.9, 0.95)
    >>> with bcm.rc_context(stats_hdi_prob=0.8):
    ...     hdi_prob_for()
    0.8
    """
    if hdi_prob is not None:
        return check_prob(hdi_prob)
    attrs = getattr(idata, "attrs", None) or {}
    if "hdi_prob" in attrs:
        return check_prob(attrs["hdi_prob"])
    return float(rcParams["stats.hdi_prob"])


@keyword_checked
def hdi(samples: np.ndarray, prob: float | None = None, axis: int = -1) -> np.ndarray:
    """Highest-density interval of draws along ``axis``, for every other index at once.

    The narrowest window that contains ``floor(prob * n)`` + 1 sorted draws, the same rule as
    ArviZ's ``hdi(method="nearest")``. A series containing NaN gives NaN bounds.

    Parameters
    ----------
    samples : ndarray
        Draws; ``axis`` indexes them.
    prob : float, optional
        Probability mass of the interval, in (0, 1); default ``rcParams["stats.hdi_prob"]``.
    axis : int, default -1
        Axis of the draws.

    Returns
    -------
    ndarray
        Shape of ``samples`` without ``axis`` plus a trailing axis of length 2 (lower, upper).

    Examples
    --------
    The TPR of the paper's cocaine classifier (26 of 26 positives found, Laplace prior):

    >>> import numpy as np
    >>> from bayescm.core.stats import hdi
    >>> draws = np.random.default_rng(0).beta(27, 1, size=20_000)
    >>> lo, hi = hdi(draws)
    >>> round(float(lo), 2), round(float(hi), 3)
    (0.89, 1.0)
    """
    prob = check_prob(prob, "prob") if prob is not None else hdi_prob_for()
    x = np.moveaxis(np.asarray(samples, dtype=float), axis, -1)
    n = x.shape[-1]
    if n < 2:
        raise ValueError(f"An HDI needs at least 2 draws, got {n}.")
    srt = np.sort(x, axis=-1)
    inc = int(np.floor(prob * n))
    n_int = n - inc
    width = srt[..., inc:] - srt[..., :n_int]
    start = np.argmin(np.where(np.isnan(width), np.inf, width), axis=-1)[..., None]
    lower = np.take_along_axis(srt, start, axis=-1)[..., 0]
    upper = np.take_along_axis(srt, start + inc, axis=-1)[..., 0]
    out = np.stack([lower, upper], axis=-1)
    has_nan = np.isnan(x).any(axis=-1)
    out[has_nan] = np.nan
    return out


def hdi_rows(draws: np.ndarray, prob: float | None = None, step: int | None = None,
             nan_rows: np.ndarray | None = None) -> np.ndarray:
    """:func:`hdi` of every row of a 2-D array, without sorting or partitioning whole rows.

    The narrowest window of ``inc + 1`` sorted draws (``inc = floor(prob * n)``) starts among
    the ``n - inc`` smallest draws and ends among the ``n - inc`` largest, so only the two tails
    matter. Two order statistics of a strided subsample (every ``step``-th draw) give each
    row two cut-offs that almost always leave more than ``n - inc`` draws outside them (a
    margin of 2.5 standard deviations); the draws beyond the cut-offs (a little more than the
    tails) are gathered in one pass and sorted, and the window is found among them. A row
    whose cut-offs leave too few (or too many) candidates, or with NaN, goes through
    :func:`hdi`. The bounds are exactly those of :func:`hdi` (same rule, same draws), in the
    dtype of ``draws``, at a fraction of the cost of
    ``np.partition`` on every row (about 10 against 55 microseconds per 4,000 float32 draws).

    Parameters
    ----------
    draws : ndarray of shape (rows, n)
        Draws of each series in a row (float32 or float64).
    prob : float, optional
        Probability mass of the interval; default ``rcParams["stats.hdi_prob"]``.
    step : int, optional
        Stride of the subsample that places the cut-offs; default about ``sqrt(n) / 9``
        (between 4 and 32), which balanced the subsample's partition against the number of
        candidates in timings from 2,000 to 80,000 draws.
    nan_rows : ndarray of bool, optional
        Rows that may hold NaN (or both infinities), if the caller knows them already (a NaN
        mean); default: looked up (one more pass over the draws).

    Returns
    -------
    ndarray of shape (rows, 2)
        Lower and upper bounds.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.stats import hdi, hdi_rows
    >>> draws = np.random.default_rng(0).beta(27, 3, size=(5, 4000))
    >>> bool(np.array_equal(hdi_rows(draws, 0.95), hdi(draws, 0.95)))
    True
    """
    prob = check_prob(prob, "prob") if prob is not None else hdi_prob_for()
    x = np.asarray(draws)
    if x.ndim != 2:
        raise ValueError(f"hdi_rows takes a 2-D array (rows, draws), got shape {x.shape}.")
    if x.dtype not in (np.float32, np.float64):
        x = x.astype(float)
    r, n = x.shape
    if step is None:
        step = min(32, max(4, round((n / 81) ** 0.5)))
    inc = int(np.floor(prob * n))
    k = n - inc
    if r == 0 or k > inc or n < 16 * step:
        return hdi(x, prob).astype(x.dtype, copy=False)
    m = -(-n // step)  # the subsample's size
    expected = k * m / n
    # 2.5 standard deviations of margin: about 1 row in 200 is recomputed, cheaper than more
    # candidates in every row
    j = min(m - 1, int(np.ceil(expected + 2.5 * np.sqrt(expected) + 1.0)))
    # only the subsample's j-th smallest and largest matter; NumPy's SIMD sort finds them
    # faster than a two-point partition in float32 and in short float64 rows (measured from
    # 500 to 2,600 values), the partition is faster beyond (both place NaN last)
    sub = x[:, ::step]
    if x.dtype == np.float32 or m <= 1024:
        sub = np.sort(sub, axis=1)
    else:
        sub = np.partition(sub, (j, m - 1 - j), axis=1)
    cut_lo, cut_hi = sub[:, j], sub[:, m - 1 - j]
    lower = x <= cut_lo[:, None]
    upper = x >= cut_hi[:, None]
    n_lower, n_upper = _count_rows(lower), _count_rows(upper)
    cap = 3 * (j + 1) * step + k  # more candidates than that: ties, recomputed below
    if nan_rows is None:
        with np.errstate(invalid="ignore", over="ignore"):  # NaN rows (or inf - inf): hdi
            nan_rows = np.isnan(x.sum(axis=1))
    # every draw beyond a cut-off is a candidate: with k of them, the k smallest (largest)
    # draws of the row are among them
    bad = ((np.minimum(n_lower, n_upper) < k) | (np.maximum(n_lower, n_upper) > cap)
           | nan_rows | ~(cut_lo < cut_hi))
    lower |= upper
    if bad.any():
        lower[bad] = False
        n_lower[bad] = n_upper[bad] = 0
    # one gather of both tails (NumPy's compress is slowest at the density of one tail),
    # then split by value: the tails are disjoint because cut_lo < cut_hi
    both = np.compress(lower.reshape(-1), x.reshape(-1))
    is_low = both <= np.repeat(cut_lo, n_lower + n_upper)
    low = _sorted_rows(np.compress(is_low, both), n_lower, np.inf, k)[:, :k]
    high = _sorted_rows(np.compress(~is_low, both), n_upper, -np.inf, k)[:, -k:]
    with np.errstate(invalid="ignore"):
        span = high - low
    start = np.argmin(np.where(np.isnan(span), np.inf, span), axis=1)[:, None]
    out = np.stack([np.take_along_axis(low, start, axis=1)[:, 0],
                    np.take_along_axis(high, start, axis=1)[:, 0]], axis=-1)
    if bad.any():
        out[bad] = hdi(x[bad], prob)
    return out


def _count_rows(mask: np.ndarray) -> np.ndarray:
    """True values per row of a 2-D boolean array (a byte sum: 4x faster than count_nonzero)."""
    small = mask.shape[1] < np.iinfo(np.uint16).max
    return mask.view(np.uint8).sum(axis=1, dtype=np.uint16 if small else np.int64).astype(
        np.int64)


def _sorted_rows(values: np.ndarray, counts: np.ndarray, fill: float, k: int) -> np.ndarray:
    """Rows of ``counts[i]`` consecutive ``values`` each, sorted, padded with ``fill``.

    A row-wise sort of a few hundred values is several times faster than of a thousand
    (NumPy's SIMD sorts), so the two tails are sorted apart.
    """
    r = counts.size
    width = max(int(counts.max()), k)
    buf = np.full((r, width), fill, dtype=values.dtype)
    first = np.cumsum(counts) - counts
    at = np.repeat(np.arange(r) * width - first, counts) + np.arange(values.size)
    buf.reshape(-1)[at] = values
    buf.sort(axis=1)
    return buf


DOT_CHUNK = 8192
"""Longest stretch :func:`rowdot` hands to one BLAS call (OpenBLAS threads longer ones)."""


def rowdot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.vecdot(a, b)`` (dot products along the last axis) in BLAS calls of 8,192 values.

    OpenBLAS splits a dot product of more than 10,000 values across its threads; on a machine
    whose other cores are busy, waking them costs milliseconds (measured: 2 to 58 ms against
    30 microseconds, now and then, for 9 rows of 20,000 draws). Pieces of 8,192 stay on the
    calling thread, and their partial sums are added.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.stats import rowdot
    >>> x = np.random.default_rng(0).normal(size=(3, 20_000))
    >>> bool(np.allclose(rowdot(x, x), (x * x).sum(axis=1)))
    True
    """
    n = a.shape[-1]
    if n <= DOT_CHUNK:
        return np.vecdot(a, b)
    out = np.vecdot(a[..., :DOT_CHUNK], b[..., :DOT_CHUNK])
    for start in range(DOT_CHUNK, n, DOT_CHUNK):
        out += np.vecdot(a[..., start:start + DOT_CHUNK], b[..., start:start + DOT_CHUNK])
    return out


def moments_rhat_ess_rows(draws: np.ndarray, block: int = 256, overwrite: bool = False
                          ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Mean, sd, split R-hat and ESS of every row of ``draws`` (rows, chains, draws).

    The same estimators as :func:`bayescm.core.diagnostics.rhat_ess_split` (classic split
    R-hat and Geyer's initial monotone sequence ESS of the raw split chains, the ``ess_mean``
    of independent draws; series with non-finite draws use its rank-normalised fallback), with
    the series as rows: the split chains of a C-contiguous row are contiguous halves, so no
    transposition is needed, and float32 rows stay float32 (the sums are float32 dot
    products; the results are float64). The mean and the sd (``ddof=1``) come from the
    same split-chain means and sums of squares.

    Parameters
    ----------
    draws : ndarray of shape (rows, chains, draws)
        Draws of each series in a row (float32 or float64, C-contiguous).
    block : int, default 256
        Rows per pass (keeps the centred draws in cache).
    overwrite : bool, default False
        Centre the split chains of ``draws`` in place (no temporary as large as the draws);
        its values are then lost.

    Returns
    -------
    mean, sd, r_hat, ess : ndarray of shape (rows,)

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.diagnostics import rhat_ess_split
    >>> from bayescm.core.stats import moments_rhat_ess_rows
    >>> x = np.random.default_rng(0).normal(size=(3, 4, 1000))
    >>> mean, sd, r_hat, ess = moments_rhat_ess_rows(x)
    >>> r_ref, ess_ref = rhat_ess_split(np.moveaxis(x, 0, -1))
    >>> bool(np.allclose(r_hat, r_ref)), bool(np.allclose(ess, ess_ref))
    (True, True)
    >>> bool(np.allclose(sd, x.reshape(3, -1).std(axis=1, ddof=1)))
    True
    """
    from bayescm.core.diagnostics import rhat_ess_split

    x = np.asarray(draws)
    if x.ndim != 3:
        raise ValueError(f"draws must have shape (rows, chains, draws), got {x.shape}.")
    if x.dtype not in (np.float32, np.float64):
        x = x.astype(float)
    overwrite = overwrite and x is draws and x.flags.c_contiguous
    x = np.ascontiguousarray(x)
    r, d = x.shape[0], x.shape[2]
    mean, sd = np.empty(r), np.empty(r)
    r_hat, ess = np.full(r, np.nan), np.full(r, np.nan)
    finite = np.ones(r, dtype=bool)
    for start in range(0, r, block):
        part = x[start:start + block]
        out = _moments_rhat_ess(part, overwrite)
        for target, value in zip((mean, sd, r_hat, ess, finite), out, strict=True):
            target[start:start + block] = value
    bad = ~finite & (d >= 4)
    if bad.any():  # non-finite draws (kept as they were): rank-normalised, as rhat_ess_split
        r_hat[bad], ess[bad] = rhat_ess_split(np.moveaxis(x[bad], 0, -1).astype(float))
    return mean, sd, r_hat, ess


def _moments_rhat_ess(x: np.ndarray, overwrite: bool = False
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`moments_rhat_ess_rows` of one block of rows, and whether each is finite."""
    r, c, d = x.shape
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if d % 2 or d < 4:  # the split drops the middle draw: the moments take every draw
            flat = x.reshape(r, c * d)
            mean = flat.mean(axis=1, dtype=np.float64)
            sd = flat.std(axis=1, ddof=1, dtype=np.float64) if c * d > 1 else np.full(r, np.nan)
            if d < 4:
                return mean, sd, np.full(r, np.nan), np.full(r, np.nan), np.isfinite(mean)
            half = d // 2
            s = np.concatenate([x[:, :, :half], x[:, :, d - half:]], axis=1)
        else:
            s = x.reshape(r, 2 * c, d // 2)  # chain-major halves, a view
        m, n = s.shape[1:]
        chain_mean = s.mean(axis=2)
        finite = np.isfinite(chain_mean).all(axis=1)  # (a sum overflows only beyond 1e300)
        if overwrite and d % 2 == 0 and finite.all():
            centred = np.subtract(s, chain_mean[:, :, None], out=s)
        else:  # non-finite rows keep their draws for the rank-normalised fallback
            centred = s - chain_mean[:, :, None]
        chain_mean = chain_mean.astype(np.float64)
        ss = rowdot(centred, centred).astype(np.float64)  # (rows, split chains)
        if d % 2 == 0:
            mean = chain_mean.mean(axis=1)
            spread = ((chain_mean - mean[:, None]) ** 2).sum(axis=1)
            sd = np.sqrt((ss.sum(axis=1) + n * spread) / (m * n - 1))
        within = ss.sum(axis=1) / (m * (n - 1.0))
        between_var = chain_mean.var(axis=1, ddof=1) if m > 1 else np.zeros(r)
        r_hat = np.sqrt((n * between_var / within + n - 1) / n)
        acov0 = ss.sum(axis=1) / (m * n)
        ess = _geyer_rows(centred, acov0, between_var)
        # a constant series (a fixed prevalence) is constant up to the rounding of its means:
        # sd 0, R-hat undefined and ESS the number of draws, as in float64
        eps = float(np.finfo(x.dtype).eps)
        var_plus = acov0 * n / (n - 1.0) * (n - 1.0) / n + between_var
        scale = np.abs(chain_mean).max(axis=1)
        constant = var_plus < np.maximum(np.finfo(float).resolution ** 2, (8 * eps * scale) ** 2)
        if constant.any():
            sd[constant], r_hat[constant], ess[constant] = 0.0, np.nan, float(m * n)
    return mean, sd, r_hat, ess, finite


def _geyer_rows(centred: np.ndarray, acov0: np.ndarray, between_var: np.ndarray) -> np.ndarray:
    """Geyer's initial monotone sequence ESS of centred split chains ``(rows, m, n)``.

    A row-first transcription of ArviZ's ``_ess`` (as ``bayescm.core.diagnostics``): each row
    stops at the end of its own initial positive sequence. Every row needs lags 1 to 3 and
    most of independent draws stop by lag 5, so lags 1 to 5 are computed for all rows at once;
    the rows still running after that are gathered again whenever their number halves.
    """
    r, m, n = centred.shape
    total = m * n
    mean_var = acov0 * n / (n - 1.0)
    var_plus = mean_var * (n - 1.0) / n + between_var

    sub, sub_ids = centred, np.arange(r)
    first = min(5, n - 1)
    table = [rowdot(centred[:, :, :n - lag], centred[:, :, lag:]).sum(axis=1, dtype=np.float64)
             for lag in range(1, first + 1)]

    def rho(lag: int, ids: np.ndarray) -> np.ndarray:
        if lag <= first:
            prod = table[lag - 1][ids]
        else:  # every row of `sub` (at most twice the running ones): cheaper than gathering
            prod = rowdot(sub[:, :, :n - lag], sub[:, :, lag:]).sum(axis=1,
                                                                      dtype=np.float64)
            if ids.size != sub_ids.size:
                prod = prod[np.searchsorted(sub_ids, ids)]
        return 1.0 - (mean_var[ids] - prod / total) / var_plus[ids]

    def regather(k: int, ids: np.ndarray) -> None:
        nonlocal sub, sub_ids
        if ids.size * 2 < sub_ids.size and k + 2 > first:
            sub, sub_ids = sub[np.searchsorted(sub_ids, ids)], ids

    rho_t, even, t = geyer_sequence(rho, r, n, regather)
    return geyer_tail(rho_t, even, t - 2, var_plus, total)
