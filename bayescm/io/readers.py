"""CSV readers: one confusion matrix, or a table with one binary matrix per row.

Both read through :mod:`bayescm.core.csvtable` (UTF-8, commas, a header, even rows, strict
numbers), so every problem is a :class:`~bayescm.errors.CSVFormatError` naming the file,
the line and the column. :func:`matrix_from_table` and :func:`batch_from_table` do the same for
a table already parsed (the app's pasted tables).
"""

from __future__ import annotations

import os
from typing import Any

from bayescm.core.arguments import keyword_checked
from bayescm.core.confusion import ConfusionMatrix
from bayescm.core.csvtable import CSVTable, read_csv
from bayescm.core.itemwise import default_positive

__all__ = ["CELL_KEYS", "audit_from_table", "batch_from_table", "matrix_from_table",
           "read_audit_csv", "read_matrix_csv", "read_table_csv", "runs_from_table"]

CELL_KEYS = ("tp", "fn", "tn", "fp")
"""Cell columns of a table with one binary matrix per row."""


# ----------------------------------------------------------------------------- CSV readers
@keyword_checked
def read_matrix_csv(path: str | os.PathLike[str], positive: Any = None, ordered: bool = False
                    ) -> ConfusionMatrix:
    """Read a labelled confusion matrix from a CSV file: rows TRUE class, columns PREDICTED.

    The first row is a header whose first cell is free (e.g. ``true\\pred``, or empty as
    pandas writes it) and whose other cells are the predicted labels; each further row starts
    with a true label followed by its counts. Both label sets must be the same (columns may come
    in another order; they are reordered to the rows' order). The file follows the CSV rules of
    :mod:`bayescm.core.csvtable` (UTF-8, commas, counts as exact whole numbers).

    Parameters
    ----------
    path : str or Path
        The CSV file.
    positive : str, optional
        The positive class of a 2-class matrix (binary analysis). Without it, classes
        labelled ``0`` and ``1`` are binary with ``1`` positive (the package's rule for 0/1
        labels); other labels give a multiclass matrix.
    ordered : bool, default False
        Whether the classes are ordered (in the rows' order).

    Returns
    -------
    ConfusionMatrix
        The matrix, classes in the rows' order (binary when a positive class applies).

    Raises
    ------
    FileNotFoundError
        No such file.
    CSVFormatError
        A malformed file (encoding, delimiter, ragged rows, a cell that is not a count,
        repeated or mismatched labels), naming the line and the column.

    See Also
    --------
    read_table_csv : A batch of binary matrices, one per row.
    bayescm.ConfusionMatrix : The same from counts in code.

    Examples
    --------
    >>> import os, tempfile
    >>> from bayescm.io.readers import read_matrix_csv
    >>> path = os.path.join(tempfile.mkdtemp(), "cm.csv")
    >>> _ = open(path, "w").write("true\\\\pred,high,low\\nhigh,26,0\\nlow,2,6\\n")
    >>> read_matrix_csv(path, positive="high").cells
    {'tp': 26, 'fn': 0, 'fp': 2, 'tn': 6}
    """
    return matrix_from_table(read_csv(path), positive=positive, ordered=ordered)


