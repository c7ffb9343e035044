"""Gaps between groups (fairness): closed forms on exact fits, the hierarchical path, the plot."""

from __future__ import annotations

import csv
import sys
import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

import bayescm as bcm
from bayescm.comparisons.groups import ACROSS, fairness_table, group_gaps, unpooled_fit
from bayescm.core.stats import hdi
from bayescm.io.datasets import DATASETS, subgroups
from bayescm.plots import plot_group_gaps

ROOT = Path(__file__).resolve().parents[1]
CM = bcm.ConfusionMatrix.from_counts
CELLS = {"a": (40, 10, 5, 45), "b": (30, 20, 8, 92), "c": (3, 1, 2, 4)}  # b is the largest


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def batch():
    mats = {k: CM(tp=tp, fn=fn, fp=fp, tn=tn) for k, (tp, fn, fp, tn) in CELLS.items()}
    return bcm.fit(mats, draws=1000, chains=2, random_seed=7)


@pytest.fixture(scope="module")
def hier(small_hierarchical):
    """The session's one short NUTS fit (tests/conftest.py): five AUDIT-C studies, a tiny
    study (2 positives, 4 negatives) and an empty one (no positives, no negatives)."""
    return small_hierarchical


def _draws(tree, name):
    return tree["posterior"][name]


# ---------------------------------------------------------------------------- closed forms
def test_gaps_are_differences_and_ratios_of_the_groups_draws(batch):
    gaps = group_gaps(batch)
    assert gaps.attrs["reference"] == "b"
    for measure, metric, op in (("tpr_gap", "tpr", np.subtract), ("fpr_gap", "fpr", np.subtract),
                                ("ppv_ratio", "ppv", np.divide),
                                ("selection_rate_ratio", "bias", np.divide)):
        x = _draws(batch, metric)
        expected = op(x, x.sel(classifier="b"))
        np.testing.assert_allclose(gaps[measure].transpose(*expected.dims).values,
                                   expected.values, rtol=1e-12, atol=1e-15)
        assert gaps[measure].attrs["measure"] == ("gap" if op is np.subtract else "ratio")
    assert float(abs(gaps["tpr_gap"].sel(classifier="b")).max()) == 0.0
    assert np.all(gaps["ppv_ratio"].sel(classifier="b").values == 1.0)


def test_across_group_measures(batch):
    gaps = group_gaps(batch)
    tpr, fpr, ppv = (_draws(batch, m) for m in ("tpr", "fpr", "ppv"))
    np.testing.assert_allclose(gaps["tpr_gap_max"], tpr.max("classifier") - tpr.min("classifier"))
    np.testing.assert_allclose(gaps["ppv_ratio_min"], ppv.min("classifier") / ppv.max("classifier"))
    np.testing.assert_allclose(gaps["equalized_odds"], np.maximum(
        gaps["tpr_gap_max"], fpr.max("classifier") - fpr.min("classifier")))
    assert gaps["equalized_odds"].dims == ("chain", "draw")
    # the across-group measures do not depend on the reference
    other = group_gaps(batch, "a")
    np.testing.assert_array_equal(other["tpr_gap_max"], gaps["tpr_gap_max"])


def test_table_is_the_share_of_draws_outside_the_band(batch):
    table = fairness_table(batch, epsilon=0.1, ratio_bounds=(0.9, 1.2), hdi_prob=0.9)
    gaps = group_gaps(batch)
    tpr_a = gaps["tpr_gap"].sel(classifier="a").values.ravel()
    row = table.loc[("tpr_gap", "a")]
    assert row["p_exceeds"] == pytest.approx(np.mean(np.abs(tpr_a) > 0.1))
    assert row["mean"] == pytest.approx(tpr_a.mean())
    np.testing.assert_allclose([row["hdi_lower"], row["hdi_upper"]], hdi(tpr_a, 0.9))
    assert (row["lower"], row["upper"]) == (-0.1, 0.1)
    assert row["observed"] == pytest.approx(40 / 50 - 30 / 50)
    ratio = gaps["ppv_ratio"].sel(classifier="c").values.ravel()
    assert table.loc[("ppv_ratio", "c"), "p_exceeds"] == pytest.approx(
        np.mean((ratio < 0.9) | (ratio > 1.2)))
    assert table.loc[("ppv_ratio", "c"), "observed"] == pytest.approx((3 / 5) / (30 / 38))
    # the reference has no rows; the across-group rows follow each measure
    assert "b" not in table.index.get_level_values("classifier")
    across = table.loc[("tpr_gap_max", ACROSS)]
    assert across["p_exceeds"] == pytest.approx(np.mean(gaps["tpr_gap_max"].values > 0.1))
    assert across["positives"] == 50 + 50 + 4 and bool(across["prior_dominated"])
    assert table.loc[("tpr_gap", "c"), ["positives", "negatives"]].tolist() == [4, 6]
    assert table.attrs["reference"] == "b" and table.attrs["hdi_prob"] == 0.9
    assert list(table.index.names) == ["measure", "classifier"]


