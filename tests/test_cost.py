"""Expected cost per case (bcm.expected_cost): closed forms, the fit's draws, bad input."""

import numpy as np
import pytest
from scipy import stats

import bayescm as bcm

TP, FN, TN, FP = 40, 10, 45, 5


@pytest.fixture(scope="module")
def fit():
    return bcm.fit(bcm.ConfusionMatrix.from_counts(tp=TP, fn=FN, tn=TN, fp=FP),
                   random_seed=0, draws=5000)


def test_mean_and_sd_at_a_fixed_prevalence_match_the_beta_closed_form(fit) -> None:
    """Laplace priors: TPR ~ Beta(1 + TP, 1 + FN), TNR ~ Beta(1 + TN, 1 + FP), independent."""
    pi, c_fp, c_fn, b_tp = 0.05, 1.0, 10.0, 2.0
    cost = bcm.expected_cost(fit, cost_fp=c_fp, cost_fn=c_fn, prevalence=pi,
                             benefit_tp=b_tp)["posterior"]["expected_cost"].values
    tpr, tnr = stats.beta(1 + TP, 1 + FN), stats.beta(1 + TN, 1 + FP)
    # C = pi c_fn - pi (c_fn + b_tp) TPR + (1 - pi) c_fp (1 - TNR)
    mean = pi * c_fn - pi * (c_fn + b_tp) * tpr.mean() + (1 - pi) * c_fp * (1 - tnr.mean())
    sd = np.sqrt((pi * (c_fn + b_tp)) ** 2 * tpr.var() + ((1 - pi) * c_fp) ** 2 * tnr.var())
    n = cost.size
    assert abs(cost.mean() - mean) < 4 * sd / np.sqrt(n)
    assert abs(cost.std() - sd) < 4 * sd / np.sqrt(2 * n)


def test_the_test_sets_prevalence_by_default_draw_by_draw(fit) -> None:
    post = fit["posterior"]
    prev, tpr, tnr = (post[v].values for v in ("prevalence", "tpr", "tnr"))
    out = bcm.expected_cost(fit, cost_fp=2, cost_fn=3)["posterior"]
    np.testing.assert_allclose(out["expected_cost"].values,
                               prev * (1 - tpr) * 3 + (1 - prev) * (1 - tnr) * 2)
    np.testing.assert_allclose(out["cost_treat_none"].values, prev * 3)
    np.testing.assert_allclose(out["cost_treat_all"].values, (1 - prev) * 2)
    # the three posterior Betas are independent: the mean of the cost is a closed form
    pi = stats.beta(1 + TP + FN, 1 + TN + FP).mean()
    mean = (pi * (1 - stats.beta(1 + TP, 1 + FN).mean()) * 3
            + (1 - pi) * (1 - stats.beta(1 + TN, 1 + FP).mean()) * 2)
    cost = out["expected_cost"].values
    assert abs(cost.mean() - mean) < 4 * cost.std() / np.sqrt(cost.size)


def test_a_prevalence_prior_is_drawn(fit) -> None:
    out = bcm.expected_cost(fit, cost_fp=1, cost_fn=10, prevalence=bcm.Beta(5, 95),
                            random_seed=1)["posterior"]
    assert float(out["cost_treat_none"].mean()) == pytest.approx(10 * 0.05, abs=0.005)
    assert float(out["cost_treat_none"].std()) > 0.1


def test_p_cheaper_of_a_batch() -> None:
    cms = {"a": bcm.ConfusionMatrix.from_counts(tp=TP, fn=FN, tn=TN, fp=FP),
           "b": bcm.ConfusionMatrix.from_counts(tp=48, fn=2, tn=30, fp=20)}
    out = bcm.expected_cost(bcm.fit(cms, random_seed=3, draws=2000), cost_fp=1,
                            cost_fn=20)["posterior"]
    cost = out["expected_cost"].values.reshape(-1, 2)
    p = out["p_cheaper"]
    assert float(p.sel(system="b", other="a")) == pytest.approx(np.mean(cost[:, 1] < cost[:, 0]))
    assert float(p.sel(system="a", other="b") + p.sel(system="b", other="a")) == pytest.approx(1)
    assert float(p.sel(system="b", other="a")) > 0.9  # misses cost 20 times more


