"""Variables whose arrays are computed on first read: for groups nobody may read.

A fit's prior group and the per-variable diagnostics of independent draws are rarely read, so
they are built as :class:`LazyArrays` (one function computing all the group's arrays) and
:func:`lazy_variable` entries for :func:`bayescm.core.container.make_dataset`, backed by
xarray's lazily indexed arrays. Re-exported by :mod:`bayescm.core.container`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from xarray.backends.common import BackendArray
from xarray.core import indexing

__all__ = ["LazyArrays", "lazy_variable"]


class LazyArrays:
    """Arrays computed together on first access, for a group nobody may read (the prior).

    ``compute()`` returns ``{name: array}``; it runs once, when any of the group's variables is
    first read (``.values``, saving, plotting), and its result is kept. Pickling or deep-copying
    a variable computes it, so a copy never depends on the function.
    """

    def __init__(self, compute: Any) -> None:
        self._compute = compute
        self._values: dict[str, np.ndarray] | None = None

    def get(self, name: str) -> np.ndarray:
        """The array ``name`` (computing them all the first time)."""
        if self._values is None:
            self._values = dict(self._compute())
            self._compute = None
        return self._values[name]


class _ComputedData(BackendArray):
    """An xarray backend array over a computed NumPy array (basic indexing)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array
        self.shape = array.shape
        self.dtype = array.dtype

    def __getitem__(self, key: Any) -> np.ndarray:
        return indexing.explicit_indexing_adapter(key, self.shape,
                                                  indexing.IndexingSupport.BASIC, self._get)

    def _get(self, key: Any) -> np.ndarray:
        return self.array[key]


class _LazyData(BackendArray):
    """An xarray backend array of one variable of :class:`LazyArrays` (basic indexing)."""

    def __init__(self, source: LazyArrays, name: str, shape: tuple[int, ...]) -> None:
        self.source, self.name, self.shape = source, name, shape
        self.dtype = np.dtype(float)

    def __getitem__(self, key: Any) -> np.ndarray:
        return indexing.explicit_indexing_adapter(key, self.shape,
                                                  indexing.IndexingSupport.BASIC, self._get)

    def _get(self, key: Any) -> np.ndarray:
        return self.source.get(self.name)[key]

    def __reduce__(self) -> tuple[Any, ...]:  # copies and pickles hold the computed array
        return (_ComputedData, (self.source.get(self.name),))


def lazy_variable(dims: tuple[str, ...], source: LazyArrays, name: str,
                  shape: tuple[int, ...], attrs: Mapping[str, Any]) -> tuple[Any, ...]:
    """A ``(dims, data, attrs)`` entry for :func:`make_dataset` whose data is computed on read.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.container import make_dataset
    >>> from bayescm.core.lazy import LazyArrays, lazy_variable
    >>> calls = []
    >>> source = LazyArrays(lambda: calls.append(1) or {"x": np.arange(6.0).reshape(2, 3)})
    >>> ds = make_dataset({"x": lazy_variable(("chain", "draw"), source, "x", (2, 3), {})}, {})
    >>> len(calls)
    0
    >>> float(ds["x"].sum()), len(calls)
    (15.0, 1)
    """
    data = indexing.LazilyIndexedArray(_LazyData(source, name, shape))
    return (dims, data, dict(attrs))
