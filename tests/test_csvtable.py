"""One CSV layer: every reader refuses the same malformed files with one named error.

Each defect (a decimal comma, a repeated column, ``0_9``, a missing cell, Latin-1 bytes, ...)
is applied to a good file of each reader (a labelled matrix, a table of matrices, labels and
scores, a leaderboard, a spec's data file, the app's pasted table); every combination must
raise :class:`~bayescm.errors.CSVFormatError` naming the file, the line and the column,
and the good files (with a byte-order mark, CRLF line ends, blank lines, spaces, quotes) must
still read to the same values.
"""

from __future__ import annotations

import codecs
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import bayescm as bcm
from bayescm.io.readers import read_matrix_csv, read_table_csv

GOOD = {
    "matrix": "t,a,b\na,5,1\nb,2,7\n",
    "table": "id,tp,fn,tn,fp\nx,5,1,7,2\ny,3,0,4,1\n",
    "scores": "y,s\n1,0.9\n0,0.2\n1,0.6\n",
    "leaderboard": "name,accuracy\nA,0.9\nB,0.8\n",
    "spec-matrix": "t,a,b\na,5,1\nb,2,7\n",
    "spec-table": "id,tp,fn,tn,fp\nx,5,1,7,2\ny,3,0,4,1\n",
    "spec-scores": "y,s\n1,0.9\n0,0.2\n1,0.6\n",
}
"""A good file per reader; its second line's last cell is a number."""


def _read_leaderboard(path: Path) -> Any:
    from bayescm.cli import _read_scores

    return _read_scores(path)


def _spec(form: str) -> Callable[[Path], Any]:
    def read(path: Path) -> Any:
        spec = path.parent / "spec.toml"
        data = {"spec-matrix": f'csv = "{path.name}"',
                "spec-table": f'table = "{path.name}"',
                "spec-scores": f'scores = "{path.name}"\nlabel = "y"\nscore = ["s"]'}[form]
        spec.write_text(f"[data]\n{data}\n")
        return bcm.spec.load_spec(spec).data
    return read


READERS: dict[str, Callable[[Path], Any]] = {
    "matrix": read_matrix_csv,
    "table": read_table_csv,
    "scores": lambda p: bcm.Scores.from_csv(p, label="y", score="s"),
    "leaderboard": _read_leaderboard,
    "spec-matrix": _spec("spec-matrix"),
    "spec-table": _spec("spec-table"),
    "spec-scores": _spec("spec-scores"),
}


def _last_cell(text: str, new: str) -> str:
    """``text`` with the last cell of its second line replaced."""
    lines = text.split("\n")
    cells = lines[1].split(",")
    lines[1] = ",".join([*cells[:-1], new])
    return "\n".join(lines)


def _header(text: str, change: Callable[[list[str]], list[str]]) -> str:
    lines = text.split("\n")
    lines[0] = ",".join(change(lines[0].split(",")))
    return "\n".join(lines)


def _last_name(text: str) -> str:
    return text.split("\n")[0].split(",")[-1]


