"""The engine of :func:`bayescm.summarize_batch`: one chunk of classifiers, drawn and summarised.

A chunk draws from its own random stream, the child ``(seed, chunk index)`` of the batch's seed,
one block of a few dozen classifiers after the other: the block's posterior is drawn exactly
(conjugate priors), its metrics derived, its draws laid out one series per row (float32 for
proportions and chance-corrected metrics, whose summaries need no more than 7 digits; float64
for ratios and custom metrics) and summarised row-wise
(:func:`bayescm.core.stats.moments_rhat_ess_rows`, :func:`bayescm.core.stats.hdi_rows`), then
dropped. :class:`Plan` carries what a chunk needs and pickles, so the same function runs in
this process (:mod:`bayescm.analyses.batch`) and as a dask task
(:mod:`bayescm.analyses.batch_dask`), with the same numbers.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from bayescm.core.moments import moments_rhat_ess_rows
from bayescm.core.stats import hdi_rows
from bayescm.core.streams import child
from bayescm.core.workspace import roomy_heap
from bayescm.metrics.metric import Metric
from bayescm.metrics.multiclass import undefined_classes
from bayescm.models.pipeline import observed_derived

__all__ = ["COLUMNS", "FLOAT32_MAX_ITEMS", "OPERATORS", "Plan", "Progress", "summarize_chunk"]

FLOAT32_MAX_ITEMS = 2**17
"""The most items a matrix may hold for float32 summaries: a proportion's posterior sd is at
least about 1 / N, and float32 resolves 6e-8 near 1, so beyond ~130,000 items the sd, the HDI
and MU of a near-perfect rate would lose their digits (``[[1e9, 1], [1, 1e9]]`` gave an sd of
0 in float32); such batches are summarised in float64."""
COLUMNS = ["observed", "mean", "sd", "hdi_lower", "hdi_upper", "mu", "r_hat", "ess_mean"]
"""The columns of :func:`bayescm.summary`, first in every table."""
OPERATORS: dict[str, Callable[[np.ndarray, float], np.ndarray]] = {
    "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}
"""The comparisons a ``probabilities`` column can make."""


@dataclass(frozen=True)
class Plan:
    """Everything a chunk needs to summarise its classifiers (it pickles, for dask workers).

    ``rows`` lists the variables as ``(name, width, offset, wide)``: ``width`` rows per
    classifier (classes), starting at ``offset`` in a classifier's rows; ``wide`` variables
    (ratios, custom metrics) are summarised in float64, the others in float32. ``tests`` are
    the probability columns as ``(variable, operator, value)``. ``rows_first``: the kind's
    ``derive`` is elementwise, so the parameters are laid out classifier-major before it and
    every variable comes out one series per row (no transposition of each variable).
    ``relations`` ``(y, x, a, b)``: float32 variables that are exact affine images
    ``y = a + b x`` of an earlier one (FNR = 1 - TPR); checked on every draw, they take their
    summaries from ``x``'s.
    """

    kind: Any
    priors: Mapping[str, Any]
    selected: tuple[Metric, ...]
    chains: int
    draws: int
    prob: float
    seq: np.random.SeedSequence
    chunk_size: int
    block: int
    rows: tuple[tuple[str, int, int, bool], ...]
    tests: tuple[tuple[str, str, float], ...]
    rows_first: bool = False
    relations: tuple[tuple[str, str, float, float], ...] = ()
    dtype: Any = np.float32
    """The table's and the proportions' precision: float32 (7 digits) unless a matrix holds so
    many items that posterior spreads fall below float32's resolution (see
    :data:`FLOAT32_MAX_ITEMS`), then float64."""

    @property
    def n_rows(self) -> int:
        """Rows (variables and their classes) per classifier."""
        return sum(width for _, width, _, _ in self.rows)

    @property
    def n_columns(self) -> int:
        """Columns of the table: the summary's and one per probability."""
        return len(COLUMNS) + len(self.tests)


