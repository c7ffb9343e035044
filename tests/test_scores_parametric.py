"""Parametric ROC models of scores (binormal, bibeta): numerics, recovery, priors, layout, SBC."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import integrate, special, stats

import bayescm as bcm
from bayescm.core.container import read_json_attr
from bayescm.errors import ConvergenceWarning, ScoreRangeError
from bayescm.models.roc_parametric import build_parametric_model
from bayescm.models.roc_parametric_curves import BiBeta, Binormal, curve_metrics
from bayescm.models.roc_parametric_priors import prior_from_dict
from bayescm.priors import HalfNormal, LogNormal, Normal

FAST = {"draws": 300, "chains": 2, "tune": 400}
LEFT_OUT = {"binormal": {"brier", "log_loss", "ece", "ece_reference", "reliability"},
            "bibeta": {"ece", "ece_reference", "reliability"}}


def binormal_scores(n: int, d: float, prevalence: float = 0.4, seed: int = 0
                    ) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < prevalence
    return y, rng.normal(size=n) + d * y


def bibeta_auc(ap: float, bp: float, an: float, bn: float) -> float:
    """P(positive score > negative score) by quadrature."""
    pos, neg = stats.beta(ap, bp), stats.beta(an, bn)
    return integrate.quad(lambda t: neg.pdf(t) * pos.sf(t), 0, 1, limit=200)[0]


def hdi(idata, name: str, **sel) -> tuple[float, float]:
    values = idata["posterior"][name].sel(**sel).values.ravel()
    lo, hi = np.quantile(values, [0.025, 0.975])
    return float(lo), float(hi)


def quiet_fit(*args, **kwargs):
    with warnings.catch_warnings():  # short chains may warn about ESS; not what is tested here
        warnings.simplefilter("ignore", ConvergenceWarning)
        return bcm.fit(*args, **kwargs)


@pytest.fixture(scope="module")
def two_binormal():
    """Classifiers A (d = 1, AUC 0.760) and B (d = 1.6, AUC 0.871), correlated, 300 items."""
    y, s = binormal_scores(300, 1.0, seed=21)
    z = np.random.default_rng(22).normal(size=300)
    s_b = 0.6 * s + 0.8 * z + 1.0 * y  # normal in each class, sd 1, shift 1.6
    data = bcm.Scores(y, {"A": s, "B": s_b}, positive=True)
    return data, quiet_fit(data, method="binormal", random_seed=23, **FAST)


@pytest.fixture(scope="module")
def one_bibeta():
    """Scores ~ Beta(4, 2) | positive and Beta(2, 4) | negative, 300 items, prevalence 0.4."""
    rng = np.random.default_rng(2)
    y = rng.random(300) < 0.4
    s = np.where(y, rng.beta(4, 2, 300), rng.beta(2, 4, 300))
    data = bcm.Scores(y, s, positive=True)
    return data, quiet_fit(data, method="bibeta", random_seed=32, **FAST)


# ------------------------------------------------------------------ numerics (no sampling)
def test_curve_integrals_match_closed_forms_and_quadrature():
    rng = np.random.default_rng(1)
    d = 40
    fam = Binormal(rng.normal(1.5, 1.0, d), np.exp(rng.normal(0, 0.6, d)), np.zeros(d),
                   np.ones(d))
    prev = rng.uniform(0.1, 0.6, d)
    coarse = np.linspace(0, 1, 11)
    out = curve_metrics(fam, prev, coarse, coarse, (0.0, 0.1))  # the integrals' own nodes
    np.testing.assert_allclose(out["auc"], fam.auc(), atol=5e-5)
    grid = np.linspace(0, 1, 101)
    out = curve_metrics(fam, prev, grid, grid, (0.0, 0.1))
    np.testing.assert_allclose(out["auc"], fam.auc(), atol=2e-5)
    np.testing.assert_allclose(out["roc"], special.ndtr(fam.a + fam.b * special.ndtri(grid)))
    for i in range(0, d, 8):
        a, b, pi = fam.a[i, 0], fam.b[i, 0], prev[i]

        def roc(f: float, a: float = a, b: float = b) -> float:
            return special.ndtr(a + b * special.ndtri(f))

        def precision(r: float, a: float = a, b: float = b, pi: float = pi) -> float:
            f = special.ndtr((special.ndtri(r) - a) / b)
            return pi * r / (pi * r + (1 - pi) * f)

        partial = integrate.quad(roc, 0, 0.1, points=[1e-6, 1e-3], limit=200)[0]
        assert out["auc_partial"][i] == pytest.approx(partial, abs=2e-5)
        ap = integrate.quad(precision, 1e-12, 1, limit=200)[0]
        assert out["average_precision"][i] == pytest.approx(ap, abs=5e-4)
    shapes = rng.lognormal(0, 1, (4, 6))
    beta = BiBeta(*shapes)
    out = curve_metrics(beta, np.full(6, 0.3), grid, grid, (0.0, 0.1))
    truth = [bibeta_auc(*shapes[:, i]) for i in range(6)]
    np.testing.assert_allclose(out["auc"], truth, atol=2e-5)
    assert np.all(np.isfinite(out["pr"])) and np.all(np.diff(out["roc"], axis=1) >= 0)


def test_bibeta_losses_are_the_expectations():
    ap, bp, an, bn, pi = 3.0, 1.5, 0.7, 2.5, 0.3
    fam = BiBeta(*(np.array([v]) for v in (ap, bp, an, bn)))
    out = fam.losses(np.array([pi]))
    pos, neg = stats.beta(ap, bp), stats.beta(an, bn)
    brier = pi * pos.expect(lambda s: (1 - s) ** 2) + (1 - pi) * neg.expect(lambda s: s ** 2)
    loss = -pi * pos.expect(np.log) - (1 - pi) * neg.expect(lambda s: np.log1p(-s))
    assert out["brier"][0] == pytest.approx(brier, rel=1e-8)
    assert out["log_loss"][0] == pytest.approx(loss, rel=1e-6)


# ------------------------------------------------------------------ recovery and agreement
@pytest.mark.slow  # a NUTS fit
def test_binormal_recovers_the_auc_and_agrees_with_the_bootstrap(two_binormal):
    data, idata = two_binormal
    boot = bcm.fit(data, draws=500, metrics=["acc"], random_seed=24)
    for name, d in (("A", 1.0), ("B", 1.6)):
        truth = stats.norm.cdf(d / np.sqrt(2))
        lo, hi = hdi(idata, "auc", classifier=name)
        mean = float(idata["posterior"]["auc"].sel(classifier=name).mean())
        assert lo < truth < hi, name
        assert abs(mean - truth) < 0.04, name
        boot_mean = float(boot["posterior"]["auc"].sel(classifier=name).mean())
        assert abs(mean - boot_mean) < 0.03, name
    mu = idata["posterior"]["mu_pos"].sel(classifier="B").values
    assert abs(mu.mean() - 1.6) < 3 * mu.std() + 0.05


@pytest.mark.slow  # a NUTS fit
def test_bibeta_recovers_auc_and_losses(one_bibeta):
    _, idata = one_bibeta
    post = idata["posterior"]
    truth = bibeta_auc(4, 2, 2, 4)
    lo, hi = hdi(idata, "auc")
    assert lo < truth < hi and abs(float(post["auc"].mean()) - truth) < 0.04
    fam = BiBeta(*(np.array([v]) for v in (4.0, 2.0, 2.0, 4.0)))
    for name, value in fam.losses(np.array([0.4])).items():
        lo, hi = hdi(idata, name)
        assert lo < value[0] < hi, name
    for name, value in (("alpha_pos", 4.0), ("beta_neg", 4.0)):
        lo, hi = hdi(idata, name)
        assert lo < value < hi, name
    assert idata.attrs["method"] == "bibeta"


# ------------------------------------------------------------------ priors
@pytest.mark.slow  # a NUTS fit
def test_prior_override_by_key_changes_the_posterior():
    y, s = binormal_scores(120, 1.0, seed=41)
    data = bcm.Scores(y, s, positive=True)
    idata = quiet_fit(data, method="binormal", draws=200, chains=2, tune=300, random_seed=42,
                      priors={"mu_pos": Normal(5.0, 0.05), "prevalence": bcm.Fixed(0.25)})
    post = idata["posterior"]
    assert abs(float(post["mu_pos"].mean()) - 5.0) < 0.1  # the data alone say about 1
    assert np.all(post["prevalence"].values == 0.25)
    assert float(idata["constant_data"]["prevalence"]) == 0.25
    stored = read_json_attr(idata, "priors")
    assert prior_from_dict(stored["mu_pos"]) == Normal(5.0, 0.05)
    assert stored["sigma_pos"]["dist"] == "HalfNormal"  # the data-scaled default is recorded


def test_unknown_or_misplaced_prior_keys_list_the_valid_ones():
    y, s = binormal_scores(40, 1.0, seed=43)
    data = bcm.Scores(y, s)
    with pytest.raises(TypeError, match="valid keys: mu_pos, sigma_pos, mu_neg, sigma_neg"):
        bcm.fit(data, method="binormal", priors={"alpha_pos": LogNormal(0, 1)})
    with pytest.raises(TypeError, match=r"\['spread'\] are not parameters.*valid keys"):
        bcm.fit(data, method="binormal", priors={"spread": HalfNormal(1)})
    with pytest.raises(TypeError, match="must make its own variable"):
        bcm.fit(data, method="binormal", priors={"sigma_pos": 2.0})
    with pytest.raises(ValueError, match="no parameter priors"):
        bcm.fit(data, priors={"mu_pos": Normal(0, 1)})  # the bootstrap has none
    with pytest.raises(ValueError, match="must be > 0"):
        HalfNormal(0.0)
    assert prior_from_dict(LogNormal(0.5, [1.0, 2.0]).to_dict()) == LogNormal(0.5, (1.0, 2.0))


def test_bibeta_refuses_scores_outside_the_unit_interval():
    y, s = binormal_scores(40, 1.0, seed=44)
    with pytest.raises(ScoreRangeError, match="classifier 'A' has scores from"):
        bcm.fit(bcm.Scores(y, s), method="bibeta")
    assert issubclass(ScoreRangeError, ValueError)
    edge = np.clip(special.expit(s), 0.05, 0.95)
    edge[:3] = [0.0, 1.0, 0.0]
    with pytest.warns(UserWarning, match="3 scores are exactly 0 or 1"):
        model = build_parametric_model(bcm.Scores(y, edge), "bibeta")
    assert np.isfinite(model.compile_logp()(model.initial_point()))


# ------------------------------------------------------------------ the result tree
@pytest.mark.slow  # a NUTS fit
def test_layout_matches_the_bootstrap(two_binormal, one_bibeta, tmp_path):
    for data, idata in (two_binormal, one_bibeta):
        method = idata.attrs["method"]
        boot = bcm.fit(data, draws=20, random_seed=0)
        post, ref = idata["posterior"], boot["posterior"]
        shared = set(post.data_vars) & set(ref.data_vars)
        assert set(ref.data_vars) - shared == LEFT_OUT[method]
        params = {"binormal": {"mu_pos", "sigma_pos", "mu_neg", "sigma_neg"},
                  "bibeta": {"alpha_pos", "beta_pos", "alpha_neg", "beta_neg"}}[method]
        assert set(post.data_vars) - shared == params
        for name in shared:
            assert post[name].dims == ref[name].dims, name
        for dim in ("fpr", "recall"):
            np.testing.assert_array_equal(post[dim].values, ref[dim].values)
        assert idata.attrs["model"] == "scores" and "left out" in idata.attrs["note"]
        assert {"sample_stats", "diagnostics", "observed_metrics", "observed_data"} <= set(
            idata.children)
        diag = idata["diagnostics"]
        assert list(diag["diagnostic"].values) == ["r_hat", "ess_bulk"]
        assert set(diag.data_vars) <= set(post.data_vars) and "auc" in diag.data_vars
        observed = idata["observed_metrics"]
        assert set(observed.data_vars) <= set(post.data_vars)
        np.testing.assert_array_equal(observed["auc"].values,
                                      boot["observed_metrics"]["auc"].values)
        loaded = bcm.load(bcm.save(idata, tmp_path / f"{method}.nc"))
        assert loaded.attrs["method"] == method
        assert len(bcm.summary(loaded, var_names=["auc"])) >= 1


@pytest.mark.slow  # a NUTS fit
def test_summary_and_prob_superior(two_binormal):
    _, idata = two_binormal
    table = bcm.summary(idata, var_names=["auc", "mu_pos", "tpr"])
    assert {"auc[A]", "auc[B]", "mu_pos[A]", "tpr[B]"} <= set(table.index)
    assert table.loc["auc[B]", "r_hat"] < 1.05
    assert table.loc["mu_pos[A]", "observed"] == pytest.approx(
        float(np.mean(idata["observed_data"]["scores"].sel(classifier="A").values[
            idata["observed_data"]["y"].values == 1])))
    p = bcm.prob_superior(idata, "B", "A", metric="auc")
    auc = idata["posterior"]["auc"]
    diff = (auc.sel(classifier="B") - auc.sel(classifier="A")).values.ravel()
    assert p == pytest.approx(float(np.mean(diff > 0)))
    assert p > 0.9


# ------------------------------------------------------------------ calibration (slow)
SBC_PRIORS = {"mu_pos": Normal(0.5, 1.0), "mu_neg": Normal(-0.5, 1.0),
              "sigma_pos": HalfNormal(1.0), "sigma_neg": HalfNormal(1.0),
              "prevalence": bcm.Beta(4, 4)}


def _sbc_pvalues(fit_priors: dict, fits: int, seed: int, k: int = 50, n: int = 80
                 ) -> dict[str, float]:
    """Chi-square p-values of the ranks of the truths among 100 thinned posterior draws.

    Truths come from :data:`SBC_PRIORS` (fixed priors, not the data-scaled defaults); one fit
    holds ``k`` simulated classifiers on the same labels, whose parameters are independent a
    priori and in the likelihood, so each classifier is one simulation.
    """
    ranks: dict[str, list[np.ndarray]] = {}
    for f in range(fits):
        rng = np.random.default_rng(seed + f)
        y = rng.random(n) < rng.beta(4, 4)
        truth = {"mu_pos": rng.normal(0.5, 1.0, k), "mu_neg": rng.normal(-0.5, 1.0, k),
                 "sigma_pos": np.abs(rng.normal(0, 1.0, k)),
                 "sigma_neg": np.abs(rng.normal(0, 1.0, k))}
        z = rng.normal(size=(k, n))
        scores = np.where(y, truth["mu_pos"][:, None] + truth["sigma_pos"][:, None] * z,
                          truth["mu_neg"][:, None] + truth["sigma_neg"][:, None] * z)
        truth["auc"] = special.ndtr((truth["mu_pos"] - truth["mu_neg"]) / np.hypot(
            truth["sigma_pos"], truth["sigma_neg"]))
        data = bcm.Scores(y, {f"c{i}": scores[i] for i in range(k)}, positive=True)
        idata = quiet_fit(data, method="binormal", priors=fit_priors, draws=500, chains=2,
                          tune=500, metrics=["acc"], grid_size=11, random_seed=seed + 100 + f)
        for name, value in truth.items():
            post = idata["posterior"][name].transpose("chain", "draw", "classifier").values
            kept = post.reshape(-1, k)[::10]  # 100 nearly independent draws
            ranks.setdefault(name, []).append((kept < value[None, :]).sum(axis=0))
    return {name: float(stats.chisquare(np.bincount(np.concatenate(parts) * 10 // 101,
                                                    minlength=10)).pvalue)
            for name, parts in ranks.items()}


@pytest.mark.slow
def test_binormal_sbc_ranks_uniform():
    """Simulation-based calibration (Talts et al. 2018) of the binormal model through bcm.fit:
    400 simulations; and the check has power: a prior unlike the simulating one fails it.

    The power check is a clear miss, not a marginal one: the wrong prior (mean 1.5 against the
    truths' 0.5, a third of their spread) gave p-values of 1e-20 to 1e-36 over seeds, so
    another CPU's chains cannot lift it to the threshold (the milder misfit tried before gave
    0.0003-0.008 and failed on another machine)."""
    pvalues = _sbc_pvalues(SBC_PRIORS, fits=8, seed=500)
    assert min(pvalues.values()) > 1e-3, pvalues
    wrong = {**SBC_PRIORS, "mu_pos": Normal(1.5, 0.3), "sigma_neg": HalfNormal(0.3)}
    assert min(_sbc_pvalues(wrong, fits=2, seed=900).values()) < 1e-6