def matrix_from_table(table: CSVTable, positive: Any = None, ordered: bool = False
                      ) -> ConfusionMatrix:
    """A labelled confusion matrix from a parsed table (the layout of :func:`read_matrix_csv`).

    Examples
    --------
    >>> from bayescm.core.csvtable import parse_csv
    >>> from bayescm.io.readers import matrix_from_table
    >>> matrix_from_table(parse_csv(",a,b\\na,5,1\\nb,2,7\\n")).labels
    ('a', 'b')
    """
    table.check_header(first_free=True)
    if len(table.rows) < 3:
        raise table.error("a confusion matrix needs a header row of predicted labels and at "
                          "least 2 rows (one per true class).", table.lines[-1])
    header = list(table.header[1:])
    true_labels = table.texts(0, "the true class of the row")
    seen: dict[str, int] = {}
    for label, line in zip(true_labels, table.lines[1:], strict=True):
        if label in seen:
            raise table.error(f"the true class {label!r} has two rows (lines {seen[label]} and "
                              f"{line}); give each class one row.", line, 1)
        seen[label] = line
    if sorted(header) != sorted(true_labels):
        raise table.error(f"the predicted labels {header} (header) and the true labels "
                          f"{true_labels} (first column) must be the same classes.",
                          table.lines[0])
    columns = [table.counts(j) for j in range(1, len(table.header))]  # exact Python ints
    order = [header.index(label) for label in true_labels]
    matrix = [[columns[j][i] for j in order] for i in range(len(true_labels))]
    if positive is not None:
        positive = str(positive)
    elif len(true_labels) == 2:
        positive = default_positive(true_labels)  # "0"/"1": "1" is positive (core/itemwise)
    try:
        return ConfusionMatrix(matrix, labels=true_labels, positive=positive, ordered=ordered)
    except ValueError as err:  # a positive class that is not a label: name the file
        raise table.error(str(err)) from None
    except OverflowError as err:
        raise OverflowError(f"{table.source}: {err}") from None


@keyword_checked
def read_table_csv(path: str | os.PathLike[str], id_column: str | None = None
                   ) -> dict[str, ConfusionMatrix]:
    """Read a batch of binary matrices, one per row, with columns ``tp, fn, tn, fp``.

    The file follows the CSV rules of :mod:`bayescm.core.csvtable`; columns besides the cells
    and the names are not read (but every row must still have a cell for each).

    Parameters
    ----------
    path : str or Path
        The CSV file.
    id_column : str, optional
        Column naming each classifier; it must exist when given. Default: ``"id"`` when the
        header has it, else the rows are named 1, 2, ....

    Returns
    -------
    dict of str -> ConfusionMatrix
        The matrices by name, in the file's order (``bcm.fit`` of it is one batch).

    Raises
    ------
    FileNotFoundError
        No such file.
    CSVFormatError
        A malformed file, a missing column, a cell that is not a count, an empty or repeated
        name, no rows; the message names the line and the column.

    See Also
    --------
    read_matrix_csv : One labelled matrix of any number of classes.

    Examples
    --------
    >>> import os, tempfile
    >>> from bayescm.io.readers import read_table_csv
    >>> path = os.path.join(tempfile.mkdtemp(), "batch.csv")
    >>> _ = open(path, "w").write("id,tp,fn,tn,fp\\na,5,0,3,0\\nb,10,0,3,1\\n")
    >>> read_table_csv(path)["b"].cells
    {'tp': 10, 'fn': 0, 'fp': 1, 'tn': 3}
    """
    return batch_from_table(read_csv(path), id_column)


def batch_from_table(table: CSVTable, id_column: str | None = None
                     ) -> dict[str, ConfusionMatrix]:
    """Binary matrices from a parsed table (the layout of :func:`read_table_csv`).

    Examples
    --------
    >>> from bayescm.core.csvtable import parse_csv
    >>> from bayescm.io.readers import batch_from_table
    >>> list(batch_from_table(parse_csv("tp,fn,tn,fp\\n5,0,3,0\\n4,1,3,0\\n")))
    ['1', '2']
    """
    if id_column is not None and not isinstance(id_column, str):
        raise TypeError(f"id_column must be a column name (a string), got {id_column!r}.")
    table.check_header()
    cells = table.require(CELL_KEYS, "A table of binary matrices has columns tp, fn, tn, fp.")
    if not table.body:
        raise table.error("no rows: give one row per classifier under the header.",
                          table.lines[0])
    if id_column is None and table.find("id") is not None:
        id_column = "id"
    if id_column is None:
        names = [str(i) for i in range(1, len(table.body) + 1)]
    else:
        names = table.texts(id_column, f"the classifier's name ({id_column})")
    counts = [table.counts(j) for j in cells]
    out: dict[str, ConfusionMatrix] = {}
    for i, (name, line) in enumerate(zip(names, table.lines[1:], strict=True)):
        if name in out:
            raise table.error(f"the {id_column} {name!r} is repeated; give each row its own "
                              "name.", line, id_column)
        tp, fn, tn, fp = (column[i] for column in counts)
        try:
            out[name] = ConfusionMatrix.from_counts(tp=tp, fn=fn, tn=tn, fp=fp)
        except OverflowError as err:  # cells whose sum passes 2**63 - 1
            raise OverflowError(f"{table.source}, line {line}: {err}") from None
    return out


