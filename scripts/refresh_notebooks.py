"""Run every notebook in notebooks/ top to bottom and store its fresh outputs in place.

``python scripts/refresh_notebooks.py [NAME ...]`` (from the repository root, with the test
extra installed): the stored outputs (tables, printed numbers, figures) are then what the code
draws today. Notebooks run in their own folder, with the Agg backend and a fixed kernel.
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


def refresh(path: Path) -> None:
    """Execute ``path`` and write it back with its new outputs."""
    nb = nbformat.read(path, as_version=4)
    os.environ.setdefault("MPLBACKEND", "Agg")
    NotebookClient(nb, timeout=900, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    scrub(nb)
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
