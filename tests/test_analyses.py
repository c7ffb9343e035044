import numpy as np
import pytest
from scipy import stats

import bayescm as bcm
from bayescm.analyses.predictive import posterior_predictive, prior_predictive
from bayescm.analyses.prevalence import with_prevalence
from bayescm.analyses.sensitivity import prior_sensitivity
from bayescm.analyses.summary import informedness


@pytest.fixture(scope="module")
def screening():
    cm = bcm.ConfusionMatrix.from_counts(tp=45, fn=5, tn=47, fp=3)
    return bcm.fit(cm, priors={"prevalence": bcm.Fixed(0.5)}, random_seed=0, draws=2000)


@pytest.fixture(scope="module")
def multi():
    cm = bcm.ConfusionMatrix([[20, 3, 1], [4, 15, 2], [1, 2, 12]], labels=["a", "b", "c"])
    return bcm.fit(cm, random_seed=0, draws=1000)


# ----------------------------------------------------------------- with_prevalence
def test_ppv_at_new_prevalence_is_bayes_rule(screening):
    deployed = with_prevalence(screening, 0.01)
    post = screening["posterior"]
    tpr, tnr = post["tpr"].values, post["tnr"].values
    pi = 0.01
    bayes = pi * tpr / (pi * tpr + (1 - pi) * (1 - tnr))
    np.testing.assert_allclose(deployed["posterior"]["ppv"].values, bayes, rtol=1e-12)
    npv = (1 - pi) * tnr / ((1 - pi) * tnr + pi * (1 - tpr))
    np.testing.assert_allclose(deployed["posterior"]["npv"].values, npv, rtol=1e-12)
    # the classifier's own rates are untouched; PPV collapses
    np.testing.assert_array_equal(deployed["posterior"]["tpr"].values, tpr)
    assert float(post["ppv"].mean()) > 0.9
    assert float(deployed["posterior"]["ppv"].mean()) < 0.35
    assert float(deployed["constant_data"]["prevalence"]) == 0.01
    assert float(deployed["observed_metrics"]["ppv"]) == pytest.approx(
        0.01 * 0.9 / (0.01 * 0.9 + 0.99 * 3 / 50))
    assert "ppv" in deployed["diagnostics"]


def test_prevalence_prior_is_drawn_and_shared_across_batch():
    cms = {"x": bcm.ConfusionMatrix.from_counts(tp=30, fn=10, tn=35, fp=5),
           "y": bcm.ConfusionMatrix.from_counts(tp=20, fn=20, tn=38, fp=2)}
    idata = bcm.fit(cms, random_seed=1, draws=4000)
    out = with_prevalence(idata, bcm.Beta(2, 48), random_seed=2)
    prev = out["posterior"]["prevalence"]
    np.testing.assert_array_equal(prev.sel(classifier="x"), prev.sel(classifier="y"))
    ks = stats.kstest(prev.sel(classifier="x").values.ravel(), stats.beta(2, 48).cdf)
    assert ks.pvalue > 1e-3
    p, t, s = prev.values, idata["posterior"]["tpr"].values, idata["posterior"]["tnr"].values
    np.testing.assert_allclose(out["posterior"]["acc"].values, p * t + (1 - p) * s)
    assert out["prior"]["ppv"].dims == ("chain", "draw")
    assert out.attrs["deployment_prevalence"].startswith('{"alpha": 2.0')


def test_prevalence_draws_array_and_shape_errors(screening):
    draws = np.full(4 * 2000, 0.2)
    out = with_prevalence(screening, draws)
    np.testing.assert_allclose(out["posterior"]["prevalence"].values, 0.2)
    with pytest.raises(ValueError, match=r"do not match the 4 chains x 2000 draws"):
        with_prevalence(screening, np.full(10, 0.2))
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        with_prevalence(screening, 1.5)
    with pytest.raises(ValueError, match="proportions in"):
        with_prevalence(screening, np.full(8000, 1.2))
    with pytest.raises(TypeError, match="Dirichlet is for multiclass"):
        with_prevalence(screening, bcm.Dirichlet([1, 1]))


def test_custom_metric_needs_metrics_argument():
    nb = bcm.metrics.Metric("net_benefit", lambda tp, fn, fp, tn: tp - fp * 0.1 / 0.9)
    cm = bcm.ConfusionMatrix.from_counts(tp=20, fn=5, tn=20, fp=5)
    idata = bcm.fit(cm, metrics=["ppv", nb], random_seed=0, draws=500)
    with pytest.raises(ValueError, match=r"custom metrics \['net_benefit'\].*metrics="):
        with_prevalence(idata, 0.1)
    out = with_prevalence(idata, 0.1, metrics=["ppv", nb])
    post = out["posterior"]
    t, s = post["tpr"].values, post["tnr"].values
    np.testing.assert_allclose(post["net_benefit"].values, 0.1 * t - 0.9 * (1 - s) * 0.1 / 0.9)


