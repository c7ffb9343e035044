import itertools

import numpy as np
import pytest

import bayescm as bcm
from bayescm.metrics.binary import BINARY_METRICS
from bayescm.priors.elicit import (
    LINEAR_METRICS,
    cells_from_metrics,
    priors_from_matrix,
    priors_from_metrics,
)


def test_hand_solution_acc_tpr_ppv():
    # tp = t, fn = 3t/7 (TPR 0.7), fp = t/3 (PPV 0.75), tn = 0.8 - t; sum 1 -> t = 0.2 * 21/16
    t = 0.2 * 21 / 16
    cells = cells_from_metrics({"accuracy": 0.8, "recall": 0.7, "precision": 0.75})
    np.testing.assert_allclose([cells[c] for c in ("tp", "fn", "fp", "tn")],
                               [t, 3 * t / 7, t / 3, 0.8 - t], atol=1e-12)
    priors = priors_from_metrics({"acc": 0.8, "tpr": 0.7, "ppv": 0.75}, weight=10)
    assert priors["tpr"].alpha == pytest.approx(10 * t)
    assert priors["tpr"].beta == pytest.approx(10 * 3 * t / 7)
    assert priors["prevalence"].alpha + priors["prevalence"].beta == pytest.approx(10)
    assert priors["tpr"].mean == pytest.approx(0.7)


def test_round_trip_all_metric_triples():
    rng = np.random.default_rng(0)
    names = list(LINEAR_METRICS)
    checked = 0
    for _ in range(5):
        x = rng.dirichlet(np.ones(4) * 2)
        for triple in itertools.combinations(names, 3):
            values = {m: float(BINARY_METRICS[m](*x)) for m in triple}
            rows = [np.subtract(LINEAR_METRICS[m][0], np.multiply(values[m], LINEAR_METRICS[m][1]))
                    for m in triple]
            a = np.array([*rows, np.ones(4)])
            if np.linalg.matrix_rank(a, tol=1e-10) < 4:  # redundant triple: must raise
                with pytest.raises(ValueError, match="do not determine"):
                    cells_from_metrics(values)
                continue
            cells = cells_from_metrics(values)
            got = [cells[c] for c in ("tp", "fn", "fp", "tn")]
            np.testing.assert_allclose(got, x, atol=1e-8)
            for m in triple:  # the catalogue's formulas reproduce the inputs
                assert float(BINARY_METRICS[m](*got)) == pytest.approx(values[m], abs=1e-9)
            checked += 1
    assert checked > 1000


def test_inconsistent_and_redundant_values():
    with pytest.raises(ValueError, match=r"No confusion matrix has .*negative"):
        cells_from_metrics({"acc": 0.2, "tpr": 0.9, "ppv": 0.9})
    with pytest.raises(ValueError, match="do not determine"):
        cells_from_metrics({"tpr": 0.7, "fnr": 0.3, "acc": 0.8})
    with pytest.raises(ValueError, match="exactly three"):
        cells_from_metrics({"tpr": 0.7, "acc": 0.8})
    with pytest.raises(ValueError, match="Cannot elicit from 'mcc'"):
        cells_from_metrics({"tpr": 0.7, "acc": 0.8, "mcc": 0.3})
    with pytest.raises(ValueError, match=r"must be a number in \[0, 1\]"):
        cells_from_metrics({"tpr": 1.7, "acc": 0.8, "ppv": 0.3})
    with pytest.raises(ValueError, match="positive finite"):
        priors_from_metrics({"acc": 0.8, "tpr": 0.7, "ppv": 0.75}, weight=-1)


def test_zero_cell_needs_base():
    values = {"tpr": 1.0, "tnr": 0.5, "prevalence": 0.5}
    with pytest.raises(ValueError, match=r"base=bcm\.priors\.Laplace"):
        priors_from_metrics(values, weight=10)
    priors = priors_from_metrics(values, weight=10, base=bcm.priors.Laplace())
    assert priors["tpr"] == bcm.Beta(6, 1)


def test_priors_from_matrix_power_prior():
    old = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    priors = priors_from_matrix(old, weight=0.5)
    assert priors["tpr"] == bcm.Beta(1 + 13, 1 + 0)
    assert priors["tnr"] == bcm.Beta(1 + 3, 1 + 1)
    assert priors["prevalence"] == bcm.Beta(1 + 13, 1 + 4)
    # weight 1 with a Laplace base: fitting new data equals fitting the pooled matrix
    new = bcm.ConfusionMatrix.from_counts(tp=10, fn=2, tn=8, fp=3)
    pooled = bcm.ConfusionMatrix.from_counts(tp=36, fn=2, tn=14, fp=5)
    a = bcm.fit(new, priors=priors_from_matrix(old, weight=1.0), random_seed=0, draws=4000)
    b = bcm.fit(pooled, random_seed=1, draws=4000)
    assert float(a["posterior"]["tpr"].mean()) == pytest.approx(
        float(b["posterior"]["tpr"].mean()), abs=0.003)
    with pytest.raises(ValueError, match="binary matrix"):
        priors_from_matrix(bcm.ConfusionMatrix(np.eye(3, dtype=int)))
