"""One table file, several studies: each study rewrites only its own marked section.

A section is the text between ``<!-- section: NAME -->`` and ``<!-- end: NAME -->``; a study that
writes a section the file does not have yet appends it, so running one study never erases
another's results (``coverage_study.py`` writes ``multiclass``, ``auc_coverage_study.py``
writes ``auc``).
"""

from __future__ import annotations

import datetime
import os
from pathlib import Path


def write_section(path: str | Path, name: str, text: str) -> None:
    """Replace (or append) the section ``name`` of the file at ``path`` with ``text``."""
    path = Path(path)
    start, end = f"<!-- section: {name} -->", f"<!-- end: {name} -->"
    block = f"{start}\n{text.rstrip()}\n{end}\n"
    old = path.read_text(encoding="utf-8") if path.exists() else ""
    if start in old and end in old:
        head, rest = old.split(start, 1)
        tail = rest.split(end, 1)[1].lstrip("\n")
        new = head + block + ("\n" + tail if tail else "")
    else:
        new = old.rstrip() + ("\n\n" if old.strip() else "") + block
    path.write_text(new, encoding="utf-8")


def run_record(command: str, load_at_start: float) -> str:
    """The line a section ends with: the date, the command, the cores and the machine's load
    at the start and now (the end)."""
    return (f"Run {datetime.date.today().isoformat()}: `{command}`, {os.cpu_count()} cores, "
            f"load {load_at_start:.1f} at the start, load {os.getloadavg()[0]:.1f} at the end.")
