"""Assurance of claims (issue 33): exact sums against brute force, simulation and closed forms.

References computed here, independently of the package: scipy's beta and beta-binomial
distributions summed over every count, a vectorised simulation of test sets with the Beta
posterior from scipy, and Buderer (1996)'s sample size for a sensitivity known to +-W,
``n_pos = z^2 Se (1 - Se) / W^2`` (Acad. Emerg. Med. 3:895-900).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, stats

import bayescm as bcm
from bayescm.analyses.samplesize.claims import Claim, threshold_k, width_bounds

S = bcm.samplesize


def _hdi_width(a: float, b: float, prob: float = 0.95) -> float:
    d = stats.beta(a, b)
    res = optimize.minimize_scalar(lambda t: d.ppf(t + prob) - d.ppf(t), bounds=(0, 1 - prob),
                                   method="bounded", options={"xatol": 1e-12})
    return float(min(d.ppf(res.x + prob) - d.ppf(res.x), d.ppf(prob), 1 - d.ppf(1 - prob)))


@pytest.mark.parametrize(("a0", "b0", "t", "level"), [(1, 1, 0.9, 0.95), (0.5, 0.5, 0.8, 0.9),
                                                       (3, 7, 0.25, 0.99)])
def test_threshold_is_the_first_count_that_establishes(a0, b0, t, level):
    m = np.array([0, 1, 7, 40, 333])
    found = threshold_k(m, a0, b0, t, level, "probability")
    for mm, k in zip(m, found, strict=True):
        ok = stats.beta.sf(t, a0 + np.arange(mm + 1), b0 + mm - np.arange(mm + 1)) >= level
        expected = int(np.argmax(ok)) if ok.any() else mm + 1
        assert k == expected


def test_hdi_criterion_threshold_against_scipy_quantiles():
    # the HDI's lower bound above t: brute force over k with the HDI found by optimisation
    m, t = 60, 0.7
    k = int(threshold_k(np.array([m]), 1.0, 1.0, t, 0.95, "hdi")[0])
    def lower(kk: int) -> float:
        d = stats.beta(1 + kk, 1 + m - kk)
        res = optimize.minimize_scalar(lambda u: d.ppf(u + 0.95) - d.ppf(u), bounds=(0, 0.05),
                                       method="bounded", options={"xatol": 1e-12})
        return float(d.ppf(res.x))
    assert lower(k) > t >= lower(k - 1)


def test_width_bounds_against_brute_force():
    for m, w in [(30, 0.3), (200, 0.1), (200, 0.06), (5, 0.9)]:
        lo, hi = width_bounds(np.array([m]), 1.0, 1.0, w, 0.95)
        widths = np.array([_hdi_width(1 + k, 1 + m - k) for k in range(m + 1)])
        narrow = np.flatnonzero(widths < w)
        expected = set(narrow.tolist())
        got = set(range(int(lo[0]) + 1)) | set(range(int(hi[0]), m + 1))
        assert got == expected, (m, w)


def _brute(claim: str, n: int, a: float, b: float, split: tuple[float, float] | None) -> float:
    """Sum over every count with scipy (a TPR claim, Laplace analysis prior)."""
    c = Claim.parse(claim)
    def ok(k: np.ndarray, m: int) -> np.ndarray:
        return stats.beta.sf(c.target, 1 + k, 1 + m - k) >= 0.95
    if split is None:
        k = np.arange(n + 1)
        return float(np.sum(stats.betabinom.pmf(k, n, a, b) * ok(k, n)))
    total = 0.0
    for m in range(n + 1):
        k = np.arange(m + 1)
        inner = np.sum(stats.betabinom.pmf(k, m, a, b) * ok(k, m))
        total += stats.betabinom.pmf(m, n, *split) * inner
    return total


@pytest.mark.parametrize("n", [1, 13, 120])
def test_exact_assurance_equals_the_sum_over_every_count(n):
    got = S.assurance("tpr > 0.85", n=n, design={"tpr": bcm.Beta(30, 3)})
    assert float(got) == pytest.approx(_brute("tpr > 0.85", n, 30, 3, None), abs=1e-10)
    split = S.assurance("tpr > 0.85", n=n, design={"tpr": bcm.Beta(30, 3),
                                                   "prevalence": bcm.Beta(4, 6)})
    assert split.counts == "items"
    assert float(split) == pytest.approx(_brute("tpr > 0.85", n, 30, 3, (4, 6)), abs=1e-10)


def test_complements_and_their_designs_agree():
    sizes = [40, 160]
    base = S.assurance("tpr > 0.9", n=sizes, design={"tpr": bcm.Beta(95, 5)}).assurance
    np.testing.assert_allclose(S.assurance("fnr < 0.1", n=sizes,
                                           design={"fnr": bcm.Beta(5, 95)}).assurance, base)
    np.testing.assert_allclose(S.assurance("sensitivity > 0.9", n=sizes,
                                           design={"miss_rate": bcm.Beta(5, 95)}).assurance,
                               base)
    low = S.assurance("fpr < 0.1", n=sizes, design={"tnr": bcm.Beta(95, 5)}).assurance
    np.testing.assert_allclose(low, base)


def _simulated(n: np.ndarray, a: float, b: float, prev: tuple[float, float] | None,
               t: float, sims: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    p = rng.beta(a, b, sims)
    out = []
    for size in n:
        m = rng.binomial(size, rng.beta(*prev, sims)) if prev else np.full(sims, size)
        k = rng.binomial(m, p)
        out.append(np.mean(stats.beta.sf(t, 1 + k, 1 + m - k) >= 0.95))
    return np.array(out)


def test_exact_and_simulated_assurance_agree():
    """The two computations of issue 33 point 5: the exact sum, and test sets simulated here."""
    n = np.array([30, 150, 600])
    sims = 40_000
    for prev in (None, (20.0, 80.0)):
        design = {"tpr": bcm.Beta(95, 5)} | ({"prevalence": bcm.Beta(*prev)} if prev else {})
        exact = S.assurance("tpr > 0.9", n=n, design=design).assurance
        sim = _simulated(n, 95, 5, prev, 0.9, sims, 7)
        se = np.sqrt(exact * (1 - exact) / sims)
        assert np.all(np.abs(exact - sim) < 4 * se + 1e-9), (prev, exact, sim)
        # and the package's own simulation of the same claim
        own = S.assurance("tpr > 0.9", n=n, design=design, method="simulation",
                          n_sims=20_000, random_seed=3)
        assert own.method == "simulation"
        assert np.all(np.abs(own.assurance - exact) < 4 * own.mc_error + 1e-9)


def test_assurance_tends_to_the_design_probability_of_the_claim():
    curve = S.assurance("tpr > 0.9", n=[10**6], design={"tpr": bcm.Beta(95, 5)})
    assert curve.limit == pytest.approx(stats.beta.sf(0.9, 95, 5))
    assert float(curve) == pytest.approx(curve.limit, abs=2e-3)


def test_width_claim_agrees_with_buderer_in_the_large_sample_limit():
    # Buderer (1996): positives for a 95 % interval of half-width W around Se = 0.9, W = 0.03
    se, half = 0.9, 0.03
    buderer = stats.norm.ppf(0.975) ** 2 * se * (1 - se) / half**2
    # the point design Se = 0.9: the HDI is narrower than 2W in half of the test sets at
    # about Buderer's size (its width is 2 z sqrt(p(1-p)/n) at the observed rate)
    found = S.required_n_claim("width(tpr) < 0.06", assurance=0.5, design={"tpr": 0.9}).n
    assert abs(found - buderer) / buderer < 0.05, (found, buderer)


def test_required_n_is_the_first_size_that_reaches_the_assurance():
    plan = S.required_n_claim("tpr > 0.9", assurance=0.7, design={"tpr": bcm.Beta(95, 5)})
    below = S.assurance("tpr > 0.9", n=[plan.n - 1, plan.n], design={"tpr": bcm.Beta(95, 5)})
    assert below.assurance[0] < 0.7 <= below.assurance[1] == pytest.approx(plan.assurance)


def test_design_from_a_fit_matches_its_beta_posterior():
    cm = bcm.ConfusionMatrix.from_counts(tp=94, fn=4, tn=50, fp=5)
    fit = bcm.fit(cm, draws=2000, random_seed=0)
    from_fit = S.assurance("tpr > 0.9", n=[100, 300], design=fit)
    from_beta = S.assurance("tpr > 0.9", n=[100, 300], design={"tpr": bcm.Beta(95, 5),
                                                                "prevalence": bcm.Beta(99, 56)})
    from_matrix = S.assurance("tpr > 0.9", n=[100, 300], design=cm)
    np.testing.assert_allclose(from_matrix.assurance, from_beta.assurance, atol=1e-12)
    assert np.all(from_fit.mc_error > 0)
    assert np.all(np.abs(from_fit.assurance - from_beta.assurance)
                  < 4 * from_fit.mc_error + 0.01)


def test_a_derived_metric_is_simulated_and_needs_its_parameters():
    design = {"prevalence": bcm.Beta(20, 80), "tpr": bcm.Beta(95, 5), "tnr": bcm.Beta(95, 5)}
    curve = S.assurance("ppv > 0.7", n=[200, 2000], design=design, n_sims=400, n_draws=400,
                        random_seed=1)
    assert curve.method == "simulation" and np.all(curve.mc_error > 0)
    assert curve.assurance[0] < curve.assurance[1] <= 1
    with pytest.raises(ValueError, match="design prior for prevalence, tnr"):
        S.assurance("ppv > 0.7", n=100, design={"tpr": bcm.Beta(95, 5)})
    with pytest.raises(ValueError, match="exact only as a rate"):
        S.assurance("ppv > 0.7", n=100, design=design, method="exact")


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"claim": "tpr = 0.9"}, ValueError, "is not a claim"),
    ({"claim": "sensitivty > 0.9"}, ValueError, "Did you mean"),
    ({"claim": "tpr > 1.5"}, ValueError, "outside the values"),
    ({"claim": "width(tpr) < 0"}, ValueError, r"\(0, 1\]"),
    ({"claim": 0.9}, TypeError, "A claim is text"),
    ({"design": [0.9]}, TypeError, "design is the design prior"),
    ({"design": {"tpr": 1.2}}, ValueError, r"in \[0, 1\]"),
    ({"design": {"tpr": bcm.priors.Haldane()}}, ValueError, "must be proper"),
    ({"level": 1.0}, ValueError, "strictly between 0 and 1"),
    ({"criterion": "bayes"}, ValueError, "criterion must be"),
    ({"prior": "haldane"}, ValueError, "improper posterior"),
    ({"n": 0}, ValueError, ">= 1"),
    ({"draws": 5}, TypeError, "unknown keyword argument 'draws'"),
])
def test_bad_input_is_a_named_error(kwargs, error, match):
    args = {"claim": "tpr > 0.9", "n": 100, "design": {"tpr": bcm.Beta(95, 5)}} | kwargs
    with pytest.raises(error, match=match):
        S.assurance(**args)


def test_an_assurance_the_design_prior_cannot_give_is_refused():
    with pytest.raises(ValueError, match=r"probability of only 0\.5"):
        S.required_n_claim("tpr > 0.9", assurance=0.8, design={"tpr": bcm.Beta(90, 10)})


def test_a_batch_fit_as_design_says_how_to_select_one():
    mats = bcm.datasets.literature_matrices()
    fit = bcm.fit({k: mats[k] for k in ("7a", "8")}, draws=200, random_seed=0)
    with pytest.raises(ValueError, match="classifier="):
        S.assurance("tpr > 0.9", n=100, design=fit)
