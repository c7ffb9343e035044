"""Rates seen through an imperfect test or judge (issue 31): bcm.true_prevalence, judged_accuracy.

The exact draws are checked against the closed-form one-dimensional posterior (fixed TPR and
TNR, integrated numerically here), the Rogan-Gladen estimate in the large-sample limit, the
constraint TPR + TNR > 1 and the impossible region; bad input raises named errors. The coverage
over simulated data sets is in ``test_corrected_slow.py``.
"""

import warnings

import numpy as np
import pytest

import bayescm as bcm
from bayescm.priors import Uniform


def _grid_posterior(k: int, n: int, tpr: float, tnr: float, log_prior) -> tuple:
    """Mean, sd and 2.5/50/97.5 % quantiles of p by numerical integration on a fine grid."""
    p = (np.arange(400_000) + 0.5) / 400_000
    a = p * tpr + (1 - p) * (1 - tnr)
    lw = k * np.log(a) + (n - k) * np.log1p(-a) + log_prior(p)
    w = np.exp(lw - lw.max())
    w /= w.sum()
    mean = float((p * w).sum())
    sd = float(np.sqrt(((p - mean) ** 2 * w).sum()))
    return mean, sd, p[np.searchsorted(np.cumsum(w), [0.025, 0.5, 0.975])]


@pytest.mark.parametrize(("k", "n", "tpr", "tnr", "prior", "log_prior"), [
    (142, 742, 0.9, 0.95, bcm.Beta(1, 1), lambda p: 0 * p),
    (12, 300, 0.85, 0.97, bcm.priors.Jeffreys(), lambda p: -0.5 * np.log(p * (1 - p))),
    (60, 100, 0.7, 0.8, Uniform(0.2, 0.9),
     lambda p: np.where((p >= 0.2) & (p <= 0.9), 0.0, -np.inf)),
])
def test_fixed_rates_give_the_closed_form_posterior(k, n, tpr, tnr, prior, log_prior) -> None:
    tree = bcm.true_prevalence(k, n, tpr=bcm.Fixed(tpr), tnr=bcm.Fixed(tnr), prevalence=prior,
                               draws=25_000, chains=4, random_seed=1)
    draws = tree["posterior"]["prevalence"].values.ravel()
    mean, sd, quantiles = _grid_posterior(k, n, tpr, tnr, log_prior)
    # Monte-Carlo error of the mean of 100,000 independent draws: sd / 316
    assert abs(draws.mean() - mean) < 4 * sd / 316
    assert abs(draws.std() - sd) < 0.01 * sd
    np.testing.assert_allclose(np.quantile(draws, [0.025, 0.5, 0.975]), quantiles,
                               atol=max(0.05 * sd, 2e-4))
    apparent = tree["posterior"]["apparent"].values
    np.testing.assert_allclose(apparent, tree["posterior"]["prevalence"].values * tpr
                               + (1 - tree["posterior"]["prevalence"].values) * (1 - tnr))


def test_large_samples_give_the_rogan_gladen_estimate() -> None:
    tpr, tnr = bcm.Beta(90_000, 10_000), bcm.Beta(95_000, 5_000)
    tree = bcm.true_prevalence(230_000, 1_000_000, tpr=tpr, tnr=tnr, random_seed=2)
    rogan_gladen = (0.23 + 0.95 - 1) / (0.9 + 0.95 - 1)
    observed = float(tree["observed_metrics"]["prevalence"])
    assert observed == pytest.approx(rogan_gladen)
    assert float(tree["posterior"]["prevalence"].mean()) == pytest.approx(rogan_gladen, abs=0.001)


def test_the_prevalence_package_example_matches_a_quadrature_of_the_same_model() -> None:
    """R ``prevalence::truePrev``'s documented example, computed independently here.

    Taenia solium cysticercosis in Nepal: 142 positive pigs of 742, the test's sensitivity
    uniform on [0.60, 1] and its specificity on [0.75, 1] (``truePrev(x = 142, n = 742, SE =
    ~dunif(0.60, 1.00), SP = ~dunif(0.75, 1.00))``, the package's help page), a flat prior on
    the true prevalence. Its posterior is integrated on a grid over (prevalence, SE, SP); the
    constraint TPR + TNR > 1 holds everywhere in these priors, so the models are the same.
    """
    tree = bcm.true_prevalence(142, 742, tpr=Uniform(0.6, 1), tnr=Uniform(0.75, 1),
                               random_seed=0)
    draws = tree["posterior"]["prevalence"].values.ravel()
    p = (np.arange(1000) + 0.5) / 1000
    se = 0.6 + 0.4 * (np.arange(40) + 0.5) / 40
    sp = 0.75 + 0.25 * (np.arange(25) + 0.5) / 25
    apparent = p[:, None, None] * se[None, :, None] + (1 - p[:, None, None]) * (1 - sp)
    log_like = 142 * np.log(apparent) + (742 - 142) * np.log1p(-apparent)
    weight = np.exp(log_like - log_like.max()).sum(axis=(1, 2))
    weight /= weight.sum()
    mean = float(p @ weight)
    sd = float(np.sqrt(((p - mean) ** 2) @ weight))
    quantiles = p[np.searchsorted(np.cumsum(weight), [0.025, 0.5, 0.975])]
    mc = sd / np.sqrt(draws.size)  # the draws are exact (independent): their Monte-Carlo error
    assert abs(draws.mean() - mean) < 4 * mc, (draws.mean(), mean)
    assert draws.std() == pytest.approx(sd, rel=0.05)
    np.testing.assert_allclose(np.quantile(draws, [0.025, 0.5, 0.975]), quantiles, atol=0.01)


