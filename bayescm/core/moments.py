"""Mean, sd, split R-hat and ESS of many series at once, one series per row of an array.

What :func:`bayescm.summary` and :func:`bayescm.summarize_batch` compute for every variable
in one pass (:func:`moments_rhat_ess_rows`), and the dot product along rows that keeps BLAS on
the calling thread (:func:`rowdot`). Both are re-exported by :mod:`bayescm.core.stats`; the
HDIs of the same rows are :func:`bayescm.core.stats.hdi_rows`.
"""

from __future__ import annotations

import numpy as np

from bayescm.core.diagnostics import geyer_sequence, geyer_tail

__all__ = ["moments_rhat_ess_rows", "rowdot"]


DOT_CHUNK = 8192
"""Longest stretch :func:`rowdot` hands to one BLAS call (OpenBLAS threads longer ones)."""


def rowdot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``np.vecdot(a, b)`` (dot products along the last axis) in BLAS calls of 8,192 values.

    OpenBLAS splits a dot product of more than 10,000 values across its threads; on a machine
    whose other cores are busy, waking them costs milliseconds (measured: 2 to 58 ms against
    30 microseconds, now and then, for 9 rows of 20,000 draws). Pieces of 8,192 stay on the
    calling thread, and their partial sums are added.

    Parameters
    ----------
    a : ndarray, shape (..., n)
        First factor.
    b : ndarray, shape (..., n)
        Second factor, of the same shape.

    Returns
    -------
    ndarray, shape (...)
        The dot product of each row.

    See Also
    --------
    moments_rhat_ess_rows : Uses it for the sums of squares of long rows.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.moments import rowdot
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
    mean : ndarray of shape (rows,)
        Posterior mean of each row.
    sd : ndarray of shape (rows,)
        Posterior standard deviation (``ddof=1``).
    r_hat : ndarray of shape (rows,)
        Split R-hat: near 1 when the chains agree.
    ess : ndarray of shape (rows,)
        Effective sample size of the mean.

    Raises
    ------
    ValueError
        ``draws`` that is not 3-D.

    See Also
    --------
    bayescm.core.stats.hdi_rows : The HDIs of the same rows.
    bayescm.diagnostics.rhat_ess_split : The same estimators for draws laid out by chain.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.diagnostics import rhat_ess_split
    >>> from bayescm.core.moments import moments_rhat_ess_rows
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
