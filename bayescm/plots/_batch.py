"""Plots across classifiers: rank probabilities (Fig. 5) and a paired difference."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import xarray as xr

from bayescm.core import container as box
from bayescm.core.stats import hdi
from bayescm.metrics import metric_info
from bayescm.plots._checks import PAIRED, plot_function
from bayescm.plots._common import (
    bounded_kde,
    draws_of,
    format_interval,
    format_width,
    hdi_prob_of,
    info_of,
    label_of,
    percent,
    percent_axis,
    reference_line,
    unit_suffix,
)
from bayescm.plots._layout import fit_rows, new_axes, quantity
from bayescm.plots._legends import legend_under
from bayescm.plots._style import BLUE, GREY, MIN_FONT, probability_is, pt

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_paired", "plot_rank_probabilities"]


MAX_ROWS = 50
"""Most classifiers a rank heatmap draws; a larger batch shows its best and worst halves."""

MAX_RANKS = 20
"""Most rank columns drawn when ``top`` is not given (the first and last halves of a full
table; the first ranks of a table cut with ``max_rank``)."""


def _ranked_by(ranks: Any) -> tuple[str, str]:
    """The metric ranked by (display name) and the order of the table's rows."""
    if isinstance(ranks, pd.DataFrame):
        metric = "accuracy" if "accuracy" in ranks else str(ranks.attrs.get("metric", ""))
        order = "published order" if "published_rank" in ranks else "order of the table"
    else:
        metric, order = str(ranks.attrs.get("metric", "")), "order of the fit"
    return (metric_info(metric, None).display_name if metric else ""), order


def _rank_table(ranks: Any, top: int | None
                ) -> tuple[list[str], np.ndarray, np.ndarray | None, np.ndarray]:
    """Names, P(rank) matrix (classifier x rank), expected prizes and expected ranks."""
    if isinstance(ranks, pd.DataFrame):
        cols = [c for c in ranks.columns if str(c).startswith("p_rank_")]
        if not cols:
            raise ValueError("The table has no p_rank_<k> columns; pass bcm.leaderboard's result.")
        probs = ranks[cols].to_numpy(dtype=float)
        prizes = (ranks["expected_prize"].to_numpy(dtype=float)
                  if "expected_prize" in ranks else None)
        names = [str(v) for v in ranks.index]
        given = (ranks["expected_rank"].to_numpy(dtype=float) if "expected_rank" in ranks
                 else None)
    elif isinstance(ranks, xr.Dataset) and "rank_probability" in ranks:
        rp = ranks["rank_probability"].transpose("classifier", "rank")
        probs = np.asarray(rp.values, dtype=float)
        names = [str(v) for v in rp["classifier"].values]
        prizes = None
        given = (np.asarray(ranks["expected_rank"].transpose("classifier").values, dtype=float)
                 if "expected_rank" in ranks else None)
    else:
        raise TypeError("Pass the Dataset of bcm.rank_probabilities or the DataFrame of "
                        f"bcm.leaderboard, not {type(ranks).__name__}.")
    if given is None:  # from the ranks shown; mass beyond them counts as the next rank
        positions = np.arange(1, probs.shape[1] + 1)
        given = probs @ positions + (1 - probs.sum(axis=1)) * (probs.shape[1] + 1)
    if top is not None:
        probs = probs[:, :top]
    return names, probs, prizes, given


def _keep(n: int, limit: int | None, key: np.ndarray | None = None, both_ends: bool = True
          ) -> tuple[np.ndarray, tuple[int, np.ndarray] | None]:
    """Indices to draw (of ``n``, ordered by ``key`` when cut) and the gap: (where, hidden)."""
    if limit is None or n <= limit:
        return np.arange(n), None
    order = np.arange(n) if key is None else np.argsort(key, kind="stable")
    if not both_ends:
        return order[:limit], None
    half = limit // 2
    return np.concatenate([order[:half], order[n - half:]]), (half, order[half:n - half])


def _positions(count: int, gap: tuple[int, np.ndarray] | None) -> np.ndarray:
    """Display positions of ``count`` drawn entries, leaving one free slot at the gap."""
    at = np.arange(count)
    return at if gap is None else at + (at >= gap[0])


