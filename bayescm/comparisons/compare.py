"""Comparing classifiers: superiority probabilities, rank probabilities and leaderboards.

Posterior draws of one metric for several classifiers answer "which one is better?" with
probabilities instead of a single ordering (Tötsch & Hoffmann 2021, Fig. 5):

* :func:`prob_superior` -- ``P(A better than B by more than margin)`` for two fits, or two
  classifiers of one batch;
* :func:`rank_probabilities` -- for every classifier of a batch the probability of holding each
  rank, of being the best, and its expected rank;
* :func:`leaderboard` -- the same for a published leaderboard that lists only accuracies and the
  test-set size, with rank-weighted prizes.

Draws are compared draw by draw. That is valid when the classifiers' posteriors are independent
(separate fits with different seeds, or the classifiers of one batch, which are drawn
independently) or when the draws come from one joint posterior
(:func:`bayescm.compare_paired`), which keeps the correlation of classifiers scored on the
same samples.

Rank 1 is the best. **Ties** (equal draws, which continuous posteriors produce only through
floating-point rounding) share their ranks equally: a group of ``t`` tied classifiers occupying
ranks ``r .. r + t - 1`` gives each of them probability ``1 / t`` for each of these ranks and the
mean of them as its rank, the same as breaking ties uniformly at random (and the ``"average"``
rule of ``scipy.stats.rankdata`` for the expected rank). :func:`prob_superior` counts only strict
superiority, so for two classifiers ``P(rank 1) = prob_superior + P(tie) / 2``.
"""

from __future__ import annotations

import os
from collections.abc import Hashable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from bayescm.analyses.summary import resolve_var_names
from bayescm.core import container as box
from bayescm.core.resources import check_time
from bayescm.core.streams import child, seed_sequence, warn_if_shared
from bayescm.core.validate import check_int, keyword_checked
from bayescm.metrics.base import Metric, canonical_name, catalogue_for, resolve_metrics
from bayescm.priors.base import Beta, Fixed, resolve_prior

__all__ = ["prob_superior", "rank_probabilities", "leaderboard", "DIRECTIONS"]

DIRECTIONS = ("higher", "lower")
"""Accepted values of ``direction``: which way a metric improves."""

_MAX_CELLS = 25_000_000
"""Largest classifier x rank table built without ``max_rank`` (200 MB as float64)."""

_CHUNK_ELEMENTS = 1_000_000
"""Draws x classifiers handled at once (bounds the memory of the sort to a few tens of MB)."""


# ---------------------------------------------------------------------------- metric draws
def _check_direction(direction: Any) -> str | None:
    if direction is None:
        return None
    if direction not in DIRECTIONS:
        raise ValueError(
            f"direction must be 'higher' (larger is better) or 'lower' (smaller is better), "
            f"got {direction!r}."
        )
    return str(direction)


def _metric_direction(kind: str, name: str, metric: Any, direction: str | None) -> str:
    """'higher' or 'lower' for a metric; the user's ``direction`` wins."""
    if direction is not None:
        return direction
    if isinstance(metric, Metric):
        higher = metric.higher_is_better
    else:
        try:
            catalogue = catalogue_for(kind)
            found = resolve_metrics([name], catalogue, kind)[0]
        except ValueError:
            found = None
        if found is None:
            raise ValueError(
                f"{name!r} is not a built-in {kind} metric, so its direction is unknown; pass "
                "direction='higher' or direction='lower'."
            )
        higher = found.higher_is_better
    if higher is None:
        raise ValueError(
            f"{name!r} is descriptive (neither higher nor lower is better), so 'superior' is "
            "undefined; pass direction='higher' or direction='lower' to compare it anyway."
        )
    return "higher" if higher else "lower"


def _metric_draws(idata: xr.DataTree, metric: str | Metric, group: str) -> tuple[str, xr.DataArray]:
    """The draws of one metric (aliases resolved) from a result tree."""
    if isinstance(metric, Metric):
        metric = metric.name
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a metric name or a bcm.Metric, got {metric!r}.")
    (name,) = resolve_var_names(idata, [metric], group)
    return name, box.get_group(idata, group)[name]


