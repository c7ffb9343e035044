"""The summary ROC of a hierarchical fit: its regions as data, the SROC plot, the group forest."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.path import Path
from scipy import stats

import bayescm as bcm
from bayescm import plots
from bayescm.analyses.sroc import in_region, sroc_regions
from bayescm.core.betahdi import beta_hdi

CELLS = {"A": (45, 5, 8, 92), "B": (30, 6, 12, 70), "C": (60, 4, 9, 120), "D": (18, 5, 3, 40),
         "E": (25, 0, 10, 66), "F": (40, 9, 6, 85)}
"""Six sites of one test (tp, fn, fp, tn); site E found every positive."""


pytestmark = pytest.mark.slow  # every test reads a NUTS fit (the hierarchical example)

@pytest.fixture(scope="module")
def idata():
    """The six sites of ``HierarchicalModel.example()`` (2 x 500 draws, kept per process and
    shared with the documentation's examples), fitted once."""
    from bayescm.models.hierarchical import HierarchicalModel

    return HierarchicalModel.example()


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


def _points(idata, which):
    post = idata["posterior"]
    return np.column_stack([1.0 - post[f"tnr_{which}"].values.ravel(),
                            post[f"tpr_{which}"].values.ravel()])


@pytest.mark.parametrize("prob", [0.95, 0.8])
def test_regions_hold_the_stated_share_of_their_draws(idata, prob):
    regions = sroc_regions(idata, hdi_prob=prob)
    for region, which in (("credible", "mean"), ("prediction", "new")):
        edge = regions.sel(region=region)
        polygon = Path(np.column_stack([edge["fpr"].values, edge["tpr"].values]))
        share = polygon.contains_points(_points(idata, which)).mean()
        assert share == pytest.approx(prob, abs=0.03), region
        assert in_region(regions, *_points(idata, which).T, region=region).mean() == (
            pytest.approx(prob, abs=0.03))


def test_prediction_region_contains_the_credible_region(idata):
    regions = sroc_regions(idata)
    edge = regions.sel(region="credible")
    assert in_region(regions, edge["fpr"].values, edge["tpr"].values, "prediction").all()
    assert float(regions["radius"].sel(region="prediction")) >= stats.chi2.ppf(0.95, 2) ** 0.5 - 0.5
    sd = regions[["sd_logit_fpr", "sd_logit_tpr"]]
    assert (sd.sel(region="prediction") > sd.sel(region="credible")).all()


def test_regions_data_summary_point_band_and_groups(idata):
    regions = bcm.analyses.sroc_regions(idata, n_points=50)
    post = idata["posterior"]
    assert regions.sizes["vertex"] == 50 and regions.attrs["group"] == "site"
    assert float(regions["summary_tpr"]) == pytest.approx(float(post["tpr_mean"].mean()))
    assert float(regions["summary_fpr"]) == pytest.approx(1 - float(post["tnr_mean"].mean()))
    # the boundary closes, and its vertices lie on the ellipse
    assert np.allclose(regions["fpr"].isel(vertex=0), regions["fpr"].isel(vertex=-1))
    edge = regions.sel(region="credible")
    nudged = in_region(regions, edge["fpr"].values * 0.999, edge["tpr"].values, "credible")
    assert 0 < nudged.mean() < 1  # half the nudged vertices move in, half out
    assert (regions["sroc_lower"] <= regions["sroc_mean"] + 1e-12).all()
    assert (regions["sroc_mean"] <= regions["sroc_upper"] + 1e-12).all()
    fp, tn = np.array([v[2] for v in CELLS.values()]), np.array([v[3] for v in CELLS.values()])
    assert np.allclose(regions["observed_fpr"], fp / (fp + tn))
    assert regions["n_items"].values.tolist() == [sum(v) for v in CELLS.values()]
    grid = regions["sroc_fpr"].values[regions["in_observed_range"].values]
    assert grid.min() >= (fp / (fp + tn)).min() and grid.max() <= (fp / (fp + tn)).max()


def test_regions_refuse_other_fits_and_bad_arguments(idata):
    plain = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=5, fn=1, fp=2, tn=4), draws=50)
    with pytest.raises(ValueError, match="hierarchical fit"):
        sroc_regions(plain)
    with pytest.raises(ValueError, match="n_points"):
        sroc_regions(idata, n_points=2)
    with pytest.raises(TypeError, match="valid keywords"):
        sroc_regions(idata, hdi=0.9)
    with pytest.raises(ValueError, match="region must be one of"):
        in_region(sroc_regions(idata), 0.1, 0.9, region="confidence")