def read_audit_csv(path: str | os.PathLike[str]) -> Any:
    """Read a binary stratified audit: one row per stratum, ``stratum, size, tp, fn, tn, fp``.

    ``size`` is the stratum's number of items in the population; the cells count its
    labelled items (0 for a cell the stratum cannot hold, e.g. ``fn`` among flagged items).
    The file follows the CSV rules of :mod:`bayescm.core.csvtable`.

    Parameters
    ----------
    path : str or Path
        The CSV file.

    Returns
    -------
    StratifiedSample
        ``bcm.fit`` of it gives the population's metrics.

    Raises
    ------
    FileNotFoundError
        No such file.
    CSVFormatError
        A malformed file, a missing column, a cell that is not a count, an empty or repeated
        stratum name; the message names the line and the column.
    ValueError
        A size smaller than the stratum's labelled count, or 0.

    Examples
    --------
    >>> import os, tempfile
    >>> from bayescm.io.readers import read_audit_csv
    >>> path = os.path.join(tempfile.mkdtemp(), "audit.csv")
    >>> _ = open(path, "w").write("stratum,size,tp,fn,tn,fp\\nflagged,3000,150,0,0,50\\n"
    ...                           "unflagged,997000,0,3,297,0\\n")
    >>> audit = read_audit_csv(path)
    >>> audit.strata, int(audit.sizes.sum())
    (['flagged', 'unflagged'], 1000000)
    """
    return audit_from_table(read_csv(path))


def audit_from_table(table: CSVTable) -> Any:
    """A stratified audit from a parsed table (the layout of :func:`read_audit_csv`).

    Examples
    --------
    >>> from bayescm.core.csvtable import parse_csv
    >>> from bayescm.io.readers import audit_from_table
    >>> audit_from_table(parse_csv("stratum,size,tp,fn,tn,fp\\na,100,5,0,0,5\\n"
    ...                            "b,900,0,1,9,0\\n")).strata
    ['a', 'b']
    """
    from bayescm.core.stratified import StratifiedSample

    table.check_header()
    size = table.require(["stratum", "size"], "An audit table has columns stratum, size, tp, "
                                              "fn, tn, fp (one row per stratum).")[1]
    matrices = batch_from_table(table, "stratum")
    sizes = dict(zip(matrices, table.counts(size), strict=True))
    try:
        return StratifiedSample(matrices, sizes)
    except ValueError as err:
        raise ValueError(f"{table.source}: {err}") from None


