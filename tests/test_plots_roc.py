"""Plots of a scores fit: ROC and PR curves with bands, reliability, the difference of AUCs."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from scipy import special

import bayescm as bcm
from bayescm import plots
from bayescm.core.stats import hdi
from bayescm.models.roc import curve_bands
from bayescm.models.scores import ScoresModel
from bayescm.plots._style import probability_is


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def pair():
    """Two classifiers (A, B) on 200 items, 4 x 250 draws."""
    return ScoresModel.example()


@pytest.fixture(scope="module")
def single():
    rng = np.random.default_rng(3)
    y = rng.random(150) < 0.4
    s = special.expit(2.0 * y - 1.0 + rng.normal(size=150))
    return bcm.fit(bcm.Scores(y, s), draws=100, random_seed=4)


def _gid(ax, gid):
    found = [a for a in ax.get_children() if a.get_gid() == gid]
    assert found, f"no artist with gid {gid!r}"
    return found[0]


def _legend(ax):
    return [t.get_text() for t in ax.get_legend().get_texts()]


def _png(ax, tmp_path, name):
    path = tmp_path / name
    ax.figure.savefig(path, dpi=50)
    assert path.read_bytes()[:4] == b"\x89PNG" and path.stat().st_size > 1000


def test_plot_roc_draws_mean_bands_observed_and_auc(pair, tmp_path):
    ax = plots.plot_roc(pair)
    _png(ax, tmp_path, "roc.png")
    post = pair["posterior"]
    for name in ("A", "B"):
        mean = _gid(ax, f"mean:{name}").get_ydata()
        expected = post["roc"].sel(classifier=name).mean(("chain", "draw")).values
        assert np.allclose(mean, expected)
        for gid in (f"pointwise:{name}", f"simultaneous:{name}", f"observed:{name}"):
            _gid(ax, gid)
        # the observed staircase is the empirical curve: its area is the observed AUC
        fpr, tpr = (np.asarray(v, dtype=float) for v in _gid(ax, f"observed:{name}").get_data())
        observed = float(pair["observed_metrics"]["auc"].sel(classifier=name))
        assert np.trapezoid(tpr, fpr) == pytest.approx(observed, abs=1e-12)
    assert list(_gid(ax, "chance").get_xdata()) == [0, 1]
    labels = _legend(ax)
    row = bcm.summary(pair, var_names=["auc"]).loc["auc[B]"]
    assert labels[1] == (f"B: AUC {100 * row['mean']:.1f} % [{100 * row.hdi_lower:.1f} %, "
                         f"{100 * row.hdi_upper:.1f} %], observed {100 * row.observed:.1f} %")
    assert "95 % pointwise HDI" in labels
    assert any(t.startswith("95 % simultaneous band (whole curve") for t in labels)
    assert ax.get_title() == "ROC curve" and "%" in ax.get_xlabel()


def test_plot_roc_single_classifier_names_the_band_constant(single):
    ax = plots.plot_roc(single, hdi_prob=0.9)
    rows = single["posterior"]["roc"].values.reshape(-1, single["posterior"].sizes["fpr"])
    c = float(curve_bands(rows, 0.9)["simultaneous_c"])
    assert f"90 % simultaneous band (whole curve, mean ± {c:.2f} sd)" in _legend(ax)
    band = _gid(ax, "pointwise:A").get_paths()[0].vertices[:, 1]
    expected = curve_bands(rows, 0.9)
    assert band.min() == pytest.approx(np.nanmin(expected["pointwise_lower"]))
    assert _legend(ax)[0].startswith("AUC ")  # no classifier prefix for a single fit


def test_plot_roc_options_and_axes(pair):
    _, ax = plt.subplots()
    out = plots.plot_roc(pair, classifier="B", ax=ax, bands=(), observed=False, legend=False)
    assert out is ax and ax.get_legend() is None
    gids = {a.get_gid() for a in ax.get_children()}
    assert "mean:B" in gids and "mean:A" not in gids
    assert not {g for g in gids if g and g.split(":")[0] in ("pointwise", "simultaneous",
                                                               "observed")}
    with pytest.raises(ValueError, match="Unknown band 'hdi'"):
        plots.plot_roc(pair, bands="hdi")
    with pytest.raises(KeyError, match="choose from: A, B"):
        plots.plot_roc(pair, classifier="C")
    with pytest.raises(TypeError, match="valid keywords"):
        plots.plot_roc(pair, band="pointwise")


def test_plot_pr_has_prevalence_baseline_and_ap(pair, tmp_path):
    ax = plots.plot_pr(pair, bands="pointwise")
    _png(ax, tmp_path, "pr.png")
    prevalence = float(pair["observed_data"]["y"].mean())
    assert _gid(ax, "baseline").get_ydata()[0] == pytest.approx(prevalence)
    row = bcm.summary(pair, var_names=["average_precision"]).loc["average_precision[A]"]
    assert _legend(ax)[0].startswith(f"A: AP {100 * row['mean']:.1f} % [")
    assert any(t.startswith("no skill: prevalence") for t in _legend(ax))
    mean = _gid(ax, "mean:A").get_ydata()
    assert np.allclose(mean, pair["posterior"]["pr"].sel(classifier="A").mean(("chain", "draw")))
    assert not [a for a in ax.get_children() if a.get_gid() == "simultaneous:A"]  # not asked
    # the observed staircase read at the grid is the observed PR curve (steps-pre)
    x, y = (np.asarray(v, dtype=float) for v in _gid(ax, "observed:A").get_data())
    grid = pair["posterior"]["recall"].values
    at = np.clip(np.searchsorted(x, grid - 1e-12, side="left"), 0, x.size - 1)
    assert np.array_equal(y[at], pair["observed_metrics"]["pr"].sel(classifier="A").values)


def test_plot_reliability_bins_counts_and_ece(pair, tmp_path):
    ax = plots.plot_reliability(pair)
    _png(ax, tmp_path, "reliability.png")
    const = pair["constant_data"]
    for name in ("A", "B"):
        line = _gid(ax, f"reliability:{name}")  # the errorbar's data line
        x = np.asarray(line.get_xdata(), dtype=float)
        n = const["bin_count"].sel(classifier=name).values
        assert np.allclose(x, const["bin_score"].sel(classifier=name).values[n > 0])
        bars = [a for a in ax.patches if a.get_gid() == f"counts:{name}"]
        assert len(bars) == n.size
    # the ECE is written under the axes, in the legend, clear of the points
    text = "\n".join(t.get_text() for t in ax.get_legend().get_texts() if t.get_gid() == "ece")
    ece = float(pair["posterior"]["ece"].sel(classifier="B").mean())
    assert f"ECE (B): {100 * ece:.1f} %" in text and "if calibrated" in text
    assert "P(ECE > calibrated)" in text
    assert _gid(ax, "calibrated").get_xdata()[-1] == 1


def test_plot_reliability_needs_probabilities():
    rng = np.random.default_rng(0)
    y = rng.random(80) < 0.5
    idata = bcm.fit(bcm.Scores(y, 3.0 * y + rng.normal(size=80)), draws=50, random_seed=0)
    with pytest.raises(ValueError, match="not probabilities"):
        plots.plot_reliability(idata)
    assert plots.plot_roc(idata).get_title() == "ROC curve"  # any real scores have a ROC


def test_plot_delta_auc_title_hdi_and_zero(pair, tmp_path):
    ax = plots.plot_delta_auc(pair, "B", "A")
    _png(ax, tmp_path, "delta.png")
    p = bcm.prob_superior(pair, "B", "A", metric="auc")
    assert ax.get_title() == f"AUC: B - A, {probability_is('P(B > A)', p)}"
    diff = (pair["posterior"]["auc"].sel(classifier="B")
            - pair["posterior"]["auc"].sel(classifier="A")).values.reshape(-1)
    lo, hi = hdi(diff, 0.95)
    band = _gid(ax, "hdi").get_paths()[0].vertices[:, 0]
    assert lo - 0.01 <= band.min() <= lo + 0.01 and hi - 0.01 <= band.max() <= hi + 0.01
    assert _gid(ax, "reference").get_xdata()[0] == 0.0
    obs = pair["observed_metrics"]["auc"]
    assert _gid(ax, "observed").get_xdata()[0] == pytest.approx(
        float(obs.sel(classifier="B") - obs.sel(classifier="A")))
    reverse = plots.plot_delta_auc(pair, "A", "B", metric="average_precision")
    assert reverse.get_title().startswith("Average precision: A - B, P(A > B) = ")


def test_plot_delta_auc_errors(pair, single):
    with pytest.raises(ValueError, match="same classifier"):
        plots.plot_delta_auc(pair, "A", "A")
    with pytest.raises(KeyError, match="'Z' is not in the fit"):
        plots.plot_delta_auc(pair, "Z", "A")
    with pytest.raises(ValueError, match="this fit has one"):
        plots.plot_delta_auc(single, "A", "B")
    with pytest.raises(ValueError, match="is a curve"):
        plots.plot_delta_auc(pair, "B", "A", metric="roc")
    with pytest.raises(KeyError, match="no 'f1_macro'"):
        plots.plot_delta_auc(pair, "B", "A", metric="f1_macro")


@pytest.mark.parametrize("draw", [plots.plot_roc, plots.plot_pr, plots.plot_reliability])
def test_non_scores_trees_are_refused_with_the_call_to_make(draw):
    cm = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), draws=100)
    with pytest.raises(ValueError, match=r"a binary fit\. Fit labels and scores first: "
                                         r"bcm\.fit\(bcm\.Scores"):
        draw(cm)
    with pytest.raises(ValueError, match=r"bcm\.Scores"):
        plots.plot_delta_auc(cm, "B", "A")
    with pytest.raises(TypeError):
        draw({"not": "a tree"})


def test_a_scores_fit_without_the_variable_says_which_method_has_it(pair):
    tree = pair.copy()
    tree["posterior"] = pair["posterior"].to_dataset().drop_vars("reliability")
    with pytest.raises(ValueError, match=r"which this scores fit .* does not hold"):
        plots.plot_reliability(tree)


def test_accessor_methods_are_the_functions(pair):
    def lines(ax):
        return [(ln.get_gid(), np.asarray(ln.get_ydata(), dtype=float).round(12).tolist())
                for ln in ax.get_lines()]

    assert lines(pair.bcm.plot_roc()) == lines(plots.plot_roc(pair))
    assert lines(pair.bcm.plot_pr(classifier="A")) == lines(plots.plot_pr(pair, classifier="A"))
    assert _legend(pair.bcm.plot_reliability()) == _legend(plots.plot_reliability(pair))
    assert (pair.bcm.plot_delta_auc("B", "A").get_title()
            == plots.plot_delta_auc(pair, "B", "A").get_title())


def test_plots_follow_the_units_setting(pair):
    with bcm.rc_context(plot_units="proportion"):
        ax = plots.plot_roc(pair, classifier="A")
        assert "%" not in ax.get_xlabel() and _legend(ax)[0].startswith("A: AUC 0.")
        assert "pp" not in plots.plot_delta_auc(pair, "B", "A").get_xlabel()
