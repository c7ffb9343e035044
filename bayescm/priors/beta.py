"""The Beta prior of one proportion (prevalence, TPR, TNR), its parameterisations and its update."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescm.core.exact import draw_beta
from bayescm.core.validate import check_probability
from bayescm.priors.protocol import (
    PriorSpec,
    as_rng,
    check_positive,
    n_draws,
    reshape_draws,
    size_tuple,
)

if TYPE_CHECKING:
    from pytensor.tensor.variable import TensorVariable

__all__ = ["Beta"]


@dataclass(frozen=True)
class Beta(PriorSpec):
    r"""Beta(alpha, beta) prior on a proportion.

    .. math:: p(x) \propto x^{\alpha - 1} (1 - x)^{\beta - 1}, \quad 0 < x < 1

    Conjugate to the binomial likelihood: with ``k`` successes in ``n`` trials the posterior is
    ``Beta(alpha + k, beta + n - k)`` (:meth:`update`), which is what the exact sampler draws
    from.

    Parameters
    ----------
    alpha, beta : float
        Pseudo-counts of successes and failures; both must be finite and > 0.

    See Also
    --------
    Laplace, Jeffreys, Haldane : the three objective presets.
    Beta.from_mean, Beta.from_counts, Beta.from_interval : informative alternatives.

    Examples
    --------
    >>> import bayescm as bcm
    >>> bcm.Beta(2, 8).mean
    0.2
    >>> bcm.Beta(2, 8).update(successes=26, failures=0)
    Beta(alpha=28.0, beta=8.0)
    """

    alpha: float
    beta: float

    def __post_init__(self) -> None:
        allow_zero = self._improper_ok
        object.__setattr__(self, "alpha", check_positive(self.alpha, "Beta alpha", allow_zero))
        object.__setattr__(self, "beta", check_positive(self.beta, "Beta beta", allow_zero))

    _improper_ok = False
    family = "beta"

    @property
    def name(self) -> str:
        """Short name used in messages and serialisation."""
        return "beta"

    @property
    def mean(self) -> float:
        """Prior mean ``alpha / (alpha + beta)``."""
        return self.alpha / (self.alpha + self.beta)

    @property
    def proper(self) -> bool:
        """Whether the prior integrates to one."""
        return self.alpha > 0 and self.beta > 0

    def to_dict(self) -> dict[str, Any]:
        """Serialise to a JSON-compatible dict (:func:`bayescm.priors.from_dict` rebuilds it).

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Jeffreys().to_dict()
        {'dist': 'Beta', 'name': 'jeffreys', 'alpha': 0.5, 'beta': 0.5}
        """
        return {"dist": "Beta", "name": self.name, "alpha": self.alpha, "beta": self.beta}

    # ------------------------------------------------------------------ acting
    def create_variable(self, name: str, dims: Any = None) -> TensorVariable:
        """The ``pm.Beta`` variable ``name`` in the current model (``dims`` from its coords).

        Examples
        --------
        >>> import pymc as pm, bayescm as bcm
        >>> with pm.Model(coords={"classifier": ["a", "b"]}):
        ...     tpr = bcm.Beta(2, 8).create_variable("tpr", dims="classifier")
        >>> tpr.eval().shape
        (2,)
        """
        import pymc as pm

        return pm.Beta(name, alpha=self.alpha, beta=self.beta, dims=dims)

    def posterior_params(self, successes: Any, failures: Any) -> tuple[np.ndarray, np.ndarray]:
        """Posterior ``(alpha + successes, beta + failures)``, vectorised over arrays of counts.

        Entries <= 0 (an improper prior that met a zero count) mean an improper posterior; the
        caller checks them (:meth:`update` raises).

        Examples
        --------
        >>> import bayescm as bcm
        >>> a, b = bcm.Laplace().posterior_params([26, 3], [0, 5])
        >>> a.tolist(), b.tolist()
        ([27.0, 4.0], [1.0, 6.0])
        """
        succ = np.asarray(successes, dtype=float)
        fail = np.asarray(failures, dtype=float)
        return self.alpha + succ, self.beta + fail

    def update(self, successes: float, failures: float) -> Beta:
        """The closed-form posterior ``Beta(alpha + successes, beta + failures)``.

        Raises a ValueError when the posterior is improper (Haldane and a zero count).

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Jeffreys().update(10, 2)
        Beta(alpha=10.5, beta=2.5)
        """
        a, b = self.posterior_params(successes, failures)
        if a.ndim or b.ndim:
            raise ValueError("update takes one pair of counts; use posterior_params for arrays.")
        if a <= 0 or b <= 0:
            which = "successes" if a <= 0 else "failures"
            raise ValueError(f"The {self.name} prior gives an improper posterior because "
                             f"{which} = 0; use a proper prior (e.g. 'jeffreys').")
        return Beta(float(a), float(b))

    def sample(self, rng: Any = None, size: Any = None) -> np.ndarray:
        """Independent prior draws of shape ``size`` (NumPy; a seed or Generator as ``rng``).

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Beta(2, 8).sample(0, size=(2, 3)).shape
        (2, 3)
        """
        self._check_sampleable()
        shape = size_tuple(size)
        flat = draw_beta(as_rng(rng), self.alpha, self.beta, 1, n_draws(shape))
        return reshape_draws(flat, shape)

    def draw(self, rng: Any, chains: int, draws: int) -> np.ndarray:
        """Prior draws arranged as ``(chains, draws)``, as the exact sampler lays them out.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Laplace().draw(0, chains=4, draws=100).shape
        (4, 100)
        """
        self._check_sampleable()
        return draw_beta(as_rng(rng), self.alpha, self.beta, chains, draws)

    def for_classes(self, k: int, role: str = "prevalence", parameter: str = "the parameter"
                    ) -> Any:
        """A Beta other than a preset has no multiclass meaning: a TypeError that says so."""
        raise TypeError(
            f"{self!r} is a prior for one proportion (binary matrices) and cannot be the prior of "
            f"the multiclass {parameter}; use bcm.Dirichlet(alpha) with a scalar or one "
            f"concentration per class ({k} classes), or 'weak', 'laplace', 'jeffreys', 'flat', "
            "'haldane'."
        )

    def concentration(self, k: int, role: str = "prevalence") -> np.ndarray:
        """Multiclass concentration; only the presets have one (see :class:`bayescm.Weak`)."""
        return self.for_classes(k, role)

    # ------------------------------------------------------------------ alternatives
    @classmethod
    def from_mean(cls, mean: float, concentration: float) -> Beta:
        """Beta prior with a given mean and concentration ``alpha + beta``.

        Parameters
        ----------
        mean : float
            Prior mean, strictly between 0 and 1.
        concentration : float
            ``alpha + beta`` (> 0): how many observations the prior is worth.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Beta.from_mean(0.9, concentration=20)
        Beta(alpha=18.0, beta=2.0)
        """
        mean = check_probability(mean, "mean")
        concentration = check_positive(concentration, "concentration")
        return Beta(round(mean * concentration, 12), round((1 - mean) * concentration, 12))

    @classmethod
    def from_counts(
        cls, successes: float, failures: float, weight: float = 1.0, base: Beta | None = None
    ) -> Beta:
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

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Beta.from_counts(26, 0)
        Beta(alpha=27.0, beta=1.0)
        """
        successes = check_positive(successes, "successes", allow_zero=True)
        failures = check_positive(failures, "failures", allow_zero=True)
        weight = check_positive(weight, "weight")
        base = Beta(1.0, 1.0) if base is None else base  # Laplace's parameters
        if getattr(base, "family", None) != "beta":
            raise TypeError(f"base must be a Beta prior, got {base!r}.")
        return Beta(base.alpha + weight * successes, base.beta + weight * failures)

    @classmethod
    def from_interval(cls, lower: float, upper: float, mass: float = 0.95) -> Beta:
        """Beta prior whose central (equal-tailed) ``mass`` interval is ``[lower, upper]``.

        Solves for the two parameters so that ``lower`` and ``upper`` are the
        ``(1 - mass) / 2`` and ``(1 + mass) / 2`` quantiles.

        Parameters
        ----------
        lower, upper : float
            Interval ends, ``0 < lower < upper < 1``.
        mass : float, default 0.95
            Prior probability inside the interval.

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
        return Beta(float(a), float(b))
