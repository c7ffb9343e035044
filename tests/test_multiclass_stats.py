"""Statistical checks of the multiclass model: closed-form marginals, SBC, exact vs NUTS."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import bayescm as bcm
from bayescm.metrics.multiclass import undefined_classes

COUNTS = np.array([[20, 4, 1], [3, 15, 6], [0, 2, 9]])
LABELS = ["a", "b", "c"]
QUANTILES = np.array([0.025, 0.25, 0.5, 0.75, 0.975])


def _agrees_with_beta(draws: np.ndarray, a: float, b: float) -> None:
    """KS test and quantiles within Monte-Carlo error of the closed-form Beta(a, b)."""
    draws = np.asarray(draws).ravel()
    dist = stats.beta(a, b)
    assert stats.kstest(draws, dist.cdf).pvalue > 1e-3
    # quantile standard error ~ sqrt(q (1 - q) / n) / density(x_q)
    x_q = dist.ppf(QUANTILES)
    se = np.sqrt(QUANTILES * (1 - QUANTILES) / draws.size) / dist.pdf(x_q)
    np.testing.assert_array_less(np.abs(np.quantile(draws, QUANTILES) - x_q), 5 * se)


@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_exact_marginals_are_the_closed_form_betas() -> None:
    idata = bcm.fit(bcm.ConfusionMatrix(COUNTS, labels=LABELS), prior="flat", random_seed=1)
    post = idata["posterior"]
    rows, n, k = COUNTS.sum(axis=1), COUNTS.sum(), 3
    for i, label in enumerate(LABELS):
        # prevalence ~ Dirichlet(1 + rows): marginal Beta(1 + n_i, k - 1 + N - n_i)
        _agrees_with_beta(post["prevalence"].sel({"class": label}), 1 + rows[i],
                          k - 1 + n - rows[i])
        for j, pred in enumerate(LABELS):
            # rates[i] ~ Dirichlet(1 + counts[i]): marginal Beta(1 + c_ij, k - 1 + n_i - c_ij)
            _agrees_with_beta(post["rates"].sel(true_class=label, pred_class=pred),
                              1 + COUNTS[i, j], k - 1 + rows[i] - COUNTS[i, j])


@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_theta_cells_are_beta_when_the_priors_aggregate() -> None:
    """prevalence ~ Dir(K b), rates[k] ~ Dir(b) make theta ~ Dirichlet(b + counts) on K^2 cells.

    Then every theta cell is Beta(b + c_ij, K^2 b + N - b - c_ij) and accuracy (a sum of cells)
    is Beta(sum_i (b + c_ii), rest) by the aggregation property.
    """
    b, k, n = 0.5, 3, COUNTS.sum()
    idata = bcm.fit(bcm.ConfusionMatrix(COUNTS, labels=LABELS),
                    priors={"prevalence": bcm.Dirichlet(k * b),
                            "rates": bcm.Dirichlet(b)}, random_seed=2)
    post = idata["posterior"]
    total = k * k * b + n
    for i, label in enumerate(LABELS):
        for j, pred in enumerate(LABELS):
            a_ij = b + COUNTS[i, j]
            _agrees_with_beta(post["theta"].sel(true_class=label, pred_class=pred), a_ij,
                              total - a_ij)
    a_acc = k * b + np.trace(COUNTS)
    _agrees_with_beta(post["acc"], a_acc, total - a_acc)


def test_haldane_posterior_is_dirichlet_of_the_counts() -> None:
    """With Haldane priors on everything theta ~ Dirichlet(counts) (all counts positive)."""
    counts = COUNTS + 1
    post = bcm.fit(bcm.ConfusionMatrix(counts), prior="haldane", random_seed=4)["posterior"]
    n = counts.sum()
    _agrees_with_beta(post["theta"].values[..., 1, 2], counts[1, 2], n - counts[1, 2])
    _agrees_with_beta(post["acc"], np.trace(counts), n - np.trace(counts))


def _macro_over_present(theta: np.ndarray, present: np.ndarray) -> np.ndarray:
    from bayescm.metrics.multiclass import OneVsRest

    f1 = OneVsRest(theta).per_class("f1")
    return np.nanmean(np.where(present, f1, np.nan), axis=-1)


@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_simulation_based_calibration_k3() -> None:
    """Ranks of true parameters among posterior draws are uniform (Talts et al. 2018)."""
    rng = np.random.default_rng(2024)
    reps, k, n, draws = 1000, 3, 40, 99
    prevalence = rng.dirichlet(np.ones(k), size=reps)
    rates = rng.dirichlet(np.ones(k), size=(reps, k))
    theta = prevalence[:, :, None] * rates
    counts = np.stack([rng.multinomial(n, t.ravel()).reshape(k, k) for t in theta])
    data = {str(r): bcm.ConfusionMatrix(c) for r, c in enumerate(counts)}
    idata = bcm.fit(data, prior="flat", random_seed=7, chains=1, draws=draws,
                    metrics=["kappa", "f1_macro", "acc"])  # the prior the truths came from
    post = idata["posterior"]
    truths = {
        "prevalence": prevalence,
        "rates": rates.reshape(reps, -1),
        "kappa": bcm.metrics.catalogue_for("multiclass")["kappa"](theta)[:, None],
        # macro averages cover the classes whose F1 is defined at the observed counts (as
        # the observed value must), so the truth of each study averages over the same classes
        "f1_macro": _macro_over_present(theta, ~undefined_classes(counts).get(
            "f1", np.zeros(counts.shape[:2], bool)))[:, None],
        "acc": np.trace(theta, axis1=1, axis2=2)[:, None],
    }
    pvalues = []
    for name, truth in truths.items():
        sample = post[name].values[0].reshape(draws, reps, -1)  # (draw, classifier, component)
        ranks = (sample < truth[None]).sum(axis=0)  # 0 .. draws, uniform under calibration
        for comp in range(ranks.shape[1]):
            observed = np.bincount(ranks[:, comp] // 10, minlength=10)
            pvalues.append(stats.chisquare(observed).pvalue)
    # 3 + 9 + 3 = 15 tests: Bonferroni at 1 %
    assert min(pvalues) > 0.01 / len(pvalues), pvalues
    # and the test has power: shifting the truth a little breaks calibration
    shifted = (post["acc"].values[0] < (truths["acc"][:, 0] + 0.05)[None]).sum(axis=0)
    assert stats.chisquare(np.bincount(shifted // 10, minlength=10)).pvalue < 1e-6


def _assert_nuts_matches_exact(nuts, exact, names: list[str]) -> None:
    for name in names:
        a, b = nuts["posterior"][name], exact["posterior"][name]
        ess = nuts["diagnostics"][name].sel(diagnostic="ess_bulk")
        assert float(nuts["diagnostics"][name].sel(diagnostic="r_hat").max()) < 1.02, name
        diff = np.abs(a.mean(("chain", "draw")) - b.mean(("chain", "draw")))
        se = np.sqrt(a.var(("chain", "draw")) / ess + b.var(("chain", "draw")) / b.size)
        assert bool((diff < 5 * se).all()), (name, diff.values, se.values)
        ratio = a.std(("chain", "draw")) / b.std(("chain", "draw"))
        assert bool(((ratio > 0.9) & (ratio < 1.1)).all()), (name, ratio.values)


@pytest.mark.slow
def test_exact_and_nuts_agree_k3() -> None:
    cm = bcm.ConfusionMatrix(COUNTS, labels=LABELS, ordered=True)
    names = ["prevalence", "rates", "acc", "kappa", "mcc", "f1_macro", "kappa_quadratic"]
    exact = bcm.fit(cm, random_seed=1, metrics=names[2:])
    nuts = bcm.fit(cm, method="nuts", random_seed=1, draws=1000, chains=2, tune=1000,
                   metrics=names[2:])
    assert nuts.attrs["method"] == "nuts"
    _assert_nuts_matches_exact(nuts, exact, names)


@pytest.mark.slow
def test_haldane_and_fixed_prevalence_nuts_agree_with_exact() -> None:
    cm = bcm.ConfusionMatrix(COUNTS + 1, labels=LABELS)
    kwargs = {"prior": "haldane", "prevalence": bcm.Fixed([0.5, 0.3, 0.2]),
              "metrics": ["acc", "kappa"]}
    exact = bcm.fit(cm, random_seed=2, **kwargs)
    nuts = bcm.fit(cm, method="nuts", random_seed=2, draws=1000, chains=2, tune=1000, **kwargs)
    _assert_nuts_matches_exact(nuts, exact, ["rates", "acc", "kappa"])


@pytest.mark.slow
def test_custom_create_variable_prior_uses_nuts() -> None:
    from pymc_extras.prior import Prior

    cm = bcm.ConfusionMatrix(COUNTS, labels=LABELS)
    custom = Prior("Dirichlet", a=np.full(3, 2.0), dims="class")
    nuts = bcm.fit(cm, priors={"prevalence": custom}, random_seed=3, draws=1000, chains=2,
                   tune=1000,
                   metrics=["acc"])
    assert nuts.attrs["method"] == "nuts"
    exact = bcm.fit(cm, priors={"prevalence": bcm.Dirichlet(2.0)}, random_seed=3, metrics=["acc"])
    _assert_nuts_matches_exact(nuts, exact, ["prevalence", "acc"])
