"""Every notebook in notebooks/ runs top to bottom and still shows what its code now computes.

The stored outputs are what a reader sees on the page; ``scripts/refresh_notebooks.py``
regenerates them all. A notebook whose printed numbers or tables (stdout and results) differ
from a fresh run fails here, with the first differing cell: run the script and commit.
Sampler chatter and warnings (stderr) and memory addresses are left out of the comparison.

Cells tagged ``mcmc`` print numbers that depend on a Markov chain (NUTS): another CPU's
floating point sends the chain along another path, so their numbers are compared within the
notebook's stated Monte-Carlo tolerance (``metadata["bayescm"]["mcmc_tolerance"]``, absolute
and relative), and their words exactly. Every other cell must print exactly what is stored.

A lesson with slow fits (``notebooks/lesson.py``'s ``fit_or_read``) then runs a second time
with ``QUICK = True``: its fits read the draws the first run stored (in a temporary folder,
never in ``notebooks/fits``), each cell must take at most ``QUICK_SECONDS`` and print exactly
what the first run printed.
"""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "notebooks").glob("*.ipynb"))

pytestmark = pytest.mark.slow


def refresher():
    """``scripts/refresh_notebooks.py`` as a module: the test runs notebooks as it does."""
    spec = importlib.util.spec_from_file_location("refresh_notebooks",
                                                  ROOT / "scripts" / "refresh_notebooks.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def images(nb) -> list[int]:
    """Per code cell, how many PNG figures it shows."""
    return [sum("image/png" in out.get("data", {}) for out in cell.get("outputs", []))
            for cell in nb.cells if cell.cell_type == "code"]


def text_outputs(nb) -> list[list[str]]:
    """Per code cell, its whole stdout and its plain-text results, without memory addresses.

    The kernel may split one cell's printing into several stream chunks, differently from run
    to run; the text a reader sees is their concatenation, so that is what is compared.
    """
    cells = []
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        stdout, results = [], []
        for out in cell.get("outputs", []):
            if out.get("output_type") == "stream" and out.get("name") == "stdout":
                stdout.append(out["text"])
            elif out.get("output_type") in ("execute_result", "display_data"):
                results.append(out.get("data", {}).get("text/plain", ""))
        cells.append([re.sub(r" at 0x[0-9a-fA-F]+", "", p) for p in ("".join(stdout), *results)])
    return cells


_NUMBER = re.compile(r"[-+]?(?:\d[\d,]*\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
DEFAULT_TOLERANCE = {"abs": 0.02, "rel": 0.05}
"""Monte-Carlo tolerance of ``mcmc`` cells when a notebook states none."""


def mcmc_cells(nb) -> list[bool]:
    """Per code cell, whether it is tagged ``mcmc`` (numbers from a Markov chain)."""
    return ["mcmc" in cell.get("metadata", {}).get("tags", []) for cell in nb.cells
            if cell.cell_type == "code"]


def same_within(fresh: str, stored: str, tolerance: dict[str, float]) -> bool:
    """Whether two outputs have the same words and numbers within ``tolerance``.

    Numbers ``a`` (fresh) and ``b`` (stored) agree when ``|a - b| <= abs + rel * |b|``; the
    text between the numbers (and the count of numbers) must be identical.

    >>> same_within("P = 0.84, n 12", "P = 0.85, n 12", {"abs": 0.02, "rel": 0})
    True
    >>> same_within("P = 0.84", "Q = 0.84", {"abs": 0.02, "rel": 0})
    False
    """
    if _NUMBER.split(fresh) != _NUMBER.split(stored):
        return False
    for a, b in zip(_NUMBER.findall(fresh), _NUMBER.findall(stored), strict=True):
        x, y = (float(v.replace(",", "")) for v in (a, b))
        if abs(x - y) > tolerance["abs"] + tolerance["rel"] * abs(y):
            return False
    return True


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.stem for p in NOTEBOOKS])
def test_notebook_runs_and_its_outputs_are_fresh(path, tmp_path, monkeypatch):
    import nbformat

    monkeypatch.setenv("BAYESCM_LESSON_FITS", str(tmp_path))  # keep the stored draws as they are

    stored = nbformat.read(path, as_version=4)
    nb = refresher().execute(path)
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
              if o.get("output_type") == "error"]
    assert not errors
    fresh, old = text_outputs(nb), text_outputs(stored)
    tolerance = stored.metadata.get("bayescm", {}).get("mcmc_tolerance", DEFAULT_TOLERANCE)
    for i, (a, b, mcmc) in enumerate(zip(fresh, old, mcmc_cells(stored), strict=True)):
        same = (len(a) == len(b) and all(same_within(x, y, tolerance)
                                         for x, y in zip(a, b, strict=True))
                ) if mcmc else a == b
        assert same, (f"{path.name}, code cell {i + 1}: the stored output differs from a fresh "
                        f"run; run python scripts/refresh_notebooks.py {path.stem} and commit.\n"
                        f"stored: {b!r}\nfresh:  {a!r}")
    assert images(nb) == images(stored), (
        f"{path.name}: the stored figures are not those a fresh run draws (PNGs per code cell "
        f"{images(stored)} stored, {images(nb)} fresh); run python scripts/refresh_notebooks.py "
        f"{path.stem} and commit.")
    assert sum(images(nb)) > 0, f"{path.name}: a lesson without a single figure"
    if "fit_or_read(" in path.read_text():
        quick = quick_run(path)
        assert text_outputs(quick) == fresh, f"{path.name}: QUICK = True printed other numbers"
        seconds = refresher().cell_seconds(quick)
        slow = [(i, s) for i, s in enumerate(seconds, 1) if s is not None and s > QUICK_SECONDS]
        assert not slow, f"{path.name}: with QUICK = True these cells still take long: {slow}"


QUICK_SECONDS = 3.0
"""What "no cell takes more than a few seconds" means for a lesson in quick mode."""


def quick_run(path: Path):
    """Run the lesson again with ``QUICK = True``: its slow fits read the draws just stored."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.read(path, as_version=4)
    setup = next(c for c in nb.cells if c.cell_type == "code")
    assert "QUICK = False" in setup.source, f"{path.name}: the set-up cell sets no QUICK"
    setup.source = setup.source.replace("QUICK = False", "QUICK = True")
    NotebookClient(nb, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    return nb
