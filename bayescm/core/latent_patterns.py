"""Result patterns of binary tests: complete ones and partial ones (some tests not done).

A subject with every test read has one of the ``2**T`` full patterns
(:func:`patterns`). A subject with some tests missing has a *partial* pattern over
``{0, 1, missing}`` (missing coded :data:`MISSING`); its probability is the sum of the
probabilities of the full patterns consistent with it (:func:`consistency`), which is how the
Hui-Walter model marginalises the missing tests (:mod:`bayescm.models.hui_walter`).
:func:`count_patterns` reduces subjects to both kinds of counts per population.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bayescm.errors import LatentClassFormatError

__all__ = ["MISSING", "base3_order", "consistency", "count_patterns", "partial_from_names",
           "pattern_names", "patterns", "read_partial", "whole_counts"]

MISSING = -1
"""The code of a missing test result in a partial pattern."""
_SYMBOLS = {0: "-", 1: "+", MISSING: "?"}


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


def pattern_names(rows: np.ndarray) -> list[str]:
    """Each pattern as ``+``, ``-`` and ``?`` (missing) per test, first test first.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.latent_patterns import pattern_names
    >>> pattern_names(np.array([[1, -1], [0, 1]]))
    ['+?', '-+']
    """
    return ["".join(_SYMBOLS[int(v)] for v in row) for row in np.asarray(rows)]


def consistency(partial: np.ndarray) -> np.ndarray:
    """Which full patterns agree with each partial pattern: ``(Q, 2**T)`` of 0.0/1.0.

    Row ``q`` has a 1 for every full pattern (order of :func:`patterns`) equal to partial
    pattern ``q`` on its read tests; ``consistency(partial) @ pi`` are the partial patterns'
    probabilities when ``pi`` are the full patterns'.

    Parameters
    ----------
    partial : array of int, shape (Q, T)
        0, 1 or :data:`MISSING` per test.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.latent_patterns import consistency
    >>> consistency(np.array([[1, -1], [-1, 0]])).tolist()
    [[0.0, 0.0, 1.0, 1.0], [1.0, 0.0, 1.0, 0.0]]
    """
    partial = np.asarray(partial, dtype=np.int64)
    full = patterns(partial.shape[1])
    agree = (partial[:, None, :] == MISSING) | (partial[:, None, :] == full[None, :, :])
    return agree.all(axis=-1).astype(float)


def count_patterns(values: np.ndarray, codes: np.ndarray, n_pops: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Full and partial pattern counts per population from one row of results per subject.

    Parameters
    ----------
    values : array of int, shape (N, T)
        0, 1 or :data:`MISSING`; no row is all missing.
    codes : array of int, shape (N,)
        Each subject's population, ``0 .. n_pops - 1``.
    n_pops : int
        The number of populations.

    Returns
    -------
    counts : numpy.ndarray, shape (n_pops, 2**T)
        Subjects with every test read, per full pattern.
    partial : numpy.ndarray, shape (Q, T)
        The partial patterns that occur, in the order of their base-3 digits (``-``, ``+``,
        ``?``; first test most significant).
    partial_counts : numpy.ndarray, shape (n_pops, Q)
        Subjects per population and partial pattern.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.latent_patterns import count_patterns
    >>> full, part, n = count_patterns(np.array([[1, 1], [1, -1], [1, -1], [-1, 0]]),
    ...                                np.zeros(4, dtype=int), 1)
    >>> full.tolist(), part.tolist(), n.tolist()
    ([[0, 0, 0, 1]], [[1, -1], [-1, 0]], [[2, 1]])
    """
    values = np.asarray(values, dtype=np.int64)
    codes = np.asarray(codes, dtype=np.int64)
    n_t = values.shape[1]
    missing = values == MISSING
    some = missing.any(axis=1)
    whole = values[~some]
    index = whole @ (1 << np.arange(n_t - 1, -1, -1))
    counts = np.bincount(codes[~some] * (1 << n_t) + index,
                         minlength=n_pops * (1 << n_t)).reshape(n_pops, 1 << n_t)
    digits = np.where(missing[some], 2, values[some])
    key = digits @ (3 ** np.arange(n_t - 1, -1, -1))
    present, where = np.unique(key, return_inverse=True)
    partial = (present[:, None] // 3 ** np.arange(n_t - 1, -1, -1)) % 3
    partial = np.where(partial == 2, MISSING, partial).astype(np.int64).reshape(-1, n_t)
    partial_counts = np.bincount(codes[some] * len(present) + where.reshape(-1),
                                 minlength=n_pops * len(present)).reshape(n_pops, len(present))
    return counts.astype(np.int64), partial, partial_counts.astype(np.int64)


def partial_from_names(names: Sequence[str], n_tests: int) -> np.ndarray:
    """Partial patterns ``(Q, T)`` from names such as ``"+?-"`` (checked by the caller).

    Examples
    --------
    >>> from bayescm.core.latent_patterns import partial_from_names
    >>> partial_from_names(["+?", "?-"], 2).tolist()
    [[1, -1], [-1, 0]]
    """
    code = {"-": 0, "+": 1, "?": MISSING}
    return np.array([[code[c] for c in name] for name in names],
                    dtype=np.int64).reshape(-1, n_tests)


def base3_order(partial: np.ndarray) -> np.ndarray:
    """The order that sorts partial patterns as :func:`count_patterns` lists them.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.latent_patterns import base3_order
    >>> base3_order(np.array([[-1, 0], [1, -1]])).tolist()
    [1, 0]
    """
    partial = np.asarray(partial, dtype=np.int64)
    digits = np.where(partial == MISSING, 2, partial)
    return np.argsort(digits @ (3 ** np.arange(partial.shape[1] - 1, -1, -1)), kind="stable")


def whole_counts(arr: np.ndarray) -> bool:
    """Whether ``arr`` holds whole numbers >= 0 (counts)."""
    return bool(np.issubdtype(arr.dtype, np.number) and np.all(np.isfinite(arr))
                and not np.any(arr < 0) and not np.any(np.mod(arr, 1) != 0))


def read_partial(partial: Mapping[str, Any], n_t: int, n_p: int
                    ) -> tuple[np.ndarray, np.ndarray]:
    """``TestResults.from_counts(partial=)`` as partial patterns ``(Q, T)`` and counts ``(P, Q)``.

    Examples
    --------
    >>> from bayescm.core.latent_patterns import read_partial
    >>> rows, counts = read_partial({"?-": [1, 2], "+?": [3, 4]}, 2, 2)
    >>> rows.tolist(), counts.tolist()
    ([[1, -1], [-1, 0]], [[3, 1], [4, 2]])
    """
    names = [str(k) for k in partial]
    for name in names:
        if (len(name) != n_t or set(name) - set("+-?") or "?" not in name
                or set(name) == {"?"}):
            raise LatentClassFormatError(
                f"partial={{{name!r}: ...}}: a partial pattern has one symbol per test ({n_t}),"
                " '+' positive, '-' negative, '?' not done, with at least one '?' and one "
                "result (a subject with every test read belongs in counts).")
    from bayescm.core.validate import check_count_array

    values = np.zeros((n_p, len(names)), dtype=np.int64)
    for q, value in enumerate(partial.values()):
        try:
            arr = check_count_array(value, f"partial[{names[q]!r}]")
        except (TypeError, ValueError):
            arr = np.zeros(0, dtype=np.int64)  # refused below, naming the pattern
        if arr.ndim == 0:
            arr = np.full(n_p, arr) if n_p == 1 else arr
        if arr.shape != (n_p,):
            raise LatentClassFormatError(
                f"partial={{{names[q]!r}: {value!r}}}: give whole numbers >= 0, one per "
                f"population ({n_p}).")
        values[:, q] = arr
    rows = partial_from_names(names, n_t)
    order = base3_order(rows)
    return rows[order], values[:, order].astype(np.int64)
