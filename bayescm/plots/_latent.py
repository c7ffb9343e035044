"""Figures of latent class fits: tests' rates (Hui-Walter), raters and items (Dawid-Skene).

* :func:`plot_test_rates`: each population's prevalence and each test's TPR and TNR, the
  posterior mean with its HDI (a Hui-Walter fit);

* :func:`plot_rater_rates`: a grid of heatmaps, one per rater, of the posterior mean of
  P(rated class | true class) with each cell's HDI;
* :func:`plot_item_classes`: one stacked bar per item, the posterior probability of each
  class given the item's ratings.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr
from matplotlib.lines import Line2D

from bayescm.core import container as box
from bayescm.core.stats import hdi
from bayescm.plots._checks import RATERS, TESTS, plot_function
from bayescm.plots._common import hdi_prob_of
from bayescm.plots._layout import new_axes
from bayescm.plots._legends import legend_under
from bayescm.plots._panels import grid
from bayescm.plots._style import MIN_FONT, palette_color, pt

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_item_classes", "plot_rater_rates", "plot_test_rates"]


@plot_function(RATERS)
def plot_rater_rates(idata: xr.DataTree, axes: Any = None, hdi_prob: float | None = None, *,
                     raters: Sequence[str] | None = None, ncols: int = 3,
                     figsize: tuple[float, float] | None = None) -> Figure:
    """Each rater's confusion matrix, P(rated class | true class), as a grid of heatmaps.

    Each cell shows the posterior mean (per cent) and its HDI; the colour is the mean, from 0
    to 1, on one scale for every panel so raters compare at a glance.

    Parameters
    ----------
    idata : xarray.DataTree
        A Dawid-Skene fit (``bcm.fit(bcm.Ratings(...))``).
    axes : array of matplotlib.axes.Axes, optional
        Axes to draw on (one per rater); default a new figure.
    hdi_prob : float, optional
        Interval probability; default the fit's, else ``rcParams["stats.hdi_prob"]``.
    raters : sequence of str, optional
        The raters to draw (default all).
    ncols : int, default 3
        Panels per row.
    figsize : tuple of float, optional
        Size of a new figure in inches (not with ``axes``).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on.

    Raises
    ------
    ValueError
        A result that is not a Dawid-Skene fit, or a rater it does not have.

    See Also
    --------
    plot_item_classes : Each item's posterior class probabilities.
    bayescm.Ratings : The ratings behind the fit.

    Examples
    --------
    >>> from bayescm.plots import plot_rater_rates
    >>> from bayescm.models.latent_examples import example_tree
    >>> fig = plot_rater_rates(example_tree(), raters=["1", "2"])
    >>> [ax.get_title() for ax in fig.axes if ax.get_title()]
    ['rater 1', 'rater 2']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    rates = box.get_group(idata, "posterior")["rates"]
    names = [str(v) for v in rates["rater"].values]
    chosen = list(names) if raters is None else [str(r) for r in raters]
    unknown = [r for r in chosen if r not in names]
    if unknown or not chosen:
        raise ValueError(f"raters={list(raters or [])!r}: the fit's raters are {names}.")
    prob = hdi_prob_of(idata, hdi_prob)
    classes = [str(v) for v in rates["true_class"].values]
    k = len(classes)
    fig, panels = grid(len(chosen), axes, min(ncols, len(chosen)),
                       panel=(1.0 + 0.75 * k, 0.8 + 0.6 * k), figsize=figsize)
    draws = np.asarray(rates.transpose("rater", "true_class", "rated_class", ...).values,
                       dtype=float).reshape(len(names), k, k, -1)
    image = None
    room = _cell_room(fig, panels[0], k) if len(panels) else 0.0
    for ax, rater in zip(panels, chosen, strict=True):
        d = draws[names.index(rater)]
        mean = d.mean(axis=-1)
        bounds = hdi(d, prob)
        image = ax.imshow(mean, cmap="Blues", vmin=0, vmax=1, aspect="auto",
                          gid=f"rates:{rater}")
        for (i, j), m in np.ndenumerate(mean):
            lo, hi = bounds[i, j]
            if room < 2.2:  # the cells of a narrow figure hold no number: the colour tells
                continue
            text = (f"{100 * m:.0f}" if k > 4 or room < 4.6
                    else f"{100 * m:.0f}\n[{100 * lo:.0f}, {100 * hi:.0f}]")
            ax.text(j, i, text, ha="center", va="center", fontsize=pt(MIN_FONT),
                    color="white" if m > 0.6 else "black", gid=f"cell:{rater}:{i},{j}")
        ax.set_xticks(range(k), classes)
        ax.set_yticks(range(k), classes)
        ax.set_xlabel("rated class")
        ax.set_ylabel("true class")
        ax.set_title(f"rater {rater}", fontsize=pt(10))
    if image is not None:
        bar = fig.colorbar(image, ax=panels, shrink=0.8)
        cells = ("" if room < 2.2 else "; cells: %" if k > 4 or room < 4.6
                 else f"; cells: % [{100 * prob:g} % HDI]")
        bar.set_label(f"P(rated | true), mean{cells}", fontsize=pt(MIN_FONT))
    return fig


