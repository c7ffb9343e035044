"""One rule for item inputs (issue 26): 0/1 labels, pandas alignment, precision of summaries."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.metrics import roc_auc_score

import bayescm as bcm
from bayescm.io.readers import read_matrix_csv

RNG = np.random.default_rng(0)
Y = pd.Series(RNG.integers(0, 2, 60))
S = Y + RNG.random(60) * 0.5  # separates the classes perfectly, item by item


def test_series_of_one_index_are_paired_by_index_not_position():
    shuffled = S.sample(frac=1, random_state=1)
    fit = bcm.fit(bcm.Scores(Y, {"A": S, "B": shuffled}), draws=50, random_seed=0)
    assert fit["observed_metrics"]["auc"].values.tolist() == [1.0, 1.0]
    by_frame = bcm.Scores(Y.sample(frac=1, random_state=2), pd.DataFrame({"A": S, "B": shuffled}))
    assert by_frame.names == ["A", "B"]
    np.testing.assert_array_equal(by_frame.scores["B"], S.loc[by_frame_index(Y, 2)].to_numpy())


def by_frame_index(y: pd.Series, seed: int) -> pd.Index:
    return y.sample(frac=1, random_state=seed).index


def test_predictions_and_paired_comparisons_are_aligned_too():
    pred = (S > 0.75).astype(int)
    aligned = bcm.ConfusionMatrix.from_predictions(Y, pred.sample(frac=1, random_state=3))
    assert aligned == bcm.ConfusionMatrix.from_predictions(Y.to_numpy(), pred.to_numpy())
    other = (S > 0.9).astype(int)
    res = bcm.compare_paired(Y, pred, other.sample(frac=1, random_state=4), metrics=["acc"],
                             draws=200, random_seed=0)
    want = bcm.compare_paired(Y.to_numpy(), pred.to_numpy(), other.to_numpy(), metrics=["acc"],
                              draws=200, random_seed=0)
    np.testing.assert_array_equal(res["posterior"]["acc_diff"].values,
                                  want["posterior"]["acc_diff"].values)


@pytest.mark.parametrize(("labels", "positive"), [([0, 1], 1), ([False, True], True),
                                                  (["0", "1"], "1"), ([0.0, 1.0], 1.0)])
def test_zero_one_labels_make_one_positive_everywhere(labels, positive):
    y = [labels[i] for i in (1, 0, 1, 1, 0, 1, 0, 0)]
    p = [labels[i] for i in (1, 0, 0, 1, 0, 1, 1, 0)]
    cm = bcm.ConfusionMatrix.from_predictions(y, p)
    assert cm.is_binary and cm.positive == positive
    assert cm.cells == {"tp": 3, "fn": 1, "fp": 1, "tn": 3}
    assert bcm.Scores(y, np.linspace(0, 1, 8)).positive == positive
    res = bcm.compare_paired(y, p, y, metrics=["tpr"], draws=20, random_seed=0)
    assert res.attrs["family"] == "binary"


def test_other_two_class_labels_need_positive_or_stay_multiclass():
    cm = bcm.ConfusionMatrix.from_predictions(["a", "b", "a"], ["a", "a", "b"])
    assert not cm.is_binary
    with pytest.raises(ValueError, match="positive="):
        bcm.Scores(["a", "b", "a"], [0.2, 0.7, 0.4])


def test_a_zero_one_matrix_file_is_binary(tmp_path):
    path = tmp_path / "m.csv"
    path.write_text("true\\pred,0,1\n0,20,3\n1,4,30\n")
    cm = read_matrix_csv(path)
    assert cm.positive == "1" and cm.cells == {"tp": 30, "fn": 4, "fp": 3, "tn": 20}


def test_scikit_learn_auc_with_0_1_labels_and_predict_proba_column():
    y = RNG.integers(0, 2, 200)
    proba = np.clip(np.c_[1 - y, y] * 0.6 + RNG.random((200, 2)) * 0.4, 0, 1)
    with pytest.raises(ValueError, match=r"proba\[:, 1\]"):
        bcm.Scores(y, proba)
    fit = bcm.fit(bcm.Scores(y, proba[:, 1]), draws=50, random_seed=0)
    assert float(fit["observed_metrics"]["auc"]) == pytest.approx(roc_auc_score(y, proba[:, 1]))


def test_summaries_of_huge_matrices_keep_their_digits():
    """[[1e9, 1], [1, 1e9]]: TPR ~ Beta(1e9 + 1, 2), sd 1.4e-9, below float32's resolution."""
    counts = np.array([[[10**9, 1], [1, 10**9]]])
    table = bcm.summarize_batch(counts, ["tpr"], labels=["p", "n"], positive="p", random_seed=0)
    row = table.loc[("0", "tpr")]
    a, b = 10**9 + 1, 2  # sd of Beta(a, b) in closed form (scipy loses it at this size)
    assert row["sd"] == pytest.approx(np.sqrt(a * b / ((a + b) ** 2 * (a + b + 1))), rel=0.05)
    # 1 - TPR is nearly Gamma(2, 1e-9): its 95 % HDI is narrower than [0, q95], 4.7e-9
    q95 = stats.gamma(2, scale=1 / (a + b)).ppf(0.95)
    assert 0.8 * q95 < row["mu"] < 1.02 * q95
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit = bcm.fit(bcm.ConfusionMatrix(counts[0], labels=["p", "n"], positive="p"),
                      random_seed=0)
    assert bcm.summary(fit, var_names=["tpr"]).loc["tpr", "mu"] == pytest.approx(row["mu"],
                                                                               rel=0.1)


def test_large_integer_scores_keep_their_order():
    y = [0, 1, 0, 1]
    big = np.array([2**40, 2**40 + 2, 2**40 + 1, 2**40 + 3], dtype=np.int64)
    fit = bcm.fit(bcm.Scores(y, big), draws=20, random_seed=0)
    assert float(fit["observed_metrics"]["auc"]) == 1.0
