"""A stratified audit: items labelled within strata of known size, e.g. per predicted class.

A production classifier flagged 3,000 of 1,000,000 cases; an auditor labelled 200 flagged and
300 unflagged ones. The labelled items are not a random sample of the population: flagged
cases are 40 % of them but 0.3 % of the population. :class:`StratifiedSample` keeps each
stratum's labelled counts with the stratum's size, so that a fit
(:mod:`bayescm.models.stratified`) weighs every stratum by its size.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from bayescm.core.arguments import check_names, keyword_checked, warn_user
from bayescm.core.confusion import ConfusionMatrix, as_batch
from bayescm.core.validate import INT64_MAX, check_int

__all__ = ["StratifiedSample"]


class StratifiedSample:
    """Confusion matrices of items labelled within strata, and the strata's population sizes.

    Parameters
    ----------
    counts : mapping of str to ConfusionMatrix
        Per stratum, the counts of its labelled items (rows true class, columns prediction).
        Every matrix has the same classes (and the same positive class, for a binary audit).
    sizes : mapping of str to int
        Per stratum, the number of items in the population (labelled ones included); the same
        strata as ``counts``.

    Raises
    ------
    ValueError
        A stratum without a size or a size without counts, a size that is not a whole number,
        or smaller than the stratum's labelled count, or above ``2**63 - 1``, or a stratum of
        size 0.
    TypeError
        ``counts`` that are not ConfusionMatrix objects of one set of classes.
    OverflowError
        A float size from ``2**53`` (not exact), or sizes that sum past ``2**63 - 1``.

    Warns
    -----
    UserWarning
        A stratum of the population with no labelled items: nothing is known of it but the
        prior, which then decides a part of every population metric.

    See Also
    --------
    bayescm.fit : Fits it (the kind ``"stratified"``, :mod:`bayescm.models.stratified`).
    bayescm.ConfusionMatrix : The labelled counts of one stratum.

    Notes
    -----
    When every stratum's labelled items fall in one predicted class (strata by prediction,
    the usual audit design) a stratum holds only that prediction: its other columns are
    impossible, not merely unobserved, and the fit gives them no probability.
    :attr:`by_prediction` says whether that is the case.

    Examples
    --------
    >>> import bayescm as bcm
    >>> audit = bcm.StratifiedSample(
    ...     {"flagged": bcm.ConfusionMatrix.from_counts(tp=150, fn=0, fp=50, tn=0),
    ...      "unflagged": bcm.ConfusionMatrix.from_counts(tp=0, fn=3, fp=0, tn=297)},
    ...     {"flagged": 3_000, "unflagged": 997_000})
    >>> audit.strata, audit.by_prediction, int(audit.sizes.sum())
    (['flagged', 'unflagged'], True, 1000000)
    """

    @keyword_checked
    def __init__(self, counts: Mapping[str, ConfusionMatrix], sizes: Mapping[str, Any]) -> None:
        if not isinstance(counts, Mapping) or not counts:
            raise TypeError("counts must be a non-empty mapping {stratum: ConfusionMatrix} of "
                            f"the labelled items, got {type(counts).__name__}.")
        if not isinstance(sizes, Mapping):
            raise TypeError("sizes must be a mapping {stratum: number of items in the "
                            f"population}}, got {type(sizes).__name__}.")
        names, mats = as_batch(dict(counts))
        assert names is not None
        size_names = check_names(sizes, "sizes: stratum names")
        by_name = dict(zip(size_names, sizes.values(), strict=True))
        missing = [s for s in names if s not in size_names]
        if missing:
            raise ValueError(f"Stratum {missing[0]!r} has labelled counts but no size; give "
                             "sizes={stratum: items in the population} for every stratum "
                             f"({', '.join(names)}).")
        extra = [s for s in size_names if s not in names]
        if extra:
            raise ValueError(f"sizes names the stratum {extra[0]!r}, which has no counts; give "
                             "its labelled items (a ConfusionMatrix, all zeros if none were "
                             "labelled) or drop it.")
        values = np.empty(len(names), dtype=np.int64)
        for i, s in enumerate(names):
            values[i] = _size(by_name[s], s, int(mats[i].counts.sum()))
        if sum(int(v) for v in values) > INT64_MAX:
            raise OverflowError(f"The strata's sizes sum to {sum(int(v) for v in values):,}, "
                                f"more than 2**63 - 1 = {INT64_MAX:,}; bayescm counts in "
                                "signed 64-bit integers.")
        self._names = list(names)
        self._matrices = mats
        self._sizes = values
        self._counts = np.stack([cm.counts for cm in mats]).astype(np.int64)
        for s, n in zip(self._names, self._counts.sum(axis=(1, 2)), strict=True):
            if n == 0:
                warn_user(f"Stratum {s!r} has no labelled items: its composition is the prior "
                          "alone, and it weighs on every population metric by its size. Label "
                          "a few of its items.", UserWarning)

    @property
    def strata(self) -> list[str]:
        """The strata's names, in order."""
        return list(self._names)

    @property
    def counts(self) -> np.ndarray:
        """Labelled counts ``(stratum, true_class, pred_class)`` (a copy)."""
        return self._counts.copy()

    @property
    def sizes(self) -> np.ndarray:
        """Population sizes of the strata (a copy)."""
        return self._sizes.copy()

    @property
    def first(self) -> ConfusionMatrix:
        """The first stratum's matrix: the classes, positive class and order of every one."""
        return self._matrices[0]

    @property
    def by_prediction(self) -> bool:
        """Whether each stratum's labelled items fall in one predicted class."""
        columns = (self._counts.sum(axis=1) > 0).sum(axis=1)
        return bool(np.all(columns <= 1) and np.any(columns == 1))

    def possible(self) -> np.ndarray:
        """``(stratum, true_class, pred_class)``: True for the cells a stratum can hold.

        Every cell, unless the strata are by prediction (:attr:`by_prediction`); then only the
        column of the stratum's predicted class (every cell for a stratum with no labels).

        Returns
        -------
        ndarray of bool
            ``(stratum, true_class, pred_class)``.

        See Also
        --------
        by_prediction : Whether the strata are by prediction.

        Examples
        --------
        >>> import bayescm as bcm
        >>> audit = bcm.StratifiedSample(
        ...     {"flagged": bcm.ConfusionMatrix.from_counts(tp=8, fn=0, fp=2, tn=0),
        ...      "rest": bcm.ConfusionMatrix.from_counts(tp=0, fn=1, fp=0, tn=9)},
        ...     {"flagged": 100, "rest": 900})
        >>> audit.possible()[0].tolist()  # flagged: only the predicted-positive column
        [[True, False], [True, False]]
        """
        k = self._counts.shape[-1]
        out = np.ones(self._counts.shape, dtype=bool)
        if self.by_prediction:
            seen = self._counts.sum(axis=1) > 0  # (S, K) predicted columns seen
            has = seen.any(axis=1)
            out = np.where(has[:, None, None], np.broadcast_to(seen[:, None, :],
                                                               (len(seen), k, k)), True)
        return out

    def __repr__(self) -> str:
        parts = ", ".join(f"{s}: {int(c.sum())}/{int(n)}" for s, c, n in
                          zip(self._names, self._counts, self._sizes, strict=True))
        return f"StratifiedSample(labelled/size per stratum: {parts})"


def _size(value: Any, stratum: str, labelled: int) -> int:
    name = f"sizes[{stratum!r}]"
    if isinstance(value, (float, np.floating)) and not isinstance(value, bool):
        if not np.isfinite(value) or not float(value).is_integer():
            raise ValueError(f"{name} must be a whole number of items, got {value!r}.")
        if abs(float(value)) >= 2.0**53:
            raise OverflowError(f"{name} = {float(value):g} is a float, exact only below 2**53; "
                                "give the size as an integer.")
        value = int(value)
    size = check_int(value, name, None, kind="a whole number of items")
    if size <= 0:
        raise ValueError(f"{name} = {size}: a stratum of the population has at least one item; "
                         "drop empty strata.")
    if size < labelled:
        raise ValueError(f"{name} = {size:,} is smaller than the {labelled:,} items labelled "
                         "in it; the size counts every item of the stratum in the population, "
                         "labelled ones included.")
    return size