# name -> (make the bad bytes from the good text, line, column or None, words in the message)
DEFECTS: dict[str, tuple[Callable[[str], bytes], int | None, Any, str]] = {
    "decimal-comma": (lambda t: _last_cell(t, "0,5").encode(), 2, "extra", "decimal comma"),
    "underscore": (lambda t: _last_cell(t, "1_0").encode(), 2, "last", "underscore"),
    "thousands-separator": (lambda t: _last_cell(t, '"1,000"').encode(), 2, "last", "comma"),
    "apostrophe-grouping": (lambda t: _last_cell(t, "1'000").encode(), 2, "last", "grouping"),
    "nan": (lambda t: _last_cell(t, "nan").encode(), 2, "last", "finite"),
    "inf": (lambda t: _last_cell(t, "-Infinity").encode(), 2, "last", "finite"),
    "hex": (lambda t: _last_cell(t, "0x1").encode(), 2, "last", "hexadecimal"),
    "space-inside": (lambda t: _last_cell(t, "0 5").encode(), 2, "last", "space"),
    "arabic-digit": (lambda t: _last_cell(t, "\u0663").encode(), 2, "last", "non-ASCII"),
    "empty-cell": (lambda t: _last_cell(t, "").encode(), 2, "last", "empty"),
    "too-large": (lambda t: _last_cell(t, "1e999").encode(), 2, "last", "large"),
    "5000-digits": (lambda t: _last_cell(t, "9" * 5000).encode(), 2, "last", "large"),
    "short-row": (lambda t: "\n".join([t.split("\n")[0],
                                       ",".join(t.split("\n")[1].split(",")[:-1]),
                                       *t.split("\n")[2:]]).encode(), 2, "last", "cells"),
    "bad-quote": (lambda t: _last_cell(t, '"1"x').encode(), 2, None, "quote"),
    "repeated-column": (lambda t: _header(t, lambda h: [*h[:-1], h[-2]]).encode(), 1, "width",
                        "twice"),
    "empty-column-name": (lambda t: _header(t, lambda h: [*h[:-1], ""]).encode(), 1, "width",
                          "empty column name"),
    "header-trailing-comma": (lambda t: _header(t, lambda h: [*h, ""]).encode(), None, None,
                              "comma at the end"),
    "semicolons": (lambda t: t.replace(",", ";").encode(), 1, 1, "semicolons"),
    "tabs": (lambda t: t.replace(",", "\t").encode(), 1, 1, "tabs"),
    "pipes": (lambda t: t.replace(",", "|").encode(), 1, 1, "'|'"),
    "cp1252": (lambda t: t.replace("\n", " caf\u00e9\n", 1).encode("cp1252"), 1, "width",
               "Windows-1252"),
    "latin1": (lambda t: t.replace("\n", " \u00ff\u0081\n", 1).encode("latin-1"), 1, "width",
               "Latin-1"),
    "utf16": (lambda t: t.encode("utf-16"), 1, 1, "UTF-16"),
    "utf32": (lambda t: codecs.BOM_UTF32_LE + t.encode("utf-32-le"), 1, 1, "UTF-32"),
    "nul-byte": (lambda t: t.replace("\n", "\x00\n", 1).encode(), 1, None, "NUL"),
    "empty-file": (lambda t: b"\n\n", None, None, "empty"),
}


def _column_words(text: str, column: Any) -> str | None:
    if column is None:
        return None
    if column == "last":
        return f"column '{_last_name(text)}'" if _last_name(text) else "column "
    if column == "width":  # by position: the header may not be readable
        return f"column {len(text.split(chr(10))[0].split(','))}"
    if column == "extra":
        return f"column {len(text.split(chr(10))[0].split(',')) + 1}"
    return f"column {column}"


CASES = [(r, d) for r in READERS for d in DEFECTS]


@pytest.mark.parametrize(("reader", "defect"), CASES, ids=[f"{r}-{d}" for r, d in CASES])
def test_every_reader_refuses_every_defect_naming_the_place(tmp_path: Path, reader: str,
                                                            defect: str) -> None:
    from bayescm.errors import CSVFormatError

    make, line, column, words = DEFECTS[defect]
    good = GOOD[reader]
    path = tmp_path / "data.csv"
    path.write_bytes(make(good))
    with pytest.raises(CSVFormatError) as info:
        READERS[reader](path)
    message = str(info.value)
    assert message.startswith(str(path)), message  # the file first
    assert words.lower() in message.lower(), message
    if line is not None:
        assert f"line {line}" in message, message
    wanted = _column_words(good, column)
    if wanted is not None:
        assert wanted in message, message
    assert len(message.splitlines()) == 1


