"""Forest plot of a hierarchical fit: one row per group, then the pooled and new-group rows."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.betahdi import beta_hdi
from bayescm.core.stats import hdi
from bayescm.metrics import MetricInfo
from bayescm.plots._checks import POOLED_GROUPS, plot_function
from bayescm.plots._common import (
    draws_of,
    hdi_prob_of,
    info_of,
    label_of,
    percent,
    percent_axis,
    reference_line,
    unit_suffix,
)
from bayescm.plots._layout import fit_rows, share_range, title_pad
from bayescm.plots._legends import figure_legend, legend_under
from bayescm.plots._style import BLUE, GREEN, ORANGE, VERMILION, preset_size, pt

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["plot_group_forest"]

POOLED = {"tpr": ("tpr_mean", "tpr_new", False), "tnr": ("tnr_mean", "tnr_new", False),
          "fnr": ("tpr_mean", "tpr_new", True), "fpr": ("tnr_mean", "tnr_new", True)}
"""Rates whose population rows are the sampler's own variables: (pooled variable, new-group
variable, complement). Any other metric ``m`` uses ``m_mean`` and ``m_new`` when the fit stores
them (:data:`bayescm.models.pooled.RUN_SUFFIXES`)."""

UNPOOLED = {"tpr": ((0, 0), (0, 1), "TP / pos."), "tnr": ((1, 1), (1, 0), "TN / neg."),
            "fnr": ((0, 1), (0, 0), "FN / pos."), "fpr": ((1, 0), (1, 1), "FP / neg.")}
"""Rates that are one group's share of its counts: the cells (true, predicted) counted as
successes and as failures, and the header of the count column."""


@dataclass
class _Rows:
    name: str
    info: MetricInfo
    xlabel: str
    labels: list[str]
    mean: np.ndarray
    bounds: np.ndarray
    observed: np.ndarray | None
    unpooled: np.ndarray | None
    counts: list[str] | None
    header: str
    pooled: tuple[float, float, float] | None
    new: tuple[float, float, float] | None


def _summary(x: np.ndarray, prob: float) -> tuple[float, float, float]:
    lo, hi = hdi(x, prob)
    return float(x.mean()), float(lo), float(hi)


def _rows(idata: xr.DataTree, var: str, group: str, prob: float) -> _Rows:
    """The rows of one variable: every group, and the population's rows of a rate."""
    name, da = draws_of(idata, var, "posterior", keep=(group,))
    if group not in da.dims:
        raise ValueError(f"{name!r} has no value per {group}; a group forest draws per-{group} "
                         "variables (tpr, tnr, prevalence, ppv, ... and their aliases). The "
                         "pooled and new-group rows come with every metric the fit stores "
                         "as <metric>_mean and <metric>_new.")
    info = info_of(idata, name, da)
    labels = [str(v) for v in da[group].values]
    draws = np.asarray(da.transpose("chain", "draw", group).values, dtype=float)
    draws = draws.reshape(-1, len(labels))
    with np.errstate(invalid="ignore"):
        mean = draws.mean(axis=0)
    observed = None
    obs_group = box.get_group(idata, "observed_metrics")
    if name in obs_group:
        observed = np.asarray(obs_group[name].transpose(group).values, dtype=float)
    unpooled, counts, header = None, None, ""
    cells = np.asarray(box.get_group(idata, "observed_data")["counts"].transpose(
        group, "true_class", "pred_class").values)
    if name in UNPOOLED or name == "prevalence":
        if name == "prevalence":
            hits, misses, header = cells[:, 0].sum(axis=1), cells[:, 1].sum(axis=1), "pos. / N"
        else:
            (a, b), (c, d), header = UNPOOLED[name]
            hits, misses = cells[:, a, b], cells[:, c, d]
        # each group alone under a uniform prior: the exact Beta posterior, no pooling
        unpooled = beta_hdi(1.0 + hits, 1.0 + misses, prob)
        counts = [f"{h:,}/{h + m:,}" for h, m in zip(hits.tolist(), misses.tolist(),
                                                        strict=True)]
    pooled = new = None
    post = box.get_group(idata, "posterior")
    centre, fresh, flip = POOLED.get(name, (f"{name}_mean", f"{name}_new", False))
    if centre in post and fresh in post:
        values = [np.asarray(post[v].values, dtype=float).reshape(-1) for v in (centre, fresh)]
        if flip:
            values = [1.0 - v for v in values]
        pooled, new = _summary(values[0], prob), _summary(values[1], prob)
    return _Rows(name, info, label_of(da, name, idata) + unit_suffix(info), labels, mean,
                 hdi(draws, prob, axis=0), observed, unpooled, counts, header, pooled, new)


