"""Item-level evaluation logs: one row per (item, system, attempt) outcome, validated.

:class:`Items` is to an LLM benchmark's log what :class:`~bayescm.ConfusionMatrix` is to a
labelled test set: the validated data. Each row is one outcome (1: correct, 0: wrong) of one
system on one item at one attempt; items may sit in clusters (several questions about one
passage), several systems may answer the same items, and a system may try an item several
times ("epochs", the samples of pass@k). The model (:mod:`bayescm.models.items`) needs only
the sufficient statistics per (system, item): successes and attempts, computed here once.

Rules (each broken one raises :class:`~bayescm.errors.ItemsFormatError`, naming the row and
the fix):

* the columns named exist (a close name is suggested);
* ids (item, cluster, system, attempt) are present in every row (no NaN, None or empty text);
* outcomes are 0/1 (integers, floats equal to 0 or 1, booleans, or the texts ``0``, ``1``,
  ``true``, ``false``); a missing outcome is an error, not a silent zero (an unanswered item
  is usually wrong: fill it with 0 first if that is what it means);
* an item belongs to one cluster (a cluster id that changes within an item is an error);
* with an ``attempt`` column, an (item, system, attempt) appears once; without one, repeated
  (item, system) rows are repeated attempts.

Items that only some systems answered are kept, with an
:class:`~bayescm.errors.UnbalancedItemsWarning`: each system's accuracy uses the items it
answered, and the comparison assumes the missing answers are missing at random.
"""

from __future__ import annotations

from collections.abc import Hashable
from pathlib import Path
from typing import Any

import numpy as np

from bayescm.core.arguments import check_names, did_you_mean, keyword_checked, warn_user
from bayescm.core.frames import as_frame, check_distinct_text, refuse_complex
from bayescm.errors import ItemsFormatError, UnbalancedItemsWarning

__all__ = ["Items"]

_TRUE = {"1", "1.0", "true", "True", "TRUE"}
_FALSE = {"0", "0.0", "false", "False", "FALSE"}


def _where(frame: Any, position: int) -> str:
    """``line 7`` for a table read from a file (its index is the line), else ``row 'x'``."""
    label = frame.index[position]
    if frame.index.name == "line":
        return f"line {label}"
    return f"row {label!r}" if not isinstance(label, (int, np.integer)) else f"row {label}"


def _ids(frame: Any, column: str, what: str) -> np.ndarray:
    """The ids of a column as text; a missing id is an error naming the row."""
    import pandas as pd

    values = frame[column]
    missing = values.isna().to_numpy() | (values.astype(str).str.strip() == "").to_numpy()
    if missing.any():
        where = _where(frame, int(np.argmax(missing)))
        raise ItemsFormatError(
            f"column {column!r}, {where}: the {what} id is missing ({int(missing.sum())} "
            f"row(s) without one); give every row its {what} or drop the rows.")
    if pd.api.types.is_float_dtype(values) and not np.isfinite(values.to_numpy()).all():
        j = int(np.argmin(np.isfinite(values.to_numpy())))
        raise ItemsFormatError(f"column {column!r}, {_where(frame, j)}: {values.iloc[j]} is not "
                               f"a valid {what} id; give every row a finite number or a name.")
    if pd.api.types.is_float_dtype(values) and np.all(np.mod(values.to_numpy(), 1) == 0):
        values = values.astype(np.int64)  # 3.0 read from a file with gaps is the item 3
    check_distinct_text(values, column, f"{what} id", ItemsFormatError)
    return values.astype(str).str.strip().to_numpy()


def _outcomes(frame: Any, column: str) -> np.ndarray:
    """0/1 outcomes of a column (bool, 0/1 numbers, 0/1/true/false texts) as int64."""
    import pandas as pd

    values = frame[column]
    missing = values.isna().to_numpy()
    if missing.any():
        where = _where(frame, int(np.argmax(missing)))
        raise ItemsFormatError(
            f"column {column!r}, {where}: the outcome is missing ({int(missing.sum())} row(s)); "
            "score every attempt (an unanswered item usually counts as wrong: fill it with 0) "
            "or drop the rows.")
    if pd.api.types.is_bool_dtype(values):
        return values.to_numpy().astype(np.int64)
    refuse_complex(values, column, ItemsFormatError)
    if pd.api.types.is_numeric_dtype(values):
        arr = values.to_numpy().astype(float)
        bad = (arr != 0) & (arr != 1)
        out = arr
    else:
        texts = values.map(lambda v: str(v).strip() if not isinstance(v, (bool, np.bool_))
                           else str(int(v)))
        arr_t = texts.to_numpy()
        ones = np.isin(arr_t, list(_TRUE))
        bad = ~(ones | np.isin(arr_t, list(_FALSE)))
        out = ones.astype(float)
        arr = arr_t
    if bad.any():
        j = int(np.argmax(bad))
        raise ItemsFormatError(
            f"column {column!r}: {_shown(arr[j])} is not an outcome (0 or 1, True or False) at "
            f"{_where(frame, j)}; give 1 for a correct answer and 0 for a wrong one (a graded "
            "score must be thresholded first, e.g. frame[col] >= 0.5).")
    return out.astype(np.int64)


