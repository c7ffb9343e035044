"""Exact and NUTS sampling agree (the NUTS path samples the PyMC model of build_model)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import bayescm as bcm
from bayescm.core.diagnostics import ess

pytestmark = pytest.mark.slow

QUANTILES = (0.05, 0.25, 0.5, 0.75, 0.95)


def _assert_agree(exact, nuts, names):
    """Means agree within 4.5 Monte Carlo standard errors, quantiles within the matching
    error of a quantile (from the ESS and the density there)."""
    for name in names:
        a = exact["posterior"][name].values
        b = nuts["posterior"][name].values
        ess_b = float(np.min(ess(b, "bulk")))
        assert ess_b > 300, (name, ess_b)
        flat_a, flat_b = a.reshape(-1, *a.shape[2:]), b.reshape(-1, *b.shape[2:])
        se = np.sqrt(flat_a.var(0) / flat_a.shape[0] + flat_b.var(0) / ess_b)
        assert np.all(np.abs(flat_a.mean(0) - flat_b.mean(0)) < 4.5 * se), name
        series = flat_a.reshape(flat_a.shape[0], -1)
        kdes = [stats.gaussian_kde(series[:5000, j]) for j in range(series.shape[1])]
        for q in QUANTILES:
            qa, qb = np.quantile(flat_a, q, axis=0), np.quantile(flat_b, q, axis=0)
            # the density of each element at its own quantile (a batch's classifiers differ)
            dens = np.array([max(float(k(v)[0]), 0.2) for k, v in zip(kdes, qa.ravel(),
                                                                      strict=True)])
            q_se = (np.sqrt(q * (1 - q) / ess_b) / dens).reshape(qa.shape)
            assert np.all(np.abs(qa - qb) < 5 * q_se + 0.005), (name, q, qa, qb)


CASES = {
    "cocaine-laplace": (dict(tp=26, fn=0, tn=6, fp=2), {}),
    "c8-jeffreys": (dict(tp=28, fn=9, tn=3, fp=4), {"prior": "jeffreys"}),
    "fixed-informative": (dict(tp=10, fn=4, tn=20, fp=0),
                          {"prevalence": bcm.Fixed(0.3), "tpr": bcm.Beta.from_mean(0.8, 10)}),
    "haldane": (dict(tp=31, fn=5, tn=24, fp=4), {"prior": "haldane"}),
}


@pytest.mark.parametrize("case", list(CASES))
def test_exact_and_nuts_agree(case):
    counts, kwargs = CASES[case]
    cm = bcm.ConfusionMatrix.from_counts(**counts)
    exact = bcm.fit(cm, method="exact", random_seed=1, **kwargs)
    nuts = bcm.fit(cm, method="nuts", draws=1000, chains=2, random_seed=2, cores=1, **kwargs)
    assert nuts.attrs["method"] == "nuts"
    assert "sample_stats" in nuts.children
    assert int(nuts["sample_stats"]["diverging"].sum()) == 0
    assert nuts["diagnostics"].attrs["r_hat_method"] == "rank"
    assert (nuts["diagnostics"]["bm"].sel(diagnostic="r_hat") < 1.01).all()
    names = ["tpr", "tnr", "bm", "ppv", "mcc"] + (["prevalence"] if "prevalence" not in kwargs
                                                   else [])
    _assert_agree(exact, nuts, names)


def test_batch_nuts_agrees():
    mats = {"7a": bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
            "8": bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4)}
    exact = bcm.fit(mats, random_seed=3, metrics=["bm"])
    nuts = bcm.fit(mats, method="nuts", draws=1000, chains=2, random_seed=4, cores=1,
                   metrics=["bm"])
    assert nuts["posterior"]["bm"].dims == ("chain", "draw", "classifier")
    _assert_agree(exact, nuts, ["tpr", "tnr", "bm"])


def test_custom_prior_object_goes_to_nuts():
    """A pymc-extras Prior with the same Beta(2, 2) as a conjugate prior gives the same answer."""
    from pymc_extras.prior import Prior

    cm = bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4)
    custom = bcm.fit(cm, priors={"tnr": Prior("Beta", alpha=2, beta=2)}, draws=1000, chains=2,
                     random_seed=5, cores=1)
    assert custom.attrs["method"] == "nuts"
    assert '"dist": "Beta"' in custom.attrs["priors"]
    exact = bcm.fit(cm, priors={"tnr": bcm.Beta(2, 2)}, random_seed=6)
    _assert_agree(exact, custom, ["tnr", "bm"])
    # its prior group is drawn by PyMC and matches Beta(2, 2)
    tnr_prior = custom["prior"]["tnr"].values.ravel()
    assert stats.kstest(tnr_prior, stats.beta(2, 2).cdf).pvalue > 1e-3


def test_truncated_custom_prior_changes_posterior():
    """A non-conjugate prior (TPR truncated to > 0.9) is honoured by NUTS."""
    from pymc_extras.prior import Prior

    cm = bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4)
    idata = bcm.fit(cm, priors={"tpr": Prior("Uniform", lower=0.9, upper=1.0)}, draws=500, chains=2,
                    random_seed=7, cores=1, target_accept=0.95)
    tpr = idata["posterior"]["tpr"].values
    assert tpr.min() >= 0.9
    # closed form: Beta(29, 10) truncated to [0.9, 1]; compare the mean
    beta = stats.beta(29, 10)
    grid = np.linspace(0.9, 1, 20001)
    w = beta.pdf(grid)
    assert tpr.mean() == pytest.approx((grid * w).sum() / w.sum(), abs=0.003)


def test_build_model_is_fresh_and_has_theta(cocaine):
    m1, m2 = bcm.build_model(cocaine), bcm.build_model(cocaine)
    assert m1 is not m2
    assert {v.name for v in m1.deterministics} == {"theta"}
    assert m1.named_vars_to_dims["theta"] == ("true_class", "pred_class")
    fixed = bcm.build_model(cocaine, priors={"prevalence": bcm.Fixed(0.5)})
    assert "n_pos" not in fixed.named_vars
    assert "prevalence" in fixed.named_vars
    assert "prevalence" not in {rv.name for rv in fixed.free_RVs}
    with pytest.raises(TypeError, match="not parameters of the binary model"):
        bcm.build_model(cocaine, priors={"rates": bcm.Dirichlet(1)})
