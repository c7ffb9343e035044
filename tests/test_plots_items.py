"""The figures of an item-level evaluation draw what the fit and the yardsticks say.

Each figure is drawn from a tree assembled from NumPy draws (``conftest.synthetic_items_fit``,
no NUTS) and its marks are read back: the HDI segments against the draws' HDIs, the CR1 and
naive segments against :mod:`bayescm.analyses.items_frequentist`, the P(B > A) labels against
the draws, and the observed pass@k against a brute-force count over every k-subset of attempts.
"""

from __future__ import annotations

import itertools
from functools import cache
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import bayescm as bcm
from bayescm import plots
from bayescm.analyses.items_frequentist import cluster_robust, naive_intervals
from bayescm.analyses.items_simulation import simulate_log
from bayescm.core.stats import hdi
from bayescm.plots._items import observed_pass_at_k
from bayescm.plots._style import format_probability
from conftest import synthetic_items_fit


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@cache
def fit() -> Any:
    log, _ = simulate_log(np.random.default_rng(3), clusters=12, per_cluster=4, attempts=4,
                          mu=[-0.3, 0.4, 0.9], sd_cluster=0.6, sd_item=1.8, sd_system_item=0.5)
    return synthetic_items_fit(log)


def _segments(ax: Any, gid: str) -> np.ndarray:
    """The (x0, x1) of each horizontal segment drawn with ``gid``, top row first."""
    found = [c for c in ax.collections if c.get_gid() == gid]
    assert len(found) == 1, f"{gid}: {len(found)} collections"
    return np.array([[seg[0, 0], seg[1, 0]] for seg in found[0].get_segments()])


def test_accuracy_draws_the_hdi_the_cr1_and_the_naive_interval() -> None:
    idata = fit()
    ax = plots.plot_items_accuracy(idata, hdi_prob=0.9)
    systems = [t.get_text() for t in ax.get_yticklabels()]
    assert systems == ["A", "B", "C"]
    acc = idata["posterior"]["accuracy"]
    expected = [hdi(acc.sel(system=s).values.reshape(-1), 0.9) for s in systems]
    np.testing.assert_allclose(_segments(ax, "hdi"), expected)
    cr1, _ = cluster_robust(idata, hdi_prob=0.9)
    np.testing.assert_allclose(_segments(ax, "cr1"), cr1[["lower", "upper"]].to_numpy())
    naive = naive_intervals(idata, hdi_prob=0.9)
    np.testing.assert_allclose(_segments(ax, "naive"), naive[["lower", "upper"]].to_numpy())
    # attempts of one item agree in this log: the naive interval is the narrowest
    naive_width = np.diff(_segments(ax, "naive")).ravel()
    assert (naive_width < np.diff(_segments(ax, "cr1")).ravel()).all()
    bare = plots.plot_items_accuracy(idata, naive=False, cluster_robust=False)
    assert {c.get_gid() for c in bare.collections} == {"hdi"}


def test_differences_label_p_greater_and_draw_the_paired_cr1() -> None:
    idata = fit()
    ax = plots.plot_items_differences(idata)
    pairs = [t.get_text() for t in ax.get_yticklabels()]
    assert pairs == ["B - A", "C - A", "C - B"]
    right = next(c for c in ax.child_axes)
    labels = [t.get_text() for t in right.get_yticklabels()]
    for pair, label in zip(pairs, labels, strict=True):
        b, a = pair.split(" - ")
        p = bcm.prob_superior(idata, b, a, metric="accuracy")
        assert label == f"P(B > A) = {format_probability(p)}"  # never 1.00 from draws
    _, table = cluster_robust(idata)
    np.testing.assert_allclose(_segments(ax, "cr1"), table.loc[pairs, ["lower", "upper"]])
    these = plots.plot_items_differences(idata, items=True)
    diff = idata["posterior"]["accuracy_items_diff"]
    np.testing.assert_allclose(_segments(these, "hdi"), [
        hdi(diff.sel(pair=p).values.reshape(-1), 0.95) for p in pairs])
    assert "cr1" not in {c.get_gid() for c in these.collections}