def runs_from_table(table: CSVTable, *, run: str = "run", true: str = "true",
                    predicted: str = "predicted", count: str = "count",
                    procedure: str | None = None, labels: list[str] | None = None,
                    positive: str | None = None) -> dict[str, dict[str, ConfusionMatrix]]:
    """The matrices of runs from a long table: one row per (run, true class, predicted class).

    Each row gives a cell's ``count``; a cell without a row is 0. The classes are ``labels``
    (in that order) or those of the table in the order they appear (``positive`` first, for
    binary matrices). With ``procedure`` (a column naming two procedures on the same runs) the
    result has one entry per procedure in the order they appear, else one entry ``""``.

    Raises
    ------
    CSVFormatError
        A missing column, an empty cell, a count that is not a whole number, a repeated cell
        (the same procedure, run, true and predicted class twice), a class not in ``labels``.
    ValueError
        Fewer than two runs, procedures other than two, or procedures on different runs.

    Examples
    --------
    >>> from bayescm.core.csvtable import parse_csv
    >>> from bayescm.io.readers import runs_from_table
    >>> text = "run,true,predicted,count\\nf1,a,a,8\\nf1,a,b,2\\nf1,b,b,9\\nf2,a,a,7\\nf2,b,a,1\\n"
    >>> runs = runs_from_table(parse_csv(text))[""]
    >>> list(runs), runs["f2"].counts.tolist()
    (['f1', 'f2'], [[7, 0], [1, 0]])
    """
    import numpy as np

    table.check_header()
    names = [run, true, predicted, count, *([procedure] if procedure else [])]
    table.require(names, "A table of runs has one row per (run, true class, predicted class) "
                         "with its count.")
    runs, trues, preds = (table.texts(c, f"a {w}") for c, w in
                          ((run, "run name"), (true, "class"), (predicted, "class")))
    counts = np.asarray(table.counts(count), dtype=np.int64)
    procs = table.texts(procedure, "a procedure name") if procedure else [""] * len(runs)
    seen = list(dict.fromkeys([*trues, *preds]))
    if labels is None:
        labels = ([positive] + [c for c in seen if c != positive]
                  if positive is not None and positive in seen else seen)
    if positive is None and len(labels) == 2:  # two classes: binary runs
        found = default_positive(labels)
        positive = labels[0] if found is None else str(found)
    index = {c: i for i, c in enumerate(labels)}
    unknown = [(i, c) for i, c in enumerate(seen) if c not in index]
    if unknown:
        c = unknown[0][1]
        where = next(i for i, (t, p) in enumerate(zip(trues, preds, strict=True))
                     if c in (t, p))
        raise table.error(f"the class {c!r} is not one of the labels {labels}.",
                          table.lines[where + 1], true if trues[where] == c else predicted)
    keys = list(zip(procs, runs, trues, preds, strict=True))
    first: dict[tuple[str, ...], int] = {}
    for i, key in enumerate(keys):
        if key in first:
            raise table.error(f"the cell ({', '.join(k for k in key if k)}) is given twice (also "
                              f"on line {table.lines[first[key] + 1]}); give each cell once.",
                              table.lines[i + 1], count)
        first[key] = i
    groups = list(dict.fromkeys(procs))
    if procedure and len(groups) != 2:
        raise ValueError(f"{table.source}: the column {procedure!r} names {len(groups)} "
                         f"procedure(s) ({', '.join(groups)}); compare two.")
    out = {}
    k = len(labels)
    t = np.array([index[c] for c in trues], dtype=np.int64)
    p = np.array([index[c] for c in preds], dtype=np.int64)
    for g in groups:
        mine = np.array([x == g for x in procs])
        names_g = list(dict.fromkeys(np.asarray(runs, dtype=object)[mine]))
        pos = {n: j for j, n in enumerate(names_g)}
        r = np.array([pos[x] for x, m in zip(runs, mine, strict=True) if m], dtype=np.int64)
        cells = np.zeros((len(names_g), k, k), dtype=np.int64)
        np.add.at(cells, (r, t[mine], p[mine]), counts[mine])
        out[g] = {str(n): ConfusionMatrix(cells[j], labels=labels, positive=positive)
                  for j, n in enumerate(names_g)}
        if len(out[g]) < 2:
            what = f"the procedure {g!r} has" if g else "the table has"
            raise ValueError(f"{table.source}: {what} one run ({names_g[0]}); pooling runs needs "
                             "at least two.")
    if procedure:
        (a, ra), (b, rb) = out.items()
        if sorted(ra) != sorted(rb):
            raise ValueError(f"{table.source}: the procedures {a!r} and {b!r} cover different "
                             f"runs ({', '.join(ra)} against {', '.join(rb)}); compare them on "
                             "the same runs.")
    return out
