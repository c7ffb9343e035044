"""Rank probabilities: for every classifier of a batch, the probability of holding each rank.

Rank 1 is the best; ties share their ranks equally (see :mod:`bayescm.comparisons.superiority`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from bayescm.comparisons.superiority import (
    _check_direction,
    _check_finite_draws,
    _flat_draws,
    _metric_direction,
    _metric_draws,
    _select,
    batch_dim,
)
from bayescm.core import container as box
from bayescm.core.arguments import keyword_checked
from bayescm.metrics.catalogue import canonical_name
from bayescm.metrics.metric import Metric
from bayescm.models import registry

__all__ = ["rank_probabilities"]

_MAX_CELLS = 25_000_000
"""Largest classifier x rank table built without ``max_rank`` (200 MB as float64)."""

_CHUNK_ELEMENTS = 1_000_000
"""Draws x classifiers handled at once (bounds the memory of the sort to a few tens of MB)."""


# ---------------------------------------------------------------------------- rank counting
class _RankCounter:
    """Accumulates rank counts over chunks of draws.

    Each chunk gives, for every draw (row), the classifiers in ascending order of their
    oriented value (larger is better) and which sorted neighbours are tied.
    """

    def __init__(self, n_cls: int, max_rank: int) -> None:
        self.n_cls = n_cls
        self.max_rank = max_rank
        self.counts = np.zeros(n_cls * max_rank, dtype=np.int64)
        self.rank_sum = np.zeros(n_cls, dtype=np.int64)
        self.tie_counts = np.zeros(n_cls * max_rank, dtype=np.float64)
        self.tie_rank_sum = np.zeros(n_cls, dtype=np.float64)
        self.draws = 0

    def add(self, order: np.ndarray, tie: np.ndarray | None) -> None:
        """Add a chunk: ``order`` ``(S, C)`` ascending classifier indices, ``tie`` ``(S, C-1)``."""
        s, c = order.shape
        r = self.max_rank
        self.draws += s
        # classifiers holding ranks 1..R: ascending positions C-1, ..., C-R
        top = order[:, c - r:][:, ::-1].astype(np.intp)
        self.counts += np.bincount((top * r + np.arange(r)).ravel(), minlength=c * r)
        # rank of position p is C - p; sum it per classifier (float64 sums of integers below
        # 2**53 are exact)
        weights = np.tile(np.arange(c, 0, -1, dtype=np.float64), s)
        self.rank_sum += np.rint(np.bincount(order.ravel(), weights=weights, minlength=c)
                                 ).astype(np.int64)
        if tie is not None and tie.any():
            self._split_ties(order, tie)

    def _split_ties(self, order: np.ndarray, tie: np.ndarray) -> None:
        """Spread each tied group's ranks equally over its members.

        Works on the flat indices of the ties only (``O(number of ties)``, no loop): runs of
        consecutive ties in a row are the groups.
        """
        c = order.shape[1]
        r = self.max_rank
        flat = np.flatnonzero(tie)
        row, p = np.divmod(flat, c - 1)
        first = np.ones(flat.size, dtype=bool)
        first[1:] = (flat[1:] != flat[:-1] + 1) | (row[1:] != row[:-1])
        last = np.ones(flat.size, dtype=bool)
        last[:-1] = first[1:]
        g_row, g_start, g_end = row[first], p[first], p[last] + 1  # group spans start..end
        size = g_end - g_start + 1
        # members: one entry per (group, position in the group)
        rep = np.repeat(np.arange(size.size), size)
        offset = np.arange(rep.size) - np.repeat(np.cumsum(size) - size, size)
        pos = g_start[rep] + offset
        cls = order[g_row[rep], pos].astype(np.intp)
        t = size[rep]
        # expected rank: the group's mean rank replaces the rank of the sorted position
        mean_pos = (g_start[rep] + g_end[rep]) / 2.0
        self.tie_rank_sum += np.bincount(cls, weights=pos - mean_pos, minlength=c)
        j = c - 1 - pos  # 0-based rank of the sorted position
        keep = j < r
        self.tie_counts -= np.bincount(cls[keep] * r + j[keep], minlength=c * r)
        # each member gets 1/t of every rank its group covers
        rep2 = np.repeat(np.arange(cls.size), t)
        offset2 = np.arange(rep2.size) - np.repeat(np.cumsum(t) - t, t)
        jj = c - 1 - (g_start[rep][rep2] + offset2)
        keep = jj < r
        self.tie_counts += np.bincount(cls[rep2][keep] * r + jj[keep],
                                       weights=1.0 / t[rep2][keep], minlength=c * r)

    def merge(self, other: _RankCounter) -> None:
        self.counts += other.counts
        self.rank_sum += other.rank_sum
        self.tie_counts += other.tie_counts
        self.tie_rank_sum += other.tie_rank_sum
        self.draws += other.draws

    def result(self) -> tuple[np.ndarray, np.ndarray]:
        """``(P(rank), expected rank)`` with shapes ``(C, R)`` and ``(C,)``."""
        prob = (self.counts + self.tie_counts).reshape(self.n_cls, self.max_rank) / self.draws
        expected = (self.rank_sum + self.tie_rank_sum) / self.draws
        return np.clip(prob, 0.0, 1.0), expected


def _sort_float(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Ascending order of each row of ``x`` and the tie mask of sorted neighbours."""
    order = np.argsort(x, axis=1)
    srt = np.take_along_axis(x, order, axis=1)
    return order, srt[:, 1:] == srt[:, :-1]


