"""Planning a paired comparison (issue 33): McNemar's power and the Bayesian assurance.

Published numbers: R's MESS package (tests/testthat/test_power_mcnemar.R, "validated
results") has ``power_mcnemar_test(paid=0.05, psi=45/5, power=0.8)$n`` round to 22 (two-sided
5 %) and to 17 one-sided, and the exact power with 144 pairs, paid=0.25, psi=45/25, one-sided
2.5 % round to 0.80; powerandsamplesize.com's McNemar calculator, after Connor (1987,
Biometrics 43:207-211, p. 209), works the first example to ``ceiling(n) = 23``. The exact
test is checked against statsmodels' McNemar test, and the assurance against a simulation.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from bayescm.analyses.samplesize.paired import (
    discordance,
    paired_assurance,
    paired_power,
    prob_beyond,
)
from bayescm.analyses.samplesize.paired_plan import paired_n


def _connor_n(p10: float, p01: float, alpha: float, power: float, sides: int) -> float:
    delta, psi = p01 - p10, p01 + p10
    z_a, z_b = stats.norm.isf(alpha / sides), stats.norm.ppf(power)
    return float(((z_a * np.sqrt(psi) + z_b * np.sqrt(psi - delta**2)) / delta) ** 2)


def test_connor_formula_reproduces_the_published_examples():
    two = _connor_n(0.05, 0.45, 0.05, 0.8, 2)
    one = _connor_n(0.05, 0.45, 0.05, 0.8, 1)
    assert round(two) == 22 and round(one) == 17  # MESS's validated results
    plan = paired_n(0.05, 0.45, power=0.8)
    assert plan.n == 23 == int(np.ceil(two))  # the calculator's ceiling(n) = 23
    assert paired_n(0.05, 0.45, power=0.8, sides=1).n == int(np.ceil(one))
    p = paired_power([22, 23], 0.05, 0.45)
    assert p[0] < 0.8 <= p[1]


def test_exact_power_reproduces_mess():
    power = paired_power(144, 0.25, 0.45, alpha=0.025, sides=1, method="exact")
    assert round(power, 2) == 0.80


@pytest.mark.parametrize(("n", "p10", "p01", "sides"), [(40, 0.1, 0.3, 2), (25, 0.2, 0.05, 2),
                                                         (30, 0.15, 0.35, 1)])
def test_exact_power_equals_statsmodels_mcnemar_summed_over_every_table(n, p10, p01, sides):
    mcnemar = pytest.importorskip("statsmodels.stats.contingency_tables").mcnemar
    psi = p10 + p01
    big = max(p10, p01) / psi  # the share of the planned winner among discordant items
    total = 0.0
    for d in range(n + 1):
        for x in range(d + 1):  # x: discordant items on the planned winner's side
            pvalue = mcnemar([[0, x], [d - x, 0]], exact=True).pvalue
            if sides == 1:  # one-sided: the winner's side large, half the two-sided value
                pvalue = stats.binom.sf(x - 1, d, 0.5) if d else 1.0
            if pvalue <= 0.05:
                total += stats.binom.pmf(d, n, psi) * stats.binom.pmf(x, d, big)
    got = paired_power(n, p10, p01, sides=sides, method="exact")
    assert got == pytest.approx(total, abs=1e-10)


def test_exact_and_normal_power_meet_in_large_samples():
    n = [15_000, 30_000, 60_000]  # the exact test's discreteness costs power at small n
    exact = paired_power(n, 0.100, 0.106, method="exact")
    normal = paired_power(n, 0.100, 0.106)
    assert 0.3 < normal[0] < normal[1] < normal[2] < 0.95
    gap = np.abs(exact - normal)
    assert np.all(np.diff(gap) < 0) and gap[-1] < 0.003


def test_assurance_approaches_mcnemar_power_for_local_alternatives():
    """Issue 33 point 2: with a point design, a flat prior and level 1 - alpha/2 the Bayesian
    decision is McNemar's two-sided test in large samples (a difference of order 1/sqrt(n))."""
    p10, p01 = 0.095, 0.105
    n = int(np.ceil(_connor_n(p10, p01, 0.05, 0.8, 2)))  # about 15,700 pairs
    assurance = float(paired_assurance(n, p10, p01, level=0.975, prior="laplace"))
    power = paired_power(n, p10, p01)
    assert power == pytest.approx(0.8, abs=2e-3)
    assert assurance == pytest.approx(power, abs=0.01)


