"""Intervals at the edges (issue 28): undefined draws, extreme prevalences, the convergence
check of every NUTS path, the calibrated reference of the ECE, the parametric fit's check."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import xarray as xr

import bayescm as bcm
from bayescm.errors import ConvergenceWarning, MisspecificationWarning, UndefinedDrawsWarning
from bayescm.models.calibration import expected_calibrated_ece
from bayescm.models.nuts import convergence_problems, warn_convergence

CM = bcm.ConfusionMatrix.from_counts(tp=20, fn=3, tn=30, fp=4)


def test_prevalence_draws_at_zero_leave_prevalence_free_metrics_defined():
    """Beta(0.001, 10) puts about half the draws at exactly 0.0 (underflow)."""
    w = bcm.with_prevalence(bcm.fit(CM, random_seed=0), bcm.Beta(0.001, 10))
    post = w["posterior"]
    assert float((post["prevalence"] == 0).mean()) > 0.3
    for name in ("bm", "tpr", "tnr", "lr_plus", "bacc", "ppv", "npv", "f1", "mcc"):
        assert not bool(post[name].isnull().any()), name
    np.testing.assert_allclose(post["bm"].values, post["tpr"].values + post["tnr"].values - 1,
                               rtol=0, atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UndefinedDrawsWarning)
        assert bcm.probability(w, "bm", lower=0) == pytest.approx(1.0)
        table = bcm.informedness(w)
    assert float(table.sum(axis=1).iloc[0]) == pytest.approx(1.0)


def _with_undefined(share: float) -> xr.DataTree:
    fit = bcm.fit(CM, random_seed=0, draws=1000)
    values = fit["posterior"]["fm"].values.copy()
    values.reshape(-1)[: int(share * values.size)] = np.nan
    fit["posterior"]["fm"] = fit["posterior"]["fm"].copy(data=values)
    return fit


def test_probability_of_partly_undefined_metric_is_over_defined_draws_and_says_so():
    fit = _with_undefined(0.25)
    defined = fit["posterior"]["fm"].values
    defined = defined[~np.isnan(defined)]
    with pytest.warns(UndefinedDrawsWarning, match=r"25.00 % of the draws"):
        above = bcm.probability(fit, "fm", lower=0.8)
    with pytest.warns(UndefinedDrawsWarning):
        below = bcm.probability(fit, "fm", upper=0.8)
    assert above == pytest.approx(float(np.mean(defined > 0.8)))
    assert above + below == pytest.approx(1.0)  # NaN draws are not counted as outside


def test_probability_of_a_metric_undefined_everywhere_is_nan_not_zero():
    fit = _with_undefined(1.0)
    with pytest.warns(UndefinedDrawsWarning, match="100.00 %"):
        assert np.isnan(bcm.probability(fit, "fm", lower=0.5))


def test_summary_of_partly_undefined_metric_uses_defined_draws_and_reports_the_share():
    fit = _with_undefined(0.1)
    row = bcm.summary(fit, var_names=["fm", "tpr"])
    assert row.loc["fm", "undefined"] == pytest.approx(0.1)
    assert row.loc["tpr", "undefined"] == 0.0
    defined = fit["posterior"]["fm"].values.reshape(-1)
    defined = defined[~np.isnan(defined)]
    assert row.loc["fm", "mean"] == pytest.approx(defined.mean())
    assert row.loc["fm", "hdi_lower"] < row.loc["fm", "hdi_upper"]
    assert "undefined" not in bcm.summary(bcm.fit(CM, random_seed=0, draws=200)).columns


def _stats(chains: int = 4, draws: int = 500, diverging: int = 0) -> xr.Dataset:
    rng = np.random.default_rng(0)
    div = np.zeros((chains, draws), bool)
    div.reshape(-1)[:diverging] = True
    return xr.Dataset({"diverging": (("chain", "draw"), div),
                       "energy": (("chain", "draw"), rng.normal(size=(chains, draws)))})


def test_convergence_check_names_each_problem_and_its_remedy():
    rng = np.random.default_rng(1)
    good = rng.normal(size=(4, 500))
    assert convergence_problems(_stats(), {"a": good}, 0.9) == []
    stuck = good + np.array([0.0, 0.0, 0.0, 2.0])[:, None]  # one chain elsewhere
    sticky = np.cumsum(rng.normal(size=(4, 500)), axis=1) * 0.05  # a random walk: low ESS
    found = convergence_problems(_stats(diverging=3), {"a": stuck, "b": sticky}, 0.9,
                                 "Try the remedy of the kind.")
    text = " | ".join(found)
    assert "3 divergent transitions" in text and "Try the remedy of the kind." in text
    assert "R-hat" in text and "bulk ESS" in text and "tail ESS" in text
    with pytest.warns(ConvergenceWarning):
        warn_convergence(_stats(diverging=1), {"a": good}, 0.9)


def test_observed_ece_reference_is_the_expected_plug_in_ece_of_calibrated_labels():
    rng = np.random.default_rng(2)
    s = rng.beta(2, 3, size=120)
    y = rng.random(120) < s
    fit = bcm.fit(bcm.Scores(y, s), random_seed=0, draws=50)
    observed = float(fit["observed_metrics"]["ece_reference"])
    bins = np.minimum((s * 10).astype(int), 9)
    sims = []
    for _ in range(4000):  # the plug-in ECE of labels drawn from the scores themselves
        ys = rng.random(120) < s
        count = np.bincount(bins, minlength=10)
        used = count > 0
        rate = np.bincount(bins, weights=ys, minlength=10)[used] / count[used]
        conf = np.bincount(bins, weights=s, minlength=10)[used] / count[used]
        sims.append(np.abs(rate - conf) @ (count[used] / 120))
    assert observed == pytest.approx(expected_calibrated_ece(s, bins))
    assert observed == pytest.approx(np.mean(sims), abs=4 * np.std(sims) / np.sqrt(4000))


@pytest.mark.slow
def test_binormal_fit_on_non_normal_scores_warns_and_names_the_bootstrap():
    rng = np.random.default_rng(3)
    n = 1000
    y = rng.random(n) < 0.4
    s = np.where(y, rng.exponential(1.0, n), np.where(rng.random(n) < 0.5,
                                                       rng.normal(-0.5, 0.3, n),
                                                       rng.exponential(0.6, n)))
    with pytest.warns(MisspecificationWarning, match="bootstrap"):
        bcm.fit(bcm.Scores(y, s), method="binormal", random_seed=0)
    normal = rng.normal(size=n) + 1.0 * y
    with warnings.catch_warnings():
        warnings.simplefilter("error", MisspecificationWarning)
        fit = bcm.fit(bcm.Scores(y, normal), method="binormal", random_seed=0)
    assert "auc_disagreement" in fit.attrs
