"""rcParams: validated settings, a context manager, and the defaults that read them."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

import bayescm as bcm
from bayescm.core.config import RcParams
from bayescm.core.stats import hdi, hdi_prob_for
from bayescm.errors import RcParamsError

COCAINE = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)


@pytest.fixture(autouse=True)
def _restore():
    saved = bcm.rcParams.copy()
    yield
    bcm.rcParams.update(saved)
    plt.close("all")


def test_defaults_and_public_names():
    with pytest.warns(DeprecationWarning, match="HDI_PROB"):
        assert bcm.rcParams["stats.hdi_prob"] == 0.95 == bcm.HDI_PROB
    assert bcm.rcParams["plot.units"] == "percent"
    assert bcm.rcParams["plot.preset"] == "default"
    assert {"rcParams", "rc_context"} <= set(bcm.__all__)
    assert sorted(bcm.rcParams) == ["plot.preset", "plot.units", "stats.hdi_prob"]


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("stats.hdi_prob", 1.0, "strictly between 0 and 1"),
        ("stats.hdi_prob", 0, "strictly between 0 and 1"),
        ("stats.hdi_prob", "0.9", "strictly between 0 and 1"),
        ("stats.hdi_prob", True, "strictly between 0 and 1"),
        ("stats.hdi_prob", float("nan"), "strictly between 0 and 1"),
        ("plot.units", "percentage", "'percent', 'proportion'"),
        ("plot.preset", "a4", "'default', 'slide', 'column', 'two_column'"),
        ("plot.preset", 3.5, "'default', 'slide', 'column', 'two_column'"),
    ],
)
def test_invalid_values_name_the_valid_ones(key, value, message):
    with pytest.raises(RcParamsError, match=message):
        bcm.rcParams[key] = value
    assert bcm.rcParams[key] == RcParams()[key]  # unchanged


def test_unknown_keys_list_the_valid_ones():
    with pytest.raises(RcParamsError,
                       match=r"valid keys: plot\.preset, plot\.units, stats\.hdi_prob"):
        bcm.rcParams["stats.hdi_porb"] = 0.9
    with pytest.raises(KeyError):  # also a KeyError, as a mapping should raise
        bcm.rcParams["nope"]
    with pytest.raises(ValueError, match="not a setting"):  # and a ValueError
        bcm.rcParams.update({"nope": 1})
    with pytest.raises(TypeError, match="cannot be deleted"):
        del bcm.rcParams["plot.units"]


def test_rc_context_restores_even_after_an_error():
    with bcm.rc_context({"stats.hdi_prob": 0.8}, plot_units="proportion") as rc:
        assert rc["stats.hdi_prob"] == 0.8 and rc["plot.units"] == "proportion"
    assert bcm.rcParams["stats.hdi_prob"] == 0.95 and bcm.rcParams["plot.units"] == "percent"
    with pytest.raises(ZeroDivisionError), bcm.rc_context(stats_hdi_prob=0.5):
        1 / 0  # noqa: B018
    assert bcm.rcParams["stats.hdi_prob"] == 0.95
    with pytest.raises(RcParamsError), bcm.rc_context(stats_hdi_prob=0.5, plot_units="mm"):
        pass
    assert bcm.rcParams["stats.hdi_prob"] == 0.95  # nothing applied when one value is bad


def test_rc_context_checks_when_called():
    # a positional value that is not a mapping: say how to name the setting
    with pytest.raises(TypeError, match=r"not str 'x'.*rc_context\(plot_preset='column'\)"):
        bcm.rc_context("x")
    with pytest.raises(TypeError, match="not list"):
        bcm.rc_context([("plot.units", "proportion")])
    # a bad value raises at the call, before any block runs, and changes nothing
    with pytest.raises(RcParamsError, match="'default', 'slide', 'column', 'two_column'"):
        bcm.rc_context(plot_preset="a4")
    with pytest.raises(RcParamsError, match="valid keys"):
        bcm.rc_context(plot_presets="column")
    assert bcm.rcParams["plot.preset"] == "default"
    with bcm.rc_context(plot_preset="Column") as rc:  # case and spaces forgiven, as for units
        assert rc["plot.preset"] == "column"
    assert bcm.rcParams["plot.preset"] == "default"


def test_reset():
    bcm.rcParams["stats.hdi_prob"] = 0.5
    bcm.rcParams.reset()
    assert bcm.rcParams["stats.hdi_prob"] == 0.95
    with pytest.raises(RcParamsError):
        bcm.rcParams.reset("nope")


def test_one_rule_argument_then_tree_then_setting():
    idata = bcm.fit(COCAINE, draws=500, random_seed=0, hdi_prob=0.9)
    with bcm.rc_context(stats_hdi_prob=0.5):
        assert hdi_prob_for(None, idata) == 0.9  # the tree's own
        assert hdi_prob_for(0.7, idata) == 0.7  # the argument
        assert hdi_prob_for() == 0.5  # the setting
        assert bcm.summary(idata).attrs["hdi_prob"] == 0.9
        assert bcm.summary(idata, hdi_prob=0.7).attrs["hdi_prob"] == 0.7


def test_defaults_follow_the_setting():
    x = np.random.default_rng(0).normal(size=10_000)
    with bcm.rc_context(stats_hdi_prob=0.5):
        np.testing.assert_allclose(hdi(x), hdi(x, 0.5))
        res = bcm.compare.compare_paired_counts(700, 60, 20, 220, random_seed=0)
        assert res["comparison"].attrs.get("hdi_prob", res.attrs.get("hdi_prob")) == 0.5
        table = bcm.analyses.frequentist.bootstrap([1, 0, 1, 1, 0, 1], [1, 0, 0, 1, 0, 1],
                                          n_boot=200, random_seed=0)
        assert table.ci == 0.5
        from bayescm.core.betahdi import beta_hdi

        np.testing.assert_allclose(beta_hdi(5, 3), beta_hdi(5, 3, 0.5))


def test_plot_units_switch_the_axes():
    idata = bcm.fit(COCAINE, draws=500, random_seed=1)
    ax = bcm.plots.plot_metric(idata, "tnr")
    assert ax.get_xlabel().endswith("(%)")
    assert "%" in ax.xaxis.get_major_formatter()(0.5, 0)
    with bcm.rc_context(plot_units="proportion"):
        ax = bcm.plots.plot_metric(idata, "tnr")
        assert not ax.get_xlabel().endswith("(%)")
        assert "%" not in ax.xaxis.get_major_formatter()(0.5, 0)
        mu = next(a for a in ax.get_children() if a.get_gid() == "mu").get_text()
        assert "pp" not in mu
        legend = " ".join(t.get_text() for t in ax.get_legend().get_texts())
        assert "observed: 0.75" in legend
