"""The bivariate binomial-normal model of several sites (partial pooling)."""

from __future__ import annotations

import numpy as np
import pytest

import bayescm as bcm
from bayescm.models.hierarchical import (
    HalfNormal,
    build_hierarchical_model,
    resolve_priors,
    sroc_draws,
)


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