def test_one_system_has_no_differences_or_ranks() -> None:
    log = bcm.Items(pd.DataFrame({"item_id": np.repeat(np.arange(20), 3),
                                  "correct": np.tile([1, 1, 0], 20)}))
    one = synthetic_items_fit(log)
    with pytest.raises(ValueError, match="compares systems; this fit has one"):
        plots.plot_items_differences(one)
    with pytest.raises(ValueError, match="ranks several systems; this fit has one"):
        plots.plot_items_ranks(one)
    ax = plots.plot_items_accuracy(one)  # one row, named A
    assert [t.get_text() for t in ax.get_yticklabels()] == ["A"]
    assert plots.plot_pass_at_k(one, k=[1, 2, 3]) is not None


def _brute_force(successes: np.ndarray, attempts: np.ndarray, k: int) -> tuple[float, float]:
    """pass@k and all-k of one system: every k-subset of each item's attempts, counted."""
    at_least, every = [], []
    for y, n in zip(successes, attempts, strict=True):
        if n < k:
            continue
        outcomes = [1] * int(y) + [0] * int(n - y)
        subsets = list(itertools.combinations(outcomes, k))
        at_least.append(np.mean([any(s) for s in subsets]))
        every.append(np.mean([all(s) for s in subsets]))
    return float(np.mean(at_least)), float(np.mean(every))


def test_observed_pass_at_k_counts_every_subset_of_attempts() -> None:
    rng = np.random.default_rng(5)
    attempts = rng.integers(0, 7, size=(2, 30))
    successes = rng.binomial(attempts, 0.4)
    for k in (1, 2, 3, 5):
        at_least, every = observed_pass_at_k(successes, attempts, k)
        for s in range(2):
            assert (at_least[s], every[s]) == pytest.approx(
                _brute_force(successes[s], attempts[s], k))
    at_least, _ = observed_pass_at_k(successes, attempts, 7)
    assert np.isnan(at_least).all()  # no item has 7 attempts


def test_pass_at_k_draws_the_posterior_means_and_the_observed_estimates() -> None:
    idata = fit()
    ks = [1, 2, 4, 6]
    ax = plots.plot_pass_at_k(idata, k=ks)
    out = bcm.pass_at_k(idata, k=ks)
    means = [line for line in ax.get_lines() if line.get_gid() == "mean:pass"]
    expected = out["pass_at_k"].mean(("chain", "draw")).transpose("system", "k").values
    np.testing.assert_allclose([line.get_ydata() for line in means], expected)
    every = [line for line in ax.get_lines() if line.get_gid() == "mean:all"]
    np.testing.assert_allclose([line.get_ydata() for line in every],
                               out["pass_all_k"].mean(("chain", "draw")).transpose(
                                   "system", "k").values)
    seen = [line for line in ax.get_lines() if line.get_gid() == "observed:pass"]
    obs = idata["observed_data"]
    y, n = np.asarray(obs["successes"].values), np.asarray(obs["attempts"].values)
    for s, line in enumerate(seen):
        heights = np.asarray(line.get_ydata(), dtype=float)
        assert heights[ks.index(2)] == pytest.approx(_brute_force(y[s], n[s], 2)[0])
        assert np.isnan(heights[ks.index(6)])  # 4 attempts: no unbiased estimate of pass@6
    only = plots.plot_pass_at_k(idata, k=ks, all_k=False)
    assert not [line for line in only.get_lines() if line.get_gid() == "mean:all"]
    with pytest.raises(ValueError, match=r"draws the k the fit stores .* got k=\[50\]"):
        plots.plot_pass_at_k(idata, k=[50], items=True)
    with pytest.raises(ValueError, match="k must be a positive integer"):
        plots.plot_pass_at_k(idata, k=[0, 1])
