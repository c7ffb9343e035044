"""Plots across classifiers: rank probabilities (Fig. 5) and a paired difference."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
import xarray as xr

from bayescm.core import container as box
from bayescm.core.stats import hdi
from bayescm.core.validate import keyword_checked
from bayescm.plots._common import (
    bounded_kde,
    draws_of,
    format_value,
    format_width,
    hdi_prob_of,
    info_of,
    label_of,
    new_axes,
    percent_axis,
    unit_suffix,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_paired", "plot_rank_probabilities"]


def _rank_table(ranks: Any, top: int | None) -> tuple[list[str], np.ndarray, np.ndarray | None]:
    """Names, P(rank) matrix (classifier x rank) and expected prizes, from either input."""
    if isinstance(ranks, pd.DataFrame):
        cols = [c for c in ranks.columns if str(c).startswith("p_rank_")]
        if not cols:
            raise ValueError("The table has no p_rank_<k> columns; pass bcm.leaderboard's result.")
        probs = ranks[cols].to_numpy(dtype=float)
        prizes = (ranks["expected_prize"].to_numpy(dtype=float)
                  if "expected_prize" in ranks else None)
        names = [str(v) for v in ranks.index]
    elif isinstance(ranks, xr.Dataset) and "rank_probability" in ranks:
        rp = ranks["rank_probability"].transpose("classifier", "rank")
        probs = np.asarray(rp.values, dtype=float)
        names = [str(v) for v in rp["classifier"].values]
        prizes = None
    else:
        raise TypeError("Pass the Dataset of bcm.rank_probabilities or the DataFrame of "
                        f"bcm.leaderboard, not {type(ranks).__name__}.")
    if top is not None:
        probs = probs[:, :top]
    return names, probs, prizes


@keyword_checked
def plot_rank_probabilities(
    ranks: Any, ax: Axes | None = None, prizes: Any = None, top: int | None = None
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
        Show only the first ``top`` ranks.

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_rank_probabilities
    >>> board = bcm.leaderboard({"a": 0.91, "b": 0.90, "c": 0.89}, n=1000, random_seed=0)
    >>> ax = plot_rank_probabilities(board, prizes=[100, 50, 10])
    >>> ax.get_xlabel()
    'rank'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    names, probs, expected = _rank_table(ranks, top)
    if prizes is not None:
        prize = np.asarray(prizes, dtype=float)
        if prize.ndim != 1 or np.any(~np.isfinite(prize)) or np.any(prize < 0):
            raise ValueError(f"prizes must be non-negative numbers, one per rank: {prizes!r}.")
        if prize.size > probs.shape[1]:
            raise ValueError(f"{prize.size} prizes but only {probs.shape[1]} ranks are shown.")
        expected = probs[:, : prize.size] @ prize
    ax = new_axes(ax, figsize=(1.5 + 0.45 * probs.shape[1], 1.2 + 0.35 * len(names)))
    image = ax.imshow(100 * probs, cmap="Blues", vmin=0, vmax=100, aspect="auto",
                      gid="rank_probability")
    for (i, j), p in np.ndenumerate(probs):
        if p >= 0.005:
            ax.text(j, i, f"{100 * p:.0f}", ha="center", va="center", fontsize=7,
                    color="white" if p > 0.6 else "black")
    ax.set_xticks(range(probs.shape[1]), [str(r + 1) for r in range(probs.shape[1])])
    ax.set_yticks(range(len(names)), names)
    ax.set_xlabel("rank")
    ax.set_ylabel("classifier (published order)")
    ax.figure.colorbar(image, ax=ax, label="P(rank) (%)", shrink=0.8)
    if expected is not None:
        for i, value in enumerate(expected):
            ax.annotate(f"{value:,.0f}", xy=(1.0, i), xycoords=("axes fraction", "data"),
                        xytext=(4, 0), textcoords="offset points", va="center", fontsize=8,
                        gid=f"expected_prize:{names[i]}")
        ax.annotate("expected\nprize", xy=(1.0, 1.0), xycoords="axes fraction",
                    xytext=(4, 2), textcoords="offset points", va="bottom", fontsize=8)
    ax.set_title("Probabilistic leaderboard: P(rank) in %", pad=22)
    return ax


@keyword_checked
def plot_paired(result: xr.DataTree, metric: str = "acc", ax: Axes | None = None,
                rope: float | None = None, hdi_prob: float | None = None) -> Axes:
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

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_paired
    >>> res = bcm.compare_paired_counts(700, 60, 20, 220, rope=0.01, random_seed=0)
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
    ax = new_axes(ax)
    grid, dens = bounded_kde(x, info.lower, info.upper)
    ax.plot(grid, dens, color="C0", lw=2, gid="posterior")
    lo, hi = hdi(x, prob)
    inside = (grid >= lo) & (grid <= hi)
    ax.fill_between(grid[inside], 0, dens[inside], color="C0", alpha=0.3, lw=0, gid="hdi",
                    label=f"{100 * prob:g} % HDI [{format_value(lo, info)}, "
                          f"{format_value(hi, info)}]")
    if rope > 0:
        ax.axvspan(-rope, rope, color="0.5", alpha=0.2, gid="rope",
                   label=f"ROPE ±{format_width(rope, info)}")
    ax.axvline(0.0, color="0.3", lw=1, ls=":")
    p_a = float(np.mean(sign * x > rope))
    p_b = float(np.mean(sign * x < -rope))
    text = (f"P(A better) = {p_a:.1%}\nP(within ROPE) = {1 - p_a - p_b:.1%}\n"
            f"P(B better) = {p_b:.1%}")
    ax.text(0.02, 0.97, text, transform=ax.transAxes, va="top", fontsize=8, gid="probabilities")
    percent_axis(ax.xaxis, info, points=True)
    ax.set_xlabel(f"{label_of(da, name)}" + unit_suffix(info, points=True))
    ax.set_ylabel("density")
    ax.set_yticks([])
    ax.set_ylim(bottom=0)
    ax.set_title(f"{info_of(result, metric).display_name}: A - B")
    ax.legend(fontsize=8, frameon=False, loc="upper right")
    ax.spines[["top", "right", "left"]].set_visible(False)
    return ax
