"""Scored items: validation, agreement with scikit-learn, DeLong, Haldane equivalence, bands."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import (
    average_precision_score,
    brier_score_loss,
    log_loss,
    roc_auc_score,
)

import bayescm as bcm
from bayescm.models.roc import curve_bands
from bayescm.models.roc_dp import CONCENTRATION


def binormal(n: int, d: float, prevalence: float = 0.4, seed: int = 0
             ) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.random(n) < prevalence
    return y, rng.normal(size=n) + d * y


def delong_interval(y: np.ndarray, s: np.ndarray, prob: float = 0.95) -> tuple[float, float]:
    """DeLong et al. (1988): AUC and its variance from the structural components."""
    pos, neg = s[y], s[~y]
    psi = (pos[:, None] > neg[None, :]) + 0.5 * (pos[:, None] == neg[None, :])
    auc = psi.mean()
    v10, v01 = psi.mean(axis=1), psi.mean(axis=0)
    var = v10.var(ddof=1) / pos.size + v01.var(ddof=1) / neg.size
    z = stats.norm.ppf(0.5 + prob / 2)
    return auc - z * np.sqrt(var), auc + z * np.sqrt(var)


@pytest.mark.parametrize(
    ("y", "scores", "kwargs", "exc", "match"),
    [
        ([1, 0, 1], [0.1, np.nan, 0.3], {}, ValueError, "finite"),
        ([1, 0, 1], [0.1, np.inf, 0.3], {}, ValueError, "finite"),
        ([1, 1, 1], [0.1, 0.2, 0.3], {}, ValueError, "two classes"),
        ([1, 0, 1], [0.1, 0.2], {}, ValueError, "entries but y_true has 3"),
        ([1, 0, 1], ["a", "b", "c"], {}, TypeError, "real numbers"),
        ([1, 0, 1], [True, False, True], {}, TypeError, "real numbers"),
        (["a", "b", "a"], [0.1, 0.2, 0.3], {}, ValueError, "positive="),
        (["a", "b", "a"], [0.1, 0.2, 0.3], {"positive": "c"}, ValueError, "not one of"),
        ([1, None, 1], [0.1, 0.2, 0.3], {}, ValueError, "missing"),
        ([1, 0], {"A": [0.1, 0.2], "B": [0.3]}, {}, ValueError, "same items"),
        ([1, 0], {}, {}, ValueError, "empty"),
        ([1, 0], "0.1 0.2", {}, TypeError, "string"),
        ([1, 0], np.ma.array([0.1, 0.2], mask=[0, 1]), {}, ValueError, "masked"),
    ],
)
def test_scores_validation(y, scores, kwargs, exc, match):
    with pytest.raises(exc, match=match):
        bcm.Scores(y, scores, **kwargs)


def test_scores_travel_and_csv(tmp_path):
    s = bcm.Scores(["p", "n", "p"], {"A": [0.9, 0.2, 0.4], "B": [0.5, 0.6, 0.7]}, positive="p")
    assert pickle.loads(pickle.dumps(s)) == s
    path = tmp_path / "s.csv"
    path.write_text("y,A,B\np,0.9,0.5\nn,0.2,0.6\np,0.4,0.7\n")
    assert bcm.Scores.from_csv(path, label="y", score=["A", "B"], positive="p") == s
    path.write_text("y,A\np,0.9\nn,x\n")
    with pytest.raises(ValueError, match="line 3, column 'A'"):
        bcm.Scores.from_csv(path, label="y", score="A", positive="p")


def test_observed_values_equal_scikit_learn_with_ties():
    rng = np.random.default_rng(3)
    y = rng.random(400) < 0.3
    s = np.round(1 / (1 + np.exp(-(rng.normal(size=400) + y))), 1)  # many ties
    idata = bcm.fit(bcm.Scores(y, s), draws=200, random_seed=0)
    obs = idata["observed_metrics"]
    assert float(obs["auc"]) == pytest.approx(roc_auc_score(y, s), abs=1e-12)
    assert float(obs["average_precision"]) == pytest.approx(average_precision_score(y, s),
                                                            abs=1e-12)
    assert float(obs["brier"]) == pytest.approx(brier_score_loss(y, s), abs=1e-12)
    assert float(obs["log_loss"]) == pytest.approx(log_loss(y, s), abs=1e-9)
    # the thresholded catalogue at the observed items: proportions, as bcm.fit's observed
    pred = s >= 0.5
    assert float(obs["acc"]) == pytest.approx(np.mean(pred == y), abs=1e-12)
    assert float(obs["prevalence"]) == pytest.approx(np.mean(y), abs=1e-12)
    assert float(obs["tpr"]) == pytest.approx(np.mean(pred[y]), abs=1e-12)
    assert float(obs["bias"]) == pytest.approx(np.mean(pred), abs=1e-12)


@pytest.mark.parametrize("method", ["bootstrap", "dirichlet_process"])
def test_auc_posterior_agrees_with_sklearn_and_delong(method):
    y, s = binormal(300, 1.2, seed=1)
    idata = bcm.fit(bcm.Scores(y, s), random_seed=2, method=method)
    auc = idata["posterior"]["auc"].values.ravel()
    sd = auc.std()
    sample = roc_auc_score(y, s)
    if method == "bootstrap":  # centred on the sample AUC
        centre = sample
    else:  # E = 1/2 + (sample - 1/2) n+ n- / ((n+ + c)(n- + c)): the novel items' pull
        n_pos, n_neg, c = int(y.sum()), int((~y).sum()), CONCENTRATION
        centre = 0.5 + (sample - 0.5) * n_pos * n_neg / ((n_pos + c) * (n_neg + c))
    # up to a small fraction of its sd (the Monte-Carlo error is a sixtieth of it)
    assert abs(auc.mean() - centre) < 0.1 * sd
    lo, hi = bcm.summary(idata, var_names=["auc"]).loc["auc", ["hdi_lower", "hdi_upper"]]
    d_lo, d_hi = delong_interval(y, s)
    assert abs(lo - d_lo) < 0.02
    assert abs(hi - d_hi) < 0.02


def test_threshold_metrics_are_the_haldane_fit():
    """At a threshold the bootstrap's four cells are Dirichlet(TP, FN, FP, TN): Haldane."""
    y, s = binormal(200, 1.0, seed=4)
    idata = bcm.fit(bcm.Scores(y, s), metrics=["tpr", "ppv", "acc"], threshold=0.4,
                    random_seed=5, method="bootstrap")
    counts = idata["observed_data"]["counts"].values
    cm = bcm.ConfusionMatrix(counts, labels=["pos", "neg"], positive="pos")
    ref = bcm.fit(cm, prior="haldane", metrics=["tpr", "ppv", "acc"], random_seed=6)
    for m in ("tpr", "ppv", "acc"):
        a = idata["posterior"][m].values.ravel()
        b = ref["posterior"][m].values.ravel()
        assert stats.ks_2samp(a, b).pvalue > 1e-3, m


