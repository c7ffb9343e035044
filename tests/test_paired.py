"""Paired comparisons on one test set: joint Dirichlet model vs closed forms, fits and bootstrap."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import bayescm as bcm
from bayescm.analyses.frequentist import bootstrap
from bayescm.comparisons.paired import compare_paired, compare_paired_counts, comparison_table
from bayescm.comparisons.superiority import prob_superior

N = 1000


def simulate(both_right, only_a, only_b, seed=0):
    """Labels and two prediction vectors with exactly the given agreement counts (binary)."""
    rng = np.random.default_rng(seed)
    n = both_right + only_a + only_b + (N - both_right - only_a - only_b)
    y = rng.integers(0, 2, size=n)
    cell = np.repeat([0, 1, 2, 3], [both_right, only_a, only_b, n - both_right - only_a - only_b])
    cell = rng.permutation(cell)
    a_right = (cell == 0) | (cell == 1)
    b_right = (cell == 0) | (cell == 2)
    a = np.where(a_right, y, 1 - y)
    b = np.where(b_right, y, 1 - y)
    return y, a, b


def equal_tailed(x, prob=0.95):
    return np.quantile(np.ravel(x), [(1 - prob) / 2, (1 + prob) / 2])


@pytest.fixture(scope="module")
def correlated():
    # A 75 % and B 78 % accurate, failing mostly on the same samples
    y, a, b = simulate(740, 10, 40)
    res = compare_paired(y, a, b, metrics=["acc", "err", "tpr", "bias"], positive=1,
                         random_seed=1)
    return y, a, b, res


def test_simulation_has_the_requested_accuracies(correlated):
    y, a, b, _ = correlated
    assert (a == y).mean() == 0.75
    assert (b == y).mean() == 0.78
    assert np.corrcoef(a == y, b == y)[0, 1] > 0.8


def test_layout(correlated):
    *_, res = correlated
    post = res["posterior"]
    assert post["acc"].dims == ("chain", "draw", "classifier")
    assert post["classifier"].values.tolist() == ["A", "B"]
    assert post["acc_diff"].dims == ("chain", "draw")
    assert post["theta"].dims == ("chain", "draw", "classifier", "true_class", "pred_class")
    assert post["cells"].dims == ("chain", "draw", "true_class", "pred_a", "pred_b")
    assert res["observed_data"]["counts"].values.sum() == N
    assert res["observed_metrics"]["acc"].values.tolist() == [0.75, 0.78]
    table = comparison_table(res)
    np.testing.assert_allclose(table[["p_a_better", "p_rope", "p_b_better"]]
                               .drop(index="bias").sum(axis=1), 1.0)
    # descriptive metric: no "better", only the rope probability
    assert np.isnan(table.loc["bias", "p_a_better"])
    summary = bcm.summary(res, var_names=["acc", "acc_diff"])
    assert list(summary.index) == ["acc[A]", "acc[B]", "acc_diff"]


def test_paired_interval_excludes_zero_independent_does_not(correlated):
    y, a, b, res = correlated
    lo, hi = equal_tailed(res["posterior"]["acc_diff"])
    assert hi < 0  # B is better, and the paired model sees it
    cm_a = bcm.ConfusionMatrix.from_predictions(y, a, positive=1)
    cm_b = bcm.ConfusionMatrix.from_predictions(y, b, positive=1)
    fit_a = bcm.fit(cm_a, metrics=["acc"], random_seed=21)
    fit_b = bcm.fit(cm_b, metrics=["acc"], random_seed=22)
    diff = fit_a["posterior"]["acc"].values - fit_b["posterior"]["acc"].values
    ind_lo, ind_hi = equal_tailed(diff)
    assert ind_lo < 0 < ind_hi
    assert (ind_hi - ind_lo) > 2.5 * (hi - lo)


def test_paired_agrees_with_joint_bootstrap(correlated):
    y, a, b, res = correlated
    boot = bootstrap(y, a, b, "acc", n_boot=20_000, paired=True, random_seed=3)
    b_lo, b_hi = boot.interval
    lo, hi = equal_tailed(res["posterior"]["acc_diff"])
    # Monte Carlo error of the 2.5 % / 97.5 % quantiles (20,000 draws each, sd about 0.006)
    # plus the 1/N step of the bootstrap distribution
    sd = float(res["posterior"]["acc_diff"].std())
    tol = 4 * np.sqrt(2) * np.sqrt(0.025 * 0.975 / 20_000) / stats.norm.pdf(1.96) * sd + 1 / N
    assert abs(lo - b_lo) < tol
    assert abs(hi - b_hi) < tol
    assert boot.table.loc["A - B", "se"] == pytest.approx(sd, rel=0.05)


def test_uncorrelated_classifiers_paired_and_independent_agree():
    # independent errors: A wrong on 250, B wrong on 220, overlap 55 = 250 * 220 / 1000
    y, a, b = simulate(1000 - 250 - 220 + 55, 220 - 55, 250 - 55, seed=4)
    assert np.corrcoef(a == y, b == y)[0, 1] == pytest.approx(0.0, abs=0.01)
    res = compare_paired(y, a, b, metrics=["acc"], positive=1, random_seed=5)
    lo, hi = equal_tailed(res["posterior"]["acc_diff"])
    fit_a = bcm.fit(bcm.ConfusionMatrix.from_predictions(y, a, positive=1), metrics=["acc"],
                    random_seed=6)
    fit_b = bcm.fit(bcm.ConfusionMatrix.from_predictions(y, b, positive=1), metrics=["acc"],
                    random_seed=7)
    ind_lo, ind_hi = equal_tailed(fit_a["posterior"]["acc"].values
                                  - fit_b["posterior"]["acc"].values)
    assert (hi - lo) == pytest.approx(ind_hi - ind_lo, rel=0.06)
    assert lo == pytest.approx(ind_lo, abs=0.004)
    assert hi == pytest.approx(ind_hi, abs=0.004)
    joint = bootstrap(y, a, b, "acc", n_boot=20_000, random_seed=8).interval
    indep = bootstrap(y, a, b, "acc", n_boot=20_000, paired=False, random_seed=8).interval
    np.testing.assert_allclose(joint, indep, atol=0.004)
    np.testing.assert_allclose(joint, (lo, hi), atol=0.004)


def test_accuracy_difference_closed_form(correlated):
    """Aggregation: the discordant cells' share has a Beta law, so P(A better) is closed form."""
    *_, res = correlated
    # Laplace (alpha = 1) on 8 cells: each discordant group aggregates two cells (+2 each)
    expected = stats.beta(10 + 2, 40 + 2).sf(0.5)
    table = comparison_table(res)
    assert table.loc["acc", "p_a_better"] == pytest.approx(expected, abs=0.002)
    # error rate: lower is better, the same event
    assert table.loc["err", "p_a_better"] == table.loc["acc", "p_a_better"]
    # prob_superior pairs the joint draws and gives the same number
    assert prob_superior(res, "A", "B", metric="acc") == pytest.approx(
        table.loc["acc", "p_a_better"], abs=1e-12)