def test_scores_give_the_best_threshold() -> None:
    rng = np.random.default_rng(4)
    risk = rng.beta(2, 5, size=800)
    y = rng.random(800) < risk
    fit = bcm.fit(bcm.Scores(y, {"A": risk, "B": rng.random(800)}), random_seed=2,
                  draws=250, threshold=0.2)
    out = bcm.expected_cost(fit, cost_fp=1, cost_fn=4)["posterior"]
    curve = out["cost_curve"]
    assert curve.dims == ("chain", "draw", "system", "threshold")
    np.testing.assert_allclose(curve.sel(threshold=0.2).values, out["expected_cost"].values,
                               atol=1e-5)  # the same draws at the fit's threshold
    np.testing.assert_allclose(out["minimum_cost"].values, curve.min("threshold").values)
    best = curve.idxmin("threshold").values
    np.testing.assert_allclose(out["optimal_threshold"].values, best)
    deployed = bcm.expected_cost(fit, cost_fp=1, cost_fn=4, prevalence=0.1)["posterior"]
    np.testing.assert_allclose(deployed["cost_curve"].sel(threshold=0.2).values,
                               deployed["expected_cost"].values, atol=1e-5)
    np.testing.assert_allclose(deployed["cost_treat_none"].values, 0.4)
    # calibrated risks: the optimum of A is near c_fp / (c_fp + c_fn) = 0.2
    assert abs(float(out["optimal_threshold"].sel(system="A").median()) - 0.2) < 0.1
    assert float(out["p_cheaper"].sel(system="A", other="B")) > 0.95


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"cost_fp": -1, "cost_fn": 1}, ValueError, "cost_fp must be"),
    ({"cost_fp": 1, "cost_fn": 1, "benefit_tp": -2}, ValueError, "benefit_tp must be"),
    ({"cost_fp": 0, "cost_fn": 0}, ValueError, "all zero"),
    ({"cost_fp": np.inf, "cost_fn": 1}, ValueError, "finite"),
    ({"cost_fp": "1", "cost_fn": 1}, TypeError, "number"),
    ({"cost_fp": 1, "cost_fn": 1, "prevalence": 1.5}, ValueError, "prevalence"),
    ({"cost_fp": 1, "cost_fn": 1, "costs": 1}, TypeError, "unknown keyword"),
])
def test_bad_costs_are_refused(fit, kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        bcm.expected_cost(fit, **kwargs)


def test_other_kinds_are_refused() -> None:
    multiclass = bcm.fit(bcm.ConfusionMatrix(np.array([[50, 10, 10], [10, 50, 10],
                                                       [10, 10, 50]])), draws=10)
    with pytest.raises(ValueError, match="expected_cost needs"):
        bcm.expected_cost(multiclass, cost_fp=1, cost_fn=1)


# cost curves (Drummond & Holte)

def test_a_matrix_cost_curve_is_its_operating_points_line_draw_by_draw() -> None:
    fit = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=40, fn=10, tn=45, fp=5), draws=200,
                  random_seed=2)
    post = bcm.cost_curve(fit, points=11)["posterior"]
    pc = post["probability_cost"].values
    fnr = 1 - fit["posterior"]["tpr"].values[..., None]
    fpr = 1 - fit["posterior"]["tnr"].values[..., None]
    np.testing.assert_allclose(post["normalized_cost"].sel(system="A").values,
                               fnr * pc + fpr * (1 - pc))
    np.testing.assert_allclose(post["trivial_cost"].isel(system=0, chain=0, draw=0).values,
                               np.minimum(pc, 1 - pc))


def test_a_scores_cost_curve_is_the_lower_envelope_of_its_thresholds() -> None:
    from bayescm.analyses.decision_draws import rate_draws
    from bayescm.models.scores import ScoresModel

    fit = ScoresModel.example()
    t = [0.2, 0.4, 0.6]
    post = bcm.cost_curve(fit, thresholds=t, points=6)["posterior"]
    rates = rate_draws(fit, t, "cost_curve")
    pc = post["probability_cost"].values
    lines = ((1 - rates.tpr)[..., None] * pc + rates.fpr[..., None] * (1 - pc))
    np.testing.assert_allclose(post["normalized_cost"].values, lines.min(axis=3))
    assert post["p_below_trivial"].dims == ("system", "probability_cost")


def test_over_the_prevalence_and_the_cost_ratio_map_to_the_probability_cost() -> None:
    fit = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=40, fn=10, tn=45, fp=5), draws=100,
                  random_seed=2)
    by_prev = bcm.cost_curve(fit, over="prevalence", cost_fp=1, cost_fn=4, points=5)
    x = by_prev["posterior"]["prevalence"].values
    np.testing.assert_allclose(by_prev["posterior"]["pc"].values[0, 0, 0],
                               4 * x / (4 * x + 1 - x))
    by_ratio = bcm.cost_curve(fit, over="cost_ratio", prevalence=0.2, points=5)
    r = by_ratio["posterior"]["cost_ratio"].values
    assert r[0] == pytest.approx(0.01) and r[-1] == pytest.approx(100)
    np.testing.assert_allclose(by_ratio["posterior"]["pc"].values[1, 3, 0],
                               0.2 * r / (0.2 * r + 0.8))
    own = bcm.cost_curve(fit, over="cost_ratio", points=5)["posterior"]["pc"].values
    assert own[:, :, 0, 2].std() > 0  # each draw's prevalence


@pytest.mark.parametrize(("kwargs", "match"), [
    ({"over": "ratio"}, "not a cost-curve axis"),
    ({"cost_fp": 1}, "over='prevalence'"),
    ({"over": "prevalence", "prevalence": 0.1}, "over='cost_ratio'"),
    ({"over": "cost_ratio", "prevalence": 1.5}, "strictly between 0 and 1"),
    ({"over": "prevalence", "cost_fp": -1, "cost_fn": 1}, ">= 0"),
    ({"over": "prevalence", "cost_fp": 0, "cost_fn": 0}, "all zero"),
    ({"points": 1}, "points"),
    ({"thresholds": [0.2]}, "thresholds= belongs to scores"),
])
def test_cost_curve_refuses_bad_options_with_the_remedy(kwargs: dict, match: str) -> None:
    fit = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=4, fn=1, tn=4, fp=1), draws=20,
                  random_seed=0)
    with pytest.raises(ValueError, match=match):
        bcm.cost_curve(fit, **kwargs)