def _draw(ax: Axes, rows: _Rows, order: np.ndarray, group: str, prob: float, *,
          population: bool, ticks: bool, unpooled: bool, counts: bool, legend: bool) -> None:
    """One panel: the group rows top down in ``order``, then the population's rows.

    With ``population`` a gap follows the groups, then the pooled and new-group rows (left
    empty for a variable that has none, so panels side by side keep their rows aligned).
    """
    from matplotlib.patches import Polygon

    y = (3.0 if population else 0.0) + np.arange(len(order))[::-1]
    ax.hlines(y, rows.bounds[order, 0], rows.bounds[order, 1], color=BLUE, lw=2.5, gid="hdi",
              label=f"{100 * prob:g} % HDI (partially pooled)")
    ax.plot(rows.mean[order], y, "o", color=BLUE, ms=4, gid="mean", label="posterior mean")
    if unpooled and rows.unpooled is not None:
        ax.hlines(y - 0.28, rows.unpooled[order, 0], rows.unpooled[order, 1], color="0.6",
                  lw=1, gid="unpooled", label=f"{100 * prob:g} % HDI of the {group} alone")
    if rows.observed is not None:
        ax.plot(rows.observed[order], y, "x", color=VERMILION, ms=5, gid="observed",
                label="observed (unpooled)")
    if counts and rows.counts is not None:
        for row, i in zip(y, order, strict=True):
            ax.annotate(rows.counts[i], xy=(1.02, row), xycoords=("axes fraction", "data"),
                        va="center", fontsize=pt(8), color="0.35")
        ax.annotate(rows.header, xy=(1.02, 1.0), xycoords="axes fraction", va="bottom",
                    fontsize=pt(8), fontweight="bold")
    names = [rows.labels[i] for i in order]
    if population:
        ax.axhline(2, color="0.8", lw=0.8, zorder=0, gid="separator")
        y = np.r_[y, 1.0, 0.0]
        names += ["pooled", f"new {group}"]
    if rows.pooled is not None and rows.new is not None:
        mean, lo, hi = rows.pooled
        ax.add_patch(Polygon([(lo, 1), (mean, 1.32), (hi, 1), (mean, 0.68)], closed=True,
                             fc=ORANGE, ec=ORANGE, gid="pooled", label="pooled (population mean)"))
        mean, lo, hi = rows.new
        ax.hlines(0, lo, hi, color=GREEN, lw=2.5, gid="new", label=f"new {group} (prediction)")
        ax.plot(mean, 0, "D", color=GREEN, mfc="white", ms=6)
    ax.set_yticks(y, names if ticks else [""] * len(y))
    ax.set_ylim(-0.8, float(y.max()) + 0.8)
    percent_axis(ax.xaxis, rows.info)
    reference_line(ax, rows.info)
    ax.set_xlabel(rows.xlabel)
    ax.set_title(f"{rows.info.display_name} by {group}",
                 pad=title_pad(counts and rows.counts is not None))
    if legend:
        legend_under(ax, ncols=2)
    ax.spines[["top", "right"]].set_visible(False)


@overload
def plot_group_forest(idata: xr.DataTree, var: str = ..., hdi_prob: float | None = ...,
                      ax: Axes | None = ..., *, unpooled: bool = ..., counts: bool = ...,
                      sort: bool = ..., legend: bool = ...) -> Axes: ...
@overload
def plot_group_forest(idata: xr.DataTree, var: list[str] | tuple[str, ...],
                      hdi_prob: float | None = ...,
                      ax: Sequence[Axes] | None = ..., *, unpooled: bool = ...,
                      counts: bool = ..., sort: bool = ..., legend: bool = ...) -> Figure: ...
