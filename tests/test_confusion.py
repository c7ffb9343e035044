"""ConfusionMatrix: construction, orientation, immutability and every bad input."""

from __future__ import annotations

import numpy as np
import pytest

import bayescm as bcm


def test_from_counts_orientation(cocaine):
    assert cocaine.counts.tolist() == [[26, 0], [2, 6]]
    assert cocaine.cells == {"tp": 26, "fn": 0, "fp": 2, "tn": 6}
    assert cocaine.is_binary
    assert cocaine.kind == "binary"
    assert cocaine.n == 34


def test_positive_moved_first():
    cm = bcm.ConfusionMatrix([[6, 2], [0, 26]], labels=["low", "high"], positive="high")
    assert cm.labels == ("high", "low")
    assert cm.cells == {"tp": 26, "fn": 0, "fp": 2, "tn": 6}


def test_two_by_two_without_positive_is_not_binary():
    cm = bcm.ConfusionMatrix([[1, 2], [3, 4]])
    assert not cm.is_binary
    assert cm.kind == "multiclass"
    with pytest.raises(ValueError, match="binary matrices only"):
        _ = cm.cells


def test_immutable(cocaine):
    with pytest.raises(AttributeError, match="immutable"):
        cocaine.labels = ("a", "b")
    with pytest.raises(ValueError, match="read-only"):
        cocaine.counts[0, 0] = 5


def test_float_integral_counts_accepted():
    cm = bcm.ConfusionMatrix(np.array([[3.0, 1.0], [0.0, 2.0]]), positive=0)
    assert cm.counts.dtype == np.int64
    assert cm.n == 6


def test_from_predictions_matches_manual_count():
    y_true = ["cat", "dog", "dog", "cat", "bird", "dog"]
    y_pred = ["cat", "cat", "dog", "cat", "dog", "dog"]
    cm = bcm.ConfusionMatrix.from_predictions(y_true, y_pred)
    assert cm.labels == ("bird", "cat", "dog")
    expected = np.zeros((3, 3), int)
    for t, p in zip(y_true, y_pred, strict=True):
        expected[cm.labels.index(t), cm.labels.index(p)] += 1
    assert np.array_equal(cm.counts, expected)


def test_from_predictions_agrees_with_sklearn():
    from sklearn.metrics import confusion_matrix

    r = np.random.default_rng(3)
    y_true, y_pred = r.integers(0, 4, 200), r.integers(0, 4, 200)
    cm = bcm.ConfusionMatrix.from_predictions(y_true, y_pred, labels=[0, 1, 2, 3])
    assert np.array_equal(cm.counts, confusion_matrix(y_true, y_pred, labels=[0, 1, 2, 3]))


def test_from_predictions_binary_and_extra_labels():
    cm = bcm.ConfusionMatrix.from_predictions([1, 1, 0], [1, 0, 0], positive=1)
    assert cm.cells == {"tp": 1, "fn": 1, "fp": 0, "tn": 1}
    cm = bcm.ConfusionMatrix.from_predictions(["a", "a"], ["a", "b"], labels=["a", "b", "c"])
    assert cm.counts[2].sum() == 0


def test_all_zero_warns():
    with pytest.warns(bcm.errors.EmptyMatrixWarning, match="posterior will equal the prior"):
        bcm.ConfusionMatrix.from_counts(tp=0, fn=0, tn=0, fp=0)


