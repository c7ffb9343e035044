"""Convergence diagnostics vectorised over variables, classes and classifiers.

ArviZ computes R-hat and ESS one series at a time (about 6 ms per 20,000-draw variable), which
dominates a fit with 30+ metrics or a batch of 1,000 classifiers. These functions take arrays of
shape ``(chain, draw, *rest)`` and return one value per element of ``rest``; they reproduce
ArviZ's definitions (the tests compare them):

* ``rhat(x, "split")``: the classic potential scale reduction factor of Gelman & Rubin (1992)
  on split chains, as the paper used for its exact draws;
* ``rhat(x, "rank")``: the rank-normalised, folded split R-hat of Vehtari et al. (2021), ArviZ's
  default, used for NUTS draws;
* ``ess(x, "mean")``: effective sample size of the raw split chains (Geyer's initial monotone
  sequence), and ``ess(x, "bulk")`` the same on rank-normalised values.

Autocorrelations are computed lag by lag (vectorised over series) and stop as soon as Geyer's
initial positive sequence ends for every series, which for independent draws is after 2-4 lags.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from bayescm.core.arguments import keyword_checked

__all__ = ["ess", "rhat", "rhat_ess_split", "z_scale"]


def _split(x: np.ndarray) -> np.ndarray:
    """Split every chain in two halves (dropping the middle draw of an odd count).

    Chain-major halves: ``(c0 first, c0 second, c1 first, ...)``. The order of split chains
    does not change R-hat or ESS; for an even draw count of a C-contiguous array it is a view.
    """
    c, n = x.shape[:2]
    half = n // 2
    if n % 2 == 0:
        return x.reshape((c * 2, half) + x.shape[2:])
    return np.concatenate([x[:, :half], x[:, n - half :]], axis=0)


def z_scale(x: np.ndarray) -> np.ndarray:
    """Rank-normalise over chains and draws (axes 0 and 1): ranks -> normal quantiles.

    Ties get the average rank, and ``+inf`` ranks last, so unbounded draws are handled.

    Parameters
    ----------
    x : ndarray of shape ``(chain, draw, *rest)``
        Draws; each trailing position is one series.

    Returns
    -------
    ndarray of float, same shape as ``x``
        Normal quantiles of the ranks: what the rank-normalised R-hat and bulk ESS are computed
        on, so that heavy tails and infinite draws do not dominate them.

    See Also
    --------
    rhat : Uses it for ``method="rank"``.
    ess : Uses it for ``method="bulk"``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.diagnostics import z_scale
    >>> z = z_scale(np.array([[1.0, 5.0], [2.0, np.inf]]))
    >>> z.round(2).tolist()
    [[-1.05, 0.3], [-0.3, 1.05]]
    """
    from scipy import special, stats  # only rank-normalised diagnostics need scipy

    c, n = x.shape[:2]
    flat = x.reshape((c * n,) + x.shape[2:])
    ranks = stats.rankdata(flat, method="average", axis=0)
    z = special.ndtri((ranks - 0.375) / (c * n + 0.25))
    return z.reshape(x.shape)


def _rhat_classic(x: np.ndarray) -> np.ndarray:
    n = x.shape[1]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        chain_mean = x.mean(axis=1)
        within = x.var(axis=1, ddof=1).mean(axis=0)
        between = n * chain_mean.var(axis=0, ddof=1)
        return np.sqrt((between / within + n - 1) / n)


@keyword_checked
def rhat(x: np.ndarray, method: str = "rank") -> np.ndarray:
    """Split R-hat of draws ``x`` with shape ``(chain, draw, *rest)``.

    Parameters
    ----------
    x : ndarray
        Draws; at least 2 chains (after splitting) and 4 draws.
    method : {"rank", "split"}
        ``"rank"``: rank-normalised folded split R-hat (Vehtari et al. 2021);
        ``"split"``: classic split R-hat. Series with non-finite draws always use ``"rank"``.

    Returns
    -------
    ndarray of shape ``rest``
        Each series' R-hat: near 1 when the chains agree; above about 1.01 the chains have not
        mixed and the summaries are not yet reliable.

    Raises
    ------
    ValueError
        An unknown ``method``.

    See Also
    --------
    ess : How many independent draws the chains are worth.
    rhat_ess_split : R-hat and the mean ESS in one pass.
    bayescm.summary : The ``r_hat`` column of every variable.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.diagnostics import rhat
    >>> draws = np.random.default_rng(0).normal(size=(4, 1000))
    >>> bool(abs(rhat(draws, "split") - 1) < 0.01)
    True
    """
    x = np.asarray(x, dtype=float)
    if x.ndim < 2 or x.shape[1] < 4:
        return np.full(x.shape[2:], np.nan)
    s = _split(x)
    if method == "rank":
        return _rhat_rank(s)
    if method != "split":
        raise ValueError(f"Unknown R-hat method {method!r}; use 'rank' or 'split'.")
    out = _rhat_classic(s)
    bad = ~np.isfinite(s).all(axis=(0, 1))
    if bad.any():
        out = np.asarray(out)
        out[bad] = _rhat_rank(s[:, :, bad])
    return out


def _rhat_rank(s: np.ndarray) -> np.ndarray:
    bulk = _rhat_classic(z_scale(s))
    median = np.median(s.reshape((-1,) + s.shape[2:]), axis=0)
    with np.errstate(invalid="ignore"):
        folded = np.abs(s - median)
    folded = np.where(np.isnan(folded), np.inf, folded)  # inf - inf: as far out as it gets
    tail = _rhat_classic(z_scale(folded))
    return np.maximum(bulk, tail)


@keyword_checked
def ess(x: np.ndarray, method: str = "bulk") -> np.ndarray:
    """Effective sample size of draws ``x`` with shape ``(chain, draw, *rest)``.

    Parameters
    ----------
    x : ndarray
        Draws.
    method : {"bulk", "mean", "tail"}
        ``"bulk"``: on rank-normalised split chains (ArviZ's ``ess_bulk``); ``"mean"``: on the
        raw split chains. Series with non-finite draws always use ``"bulk"``. ``"tail"``: the
        smaller ESS of the indicators ``x <= q05`` and ``x <= q95`` on split chains (ArviZ's
        ``ess_tail``), how well the 5 % and 95 % quantiles are estimated.

    Returns
    -------
    ndarray of shape ``rest``
        The effective number of independent draws of each series: near ``chains * draws`` for
        well-mixed chains, far below it when successive draws are correlated.

    Raises
    ------
    ValueError
        An unknown ``method``.

    See Also
    --------
    rhat : Whether the chains agree.
    rhat_ess_split : R-hat and the mean ESS in one pass.
    bayescm.summary : The ``ess_bulk`` column of every variable.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.diagnostics import ess
    >>> draws = np.random.default_rng(0).normal(size=(4, 1000))
    >>> bool(3500 < ess(draws, "mean") < 4500)
    True
    """
    x = np.asarray(x, dtype=float)
    if x.ndim < 2 or x.shape[1] < 4:
        return np.full(x.shape[2:], np.nan)
    s = _split(x)
    if method == "bulk":
        return _ess_geyer(z_scale(s))
    if method == "tail":
        low, high = np.quantile(x, [0.05, 0.95], axis=(0, 1))
        return np.minimum(_ess_geyer((s <= low).astype(float)),
                          _ess_geyer((s <= high).astype(float)))
    if method != "mean":
        raise ValueError(f"Unknown ESS method {method!r}; use 'bulk', 'mean' or 'tail'.")
    bad = ~np.isfinite(s).all(axis=(0, 1))
    out = _ess_geyer(np.where(bad, 0.0, s))
    if bad.any():
        out = np.asarray(out)
        out[bad] = _ess_geyer(z_scale(s[:, :, bad]))
    return out


@keyword_checked
def rhat_ess_split(x: np.ndarray, block: int = 512) -> tuple[np.ndarray, np.ndarray]:
    """Classic split R-hat and ESS (``rhat(x, "split")``, ``ess(x, "mean")``) in one pass.

    Both need the split chains' means and variances; computing them once, a block of series
    at a time, keeps the temporaries in cache for large batches. Series with non-finite draws
    fall back to the rank-normalised versions, as in :func:`rhat` and :func:`ess`.

    Parameters
    ----------
    x : ndarray of shape ``(chain, draw, *rest)``
        Draws; every trailing position is one series.
    block : int, default 512
        Series per pass (keeps the temporaries in cache).

    Returns
    -------
    r_hat : ndarray of shape ``rest``
        Split R-hat of each series: near 1 when the chains agree.
    ess : ndarray of shape ``rest``
        Effective sample size of each series' mean.

    See Also
    --------
    rhat : R-hat alone, rank-normalised by default.
    ess : ESS alone, bulk, mean or tail.
    bayescm.summary : Reports both for every variable of a fit.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.diagnostics import rhat_ess_split
    >>> r, e = rhat_ess_split(np.random.default_rng(0).normal(size=(4, 1000, 3)))
    >>> bool(np.all(abs(r - 1) < 0.01)), bool(np.all(e > 3000))
    (True, True)
    """
    x = np.asarray(x, dtype=float)
    rest = x.shape[2:]
    if x.shape[1] < 4:
        return np.full(rest, np.nan), np.full(rest, np.nan)
    s = _split(x)
    m, n = s.shape[:2]
    size = int(np.prod(rest, dtype=int))
    flat = s.reshape(m, n, size)
    r_out: np.ndarray = np.empty(size)
    e_out: np.ndarray = np.empty(size)
    for start in range(0, size, block):
        part = flat[:, :, start:start + block]
        # non-finite series give NaN here and are recomputed on ranks below
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            chain_mean = part.mean(axis=1)
            centred = part - chain_mean[:, None]
            acov0 = np.einsum("ijk,ijk->ik", centred, centred) / n  # per split chain
            within = acov0.mean(axis=0) * n / (n - 1.0)
            between = n * chain_mean.var(axis=0, ddof=1)
            r_out[start:start + block] = np.sqrt((between / within + n - 1) / n)
            e_out[start:start + block] = _ess_centred(centred, chain_mean,
                                                      acov0.mean(axis=0))
    r_out, e_out = r_out.reshape(rest), e_out.reshape(rest)
    bad = ~np.isfinite(s).all(axis=(0, 1))
    if bad.any():
        r_out[bad] = _rhat_rank(s[:, :, bad])
        e_out[bad] = _ess_geyer(z_scale(s[:, :, bad]))
    return r_out, e_out


def _ess_geyer(s: np.ndarray) -> np.ndarray:
    """ESS of split chains ``s`` (chain, draw, *rest), following ArviZ's ``_ess`` exactly."""
    m, n = s.shape[:2]
    rest = s.shape[2:]
    size = int(np.prod(rest, dtype=int))
    flat = s.reshape(m, n, size)
    chain_mean = flat.mean(axis=1)
    centred = flat - chain_mean[:, None]
    acov0 = np.einsum("ijk,ijk->k", centred, centred) / (m * n)
    return _ess_centred(centred, chain_mean, acov0).reshape(rest)


def _ess_centred(centred: np.ndarray, chain_mean: np.ndarray, acov0: np.ndarray) -> np.ndarray:
    """Geyer's initial monotone sequence ESS from centred split chains ``(m, n, S)``.

    Each series stops at its own end of Geyer's initial positive sequence; autocovariances of
    later lags are computed only for the series still running (re-gathered whenever that set
    halves), so a few slowly mixing series do not make every series pay for long lags.
    """
    m, n, size = centred.shape
    total = m * n
    mean_var = acov0 * n / (n - 1.0)
    var_plus = mean_var * (n - 1.0) / n
    if m > 1:
        var_plus = var_plus + chain_mean.var(axis=0, ddof=1)

    with np.errstate(divide="ignore", invalid="ignore"):
        sub_ids = np.arange(size)
        sub = centred

        def rho(lag: int, ids: np.ndarray) -> np.ndarray:
            at = np.searchsorted(sub_ids, ids)
            if at.size == sub_ids.size:
                prod = np.einsum("ijk,ijk->k", sub[:, : n - lag], sub[:, lag:])
            else:
                prod = np.einsum("ijk,ijk->k", sub[:, : n - lag, at], sub[:, lag:, at])
            acov = prod / (m * n)
            return 1.0 - (mean_var[ids] - acov) / var_plus[ids]

        def regather(k: int, ids: np.ndarray) -> None:
            nonlocal sub, sub_ids
            if ids.size * 2 < sub_ids.size:  # re-gather the running series
                sub, sub_ids = centred[:, :, ids], ids

        rho_t, even, t = geyer_sequence(rho, size, n, regather)
        out = geyer_tail(rho_t, even, t - 2, var_plus, total)
    return out


def geyer_sequence(rho: Callable[[int, np.ndarray], np.ndarray], size: int, n: int,
                   regather: Callable[[int, np.ndarray], None]
                   ) -> tuple[list[np.ndarray], np.ndarray, np.ndarray]:
    """Autocorrelations of each series up to the end of Geyer's initial positive sequence.

    ``rho(lag, ids)`` gives the lag's autocorrelation of the series ``ids`` (indices of the
    ``size`` series of ``n`` draws per chain); lags come in pairs, and a series stops at the
    first pair whose sum is negative. ``regather(k, ids)`` is told the running series before
    each pair (to gather them when few are left). Returns the lags' autocorrelations (0 for
    stopped series), the last even-lag value and the sequence length ``t`` of each series, as
    :func:`geyer_tail` takes them.
    """
    all_ids = np.arange(size)
    rho_t = [np.ones(size), rho(1, all_ids)]
    even, odd = rho_t[0].copy(), rho_t[1].copy()
    t = np.ones(size, dtype=np.int64)
    active = np.ones(size, dtype=bool)
    k = 1
    while True:
        active &= (k < n - 3) & ((even + odd) > 0)
        ids = np.flatnonzero(active)
        if ids.size == 0:
            break
        regather(k, ids)
        new_even, new_odd = rho(k + 1, ids), rho(k + 2, ids)
        keep = (new_even + new_odd) >= 0
        col_even, col_odd = np.zeros(size), np.zeros(size)
        col_even[ids] = np.where(keep, new_even, 0.0)
        col_odd[ids] = np.where(keep, new_odd, 0.0)
        rho_t += [col_even, col_odd]
        even[ids], odd[ids] = new_even, new_odd
        t[ids] += 2
        k += 2
    return rho_t, even, t


def geyer_tail(rho_t: list[np.ndarray], even: np.ndarray, max_t: np.ndarray,
               var_plus: np.ndarray, total: int) -> np.ndarray:
    """ESS from the autocorrelations of Geyer's initial positive sequence, one per series.

    ``rho_t`` holds the autocorrelation at each lag (series stopped early hold 0), ``even``
    the last even-lag value and ``max_t`` the last lag of each series' sequence. The sequence
    is made monotone, improved with the last positive even autocorrelation, and turned into
    ``total / tau``; a series whose variance is below ``resolution ** 2`` (ArviZ's
    ``max - min < resolution``, without two more passes over the draws) gets ``total``.
    Shared by :func:`ess` (series as the last axis) and
    :func:`bayescm.core.stats.moments_rhat_ess_rows` (series as rows).
    """
    size = len(even)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho_arr = np.stack(rho_t + [np.zeros(size)], axis=0)  # (lags, size)
        cols = np.arange(size)
        rho_arr[max_t + 1, cols] = np.where(even > 0, even, rho_arr[max_t + 1, cols])
        for j in range(1, rho_arr.shape[0] - 2, 2):  # Geyer's initial monotone sequence
            on = j <= max_t - 2
            if not on.any():
                break
            prev_sum = rho_arr[j - 1] + rho_arr[j]
            next_sum = rho_arr[j + 1] + rho_arr[j + 2]
            fix = on & (next_sum > prev_sum)
            avg = prev_sum / 2.0
            rho_arr[j + 1] = np.where(fix, avg, rho_arr[j + 1])
            rho_arr[j + 2] = np.where(fix, avg, rho_arr[j + 2])
        lags = np.arange(rho_arr.shape[0])[:, None]
        head = np.where(lags <= max_t, rho_arr, 0.0).sum(axis=0)
        tau = -1.0 + 2.0 * head + rho_arr[max_t + 1, cols]
        tau = np.maximum(tau, 1.0 / np.log10(total))
        out = np.where(np.isnan(rho_arr).any(axis=0), np.nan, total / tau)
    constant = var_plus < np.finfo(float).resolution ** 2
    return np.where(constant, float(total), out)