GOOD_VARIANTS: dict[str, Callable[[str], bytes]] = {
    "bom": lambda t: codecs.BOM_UTF8 + t.encode(),
    "crlf": lambda t: t.replace("\n", "\r\n").encode(),
    "blank-lines-and-spaces": lambda t: ("\n" + t.replace(",", " , ").replace("\n", "\n\n")
                                         ).encode(),
    "quoted": lambda t: "\n".join(",".join(f'"{c}"' for c in line.split(",")) if line else ""
                                  for line in t.split("\n")).encode(),
    "no-final-newline": lambda t: t.rstrip("\n").encode(),
}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)


@pytest.mark.parametrize("reader", list(READERS))
@pytest.mark.parametrize("variant", list(GOOD_VARIANTS))
def test_good_files_read_the_same_in_every_form(tmp_path: Path, reader: str,
                                                variant: str) -> None:
    plain, other = tmp_path / "a", tmp_path / "b"
    plain.mkdir()
    other.mkdir()
    (plain / "data.csv").write_text(GOOD[reader])
    (other / "data.csv").write_bytes(GOOD_VARIANTS[variant](GOOD[reader]))
    assert _same(READERS[reader](plain / "data.csv"), READERS[reader](other / "data.csv"))


@pytest.mark.parametrize(("text", "expected"), [
    ("12", 12), ("+12", 12), ("12.0", 12), ("1.2e1", 12), ("1e3", 1000),
    ("9223372036854775807", 2**63 - 1), ("0", 0), (" 7 ", 7)])
def test_counts_are_exact_in_every_ordinary_notation(tmp_path: Path, text: str,
                                                     expected: int) -> None:
    path = tmp_path / "m.csv"
    other = 0 if expected > 2**62 else 1  # a total within 2**63 - 1, and not an empty matrix
    path.write_text(f"t,a,b\na,{text},0\nb,0,{other}\n")
    assert read_matrix_csv(path).counts[0, 0] == expected


@pytest.mark.parametrize(("text", "words"), [
    ("9223372036854775808", "larger than 9,223,372,036,854,775,807"), ("2.5", "whole number"),
    ("-3", "negative"), ("1e-3", "whole number"), ("0x10", "hexadecimal")])
def test_counts_that_are_not_counts(tmp_path: Path, text: str, words: str) -> None:
    from bayescm.errors import CSVFormatError

    path = tmp_path / "m.csv"
    path.write_text(f"t,a,b\na,1,0\nb,0,{text}\n")
    with pytest.raises(CSVFormatError, match=re.escape("line 3, column 'b'")) as info:
        read_matrix_csv(path)
    assert words in str(info.value)


@pytest.mark.parametrize(("text", "value"), [("0.25", 0.25), ("-1", -1.0), (".5", 0.5),
                                             ("5.", 5.0), ("2.5E-1", 0.25), ("1e-400", 0.0)])
def test_scores_read_every_ordinary_notation(tmp_path: Path, text: str, value: float) -> None:
    path = tmp_path / "s.csv"
    path.write_text(f"y,s\n1,{text}\n0,0.1\n")
    assert bcm.Scores.from_csv(path, label="y", score="s").scores["s"][0] == value


def test_a_folder_and_a_missing_file(tmp_path: Path) -> None:
    from bayescm.errors import CSVFormatError

    for read in READERS.values():
        with pytest.raises(CSVFormatError, match="folder"):
            read(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"nowhere\.csv"):
        read_matrix_csv(tmp_path / "nowhere.csv")


def test_table_ids_must_exist_when_named_and_be_unique(tmp_path: Path) -> None:
    from bayescm.errors import CSVFormatError

    path = tmp_path / "t.csv"
    path.write_text("study,tp,fn,tn,fp\nx,5,1,7,2\ny,3,0,4,1\n")
    with pytest.raises(CSVFormatError, match="no column"):
        read_table_csv(path, id_column="site")  # was: silently numbered 1, 2
    assert list(read_table_csv(path, id_column="study")) == ["x", "y"]
    path.write_text("id,tp,fn,tn,fp\nx,5,1,7,2\nx,3,0,4,1\n")
    with pytest.raises(CSVFormatError, match=r"line 3, column 'id'.*repeated"):
        read_table_csv(path)