def summarize_chunk(plan: Plan, counts: np.ndarray, names: Sequence[str], index: int,
                    out: np.ndarray | None = None,
                    progress: Callable[[int], None] | None = None) -> np.ndarray:
    """Summaries ``(classifiers, rows, columns)`` (``plan.dtype``) of chunk ``index`` of a batch.

    The chunk draws from the child ``(seed, index)`` of the plan's seed, a block of
    ``plan.block`` classifiers after the other, so its numbers depend only on the seed, the
    chunk's position and its counts. ``out`` receives the table if given; ``progress`` is
    called with the number of classifiers done after each block.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.analyses.batch import prepare
    >>> counts = bcm.analyses.simulate_counts(50, size=3, random_seed=0)
    >>> batch = prepare(counts, ["bm"], labels=["p", "n"], positive="p", draws=200,
    ...                 random_seed=1)
    >>> summarize_chunk(batch.plan, batch.counts, batch.names, 0).shape  # classifiers, rows
    (3, 4, 8)
    """
    m = counts.shape[0]
    shape = (m, plan.n_rows, plan.n_columns)
    if out is None:
        out = np.empty(shape, dtype=plan.dtype)
    elif out.shape != shape:  # pragma: no cover - internal misuse
        raise ValueError(f"out has shape {out.shape}, expected {shape}.")
    roomy_heap()
    kind, priors, selected = plan.kind, plan.priors, list(plan.selected)
    observed = observed_derived(kind, counts, priors, selected)
    for name, width, offset, _ in plan.rows:
        out[:, offset:offset + width, 0] = np.asarray(observed[name][1], dtype=float).reshape(
            m, width)
    rng = np.random.default_rng(child(plan.seq, index))
    chains, draws = plan.chains, plan.draws
    narrow = [r for r in plan.rows if not r[3]]
    wide = [r for r in plan.rows if r[3]]
    for a in range(0, m, plan.block):
        b = min(plan.block, m - a)
        part = counts[a:a + b]
        params = kind.exact_posterior(part, priors, rng, chains, draws, list(names[a:a + b]))
        if plan.rows_first:  # (chains, draws, b) -> (b, chains, draws): the same numbers
            params = {k: np.ascontiguousarray(np.moveaxis(v, 2, 0)) for k, v in params.items()}
        derived = kind.derive(params, priors, selected, skip=undefined_classes(part))
        for group, dtype in ((narrow, plan.dtype), (wide, np.float64)):
            if group:
                _summarize_block(plan, derived, group, dtype, b, out[a:a + b])
        if progress is not None:
            progress(b)
    return out


def _summarize_block(plan: Plan, derived: Mapping[str, tuple[Any, np.ndarray]],
                     group: list[tuple[str, int, int, bool]], dtype: Any, b: int,
                     out: np.ndarray) -> None:
    """Lay a block's draws out one series per row, summarise the rows, write ``out``.

    Variables related to an earlier one (``plan.relations``) come last in the series; the
    rows where the relation holds on every draw are not summarised themselves.
    """
    chains, draws = plan.chains, plan.draws
    names = {name for name, _, _, _ in group}
    related = {y: (x, a, slope) for y, x, a, slope in plan.relations
               if dtype == np.float32 and y in names and x in names}
    order = [r for r in group if r[0] not in related] + [r for r in group if r[0] in related]
    total = sum(width for _, width, _, _ in group) * b
    series = np.empty((total, chains * draws), dtype=dtype)
    span: dict[str, tuple[int, int]] = {}  # the rows of each variable in `series`
    at = 0
    for name, width, _, _ in order:
        values = derived[name][1]
        if plan.rows_first:  # (b, chains, draws, *classes)
            rows = values.reshape(b, chains * draws, width).transpose(0, 2, 1).reshape(
                b * width, chains * draws)
        else:  # (chains, draws, b, *classes)
            rows = values.reshape(chains * draws, b * width).T
        series[at:at + b * width] = rows
        span[name] = (at, at + b * width)
        at += b * width
    base = total - sum(span[y][1] - span[y][0] for y in related)
    source = np.arange(total)  # the row whose summaries each row takes
    affine = np.zeros((total, 2))
    affine[:, 1] = 1.0
    tol = 16 * float(np.finfo(np.float32).eps)
    for y, (x, a, slope) in related.items():
        (y0, y1), (x0, x1) = span[y], span[x]
        xs, ys = series[x0:x1], series[y0:y1]
        with np.errstate(invalid="ignore", over="ignore"):
            t = ys + xs if slope == -1 else (ys - xs if slope == 1 else ys - slope * xs)
            bound = tol * (1 + abs(a) + abs(slope))
            holds = (t.max(axis=1) - a <= bound) & (a - t.min(axis=1) <= bound)  # not NaN
        source[y0:y1] = np.where(holds, np.arange(x0, x1), np.arange(y0, y1))
        affine[y0:y1] = np.where(holds[:, None], [a, slope], [0.0, 1.0])
    own = np.flatnonzero(source == np.arange(total))  # rows summarised themselves
    stats = np.full((total, plan.n_columns - 1), np.nan)
    for col, (var, op, value) in enumerate(plan.tests, start=7):
        if var in span:
            lo, hi = span[var]
            with np.errstate(invalid="ignore"):  # NaN draws count as outside, as in probability
                hits = np.count_nonzero(OPERATORS[op](series[lo:hi], value), axis=1)
            stats[lo:hi, col] = hits / series.shape[1]
    passes: list[Any] = [slice(0, base)]  # a view of the base rows
    if own[-1] >= base:  # related rows where the relation fails somewhere: a copy of them
        passes.append(own[own >= base])
    for which in passes:
        _summarize_rows(plan, series[which],
                        stats[which] if isinstance(which, slice) else None, stats, which)
    derived_rows = np.flatnonzero(source != np.arange(total))
    if derived_rows.size:  # y = a + b x: mean a + b mean_x, sd |b| sd_x, the HDI mapped
        src = source[derived_rows]
        a, slope = affine[derived_rows, 0], affine[derived_rows, 1]
        stats[derived_rows, 0] = a + slope * stats[src, 0]
        stats[derived_rows, 1] = np.abs(slope) * stats[src, 1]
        ends = a[:, None] + slope[:, None] * stats[src, 2:4]
        stats[derived_rows, 2], stats[derived_rows, 3] = ends.min(axis=1), ends.max(axis=1)
        stats[derived_rows, 4] = stats[derived_rows, 3] - stats[derived_rows, 2]
        stats[derived_rows, 5:7] = stats[src, 5:7]
    with np.errstate(over="ignore"):  # a ratio beyond float32's range is inf in the table
        for name, width, offset, _ in group:
            lo, hi = span[name]
            out[:, offset:offset + width, 1:] = stats[lo:hi].reshape(b, width, -1)


