"""Bootstrap and binomial intervals against scipy and against a slow index-resampling loop."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from bayescm.analyses.frequentist import binomial_interval, bootstrap

GRID = [(0, 1), (1, 1), (0, 10), (3, 10), (10, 10), (1, 37), (26, 26), (500, 1000),
        (999, 1000), (7, 50)]


@pytest.mark.parametrize(("k", "n"), GRID)
@pytest.mark.parametrize("ci", [0.95, 0.8])
def test_clopper_pearson_and_wilson_match_scipy(k, n, ci):
    res = stats.binomtest(k, n)
    for method, scipy_method in (("clopper-pearson", "exact"), ("wilson", "wilson")):
        want = res.proportion_ci(confidence_level=ci, method=scipy_method)
        got = binomial_interval(k, n, method=method, ci=ci)
        assert got == pytest.approx((want.low, want.high), abs=1e-10)


@pytest.mark.parametrize(("k", "n"), GRID)
def test_jeffreys_matches_beta_quantiles(k, n):
    lo, hi = binomial_interval(k, n, method="jeffreys")
    post = stats.beta(k + 0.5, n - k + 0.5)
    assert lo == (0.0 if k == 0 else pytest.approx(post.ppf(0.025), abs=1e-10))
    assert hi == (1.0 if k == n else pytest.approx(post.ppf(0.975), abs=1e-10))


def test_binomial_interval_vectorised():
    k = np.array([0, 3, 10])
    lo, hi = binomial_interval(k, 10, "wilson")
    assert lo.shape == (3,)
    for i, ki in enumerate(k):
        assert (lo[i], hi[i]) == binomial_interval(int(ki), 10, "wilson")


def test_binomial_interval_bad_inputs():
    with pytest.raises(ValueError, match="0 <= k <= n"):
        binomial_interval(11, 10)
    with pytest.raises(ValueError, match="n must be >= 1"):
        binomial_interval(0, 0)
    with pytest.raises(ValueError, match="whole numbers"):
        binomial_interval(2.5, 10)
    with pytest.raises(ValueError, match="Unknown method 'wald'"):
        binomial_interval(2, 10, "wald")
    with pytest.raises(ValueError, match="ci must lie strictly between 0 and 1"):
        binomial_interval(2, 10, ci=95)


def correlated_data(seed=0, n=1000):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, size=n)
    a_right = rng.random(n) < 0.75
    b_right = np.where(a_right, rng.random(n) < 0.97, rng.random(n) < 0.25)
    a = np.where(a_right, y, 1 - y)
    b = np.where(b_right, y, 1 - y)
    return y, a, b


def slow_bootstrap(y, a, b, n_boot, paired, seed):
    """Textbook bootstrap: resample indices in a Python loop."""
    rng = np.random.default_rng(seed)
    n = y.size
    out = np.empty(n_boot)
    for i in range(n_boot):
        idx = rng.integers(0, n, n)
        idx_b = idx if paired else rng.integers(0, n, n)
        out[i] = np.mean(a[idx] == y[idx]) - np.mean(b[idx_b] == y[idx_b])
    return out


@pytest.mark.parametrize("paired", [True, False])
def test_bootstrap_matches_index_resampling(paired):
    y, a, b = correlated_data()
    fast = bootstrap(y, a, b, "acc", n_boot=4000, paired=paired, positive=1, random_seed=1)
    slow = slow_bootstrap(y, a, b, 4000, paired, seed=2)
    # same sampling distribution: compare spread and quantiles within Monte Carlo error
    assert fast.table.loc["A - B", "se"] == pytest.approx(slow.std(ddof=1), rel=0.06)
    np.testing.assert_allclose(fast.interval, np.quantile(slow, [0.025, 0.975]), atol=0.006)
    assert fast.table.loc["A - B", "estimate"] == pytest.approx(np.mean(a == y) - np.mean(b == y))


def test_bootstrap_joint_matches_closed_form_se():
    y, a, b = correlated_data(seed=3)
    p10 = np.mean((a == y) & (b != y))
    p01 = np.mean((a != y) & (b == y))
    se = np.sqrt((p10 + p01 - (p10 - p01) ** 2) / y.size)
    res = bootstrap(y, a, b, "acc", n_boot=20_000, positive=1, random_seed=4)
    assert res.table.loc["A - B", "se"] == pytest.approx(se, rel=0.03)
    indep = bootstrap(y, a, b, "acc", n_boot=20_000, paired=False, positive=1, random_seed=4)
    width = np.diff(res.interval)[0]
    assert np.diff(indep.interval)[0] > 2 * width
    pa = np.mean(a == y)
    assert res.table.loc["A", "se"] == pytest.approx(np.sqrt(pa * (1 - pa) / y.size), rel=0.03)


def test_bootstrap_single_classifier_any_metric():
    y, a, _ = correlated_data(seed=5)
    res = bootstrap(y, a, metric="sensitivity", n_boot=5000, positive=1, random_seed=0)
    assert list(res.table.index) == ["A"]
    tp = np.sum((y == 1) & (a == 1))
    pos = np.sum(y == 1)
    assert res.table.loc["A", "estimate"] == pytest.approx(tp / pos)
    lo, hi = res.interval
    assert lo < tp / pos < hi
    assert res.replicates.shape == (5000, 1)


def test_bootstrap_multiclass():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 3, size=400)
    a = np.where(rng.random(400) < 0.7, y, (y + 1) % 3)
    res = bootstrap(y, a, metric="acc", n_boot=5000, random_seed=1)
    p = np.mean(a == y)
    assert res.table.loc["A", "se"] == pytest.approx(np.sqrt(p * (1 - p) / 400), rel=0.05)


def test_bootstrap_undefined_metric_warns():
    y = np.array([1] * 3 + [0] * 97)
    a = np.zeros(100, dtype=int)
    a[0] = 1
    with pytest.warns(RuntimeWarning, match="undefined"):
        bootstrap(y, a, metric="ppv", n_boot=2000, positive=1, random_seed=0)


def test_bootstrap_bad_inputs():
    y, a, b = correlated_data()
    with pytest.raises(ValueError, match="y_true has 1000 labels but pred_b has 10"):
        bootstrap(y, a, b[:10], positive=1)
    with pytest.raises(ValueError, match="Unknown binary metric 'nonsense'"):
        bootstrap(y, a, b, "nonsense", positive=1)
    with pytest.raises(ValueError, match="n_boot must be >= 2"):
        bootstrap(y, a, b, n_boot=1, positive=1)
    with pytest.raises(ValueError, match="ci must lie strictly between 0 and 1"):
        bootstrap(y, a, b, ci=1.5, positive=1)
