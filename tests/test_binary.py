"""The binary model's exact posterior, checked against closed forms and scipy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

import bayescm as bcm
from bayescm.metrics.binary import BINARY_METRICS
from conftest import beta_hdi


def test_cocaine_hdis_match_closed_form(cocaine):
    """Paper Table 1 / Fig. 4: TPR [0.895, 1.000], TNR [0.432, 0.946] with Laplace priors."""
    # 200,000 draws: the Monte Carlo sd of an HDI end is ~0.0016 here (0.005 at 20,000)
    table = bcm.summary(bcm.fit(cocaine, draws=50_000, random_seed=1))
    for var, (a, b) in {"tpr": (27, 1), "tnr": (7, 3), "prevalence": (27, 9)}.items():
        lo, hi = beta_hdi(a, b)
        row = table.loc[var]
        assert row.hdi_lower == pytest.approx(lo, abs=0.007), var
        assert row.hdi_upper == pytest.approx(hi, abs=0.007), var
        assert row.mu == pytest.approx(hi - lo, abs=0.01)
        assert row["mean"] == pytest.approx(a / (a + b), abs=0.005)
        assert row.sd == pytest.approx(stats.beta(a, b).std(), rel=0.03)
    assert table.loc["tpr", "hdi_lower"] == pytest.approx(0.895, abs=0.007)
    assert table.loc["tnr", ["hdi_lower", "hdi_upper"]].tolist() == pytest.approx(
        [0.432, 0.946], abs=0.007)
    # an equal-tailed interval would be wrong here (PEERS.md: [0.872, 0.999])
    assert table.loc["tpr", "hdi_upper"] > 0.999


def test_prob_deceptive_classifier_8_matches_integral():
    """P(BM < 0) = P(TPR + TNR < 1) = integral of f_TPR(x) F_TNR(1 - x) dx; paper: about 0.14."""
    cm = bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4)
    p = bcm.probability(bcm.fit(cm, random_seed=5), "bm", upper=0.0)
    tpr, tnr = stats.beta(29, 10), stats.beta(4, 5)
    exact, _ = integrate.quad(lambda x: tpr.pdf(x) * tnr.cdf(1 - x), 0, 1)
    assert p == pytest.approx(exact, abs=3 * np.sqrt(exact * (1 - exact) / 20_000))
    assert exact == pytest.approx(0.14, abs=0.01)


def test_same_seed_same_draws(cocaine):
    a = bcm.fit(cocaine, random_seed=42)["posterior"]["bm"].values
    b = bcm.fit(cocaine, random_seed=42)["posterior"]["bm"].values
    c = bcm.fit(cocaine, random_seed=43)["posterior"]["bm"].values
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    gen = bcm.fit(cocaine, random_seed=np.random.default_rng(7))["posterior"]["tpr"].values
    assert np.array_equal(gen, bcm.fit(cocaine, random_seed=np.random.default_rng(7))[
        "posterior"]["tpr"].values)


def test_draws_and_chains_layout(cocaine):
    idata = bcm.fit(cocaine, draws=300, chains=3, random_seed=0)
    post = idata["posterior"]
    assert post["tpr"].dims == ("chain", "draw")
    assert post["tpr"].shape == (3, 300)
    assert post["theta"].dims == ("chain", "draw", "true_class", "pred_class")
    assert np.allclose(post["theta"].sum(("true_class", "pred_class")), 1.0)
    assert post["theta"].sel(true_class="positive", pred_class="positive").values == \
        pytest.approx(post["prevalence"].values * post["tpr"].values)
    assert set(idata.children) == {"posterior", "prior", "observed_data", "observed_metrics",
                                   "diagnostics"}
    assert idata["observed_data"]["counts"].values.tolist() == [[26, 0], [2, 6]]
    assert idata.attrs["method"] == "exact"
    assert idata.attrs["model"] == "binary"
    assert post["bm"].attrs["long_name"].startswith("bookmaker informedness")
    for name in post.data_vars:
        assert name not in post.dims


def test_point_estimates_match_sklearn():
    from sklearn import metrics as skm

    r = np.random.default_rng(11)
    y_true = r.integers(0, 2, 300)
    y_pred = np.where(r.random(300) < 0.8, y_true, 1 - y_true)
    cm = bcm.ConfusionMatrix.from_predictions(y_true, y_pred, positive=1)
    obs = bcm.fit(cm, random_seed=0, draws=10)["observed_metrics"]
    tn, fp, fn, tp = skm.confusion_matrix(y_true, y_pred).ravel()
    expected = {
        "acc": skm.accuracy_score(y_true, y_pred),
        "bacc": skm.balanced_accuracy_score(y_true, y_pred),
        "tpr": skm.recall_score(y_true, y_pred),
        "ppv": skm.precision_score(y_true, y_pred),
        "f1": skm.f1_score(y_true, y_pred),
        "f05": skm.fbeta_score(y_true, y_pred, beta=0.5),
        "f2": skm.fbeta_score(y_true, y_pred, beta=2),
        "mcc": skm.matthews_corrcoef(y_true, y_pred),
        "kappa": skm.cohen_kappa_score(y_true, y_pred),
        "jaccard": skm.jaccard_score(y_true, y_pred),
        "fm": tp / np.sqrt((tp + fp) * (tp + fn)),
        "tnr": tn / (tn + fp),
        "npv": tn / (tn + fn),
        "lr_plus": skm.class_likelihood_ratios(y_true, y_pred)[0],
        "lr_minus": skm.class_likelihood_ratios(y_true, y_pred)[1],
        "dor": (tp * tn) / (fp * fn),
        "prevalence": y_true.mean(),
        "bias": y_pred.mean(),
        "bm": skm.balanced_accuracy_score(y_true, y_pred, adjusted=True) * 1.0,
    }
    # balanced_accuracy(adjusted) = (bacc - 1/2) / (1/2) = TPR + TNR - 1 = BM
    for name, value in expected.items():
        assert float(obs[name]) == pytest.approx(value, rel=1e-12), name


def test_metric_identities_on_draws(cocaine):
    post = bcm.fit(cocaine, random_seed=2, draws=500)["posterior"]
    tpr, tnr, ppv, npv = (post[k].values for k in ("tpr", "tnr", "ppv", "npv"))
    assert np.allclose(post["bm"], tpr + tnr - 1)
    assert np.allclose(post["mk"], ppv + npv - 1)
    assert np.allclose(post["mcc"] ** 2, post["bm"] * post["mk"])  # MCC^2 = BM * MK
    assert np.allclose(post["fnr"], 1 - tpr)
    assert np.allclose(post["fdr"], 1 - ppv)
    assert np.allclose(post["dor"], post["lr_plus"] / post["lr_minus"])
    assert np.allclose(post["gmean"], np.sqrt(tpr * tnr))
    assert np.allclose(post["fm"], np.sqrt(ppv * tpr))
    prev = post["prevalence"].values
    assert np.allclose(ppv, tpr * prev / (tpr * prev + (1 - tnr) * (1 - prev)))  # Bayes' rule
    pt = post["pt"].values
    assert np.allclose(pt, (np.sqrt(tpr * (1 - tnr)) + tnr - 1) / (tpr + tnr - 1))


def test_undefined_point_estimates_are_nan_not_crash():
    cm = bcm.ConfusionMatrix.from_counts(tp=0, fn=5, tn=5, fp=0)  # never predicts positive
    obs = bcm.fit(cm, random_seed=0, draws=50)["observed_metrics"]
    assert np.isnan(obs["ppv"])
    # MCC follows scikit-learn's convention for an empty column: 0 (no association measurable)
    from sklearn.metrics import matthews_corrcoef

    assert float(obs["mcc"]) == matthews_corrcoef([1] * 5 + [0] * 5, [0] * 10) == 0.0
    assert np.isnan(obs["fdr"])
    assert float(obs["tpr"]) == 0.0
    assert float(obs["acc"]) == 0.5
    assert np.isposinf(float(bcm.fit(bcm.ConfusionMatrix.from_counts(tp=3, fn=1, tn=4, fp=0),
                                     draws=10)["observed_metrics"]["lr_plus"]))
    post = bcm.fit(cm, random_seed=0, draws=500)["posterior"]
    assert np.isfinite(post["ppv"]).all()


def test_all_zero_matrix_posterior_is_prior():
    with pytest.warns(bcm.errors.EmptyMatrixWarning):
        cm = bcm.ConfusionMatrix.from_counts(tp=0, fn=0, tn=0, fp=0)
    idata = bcm.fit(cm, random_seed=0)
    tpr = idata["posterior"]["tpr"].values.ravel()
    assert stats.kstest(tpr, stats.uniform.cdf).pvalue > 1e-3
    assert np.isnan(float(idata["observed_metrics"]["tpr"]))


def test_jeffreys_and_per_parameter_priors(cocaine):
    idata = bcm.fit(cocaine, prior="jeffreys", priors={"tnr": bcm.Beta(2, 2)}, random_seed=3)
    tpr = idata["posterior"]["tpr"].values.ravel()
    tnr = idata["posterior"]["tnr"].values.ravel()
    assert stats.kstest(tpr, stats.beta(26.5, 0.5).cdf).pvalue > 1e-3
    assert stats.kstest(tnr, stats.beta(8, 4).cdf).pvalue > 1e-3
    import json

    recorded = json.loads(idata.attrs["priors"])
    assert recorded["tpr"]["name"] == "jeffreys"
    assert recorded["tnr"]["alpha"] == 2.0


def test_fixed_prevalence_is_constant(cocaine):
    idata = bcm.fit(cocaine, priors={"prevalence": bcm.Fixed(0.5),
                                     "tpr": bcm.Beta.from_mean(0.9, 20)},
                    random_seed=0)
    post = idata["posterior"]
    assert "prevalence" not in post
    assert float(idata["constant_data"]["prevalence"]) == 0.5
    tpr = post["tpr"].values.ravel()
    assert stats.kstest(tpr, stats.beta(18 + 26, 2 + 0).cdf).pvalue > 1e-3
    assert np.allclose(post["theta"].sum("pred_class").sel(true_class="positive"), 0.5)
    # PPV at a fixed prevalence follows Bayes' rule draw by draw
    tnr = post["tnr"].values
    assert np.allclose(post["ppv"], post["tpr"] * 0.5 / (post["tpr"] * 0.5 + (1 - tnr) * 0.5))


def test_haldane_improper_posterior_names_parameter(cocaine):
    with pytest.raises(ValueError, match=r"haldane prior on tpr gives an improper .*FN = 0"):
        bcm.fit(cocaine, prior="haldane")
    with pytest.raises(ValueError, match="classifier '7a'"):
        bcm.fit({"8": bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4), "7a": cocaine},
                prior="haldane")


def test_haldane_is_dirichlet_of_counts():
    """PEERS.md: Haldane priors make the three Betas exactly a Dirichlet(TP, FN, TN, FP)."""
    cm = bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4)
    idata = bcm.fit(cm, prior="haldane", random_seed=0)
    assert "prior" not in idata.children
    assert "improper" in idata.attrs["prior_note"]
    theta = idata["posterior"]["theta"].values.reshape(-1, 4)  # tp, fn, fp, tn
    alpha = np.array([28, 9, 4, 3], float)
    mean = alpha / alpha.sum()
    var = mean * (1 - mean) / (alpha.sum() + 1)
    assert np.allclose(theta.mean(0), mean, atol=4 * np.sqrt(var / 20_000))
    assert np.allclose(theta.var(0), var, rtol=0.05)
    for j in range(4):  # marginals of a Dirichlet are Beta(alpha_j, alpha_0 - alpha_j)
        assert stats.kstest(theta[:, j], stats.beta(alpha[j], alpha.sum() - alpha[j]).cdf
                            ).pvalue > 1e-3


def test_prior_group_holds_metric_priors(cocaine):
    prior = bcm.fit(cocaine, random_seed=0)["prior"]
    assert stats.kstest(prior["tpr"].values.ravel(), stats.uniform.cdf).pvalue > 1e-3
    # BM = U1 + U2 - 1 is triangular on [-1, 1], not flat (paper Fig. S1)
    bm = prior["bm"].values.ravel()
    assert stats.kstest(bm, stats.triang(c=0.5, loc=-1, scale=2).cdf).pvalue > 1e-3
    assert "classifier" not in prior.dims


def test_metric_selection_and_aliases(cocaine):
    idata = bcm.fit(cocaine, metrics=["sensitivity", "Informedness", "F1-score"], random_seed=0)
    post = idata["posterior"]
    assert {"tpr", "bm", "f1"} <= set(post.data_vars)
    assert "mcc" not in post
    assert {"prevalence", "tpr", "tnr", "theta"} <= set(post.data_vars)
    assert bcm.probability(idata, "youden", lower=0.5) == bcm.probability(idata, "bm", lower=0.5)


def test_unknown_metric_and_method(cocaine):
    with pytest.raises(ValueError, match="Unknown binary metric 'auc'"):
        bcm.fit(cocaine, metrics=["auc"])
    with pytest.raises(ValueError, match="Unknown method 'mcmc'"):
        bcm.fit(cocaine, method="mcmc")
    with pytest.raises(TypeError, match="draws must be an integer"):
        bcm.fit(cocaine, draws=10.5)
    with pytest.raises(ValueError, match="chains must be >= 1"):
        bcm.fit(cocaine, chains=0)
    with pytest.raises(ValueError, match="hdi_prob must lie strictly"):
        bcm.fit(cocaine, hdi_prob=95)
    with pytest.raises(ValueError, match="Only the prevalence can be fixed, not tpr"):
        bcm.fit(cocaine, priors={"tpr": bcm.Fixed(0.9)})
    with pytest.raises(TypeError, match="not parameters of the binary model"):
        bcm.fit(cocaine, priors={"rates": bcm.Dirichlet(1)})
    with pytest.raises(TypeError, match="not a prior for the binary model's tpr"):
        bcm.fit(cocaine, priors={"tpr": bcm.Dirichlet(1)})
    from pymc_extras.prior import Prior

    with pytest.raises(ValueError, match="needs conjugate priors"):
        bcm.fit(cocaine, priors={"tnr": Prior("Beta", alpha=2, beta=2)}, method="exact")


def test_custom_metric_on_posterior_and_prior(cocaine):
    youden_half = bcm.metrics.Metric("half_bm", lambda tp, fn, fp, tn: 0.5 * (tp / (tp + fn)
                                                                      + tn / (tn + fp) - 1))
    idata = bcm.fit(cocaine, metrics=["bm", youden_half], random_seed=0)
    assert np.allclose(idata["posterior"]["half_bm"], idata["posterior"]["bm"] / 2)
    assert np.allclose(idata["prior"]["half_bm"], idata["prior"]["bm"] / 2)
    assert float(idata["observed_metrics"]["half_bm"]) == pytest.approx(0.375)
    assert "half_bm" in bcm.summary(idata).index


def test_custom_metric_errors(cocaine):
    with pytest.raises(ValueError, match="clashes with the built-in 'tpr'"):
        bcm.fit(cocaine, metrics=[bcm.metrics.Metric("recall", lambda tp, fn, fp, tn: tp)])
    with pytest.raises(ValueError, match="must be an identifier"):
        bcm.metrics.Metric("my metric", lambda tp, fn, fp, tn: tp)
    with pytest.raises(ValueError, match="reserved"):
        bcm.metrics.Metric("theta", lambda tp, fn, fp, tn: tp)
    with pytest.raises(ValueError, match="returned shape"):
        bcm.fit(cocaine, metrics=[bcm.metrics.Metric("bad", lambda tp, fn, fp, tn: np.ones(3))])
    with pytest.raises(ValueError, match="Metric 'boom' failed"):
        bcm.fit(cocaine, metrics=[bcm.metrics.Metric("boom", lambda tp, fn, fp, tn: 1 / "x")])
    with pytest.raises(ValueError, match="kind 'multiclass' but the model is binary"):
        bcm.fit(cocaine, metrics=[bcm.metrics.Metric("m", lambda t: t, kind="multiclass")])


def test_at_least_25_metrics_with_long_names():
    table = bcm.metrics.list_metrics()
    assert len(table) >= 25
    for needed in ("prevalence", "bias", "tpr", "tnr", "ppv", "npv", "fnr", "fpr", "fdr", "for",
                   "acc", "bacc", "f1", "f05", "f2", "mcc", "bm", "mk", "kappa", "lr_plus",
                   "lr_minus", "dor", "jaccard", "fm", "pt", "gmean"):
        assert needed in table.index
    assert (table["long_name"] != table.index).all()


def test_fbeta_matches_sklearn():
    from sklearn.metrics import fbeta_score

    y_true = np.array([1, 1, 1, 0, 0, 1, 0, 1])
    y_pred = np.array([1, 0, 1, 1, 0, 1, 0, 0])
    cm = bcm.ConfusionMatrix.from_predictions(y_true, y_pred, positive=1)
    cells = np.array([cm.cells[k] for k in ("tp", "fn", "fp", "tn")]) / cm.n
    for beta in (0.5, 2, 3.7):
        assert float(bcm.metrics.fbeta(beta)(*cells)) == pytest.approx(
            fbeta_score(y_true, y_pred, beta=beta))
    with pytest.raises(ValueError, match="beta must be a positive"):
        bcm.metrics.fbeta(0)


def test_every_metric_has_working_aliases():
    from bayescm.metrics.catalogue import resolve_metrics

    for metric in BINARY_METRICS.values():
        for alias in metric.aliases:
            assert resolve_metrics([alias], BINARY_METRICS, "binary")[0] is metric


@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_fixed_prevalence_far_from_the_test_set_warns():
    """37 of 44 positives are implausible under a fixed 50 % (binomial p ~ 5e-6)."""
    import warnings

    from scipy.stats import binomtest

    from bayescm.errors import PrevalenceMismatchWarning

    cm = bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4)
    assert binomtest(37, 44, 0.5).pvalue < 1e-3
    with pytest.warns(PrevalenceMismatchWarning, match=r"84%, 16%.*bcm.with_prevalence"):
        bcm.fit(cm, priors={"prevalence": bcm.Fixed(0.5)}, draws=10)
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrevalenceMismatchWarning)
        bcm.fit(cm, priors={"prevalence": bcm.Fixed(0.8)}, draws=10)  # consistent: silent
    three = bcm.ConfusionMatrix([[40, 1, 1], [1, 5, 0], [0, 1, 5]])
    with pytest.warns(PrevalenceMismatchWarning, match="implausible"):
        bcm.fit(three, priors={"prevalence": bcm.Fixed([1 / 3, 1 / 3, 1 / 3])}, draws=10)