def test_assurance_equals_a_simulation_of_agreement_tables():
    rng = np.random.default_rng(5)
    sims, level = 40_000, 0.95
    for n, p10, p01, kappa in [(150, 0.06, 0.12, None), (400, 0.05, 0.08, 300.0)]:
        if kappa is None:
            probs = np.tile([1 - p10 - p01, p10, p01], (sims, 1))
        else:  # the Dirichlet design prior over (rest, A only, B only)
            probs = rng.dirichlet(kappa * np.array([1 - p10 - p01, p10, p01]), sims)
        d = rng.binomial(n, probs[:, 1] + probs[:, 2])  # discordant items
        n01 = rng.binomial(d, probs[:, 2] / (probs[:, 1] + probs[:, 2]))  # B alone right
        hit = stats.beta.sf(0.5, 1 + n01, 1 + d - n01) >= level  # Laplace: P(B > A)
        expected = float(paired_assurance(n, p10, p01, level=level, concentration=kappa))
        se = np.sqrt(expected * (1 - expected) / sims)
        assert abs(hit.mean() - expected) < 4 * se, (n, hit.mean(), expected)


def test_rope_probability_against_dirichlet_draws():
    rng = np.random.default_rng(2)
    for counts in ([700, 30, 45, 225], [80, 4, 12, 4]):
        alpha = 1.0 + np.asarray(counts, dtype=float)
        cells = rng.dirichlet(alpha, 400_000)
        diff = cells[:, 2] - cells[:, 1]
        for rope in (0.0, 0.01, 0.03):
            expected = float(np.mean(diff > rope))
            got = float(prob_beyond(alpha[2], alpha[1], alpha[1] + alpha[2],
                                    alpha[0] + alpha[3], rope))
            assert got == pytest.approx(expected, abs=4e-3)


def test_discordance_gives_the_table_of_that_correlation():
    a, _ = discordance(0.75, 0.85, correlation=0.6)
    both = 0.75 - a
    table = np.array([[both, a], [0.85 - both, 1 - 0.75 - 0.85 + both]])  # A right row first
    pa, pb = table[0].sum(), table[:, 0].sum()
    phi = (table[0, 0] - pa * pb) / np.sqrt(pa * (1 - pa) * pb * (1 - pb))
    assert (pa, pb) == pytest.approx((0.75, 0.85))
    assert phi == pytest.approx(0.6)
    with pytest.raises(ValueError, match="cannot have a correlation"):
        discordance(0.1, 0.9, correlation=0.9)


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: paired_n(0.04, 0.07), ValueError, "one of power= "),
    (lambda: paired_n(0.04, 0.07, power=0.8, assurance=0.8), ValueError, "one of power= "),
    (lambda: paired_n(0.05, 0.05, power=0.8), ValueError, "no difference"),
    (lambda: paired_power(100, 0.6, 0.6), ValueError, "at most 1"),
    (lambda: paired_power(100, 0.04, 0.07, method="chi2"), ValueError, "'normal' or 'exact'"),
    (lambda: paired_power(100, 0.04, 0.07, sides=3), ValueError, "<= 2"),
    (lambda: paired_assurance(100, 0.04, 0.07, prior="haldane"), ValueError, "proper"),
    (lambda: paired_assurance(100, 0.04, 0.07, concentration=-1), ValueError, "> 0"),
    (lambda: paired_n(0.04, 0.07, assurance=0.95, concentration=50), ValueError,
     "probability"),
    (lambda: paired_power(100, 0.04, 0.07, alpah=0.01), TypeError, "Did you mean 'alpha'"),
])
def test_bad_input_is_a_named_error(call, error, match):
    with pytest.raises(error, match=match):
        call()
