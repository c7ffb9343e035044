"""Coverage and calibration of the corrected rates over simulated data sets (issue 31; slow).

For each scenario, 200 data sets are simulated from fixed true values (the apparent count and
the validation or calibration matrix both drawn from the test's true rates); the 95 % HDI of
the true rate must cover the truth in 95 % of them, within three Monte-Carlo standard errors
(``3 * sqrt(0.95 * 0.05 / 200) = 0.046``). Simulation-based calibration draws the true values
from the priors instead: the truth's rank among the posterior draws must be uniform.
"""

import numpy as np
import pytest

import bayescm as bcm

SETS = 200
BOUND = 3 * np.sqrt(0.95 * 0.05 / SETS)


def _coverage(truth: float, n: int, tpr: float, tnr: float, pos: int, neg: int, seed: int,
              judged: bool) -> float:
    rng = np.random.default_rng(seed)
    hits = 0
    for i in range(SETS):
        apparent = truth * tpr + (1 - truth) * (1 - tnr)
        k = int(rng.binomial(n, apparent))
        tp, tn = int(rng.binomial(pos, tpr)), int(rng.binomial(neg, tnr))
        labels = ["correct", "incorrect"] if judged else ["positive", "negative"]
        val = bcm.ConfusionMatrix([[tp, pos - tp], [neg - tn, tn]], labels=labels)
        if judged:
            tree = bcm.judged_accuracy(k, n, calibration=val, draws=500, chains=2,
                                       random_seed=i)
            name = "accuracy"
        else:
            tree = bcm.true_prevalence(k, n, validation=val, draws=500, chains=2,
                                       random_seed=i)
            name = "prevalence"
        row = bcm.summary(tree, var_names=[name], kind="stats").iloc[0]
        hits += row["hdi_lower"] <= truth <= row["hdi_upper"]
    return hits / SETS


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:The apparent rate:UserWarning")
@pytest.mark.parametrize(("truth", "n", "tpr", "tnr", "pos", "neg", "judged"), [
    pytest.param(0.02, 2000, 0.9, 0.98, 100, 400, False, id="rare-disease"),
    pytest.param(0.6, 500, 0.7, 0.7, 120, 80, True, id="judge-0.70"),
    pytest.param(0.6, 500, 0.95, 0.95, 120, 80, True, id="judge-0.95"),
])
def test_the_95_hdi_covers_the_true_rate(truth, n, tpr, tnr, pos, neg, judged) -> None:
    coverage = _coverage(truth, n, tpr, tnr, pos, neg, 31, judged)
    assert abs(coverage - 0.95) <= BOUND, coverage


@pytest.mark.slow
@pytest.mark.filterwarnings("ignore:The apparent rate:UserWarning")
def test_simulation_based_calibration_of_the_exact_draws() -> None:
    """SBC: true values drawn from the priors; the truth's rank among the draws is uniform."""
    from scipy import stats

    from bayescm.priors import Uniform

    rng = np.random.default_rng(5)
    ranks: dict[str, list[int]] = {"prevalence": [], "tpr": [], "tnr": []}
    for i in range(SETS):
        p, t, s = rng.uniform(), rng.uniform(0.5, 1), rng.uniform(0.5, 1)
        k = int(rng.binomial(300, p * t + (1 - p) * (1 - s)))
        tp, tn = int(rng.binomial(40, t)), int(rng.binomial(60, s))
        val = bcm.ConfusionMatrix.from_counts(tp=tp, fn=40 - tp, tn=tn, fp=60 - tn)
        tree = bcm.true_prevalence(k, 300, tpr=Uniform(0.5, 1), tnr=Uniform(0.5, 1),
                                   validation=val, draws=100, chains=4, random_seed=i)
        for name, truth in (("prevalence", p), ("tpr", t), ("tnr", s)):
            ranks[name].append(int((tree["posterior"][name].values < truth).sum()))
    for name, r in ranks.items():
        hist = np.histogram(r, bins=10, range=(0, 400))[0]
        assert stats.chisquare(hist).pvalue > 0.001, (name, hist.tolist())