def test_multiclass_prevalence_exchange(multi):
    pi = np.array([0.8, 0.15, 0.05])
    out = with_prevalence(multi, pi)
    rates = multi["posterior"]["rates"].values
    theta = pi[:, None] * rates
    np.testing.assert_allclose(out["posterior"]["theta"].values, theta)
    ppv_a = theta[..., 0, 0] / theta[..., :, 0].sum(-1)
    np.testing.assert_allclose(out["posterior"]["ppv"].sel({"class": "a"}).values, ppv_a)
    np.testing.assert_allclose(out["posterior"]["acc"].values,
                               np.einsum("k,...kk->...", pi, rates))
    with pytest.raises(ValueError, match="vector of 3 class shares"):
        with_prevalence(multi, 0.5)
    d = with_prevalence(multi, bcm.Dirichlet([8, 1, 1]), random_seed=0)
    assert float(d["posterior"]["prevalence"].mean(["chain", "draw"])[0]) == pytest.approx(
        0.8, abs=0.01)


# ----------------------------------------------------------------- posterior_predictive
def _pp_var(idata, n, seed=1):
    pp = posterior_predictive(idata, n=n, random_seed=seed)["posterior_predictive"]
    return pp["theta"].values.reshape(-1, 4).var(axis=0), pp


def test_predictive_variance_dirichlet_factor():
    # Haldane priors: theta ~ Dirichlet(TP, FN, FP, TN) exactly (alpha_0 = N = 50)
    counts = np.array([20, 10, 5, 15], dtype=float)
    cm = bcm.ConfusionMatrix.from_counts(tp=20, fn=10, fp=5, tn=15)
    idata = bcm.fit(cm, prior="haldane", random_seed=0, draws=5000)
    a0 = counts.sum()
    m = counts / a0
    var_theta = m * (1 - m) / (1 + a0)  # eq. S3
    for n in (50, 500):
        var_pp, _ = _pp_var(idata, n)
        np.testing.assert_allclose(var_pp, (1 + a0 / n) * var_theta, rtol=0.06)  # eq. S8
    var_pp, pp = _pp_var(idata, None)
    assert pp.attrs["n"] == "50"
    np.testing.assert_allclose(var_pp, 2 * var_theta, rtol=0.06)  # Caelen: twice too wide


def test_predictive_variance_law_of_total_variance_laplace():
    # Laplace: theta_TP = prev * tpr with independent Betas; moments in closed form
    tp, fn, fp, tn = 12, 3, 6, 9
    idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=tp, fn=fn, fp=fp, tn=tn),
                    random_seed=0, draws=5000)

    def moments(a, b):
        return a / (a + b), a * (a + 1) / ((a + b) * (a + b + 1))

    prev, tpr, tnr = (moments(1 + tp + fn, 1 + fp + tn), moments(1 + tp, 1 + fn),
                      moments(1 + tn, 1 + fp))
    neg = (1 - prev[0], 1 - 2 * prev[0] + prev[1])  # moments of 1 - prev
    comp = lambda mo: (1 - mo[0], 1 - 2 * mo[0] + mo[1])  # noqa: E731
    cells = [(prev, tpr), (prev, comp(tpr)), (neg, comp(tnr)), (neg, tnr)]
    e1 = np.array([x[0] * y[0] for x, y in cells])
    e2 = np.array([x[1] * y[1] for x, y in cells])
    n = 30
    expected = (e1 - e2) / n + (e2 - e1**2)
    var_pp, _ = _pp_var(idata, n)
    np.testing.assert_allclose(var_pp, expected, rtol=0.06)
    assert np.all(var_pp > idata["posterior"]["theta"].values.reshape(-1, 4).var(axis=0))


def test_predictive_n1_gives_accuracy_0_or_1_and_batch_n():
    one = bcm.ConfusionMatrix.from_counts(tp=1, fn=0, tn=0, fp=0)
    big = bcm.ConfusionMatrix.from_counts(tp=10, fn=2, tn=7, fp=1)
    idata = bcm.fit({"one": one, "big": big}, random_seed=0, draws=1000)
    pp = posterior_predictive(idata, random_seed=0)["posterior_predictive"]
    totals = pp["counts"].sum(["true_class", "pred_class"])
    assert set(np.unique(totals.sel(classifier="one"))) == {1}
    assert set(np.unique(totals.sel(classifier="big"))) == {20}
    assert set(np.unique(pp["acc"].sel(classifier="one"))) == {0.0, 1.0}
    assert "posterior_predictive" not in idata.children  # input untouched


