"""Every notebook has the form of a lesson, and its prose quotes only numbers its cells compute.

Read without running anything (the fast suite); ``tests/test_notebooks.py`` (slow) runs them.
The form is the one ``notebooks/README.md`` describes: a title; who the notebook is for and
what the reader will be able to do; sections that each ask one question; exercises with
worked answers; a summary. A number in the prose (``0.93``, ``43 %``, ``15,123``) must appear
in a code cell or in an output, so a sentence cannot quote a result the code no longer
produces: results are printed into sentences by the code, or asserted in a check cell (tagged
``remove-input`` or ``remove-cell``, hidden on the documentation site).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

FOLDER = Path(__file__).resolve().parents[1] / "notebooks"
NOTEBOOKS = sorted(FOLDER.glob("*.ipynb"))
FRAME = ("set-up", "setup", "exercises", "answers", "summary", "where next", "further reading",
         "references")
"""Section headings that frame a lesson rather than ask a question."""
_NUMBER = re.compile(r"(?<![\w.])(\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w])")
_IGNORED = re.compile(r"`[^`]*`|\(https?://[^)]*\)|\$[^$]*\$|^\s*(?:#+\s*\d+\s*[.·]|\d+\.\s)",
                      re.MULTILINE)


def _cells(path: Path) -> list[dict]:
    return json.loads(path.read_text())["cells"]


def _text(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _outputs(cell: dict) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if "text" in out:
            parts.append(_text({"source": out["text"]}))
        for kind in ("text/plain", "text/markdown", "text/html"):
            if kind in out.get("data", {}):
                parts.append(_text({"source": out["data"][kind]}))
    return "\n".join(parts)


def headings(cells: list[dict]) -> list[str]:
    """The ``##`` section headings of the markdown cells, in order."""
    return [line[3:].strip() for cell in cells if cell["cell_type"] == "markdown"
            for line in _text(cell).splitlines() if line.startswith("## ")]


def untraced_numbers(cells: list[dict]) -> list[str]:
    """Numbers of the prose that appear in no code cell and no output."""
    computed = "\n".join(_text(c) + "\n" + _outputs(c) for c in cells if c["cell_type"] == "code")
    computed = computed.replace(",", "").replace("_", "").replace("\u202f", "")
    missing = []
    for cell in cells:
        if cell["cell_type"] != "markdown" or "run-times" in cell.get("metadata", {}).get(
                "tags", []):  # the run times are measured by the refresh, not computed
            continue
        prose = _IGNORED.sub(" ", _text(cell))
        for number in _NUMBER.findall(prose):
            plain = number.replace(",", "")
            if len(plain) == 4 and plain[:2] in ("19", "20"):  # a year of a citation
                continue
            if plain not in computed:
                missing.append(number)
    return missing


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_is_a_lesson(path: Path) -> None:
    cells = _cells(path)
    first = _text(cells[0])
    assert cells[0]["cell_type"] == "markdown" and first.startswith("# "), \
        f"{path.name}: open with a markdown cell whose first line is the title ('# ...')."
    assert re.search(r"who (this|it) is for", first, re.IGNORECASE), \
        f"{path.name}: say in the first cell who the notebook is for."
    assert re.search(r"you will (be able to|learn)", first, re.IGNORECASE), \
        f"{path.name}: say in the first cell what the reader will be able to do."
    sections = headings(cells)
    lowered = [h.lower() for h in sections]
    questions = [h for h, low in zip(sections, lowered, strict=True)
                 if not low.startswith(FRAME)]
    assert len(questions) >= 2, f"{path.name}: sections should each ask a question: {sections}"
    not_questions = [h for h in questions if not h.rstrip().endswith("?")]
    assert not not_questions, f"{path.name}: section headings that are not questions: " \
                              f"{not_questions}"
    assert any(low.startswith("exercises") for low in lowered), f"{path.name}: no '## Exercises'"
    assert any(low.startswith("answers") for low in lowered), \
        f"{path.name}: exercises need worked answers ('## Answers to the exercises')"
    assert lowered[-1].startswith("summary") or "summary" in lowered[-2:], \
        f"{path.name}: end with '## Summary'"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_prose_quotes_only_computed_numbers(path: Path) -> None:
    missing = untraced_numbers(_cells(path))
    assert not missing, (
        f"{path.name}: the prose quotes {sorted(set(missing))}, which no cell computes or "
        "checks; print the sentence from the code or assert the number in a check cell.")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_header_states_each_cells_run_time(path: Path) -> None:
    """For live teaching: the second cell gives every code cell's run time (written by
    scripts/refresh_notebooks.py from the stored execution times)."""
    cells = _cells(path)
    header = cells[1]
    assert "run-times" in header.get("metadata", {}).get("tags", []), \
        f"{path.name}: no run-times cell; run python scripts/refresh_notebooks.py --stamp-only"
    code = sum(c["cell_type"] == "code" for c in cells)
    listed = re.findall(r"(\d+): \d+\.\d s", _text(header))
    assert [int(n) for n in listed] == list(range(1, code + 1)), \
        f"{path.name}: the run-times cell does not list every code cell; refresh it"


def test_the_number_check_can_fail() -> None:
    cells = [{"cell_type": "code", "source": "x = 0.432\nprint(f'{x:.1%}')",
              "outputs": [{"output_type": "stream", "text": "43.2%\n"}]},
             {"cell_type": "markdown", "source": "## 2. Why?\nThe HDI is 43.2 %, not 51 %; "
                                                 "`code 99` and N = 15,123 are ignored."}]
    assert untraced_numbers(cells) == ["51", "15,123"]