def _select(da: xr.DataArray, coords: Mapping[str, Any] | None, keep: Iterable[str] = ()
            ) -> xr.DataArray:
    """Apply ``coords`` and check that only sample dims (and ``keep``) remain."""
    if coords:
        unknown = [d for d in coords if d not in da.dims]
        if unknown:
            raise ValueError(
                f"coords names {unknown}, but {da.name!r} has dims {list(da.dims)}."
            )
        try:
            da = da.sel(dict(coords))
        except KeyError as exc:
            raise KeyError(f"coords {dict(coords)} do not select from {da.name!r}: {exc}") from None
    allowed = set(box.SAMPLE_DIMS) | set(keep)
    extra = [d for d in da.dims if d not in allowed]
    if extra:
        hints = ", ".join(
            f"{d}: {', '.join(map(str, da[d].values[:5]))}" if d in da.coords else d
            for d in extra
        )
        raise ValueError(
            f"{da.name!r} carries the dims {extra} besides the draws ({hints}); select one "
            f"element, e.g. coords={{{extra[0]!r}: ...}}."
        )
    return da


def _flat_draws(da: xr.DataArray, keep: tuple[str, ...] = ()) -> np.ndarray:
    """Draws as ``(samples, *keep)``: chains and draws flattened in order."""
    sample = [d for d in box.SAMPLE_DIMS if d in da.dims]
    if not sample:
        raise ValueError(f"{da.name!r} has no sample dims (chain, draw): {list(da.dims)}.")
    arr = np.asarray(da.transpose(*sample, *keep).values)
    n = int(np.prod([da.sizes[d] for d in sample]))
    return arr.reshape((n,) + arr.shape[len(sample):])


def _check_finite_draws(x: np.ndarray, name: str, labels: Sequence[Any] | None = None) -> None:
    bad = np.isnan(x)
    if bad.any():
        where = ""
        if labels is not None and x.ndim == 2:
            i = int(np.argmax(bad.any(axis=0)))
            where = f" (e.g. classifier {labels[i]!r})"
        raise ValueError(
            f"{name} is undefined (NaN) in {int(bad.sum())} draw(s){where}; comparisons need a "
            "metric that is defined for every draw (see bcm.list_metrics()['undefined'])."
        )