def test_plot_sroc_draws_every_part(idata):
    ax = plots.plot_sroc(idata, labels=True)
    gids = {line.get_gid() for line in ax.get_lines()}
    assert {"chance", "sroc", "sroc_outside", "credible", "prediction", "summary"} <= gids
    assert ax.get_xlim() == (0, 1) and ax.get_ylim() == (0, 1)
    assert ax.get_title() == "Summary ROC of 6 sites"
    assert sorted(t.get_text() for t in ax.texts) == sorted(CELLS)
    regions = sroc_regions(idata)
    solid = next(line for line in ax.get_lines() if line.get_gid() == "sroc")
    drawn = np.isfinite(np.asarray(solid.get_xdata(), dtype=float))
    assert (drawn == regions["in_observed_range"].values).all()  # solid over the observed FPRs
    hidden = plots.plot_sroc(idata, outside="hide", legend=False)
    assert "sroc_outside" not in {line.get_gid() for line in hidden.get_lines()}
    assert hidden.get_legend() is None
    with pytest.raises(ValueError, match="outside must be one of"):
        plots.plot_sroc(idata, outside="clip")
    assert idata.bcm.plot_sroc(hdi_prob=0.8).get_legend() is not None


def test_plot_group_forest_rows_and_intervals(idata):
    ax = plots.plot_group_forest(idata, "sensitivity", hdi_prob=0.9)
    assert [t.get_text() for t in ax.get_yticklabels()] == [*CELLS, "pooled", "new site"]
    assert ax.get_title() == "TPR by site"
    unpooled = next(c for c in ax.collections if c.get_gid() == "unpooled")
    tp, fn = np.array([v[0] for v in CELLS.values()]), np.array([v[1] for v in CELLS.values()])
    segments = np.array([seg[:, 0] for seg in unpooled.get_segments()])
    assert np.allclose(segments, beta_hdi(1 + tp, 1 + fn, 0.9))  # each site alone, exact
    lo, hi = beta_hdi(1 + tp[0], 1 + fn[0], 0.9)
    assert stats.beta(1 + tp[0], 1 + fn[0]).cdf(hi) - stats.beta(1 + tp[0], 1 + fn[0]).cdf(
        lo) == pytest.approx(0.9)
    diamond = next(p for p in ax.patches if p.get_gid() == "pooled")
    xs = diamond.get_xy()[:, 0]
    low, high = bcm.stats.hdi(idata["posterior"]["tpr_mean"].values.ravel(), 0.9)
    assert xs.min() == pytest.approx(low) and xs.max() == pytest.approx(high)
    counts = [t.get_text() for t in ax.texts if "/" in t.get_text() and "pos" not in
              t.get_text()]
    assert counts == [f"{a}/{a + b}" for a, b in zip(tp, fn, strict=True)]


def test_plot_group_forest_pairs_complements_and_other_metrics(idata):
    fig = plots.plot_group_forest(idata, ["tpr", "tnr"])
    assert [a.get_title() for a in fig.axes] == ["TPR by site", "TNR by site"]
    fpr = plots.plot_group_forest(idata, "fpr", sort=True, unpooled=False, counts=False)
    diamond = next(p for p in fpr.patches if p.get_gid() == "pooled")
    centre = diamond.get_xy()[1, 0]
    assert centre == pytest.approx(1 - float(idata["posterior"]["tnr_mean"].mean()))
    labels = [t.get_text() for t in fpr.get_yticklabels()][:-2]
    means = idata["posterior"]["fpr"].mean(("chain", "draw")).to_series()
    assert labels == list(means.sort_values().index)  # the lowest FPR (the best) at the top
    ppv = plots.plot_group_forest(idata, "ppv")
    # every metric of a whole run has population rows too (ppv_mean, ppv_new: issue 30)
    assert [t.get_text() for t in ppv.get_yticklabels()][:len(CELLS)] == list(CELLS)
    assert len(ppv.get_yticklabels()) == len(CELLS) + 2
    diamond = next(p for p in ppv.patches if p.get_gid() == "pooled")
    assert diamond.get_xy()[1, 0] == pytest.approx(float(idata["posterior"]["ppv_mean"].mean()))
    mixed = plots.plot_group_forest(idata, ["ppv", "tpr"])
    rows = [[t.get_position()[1] for t in a.get_yticklabels()] for a in mixed.axes]
    assert rows[0] == rows[1]  # aligned panels
    fig, axes = plt.subplots(1, 2)
    assert plots.plot_group_forest(idata, ("tpr", "tnr"), ax=axes) is fig
    assert idata.bcm.plot_group_forest("tnr").get_title() == "TNR by site"


def test_plot_group_forest_errors(idata):
    with pytest.raises(ValueError, match="no value per site"):
        plots.plot_group_forest(idata, "tpr_mean")
    with pytest.raises(ValueError, match="one Axes per variable"):
        plots.plot_group_forest(idata, ["tpr", "tnr"], ax=[plt.gca()])
    with pytest.raises(ValueError, match=r"var=\[\] selects no metric"):
        plots.plot_group_forest(idata, [])
    with pytest.raises(KeyError, match="auc"):
        plots.plot_group_forest(idata, "auc")
    plain = bcm.fit({"a": bcm.ConfusionMatrix.from_counts(tp=5, fn=1, fp=2, tn=4),
                     "b": bcm.ConfusionMatrix.from_counts(tp=3, fn=3, fp=2, tn=4)}, draws=50)
    with pytest.raises(ValueError, match="plot_forest"):
        plots.plot_group_forest(plain, "tpr")
    with pytest.raises(TypeError, match="valid keywords"):
        plots.plot_group_forest(idata, "tpr", pooled=False)
