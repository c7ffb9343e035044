"""``plot_corrected``: the apparent rate beside the corrected rate, drawn from the result."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest

import bayescm as bcm
from bayescm.core.stats import hdi
from bayescm.plots import plot_corrected


def _artist(ax, gid):
    return next(a for a in [*ax.lines, *ax.collections] if a.get_gid() == gid)


def test_rows_show_the_results_rates():
    tree = bcm.true_prevalence({"north": 142, "south": 60}, {"north": 742, "south": 500},
                               tpr=bcm.Beta(90, 10), tnr=bcm.Beta(95, 5), draws=300,
                               random_seed=1)
    ax = plot_corrected(tree, hdi_prob=0.9)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["north", "south"]
    # the observed apparent rates, top row first
    np.testing.assert_allclose(_artist(ax, "observed").get_xdata(), [142 / 742, 60 / 500])
    post = tree["posterior"]["prevalence"]
    for row, system in enumerate(["north", "south"]):
        low, high = hdi(post.sel(system=system).values.ravel(), 0.9)
        segment = _artist(ax, "hdi").get_segments()[row]
        np.testing.assert_allclose(segment[:, 0], [low, high])
    rg = tree["observed_metrics"]["prevalence"].values
    np.testing.assert_allclose(_artist(ax, "point").get_xdata(), rg)
    assert "Rogan-Gladen" in [t.get_text() for t in ax.get_legend().get_texts()][2]
    plt.close("all")


def test_a_judged_accuracy_and_a_single_count():
    cal = bcm.ConfusionMatrix([[110, 10], [12, 68]], labels=["correct", "incorrect"])
    ax = plot_corrected(bcm.judged_accuracy({"A": 340, "B": 310}, 500, calibration=cal,
                                            draws=200, random_seed=0))
    np.testing.assert_allclose(_artist(ax, "observed").get_xdata(), [0.68, 0.62])
    one = bcm.true_prevalence(142, 742, tpr=bcm.priors.Uniform(0.6, 1),
                              tnr=bcm.priors.Uniform(0.6, 1), draws=200, random_seed=0)
    ax = plot_corrected(one)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["True prevalence"]
    plt.close("all")


def test_another_kind_is_refused_with_the_fix():
    fit = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=5, fn=2, tn=8, fp=1), draws=50)
    with pytest.raises(ValueError, match=r"bcm\.true_prevalence"):
        plot_corrected(fit)
