"""Inputs of the latent class models: binary test results and categorical ratings.

:class:`TestResults` (one row per subject, one 0/1 column per test, an optional population
column) is reduced to the counts of each result pattern per population, all the Hui-Walter
model needs (:mod:`bayescm.models.hui_walter`). :class:`Ratings` (long format: one row per
rating of an item by a rater; a rater may rate an item several times or not at all) is reduced
to an item x rater x class count array, all the Dawid-Skene model needs
(:mod:`bayescm.models.dawid_skene`). Neither holds a true class: that is the latent class the
models marginalise.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bayescm.core.arguments import did_you_mean
from bayescm.errors import LatentClassFormatError

__all__ = ["Ratings", "TestResults", "patterns"]


def patterns(n_tests: int) -> np.ndarray:
    """Every result pattern of ``n_tests`` binary tests, ``(2**n_tests, n_tests)`` of 0/1.

    Row ``j`` holds the binary digits of ``j`` with the first test most significant, so the
    first row is all negative and the last all positive.

    Examples
    --------
    >>> from bayescm.core.latent import patterns
    >>> patterns(2).tolist()
    [[0, 0], [0, 1], [1, 0], [1, 1]]
    """
    return np.array(list(itertools.product((0, 1), repeat=n_tests)), dtype=np.int64)


def _frame(frame: Any, what: str) -> Any:
    import pandas as pd

    if isinstance(frame, Mapping):
        frame = pd.DataFrame(dict(frame))
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{what} takes a pandas DataFrame or a mapping of columns, got "
                        f"{type(frame).__name__}.")
    if len(frame) == 0:
        raise LatentClassFormatError(f"{what}: the table has no rows.")
    return frame


def _need_columns(frame: Any, names: Sequence[str]) -> None:
    columns = [str(c) for c in frame.columns]
    for name in names:
        if not isinstance(name, str):
            raise TypeError(f"columns are named by strings, got {name!r}.")
        if name not in columns:
            raise LatentClassFormatError(f"no column {name!r}; the table has {columns}."
                                         f"{did_you_mean(name, columns)}")


def _row(frame: Any, position: int) -> str:
    label = frame.index[position]
    return f"row {label}" if isinstance(label, (int, np.integer)) else f"row {label!r}"


def _labels(frame: Any, column: str, what: str) -> tuple[np.ndarray, list[str]]:
    """Codes in order of first appearance (a categorical keeps its declared categories)."""
    import pandas as pd

    values = frame[column]
    missing = values.isna().to_numpy()
    if missing.any():
        raise LatentClassFormatError(
            f"column {column!r}, {_row(frame, int(np.argmax(missing)))}: the {what} is "
            f"missing; give every row its {what} or drop the row.")
    if isinstance(values.dtype, pd.CategoricalDtype):
        return (values.cat.codes.to_numpy().astype(np.int64),
                [str(c) for c in values.cat.categories])
    codes, uniques = pd.factorize(values.to_numpy(), sort=False)
    return codes.astype(np.int64), [str(u) for u in uniques]


class TestResults:
    """Binary results of several tests on the same subjects, without a gold standard.

    The input of the Hui-Walter latent class model (:mod:`bayescm.models.hui_walter`,
    ``bcm.fit(results)``): each test's TPR and TNR and each population's prevalence.

    Parameters
    ----------
    frame : pandas.DataFrame or mapping of columns
        One row per subject.
    tests : sequence of str
        The columns of the tests (at least two), each 0/1 (or False/True): 1 a positive result.
    population : str, optional
        A column of population labels (sites, herds, age groups): populations share the
        tests' TPR and TNR and have their own prevalence. A categorical column keeps its
        declared categories (each must have subjects).
    dependence : sequence of pairs of str, optional
        Pairs of tests whose results are dependent within each true class (two tests of the
        same biological principle): each pair gets a covariance among the positives and one
        among the negatives (``cov_pos``, ``cov_neg``). A test may be in one pair only.

    Raises
    ------
    LatentClassFormatError
        A missing column, fewer than two tests, a result that is not 0/1 (or is missing), a
        declared population with no subjects, a dependence pair that is not two of the tests.

    See Also
    --------
    TestResults.from_counts : From counts of the result patterns.
    bayescm.fit : Fits the Hui-Walter model.

    Examples
    --------
    >>> import pandas as pd, bayescm as bcm
    >>> frame = pd.DataFrame({"elisa": [1, 0, 1, 0], "pcr": [1, 0, 0, 0],
    ...                       "herd": ["a", "a", "b", "b"]})
    >>> results = bcm.TestResults(frame, tests=["elisa", "pcr"], population="herd")
    >>> results.populations, results.counts.tolist()
    (['a', 'b'], [[1, 0, 0, 1], [1, 0, 1, 0]])
    """

    __test__ = False  # not a pytest class

    def __init__(self, frame: Any, tests: Sequence[str], population: str | None = None, *,
                 dependence: Sequence[Sequence[str]] | None = None) -> None:
        frame = _frame(frame, "TestResults")
        if isinstance(tests, str) or not isinstance(tests, Sequence):
            raise TypeError(f"tests= lists the test columns (at least two), got {tests!r}.")
        tests = [t for t in tests]
        if len(tests) < 2:
            raise LatentClassFormatError(
                f"tests={tests!r}: a latent class model needs at least two tests on the same "
                "subjects (with one test, TPR, TNR and prevalence cannot be told apart); add a "
                "second test, or use bcm.true_prevalence with priors on the one test's rates.")
        if len(set(tests)) != len(tests):
            raise LatentClassFormatError(f"tests={tests!r} names a column twice.")
        _need_columns(frame, [*tests, *([population] if population is not None else [])])
        if population is not None and population in tests:
            raise LatentClassFormatError(f"{population!r} is named as a test and as the "
                                         "population column.")
        values = np.empty((len(frame), len(tests)), dtype=np.int64)
        for j, name in enumerate(tests):
            values[:, j] = _binary(frame, name)
        if population is None:
            codes, pops = np.zeros(len(frame), dtype=np.int64), ["all"]
        else:
            codes, pops = _labels(frame, population, "population")
        n_t = len(tests)
        index = values @ (1 << np.arange(n_t - 1, -1, -1))
        counts = np.bincount(codes * (1 << n_t) + index,
                             minlength=len(pops) * (1 << n_t)).reshape(len(pops), 1 << n_t)
        self._init(counts, [str(t) for t in tests], pops, dependence,
                   {"tests": list(tests), **({"population": population} if population else {})})

    @classmethod
    def from_counts(cls, counts: Any, tests: Sequence[str],
                    populations: Sequence[str] | None = None, *,
                    dependence: Sequence[Sequence[str]] | None = None) -> TestResults:
        """Test results given as counts of each result pattern per population.

        Parameters
        ----------
        counts : array-like, shape (P, 2**T) or (2**T,)
            Subjects per population and pattern, patterns in the order of
            :func:`~bayescm.core.latent.patterns` (first test most significant: for two
            tests ``--, -+, +-, ++``).
        tests : sequence of str
            The tests' names (T >= 2).
        populations : sequence of str, optional
            The populations' names (default ``pop1``, ``pop2``, ...; ``all`` for one).
        dependence : sequence of pairs of str, optional
            As for :class:`TestResults`.

        Returns
        -------
        TestResults

        Examples
        --------
        >>> import bayescm as bcm
        >>> r = bcm.TestResults.from_counts([[528, 9, 4, 14], [367, 37, 31, 887]],
        ...                                 tests=["mantoux", "tine"])
        >>> r.n_subjects.tolist(), r.populations
        ([555, 1322], ['pop1', 'pop2'])
        """
        arr = np.asarray(counts)
        if arr.ndim == 1:
            arr = arr[None, :]
        tests = [str(t) for t in tests]
        if len(tests) < 2:
            raise LatentClassFormatError(f"tests={tests!r}: a latent class model needs at "
                                         "least two tests on the same subjects.")
        if arr.ndim != 2 or arr.shape[1] != 1 << len(tests):
            raise LatentClassFormatError(
                f"counts has shape {arr.shape}; {len(tests)} tests have {1 << len(tests)} "
                "result patterns: give an array of shape (populations, patterns).")
        if (not np.issubdtype(arr.dtype, np.number) or not np.all(np.isfinite(arr))
                or np.any(arr < 0) or np.any(np.mod(arr, 1) != 0)):
            raise LatentClassFormatError("counts must be whole numbers >= 0.")
        if populations is None:
            populations = ["all"] if len(arr) == 1 else [f"pop{i + 1}" for i in range(len(arr))]
        populations = [str(p) for p in populations]
        if len(populations) != len(arr) or len(set(populations)) != len(populations):
            raise LatentClassFormatError(f"populations={populations!r} should name the "
                                         f"{len(arr)} rows of counts once each.")
        out = cls.__new__(cls)
        out._init(arr.astype(np.int64), tests, populations, dependence, {"tests": tests})
        return out

    def _init(self, counts: np.ndarray, tests: list[str], pops: list[str],
              dependence: Sequence[Sequence[str]] | None, columns: dict[str, Any]) -> None:
        empty = counts.sum(axis=1) == 0
        if empty.any():
            raise LatentClassFormatError(
                f"population {pops[int(np.argmax(empty))]!r} has no subjects; drop it (remove "
                "the unused category: frame[col].cat.remove_unused_categories()) or give its "
                "results.")
        pairs: list[tuple[int, int]] = []
        for pair in dependence or ():
            if isinstance(pair, str) or len(pair) != 2 or any(t not in tests for t in pair) \
                    or pair[0] == pair[1]:
                raise LatentClassFormatError(
                    f"dependence={list(dependence or ())!r}: each entry is a pair of two "
                    f"different tests among {tests}.")
            pairs.append((tests.index(pair[0]), tests.index(pair[1])))
        used = [t for p in pairs for t in p]
        if len(set(used)) != len(used):
            raise LatentClassFormatError(
                f"dependence={list(dependence or ())!r}: a test may be in one dependent pair "
                "only (the pairs are blocks of two tests dependent within each class).")
        counts.setflags(write=False)
        self._counts, self._tests, self._populations = counts, tests, pops
        self._pairs = tuple(pairs)
        self._columns = columns

    @property
    def counts(self) -> np.ndarray:
        """Subjects per population and result pattern, ``(P, 2**T)`` (read-only)."""
        return self._counts

    @property
    def tests(self) -> list[str]:
        """The tests' names."""
        return list(self._tests)

    @property
    def populations(self) -> list[str]:
        """The populations' names (``["all"]`` without a population column)."""
        return list(self._populations)

    @property
    def pairs(self) -> tuple[tuple[int, int], ...]:
        """The dependent pairs, as positions in :attr:`tests`."""
        return self._pairs

    @property
    def dependence(self) -> list[tuple[str, str]]:
        """The dependent pairs by name."""
        return [(self._tests[a], self._tests[b]) for a, b in self._pairs]

    @property
    def n_subjects(self) -> np.ndarray:
        """Subjects per population."""
        return self._counts.sum(axis=1)

    @property
    def pattern_names(self) -> list[str]:
        """Each pattern as ``+`` and ``-`` per test (``"+-"``: first positive, second not)."""
        return ["".join("+" if r else "-" for r in row) for row in patterns(len(self._tests))]

    @property
    def columns(self) -> dict[str, Any]:
        """The columns the results were read from."""
        return dict(self._columns)

    def __repr__(self) -> str:
        return (f"TestResults({len(self._tests)} tests {self._tests}, "
                f"{len(self._populations)} population(s), {int(self._counts.sum())} subjects)")