@pytest.mark.parametrize(
    ("counts", "error", "message"),
    [
        ([[1, -2], [3, 4]], ValueError, "non-negative"),
        ([[1.5, 2], [3, 4]], ValueError, "whole numbers.*1.5"),
        ([[np.nan, 2], [3, 4]], ValueError, "NaN"),
        ([[np.inf, 2], [3, 4]], ValueError, "infinite"),
        ([[True, False], [False, True]], TypeError, "booleans"),
        ([["a", "b"], ["c", "d"]], TypeError, "must be numbers"),
        ("1234", TypeError, "string"),
        ([1, 2, 3, 4], ValueError, "square 2-D"),
        ([[1, 2, 3], [4, 5, 6]], ValueError, "square 2-D"),
        ([[1]], ValueError, "at least 2 classes"),
        ([[1, 2], [3]], ValueError, "could not be read"),
        ([[None, 1], [2, 3]], TypeError, "must be numbers"),
    ],
)
def test_bad_counts(counts, error, message):
    with pytest.raises(error, match=message):
        bcm.ConfusionMatrix(counts)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"labels": ["a", "a"]}, ValueError, "unique"),
        ({"labels": ["a", "b", "c"]}, ValueError, "3 labels for a 2x2"),
        ({"labels": [1, "1"]}, ValueError, "unique"),
        ({"labels": ["a", None]}, TypeError, "hashable and not None"),
        ({"labels": "ab"}, TypeError, "string"),
        ({"labels": ["a", "b"], "positive": "c"}, ValueError, "not one of the labels"),
        ({"ordered": "yes"}, TypeError, "ordered must be True or False"),
    ],
)
def test_bad_labels(kwargs, error, message):
    with pytest.raises(error, match=message):
        bcm.ConfusionMatrix([[1, 2], [3, 4]], **kwargs)


def test_positive_for_multiclass_rejected():
    with pytest.raises(ValueError, match="only makes sense for 2 classes"):
        bcm.ConfusionMatrix(np.ones((3, 3)), positive=0)


@pytest.mark.parametrize(
    ("kwargs", "error", "message"),
    [
        ({"tp": True, "fn": 1, "tn": 1, "fp": 1}, TypeError, "tp is a boolean"),
        ({"tp": "3", "fn": 1, "tn": 1, "fp": 1}, TypeError, "single count"),
        ({"tp": [1, 2], "fn": 1, "tn": 1, "fp": 1}, TypeError, "single count"),
        ({"tp": 1, "fn": -1, "tn": 1, "fp": 1}, ValueError, "non-negative"),
        ({"tp": 1, "fn": 0.5, "tn": 1, "fp": 1}, ValueError, "whole numbers"),
    ],
)
def test_bad_from_counts(kwargs, error, message):
    with pytest.raises(error, match=message):
        bcm.ConfusionMatrix.from_counts(**kwargs)


@pytest.mark.parametrize(
    ("y_true", "y_pred", "kwargs", "message"),
    [
        ([1, 2], [1], {}, "2 labels but y_pred has 1"),
        ([1, None], [1, 2], {}, "missing value"),
        ([1.0, float("nan")], [1.0, 2.0], {}, "missing value"),
        ([1, 2], [1, 3], {"labels": [1, 2]}, r"\[3\] occur in the data"),
        ([1, 1], [1, 1], {}, "Only one class"),
        ([[1, 2]], [[1, 2]], {}, "one-dimensional"),
    ],
)
def test_bad_predictions(y_true, y_pred, kwargs, message):
    with pytest.raises(ValueError, match=message):
        bcm.ConfusionMatrix.from_predictions(y_true, y_pred, **kwargs)


def test_batch_validation(cocaine):
    with pytest.raises(ValueError, match="empty"):
        bcm.fit({})
    with pytest.raises(TypeError, match="not a ConfusionMatrix"):
        bcm.fit({"a": cocaine, "b": [[1, 2], [3, 4]]})
    other = bcm.ConfusionMatrix.from_counts(tp=1, fn=1, tn=1, fp=1, labels=("yes", "no"))
    with pytest.raises(ValueError, match="same classes"):
        bcm.fit({"a": cocaine, "b": other})
    with pytest.raises(TypeError, match="ConfusionMatrix or a mapping"):
        bcm.fit([[26, 0], [2, 6]])


def test_equality_and_hash(cocaine):
    same = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    assert same == cocaine
    assert hash(same) == hash(cocaine)
    assert "positive='positive'" in repr(cocaine)
