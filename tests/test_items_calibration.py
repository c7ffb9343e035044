"""Simulation-based calibration of the items model (clustered items, repeated attempts).

The model under test is what ``bcm.fit(bcm.Items(...))`` samples (nutpie on the written-out
density when nutpie is installed, PyMC otherwise). Truths are drawn from known priors of the
parameters, a log of two systems from the truths
(:func:`~bayescm.analyses.items_simulation.simulate_log`), and the rank of each truth among
thinned posterior draws must be uniform (Talts et al. 2018); the realised accuracy of these
items (``accuracy_items``, a function of the random effects) is checked the same way.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import bayescm as bcm
from bayescm.analyses.items_simulation import simulate_log
from bayescm.priors import HalfNormal, Normal

pytestmark = pytest.mark.slow

PRIORS = {"mu_logit": Normal(0.0, 1.0), "sd_cluster": HalfNormal(0.7),
          "sd_item": HalfNormal(1.0), "sd_system_item": HalfNormal(0.5)}


def test_simulation_based_calibration():
    """100 logs of 2 systems x 8 clusters x 3 items x 2 attempts; ranks among 100 thinned
    draws, chi-square over 10 bins (p > 0.001) for each parameter and estimand."""
    rng = np.random.default_rng(31)
    names = ("mu_logit[A]", "mu_logit[B]", "sd_cluster", "sd_item", "sd_system_item",
             "accuracy_items[A]")
    ranks: dict[str, list[int]] = {k: [] for k in names}
    reps = 100
    for rep in range(reps):
        mu = rng.normal(0.0, 1.0, 2)
        sd = {k: abs(rng.normal(0.0, s)) for k, s in
              (("sd_cluster", 0.7), ("sd_item", 1.0), ("sd_system_item", 0.5))}
        log, truth = simulate_log(rng, clusters=8, per_cluster=3, attempts=2, mu=mu,
                                  sd_cluster=sd["sd_cluster"], sd_item=sd["sd_item"],
                                  sd_system_item=sd["sd_system_item"])
        with warnings.catch_warnings():  # short chains: ESS warnings expected
            warnings.simplefilter("ignore")
            fit = bcm.fit(log, priors=PRIORS, draws=500, chains=2, tune=500,
                          random_seed=1000 + rep)
        post = fit["posterior"]
        values = {"mu_logit[A]": (post["mu_logit"].sel(system="A"), mu[0]),
                  "mu_logit[B]": (post["mu_logit"].sel(system="B"), mu[1]),
                  "accuracy_items[A]": (post["accuracy_items"].sel(system="A"),
                                        truth["accuracy_items"][0]),
                  **{k: (post[k], v) for k, v in sd.items()}}
        for name, (draws, value) in values.items():
            kept = np.asarray(draws.values).reshape(-1)[::10]  # 100 nearly independent draws
            ranks[name].append(int((kept < value).sum()))
    pvalues = {k: stats.chisquare(np.bincount(np.array(v) * 10 // 101, minlength=10)).pvalue
               for k, v in ranks.items()}
    print("SBC p-values", pvalues)
    assert min(pvalues.values()) > 1e-3, pvalues