def test_threshold_cells_of_the_default_add_half_the_concentration_not_haldane():
    """The default's cells are Dirichlet(TP + c/2, FN + c/2, FP + c/2, TN + c/2) exactly, with c
    the Dirichlet process's concentration (1.25: 5/8 per cell, between Jeffreys' 1/2 and
    Laplace's 1); the bootstrap's are Haldane's Dirichlet(TP, FN, FP, TN)."""
    half = CONCENTRATION / 2
    rng = np.random.default_rng(18)
    y = np.r_[np.ones(12, bool), np.zeros(30, bool)]
    s = np.r_[rng.normal(2.0, 0.3, 11), -1.0, rng.normal(0, 1, 30)]  # FN = 1 at threshold 0
    idata = bcm.fit(bcm.Scores(y, s), metrics=["tpr", "tnr", "prevalence"], threshold=0.0,
                    draws=2000, random_seed=19)
    (tp, fn), (fp, tn) = idata["observed_data"]["counts"].values.tolist()
    assert fn == 1
    post = {m: idata["posterior"][m].values.ravel() for m in ("tpr", "tnr", "prevalence")}
    exact = {"tpr": (tp + half, fn + half), "tnr": (tn + half, fp + half),
             "prevalence": (tp + fn + 2 * half, fp + tn + 2 * half)}
    for m, (a, b) in exact.items():
        assert stats.kstest(post[m], stats.beta(a, b).cdf).pvalue > 1e-3, m
    # the bootstrap's Haldane Beta(TP, FN) = Beta(11, 1) is another distribution
    assert stats.kstest(post["tpr"], stats.beta(tp, fn).cdf).pvalue < 1e-6
    # jointly: the binary model with Beta(c/2, c/2) on TPR and TNR and Beta(c, c) on the
    # prevalence (NPV and informedness mix the cells; the bootstrap's differ with p < 1e-40)
    cm = bcm.ConfusionMatrix(idata["observed_data"]["counts"].values, labels=["p", "n"],
                             positive="p")
    ref = bcm.fit(cm, priors={"tpr": bcm.Beta(half, half), "tnr": bcm.Beta(half, half),
                              "prevalence": bcm.Beta(2 * half, 2 * half)},
                  metrics=["npv", "bm"], random_seed=26)
    dp = bcm.fit(bcm.Scores(y, s), metrics=["npv", "bm"], threshold=0.0, random_seed=27)
    for m in ("npv", "bm"):
        assert stats.ks_2samp(dp["posterior"][m].values.ravel(),
                              ref["posterior"][m].values.ravel()).pvalue > 1e-3, m


