"""Exact assurance of a claim on one rate: sums over the predictive distribution of the counts.

After ``m`` trials with ``K`` successes the Beta posterior establishes the claim for
``K >= k*(m)`` (:func:`~.claims.threshold_k`), or for a width claim ``K <= k_lo(m)`` or
``K >= k_hi(m)``, so the probability that ``m`` trials establish it is a tail probability of
the prior predictive of ``K``: beta-binomial under a Beta design prior, a mixture of binomials
under points (a known value, or a fit's draws). When the design gives a prevalence the number
of trials ``m`` (the positives, for a TPR) is itself beta-binomial or binomial in the test-set
size ``n``, and the assurance sums over it. Tails are summed over the window that holds all
but about 1e-13 of the predictive mass (:func:`tail`), from whichever end is shorter, so the
work per ``m`` is the spread of the predictive, not ``m``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy import special, stats

from bayescm.analyses.samplesize.design import RateDesign

__all__ = ["accept_probability", "tail", "trials"]

_EPS = 1e-14
_CHUNK = 2_000_000
"""Terms summed at once (bounded memory)."""


def _window(m: np.ndarray, design: RateDesign) -> tuple[np.ndarray, np.ndarray]:
    """Counts ``L..U`` that hold all but ~1e-13 of the predictive of ``K`` in ``m`` trials."""
    if design.points is None:
        p_lo = float(special.betaincinv(design.alpha, design.beta, _EPS))
        p_hi = float(special.betaincinv(design.alpha, design.beta, 1 - _EPS))
    else:
        p_lo, p_hi = float(design.points.min()), float(design.points.max())
    mf = m.astype(float)
    low = mf * p_lo - 9.0 * np.sqrt(mf * p_lo * (1 - p_lo)) - 3.0
    high = mf * p_hi + 9.0 * np.sqrt(mf * p_hi * (1 - p_hi)) + 3.0
    return (np.clip(np.floor(low), 0, m).astype(np.int64),
            np.clip(np.ceil(high), 0, m).astype(np.int64))


def _log_pmf(j: np.ndarray, m: np.ndarray, design: RateDesign) -> np.ndarray:
    """Log predictive probability of ``j`` successes in ``m`` trials (Beta design)."""
    a, b = float(design.alpha), float(design.beta)  # type: ignore[arg-type]
    jf, mf = j.astype(float), m.astype(float)
    return (special.gammaln(mf + 1) - special.gammaln(jf + 1) - special.gammaln(mf - jf + 1)
            + special.betaln(jf + a, mf - jf + b) - special.betaln(a, b))


def _sums(start: np.ndarray, stop: np.ndarray, m: np.ndarray, design: RateDesign
          ) -> np.ndarray:
    """``sum_{j=start}^{stop-1} pmf(j | m)`` for each entry (Beta design), in chunks."""
    lengths = np.maximum(stop - start, 0)
    out = np.zeros(m.shape, dtype=float)
    ends = np.cumsum(lengths)
    first = 0
    while first < m.size:
        # entries whose terms fit in one chunk (at least one entry)
        base = ends[first - 1] if first else 0
        last = int(np.searchsorted(ends, base + _CHUNK, side="right"))
        last = max(last, first + 1)
        sel = np.arange(first, last)
        lens = lengths[sel]
        if lens.sum():
            owner = np.repeat(np.arange(sel.size), lens)
            offset = np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens, lens)
            j = start[sel][owner] + offset
            terms = np.exp(_log_pmf(j, m[sel][owner], design))
            out[sel] = np.bincount(owner, weights=terms, minlength=sel.size)
        first = last
    return out


def tail(k: np.ndarray, m: np.ndarray, design: RateDesign) -> tuple[np.ndarray, np.ndarray]:
    """``P(K >= k)`` for ``K`` the successes in ``m`` trials under the design, and its MC error.

    The Monte Carlo standard error is over the design's points (zeros for a Beta or one
    point).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from bayescm.analyses.samplesize.design import RateDesign
    >>> from bayescm.analyses.samplesize.exact import tail
    >>> p, _ = tail(np.array([85]), np.array([100]), RateDesign(45.0, 5.0))
    >>> bool(abs(p[0] - stats.betabinom.sf(84, 100, 45, 5)) < 1e-12)
    True
    """
    k = np.asarray(k, dtype=np.int64)
    m = np.asarray(m, dtype=np.int64)
    if design.points is not None:
        pts = design.points
        out = np.empty(k.shape)
        err = np.zeros(k.shape)
        step = max(1, _CHUNK // pts.size)
        for i in range(0, k.size, step):  # chunks of the (k, m) pairs, not of draws
            probs = stats.binom.sf(k[i:i + step, None] - 1, m[i:i + step, None], pts)
            out[i:i + step] = probs.mean(axis=1)
            if pts.size > 1:
                err[i:i + step] = probs.std(axis=1) / np.sqrt(pts.size)
        return out, err
    low, high = _window(m, design)
    out = np.where(k <= low, 1.0, 0.0)
    inside = (k > low) & (k <= high)
    if inside.any():
        ki, mi, lo, hi = k[inside], m[inside], low[inside], high[inside]
        upper = (hi - ki + 1) <= (ki - lo)  # sum the shorter side
        vals = np.empty(ki.shape)
        vals[upper] = _sums(ki[upper], hi[upper] + 1, mi[upper], design)
        vals[~upper] = 1.0 - _sums(lo[~upper], ki[~upper], mi[~upper], design)
        out[inside] = np.clip(vals, 0.0, 1.0)
    return out, np.zeros(k.shape)


def trials(n: np.ndarray, split: RateDesign | None
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distribution of the trials ``m`` behind the rate in test sets of ``n`` items.

    Returns flat arrays ``(which, m, weight)``: for each size ``n[which]``, the values ``m``
    with their probabilities. Without a split every item is a trial; with one (the
    prevalence, or its complement for a TNR) ``m`` is binomial (a known share) or
    beta-binomial (a Beta; a fit's draws are matched by the Beta of the same mean and
    variance).
    """
    n = np.asarray(n, dtype=np.int64)
    if split is None:
        return np.arange(n.size), n.copy(), np.ones(n.size)
    split = split.as_beta()
    low, high = _window(n, split)
    lens = high - low + 1
    which = np.repeat(np.arange(n.size), lens)
    m = np.repeat(low, lens) + (np.arange(int(lens.sum())) - np.repeat(np.cumsum(lens) - lens,
                                                                        lens))
    nn = n[which]
    if split.points is not None:
        weight = stats.binom.pmf(m, nn, float(split.points[0]))
    else:
        weight = np.exp(_log_pmf(m, nn, split))
    return which, m, weight


def accept_probability(n: np.ndarray, design: RateDesign, split: RateDesign | None,
                       accepted: Callable[[np.ndarray, np.ndarray],
                                          tuple[np.ndarray, np.ndarray | None]]
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Assurance at each size ``n`` and its Monte Carlo error (over a fit's draws).

    ``accepted(m, n)`` gives, for trials ``m`` out of ``n`` items, the first count that
    establishes the claim and, for a width claim, the last count below the middle that does
    (else None): the claim holds for ``K >= first`` or ``K <= last``.
    """
    which, m, weight = trials(n, split)
    first, last = accepted(m, np.asarray(n, dtype=np.int64)[which])
    prob, err = tail(first, m, design)
    if last is not None:
        lower, lower_err = tail(last + 1, m, design)
        prob = prob + (1.0 - lower)
        err = np.sqrt(err**2 + lower_err**2)
    sizes = np.asarray(n).size
    total = np.bincount(which, weights=weight * prob, minlength=sizes)
    error = np.sqrt(np.bincount(which, weights=(weight * err) ** 2, minlength=sizes)) \
        if split is None else np.bincount(which, weights=weight * err, minlength=sizes)
    return np.clip(total, 0.0, 1.0), error