def test_metrics_not_stored_in_the_fit_come_from_theta(batch):
    mats = {k: CM(tp=tp, fn=fn, fp=fp, tn=tn) for k, (tp, fn, fp, tn) in CELLS.items()}
    lean = bcm.fit(mats, draws=1000, chains=2, random_seed=7, metrics=["acc"])
    assert "ppv" not in lean["posterior"]
    np.testing.assert_allclose(group_gaps(lean)["ppv_ratio"], group_gaps(batch)["ppv_ratio"],
                               rtol=1e-10)
    np.testing.assert_allclose(fairness_table(lean)["observed"], fairness_table(batch)["observed"])


def test_measure_names_and_aliases(batch):
    gaps = group_gaps(batch, measures=["recall_gap", "bias_ratio", "selection_rate_gap",
                                       "npv_ratio"])
    per_group = [k for k, v in gaps.data_vars.items() if "classifier" in v.dims and "measure"
                 in v.attrs]
    assert per_group == ["tpr_gap", "selection_rate_ratio", "selection_rate_gap", "npv_ratio"]
    assert "equalized_odds" not in gaps  # needs both tpr_gap and fpr_gap
    assert list(group_gaps(batch, measures="tnr_gap").data_vars)[:2] == ["tnr_gap", "tnr_gap_max"]


# ---------------------------------------------------------------------------- reference, groups
def test_reference_selection(batch):
    assert group_gaps(batch).attrs["reference_rule"] == "the largest group (most items)"
    given = group_gaps(batch, reference="a")
    assert given.attrs["reference"] == "a" and given.attrs["reference_rule"] == "given"
    sub = group_gaps(batch, groups=["c", "a"])
    assert sub.attrs["reference"] == "a" and sub["classifier"].values.tolist() == ["c", "a"]
    tied = bcm.fit({"x": CM(tp=5, fn=5, fp=5, tn=5), "y": CM(tp=10, fn=0, fp=0, tn=10)},
                   draws=50, random_seed=0)
    assert group_gaps(tied).attrs["reference"] == "x"  # equal sizes: the first


def test_prior_dominated_flags(batch):
    gaps = group_gaps(batch)
    assert gaps["prior_dominated"].to_series().to_dict() == {"a": False, "b": False, "c": True}
    assert "fewer than 10 positives" in gaps.attrs["prior_dominated_rule"]
    assert not group_gaps(batch, min_items=0)["prior_dominated"].any()
    with pytest.warns(UserWarning, match="reference group 'b' is prior-dominated"):
        strict = group_gaps(batch, min_items=51)
    assert strict["prior_dominated"].values.tolist() == [True, True, True]
    with pytest.warns(UserWarning, match="reference group 'c' is prior-dominated"):
        group_gaps(batch, reference="c")


# ---------------------------------------------------------------------------- bad input
def test_bad_input_names_the_remedy(batch):
    with pytest.raises(KeyError, match="not a group of this result"):
        group_gaps(batch, reference="zz")
    with pytest.raises(KeyError, match="groups='zz'"):
        group_gaps(batch, groups=["a", "zz"])
    with pytest.raises(ValueError, match="not among groups"):
        group_gaps(batch, reference="b", groups=["a", "c"])
    with pytest.raises(ValueError, match="at least two groups"):
        group_gaps(batch, groups=["a"])
    with pytest.raises(TypeError, match="list of group names"):
        group_gaps(batch, groups="a")
    for eps in (0, -0.1):
        with pytest.raises(ValueError, match="epsilon"):
            fairness_table(batch, epsilon=eps)
    with pytest.raises(ValueError, match=r"ratio_bounds\[1\]"):
        group_gaps(batch, ratio_bounds=(0.8, 0.9))
    with pytest.raises(TypeError, match="pair"):
        group_gaps(batch, ratio_bounds=0.8)
    with pytest.raises(ValueError, match="'<metric>_gap'"):
        group_gaps(batch, measures="tpr_diff")
    with pytest.raises(ValueError, match="not a binary metric"):
        group_gaps(batch, measures="auc_gap")
    with pytest.raises(TypeError, match="valid keywords"):
        group_gaps(batch, epsilom=0.1)
    with pytest.raises(TypeError, match="valid keywords"):
        fairness_table(batch, hdi=0.9)
    with pytest.raises(TypeError, match="valid keywords"):
        plot_group_gaps(batch, refrence="a")