def test_separated_classes_get_no_point_mass_at_one():
    """Perfect separation: the bootstrap's AUC is 1 in every draw, the default's never."""
    y = np.r_[np.ones(15, bool), np.zeros(25, bool)]
    s = np.r_[np.linspace(1.0, 2.0, 15), np.linspace(-1.0, 0.5, 25)]
    data = bcm.Scores(y, s)
    boot = bcm.fit(data, method="bootstrap", draws=500, random_seed=20)
    assert np.all(boot["posterior"]["auc"].values == 1.0)
    auc = bcm.fit(data, random_seed=21)["posterior"]["auc"].values.ravel()
    assert auc.max() < 1.0 and np.mean(auc > 0.999) < 0.5
    c = CONCENTRATION  # 1/2 + (1 - 1/2) n+ n- / ((n+ + c)(n- + c))
    expected = 0.5 + 0.5 * 15 * 25 / ((15 + c) * (25 + c))
    assert abs(auc.mean() - expected) < 4 * auc.std() / np.sqrt(auc.size)
    lo = bcm.summary(bcm.fit(data, random_seed=21), var_names=["auc"]).loc["auc", "hdi_lower"]
    assert 0.8 < lo < 0.97  # an interval below 1 of sensible width


@pytest.mark.parametrize("method", ["dirichlet_process", "bootstrap"])
def test_saved_fits_record_their_method_and_refit(method, tmp_path):
    y, s = binormal(60, 1.0, seed=22)
    data = bcm.Scores(np.where(y, "case", "control"), {"old": s, "new": s + y},
                      positive="case")
    tree = bcm.fit(data, method=method, draws=100, chains=2, threshold=0.2, fpr_range=(0, 0.2),
                   grid_size=51, n_bins=5, metrics=["tpr", "ppv"], random_seed=23)
    stored = {"dirichlet_process": "dirichlet_process", "bootstrap": "bayesian_bootstrap"}
    back = bcm.load(bcm.save(tree, tmp_path / "fit.nc"))
    assert back.attrs["method"] == stored[method]
    again = bcm.refit(back)  # the items, options and seed from the tree: the same draws
    assert again.attrs["method"] == stored[method] and again.attrs["positive"] == "case"
    for var in ("auc", "roc", "tpr", "ppv", "reliability"):
        np.testing.assert_array_equal(again["posterior"][var].values,
                                      tree["posterior"][var].values)
    other = bcm.refit(back, draws=30, method="bootstrap" if method != "bootstrap" else
                      "dirichlet_process", random_seed=1)
    assert other.attrs["method"] != stored[method] and other["posterior"].sizes["draw"] == 30
    assert other["posterior"].sizes["fpr"] == 51 and other.attrs["threshold"] == 0.2
    with pytest.raises(ValueError, match="method='dirichlet_process'"):
        bcm.fit(data, method="smoothed")