def _shown(value: Any) -> str:
    """A cell as the user wrote it: 2 for 2.0, 'yes' quoted."""
    if isinstance(value, (float, np.floating)):
        return f"{float(value):g}"
    return repr(value) if isinstance(value, str) else str(value)


class Items:
    """An item-level evaluation log: outcomes of systems on items, maybe clustered, repeated.

    Parameters
    ----------
    frame : pandas.DataFrame or mapping of column name -> sequence
        One row per outcome (one attempt of one system on one item).
    outcome : str or None, default "correct"
        Column of the outcomes: 1 (or True) correct, 0 (or False) wrong. None: correctness is
        ``label == prediction`` of the two columns named by ``label`` and ``prediction``.
    item : str, default "item_id"
        Column of the item ids.
    cluster : str, optional
        Column of the cluster ids (the passage, document or task an item belongs to); every
        row of an item must name the same cluster.
    system : str, optional
        Column of the system (model) names; without it the log is one system's.
    attempt : str, optional
        Column of the attempt (epoch, sample) number; an (item, system, attempt) appears once.
        Without it, repeated rows of an (item, system) are its attempts.
    label, prediction : str, optional
        With ``outcome=None``: the columns of the true answer and the system's answer; a row
        is correct when they are equal (compared as they are, so ``1`` and ``"1"`` differ).

    Raises
    ------
    ItemsFormatError
        A missing column, an empty id, a missing or non-0/1 outcome, an item in two clusters,
        a repeated (item, system, attempt), or no rows; columns of different lengths or two
        columns of one name; two ids that differ but read as one text (``1`` and ``"1"``).
    TypeError
        ``frame`` that is not a DataFrame or mapping, or column names that are not strings.

    Warns
    -----
    UnbalancedItemsWarning
        Some items were not answered by every system (they are kept; see the module notes).

    See Also
    --------
    bayescm.fit : The hierarchical model of the log (``model="items"``).
    bayescm.pass_at_k : The pass@k of the fit.

    Examples
    --------
    >>> import pandas as pd, bayescm as bcm
    >>> frame = pd.DataFrame({"item_id": [1, 1, 2, 2, 3, 3], "passage": ["a", "a", "a", "a",
    ...                       "b", "b"], "correct": [1, 1, 0, 1, 1, 0]})
    >>> items = bcm.Items(frame, cluster="passage")
    >>> items.n_items, items.n_clusters, items.successes.tolist(), items.attempts.tolist()
    (3, 2, [[2, 1, 1]], [[2, 2, 2]])

    Correctness from the true and the predicted answers:

    >>> frame = pd.DataFrame({"q": ["x", "y", "x", "y"], "model": ["m1", "m1", "m2", "m2"],
    ...                       "truth": ["A", "C", "A", "C"], "answer": ["A", "B", "A", "C"]})
    >>> bcm.Items(frame, outcome=None, item="q", system="model", label="truth",
    ...           prediction="answer").successes.tolist()
    [[1, 0], [1, 1]]
    """

    @keyword_checked
    def __init__(self, frame: Any, outcome: str | None = "correct", item: str = "item_id",
                 cluster: str | None = None, system: str | None = None,
                 attempt: str | None = None, *, label: str | None = None,
                 prediction: str | None = None) -> None:
        frame = as_frame(frame, "Items", ItemsFormatError)
        roles = {"outcome": outcome, "item": item, "cluster": cluster, "system": system,
                 "attempt": attempt, "label": label, "prediction": prediction}
        for role, name in roles.items():
            if name is not None and not isinstance(name, str):
                raise TypeError(f"{role}= names a column (a string), got {name!r}.")
        if outcome is None and (label is None or prediction is None):
            raise ItemsFormatError("outcome=None needs label= and prediction= (the columns "
                                   "whose equality makes a row correct); or name the outcome "
                                   "column with outcome=.")
        if outcome is not None and (label is not None or prediction is not None):
            raise ItemsFormatError("Give the outcome column (outcome=) or the label and "
                                   "prediction columns (outcome=None, label=, prediction=), "
                                   "not both.")
        used = {role: name for role, name in roles.items() if name is not None}
        twice = [n for n in dict.fromkeys(used.values()) if list(used.values()).count(n) > 1]
        if twice:
            raise ItemsFormatError(f"the column {twice[0]!r} is named for two roles "
                                   f"({', '.join(r for r, n in used.items() if n == twice[0])})"
                                   "; each role needs its own column.")
        columns = [str(c) for c in frame.columns]
        missing = [n for n in used.values() if n not in columns]
        if missing:
            raise ItemsFormatError(f"no column {missing[0]!r}; the table has {columns}."
                                   f"{did_you_mean(missing[0], columns)}")
        if len(frame) == 0:
            raise ItemsFormatError("the table has no rows: give one row per outcome.")
        if outcome is not None:
            y = _outcomes(frame, outcome)
        else:
            assert label is not None
            assert prediction is not None
            for name in (label, prediction):
                gap = frame[name].isna().to_numpy()
                if gap.any():
                    raise ItemsFormatError(
                        f"column {name!r}, {_where(frame, int(np.argmax(gap)))}: the answer is "
                        "missing; give every row its answer (a missing prediction usually "
                        "counts as wrong: fill it with a value no label has) or drop the row.")
            y = (frame[label].to_numpy() == frame[prediction].to_numpy()).astype(np.int64)
        item_ids = _ids(frame, item, "item")
        system_ids = (_ids(frame, system, "system") if system is not None
                      else np.full(len(frame), "A", dtype=object))
        codes_i, items = _factorize(item_ids)
        codes_s, systems = _factorize(system_ids)
        n_i, n_s = len(items), len(systems)
        if attempt is not None:
            attempt_ids = _ids(frame, attempt, "attempt")
            _, codes_a = np.unique(attempt_ids, return_inverse=True)
            key = (codes_s.astype(np.int64) * n_i + codes_i) * (int(codes_a.max()) + 1) + codes_a
            _check_unique(frame, key, item_ids, system_ids, attempt_ids, (item, system, attempt))
        self._clusters: list[str] | None = None
        self._cluster_index: np.ndarray | None = None
        if cluster is not None:
            codes_c, clusters = _factorize(_ids(frame, cluster, "cluster"))
            first = np.full(n_i, -1, dtype=np.int64)
            first[codes_i[::-1]] = codes_c[::-1]  # the cluster of each item's first row
            changed = first[codes_i] != codes_c
            if changed.any():
                j = int(np.argmax(changed))
                raise ItemsFormatError(
                    f"column {cluster!r}, {_where(frame, j)}: item {items[codes_i[j]]!r} is in "
                    f"cluster {clusters[codes_c[j]]!r} here but in "
                    f"{clusters[first[codes_i[j]]]!r} in an earlier row; an item belongs to "
                    "one cluster (give repeated questions their own item ids).")
            self._clusters = check_names(clusters, "cluster ids")
            index = first.copy()
            index.setflags(write=False)
            self._cluster_index = index
        cell = codes_s.astype(np.int64) * n_i + codes_i
        successes = np.bincount(cell, weights=y, minlength=n_s * n_i).reshape(n_s, n_i)
        attempts = np.bincount(cell, minlength=n_s * n_i).reshape(n_s, n_i)
        self._successes = np.rint(successes).astype(np.int64)
        self._attempts = attempts.astype(np.int64)
        for arr in (self._successes, self._attempts):
            arr.setflags(write=False)
        self._items = check_names(items, "item ids")
        self._systems = check_names(systems, "system names")
        self._named_systems = system is not None
        self._columns = {k: v for k, v in used.items()}
        unanswered = (self._attempts == 0).any(axis=0)
        if unanswered.any():
            first_gap = int(np.argmax(unanswered))
            who = [self._systems[s] for s in range(n_s) if self._attempts[s, first_gap] == 0]
            warn_user(f"{int(unanswered.sum())} of {n_i} items were not answered by every "
                      f"system (e.g. item {self._items[first_gap]!r}: none from "
                      f"{', '.join(map(repr, who[:3]))}). They are kept: each system's "
                      "accuracy uses the items it answered and the comparison assumes the "
                      "missing answers are missing at random; drop those items first to "
                      "compare on a common set.", UnbalancedItemsWarning)

    @classmethod
    @keyword_checked
    def from_csv(cls, path: str | Path, outcome: str | None = "correct", item: str = "item_id",
                 cluster: str | None = None, system: str | None = None,
                 attempt: str | None = None, *, label: str | None = None,
                 prediction: str | None = None) -> Items:
        """Read an evaluation log from a CSV file with a header row (one row per outcome).

        Parameters
        ----------
        path : str or Path
            The file, read by :func:`bayescm.core.csvtable.read_csv` (UTF-8, commas).
        outcome, item, cluster, system, attempt, label, prediction : str, optional
            Columns, as for :class:`Items`; every value is read as text, and errors name the
            file's line.

        Returns
        -------
        Items
            The validated log.

        Raises
        ------
        CSVFormatError
            A file that breaks the CSV rules, or a column missing from the header.
        ItemsFormatError
            An empty id, a non-0/1 outcome, ... (see :class:`Items`), naming the line.

        See Also
        --------
        Items : The same from a DataFrame.

        Examples
        --------
        >>> import os, tempfile
        >>> from bayescm.core.items import Items
        >>> path = os.path.join(tempfile.mkdtemp(), "log.csv")
        >>> _ = open(path, "w").write("item_id,correct\\nq1,1\\nq1,0\\nq2,true\\n")
        >>> Items.from_csv(path).attempts.tolist()
        [[2, 1]]
        """
        import pandas as pd

        from bayescm.core.csvtable import read_csv

        table = read_csv(path).check_header()
        names = [n for n in (outcome, item, cluster, system, attempt, label, prediction)
                 if n is not None]
        table.require(names)
        if not table.body:
            raise table.error("no rows: give one row per outcome under the header.",
                              table.lines[0])
        frame = pd.DataFrame({n: table.texts(n, "a value") for n in dict.fromkeys(names)},
                             index=pd.Index(table.lines[1:], name="line"))
        try:
            return cls(frame, outcome=outcome, item=item, cluster=cluster, system=system,
                       attempt=attempt, label=label, prediction=prediction)
        except ItemsFormatError as err:
            raise ItemsFormatError(f"{table.source}, {err}") from None

    # ------------------------------------------------------------------ what the model reads
    @property
    def successes(self) -> np.ndarray:
        """Correct attempts per (system, item), shape ``(n_systems, n_items)`` (read-only)."""
        return self._successes

    @property
    def attempts(self) -> np.ndarray:
        """Attempts per (system, item), shape ``(n_systems, n_items)``; 0 where unanswered."""
        return self._attempts

    @property
    def cluster_index(self) -> np.ndarray | None:
        """The cluster (position in :attr:`clusters`) of each item, or None without clusters."""
        return self._cluster_index

    @property
    def systems(self) -> list[str]:
        """System names (``["A"]`` for a log without a system column)."""
        return list(self._systems)

    @property
    def items(self) -> list[str]:
        """Item ids, in order of first appearance."""
        return list(self._items)

    @property
    def clusters(self) -> list[str] | None:
        """Cluster ids, or None."""
        return None if self._clusters is None else list(self._clusters)

    @property
    def named_systems(self) -> bool:
        """Whether the log has a system column (results then carry a ``system`` dim)."""
        return self._named_systems

    @property
    def columns(self) -> dict[str, str]:
        """The columns read, by role (``{"outcome": "correct", "item": "item_id", ...}``)."""
        return dict(self._columns)

    @property
    def n_items(self) -> int:
        """Number of items."""
        return len(self._items)

    @property
    def n_systems(self) -> int:
        """Number of systems."""
        return len(self._systems)

    @property
    def n_clusters(self) -> int:
        """Number of clusters (the number of items when there are no clusters)."""
        return self.n_items if self._clusters is None else len(self._clusters)

    @property
    def n_attempts(self) -> int:
        """Total attempts (rows)."""
        return int(self._attempts.sum())

    def __repr__(self) -> str:
        clusters = "" if self._clusters is None else f", clusters={len(self._clusters)}"
        return (f"Items(systems={self._systems}, items={self.n_items}{clusters}, "
                f"attempts={self.n_attempts})")


def _factorize(ids: np.ndarray) -> tuple[np.ndarray, list[str]]:
    """Integer codes in order of first appearance, and the distinct ids."""
    import pandas as pd

    codes, uniques = pd.factorize(ids, sort=False)
    return codes.astype(np.int64), [str(u) for u in uniques]


def _check_unique(frame: Any, key: np.ndarray, item_ids: np.ndarray, system_ids: np.ndarray,
                  attempt_ids: np.ndarray, names: tuple[Hashable, ...]) -> None:
    """An (item, system, attempt) given twice is an error naming both rows."""
    order = np.argsort(key, kind="stable")
    same = key[order][1:] == key[order][:-1]
    if same.any():
        k = int(np.argmax(same))
        a, b = sorted((int(order[k]), int(order[k + 1])))
        _, system, attempt = names
        who = f"item {item_ids[a]!r}" + (f", system {system_ids[a]!r}" if system else "")
        raise ItemsFormatError(
            f"{who}, attempt {attempt_ids[a]!r} appears twice ({_where(frame, a)} and "
            f"{_where(frame, b)}; {int(same.sum())} repeated row(s) in all); give each attempt "
            f"its own number in column {attempt!r}, or drop the copies.")
