"""Figures of large batches: the best and worst rows, said so on the figure, saved fast (13.5)."""

from __future__ import annotations

import time

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest

import bayescm as bcm
from bayescm import plots


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _matrices(count: int, seed: int = 0) -> dict[str, bcm.ConfusionMatrix]:
    rng = np.random.default_rng(seed)
    n = rng.integers(20, 200, size=count)
    pos = n // 2
    tp = rng.binomial(pos, rng.uniform(0.5, 0.99, count))
    tn = rng.binomial(n - pos, rng.uniform(0.5, 0.99, count))
    return {f"clf{i:05d}": bcm.ConfusionMatrix.from_counts(
        tp=int(tp[i]), fn=int(pos[i] - tp[i]), tn=int(tn[i]), fp=int(n[i] - pos[i] - tn[i]))
        for i in range(count)}


@pytest.fixture(scope="module")
def batch120():
    return bcm.fit(_matrices(120), metrics=["bm", "err"], draws=200, random_seed=0)


def _gid(ax, gid):
    return [a for a in ax.get_children() if a.get_gid() == gid]


def _means(tree, name):
    return tree["posterior"][name].mean(("chain", "draw")).to_series()


def test_forest_of_a_large_batch_shows_best_and_worst(batch120, tmp_path):
    ax = plots.plot_forest(batch120, "bm")
    ax.figure.savefig(tmp_path / "forest.png", dpi=50)
    assert ax.get_title() == "BM of 120 classifiers: the best and worst 25"
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert len(labels) == 50
    means = _means(batch120, "bm").sort_values()
    assert labels[:25] == list(means.index[:25])  # bottom rows: the worst, worst lowest
    assert labels[25:] == list(means.index[-25:])  # top rows: the best, best at the top
    (note,) = _gid(ax, "not_shown")
    hidden = means.iloc[25:-25]
    assert note.get_text() == (f"... 70 classifiers not shown (posterior means "
                               f"{100 * hidden.min():.0f} % to {100 * hidden.max():.0f} %)")
    # the rows drawn carry the summary's numbers, the gap row is free
    table = bcm.summary(batch120, var_names=["bm"])
    segments = _gid(ax, "hdi")[0].get_segments()
    ys = [seg[0][1] for seg in segments]
    assert ys == list(range(25)) + list(range(26, 51))
    for name, seg in zip(labels, segments, strict=True):
        assert seg[0][0] == pytest.approx(table.loc[f"bm[{name}]", "hdi_lower"])
        assert seg[1][0] == pytest.approx(table.loc[f"bm[{name}]", "hdi_upper"])
    risk = bcm.informedness(batch120)["deceptive"]
    name = labels[0]
    text = _gid(ax, f"r_deceptive:{name}")[0].get_text()
    assert text == (f"{100 * risk[name]:.0f} %" if risk[name] >= 0.005 else "<1 %")


def test_forest_limits_follow_the_metric_direction_and_options(batch120):
    ax = plots.plot_forest(batch120, "err", max_rows=10)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    means = _means(batch120, "err").sort_values()
    assert labels[-1] == means.index[0]  # lowest error rate at the top
    assert labels[0] == means.index[-1]
    # sort=False still picks the best and worst when rows are cut
    unsorted = plots.plot_forest(batch120, "err", max_rows=10, sort=False)
    assert [t.get_text() for t in unsorted.get_yticklabels()] == labels
    everything = plots.plot_forest(batch120, "bm", max_rows=None)
    assert len(everything.get_yticklabels()) == 120
    assert not _gid(everything, "not_shown")
    assert everything.get_title() == "BM of 120 classifiers"
    for bad in (1, 2.5, True, "10"):
        with pytest.raises(ValueError, match="max_rows must be an integer"):
            plots.plot_forest(batch120, "bm", max_rows=bad)