@pytest.mark.slow
def test_parametric_fit_refits_from_its_tree():
    y, s = binormal(100, 1.5, seed=24)
    tree = bcm.fit(bcm.Scores(y, s), method="binormal", draws=100, chains=2, random_seed=25)
    again = bcm.refit(tree)
    assert again.attrs["method"] == "binormal"
    np.testing.assert_array_equal(again["posterior"]["auc"].values,
                                  tree["posterior"]["auc"].values)


def test_refining_the_grid_adds_no_noise():
    y, s = binormal(150, 1.0, seed=7)
    data = bcm.Scores(y, s)
    coarse = bcm.fit(data, grid_size=11, random_seed=8)
    fine = bcm.fit(data, grid_size=101, random_seed=8)
    at = fine["posterior"]["roc"].sel(fpr=coarse["posterior"]["fpr"].values, method="nearest")
    np.testing.assert_allclose(at.values, coarse["posterior"]["roc"].values, atol=1e-6)
    w_coarse = curve_bands(coarse["posterior"]["roc"].values.reshape(-1, 11), 0.95)
    w_fine = curve_bands(fine["posterior"]["roc"].values.reshape(-1, 101), 0.95)
    width_c = w_coarse["pointwise_upper"] - w_coarse["pointwise_lower"]
    width_f = (w_fine["pointwise_upper"] - w_fine["pointwise_lower"])[::10]
    np.testing.assert_allclose(width_f, width_c, atol=1e-6)
    # the simultaneous band holds a whole curve, so it is wider than the pointwise one
    assert np.all(w_fine["simultaneous_upper"][5:-5] >= w_fine["pointwise_upper"][5:-5] - 1e-9)


def test_paired_auc_is_narrower_than_independent():
    rng = np.random.default_rng(9)
    y, s = binormal(300, 1.0, seed=10)
    s_b = s + rng.normal(scale=0.3, size=s.size)  # a correlated second classifier
    joint = bcm.fit(bcm.Scores(y, {"A": s, "B": s_b}), random_seed=11)
    diff = (joint["posterior"]["auc"].sel(classifier="A")
            - joint["posterior"]["auc"].sel(classifier="B")).values.ravel()
    a = bcm.fit(bcm.Scores(y, s), random_seed=12)["posterior"]["auc"].values.ravel()
    b = bcm.fit(bcm.Scores(y, s_b), random_seed=13)["posterior"]["auc"].values.ravel()
    assert diff.std() < 0.6 * (a - b).std()
    p = bcm.prob_superior(joint, "A", "B", metric="auc")
    assert p == pytest.approx(float(np.mean(diff > 0)))


def test_brier_posterior_mean_is_the_plug_in():
    rng = np.random.default_rng(14)
    p = rng.random(500)
    y = rng.random(500) < p
    idata = bcm.fit(bcm.Scores(y, p), random_seed=15)
    brier = idata["posterior"]["brier"].values.ravel()
    assert abs(brier.mean() - brier_score_loss(y, p)) < 4 * brier.std() / np.sqrt(brier.size)


def test_calibration_bins_of_all_zeros_keep_their_width():
    y = np.r_[np.zeros(50, bool), np.ones(50, bool)]
    s = np.r_[np.full(50, 0.05), np.full(50, 0.95)]  # every low bin is all 0, high all 1
    idata = bcm.fit(bcm.Scores(y, s), random_seed=16)
    rel = idata["posterior"]["reliability"].sel(bin=0).values.ravel()
    lo, hi = np.quantile(rel, [0.025, 0.975])
    assert hi - lo > 0.03  # Beta(1, 51): not collapsed onto 0
    ece, ref = (idata["posterior"][k].values.ravel() for k in ("ece", "ece_reference"))
    assert abs(ece.mean() - ref.mean()) < 3 * ece.std()


def test_scores_fit_options_are_checked():
    y, s = binormal(50, 1.0, seed=17)
    data = bcm.Scores(y, s)
    with pytest.raises(TypeError, match="valid keywords for scores"):
        bcm.fit(data, tune=100)
    with pytest.raises(ValueError, match="no parameter priors"):
        bcm.fit(data, prior="jeffreys")
    with pytest.raises(ValueError, match="fpr_range must be increasing"):
        bcm.fit(data, fpr_range=(0.2, 0.1))
    with pytest.raises(ValueError, match="grid_size must be >= 2"):
        bcm.fit(data, grid_size=1)


