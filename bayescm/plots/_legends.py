"""Legends that cover no mark: under the axes, beside a wide figure's square, in a free corner.

A legend over a curve or a point hides what the figure shows (the reliability diagram's sat on
its points). :func:`legend_under` anchors one a fixed distance under the x label (re-anchored
by :func:`~bayescm.plots._layout.fit_labels` when the label wraps); :func:`legend_aside` puts
it beside a square panel of a wide figure (a slide); :func:`legend_clear` finds a free top
corner, raising the y-range if need be; :func:`figure_legend` puts one under all the panels,
in as many columns as fit.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

from bayescm.plots._layout import _UNDER, _renderer, _under, fit_labels
from bayescm.plots._style import MIN_FONT, pt

__all__ = ["MOST_HEADROOM", "figure_legend", "legend_aside", "legend_clear", "legend_under"]


def legend_under(ax: Any, handles: list[Any] | None = None, labels: list[str] | None = None,
                 **kwargs: Any) -> Any:
    """A legend under the axes' x label, clear of every mark drawn in the axes.

    Anchored a fixed distance in points under the axes (the height of the tick labels and the
    axis label in the current preset), not a fraction of the axes' height: a legend placed by
    a fraction moves when the layout resizes the axes, and a constrained layout then cannot
    settle (the ROC curve's title was pushed out of the figure that way). ``kwargs`` go to
    :meth:`~matplotlib.axes.Axes.legend` (``ncols``, ``title``, ...).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from bayescm.plots._legends import legend_under
    >>> fig, ax = plt.subplots(layout="constrained")
    >>> _ = ax.plot([0, 1], [0, 1], label="a line")
    >>> legend_under(ax)._loc
    9
    >>> plt.close(fig)
    """
    if handles is None or labels is None:
        handles, labels = ax.get_legend_handles_labels()
    options = {"fontsize": pt(MIN_FONT), "frameon": False, "loc": "upper center",
               "bbox_to_anchor": (0.5, 0.0), "bbox_transform": _under(ax), **kwargs}
    fig = ax.get_figure(root=True)
    spec = ax.get_subplotspec() if hasattr(ax, "get_subplotspec") else None
    slot = (spec.get_position(fig) if spec is not None else ax.get_position()).width
    for columns in range(int(options.pop("ncols", 1)), 0, -1):
        # columns side by side only where the panel has the room
        legend = ax.legend(handles, labels, ncols=columns, **options)
        if (columns == 1 or legend.get_window_extent(_renderer(fig)).width
                <= 0.98 * slot * fig.bbox.width):
            break
    _UNDER[ax] = legend
    return legend


def figure_legend(fig: Any, handles: list[Any], labels: list[str], ncols: int,
                  **kwargs: Any) -> Any:
    """One legend under all the panels of ``fig``, in at most ``ncols`` columns that fit.

    Fewer columns when ``ncols`` would be wider than the figure (a journal column's).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from matplotlib.lines import Line2D
    >>> from bayescm.plots._legends import figure_legend
    >>> fig, ax = plt.subplots(figsize=(3.5, 2.6), layout="constrained")
    >>> handles = [Line2D([], [], label=f"a rather long legend entry {i}") for i in range(4)]
    >>> figure_legend(fig, handles, [h.get_label() for h in handles], ncols=4)._ncols
    1
    >>> plt.close(fig)
    """
    options = {"loc": "outside lower center", "frameon": False, "fontsize": pt(MIN_FONT),
               **kwargs}
    renderer = _renderer(fig)
    for columns in range(max(1, min(ncols, len(handles))), 0, -1):
        legend = fig.legend(handles, labels, ncols=columns, **options)
        if columns == 1 or legend.get_window_extent(renderer).width <= 0.98 * fig.bbox.width:
            return legend
        legend.remove()
    raise AssertionError("unreachable: one column is always accepted")


def legend_aside(ax: Any, handles: list[Any] | None = None, labels: list[str] | None = None,
                 **kwargs: Any) -> Any:
    """A legend beside a square panel in a wide slot (a slide's figure), else under it.

    The slot is the panel's share of its figure (a figure of two panels side by side gives
    each a slot half as wide).

    Beside the panel, entries longer than 40 characters wrap, so the square keeps most of
    the width.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from bayescm.plots._legends import legend_aside
    >>> fig, ax = plt.subplots(figsize=(10, 5.6), layout="constrained")
    >>> _ = ax.plot([0, 1], [0, 1], label="a line")
    >>> legend_aside(ax)._loc  # upper left of the space right of the axes
    2
    >>> plt.close(fig)
    """
    fig = ax.get_figure(root=True)
    spec = ax.get_subplotspec() if hasattr(ax, "get_subplotspec") else None
    slot = spec.get_position(fig) if spec is not None else ax.get_position()
    width, height = fig.get_size_inches()
    if slot.width * width < 1.4 * slot.height * height:
        return legend_under(ax, handles, labels, **kwargs)
    import textwrap

    if handles is None or labels is None:
        handles, labels = ax.get_legend_handles_labels()
    labels = ["\n".join(textwrap.fill(line.replace(" %", "\xa0%"), 40, subsequent_indent="   ",
                                      break_long_words=False).replace("\xa0%", " %")
                        for line in label.split("\n")) for label in labels]  # '83.1 %' whole
    options = {"fontsize": pt(MIN_FONT), "frameon": False, "loc": "upper left",
               "bbox_to_anchor": (1.03, 1.0), **kwargs}
    return ax.legend(handles, labels, **options)


MOST_HEADROOM = 1.8
"""Most a panel's y-range is stretched to keep a legend clear of its curves; beyond, the
legend goes under the axes (:func:`legend_clear`)."""


def _dense(xy: np.ndarray, step: float = 0.005) -> np.ndarray:
    """The points of a polyline (axes coordinates) every ``step`` of the axes' side."""
    xy = xy[np.isfinite(xy).all(axis=1)]
    if len(xy) < 2:
        return xy
    parts = [xy[:1]]
    for a, b in itertools.pairwise(xy):
        n = max(1, int(np.ceil(np.hypot(*(b - a)) / step)))
        parts.append(a + (b - a) * np.linspace(0.0, 1.0, n + 1)[1:, None])
    return np.concatenate(parts)


def _marks(ax: Any) -> tuple[np.ndarray, np.ndarray]:
    """The plotted marks of ``ax`` in axes coordinates (0 to 1), reference lines left out.

    Returns the points (along lines and segments, scatter points, the corners of bars and
    filled areas) and the x positions of vertical lines across the axes (an observed value),
    which a legend must not cross.
    """
    from matplotlib.collections import LineCollection, PathCollection

    to_axes = ax.transAxes.inverted()
    parts, verticals = [np.empty((0, 2))], []
    for line in ax.get_lines():
        if line.get_gid() == "reference" or not line.get_visible():
            continue
        xy = np.asarray(line.get_xydata(), dtype=float).reshape(-1, 2)
        if len(xy) == 0:
            continue
        xy = to_axes.transform(line.get_transform().transform(xy))
        if line.get_transform() != ax.transData and np.ptp(xy[:, 0]) == 0:  # axvline
            verticals += list(xy[:, 0])
            continue
        curve = line.get_linestyle() not in ("None", " ", "", "none")
        parts.append(_dense(xy) if curve else xy)
    for coll in ax.collections:
        if isinstance(coll, PathCollection):
            offsets = np.asarray(coll.get_offsets(), dtype=float).reshape(-1, 2)
            parts.append(to_axes.transform(coll.get_offset_transform().transform(offsets)))
        elif isinstance(coll, LineCollection):
            parts += [_dense(to_axes.transform(coll.get_transform().transform(
                np.asarray(seg, dtype=float)))) for seg in coll.get_segments()]
    for patch in ax.patches:
        verts = patch.get_verts()
        if len(verts):
            parts.append(to_axes.transform(verts))
    xy = np.concatenate(parts)
    x = np.asarray(verticals, dtype=float)
    return xy[np.isfinite(xy).all(axis=1)], x[np.isfinite(x)]


def _corner(ax: Any, fig: Any, candidates: tuple[str, ...], options: dict[str, Any]
            ) -> tuple[float, str]:
    """The legend in the first free corner, else in the one that needs the least headroom.

    Returns that factor (1 or less: free) and the corner; the legend is left there.
    """
    fit_labels(fig)  # the labels' final lines, then the axes' final size: the legend's share
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)
    renderer = _renderer(fig)
    marks, verticals = _marks(ax)
    marks = marks[(marks[:, 0] >= 0) & (marks[:, 0] <= 1) & (marks[:, 1] >= 0)]  # in view
    best: tuple[float, str] | None = None
    for loc in candidates:
        legend = ax.legend(loc=loc, **options)
        box = legend.get_window_extent(renderer).transformed(ax.transAxes.inverted())
        under = marks[(marks[:, 0] >= box.x0) & (marks[:, 0] <= box.x1)]
        top = float(under[:, 1].max()) if len(under) else 0.0
        room = box.y0 - 0.03  # the legend's lower edge, a little margin under it
        need = top / room if room > 0 else np.inf  # how much taller the y-range must be
        if ((verticals >= box.x0) & (verticals <= box.x1)).any():
            need = np.inf  # it would cross the observed value's line
        if need <= 1.0:
            return need, loc  # the first corner that is free as it is
        if best is None or need < best[0]:
            best = (need, loc)
    assert best is not None
    ax.legend(loc=best[1], **options)
    return best


def legend_clear(ax: Any, candidates: tuple[str, ...] = ("upper right", "upper left"),
                 **kwargs: Any) -> Any:
    """A legend in a top corner of ``ax`` with no curve or point under it.

    The first of the ``candidates`` that is free is taken, else the corner whose legend needs
    the least headroom, and the y-range is raised until the plotted marks under the legend's
    width stay below it; when that would squash the curves (more than :data:`MOST_HEADROOM`
    times the range), the legend goes under the axes (:func:`legend_under`) instead. The
    legend's size is measured after the figure's layout, so a small figure (a journal column)
    gets the headroom it needs.

    Parameters
    ----------
    ax : matplotlib.axes.Axes
        The panel, its curves drawn and labelled.
    candidates : tuple of str, default ("upper right", "upper left")
        Corners to try, in order.
    **kwargs
        Passed to :meth:`matplotlib.axes.Axes.legend` (``fontsize``, ``frameon``, ``title``).

    Returns
    -------
    matplotlib.legend.Legend
        The legend, inside the panel or under it.

    See Also
    --------
    marks_legend : One legend for a whole grid of panels.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from bayescm.plots import legend_clear
    >>> fig, ax = plt.subplots(figsize=(3.5, 2.4), layout="constrained")
    >>> _ = ax.plot([0, 1, 2], [0, 1, 0], label="a peak in the middle")
    >>> legend = legend_clear(ax)
    >>> bool(ax.get_ylim()[1] > 1.05)  # raised: the legend sits above the peak
    True
    >>> plt.close(fig)
    """
    options = {"fontsize": pt(MIN_FONT), "frameon": False, **kwargs}
    fig = ax.get_figure(root=True)
    stretched = 1.0
    for attempt in range(5):  # a taller y-range changes tick labels, so the layout: again
        need, _ = _corner(ax, fig, candidates, options)
        if need <= 1.0:
            return ax.get_legend()
        if attempt == 4 or stretched * need > MOST_HEADROOM:
            break
        stretched *= need * 1.02
        lo, hi = ax.get_ylim()  # taller (on a log axis: in decades), from its bottom
        ax.set_ylim(lo, lo * (hi / lo) ** (need * 1.02) if ax.get_yscale() == "log"
                    else lo + need * 1.02 * (hi - lo))
    if ax.get_legend() is not None:
        ax.get_legend().remove()
    handles, labels = ax.get_legend_handles_labels()
    kwargs.setdefault("ncols", 2 if len(labels) > 3 else 1)  # short: the axes keep height
    return legend_under(ax, handles, labels, **kwargs)
