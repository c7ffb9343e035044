"""Densities of metrics: one metric (paper Fig. 2 and 4), a grid of metrics, and their priors."""

from __future__ import annotations

import itertools
from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.metrics import MetricInfo
from bayescm.plots._checks import plot_function
from bayescm.plots._common import (
    bounded_kde,
    draws_of,
    flat,
    format_interval,
    format_value,
    format_width,
    hdi_prob_of,
    info_of,
    interval,
    label_of,
    percent_axis,
    reference_line,
    select,
    unit_suffix,
)
from bayescm.plots._layout import new_axes, quantity
from bayescm.plots._legends import legend_clear
from bayescm.plots._observed import (
    OBSERVED_COLOR,
    drew_observed,
    empty_cells,
    observed_name,
    observed_note,
    observed_value,
)
from bayescm.plots._style import (
    BLUE,
    GREY,
    MIN_FONT,
    ORANGE,
    palette_color,
    pt,
    readable,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_metric"]

MAX_OVERLAY = 8
"""Most classifiers or classes one panel overlays."""

POSTERIOR_COLOR = BLUE
PREDICTIVE_COLOR = ORANGE
PRIOR_COLOR = GREY


TAIL = 5e-3
"""A ratio's density is drawn where it exceeds this share of its peak: the log axis then spans
the draws a reader can see, not the one draw of LR- at 1e-15."""


def density(x: np.ndarray, info: MetricInfo) -> tuple[np.ndarray, np.ndarray]:
    """Density on the metric's support; ratios are smoothed in log10 space (per log10 unit)."""
    if info.log:
        x = x[(x > 0) & np.isfinite(x)]
        grid, dens = bounded_kde(np.log10(x))
        seen = np.flatnonzero(dens >= TAIL * dens.max())
        keep = slice(max(seen[0] - 1, 0), seen[-1] + 2)
        return 10.0**grid[keep], dens[keep]
    return bounded_kde(x, info.lower, info.upper)


def _fill_hdi(ax: Any, grid: np.ndarray, dens: np.ndarray, lo: float, hi: float,
              info: MetricInfo, color: str, label: str) -> Any:
    """Shade the density between the HDI bounds, with vertices exactly at the bounds."""
    t = np.log10 if info.log else (lambda v: v)
    g = t(grid)
    inside = (g > t(lo)) & (g < t(hi))
    xs = np.concatenate([[t(lo)], g[inside], [t(hi)]])
    ys = np.interp(xs, g, dens)
    if info.log:
        xs = 10.0**xs
        xs[0], xs[-1] = lo, hi
    return ax.fill_between(xs, 0.0, ys, color=color, alpha=0.3, linewidth=0, label=label,
                           gid="hdi")


def _mu_bracket(ax: Any, lo: float, hi: float, info: MetricInfo,
                span: tuple[float, float] | None = None) -> None:
    """A double arrow under the HDI with 'MU = 11 pp' (the paper's Fig. 2B bottom).

    A ratio's HDI is a width on the log axis: a factor, 'MU ×7.8' (upper / lower bound). The
    label is centred on the HDI, or starts at its lower bound (ends at its upper) when the
    HDI sits at the left (right) edge of ``span``, the x-range drawn, so it stays in the axes.
    """
    mid = np.sqrt(lo * hi) if info.log and lo > 0 else 0.5 * (lo + hi)
    at, align = mid, "center"
    if span is not None and span[1] > span[0] and not info.log:
        where = (mid - span[0]) / (span[1] - span[0])
        at, align = (lo, "left") if where < 0.2 else (hi, "right") if where > 0.8 else (mid,
                                                                                       "center")
    ax.annotate("", xy=(lo, 0.04), xytext=(hi, 0.04), xycoords=("data", "axes fraction"),
                arrowprops={"arrowstyle": "<->", "color": "0.2", "shrinkA": 0, "shrinkB": 0})
    text = (f"MU ×{readable(hi / lo)}" if info.log and lo > 0 else
            f"MU = {format_width(hi - lo, info)}")
    ax.annotate(text, xy=(at, 0.06),
                xycoords=("data", "axes fraction"), ha=align, va="bottom", fontsize=pt(9),
                gid="mu", bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none",
                                "alpha": 0.8})


