"""Simulation-based calibration of the exact binary model (Talts et al. 2018).

If parameters are drawn from the prior and data from the model, the rank of each true value
among its posterior draws is uniform. One vectorised batch fit covers every simulation.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import bayescm as bcm

N_SIMS, N_DRAWS, N_TEST = 2000, 99, 30


def _sbc_ranks(prior: bcm.Beta, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = {p: rng.beta(prior.alpha, prior.beta, N_SIMS) for p in ("prevalence", "tpr", "tnr")}
    n_pos = rng.binomial(N_TEST, truth["prevalence"])
    tp = rng.binomial(n_pos, truth["tpr"])
    tn = rng.binomial(N_TEST - n_pos, truth["tnr"])
    fn, fp = n_pos - tp, N_TEST - n_pos - tn
    mats = {str(i): bcm.ConfusionMatrix.from_counts(tp=int(tp[i]), fn=int(fn[i]), tn=int(tn[i]),
                                                    fp=int(fp[i]))
            for i in range(N_SIMS)}
    idata = bcm.fit(mats, prior=prior, draws=N_DRAWS, chains=1, metrics=["bm", "ppv"],
                    random_seed=seed + 1)
    post = idata["posterior"]
    truth["bm"] = truth["tpr"] + truth["tnr"] - 1
    truth["ppv"] = truth["prevalence"] * truth["tpr"] / (
        truth["prevalence"] * truth["tpr"] + (1 - truth["prevalence"]) * (1 - truth["tnr"]))
    return {k: (post[k].values[0] < v[None, :]).sum(axis=0) for k, v in truth.items()}


@pytest.mark.parametrize(("prior", "seed"), [(bcm.priors.Laplace(), 10), (bcm.Beta(2, 5), 20)])
def test_sbc_ranks_uniform(prior, seed):
    ranks = _sbc_ranks(prior, seed)
    bins = 10  # ranks 0..99 in 10 bins of 10
    for name, r in ranks.items():
        counts = np.bincount(r // 10, minlength=bins)
        p = stats.chisquare(counts).pvalue
        assert p > 1e-3, (name, counts)


def test_sbc_detects_a_wrong_posterior():
    """The check can fail: a posterior that ignores the prior's shape is caught."""
    rng = np.random.default_rng(30)
    truth = rng.beta(2, 5, N_SIMS)
    n = 30
    k = rng.binomial(n, truth)
    wrong = rng.beta(1 + k[None, :], 1 + n - k[None, :], size=(N_DRAWS, N_SIMS))  # Laplace
    ranks = (wrong < truth[None, :]).sum(axis=0)
    assert stats.chisquare(np.bincount(ranks // 10, minlength=10)).pvalue < 1e-3