@pytest.mark.parametrize(("n", "exc", "match"), [(0, ValueError, ">= 1"),
                                                 (-3, ValueError, ">= 1"),
                                                 (2.5, TypeError, "whole number"),
                                                 ([5, 6, 7], ValueError, "one per classifier")])
def test_predictive_bad_n(screening, n, exc, match):
    with pytest.raises(exc, match=match):
        posterior_predictive(screening, n=n)


def test_predictive_multiclass(multi):
    pp = posterior_predictive(multi, n=40, random_seed=0)["posterior_predictive"]
    assert pp["counts"].dims == ("chain", "draw", "true_class", "pred_class")
    counts = pp["counts"].values
    diag = np.trace(counts, axis1=-2, axis2=-1)
    np.testing.assert_allclose(pp["acc"].values, diag / 40)


# ----------------------------------------------------------------- prior_predictive
def test_prior_predictive_laplace_accuracy_moments():
    tree = prior_predictive(random_seed=0, draws=10_000)
    prior = tree["prior"]
    # acc = p t + (1 - p) s with p, t, s ~ U(0, 1): mean 1/2, variance 1/18
    acc = prior["acc"].values.ravel()
    assert acc.mean() == pytest.approx(0.5, abs=0.005)
    assert acc.var() == pytest.approx(1 / 18, rel=0.03)
    assert stats.kstest(prior["prevalence"].values.ravel(), "uniform").pvalue > 1e-3
    fitted = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=1, fn=1, tn=1, fp=1), draws=10)
    assert set(prior.data_vars) == set(fitted["prior"].data_vars)


def test_prior_predictive_jeffreys_and_multiclass():
    tree = prior_predictive("jeffreys", random_seed=1, draws=5000)
    tpr = tree["prior"]["tpr"].values.ravel()
    assert stats.kstest(tpr, stats.beta(0.5, 0.5).cdf).pvalue > 1e-3
    multi = prior_predictive(labels=["a", "b", "c"], random_seed=0, draws=500)
    assert multi["prior"]["rates"].dims == ("chain", "draw", "true_class", "pred_class")
    assert multi.attrs["model"] == "multiclass"
    with pytest.raises(ValueError, match="improper prior"):
        prior_predictive("haldane")


# ----------------------------------------------------------------- prior_sensitivity
def test_prior_sensitivity_matches_closed_form_means():
    cm = bcm.ConfusionMatrix.from_counts(tp=8, fn=2, tn=5, fp=5)
    tree = prior_sensitivity(cm, {"laplace": "laplace", "jeffreys": "jeffreys",
                                  "informed": {"tpr": bcm.Beta(30, 10)}},
                             random_seed=0, draws=5000)
    means = tree["posterior"]["tpr"].mean(["chain", "draw"])
    assert list(means["prior_choice"].values) == ["laplace", "jeffreys", "informed"]
    expected = [9 / 12, 8.5 / 11, 38 / 50]
    np.testing.assert_allclose(means.values, expected, atol=0.003)
    assert tree["prior"]["tpr"].dims[0] == "prior_choice"
    table = bcm.summary(tree, var_names=["tpr"])
    assert list(table.index) == ["tpr[laplace]", "tpr[jeffreys]", "tpr[informed]"]


def test_prior_sensitivity_omits_missing_groups_and_checks_input():
    cm = bcm.ConfusionMatrix.from_counts(tp=8, fn=2, tn=5, fp=5)
    tree = prior_sensitivity(cm, ["laplace", "haldane"], random_seed=0, draws=200)
    assert "prior" not in tree.children
    assert "omitted_groups" in tree.attrs
    with pytest.raises(TypeError, match="mapping or a list"):
        prior_sensitivity(cm, "laplace")


# ----------------------------------------------------------------- informedness
def test_informedness_mcc_agrees_with_bm_for_binary():
    cm = bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4)
    idata = bcm.fit(cm, random_seed=0)
    by_bm = informedness(idata)
    by_mcc = informedness(idata, var="mcc")
    np.testing.assert_array_equal(by_bm.values, by_mcc.values)


def test_informedness_multiclass_defaults_to_mcc(multi):
    table = informedness(multi, rope=0.05)
    assert list(table.index) == ["mcc"]
    mcc = multi["posterior"]["mcc"].values
    assert table.loc["mcc", "informative"] == pytest.approx((mcc > 0.05).mean())
    assert table.loc["mcc", "deceptive"] == pytest.approx((mcc < -0.05).mean())
