"""Scored test items: true labels and one or more classifiers' scores, validated.

A :class:`Scores` object is to soft predictions what :class:`~bayescm.ConfusionMatrix` is to
hard ones: the validated data of a test set. Each classifier gives one real-valued score per
item (higher means "more positive"; a probability when the Brier score, the log-loss and
calibration are wanted), and several classifiers scored on the *same* items are kept together
so that they can be compared on one posterior (:mod:`bayescm.models.roc`).
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bayescm.core.arguments import check_names, keyword_checked
from bayescm.core.counts import _as_label_array
from bayescm.core.csvtable import CSVTable, read_csv
from bayescm.core.itemwise import align_items, default_positive, is_pandas, two_dim_hint

__all__ = ["Scores", "scores_from_table"]


def _score_vector(values: Any, name: str, n: int) -> np.ndarray:
    if isinstance(values, (str, bytes)):
        raise TypeError(f"The scores of {name} must be numbers, not a string.")
    if np.ma.isMaskedArray(values) and np.ma.getmaskarray(values).any():
        raise ValueError(f"The scores of {name} are a masked array with masked entries; "
                         "score every item or drop the unscored ones.")
    if hasattr(values, "to_numpy") and not isinstance(values, np.ndarray):
        values = values.to_numpy()
    arr = np.asarray(np.ma.getdata(values) if np.ma.isMaskedArray(values) else values)
    distinct = None
    if arr.dtype == object:
        values = arr.reshape(-1).tolist()
        if any(isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Real)
               for v in values):
            raise TypeError(f"The scores of {name} must be real numbers.")
        if any(isinstance(v, int) for v in values):
            distinct = len(set(values))
        arr = arr.astype(float)
    elif arr.dtype.kind in "iu":
        distinct = np.unique(arr).size
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise TypeError(f"The scores of {name} must be real numbers, got dtype {arr.dtype}.")
    if arr.ndim != 1:
        raise ValueError(f"The scores of {name} must be one-dimensional, got shape {arr.shape}."
                         + two_dim_hint(arr.shape))
    if arr.size != n:
        raise ValueError(f"The scores of {name} have {arr.size} entries but y_true has {n}; "
                         "every classifier must score the same items.")
    out = arr.astype(float)
    bad = ~np.isfinite(out)
    if bad.any():
        raise ValueError(f"The scores of {name} contain {out[bad][0]} at item "
                         f"{int(np.argmax(bad))}; every score must be a finite number.")
    if distinct is not None and np.unique(out).size != distinct:
        raise ValueError(f"The scores of {name} are integers beyond 2**53 that become equal as "
                         "floating-point numbers, which would turn distinct scores into ties; "
                         "rescale them first (e.g. scipy.stats.rankdata) so their order is kept.")
    out.setflags(write=False)
    return out


def _duplicate_columns(frame: Any) -> dict[str, Any]:
    dupes = sorted({str(c) for c in frame.columns[frame.columns.duplicated()]})
    raise ValueError(f"The DataFrame of scores has duplicate column names {dupes}; each column "
                     "is one classifier and needs its own name.")


def _rebuild_scores(y: list[bool], scores: dict[str, list[float]], positive: Hashable,
                    labels: tuple[Hashable, Hashable]) -> Scores:
    """A Scores object from the state written by ``__reduce__`` (already validated)."""
    obj = object.__new__(Scores)
    arr = np.array(y, dtype=bool)
    arr.setflags(write=False)
    vectors = {}
    for name, values in scores.items():
        v = np.array(values, dtype=float)
        v.setflags(write=False)
        vectors[name] = v
    obj._y, obj._scores, obj._positive, obj._labels = arr, vectors, positive, labels
    return obj


class Scores:
    """True labels and the scores of one or more classifiers on the same test items.

    Parameters
    ----------
    y_true : sequence of hashable
        The true class of each item; exactly two distinct labels.
    scores : array-like of float, mapping of name -> array-like, or DataFrame
        One score per item (higher = more positive), or several classifiers' scores on the
        same items (``{"A": scores_a, "B": scores_b}``, or a DataFrame with one column per
        classifier), analysed jointly.
    positive : hashable, optional
        The positive class. Required unless the labels are ``{0, 1}`` or ``{False, True}``,
        where the positive class is 1 / True (scikit-learn's convention; the rule of
        :mod:`bayescm.core.itemwise`).

    Raises
    ------
    TypeError
        Non-numeric or boolean scores, a string instead of a sequence.
    ValueError
        NaN or infinite scores, mismatched lengths, missing labels, fewer or more than two
        classes, a ``positive`` that is not among the labels.

    See Also
    --------
    Scores.from_csv : Read labels and scores from a file.
    bayescm.fit : The posterior of the curves and the AUC (a Dirichlet process by default).
    bayescm.plots.plot_roc : Draws the fitted ROC curve.

    Notes
    -----
    pandas Series (and the columns of a DataFrame of scores) are paired with ``y_true`` by
    their index, as pandas aligns them; differing index sets are an error. Plain sequences are
    paired by position.

    Examples
    --------
    >>> import bayescm as bcm
    >>> s = bcm.Scores([1, 0, 1, 1, 0], {"A": [0.9, 0.2, 0.6, 0.7, 0.4],
    ...                                  "B": [0.8, 0.5, 0.3, 0.9, 0.1]})
    >>> s.names, s.n_pos, s.n_neg
    (['A', 'B'], 3, 2)
    """

    __slots__ = ("_labels", "_positive", "_scores", "_y")

    @keyword_checked
    def __init__(self, y_true: Iterable[Hashable], scores: Any,
                 positive: Hashable | None = None) -> None:
        if is_pandas(scores) and hasattr(scores, "columns"):  # a DataFrame: one column each
            if scores.shape[1] == 0:
                raise ValueError("scores is a DataFrame without columns; give at least one.")
            scores = {str(c): scores[c] for c in scores.columns} if scores.columns.is_unique \
                else _duplicate_columns(scores)
        if isinstance(scores, Mapping):
            named = align_items({"y_true": y_true, **{
                f"the scores of {str(k)!r}": v for k, v in scores.items()}})
            y_true = named.pop("y_true")
            scores = dict(zip(scores.keys(), named.values(), strict=True))
        else:
            y_true, scores = align_items({"y_true": y_true, "the scores": scores}).values()
        labels = _as_label_array(y_true, "y_true")
        if labels.size == 0:
            raise ValueError("y_true is empty: there are no test items.")
        classes = list(dict.fromkeys(labels.tolist()))
        if len(classes) != 2:
            raise ValueError(
                f"Scores need exactly two classes in y_true, got {len(classes)}: "
                f"{classes[:5]}. A single class gives no ROC curve; relabel multiclass data "
                "one-vs-rest.")
        if positive is None:
            positive = default_positive(classes)
            if positive is None:
                raise ValueError(f"Name the positive class with positive=, one of {classes} "
                                 "(only 0/1 and False/True labels have a default: 1 / True).")
        if positive not in classes:
            raise ValueError(f"positive={positive!r} is not one of the labels {classes}.")
        y = np.array([v == positive for v in labels.tolist()], dtype=bool)
        y.setflags(write=False)
        if isinstance(scores, Mapping):
            if not scores:
                raise ValueError("scores is an empty mapping; give at least one classifier.")
            names = check_names(scores, "Classifier names")
            vectors = {name: _score_vector(v, repr(name), y.size)
                       for name, v in zip(names, scores.values(), strict=True)}
        else:
            vectors = {"A": _score_vector(scores, "the classifier", y.size)}
        negative = next(c for c in classes if c != positive)
        self._y = y
        self._scores = vectors
        self._positive = positive
        self._labels = (positive, negative)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuild_scores, (self._y.tolist(), {k: v.tolist() for k, v in
                                                     self._scores.items()},
                                  self._positive, self._labels))

    @classmethod
    @keyword_checked
    def from_csv(cls, path: str | Path, label: str, score: str | Sequence[str],
                 positive: Hashable | None = None) -> Scores:
        """Read labels and score columns from a CSV file with a header row.

        Parameters
        ----------
        path : str or Path
            The file.
        label : str
            Column of the true labels (read as text).
        score : str or sequence of str
            Column(s) of scores; several columns are several classifiers named by their header.
        positive : str, optional
            The positive label as it appears in the file (default: ``"1"`` when the labels are
            ``0``/``1``).

        Raises
        ------
        FileNotFoundError
            No such file.
        CSVFormatError
            A file that breaks the CSV rules of :mod:`bayescm.core.csvtable` (encoding,
            delimiter, ragged rows, repeated column names), a column missing from the header,
            an empty label, or a score that is not a finite number; the message names the line
            and the column.
        ValueError
            Labels that are not two classes, a ``positive`` that is not among them, a score
            column named twice or also as the label.
        TypeError
            Column names that are not strings.

        See Also
        --------
        bayescm.fit : Fit the scores.
        bayescm.datasets.screening_scores : A packaged example of the same form.

        Examples
        --------
        >>> import os, tempfile
        >>> from bayescm.core.scores import Scores
        >>> path = os.path.join(tempfile.mkdtemp(), "s.csv")
        >>> _ = open(path, "w").write("y,p\\n1,0.9\\n0,0.2\\n1,0.7\\n")
        >>> Scores.from_csv(path, label="y", score="p").n
        3
        """
        return scores_from_table(read_csv(path), label, score, positive)

    @property
    def y(self) -> np.ndarray:
        """Read-only boolean array: True for the positive class."""
        return self._y

    @property
    def scores(self) -> dict[str, np.ndarray]:
        """Read-only score vectors by classifier name."""
        return dict(self._scores)

    @property
    def names(self) -> list[str]:
        """Classifier names."""
        return list(self._scores)

    @property
    def positive(self) -> Hashable:
        """The positive class's label."""
        return self._positive

    @property
    def n(self) -> int:
        """Number of items."""
        return int(self._y.size)

    @property
    def n_pos(self) -> int:
        """Number of positive items."""
        return int(self._y.sum())

    @property
    def n_neg(self) -> int:
        """Number of negative items."""
        return self.n - self.n_pos

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scores):
            return NotImplemented
        return (np.array_equal(self._y, other._y) and self._labels == other._labels
                and self.names == other.names
                and all(np.array_equal(self._scores[k], other._scores[k]) for k in self.names))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (f"Scores(n={self.n}, positives={self.n_pos}, classifiers={self.names}, "
                f"positive={self._positive!r})")


