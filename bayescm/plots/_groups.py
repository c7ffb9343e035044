"""Subgroup gaps: each group's gap to a reference, its tolerance band and P(outside the band)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr
from matplotlib import ticker

from bayescm.comparisons.groups_draws import compute_gaps
from bayescm.core.stats import hdi
from bayescm.metrics import metric_info
from bayescm.plots._checks import plot_function
from bayescm.plots._common import (
    hdi_prob_of,
    percent,
    percent_axis,
    unit_suffix,
)
from bayescm.plots._layout import fit_rows, new_axes, title_pad
from bayescm.plots._legends import legend_under
from bayescm.plots._observed import observed_name
from bayescm.plots._style import BLUE, VERMILION, preset, pt

if TYPE_CHECKING:
    from collections.abc import Sequence

    from matplotlib.axes import Axes

__all__ = ["plot_group_gaps"]

_TITLES = {"tpr_gap": "Equal opportunity", "fpr_gap": "Equalized odds (FPR)",
           "ppv_ratio": "Predictive parity", "ppv_gap": "Predictive parity",
           "selection_rate_ratio": "Demographic parity", "selection_rate_gap": "Demographic parity"}


def _rows(tree: xr.DataTree, measure: str, reference: Any, epsilon: float,
          ratio_bounds: Any, groups: Any, min_items: Any
          ) -> tuple[xr.Dataset, str, list[str], np.ndarray, np.ndarray, np.ndarray]:
    """The gaps of one measure: dataset, name, rows (no reference), draws, observed, flags."""
    ds, observed = compute_gaps(tree, reference, [measure], epsilon, ratio_bounds, groups,
                                min_items)
    name = next(str(k) for k, v in ds.data_vars.items() if "measure" in v.attrs)
    dim = str(ds.attrs["group_dim"])
    names = [str(v) for v in ds[dim].values]
    keep = [i for i, n in enumerate(names) if n != ds.attrs["reference"]]
    x = np.asarray(ds[name].transpose("chain", "draw", dim).values).reshape(-1, len(names))
    return (ds, name, [names[i] for i in keep], x[:, keep], observed[name][keep],
            np.asarray(ds["prior_dominated"].values)[keep])


def _p_outside(x: np.ndarray, lower: float, upper: float) -> np.ndarray:
    finite = np.isfinite(x)
    with np.errstate(invalid="ignore", divide="ignore"):
        return (((x < lower) | (x > upper)) & finite).sum(axis=0) / finite.sum(axis=0)


def _share(p: float) -> str:
    if not np.isfinite(p):
        return "-"
    pct = 100 * p
    return "<1 %" if pct < 1 else ">99 %" if pct > 99 else f"{pct:.0f} %"


@plot_function()
def plot_group_gaps(
    idata: xr.DataTree,
    measure: str = "tpr_gap",
    epsilon: float = 0.05,
    ax: Axes | None = None,
    hdi_prob: float | None = None,
    *,
    reference: str | None = None,
    ratio_bounds: tuple[float, float] = (0.8, 1.25),
    unpooled: xr.DataTree | None = None,
    groups: Sequence[str] | None = None,
    min_items: int | None = None,
    legend: bool = True,
    figsize: tuple[float, float] | None = None,
) -> Axes:
    """Each group's gap to the reference: HDI, mean, the tolerance band and P(outside it).

    One row per group (the reference is the axis' zero, or one for ratios). The shaded band is
    ``|gap| <= epsilon`` (a ratio: ``ratio_bounds``); beside each row the posterior probability
    that the gap lies outside it. Prior-dominated groups (too few items of a class; see
    :mod:`bayescm.comparisons.groups`) have hollow markers and grey labels. The crosses are the
    gaps of the raw rates ``count / N``; with ``unpooled=`` the unpooled fit's intervals are
    drawn in grey under the pooled ones, so the figure shows what pooling does to each group.

    Parameters
    ----------
    idata : xarray.DataTree
        A hierarchical fit or a plain batch fit of binary matrices, one per group.
    measure : str, default "tpr_gap"
        ``"<metric>_gap"`` or ``"<metric>_ratio"``, as in
        :func:`~bayescm.comparisons.groups.group_gaps` (``"fpr_gap"``, ``"ppv_ratio"``,
        ``"selection_rate_ratio"``, ...).
    epsilon : float, default 0.05
        Half-width of the band of a difference.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure sized to the rows.
    hdi_prob : float, optional
        HDI probability; default the fit's, else ``rcParams["stats.hdi_prob"]``.
    reference : str, optional
        The reference group; default the largest.
    ratio_bounds : (float, float), default (0.8, 1.25)
        The band of a ratio.
    unpooled : xarray.DataTree, optional
        An unpooled fit of the same groups (:func:`~bayescm.comparisons.groups.unpooled_fit`),
        drawn alongside.
    groups : list of str, optional
        Only these groups.
    min_items : int, optional
        The prior-dominated rule, as in :func:`~bayescm.comparisons.groups.group_gaps`.
    legend : bool, default True
        Draw the legend.
    figsize : tuple of float, optional
        Size of a new figure in inches, e.g. (3.5, 2.6) for a journal column (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on: ``ax`` when given, else those of a new figure (``ax.figure`` to save
        it).

    Raises
    ------
    KeyError, ValueError
        As :func:`~bayescm.comparisons.groups.group_gaps`; an ``unpooled`` fit without the
        groups shown.

    See Also
    --------
    bayescm.group_gaps : The gaps drawn here.
    bayescm.fairness_table : The same as a table.
    plot_group_forest : Each group's metric rather than its gap.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_group_gaps
    >>> fit = bcm.fit(bcm.datasets.subgroups(), random_seed=0)
    >>> ax = plot_group_gaps(fit, "tpr_gap")
    >>> ax.get_title()
    "Equal opportunity: TPR gap to '30-44'"
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['under 18', '18-29', '45-59', '60-74', '75+']
    >>> [t.get_text() for t in ax.texts if t.get_gid() == "p_exceeds:60-74"]
    ['>99 %']

    Ratios are drawn on a log axis, with the four-fifths band:

    >>> ax = plot_group_gaps(fit, "selection_rate_ratio")
    >>> ax.get_xscale(), ax.get_title()
    ('log', "Demographic parity: selection rate ratio to '30-44'")
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    prob = hdi_prob_of(idata, hdi_prob)
    ds, name, rows, x, observed, flags = _rows(idata, measure, reference, epsilon, ratio_bounds,
                                               groups, min_items)
    ref = str(ds.attrs["reference"])
    da = ds[name]
    lower, upper = float(da.attrs["lower"]), float(da.attrs["upper"])
    ratio = da.attrs["measure"] == "ratio"
    metric = str(da.attrs["metric"])
    info = metric_info(metric, "binary")
    what = "selection rate" if metric == "bias" else info.display_name
    other = None
    if unpooled is not None:
        shown = [*rows, ref]
        try:
            _, _, rows_u, x_u, _, _ = _rows(unpooled, measure, ref, epsilon, ratio_bounds,
                                            shown, min_items)
        except KeyError as exc:
            raise KeyError(f"unpooled= must be a fit of the same groups ({', '.join(shown)}): "
                           f"{exc.args[0]} Make it with bcm.compare.unpooled_fit(idata).") from None
        other = x_u[:, [rows_u.index(r) for r in rows]]
    n = len(rows)
    y = np.arange(n, dtype=float)[::-1]  # the first group at the top
    own = ax is None and figsize is None  # a figure of ours: it may grow to fit the rows
    ax = new_axes(ax, figsize, default=(6.5, 1.4 + 0.32 * n * (1.6 if other is not None else 1.0)))
    size = (f"{100 * upper:g} pp" if percent(info) and info.proportional else f"{upper:g}"
            ) if not ratio else ""
    band = f"|gap| ≤ {size}" if not ratio else f"ratio in [{lower:g}, {upper:g}]"
    ax.axvspan(lower, upper, color="0.88", lw=0, zorder=0, gid="tolerance", label=band)
    ax.axvline(1.0 if ratio else 0.0, color="0.35", lw=0.9, ls=":", zorder=1, gid="reference")
    shift = 0.14 if other is not None else 0.0
    bounds = hdi(x, prob, axis=0)
    ax.hlines(y + shift, bounds[:, 0], bounds[:, 1], color=BLUE, lw=2.5, gid="hdi",
              label=f"{100 * prob:g} % HDI" + ("" if other is None else " (pooled)" if str(
                  ds.attrs["source"]).startswith("hierarchical") else " (this fit)"))
    mean = x.mean(axis=0)
    for hollow in (False, True):
        pick = flags == hollow
        if pick.any():
            ax.plot(mean[pick], (y + shift)[pick], "o", color=BLUE, ms=5,
                    mfc="white" if hollow else BLUE, gid="mean_prior_dominated" if hollow
                    else "mean", label="prior-dominated group" if hollow else "_mean")
    if np.isfinite(observed).any():  # the gaps of the raw rates, where they are defined
        ax.plot(observed, y + shift, "x", color=VERMILION, ms=6, gid="observed",
                label=observed_name(idata))
    p = _p_outside(x, lower, upper)
    p_other = _p_outside(other, lower, upper) if other is not None else None
    if other is not None:
        b_u = hdi(other, prob, axis=0)
        ax.hlines(y - shift, b_u[:, 0], b_u[:, 1], color="0.6", lw=1.5, gid="hdi_unpooled",
                  label=f"{100 * prob:g} % HDI (unpooled)")
        ax.plot(other.mean(axis=0), y - shift, "o", color="0.6", ms=3.5, gid="mean_unpooled",
                label="_mean_unpooled")
    ax.set_yticks(y, rows)
    for label, flagged in zip(ax.get_yticklabels(), flags, strict=True):
        if flagged:
            label.set_color("0.45")
            label.set_fontstyle("italic")
    ax.set_ylim(-0.7, n - 0.3)
    for i, row in enumerate(rows):
        text = _share(float(p[i])) + (f" ({_share(float(p_other[i]))})"
                                      if p_other is not None else "")
        ax.annotate(text, xy=(1.01, y[i]), xycoords=("axes fraction", "data"), va="center",
                    fontsize=pt(8), gid=f"p_exceeds:{row}")
    head = f"P(|gap| > {size})" if not ratio else "P(outside)"
    ax.annotate(head + (" (unpooled)" if other is not None else ""), xy=(1.01, 1.0),
                xycoords="axes fraction", va="bottom", fontsize=pt(8), fontweight="bold")
    if ratio:
        _log_axis(ax, x, other, lower, upper, prob)
        ax.set_xlabel(f"{what} ratio: group / {ref!r} (log scale)")
    else:
        if info.proportional:  # a gap of LR+ or DOR is drawn in its raw units
            percent_axis(ax.xaxis, info, points=True)
        ax.set_xlabel(f"{what} gap: group - {ref!r}" + (
            unit_suffix(info, points=True) if info.proportional else ""))
    ax.set_ylabel(str(ds.attrs["group_dim"]))
    title = _TITLES.get(name)
    ax.set_title((f"{title}: " if title else "") + f"{what} {'ratio' if ratio else 'gap'} to "
                 f"{ref!r}", pad=title_pad(True))
    if legend:  # under the x label, clear of the rows
        legend_under(ax, ncols=3)
    ax.spines[["top", "right"]].set_visible(False)
    if own:
        fit_rows(ax, n, 1.6 if other is not None else 1.0)
    return ax


def _log_axis(ax: Axes, x: np.ndarray, other: np.ndarray | None, lower: float, upper: float,
              prob: float) -> None:
    """A log x axis over the band and the intervals, at most 10 times beyond the band.

    An interval that reaches further (a group without positives has a PPV near 0) runs off
    the edge instead of squeezing every other row into a corner.
    """
    ends = hdi(x if other is None else np.concatenate([x, other], axis=1), prob, axis=0)
    ends = ends[np.isfinite(ends) & (ends > 0)]
    lo = max(min(lower, float(ends.min())), lower / 10) if ends.size else lower
    hi = min(max(upper, float(ends.max())), upper * 10) if ends.size else upper
    ax.set_xscale("log")
    ax.set_xlim(lo / 1.15, hi * 1.15)
    # ticks by priority (1, the decades, 2 and 5, the band's edges), each kept only if it
    # stays clear of those kept: in a narrow figure 0.8, 1 and 1.25 ran together
    fig = ax.get_figure(root=True)
    assert fig is not None  # drawn on a figure
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)  # the axes' width once labels have their room
    inches = ax.get_position().width * float(fig.get_size_inches()[0])
    span = np.log10(hi * 1.15) - np.log10(lo / 1.15)
    gap = 0.32 * preset().scale * span / max(inches, 0.1)  # a label's width, in decades
    kept: list[float] = []
    for tick in (1.0, 0.1, 10.0, 0.01, 100.0, 0.2, 5.0, 0.5, 2.0, 0.02, 50.0, 0.05, 20.0, lower,
                 upper):
        if lo / 1.15 <= tick <= hi * 1.15 and all(
                abs(np.log10(tick / k)) >= gap for k in kept):
            kept.append(tick)
    ax.set_xticks(sorted(kept))
    ax.xaxis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{v:g}"))
    ax.xaxis.set_minor_locator(ticker.NullLocator())
