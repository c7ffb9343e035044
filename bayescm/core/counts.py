"""Validation of count tables: exact non-negative integers that fit in int64, labels that align."""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Sequence
from typing import Any

import numpy as np

from bayescm.core.arguments import check_names, keyword_checked
from bayescm.core.itemwise import align_items, default_positive, two_dim_hint
from bayescm.core.validate import INT64_MAX, check_count_array


def _validate_counts(counts: Any) -> np.ndarray:
    if isinstance(counts, (str, bytes)):
        raise TypeError(f"Counts must be a square numeric array, got the string {counts!r}.")
    if np.ma.isMaskedArray(counts) and np.ma.getmaskarray(counts).any():
        raise ValueError(
            "Counts are a masked array with masked cells. A masked cell is a missing count, not "
            "a zero, and a confusion matrix cannot have one: fill the cells you know "
            "(counts.filled(0) if masked means none) or drop the class.")
    try:
        if isinstance(counts, np.ndarray):
            arr = np.asarray(np.ma.getdata(counts))
        else:  # nested lists: keep Python integers exact (numpy may turn 2**63 into a float)
            arr = np.array(counts, dtype=object)
            if any(isinstance(v, (list, tuple, np.ndarray)) for v in arr.reshape(-1).tolist()):
                raise ValueError("the rows have different lengths")
            if arr.size and all(
                    isinstance(v, numbers.Integral) and not isinstance(v, (bool, np.bool_))
                    and -INT64_MAX <= int(v) <= INT64_MAX for v in arr.reshape(-1).tolist()):
                arr = arr.astype(np.int64)
            elif arr.size and all(isinstance(v, (bool, np.bool_)) for v in arr.reshape(-1)):
                arr = arr.astype(bool)
    except Exception as exc:  # ragged lists and the like
        raise ValueError(f"Counts could not be read as an array: {exc}") from None
    if arr.dtype == bool:
        raise TypeError(
            "Counts are booleans; pass the number of samples in each cell (integers), "
            "or use ConfusionMatrix.from_predictions for labels."
        )
    if arr.dtype.kind not in "iufO":
        raise TypeError(
            f"Counts must be numbers, got an array of dtype {arr.dtype}; "
            "convert them to integers first."
        )
    if arr.ndim != 2 or arr.shape[0] != arr.shape[1]:
        raise ValueError(
            f"Counts must be a square 2-D array (rows = true class, columns = predicted "
            f"class), got shape {arr.shape}."
        )
    if arr.shape[0] < 2:
        raise ValueError(f"A confusion matrix needs at least 2 classes, got shape {arr.shape}.")
    out = check_count_array(arr, "Counts")
    out.setflags(write=False)
    return out


def _labelled(counts: Any, labels: Sequence[Hashable] | None
              ) -> tuple[Any, Sequence[Hashable] | None]:
    """Counts and labels of a labelled table, aligned by label (rows true, columns predicted).

    A pandas DataFrame's index names the true classes and its columns the predicted ones; an
    xarray DataArray's ``true_class`` and ``pred_class`` coordinates do the same. Both must name
    the same classes. The cells are taken by label, in the order of ``labels`` when given, else
    of the rows, so reordered columns can never misalign the matrix.
    """
    if isinstance(counts, np.ndarray) or (not hasattr(counts, "dims") and not (
            hasattr(counts, "columns") and hasattr(counts, "index"))):
        return counts, labels
    if hasattr(counts, "columns"):  # pandas DataFrame
        rows, cols = list(counts.index), list(counts.columns)
        what = "The DataFrame's index (true classes) and columns (predicted classes)"
    else:  # xarray DataArray
        dims = tuple(counts.dims)
        if set(dims) != {"true_class", "pred_class"}:
            raise ValueError(f"A DataArray of counts needs the dims ('true_class', 'pred_class'), "
                             f"got {dims}.")
        counts = counts.transpose("true_class", "pred_class")
        rows = [v.item() if hasattr(v, "item") else v for v in counts["true_class"].values]
        cols = [v.item() if hasattr(v, "item") else v for v in counts["pred_class"].values]
        what = "The DataArray's true_class and pred_class coordinates"
    if len(set(rows)) != len(rows) or len(set(cols)) != len(cols):
        raise ValueError(f"{what} contain duplicate labels: {rows} / {cols}.")
    if set(rows) != set(cols):
        raise ValueError(
            f"{what} must name the same classes; rows {rows}, columns {cols}. Relabel them so "
            "that every true class has its predicted column.")
    order = list(rows) if labels is None else list(labels)
    if isinstance(labels, (str, bytes)):
        raise TypeError(f"labels must be a sequence of class labels, got the string {labels!r}.")
    if set(order) != set(rows) or len(order) != len(rows):
        raise ValueError(f"labels {order} must be the classes of the table, {rows} (in any order).")
    if hasattr(counts, "columns"):
        values = counts.loc[order, order].to_numpy()
    else:
        values = counts.sel(true_class=order, pred_class=order).values
    return values, order


