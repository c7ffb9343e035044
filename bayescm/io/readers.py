"""CSV readers: one confusion matrix, or a table with one binary matrix per row."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

from bayescm.core.arguments import keyword_checked
from bayescm.core.confusion import ConfusionMatrix

CELL_KEYS = ("tp", "fn", "tn", "fp")
"""Cell columns of a table with one binary matrix per row."""


# ----------------------------------------------------------------------------- CSV readers
@keyword_checked
def read_matrix_csv(path: str | Path, positive: Any = None, ordered: bool = False
                    ) -> ConfusionMatrix:
    """Read a labelled confusion matrix from a CSV file: rows TRUE class, columns PREDICTED.

    The first row is a header whose first cell is free (e.g. ``true\\pred``) and whose other
    cells are the predicted labels; each further row starts with a true label followed by its
    counts. Both label sets must be the same (columns may come in another order; they are
    reordered to the rows' order).

    Parameters
    ----------
    path : str or Path
        The CSV file.
    positive : str, optional
        The positive class of a 2-class matrix (binary analysis); without it the matrix is
        multiclass.
    ordered : bool, default False
        Whether the classes are ordered (in the rows' order).

    Returns
    -------
    ConfusionMatrix

    Raises
    ------
    ValueError
        A malformed file (ragged rows, non-integer cells, mismatched labels), naming the line.

    Examples
    --------
    >>> import os, tempfile
    >>> from bayescm.io.readers import read_matrix_csv
    >>> path = os.path.join(tempfile.mkdtemp(), "cm.csv")
    >>> _ = open(path, "w").write("true\\\\pred,high,low\\nhigh,26,0\\nlow,2,6\\n")
    >>> read_matrix_csv(path, positive="high").cells
    {'tp': 26, 'fn': 0, 'fp': 2, 'tn': 6}
    """
    path = Path(path)
    with path.open(newline="", encoding="utf-8-sig") as fh:
        rows = [r for r in csv.reader(fh) if any(cell.strip() for cell in r)]
    if len(rows) < 3:
        raise ValueError(f"{path}: a confusion matrix CSV needs a header row of predicted "
                         "labels and at least 2 rows (one per true class).")
    header = [c.strip() for c in rows[0][1:]]
    true_labels, counts = [], []
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(header) + 1:
            raise ValueError(f"{path}, line {line}: {len(row)} cells, but the header has "
                             f"{len(header) + 1} (a true label and {len(header)} counts).")
        true_labels.append(row[0].strip())
        values = []
        for label, cell in zip(header, row[1:], strict=True):
            try:
                value: float | int = int(cell.strip())  # exact, however large
            except ValueError:
                try:
                    value = float(cell)
                except ValueError:
                    raise ValueError(f"{path}, line {line}, column {label!r}: {cell!r} is not "
                                     "a count.") from None
            if not math.isfinite(value) or value != round(value) or value < 0:
                raise ValueError(f"{path}, line {line}, column {label!r}: {cell!r} is not a "
                                 "non-negative whole number.")
            values.append(int(value))
        counts.append(values)
    if sorted(header) != sorted(true_labels) or len(set(header)) != len(header):
        raise ValueError(f"{path}: the predicted labels {header} (header) and the true labels "
                         f"{true_labels} (first column) must be the same classes.")
    order = [header.index(label) for label in true_labels]
    matrix = [[row[j] for j in order] for row in counts]  # Python ints: checked for overflow
    if positive is not None:
        positive = str(positive)
    return ConfusionMatrix(matrix, labels=true_labels, positive=positive, ordered=ordered)


@keyword_checked
def read_table_csv(path: str | Path, id_column: str = "id") -> dict[str, ConfusionMatrix]:
    """Read a batch of binary matrices, one per row, with columns ``tp, fn, tn, fp``.

    Parameters
    ----------
    path : str or Path
        The CSV file; other columns are ignored.
    id_column : str, default "id"
        Column naming each classifier; when absent the rows are named 1, 2, ....

    Returns
    -------
    dict of str -> ConfusionMatrix

    Examples
    --------
    >>> import os, tempfile
    >>> from bayescm.io.readers import read_table_csv
    >>> path = os.path.join(tempfile.mkdtemp(), "batch.csv")
    >>> _ = open(path, "w").write("id,tp,fn,tn,fp\\na,5,0,3,0\\nb,10,0,3,1\\n")
    >>> read_table_csv(path)["b"].cells
    {'tp': 10, 'fn': 0, 'fp': 1, 'tn': 3}
    """
    path = Path(path)
    with path.open(newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        fields = [f.strip() for f in (reader.fieldnames or [])]
        missing = [c for c in CELL_KEYS if c not in fields]
        if missing:
            raise ValueError(f"{path}: missing column(s) {', '.join(missing)}; a table of "
                             "binary matrices needs tp, fn, tn, fp.")
        out: dict[str, ConfusionMatrix] = {}
        for line, raw in enumerate(reader, start=2):
            row = {(k or "").strip(): (v or "").strip() for k, v in raw.items()}
            name = row[id_column] if id_column in fields else str(line - 1)
            if name in out:
                raise ValueError(f"{path}, line {line}: duplicate {id_column} {name!r}.")
            cells = {}
            for key in CELL_KEYS:
                try:
                    cells[key] = int(row[key])
                except ValueError:
                    raise ValueError(f"{path}, line {line}, column {key!r}: {row[key]!r} is "
                                     "not a whole number.") from None
            out[name] = ConfusionMatrix.from_counts(tp=cells["tp"], fn=cells["fn"],
                                                    tn=cells["tn"], fp=cells["fp"])
    if not out:
        raise ValueError(f"{path}: no rows.")
    return out
