"""Every plot renders to PNG (Agg) and shows the numbers the analysis computed."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.colors import to_hex, to_rgba

import bayescm as bcm
from bayescm import plots
from bayescm.core.stats import hdi
from bayescm.io.datasets import literature_matrices
from bayescm.plots._style import OKABE_ITO, format_probability, probability_is, readable


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def cocaine_fit():
    return bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), random_seed=1)


@pytest.fixture(scope="module")
def batch_fit():
    mats = literature_matrices()
    return bcm.fit({k: mats[k] for k in ("5b", "6a", "7a", "8", "14b", "16")}, random_seed=2,
                   metrics=["bm", "acc"])


def _png(fig, tmp_path, name="plot.png"):
    path = tmp_path / name
    fig.savefig(path, dpi=60)
    assert path.stat().st_size > 1000
    return path


def _by_gid(ax, gid):
    found = [a for a in ax.get_children() if a.get_gid() == gid]
    assert found, f"no artist with gid {gid!r}"
    return found[0]


def test_plot_metric_shows_summary_numbers(cocaine_fit, tmp_path):
    ax = plots.plot_metric(cocaine_fit, "specificity", prior=True)
    _png(ax.figure, tmp_path)
    row = bcm.summary(cocaine_fit, var_names=["tnr"]).loc["tnr"]
    band = _by_gid(ax, "hdi").get_paths()[0].vertices[:, 0]
    assert band.min() == pytest.approx(row.hdi_lower, abs=1e-12)
    assert band.max() == pytest.approx(row.hdi_upper, abs=1e-12)
    observed = _by_gid(ax, "observed").get_xdata()
    assert observed[0] == pytest.approx(0.75)
    mu_text = _by_gid(ax, "mu").get_text()
    assert mu_text == f"MU = {100 * row.mu:.0f} pp"
    assert "%" in ax.get_xlabel()
    assert ax.get_title() == "TNR"
    prior_line = _by_gid(ax, "prior")
    assert prior_line.get_xdata().min() >= 0
    assert prior_line.get_xdata().max() <= 1
    # the density of a TPR near 100 % does not leak past 100 %
    ax2 = plots.plot_metric(cocaine_fit, "tpr")
    assert _by_gid(ax2, "posterior").get_xdata().max() <= 1.0
    assert ax2.get_xlim()[1] <= 1.0


def test_plot_metric_predictive_overlay(cocaine_fit):
    with pytest.raises(ValueError, match=r"call bcm\.posterior_predictive"):
        plots.plot_metric(cocaine_fit, "acc", predictive=True)
    pp = bcm.posterior_predictive(cocaine_fit, random_seed=3)
    ax = plots.plot_metric(pp, "acc", predictive=True)
    bars = _by_gid(ax, "predictive")
    assert bars is not None
    assert "posterior predictive" in ax.get_legend_handles_labels()[1][0]


@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_plot_metric_errors(cocaine_fit, batch_fit):
    with pytest.raises(KeyError, match="'auc' is not a known metric"):
        plots.plot_metric(cocaine_fit, "auc")
    with pytest.raises(ValueError, match="choose one with classifier="):
        plots.plot_metric(batch_fit, "bm")
    with pytest.raises(KeyError, match="classifier='99' is not in"):
        plots.plot_metric(batch_fit, "bm", classifier="99")
    multi = bcm.fit(bcm.ConfusionMatrix([[5, 1, 0], [1, 4, 1], [0, 1, 6]]), random_seed=0)
    with pytest.raises(ValueError, match=r"class_="):
        plots.plot_metric(multi, "tpr")
    ax = plots.plot_metric(multi, "tpr", class_="1")
    assert ax.get_title() == "TPR, class 1"


def test_plot_metrics_grid(cocaine_fit, tmp_path):
    fig = plots.plot_metrics(cocaine_fit, ["tpr", "tnr", "ppv", "bm", "dor"])
    _png(fig, tmp_path)
    titles = [ax.get_title() for ax in fig.axes if ax.get_visible()]
    assert titles == ["TPR", "TNR", "PPV", "BM", "DOR"]
    assert fig.axes[4].get_xscale() == "log"  # odds ratios on a log axis


def test_plot_forest_rows_and_deceptive_annotations(batch_fit, tmp_path):
    ax = plots.plot_forest(batch_fit, "bm")
    _png(ax.figure, tmp_path)
    names = [t.get_text() for t in ax.get_yticklabels()]
    assert sorted(names) == sorted(["5b", "6a", "7a", "8", "14b", "16"])
    risk = bcm.informedness(batch_fit)["deceptive"]
    for name in names:
        text = _by_gid(ax, f"r_deceptive:{name}").get_text()
        expected = 100 * risk[name]
        assert text == (f"{expected:.0f} %" if risk[name] >= 0.005 else "<1 %")
    # sorted by posterior mean: the best classifier is the top row
    means = batch_fit["posterior"]["bm"].mean(("chain", "draw")).to_series()
    assert names[-1] == means.idxmax()
    assert names[0] == means.idxmin()
    segments = _by_gid(ax, "hdi").get_segments()
    table = bcm.summary(batch_fit, var_names=["bm"])
    for name, seg in zip(names, segments, strict=True):
        assert seg[0][0] == pytest.approx(table.loc[f"bm[{name}]", "hdi_lower"])
        assert seg[1][0] == pytest.approx(table.loc[f"bm[{name}]", "hdi_upper"])


def test_plot_forest_needs_batch(cocaine_fit):
    with pytest.raises(ValueError, match="needs a batch fit"):
        plots.plot_forest(cocaine_fit, "bm")


def test_plot_rank_probabilities(batch_fit, tmp_path):
    ranks = bcm.rank_probabilities(batch_fit, "acc")
    prizes = [100.0, 50.0, 10.0]
    ax = plots.plot_rank_probabilities(ranks, prizes=prizes)
    _png(ax.figure, tmp_path)
    image = _by_gid(ax, "rank_probability").get_array()
    expected = ranks["rank_probability"].transpose("classifier", "rank").values
    np.testing.assert_allclose(np.asarray(image), 100 * expected)
    for i, name in enumerate(ranks["classifier"].values):
        text = _by_gid(ax, f"expected_prize:{name}").get_text()
        assert text == f"{expected[i, :3] @ np.array(prizes):,.0f}"
    board = bcm.leaderboard({"a": 0.91, "b": 0.905, "c": 0.89}, n=1000, prizes=[10, 5],
                            random_seed=0)
    ax = plots.plot_rank_probabilities(board)
    assert _by_gid(ax, "expected_prize:a").get_text() == f"{board.loc['a', 'expected_prize']:,.0f}"
    with pytest.raises(ValueError, match="non-negative"):
        plots.plot_rank_probabilities(ranks, prizes=[-1])
    with pytest.raises(TypeError, match="rank_probabilities"):
        plots.plot_rank_probabilities({"a": 1})


def test_plot_sample_size(tmp_path):
    sizes = np.array([10, 30, 100, 300, 1000])
    mu = bcm.samplesize.mu_at_power(sizes, n_sims=400, random_seed=1)
    target = bcm.samplesize.plan(0.2, n_sims=400, random_seed=1)
    ax = plots.plot_sample_size({"n": sizes, "mu": mu}, plan=target)
    _png(ax.figure, tmp_path)
    line = _by_gid(ax, "mu")
    np.testing.assert_allclose(line.get_xdata(), sizes)
    np.testing.assert_allclose(line.get_ydata(), 100 * mu)
    rule = _by_gid(ax, "rule")
    np.testing.assert_allclose(rule.get_ydata(), 200 / np.sqrt(rule.get_xdata()))
    assert _by_gid(ax, "plan").get_xdata()[0] == target.n
    assert ax.get_xscale() == "log"
    assert "(percentage points)" in ax.get_ylabel()
    with pytest.raises(ValueError, match="same non-zero length"):
        plots.plot_sample_size({"n": [10, 20], "mu": [0.1]})


def test_plot_priors_side_by_side(tmp_path):
    cm = bcm.ConfusionMatrix.from_counts(tp=5, fn=2, tn=3, fp=1)
    sens = bcm.analyses.prior_sensitivity(cm, ["laplace", "jeffreys"], draws=500, random_seed=0)
    fig = plots.plot_priors(sens, ["tpr", "bm"])
    _png(fig, tmp_path)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]  # one legend under the grid
    assert labels == ["laplace", "jeffreys"]
    # a Laplace prior on TPR is flat: its density is about 1 everywhere inside
    lap = _by_gid(fig.axes[0], "prior:laplace")
    inside = (lap.get_xdata() > 0.1) & (lap.get_xdata() < 0.9)
    assert np.allclose(lap.get_ydata()[inside], 1.0, atol=0.35)
    pred = bcm.analyses.prior_predictive("jeffreys", draws=500, random_seed=1)
    assert plots.plot_priors(pred, "tpr").axes[0].get_title() == "TPR"


@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_plot_theta(tmp_path):
    cm = bcm.ConfusionMatrix([[9, 1, 0], [2, 7, 1], [0, 1, 5]], labels=["a", "b", "c"])
    idata = bcm.fit(cm, random_seed=0)
    ax = plots.plot_theta(idata)
    _png(ax.figure, tmp_path)
    mean = idata["posterior"]["theta"].mean(("chain", "draw")).values
    np.testing.assert_allclose(np.asarray(_by_gid(ax, "theta_mean").get_array()), 100 * mean)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["a", "b", "c"]
    assert _by_gid(ax, "cell:0,0").get_text().startswith(f"{100 * mean[0, 0]:.1f} %")


def test_plot_paired(tmp_path):
    res = bcm.compare.compare_paired_counts(700, 60, 20, 220, rope=0.01, random_seed=0)
    ax = plots.plot_paired(res, "acc")
    _png(ax.figure, tmp_path)
    rope = _by_gid(ax, "rope")  # axvspan: a rectangle from -rope to +rope
    assert rope.get_x() == pytest.approx(-0.01)
    assert rope.get_x() + rope.get_width() == pytest.approx(0.01)
    comp = res["comparison"]
    # the probabilities close the legend, beside the axes (clear of the ROPE band)
    text = "\n".join(t.get_text() for t in ax.get_legend().get_texts())
    assert probability_is("P(A better)", float(comp["p_a_better"].sel(metric="acc"))) in text
    assert probability_is("P(B better)", float(comp["p_b_better"].sel(metric="acc"))) in text
    assert "95 % HDI [+2.3 pp, +5.8 pp]" in text  # a difference in percentage points
    assert _by_gid(ax, "reference").get_xdata()[0] == 0
    with pytest.raises(KeyError, match="metrics compared: acc"):
        plots.plot_paired(res, "mcc")


def test_grids_have_no_empty_panels_and_one_legend():
    import matplotlib.pyplot as plt

    idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), random_seed=1,
                    draws=500)
    fig = bcm.plots.plot_metrics(idata, ["tpr", "tnr", "ppv", "bm", "mcc", "lr_plus", "f1"])
    assert len(fig.axes) == 7 and all(ax.get_visible() and ax.has_data() for ax in fig.axes)
    labels = [t.get_text() for t in fig.legends[0].get_texts()]
    assert labels[:3] == ["posterior density", "95 % HDI", "observed value"]
    refs = {ax.get_title(): [ln.get_xdata()[0] for ln in ax.get_lines()
                             if ln.get_gid() == "reference"] for ax in fig.axes}
    assert refs["BM"] == [0.0] and refs["MCC"] == [0.0] and refs["LR+"] == [1.0]
    assert refs["TPR"] == []
    plt.close(fig)


def test_spec_figures_share_the_plot_conventions():
    import matplotlib.pyplot as plt

    from bayescm.io.datasets import literature_matrices
    from bayescm.io.runner import figure

    lit = bcm.fit(literature_matrices(), metrics=["bm", "acc"], random_seed=0, draws=200)
    fig = figure(lit, "forest", ["bm", "acc"])
    assert len(fig.axes) == 2 and fig.legends
    bm = fig.axes[0]
    assert "%" in bm.get_xticklabels()[1].get_text() or "%" in bm.get_xlabel()
    assert any(ln.get_gid() == "reference" for ln in bm.get_lines())
    plt.close(fig)


def test_overlays_of_classes_and_classifiers(batch_fit):
    multi = bcm.fit(bcm.ConfusionMatrix([[15, 1, 0], [1, 14, 1], [0, 1, 16]]), random_seed=0,
                    draws=500)
    ax = plots.plot_metric(multi, "tpr", class_=["0", "2"])
    assert ax.get_title() == "TPR by class"
    # the series, then what the bars and dotted lines are (every mark explained)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "0", "2", "95 % HDI (bars)", "observed"]
    table = bcm.summary(multi, var_names=["tpr"])
    seg = _by_gid(ax, "hdi:2").get_segments()[0]
    assert seg[0][0] == pytest.approx(table.loc["tpr[2]", "hdi_lower"])
    assert seg[1][0] == pytest.approx(table.loc["tpr[2]", "hdi_upper"])
    fig = plots.plot_metrics(batch_fit, ["bm", "acc"], classifier=["5b", "8"])
    assert [ax.get_title() for ax in fig.axes] == ["BM by classifier", "Accuracy by classifier"]
    with pytest.raises(ValueError, match="predictive=True"):
        plots.plot_metric(batch_fit, "bm", classifier=["5b", "8"], predictive=True)
    with pytest.raises(ValueError, match=r"classifier=\[\] selects no classifier"):
        plots.plot_metric(batch_fit, "bm", classifier=[])
    with pytest.raises(ValueError, match="between 1 and 8"):
        plots.plot_metric(batch_fit, "bm", classifier=[str(i) for i in range(9)])


def test_forest_rows_of_classes_and_of_metrics(cocaine_fit):
    multi = bcm.fit(bcm.ConfusionMatrix([[15, 1, 0], [1, 14, 1], [0, 1, 16]]), random_seed=0,
                    draws=500)
    ax = plots.plot_forest(multi, "tpr")
    assert sorted(t.get_text() for t in ax.get_yticklabels()) == ["0", "1", "2"]
    assert ax.get_title() == "TPR of 3 classes" and ax.get_ylabel() == "class"
    ax = plots.plot_forest(cocaine_fit, ["tpr", "tnr", "bm"])
    assert [t.get_text() for t in ax.get_yticklabels()] == ["BM", "TNR", "TPR"]
    table = bcm.summary(cocaine_fit, var_names=["tpr", "tnr", "bm"])
    top = _by_gid(ax, "hdi").get_segments()[-1]  # the top row: the first metric
    assert top[0][0] == pytest.approx(table.loc["tpr", "hdi_lower"])
    with pytest.raises(ValueError, match="different scales"):
        plots.plot_forest(cocaine_fit, ["tpr", "dor"])


def test_error_rates_sort_best_at_the_top(batch_fit):
    idata = bcm.fit({k: v for k, v in literature_matrices().items() if k in ("5b", "8", "16")},
                    metrics=["err"], draws=300, random_seed=0)
    ax = plots.plot_forest(idata, "err")
    means = idata["posterior"]["err"].mean(("chain", "draw")).to_series()
    assert ax.get_yticklabels()[-1].get_text() == means.idxmin()


# ---------------------------------------------------------------- issue 17: fit to publish
def test_ratio_hdi_is_computed_and_labelled_on_the_log_scale(cocaine_fit):
    ax = plots.plot_metric(cocaine_fit, "lr_plus")
    x = cocaine_fit["posterior"]["lr_plus"].values.reshape(-1)
    lo, hi = np.exp(hdi(np.log(x), 0.95))
    fill = _by_gid(ax, "hdi")
    assert fill.get_label() == (f"95 % HDI [{readable(lo)}, {readable(hi)}], "
                                f"×{readable(hi / lo)}")
    mu = _by_gid(ax, "mu").get_text()
    assert mu == f"MU ×{readable(hi / lo)}" and "=" not in mu
    assert ax.get_xscale() == "log"
    assert 1.0 in [line.get_xdata()[0] for line in ax.get_lines() if line.get_gid() == "reference"]
    dor = plots.plot_metric(cocaine_fit, "dor")
    assert "e+" not in _by_gid(dor, "hdi").get_label()  # 1,700, not 1.7e+03


def test_infinite_and_zero_observed_values_are_noted(cocaine_fit):
    legend = plots.plot_metric(cocaine_fit, "dor").get_legend()
    assert "observed: ∞ (FN = 0)" in [t.get_text() for t in legend.get_texts()]
    fig = plots.plot_metrics(cocaine_fit, ["lr_minus", "dor", "tpr"])
    notes = {ax.get_title(): [t.get_text() for t in ax.texts if t.get_gid() == "observed_note"]
             for ax in fig.axes}
    assert notes == {"LR−": ["observed: 0 (FN = 0)"], "DOR": ["observed: ∞ (FN = 0)"],
                     "TPR": []}
    undefined = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=0, fn=0, tn=6, fp=2), draws=200,
                        random_seed=0)
    ax = plots.plot_metric(undefined, "tpr", legend=False)
    assert [t.get_text() for t in ax.texts if t.get_gid() == "observed_note"] == [
        "observed: undefined (0/0)"]


def test_multiclass_default_is_a_curated_overview(tmp_path):
    cm = bcm.ConfusionMatrix([[30, 8, 2], [6, 25, 9], [1, 7, 22]], labels=["lo", "mid", "hi"],
                             ordered=True)
    idata = bcm.fit(cm, draws=500, random_seed=0)
    fig = plots.plot_metrics(idata)
    _png(fig, tmp_path)
    assert [ax.get_title() for ax in fig.axes] == [
        "Accuracy", "Quadratic kappa", "F1 (macro)", "F1 (micro)", "TPR of 3 classes",
        "PPV of 3 classes"]
    recall = fig.axes[4]  # the classes in their order, the first at the top
    assert [t.get_text() for t in recall.get_yticklabels()] == ["hi", "mid", "lo"]
    labels = [ax.get_xlabel() for ax in fig.axes]
    assert all(len(label) <= 45 for label in labels), labels
    assert labels[2] == "F1 score (macro) (%)"
    assert len(fig.legends) == 1


def test_figsize_is_honoured_and_conflicts_are_refused(cocaine_fit, batch_fit):
    ax = plots.plot_metric(cocaine_fit, "tpr", figsize=(3.5, 2.6))
    assert tuple(ax.figure.get_size_inches()) == pytest.approx((3.5, 2.6))
    fig = plots.plot_metrics(cocaine_fit, ["tpr", "tnr"], figsize=(7.0, 3.0))
    assert tuple(fig.get_size_inches()) == pytest.approx((7.0, 3.0))
    forest = plots.plot_forest(batch_fit, "bm", figsize=(4.0, 6.0))
    assert tuple(forest.figure.get_size_inches()) == pytest.approx((4.0, 6.0))
    with pytest.raises(ValueError, match="not both"):
        plots.plot_metric(cocaine_fit, "tpr", ax=ax, figsize=(3, 2))
    with pytest.raises(ValueError, match="figsize"):
        plots.plot_metric(cocaine_fit, "tpr", figsize=(0, 2))


def test_theta_rates_of_a_binary_fit_and_colours_scaled_to_the_data(cocaine_fit):
    ax = plots.plot_theta(cocaine_fit, var="rates")
    image = _by_gid(ax, "theta_mean")
    rows = np.asarray(image.get_array()).sum(axis=1)
    np.testing.assert_allclose(rows, 100.0)  # P(predicted | true): rows sum to one
    assert image.get_clim()[1] == pytest.approx(float(np.max(image.get_array())))
    assert all(t.get_fontsize() >= 8 for t in ax.texts)
    with pytest.raises(ValueError, match="'theta'"):
        plots.plot_theta(cocaine_fit, var="cells")


def test_a_second_power_curve_is_told_apart():
    sizes = np.array([10, 100, 1000])
    ax = plots.plot_sample_size({"n": sizes, "mu": [0.5, 0.2, 0.06]}, label="a")
    plots.plot_sample_size({"n": sizes, "mu": [0.45, 0.18, 0.05]}, ax=ax, rule=False, label="b")
    first, second = _by_gid(ax, "mu"), _by_gid(ax, "mu:1")
    assert first.get_color() != second.get_color()
    assert first.get_marker() != second.get_marker()
    assert [t.get_text() for t in ax.get_legend().get_texts()][-1] == "b"


def test_probabilities_near_certainty_are_not_rounded_to_it():
    assert format_probability(0.99996) == ">99.9 %"
    assert format_probability(0.00004) == "<0.1 %"
    assert format_probability(1.0) == "100.0 %"
    with bcm.rc_context({"plot.units": "proportion"}):
        assert format_probability(0.99996) == ">0.999"


def test_every_mark_uses_the_colour_blind_safe_palette(cocaine_fit, batch_fit):
    allowed = {c.lower() for c in OKABE_ITO}
    axes = [plots.plot_metric(cocaine_fit, "tpr", prior=True),
            plots.plot_forest(batch_fit, "bm"),
            plots.plot_metric(batch_fit, "bm", classifier=["5b", "6a", "7a"])]
    for ax in axes:
        for line in ax.get_lines():
            rgb = to_rgba(line.get_color())[:3]
            assert max(rgb) - min(rgb) < 0.02 or to_hex(rgb) in allowed, to_hex(rgb)