def _cell_room(fig: Figure, ax: Axes, k: int) -> float:
    """How many characters of the cells' font fit across one of ``k`` x ``k`` cells.

    Measured on the panel's slot before the layout shrinks it for labels and the colour bar,
    so a two-thirds share of the slot is counted.
    """
    width = ax.get_position().width * float(fig.get_size_inches()[0]) * 72.0 * 2 / 3
    return width / k / (0.6 * pt(MIN_FONT))


def _label_step(ax: Axes, n: int) -> int:
    """Every how many bars a rotated tick label fits (its font's height apart at least)."""
    fig = ax.get_figure(root=True)
    inches = float(fig.get_size_inches()[0]) if fig is not None else 6.4
    width = ax.get_position().width * inches * 72.0 * 0.85
    return max(1, int(np.ceil(1.3 * pt(MIN_FONT) / max(width / max(n, 1), 1e-9))))


@plot_function(RATERS)
def plot_item_classes(idata: xr.DataTree, ax: Axes | None = None, *,
                      items: Sequence[str] | None = None, sort: bool = True,
                      figsize: tuple[float, float] | None = None) -> Axes:
    """Each item's posterior class probabilities given its ratings, as stacked bars.

    The probabilities are the posterior means of ``item_class`` (Bayes' rule per draw,
    averaged): a bar of one colour is an item the raters settle; a mixed bar one they leave
    open. Items are sorted by their most likely class and its probability (``sort=False``:
    the input's order).

    Parameters
    ----------
    idata : xarray.DataTree
        A Dawid-Skene fit (``bcm.fit(bcm.Ratings(...))``).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    items : sequence of str, optional
        The items to draw (default all).
    sort : bool, default True
        Sort the items by their most likely class, then its probability.
    figsize : tuple of float, optional
        Size of a new figure in inches (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        A result that is not a Dawid-Skene fit, or an item it does not have.

    See Also
    --------
    plot_rater_rates : The raters' confusion matrices behind these probabilities.

    Examples
    --------
    >>> from bayescm.plots import plot_item_classes
    >>> from bayescm.models.latent_examples import example_tree
    >>> ax = plot_item_classes(example_tree())
    >>> len(ax.get_xticks()), ax.get_ylabel()
    (45, 'P(class | ratings)')
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    da = box.get_group(idata, "posterior")["item_class"]
    names = [str(v) for v in da["item"].values]
    classes = [str(v) for v in da["class"].values]
    chosen = list(names) if items is None else [str(i) for i in items]
    unknown = [i for i in chosen if i not in names]
    if unknown or not chosen:
        raise ValueError(f"items: {unknown[:3] if unknown else []!r} not among the fit's "
                         f"{len(names)} items (e.g. {names[:3]}).")
    mean = da.mean(("chain", "draw")).transpose("item", "class").values
    mean = mean[[names.index(i) for i in chosen]]
    order = np.arange(len(chosen))
    if sort:
        top = mean.argmax(axis=1)
        order = np.lexsort((-mean[np.arange(len(chosen)), top], top))
    mean = mean[order]
    labels = [chosen[i] for i in order]
    ax = new_axes(ax, figsize, default=(min(12.0, 2.0 + 0.18 * len(chosen)), 3.2))
    x = np.arange(len(labels))
    bottom = np.zeros(len(labels))
    for k, name in enumerate(classes):
        ax.bar(x, mean[:, k], bottom=bottom, width=0.85, color=palette_color(k),
               label=f"class {name}", gid=f"class:{name}")
        bottom += mean[:, k]
    step = _label_step(ax, len(labels))  # a narrow figure (a journal column): every step-th
    ax.set_xticks(x[::step], labels[::step], rotation=90, fontsize=pt(MIN_FONT))
    ax.set_xlim(-0.6, len(labels) - 0.4)
    ax.set_ylim(0, 1)
    ax.set_ylabel("P(class | ratings)")
    ax.set_xlabel("item")
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title("Latent class of each item", fontsize=pt(11))
    legend_under(ax)
    return ax


@plot_function(TESTS)
def plot_test_rates(idata: xr.DataTree, ax: Axes | None = None, hdi_prob: float | None = None,
                    *, figsize: tuple[float, float] | None = None) -> Axes:
    """Each population's prevalence and each test's TPR and TNR, with their HDIs.

    One row per quantity (the posterior mean as a dot, the HDI as a line); the rows of a
    parameter share its colour. The tests' rates are estimated without a gold standard
    (Hui-Walter), so their width shows what the data and priors leave open.

    Parameters
    ----------
    idata : xarray.DataTree
        A Hui-Walter fit (``bcm.fit(bcm.TestResults(...))``).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    hdi_prob : float, optional
        Interval probability; default the fit's, else ``rcParams["stats.hdi_prob"]``.
    figsize : tuple of float, optional
        Size of a new figure in inches (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        A result that is not a Hui-Walter fit.

    See Also
    --------
    bayescm.TestResults : The test results behind the fit.

    Examples
    --------
    >>> from bayescm.plots import plot_test_rates
    >>> from bayescm.models.hui_walter import HuiWalterModel
    >>> from bayescm.models.latent_examples import tree_near_em
    >>> ax = plot_test_rates(tree_near_em(HuiWalterModel.example_data()))
    >>> [t.get_text() for t in ax.get_yticklabels()][:3]
    ['prevalence (southern_us)', 'prevalence (ohio)', 'TPR (mantoux)']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    post = box.get_group(idata, "posterior")
    prob = hdi_prob_of(idata, hdi_prob)
    rows: list[tuple[str, int, np.ndarray]] = []
    for k, (name, label) in enumerate((("prevalence", "prevalence"), ("tpr", "TPR"),
                                        ("tnr", "TNR"))):
        da = post[name]
        dim = da.dims[-1]
        draws = np.asarray(da.transpose(dim, ...).values, dtype=float).reshape(da.sizes[dim], -1)
        rows.extend((f"{label} ({v})", k, d) for v, d in zip(da[dim].values, draws, strict=True))
    values = np.stack([d for _, _, d in rows])
    mean = values.mean(axis=1)
    bounds = hdi(values, prob)
    ax = new_axes(ax, figsize, default=(6.0, 1.0 + 0.32 * len(rows)))
    y = np.arange(len(rows))
    for j, (label, k, _) in enumerate(rows):
        ax.plot(bounds[j], [y[j], y[j]], color=palette_color(k), lw=2, gid=f"hdi:{label}")
        ax.plot(mean[j], y[j], "o", color=palette_color(k), gid=f"mean:{label}")
    ax.set_yticks(y, [label for label, _, _ in rows])
    ax.invert_yaxis()
    ax.set_xlim(0, 1)
    ax.set_xlabel("probability")
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title("Tests without a gold standard", fontsize=pt(11))
    grey = "0.35"  # the marks' meaning; the colours tell prevalence, TPR and TNR apart
    legend_under(ax, [Line2D([], [], color=grey, marker="o", ls="none"),
                      Line2D([], [], color=grey, lw=2)],
                 ["posterior mean", f"{100 * prob:g} % HDI"], ncols=2)
    return ax
