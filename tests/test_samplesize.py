import time
import warnings

import numpy as np
import pytest
from scipy import optimize, stats

from bayescm.analyses.samplesize import mu_at_power, mu_bound, plan, required_n, simulated_mu
from bayescm.core.betahdi import beta_hdi


def brute_width(a, b, prob=0.95):
    """HDI width by scipy: minimise Q(t + prob) - Q(t) over the lower tail mass t."""
    d = stats.beta(a, b)
    with warnings.catch_warnings():  # scipy's ppf complains near t = 0 for monotone densities
        warnings.simplefilter("ignore", RuntimeWarning)
        res = optimize.minimize_scalar(lambda t: d.ppf(t + prob) - d.ppf(t),
                                       bounds=(0, 1 - prob), method="bounded",
                                       options={"xatol": 1e-12})
        return min(d.ppf(res.x + prob) - d.ppf(res.x), d.ppf(prob), 1 - d.ppf(1 - prob))


def test_rule_of_thumb_closed_form():
    assert mu_bound(100) == pytest.approx(0.2)
    np.testing.assert_allclose(mu_bound([4, 400]), [1.0, 0.1])
    assert required_n(0.05) == 1600
    assert required_n(0.1) == 400
    assert required_n(0.03) == int(np.ceil(4 / 0.03**2))


@pytest.mark.parametrize(("a", "b"), [(2, 2), (27, 1), (1, 27), (1.5, 40), (300, 120),
                                      (1.0001, 3), (5e5, 2e5), (1, 1), (0.5, 3)])
def test_beta_hdi_matches_scipy(a, b):
    lo, hi = beta_hdi(a, b)
    assert hi - lo == pytest.approx(brute_width(a, b), rel=1e-6, abs=1e-9)
    d = stats.beta(a, b)
    assert d.cdf(hi) - d.cdf(lo) == pytest.approx(0.95, abs=1e-8)


def test_beta_hdi_random_batch_equal_density():
    rng = np.random.default_rng(3)
    a = 1 + rng.integers(1, 5000, 300).astype(float)
    b = 1 + rng.integers(1, 5000, 300).astype(float)
    lo, hi = beta_hdi(a, b, 0.9).T
    np.testing.assert_allclose(stats.beta.cdf(hi, a, b) - stats.beta.cdf(lo, a, b), 0.9,
                               atol=1e-9)
    np.testing.assert_allclose(stats.beta.logpdf(hi, a, b), stats.beta.logpdf(lo, a, b),
                               atol=1e-6)


def test_beta_hdi_rejects_u_shape_and_bad_parameters():
    with pytest.raises(ValueError, match="U-shaped"):
        beta_hdi(0.5, 0.5)
    with pytest.raises(ValueError, match="finite and > 0"):
        beta_hdi(-1, 2)


def test_mu_at_power_n100_matches_exact_beta_binomial():
    # exact: k ~ BetaBinomial(100, 7.4, 2.6) (mode 0.8, concentration 10), Laplace posterior
    n = 100
    k = np.arange(n + 1)
    pmf = stats.betabinom.pmf(k, n, 0.8 * 8 + 1, 0.2 * 8 + 1)
    widths = np.array([brute_width(1 + kk, 1 + n - kk) for kk in k])
    order = np.argsort(widths)
    exact = widths[order][np.searchsorted(np.cumsum(pmf[order]), 0.95)]
    simulated = mu_at_power(n, random_seed=11)
    assert round(exact, 2) == 0.19  # the paper: MU <= 19 percentage points at N = 100
    assert round(simulated, 2) == 0.19
    # the simulated 95 %-power MU has 93-97 % exact probability of being reached
    assert 0.93 <= pmf[widths <= simulated + 1e-12].sum() <= 0.97


def test_rule_bounds_simulated_mu_above_20():
    n = np.unique(np.round(np.geomspace(21, 1e5, 25)).astype(int))
    widths = simulated_mu(n, n_sims=2000, random_seed=0)
    assert np.all(widths.max(axis=1) <= 2 / np.sqrt(n))
    for prior in ("jeffreys", "laplace"):
        assert np.all(mu_at_power(n, prior=prior, n_sims=2000, random_seed=1) <= mu_bound(n))


def test_mu_decreases_like_inverse_sqrt_n():
    n = np.array([100, 10_000, 1_000_000])
    mu = mu_at_power(n, random_seed=2)
    assert np.all(np.diff(mu) < 0)
    # 100x the samples: 10x narrower (normal limit)
    assert mu[1] / mu[2] == pytest.approx(10, rel=0.05)


def test_sweep_10_to_1e6_is_fast():
    n = np.unique(np.round(np.geomspace(10, 1e6, 40)).astype(int))
    start = time.perf_counter()
    mu = mu_at_power(n, random_seed=0)
    assert time.perf_counter() - start < 15
    assert mu.shape == n.shape
    assert np.all(np.isfinite(mu))


def test_plan_reaches_target_and_respects_rule():
    result = plan(0.05, random_seed=4)
    assert result.mu_reached <= 0.05
    assert result.n <= result.rule_of_thumb == 1600
    # an independent check at the planned size, with another seed
    assert mu_at_power(result.n, random_seed=99) == pytest.approx(0.05, rel=0.03)
    # 10 % fewer samples miss the target
    assert mu_at_power(int(result.n * 0.9), random_seed=98) > 0.05


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (lambda: mu_at_power(100, power=1.5), ValueError, "power .* between 0 and 1"),
        (lambda: mu_at_power(-5), ValueError, "n must be >= 1"),
        (lambda: mu_at_power(2.5), ValueError, "whole numbers"),
        (lambda: mu_at_power(100, mode=1.2), ValueError, "mode"),
        (lambda: mu_at_power(100, concentration=1), ValueError, "concentration must be"),
        (lambda: mu_at_power(100, prior="haldane"), ValueError, "improper posterior"),
        (lambda: mu_at_power(100, n_sims=0), ValueError, "n_sims"),
        (lambda: plan(0), ValueError, r"mu .* must lie in \(0, 1\]"),
        (lambda: plan(1e-6, n_max=1000), ValueError, "raise n_max"),
        (lambda: required_n(5), ValueError, "as a fraction"),
        (lambda: mu_bound(0), ValueError, ">= 1"),
    ],
)
def test_bad_input_messages(call, exc, match):
    with pytest.raises(exc, match=match):
        call()