def scores_from_table(table: CSVTable, label: str, score: str | Sequence[str],
                      positive: Hashable | None = None) -> Scores:
    """:class:`Scores` from a parsed CSV table (the reading of :meth:`Scores.from_csv`).

    The label column is read as text (an empty label is an error), each score column as finite
    real numbers; labels ``0``/``1`` take ``"1"`` as the positive class by default.

    Examples
    --------
    >>> from bayescm.core.csvtable import parse_csv
    >>> from bayescm.core.scores import scores_from_table
    >>> scores_from_table(parse_csv("y,p\\n1,0.9\\n0,0.2\\n"), "y", "p").positive
    '1'
    """
    columns = [score] if isinstance(score, str) else list(score)
    if not columns or not all(isinstance(c, str) for c in [label, *columns]):
        raise TypeError(f"label and score name columns (strings), got label={label!r}, "
                        f"score={score!r}.")
    twice = sorted({c for c in columns if columns.count(c) > 1})
    if twice:
        raise ValueError(f"score names the column {twice[0]!r} twice; name each once.")
    if label in columns:
        raise ValueError(f"{label!r} is the label column; it cannot also be a score.")
    table.check_header()
    table.require([label, *columns])
    if not table.body:
        raise table.error("no rows: give one row per test item under the header.",
                          table.lines[0])
    y = table.texts(label, "the item's true label")
    values = {c: table.reals(c) for c in columns}
    try:  # labels "0"/"1" make "1" positive: the rule of core/itemwise
        return Scores(y, values, positive=positive)
    except ValueError as err:  # one class, an unknown positive label: name the file
        raise table.error(str(err)) from None
