"""The bivariate binomial-normal model of several sites (partial pooling)."""

from __future__ import annotations

import numpy as np
import pytest

import bayescm as bcm
from bayescm.models.hierarchical_build import build_hierarchical_model, sroc_draws
from bayescm.models.hierarchical_priors import resolve_priors
from bayescm.priors import HalfNormal


def sites(g: int, seed: int, mu=(1.5, 2.0), sd=(0.5, 0.7), r=-0.4, zero_fn: bool = False
          ) -> dict[str, bcm.ConfusionMatrix]:
    rng = np.random.default_rng(seed)
    cov = np.array([[sd[0] ** 2, r * sd[0] * sd[1]], [r * sd[0] * sd[1], sd[1] ** 2]])
    logits = rng.multivariate_normal(mu, cov, size=g)
    rates = 1 / (1 + np.exp(-logits))
    out = {}
    for i in range(g):
        n_pos, n_neg = int(rng.integers(20, 80)), int(rng.integers(50, 150))
        tp, tn = int(rng.binomial(n_pos, rates[i, 0])), int(rng.binomial(n_neg, rates[i, 1]))
        if zero_fn and i == 0:
            tp = n_pos
        out[f"s{i}"] = bcm.ConfusionMatrix.from_counts(tp=tp, fn=n_pos - tp, tn=tn,
                                                       fp=n_neg - tn)
    return out


def test_model_has_named_dims_for_extension():
    counts = np.array([[[20, 5], [3, 30]], [[15, 2], [6, 40]], [[9, 1], [2, 12]]])
    model = build_hierarchical_model(["a", "b", "c"], counts, "site")
    assert model.named_vars_to_dims["tpr"] == ("site",)
    assert model.named_vars_to_dims["z"] == ("site", "logit")
    free = {rv.name for rv in model.free_RVs}
    assert {"mu_logit_tpr", "sd_logit_tnr", "prevalence", "z_new"} <= free


def test_priors_are_swappable_and_checked():
    assert resolve_priors({"sd_logit_tpr": HalfNormal(0.3)})["sd_logit_tpr"].sigma == 0.3
    with pytest.raises(ValueError, match="valid keys"):
        resolve_priors({"tau": HalfNormal(0.3)})
    with pytest.raises(TypeError, match="create_variable"):
        resolve_priors({"mu_logit_tpr": 3.0})
    with pytest.raises(TypeError, match="proper Beta"):
        resolve_priors({"prevalence": "haldane"})


def test_sroc_follows_the_conditional_mean():
    grid = np.array([0.05, 0.2, 0.5])
    curve = sroc_draws(np.array([1.0]), np.array([2.0]), np.array([0.8]), np.array([0.8]),
                       np.array([-0.9]), grid)
    assert np.all(np.diff(curve[0]) > 0)  # negative correlation: TPR rises with FPR


@pytest.mark.slow
def test_hierarchical_fit_recovers_sites_and_needs_no_correction():
    mats = sites(12, seed=3, zero_fn=True)
    assert mats["s0"].cells["fn"] == 0
    idata = bcm.fit(mats, model="hierarchical", group="site", random_seed=4, cores=1)
    post = idata["posterior"]
    assert post["tpr"].dims == ("chain", "draw", "site")
    assert {"tpr_mean", "tnr_mean", "tpr_new", "tnr_new", "sd_logit_tpr", "sd_logit_tnr",
            "corr_logit", "ppv", "sroc"} <= set(post.data_vars)
    assert "diverging" in idata["sample_stats"]
    assert int(idata["sample_stats"]["diverging"].sum()) == 0
    table = bcm.summary(idata, var_names=["tpr_mean", "tnr_mean"])
    truth = 1 / (1 + np.exp(-np.array([1.5, 2.0])))
    for name, value in zip(["tpr_mean", "tnr_mean"], truth, strict=True):
        assert table.loc[name, "hdi_lower"] < value < table.loc[name, "hdi_upper"]
    assert float(idata["diagnostics"]["tpr_mean"].sel(diagnostic="r_hat")) < 1.01
    # a new site is more uncertain than the pooled mean
    assert float(post["tpr_new"].std()) > float(post["tpr_mean"].std())


@pytest.mark.slow
def test_one_site_with_tiny_scales_agrees_with_the_plain_fit():
    cm = bcm.ConfusionMatrix.from_counts(tp=160, fn=40, tn=270, fp=30)
    tiny = {"sd_logit_tpr": HalfNormal(1e-3), "sd_logit_tnr": HalfNormal(1e-3)}
    pooled = bcm.fit({"only": cm}, model="hierarchical", group="site", priors=tiny,
                     random_seed=5, cores=1)
    plain = bcm.fit(cm, random_seed=6)
    for m in ("tpr", "tnr", "ppv"):
        a = float(pooled["posterior"][m].mean())
        b = float(plain["posterior"][m].mean())
        assert a == pytest.approx(b, abs=0.01), m


