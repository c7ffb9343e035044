"""Figures of an item-level evaluation: accuracies beside the naive intervals, differences, pass@k.

* :func:`plot_items_accuracy`: one row per system, the items model's HDI of the accuracy on a
  new item, the CR1 cluster-robust interval and the naive Beta interval (every attempt
  independent) stacked under it, the observed accuracy as a point: where attempts or items are
  alike, the naive interval is visibly too narrow;
* :func:`plot_items_differences`: one row per pair, the HDI of ``accuracy_B - accuracy_A``
  (paired: one posterior, shared item difficulty) with P(B > A), the paired CR1 interval under
  it, the reference at 0;
* :func:`plot_items_ranks`: the rank probabilities of the systems' accuracies;
* :func:`plot_pass_at_k`: pass@k (at least one of k attempts succeeds) and "all k succeed"
  against k, per system, with HDI bands and the observed unbiased estimates of Chen et al.
  (2021) where items have k attempts or more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.stats import hdi
from bayescm.plots._checks import ITEMS, plot_function
from bayescm.plots._common import (
    hdi_prob_of,
    info_of,
    percent_axis,
    reference_line,
    unit_suffix,
)
from bayescm.plots._layout import fit_rows, new_axes, quantity
from bayescm.plots._legends import legend_under
from bayescm.plots._style import (
    BLUE,
    GREEN,
    ORANGE,
    VERMILION,
    format_probability,
    palette_color,
    pt,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_items_accuracy", "plot_items_differences", "plot_items_ranks",
           "plot_pass_at_k"]


def _by_system(da: xr.DataArray) -> tuple[list[str], np.ndarray]:
    """System names and draws ``(samples, systems)`` (one unnamed system: ``["A"]``)."""
    if "system" not in da.dims:
        da = da.expand_dims(system=["A"], axis=-1)
    names = [str(v) for v in da["system"].values]
    return names, np.asarray(da.transpose(..., "system").values, dtype=float).reshape(
        -1, len(names))


@plot_function(ITEMS)
def plot_items_accuracy(idata: xr.DataTree, ax: Axes | None = None,
                        hdi_prob: float | None = None, *, naive: bool = True,
                        cluster_robust: bool = True, title: str | None = None,
                        figsize: tuple[float, float] | None = None) -> Axes:
    """Each system's accuracy on a new item, with the CR1 and naive intervals beside it.

    Parameters
    ----------
    idata : xarray.DataTree
        An items fit (``bcm.fit(bcm.Items(...))``).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    hdi_prob : float, optional
        Interval probability; default the fit's, else ``rcParams["stats.hdi_prob"]``.
    naive, cluster_robust : bool, default True
        Draw the naive Beta interval (every attempt independent) and the CR1 interval under
        each system's HDI.
    title : str, optional
        The axes title (default "Accuracy on a new item").
    figsize : tuple of float, optional
        Size of a new figure in inches (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        A result that is not an items fit.

    See Also
    --------
    plot_items_differences : The paired differences of the systems.
    bayescm.Items : The evaluation log.

    Examples
    --------
    >>> from bayescm.models.items import ItemsModel
    >>> from bayescm.plots import plot_items_accuracy
    >>> ax = plot_items_accuracy(ItemsModel.example())
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['A', 'B']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    from bayescm.analyses.items_frequentist import cluster_robust as cr1
    from bayescm.analyses.items_frequentist import naive_intervals

    prob = hdi_prob_of(idata, hdi_prob)
    info = info_of(idata, "accuracy")
    names, draws = _by_system(box.get_group(idata, "posterior")["accuracy"])
    observed = np.atleast_1d(np.asarray(box.get_group(idata, "observed_metrics")[
        "accuracy"].values))
    rows = len(names)
    ax = new_axes(ax, figsize, default=(5.6, 1.6 + 0.55 * rows))
    y = np.arange(rows)[::-1].astype(float)
    lows, highs = zip(*(hdi(draws[:, s], prob) for s in range(rows)), strict=True)
    ax.hlines(y, lows, highs, color=BLUE, lw=4, gid="hdi",
              label=f"items model: {100 * prob:g} % HDI (a new item)")
    ax.plot(draws.mean(axis=0), y, "o", color=BLUE, ms=5, gid="posterior", label="posterior mean")
    offset = 0.0
    if cluster_robust:
        offset += 0.2
        table, _ = cr1(idata, hdi_prob=prob)
        ax.hlines(y - offset, table["lower"], table["upper"], color=GREEN, lw=2.5, gid="cr1",
                  label=f"CR1 cluster-robust {100 * prob:g} % interval")
    if naive:
        offset += 0.2
        table = naive_intervals(idata, hdi_prob=prob)
        ax.hlines(y - offset, table["lower"], table["upper"], color=ORANGE, lw=2.5, gid="naive",
                  label=f"naive Beta {100 * prob:g} % interval (attempts independent)")
    ax.plot(observed, y, "D", color=VERMILION, ms=5, gid="observed",
            label="observed (mean of per-item accuracies)")
    ax.set_yticks(y, names)
    ax.set_ylim(-0.5 - offset, rows - 0.5)
    percent_axis(ax.xaxis, info)
    quantity(ax, info)
    ax.set_xlabel(f"{info.label}{unit_suffix(info)}")
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title if title is not None else "Accuracy on a new item", fontsize=pt(11))
    fit_rows(ax, rows + offset)
    legend_under(ax)
    return ax