def _summarize_rows(plan: Plan, series: np.ndarray, view: np.ndarray | None,
                    stats: np.ndarray, rows: Any) -> None:
    """Mean, sd, HDI, R-hat and ESS of ``series`` (overwritten) into ``stats[rows]``."""
    total = series.shape[0]
    # the interval of float64 rows (ratios) on their float32 values: the table keeps float32
    # (a bound beyond float32's range is inf either way), at half the cost. NaN is looked
    # for below, in the moments' pass.
    with np.errstate(over="ignore"):
        narrow = series.astype(plan.dtype, copy=False)
    bounds = hdi_rows(narrow, plan.prob, nan_rows=np.zeros(total, dtype=bool))
    # the split chains are centred in place (no second buffer of the block's size), except
    # in a pass of rows with a non-finite draw, which keep their draws
    moments = moments_rhat_ess_rows(series.reshape(total, plan.chains, plan.draws),
                                    overwrite=True)
    odd = ~np.isfinite(moments[0])  # NaN (or infinities) somewhere in the row: kept as drawn
    if odd.any():
        bounds[odd] = hdi_rows(narrow[odd], plan.prob)
    part = np.column_stack([moments[0], moments[1], bounds, bounds[:, 1] - bounds[:, 0],
                            moments[2], moments[3]])
    if view is not None:
        view[:, :7] = part
    else:
        stats[rows, :7] = part


class Progress:
    """A one-line progress bar on stderr (nothing when ``show`` is false)."""

    def __init__(self, total: int, show: bool, what: str = "classifiers") -> None:
        import time

        self.total, self.show, self.what, self.done = total, show, what, 0
        self._clock = time.monotonic
        self.start = self._last = self._clock()

    def update(self, n: int) -> None:
        """``n`` more items done."""
        self.done += n
        if not self.show:
            return
        now = self._clock()
        if now - self._last < 0.25 and self.done < self.total:
            return
        self._last = now
        frac = self.done / max(self.total, 1)
        elapsed = now - self.start
        left = elapsed / frac - elapsed if frac > 0 else float("nan")
        bar = "#" * int(30 * frac) + "-" * (30 - int(30 * frac))
        print(f"\rbayescm: |{bar}| {frac:4.0%} {self.done:,}/{self.total:,} {self.what}, "
              f"{elapsed:.0f} s, ~{left:.0f} s left ", end="", file=sys.stderr, flush=True)

    def close(self) -> None:
        """End the line."""
        if self.show:
            print(file=sys.stderr, flush=True)
