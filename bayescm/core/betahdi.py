"""Closed-form highest-density intervals of Beta distributions, exact from tiny to huge counts."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import special

from bayescm.core.arguments import keyword_checked
from bayescm.core.stats import hdi_prob_for
from bayescm.core.validate import check_real_array

_NORMAL_ABOVE = 1e6
"""Both Beta parameters above this: the HDI is the normal interval.

The skewness is then below 2e-3 and the interval mass exact to about 3e-8.
"""
@keyword_checked
def beta_hdi(alpha: Any, beta: Any, hdi_prob: float | None = None) -> np.ndarray:
    """Exact highest-density interval of Beta(alpha, beta) distributions, vectorised.

    For a unimodal Beta (``alpha, beta > 1``) the HDI ``[l, u]`` solves
    ``F(u) - F(l) = hdi_prob`` and ``f(l) = f(u)``; both equations are solved together by
    Newton's method from a normal approximation (a handful of iterations, using only the
    regularised incomplete beta function). When the density is monotone (``alpha <= 1`` or
    ``beta <= 1``) the HDI starts at 0 or ends at 1. A U-shaped Beta (both < 1) has no
    interval HDI and raises.

    Parameters
    ----------
    alpha, beta : float or array
        Shape parameters (> 0), broadcast against each other.
    hdi_prob : float, optional
        Probability mass of the interval; default ``rcParams["stats.hdi_prob"]`` (0.95).

    Returns
    -------
    ndarray
        Shape ``broadcast(alpha, beta).shape + (2,)``: lower and upper bound.

    Raises
    ------
    ValueError
        Non-finite or non-positive parameters, or a U-shaped Beta (both parameters below 1),
        which has no single highest-density interval.

    See Also
    --------
    bayescm.stats.hdi : The HDI estimated from draws.
    simulated_mu : Widths of such HDIs after simulated test sets.
    bayescm.Beta.update : The Beta posterior whose HDI this gives.

    Examples
    --------
    The TPR of the cocaine classifier (TP 26, FN 0, Laplace prior) is Beta(27, 1):

    >>> from bayescm.core.betahdi import beta_hdi
    >>> [round(float(x), 3) for x in beta_hdi(27, 1)]
    [0.895, 1.0]
    """
    prob = hdi_prob_for(hdi_prob)
    a, b = np.broadcast_arrays(check_real_array(alpha, "alpha"), check_real_array(beta, "beta"))
    if not (np.all(np.isfinite(a)) and np.all(np.isfinite(b))) or np.any(a <= 0) or np.any(
            b <= 0):
        raise ValueError("Beta shape parameters alpha and beta must be finite and > 0.")
    if np.any((a < 1) & (b < 1)):
        raise ValueError(
            "A Beta with alpha < 1 and beta < 1 is U-shaped and its "
            "highest-density region is not one interval; add observations or a prior with "
            "alpha, beta >= 1."
        )
    lo = np.empty(a.shape)
    hi = np.empty(a.shape)
    uniform = (a == 1) & (b == 1)
    left = (a <= 1) & (b >= 1) & ~uniform  # density decreasing: HDI = [0, Q(prob)]
    right = (b <= 1) & (a >= 1) & ~uniform  # density increasing: HDI = [Q(1 - prob), 1]
    inner = ~(uniform | left | right)
    # huge a and b (more than 10^6 successes and failures): the normal interval is the HDI
    # to well below Monte Carlo error, where the incomplete beta function is slow and coarse
    normal = (a > _NORMAL_ABOVE) & (b > _NORMAL_ABOVE)
    inner &= ~normal
    if np.any(normal):
        from scipy.stats import norm

        an, bn = a[normal], b[normal]
        total = an + bn
        mean = an / total
        half = norm.ppf(0.5 + prob / 2) * np.sqrt(an * bn / (total * total * (total + 1)))
        lo[normal], hi[normal] = np.clip(mean - half, 0, 1), np.clip(mean + half, 0, 1)
    lo[uniform], hi[uniform] = (1 - prob) / 2, (1 + prob) / 2
    lo[left], hi[left] = 0.0, special.betaincinv(a[left], b[left], prob)
    lo[right], hi[right] = special.betaincinv(a[right], b[right], 1 - prob), 1.0
    if np.any(inner):
        lo[inner], hi[inner] = _unimodal_hdi(a[inner], b[inner], prob)
    return np.stack([lo, hi], axis=-1)


def _unimodal_hdi(a: np.ndarray, b: np.ndarray, prob: float) -> tuple[np.ndarray, np.ndarray]:
    """HDI of Beta(a, b) with a, b > 1 (1-D arrays).

    A fast 2-D Newton iteration on ``F(u) - F(l) = prob, log f(u) = log f(l)`` from a normal
    approximation; results that do not meet both equations tightly are redone by the robust
    (slower) 1-D search of :func:`_tail_mass_hdi`.
    """
    from scipy.stats import norm

    mode = (a - 1) / (a + b - 2)
    s = a + b
    mean = a / s
    sd = np.sqrt(a * b / (s * s * (s + 1)))
    z = norm.ppf(0.5 + prob / 2)
    lo = np.clip(mean - z * sd, mode * 1e-3, mode * (1 - 1e-9))
    hi = np.clip(mean + z * sd, mode + (1 - mode) * 1e-9, 1 - (1 - mode) * 1e-3)
    log_norm = special.betaln(a, b)
    ok = np.zeros(a.shape, dtype=bool)
    active = np.ones(a.shape, dtype=bool)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(12):
            idx = np.flatnonzero(active)
            if idx.size == 0:
                break
            aa, bb, ll, uu, md = a[idx], b[idx], lo[idx], hi[idx], mode[idx]
            r1 = special.betainc(aa, bb, uu) - special.betainc(aa, bb, ll) - prob
            gl = (aa - 1) * np.log(ll) + (bb - 1) * np.log1p(-ll)
            gu = (aa - 1) * np.log(uu) + (bb - 1) * np.log1p(-uu)
            r2 = gu - gl
            converged = (np.abs(r1) < 1e-12) & (np.abs(r2) < 1e-9)
            ok[idx[converged]] = True
            active[idx[converged]] = False
            fl = np.exp(gl - log_norm[idx])
            fu = np.exp(gu - log_norm[idx])
            dgl = (aa - 1) / ll - (bb - 1) / (1 - ll)
            dgu = (aa - 1) / uu - (bb - 1) / (1 - uu)
            # J = [[-fl, fu], [-dgl, dgu]]; det > 0 since dgl > 0 > dgu around the mode
            det = fl * (-dgu) + fu * dgl
            new_l = ll + (-r1 * dgu + fu * r2) / det
            new_u = uu + (fl * r2 - r1 * dgl) / det
            # stay strictly on the correct side of the mode and inside (0, 1)
            new_l = np.where(new_l <= 0, ll / 2, np.where(new_l >= md, (ll + md) / 2, new_l))
            new_u = np.where(new_u >= 1, (uu + 1) / 2,
                             np.where(new_u <= md, (uu + md) / 2, new_u))
            keep = ~converged
            lo[idx[keep]], hi[idx[keep]] = new_l[keep], new_u[keep]
    redo = ~ok
    if np.any(redo):
        lo[redo], hi[redo] = _tail_mass_hdi(a[redo], b[redo], prob)
    return lo, hi


def _tail_mass_hdi(a: np.ndarray, b: np.ndarray, prob: float) -> tuple[np.ndarray, np.ndarray]:
    """HDI by minimising the width ``w(t) = Q(t + prob) - Q(t)`` over the lower tail mass t.

    ``w`` is strictly convex for a unimodal density (``w'' = g'(l) / f(l)^2 - g'(u) / f(u)^2 >
    0``), so Newton's method inside a shrinking bracket ``[0, 1 - prob]`` (bisection when a
    step leaves it) converges from any start.
    """
    log_norm = special.betaln(a, b)
    t_lo, t_hi = np.zeros(a.shape), np.full(a.shape, 1 - prob)
    t = np.full(a.shape, (1 - prob) / 2)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(100):
            ll = special.betaincinv(a, b, t)
            uu = special.betaincinv(a, b, t + prob)
            gl = (a - 1) * np.log(ll) + (b - 1) * np.log1p(-ll)
            gu = (a - 1) * np.log(uu) + (b - 1) * np.log1p(-uu)
            rho = np.exp(gu - gl)  # f(u) / f(l)
            right = rho > 1  # w'(t) < 0: the minimum lies to the right of t
            t_lo = np.where(right, t, t_lo)
            t_hi = np.where(right, t_hi, t)
            dgl = (a - 1) / ll - (b - 1) / (1 - ll)
            dgu = (a - 1) / uu - (b - 1) / (1 - uu)
            fl = np.exp(gl - log_norm)
            step = -fl * (1 - rho) / (dgl * rho - dgu / rho)
            new = t + step
            inside = np.isfinite(new) & (new > t_lo) & (new < t_hi)
            new = np.where(inside, new, (t_lo + t_hi) / 2)
            if np.all(np.abs(new - t) <= 1e-15 + 1e-13 * t):
                t = new
                break
            t = new
    return special.betaincinv(a, b, t), special.betaincinv(a, b, t + prob)