def test_results_that_are_not_groups_are_refused():
    single = bcm.fit(CM(tp=5, fn=1, fp=2, tn=8), draws=50, random_seed=0)
    with pytest.raises(ValueError, match=r"fit of one matrix.*model='hierarchical'"):
        group_gaps(single)
    multi = bcm.fit({"a": bcm.ConfusionMatrix([[50, 1, 0], [1, 50, 1], [0, 1, 50]]),
                     "b": bcm.ConfusionMatrix([[40, 2, 0], [1, 50, 1], [0, 1, 50]])},
                    draws=50, random_seed=0)
    with pytest.raises(ValueError, match="several groups of one binary classifier"):
        fairness_table(multi)
    paired = bcm.compare.compare_paired_counts(20, 5, 3, 10, random_seed=0)
    with pytest.raises(ValueError, match="binary classifier"):
        group_gaps(paired)
    with pytest.raises(ValueError, match="unpooled already"):
        unpooled_fit(bcm.fit({"a": CM(tp=5, fn=1, fp=2, tn=8), "b": CM(tp=5, fn=2, fp=2, tn=8)},
                             draws=50, random_seed=0))


def test_results_do_not_alias_the_tree(batch):
    before = {k: v.values.copy() for k, v in batch["posterior"].data_vars.items()}
    gaps = group_gaps(batch)
    stored = [v.values for v in batch["posterior"].data_vars.values()] + [
        batch["observed_data"]["counts"].values]
    for name, da in gaps.data_vars.items():
        assert not any(np.shares_memory(da.values, s) for s in stored), name
        da.values[...] = 0
    for name, values in before.items():
        np.testing.assert_array_equal(batch["posterior"][name].values, values)


# ---------------------------------------------------------------------------- hierarchical
@pytest.mark.slow  # a NUTS fit
def test_hierarchical_fit_with_empty_groups(hier):
    gaps = group_gaps(hier)
    assert gaps.attrs["group_dim"] == "study" and gaps.attrs["reference"] == "2"
    assert gaps["tpr_gap"].dims == ("chain", "draw", "study")
    assert gaps.attrs["source"] == "hierarchical (partially pooled)"
    assert gaps["positives"].values.tolist() == [56, 177, 29, 39, 149, 2, 0]
    flags = gaps["prior_dominated"].to_series().to_dict()
    assert flags["tiny"] and flags["empty"] and not flags["2"]
    if "group_info" in hier.children:  # the fit flags its own groups: that flag is used
        np.testing.assert_array_equal(gaps["prior_dominated"],
                                      hier["group_info"]["prior_dominated"])
    assert np.isfinite(gaps["tpr_gap"]).all()  # an empty group's gap is wide, not undefined
    table = fairness_table(hier, measures="tpr_gap")
    assert np.isnan(table.loc[("tpr_gap", "empty"), "observed"])
    x = hier["posterior"]["tpr"]
    np.testing.assert_allclose(gaps["tpr_gap"], x - x.sel(study="2"))


@pytest.mark.slow  # a NUTS fit
def test_unpooled_fit_of_a_hierarchical_result(hier):
    flat = unpooled_fit(hier)
    assert flat.attrs["model"] == "binary" and flat.attrs["group"] == "study"
    assert flat["posterior"]["tpr"].sizes == {"chain": 2, "draw": 200, "classifier": 7}
    np.testing.assert_array_equal(flat["observed_data"]["counts"].values,
                                  hier["observed_data"]["counts"].values)
    assert unpooled_fit(hier)["posterior"]["tpr"].equals(flat["posterior"]["tpr"])  # seeded
    pooled, unpooled = fairness_table(hier), fairness_table(flat)
    assert pooled.index.equals(unpooled.index)  # side by side, row for row
    assert group_gaps(flat)["tpr_gap"].dims == ("chain", "draw", "study")
    # exact Beta posteriors: TPR of study 3 (19 of 29 positives found) is Beta(20, 11)
    assert float(flat["posterior"]["tpr"].sel(classifier="3").mean()) == pytest.approx(
        20 / 31, abs=0.02)


