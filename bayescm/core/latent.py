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

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bayescm.core.arguments import keyword_checked
from bayescm.core.frames import blank_cells, refuse_complex
from bayescm.core.latent_columns import (
    _frame,
    _labels,
    _need_columns,
    _row,
    counts_of,
    csv_frame,
    names_for,
)
from bayescm.core.latent_patterns import (
    MISSING,
    count_patterns,
    pattern_names,
    patterns,
    read_partial,
)
from bayescm.errors import LatentClassFormatError

__all__ = ["TestResults", "csv_frame", "patterns"]


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
        An empty cell (NaN, None) is a test not done on that subject: see Notes.
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
        A missing column, fewer than two tests, a result that is not 0/1, a subject with
        every result missing (the message names the row), a test with no result at all, a
        declared population with no subjects, a dependence pair that is not two of the tests.
    TypeError
        A frame that is not a table, or column names that are not strings.

    See Also
    --------
    TestResults.from_counts : From counts of the result patterns.
    bayescm.fit : Fits the Hui-Walter model.

    Notes
    -----
    **Missing results.** Not every subject needs every test. A subject with some tests
    missing has a *partial* pattern (``"+?"``: first test positive, second not done); the
    model gives it the probability of what was seen, the sum of the probabilities of the full
    patterns consistent with it, i.e. the missing tests are marginalised. This is valid when
    the results are missing at random given the true class and the results seen (a test
    skipped by lot, budget or site); it is biased when whether a test is done depends on its
    unseen result beyond that (a confirmatory test done only when suspected positive is fine
    when the decision rests on the tests seen, not when it rests on unrecorded symptoms).
    :attr:`counts` holds the subjects with every test read, :attr:`partial_counts` the
    others per :attr:`partial_names`; :attr:`n_subjects` counts both. A subject with no result
    at all carries no information and is an error naming its row: drop it.

    Examples
    --------
    >>> import pandas as pd, bayescm as bcm
    >>> frame = pd.DataFrame({"elisa": [1, 0, 1, 0], "pcr": [1, 0, 0, 0],
    ...                       "herd": ["a", "a", "b", "b"]})
    >>> results = bcm.TestResults(frame, tests=["elisa", "pcr"], population="herd")
    >>> results.populations, results.counts.tolist()
    (['a', 'b'], [[1, 0, 0, 1], [1, 0, 1, 0]])

    With a test not done on some subjects (``None``, NaN, or an empty CSV cell):

    >>> frame = pd.DataFrame({"elisa": [1, 0, 1, 0, 1], "pcr": [1, 0, None, 0, None]})
    >>> partly = bcm.TestResults(frame, tests=["elisa", "pcr"])
    >>> partly.counts.tolist(), partly.partial_names, partly.partial_counts.tolist()
    ([[2, 0, 0, 1]], ['+?'], [[2]])
    >>> partly.n_subjects.tolist(), partly.tested.tolist()
    ([5], [[5, 3]])
    """

    __test__ = False  # not a pytest class

    @keyword_checked
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
        blank = (values == MISSING).all(axis=1)
        if blank.any():
            raise LatentClassFormatError(
                f"{_row(frame, int(np.argmax(blank)))}: every test result is missing "
                f"({', '.join(map(repr, tests))}); a subject without any result tells nothing "
                "about the tests: drop the row.")
        if population is None:
            codes, pops = np.zeros(len(frame), dtype=np.int64), ["all"]
        else:
            codes, pops = _labels(frame, population, "population")
        counts, partial, partial_counts = count_patterns(values, codes, len(pops))
        self._init(counts, [str(t) for t in tests], pops, dependence,
                   {"tests": list(tests), **({"population": population} if population else {})},
                   partial, partial_counts)

    @classmethod
    @keyword_checked
    def from_csv(cls, path: Any, tests: Sequence[str], population: str | None = None, *,
                 dependence: Sequence[Sequence[str]] | None = None) -> TestResults:
        """Test results from a CSV file: one row per subject, a 0/1 column per test.

        An empty cell in a test's column is a test not done on that subject (a missing
        result, marginalised: see :class:`TestResults`).

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
        >>> _ = path.write_text("a,b\\n1,1\\n0,0\\n1,0\\n1,\\n")
        >>> results = bcm.TestResults.from_csv(path, tests=["a", "b"])
        >>> results.counts.tolist(), results.partial_names, results.partial_counts.tolist()
        ([[1, 0, 1, 1]], ['+?'], [[1]])
        """
        if isinstance(tests, str) or not isinstance(tests, Sequence):
            raise TypeError(f"tests= lists the test columns (at least two), got {tests!r}.")
        names = [*tests, *([population] if population is not None else [])]
        for name in names:
            if not isinstance(name, str):
                raise TypeError(f"columns are named by strings, got {name!r}.")
        frame = csv_frame(path, names, may_be_empty=list(tests))
        try:
            return cls(frame, tests=tests, population=population, dependence=dependence)
        except LatentClassFormatError as err:
            raise LatentClassFormatError(f"{path}, {err}") from None

    @classmethod
    @keyword_checked
    def from_counts(cls, counts: Any, tests: Sequence[str],
                    populations: Sequence[str] | None = None, *,
                    dependence: Sequence[Sequence[str]] | None = None,
                    partial: Mapping[str, Any] | None = None) -> TestResults:
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
        partial : mapping of str to array-like, optional
            Subjects with some tests missing: a partial pattern (``+``, ``-`` or ``?`` per
            test, ``?`` not done: ``"+?"``) -> its count per population (one number for one
            population). See :class:`TestResults` on missing results.

        Returns
        -------
        TestResults
            The results, as if read from a table.

        Raises
        ------
        LatentClassFormatError
            Counts of the wrong shape, negative or not whole, fewer than two tests or a test
            named twice, populations that do not name the rows once each, a population with no
            subjects, a partial pattern that is not one symbol per test with at least one ``?``
            and one result.
        TypeError
            ``tests`` that is one string, not a list; ``partial`` that is not a mapping.
        OverflowError
            A count, or the total of every count, above ``2**63 - 1``.

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
        >>> r = bcm.TestResults.from_counts([[528, 9, 4, 14], [367, 37, 31, 887]],
        ...                                 tests=["mantoux", "tine"],
        ...                                 partial={"+?": [3, 20], "?-": [40, 12]})
        >>> r.n_subjects.tolist(), r.partial_names
        ([598, 1354], ['+?', '?-'])
        """
        arr = counts_of(counts, "counts")
        if arr.ndim == 1:
            arr = arr[None, :]
        if partial is not None and not isinstance(partial, Mapping):
            raise TypeError("partial= maps partial patterns ('+?') to their counts per "
                            f"population, got {type(partial).__name__}.")
        if isinstance(tests, (str, bytes)) or not isinstance(tests, Sequence):
            raise TypeError(f"tests= lists the tests' names (at least two), got {tests!r}.")
        tests = names_for(tests, len(tests), "tests", "t")
        if len(tests) < 2:
            raise LatentClassFormatError(f"tests={tests!r}: a latent class model needs at "
                                         "least two tests on the same subjects.")
        if arr.ndim == 2 and len(arr) == 0:
            raise LatentClassFormatError("counts has no rows: give one row of pattern counts "
                                         "per population.")
        if arr.ndim != 2 or arr.shape[1] != 1 << len(tests):
            raise LatentClassFormatError(
                f"counts has shape {arr.shape}; {len(tests)} tests have {1 << len(tests)} "
                "result patterns: give an array of shape (populations, patterns).")
        if populations is None:
            populations = ["all"] if len(arr) == 1 else [f"pop{i + 1}" for i in range(len(arr))]
        populations = [str(p) for p in populations]
        if len(populations) != len(arr) or len(set(populations)) != len(populations):
            raise LatentClassFormatError(f"populations={populations!r} should name the "
                                         f"{len(arr)} rows of counts once each.")
        rows, part = read_partial(partial or {}, len(tests), len(arr))
        counts_of([int(arr.sum()), *part.sum(axis=0).tolist()], "counts and partial= in all")
        out = cls.__new__(cls)
        out._init(arr.astype(np.int64), tests, populations, dependence, {"tests": tests},
                  rows, part)
        return out

    def _init(self, counts: np.ndarray, tests: list[str], pops: list[str],
              dependence: Sequence[Sequence[str]] | None, columns: dict[str, Any],
              partial: np.ndarray | None = None, partial_counts: np.ndarray | None = None
              ) -> None:
        if partial is None or partial_counts is None:
            partial = np.zeros((0, len(tests)), dtype=np.int64)
            partial_counts = np.zeros((len(pops), 0), dtype=np.int64)
        empty = counts.sum(axis=1) + partial_counts.sum(axis=1) == 0
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
        for arr in (counts, partial, partial_counts):
            arr.setflags(write=False)
        self._counts, self._tests, self._populations = counts, tests, pops
        self._partial, self._partial_counts = partial, partial_counts
        unread = self.tested.sum(axis=0) == 0
        if unread.any():
            raise LatentClassFormatError(
                f"test {tests[int(np.argmax(unread))]!r} has no result on any subject; drop "
                "it from tests= (its rates would be the priors').")
        self._pairs = tuple(pairs)
        self._columns = columns

    @property
    def counts(self) -> np.ndarray:
        """Subjects with every test read per population and pattern, ``(P, 2**T)``.

        Read-only; subjects with some tests missing are in :attr:`partial_counts`.
        """
        return self._counts

    @property
    def partial_counts(self) -> np.ndarray:
        """Subjects with some tests missing per population and partial pattern, ``(P, Q)``.

        ``Q`` is 0 when every subject has every test (read-only).
        """
        return self._partial_counts

    @property
    def partial_patterns(self) -> np.ndarray:
        """The partial patterns ``(Q, T)``: 0, 1, or -1 for a test not done (read-only)."""
        return self._partial

    @property
    def partial_names(self) -> list[str]:
        """Each partial pattern as ``+``, ``-`` and ``?`` (not done) per test."""
        return pattern_names(self._partial)

    @property
    def has_missing(self) -> bool:
        """Whether some subject misses a test."""
        return bool(self._partial_counts.sum() > 0)

    @property
    def tested(self) -> np.ndarray:
        """Subjects with each test read, per population: ``(P, T)``."""
        read = (self._partial != MISSING).astype(np.int64)
        return self.n_subjects_complete[:, None] + self._partial_counts @ read

    @property
    def positives(self) -> np.ndarray:
        """Positive results of each test per population: ``(P, T)``."""
        return (self._counts @ patterns(len(self._tests))
                + self._partial_counts @ (self._partial == 1).astype(np.int64))

    @property
    def n_subjects_complete(self) -> np.ndarray:
        """Subjects with every test read, per population."""
        return self._counts.sum(axis=1)

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
        """Subjects per population (with and without missing results)."""
        return self._counts.sum(axis=1) + self._partial_counts.sum(axis=1)

    @property
    def pattern_names(self) -> list[str]:
        """Each full pattern as ``+`` and ``-`` per test (``"+-"``: first positive, second not)."""
        return pattern_names(patterns(len(self._tests)))

    @property
    def columns(self) -> dict[str, Any]:
        """The columns the results were read from."""
        return dict(self._columns)

    def __repr__(self) -> str:
        partly = int(self._partial_counts.sum())
        some = f", {partly} with missing results" if partly else ""
        return (f"TestResults({len(self._tests)} tests {self._tests}, "
                f"{len(self._populations)} population(s), {int(self.n_subjects.sum())} "
                f"subjects{some})")


def _binary(frame: Any, name: str) -> np.ndarray:
    """A test's column as 0/1, :data:`~bayescm.core.latent_patterns.MISSING` where empty."""
    values = frame[name]
    refuse_complex(values, name, LatentClassFormatError)
    missing = blank_cells(values)  # NaN, None, NA or empty text: a test not done
    raw = values.to_numpy()
    if raw.dtype == bool:
        return raw.astype(np.int64)
    if missing.any():
        raw = np.where(missing, 0, raw)
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
            "code a positive result 1 and a negative 0 (an empty cell is a test not done).")
    return np.where(missing, MISSING, num.astype(np.int64))
