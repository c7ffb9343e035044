"""Vectorised diagnostics and HDI reproduce ArviZ's definitions."""

from __future__ import annotations

import arviz_stats
import numpy as np
import pytest

from bayescm.core.diagnostics import ess, rhat, rhat_ess_split
from bayescm.core.stats import hdi


def _ar1(rng, phi, shape, shift=None):
    """AR(1) chains (chain, draw, *rest) with autocorrelation phi; optional per-chain shift."""
    x = np.empty(shape)
    x[:, 0] = rng.normal(size=(shape[0],) + shape[2:])
    for t in range(1, shape[1]):
        x[:, t] = phi * x[:, t - 1] + rng.normal(size=(shape[0],) + shape[2:])
    if shift is not None:
        x += np.reshape(shift, (-1,) + (1,) * (len(shape) - 1))
    return x


@pytest.mark.parametrize("phi", [0.0, 0.5, 0.95])
@pytest.mark.parametrize(("ours", "theirs"), [("split", "split"), ("rank", "rank")])
def test_rhat_matches_arviz(phi, ours, theirs):
    rng = np.random.default_rng(1)
    x = _ar1(rng, phi, (4, 400, 3), shift=[0, 0, 0, 0.3])
    got = rhat(x, ours)
    for j in range(3):
        expected = arviz_stats.rhat(x[:, :, j], method=theirs)
        assert got[j] == pytest.approx(float(expected), rel=1e-10)


@pytest.mark.parametrize("phi", [0.0, 0.3, 0.9, -0.4])
@pytest.mark.parametrize(("ours", "theirs"),
                         [("mean", "mean"), ("bulk", "bulk"), ("tail", "tail")])
def test_ess_matches_arviz(phi, ours, theirs):
    rng = np.random.default_rng(2)
    x = _ar1(rng, phi, (4, 500, 3))
    got = ess(x, ours)
    for j in range(3):
        extra = {"prob": (0.05, 0.95)} if theirs == "tail" else {}  # ArviZ's tail quantiles
        expected = arviz_stats.ess(x[:, :, j], method=theirs, **extra)
        assert got[j] == pytest.approx(float(expected), rel=1e-8)


def test_mixed_series_terminate_independently():
    """Series whose Geyer sequences end at different lags are computed together correctly."""
    rng = np.random.default_rng(3)
    x = np.stack([_ar1(rng, phi, (2, 300)) for phi in (0.0, 0.6, 0.97)], axis=-1)
    got = ess(x, "mean")
    for j in range(3):
        assert got[j] == pytest.approx(float(arviz_stats.ess(x[..., j], method="mean")), rel=1e-8)


def test_non_finite_draws_use_ranks():
    rng = np.random.default_rng(4)
    x = rng.normal(size=(4, 1000))
    x[0, 5] = np.inf
    assert np.isfinite(rhat(x, "split"))
    assert np.isfinite(ess(x, "mean"))
    assert ess(x, "mean") == pytest.approx(float(arviz_stats.ess(x, method="bulk")), rel=1e-8)


def test_stuck_chain_is_flagged():
    rng = np.random.default_rng(5)
    x = rng.normal(size=(4, 1000))
    x[3] += 3.0
    assert rhat(x, "split") > 1.1
    assert rhat(x, "rank") > 1.1


def test_constant_and_short_series():
    assert ess(np.ones((2, 100)), "mean") == 200
    assert np.isnan(rhat(np.ones((2, 3)), "split"))
    with pytest.raises(ValueError, match="Unknown R-hat method"):
        rhat(np.ones((2, 100)), "magic")
    with pytest.raises(ValueError, match="Unknown ESS method"):
        ess(np.ones((2, 100)), "magic")


def test_hdi_matches_arviz():
    rng = np.random.default_rng(6)
    for draws in (rng.beta(7, 3, 5000), rng.gamma(2.0, size=3001), rng.normal(size=200)):
        for prob in (0.5, 0.89, 0.95):
            expected = arviz_stats.hdi(draws, prob=prob)
            assert hdi(draws, prob) == pytest.approx(np.asarray(expected))


def test_hdi_vectorised_and_nan():
    rng = np.random.default_rng(7)
    draws = rng.normal(size=(3, 2, 1000))
    draws[1, 1, 10] = np.nan
    out = hdi(draws, 0.9)
    assert out.shape == (3, 2, 2)
    assert np.isnan(out[1, 1]).all()
    assert np.isfinite(out[0]).all()
    assert out[2, 0] == pytest.approx(hdi(draws[2, 0], 0.9))
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        hdi(draws, 1.5)


def test_one_pass_split_diagnostics_equal_separate_ones():
    rng = np.random.default_rng(8)
    x = np.stack([_ar1(rng, phi, (4, 301, 5)) for phi in (0.0, 0.7)], axis=-1)  # odd draws
    x[1, 7, 2, 0] = np.inf
    r, e = rhat_ess_split(x, block=3)  # blocks that cut through the series
    np.testing.assert_allclose(r, rhat(x, "split"), rtol=1e-12)
    np.testing.assert_allclose(e, ess(x, "mean"), rtol=1e-10)
    assert float(arviz_stats.rhat(x[..., 1, 1], method="split")) == pytest.approx(r[1, 1])


@pytest.mark.parametrize("n", [7, 8192, 8193, 20_000, 50_001])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_rowdot_equals_vecdot_whatever_the_row_length(n: int, dtype: type) -> None:
    from bayescm.core.moments import rowdot

    rng = np.random.default_rng(n)
    a = rng.normal(size=(3, 2, n)).astype(dtype)
    b = rng.normal(size=(3, 2, n)).astype(dtype)
    got = rowdot(a, b)
    assert got.shape == (3, 2) and got.dtype == dtype
    want = (a.astype(np.float64) * b).sum(axis=-1)
    np.testing.assert_allclose(got, want, rtol=1e-4 if dtype == np.float32 else 1e-10,
                               atol=1e-3 if dtype == np.float32 else 1e-9)
    # strided last axis (a lag of a split chain) too
    np.testing.assert_allclose(rowdot(a[..., 1:], a[..., :-1]),
                               (a[..., 1:].astype(np.float64) * a[..., :-1]).sum(axis=-1),
                               rtol=1e-4 if dtype == np.float32 else 1e-10,
                               atol=1e-2 if dtype == np.float32 else 1e-9)