@plot_function(POOLED_GROUPS, many_ax=True)
def plot_group_forest(
    idata: xr.DataTree,
    var: str | Sequence[str] = "tpr",
    hdi_prob: float | None = None,
    ax: Any = None,
    *,
    unpooled: bool = True,
    counts: bool = True,
    sort: bool = False,
    legend: bool = True,
) -> Axes | Figure:
    """Meta-analysis forest of a hierarchical fit: the groups, the pooled rate, a new group.

    One row per group with its partially pooled posterior mean and HDI (blue), its observed
    rate (red cross) and, for rates that are a share of the group's counts, the HDI of the
    group analysed alone (grey: the exact Beta(1 + x, 1 + n - x) posterior under a uniform
    prior) and the counts ``x / n`` at the right. Comparing blue with grey shows the
    shrinkage: small groups move most towards the centre. Under the groups, for TPR and TNR
    (and their complements FNR and FPR), the pooled row (the population's centre,
    ``tpr_mean`` or ``tnr_mean``: an orange diamond spanning its HDI) and the new-group row
    (``tpr_new`` or ``tnr_new``, green: the prediction interval of the next group). Other
    per-group metrics (prevalence, PPV, ...) get the group rows only.

    Parameters
    ----------
    idata : xarray.DataTree
        A result of ``bcm.fit(matrices, model="hierarchical", group=...)``.
    var : str or list of str, default "tpr"
        A per-group metric (aliases such as ``"sensitivity"`` accepted), or several drawn side
        by side with shared rows (e.g. ``["tpr", "tnr"]``, the usual pair of paired forests) and,
        where their units agree, one x-range.
    hdi_prob : float, optional
        Interval probability; default the tree's, else ``rcParams["stats.hdi_prob"]``.
    ax : matplotlib.axes.Axes or list of Axes, optional
        Axes to draw on (one per variable for a list); default a new figure.
    unpooled : bool, default True
        Draw each group's own interval (rates with a Beta posterior per group).
    counts : bool, default True
        Write each group's ``x / n`` beside its row (the same rates).
    sort : bool, default False
        Order the groups by posterior mean (of the first variable), the best at the top;
        else the data's order, top down.
    legend : bool, default True
        Draw the legend (under the axes; under the first panel of a list).

    Returns
    -------
    matplotlib.axes.Axes or matplotlib.figure.Figure
        The Axes for one variable, the Figure for a list.

    Raises
    ------
    ValueError
        Not a hierarchical fit; a variable without a value per group (``tpr_mean``).

    See Also
    --------
    plot_sroc : The same fit in the ROC square.
    plot_forest : Forests of other fits.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_group_forest
    >>> from bayescm.models.hierarchical import HierarchicalModel
    >>> sites = HierarchicalModel.example_sites()  # six sites: {name: ConfusionMatrix}
    >>> # bcm.fit(sites, model="hierarchical", group="site", draws=500, chains=2), kept per process:
    >>> idata = HierarchicalModel.example()
    >>> ax = plot_group_forest(idata, "sensitivity")
    >>> ax.get_title(), [t.get_text() for t in ax.get_yticklabels()]
    ('TPR by site', ['A', 'B', 'C', 'D', 'E', 'F', 'pooled', 'new site'])

    Sensitivity and specificity side by side, sharing the rows:

    >>> fig = plot_group_forest(idata, ["tpr", "tnr"])
    >>> [a.get_title() for a in fig.axes]
    ['TPR by site', 'TNR by site']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    import matplotlib.pyplot as plt

    single = isinstance(var, str)
    names = [var] if isinstance(var, str) else list(var)
    if not names or not all(isinstance(v, str) for v in names):
        raise ValueError(f"var must be a metric name or a non-empty list of them, got {var!r}.")
    prob = hdi_prob_of(idata, hdi_prob)
    group = str(idata.attrs.get("group", "group"))
    panels = [_rows(idata, v, group, prob) for v in names]
    first = panels[0]
    if sort:
        key = np.where(np.isnan(first.mean), -np.inf,
                       first.mean if first.info.higher_is_better is not False else -first.mean)
        order = np.argsort(-key, kind="stable")
    else:
        order = np.arange(len(first.labels))
    population = any(p.pooled is not None for p in panels)
    n_rows = len(order) + (3 if population else 0)
    height = 1.9 + 0.27 * n_rows
    if single:
        if ax is None:
            _, ax = plt.subplots(figsize=preset_size((6.0, height)), layout="constrained")
        axes = [ax]
    elif ax is None:
        _, grid = plt.subplots(1, len(names), figsize=preset_size((4.4 * len(names), height)),
                               layout="constrained", squeeze=False)
        axes = list(grid[0])
    else:
        axes = list(ax)
        if len(axes) != len(names):
            raise ValueError(f"ax holds {len(axes)} Axes for {len(names)} variables; give one "
                             "Axes per variable, or none.")
    shared = not single and ax is None  # a figure of ours: one legend under every panel
    for i, (panel, target) in enumerate(zip(panels, axes, strict=True)):
        _draw(target, panel, order, group, prob, population=population, ticks=i == 0,
              unpooled=unpooled, counts=counts, legend=legend and i == 0 and not shared)
    if single:
        if ax is None:  # a figure of ours: tall enough for its rows
            fit_rows(axes[0], n_rows)
        return axes[0]
    # panels side by side are read across (a site's TPR beside its TNR): one x-range per unit
    by_unit: dict[tuple[bool, str], list[Any]] = {}
    for panel, target in zip(panels, axes, strict=True):
        by_unit.setdefault((percent(panel.info), panel.info.scale), []).append(target)
    for same in by_unit.values():
        share_range(same)
    figure = axes[0].get_figure(root=True)
    assert figure is not None  # drawn on a pyplot figure
    if legend and shared:
        seen: dict[str, Any] = {}
        for target in axes:
            for handle, text in zip(*target.get_legend_handles_labels(), strict=True):
                seen.setdefault(text, handle)
        figure_legend(figure, list(seen.values()), list(seen), min(3, len(seen)))
    if ax is None:  # a figure of ours, its legend in place: tall enough for its rows
        fit_rows(axes[0], n_rows)
    return figure
