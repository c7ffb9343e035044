"""Coverage of the corrected rates over simulated data sets (issue 31, point 3; slow).

For each scenario, 200 data sets are simulated from fixed true values (the apparent count and
the validation or calibration matrix both drawn from the test's true rates); the 95 % HDI of
the true rate must cover the truth in 95 % of them, within three Monte-Carlo standard errors
(``3 * sqrt(0.95 * 0.05 / 200) = 0.046``).
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
