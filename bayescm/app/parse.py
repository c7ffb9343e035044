"""What a user typed or uploaded, read into numbers, matrices and label columns.

Every reader either returns a value or raises :class:`InputError`, a ``ValueError`` whose
message names the field and says how to fix it, and whose ``field`` says which part of the
page should show it. Text is only ever parsed (numbers by a strict pattern, tables by the
:mod:`csv` module); nothing a user types is evaluated. Nothing here imports Panel.
"""

from __future__ import annotations

import csv
import io
import math
import re
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "MAX_UPLOAD_BYTES", "InputError", "csv_columns", "decode_upload", "matrix_from_csv",
    "normalise_csv", "parse_count", "parse_real", "parse_shares", "parse_whole",
    "scores_from_csv", "text_columns",
]

MAX_UPLOAD_BYTES = 20 * 1024 * 1024
"""Largest file (or pasted table) the app reads: 20 MB."""

_WHOLE = re.compile(r"[+-]?\d+(\.0*)?")
_REAL = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


class InputError(ValueError):
    """Bad input with a message for the user and the part of the page it belongs to.

    Parameters
    ----------
    message : str
        What is wrong and how to fix it.
    field : str, default "input"
        Which part of the page shows the message (e.g. ``"matrix"``, ``"priors"``).

    Examples
    --------
    >>> from bayescm.app.parse import InputError
    >>> err = InputError("TP is missing.", field="matrix")
    >>> str(err), err.field
    ('TP is missing.', 'matrix')
    """

    def __init__(self, message: str, field: str = "input") -> None:
        super().__init__(message)
        self.field = field


def _text(value: Any) -> str:
    return "" if value is None else str(value).strip()


def parse_whole(value: Any, name: str, minimum: int = 0, maximum: int = 2**53, *,
                field: str = "input") -> int:
    """A whole number typed into a field, between ``minimum`` and ``maximum``.

    ``"12"``, ``"+12"`` and ``"12.0"`` are twelve; blanks, fractions, words and numbers out of
    range raise :class:`InputError` naming ``name``.

    Examples
    --------
    >>> from bayescm.app.parse import parse_whole
    >>> parse_whole(" 5000 ", "draws", 1)
    5000
    >>> parse_whole("2.5", "draws", 1)
    Traceback (most recent call last):
    ...
    bayescm.app.parse.InputError: draws must be a whole number, got '2.5'.
    """
    text = _text(value)
    if not text:
        raise InputError(f"{name} is missing: enter a whole number.", field)
    if not _WHOLE.fullmatch(text):
        raise InputError(f"{name} must be a whole number, got {text!r}.", field)
    number = int(float(text)) if "." in text else int(text)
    if number < minimum:
        raise InputError(f"{name} must be at least {minimum:,}, got {number:,}.", field)
    if number > maximum:
        raise InputError(f"{name} must be at most {maximum:,}, got {number:,}.", field)
    return number


def parse_count(value: Any, name: str, *, field: str = "matrix") -> int:
    """A count of samples (a whole number >= 0) typed into a cell of the matrix.

    Examples
    --------
    >>> from bayescm.app.parse import parse_count
    >>> parse_count("26", "TP")
    26
    >>> parse_count("-3", "FN")
    Traceback (most recent call last):
    ...
    bayescm.app.parse.InputError: FN is negative (-3); a count of samples is 0 or more.
    """
    text = _text(value)
    if not text:
        raise InputError(f"{name} is missing: enter a count of samples (0 or more).", field)
    if _WHOLE.fullmatch(text) and text.startswith("-") and float(text) != 0:
        raise InputError(f"{name} is negative ({text}); a count of samples is 0 or more.", field)
    if not _WHOLE.fullmatch(text):
        fraction = _REAL.fullmatch(text) and "." in text and "e" not in text.lower()
        kind = "a fraction" if fraction else "not a whole number"
        raise InputError(f"{name} must be a whole number of samples, got {text!r} ({kind}).",
                         field)
    return parse_whole(text, name, 0, field=field)


def parse_real(value: Any, name: str, low: float = -math.inf, high: float = math.inf, *,
               open_low: bool = False, open_high: bool = False, field: str = "input",
               percent: bool = True) -> float:
    """A number typed into a field, within ``[low, high]`` (ends open on request).

    A trailing ``%`` divides by 100 when ``percent`` is true, so ``"95%"`` and ``"0.95"`` are
    the same proportion. Words, ``nan`` and ``inf`` are refused.

    Examples
    --------
    >>> from bayescm.app.parse import parse_real
    >>> parse_real("0.9", "mean", 0, 1, open_low=True, open_high=True)
    0.9
    >>> parse_real("95 %", "mass", 0, 1)
    0.95
    >>> parse_real("1.2", "mean", 0, 1, open_low=True, open_high=True)
    Traceback (most recent call last):
    ...
    bayescm.app.parse.InputError: mean must lie strictly between 0 and 1, got 1.2.
    """
    text = _text(value)
    if not text:
        raise InputError(f"{name} is missing: enter a number.", field)
    divisor = 1.0
    if percent and text.endswith("%"):
        text, divisor = text[:-1].strip(), 100.0
    if not _REAL.fullmatch(text):
        raise InputError(f"{name} must be a number, got {_text(value)!r}.", field)
    number = float(text) / divisor
    below = number <= low if open_low else number < low
    above = number >= high if open_high else number > high
    if below or above:
        if math.isinf(high):
            raise InputError(f"{name} must be {'above' if open_low else 'at least'} {low:g}, "
                             f"got {number:g}.", field)
        elif open_low and open_high:
            where = f"strictly between {low:g} and {high:g}"
        else:
            where = f"between {low:g} and {high:g}"
        raise InputError(f"{name} must lie {where}, got {number:g}.", field)
    return number


