"""Decision-curve figures: what they draw and the errors they raise."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

import bayescm as bcm
from bayescm import plots
from bayescm.models.scores import ScoresModel

T = [0.1, 0.2, 0.3, 0.4, 0.5]


@pytest.fixture(scope="module")
def nb():
    return bcm.net_benefit(ScoresModel.example(), thresholds=T)


def _gids(ax) -> set:
    return {str(a.get_gid()) for a in ax.get_children() if a.get_gid()}


def test_decision_curve_draws_models_bands_and_defaults(nb) -> None:
    ax = plots.plot_decision_curve(nb)
    gids = _gids(ax)
    assert {"mean:A", "mean:B", "pointwise:A", "simultaneous:B", "treat_all",
            "treat_none"} <= gids
    mean = ax.get_lines()[0].get_ydata()
    expected = nb["posterior"]["net_benefit"].sel(system="A").mean(("chain", "draw")).values
    np.testing.assert_allclose(mean, expected)
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "treat all" in labels and "treat none" in labels
    plt.close("all")


def test_a_batch_of_matrices_has_pointwise_bands_only() -> None:
    cms = {"0.1": bcm.ConfusionMatrix.from_counts(tp=45, fn=5, tn=20, fp=30),
           "0.3": bcm.ConfusionMatrix.from_counts(tp=35, fn=15, tn=40, fp=10)}
    ax = plots.plot_decision_curve(bcm.net_benefit(bcm.fit(cms, draws=200)))
    gids = _gids(ax)
    assert "pointwise:A" in gids and not any(g.startswith("simultaneous") for g in gids)
    plt.close("all")


def test_delta_draws_the_difference_and_p_better(nb) -> None:
    ax = plots.plot_delta_net_benefit(nb, pair="B - A", bands="pointwise")
    assert {"mean", "pointwise:B - A", "reference"} <= _gids(ax)
    assert ax.get_title() == "Net benefit: B - A"
    plt.close("all")


def test_errors_name_the_remedy(nb) -> None:
    with pytest.raises(ValueError, match=r"bcm\.net_benefit"):
        plots.plot_decision_curve(ScoresModel.example())
    one = bcm.net_benefit(bcm.fit(bcm.Scores([1, 0, 1, 0, 1], [0.9, 0.2, 0.6, 0.4, 0.3]),
                                  draws=20), thresholds=T)
    with pytest.raises(ValueError, match="two or more models"):
        plots.plot_delta_net_benefit(one)
    with pytest.raises(ValueError, match="empty selection"):
        plots.plot_decision_curve(nb, system=[])
    with pytest.raises(KeyError, match="'C'"):
        plots.plot_decision_curve(nb, system="C")
    with pytest.raises(ValueError, match="Unknown band"):
        plots.plot_decision_curve(nb, bands="hdi")
    with pytest.raises(TypeError, match="ax="):
        plots.plot_decision_curve(nb, ax="x")
    plt.close("all")


def test_evpi_draws_the_curve_and_marks_its_peak(nb) -> None:
    ax = plots.plot_evpi(nb)
    assert {"evpi", "peak"} <= _gids(ax)
    np.testing.assert_allclose(ax.get_lines()[0].get_ydata(), nb["posterior"]["evpi"].values)
    plt.close("all")


@pytest.mark.parametrize("over", ["probability_cost", "cost_ratio", "prevalence"])
def test_cost_curve_draws_each_system_its_band_and_the_trivial_cost(over: str) -> None:
    curve = bcm.cost_curve(ScoresModel.example(), over=over, thresholds=T, points=21)
    ax = plots.plot_cost_curve(curve)
    assert {"mean:A", "mean:B", "pointwise:A", "trivial"} <= _gids(ax)
    assert ax.get_xscale() == ("log" if over == "cost_ratio" else "linear")
    expected = curve["posterior"]["normalized_cost"].sel(system="B").mean(("chain", "draw"))
    mean_b = next(line for line in ax.get_lines() if line.get_gid() == "mean:B")
    np.testing.assert_allclose(mean_b.get_ydata(), expected.values)
    with pytest.raises(ValueError, match=r"bcm\.cost_curve"):
        plots.plot_cost_curve(bcm.net_benefit(ScoresModel.example(), thresholds=T))
    plt.close("all")


def test_calibration_curve_has_intercept_and_slope_in_its_legend() -> None:
    import warnings

    rng = np.random.default_rng(3)
    risk = rng.beta(2, 5, 300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = bcm.fit(bcm.Scores(rng.random(300) < risk, risk), method="calibration",
                      draws=200, chains=2, random_seed=1)
    ax = plots.plot_calibration_curve(fit)
    assert {"mean:A", "pointwise:A", "simultaneous:A", "diagonal"} <= _gids(ax)
    first = " ".join(ax.get_legend().get_texts()[0].get_text().split())  # labels may wrap
    slope = float(fit["posterior"]["calibration_slope"].mean())
    assert first.startswith("intercept") and f"slope {slope:.2f}" in first
    with pytest.raises(KeyError, match="one model"):
        plots.plot_calibration_curve(fit, classifier="B")
    with pytest.raises(ValueError, match="calibration fit"):
        plots.plot_calibration_curve(ScoresModel.example())
    plt.close("all")