def test_validation_updates_the_rates_jointly() -> None:
    val = bcm.ConfusionMatrix.from_counts(tp=180, fn=20, tn=380, fp=20)
    tree = bcm.true_prevalence(142, 742, validation=val, random_seed=3)
    post = tree["posterior"]
    # close to the validation's Beta posteriors (the apparent count adds a little)
    assert float(post["tpr"].mean()) == pytest.approx(181 / 202, abs=0.01)
    assert float(post["tnr"].mean()) == pytest.approx(381 / 402, abs=0.01)
    assert float(tree["observed_metrics"]["tpr"]) == pytest.approx(0.9)
    assert tree["observed_data"]["validation"].values.tolist() == [[180, 20], [20, 380]]
    # an informative prior and counts combine: Beta(9, 1) + (180, 20)
    tight = bcm.true_prevalence(142, 742, validation=val, tpr=bcm.Beta(9, 1), random_seed=3)
    assert float(tight["posterior"]["tpr"].mean()) > float(post["tpr"].mean())


def test_the_constraint_tpr_plus_tnr_above_one_is_enforced_and_reported() -> None:
    tree = bcm.true_prevalence(300, 1000, tpr=Uniform(0.3, 1), tnr=Uniform(0.3, 1),
                               random_seed=4)
    post = tree["posterior"]
    assert bool(((post["tpr"] + post["tnr"]) > 1).all())
    # the share of the unit square [0.3, 1]^2 under the line t + s = 1: 0.08 / 0.49
    assert tree.attrs["excluded_share"] == pytest.approx(0.08 / 0.49, abs=0.01)
    with pytest.raises(ValueError, match=r"TPR \+ TNR > 1"):
        bcm.true_prevalence(30, 100, tpr=Uniform(0.1, 0.4), tnr=Uniform(0.1, 0.5))


def test_a_validation_at_chance_leaves_the_rogan_gladen_estimate_undefined() -> None:
    """TPR + TNR = 1 at the validation's point values: the estimate divides by 0 (it was
    clipped from an infinity to 1, with a RuntimeWarning); it is NaN, and the fit still runs."""
    import warnings

    val = bcm.ConfusionMatrix.from_counts(tp=20, fn=20, tn=30, fp=30)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        warnings.filterwarnings("ignore", "The apparent rate", UserWarning)
        tree = bcm.true_prevalence(100, 300, validation=val, draws=200, random_seed=0)
    assert np.isnan(float(tree["observed_metrics"]["prevalence"]))
    assert np.isfinite(tree["posterior"]["prevalence"].values).all()


def test_the_impossible_region_piles_up_at_a_boundary_with_a_warning() -> None:
    with pytest.warns(UserWarning, match=r"below 1 - TNR .* piles up at 0"):
        low = bcm.true_prevalence(10, 742, tpr=bcm.Beta(95, 5), tnr=bcm.Beta(95, 5),
                                  random_seed=5)
    p = low["posterior"]["prevalence"].values
    assert np.isfinite(p).all() and np.median(p) < 0.01
    assert float(low["observed_metrics"]["prevalence"]) == 0.0  # Rogan-Gladen clipped
    with pytest.warns(UserWarning, match=r"above TPR .* piles up at 1"):
        high = bcm.true_prevalence(740, 742, tpr=bcm.Fixed(0.9), tnr=bcm.Fixed(0.9),
                                   random_seed=5)
    assert np.isfinite(high["posterior"]["prevalence"].values).all()
    assert float(high["posterior"]["prevalence"].median()) > 0.99