def _sort_float32_packed(x: np.ndarray, non_negative: bool = False
                         ) -> tuple[np.ndarray, np.ndarray]:
    """Like :func:`_sort_float` for float32 rows, but faster: sort ``(value bits, index)`` keys.

    Float bits are mapped to unsigned integers that sort like the floats (non-negative floats
    already do); the classifier index goes into the low 32 bits of a uint64 key, so one integer
    sort (SIMD-accelerated in NumPy) replaces argsort and gather.
    """
    m, c = x.shape
    bits = x.view(np.uint32)
    if not non_negative:
        bits = np.where(bits & np.uint32(0x80000000), ~bits, bits | np.uint32(0x80000000))
    keys = np.empty((m, c), dtype=np.uint64)
    halves = keys.view(np.uint32).reshape(m, c, 2)
    low, high = (0, 1) if np.little_endian else (1, 0)
    halves[..., low] = np.arange(c, dtype=np.uint32)
    halves[..., high] = bits
    keys.sort(axis=1)
    order = halves[..., low]
    value = halves[..., high]
    return order, value[:, 1:] == value[:, :-1]


def _check_max_rank(max_rank: Any, n_cls: int) -> int:
    if max_rank is None:
        if n_cls * n_cls > _MAX_CELLS:
            raise ValueError(
                f"A full rank table for {n_cls} classifiers has {n_cls}x{n_cls} cells "
                f"({n_cls * n_cls * 8 / 1e6:.0f} MB); pass max_rank (e.g. max_rank=10) to keep "
                "only the top ranks (P(best) and the expected rank stay exact)."
            )
        return n_cls
    if isinstance(max_rank, bool) or not isinstance(max_rank, (int, np.integer)):
        raise TypeError(f"max_rank must be a positive integer, got {max_rank!r}.")
    if max_rank < 1:
        raise ValueError(f"max_rank must be >= 1, got {max_rank}.")
    return int(min(max_rank, n_cls))


def _check_chunk(chunk_size: Any, n_cls: int) -> int:
    if chunk_size is None:
        return max(1, _CHUNK_ELEMENTS // n_cls)
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, (int, np.integer)):
        raise TypeError(f"chunk_size must be a positive integer, got {chunk_size!r}.")
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}.")
    return int(chunk_size)


def _rank_dataset(prob: np.ndarray, expected: np.ndarray, names: Sequence[str], attrs: dict,
                  dim: str = "classifier") -> xr.Dataset:
    ranks = np.arange(1, prob.shape[1] + 1)
    return box.make_dataset(
        {
            "rank_probability": ((dim, "rank"), prob,
                                 {"long_name": "probability of holding the rank (1 = best)"}),
            "p_best": ((dim,), prob[:, 0].copy(),
                       {"long_name": "probability of being the best (rank 1)"}),
            "expected_rank": ((dim,), expected,
                              {"long_name": "posterior mean rank (1 = best)"}),
        },
        {dim: list(names), "rank": ranks},
        attrs,
    )


_TIE_RULE = ("ties share their ranks equally (as breaking them uniformly at random); the "
             "expected rank uses the average rank of a tie")


