"""Planning a paired comparison: two classifiers scored on the same items.

Only the discordant items inform the difference: ``p_a_only = P(A right, B wrong)`` and
``p_b_only = P(A wrong, B right)`` per item, their sum the discordance ``psi`` and their
difference ``delta = p_b_only - p_a_only`` the difference in accuracy (or in TPR among
positives, TNR among negatives). :func:`discordance` finds them from the two accuracies and
the correlation of the classifiers' errors.

Frequentist yardstick, McNemar's test (:func:`paired_power`): the normal approximation of
Connor (1987, Biometrics 43:207-211),
``power = Phi((|delta| sqrt(n) - z sqrt(psi)) / sqrt(psi - delta^2))`` (plus the other tail
for a two-sided test), or the exact conditional (binomial) test with its power summed exactly
over the number of discordant items, what R's ``MESS::power_mcnemar_test(method="exact")``
calls the exact unconditional power.

Bayesian assurance (:func:`paired_assurance`): the analysis is
:func:`bayescm.compare_paired_counts`'s, a Dirichlet over the four agreement cells. Given
``d`` discordant items, ``p_b_only / psi`` has the posterior ``Beta(alpha_b + n_b,
alpha_a + n_a)`` independent of ``psi``, so ``P(B better | data)`` is one Beta tail and the
assurance is an exact double sum over ``d`` and ``n_b`` (:mod:`.exact`); with a region of
practical equivalence, ``P(delta > rope)`` is a one-dimensional integral over ``psi``
(Gauss-Legendre on its quantiles).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import special, stats

from bayescm.analyses.samplesize.assurance import AssuranceCurve
from bayescm.analyses.samplesize.claims import threshold_k
from bayescm.analyses.samplesize.design import RateDesign
from bayescm.analyses.samplesize.exact import accept_probability
from bayescm.analyses.samplesize.precision import _check_n
from bayescm.core.arguments import keyword_checked
from bayescm.core.validate import check_int, check_probability, check_real

__all__ = ["beyond_at", "discordance", "paired_assurance", "paired_power", "prob_beyond",
           "psi_nodes"]

_NODES, _WEIGHTS = np.polynomial.legendre.leggauss(32)
_U = (_NODES + 1.0) / 2.0
_W = _WEIGHTS / 2.0


def _check_pair(p_a_only: Any, p_b_only: Any) -> tuple[float, float]:
    a = check_real(p_a_only, "p_a_only (P(A right, B wrong))", 0.0, 1.0)
    b = check_real(p_b_only, "p_b_only (P(A wrong, B right))", 0.0, 1.0)
    if a + b > 1:
        raise ValueError(f"p_a_only + p_b_only (the discordance) must be at most 1, got "
                         f"{a + b:g}.")
    if a == b:
        raise ValueError(f"p_a_only and p_b_only are equal ({a:g}): there is no difference "
                         "to detect. Give the discordant shares you expect, e.g. "
                         "p_a_only=0.04, p_b_only=0.07 for a 3-point gain of B.")
    return a, b


@keyword_checked
def discordance(acc_a: float, acc_b: float, correlation: float = 0.0) -> tuple[float, float]:
    """``(p_a_only, p_b_only)`` from two accuracies and the correlation of being right.

    With ``phi`` the correlation of the two classifiers' correctness on an item,
    ``P(both right) = acc_a acc_b + phi sqrt(acc_a (1 - acc_a) acc_b (1 - acc_b))``, so
    ``p_a_only = acc_a - P(both right)`` and ``p_b_only = acc_b - P(both right)``.

    Parameters
    ----------
    acc_a, acc_b : float
        The two accuracies (or TPRs, TNRs), in (0, 1).
    correlation : float, default 0
        Correlation of their correctness, in [-1, 1]; models that fail on the same items
        have a high one, and then fewer discordant items.

    Returns
    -------
    tuple of float
        ``p_a_only`` and ``p_b_only``.

    Raises
    ------
    ValueError
        A correlation that the two accuracies cannot have (a negative cell).

    See Also
    --------
    paired_n : The number of paired items for a power or an assurance.

    Examples
    --------
    >>> from bayescm.analyses.samplesize.paired import discordance
    >>> a, b = discordance(0.80, 0.83, correlation=0.6)
    >>> round(a, 4), round(b, 4), round(b - a, 2)
    (0.0458, 0.0758, 0.03)
    """
    pa = check_probability(acc_a, "acc_a")
    pb = check_probability(acc_b, "acc_b")
    phi = check_real(correlation, "correlation", -1.0, 1.0)
    both = pa * pb + phi * np.sqrt(pa * (1 - pa) * pb * (1 - pb))
    cells = (both, pa - both, pb - both, 1 - pa - pb + both)
    if min(cells) < -1e-12:
        raise ValueError(f"Accuracies {pa:g} and {pb:g} cannot have a correlation of {phi:g} "
                         "(a cell of the agreement table would be negative); choose a "
                         "correlation nearer 0.")
    return float(max(cells[1], 0.0)), float(max(cells[2], 0.0))


def _rejects(d: np.ndarray, alpha: float, sides: int) -> np.ndarray:
    """First count ``x`` of the larger side whose exact test of ``d`` discordant items rejects.

    The binomial test of p = 1/2 at ``alpha`` (two-sided: the p-value doubled, as McNemar's
    exact test); ``d + 1`` when no count rejects.
    """
    lo, hi = np.zeros_like(d), d + 1
    active = lo < hi
    while active.any():
        idx = np.flatnonzero(active)
        mid = (lo[idx] + hi[idx]) // 2
        p = stats.binom.sf(mid - 1, d[idx], 0.5) * sides
        ok = (p <= alpha) & (2 * mid > d[idx])
        hi[idx[ok]] = mid[ok]
        lo[idx[~ok]] = mid[~ok] + 1
        active = lo < hi
    return lo


@keyword_checked
def paired_power(n: Any, p_a_only: float, p_b_only: float, alpha: float = 0.05,
                 sides: int = 2, *, method: str = "normal") -> float | np.ndarray:
    """Frequentist power of McNemar's test with ``n`` paired items.

    Parameters
    ----------
    n : int or array of int
        Paired items (each scored by both classifiers).
    p_a_only, p_b_only : float
        ``P(A right, B wrong)`` and ``P(A wrong, B right)`` per item.
    alpha : float, default 0.05
        Significance level.
    sides : {1, 2}, default 2
        Two-sided test, or one-sided in the direction of the planned difference.
    method : {"normal", "exact"}, default "normal"
        Connor's (1987) normal approximation, or the exact conditional (binomial) test with
        its power summed exactly over the number of discordant items.

    Returns
    -------
    float or ndarray
        The power at each ``n``.

    Raises
    ------
    ValueError
        Shares outside [0, 1] or equal, an unknown method, ``sides`` other than 1 or 2.

    See Also
    --------
    paired_assurance : The Bayesian assurance beside it.
    paired_n : The ``n`` for a power.

    Examples
    --------
    R's MESS package checks that ``power_mcnemar_test(paid=0.05, psi=9, power=0.8)`` needs
    22.0 pairs (rounded): the power at 22 and 23 pairs straddles 0.8.

    >>> from bayescm.analyses.samplesize.paired import paired_power
    >>> [round(float(p), 4) for p in paired_power([22, 23], 0.05, 0.45)]
    [0.7998, 0.8194]
    """
    a, b = _check_pair(p_a_only, p_b_only)
    lvl = check_probability(alpha, "alpha")
    sides = check_int(sides, "sides", 1, 2)
    sizes = _check_n(n)
    if method == "normal":
        delta, psi = abs(b - a), a + b
        z = stats.norm.isf(lvl / sides)
        root = np.sqrt(psi - delta**2)
        power = stats.norm.cdf((delta * np.sqrt(sizes) - z * np.sqrt(psi)) / root)
        if sides == 2:
            power = power + stats.norm.cdf((-delta * np.sqrt(sizes) - z * np.sqrt(psi)) / root)
    elif method == "exact":
        big = max(a, b)

        def accepted(d: np.ndarray, _: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
            first = _rejects(d, lvl, sides)
            return first, (d - first if sides == 2 else None)

        power, _ = accept_probability(np.atleast_1d(sizes), RateDesign(points=np.array(
            [big / (a + b)])), RateDesign(points=np.array([a + b])), accepted)
        power = power.reshape(np.shape(sizes))
    else:
        raise ValueError(f"method must be 'normal' or 'exact', got {method!r}.")
    return float(power) if np.ndim(power) == 0 else np.asarray(power)


def prob_beyond(a: np.ndarray, b: np.ndarray, c: np.ndarray, d: np.ndarray,
                rope: float) -> np.ndarray:
    """``P(psi (2 r - 1) > rope)`` for ``r ~ Beta(a, b)`` and ``psi ~ Beta(c, d)``, independent.

    The difference of the two discordant shares is ``psi (2 r - 1)``; for ``rope = 0`` this
    is the Beta tail ``P(r > 1/2)``, otherwise a 32-node Gauss-Legendre integral over the
    quantiles of ``psi``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.analyses.samplesize.paired import prob_beyond
    >>> float(prob_beyond(3.0, 3.0, 2.0, 2.0, 0.0))
    0.5
    """
    a, b, c, d = (np.asarray(x, dtype=float) for x in (a, b, c, d))
    if rope == 0:
        return np.asarray(special.betaincc(a, b, 0.5))
    return beyond_at(a, b, psi_nodes(c, d), rope)


def psi_nodes(c: np.ndarray, d: np.ndarray) -> np.ndarray:
    """The discordance ``psi ~ Beta(c, d)`` at the 32 Gauss-Legendre quantiles (last axis)."""
    return np.asarray(special.betaincinv(np.asarray(c, dtype=float)[..., None],
                                         np.asarray(d, dtype=float)[..., None], _U))


def beyond_at(a: np.ndarray, b: np.ndarray, psi: np.ndarray, rope: float) -> np.ndarray:
    """:func:`prob_beyond` with the discordance's quantiles given (:func:`psi_nodes`)."""
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        cut = np.where(psi > rope, (1.0 + rope / psi) / 2.0, 1.0)
    tail = special.betaincc(a[..., None], b[..., None], np.minimum(cut, 1.0))
    return np.asarray((tail * _W).sum(axis=-1))


