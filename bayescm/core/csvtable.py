"""One reader of CSV tables for all of bayescm: data files, packaged data sets, pasted tables.

Every table bayescm reads (a labelled confusion matrix, a table of binary matrices, labels and
scores, a leaderboard, a spec's data file, the app's pasted or uploaded tables, the packaged
data sets) goes through :func:`read_csv` or :func:`parse_csv`, so the rules are the same
everywhere:

* **Encoding**: UTF-8, with or without a byte-order mark. Any other encoding is an error that
  names the file, the encoding it looks like (UTF-16 or UTF-32 by their byte-order marks,
  Windows-1252 / Latin-1 by their bytes) and how to save the file as UTF-8.
* **Delimiter**: a comma. A header that splits on a semicolon, a tab or ``|`` but has no comma
  is an error naming that delimiter (the app's pasted tables also take tabs and semicolons,
  which a spreadsheet's copy gives).
* **Header**: the first non-blank row names the columns; names are non-empty and unique.
* **Rows**: every row has as many cells as the header (one cell more is often a decimal comma:
  the message says so); blank rows are skipped; spaces around a cell are ignored.
* **Numbers**: read by :mod:`bayescm.core.numtext`: counts are exact non-negative whole numbers
  up to ``2**63 - 1``; real numbers are finite; no ``1_000``, ``1,000``, ``0,9``, ``nan``,
  ``inf`` or hexadecimal.

Every problem raises :class:`CSVFormatError`, a ``ValueError`` whose message names the source
(the file, or "the pasted table"), the line and the column.
"""

from __future__ import annotations

import codecs
import csv
import io
import itertools
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from bayescm.core.arguments import did_you_mean
from bayescm.core.numtext import real_from_text, whole_from_text
from bayescm.errors import CSVFormatError, NumberTextError

__all__ = ["COMMA", "PASTED", "CSVFormatError", "CSVTable", "decode_csv", "parse_csv",
           "read_csv"]

COMMA = (",",)
"""The delimiter of files: commas only."""
PASTED = (",", "\t", ";")
"""Delimiters of pasted tables (the app): whichever of these the header uses most."""
_OTHERS = {";": "semicolons", "\t": "tabs", "|": "'|' characters", ",": "commas"}
_SAVE_UTF8 = ("save it as UTF-8 (Excel: 'CSV UTF-8 (Comma delimited)'; LibreOffice: character "
              "set 'Unicode (UTF-8)'; or iconv -f {enc} -t UTF-8 old.csv > new.csv)")
_INTEGER = re.compile(r"[+-]?[0-9]+")
_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def decode_csv(data: bytes, source: str) -> str:
    """The text of a CSV file's bytes: UTF-8 (a byte-order mark is dropped), else an error.

    Parameters
    ----------
    data : bytes
        The file's content.
    source : str
        The file's name (for messages).

    Returns
    -------
    str
        The text.

    Raises
    ------
    CSVFormatError
        UTF-16 or UTF-32 text, NUL bytes (not a text file), or bytes that are not UTF-8 (the
        message names the likely encoding, the line and column, and how to re-save the file).

    Examples
    --------
    >>> from bayescm.core.csvtable import decode_csv
    >>> decode_csv(b"\\xef\\xbb\\xbfy,p\\n1,0.9\\n", "s.csv")
    'y,p\\n1,0.9\\n'
    >>> decode_csv("y,caf\\u00e9\\n".encode("cp1252"), "s.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bayescm.errors.CSVFormatError: s.csv, line 1, column 2: not UTF-8 ... Windows-1252 ...
    """
    for bom, name in ((codecs.BOM_UTF32_LE, "UTF-32"), (codecs.BOM_UTF32_BE, "UTF-32"),
                      (codecs.BOM_UTF16_LE, "UTF-16"), (codecs.BOM_UTF16_BE, "UTF-16")):
        if data.startswith(bom):
            raise CSVFormatError(f"the file is {name} text (it starts with a {name} byte-order "
                                 "mark); bayescm reads UTF-8: " + _SAVE_UTF8.format(enc=name),
                                 source, 1, 1)
    nul = data.find(b"\x00")
    if nul >= 0:
        line, column = _position(data, nul)
        raise CSVFormatError("a NUL byte: this is not a text (CSV) file, or it is UTF-16 "
                             "without a byte-order mark; " + _SAVE_UTF8.format(enc="UTF-16"),
                             source, line, column)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line, column = _position(data, err.start)
        try:
            data.decode("cp1252")
            guess, enc = "Windows-1252 (cp1252, Excel's 'CSV' on Windows)", "CP1252"
        except UnicodeDecodeError:
            guess, enc = "Latin-1 (ISO-8859-1)", "LATIN1"
        byte = data[err.start]
        char = bytes([byte]).decode("cp1252" if enc == "CP1252" else "latin-1")
        raise CSVFormatError(
            f"not UTF-8 (byte 0x{byte:02x}); the file looks like {guess}, where that byte is "
            f"{char!r}: bayescm reads UTF-8, so {_SAVE_UTF8.format(enc=enc)}.",
            source, line, column) from None