def test_marginal_tpr_is_beta(correlated):
    """Default: A's TPR is fit's Laplace posterior Beta(TP + 1, FN + 1); with one Dirichlet(1)
    over the 8 cells theta_A ~ Dirichlet(counts_A + 2), so TPR_A ~ Beta(TP + 2, FN + 2)."""
    y, a, b, res = correlated
    cm = bcm.ConfusionMatrix.from_predictions(y, a, positive=1).cells
    tpr = res["posterior"]["tpr"].sel(classifier="A").values.ravel()
    assert stats.kstest(tpr, stats.beta(cm["tp"] + 1, cm["fn"] + 1).cdf).pvalue > 1e-3
    cells = compare_paired(y, a, b, metrics=["tpr"], positive=1, prior=bcm.Dirichlet(1.0),
                           random_seed=9)
    tpr = cells["posterior"]["tpr"].sel(classifier="A").values.ravel()
    assert stats.kstest(tpr, stats.beta(cm["tp"] + 2, cm["fn"] + 2).cdf).pvalue > 1e-3


def test_counts_version_closed_form():
    res = compare_paired_counts(740, 10, 40, 210, rope=0.0, random_seed=2)
    table = comparison_table(res)
    assert table.loc["acc", "p_a_better"] == pytest.approx(stats.beta(11, 41).sf(0.5), abs=0.002)
    acc_a = res["posterior"]["acc"].sel(classifier="A").values.ravel()
    assert stats.kstest(acc_a, stats.beta(740 + 10 + 2, 40 + 210 + 2).cdf).pvalue > 1e-3
    diff = res["posterior"]["acc_diff"].values
    cells = res["posterior"]["cells"].values
    np.testing.assert_allclose(diff, cells[..., 1] - cells[..., 2], atol=1e-12)


def test_rope_probabilities():
    res = compare_paired_counts(740, 10, 40, 210, rope=0.02, random_seed=2)
    table = comparison_table(res)
    diff = res["posterior"]["acc_diff"].values
    assert table.loc["acc", "p_rope"] == pytest.approx(np.mean(np.abs(diff) <= 0.02))
    assert table.loc["acc", "p_b_better"] == pytest.approx(np.mean(diff < -0.02))
    assert table[["p_a_better", "p_rope", "p_b_better"]].sum(axis=1).iloc[0] == pytest.approx(1)