def _check_design(p_a_only: Any, p_b_only: Any, concentration: Any
                  ) -> tuple[float, float, float | None]:
    a, b = _check_pair(p_a_only, p_b_only)
    kappa = None if concentration is None else check_real(
        concentration, "concentration (the design prior's worth in items)", 0.0,
        low_open=True)
    return a, b, kappa


@keyword_checked
def paired_assurance(n: Any, p_a_only: float, p_b_only: float, level: float = 0.95,
                     prior: Any = "laplace", *, rope: float = 0.0,
                     concentration: float | None = None) -> AssuranceCurve:
    """Bayesian assurance that ``n`` paired items show the planned classifier better.

    The claim is the direction of the planned difference: "B better than A" when
    ``p_b_only > p_a_only`` (by more than ``rope``). It is established when the posterior of
    :func:`bayescm.compare_paired_counts` (a Dirichlet over the agreement table) gives it a
    probability of at least ``level``. The sum over the discordant items and their split is
    exact.

    Parameters
    ----------
    n : int or array of int
        Paired items.
    p_a_only, p_b_only : float
        Expected ``P(A right, B wrong)`` and ``P(A wrong, B right)``; with ``concentration``
        the means of a Dirichlet design prior, else known values.
    level : float, default 0.95
        Posterior probability that establishes the difference.
    prior : str or Dirichlet, default "laplace"
        The analysis prior over the four agreement cells (both right, only A, only B, both
        wrong), as for :func:`bayescm.compare_paired_counts`.
    rope : float, default 0
        The difference must exceed this (a region of practical equivalence).
    concentration : float, optional
        Worth of the design prior in items: a Dirichlet over (A only, B only, the rest) with
        these means and this total; None for known shares.

    Returns
    -------
    AssuranceCurve
        The assurance per ``n`` (exact, so ``mc_error`` is 0), ``counts="paired items"``.

    Raises
    ------
    ValueError
        Shares outside [0, 1] or equal, a negative rope, a level outside (0, 1).
    TypeError
        A prior that is not a symmetric name or a Dirichlet.

    See Also
    --------
    paired_power : McNemar's power beside it.
    paired_n : The ``n`` for an assurance or a power.

    Examples
    --------
    >>> from bayescm.analyses.samplesize.paired import paired_assurance
    >>> curve = paired_assurance([200, 800], p_a_only=0.04, p_b_only=0.07)
    >>> curve.claim, bool(curve.assurance[0] < curve.assurance[1])
    ('B better than A', True)
    """
    from bayescm.models.paired_prior import paired_alpha

    a, b, kappa = _check_design(p_a_only, p_b_only, concentration)
    lvl = check_probability(level, "level")
    rope = check_real(rope, "rope", 0.0, 1.0)
    alpha = paired_alpha(prior, 4)
    if np.any(alpha <= 0):
        raise ValueError("The analysis prior must be proper (the Haldane prior is not).")
    sizes = np.atleast_1d(_check_n(n)).astype(np.int64).reshape(-1)
    win, lose = (b, a) if b > a else (a, b)
    a_win, a_lose = (alpha[2], alpha[1]) if b > a else (alpha[1], alpha[2])
    a_rest = alpha[0] + alpha[3]
    psi = a + b
    if kappa is None:
        share, split = RateDesign(points=np.array([win / psi])), RateDesign(points=np.array([psi]))
        limit = float(win - lose > rope)
    else:
        share, split = RateDesign(kappa * win, kappa * lose), RateDesign(kappa * psi,
                                                                         kappa * (1 - psi))
        limit = float(prob_beyond(np.array(kappa * win), np.array(kappa * lose),
                                  np.array(kappa * psi), np.array(kappa * (1 - psi)), rope))

    def accepted(d: np.ndarray, nn: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        if rope == 0:
            return threshold_k(d, a_win, a_lose, 0.5, lvl, "probability"), None
        lo, hi = np.zeros_like(d), d + 1
        active = lo < hi
        while active.any():
            idx = np.flatnonzero(active)
            mid = (lo[idx] + hi[idx]) // 2
            ok = prob_beyond(a_win + mid, a_lose + d[idx] - mid, a_win + a_lose + d[idx],
                             a_rest + nn[idx] - d[idx], rope) >= lvl
            hi[idx[ok]] = mid[ok]
            lo[idx[~ok]] = mid[~ok] + 1
            active = lo < hi
        return lo, None

    prob, _ = accept_probability(sizes, share, split, accepted)
    who = "B better than A" if b > a else "A better than B"
    claim = who if rope == 0 else f"{who} by more than {rope:g}"
    return AssuranceCurve(sizes, prob, np.zeros(sizes.size), claim, lvl, "probability",
                          "exact", "paired items", limit)
