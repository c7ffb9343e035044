"""Run every notebook in notebooks/ top to bottom and store its fresh outputs in place.

``python scripts/refresh_notebooks.py [NAME ...]`` (from the repository root, with the test
extra installed): the stored outputs (tables, printed numbers, figures) are then what the code
draws today, and the notebook's second cell (tagged ``run-times``) states how long each code
cell took in that run, for a teacher planning a live session (:func:`stamp`).
``--stamp-only`` writes that cell from the timings already stored, without running anything.
Notebooks run in their own folder, with a fixed kernel and the inline backend, so every figure
is stored as a PNG next to the code that drew it; ``tests/test_notebooks.py`` runs them the
same way (:func:`execute`) and fails when the stored text differs.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

FOLDER = Path(__file__).resolve().parents[1] / "notebooks"
_CELL_FILE = re.compile(r"(?:/[\w.-]+)+/ipykernel_\d+/\d+\.py:(\d+)")
"""The kernel's temporary file name of a cell, as warnings print it (a path of this machine)."""


def scrub(nb: nbformat.NotebookNode) -> None:
    """Replace machine paths in printed warnings by the cell's line (``<cell>:3``)."""
    for cell in nb.cells:
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream":
                out["text"] = _CELL_FILE.sub(r"<cell>:\1", out["text"])


INLINE = "module://matplotlib_inline.backend_inline"
"""The backend the notebooks are run with: figures become PNG outputs of their cells."""


def execute(path: Path) -> nbformat.NotebookNode:
    """Run the notebook at ``path`` top to bottom in its folder and return it with outputs."""
    nb = nbformat.read(path, as_version=4)
    os.environ["MPLBACKEND"] = INLINE
    NotebookClient(nb, timeout=900, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    scrub(nb)
    return nb


def cell_seconds(nb: nbformat.NotebookNode) -> list[float | None]:
    """Each code cell's run time in seconds, from the execution times stored in its metadata."""
    from datetime import datetime

    out: list[float | None] = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        times = cell.get("metadata", {}).get("execution", {})
        start, end = times.get("iopub.execute_input"), times.get("shell.execute_reply")
        if not (start and end):
            out.append(None)
            continue
        t0, t1 = (datetime.fromisoformat(t.replace("Z", "+00:00")) for t in (start, end))
        out.append(max((t1 - t0).total_seconds(), 0.0))
    return out


RUN_TIMES = "run-times"
"""The tag of the header cell that states the cells' run times."""


def stamp(nb: nbformat.NotebookNode, load: float | None = None) -> None:
    """Write (or rewrite) the header cell with every code cell's run time and the total.

    The cell is the notebook's second, tagged ``run-times``; cells are numbered as Jupyter
    counts code cells (1 = the first code cell). ``load``: the machine's load average when the
    notebook ran (stated when known).
    """
    seconds = cell_seconds(nb)
    known = [s for s in seconds if s is not None]
    if not known:
        return
    first = next(c for c in nb.cells if c.cell_type == "code")
    day = first.get("metadata", {}).get("execution", {}).get("iopub.execute_input", "")[:10]
    machine = "this project's 2-core machine" + (f", load average {load:.1f}" if load is not None
                                                  else "")
    listed = ", ".join(f"{i}: {s:.1f} s" for i, s in enumerate(seconds, 1) if s is not None)
    slow = [f"code cell {i} ({s:.0f} s)" for i, s in enumerate(seconds, 1)
            if s is not None and s >= 5]
    text = (f"*Run times* (measured {day} on {machine}): the whole notebook "
            f"{sum(known):.0f} s; "
            + (f"the slow ones: {', '.join(slow)}. " if slow else "no cell takes 5 s or more. ")
            + f"Code cell by code cell: {listed}.")
    if any("fit_or_read(" in c.source for c in nb.cells if c.cell_type == "code"):
        text += (" For a live class, run the notebook once beforehand, then set `QUICK = True` "
                 "in the set-up cell: the slow fits read the draws that run stored in "
                 "`notebooks/fits/` (`notebooks/lesson.py`), and no cell takes more than a few "
                 "seconds.")
    cell = nbformat.v4.new_markdown_cell(text)
    cell.metadata["tags"] = [RUN_TIMES]
    old = [i for i, c in enumerate(nb.cells)
           if RUN_TIMES in c.get("metadata", {}).get("tags", [])]
    if old:
        nb.cells[old[0]] = cell
    else:
        nb.cells.insert(1, cell)


def refresh(path: Path, run: bool = True) -> None:
    """Execute ``path`` and write it back with its new outputs and run times."""
    if run:
        nb = execute(path)
        stamp(nb, os.getloadavg()[0])
    else:
        nb = nbformat.read(path, as_version=4)
        stamp(nb)
    nbformat.write(nb, path)
    print(f"{'refreshed' if run else 'stamped'} {path.name}")


def main(names: list[str]) -> None:
    """Refresh the named notebooks (stems or file names), or all of them."""
    run = "--stamp-only" not in names
    names = [n for n in names if n != "--stamp-only"]
    paths = sorted(FOLDER.glob("*.ipynb"))
    if names:
        paths = [p for p in paths if p.stem in names or p.name in names]
    for path in paths:
        refresh(path, run)


if __name__ == "__main__":
    main(sys.argv[1:])
