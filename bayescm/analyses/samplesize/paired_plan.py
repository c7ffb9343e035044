"""The number of paired items for a comparison: :func:`paired_n` and its :class:`PairedPlan`.

For McNemar's power (:func:`~.paired.paired_power`) or the Bayesian assurance
(:func:`~.paired.paired_assurance`), with the other measure reported beside it at the ``n``
found: the size is doubled until the goal is reached, then bisected.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bayescm.analyses.samplesize.paired import _check_pair, paired_assurance, paired_power
from bayescm.analyses.samplesize.precision import MAX_N
from bayescm.core.arguments import keyword_checked
from bayescm.core.validate import check_int, check_probability

__all__ = ["PairedPlan", "paired_n"]


@dataclass(frozen=True)
class PairedPlan:
    """The number of paired items for a comparison (:func:`paired_n`).

    Attributes
    ----------
    n : int
        Paired items found.
    power : float
        McNemar's power at ``n`` (the method asked for).
    assurance : float or None
        The Bayesian assurance at ``n`` (None when planned for power only).
    target : float
        The power or assurance asked for.
    goal : str
        ``"power"`` or ``"assurance"``.
    method : str
        The power's method (``"normal"`` or ``"exact"``).

    See Also
    --------
    paired_n : Makes it.

    Examples
    --------
    >>> from bayescm.analyses.samplesize.paired_plan import PairedPlan
    >>> PairedPlan(23, 0.81, None, 0.8, "power", "normal").n
    23
    """

    n: int
    power: float
    assurance: float | None
    target: float
    goal: str
    method: str


@keyword_checked
def paired_n(p_a_only: float, p_b_only: float, power: float | None = None,
             assurance: float | None = None, alpha: float = 0.05, sides: int = 2, *,
             method: str = "normal", level: float = 0.95, prior: Any = "laplace",
             rope: float = 0.0, concentration: float | None = None,
             n_max: int = 10**7) -> PairedPlan:
    """Paired items needed to detect a difference: for McNemar's power, or a Bayesian assurance.

    Give ``power`` (frequentist, McNemar's test at ``alpha``) or ``assurance`` (Bayesian, the
    posterior probability ``level`` that the planned classifier is better); the plan reports
    the other measure at the same ``n`` beside it.

    Parameters
    ----------
    p_a_only, p_b_only : float
        ``P(A right, B wrong)`` and ``P(A wrong, B right)`` per item (:func:`discordance`
        finds them from accuracies and a correlation).
    power : float, optional
        McNemar's power to reach.
    assurance : float, optional
        Bayesian assurance to reach.
    alpha : float, default 0.05
        Significance level of McNemar's test.
    sides : {1, 2}, default 2
        Two-sided test, or one-sided in the planned direction.
    method : {"normal", "exact"}, default "normal"
        The power's computation (Connor's formula, or the exact test's power).
    level, prior, rope, concentration
        As for :func:`paired_assurance`.
    n_max : int, default 10**7
        Give up (with an error) beyond this many items.

    Returns
    -------
    PairedPlan
        ``n``, the power (and assurance) there, the target and goal.

    Raises
    ------
    ValueError
        Neither or both of ``power`` and ``assurance``, an assurance beyond what the design
        allows, none reached by ``n_max``, or the errors of :func:`paired_power`.
    TypeError
        As for :func:`paired_assurance`.

    See Also
    --------
    paired_power : Power at given sizes.
    paired_assurance : Assurance at given sizes.

    Examples
    --------
    Connor's formula for discordant shares 0.05 and 0.45, 80 % power at a two-sided 5 %
    (n = 22.01 by the formula, so 23 whole pairs):

    >>> from bayescm.analyses.samplesize.paired_plan import paired_n
    >>> paired_n(0.05, 0.45, power=0.8).n
    23
    """
    if (power is None) == (assurance is None):
        raise ValueError("Give one of power= (McNemar's test) or assurance= (Bayesian), e.g. "
                         "paired_n(0.04, 0.07, power=0.8).")
    n_max = check_int(n_max, "n_max", 2, MAX_N)
    _check_pair(p_a_only, p_b_only)
    if method not in ("normal", "exact"):
        raise ValueError(f"method must be 'normal' or 'exact', got {method!r}.")

    def power_at(sizes: Any) -> np.ndarray:
        return np.atleast_1d(paired_power(sizes, p_a_only, p_b_only, alpha, sides,
                                          method=method))

    def assurance_at(sizes: Any) -> np.ndarray:
        return paired_assurance(sizes, p_a_only, p_b_only, level, prior, rope=rope,
                                concentration=concentration).assurance

    goal, target = ("power", check_probability(power, "power")) if power is not None else (
        "assurance", check_probability(assurance, "assurance"))
    measure = power_at if goal == "power" else assurance_at
    if goal == "assurance":
        limit = paired_assurance(1, p_a_only, p_b_only, level, prior, rope=rope,
                                 concentration=concentration).limit
        if target >= limit:
            raise ValueError(f"No number of items reaches assurance {target:g}: the design "
                             f"prior makes the difference real with probability {limit:.3g}.")
    hi = 1
    while measure(hi)[0] < target:
        if hi >= n_max:
            raise ValueError(f"No size up to n_max={n_max:,} reaches {goal} {target:g}; raise "
                             "n_max or plan for a larger difference.")
        hi = min(2 * hi, n_max)
    lo = hi // 2
    while hi - lo > 1:  # the measure rises with n (up to small saw-teeth of discrete counts)
        mid = (lo + hi) // 2
        if measure(mid)[0] >= target:
            hi = mid
        else:
            lo = mid
    reached_power = float(power_at(hi)[0])
    reached = float(assurance_at(hi)[0]) if goal == "assurance" else None
    return PairedPlan(hi, reached_power, reached, target, goal, method)
