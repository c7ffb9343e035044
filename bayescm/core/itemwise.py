"""The two rules for inputs given item by item: which label is positive, and how rows pair up.

Everything that takes labels, predictions or scores of test items (``ConfusionMatrix
.from_predictions``, :class:`~bayescm.Scores`, ``compare_paired``, the frequentist
cross-checks, the readers) applies the same two rules, written once here:

**The positive class.** When ``positive`` is not given and the two classes are ``0`` and ``1``
(integers, floats, or the strings ``"0"`` and ``"1"`` of a file) or ``False`` and ``True``, the
positive class is ``1`` / ``True``, as scikit-learn's ``pos_label=1`` default; the analysis is
then binary (TPR, TNR, PPV, ...). Other labels need ``positive=`` for a binary analysis.

**Pairing items.** Vectors that describe the same items are paired by position, unless they are
pandas objects with an index: pandas Series (and DataFrames) are aligned by their index labels,
as pandas aligns them; when their index sets differ, or an index has duplicate labels that
cannot be matched, a ``ValueError`` says which labels are missing. A plain sequence beside a
Series is paired by position (it has no index).

Examples
--------
>>> import pandas as pd
>>> from bayescm.core.itemwise import align_items, default_positive
>>> default_positive([0, 1]), default_positive([False, True]), default_positive(["a", "b"])
(1, True, None)
>>> y = pd.Series([1, 0, 1], index=["x", "y", "z"])
>>> s = pd.Series([0.2, 0.9, 0.8], index=["y", "z", "x"])
>>> aligned = align_items({"y_true": y, "scores": s})
>>> aligned["scores"].tolist()
[0.8, 0.2, 0.9]
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import Any

import numpy as np

__all__ = ["align_items", "default_positive", "is_pandas", "two_dim_hint"]


def default_positive(classes: Iterable[Hashable]) -> Hashable | None:
    """The positive class the 0/1 rule implies for these classes, or None.

    Parameters
    ----------
    classes : iterable of hashable
        The distinct classes of the data (one or two of them).

    Returns
    -------
    hashable or None
        ``True`` for booleans, ``1`` (as given: ``1``, ``1.0``, ``np.int64(1)``) for numbers,
        ``"1"`` for the strings ``"0"``/``"1"``; None when the classes are anything else.

    Examples
    --------
    >>> from bayescm.core.itemwise import default_positive
    >>> default_positive(["0", "1"]), default_positive([0.0, 1.0]), default_positive([1, 2])
    ('1', 1.0, None)
    """
    found = list(dict.fromkeys(classes))
    if not found or len(found) > 2:
        return None
    if all(isinstance(c, (bool, np.bool_)) for c in found):
        return True
    if all(isinstance(c, str) for c in found):
        return "1" if set(found) <= {"0", "1"} and "1" in found else None
    numeric = all(isinstance(c, (int, float, np.integer, np.floating))
                  and not isinstance(c, (bool, np.bool_)) for c in found)
    if numeric and all(c in (0, 1) for c in found):
        ones = [c for c in found if c == 1]
        return ones[0] if ones else None
    return None


def is_pandas(value: Any) -> bool:
    """Whether ``value`` is a pandas Series or DataFrame (has an index to align on)."""
    module = type(value).__module__
    return module.startswith("pandas") and hasattr(value, "index") and hasattr(value, "loc")


def align_items(named: Mapping[str, Any]) -> dict[str, Any]:
    """Pair vectors of the same items: pandas objects by index, the rest by position.

    Parameters
    ----------
    named : mapping of str -> array-like
        The vectors (or DataFrames) by the name errors should use (``"y_true"``, ``"scores of
        'B'"``). The first pandas object's index gives the order.

    Returns
    -------
    dict of str -> array-like
        The same objects, pandas ones reordered to the first one's index; others untouched.

    Raises
    ------
    ValueError
        Two pandas objects whose index sets differ, or an index with duplicate labels that
        does not match the first one's exactly.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayescm.core.itemwise import align_items
    >>> align_items({"a": pd.Series([1, 2], index=[0, 1]),
    ...              "b": pd.Series([3, 4], index=[1, 2])})
    Traceback (most recent call last):
    ...
    ValueError: b and a are pandas objects indexed by different items: ...
    """
    out = dict(named)
    frames = [(name, value) for name, value in named.items() if is_pandas(value)]
    if len(frames) < 2:
        return out
    first_name, first = frames[0]
    index = first.index
    for name, value in frames[1:]:
        other = value.index
        if other.equals(index):
            continue
        if not (index.is_unique and other.is_unique):
            raise ValueError(
                f"{_cap(name)} and {first_name} are pandas objects whose indexes differ and have "
                "duplicate labels, so their rows cannot be matched item by item; give them "
                "one index (e.g. .reset_index(drop=True) on both, if the rows are in the same "
                "order) or unique item ids.")
        missing = index.difference(other)
        extra = other.difference(index)
        if len(missing) or len(extra) or len(other) != len(index):
            shown = ", ".join(repr(v) for v in list(missing[:3]) + list(extra[:3]))
            raise ValueError(
                f"{_cap(name)} and {first_name} are pandas objects indexed by different items: "
                f"{len(missing)} label(s) of {first_name} are missing from {name} and "
                f"{len(extra)} of {name} from {first_name} (e.g. {shown}). Select the common "
                "items first (e.g. b = b.loc[a.index]), or pass arrays (.to_numpy()) to pair "
                "by position.")
        out[name] = value.loc[index]
    return out


def _cap(text: str) -> str:
    """``the scores`` -> ``The scores`` at the start of a sentence; names stay as they are."""
    return "The" + text[3:] if text.startswith("the ") else text


def two_dim_hint(shape: tuple[int, ...]) -> str:
    """A hint for a 2-D array where one score per item was expected (``predict_proba``).

    Examples
    --------
    >>> from bayescm.core.itemwise import two_dim_hint
    >>> two_dim_hint((100, 2))[:40]
    ' An (n, 2) array looks like scikit-learn'
    """
    if len(shape) == 2 and shape[1] == 2:
        return (" An (n, 2) array looks like scikit-learn's predict_proba output: pass the "
                "positive class's column, proba[:, 1].")
    if len(shape) == 2 and shape[1] > 2:
        return (" An (n, K) array looks like predict_proba of K classes: a binary score is "
                "one column (proba[:, k] for class k, one-vs-rest), or pass "
                "proba.argmax(axis=1) as predictions to a ConfusionMatrix.")
    if len(shape) == 2 and shape[1] == 1:
        return " A single-column array: pass array[:, 0] (or .ravel())."
    return ""
