"""The summary ROC plot of a hierarchical fit (groups, SROC curve, summary point and regions)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from bayescm.analyses.sroc import sroc_regions
from bayescm.plots._checks import HIERARCHICAL, plot_function
from bayescm.plots._common import (
    hdi_prob_of,
    info_of,
    percent_axis,
    unit_suffix,
)
from bayescm.plots._layout import new_axes
from bayescm.plots._style import BLUE, VERMILION, pt

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_sroc", "plural"]

OUTSIDE = ("fade", "hide", "show")
"""How :func:`plot_sroc` draws the SROC curve beyond the FPRs the groups observed."""


def plural(word: str, count: int) -> str:
    """``'1 study'``, ``'14 studies'``, ``'3 sites'``: a count of groups for titles.

    Examples
    --------
    >>> from bayescm.plots._sroc import plural
    >>> plural("study", 14), plural("site", 1), plural("subgroups", 2)
    ('14 studies', '1 site', '2 subgroups')
    """
    if count == 1 or word.endswith("s"):
        return f"{count:,} {word}"
    if word.endswith("y") and word[-2:-1] not in ("a", "e", "i", "o", "u", ""):
        return f"{count:,} {word[:-1]}ies"
    return f"{count:,} {word}s"


@plot_function(HIERARCHICAL)
def plot_sroc(
    idata: xr.DataTree,
    hdi_prob: float | None = None,
    ax: Axes | None = None,
    *,
    outside: str = "fade",
    labels: bool = False,
    legend: bool = True,
    figsize: tuple[float, float] | None = None,
) -> Axes:
    """Summary ROC of a hierarchical fit: groups, SROC curve, summary point and its regions.

    Drawn in the ROC square (FPR across, TPR up):

    * each group's observed (unpooled) point, its area proportional to the group's items;
    * the posterior mean SROC curve (``E[TPR | FPR]`` of the population of groups) with its
      pointwise HDI band. Between the smallest and largest observed FPR it is solid; beyond
      that range the model extrapolates, so by default the curve is dashed and faded there
      (RevMan and mada draw it only over the observed range: ``outside="hide"``);
    * the summary point, the posterior mean of ``(1 - tnr_mean, tpr_mean)``;
    * its credible region (solid outline) and the prediction region of a new group (dashed
      outline), both holding ``hdi_prob`` of their draws: ellipses on the logit scale mapped
      back to the square (the method is described in :mod:`bayescm.analyses.sroc`);
    * the chance diagonal.

    Parameters
    ----------
    idata : xarray.DataTree
        A result of ``bcm.fit(matrices, model="hierarchical", group=...)``.
    hdi_prob : float, optional
        Probability of the band and the regions; default the tree's, else
        ``rcParams["stats.hdi_prob"]``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new square figure.
    outside : {"fade", "hide", "show"}, default "fade"
        The SROC curve and band beyond the observed FPR range: the curve dashed and faded
        without its band, left out, or drawn like the rest.
    labels : bool, default False
        Write each group's name beside its point.
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
    ValueError
        ``idata`` is not a hierarchical fit; an unknown ``outside``.

    See Also
    --------
    bayescm.sroc_regions : The same curve, point and regions as data.
    plot_group_forest : The groups' rates one row each, with the pooled and new-group rows.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_sroc
    >>> from bayescm.models.hierarchical import HierarchicalModel
    >>> sites = HierarchicalModel.example_sites()  # six sites: {name: ConfusionMatrix}
    >>> # bcm.fit(sites, model="hierarchical", group="site", draws=500, chains=2), kept per process:
    >>> idata = HierarchicalModel.example()
    >>> ax = plot_sroc(idata, labels=True)
    >>> ax.get_title()
    'Summary ROC of 6 sites'
    >>> sorted(line.get_gid() for line in ax.get_lines() if line.get_gid())
    ['chance', 'credible', 'prediction', 'sroc', 'sroc_outside', 'summary']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    if outside not in OUTSIDE:
        raise ValueError(f"outside must be one of {', '.join(map(repr, OUTSIDE))}, got "
                         f"{outside!r}.")
    prob = hdi_prob_of(idata, hdi_prob)
    regions = sroc_regions(idata, hdi_prob=prob)
    group = str(regions.attrs["group"])
    info = info_of(idata, "tpr")
    ax = new_axes(ax, figsize, default=(5.4, 5.2))
    ax.plot([0, 1], [0, 1], color="0.6", lw=0.9, ls=":", gid="chance", zorder=0)

    grid = np.asarray(regions["sroc_fpr"].values, dtype=float)
    inside = np.asarray(regions["in_observed_range"].values, dtype=bool)
    mean = np.asarray(regions["sroc_mean"].values)
    low, high = regions["sroc_lower"].values, regions["sroc_upper"].values
    ax.fill_between(grid, low, high, where=inside, color=BLUE, alpha=0.22, lw=0, gid="band",
                    label=f"{100 * prob:g} % band of the SROC", interpolate=True)
    ax.plot(np.where(inside, grid, np.nan), mean, color=BLUE, lw=2, gid="sroc",
            label="SROC curve (posterior mean)")
    if outside != "hide":
        faint = outside == "fade"
        beyond = ~inside
        # the grid points next to the observed range join the outer pieces to the solid one
        beyond |= np.r_[beyond[1:], False] | np.r_[False, beyond[:-1]]
        if not faint:  # faded: the dashed mean alone; a band of pure extrapolation would
            # cover most of ROC space and hide the studies and regions
            ax.fill_between(grid, low, high, where=beyond, color=BLUE, alpha=0.22, lw=0,
                            gid="band_outside", interpolate=True)
        ax.plot(np.where(beyond, grid, np.nan), mean, color=BLUE, lw=1.3 if faint else 2,
                ls="--" if faint else "-", alpha=0.55 if faint else 1.0, gid="sroc_outside",
                label="SROC beyond the observed FPRs" if faint else None)

    n = np.asarray(regions["n_items"].values, dtype=float)
    sizes = 15.0 + 285.0 * n / max(float(n.max()), 1.0)
    ax.scatter(regions["observed_fpr"].values, regions["observed_tpr"].values, s=sizes,
               facecolors="none", edgecolors="0.25", lw=0.9, gid="groups", zorder=3,
               clip_on=False,
               label=f"{group} (observed; area: items)")
    if labels:
        for name, x, y in zip(regions[group].values, regions["observed_fpr"].values,
                              regions["observed_tpr"].values, strict=True):
            if np.isfinite(x) and np.isfinite(y):
                ax.annotate(str(name), (float(x), float(y)), xytext=(4, 3), fontsize=pt(8),
                            textcoords="offset points", color="0.3")

    for region, style in (("credible", "-"), ("prediction", "--")):
        edge = regions.sel(region=region)
        ax.plot(edge["fpr"].values, edge["tpr"].values, color=VERMILION, lw=1.4, ls=style,
                gid=region, zorder=4,
                label=f"{100 * prob:g} % {region} region" + (" (new group)" if region ==
                                                                "prediction" else ""))
    ax.plot(float(regions["summary_fpr"]), float(regions["summary_tpr"]), "o", color=VERMILION,
            ms=7, mec="white", mew=1, gid="summary", zorder=5,
            label="summary point (posterior mean)")

    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_aspect("equal")
    percent_axis(ax.xaxis, info)
    percent_axis(ax.yaxis, info)
    ax.set_xlabel("false positive rate, 1 - specificity" + unit_suffix(info))
    ax.set_ylabel("true positive rate, sensitivity" + unit_suffix(info))
    ax.set_title(f"Summary ROC of {plural(group, regions.sizes[group])}", pad=10)
    if legend:
        ax.legend(fontsize=pt(8), frameon=False, loc="lower right")
    ax.spines[["top", "right"]].set_visible(False)
    return ax