def _validate_labels(labels: Sequence[Hashable] | None, k: int) -> tuple[Hashable, ...]:
    if labels is None:
        return tuple(range(k))
    if isinstance(labels, (str, bytes)):
        raise TypeError(f"labels must be a sequence of class labels, got the string {labels!r}.")
    labels = tuple(labels)
    if len(labels) != k:
        raise ValueError(f"Got {len(labels)} labels for a {k}x{k} matrix; give one per class.")
    for label in labels:
        if not isinstance(label, Hashable) or label is None:
            raise TypeError(f"Class labels must be hashable and not None, got {label!r}.")
        if isinstance(label, float) and np.isnan(label):
            raise ValueError("A class label is NaN; labels must be distinct, comparable values.")
    if len(set(labels)) != k:
        dupes = sorted({str(n) for n in labels if labels.count(n) > 1})
        raise ValueError(f"Class labels must be unique; duplicated: {dupes}.")
    check_names(labels, "Class labels")
    return labels


def _as_label_array(values: Iterable[Hashable], name: str) -> np.ndarray:
    if isinstance(values, (str, bytes)):
        raise TypeError(f"{name} must be a sequence of labels, not a single string.")
    if np.ma.isMaskedArray(values):
        if np.ma.getmaskarray(values).any():
            raise ValueError(f"{name} is a masked array with masked entries; a masked label is "
                             "missing: drop those samples (from both label vectors) first.")
        values = np.ma.getdata(values)
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):  # pandas
        values = values.to_numpy(dtype=object)
    if not hasattr(values, "__len__"):
        if not isinstance(values, Iterable):
            raise TypeError(f"{name} must be a sequence of labels, got {type(values).__name__}.")
        values = list(values)  # a generator or another one-pass iterable
    arr = np.asarray(values, dtype=object)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be one-dimensional, got shape {arr.shape}."
                         + two_dim_hint(arr.shape))
    for v in arr:
        if v is None or v is getattr(np.ma, "masked", None) or (
                isinstance(v, (float, np.floating)) and np.isnan(v)) or _is_pandas_missing(v):
            raise ValueError(f"{name} contains a missing value ({v!r}); drop or label it first.")
    return arr


def _is_pandas_missing(v: Any) -> bool:
    return type(v).__name__ in ("NAType", "NaTType")


@keyword_checked
def encode_labels(
    y_true: Iterable[Hashable],
    preds: Sequence[Iterable[Hashable]],
    labels: Sequence[Hashable] | None = None,
    positive: Hashable | None = None,
    pred_names: Sequence[str] = ("pred_a", "pred_b"),
) -> tuple[list[Hashable], Hashable | None, np.ndarray, list[np.ndarray]]:
    """Integer codes of true labels and of one or more prediction vectors.

    The class order is ``labels`` or the sorted union of all inputs, with ``positive`` moved
    first (the binary convention: positive class in row 0). pandas Series are paired by index
    and 0/1 or False/True classes make 1 / True positive (:mod:`bayescm.core.itemwise`); the
    positive class in force is returned beside the classes.

    Examples
    --------
    >>> from bayescm.core.counts import encode_labels
    >>> classes, positive, t, (a,) = encode_labels(["n", "p", "p"], [["p", "p", "n"]],
    ...                                            positive="p")
    >>> classes, t.tolist(), a.tolist()
    (['p', 'n'], [1, 0, 0], [0, 0, 1])
    >>> encode_labels([0, 1, 1], [[1, 1, 0]])[:2]
    ([1, 0], 1)
    """
    names = [*pred_names, *(f"predictions {i + 1}" for i in range(len(pred_names), len(preds)))]
    named = align_items({"y_true": y_true, **dict(zip(names, preds, strict=False))})
    t = _as_label_array(named["y_true"], "y_true")
    ps = [_as_label_array(named[name], name) for name in names[:len(preds)]]
    for p, name in zip(ps, names, strict=False):
        if p.size != t.size:
            raise ValueError(
                f"y_true has {t.size} labels but {name} has {p.size}; every prediction vector "
                "must cover the same samples."
            )
    if t.size == 0:
        raise ValueError("No samples: y_true is empty.")
    seen = list(dict.fromkeys([*t.tolist(), *(v for p in ps for v in p.tolist())]))
    if labels is None:
        try:
            classes = sorted(seen)
        except TypeError:
            classes = seen
    else:
        if isinstance(labels, (str, bytes)):
            raise TypeError(f"labels must be a sequence of class labels, got {labels!r}.")
        classes = list(labels)
        if len(set(classes)) != len(classes):
            raise ValueError("labels contains duplicates.")
    if positive is None and len(classes) == 2:
        positive = default_positive(classes)  # 0/1 and False/True: 1 / True, binary
    if positive is not None:
        if positive not in classes:
            raise ValueError(f"positive={positive!r} is not among the classes {classes}.")
        classes = [positive] + [c for c in classes if c != positive]
    index = {c: i for i, c in enumerate(classes)}
    unknown = [v for v in seen if v not in index]
    if unknown:
        raise ValueError(f"Labels {unknown[:5]} occur in the data but not in labels={classes}.")
    if len(classes) < 2:
        raise ValueError(f"Only one class ({classes}) occurs; pass labels=[...] naming all.")

    def codes(arr: np.ndarray) -> np.ndarray:
        return np.fromiter((index[v] for v in arr.tolist()), dtype=np.int64, count=arr.size)

    return classes, positive, codes(t), [codes(p) for p in ps]