def test_a_matrix_with_a_repeated_true_class(tmp_path: Path) -> None:
    from bayescm.errors import CSVFormatError

    path = tmp_path / "m.csv"
    path.write_text("t,a,b\na,5,1\na,2,7\n")
    with pytest.raises(CSVFormatError, match=r"line 3, column 1: the true class 'a' has two"):
        read_matrix_csv(path)


def test_scores_refuse_a_column_named_twice_or_as_label(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("y,a,b\n1,0.9,0.1\n0,0.2,0.3\n")
    with pytest.raises(ValueError, match="twice"):
        bcm.Scores.from_csv(path, label="y", score=["a", "a"])  # was: one classifier
    with pytest.raises(ValueError, match="label column"):
        bcm.Scores.from_csv(path, label="a", score=["a"])


def test_a_missing_column_suggests_the_close_one(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text("label,score_new\n1,0.9\n0,0.2\n")
    with pytest.raises(ValueError, match="Did you mean 'score_new'"):
        bcm.Scores.from_csv(path, label="label", score="score_nwe")


def test_pasted_tables_in_the_app_follow_the_same_rules() -> None:
    from bayescm.app.parse import InputError, matrix_from_csv, scores_from_csv

    for text, words in [("t,a,b\na,5,0_1\nb,2,7\n", "line 2, column 'b'"),
                        ("t,a,a\na,5,1\nb,2,7\n", "twice"),
                        ("t|a|b\na|5|1\nb|2|7\n", "'|'"),
                        ("t,a,b\na,5,1,2\nb,2,7\n", "line 2")]:
        with pytest.raises(InputError, match=re.escape(words)) as info:
            matrix_from_csv(text)
        assert "pasted table" in str(info.value)
    pasted = matrix_from_csv("t\ta\tb\na\t5\t1\nb\t2\t7\n", positive="a")  # a spreadsheet's
    assert pasted.cells == {"tp": 5, "fn": 1, "fp": 2, "tn": 7}
    with pytest.raises(InputError, match=r"line 2, column 's'.*decimal comma"):
        scores_from_csv("y;s\n1;0,9\n0;0,2\n", "y", ["s"])


def test_packaged_data_sets_read_through_the_layer() -> None:
    rows = bcm.datasets.literature_table()
    assert all(isinstance(r[k], int) for r in rows for k in ("tp", "fn", "tn", "fp", "n"))
    assert sum(r["n"] for r in rows) == sum(cm.n for cm in
                                            bcm.datasets.literature_matrices().values())
    scores = bcm.datasets.screening_scores()
    assert scores.positive == 1 and scores.n == 600


@pytest.mark.parametrize(("reader", "text", "words"), [
    ("scores", "y,s\n", "no rows"),
    ("scores", "y,s\n1,0.9\n1,0.2\n", "two classes"),
    ("scores", "y,s\nyes,0.9\nno,0.2\n", "positive"),
    ("matrix", "t,a,b\na,5,1\nb,2,7\n", "positive"),
    ("table", "id,tp,fn,tn,fp\n", "no rows"),
    ("leaderboard", "name,accuracy\n", "no entries"),
])
def test_what_the_rows_hold_is_named_with_the_file_too(tmp_path: Path, reader: str, text: str,
                                                        words: str) -> None:
    from bayescm.errors import CSVFormatError

    path = tmp_path / "data.csv"
    path.write_text(text)
    read = READERS[reader]
    if reader == "matrix":
        def read(p: Path) -> Any:
            return read_matrix_csv(p, positive="c")  # not a class of the file
    with pytest.raises(CSVFormatError, match=words) as info:
        read(path)
    assert str(info.value).startswith(str(path))
