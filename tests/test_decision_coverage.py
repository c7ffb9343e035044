"""Coverage of the 95 % net-benefit intervals over simulated data sets of known risk distributions.

Risks of model A are Beta(2, 5) and calibrated (y ~ Bernoulli(risk)), so its true net benefit
is an integral of the Beta: with :math:`I_t` the regularised incomplete Beta function,

    NB_A(t) = a/(a+b) (1 - I_t(a+1, b)) - t/(1-t) b/(a+b) (1 - I_t(a, b+1)).

Model B scores the same items with extra noise on the logit scale (expit(logit(risk) + e),
e ~ N(0, 0.8)); its true net benefit and the true difference come from two million simulated
items. Each of 400 data sets of 300 items is fitted with the default (Dirichlet-process)
posterior; the share of data sets whose 95 % HDI holds the truth is reported per threshold.

Measured (about 22 s on 2 busy cores, load 3): NB of A and of B 0.93-0.94 at every threshold;
the paired difference 0.92-0.96 from t = 0.1 on, but 0.74 at t = 0.05, where the two models
disagree on a handful of low-risk items and a positive among them (risk < 0.05) is rarely
seen: the posterior, which reweighs the observed items, cannot imagine a discordant positive
it has not seen (its novel atoms lie beyond every score of both models, so they never
disagree). The limitation is stated in the decisions guide.
"""

import time

import numpy as np
import pytest
from scipy import special, stats

import bayescm as bcm
from bayescm.core.stats import hdi

A, B = 2.0, 5.0
THRESHOLDS = np.array([0.05, 0.1, 0.2, 0.3, 0.5])
SETS, ITEMS = 400, 300


def true_nb_a(t: np.ndarray) -> np.ndarray:
    odds = t / (1 - t)
    above_pos = A / (A + B) * stats.beta(A + 1, B).sf(t)
    above_neg = B / (A + B) * stats.beta(A, B + 1).sf(t)
    return above_pos - odds * above_neg


def noisy(risk: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    return special.expit(special.logit(risk) + rng.normal(0, 0.8, size=risk.size))


def true_nb_b(t: np.ndarray) -> np.ndarray:
    rng = np.random.default_rng(123)
    risk = rng.beta(A, B, size=2_000_000)
    s = noisy(risk, rng)
    passed = s[:, None] >= t[None, :]
    odds = t / (1 - t)
    return (risk @ passed - odds * ((1 - risk) @ passed)) / risk.size


@pytest.mark.slow
def test_net_benefit_intervals_cover_the_truth() -> None:
    truth_a, truth_b = true_nb_a(THRESHOLDS), true_nb_b(THRESHOLDS)
    truth = np.stack([truth_a, truth_b])
    hits = np.zeros((2, THRESHOLDS.size))
    delta_hits = np.zeros(THRESHOLDS.size)
    rng = np.random.default_rng(2026)
    start = time.perf_counter()
    for k in range(SETS):
        risk = rng.beta(A, B, size=ITEMS)
        y = rng.random(ITEMS) < risk
        fit = bcm.fit(bcm.Scores(y, {"A": risk, "B": noisy(risk, rng)}), random_seed=k,
                      draws=250, metrics=["tpr"], grid_size=11, n_bins=2)
        post = bcm.net_benefit(fit, thresholds=THRESHOLDS)["posterior"]
        nb = post["net_benefit"].stack(sample=("chain", "draw")).transpose(
            "system", "threshold", "sample").values
        bounds = hdi(nb, 0.95)
        hits += (bounds[..., 0] <= truth) & (truth <= bounds[..., 1])
        delta = post["delta_net_benefit"].sel(pair="B - A").stack(
            sample=("chain", "draw")).transpose("threshold", "sample").values
        d_bounds = hdi(delta, 0.95)
        d_true = truth_b - truth_a
        delta_hits += (d_bounds[:, 0] <= d_true) & (d_true <= d_bounds[:, 1])
    coverage, delta_coverage = hits / SETS, delta_hits / SETS
    print(f"\n{SETS} data sets of {ITEMS} items in {time.perf_counter() - start:.0f} s; "
          f"thresholds {THRESHOLDS.tolist()}\nNB A {coverage[0].round(3).tolist()}\n"
          f"NB B {coverage[1].round(3).tolist()}\ndelta B - A "
          f"{delta_coverage.round(3).tolist()}")
    # 400 sets: a 95 % interval's coverage has a binomial sd of 0.011
    assert np.all(coverage >= 0.91), coverage
    assert np.all(delta_coverage[1:] >= 0.91), delta_coverage
    assert delta_coverage[0] < 0.9  # the known gap at t = 0.05 (see above): say so if it closes