def test_paired_bad_inputs():
    y, a, b = simulate(740, 10, 40)
    with pytest.raises(ValueError, match="y_true has 1000 labels but pred_b has 999"):
        compare_paired(y, a, b[:-1], positive=1)
    with pytest.raises(ValueError, match="Unknown binary metric 'nonsense'"):
        compare_paired(y, a, b, metrics=["nonsense"], positive=1)
    with pytest.raises(ValueError, match="positive=5 is not among the classes"):
        compare_paired(y, a, b, positive=5)
    with pytest.raises(ValueError, match="rope must be a finite number >= 0"):
        compare_paired(y, a, b, metrics="acc", positive=1, rope=-0.1)
    y0, a0, b0 = simulate(740, 0, 40)  # no sample where only A is right: empty cells
    with pytest.raises(ValueError, match=r"posterior is improper.*prior='weak'"):
        compare_paired(y0, a0, b0, metrics="acc", positive=1, prior="haldane")
    with pytest.raises(ValueError, match="non-negative count"):
        compare_paired_counts(1, -2, 3, 4)
    with pytest.raises(TypeError, match="prior for one proportion"):
        compare_paired(y, a, b, metrics="acc", positive=1, prior=bcm.Beta(2, 3))


def test_multiclass_paired_closed_form():
    """Three classes: P(A better in accuracy) from the aggregated discordant cells."""
    rng = np.random.default_rng(12)
    y = rng.integers(0, 3, size=600)
    a_right = rng.random(600) < 0.8
    b_right = np.where(a_right, rng.random(600) < 0.95, rng.random(600) < 0.3)
    a = np.where(a_right, y, (y + 1) % 3)
    b = np.where(b_right, y, (y + 2) % 3)
    res = compare_paired(y, a, b, metrics=["acc", "kappa", "f1_macro"], random_seed=3,
                         prior=bcm.Dirichlet(1.0))  # one Dirichlet(1) over the 27 cells
    assert res.attrs["model"] == "paired" and res.attrs["family"] == "multiclass"
    n_a = int(np.sum(a_right & ~b_right))
    n_b = int(np.sum(b_right & ~a_right))
    # 6 cells (k, k, m != k) carry "only A right", 6 carry "only B right" (alpha = 1 each)
    expected = stats.beta(n_a + 6, n_b + 6).sf(0.5)
    table = comparison_table(res)
    assert table.loc["acc", "p_a_better"] == pytest.approx(expected, abs=0.005)
    assert res["observed_metrics"]["acc"].values.tolist() == [np.mean(a == y), np.mean(b == y)]
    with pytest.raises(ValueError, match=r"Per-class metrics.*f1_macro"):
        compare_paired(y, a, b, metrics=["f1"])
    with pytest.raises(ValueError, match="need ordered classes; pass ordered=True"):
        compare_paired(y, a, b, metrics=["kappa_linear"])
    default = compare_paired(y, a, b, draws=200, random_seed=1)
    assert "kappa_linear" not in default["posterior"]
    assert "kappa_linear" in compare_paired(y, a, b, ordered=True, draws=200)["posterior"]


def test_unbounded_metrics_do_not_warn():
    """With FP = 0 the observed LR+ is +inf for both; the difference is NaN, silently."""
    y = np.repeat([0, 1], 50)
    a = y.copy()
    a[50:55] = 0  # only false negatives
    b = y.copy()
    b[50:59] = 0
    res = compare_paired(y, a, b, metrics=["lr_plus", "acc"], positive=1, random_seed=0)
    assert np.isnan(res["observed_metrics"]["lr_plus_diff"].item())
    assert np.isfinite(res["posterior"]["lr_plus_diff"].values).all()



@pytest.mark.parametrize("prior", [None, "laplace", "jeffreys", "flat"])
@pytest.mark.parametrize("k", [2, 4])
def test_paired_margins_are_the_fit_of_each_classifier(prior, k):
    """Each classifier's marginal posterior equals fit on its own matrix under the same prior."""
    rng = np.random.default_rng(k)
    y = rng.integers(0, k, size=400)
    a = np.where(rng.random(400) < 0.8, y, rng.integers(0, k, size=400))
    b = np.where(rng.random(400) < 0.7, a, rng.integers(0, k, size=400))
    positive = 1 if k == 2 else None
    metrics = ["acc", "tpr", "ppv"] if k == 2 else ["acc", "tpr_macro", "kappa"]
    res = compare_paired(y, a, b, metrics=metrics, positive=positive, prior=prior,
                         random_seed=5)
    for name, pred in (("A", a), ("B", b)):
        cm = bcm.ConfusionMatrix.from_predictions(y, pred, labels=list(range(k)),
                                                  positive=positive)
        ref = bcm.fit(cm, prior=prior, metrics=metrics, random_seed=6)
        for m in metrics:
            x = res["posterior"][m].sel(classifier=name).values.ravel()
            r = ref["posterior"][m].values.ravel()
            assert stats.ks_2samp(x, r).pvalue > 1e-3, (name, m)
