"""Write student copies of the notebooks: no outputs, and the worked answers taken out.

``python scripts/student_notebooks.py [--out FOLDER] [NAME ...]`` (default folder
``build/student_notebooks``). In each copy every output is cleared (students run the cells
themselves), and the section ``## Answers to the exercises`` keeps its heading but its cells
are replaced by one empty code cell per answer cell of code, headed ``# your answer``; its
prose is dropped. Everything else (the lesson, the exercises, the summary, the run times) is
the notebook as stored. A lesson with slow fits (``from lesson import fit_or_read``) is switched
to ``QUICK = True``, and ``notebooks/lesson.py`` with the stored draws (``notebooks/fits/``) is
copied beside the copies, so in class those cells read their draws instead of sampling. The
copies are generated from ``notebooks/``, never edited by hand.
"""

from __future__ import annotations

import argparse
import re
import shutil
from pathlib import Path

import nbformat

FOLDER = Path(__file__).resolve().parents[1] / "notebooks"
ANSWERS = "## answers"
QUICK = re.compile(r"^QUICK = False\b", re.MULTILINE)


def student_copy(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """The notebook without outputs and with its worked answers replaced by empty cells.

    Examples
    --------
    >>> import nbformat
    >>> from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook
    >>> nb = new_notebook(cells=[new_markdown_cell("## Exercises"), new_code_cell("x = 1"),
    ...     new_markdown_cell("## Answers to the exercises"), new_code_cell("print(42)"),
    ...     new_markdown_cell("42, because ..."), new_markdown_cell("## Summary")])
    >>> [c.source for c in student_copy(nb).cells]
    ['## Exercises', 'x = 1', '## Answers to the exercises', '# your answer', '## Summary']
    """
    out = nbformat.from_dict(nb)
    cells, inside = [], False
    for cell in out.cells:
        lines = cell.source.splitlines()
        heads = [i for i, line in enumerate(lines) if line.startswith("## ")]
        if cell.cell_type == "markdown" and heads:
            inside = lines[heads[-1]].lower().startswith(ANSWERS)
            if inside:  # the heading stays, the worked answer's prose under it goes
                cell.source = "\n".join(lines[:heads[-1] + 1])
            cells.append(cell)
            continue
        if inside:
            if cell.cell_type == "code":
                cells.append(nbformat.v4.new_code_cell("# your answer"))
            continue
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
            cell.metadata.pop("execution", None)
            cell.source = QUICK.sub("QUICK = True", cell.source)
        cells.append(cell)
    out.cells = cells
    return out


def main(argv: list[str] | None = None) -> None:
    """Write the student copies of the named notebooks (or all) into ``--out``."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--out", type=Path, default=Path("build") / "student_notebooks")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for path in sorted(FOLDER.glob("*.ipynb")):
        if args.names and path.stem not in args.names and path.name not in args.names:
            continue
        nb = student_copy(nbformat.read(path, as_version=4))
        nbformat.write(nb, args.out / path.name)
        print(f"wrote {args.out / path.name}")
    shutil.copy(FOLDER / "lesson.py", args.out / "lesson.py")
    if (FOLDER / "fits").is_dir():
        shutil.copytree(FOLDER / "fits", args.out / "fits", dirs_exist_ok=True)


if __name__ == "__main__":
    main()