@pytest.mark.slow  # a NUTS fit
def test_plot_with_the_unpooled_intervals(hier):
    flat = unpooled_fit(hier)
    ax = plot_group_gaps(hier, "tpr_gap", unpooled=flat)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["1", "3", "4", "5", "tiny", "empty"]
    gids = {c.get_gid() for c in ax.collections} | {ln.get_gid() for ln in ax.get_lines()}
    assert {"hdi", "hdi_unpooled", "mean_unpooled", "mean_prior_dominated"} <= gids
    table = fairness_table(hier, measures="tpr_gap")
    p = table.loc[("tpr_gap", "3"), "p_exceeds"]
    text = next(t.get_text() for t in ax.texts if t.get_gid() == "p_exceeds:3")
    assert text.startswith(f"{100 * p:.0f} %" if 0.01 <= p <= 0.99 else "")
    with pytest.raises(KeyError, match="same groups"):
        plot_group_gaps(hier, unpooled=bcm.fit({"big": CM(tp=5, fn=1, fp=2, tn=8),
                                                "x": CM(tp=5, fn=2, fp=2, tn=8)},
                                               draws=50, random_seed=0))


# ---------------------------------------------------------------------------- plot
def test_plot_draws_the_band_and_the_probabilities(batch):
    ax = plot_group_gaps(batch, "tpr_gap", epsilon=0.1)
    assert ax.get_title() == "Equal opportunity: TPR gap to 'b'"
    band = next(p for p in ax.patches if p.get_gid() == "tolerance")
    assert (band.get_x(), band.get_x() + band.get_width()) == pytest.approx((-0.1, 0.1))
    table = fairness_table(batch, epsilon=0.1)
    for group in ("a", "c"):
        p = table.loc[("tpr_gap", group), "p_exceeds"]
        text = next(t.get_text() for t in ax.texts if t.get_gid() == f"p_exceeds:{group}")
        assert text == ("<1 %" if p < 0.01 else ">99 %" if p > 0.99 else f"{100 * p:.0f} %")
    c_label = next(t for t in ax.get_yticklabels() if t.get_text() == "c")
    assert c_label.get_style() == "italic"  # prior-dominated
    ratio = plot_group_gaps(batch, "selection_rate_ratio")
    assert ratio.get_xscale() == "log"
    lo, hi = ratio.get_xlim()
    assert lo < 0.8 and hi > 1.25
    same = batch.bcm.plot_group_gaps("tpr_gap", epsilon=0.1)
    assert [t.get_text() for t in same.texts] == [t.get_text() for t in ax.texts]


# ---------------------------------------------------------------------------- data set, names
def test_subgroups_data_set():
    groups = subgroups()
    assert list(groups) == ["under 18", "18-29", "30-44", "45-59", "60-74", "75+"]
    assert DATASETS["subgroups"] is subgroups and bcm.datasets.load("subgroups") == groups
    assert groups["under 18"].cells["tp"] + groups["under 18"].cells["fn"] == 0
    assert groups["75+"].n == 12 and groups["30-44"].n == 1500
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import make_subgroups
    finally:
        sys.path.pop(0)
    with (ROOT / "bayescm" / "data" / "subgroups.csv").open() as fh:
        rows = [(r["group"], *(int(r[k]) for k in ("tp", "fn", "fp", "tn")))
                for r in csv.DictReader(fh)]
    assert rows == make_subgroups.draw()  # the script makes the shipped file


def test_public_names():
    assert bcm.compare.group_gaps is group_gaps and bcm.compare.fairness_table is fairness_table
    assert bcm.compare.unpooled_fit is unpooled_fit and bcm.plots.plot_group_gaps is plot_group_gaps


@pytest.mark.slow
def test_pooling_narrows_the_tiny_groups_gap_on_the_shipped_data():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        hier = bcm.fit(subgroups(), model="hierarchical", group="age", draws=1000, tune=1000,
                       chains=4, cores=1, random_seed=3)
    pooled = fairness_table(hier, measures="tpr_gap")
    flat = fairness_table(unpooled_fit(hier), measures="tpr_gap")
    width = (pooled["hdi_upper"] - pooled["hdi_lower"]) / (flat["hdi_upper"] - flat["hdi_lower"])
    assert width[("tpr_gap", "75+")] < 0.8 and width[("tpr_gap", "under 18")] < 0.8
    for table in (pooled, flat):  # the real gap (-15 points) is found either way
        assert table.loc[("tpr_gap", "60-74"), "p_exceeds"] > 0.9