def _predictive(idata: xr.DataTree, name: str, classifier: Hashable | None,
                class_: Hashable | None) -> tuple[np.ndarray, int, Any]:
    if not box.has_group(idata, "posterior_predictive"):
        raise ValueError(
            "predictive=True needs a 'posterior_predictive' group (synthetic confusion matrices "
            "and their metrics); call bcm.posterior_predictive(idata, ...) first "
            f"(groups: {', '.join(idata.children)})."
        )
    ds = box.get_group(idata, "posterior_predictive")
    if name not in ds:
        raise KeyError(f"The posterior_predictive group has no {name!r}; it has: "
                       f"{', '.join(map(str, ds.data_vars))}.")
    da = select(ds[name], name, classifier, class_)
    values = np.asarray(da.values, dtype=float).reshape(-1)
    n = ds.attrs.get("n", ds.attrs.get("N"))
    return values[np.isfinite(values)], int((~np.isfinite(values)).sum()), n


def finish_axis(ax: Any, info: MetricInfo, xlabel: str, lims: list[tuple[float, float]]
                ) -> None:
    """Limits within the support, units, the reference line and labels of a density panel."""
    lo = min(v[0] for v in lims)
    hi = max(v[1] for v in lims)
    if info.log:
        ax.set_xscale("log")
    else:
        pad = 0.02 * (hi - lo) if hi > lo else 0.01
        ax.set_xlim(max(info.lower, lo - pad), min(info.upper, hi + pad))
    percent_axis(ax.xaxis, info)
    reference_line(ax, info)
    quantity(ax, info)  # panels of the same metric in one figure share the x-range
    ax.set_xlabel(xlabel)
    ax.set_ylabel("density" + (" (per log10 unit)" if info.log else ""))
    ax.set_yticks([])
    ax.set_ylim(bottom=0)
    ax.spines[["top", "right", "left"]].set_visible(False)


def title_of(info: MetricInfo, classifier: Any, class_: Any) -> str:
    """``'TPR, class 1'``; ``'TPR by class'`` when several classes are overlaid."""
    parts, by = [info.display_name], []
    for label, value in (("classifier", classifier), ("class", class_)):
        if _several(value):
            by.append(label)
        elif value is not None:
            parts.append(f"{label} {value}")
    if by:
        parts[0] += " by " + " and ".join(by)
    return ", ".join(parts)


def _several(value: Any) -> bool:
    """A list of classifiers or classes (to overlay) rather than one."""
    return isinstance(value, (list, tuple, np.ndarray))