def test_pooling_weights_closed_form():
    from bayescm.models.hierarchical_fit import pooling_weights

    n, p, sd = np.array([0, 10, 1000]), np.array([0.9, 0.5, 0.7]), 0.8
    expected = 1 / (1 + n * p * (1 - p) * sd ** 2)
    np.testing.assert_allclose(pooling_weights(n, p, sd), expected)
    assert pooling_weights(np.array([0]), np.array([0.5]), 2.0)[0] == 1.0  # empty: all pooled


def test_e_bfmi_of_a_random_walk_is_low():
    from bayescm.models.hierarchical_fit import e_bfmi

    rng = np.random.default_rng(1)
    walk = np.cumsum(rng.normal(size=(2, 2000)), axis=1)  # energy that barely moves per step
    assert np.all(e_bfmi(walk) < 0.3)
    assert np.all(e_bfmi(rng.normal(size=(2, 2000))) > 1.5)  # independent draws: about 2


@pytest.mark.slow  # a NUTS fit
def test_tree_flags_small_groups_and_carries_diagnostics(small_hierarchical):
    idata = small_hierarchical
    info = idata["group_info"]
    assert info["prior_dominated"].sel(study="empty") and info["prior_dominated"].sel(
        study="tiny")
    assert not info["prior_dominated"].sel(study="2")  # 177 positives, 1815 negatives
    assert float(info["pooling"].sel(study="empty").min()) == 1.0
    assert info["n_positive"].sel(study="2") == 177
    diag = idata["diagnostics"]
    assert list(diag["diagnostic"].values) == ["r_hat", "ess_bulk", "ess_tail"]
    stats = idata["sample_stats"]
    assert stats["e_bfmi"].dims == ("chain",) and np.all(stats["e_bfmi"] > 0)
    assert "diverging" in idata["sample_stats"]
    from bayescm.models.hierarchical_fit import DEFAULT_TARGET_ACCEPT

    assert idata.attrs["nuts_sampler"] == "pymc" and idata.attrs["target_accept"] == 0.9
    assert DEFAULT_TARGET_ACCEPT["pymc"] == 0.99  # what a fit without target_accept= uses
    # the empty study's rates are the population's: as wide as a new study's
    post = idata["posterior"]
    assert float(post["tpr"].sel(study="empty").std()) == pytest.approx(
        float(post["tpr_new"].std()), rel=0.25)


@pytest.mark.slow  # a NUTS fit
def test_new_group_ppv_at_a_deployment_prevalence(small_hierarchical):
    deployed = bcm.with_prevalence(small_hierarchical, 0.02)
    post = deployed["posterior"]
    tpr, tnr = post["tpr_new"], post["tnr_new"]
    bayes = 0.02 * tpr / (0.02 * tpr + 0.98 * (1 - tnr))  # Bayes' rule, draw by draw
    np.testing.assert_allclose(post["ppv_new"].values, bayes.values, rtol=1e-12)
    np.testing.assert_allclose(post["tpr"].values,
                               small_hierarchical["posterior"]["tpr"].values)
    assert post["ppv"].dims == ("chain", "draw", "study") and "npv_mean" in post
    assert deployed.attrs["group"] == "study"
    assert bcm.summary(deployed, var_names=["ppv_new"]).loc["ppv_new", "mean"] < 0.3
    drawn = bcm.with_prevalence(small_hierarchical, bcm.Beta(2, 98), random_seed=3)
    assert float(drawn["posterior"]["prevalence"].std()) > 0
    assert not np.shares_memory(drawn["posterior"]["tpr"].values,
                                small_hierarchical["posterior"]["tpr"].values)
    with pytest.raises(ValueError, match="prevalence"):
        bcm.with_prevalence(small_hierarchical, 1.5)


def test_sampler_defaults_follow_what_is_installed(monkeypatch):
    from bayescm.models import checks
    from bayescm.models.hierarchical_fit import DEFAULT_TUNE, sampler_defaults

    monkeypatch.setattr(checks, "require_nutpie", lambda: None)
    assert sampler_defaults({}, chains=4)["nuts_sampler"] == "nutpie"

    def missing():
        raise ImportError("no nutpie")

    monkeypatch.setattr(checks, "require_nutpie", missing)
    chosen = sampler_defaults({}, chains=4)
    assert chosen["nuts_sampler"] == "pymc" and chosen["tune"] == DEFAULT_TUNE
    assert 1 <= chosen["cores"] <= 4
    assert sampler_defaults({"cores": 1, "tune": 10, "target_accept": 0.8,
                             "nuts_sampler": "pymc"}, chains=4) == {}