@pytest.mark.slow
def test_auc_interval_covers_the_binormal_truth():
    """95 % HDIs of the AUC cover Phi(d / sqrt 2) in 0.93-0.97 of 500 simulated test sets."""
    d = 1.0
    truth = stats.norm.cdf(d / np.sqrt(2))
    hits = 0
    reps = 500
    for i in range(reps):
        y, s = binormal(200, d, prevalence=0.5, seed=1000 + i)
        idata = bcm.fit(bcm.Scores(y, s), draws=500, metrics=["acc"], random_seed=i)
        lo, hi = bcm.summary(idata, var_names=["auc"]).loc["auc", ["hdi_lower", "hdi_upper"]]
        hits += lo <= truth <= hi
    assert 0.93 <= hits / reps <= 0.97


def test_curve_bands_as_data():
    y, s = binormal(300, 1.0, seed=4)
    idata = bcm.fit(bcm.Scores(y, {"A": s, "B": s + np.random.default_rng(0).normal(size=300)}),
                    draws=300, random_seed=0)
    bands = bcm.analyses.curve_bands(idata, "roc", hdi_prob=0.9)
    assert set(bands.dims) == {"classifier", "fpr"} and bands.attrs["hdi_prob"] == 0.9
    roc = idata["posterior"]["roc"].stack(s=("chain", "draw"))
    inside = ((roc >= bands["simultaneous_lower"] - 1e-12)
              & (roc <= bands["simultaneous_upper"] + 1e-12)).all("fpr").mean("s")
    assert np.all(np.abs(inside.values - 0.9) < 0.03)  # whole curves inside: the stated share
    within = ((roc >= bands["pointwise_lower"]) & (roc <= bands["pointwise_upper"])).mean("s")
    assert float(within.sel(fpr=0.3, method="nearest").min()) >= 0.89  # the HDI per grid point
    assert float(bands["c"].min()) > 1.645  # wider than a pointwise normal band
    pr = bcm.analyses.curve_bands(idata, "pr")
    assert "recall" in pr.dims
    with pytest.raises(ValueError, match="curve must be one of"):
        bcm.analyses.curve_bands(idata, "lift")
    with pytest.raises(ValueError, match="scores fit"):
        bcm.analyses.curve_bands(bcm.fit(bcm.ConfusionMatrix.from_counts(tp=5, fn=1, tn=4, fp=2),
                                draws=50, random_seed=0))


def test_the_concentration_study_repeats_the_default_column():
    """benchmarks/coverage_table.md: the auc-concentration section's column at the default's
    concentration re-fits the main table's data sets with the same seeds, so it must repeat the
    default's coverage and misses there case by case (a stale table, or a default changed
    without re-running the study, fails)."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "benchmarks" / "coverage_table.md").read_text(
        encoding="utf-8")

    def rows(section: str) -> list[list[str]]:
        return [[c.strip() for c in line.strip().strip("|").split("|")]
                for line in section.splitlines() if line.startswith("| ")
                and line.split("|")[1].strip() in ("binormal", "exponential", "mixture")]

    main = text.split("### AUC of scores: the Bayesian bootstrap")[1].split("Paired comparison")[0]
    default = {tuple(r[:4]): r[8] for r in rows(main)}  # "0.964 (0.000 / 0.036)"
    study = text.split("<!-- section: auc-concentration -->")[1].split("<!-- end:")[0]
    header = [c.strip() for c in next(line for line in study.splitlines()
                                      if line.startswith("| truth")).strip("| ").split("|")]
    column = header.index(f"concentration {CONCENTRATION:g}")
    checked = 0
    for r in rows(study):
        # "coverage (interval below the truth)" against "coverage (above / below)"
        coverage, below = r[column].replace("(", "").replace(")", "").split()
        main_coverage, _, _, main_below = default[tuple(r[:4])].replace(
            "(", "").replace(")", "").split()
        assert (coverage, below) == (main_coverage, main_below), (r[:4], r[column])
        checked += 1
    assert checked >= 40
