"""The input of the Dawid-Skene model: categorical ratings of items by several raters.

Long format (one row per rating); reduced to an item x rater x class count array. See
:mod:`bayescm.core.latent` for the binary tests' input.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from bayescm.core.arguments import keyword_checked
from bayescm.core.frames import check_distinct_text
from bayescm.core.latent_columns import (
    _frame,
    _labels,
    _need_columns,
    _row,
    _whole,
    counts_of,
    csv_frame,
    names_for,
)
from bayescm.errors import LatentClassFormatError

__all__ = ["Ratings"]


class Ratings:
    """Categorical ratings of items by several raters, without a gold standard (long format).

    The input of the Dawid-Skene model (:mod:`bayescm.models.dawid_skene`, ``bcm.fit``): each
    rater's confusion matrix, the classes' prevalence and each item's class.

    Parameters
    ----------
    frame : pandas.DataFrame or mapping of columns
        One row per rating. A rater may rate an item several times (each rating counts) or not
        at all; rows with a missing rating are dropped.
    item, rater, rating : str
        The columns of the item id, the rater id and the rating.
    classes : sequence, optional
        The classes in order (default: the ratings' distinct values, sorted). Declaring them
        keeps a class no rater used.

    Raises
    ------
    LatentClassFormatError
        A missing column, a missing item or rater id, a rater with no ratings (a declared
        category, or all its ratings missing), an item rated by nobody, a rating outside
        ``classes``, fewer than two classes.

    See Also
    --------
    Ratings.from_counts : The same from an item x rater x class count array.
    bayescm.fit : Fits the Dawid-Skene model.
    bayescm.datasets.anesthesia : Dawid & Skene's (1979) ratings.

    Examples
    --------
    >>> import pandas as pd, bayescm as bcm
    >>> frame = pd.DataFrame({"item": [1, 1, 2, 2, 2], "rater": ["a", "b", "a", "b", "b"],
    ...                       "rating": ["x", "x", "y", "x", "y"]})
    >>> r = bcm.Ratings(frame)
    >>> r.classes, r.counts.shape, r.counts[1].tolist()
    (['x', 'y'], (2, 2, 2), [[0, 1], [1, 1]])
    """

    @keyword_checked
    def __init__(self, frame: Any, item: str = "item", rater: str = "rater",
                 rating: str = "rating", *, classes: Sequence[Any] | None = None) -> None:
        frame = _frame(frame, "Ratings")
        names = {"item": item, "rater": rater, "rating": rating}
        _need_columns(frame, list(names.values()))
        if len(set(names.values())) != 3:
            raise LatentClassFormatError(f"item=, rater= and rating= must name three different "
                                         f"columns, got {names}.")
        item_codes, items = _labels(frame, item, "item id")
        rater_codes, raters = _labels(frame, rater, "rater id")
        values = frame[rating]
        keep = ~values.isna().to_numpy()
        rated = _whole(values.to_numpy()[keep], rating)
        text = np.array([str(v) for v in rated], dtype=object)
        if classes is None:
            import pandas as pd

            check_distinct_text(rated, rating, "rating", LatentClassFormatError, strip=False)
            uniques = pd.unique(rated)
            try:
                order = sorted(uniques)
            except TypeError:
                order = sorted(uniques, key=str)
            labels = [str(v) for v in order]
        else:
            labels = [str(v) for v in classes]
            if len(set(labels)) != len(labels):
                raise LatentClassFormatError(f"classes={list(classes)!r} names a class twice.")
        if len(labels) < 2:
            raise LatentClassFormatError(
                f"the ratings use {len(labels)} class(es) {labels}; a latent class model needs "
                "two or more (declare the classes with classes=[...] if some went unused).")
        lookup = {c: k for k, c in enumerate(labels)}
        class_codes = np.array([lookup.get(t, -1) for t in text], dtype=np.int64)
        if (class_codes < 0).any():
            j = int(np.flatnonzero(keep)[int(np.argmax(class_codes < 0))])
            raise LatentClassFormatError(
                f"column {rating!r}, {_row(frame, j)}: {frame[rating].iloc[j]!r} is not one of "
                f"the classes {labels}; add it to classes= or correct the rating.")
        n_i, n_r, n_k = len(items), len(raters), len(labels)
        cell = (item_codes[keep] * n_r + rater_codes[keep]) * n_k + class_codes
        counts = np.bincount(cell, minlength=n_i * n_r * n_k).reshape(n_i, n_r, n_k)
        self._init(counts, items, raters, labels, names)

    def _init(self, counts: np.ndarray, items: list[str], raters: list[str],
              labels: list[str], names: dict[str, str]) -> None:
        per_rater = counts.sum(axis=(0, 2))
        if (per_rater == 0).any():
            raise LatentClassFormatError(
                f"rater {raters[int(np.argmax(per_rater == 0))]!r} has no ratings; drop the "
                "rater (an unused category: frame[col].cat.remove_unused_categories()) or give "
                "its ratings.")
        per_item = counts.sum(axis=(1, 2))
        if (per_item == 0).any():
            raise LatentClassFormatError(
                f"item {items[int(np.argmax(per_item == 0))]!r} was rated by nobody (its "
                f"{int((per_item == 0).sum())} item(s) have only missing ratings or are unused "
                "categories); drop them: they say nothing about the raters.")
        counts.setflags(write=False)
        self._counts, self._items, self._raters, self._classes = counts, items, raters, labels
        self._columns = dict(names)

    @classmethod
    @keyword_checked
    def from_csv(cls, path: Any, item: str = "item", rater: str = "rater",
                 rating: str = "rating", *, classes: Sequence[Any] | None = None) -> Ratings:
        """Ratings from a CSV file in long format: one row per rating.

        Parameters
        ----------
        path : str or Path
            The file, read by :func:`bayescm.core.csvtable.read_csv` (UTF-8, commas). An
            empty rating cell is a rating not given (the row is dropped).
        item, rater, rating, classes
            As for :class:`Ratings`.

        Returns
        -------
        Ratings
            The ratings; an error names the file and the line.

        Raises
        ------
        LatentClassFormatError
            As for :class:`Ratings`, the message naming the file and the line.
        CSVFormatError
            A file that breaks the CSV rules of :mod:`bayescm.core.csvtable`, a missing column
            or a file without rows.
        TypeError
            Column names that are not strings.

        See Also
        --------
        Ratings : The same from a frame (one row per rating).
        bayescm.fit : Fits the model.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> import bayescm as bcm
        >>> path = Path(tempfile.mkdtemp()) / "ratings.csv"
        >>> _ = path.write_text("item,rater,rating\\n1,a,x\\n1,b,y\\n2,a,y\\n2,b,\\n")
        >>> bcm.Ratings.from_csv(path).counts.sum(axis=(0, 2)).tolist()
        [2, 1]
        """
        for name in (item, rater, rating):
            if not isinstance(name, str):
                raise TypeError(f"columns are named by strings, got {name!r}.")
        frame = csv_frame(path, [item, rater, rating], may_be_empty=[rating])
        try:
            return cls(frame, item=item, rater=rater, rating=rating, classes=classes)
        except LatentClassFormatError as err:
            raise LatentClassFormatError(f"{path}, {err}") from None

    @classmethod
    @keyword_checked
    def from_counts(cls, counts: Any, items: Sequence[str] | None = None,
                    raters: Sequence[str] | None = None,
                    classes: Sequence[str] | None = None) -> Ratings:
        """Ratings given as an item x rater x class count array.

        Parameters
        ----------
        counts : array of int, shape (items, raters, classes)
            How often each rater gave each class to each item.
        items, raters, classes : sequence of str, optional
            Their names (default ``i1, ...``, ``r1, ...``, ``c1, ...``).

        Returns
        -------
        Ratings
            The ratings, as if read from one row per rating.

        Raises
        ------
        LatentClassFormatError
            Counts that are not a 3-d array of whole numbers >= 0 of two or more classes; a
            rater or item without ratings (as for :class:`Ratings`); names that are not one
            per item (rater, class) or name one twice.
        TypeError
            Names given as one string instead of a list.
        OverflowError
            A count, or the total of every count, above ``2**63 - 1``.

        See Also
        --------
        Ratings : The same from one row per rating.

        Examples
        --------
        >>> import numpy as np, bayescm as bcm
        >>> r = bcm.Ratings.from_counts(np.array([[[1, 0], [0, 1]], [[2, 0], [1, 0]]]))
        >>> r.raters, r.classes
        (['r1', 'r2'], ['c1', 'c2'])
        """
        arr = counts_of(counts, "counts")
        if arr.ndim != 3:
            raise LatentClassFormatError("counts must be whole numbers >= 0 of shape "
                                         f"(items, raters, classes), got shape {arr.shape}.")
        n_i, n_r, n_k = arr.shape
        if n_i == 0 or n_r == 0:
            raise LatentClassFormatError(f"counts of shape {arr.shape} hold no item or no "
                                         "rater: give at least one of each.")
        if n_k < 2:
            raise LatentClassFormatError(f"counts have {n_k} class(es); a latent class model "
                                         "needs two or more.")
        out = cls.__new__(cls)
        out._init(arr, names_for(items, n_i, "items", "i"), names_for(raters, n_r, "raters", "r"),
                  names_for(classes, n_k, "classes", "c"),
                  {"item": "item", "rater": "rater", "rating": "rating"})
        return out

    @property
    def counts(self) -> np.ndarray:
        """Ratings per item, rater and class, ``(items, raters, classes)`` (read-only)."""
        return self._counts

    @property
    def items(self) -> list[str]:
        """The items' ids."""
        return list(self._items)

    @property
    def raters(self) -> list[str]:
        """The raters' ids."""
        return list(self._raters)

    @property
    def classes(self) -> list[str]:
        """The classes in order."""
        return list(self._classes)

    @property
    def columns(self) -> dict[str, str]:
        """The columns the ratings were read from."""
        return dict(self._columns)

    def majority(self) -> np.ndarray:
        """Each item's most frequent rating (ties: the first class), as class positions.

        Returns
        -------
        numpy.ndarray of int
            One class position per item (what the Dawid-Skene fit starts from).

        See Also
        --------
        bayescm.fit : Weighs the raters by their estimated confusion matrices instead.

        Examples
        --------
        >>> import numpy as np, bayescm as bcm
        >>> bcm.Ratings.from_counts(np.array([[[1, 2]], [[3, 0]]])).majority().tolist()
        [1, 0]
        """
        return self._counts.sum(axis=1).argmax(axis=1)

    def __repr__(self) -> str:
        return (f"Ratings({len(self._items)} items, {len(self._raters)} raters, "
                f"{len(self._classes)} classes, {int(self._counts.sum())} ratings)")
