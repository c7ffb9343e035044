"""Simulation-based calibration of the multiclass runs model (folds, seeds; issue 30).

The model under test is the one ``bcm.fit(matrices, model="hierarchical", group="fold")``
samples for multiclass matrices
(:func:`~bayescm.models.hierarchical_multiclass_fit.build_multiclass_hierarchical`): compiled
once with nutpie and refitted to each simulated data set (its counts are ``pm.Data``). Truths
are drawn from known priors, the runs and their counts from the truths; the rank of each truth
among thinned posterior draws must be uniform (Talts et al. 2018).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import bayescm as bcm
from bayescm.models.hierarchical_multiclass import MulticlassHierarchicalModel
from bayescm.models.hierarchical_multiclass_fit import build_multiclass_hierarchical
from bayescm.priors import HalfNormal, RatesByClass

pytestmark = pytest.mark.slow

LABELS = ["a", "b", "c"]
RUNS, PER_RUN = 4, 60
PREV_ALPHA = np.array([4.0, 4.0, 4.0])
RATES_ALPHA = np.array([[8.0, 1.0, 1.0], [1.0, 8.0, 1.0], [1.0, 1.0, 8.0]])
SPREAD, P_SPREAD = 0.3, 0.3  # HalfNormal scales of the two spreads


def _simulate(rng: np.random.Generator) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """Truths from the priors, and the runs' (G, K, K) counts drawn from them."""
    truth = {"prevalence": rng.dirichlet(PREV_ALPHA),
             "rates": np.stack([rng.dirichlet(row) for row in RATES_ALPHA]),
             "spread": np.abs(rng.normal(0, SPREAD, 3)),
             "prevalence_spread": np.array(abs(rng.normal(0, P_SPREAD)))}
    counts = np.zeros((RUNS, 3, 3), dtype=np.int64)
    for g in range(RUNS):
        prev = rng.dirichlet(truth["prevalence"] / truth["prevalence_spread"] ** 2)
        rows = rng.multinomial(PER_RUN, prev)
        for k in range(3):
            rate = rng.dirichlet(truth["rates"][k] / truth["spread"][k] ** 2)
            counts[g, k] = rng.multinomial(rows[k], rate)
    return truth, counts


def test_simulation_based_calibration():
    """100 data sets of 4 runs x 60 items in 3 classes; ranks of 100 thinned draws among
    which the truth falls, chi-square over 10 bins (p > 0.001) for each scalar summary."""
    nutpie = pytest.importorskip("nutpie")
    kind = MulticlassHierarchicalModel(LABELS)
    priors = kind.resolve_priors(None, {"prevalence": bcm.Dirichlet(PREV_ALPHA),
                                        "rates": RatesByClass(RATES_ALPHA, LABELS),
                                        "spread": HalfNormal(SPREAD),
                                        "prevalence_spread": HalfNormal(P_SPREAD)})
    rng = np.random.default_rng(30)
    _, counts = _simulate(rng)
    names = [f"fold{g}" for g in range(RUNS)]
    compiled = nutpie.compile_pymc_model(
        build_multiclass_hierarchical(names, counts, "fold", LABELS, priors))
    quantities = {"prevalence[a]": lambda d: d["prevalence"][..., 0],
                  "rates[a,a]": lambda d: d["rates"][..., 0, 0],
                  "rates[c,b]": lambda d: d["rates"][..., 2, 1],
                  "spread[b]": lambda d: d["spread"][..., 1],
                  "prevalence_spread": lambda d: d["prevalence_spread"]}
    ranks: dict[str, list[int]] = {k: [] for k in quantities}
    divergent = 0
    reps = 100
    for rep in range(reps):
        truth, counts = _simulate(rng)
        data = compiled.with_data(class_counts_data=counts.sum(axis=-1),
                                  row_counts_data=counts)
        trace = nutpie.sample(data, draws=500, tune=500, chains=2, seed=rep,
                              progress_bar=False, target_accept=0.95)
        divergent += int(trace["sample_stats"]["diverging"].sum()) > 0
        post = {k: np.asarray(trace["posterior"][k].values).reshape(
            -1, *np.shape(truth[k])) for k in truth}
        for name, take in quantities.items():
            kept = take(post)[::10]  # 100 nearly independent draws
            ranks[name].append(int((kept < take(truth)).sum()))
    pvalues = {k: stats.chisquare(np.bincount(np.array(v) * 10 // 101, minlength=10)).pvalue
               for k, v in ranks.items()}
    print("SBC p-values", pvalues, "fits with divergences", divergent)
    assert min(pvalues.values()) > 1e-3, pvalues
    assert divergent <= reps // 10, divergent