def _binary(frame: Any, name: str) -> np.ndarray:
    values = frame[name]
    missing = values.isna().to_numpy()
    if missing.any():
        raise LatentClassFormatError(
            f"column {name!r}, {_row(frame, int(np.argmax(missing)))}: the result is missing; "
            "this model needs every test on every subject: drop the row.")
    raw = values.to_numpy()
    if raw.dtype == bool:
        return raw.astype(np.int64)
    try:
        num = raw.astype(float)
    except (TypeError, ValueError):
        num = np.full(raw.shape, np.nan)
    bad = ~np.isin(num, (0.0, 1.0))
    if bad.any():
        j = int(np.argmax(bad))
        raise LatentClassFormatError(
            f"column {name!r}, {_row(frame, j)}: {raw[j]!r} is not a test result (0 or 1); "
            "code a positive result 1 and a negative 0.")
    return num.astype(np.int64)


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

    Examples
    --------
    >>> import pandas as pd, bayescm as bcm
    >>> frame = pd.DataFrame({"item": [1, 1, 2, 2, 2], "rater": ["a", "b", "a", "b", "b"],
    ...                       "rating": ["x", "x", "y", "x", "y"]})
    >>> r = bcm.Ratings(frame)
    >>> r.classes, r.counts.shape, r.counts[1].tolist()
    (['x', 'y'], (2, 2, 2), [[0, 1], [1, 1]])
    """

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
        rated = values.to_numpy()[keep]
        text = np.array([str(v) for v in rated], dtype=object)
        if classes is None:
            import pandas as pd

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
    def from_counts(cls, counts: Any, items: Sequence[str] | None = None,
                    raters: Sequence[str] | None = None,
                    classes: Sequence[str] | None = None) -> Ratings:
        """Ratings given as an item x rater x class count array.

        Examples
        --------
        >>> import numpy as np, bayescm as bcm
        >>> r = bcm.Ratings.from_counts(np.array([[[1, 0], [0, 1]], [[2, 0], [1, 0]]]))
        >>> r.raters, r.classes
        (['r1', 'r2'], ['c1', 'c2'])
        """
        import pandas as pd

        arr = np.asarray(counts)
        if arr.ndim != 3 or not np.issubdtype(arr.dtype, np.integer) or (arr < 0).any():
            raise LatentClassFormatError("counts must be whole numbers >= 0 of shape "
                                         "(items, raters, classes).")
        n_i, n_r, n_k = arr.shape
        items = [str(v) for v in (items or [f"i{i + 1}" for i in range(n_i)])]
        raters = [str(v) for v in (raters or [f"r{r + 1}" for r in range(n_r)])]
        classes = [str(v) for v in (classes or [f"c{k + 1}" for k in range(n_k)])]
        i, r, k = np.nonzero(arr)
        reps = arr[i, r, k]
        frame = pd.DataFrame({
            "item": pd.Categorical(np.repeat(np.asarray(items, dtype=object)[i], reps),
                                   categories=items),
            "rater": pd.Categorical(np.repeat(np.asarray(raters, dtype=object)[r], reps),
                                    categories=raters),
            "rating": np.repeat(np.asarray(classes, dtype=object)[k], reps)})
        return cls(frame, classes=classes)

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
