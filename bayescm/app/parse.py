"""What a user typed or uploaded, read into numbers, matrices and label columns.

Every reader either returns a value or raises :class:`InputError`, a ``ValueError`` whose
message names the field and says how to fix it, and whose ``field`` says which part of the
page should show it. Text is only ever parsed, by the package's own readers: numbers by
:mod:`bayescm.core.numtext` (the strict parser of CSV cells: no ``1_000``, ``nan``, ``inf``,
no 5,000-digit surprises), tables by :mod:`bayescm.core.csvtable` (UTF-8, a header, even rows;
a paste may use commas, tabs or semicolons). Nothing a user types is evaluated. Nothing here
imports Panel.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from bayescm.core.csvtable import PASTED, CSVTable, decode_csv, parse_csv
from bayescm.core.numtext import real_from_text, whole_from_text
from bayescm.errors import NumberTextError

__all__ = [
    "MAX_UPLOAD_BYTES", "InputError", "csv_columns", "decode_upload", "matrix_from_csv",
    "items_from_csv", "normalise_csv", "parse_count", "parse_real", "parse_shares",
    "parse_whole", "scores_from_csv", "text_columns",
]

MAX_UPLOAD_BYTES = 20 * 1024 * 1024
"""Largest file (or pasted table) the app reads: 20 MB."""



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
    limit = max(abs(minimum), abs(maximum))
    try:
        number = whole_from_text(text, limit)
    except NumberTextError as err:
        if err.kind == "too_large":
            raise InputError(f"{name} must be a whole number of at most {maximum:,}, got "
                             f"{_shown(text)}.", field) from None
        raise InputError(f"{name} must be a whole number, got {_shown(text)}"
                         f"{_reason(err)}.", field) from None
    if number < minimum:
        raise InputError(f"{name} must be at least {minimum:,}, got {number:,}.", field)
    if number > maximum:
        raise InputError(f"{name} must be at most {maximum:,}, got {number:,}.", field)
    return number


def _shown(text: str) -> str:
    """The text as quoted in a message (a long one shortened to its length)."""
    return repr(text) if len(text) <= 40 else f"a number of {len(text):,} characters"


def _reason(err: NumberTextError, fraction: str = "") -> str:
    """The parser's reason in brackets, when it says more than "not a number"."""
    message = str(err)
    if err.kind == "fraction":
        return fraction
    if ": " in message and err.kind in ("syntax", "not_finite"):
        return f" ({message.split(': ', 1)[1]})"
    return ""


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
    try:
        number = whole_from_text(text, 2**53)
    except NumberTextError as err:
        if err.kind == "too_large":
            raise InputError(f"{name} must be a whole number of samples of at most "
                             f"{2**53:,}, got {_shown(text)}.", field) from None
        raise InputError(f"{name} must be a whole number of samples, got {_shown(text)}"
                         f"{_reason(err, ' (a fraction)')}.", field) from None
    if number < 0:
        raise InputError(f"{name} is negative ({text}); a count of samples is 0 or more.", field)
    return number


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
    try:
        number = real_from_text(text) / divisor
    except NumberTextError as err:
        if err.kind == "too_large":
            raise InputError(f"{name} must be a finite number, got {_shown(text)} (too "
                             "large).", field) from None
        raise InputError(f"{name} must be a number, got {_shown(_text(value))}"
                         f"{_reason(err)}.", field) from None
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
    """The text of an uploaded CSV file: UTF-8, with or without a byte-order mark.

    Another encoding (UTF-16, Windows-1252, Latin-1) or a binary file is an :class:`InputError`
    that names the likely encoding and how to save the file as UTF-8.

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
    try:
        return decode_csv(data, what)
    except ValueError as err:
        raise InputError(_capital(str(err)), field) from None


def _capital(message: str) -> str:
    return message[:1].upper() + message[1:]


def _table(text: str, what: str, field: str) -> CSVTable:
    """The pasted or uploaded table, read by the package's CSV reader (commas, tabs, ';')."""
    if len(text.encode("utf-8", errors="replace")) > MAX_UPLOAD_BYTES:
        raise InputError(f"{what} is larger than {MAX_UPLOAD_BYTES // 2**20} MB.", field)
    try:
        return parse_csv(text, what, delimiters=PASTED)
    except ValueError as err:
        raise InputError(_capital(str(err)), field) from None


def normalise_csv(text: str, what: str = "the table", *, field: str = "input"
                  ) -> list[list[str]]:
    """The non-empty rows of a pasted or uploaded table, cells stripped.

    Commas, tabs (a paste from a spreadsheet) or semicolons separate the cells, whichever the
    first line uses most; every row must have as many cells as the first.

    Examples
    --------
    >>> from bayescm.app.parse import normalise_csv
    >>> normalise_csv("true\\tpos\\tneg\\npos\\t26\\t0\\n\\nneg\\t2\\t6\\n")
    [['true', 'pos', 'neg'], ['pos', '26', '0'], ['neg', '2', '6']]
    """
    return [list(row) for row in _table(text, what, field).rows]