def parse_shares(value: Any, name: str, k: int, *, field: str = "input") -> tuple[float, ...]:
    """``k`` proportions separated by commas, semicolons or spaces, each in (0, 1), sum 1.

    Examples
    --------
    >>> from bayescm.app.parse import parse_shares
    >>> parse_shares("0.2, 0.3, 0.5", "prevalence", 3)
    (0.2, 0.3, 0.5)
    >>> parse_shares("0.2, 0.3", "prevalence", 3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bayescm.app.parse.InputError: prevalence needs 3 shares (one per class, ...), got 2.
    """
    parts = [p for p in re.split(r"[,;\s]+", _text(value)) if p]
    if len(parts) != k:
        raise InputError(f"{name} needs {k} shares (one per class, in the order of the "
                         f"matrix), got {len(parts)}.", field)
    shares = tuple(parse_real(p, f"each share of {name}", 0, 1, open_low=True, open_high=True,
                              field=field) for p in parts)
    if abs(sum(shares) - 1) > 1e-6:
        raise InputError(f"the shares of {name} must add up to 1, got {sum(shares):g}.", field)
    return shares


def decode_upload(data: bytes | None, what: str = "the file", *, field: str = "input") -> str:
    """The text of an uploaded CSV file (UTF-8, with or without a byte-order mark, or Latin-1).

    Examples
    --------
    >>> from bayescm.app.parse import decode_upload
    >>> decode_upload(b"y,p\\n1,0.9\\n")
    'y,p\\n1,0.9\\n'
    """
    if not data:
        raise InputError(f"{what} is empty: choose a CSV file with a header row.", field)
    if len(data) > MAX_UPLOAD_BYTES:
        raise InputError(f"{what} is larger than {MAX_UPLOAD_BYTES // 2**20} MB; the app reads "
                         "smaller files (use the Python API for bigger ones).", field)
    if b"\x00" in data[:4096]:
        raise InputError(f"{what} is not a text (CSV) file.", field)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("latin-1")


def _dialect(text: str) -> str:
    first = next((line for line in text.splitlines() if line.strip()), "")
    counts = {d: first.count(d) for d in (",", "\t", ";")}
    best = max(counts, key=lambda d: counts[d])
    return best if counts[best] else ","


def normalise_csv(text: str, what: str = "the table", *, field: str = "input"
                  ) -> list[list[str]]:
    """The non-empty rows of a pasted or uploaded table, cells stripped.

    Commas, tabs (a paste from a spreadsheet) or semicolons separate the cells, whichever the
    first line uses most.

    Examples
    --------
    >>> from bayescm.app.parse import normalise_csv
    >>> normalise_csv("true\\tpos\\tneg\\npos\\t26\\t0\\n\\nneg\\t2\\t6\\n")
    [['true', 'pos', 'neg'], ['pos', '26', '0'], ['neg', '2', '6']]
    """
    if len(text.encode("utf-8", errors="replace")) > MAX_UPLOAD_BYTES:
        raise InputError(f"{what} is larger than {MAX_UPLOAD_BYTES // 2**20} MB.", field)
    try:
        rows = list(csv.reader(io.StringIO(text), delimiter=_dialect(text)))
    except csv.Error as err:
        raise InputError(f"{what} is not a readable CSV table ({err}).", field) from None
    rows = [[c.strip() for c in r] for r in rows if any(c.strip() for c in r)]
    if not rows:
        raise InputError(f"{what} is empty: paste or upload a CSV table.", field)
    return rows


def _via_file(rows: Sequence[Sequence[str]], reader: Callable[[Path], Any], what: str,
              field: str) -> Any:
    """Hand ``rows`` to a reader of CSV files; its messages name ``what`` instead of a path."""
    with tempfile.TemporaryDirectory(prefix="bayescm-app-") as folder:
        path = Path(folder) / "table.csv"
        with path.open("w", newline="", encoding="utf-8") as fh:
            csv.writer(fh).writerows(rows)
        try:
            return reader(path)
        except (ValueError, TypeError, OverflowError) as err:
            message = str(err).replace(str(path), what)
            raise InputError(message[:1].upper() + message[1:], field) from None