@plot_function(ITEMS)
def plot_items_differences(idata: xr.DataTree, ax: Axes | None = None,
                           hdi_prob: float | None = None, *, items: bool = False,
                           cluster_robust: bool = True, title: str | None = None,
                           figsize: tuple[float, float] | None = None) -> Axes:
    """Every paired difference ``accuracy_B - accuracy_A`` with its HDI and P(B > A).

    Parameters
    ----------
    idata : xarray.DataTree
        An items fit of two or more systems.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    hdi_prob : float, optional
        Interval probability; default the fit's.
    items : bool, default False
        Draw the difference over these items (``accuracy_items_diff``) instead of on a new
        item (``accuracy_diff``).
    cluster_robust : bool, default True
        Draw the paired CR1 interval (the per-item differences, clustered) under each HDI; a
        yardstick of the difference on a new item, so not drawn with ``items=True``.
    title : str, optional
        The axes title.
    figsize : tuple of float, optional
        Size of a new figure in inches (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        Not an items fit, or a fit of one system.

    See Also
    --------
    bayescm.prob_superior : P(B > A) as a number.

    Examples
    --------
    >>> from bayescm.models.items import ItemsModel
    >>> from bayescm.plots import plot_items_differences
    >>> ax = plot_items_differences(ItemsModel.example())
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['B - A']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    name = "accuracy_items_diff" if items else "accuracy_diff"
    post = box.get_group(idata, "posterior")
    if name not in post:
        raise ValueError("plot_items_differences compares systems; this fit has one. Put "
                         "several systems in one log (bcm.Items(..., system='model')).")
    prob = hdi_prob_of(idata, hdi_prob)
    da = post[name]
    info = info_of(idata, "accuracy_diff")
    pairs = [str(v) for v in da["pair"].values]
    draws = np.asarray(da.transpose(..., "pair").values, dtype=float).reshape(-1, len(pairs))
    observed = np.asarray(box.get_group(idata, "observed_metrics")[name].values, dtype=float)
    rows = len(pairs)
    ax = new_axes(ax, figsize, default=(5.6, 1.5 + 0.45 * rows))
    y = np.arange(rows)[::-1].astype(float)
    lows, highs = zip(*(hdi(draws[:, j], prob) for j in range(rows)), strict=True)
    ax.hlines(y, lows, highs, color=BLUE, lw=4, gid="hdi", label=f"{100 * prob:g} % HDI")
    ax.plot(draws.mean(axis=0), y, "o", color=BLUE, ms=5, gid="posterior",
            label="posterior mean")
    offset = 0.0
    if cluster_robust and not items:
        from bayescm.analyses.items_frequentist import cluster_robust as cr1

        offset = 0.2
        _, table = cr1(idata, hdi_prob=prob)
        table = table.loc[pairs]
        ax.hlines(y - offset, table["lower"], table["upper"], color=GREEN, lw=2.5, gid="cr1",
                  label=f"paired CR1 {100 * prob:g} % interval")
    ax.plot(observed, y, "D", color=VERMILION, ms=5, gid="observed", label="observed")
    reference_line(ax, info)
    p_greater = (draws > 0).mean(axis=0)
    ax.set_yticks(y, pairs)
    right = ax.secondary_yaxis("right")
    right.set_yticks(y, [f"P(B > A) = {format_probability(p)}" for p in p_greater])
    right.tick_params(length=0)
    ax.set_ylim(-0.5 - offset, rows - 0.5)
    percent_axis(ax.xaxis, info, points=True)
    quantity(ax, info, "difference")
    what = "these items" if items else "a new item"
    ax.set_xlabel(f"accuracy difference B - A on {what}{unit_suffix(info, points=True)}")
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title if title is not None else "Paired differences (the same items)",
                 fontsize=pt(11))
    fit_rows(ax, rows + offset)
    legend_under(ax, ncols=3)
    return ax


@plot_function(ITEMS)
def plot_items_ranks(idata: xr.DataTree, ax: Axes | None = None, *, items: bool = False,
                     figsize: tuple[float, float] | None = None) -> Axes:
    """The probability of each system holding each rank by accuracy (1 = best).

    Parameters
    ----------
    idata : xarray.DataTree
        An items fit of two or more systems.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    items : bool, default False
        Rank by the accuracy over these items instead of on a new item.
    figsize : tuple of float, optional
        Size of a new figure in inches (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The heatmap's axes.

    Raises
    ------
    ValueError
        Not an items fit, or a fit of one system.

    See Also
    --------
    bayescm.rank_probabilities : The probabilities as a table.

    Examples
    --------
    >>> from bayescm.models.items import ItemsModel
    >>> from bayescm.plots import plot_items_ranks
    >>> ax = plot_items_ranks(ItemsModel.example())
    >>> ax.get_xlabel()
    'rank'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    from bayescm.comparisons.ranks import rank_probabilities
    from bayescm.plots._batch import plot_rank_probabilities

    if "system" not in box.get_group(idata, "posterior")["accuracy"].dims:
        raise ValueError("plot_items_ranks ranks several systems; this fit has one.")
    ranks = rank_probabilities(idata, "accuracy_items" if items else "accuracy")
    ax = plot_rank_probabilities(ranks.rename({"system": "classifier"}), ax=ax,
                                 figsize=figsize)
    ax.set_ylabel(ax.get_ylabel().replace("classifier", "system"))
    return ax


def observed_pass_at_k(successes: np.ndarray, attempts: np.ndarray, k: int
                       ) -> tuple[np.ndarray, np.ndarray]:
    """The unbiased pass@k and all-k estimates of each system (rows) over its items.

    Chen et al. (2021): an item with ``n >= k`` attempts of which ``c`` succeeded passes with
    ``1 - C(n - c, k) / C(n, k)`` and succeeds every time with ``C(c, k) / C(n, k)``; items
    with fewer than ``k`` attempts are left out (NaN for a system with none).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.plots._items import observed_pass_at_k
    >>> at_least, every = observed_pass_at_k(np.array([[1, 2]]), np.array([[2, 2]]), 2)
    >>> at_least.tolist(), every.tolist()
    ([1.0], [0.5])
    """
    from scipy.special import comb

    y = np.asarray(successes, dtype=float)
    n = np.asarray(attempts, dtype=float)
    enough = n >= k
    total = np.where(enough, comb(n, k), 1.0)
    fail = np.where(enough, comb(n - y, k) / total, np.nan)
    every = np.where(enough, comb(y, k) / total, np.nan)
    counted = enough.sum(axis=1)
    with np.errstate(invalid="ignore"):
        at_least = np.where(counted > 0, np.nansum(1.0 - fail, axis=1) / np.maximum(counted, 1),
                            np.nan)
        all_k = np.where(counted > 0, np.nansum(every, axis=1) / np.maximum(counted, 1), np.nan)
    return at_least, all_k


@plot_function(ITEMS)
def plot_pass_at_k(idata: xr.DataTree, ax: Axes | None = None, hdi_prob: float | None = None,
                   *, k: Any = None, all_k: bool = True, items: bool = False,
                   title: str | None = None, figsize: tuple[float, float] | None = None) -> Axes:
    """The pass@k and "all k attempts succeed" of each system against k, with HDI bands.

    Parameters
    ----------
    idata : xarray.DataTree
        An items fit.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    hdi_prob : float, optional
        Band probability; default the fit's.
    k : sequence of int, optional
        The numbers of attempts (default 1 to 10).
    all_k : bool, default True
        Also draw "all k succeed" (dashed), which falls with k where pass@k rises.
    items : bool, default False
        Over these items (``k`` then among 1-10, 16, 20) instead of a new item.
    title : str, optional
        The axes title.
    figsize : tuple of float, optional
        Size of a new figure in inches (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        Not an items fit, a ``k`` that is not positive integers, or with ``items=True`` a
        ``k`` the fit does not store.

    See Also
    --------
    bayescm.pass_at_k : The draws.

    Examples
    --------
    >>> from bayescm.models.items import ItemsModel
    >>> from bayescm.plots import plot_pass_at_k
    >>> ax = plot_pass_at_k(ItemsModel.example(), k=[1, 2, 3, 5])
    >>> ax.get_xlabel()
    'k (attempts per item)'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    from matplotlib.lines import Line2D

    from bayescm.analyses.passk import pass_at_k
    from bayescm.models.items_density import K_GRID

    ks = list(range(1, 11)) if k is None else k
    out = pass_at_k(idata, k=ks)
    names = ("pass_at_k_items", "pass_all_k_items") if items else ("pass_at_k", "pass_all_k")
    if names[0] not in out:
        raise ValueError(f"plot_pass_at_k(items=True) draws the k the fit stores "
                         f"({', '.join(map(str, K_GRID))}); got k={ks!r}. A new item's "
                         "pass@k (items=False) takes any k.")
    prob = hdi_prob_of(idata, hdi_prob)
    grid = np.asarray(out["k"].values)
    obs = box.get_group(idata, "observed_data")
    successes = np.asarray(obs["successes"].values)
    attempts = np.asarray(obs["attempts"].values)
    seen = [observed_pass_at_k(successes, attempts, int(v)) for v in grid]
    ax = new_axes(ax, figsize, default=(5.6, 4.0))
    systems: list[str] = []
    for line, name in enumerate(names[:2 if all_k else 1]):
        part = ("pass", "all")[line]
        da = out[name]
        if "system" not in da.dims:
            da = da.expand_dims(system=["A"], axis=-2)
        systems = [str(v) for v in da["system"].values]
        draws = np.asarray(da.transpose(..., "system", "k").values, dtype=float).reshape(
            -1, len(systems), grid.size)
        for s in range(len(systems)):
            color = palette_color(s)
            lo, hi = np.array([hdi(draws[:, s, j], prob) for j in range(grid.size)]).T
            ax.fill_between(grid, lo, hi, color=color, alpha=0.18, lw=0, gid=f"band:{part}")
            ax.plot(grid, draws[:, s].mean(axis=0), color=color, lw=1.8,
                    ls="-" if line == 0 else "--", gid=f"mean:{part}")
            ax.plot(grid, [pair[line][s] for pair in seen], "D", color=color, ms=4,
                    mfc="white", gid=f"observed:{part}")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xticks(grid if grid.size <= 12 else ax.get_xticks())
    info = info_of(idata, "accuracy")
    percent_axis(ax.yaxis, info)
    ax.set_xlabel("k (attempts per item)")
    what = "these items" if items else "a new item"
    ax.set_ylabel(f"probability on {what} (%)")
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title if title is not None else "pass@k: at least one of k attempts succeeds",
                 fontsize=pt(11))
    handles = [Line2D([], [], color=palette_color(s), lw=1.8) for s in range(len(systems))]
    labels = list(systems) if len(systems) > 1 else ["posterior mean"]
    handles += [Line2D([], [], color="0.3", lw=1.8), Line2D([], [], color="0.3", lw=6,
                                                              alpha=0.25)]
    labels += ["pass@k (at least one succeeds)", f"{100 * prob:g} % HDI band"]
    if all_k:
        handles.append(Line2D([], [], color="0.3", lw=1.8, ls="--"))
        labels.append("all k succeed")
    handles.append(Line2D([], [], color="0.3", marker="D", mfc="white", ls=""))
    labels.append("observed (unbiased, items with >= k attempts)")
    legend_under(ax, handles, labels, ncols=2)
    return ax
