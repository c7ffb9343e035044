"""The layout of a grid: panels without empty slots, and the one legend under them.

Every grid of the package is made by :func:`grid` (the API's, the spec runner's and the web
app's, which asks for a figure outside pyplot, ``pyplot=False``); :func:`marks_legend` explains
the marks its panels share.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bayescm.plots._layout import check_figsize
from bayescm.plots._legends import figure_legend
from bayescm.plots._metric import POSTERIOR_COLOR, PREDICTIVE_COLOR, PRIOR_COLOR
from bayescm.plots._observed import OBSERVED_COLOR, drew_observed
from bayescm.plots._style import grid_size, preset, preset_style

if TYPE_CHECKING:
    from matplotlib.artist import Artist
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["grid", "marks_legend"]


def grid(n: int, axes: Any, ncols: int, panel: tuple[float, float] = (3.2, 2.4), *,
         figsize: tuple[float, float] | None = None, pyplot: bool = True,
         min_width: float | None = None) -> tuple[Figure, list[Axes]]:
    """A figure of ``n`` panels without empty slots: a short last row is centred.

    Parameters
    ----------
    n : int
        Panels.
    axes : array of Axes or None
        Axes to draw on (at least ``n``); then nothing is made.
    ncols : int
        Panels per row.
    panel : tuple of float
        Size of one panel (inches), unless ``figsize`` gives the whole figure's; resized, with
        fewer panels per row, for ``rcParams["plot.preset"]``
        (:func:`~bayescm.plots._style.grid_size`).
    figsize : tuple of float, optional
        The figure's size (a journal column, a slide).
    pyplot : bool, default True
        Make the figure with pyplot (False: a bare :class:`~matplotlib.figure.Figure`, drawn
        in any thread and never left open, as the web app needs).
    min_width : float, optional
        The narrowest a panel may be made by a preset (default half of ``panel``'s width).

    Returns
    -------
    fig : matplotlib.figure.Figure
        The figure (``axes``' own when they were given).
    axes : list of matplotlib.axes.Axes
        Exactly ``n`` panels, row by row; a short last row is centred.

    Raises
    ------
    ValueError
        ``axes`` has fewer than ``n`` panels, or both ``axes`` and ``figsize`` were given.

    See Also
    --------
    plot_forests : A grid of forests made with it.
    marks_legend : The one legend under such a grid.

    Examples
    --------
    >>> from bayescm.plots import grid
    >>> fig, axes = grid(5, None, 3, pyplot=False)
    >>> len(axes), [round(float(v), 1) for v in fig.get_size_inches()]
    (5, [9.6, 5.2])
    """
    if axes is not None:
        flat_axes = list(np.ravel(axes))
        if len(flat_axes) < n:
            raise ValueError(f"{n} panels need at least {n} axes, got {len(flat_axes)}.")
        if figsize is not None:
            raise ValueError("Give axes= or figsize=, not both: the figure of axes has its size.")
        return flat_axes[0].figure, flat_axes
    ncols, size = grid_size(n, ncols, panel, min_width=min_width)  # a column: fewer per row
    nrows = int(np.ceil(n / ncols))
    size = check_figsize(figsize) or size
    if pyplot:
        import matplotlib.pyplot as plt

        fig = plt.figure(figsize=size, layout="constrained")
    else:
        from matplotlib.figure import Figure

        fig = Figure(figsize=size, layout="constrained")
    spec = fig.add_gridspec(nrows, 2 * ncols)
    flat_axes = []
    with preset_style():  # the axes' ticks and labels take the preset's sizes when made
        for i in range(n):
            row, col = divmod(i, ncols)
            in_row = ncols if row < nrows - 1 else n - ncols * (nrows - 1)
            start = (ncols - in_row) + 2 * col  # centre a short last row
            flat_axes.append(fig.add_subplot(spec[row, start:start + 2]))
    return fig, flat_axes


def marks_legend(fig: Figure, prob: float, prior: bool = False, predictive: bool = False,
                 overlay: bool = False, forest: bool = False, density: bool = True,
                 series: tuple[list[Any], list[str]] | None = None,
                 observed: str = "observed") -> None:
    """One legend under a grid for the marks its panels share (``forest``: and the forests').

    Parameters
    ----------
    fig : matplotlib.figure.Figure
        The grid's figure; the legend goes under its panels.
    prob : float
        The HDI probability the shaded bands show (named in the legend).
    prior : bool, default False
        The panels overlay the prior density.
    predictive : bool, default False
        The panels overlay the posterior predictive of the observed rate.
    overlay : bool, default False
        Several classifiers or classes share a panel, one colour each, HDIs drawn as bars.
    forest : bool, default False
        Some panels are forests: their mean and interval marks are listed too.
    density : bool, default True
        Some panels are densities (False: a grid of forests only, their marks alone).
    series : tuple of (list, list of str), optional
        Handles and labels of the overlaid classifiers or classes, listed first.
    observed : str, default "observed"
        What the observed values are called (``"plug-in"`` at a deployment prevalence, see
        :func:`observed_name`); they are listed only where a panel drew one.

    Returns
    -------
    None
        The legend is added to ``fig``.

    See Also
    --------
    grid : The panels the legend sits under.
    legend_clear : A legend inside one panel, clear of its marks.

    Examples
    --------
    >>> from bayescm.plots import grid, marks_legend
    >>> fig, axes = grid(2, None, 2, pyplot=False)
    >>> _ = [ax.axvline(0.5, label="observed value") for ax in axes]
    >>> marks_legend(fig, 0.95)
    >>> [t.get_text() for t in fig.legends[0].get_texts()][:2]
    ['posterior density', '95 % HDI']
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles: list[Artist] = [
               Line2D([], [], color=POSTERIOR_COLOR, lw=2, label="posterior density"),
               Patch(color=POSTERIOR_COLOR, alpha=0.3, label=f"{100 * prob:g} % HDI"),
               Line2D([], [], color=OBSERVED_COLOR, lw=1.5, label=f"{observed} value")]
    if overlay:  # several classifiers or classes: one colour each, HDIs as bars
        handles[0] = Line2D([], [], color="0.3", lw=2, label="posterior density")
        handles[1] = Line2D([], [], color="0.3", lw=3, label=f"{100 * prob:g} % HDI (bar)")
        handles[2] = Line2D([], [], color="0.3", lw=1, ls=":", label=f"{observed} value")
    if not drew_observed(fig.axes):  # a value that was not observed is not listed
        del handles[2]
    if prior:
        handles.append(Line2D([], [], color=PRIOR_COLOR, lw=1.5, ls="--", label="prior"))
    if predictive:
        handles.append(Patch(color=PREDICTIVE_COLOR, alpha=0.25, label="posterior predictive"))
    if forest:
        where = " (forests)" if density else ""
        rows: list[Artist] = [
            Line2D([], [], color=POSTERIOR_COLOR, lw=2.5, label=f"{100 * prob:g} % HDI{where}"),
            Line2D([], [], color=POSTERIOR_COLOR, marker="o", ls="", ms=4,
                   label=f"posterior mean{where}")]
        if drew_observed(fig.axes, marks=True):
            rows.append(Line2D([], [], color=OBSERVED_COLOR, marker="x", ls="",
                               label=f"{observed}{where}"))
        handles = handles + rows if density else rows
    references = sorted({str(line.get_label()) for ax in fig.axes for line in ax.get_lines()
                         if line.get_gid() == "reference" and not
                         str(line.get_label()).startswith("_")})
    handles += [Line2D([], [], color="0.35", lw=0.9, ls=":", label=" or ".join(references))
                ] if references else []
    width = fig.get_size_inches()[0] / preset().scale  # in default-preset text widths
    if series:
        handles = [*series[0], *handles]
        labels = [*series[1], *(str(h.get_label()) for h in handles[len(series[0]):])]
        figure_legend(fig, handles, labels, max(1, int(width / 1.2)))
        return
    figure_legend(fig, handles, [str(h.get_label()) for h in handles],
                  max(1, int(width / 1.55)))
