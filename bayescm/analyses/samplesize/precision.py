"""Sample size planning: how many test samples give a metric uncertainty (MU) of at most ``mu``.

Two tools, both for metrics that are a single Beta-distributed proportion (accuracy, TPR, TNR,
prevalence; the paper's eq. 5), where ``n`` counts the trials that inform the metric (all test
samples for accuracy, the positives for TPR, the negatives for TNR):

* the rule of thumb of the supporting information (section S5): a Beta posterior of ``n``
  observations has a standard deviation of at most ``0.5 / sqrt(n)``, and a 95 % interval is
  about four standard deviations wide, so ``MU <~ 2 / sqrt(n)`` (:func:`mu_bound`) and
  ``n >= 4 / MU^2`` samples suffice (:func:`required_n`);
* Kruschke's simulation protocol (Doing Bayesian Data Analysis, ch. 13; the paper's Fig. 6):
  draw the true proportion from a *generating* distribution (a Beta with mode ``omega`` and
  concentration ``kappa``), draw ``k ~ Binomial(n, p)``, update the analysis prior to
  ``Beta(a0 + k, b0 + n - k)`` and take the width of its exact 95 % highest-density interval.
  The MU reached with power ``1 - beta`` is the ``power`` quantile of the simulated widths
  (:func:`mu_at_power`); :func:`plan` finds the smallest ``n`` whose MU at that power is at
  most the target.

Everything is vectorised over simulations and over ``n``; the HDI of each Beta posterior is
solved exactly by Newton's method on its two defining equations (:func:`beta_hdi`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bayescm.core.arguments import keyword_checked
from bayescm.core.betahdi import beta_hdi
from bayescm.core.stats import hdi_prob_for
from bayescm.core.streams import generator, seed_sequence
from bayescm.core.validate import check_int, check_int_array, check_probability, check_real
from bayescm.priors import Beta, resolve_prior

__all__ = ["SampleSizePlan", "beta_hdi", "mu_at_power", "mu_bound", "plan", "required_n",
           "simulated_mu"]

_N_SIMS = 4000


MAX_N = 2**62
"""Largest sample size the planning functions work with (sizes are int64 throughout)."""

MU_MIN = 2.0 / np.sqrt(float(MAX_N))
"""Smallest MU that can be planned: ``4 / MU^2`` samples must stay below :data:`MAX_N`."""


def _check_n(n: Any, name: str = "n", minimum: int = 1) -> np.ndarray:
    if isinstance(n, (bool, np.bool_, str, bytes)):
        raise TypeError(f"{name} must be a whole number of samples (or an array of them), "
                        f"got {n!r}.")
    return check_int_array(n, name, minimum, MAX_N)


def _check_mu(mu: Any) -> np.ndarray:
    if isinstance(mu, (bool, np.bool_, str, bytes)):
        raise TypeError(f"mu must be a number in (0, 1], got {mu!r}.")
    try:
        arr = np.asarray(mu, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise TypeError(f"mu must be a number in (0, 1], got {mu!r}.") from None
    if not np.all((arr > 0) & (arr <= 1)):
        raise ValueError(
            f"mu (the width of the 95 % HDI of a proportion) must lie in (0, 1], got {mu!r}; "
            "give it as a fraction, e.g. 0.05 for 5 percentage points."
        )
    if np.any(arr < MU_MIN):
        raise ValueError(
            f"mu = {np.min(arr):g} would need more than 2**62 samples (4 / mu^2); the smallest "
            f"MU that can be planned is {MU_MIN:.3g}.")
    return arr


@keyword_checked
def mu_bound(n: Any) -> float | np.ndarray:
    """Rule-of-thumb upper bound on the metric uncertainty after ``n`` samples: ``2 / sqrt(n)``.

    A Beta posterior of ``n`` observations has a standard deviation of at most
    ``0.5 / sqrt(n)`` (proportion 0.5), and a 95 % HDI spans about four standard deviations
    (supporting information, section S5). Valid for ``n > 20``, where the posterior is close
    to normal; it ignores prior knowledge.

    Parameters
    ----------
    n : int or array of int
        Number of samples informing the metric (>= 1).

    Returns
    -------
    float or ndarray
        ``2 / sqrt(n)``.

    See Also
    --------
    required_n : The inverse, ``4 / MU^2``.
    mu_at_power : The simulated MU for a given power.

    Examples
    --------
    >>> from bayescm.analyses.samplesize import mu_bound
    >>> float(mu_bound(100))
    0.2
    """
    arr = _check_n(n)
    out = 2.0 / np.sqrt(arr)
    return float(out) if out.ndim == 0 else out


@keyword_checked
def required_n(mu: Any) -> int | np.ndarray:
    """Rule-of-thumb number of samples for a metric uncertainty of at most ``mu``: ``4 / mu^2``.

    The inverse of :func:`mu_bound`, rounded up.

    Parameters
    ----------
    mu : float or array of float
        Target width of the 95 % HDI, as a fraction in (0, 1].

    Returns
    -------
    int or ndarray of int
        The smallest number of samples whose rule-of-thumb MU is at most ``mu`` (of the same
        shape as ``mu``).

    See Also
    --------
    mu_bound : The other direction: the MU that ``n`` samples reach.
    plan : The size from simulation, with a power, rather than the rule of thumb.

    Examples
    --------
    One decimal place of a percentage (MU = 0.1 %) needs four million samples:

    >>> from bayescm.analyses.samplesize import required_n
    >>> required_n(0.05), required_n(0.001)
    (1600, 4000000)
    """
    arr = _check_mu(mu)
    # round first so that 4 / 0.05**2 = 1600.0000000000002 is not rounded up to 1601
    out = np.ceil(np.round(4.0 / arr**2, 9)).astype(np.int64)
    return int(out) if out.ndim == 0 else out


def _analysis_prior(prior: Any) -> Beta:
    if prior is None:
        prior = "laplace"
    p = resolve_prior(prior, "the analysis prior")
    if not isinstance(p, Beta):
        raise TypeError(
            f"Sample size planning needs a Beta analysis prior (a name such as 'laplace' or "
            f"'jeffreys', or bcm.Beta(a, b)), got {p!r}."
        )
    if not p.proper:
        raise ValueError(
            "The Haldane prior gives an improper posterior whenever a simulated study has no "
            "successes or no failures; plan with prior='laplace' or 'jeffreys'."
        )
    return p


def _generating(mode: Any, concentration: Any) -> tuple[float, float]:
    omega = check_real(mode, "mode (the most likely true proportion)", 0.0, 1.0)
    kappa = check_real(concentration, "concentration", -np.inf, np.inf)
    if not kappa > 2:
        raise ValueError(
            f"concentration must be a finite number > 2 (a Beta with mode {omega} and "
            f"concentration kappa has a = omega (kappa - 2) + 1), got {concentration}."
        )
    return omega * (kappa - 2) + 1, (1 - omega) * (kappa - 2) + 1


@keyword_checked
def simulated_mu(
    n: Any,
    mode: float = 0.8,
    concentration: float = 10.0,
    prior: Any = "laplace",
    n_sims: int = _N_SIMS,
    hdi_prob: float | None = None,
    random_seed: int | np.random.SeedSequence | np.random.Generator | None = None,
) -> np.ndarray:
    """Simulated metric uncertainties (HDI widths) of a proportion after ``n`` samples.

    Kruschke's protocol: for each simulation draw a true proportion ``p`` from the generating
    distribution ``Beta(a, b)`` with ``a = mode (concentration - 2) + 1`` and
    ``b = (1 - mode) (concentration - 2) + 1``, then ``k ~ Binomial(n, p)``, and return the width
    of the exact HDI of the posterior ``Beta(a0 + k, b0 + n - k)`` under the analysis prior
    ``Beta(a0, b0)``. The same true proportions are used for every ``n`` (common random
    numbers), so curves over ``n`` are smooth.

    Parameters
    ----------
    n : int or array of int
        Sample sizes (>= 1).
    mode : float, default 0.8
        Mode of the generating distribution of the true proportion.
    concentration : float, default 10
        Concentration ``kappa > 2`` of the generating distribution (higher: more certain).
    prior : str or Beta, default "laplace"
        Analysis prior (proper Beta).
    n_sims : int, default 4000
        Simulated studies per sample size.
    hdi_prob : float, optional
        Probability of the HDI whose width is the MU; default ``rcParams["stats.hdi_prob"]``.
    random_seed : int, numpy SeedSequence or Generator, optional
        Seed for reproducible simulations.

    Returns
    -------
    ndarray
        Shape ``np.shape(n) + (n_sims,)``.

    See Also
    --------
    plan : The smallest size whose simulated MU reaches a target.
    mu_at_power : The MU reached with a given power.
    bayescm.plots.plot_sample_size : Draws MU against the size.

    Examples
    --------
    >>> from bayescm.analyses.samplesize import simulated_mu
    >>> simulated_mu([10, 1000], n_sims=500, random_seed=0).shape
    (2, 500)
    """
    sizes = _check_n(n)
    n_sims = check_int(n_sims, "n_sims", 1, 10**9)
    prob = hdi_prob_for(hdi_prob)
    gen_a, gen_b = _generating(mode, concentration)
    base = _analysis_prior(prior)
    rng, _ = generator(random_seed)
    p = rng.beta(gen_a, gen_b, size=int(n_sims))
    nn = sizes[..., None]
    k = rng.binomial(nn, p)
    # many simulations share (n, k) at small n: solve each distinct posterior once
    pairs = np.stack(np.broadcast_arrays(nn, k), axis=-1).reshape(-1, 2)
    unique, inverse = np.unique(pairs, axis=0, return_inverse=True)
    bounds = beta_hdi(base.alpha + unique[:, 1], base.beta + (unique[:, 0] - unique[:, 1]), prob)
    return (bounds[:, 1] - bounds[:, 0])[inverse.reshape(-1)].reshape(k.shape)


def _check_power(power: Any) -> float:
    try:
        return check_probability(power, "power (the probability of reaching the MU)")
    except ValueError as err:
        raise ValueError(f"{err} E.g. power=0.95.") from None


@keyword_checked
def mu_at_power(
    n: Any,
    power: float = 0.95,
    mode: float = 0.8,
    concentration: float = 10.0,
    prior: Any = "laplace",
    n_sims: int = _N_SIMS,
    hdi_prob: float | None = None,
    random_seed: int | np.random.SeedSequence | np.random.Generator | None = None,
) -> float | np.ndarray:
    """The metric uncertainty reached with probability ``power`` after ``n`` samples.

    The ``power`` quantile of :func:`simulated_mu` (the smallest width ``w`` with
    ``P(MU <= w) >= power`` among the simulations): a study of ``n`` samples ends with an HDI
    no wider than this in a fraction ``power`` of the cases. This is the curve of the paper's
    Fig. 6 (mode 0.8, concentration 10, 95 % power).

    Parameters
    ----------
    n : int or array of int
        Sample sizes (>= 1); an array is evaluated in one vectorised pass.
    power : float, default 0.95
        Probability of reaching the MU, in (0, 1).
    mode, concentration, prior, n_sims, hdi_prob, random_seed
        As in :func:`simulated_mu`.

    Returns
    -------
    float or ndarray
        One MU per sample size.

    See Also
    --------
    plan : The smallest ``n`` for a target MU.
    mu_bound : The ``2 / sqrt(n)`` rule of thumb.

    Examples
    --------
    The paper's reading of Fig. 6: with 100 samples, MU <= 19 percentage points with 95 %
    probability.

    >>> from bayescm.analyses.samplesize import mu_at_power
    >>> round(mu_at_power(100, random_seed=1), 2)
    0.19
    """
    pw = _check_power(power)
    widths = simulated_mu(n, mode, concentration, prior, n_sims, hdi_prob, random_seed)
    out = np.quantile(widths, pw, axis=-1, method="inverted_cdf")
    return float(out) if out.ndim == 0 else out


@dataclass(frozen=True)
class SampleSizePlan:
    """Result of :func:`plan`.

    Attributes
    ----------
    n : int
        Smallest sample size whose MU at the given power is at most ``mu``.
    mu : float
        The target MU.
    mu_reached : float
        Simulated MU at ``n`` with the given power (<= ``mu``).
    power : float
        Probability of reaching the target.
    rule_of_thumb : int
        ``4 / mu^2`` (:func:`required_n`) for comparison.
    hdi_prob : float, optional
        Probability of the HDI whose width is the MU (None: not recorded).

    See Also
    --------
    plan : Makes it.
    bayescm.plots.plot_sample_size : Draws the plan on the MU curve.

    Examples
    --------
    >>> from bayescm.analyses.samplesize import SampleSizePlan
    >>> SampleSizePlan(n=100, mu=0.2, mu_reached=0.19, power=0.95, rule_of_thumb=100).n
    100
    """

    n: int
    mu: float
    mu_reached: float
    power: float
    rule_of_thumb: int
    hdi_prob: float | None = None


@keyword_checked
def plan(
    mu: float,
    power: float = 0.95,
    mode: float = 0.8,
    concentration: float = 10.0,
    prior: Any = "laplace",
    n_sims: int = _N_SIMS,
    hdi_prob: float | None = None,
    random_seed: int | np.random.Generator | None = None,
    n_max: int = 10**9,
) -> SampleSizePlan:
    """Smallest sample size that reaches a metric uncertainty of at most ``mu`` with ``power``.

    Evaluates :func:`mu_at_power` (same seed, hence the same simulated true proportions) first
    on a geometric grid up to a size that reaches the target, then on every integer (or a
    fine grid) between the last grid point that misses and the first that reaches it. The
    answer carries Monte Carlo error of a few percent; raise ``n_sims`` to reduce it.

    Parameters
    ----------
    mu : float
        Target width of the HDI, a fraction in (0, 1].
    power : float, default 0.95
        Probability of reaching the target, in (0, 1).
    mode, concentration, prior, n_sims, hdi_prob, random_seed
        As in :func:`simulated_mu`.
    n_max : int, default 10**9
        Give up (with an error) beyond this sample size.

    Returns
    -------
    SampleSizePlan
        ``n``, the target, the MU reached at ``n``, the power and the ``4 / mu^2`` rule.

    Raises
    ------
    TypeError
        ``n_max`` that is not an integer.
    ValueError
        ``mu`` is not reached with ``power`` below ``n_max`` samples.

    See Also
    --------
    required_n : The rule of thumb ``4 / mu^2``, without simulation.
    simulated_mu : The expected MU at one sample size.
    bayescm.plots.plot_sample_size : Draws the MU curve and the plan.

    Examples
    --------
    >>> from bayescm.analyses.samplesize import plan
    >>> result = plan(0.2, random_seed=1)
    >>> 60 < result.n <= 100, result.rule_of_thumb
    (True, 100)
    """
    target = float(_check_mu(mu))
    pw = _check_power(power)
    if isinstance(n_max, (bool, np.bool_)) or not isinstance(n_max, (int, np.integer)):
        raise TypeError(f"n_max must be an integer, got {n_max!r}.")
    n_max = int(_check_n(n_max, "n_max", 2))
    seed = seed_sequence(random_seed)  # one sequence: the same simulated truths for every n
    prob = hdi_prob_for(hdi_prob)

    def mus(sizes: np.ndarray) -> np.ndarray:
        return np.atleast_1d(mu_at_power(sizes, pw, mode, concentration, prior, n_sims,
                                         prob, seed))

    rule = int(required_n(target))
    hi = max(2 * rule, 16)
    while True:
        hi = min(hi, n_max)
        grid = np.unique(np.round(np.geomspace(1, hi, 40)).astype(np.int64))
        values = mus(grid)
        ok = values <= target
        if ok.any():
            break
        if hi >= n_max:
            raise ValueError(
                f"No sample size up to n_max={n_max} reaches MU <= {target} with power {pw}; "
                "raise n_max or accept a wider MU."
            )
        hi *= 8
    first = int(np.argmax(ok))
    n_best, reached = int(grid[first]), float(values[first])
    if first > 0:
        lo_n, hi_n = int(grid[first - 1]), int(grid[first])
        fine = np.unique(np.round(np.linspace(lo_n + 1, hi_n, min(hi_n - lo_n, 64)))
                         .astype(np.int64))
        fine_values = mus(fine)
        fine_ok = fine_values <= target
        if fine_ok.any():
            i = int(np.argmax(fine_ok))
            n_best, reached = int(fine[i]), float(fine_values[i])
    return SampleSizePlan(n=n_best, mu=target, mu_reached=reached, power=pw,
                          rule_of_thumb=rule, hdi_prob=prob)
