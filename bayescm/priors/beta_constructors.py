"""Beta priors said another way: from a mean and a strength, earlier counts or an interval.

:class:`BetaConstructors` holds the alternative constructors of :class:`~bayescm.Beta`
(``Beta.from_mean``, ``Beta.from_counts``, ``Beta.from_interval``). Beta inherits them and
supplies the one hook they build with, ``_plain(alpha, beta)``: a plain Beta, also when a
constructor is called on a preset (``bcm.priors.Laplace.from_mean(...)`` is a Beta, not a Laplace).
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from bayescm.core.validate import check_probability
from bayescm.priors.protocol import check_positive

__all__ = ["BetaConstructors"]


class _Parameters(Protocol):
    """What the constructors read of a Beta prior (``base`` of ``from_counts``)."""

    @property
    def alpha(self) -> float: ...

    @property
    def beta(self) -> float: ...


class BetaConstructors[B: _Parameters]:
    """The alternative constructors of a Beta prior, inherited by :class:`~bayescm.Beta`."""

    @classmethod
    def _plain(cls, alpha: float, beta: float) -> B:
        """The plain Beta(alpha, beta) the constructors return (implemented by Beta)."""
        raise NotImplementedError  # pragma: no cover

    @classmethod
    def from_mean(cls, mean: float, concentration: float) -> B:
        """Beta prior with a given mean and concentration ``alpha + beta``.

        Parameters
        ----------
        mean : float
            Prior mean, strictly between 0 and 1.
        concentration : float
            ``alpha + beta`` (> 0): how many observations the prior is worth.

        Returns
        -------
        Beta
            ``Beta(mean * concentration, (1 - mean) * concentration)``.

        See Also
        --------
        from_interval : The same prior said as a range you believe the value lies in.
        from_counts : A prior from an earlier study's counts.
        bayescm.plots.plot_priors : What the prior implies for every metric.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Beta.from_mean(0.9, concentration=20)
        Beta(alpha=18.0, beta=2.0)
        """
        mean = check_probability(mean, "mean")
        concentration = check_positive(concentration, "concentration")
        return cls._plain(round(mean * concentration, 12),
                          round((1 - mean) * concentration, 12))

    @classmethod
    def from_counts(
        cls, successes: float, failures: float, weight: float = 1.0, base: B | None = None
    ) -> B:
        """Beta prior from the counts of an earlier study: ``base`` updated with weighted counts.

        Parameters
        ----------
        successes, failures : float
            Counts observed earlier (e.g. TP and FN of a previous test for a TPR prior); >= 0.
        weight : float, default 1.0
            How much one earlier observation counts relative to a new one (a power prior);
            0.5 halves the earlier study's influence.
        base : Beta, optional
            The prior the earlier study started from; default :class:`Laplace`.

        Returns
        -------
        Beta
            ``Beta(base.alpha + weight * successes, base.beta + weight * failures)``.

        Raises
        ------
        TypeError
            ``base`` is not a Beta prior.

        See Also
        --------
        update : The unweighted update of any Beta with new counts.
        from_mean : A prior from a mean and a strength instead.
        bayescm.priors_from_matrix : Priors for every parameter from an earlier confusion matrix.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Beta.from_counts(26, 0)
        Beta(alpha=27.0, beta=1.0)
        """
        successes = check_positive(successes, "successes", allow_zero=True)
        failures = check_positive(failures, "failures", allow_zero=True)
        weight = check_positive(weight, "weight")
        base = cls._plain(1.0, 1.0) if base is None else base  # Laplace's parameters
        if getattr(base, "family", None) != "beta":
            raise TypeError(f"base must be a Beta prior, got {base!r}.")
        return cls._plain(base.alpha + weight * successes, base.beta + weight * failures)

    @classmethod
    def from_interval(cls, lower: float, upper: float, mass: float = 0.95) -> B:
        """Beta prior whose central (equal-tailed) ``mass`` interval is ``[lower, upper]``.

        Solves for the two parameters so that ``lower`` and ``upper`` are the
        ``(1 - mass) / 2`` and ``(1 + mass) / 2`` quantiles.

        Parameters
        ----------
        lower, upper : float
            Interval ends, ``0 < lower < upper < 1``.
        mass : float, default 0.95
            Prior probability inside the interval.

        Returns
        -------
        Beta
            The prior with ``mass`` of its probability in ``[lower, upper]``, split equally between
            the two tails outside.

        Raises
        ------
        ValueError
            ``lower >= upper``, or no Beta distribution fits (an interval too wide for ``mass``).

        See Also
        --------
        from_mean : A prior from a mean and a strength.
        bayescm.priors_from_metrics : Priors from beliefs about metrics such as the PPV.
        bayescm.plots.plot_priors : What the prior implies for every metric.

        Examples
        --------
        >>> import bayescm as bcm
        >>> prior = bcm.Beta.from_interval(0.7, 0.9)
        >>> round(prior.mean, 2)
        0.81
        """
        from scipy import optimize, special, stats

        lower = check_probability(lower, "lower")
        upper = check_probability(upper, "upper")
        mass = check_probability(mass, "mass")
        if not lower < upper:
            raise ValueError(f"lower ({lower}) must be smaller than upper ({upper}).")
        tail = (1 - mass) / 2

        def residual(log_ab: np.ndarray) -> np.ndarray:
            # both tails on the probability scale, relative to their target: exact for narrow
            # intervals near 0 or 1 too (the upper tail via the symmetry I_(1-x)(b, a))
            a, b = np.exp(log_ab)
            below = special.betainc(a, b, lower)
            above = special.betainc(b, a, 1.0 - upper)
            return np.array([below / tail - 1.0, above / tail - 1.0])

        mid = (lower + upper) / 2
        # starting point: moment match with sd ~ width / 4
        sd = (upper - lower) / (2 * stats.norm.ppf(1 - tail))
        k = max(mid * (1 - mid) / sd**2 - 1, 0.5)
        sol = optimize.least_squares(residual, np.log([mid * k, (1 - mid) * k]), xtol=1e-15,
                                     ftol=1e-15, gtol=1e-15, max_nfev=2000)
        a, b = np.exp(sol.x)
        if not np.all(np.isfinite(sol.x)) or np.max(np.abs(residual(sol.x))) > 1e-6:
            raise ValueError(
                f"No Beta distribution puts {mass:.0%} of its mass in [{lower}, {upper}] with "
                "equal tails; widen the interval or lower `mass`."
            )
        return cls._plain(float(a), float(b))
