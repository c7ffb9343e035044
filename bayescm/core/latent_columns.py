"""Reading the latent class models' tables: frames, CSV columns, labels.

The helpers :class:`~bayescm.core.latent.TestResults` and :class:`~bayescm.core.ratings.Ratings`
share: a frame from a mapping, the one CSV reader's columns (:func:`csv_frame`), checked
column names, row labels for messages and population (item, rater) codes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from bayescm.core.arguments import did_you_mean
from bayescm.core.frames import as_frame, check_distinct_text
from bayescm.errors import LatentClassFormatError

__all__ = ["csv_frame", "table_frame"]


def _frame(frame: Any, what: str) -> Any:
    frame = as_frame(frame, what, LatentClassFormatError)
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
    >>> from bayescm.core.latent_columns import csv_frame
    >>> path = Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = path.write_text("a,b\\n1,0\\n0,\\n")
    >>> csv_frame(path, ["a", "b"], may_be_empty=["b"])["b"].isna().tolist()
    [False, True]
    """
    from bayescm.core.csvtable import read_csv

    return table_frame(read_csv(path), names, may_be_empty=may_be_empty)


def table_frame(table: Any, names: Sequence[str], *, may_be_empty: Sequence[str] = ()) -> Any:
    """The columns ``names`` of a read CSV table as a frame indexed by line.

    :func:`csv_frame` for a table already read (:class:`~bayescm.core.csvtable.CSVTable`: a
    file, or text pasted in the app).

    Examples
    --------
    >>> from bayescm.core.csvtable import parse_csv
    >>> from bayescm.core.latent_columns import table_frame
    >>> table = parse_csv("a,b\\n1,\\n", "the table")
    >>> table_frame(table, ["a", "b"], may_be_empty=["b"]).to_dict("list")
    {'a': ['1'], 'b': [None]}
    """
    import pandas as pd

    table = table.check_header()
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


def _whole(values: np.ndarray, column: str = "") -> np.ndarray:
    """Floats that are whole numbers as integers (``3.0`` read next to a gap is the label 3)."""
    if values.dtype.kind == "f" and not np.isfinite(values).all():
        raise LatentClassFormatError(f"column {column!r}: {values[~np.isfinite(values)][0]} is "
                                     "not an id or a class; give finite numbers or names.")
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
        check_distinct_text(values.cat.categories, column, what, LatentClassFormatError,
                            strip=False)
        return (values.cat.codes.to_numpy().astype(np.int64),
                [str(c) for c in values.cat.categories])
    check_distinct_text(values, column, what, LatentClassFormatError, strip=False)
    codes, uniques = pd.factorize(_whole(values.to_numpy(), column), sort=False)
    return codes.astype(np.int64), [str(u) for u in uniques]


def counts_of(value: Any, what: str) -> np.ndarray:
    """Counts checked by :func:`~bayescm.core.validate.check_count_array`, as int64.

    A wrong kind or value is a :class:`~bayescm.errors.LatentClassFormatError` naming
    ``what``; a count (or a total) beyond ``2**63 - 1`` stays an :class:`OverflowError`.
    """
    from bayescm.core.validate import check_count_array

    try:
        return check_count_array(value, what)
    except OverflowError:
        raise
    except (TypeError, ValueError) as err:
        raise LatentClassFormatError(f"{err} Give whole numbers >= 0.") from None


def names_for(given: Any, n: int, what: str, prefix: str) -> list[str]:
    """``n`` distinct names for ``what`` (the default ``prefix1, prefix2, ...`` for None).

    Examples
    --------
    >>> from bayescm.core.latent_columns import names_for
    >>> names_for(None, 2, "raters", "r")
    ['r1', 'r2']
    """
    from bayescm.core.arguments import check_names

    if given is None:
        return [f"{prefix}{i + 1}" for i in range(n)]
    if isinstance(given, (str, bytes)) or not hasattr(given, "__iter__"):
        raise TypeError(f"{what}= is a list of {n} names, got {given!r}.")
    names = list(given)
    if len(names) != n:
        raise LatentClassFormatError(f"{what}={[str(v) for v in names]!r} names {len(names)}, "
                                     f"but the counts have {n}: give one name each.")
    try:
        return check_names(names, what)
    except ValueError as err:
        raise LatentClassFormatError(str(err)) from None