def _read(reader: Any, what: str, field: str) -> Any:
    """Run a reader of parsed tables; its errors become InputErrors of ``field``."""
    try:
        return reader()
    except (ValueError, TypeError, OverflowError) as err:
        raise InputError(_capital(str(err)), field) from None


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
    from bayescm.io.readers import matrix_from_table

    what = "the pasted table"
    table = _table(text, what, field)
    rows, lines = [list(r) for r in table.rows], list(table.lines)
    if all(len(r) == 1 for r in rows):  # cells separated by spaces
        rows = [r[0].split() for r in rows]
    if all(_is_number(c) for c in rows[0]):  # a bare grid
        rows = [[""] + [str(i) for i in range(len(rows[0]))]] + [
            [str(i), *r] for i, r in enumerate(rows)]
        lines = [lines[0], *lines]
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
    return _read(lambda: matrix_from_table(CSVTable(what, tuple(map(tuple, rows)), tuple(lines)),
                                           positive=positive, ordered=ordered), what, field)


def _is_number(text: str) -> bool:
    try:
        real_from_text(text)
    except NumberTextError:
        return False
    return True


def csv_columns(text: str, what: str = "the file", *, field: str = "input") -> list[str]:
    """The header of a CSV table: its column names, which must be present and unique.

    Examples
    --------
    >>> from bayescm.app.parse import csv_columns
    >>> csv_columns("y,old,new\\n1,0.9,0.8\\n")
    ['y', 'old', 'new']
    """
    table = _table(text, what, field)
    _read(table.check_header, what, field)
    return list(table.header)


def text_columns(text: str, columns: Sequence[str], what: str = "the file", *,
                 field: str = "input") -> list[list[str]]:
    """The cells of the named columns, one list per column (every cell must be filled).

    Examples
    --------
    >>> from bayescm.app.parse import text_columns
    >>> text_columns("y,a,b\\n1,1,0\\n0,0,0\\n", ["y", "b"])
    [['1', '0'], ['0', '0']]
    """
    table = _table(text, what, field)
    _read(lambda: table.check_header().require(columns), what, field)
    if not table.body:
        raise InputError(f"{what} has a header but no rows of data.", field)
    return [_read(lambda c=c: table.texts(c), what, field) for c in columns]


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
    from bayescm.core.scores import scores_from_table

    if not label:
        raise InputError("choose the column of the true labels.", field)
    if not scores:
        raise InputError("choose at least one score column.", field)
    if label in scores:
        raise InputError(f"{label!r} is the label column; it cannot also be a score.", field)
    table = _table(text, "the file", field)
    positive = positive.strip() if positive and positive.strip() else None
    return _read(lambda: scores_from_table(table, label, list(scores), positive), "the file",
                 field)


def items_from_csv(text: str, outcome: str, item: str, cluster: str | None = None,
                   system: str | None = None, attempt: str | None = None, *,
                   field: str = "input") -> Any:
    """:class:`~bayescm.Items` from a pasted or uploaded log (one row per outcome).

    Examples
    --------
    >>> from bayescm.app.parse import items_from_csv
    >>> log = items_from_csv("q,ok\\nq1,1\\nq1,0\\nq2,1\\n", "ok", "q")
    >>> log.successes.tolist(), log.attempts.tolist()
    ([[1, 1]], [[2, 1]])
    """
    import pandas as pd

    from bayescm.core.items import Items

    if not outcome:
        raise InputError("choose the column of the outcomes (1 right, 0 wrong).", field)
    if not item:
        raise InputError("choose the column of the item ids.", field)
    table = _table(text, "the file", field)
    names = [n for n in (outcome, item, cluster, system, attempt) if n]

    def read() -> Any:
        table.check_header().require(names)
        frame = pd.DataFrame({n: table.texts(n, "a value") for n in dict.fromkeys(names)},
                             index=pd.Index(table.lines[1:], name="line"))
        return Items(frame, outcome=outcome, item=item, cluster=cluster or None,
                     system=system or None, attempt=attempt or None)

    return _read(read, "the file", field)


def audit_from_csv(text: str, *, field: str = "input") -> Any:
    """A stratified audit from a pasted table: ``stratum, size, tp, fn, tn, fp`` per row.

    Examples
    --------
    >>> from bayescm.app.parse import audit_from_csv
    >>> audit_from_csv("stratum,size,tp,fn,tn,fp\\nflagged,300,15,0,0,5\\n"
    ...                "other,9700,0,1,29,0\\n").strata
    ['flagged', 'other']
    """
    from bayescm.io.readers import audit_from_table

    table = _table(text, "the table", field)
    return _read(lambda: audit_from_table(table), "the table", field)
