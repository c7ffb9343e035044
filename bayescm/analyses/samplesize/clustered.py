"""Clustered evaluations: items grouped in clusters, and repeated attempts at each item.

A benchmark of ``C`` passages with ``m`` questions each, every question answered ``K`` times,
holds ``N = C m K`` scored attempts, but they are not independent: questions of one passage
share its difficulty (the intra-cluster correlation ``icc`` between two attempts at different
questions of one cluster) and attempts at one question share the question's (``attempt_icc``,
the correlation between two attempts at the same question; at least ``icc``). The variance of
the mean score is that of ``N / DE`` independent attempts, with the design effect

    DE = 1 + (K - 1) attempt_icc + K (m - 1) icc,

which is ``1 + (m - 1) icc`` for one attempt (Kish). Miller (2024, "Adding Error Bars to
Evals", arXiv:2411.00640) writes the same per question as ``omega^2 + sigma^2 / K``: the
variance of the questions' expected scores plus the attempts' own variance over ``K``; here
``attempt_icc = omega^2 / (omega^2 + sigma^2)``. The minimum detectable effect of a design is

    MDE = (z_{1 - alpha / sides} + z_{power}) sqrt(variance DE / N),

with the variance of one attempt's score ``p (1 - p)`` for one model's accuracy against a
fixed value, or ``psi - delta^2`` for the paired difference of two models (``psi`` the share
of discordant attempts), where the MDE solves ``delta = z sqrt((psi - delta^2) DE / N)``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from bayescm.core.arguments import keyword_checked
from bayescm.core.validate import check_int, check_probability, check_real

__all__ = ["clustered_n", "clustered_power", "design_effect", "mde"]


def _icc(icc: Any, attempt_icc: Any, attempts: int) -> tuple[float, float]:
    rho = check_real(icc, "icc (the correlation of two items of one cluster)", 0.0, 1.0)
    if attempt_icc is None:
        if attempts > 1:
            raise ValueError("With attempts > 1 give attempt_icc, the correlation of two "
                             "attempts at the same item (at least icc; 1 if a model answers "
                             "an item the same way every time).")
        return rho, rho
    rho_w = check_real(attempt_icc, "attempt_icc (the correlation of two attempts at one "
                                    "item)", 0.0, 1.0)
    if rho_w < rho:
        raise ValueError(f"attempt_icc ({rho_w:g}) must be at least icc ({rho:g}): two "
                         "attempts at one item share its cluster too.")
    return rho, rho_w


@keyword_checked
def design_effect(items_per_cluster: int = 1, icc: float = 0.0, attempts: int = 1,
                  attempt_icc: float | None = None) -> float:
    """Variance inflation of a clustered design: ``1 + (K - 1) attempt_icc + K (m - 1) icc``.

    Parameters
    ----------
    items_per_cluster : int, default 1
        Items ``m`` in each cluster (questions per passage).
    icc : float, default 0
        Correlation of two attempts at different items of one cluster.
    attempts : int, default 1
        Attempts ``K`` at each item.
    attempt_icc : float, optional
        Correlation of two attempts at the same item (needed when ``attempts > 1``).

    Returns
    -------
    float
        The design effect: ``C m K`` attempts are worth ``C m K / DE`` independent ones.

    Raises
    ------
    ValueError
        Correlations outside [0, 1], ``attempt_icc`` below ``icc`` or missing with attempts.

    See Also
    --------
    mde : The minimum detectable effect of a design.

    Examples
    --------
    Eight questions per passage at an ICC of 0.2: 2.4 times the variance of independent ones.

    >>> from bayescm.analyses.samplesize.clustered import design_effect
    >>> round(design_effect(8, icc=0.2), 6)
    2.4
    """
    m = check_int(items_per_cluster, "items_per_cluster", 1)
    k = check_int(attempts, "attempts", 1)
    rho, rho_w = _icc(icc, attempt_icc, k)
    return 1.0 + (k - 1) * rho_w + k * (m - 1) * rho


def _variance(accuracy: Any, discordance: Any) -> tuple[str, float]:
    if (accuracy is None) == (discordance is None):
        raise ValueError("Give accuracy= (one model's expected accuracy, against a fixed "
                         "value) or discordance= (the share of items two models disagree on, "
                         "for their paired difference), not both.")
    if accuracy is not None:
        p = check_probability(accuracy, "accuracy")
        return "accuracy", p * (1 - p)
    return "paired", check_probability(discordance, "discordance")


def _z(alpha: Any, power: Any, sides: Any) -> float:
    a = check_probability(alpha, "alpha")
    s = check_int(sides, "sides", 1, 2)
    return float(stats.norm.isf(a / s) + stats.norm.ppf(check_probability(power, "power")))


@keyword_checked
def mde(n_clusters: int, items_per_cluster: int = 1, attempts: int = 1, *,
        accuracy: float | None = None, discordance: float | None = None, icc: float = 0.0,
        attempt_icc: float | None = None, alpha: float = 0.05, power: float = 0.8,
        sides: int = 2) -> float:
    """Minimum detectable effect of a clustered evaluation (Miller 2024).

    The smallest difference in accuracy that the design detects with ``power`` at ``alpha``:
    one model against a fixed value (``accuracy``), or two models scored on the same items
    (``discordance``, the share of items where exactly one of them is right).

    Parameters
    ----------
    n_clusters : int
        Clusters ``C`` (passages; the number of items when they are not clustered).
    items_per_cluster, attempts : int
        Items per cluster ``m`` and attempts per item ``K``.
    accuracy : float, optional
        Expected accuracy of the one model.
    discordance : float, optional
        Expected share of discordant items of two models (``p_a_only + p_b_only``).
    icc, attempt_icc : float
        As for :func:`design_effect`.
    alpha : float, default 0.05
        Significance level.
    power : float, default 0.8
        Power at the MDE.
    sides : {1, 2}, default 2
        Two-sided or one-sided test.

    Returns
    -------
    float
        The MDE, in accuracy (0.03 = 3 percentage points).

    Raises
    ------
    ValueError
        Neither or both of ``accuracy`` and ``discordance``, or bad correlations, levels or
        sizes.

    See Also
    --------
    clustered_n : The clusters for a given difference.
    clustered_power : The power for a given difference.

    Examples
    --------
    Two LLMs on 200 passages of 8 questions, disagreeing on 20 % of them, ICC 0.2:

    >>> from bayescm.analyses.samplesize.clustered import mde
    >>> round(mde(200, 8, discordance=0.2, icc=0.2), 4)
    0.0482
    """
    c = check_int(n_clusters, "n_clusters", 1)
    de = design_effect(items_per_cluster, icc, attempts, attempt_icc)
    kind, var = _variance(accuracy, discordance)
    z = _z(alpha, power, sides)
    ratio = z * z * de / (c * int(items_per_cluster) * int(attempts))
    if kind == "accuracy":
        return float(np.sqrt(var * ratio))
    return float(np.sqrt(var * ratio / (1.0 + ratio)))


@keyword_checked
def clustered_power(n_clusters: Any, difference: float, items_per_cluster: int = 1,
                    attempts: int = 1, *, accuracy: float | None = None,
                    discordance: float | None = None, icc: float = 0.0,
                    attempt_icc: float | None = None, alpha: float = 0.05,
                    sides: int = 2) -> float | np.ndarray:
    """Power to detect ``difference`` with a clustered design (normal approximation).

    Parameters
    ----------
    n_clusters : int or array of int
        Clusters.
    difference : float
        The true difference in accuracy (> 0).
    items_per_cluster, attempts, accuracy, discordance, icc, attempt_icc, alpha, sides
        As for :func:`mde`.

    Returns
    -------
    float or ndarray
        The power at each number of clusters.

    Raises
    ------
    ValueError
        A difference outside (0, 1), one larger than the discordance, or the errors of
        :func:`mde`.

    See Also
    --------
    mde : The difference detected with a given power.

    Examples
    --------
    >>> from bayescm.analyses.samplesize.clustered import clustered_power, mde
    >>> delta = mde(200, 8, discordance=0.2, icc=0.2)
    >>> round(float(clustered_power(200, delta, 8, discordance=0.2, icc=0.2)), 3)
    0.8
    """
    delta = check_real(difference, "difference", 0.0, 1.0, low_open=True, high_open=True)
    c = np.asarray(n_clusters)
    if c.dtype.kind not in "iu" or np.any(c < 1):
        raise ValueError(f"n_clusters must be whole numbers >= 1, got {n_clusters!r}.")
    de = design_effect(items_per_cluster, icc, attempts, attempt_icc)
    kind, var = _variance(accuracy, discordance)
    if kind == "paired":
        if delta >= var:
            raise ValueError(f"The difference ({delta:g}) cannot reach the discordance "
                             f"({var:g}): the models differ on only that share of items.")
        var -= delta * delta
    a = check_probability(alpha, "alpha")
    s = check_int(sides, "sides", 1, 2)
    se = np.sqrt(var * de / (c * int(items_per_cluster) * int(attempts)))
    z = stats.norm.isf(a / s)
    power = stats.norm.cdf(delta / se - z)
    if s == 2:
        power = power + stats.norm.cdf(-delta / se - z)
    return float(power) if power.ndim == 0 else power


@keyword_checked
def clustered_n(difference: float, items_per_cluster: int = 1, attempts: int = 1, *,
                accuracy: float | None = None, discordance: float | None = None,
                icc: float = 0.0, attempt_icc: float | None = None, alpha: float = 0.05,
                power: float = 0.8, sides: int = 2) -> int:
    """Clusters needed to detect ``difference`` with ``power`` (Miller 2024's formula with DE).

    ``C = (z_{1 - alpha / sides} + z_{power})^2 variance DE / (m K difference^2)``, rounded up.

    Parameters
    ----------
    difference : float
        The difference in accuracy to detect (> 0).
    items_per_cluster, attempts, accuracy, discordance, icc, attempt_icc, alpha, power, sides
        As for :func:`mde`.

    Returns
    -------
    int
        Clusters ``C``; ``C m`` items and ``C m K`` attempts.

    Raises
    ------
    ValueError
        As for :func:`clustered_power`.

    See Also
    --------
    mde : The other direction.
    design_effect : What clustering costs.

    Examples
    --------
    Passages of 8 questions at ICC 0.2, to detect a 3-point gain of one LLM over another that
    disagree on 20 % of the questions:

    >>> from bayescm.analyses.samplesize.clustered import clustered_n
    >>> clustered_n(0.03, 8, discordance=0.2, icc=0.2)
    521
    """
    delta = check_real(difference, "difference", 0.0, 1.0, low_open=True, high_open=True)
    de = design_effect(items_per_cluster, icc, attempts, attempt_icc)
    kind, var = _variance(accuracy, discordance)
    if kind == "paired":
        if delta >= var:
            raise ValueError(f"The difference ({delta:g}) cannot reach the discordance "
                             f"({var:g}): the models differ on only that share of items.")
        var -= delta * delta
    z = _z(alpha, power, sides)
    per = int(items_per_cluster) * int(attempts)
    return int(np.ceil(np.round(z * z * var * de / (per * delta * delta), 9)))
