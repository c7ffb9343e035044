"""Prior specifications: small, validated, serialisable objects.

A prior is a declarative description, not a PyMC variable. :func:`bayescm.build_model` turns it
into one, and the exact sampler reads its parameters directly when it is conjugate.

The conjugate priors are Beta distributions for the binary model's proportions (prevalence, TPR,
TNR) and Dirichlet distributions for the multiclass model's probability vectors. Any other object
with a ``create_variable(name)`` method (the protocol of pymc-extras' ``Prior``) is accepted and
sampled with NUTS.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from bayescm.core.validate import check_probability, check_real

__all__ = [
    "Beta",
    "Dirichlet",
    "Fixed",
    "Haldane",
    "Jeffreys",
    "Flat",
    "Laplace",
    "PRIOR_NAMES",
    "PriorFactory",
    "Weak",
    "resolve_prior",
]


@runtime_checkable
class PriorFactory(Protocol):
    """Anything that can create a PyMC random variable inside a model context."""

    def create_variable(self, name: str) -> Any:  # pragma: no cover - protocol
        """Create the variable ``name`` in the current ``pm.Model``."""


def _check_positive(value: float, what: str, allow_zero: bool = False) -> float:
    value = check_real(value, what)
    if value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{what} must be {bound}, got {value}.")
    return value


def _check_open_unit(value: float, what: str) -> float:
    return check_probability(value, what)


@dataclass(frozen=True)
class Beta:
    r"""Beta(alpha, beta) prior on a proportion.

    .. math:: p(x) \propto x^{\alpha - 1} (1 - x)^{\beta - 1}, \quad 0 < x < 1

    Conjugate to the binomial likelihood: with ``k`` successes in ``n`` trials the posterior is
    ``Beta(alpha + k, beta + n - k)``, which is what the exact sampler draws from.

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
    """

    alpha: float
    beta: float

    def __post_init__(self) -> None:
        allow_zero = self._improper_ok
        object.__setattr__(self, "alpha", _check_positive(self.alpha, "Beta alpha", allow_zero))
        object.__setattr__(self, "beta", _check_positive(self.beta, "Beta beta", allow_zero))

    _improper_ok = False
    conjugate = True

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
        """Serialise to a JSON-compatible dict.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Jeffreys().to_dict()
        {'dist': 'Beta', 'name': 'jeffreys', 'alpha': 0.5, 'beta': 0.5}
        """
        return {"dist": "Beta", "name": self.name, "alpha": self.alpha, "beta": self.beta}

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
        mean = _check_open_unit(mean, "mean")
        concentration = _check_positive(concentration, "concentration")
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
        successes = _check_positive(successes, "successes", allow_zero=True)
        failures = _check_positive(failures, "failures", allow_zero=True)
        weight = _check_positive(weight, "weight")
        base = Laplace() if base is None else base
        if not isinstance(base, Beta):
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

        lower = _check_open_unit(lower, "lower")
        upper = _check_open_unit(upper, "upper")
        mass = _check_open_unit(mass, "mass")
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


@dataclass(frozen=True)
class Laplace(Beta):
    """Laplace (Bayes) prior Beta(1, 1): uniform on [0, 1]; the default.

    Examples
    --------
    >>> import bayescm as bcm
    >>> bcm.Laplace()
    Laplace()
    """

    alpha: float = 1.0
    beta: float = 1.0

    def __repr__(self) -> str:
        return "Laplace()"

    @property
    def name(self) -> str:  # noqa: D102
        return "laplace"


@dataclass(frozen=True)
class Jeffreys(Beta):
    """Jeffreys prior Beta(1/2, 1/2): invariant under reparameterisation.

    Examples
    --------
    >>> import bayescm as bcm
    >>> bcm.Jeffreys().alpha
    0.5
    """

    alpha: float = 0.5
    beta: float = 0.5

    def __repr__(self) -> str:
        return "Jeffreys()"

    @property
    def name(self) -> str:  # noqa: D102
        return "jeffreys"


@dataclass(frozen=True)
class Haldane(Beta):
    """Haldane prior Beta(0, 0): improper; the posterior mean equals the observed proportion.

    The posterior ``Beta(k, n - k)`` is proper only when both counts are positive, so a zero
    count (e.g. FN = 0 for the TPR) raises an error naming the parameter. Equivalent to a flat
    prior on the log-odds, which is how the NUTS path implements it. There is no prior group
    for an improper prior.

    Examples
    --------
    >>> import bayescm as bcm
    >>> bcm.Haldane().proper
    False
    """

    alpha: float = 0.0
    beta: float = 0.0
    _improper_ok = True

    def __repr__(self) -> str:
        return "Haldane()"

    @property
    def name(self) -> str:  # noqa: D102
        return "haldane"


@dataclass(frozen=True)
class Weak(Beta):
    """The default: Beta(1, 1) for a binary matrix; for K classes a prior of fixed total strength.

    For a binary matrix this is Laplace. For K classes each true class's row of prediction rates
    gets a Dirichlet with ``2 / K`` on the correct class and ``2 / K`` spread evenly over the
    wrong ones, and the prevalence ``Dirichlet(2 / K)``: whatever K, two pseudo-successes and
    two pseudo-failures enter the accuracy, so the prior does not swamp the data as K grows (a
    flat Dirichlet(1) puts K pseudo-counts in every row, K - 1 of them on errors: an implied
    recall prior with mean 1 / K). On simulated classifiers with at least 20 items per class its
    95 % intervals of accuracy, macro recall, macro F1 and kappa cover the truth in 0.90-0.97 of
    test sets for K = 2 to 20 and accuracies 0.6 to 0.95 (``benchmarks/coverage_study.py``).

    Examples
    --------
    >>> import bayescm as bcm
    >>> bcm.Weak().alpha, bcm.Weak().name
    (1.0, 'weak')
    """

    alpha: float = 1.0
    beta: float = 1.0

    def __repr__(self) -> str:
        return "Weak()"

    @property
    def name(self) -> str:  # noqa: D102
        return "weak"


@dataclass(frozen=True)
class Flat(Beta):
    """A flat Dirichlet(1) on every cell: Laplace for two classes, strong for many.

    Kept under its own name for reproducing earlier analyses: for K classes it puts K
    pseudo-counts in every row of the rates, K - 1 of them on wrong classes, so its intervals
    stop covering the truth from about K = 5 (see :class:`Weak`).

    Examples
    --------
    >>> import bayescm as bcm
    >>> bcm.Flat().name
    'flat'
    """

    alpha: float = 1.0
    beta: float = 1.0

    def __repr__(self) -> str:
        return "Flat()"

    @property
    def name(self) -> str:  # noqa: D102
        return "flat"


@dataclass(frozen=True)
class Fixed:
    """A known, fixed value instead of a prior (e.g. a curated test set's share of positives).

    Only the prevalence can be fixed: it enters the model as a constant and the ``n_pos``
    likelihood is dropped (the test set's composition was chosen, not observed).

    Parameters
    ----------
    value : float or array-like
        Binary: a number strictly between 0 and 1. Multiclass: a vector of positive class
        shares that sums to 1.

    Examples
    --------
    >>> import bayescm as bcm
    >>> bcm.Fixed(0.5)
    Fixed(value=0.5)
    """

    value: Any
    conjugate = True
    proper = True

    def __post_init__(self) -> None:
        arr = np.asarray(self.value, dtype=float) if _is_numeric(self.value) else None
        if arr is None:
            raise TypeError(f"Fixed value must be a number or a vector, got {self.value!r}.")
        if arr.ndim == 0:
            object.__setattr__(self, "value", _check_open_unit(arr.item(), "Fixed value"))
            return
        if arr.ndim != 1 or arr.size < 2:
            raise ValueError(f"Fixed value: a fixed prevalence vector must be 1-D with >= 2 "
                             f"entries, got {arr.tolist()}.")
        if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
            raise ValueError(f"Fixed value: prevalences must be finite and > 0, got "
                             f"{arr.tolist()}.")
        if not np.isclose(arr.sum(), 1.0, rtol=0, atol=1e-9):
            raise ValueError(f"Fixed value: prevalences must sum to 1, they sum to "
                             f"{arr.sum():.6g}.")
        object.__setattr__(self, "value", tuple(float(v) for v in arr))

    @property
    def name(self) -> str:
        """Short name used in messages and serialisation."""
        return "fixed"

    def to_dict(self) -> dict[str, Any]:
        """Serialise to a JSON-compatible dict."""
        value = list(self.value) if isinstance(self.value, tuple) else self.value
        return {"dist": "Fixed", "name": "fixed", "value": value}


@dataclass(frozen=True, init=False)
class Dirichlet:
    """Dirichlet(alpha) prior on a probability vector (multiclass prevalences or rates).

    Parameters
    ----------
    alpha : float or sequence of float
        Concentration; a scalar is used for every class. All entries > 0
        (0 is allowed only through the improper ``"haldane"`` preset).

    Examples
    --------
    >>> import bayescm as bcm
    >>> bcm.Dirichlet([2, 1, 1]).alpha
    (2.0, 1.0, 1.0)
    """

    alpha: float | tuple[float, ...]
    conjugate = True

    def __init__(self, alpha: Any, *, _allow_zero: bool = False) -> None:
        if not _is_numeric(alpha):
            raise TypeError(f"Dirichlet alpha must be numeric, got {alpha!r}.")
        arr = np.asarray(alpha, dtype=float)
        if arr.ndim > 1:
            raise ValueError(f"Dirichlet alpha must be a scalar or vector, not shape {arr.shape}.")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"Dirichlet alpha must be finite, got {arr.tolist()}.")
        if np.any(arr < 0) or (not _allow_zero and np.any(arr == 0)):
            raise ValueError(f"Dirichlet alpha must be > 0, got {arr.tolist()}.")
        value = float(arr) if arr.ndim == 0 else tuple(float(v) for v in arr)
        object.__setattr__(self, "alpha", value)

    @property
    def name(self) -> str:
        """Short name used in messages and serialisation."""
        return "dirichlet"

    @property
    def proper(self) -> bool:
        """Whether every concentration is positive."""
        return bool(np.all(np.asarray(self.alpha) > 0))

    def vector(self, k: int) -> np.ndarray:
        """The concentration as a length-``k`` vector (broadcasting a scalar)."""
        arr = np.asarray(self.alpha, dtype=float)
        if arr.ndim == 1 and arr.size != k:
            raise ValueError(f"Dirichlet alpha has {arr.size} entries but there are {k} classes.")
        return np.broadcast_to(arr, (k,)).copy()

    def to_dict(self) -> dict[str, Any]:
        """Serialise to a JSON-compatible dict."""
        alpha = list(self.alpha) if isinstance(self.alpha, tuple) else self.alpha
        return {"dist": "Dirichlet", "name": self.name, "alpha": alpha}


def _is_numeric(value: Any) -> bool:
    try:
        arr = np.asarray(value)
    except Exception:
        return False
    return arr.dtype.kind in "iuf" and arr.dtype != bool


PRIOR_NAMES: dict[str, type[Beta]] = {
    "weak": Weak,
    "laplace": Laplace,
    "uniform": Laplace,
    "bayes": Laplace,
    "jeffreys": Jeffreys,
    "haldane": Haldane,
    "flat": Flat,
    "dirichlet1": Flat,
}
"""String names accepted wherever a prior is expected."""


def resolve_prior(prior: Any, parameter: str) -> Any:
    """Turn a user's prior argument into a prior object.

    Parameters
    ----------
    prior : str, prior object, or object with ``create_variable``
        ``"laplace"``, ``"jeffreys"``, ``"haldane"`` (case-insensitive), a :class:`Beta`,
        :class:`Fixed`, :class:`Dirichlet`, or any PyMC distribution factory.
    parameter : str
        The parameter it is for, used in error messages.

    Examples
    --------
    >>> from bayescm.priors.base import resolve_prior
    >>> resolve_prior("Jeffreys", "tpr")
    Jeffreys()
    """
    if isinstance(prior, str):
        key = prior.strip().lower()
        if key not in PRIOR_NAMES:
            names = ", ".join(sorted(set(PRIOR_NAMES)))
            raise ValueError(
                f"Unknown prior name {prior!r} for {parameter}; use one of {names}, "
                "or a prior object such as bcm.Beta(a, b)."
            )
        return PRIOR_NAMES[key]()
    if isinstance(prior, (Beta, Fixed, Dirichlet)):
        return prior
    if isinstance(prior, PriorFactory):
        return prior
    raise TypeError(
        f"Cannot use {prior!r} as the prior of {parameter}: pass a name (laplace, jeffreys, "
        "haldane), a bcm.Beta / bcm.Fixed / bcm.Dirichlet, or an object with "
        "create_variable(name) such as a pymc-extras Prior."
    )


def is_conjugate(prior: Any) -> bool:
    """Whether the exact (closed-form) sampler can handle ``prior``."""
    return bool(getattr(prior, "conjugate", False))


def prior_to_dict(prior: Any) -> dict[str, Any]:
    """Serialise any prior, including third-party factories, for the result's attributes."""
    if hasattr(prior, "to_dict"):
        try:
            out = dict(prior.to_dict())
        except Exception:
            out = {}
        if out:
            out.setdefault("name", type(prior).__name__)
            return out
    return {"dist": type(prior).__name__, "name": "custom", "repr": repr(prior)}