def _position(data: bytes, offset: int) -> tuple[int, int]:
    """Line and column (by commas) of a byte offset."""
    start = data.rfind(b"\n", 0, offset) + 1
    return data.count(b"\n", 0, offset) + 1, data.count(b",", start, offset) + 1


def read_csv(path: str | os.PathLike[str], *, delimiters: Sequence[str] = COMMA) -> CSVTable:
    """Read a CSV file by the rules of this module (UTF-8, commas, a header, even rows).

    Parameters
    ----------
    path : str or Path
        The file.
    delimiters : sequence of str, default (",",)
        Delimiters accepted (the header's most frequent one is used).

    Returns
    -------
    CSVTable
        The header and the non-blank rows, cells stripped, with their line numbers.

    Raises
    ------
    FileNotFoundError
        No such file.
    CSVFormatError
        A folder or an unreadable file, an encoding other than UTF-8, another delimiter, ragged
        rows, malformed quoting, or no header.

    Examples
    --------
    >>> import os, tempfile
    >>> from bayescm.core.csvtable import read_csv
    >>> path = os.path.join(tempfile.mkdtemp(), "s.csv")
    >>> _ = open(path, "w").write("y,p\\n1,0.9\\n\\n0,0.2\\n")
    >>> table = read_csv(path)
    >>> table.header, table.body, table.lines
    (('y', 'p'), (('1', '0.9'), ('0', '0.2')), (1, 2, 4))
    """
    path = Path(path)
    source = str(path)
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise FileNotFoundError(f"No such file: {source}") from None
    except IsADirectoryError:
        raise CSVFormatError("this is a folder, not a CSV file; give the file's path.",
                             source) from None
    except OSError as err:
        raise CSVFormatError(f"cannot be read ({err.strerror or err}).", source) from None
    return parse_csv(decode_csv(data, source), source, delimiters=delimiters)


def _delimiter(header: str, source: str, line: int, delimiters: Sequence[str]) -> str:
    counts = {d: header.count(d) for d in delimiters}
    best = max(delimiters, key=lambda d: counts[d])
    if counts[best]:
        return best
    others = [d for d in _OTHERS if d not in delimiters and header.count(d)]
    if others:
        allowed = " or ".join(_OTHERS[d] for d in delimiters)
        raise CSVFormatError(
            f"the header splits on {_OTHERS[others[0]]}, not on {allowed}: bayescm reads "
            "comma-separated files. Save the table as CSV with commas (Excel: 'CSV UTF-8 "
            "(Comma delimited)'; pandas: df.to_csv(path)), with decimal points (0.9, not 0,9).",
            source, line, 1)
    return delimiters[0]


