"""Table checks shared by the one-row-per-record inputs: Items, TestResults, Ratings.

Each reads a pandas DataFrame (or a mapping of columns) and turns some columns into ids and
others into 0/1 results. The same bad tables reach all of them, so the checks live here once:

* :func:`as_frame`: a mapping of columns becomes a frame; columns of different lengths, a
  mapping of single values and a frame with two columns of one name are refused, naming the fix;
* :func:`check_distinct_text`: ids are compared as text (a file holds only text), so two
  different values that print alike (the number ``1`` and the text ``"1"``) would silently
  become one item, system or population; they are refused;
* :func:`refuse_complex`: a complex column is not 0/1 results (NumPy would drop the imaginary
  part with a warning and go on).

Each raises the caller's error class (:class:`~bayescm.errors.ItemsFormatError`,
:class:`~bayescm.errors.LatentClassFormatError`), so one kind of input reports one kind of error.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["as_frame", "blank_cells", "check_distinct_text", "refuse_complex"]


def as_frame(frame: Any, what: str, error: type[Exception]) -> Any:
    """A DataFrame of ``frame`` (a DataFrame or a mapping of columns), its columns named once.

    Parameters
    ----------
    frame : pandas.DataFrame or mapping of str to sequence
        The table.
    what : str
        The input's name for messages (``"Items"``).
    error : type of Exception
        The caller's format error.

    Returns
    -------
    pandas.DataFrame
        ``frame`` itself, or a new frame of the mapping.

    Raises
    ------
    TypeError
        ``frame`` that is neither a DataFrame nor a mapping.
    Exception
        ``error``: columns of different lengths, single values instead of columns, or two
        columns of one name.

    Examples
    --------
    >>> from bayescm.core.frames import as_frame
    >>> as_frame({"a": [1, 2], "b": [3]}, "Items", ValueError)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: Items: the columns have different lengths (a: 2, b: 1); ...
    """
    import pandas as pd

    if isinstance(frame, Mapping):
        columns = dict(frame)
        lengths = {str(k): (len(v) if hasattr(v, "__len__") and not isinstance(v, (str, bytes))
                            else None) for k, v in columns.items()}
        if columns and all(n is None for n in lengths.values()):
            raise error(f"{what}: every column is a single value; give each column as a list "
                        "with one value per row ({'item_id': [1, 2], ...}).")
        known = {n for n in lengths.values() if n is not None}
        if len(known) > 1:
            shown = ", ".join(f"{k}: {n}" for k, n in lengths.items() if n is not None)
            raise error(f"{what}: the columns have different lengths ({shown}); give every "
                        "column one value per row (fill a missing value with None).")
        frame = pd.DataFrame(columns)
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"{what} takes a pandas DataFrame (one row per record) or a mapping of "
                        f"columns, got {type(frame).__name__}.")
    twice = frame.columns[frame.columns.duplicated()]
    if len(twice):
        raise error(f"{what}: the table has two columns named {twice[0]!r}; rename or drop one "
                    "(frame.loc[:, ~frame.columns.duplicated()] keeps the first).")
    return frame


def check_distinct_text(values: Any, column: str, what: str, error: type[Exception], *,
                        strip: bool = True) -> None:
    """Refuse two different values of a column that read as one text (``1`` and ``"1"``).

    Parameters
    ----------
    values : array-like
        The column's values (no missing ones).
    column, what : str
        The column's name and what its values are (``"item id"``), for the message.
    error : type of Exception
        The caller's format error.
    strip : bool, default True
        Whether the caller compares the texts without surrounding spaces.

    Raises
    ------
    Exception
        ``error``, naming the two values.

    Examples
    --------
    >>> from bayescm.core.frames import check_distinct_text
    >>> check_distinct_text([1, "1", 2], "item_id", "item id", ValueError)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: column 'item_id': the item ids 1 and '1' are different values ...
    """
    import pandas as pd

    if getattr(getattr(values, "dtype", None), "kind", "O") != "O":
        return  # one type: equal texts mean equal values
    if pd.api.types.infer_dtype(values, skipna=True) in ("string", "integer", "boolean"):
        return  # all text (or all integers) in an object column: the same, found fast
    seen: dict[str, Any] = {}
    for value in pd.unique(np.asarray(values, dtype=object)):
        text = str(value).strip() if strip else str(value)
        if text in seen and type(seen[text]) is not type(value):
            raise error(f"column {column!r}: the {what}s {seen[text]!r} and {value!r} are "
                        f"different values that read as the same text {text!r}; ids are "
                        f"compared as text, so give the column one type (e.g. "
                        f"frame[{column!r}].astype(str)) or mend the ids.")
        seen[text] = value


def refuse_complex(values: Any, column: str, error: type[Exception]) -> None:
    """Refuse a column of complex numbers where 0/1 results are expected.

    Raises
    ------
    Exception
        ``error`` when the column's dtype is complex.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.frames import refuse_complex
    >>> refuse_complex(np.array([1 + 0j]), "correct", ValueError)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: column 'correct' holds complex numbers; ...
    """
    if getattr(getattr(values, "dtype", None), "kind", "") == "c":
        raise error(f"column {column!r} holds complex numbers; give 1 for a positive (correct) "
                    "result and 0 for a negative one.")


def blank_cells(values: Any) -> np.ndarray:
    """Where a column is missing: NaN, None, pandas NA, or text that is empty or only spaces.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayescm.core.frames import blank_cells
    >>> blank_cells(pd.Series([1, None, "", " ", "0"], dtype=object)).tolist()
    [False, True, True, True, False]
    """
    empty = values.map(lambda v: isinstance(v, str) and not v.strip()).to_numpy(dtype=bool)
    return np.asarray(values.isna().to_numpy() | empty, dtype=bool)