def test_draws_are_reproducible_and_laid_out_as_chains() -> None:
    kw = {"tpr": Uniform(0.6, 1), "tnr": Uniform(0.6, 1), "draws": 200, "chains": 3}
    a = bcm.true_prevalence(142, 742, random_seed=7, **kw)
    b = bcm.true_prevalence(142, 742, random_seed=7, **kw)
    np.testing.assert_array_equal(a["posterior"]["prevalence"], b["posterior"]["prevalence"])
    assert dict(a["posterior"].sizes) == {"chain": 3, "draw": 200}
    assert set(bcm.summary(a).index) == {"prevalence", "apparent", "tpr", "tnr"}


@pytest.mark.parametrize(("args", "kwargs", "error", "match"), [
    ((800, 742), {"tpr": bcm.Fixed(0.9), "tnr": bcm.Fixed(0.9)}, ValueError, "larger than n"),
    ((-1, 742), {"tpr": bcm.Fixed(0.9), "tnr": bcm.Fixed(0.9)}, ValueError, "positives"),
    ((1.5, 742), {"tpr": bcm.Fixed(0.9), "tnr": bcm.Fixed(0.9)}, TypeError, "positives"),
    ((10, 0), {"tpr": bcm.Fixed(0.9), "tnr": bcm.Fixed(0.9)}, ValueError, "n"),
    ((10, 100), {}, TypeError, r"Give the test's tpr"),
    ((10, 100), {"tpr": bcm.Fixed(0.9)}, TypeError, r"Give the test's tnr"),
    ((10, 100), {"validation": [[1, 2], [3, 4]]}, TypeError, "ConfusionMatrix"),
    ((10, 100), {"validation": bcm.ConfusionMatrix([[5, 1, 0], [1, 5, 1], [0, 1, 5]],
                                                   labels=["a", "b", "c"])},
     ValueError, r"binary matrix .* \['a', 'b', 'c'\]"),
    ((10, 100), {"tpr": bcm.Fixed(0.9), "tnr": bcm.Fixed(0.9), "prevalence": bcm.Fixed(0.1)},
     ValueError, "what this model estimates"),
    ((10, 100), {"tpr": Uniform(0.5, 1.5), "tnr": bcm.Fixed(0.9)}, ValueError, "proportion"),
    ((10, 100), {"tpr": bcm.priors.Normal(0, 1), "tnr": bcm.Fixed(0.9)}, TypeError,
     "must be a bcm.Beta"),
    ((10, 100), {"tpr": bcm.Fixed(0.9), "tnr": bcm.Fixed(0.9), "prior": "laplace"}, TypeError,
     "unknown keyword"),
    (({"a": 3}, {"b": 10}), {"tpr": bcm.Fixed(0.9), "tnr": bcm.Fixed(0.9)}, ValueError,
     "same systems"),
    ((10, 100), {"validation": bcm.ConfusionMatrix([[60, 5], [10, 20]],
                                                   labels=["negative", "positive"])},
     ValueError, r"first row is 'negative', but 'positive' looks like the positive"),
])
def test_bad_input_raises_named_errors(args, kwargs, error, match) -> None:
    with pytest.raises(error, match=match):
        bcm.true_prevalence(*args, **kwargs)


def test_a_fixed_rate_ignores_the_validation_counts_and_says_so() -> None:
    val = bcm.ConfusionMatrix.from_counts(tp=80, fn=20, tn=90, fp=10)
    with pytest.warns(UserWarning, match="tpr is fixed"):
        tree = bcm.true_prevalence(30, 100, validation=val, tpr=bcm.Fixed(0.95), draws=100)
    assert np.unique(tree["posterior"]["tpr"].values).tolist() == [0.95]


CAL = bcm.ConfusionMatrix([[110, 10], [12, 68]], labels=["correct", "incorrect"])


def test_judged_accuracy_shares_the_judge_across_systems() -> None:
    tree = bcm.judged_accuracy({"A": 340, "B": 310}, 500, calibration=CAL, random_seed=8)
    post = tree["posterior"]
    assert post["accuracy"].dims == ("chain", "draw", "system")
    assert post["tpr"].dims == ("chain", "draw")
    assert list(post["system"].values) == ["A", "B"]
    acc = post["accuracy"].values.reshape(-1, 2)
    # one judge: the two systems' accuracies move together draw by draw
    assert np.corrcoef(acc[:, 0], acc[:, 1])[0, 1] > 0.3
    p = bcm.prob_superior(tree, "A", "B", metric="accuracy")
    assert p == pytest.approx(float(np.mean(acc[:, 0] > acc[:, 1])))
    ranks = bcm.rank_probabilities(tree, metric="accuracy")
    assert float(ranks["p_best"].sel(system="A")) == pytest.approx(p)
    # the judge's rates: the calibration's Beta posteriors, nudged by the pass counts
    assert float(post["tpr"].mean()) == pytest.approx(111 / 122, abs=0.01)