# ---------------------------------------------------------------------------- prob_superior
@keyword_checked
def prob_superior(
    a: xr.DataTree,
    b: xr.DataTree | Hashable,
    c: Hashable | None = None,
    /,
    *,
    metric: str | Metric,
    margin: float = 0.0,
    direction: str | None = None,
    coords: Mapping[str, Any] | None = None,
    group: str = "posterior",
) -> float:
    """Posterior probability that classifier A beats classifier B on ``metric`` by > ``margin``.

    Two call forms:

    * ``prob_superior(idata_a, idata_b, metric=...)``: two results of :func:`~bayescm.fit`
      (separate test sets); their draws are independent and are paired draw by draw;
    * ``prob_superior(idata, "7a", "8", metric=...)``: two classifiers of one batch (or the
      ``"A"`` and ``"B"`` of :func:`~bayescm.compare_paired`, whose joint draws keep the
      correlation of a shared test set).

    For a metric where higher is better the result is ``P(m_A > m_B + margin)``; where lower is
    better (error rates) it is ``P(m_A < m_B - margin)``.

    Parameters
    ----------
    a : xarray.DataTree
        The result of classifier A, or a batch result holding both classifiers.
    b : xarray.DataTree or hashable
        The result of classifier B, or (batch form) the name of classifier A.
    c : hashable, optional
        Batch form only: the name of classifier B.
    metric : str or Metric
        The metric (aliases such as ``"sensitivity"`` accepted).
    margin : float, default 0.0
        Required advantage, >= 0, in the metric's units.
    direction : {"higher", "lower"}, optional
        Which way the metric improves; default from the metric catalogue. Required for
        descriptive quantities (``prevalence``, ``bias``) and custom metrics.
    coords : mapping, optional
        Selection applied to both draws, e.g. ``{"class": "cat"}`` for a per-class metric.
    group : str, default "posterior"
        ``"prior"`` compares the prior draws.

    Returns
    -------
    float
        The probability, a Monte Carlo estimate from the paired draws.

    Raises
    ------
    ValueError
        Different numbers of draws, a descriptive metric without ``direction``, a metric that
        still has a class dim, NaN draws, a negative margin.
    KeyError
        A classifier not in the batch, an unknown metric or one not computed in the fit.

    Warns
    -----
    SharedRandomNumbersWarning
        Two separate fits drawn from the same random numbers (the same seed, however it was
        given: an integer, a NumPy integer, generators in the same state): their draws are not
        independent, which biases the probability.

    See Also
    --------
    rank_probabilities : the same comparison for any number of classifiers.
    bayescm.comparisons.paired.compare_paired : paired comparison on one shared test set.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.comparisons.compare import prob_superior
    >>> a = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=45, fn=5, tn=40, fp=10), random_seed=1)
    >>> b = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=40, fn=10, tn=38, fp=12), random_seed=2)
    >>> p = prob_superior(a, b, metric="accuracy")
    >>> 0.8 < p < 0.95
    True
    >>> round(prob_superior(a, b, metric="error_rate") - p, 6)  # lower is better: same event
    0.0
    """
    margin = _check_margin(margin)
    direction = _check_direction(direction)
    if isinstance(b, xr.DataTree):
        if c is not None:
            raise TypeError(
                "Give either two results, prob_superior(idata_a, idata_b, metric=...), or one "
                "batch and two names, prob_superior(idata, 'a', 'b', metric=...)."
            )
        name, da_a = _metric_draws(a, metric, group)
        _, da_b = _metric_draws(b, name, group)
        x_a = _flat_draws(_select(da_a, coords))
        x_b = _flat_draws(_select(da_b, coords))
        if x_a.size != x_b.size:
            raise ValueError(
                f"The two results have different numbers of draws ({x_a.size} and {x_b.size}); "
                "fit both with the same draws and chains so they can be paired."
            )
        warn_if_shared(a.attrs, b.attrs)
        kind = str(a.attrs.get("model", "binary"))
    else:
        if c is None:
            raise TypeError(
                "Batch form: prob_superior(idata, 'name_a', 'name_b', metric=...); got only one "
                "classifier name."
            )
        name, da = _metric_draws(a, metric, group)
        if "classifier" not in da.dims:
            raise ValueError(
                "This result has no classifier dim; pass two results "
                "(prob_superior(idata_a, idata_b, metric=...)) or a batch from "
                "bcm.fit({'a': cm_a, 'b': cm_b})."
            )
        names = [str(v) for v in da["classifier"].values]
        picks = []
        for label in (b, c):
            if str(label) not in names:
                shown = ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")
                raise KeyError(f"Classifier {label!r} is not in the batch (classifiers: {shown}).")
            picks.append(da.sel(classifier=str(label)))
        x_a = _flat_draws(_select(picks[0], coords))
        x_b = _flat_draws(_select(picks[1], coords))
        kind = str(a.attrs.get("model", "binary"))
    direction = _metric_direction(kind, name, metric, direction)
    _check_finite_draws(x_a, name)
    _check_finite_draws(x_b, name)
    with np.errstate(invalid="ignore", over="ignore"):
        wins = x_a > x_b + margin if direction == "higher" else x_a < x_b - margin
    return float(np.mean(wins))


def _check_margin(margin: Any) -> float:
    if isinstance(margin, bool) or not isinstance(margin, (int, float, np.number)):
        raise TypeError(f"margin must be a number >= 0, got {margin!r}.")
    margin = float(margin)
    if not np.isfinite(margin) or margin < 0:
        raise ValueError(f"margin must be a finite number >= 0, got {margin}.")
    return margin


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