@plot_function()
def plot_metric(
    idata: xr.DataTree,
    var: str,
    ax: Axes | None = None,
    hdi_prob: float | None = None,
    predictive: bool = False,
    prior: bool = False,
    classifier: Hashable | Sequence[Hashable] | None = None,
    class_: Hashable | Sequence[Hashable] | None = None,
    *,
    legend: bool = True,
    title: str | None = None,
    figsize: tuple[float, float] | None = None,
) -> Axes:
    """Posterior density of one metric with its point estimate, HDI and metric uncertainty.

    Draws the posterior as a kernel density reflected at the metric's bounds (a TPR near
    100 % keeps its mass inside [0, 1]; likelihood and odds ratios are smoothed on a log axis),
    shades the highest-density interval, marks its width (MU, in percentage points for
    proportions) and draws the observed point estimate (``observed_metrics``) as a vertical
    line, as in the paper's Fig. 4. Optionally overlays the posterior predictive distribution
    of the metric on synthetic confusion matrices (Caelen's approach, Fig. 2) and the prior.
    Given a list of classifiers or classes (or both: every combination), it overlays their
    densities instead, each with its HDI as a bar under the curves and its observed value as
    a dotted line.

    Parameters
    ----------
    idata : xarray.DataTree
        A result of :func:`bayescm.fit`.
    var : str
        Metric name; aliases such as ``"sensitivity"`` work.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    hdi_prob : float, optional
        Probability of the HDI; default the tree's ``hdi_prob`` attribute, else
        ``rcParams["stats.hdi_prob"]``.
    predictive : bool, default False
        Overlay the histogram of the metric in the ``posterior_predictive`` group (error if the
        group is missing: call ``bcm.posterior_predictive`` first).
    prior : bool, default False
        Overlay the prior density of the metric (dashed).
    classifier : hashable or list of hashable, optional
        Classifier of a batch fit (required when the metric has a ``classifier`` dim); a list
        overlays those classifiers (at most 8).
    class_ : hashable or list of hashable, optional
        Class of a per-class multiclass metric (required when it has a ``class`` dim); a list
        overlays those classes.
    legend : bool, default True
        Draw the legend (HDI bounds and the observed value). An observed value the axis
        cannot show (infinite, undefined, 0 on a ratio's log axis) is noted there, or, without
        a legend, in the panel's corner: ``"observed: ∞ (FN = 0)"``.
    title : str, optional
        Axes title; default the metric's display name (and the classifier or class).
    figsize : tuple of float, optional
        Size of a new figure in inches (not with ``ax``); default (6, 3.6).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on: ``ax`` when given, else those of a new figure (``ax.figure`` to save
        it).

    Raises
    ------
    KeyError
        Unknown metric, unknown classifier or class, missing group.
    ValueError
        A ``classifier`` or ``class`` dim without a selection; ``predictive=True`` without a
        ``posterior_predictive`` group or with an overlay.

    See Also
    --------
    plot_metrics : A grid of metrics.
    bayescm.summary : The same numbers as a table.

    Examples
    --------
    The TPR of the paper's cocaine-purity classifier (26 of 26 positives found, Fig. 4A):

    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_metric
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
    ...                 random_seed=1)
    >>> ax = plot_metric(idata, "tpr", prior=True)
    >>> ax.get_xlabel()
    'true positive rate (sensitivity) (%)'

    Several classes of a multiclass fit in one panel:

    >>> multi = bcm.fit(bcm.ConfusionMatrix([[27, 3, 0], [6, 21, 3], [0, 3, 15]]), random_seed=0)
    >>> plot_metric(multi, "recall", class_=["0", "1", "2"]).get_title()
    'TPR by class'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    if _several(classifier) or _several(class_):
        if predictive:
            raise ValueError("predictive=True draws one classifier and class; pass one value "
                             "of classifier= and class_=, not a list.")
        return _overlay(idata, var, new_axes(ax, figsize), hdi_prob, prior, classifier, class_,
                        legend, title)
    name, da = draws_of(idata, var, "posterior", classifier, class_)
    info = info_of(idata, name, da)
    prob = hdi_prob_of(idata, hdi_prob)
    x = flat(da)
    if x.size < 2:
        raise ValueError(f"{name!r} has fewer than 2 finite posterior draws; nothing to draw.")
    ax = new_axes(ax, figsize)
    lims: list[tuple[float, float]] = []

    if predictive:
        values, undefined, n = _predictive(idata, name, classifier, class_)
        if values.size:
            bins = np.histogram_bin_edges(values, bins=min(60, max(10, np.unique(values).size)))
            label = "posterior predictive" + (f" (N = {n})" if n is not None else "")
            if undefined:
                label += f", {undefined / (values.size + undefined):.0%} undefined"
            # matplotlib's stub types bins as a Sequence; an array of edges is documented
            ax.hist(values, bins=bins, density=True,  # type: ignore[arg-type]
                    histtype="stepfilled", alpha=0.25, color=PREDICTIVE_COLOR,
                    edgecolor=PREDICTIVE_COLOR, label=label, gid="predictive")
            lims.append((float(bins[0]), float(bins[-1])))

    grid, dens = density(x, info)
    ax.plot(grid, dens, color=POSTERIOR_COLOR, lw=2, label="posterior", gid="posterior")
    lims.append((float(grid[0]), float(grid[-1])))

    if prior:
        _, pda = draws_of(idata, name, "prior", classifier, class_)
        px = flat(pda)
        if px.size >= 2:
            pgrid, pdens = density(px, info)
            ax.plot(pgrid, pdens, color=PRIOR_COLOR, lw=1.5, ls="--", label="prior", gid="prior")

    all_draws = np.asarray(da.values, dtype=float).reshape(-1)
    lo, hi = interval(all_draws, prob, info.log)
    if np.isfinite(lo) and np.isfinite(hi):
        _fill_hdi(ax, grid, dens, lo, hi, info, POSTERIOR_COLOR,
                  format_interval(lo, hi, info, prob))
        _mu_bracket(ax, lo, hi, info, (float(grid[0]), float(grid[-1])))

    observed = observed_value(idata, name, classifier, class_)
    if observed is not None:
        word = observed_name(idata)  # "plug-in" at a deployment prevalence: not observed
        note = observed_note(ax, observed, info, empty_cells(idata, classifier), legend, word)
        if note is None:
            ax.axvline(observed, color=OBSERVED_COLOR, lw=1.5,
                       label=f"{word}: {format_value(observed, info)}", gid="observed")

    finish_axis(ax, info, label_of(da, name, idata) + unit_suffix(info), lims)
    if not legend and any(t.get_gid() == "observed_note" for t in ax.texts):
        ax.set_ylim(0, 1.22 * ax.get_ylim()[1])  # room above the curve for the note
    ax.set_title(title_of(info, classifier, class_) if title is None else title)
    if legend:  # in the corner away from the peak, the curves kept under it
        legend_clear(ax, ("upper left", "upper right") if _peak_right(ax, grid, dens)
                     else ("upper right", "upper left"))
    return ax


def _peak_right(ax: Axes, grid: np.ndarray, dens: np.ndarray) -> bool:
    """Whether the density peaks in the right half of the axes (put the legend left)."""
    peak = float(grid[int(np.argmax(dens))])
    at = ax.transAxes.inverted().transform(ax.transData.transform((peak, 0.0)))[0]
    return bool(at > 0.5)


def _overlay(idata: xr.DataTree, var: str, ax: Axes | None, hdi_prob: float | None,
             prior: bool, classifier: Any, class_: Any, legend: bool, title: str | None
             ) -> Axes:
    """Densities of several classifiers and/or classes in one panel (one colour each)."""
    axes = {"classifier": list(classifier) if _several(classifier) else [classifier],
            "class": list(class_) if _several(class_) else [class_]}
    picks = list(itertools.product(axes["classifier"], axes["class"]))
    if not 1 <= len(picks) <= MAX_OVERLAY:
        raise ValueError(f"Overlay between 1 and {MAX_OVERLAY} densities, got {len(picks)} "
                         "(classifiers x classes); pass shorter lists.")
    varying = [d for d, v in (("classifier", classifier), ("class", class_)) if _several(v)]
    ax = new_axes(ax)
    prob = hdi_prob_of(idata, hdi_prob)
    lims: list[tuple[float, float]] = []
    bars: list[tuple[float, float, str, str]] = []
    name, info, label = var, None, ""
    for i, (one_classifier, one_class) in enumerate(picks):
        chosen = {"classifier": one_classifier, "class": one_class}
        key = ", ".join(str(chosen[d]) for d in varying)
        name, da = draws_of(idata, var, "posterior", one_classifier, one_class)
        info = info_of(idata, name, da) if info is None else info
        label = label or label_of(da, name, idata)
        x = flat(da)
        if x.size < 2:
            continue
        color = palette_color(i)
        grid, dens = density(x, info)
        ax.plot(grid, dens, color=color, lw=1.6, label=key, gid=f"posterior:{key}")
        lims.append((float(grid[0]), float(grid[-1])))
        if prior:
            _, pda = draws_of(idata, name, "prior", one_classifier, one_class)
            px = flat(pda)
            if px.size >= 2:
                ax.plot(*density(px, info), color=color, lw=1, ls="--", gid=f"prior:{key}")
        lo, hi = interval(np.asarray(da.values, dtype=float).reshape(-1), prob, info.log)
        if np.isfinite(lo) and np.isfinite(hi):
            bars.append((lo, hi, color, key))
        observed = observed_value(idata, name, one_classifier, one_class)
        if observed is not None and np.isfinite(observed) and not (info.log and observed <= 0):
            ax.axvline(observed, color=color, lw=1, ls=":", gid=f"observed:{key}")
    if not lims or info is None:
        raise ValueError(f"{var!r} has fewer than 2 finite posterior draws in every selection; "
                         "nothing to draw.")
    finish_axis(ax, info, label + unit_suffix(info), lims)
    # the HDIs as bars under the baseline, one row each, clear of the curves
    step = ax.get_ylim()[1] * min(0.05, 0.3 / (len(bars) + 0.8))
    for i, (lo, hi, color, key) in enumerate(bars):
        ax.hlines(-step * (i + 1), lo, hi, color=color, lw=2.5, gid=f"hdi:{key}")
    ax.set_ylim(-step * (len(bars) + 0.8), None)
    ax.axhline(0.0, color="0.8", lw=0.6, zorder=0)
    ax.set_title(title_of(info, classifier, class_) if title is None else title)
    if legend:  # the series, then what their bars and dotted lines are
        ax.hlines([], [], [], color="0.3", lw=2.5, label=f"{100 * prob:g} % HDI (bars)")
        if drew_observed([ax]):  # the dotted lines: only where a value was observed
            ax.plot([], [], color="0.3", lw=1, ls=":", label=observed_name(idata))
        legend_clear(ax, title=", ".join(varying), title_fontsize=pt(MIN_FONT))
    return ax