def parse_csv(text: str, source: str = "the pasted table", *,
              delimiters: Sequence[str] = COMMA) -> CSVTable:
    """Parse CSV text by the rules of this module: the first non-blank row is the header.

    Parameters
    ----------
    text : str
        The table.
    source : str, default "the pasted table"
        What the text is, for messages (a file name, "the pasted table").
    delimiters : sequence of str, default (",",)
        Delimiters accepted; :data:`PASTED` for a paste from a spreadsheet (tabs).

    Returns
    -------
    CSVTable
        The header and the non-blank rows, cells stripped, with their line numbers.

    Raises
    ------
    CSVFormatError
        No rows, another delimiter, ragged rows, malformed quoting.

    Examples
    --------
    >>> from bayescm.core.csvtable import parse_csv
    >>> parse_csv("y,p\\n1,0,9\\n", "s.csv")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bayescm.errors.CSVFormatError: s.csv, line 2, column 3: 3 cells, but the header ...
    >>> parse_csv("a\\tb\\n1\\t2\\n", delimiters=("\\t", ",")).body
    (('1', '2'),)
    """
    first = next(((i, ln) for i, ln in enumerate(_LINE_BREAK.split(text), start=1)
                  if ln.strip()), None)
    if first is None:
        raise CSVFormatError("no rows (the table is empty): give a header row naming the "
                             "columns, then the rows.", source)
    delimiter = _delimiter(first[1], source, first[0], delimiters)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter, strict=True)
    rows: list[tuple[str, ...]] = []
    lines: list[int] = []
    line = 1
    try:
        for row in reader:
            cells = tuple(cell.strip() for cell in row)
            if any(cells):
                rows.append(cells)
                lines.append(line)
            line = reader.line_num + 1
    except csv.Error as err:
        raise CSVFormatError(f"not readable as CSV ({err}); check the quotes (\") of this "
                             "line.", source, reader.line_num or line) from None
    return CSVTable(source, tuple(rows), tuple(lines))