def _rank_dataset(prob: np.ndarray, expected: np.ndarray, names: Sequence[str], attrs: dict
                  ) -> xr.Dataset:
    ranks = np.arange(1, prob.shape[1] + 1)
    return box.make_dataset(
        {
            "rank_probability": (("classifier", "rank"), prob,
                                 {"long_name": "probability of holding the rank (1 = best)"}),
            "p_best": (("classifier",), prob[:, 0].copy(),
                       {"long_name": "probability of being the best (rank 1)"}),
            "expected_rank": (("classifier",), expected,
                              {"long_name": "posterior mean rank (1 = best)"}),
        },
        {"classifier": list(names), "rank": ranks},
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

    See Also
    --------
    leaderboard : the same from a published list of accuracies.
    prob_superior : pairwise probabilities.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.comparisons.compare import rank_probabilities
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
        kind = str(data.attrs.get("model", "binary"))
        direction = _metric_direction(kind, name, metric, direction)
    elif isinstance(data, xr.DataArray):
        da = data
        name = str(da.name if da.name is not None else (
            metric.name if isinstance(metric, Metric) else metric or "metric"))
        if direction is None:
            if metric is None:
                raise ValueError(
                    "For draws given as a DataArray pass direction='higher' or 'lower' (or the "
                    "metric, to look its direction up)."
                )
            key = metric.name if isinstance(metric, Metric) else canonical_name(str(metric))
            direction = _metric_direction("binary", key, metric, None)
    else:
        raise TypeError(
            f"rank_probabilities expects a result tree or a DataArray of draws, got "
            f"{type(data).__name__}."
        )
    if "classifier" not in da.dims:
        raise ValueError(
            f"{name!r} has no classifier dim (dims {list(da.dims)}); rank_probabilities ranks "
            "the classifiers of a batch from bcm.fit({name: matrix, ...})."
        )
    da = _select(da, coords, keep=("classifier",))
    names = [str(v) for v in da["classifier"].values] if "classifier" in da.coords else [
        str(i) for i in range(da.sizes["classifier"])]
    x = _flat_draws(da, ("classifier",))
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
    return _rank_dataset(prob, expected, names, attrs)


# ---------------------------------------------------------------------------- leaderboard
def _check_scores(scores: Any) -> tuple[list[str], np.ndarray]:
    if isinstance(scores, pd.Series):
        names, values = [str(i) for i in scores.index], scores.to_numpy()
    elif isinstance(scores, Mapping):
        names, values = [str(k) for k in scores], list(scores.values())
    elif isinstance(scores, (str, bytes)) or not isinstance(scores, Iterable):
        raise TypeError(
            "scores must be the accuracies in published order: a sequence, a mapping of "
            f"name -> accuracy or a pandas Series; got {type(scores).__name__}."
        )
    else:
        values = list(scores)
        names = [str(i) for i in range(1, len(values) + 1)]
    if any(isinstance(v, (bool, np.bool_, str, bytes)) for v in values):
        raise TypeError("scores: accuracies must be numbers between 0 and 1, not booleans or "
                        "strings.")
    try:
        acc = np.asarray(values, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise TypeError("scores: accuracies must be numbers between 0 and 1.") from None
    if acc.ndim != 1 or acc.size < 2:
        raise ValueError(f"scores: a leaderboard needs at least 2 entries, got {acc.size}.")
    if len(set(names)) != len(names):
        raise ValueError("Entry names must be unique.")
    bad = ~np.isfinite(acc) | (acc < 0) | (acc > 1)
    if bad.any():
        i = int(np.argmax(bad))
        hint = " (percentages? divide by 100)" if np.nanmax(acc) <= 100 and acc[i] > 1 else ""
        raise ValueError(
            f"scores: Accuracies must lie in [0, 1]; entry {names[i]!r} has {acc[i]}{hint}."
        )
    return names, acc


def _check_n(n: Any, size: int) -> np.ndarray:
    arr = np.asarray(n)
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise TypeError(f"n must be a positive integer (the test-set size), got {n!r}.")
    if arr.ndim > 1 or (arr.ndim == 1 and arr.size != size):
        raise ValueError(
            f"n must be one test-set size or one per entry ({size}), got shape {arr.shape}."
        )
    if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)) or np.any(arr < 1):
        raise ValueError(f"n must be a positive integer (the test-set size), got {n!r}.")
    return np.broadcast_to(arr.astype(np.int64), (size,))


