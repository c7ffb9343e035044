"""Confusion matrices shipped with the package (Table S1 of Tötsch & Hoffmann 2021)."""

from __future__ import annotations

import csv
from importlib import resources
from typing import Any

from .confusion import ConfusionMatrix

__all__ = ["literature_matrices", "literature_table"]


def literature_table() -> list[dict[str, Any]]:
    """Rows of Table S1: id, doi, location, tp, fn, tn, fp, n, citations.

    24 binary classifiers from chemistry, biology and medicine with 8 to 350 test samples.

    Examples
    --------
    >>> from bayescm.datasets import literature_table
    >>> rows = literature_table()
    >>> len(rows), rows[9]["id"], rows[9]["tp"]
    (24, '7a', 26)
    """
    text = resources.files("bayescm").joinpath("data/literature_table_s1.csv").read_text()
    rows = list(csv.DictReader(text.splitlines()))
    ints = ("tp", "fn", "tn", "fp", "n", "citations")
    return [{k: (int(v) if k in ints else v) for k, v in row.items()} for row in rows]


def literature_matrices() -> dict[str, ConfusionMatrix]:
    """Table S1 as ``{id: ConfusionMatrix}``, ready for a batch ``bcm.fit``.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.datasets import literature_matrices
    >>> mats = literature_matrices()
    >>> mats["8"].cells
    {'tp': 28, 'fn': 9, 'fp': 4, 'tn': 3}
    """
    return {
        row["id"]: ConfusionMatrix.from_counts(tp=row["tp"], fn=row["fn"], tn=row["tn"],
                                               fp=row["fp"])
        for row in literature_table()
    }