@pytest.mark.slow  # scale
def test_rank_heatmap_of_a_large_batch(batch120, tmp_path):
    ranks = bcm.rank_probabilities(batch120, "bm")
    ax = plots.plot_rank_probabilities(ranks, prizes=[100, 50, 10])
    ax.figure.savefig(tmp_path / "ranks.png", dpi=50)
    assert ax.get_title().splitlines()[1] == ("the best and worst 25 of 120 by expected rank")
    assert ax.get_ylabel() == "classifier (by expected rank)"
    expected_rank = ranks["expected_rank"].to_series().sort_values(kind="stable")
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[:25] == list(expected_rank.index[:25])  # best at the top
    assert labels[25] == "" and labels[26:] == list(expected_rank.index[-25:])
    # every rank of a full table: the first and last ten, with a blank column between
    assert [t.get_text() for t in ax.get_xticklabels()] == (
        [str(r) for r in range(1, 11)] + ["..."] + [str(r) for r in range(111, 121)])
    assert ax.get_xlabel() == "rank (ranks 11 to 110 not shown)"
    image = np.asarray(_gid(ax, "rank_probability")[0].get_array())
    assert image.shape == (51, 21)
    assert np.isnan(image[25]).all() and np.isnan(image[:, 10]).all()
    table = ranks["rank_probability"].transpose("classifier", "rank")
    best = expected_rank.index[0]
    np.testing.assert_allclose(image[0, :10], 100 * table.sel(classifier=best).values[:10])
    np.testing.assert_allclose(image[0, 11:], 100 * table.sel(classifier=best).values[-10:])
    (note,) = _gid(ax, "not_shown")
    assert note.get_text().startswith("... 70 classifiers not shown (expected ranks ")
    prize = _gid(ax, f"expected_prize:{best}")[0].get_text()
    assert prize == f"{table.sel(classifier=best).values[:3] @ [100, 50, 10]:,.0f}"
    assert not _gid(ax, f"expected_prize:{expected_rank.index[30]}")  # not drawn


def test_leaderboard_table_of_many_entries():
    scores = pd.Series(np.linspace(0.95, 0.80, 300), index=[f"e{i}" for i in range(300)])
    board = bcm.leaderboard(scores, n=3000, draws=2000, random_seed=1, prizes=[10, 5])
    ax = plots.plot_rank_probabilities(board, max_rows=20)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels[:10] == [f"e{i}" for i in range(10)] and labels[10] == ""
    assert [t.get_text() for t in ax.get_xticklabels()] == [str(r) for r in range(1, 11)]
    assert ax.get_xlabel() == "rank"
    assert _gid(ax, "expected_prize:e0")[0].get_text() == (
        f"{board.loc['e0', 'expected_prize']:,.0f}")
    cut = bcm.rank_probabilities(bcm.fit(_matrices(30), metrics=["bm"], draws=200,
                                         random_seed=2), "bm", max_rank=25)
    ax = plots.plot_rank_probabilities(cut)
    assert ax.get_xlabel() == "rank (the first 20 of 25 shown; top= shows more)"
    # a fitted batch has no published order; the heat map names the metric
    assert len(ax.get_yticklabels()) == 30 and ax.get_ylabel() == "classifier (order of the fit)"
    assert ax.get_title() == "P(rank by BM) in %"


def test_selection_errors_of_a_large_batch_stay_short(batch120):
    with pytest.raises(ValueError, match=r"clf00005, \.\.\., clf00114.*\(120 in all\)") as err:
        plots.plot_theta(batch120)
    assert len(str(err.value)) < 300
    with pytest.raises(KeyError, match=r"\(120 in all\)"):
        plots.plot_metric(batch120, "bm", classifier="nope")


@pytest.mark.slow
def test_default_figures_of_20000_matrices_save_fast(tmp_path):
    """Every default figure of a 20,000-matrix batch saves in seconds (target < 5 s)."""
    tree = bcm.fit(_matrices(20_000), draws=500, metrics=["bm"], random_seed=0)
    ranks = bcm.rank_probabilities(tree, "bm", max_rank=10)
    first = str(tree["posterior"]["classifier"].values[0])
    scores = pd.Series(np.linspace(0.99, 0.70, 20_000),
                       index=[f"e{i}" for i in range(20_000)])
    board = pd.DataFrame({f"p_rank_{r}": np.r_[np.full(10, 0.1), np.zeros(19_990)]
                          for r in range(1, 11)}, index=scores.index)
    board["expected_rank"] = np.arange(1, 20_001)
    from bayescm.io.runner import figure

    figures = {
        "forest": lambda: plots.plot_forest(tree).figure,
        "forest (accessor, tpr)": lambda: tree.bcm.plot_forest("tpr").figure,
        "rank probabilities": lambda: plots.plot_rank_probabilities(ranks).figure,
        "leaderboard table": lambda: plots.plot_rank_probabilities(board).figure,
        "metric of one classifier": lambda: plots.plot_metric(tree, "bm",
                                                              classifier=first).figure,
        "metrics of one classifier": lambda: plots.plot_metrics(tree, classifier=first),
        "theta of one classifier": lambda: plots.plot_theta(tree, classifier=first).figure,
        "spec/CLI posterior figure": lambda: figure(tree, "posterior"),
        "spec/CLI forest": lambda: figure(tree, "forest"),
    }
    took = {}
    for name, draw in figures.items():
        start = time.perf_counter()
        draw().savefig(tmp_path / "figure.png")
        took[name] = time.perf_counter() - start
        plt.close("all")
    print({k: round(v, 2) for k, v in took.items()})
    assert max(took.values()) < 15, took  # generous on a loaded 2-core machine; target 5 s
