"""Decision curves: net benefit with its bands against treat-all and treat-none, and ΔNB.

Both figures draw a result of :func:`bayescm.net_benefit`. Its draws of a scores fit are whole
curves, so the bands are those of :func:`bayescm.models.roc.curve_bands`: the pointwise HDI at
each threshold and the simultaneous band that holds a fraction ``hdi_prob`` of the posterior
curves entirely. A batch of matrices keyed by threshold was drawn threshold by threshold: its
simultaneous band would claim a joint statement the draws do not support, so only the pointwise
band is drawn.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.plots._checks import plot_function
from bayescm.plots._common import hdi_prob_of, some
from bayescm.plots._layout import new_axes
from bayescm.plots._legends import legend_aside, legend_under
from bayescm.plots._style import format_probability, palette_color

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_decision_curve", "plot_delta_net_benefit"]

_BANDS = ("pointwise", "simultaneous")


def _decision_posterior(tree: Any, func: str, var: str) -> xr.Dataset:
    """The posterior of a :func:`bayescm.net_benefit` result, else a ValueError with the remedy."""
    post = (box.get_group(tree, "posterior", foreign=True) if isinstance(tree, xr.DataTree)
            and box.has_group(tree, "posterior") else None)
    if post is None or var not in post.data_vars:
        extra = (" with two or more models scored on the same items" if var ==
                 "delta_net_benefit" else "")
        raise ValueError(f"{func} draws the result of bcm.net_benefit{extra} (posterior "
                         f"variable {var!r}); this tree has none. Make one: nb = "
                         "bcm.net_benefit(bcm.fit(bcm.Scores(y, {'A': risk_a, ...}))).")
    return post


def _rows(da: xr.DataArray) -> np.ndarray:
    return np.asarray(da.transpose(*box.SAMPLE_DIMS, "threshold").values, dtype=float).reshape(
        -1, da.sizes["threshold"])


def _band(ax: Axes, t: np.ndarray, rows: np.ndarray, prob: float, bands: tuple[str, ...],
          color: str, key: str, label: bool) -> np.ndarray:
    from bayescm.models.roc import curve_bands

    b = curve_bands(rows, prob)
    p = f"{100 * prob:g} %"
    if "simultaneous" in bands:
        ax.fill_between(t, b["simultaneous_lower"], b["simultaneous_upper"], color=color,
                        alpha=0.12, lw=0, gid=f"simultaneous:{key}",
                        label=f"{p} simultaneous band (whole curve)" if label else None)
    if "pointwise" in bands:
        ax.fill_between(t, b["pointwise_lower"], b["pointwise_upper"], color=color, alpha=0.3,
                        lw=0, gid=f"pointwise:{key}",
                        label=f"{p} pointwise HDI" if label else None)
    return np.asarray(b["mean"])


def _chosen_bands(bands: Any, coherent: bool) -> tuple[str, ...]:
    chosen = () if bands is None else (bands,) if isinstance(bands, str) else tuple(bands)
    bad = [b for b in chosen if b not in _BANDS]
    if bad:
        raise ValueError(f"Unknown band {bad[0]!r}; bands= takes 'pointwise', 'simultaneous', "
                         "both, or () for none.")
    return chosen if coherent else tuple(b for b in chosen if b == "pointwise")


def _selected(post: xr.Dataset, dim: str, chosen: Any, func: str) -> list[str]:
    names = [str(v) for v in post[dim].values]
    if chosen is None:
        return names
    wanted = [str(c) for c in chosen] if isinstance(chosen, (list, tuple)) else [str(chosen)]
    if not wanted:
        raise ValueError(f"{func}: an empty selection draws nothing; name at least one of "
                         f"{some(names)}, or leave it out for all.")
    unknown = [c for c in wanted if c not in names]
    if unknown:
        raise KeyError(f"{func}: {unknown[0]!r} is not in the result; choose from {some(names)}.")
    return wanted


@plot_function()
def plot_decision_curve(nb_tree: xr.DataTree, system: Hashable | Sequence[Hashable] | None = None,
                        ax: Axes | None = None, hdi_prob: float | None = None,
                        bands: str | Sequence[str] | None = _BANDS, *, legend: bool = True,
                        title: str | None = None,
                        figsize: tuple[float, float] | None = None) -> Axes:
    """Decision curves: posterior net benefit of each model with bands, treat-all, treat-none.

    Draws each model's posterior mean net benefit over the threshold probabilities with its
    pointwise HDI and simultaneous (whole-curve) band, treat-all's mean with its pointwise band
    (the prevalence is uncertain) and treat-none (0). The y range is clipped below at a little
    under 0, as ``dcurves`` does, so that treat-all's steep fall does not flatten the models.

    Parameters
    ----------
    nb_tree : xarray.DataTree
        A result of :func:`bayescm.net_benefit`.
    system : str or list of str, optional
        Models to draw; default all.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    hdi_prob : float, optional
        Probability of the bands; default the result's.
    bands : str or sequence of str, default ("pointwise", "simultaneous")
        Bands to draw (a batch of matrices keyed by threshold: the pointwise band only).
    legend : bool, default True
        Draw the legend.
    title : str, optional
        Axes title; default ``"Decision curve"``.
    figsize : tuple of float, optional
        Size of a new figure in inches (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        Not a result of :func:`bayescm.net_benefit`, or an unknown band.
    KeyError
        An unknown system.

    See Also
    --------
    plot_delta_net_benefit : The paired difference of two models with P(better).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.scores import ScoresModel
    >>> nb = bcm.net_benefit(ScoresModel.example(), thresholds=[0.1, 0.2, 0.3, 0.4, 0.5])
    >>> ax = bcm.plots.plot_decision_curve(nb)
    >>> ax.get_title()
    'Decision curve'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    post = _decision_posterior(nb_tree, "plot_decision_curve", "net_benefit")
    names = _selected(post, "system", system, "plot_decision_curve")
    chosen = _chosen_bands(bands, bool(nb_tree.attrs.get("coherent", 1)))
    prob = hdi_prob_of(nb_tree, hdi_prob)
    t = np.asarray(post["threshold"].values, dtype=float)
    ax = new_axes(ax, figsize)
    top = 0.0
    for i, name in enumerate(names):
        color = palette_color(i)
        mean = _band(ax, t, _rows(post["net_benefit"].sel(system=name)), prob, chosen, color,
                     name, i == 0)
        useful = post["p_useful"].sel(system=name).values
        ax.plot(t, mean, color=color, lw=2, gid=f"mean:{name}",
                label=f"{name} (P(useful) {format_probability(useful.min())}-"
                      f"{format_probability(useful.max())})")
        top = max(top, float(np.nanmax(mean)))
    all_rows = _rows(post["treat_all"])
    all_mean = _band(ax, t, all_rows, prob, tuple(b for b in chosen if b == "pointwise"),
                     "0.45", "treat_all", False)
    ax.plot(t, all_mean, color="0.35", lw=1.3, ls="--", gid="treat_all", label="treat all")
    ax.axhline(0.0, color="0.2", lw=1.1, gid="treat_none", label="treat none")
    top = max(top, float(np.nanmax(all_mean)), 0.01)
    ax.set_ylim(-0.15 * top, 1.1 * top)
    ax.set_xlim(float(t[0]), float(t[-1]))
    ax.set_xlabel("threshold probability")
    ax.set_ylabel("net benefit")
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title("Decision curve" if title is None else title)
    if legend:
        handles, labels = ax.get_legend_handles_labels()
        legend_aside(ax, handles, labels)
    return ax


@plot_function()
def plot_delta_net_benefit(nb_tree: xr.DataTree, pair: str | None = None,
                           ax: Axes | None = None, hdi_prob: float | None = None,
                           bands: str | Sequence[str] | None = _BANDS, *, legend: bool = True,
                           title: str | None = None,
                           figsize: tuple[float, float] | None = None) -> Axes:
    """The paired difference in net benefit of two models across thresholds, with P(better).

    Draws the posterior mean of ``NB_B(t) - NB_A(t)`` (both models scored on the same items:
    the same draws), its bands, the zero line and, on a second axis, P(B better) per threshold.

    Parameters
    ----------
    nb_tree : xarray.DataTree
        A result of :func:`bayescm.net_benefit` of two or more models.
    pair : str, optional
        The difference to draw, e.g. ``"B - A"``; default the first.
    ax, hdi_prob, bands, legend
        As for :func:`plot_decision_curve`.
    title : str, optional
        Axes title; default ``"Net benefit: B - A"``.
    figsize : tuple of float, optional
        Size of a new figure in inches (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on (P(better) is on its twin).

    Raises
    ------
    ValueError
        Not a result of :func:`bayescm.net_benefit` of two or more models, or an unknown band.
    KeyError
        An unknown pair.

    See Also
    --------
    plot_decision_curve : Each model's curve against the default strategies.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.scores import ScoresModel
    >>> nb = bcm.net_benefit(ScoresModel.example(), thresholds=[0.1, 0.2, 0.3, 0.4, 0.5])
    >>> bcm.plots.plot_delta_net_benefit(nb).get_title()
    'Net benefit: B - A'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    post = _decision_posterior(nb_tree, "plot_delta_net_benefit", "delta_net_benefit")
    chosen_pair = _selected(post, "pair", pair, "plot_delta_net_benefit")[0]
    chosen = _chosen_bands(bands, bool(nb_tree.attrs.get("coherent", 1)))
    prob = hdi_prob_of(nb_tree, hdi_prob)
    t = np.asarray(post["threshold"].values, dtype=float)
    ax = new_axes(ax, figsize)
    color = palette_color(0)
    mean = _band(ax, t, _rows(post["delta_net_benefit"].sel(pair=chosen_pair)), prob, chosen,
                 color, chosen_pair, True)
    ax.plot(t, mean, color=color, lw=2, gid="mean", label=f"{chosen_pair} (posterior mean)")
    ax.axhline(0.0, color="0.3", lw=1, ls=":", gid="reference")
    ax.set_xlim(float(t[0]), float(t[-1]))
    ax.set_xlabel("threshold probability")
    ax.set_ylabel("difference in net benefit")
    ax.spines[["top"]].set_visible(False)
    twin = ax.twinx()
    better = post["p_better"].sel(pair=chosen_pair).values
    b, a = chosen_pair.split(" - ", 1)
    line = twin.plot(t, better, color=palette_color(1), lw=1.2, ls="--", gid="p_better",
                     label=f"P({b} better than {a})")
    twin.set_ylim(0, 1)
    twin.set_ylabel("probability")
    twin.spines[["top"]].set_visible(False)
    ax.set_title(f"Net benefit: {chosen_pair}" if title is None else title)
    if legend:
        handles, labels = ax.get_legend_handles_labels()
        legend_under(ax, [*handles, *line], [*labels, str(line[0].get_label())])
    return ax
