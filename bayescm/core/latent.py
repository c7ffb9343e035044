"""Inputs of the latent class models: binary test results (here) and categorical ratings.

:class:`TestResults` (one row per subject, one 0/1 column per test, an optional population
column) is reduced to the counts of each result pattern per population, all the Hui-Walter
model needs (:mod:`bayescm.models.hui_walter`). :class:`Ratings` (long format: one row per
rating of an item by a rater; a rater may rate an item several times or not at all) is reduced
to an item x rater x class count array, all the Dawid-Skene model needs
(:mod:`bayescm.core.ratings`, :mod:`bayescm.models.dawid_skene`). Neither holds a true class:
that is the latent class the models marginalise.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bayescm.core.arguments import did_you_mean
from bayescm.errors import LatentClassFormatError

__all__ = ["TestResults", "csv_frame", "patterns"]


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


def csv_frame(path: Any, names: Sequence[str], *, may_be_empty: Sequence[str] = ()) -> Any:
    """The columns ``names`` of a CSV file as a frame indexed by line (the one CSV reader).

    A cell of a column in ``may_be_empty`` that is empty becomes missing (a rating not given);
    an empty cell elsewhere is an error naming its line and column.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayescm.core.latent import csv_frame
    >>> path = Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = path.write_text("a,b\\n1,0\\n0,\\n")
    >>> csv_frame(path, ["a", "b"], may_be_empty=["b"])["b"].isna().tolist()
    [False, True]
    """
    import pandas as pd

    from bayescm.core.csvtable import read_csv

    table = read_csv(path).check_header()
    positions = table.require(list(dict.fromkeys(names)))
    if not table.body:
        raise table.error("no rows: give one row per subject (or rating) under the header.",
                          table.lines[0])
    columns: dict[str, list[Any]] = {}
    for name, j in zip(dict.fromkeys(names), positions, strict=True):
        if name in may_be_empty:
            columns[name] = [row[j].strip() or None for row in table.body]
        else:
            columns[name] = table.texts(name, "a value")
    return pd.DataFrame(columns, index=pd.Index(table.lines[1:], name="line"))


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


def _whole(values: np.ndarray) -> np.ndarray:
    """Floats that are whole numbers as integers (``3.0`` read next to a gap is the label 3)."""
    if values.dtype.kind == "f" and np.all(np.mod(values, 1) == 0):
        return values.astype(np.int64)
    return values


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
    codes, uniques = pd.factorize(_whole(values.to_numpy()), sort=False)
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
    TypeError
        A frame that is not a table, or column names that are not strings.

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
    def from_csv(cls, path: Any, tests: Sequence[str], population: str | None = None, *,
                 dependence: Sequence[Sequence[str]] | None = None) -> TestResults:
        """Test results from a CSV file: one row per subject, a 0/1 column per test.

        Parameters
        ----------
        path : str or Path
            The file, read by :func:`bayescm.core.csvtable.read_csv` (UTF-8, commas).
        tests, population, dependence
            As for :class:`TestResults` (column names).

        Returns
        -------
        TestResults
            The results; an error names the file and the line.

        Raises
        ------
        LatentClassFormatError
            As for :class:`TestResults`, the message naming the file and the line.
        CSVFormatError
            A file that breaks the CSV rules of :mod:`bayescm.core.csvtable`, a missing column
            or a file without rows.
        TypeError
            Column names that are not strings.

        See Also
        --------
        TestResults : The same from a frame (one row per subject).
        bayescm.fit : Fits the model.

        Examples
        --------
        >>> import tempfile
        >>> from pathlib import Path
        >>> import bayescm as bcm
        >>> path = Path(tempfile.mkdtemp()) / "tests.csv"
        >>> _ = path.write_text("a,b\\n1,1\\n0,0\\n1,0\\n")
        >>> bcm.TestResults.from_csv(path, tests=["a", "b"]).counts.tolist()
        [[1, 0, 1, 1]]
        """
        if isinstance(tests, str) or not isinstance(tests, Sequence):
            raise TypeError(f"tests= lists the test columns (at least two), got {tests!r}.")
        names = [*tests, *([population] if population is not None else [])]
        for name in names:
            if not isinstance(name, str):
                raise TypeError(f"columns are named by strings, got {name!r}.")
        frame = csv_frame(path, names)
        try:
            return cls(frame, tests=tests, population=population, dependence=dependence)
        except LatentClassFormatError as err:
            raise LatentClassFormatError(f"{path}, {err}") from None

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
            The results, as if read from a table.

        Raises
        ------
        LatentClassFormatError
            Counts of the wrong shape, negative or not whole, fewer than two tests,
            populations that do not name the rows once each, a population with no subjects.

        See Also
        --------
        TestResults : The same from one row per subject.
        bayescm.fit : Fits the Hui-Walter model.

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
        shown = raw[j].item() if isinstance(raw[j], np.generic) else raw[j]
        raise LatentClassFormatError(
            f"column {name!r}, {_row(frame, j)}: {shown!r} is not a test result (0 or 1); "
            "code a positive result 1 and a negative 0.")
    return num.astype(np.int64)