def _check_prizes(prizes: Any, size: int) -> np.ndarray | None:
    if prizes is None:
        return None
    try:
        arr = np.asarray(prizes, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"prizes must be amounts for ranks 1, 2, ..., got {prizes!r}.") from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("prizes must be a non-empty list of amounts for ranks 1, 2, ....")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"prizes must be finite and non-negative, got {arr.tolist()}.")
    if arr.size > size:
        raise ValueError(f"There are {arr.size} prizes but only {size} entries.")
    return arr


def _check_positive_int(value: Any, name: str) -> int:
    return check_int(value, name, 1, kind="a positive integer")


def _leaderboard_prior(prior: Any) -> Beta:
    if isinstance(prior, Fixed):
        raise ValueError("The accuracy cannot be fixed; use a Beta prior such as 'laplace'.")
    p = resolve_prior(prior, "accuracy")
    if not isinstance(p, Beta):
        raise TypeError(
            f"leaderboard needs a Beta prior on the accuracy (a name or bcm.Beta), got {p!r}."
        )
    return p


@keyword_checked
def leaderboard(
    scores: Sequence[float] | Mapping[str, float] | pd.Series,
    n: int | Sequence[int],
    prizes: Sequence[float] | None = None,
    draws: int = 20_000,
    random_seed: int | np.random.Generator | None = None,
    *,
    prior: Any = "laplace",
    top: int = 10,
    chunk_size: int | None = None,
    threads: int | None = None,
) -> pd.DataFrame:
    """Probabilistic leaderboard from published accuracies and the test-set size (paper Fig. 5).

    A public leaderboard gives each entry's accuracy and (at best) the test-set size ``n``. The
    number of correct predictions is ``k = round(acc * n)`` and, with a ``Beta(a, b)`` prior,
    the accuracy's posterior is ``Beta(k + a, n - k + b)`` (paper Eq. 5). Each draw of all
    accuracies is a synthetic leaderboard; counting ranks gives P(rank), P(best) and the
    expected rank, and ``prizes`` weighted by the rank probabilities give each entry's
    expected prize.

    Draws are float32 Beta variates (ratios of Gamma variates) made and ranked in chunks, on
    several threads, each chunk with its own random stream spawned from ``random_seed`` (so the
    result does not depend on ``threads``). Ranking sorts packed (value, entry) integer keys.

    Parameters
    ----------
    scores : sequence of float, mapping of name -> float, or pandas Series
        Accuracies in [0, 1], in published order (best first on a usual leaderboard).
    n : int or sequence of int
        Test-set size (e.g. the private leaderboard's), or one per entry.
    prizes : sequence of float, optional
        Prize amounts for ranks 1, 2, ... (non-negative, at most one per entry).
    draws : int, default 20000
        Synthetic leaderboards.
    random_seed : int or numpy Generator, optional
        Same seed, same table.
    prior : str or Beta, default "laplace"
        Prior of each accuracy (``"jeffreys"``, ``bcm.Beta(a, b)``, ...).
    top : int, default 10
        Number of ``p_rank_<r>`` columns (capped at the number of entries).
    chunk_size : int, optional
        Draws per chunk; default about a million draws x entries.
    threads : int, optional
        Worker threads; default ``min(4, os.cpu_count())``.

    Returns
    -------
    pandas.DataFrame
        One row per entry in published order (index: the names, or 1, 2, ... for a sequence),
        columns ``published_rank, accuracy, correct, p_rank_1 .. p_rank_<top>, p_best,
        expected_rank`` and, with prizes, ``prize`` (as published, by position) and
        ``expected_prize`` (sum over ranks of P(rank) x prize; the column sums to the prize
        money).

    Raises
    ------
    ValueError
        Accuracies outside [0, 1], ``n`` not a positive integer, negative prizes or more prizes
        than entries, a Haldane prior with an accuracy of 0 or 1.

    See Also
    --------
    rank_probabilities : the same for a batch fitted from confusion matrices.

    Examples
    --------
    Three entries separated by a few tenths of a per cent on 15,123 test images:

    >>> from bayescm.comparisons.compare import leaderboard
    >>> table = leaderboard({"x": 0.9871, "y": 0.9856, "z": 0.9849}, n=15123,
    ...                     prizes=[10000, 2000, 1000], draws=4000, random_seed=0)
    >>> table["correct"].tolist(), table["p_best"].round(2).tolist()
    ([14928, 14905, 14895], [0.84, 0.11, 0.04])
    >>> round(float(table["expected_prize"].sum()))
    13000
    """
    names, acc = _check_scores(scores)
    size = acc.size
    n_arr = _check_n(n, size)
    prize_arr = _check_prizes(prizes, size)
    draws = _check_positive_int(draws, "draws")
    top = min(_check_positive_int(top, "top"), size)
    p = _leaderboard_prior(prior)
    check_time(float(draws) * size * 2, "This leaderboard", [
        "fewer draws (20,000 draws give P(rank) to about +-0.007)"], seconds_per_value=1e-8)
    correct = np.rint(acc * n_arr).astype(np.int64)
    a = correct + p.alpha
    b = n_arr - correct + p.beta
    if np.any(a <= 0) or np.any(b <= 0):
        i = int(np.argmax((a <= 0) | (b <= 0)))
        raise ValueError(
            f"The {p.name} prior gives an improper posterior for entry {names[i]!r} (accuracy "
            f"{acc[i]}, {correct[i]} of {n_arr[i]} correct); use prior='laplace' or 'jeffreys'."
        )
    max_rank = max(top, 0 if prize_arr is None else prize_arr.size)
    step = _check_chunk(chunk_size, size)
    n_threads = min(4, os.cpu_count() or 1) if threads is None else _check_positive_int(
        threads, "threads")
    sizes = [min(step, draws - lo) for lo in range(0, draws, step)]
    seq = seed_sequence(random_seed)
    seeds = [child(seq, i) for i in range(len(sizes))]
    a32, b32 = a.astype(np.float32), b.astype(np.float32)

    def run(job: tuple[int, np.random.SeedSequence]) -> _RankCounter:
        m, seed = job
        rng = np.random.default_rng(seed)
        g_a = rng.standard_gamma(a32, size=(m, size), dtype=np.float32)
        g_b = rng.standard_gamma(b32, size=(m, size), dtype=np.float32)
        g_b += g_a
        np.divide(g_a, g_b, out=g_a)
        counter = _RankCounter(size, max_rank)
        counter.add(*_sort_float32_packed(g_a, non_negative=True))
        return counter

    jobs = list(zip(sizes, seeds, strict=True))
    if n_threads > 1 and len(jobs) > 1:
        with ThreadPoolExecutor(n_threads) as pool:
            parts = list(pool.map(run, jobs))
    else:
        parts = [run(job) for job in jobs]
    total = parts[0]
    for part in parts[1:]:
        total.merge(part)
    prob, expected = total.result()

    table = pd.DataFrame(
        {"published_rank": np.arange(1, size + 1), "accuracy": acc, "correct": correct},
        index=pd.Index(names, name="entry"),
    )
    for j in range(top):
        table[f"p_rank_{j + 1}"] = prob[:, j]
    table["p_best"] = prob[:, 0]
    table["expected_rank"] = expected
    if prize_arr is not None:
        published = np.zeros(size)
        published[: prize_arr.size] = prize_arr
        table["prize"] = published
        table["expected_prize"] = prob[:, : prize_arr.size] @ prize_arr
    table.attrs.update({"n": n_arr.tolist() if np.ndim(n) else int(n_arr[0]), "draws": draws,
                        "prior": p.to_dict(), "tie_rule": _TIE_RULE})
    return table
