import numpy as np
import pytest

import bayescm as bcm
from bayescm.analyses.simulation import simulate, simulate_counts
from bayescm.core.stats import hdi


def test_counts_follow_the_multinomial():
    counts = simulate_counts(200, size=20_000, random_seed=0)
    assert counts.shape == (20_000, 2, 2)
    assert np.all(counts.sum(axis=(1, 2)) == 200)
    # theta = [[0.5 * 0.8, 0.5 * 0.2], [0.5 * 0.4, 0.5 * 0.6]]
    theta = np.array([[0.4, 0.1], [0.2, 0.3]])
    np.testing.assert_allclose(counts.mean(axis=0) / 200, theta, atol=0.002)
    np.testing.assert_allclose(counts.var(axis=0), 200 * theta * (1 - theta), rtol=0.05)


def test_simulate_returns_matrices():
    cm = simulate(30, prevalence=0.2, tpr=1.0, tnr=0.5, random_seed=1)
    assert isinstance(cm, bcm.ConfusionMatrix)
    assert cm.is_binary
    assert cm.n == 30
    assert cm.cells["fn"] == 0
    batch = simulate(30, size=12, random_seed=1)
    assert list(batch)[:2] == ["sim0000", "sim0001"]
    assert len(batch) == 12


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [({"n": 0}, ValueError, ">= 1"), ({"n": -5}, ValueError, ">= 1"),
     ({"n": 2.5}, TypeError, "whole number"),
     ({"n": 10, "tpr": 1.5}, ValueError, r"tpr .* \[0, 1\]"),
     ({"n": 10, "prevalence": -0.1}, ValueError, "prevalence"),
     ({"n": 10, "size": 0}, ValueError, "size")],
)
def test_bad_input(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        simulate_counts(**kwargs)


def _coverage(n, size, seed):
    batch = simulate(n, size=size, random_seed=seed)
    idata = bcm.fit(batch, metrics=["bm"], draws=1000, chains=2, random_seed=seed + 1)
    bm = idata["posterior"]["bm"].transpose("classifier", "chain", "draw").values
    bounds = hdi(bm.reshape(size, -1))
    return ((bounds[:, 0] <= 0.4) & (bounds[:, 1] >= 0.4)).mean()


def test_bm_hdi_coverage_is_nominal():
    # the SI's simulated classifier: BM = 0.8 + 0.6 - 1 = 0.4
    assert 0.93 <= _coverage(400, 1000, 7) <= 0.97


@pytest.mark.slow
@pytest.mark.parametrize("n", [50, 200, 1000])
def test_bm_hdi_coverage_across_sample_sizes(n):
    assert 0.93 <= _coverage(n, 2000, n) <= 0.97
