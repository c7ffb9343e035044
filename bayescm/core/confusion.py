"""The confusion matrix: validated counts with labels; rows true class, columns prediction."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from bayescm.core.arguments import check_names, keyword_checked, warn_user
from bayescm.core.counts import (
    _as_label_array,
    _labelled,
    _validate_counts,
    _validate_labels,
)
from bayescm.core.itemwise import align_items, default_positive
from bayescm.core.validate import check_count_array
from bayescm.errors import EmptyMatrixWarning

__all__ = ["ConfusionMatrix", "EmptyMatrixWarning"]


class ConfusionMatrix:
    """An immutable, validated confusion matrix.

    Rows are the **true** class and columns the **predicted** class (the scikit-learn
    convention). A binary matrix is one with two classes *and* a named positive class, which is
    moved to the first row and column so that the counts read ``[[TP, FN], [FP, TN]]``. The
    positive class is never guessed: a 2x2 array without ``positive`` is treated as a two-class
    multiclass matrix.

    Parameters
    ----------
    counts : array-like of int, shape (K, K), pandas DataFrame or xarray DataArray
        Non-negative whole numbers; floats are accepted only when they are integral (and below
        ``2**53``, where floats are exact). Every cell and the total must fit in a signed
        64-bit integer (an ``OverflowError`` says so otherwise). A DataFrame is read by label:
        its index names the true classes and its columns the predicted ones (a DataArray: its
        ``true_class`` and ``pred_class`` coordinates); both must name the same classes, and the
        cells are aligned by label, never by position. A numpy masked array with masked cells
        is refused (a masked cell is a missing count, not a zero).
    labels : sequence of hashable, optional
        One label per class, in the order of the rows; default ``0 .. K-1`` (a labelled table's
        own labels). For a labelled table ``labels`` chooses the order of its classes.
    positive : hashable, optional
        The positive class's label (binary analysis of a 2x2 matrix).
    ordered : bool, default False
        Whether the classes have a natural order (enables weighted Kappa and distance-aware
        errors for multiclass matrices).

    Raises
    ------
    TypeError
        Boolean or non-numeric counts, unhashable labels.
    ValueError
        Negative, fractional, NaN or infinite counts, masked cells, a non-square shape,
        duplicate or mismatched labels (a table whose rows and columns name different
        classes), a positive label that is not among the labels, or ``positive`` given for a
        matrix with more than two classes.
    OverflowError
        A cell or the total above ``2**63 - 1``.

    See Also
    --------
    ConfusionMatrix.from_counts : The matrix from the four counts a paper reports.
    ConfusionMatrix.from_predictions : The matrix from labels and predictions.
    fit : The posterior of every metric of the matrix.

    Examples
    --------
    >>> import bayescm as bcm
    >>> cm = bcm.ConfusionMatrix([[26, 0], [2, 6]], labels=["high", "low"], positive="high")
    >>> cm.is_binary, cm.n
    (True, 34)
    >>> cm.cells
    {'tp': 26, 'fn': 0, 'fp': 2, 'tn': 6}
    """

    __slots__ = ("_counts", "_labels", "_ordered", "_positive")
    _counts: np.ndarray
    _labels: tuple[Hashable, ...]
    _positive: Hashable | None
    _ordered: bool

    @keyword_checked
    def __init__(
        self,
        counts: Any,
        labels: Sequence[Hashable] | None = None,
        positive: Hashable | None = None,
        ordered: bool = False,
    ) -> None:
        counts, labels = _labelled(counts, labels)
        arr = _validate_counts(counts)
        labs = _validate_labels(labels, arr.shape[0])
        if not isinstance(ordered, (bool, np.bool_)):
            raise TypeError(f"ordered must be True or False, got {ordered!r}.")
        if positive is not None:
            if arr.shape[0] != 2:
                raise ValueError(
                    f"positive={positive!r} only makes sense for 2 classes; this matrix has "
                    f"{arr.shape[0]}. Per-class one-vs-rest metrics cover the multiclass case."
                )
            if positive not in labs:
                raise ValueError(f"positive={positive!r} is not one of the labels {list(labs)}.")
            if labs.index(positive) == 1:  # move the positive class first
                arr = arr[::-1, ::-1].copy()
                arr.setflags(write=False)
                labs = labs[::-1]
        if arr.sum() == 0:
            warn_user(
                "The confusion matrix is all zeros: there is no data, so the posterior will "
                "equal the prior.",
                EmptyMatrixWarning,
            )
        object.__setattr__(self, "_counts", arr)
        object.__setattr__(self, "_labels", labs)
        object.__setattr__(self, "_positive", positive)
        object.__setattr__(self, "_ordered", bool(ordered))

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError("ConfusionMatrix is immutable; create a new one instead.")

    def __reduce__(self) -> tuple[Any, ...]:
        # rebuilt from the validated state (no second validation, no repeated warnings), so a
        # matrix pickles, copies and travels to other processes (ProcessPoolExecutor, dask)
        return (_rebuild, (self._counts.tolist(), self._labels, self._positive, self._ordered))

    def __copy__(self) -> ConfusionMatrix:
        return self  # immutable: a copy is the same value

    def __deepcopy__(self, memo: dict[int, Any]) -> ConfusionMatrix:
        return self

    # ---------------------------------------------------------------- constructors
    @classmethod
    @keyword_checked
    def from_counts(
        cls,
        *,
        tp: int,
        fn: int,
        tn: int,
        fp: int,
        labels: tuple[Hashable, Hashable] = ("positive", "negative"),
    ) -> ConfusionMatrix:
        """Binary confusion matrix from its four cells.

        Parameters
        ----------
        tp, fn, tn, fp : int
            True positives, false negatives, true negatives, false positives.
        labels : pair of hashable, default ("positive", "negative")
            Names of the positive and the negative class.

        Raises
        ------
        TypeError
            A count that is a boolean, text or not a single number.
        ValueError
            ``labels`` that are not two.

        See Also
        --------
        ConfusionMatrix.from_predictions : The matrix from labels and predictions.
        bayescm.fit : The posterior of every metric of the matrix.
        bayescm.datasets.literature_matrices : Published matrices to try.

        Examples
        --------
        >>> import bayescm as bcm
        >>> cm = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
        >>> cm.counts.tolist()
        [[26, 0], [2, 6]]
        """
        cells = {"tp": tp, "fn": fn, "tn": tn, "fp": fp}
        for name, value in cells.items():
            if isinstance(value, (bool, np.bool_)):
                raise TypeError(f"{name} is a boolean ({value}); pass a count.")
            if isinstance(value, (str, bytes)) or np.ndim(value) != 0:
                raise TypeError(f"{name} must be a single count, got {value!r}.")
            cells[name] = int(check_count_array(np.array([value], dtype=object), name)[0])
        if isinstance(labels, (str, bytes)):
            raise TypeError(f"labels must be a pair of class names such as ('yes', 'no'), got "
                            f"the string {labels!r}.")
        pair = tuple(labels)
        if len(pair) != 2:
            raise ValueError(f"A binary matrix needs 2 labels, got {len(pair)}.")
        return cls([[cells["tp"], cells["fn"]], [cells["fp"], cells["tn"]]], labels=pair,
                   positive=pair[0])

    @classmethod
    @keyword_checked
    def from_predictions(
        cls,
        y_true: Iterable[Hashable],
        y_pred: Iterable[Hashable],
        labels: Sequence[Hashable] | None = None,
        positive: Hashable | None = None,
        ordered: bool = False,
    ) -> ConfusionMatrix:
        """Count a confusion matrix from true and predicted labels.

        Parameters
        ----------
        y_true, y_pred : sequence of hashable
            Labels of equal length; missing values (None, NaN) are rejected.
        labels : sequence of hashable, optional
            The classes and their order. Default: the sorted union of both inputs (with
            ``positive`` moved first). Classes listed here that never occur get empty rows.
        positive : hashable, optional
            The positive class for a binary analysis. When the two classes are ``0``/``1``
            or ``False``/``True`` it defaults to 1 / True (scikit-learn's ``pos_label``);
            other labels without it give a two-class (multiclass) matrix.
        ordered : bool, default False
            Whether the classes are ordered (then ``labels`` should give the order).

        Raises
        ------
        ValueError
            ``y_true`` and ``y_pred`` of different lengths, duplicate ``labels``, a label in the
            data missing from ``labels``, or fewer than two classes.

        See Also
        --------
        ConfusionMatrix.from_counts : The matrix from the four counts of a paper.
        bayescm.Scores : Keep the scores, not only the decisions, for ROC and PR curves.
        bayescm.fit : The posterior of every metric of the matrix.

        Notes
        -----
        pandas Series are paired by their index (differing index sets are an error); plain
        sequences by position (:mod:`bayescm.core.itemwise`).

        Examples
        --------
        >>> import bayescm as bcm
        >>> cm = bcm.ConfusionMatrix.from_predictions([1, 1, 0, 0], [1, 0, 0, 0])
        >>> cm.positive, cm.cells
        (1, {'tp': 1, 'fn': 1, 'fp': 0, 'tn': 2})
        """
        y_true, y_pred = align_items({"y_true": y_true, "y_pred": y_pred}).values()
        t = _as_label_array(y_true, "y_true")
        p = _as_label_array(y_pred, "y_pred")
        if t.shape != p.shape:
            raise ValueError(f"y_true has {t.size} labels but y_pred has {p.size}.")
        if labels is None:
            seen = list(dict.fromkeys(t.tolist() + p.tolist()))
            try:
                labels = sorted(seen)
            except TypeError:
                labels = seen
        labels = list(labels)
        index = {label: i for i, label in enumerate(labels)}
        if len(index) != len(labels):
            raise ValueError("labels contains duplicates.")
        unknown = [v for v in dict.fromkeys(t.tolist() + p.tolist()) if v not in index]
        if unknown:
            raise ValueError(f"Labels {unknown[:5]} occur in the data but not in labels={labels}.")
        k = len(labels)
        if k < 2:
            raise ValueError(
                f"Only one class ({labels}) occurs; pass labels=[...] naming all classes."
            )
        if positive is None:
            positive = default_positive(labels)  # 0/1 and False/True: 1 / True, binary
        ti = np.fromiter((index[v] for v in t.tolist()), dtype=np.int64, count=t.size)
        pi = np.fromiter((index[v] for v in p.tolist()), dtype=np.int64, count=p.size)
        counts = np.bincount(ti * k + pi, minlength=k * k).reshape(k, k)
        return cls(counts, labels=labels, positive=positive, ordered=ordered)

    # ---------------------------------------------------------------- properties
    @property
    def counts(self) -> np.ndarray:
        """Read-only ``(K, K)`` int64 array; rows true, columns predicted."""
        return self._counts

    @property
    def labels(self) -> tuple[Hashable, ...]:
        """Class labels in row order (positive first for a binary matrix)."""
        return self._labels

    @property
    def coords(self) -> list[str]:
        """Labels as strings, used as coordinates of the result."""
        return [str(label) for label in self._labels]

    @property
    def positive(self) -> Hashable | None:
        """The positive class, or None for a multiclass matrix."""
        return self._positive

    @property
    def ordered(self) -> bool:
        """Whether the classes are ordered."""
        return self._ordered

    @property
    def n_classes(self) -> int:
        """Number of classes K."""
        return self._counts.shape[0]

    @property
    def n(self) -> int:
        """Total number of samples."""
        return int(self._counts.sum())

    @property
    def is_binary(self) -> bool:
        """True for a 2x2 matrix with a named positive class."""
        return self._positive is not None

    @property
    def cells(self) -> dict[str, int]:
        """``{"tp", "fn", "fp", "tn"}`` counts of a binary matrix."""
        if not self.is_binary:
            raise ValueError("cells are defined for binary matrices only; pass positive=...")
        (tp, fn), (fp, tn) = self._counts.tolist()
        return {"tp": tp, "fn": fn, "fp": fp, "tn": tn}

    @property
    def kind(self) -> str:
        """``"binary"`` or ``"multiclass"``."""
        return "binary" if self.is_binary else "multiclass"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ConfusionMatrix):
            return NotImplemented
        return (
            np.array_equal(self._counts, other._counts)
            and self._labels == other._labels
            and self._positive == other._positive
            and self._ordered == other._ordered
        )

    def __hash__(self) -> int:
        return hash((self._counts.tobytes(), self._labels, self._positive, self._ordered))

    def __repr__(self) -> str:
        extra = f", positive={self._positive!r}" if self.is_binary else ""
        extra += ", ordered=True" if self._ordered else ""
        return (
            f"ConfusionMatrix({self._counts.tolist()}, labels={list(self._labels)!r}{extra})"
        )


def _rebuild(counts: list[list[int]], labels: tuple[Hashable, ...], positive: Hashable | None,
             ordered: bool) -> ConfusionMatrix:
    """A ConfusionMatrix from the state written by ``__reduce__`` (already validated)."""
    cm = object.__new__(ConfusionMatrix)
    arr = np.array(counts, dtype=np.int64)
    arr.setflags(write=False)
    for name, value in (("_counts", arr), ("_labels", tuple(labels)), ("_positive", positive),
                        ("_ordered", bool(ordered))):
        object.__setattr__(cm, name, value)
    return cm


def as_batch(data: Any) -> tuple[list[str] | None, list[ConfusionMatrix]]:
    """Normalise ``fit``'s input to (names or None, matrices), checking a batch is consistent."""
    if isinstance(data, ConfusionMatrix):
        return None, [data]
    if isinstance(data, Mapping):
        if not data:
            raise ValueError("data is an empty mapping of classifiers; give at least one "
                             "{name: ConfusionMatrix}.")
        names = check_names(data, "data: classifier names")
        mats = list(data.values())
        for name, cm in zip(names, mats, strict=True):
            if not isinstance(cm, ConfusionMatrix):
                raise TypeError(
                    f"data: classifier {name!r} is a {type(cm).__name__}, not a ConfusionMatrix; "
                    "wrap counts with bcm.ConfusionMatrix(...) or from_counts(...)."
                )
        first = mats[0]
        for name, cm in zip(names, mats, strict=True):
            if cm.counts.shape != first.counts.shape or cm.labels != first.labels:
                raise ValueError(
                    f"Classifier {name!r} has labels {list(cm.labels)}, but {names[0]!r} has "
                    f"{list(first.labels)}; a batch needs matrices of the same classes."
                )
            if cm.positive != first.positive or cm.ordered != first.ordered:
                raise ValueError(
                    f"Classifier {name!r} differs from {names[0]!r} in positive/ordered."
                )
        return names, mats
    raise TypeError(
        f"data must be a ConfusionMatrix or a mapping of names to them, got "
        f"{type(data).__name__}; wrap counts with bcm.ConfusionMatrix(...)."
    )