def matrix_from_csv(text: str, positive: str | None = None, ordered: bool = False, *,
                    field: str = "matrix") -> Any:
    """A confusion matrix from a pasted table: rows TRUE class, columns PREDICTED class.

    Either the layout of ``bayescm analyze --csv`` (a header row of predicted labels after a
    free first cell, then one row per true label) or a bare square grid of counts, whose
    classes are then named ``0 .. K-1``. ``positive`` (a label of a two-class table) makes a
    binary analysis; without it the matrix is multiclass.

    Examples
    --------
    >>> from bayescm.app.parse import matrix_from_csv
    >>> matrix_from_csv("true,high,low\\nhigh,26,0\\nlow,2,6", positive="high").cells
    {'tp': 26, 'fn': 0, 'fp': 2, 'tn': 6}
    >>> matrix_from_csv("9 1 0\\n2 7 1\\n0 1 5").labels
    ('0', '1', '2')
    """
    from bayescm.io.readers import read_matrix_csv

    rows = normalise_csv(text, field=field)
    if all(len(r) == 1 for r in rows):  # cells separated by spaces
        rows = [r[0].split() for r in rows]
    if all(_WHOLE.fullmatch(c) or _REAL.fullmatch(c) for c in rows[0]):  # a bare grid
        rows = [[""] + [str(i) for i in range(len(rows[0]))]] + [
            [str(i), *r] for i, r in enumerate(rows)]
    if positive is not None and not str(positive).strip():
        positive = None
    k = len(rows) - 1
    if positive is not None and k != 2:
        raise InputError(f"the positive class only applies to a two-class table; this one "
                         f"has {k} classes (leave the positive class empty).", field)
    if k > 50:
        raise InputError(f"the table has {k} classes; the app draws at most 50 (use the Python "
                         "API for more).", field)
    labels = [r[0] for r in rows[1:]]
    if positive is not None and positive not in labels:
        raise InputError(f"the positive class {positive!r} is not one of the table's labels "
                         f"{labels}.", field)
    return _via_file(rows, lambda p: read_matrix_csv(p, positive=positive, ordered=ordered),
                     "the table", field)


def csv_columns(text: str, what: str = "the file", *, field: str = "input") -> list[str]:
    """The header of a CSV table: its column names, which must be present and unique.

    Examples
    --------
    >>> from bayescm.app.parse import csv_columns
    >>> csv_columns("y,old,new\\n1,0.9,0.8\\n")
    ['y', 'old', 'new']
    """
    header = normalise_csv(text, what, field=field)[0]
    if any(not c for c in header):
        raise InputError(f"{what} has an empty column name in its header row {header}.", field)
    twice = sorted({c for c in header if header.count(c) > 1})
    if twice:
        raise InputError(f"{what} names the column {twice[0]!r} twice in its header.", field)
    return header


def text_columns(text: str, columns: Sequence[str], what: str = "the file", *,
                 field: str = "input") -> list[list[str]]:
    """The cells of the named columns, one list per column (every cell must be filled).

    Examples
    --------
    >>> from bayescm.app.parse import text_columns
    >>> text_columns("y,a,b\\n1,1,0\\n0,0,0\\n", ["y", "b"])
    [['1', '0'], ['0', '0']]
    """
    rows = normalise_csv(text, what, field=field)
    header = csv_columns(text, what, field=field)
    missing = [c for c in columns if c not in header]
    if missing:
        raise InputError(f"{what} has no column {missing[0]!r}; its header is {header}.", field)
    if len(rows) < 2:
        raise InputError(f"{what} has a header but no rows of data.", field)
    out = []
    for c in columns:
        j = header.index(c)
        cells = []
        for line, row in enumerate(rows[1:], start=2):
            if j >= len(row) or not row[j]:
                raise InputError(f"{what}, line {line}: column {c!r} is empty.", field)
            cells.append(row[j])
        out.append(cells)
    return out


def scores_from_csv(text: str, label: str, scores: Sequence[str], positive: str | None = None,
                    *, field: str = "scores") -> Any:
    """:class:`~bayescm.Scores` from a CSV table of a label column and score columns.

    Examples
    --------
    >>> from bayescm.app.parse import scores_from_csv
    >>> s = scores_from_csv("y,old,new\\n1,0.9,0.8\\n0,0.2,0.4\\n1,0.7,0.3\\n", "y",
    ...                     ["old", "new"])
    >>> s.names, s.n_pos
    (['old', 'new'], 2)
    """
    from bayescm.core.scores import Scores

    if not label:
        raise InputError("choose the column of the true labels.", field)
    if not scores:
        raise InputError("choose at least one score column.", field)
    if label in scores:
        raise InputError(f"{label!r} is the label column; it cannot also be a score.", field)
    rows = normalise_csv(text, "the file", field=field)
    csv_columns(text, "the file", field=field)
    positive = positive.strip() if positive and positive.strip() else None
    return _via_file(rows, lambda p: Scores.from_csv(p, label=label, score=list(scores),
                                                     positive=positive), "the file", field)