def test_group_name_must_not_clash():
    mats = sites(3, seed=1)
    with pytest.raises(ValueError, match="another dim or variable"):
        bcm.fit(mats, model="hierarchical", group="rate", draws=10, tune=10, chains=1)
    with pytest.raises(ValueError, match="group='name'"):
        bcm.fit(mats, model="hierarchical", group="two words")


# mada's bivariate (Reitsma) REML fit of the same 14 AUDIT-C studies, as printed in the
# package's vignette (mada 0.5.12): sensitivity 0.891 [0.808, 0.941], false-positive rate
# 0.220 [0.167, 0.285], between-study SDs of logit sensitivity 1.175 and of logit FPR 0.638,
# correlation of logit sensitivity and logit FPR 0.854.
MADA_AUDITC = {"tpr": (0.891, 0.808, 0.941), "tnr": (0.780, 0.715, 0.833),
               "sd_tpr": 1.175, "sd_tnr": 0.638, "corr": -0.854}


@pytest.mark.slow
def test_auditc_agrees_with_the_published_bivariate_meta_analysis():
    """AUDIT-C (Kriston et al. 2008) against mada's REML fit: where and why they differ.

    mada adds 0.5 to every cell and fits normal approximations of the logits; the
    binomial-normal model uses the counts. They agree on specificity and its heterogeneity.
    Two studies have no false negatives (68/68 and 752/752): with the correction mada pulls
    their sensitivities down to about 0.99, with exact binomials their logits may be far
    higher, so the between-study SD of logit sensitivity comes out larger, the pooled
    sensitivity a little higher, and its interval wider. Chu & Cole (2006) report the same
    direction for the binomial model.
    """
    from bayescm.io import datasets

    idata = bcm.fit(datasets.load("auditc"), model="hierarchical", group="study",
                    random_seed=1, cores=1)
    assert int(idata["sample_stats"]["diverging"].sum()) == 0
    table = bcm.summary(idata, var_names=["tpr_mean", "tnr_mean", "sd_logit_tpr",
                                          "sd_logit_tnr", "corr_logit"])
    spec, spec_lo, spec_hi = MADA_AUDITC["tnr"]
    assert table.loc["tnr_mean", "mean"] == pytest.approx(spec, abs=0.015)
    assert table.loc["tnr_mean", "hdi_lower"] == pytest.approx(spec_lo, abs=0.02)
    assert table.loc["tnr_mean", "hdi_upper"] == pytest.approx(spec_hi, abs=0.02)
    assert table.loc["sd_logit_tnr", "mean"] == pytest.approx(MADA_AUDITC["sd_tnr"], abs=0.1)
    sens = MADA_AUDITC["tpr"][0]
    assert sens < table.loc["tpr_mean", "mean"] < sens + 0.04  # higher, as explained above
    assert table.loc["tpr_mean", "hdi_lower"] < sens < table.loc["tpr_mean", "hdi_upper"]
    assert table.loc["sd_logit_tpr", "hdi_lower"] < MADA_AUDITC["sd_tpr"] < table.loc[
        "sd_logit_tpr", "mean"]
    assert table.loc["corr_logit", "hdi_lower"] < MADA_AUDITC["corr"] < table.loc[
        "corr_logit", "hdi_upper"]
    assert table["r_hat"].max() < 1.01


@pytest.mark.slow
def test_shipped_example_has_no_divergences():
    from bayescm.models.hierarchical import HierarchicalModel

    idata = HierarchicalModel.example()
    assert int(idata["sample_stats"]["diverging"].sum()) == 0
    assert float(idata["sample_stats"]["e_bfmi"].min()) > 0.3


def test_build_model_names_the_group_dim():
    mats = sites(3, seed=2)
    model = bcm.build_model(mats, model="hierarchical", group="hospital")
    assert model.named_vars_to_dims["tpr"] == ("hospital",)
    assert model.named_vars_to_dims["n_positive"] == ("hospital",)  # data: pm.set_data works
    with pytest.raises(TypeError, match="drop group="):
        bcm.build_model(mats["s0"], group="hospital")
    with pytest.raises(ValueError, match="group must be a name"):
        bcm.build_model(mats, model="hierarchical", group="two words")
