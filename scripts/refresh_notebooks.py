"""Run every notebook in notebooks/ top to bottom and store its fresh outputs in place.

``python scripts/refresh_notebooks.py [NAME ...]`` (from the repository root, with the test
extra installed): the stored outputs (tables, printed numbers, figures) are then what the code
draws today. Notebooks run in their own folder, with a fixed kernel and the inline backend, so
every figure is stored as a PNG next to the code that drew it; ``tests/test_notebooks.py``
runs them the same way (:func:`execute`) and fails when the stored text differs.
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


def refresh(path: Path) -> None:
    """Execute ``path`` and write it back with its new outputs."""
    nb = execute(path)
    nbformat.write(nb, path)
    print(f"refreshed {path.name}")


def main(names: list[str]) -> None:
    """Refresh the named notebooks (stems or file names), or all of them."""
    paths = sorted(FOLDER.glob("*.ipynb"))
    if names:
        paths = [p for p in paths if p.stem in names or p.name in names]
    for path in paths:
        refresh(path)


if __name__ == "__main__":
    main(sys.argv[1:])
