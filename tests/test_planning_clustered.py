"""Clustered evaluations (issue 33): the design effect and MDE checked by simulating clusters.

Scores are simulated with beta-binomial cluster and item effects (exact correlations: a
cluster's rate ~ Beta with concentration k_c has icc = 1 / (k_c + 1); an item's rate around
its cluster's with concentration k_i adds (1 - icc) / (k_i + 1) to the attempts' correlation)
and, in the slow check, logit-normal effects (correlations by Gauss-Hermite quadrature).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import special, stats

from bayescm.analyses.samplesize.clustered import (
    clustered_n,
    clustered_power,
    design_effect,
    mde,
)


def _beta_binomial_means(rng, sims, clusters, m, k, mean, k_c, k_i):
    p_c = rng.beta(mean * k_c, (1 - mean) * k_c, (sims, clusters, 1))
    p_i = rng.beta(p_c * k_i, (1 - p_c) * k_i, (sims, clusters, m))
    right = rng.binomial(k, p_i)
    return right.sum(axis=(1, 2)) / (clusters * m * k)


def test_design_effect_and_mde_match_a_beta_binomial_simulation():
    rng = np.random.default_rng(11)
    mean, k_c, k_i = 0.7, 9.0, 4.0
    icc = 1 / (k_c + 1)
    attempt_icc = icc + (1 - icc) / (k_i + 1)
    clusters, m, k, sims = 40, 6, 3, 6000
    de = design_effect(m, icc=icc, attempts=k, attempt_icc=attempt_icc)
    means = _beta_binomial_means(rng, sims, clusters, m, k, mean, k_c, k_i)
    expected_var = mean * (1 - mean) * de / (clusters * m * k)
    assert means.var() == pytest.approx(expected_var, rel=4 * np.sqrt(2 / sims))
    # power at the MDE: a z-test of the mean against mean - MDE rejects 80 % of the time
    delta = mde(clusters, m, k, accuracy=mean, icc=icc, attempt_icc=attempt_icc, sides=1)
    z = (means - (mean - delta)) / np.sqrt(expected_var)
    rejected = np.mean(z > stats.norm.isf(0.05))
    assert rejected == pytest.approx(0.8, abs=4 * np.sqrt(0.16 / sims))


def test_formulas_are_consistent_and_reduce_to_kish_and_miller():
    assert design_effect(10, icc=0.2) == pytest.approx(2.8)  # 1 + (m - 1) icc
    # Miller (2024): attempts divide the within-item variance: omega^2 + sigma^2 / K
    omega2, sigma2, k = 0.05, 0.15, 4
    per_item = (omega2 + sigma2 / k) / (omega2 + sigma2)
    assert design_effect(1, attempts=k, attempt_icc=omega2 / (omega2 + sigma2)) / k == \
        pytest.approx(per_item)
    c = clustered_n(0.03, 8, discordance=0.2, icc=0.2)
    assert clustered_power(c, 0.03, 8, discordance=0.2, icc=0.2) >= 0.8
    assert clustered_power(c - 1, 0.03, 8, discordance=0.2, icc=0.2) < 0.8
    delta = mde(c, 8, discordance=0.2, icc=0.2)
    assert delta <= 0.03 < mde(c - 1, 8, discordance=0.2, icc=0.2)


@pytest.mark.parametrize(("call", "match"), [
    (lambda: design_effect(5, icc=0.3, attempts=2), "give attempt_icc"),
    (lambda: design_effect(5, icc=0.3, attempts=2, attempt_icc=0.1), "at least icc"),
    (lambda: mde(10, 5), "Give accuracy="),
    (lambda: mde(10, 5, accuracy=0.8, discordance=0.2), "not both"),
    (lambda: clustered_n(0.3, 5, discordance=0.2), "cannot reach the discordance"),
    (lambda: design_effect(5, icc=1.2), r"\[0, 1\]"),
])
def test_bad_input_is_a_named_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.slow
def test_logit_normal_clusters_match_the_design_effect():
    """Cluster and item effects normal on the logit scale; the correlations on the probability
    scale by Gauss-Hermite quadrature, the variance of the mean by 20,000 simulated evals."""
    mu, sd_c, sd_i = 0.8, 0.9, 0.7
    x, w = np.polynomial.hermite_e.hermegauss(60)
    w = w / w.sum()
    p = special.expit(mu + sd_c * x[:, None] + sd_i * x[None, :])  # (cluster, item) nodes
    mean = float(w @ p @ w)
    total = mean * (1 - mean)
    icc = float(w @ (p @ w) ** 2 - mean**2) / total
    attempt_icc = float(w @ (p**2) @ w - mean**2) / total
    rng = np.random.default_rng(4)
    sims, clusters, m, k = 20_000, 25, 8, 2
    u = rng.normal(0, sd_c, (sims, clusters, 1))
    v = rng.normal(0, sd_i, (sims, clusters, m))
    means = rng.binomial(k, special.expit(mu + u + v)).sum(axis=(1, 2)) / (clusters * m * k)
    de = design_effect(m, icc=icc, attempts=k, attempt_icc=attempt_icc)
    assert means.mean() == pytest.approx(mean, abs=4 * means.std() / np.sqrt(sims))
    assert means.var() == pytest.approx(total * de / (clusters * m * k),
                                        rel=4 * np.sqrt(2 / sims))