@keyword_checked
def rank_probabilities(
    data: xr.DataTree | xr.DataArray,
    metric: str | Metric | None = None,
    *,
    direction: str | None = None,
    coords: Mapping[str, Any] | None = None,
    max_rank: int | None = None,
    chunk_size: int | None = None,
    group: str = "posterior",
) -> xr.Dataset:
    """Probabilistic leaderboard of a batch: P(rank), P(best) and expected rank per classifier.

    Every posterior draw is one synthetic leaderboard; counting how often each classifier holds
    each rank gives the probabilistic leaderboard of the paper's Fig. 5B. All draws of a chunk
    are ranked by one sort along the classifier axis and counted with ``bincount`` (no loop over
    draws); ties share their ranks equally (see the module notes).

    Parameters
    ----------
    data : xarray.DataTree or xarray.DataArray
        A batch result of :func:`~bayescm.fit` (or of
        :func:`~bayescm.compare_paired`), or draws of one metric with a ``classifier``
        dim and sample dims ``chain``/``draw``.
    metric : str or Metric
        Metric to rank by (required for a tree; aliases accepted).
    direction : {"higher", "lower"}, optional
        Which way the metric improves; default from the catalogue (required for descriptive
        metrics, custom metrics and DataArray input).
    coords : mapping, optional
        Selection such as ``{"class": "cat"}`` for a per-class metric.
    max_rank : int, optional
        Keep only ranks ``1 .. max_rank``. Default all ranks, allowed up to 5,000 classifiers;
        above that pass ``max_rank`` (the table would need ``C^2`` cells). ``p_best`` and
        ``expected_rank`` are exact either way.
    chunk_size : int, optional
        Draws ranked at once; default about a million draws x classifiers (tens of MB).
    group : str, default "posterior"
        Group of the tree to read.

    Returns
    -------
    xarray.Dataset
        ``rank_probability`` (dims ``classifier, rank``; ``rank`` = 1, 2, ...), ``p_best`` and
        ``expected_rank`` (dim ``classifier``). Rows sum to 1 over all ranks and columns sum to
        1 over classifiers.

    Raises
    ------
    ValueError
        No ``classifier`` dim, NaN draws, a descriptive metric without ``direction``, an extra
        dim (``class``) not selected with ``coords``, a table too large without ``max_rank``.
    TypeError
        A tree without ``metric``, a ``max_rank`` or ``chunk_size`` that is not an integer, or
        data that is neither a result tree nor a DataArray.

    See Also
    --------
    leaderboard : The same from a published list of accuracies.
    prob_superior : Pairwise probabilities.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.comparisons import rank_probabilities
    >>> batch = bcm.fit({"a": bcm.ConfusionMatrix.from_counts(tp=45, fn=5, tn=40, fp=10),
    ...                  "b": bcm.ConfusionMatrix.from_counts(tp=40, fn=10, tn=38, fp=12),
    ...                  "c": bcm.ConfusionMatrix.from_counts(tp=20, fn=30, tn=25, fp=25)},
    ...                 metrics=["acc"], random_seed=0)
    >>> ranks = rank_probabilities(batch, "acc")
    >>> ranks["rank_probability"].sum("rank").values.round(6).tolist()
    [1.0, 1.0, 1.0]
    >>> ranks["expected_rank"].sel(classifier="c").round(2).item()
    3.0
    """
    direction = _check_direction(direction)
    if isinstance(data, xr.DataTree):
        if metric is None:
            raise TypeError("Name the metric to rank by, e.g. rank_probabilities(idata, 'acc').")
        name, da = _metric_draws(data, metric, group)
        kind = registry.kind_of(data, "rank_probabilities")
        direction = _metric_direction(kind, name, metric, direction)
        dim = batch_dim(kind, da)
    elif isinstance(data, xr.DataArray):
        da = data
        dim = "classifier"
        name = str(da.name if da.name is not None else (
            metric.name if isinstance(metric, Metric) else metric or "metric"))
        if direction is None:
            if metric is None:
                raise ValueError(
                    "For draws given as a DataArray pass direction='higher' or 'lower' (or the "
                    "metric, to look its direction up)."
                )
            key = metric.name if isinstance(metric, Metric) else canonical_name(str(metric))
            binary = registry.get("binary")(["positive", "negative"])
            direction = _metric_direction(binary, key, metric, None)
        dim = "classifier"
    else:
        raise TypeError(
            f"rank_probabilities expects a result tree or a DataArray of draws, got "
            f"{type(data).__name__}."
        )
    if dim not in da.dims:
        raise ValueError(
            f"{name!r} has no {dim} dim (dims {list(da.dims)}); rank_probabilities ranks "
            "the classifiers of a batch from bcm.fit({name: matrix, ...}) or the systems of "
            "an items fit.")
    da = _select(da, coords, keep=(dim,))
    names = [str(v) for v in da[dim].values] if dim in da.coords else [
        str(i) for i in range(da.sizes[dim])]
    x = _flat_draws(da, (dim,))
    _check_finite_draws(x, name, names)
    n_cls = x.shape[1]
    r = _check_max_rank(max_rank, n_cls)
    step = _check_chunk(chunk_size, n_cls)
    counter = _RankCounter(n_cls, r)
    sign = 1.0 if direction == "higher" else -1.0
    for lo in range(0, x.shape[0], step):
        block = x[lo:lo + step]
        if block.dtype == np.float32:
            counter.add(*_sort_float32_packed(block * np.float32(sign) + np.float32(0.0)))
        else:  # + 0.0 turns -0.0 into +0.0, so that equal values tie
            counter.add(*_sort_float(block.astype(np.float64) * sign + 0.0))
    prob, expected = counter.result()
    attrs = {"metric": name, "direction": direction, "draws": int(x.shape[0]),
             "tie_rule": _TIE_RULE}
    return _rank_dataset(prob, expected, names, attrs, dim)