@plot_function()
def plot_rank_probabilities(
    ranks: Any, ax: Axes | None = None, prizes: Any = None, top: int | None = None, *,
    max_rows: int | None = MAX_ROWS, figsize: tuple[float, float] | None = None,
) -> Axes:
    """Heatmap of P(rank) for every classifier: a probabilistic leaderboard (paper Fig. 5).

    Parameters
    ----------
    ranks : xarray.Dataset or pandas.DataFrame
        :func:`bayescm.rank_probabilities` (``rank_probability``: classifier x rank) or
        :func:`bayescm.leaderboard` (``p_rank_<k>`` columns, ``expected_prize`` if prizes).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    prizes : sequence of float, optional
        Prize for rank 1, 2, ...; the expected prize of each classifier,
        ``sum_r P(rank r) * prize_r``, is written beside its row.
    top : int, optional
        Show only the first ``top`` ranks. By default every rank up to 20; of a longer table
        the first 10 and, when the table holds every rank, the last 10, with a blank column
        between them (the axis label says which are left out).
    max_rows : int or None, default 50
        Most classifiers drawn. A larger batch shows the ``max_rows // 2`` best and the
        ``max_rows // 2`` worst by expected rank, best at the top, with a blank row between
        them saying how many are not shown; the title says so. ``None`` draws every row (in
        the table's order, as for a batch within the limit).
    figsize : tuple of float, optional
        Size of a new figure in inches, e.g. (3.5, 2.6) for a journal column (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on: ``ax`` when given, else those of a new figure (``ax.figure`` to save
        it).

    Raises
    ------
    ValueError
        ``max_rows`` below 2, or ``prizes`` that are negative or more than the ranks shown.

    See Also
    --------
    bayescm.rank_probabilities : Computes the probabilities this draws.
    bayescm.leaderboard : The same from a published list of accuracies.
    plot_forest : The metric's intervals of every classifier.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_rank_probabilities
    >>> board = bcm.leaderboard({"a": 0.91, "b": 0.90, "c": 0.89}, n=1000, random_seed=0)
    >>> ax = plot_rank_probabilities(board, prizes=[100, 50, 10])
    >>> ax.get_xlabel()
    'rank'

    A leaderboard of 400 entries shows its best and worst 25:

    >>> import numpy as np
    >>> scores = dict(zip([f"e{i}" for i in range(400)], np.linspace(0.95, 0.75, 400)))
    >>> ax = plot_rank_probabilities(bcm.leaderboard(scores, n=2000, draws=2000,
    ...                                              random_seed=0))
    >>> ax.get_title().splitlines()[1]
    'the best and worst 25 of 400 by expected rank'
    >>> [t.get_text() for t in ax.texts if t.get_gid() == "not_shown"]  # doctest: +MC
    ['... 350 classifiers not shown (expected ranks 27 to 373)']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    if max_rows is not None and (isinstance(max_rows, bool) or not isinstance(max_rows, int)
                                 or max_rows < 2):
        raise ValueError(f"max_rows must be an integer >= 2 or None, got {max_rows!r}.")
    names, probs, expected, exp_rank = _rank_table(ranks, top)
    if prizes is not None:
        prize = np.asarray(prizes, dtype=float)
        if prize.ndim != 1 or np.any(~np.isfinite(prize)) or np.any(prize < 0):
            raise ValueError(f"prizes must be non-negative numbers, one per rank: {prizes!r}.")
        if prize.size > probs.shape[1]:
            raise ValueError(f"{prize.size} prizes but only {probs.shape[1]} ranks are shown.")
        expected = probs[:, : prize.size] @ prize
    n_cls, n_rank = probs.shape
    rows, row_gap = _keep(n_cls, max_rows, exp_rank)
    full = top is None and n_rank == n_cls  # every rank: show the first and the last
    cols, col_gap = _keep(n_rank, None if top is not None else MAX_RANKS, both_ends=full)
    y, x = _positions(rows.size, row_gap), _positions(cols.size, col_gap)
    shown = np.full((rows.size + (row_gap is not None), cols.size + (col_gap is not None)),
                    np.nan)
    shown[np.ix_(y, x)] = probs[np.ix_(rows, cols)]
    own = ax is None and figsize is None  # a figure of ours: it may grow to fit the rows
    ax = new_axes(ax, figsize, default=(1.5 + 0.45 * shown.shape[1], 1.2 + 0.35 * shown.shape[0]))
    top_p = float(np.nanmax(shown)) if np.isfinite(shown).any() else 1.0
    vmax = 100.0 * top_p  # the colours span the data: the most likely cell is the darkest
    image = ax.imshow(100 * shown, cmap="Blues", vmin=0, vmax=vmax, aspect="auto",
                      gid="rank_probability")
    for (i, j), p in np.ndenumerate(probs[np.ix_(rows, cols)]):
        if p >= 0.005:
            ax.text(float(x[j]), float(y[i]), f"{100 * p:.0f}", ha="center", va="center",
                    fontsize=pt(MIN_FONT), color="white" if 100 * p > 0.6 * vmax else "black")
    ticks = [str(r + 1) for r in cols]
    xlabel = "rank"
    if col_gap is not None:
        ticks.insert(col_gap[0], "...")
        xlabel += (f" (ranks {col_gap[0] + 1:,} to {n_rank - col_gap[0]:,} not shown)")
    elif cols.size < n_rank:
        xlabel += f" (the first {cols.size} of {n_rank:,} shown; top= shows more)"
    ax.set_xticks(range(shown.shape[1]), ticks)
    labels = [names[i] for i in rows]
    if row_gap is not None:
        labels.insert(row_gap[0], "")
    ax.set_yticks(range(shown.shape[0]), labels)
    ax.set_xlabel(xlabel)
    metric, order = _ranked_by(ranks)
    ax.set_ylabel(f"classifier ({order})" if row_gap is None else
                  "classifier (by expected rank)")
    ax.figure.colorbar(image, ax=ax, label="P(rank) (%)", shrink=0.8)
    if expected is not None:
        for row, at in zip(rows, y, strict=True):
            ax.annotate(f"{expected[row]:,.0f}", xy=(1.0, float(at)),
                        xycoords=("axes fraction", "data"), xytext=(4, 0),
                        textcoords="offset points", va="center", fontsize=pt(8),
                        gid=f"expected_prize:{names[row]}")
        ax.annotate("expected\nprize", xy=(1.0, 1.0), xycoords="axes fraction",
                    xytext=(4, 2), textcoords="offset points", va="bottom", fontsize=pt(MIN_FONT))
    title = f"P(rank by {metric}) in %" if metric else "P(rank) in %"
    if row_gap is not None:
        at, hidden = row_gap
        title += f"\nthe best and worst {at} of {n_cls:,} by expected rank"
        ax.text(0.5, at, f"... {hidden.size:,} classifiers not shown (expected ranks "
                f"{exp_rank[hidden].min():,.0f} to {exp_rank[hidden].max():,.0f})",
                transform=ax.get_yaxis_transform(), ha="center", va="center", fontsize=pt(8),
                style="italic", gid="not_shown")
    # above the prize column's two-line header, which may reach under a long title
    ax.set_title(title, pad=30 if expected is not None else 6, fontsize=pt(11))
    if own:
        fit_rows(ax, shown.shape[0])
    return ax


@plot_function(PAIRED)
def plot_paired(result: xr.DataTree, metric: str = "acc", ax: Axes | None = None,
                rope: float | None = None, hdi_prob: float | None = None, *,
                figsize: tuple[float, float] | None = None) -> Axes:
    """Posterior of the difference A - B of one metric from :func:`bayescm.compare_paired`.

    Shades the HDI of the difference, draws the region of practical equivalence (ROPE) as a
    band around 0 and writes P(A better), P(within ROPE), P(B better).

    Parameters
    ----------
    result : xarray.DataTree
        A result of :func:`bayescm.compare_paired` (``<metric>_diff`` in its posterior).
    metric : str, default "acc"
        The metric whose difference to draw.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    rope : float, optional
        Half-width of the ROPE; default the one of the comparison.
    hdi_prob : float, optional
        HDI probability; default the result's, else ``rcParams["stats.hdi_prob"]``.
    figsize : tuple of float, optional
        Size of a new figure in inches, e.g. (3.5, 2.6) for a journal column (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on: ``ax`` when given, else those of a new figure (``ax.figure`` to save
        it).

    Raises
    ------
    KeyError
        A metric the comparison does not hold.
    ValueError
        A negative or non-finite ``rope``.

    See Also
    --------
    bayescm.compare_paired : Makes the comparison this draws.
    bayescm.comparison_table : The same numbers as a table.
    plot_metric : The posterior of one classifier's metric.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_paired
    >>> res = bcm.compare.compare_paired_counts(700, 60, 20, 220, rope=0.01, random_seed=0)
    >>> ax = plot_paired(res, "acc")
    >>> ax.get_title()
    'Accuracy: A - B'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    box.check_tree(result)
    post = box.get_group(result, "posterior")
    var = f"{metric}_diff"
    if var not in post:
        have = [str(v)[:-5] for v in post.data_vars if str(v).endswith("_diff")]
        raise KeyError(f"The comparison has no {var!r}; metrics compared: {', '.join(have)}.")
    name, da = draws_of(result, var, "posterior")
    x = np.asarray(da.values, dtype=float).reshape(-1)
    x = x[np.isfinite(x)]
    info = info_of(result, name, da)
    prob = hdi_prob_of(result, hdi_prob)
    comp = box.get_group(result, "comparison") if box.has_group(result, "comparison") else None
    if rope is None:
        rope = float(comp["rope"].sel(metric=metric)) if comp is not None else 0.0
    if rope < 0 or not np.isfinite(rope):
        raise ValueError(f"rope must be a finite number >= 0, got {rope}.")
    # "better" follows the metric's direction: for error rates a smaller value is better
    higher_better = comp is None or float(comp["higher_is_better"].sel(metric=metric)) != 0.0
    sign = 1.0 if higher_better else -1.0
    own = ax is None and figsize is None  # a figure of ours: it may grow for its legend
    ax = new_axes(ax, figsize, default=(6.5, 3.2))
    grid, dens = bounded_kde(x, info.lower, info.upper)
    ax.plot(grid, dens, color=BLUE, lw=2, gid="posterior", label="posterior of A - B")
    lo, hi = hdi(x, prob)
    inside = (grid >= lo) & (grid <= hi)
    ax.fill_between(grid[inside], 0, dens[inside], color=BLUE, alpha=0.3, lw=0, gid="hdi",
                    label=format_interval(lo, hi, info, prob, points=percent(info)))
    if rope > 0:
        ax.axvspan(-rope, rope, color="0.5", alpha=0.2, gid="rope",
                   label=f"ROPE ±{format_width(rope, info)}")
    reference_line(ax, info)
    p_a = float(np.mean(sign * x > rope))
    p_b = float(np.mean(sign * x < -rope))
    # the probabilities close the legend, beside the axes: clear of the ROPE band and the data
    for text in (probability_is("P(A better)", p_a),
                 probability_is("P(within ROPE)", max(0.0, 1 - p_a - p_b)),
                 probability_is("P(B better)", p_b)):
        ax.plot([], [], " ", color=GREY, label=text, gid="probabilities")
    percent_axis(ax.xaxis, info, points=True)
    quantity(ax, info_of(result, metric), "difference")
    ax.set_xlabel(f"{label_of(da, name, result)}" + unit_suffix(info, points=True))
    ax.set_ylabel("density")
    ax.set_yticks([])
    ax.set_ylim(bottom=0)
    ax.set_title(f"{info_of(result, metric).display_name}: A - B")
    fig = ax.get_figure(root=True)
    assert fig is not None  # drawn on a figure
    spec = ax.get_subplotspec()
    slot = (spec.get_position(fig).width if spec is not None else 1.0) * float(
        fig.get_size_inches()[0])
    if slot >= 4.8:  # beside the axes, clear of the ROPE band and the data
        ax.legend(fontsize=pt(MIN_FONT), frameon=False, loc="upper left",
                  bbox_to_anchor=(1.01, 1.0))
    else:  # a narrow panel (a grid, a journal column): under it, leaving it its width
        legend_under(ax, ncols=2)
        if own:  # the density keeps the height of a few lines of text
            fit_rows(ax, 6)
    ax.spines[["top", "right", "left"]].set_visible(False)
    return ax
