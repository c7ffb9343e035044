"""Observed and posterior averages of per-class metrics cover the same classes (issue 28).

The rule (:func:`bayescm.metrics.multiclass.undefined_classes`): a class whose per-class value is
defined at the observed counts is in both averages; a class where it is 0/0 is in neither. The
observed averages equal scikit-learn's with ``zero_division=np.nan``; the posterior averages
equal the per-class posteriors averaged by hand over the same classes, draw by draw.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.metrics import f1_score, precision_score, recall_score

import bayescm as bcm
from bayescm.metrics.multiclass import undefined_classes

CASES = {
    # class 1 has no true items but is predicted (recall 0/0; PPV and F1 are 0)
    "absent true class": [[10, 2, 1], [0, 0, 0], [1, 2, 8]],
    # class 2 is never predicted (PPV 0/0; recall and F1 are 0)
    "never predicted": [[10, 2, 0], [3, 9, 0], [4, 5, 0]],
    # both at once, and a class that neither occurs nor is predicted (everything 0/0)
    "both and empty": [[10, 2, 0, 0], [3, 9, 0, 0], [0, 0, 0, 0], [4, 0, 0, 0]],
}
SKLEARN = {"tpr": recall_score, "ppv": precision_score, "f1": f1_score}


def _labels(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    k = counts.shape[0]
    pairs = [(i, j) for i in range(k) for j in range(k) for _ in range(counts[i, j])]
    y, p = np.array(pairs).T
    return y, p


@pytest.fixture(scope="module", params=list(CASES))
def case(request):
    counts = np.array(CASES[request.param])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cm = bcm.ConfusionMatrix(counts, labels=[str(i) for i in range(len(counts))])
        fit = bcm.fit(cm, draws=2000, random_seed=4)
    return counts, fit


@pytest.mark.parametrize("name", list(SKLEARN))
def test_observed_macro_and_weighted_equal_scikit_learn(case, name):
    counts, fit = case
    y, p = _labels(counts)
    labels = list(range(len(counts)))
    obs = fit["observed_metrics"]
    for avg in ("macro", "weighted"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            want = SKLEARN[name](y, p, labels=labels, average=avg, zero_division=np.nan)
        assert float(obs[f"{name}_{avg}"]) == pytest.approx(want, abs=1e-12), (name, avg)


@pytest.mark.parametrize("name", list(SKLEARN))
def test_posterior_average_is_the_per_class_posteriors_over_the_same_classes(case, name):
    counts, fit = case
    post = fit["posterior"]
    keep = ~undefined_classes(counts[None]).get(name, np.zeros((1, len(counts)), bool))[0]
    per_class = post[name].values[..., keep]  # the classes defined at the observed counts
    np.testing.assert_allclose(post[f"{name}_macro"].values, per_class.mean(axis=-1),
                               rtol=1e-12)
    prev = post["prevalence"].values[..., keep]
    np.testing.assert_allclose(post[f"{name}_weighted"].values,
                               (per_class * prev).sum(-1) / prev.sum(-1), rtol=1e-12)


def test_absent_class_keeps_its_defined_ppv_and_f1_in_the_averages():
    """The issue's matrix: observed 0.544 / 0.599 now lie inside the posterior intervals."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = bcm.fit(bcm.ConfusionMatrix(CASES["absent true class"]), random_seed=1)
    table = bcm.summary(fit, var_names=["f1_macro", "ppv_macro"])
    for row in table.itertuples():
        assert row.hdi_lower < row.observed < row.hdi_upper, row
        assert abs(row.mean - row.observed) < 0.05, row


def test_undefined_classes_lists_only_undefined_metrics():
    masks = undefined_classes(np.array(CASES["never predicted"]))
    assert masks["ppv"].tolist() == [False, False, True]
    assert "tpr" not in masks and "f1" not in masks