@dataclass(frozen=True)
class CSVTable:
    """A table read by this module: the header, the rows, their lines; the readers' helpers.

    Built by :func:`read_csv` and :func:`parse_csv`, or from rows (the app's grids): every row
    must have as many cells as the first.

    Parameters
    ----------
    source : str
        The file or "the pasted table", for messages.
    rows : tuple of tuple of str
        The header row, then the data rows, cells stripped.
    lines : tuple of int
        The line of each row.

    Examples
    --------
    >>> from bayescm.core.csvtable import CSVTable
    >>> table = CSVTable("t.csv", (("id", "tp"), ("a", "5"), ("b", "7")), (1, 2, 3))
    >>> table.counts("tp")
    [5, 7]
    """

    source: str
    rows: tuple[tuple[str, ...], ...]
    lines: tuple[int, ...]

    def __post_init__(self) -> None:
        if not self.rows:
            raise CSVFormatError("no rows (the table is empty): give a header row naming the "
                                 "columns, then the rows.", self.source)
        width = len(self.rows[0])
        for row, line in zip(self.rows, self.lines, strict=True):
            if len(row) != width:
                j = min(len(row), width)  # the first missing or extra cell
                raise self.error(_ragged(row, self.rows[0]), line,
                                 (self.rows[0][j] or j + 1) if j < width else j + 1)

    @property
    def header(self) -> tuple[str, ...]:
        """The first row: the column names."""
        return self.rows[0]

    @property
    def body(self) -> tuple[tuple[str, ...], ...]:
        """The rows after the header."""
        return self.rows[1:]

    def error(self, message: str, line: int | None = None, column: str | int | None = None
              ) -> CSVFormatError:
        """A :class:`CSVFormatError` at a line and column of this table (to raise)."""
        return CSVFormatError(message, self.source, line, column)

    def _column(self, j: int) -> str | int:
        name = self.header[j]
        return name if name else j + 1

    def check_header(self, *, first_free: bool = False) -> CSVTable:
        """Refuse empty and repeated column names (``first_free``: the first cell may be any).

        Returns the table, for chaining.
        """
        seen: dict[str, int] = {}
        for j, name in enumerate(self.header):
            if first_free and j == 0:
                continue
            if not name:
                trailing = " (a comma at the end of the header?)" if j == len(
                    self.header) - 1 else ""
                raise self.error(f"the header has an empty column name{trailing}; name every "
                                 "column.", self.lines[0], j + 1)
            if name in seen:
                raise self.error(f"the header names the column {name!r} twice (columns "
                                 f"{seen[name] + 1} and {j + 1}); give each column its own "
                                 "name.", self.lines[0], j + 1)
            seen[name] = j
        return self

    def find(self, name: str, *, ignore_case: bool = False) -> int | None:
        """The position of the column ``name``, or None."""
        wanted = name.lower() if ignore_case else name
        for j, column in enumerate(self.header):
            if (column.lower() if ignore_case else column) == wanted:
                return j
        return None

    def require(self, names: Iterable[str], purpose: str = "", *, ignore_case: bool = False
                ) -> list[int]:
        """The positions of the columns ``names``; an error names the missing ones."""
        names = list(names)
        found = [self.find(n, ignore_case=ignore_case) for n in names]
        missing = [n for n, j in zip(names, found, strict=True) if j is None]
        if missing:
            hint = did_you_mean(missing[0], [c for c in self.header if c])
            raise self.error(f"no column(s) {missing}; the header has {list(self.header)}."
                             f"{hint}{' ' + purpose if purpose else ''}", self.lines[0])
        return [j for j in found if j is not None]

    def _cells(self, column: str | int) -> tuple[int, list[tuple[int, str]]]:
        j = column if isinstance(column, int) else self.require([column])[0]
        return j, [(line, row[j]) for row, line in zip(self.body, self.lines[1:], strict=True)]

    def texts(self, column: str | int, what: str = "a value") -> list[str]:
        """The cells of a column as text; an empty cell is an error (``what`` it should hold)."""
        j, cells = self._cells(column)
        for line, text in cells:
            if not text:
                raise self.error(f"the cell is empty; give {what}.", line, self._column(j))
        return [text for _, text in cells]

    def counts(self, column: str | int) -> list[int]:
        """The cells of a column as counts: exact non-negative whole numbers up to 2**63 - 1."""
        j, cells = self._cells(column)
        out = []
        for line, text in cells:
            try:
                value = whole_from_text(text)
            except NumberTextError as err:
                problem = "the cell is empty" if err.kind == "empty" else str(err)
                raise self.error(f"{problem}; a count is a non-negative whole number.", line,
                                 self._column(j)) from None
            if value < 0:
                raise self.error(f"{text} is negative; a count is a non-negative whole number.",
                                 line, self._column(j))
            out.append(value)
        return out

    def reals(self, column: str | int, low: float | None = None, high: float | None = None
              ) -> list[float]:
        """The cells of a column as finite real numbers, within ``[low, high]`` if given."""
        j, cells = self._cells(column)
        out = []
        for line, text in cells:
            try:
                value = real_from_text(text)
            except NumberTextError as err:
                problem = "the cell is empty; give a number" if err.kind == "empty" else err
                raise self.error(f"{problem}.", line, self._column(j)) from None
            if (low is not None and value < low) or (high is not None and value > high):
                bounds = (f"between {low:g} and {high:g}" if low is not None and high is not None
                          else f"at least {low:g}" if low is not None else f"at most {high:g}")
                raise self.error(f"{text} is out of range: the values must lie {bounds}.",
                                 line, self._column(j))
            out.append(value)
        return out


def _ragged(row: Sequence[str], header: Sequence[str]) -> str:
    width = len(header)
    message = f"{len(row)} cells, but the header has {width}"
    if len(row) == width - 1 and not header[-1]:
        return (f"{message}, the last with an empty name: a comma at the end of the header? "
                "Remove it.")
    if len(row) > width and any(_INTEGER.fullmatch(a) and b.isdigit() and b.isascii()
                                for a, b in itertools.pairwise(row)):
        return (f"{message}: a decimal comma? Write decimals with a point (0.9, not 0,9) and "
                "thousands without separators (1000, not 1,000).")
    if len(row) < width:
        return f"{message}: a cell is missing (leave it empty between two commas if it is)."
    return f"{message}: quote a cell that holds a comma (\"a, b\")."