def test_judged_accuracy_of_one_system_and_its_errors() -> None:
    tree = bcm.judged_accuracy(340, 500, calibration=CAL, draws=200, random_seed=9)
    assert tree["posterior"]["accuracy"].dims == ("chain", "draw")
    assert tree.attrs["model"] == "judged_accuracy"
    with pytest.raises(TypeError, match="calibration"):
        bcm.judged_accuracy(340, 500, calibration=None)
    with pytest.raises(ValueError, match=r"passed\['B'\] = 600 is larger than n\['B'\]"):
        bcm.judged_accuracy({"A": 340, "B": 600}, {"A": 500, "B": 500}, calibration=CAL)
    with pytest.raises(TypeError, match="n is a mapping"):
        bcm.judged_accuracy(340, {"A": 500}, calibration=CAL)


def test_populations_sharing_one_test_are_compared_draw_by_draw() -> None:
    tree = bcm.true_prevalence({"north": 142, "south": 90}, {"north": 742, "south": 700},
                               tpr=bcm.Beta(90, 10), tnr=bcm.Beta(95, 5), random_seed=10)
    assert tree["posterior"]["prevalence"].dims == ("chain", "draw", "system")
    assert list(tree["observed_metrics"]["prevalence"]["system"].values) == ["north", "south"]
    p = bcm.prob_superior(tree, "north", "south", metric="prevalence", direction="higher")
    assert p > 0.95
    with pytest.raises(ValueError, match="descriptive"):
        bcm.prob_superior(tree, "north", "south", metric="prevalence")


def test_a_calibration_with_the_correct_class_second_is_refused_or_reordered() -> None:
    flipped = bcm.ConfusionMatrix([[68, 12], [10, 110]], labels=["incorrect", "correct"])
    with pytest.raises(ValueError, match="positive='correct'"):
        bcm.judged_accuracy(340, 500, calibration=flipped)
    fixed = bcm.ConfusionMatrix([[68, 12], [10, 110]], labels=["incorrect", "correct"],
                                positive="correct")
    tree = bcm.judged_accuracy(340, 500, calibration=fixed, draws=100, random_seed=1)
    assert tree["observed_data"]["calibration"].values.tolist() == [[110, 10], [12, 68]]


def test_results_refuse_analyses_of_confusion_matrices() -> None:
    tree = bcm.true_prevalence(30, 100, tpr=bcm.Fixed(0.9), tnr=bcm.Fixed(0.95), draws=100)
    with pytest.raises(ValueError, match="this is a prevalence corrected for an imperfect test"):
        bcm.with_prevalence(tree, 0.2)


def test_uniform_prior_follows_the_protocol() -> None:
    import pymc as pm
    from scipy import stats

    prior = Uniform(0.6, 1)
    assert bcm.priors.from_dict(prior.to_dict()) == prior
    assert bcm.priors.from_dict({"dist": "Uniform", "lower": 0.6, "upper": 1}) == prior
    with pm.Model() as model:
        prior.create_variable("tpr")
    logp = model.compile_logp()({"tpr_interval__": 0.0})  # the middle of the interval
    jacobian = np.log(0.4 / 4)  # interval transform at 0: (upper - lower) / 4
    assert logp == pytest.approx(stats.uniform(0.6, 0.4).logpdf(0.8) + jacobian)
    draws = prior.sample(random_seed=0, size=10_000)
    assert draws.min() >= 0.6 and draws.max() <= 1 and abs(draws.mean() - 0.8) < 0.005
    with pytest.raises(ValueError, match="lower < upper"):
        Uniform(0.9, 0.6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert prior.mean == 0.8


def test_the_command_line_prints_the_corrected_prevalence(capsys) -> None:
    from bayescm.cli import main

    code = main(["correct", "--positives", "142", "--n", "742", "--tpr", "uniform(0.6, 1)",
                 "--tnr", "beta(95, 5)", "--draws", "200", "--seed", "1", "--format", "csv"])
    out = capsys.readouterr().out
    assert code == 0 and out.splitlines()[1].startswith("prevalence,")
    code = main(["correct", "--positives", "142", "--n", "742", "--validation-tp", "45",
                 "--validation-fn", "5", "--validation-tn", "190", "--validation-fp", "10",
                 "--draws", "200", "--seed", "1"])
    assert code == 0 and "Rogan-Gladen" in capsys.readouterr().out
    assert main(["correct", "--positives", "800", "--n", "742", "--tpr", "fixed(0.9)",
                 "--tnr", "fixed(0.9)"]) == 2
    assert "larger than n" in capsys.readouterr().err
    assert main(["correct", "--positives", "8", "--n", "742", "--validation-tp", "3"]) == 2
    assert "needs all four counts" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["correct", "--positives", "8", "--n", "742", "--tpr", "beta(95)"])
