"""The figures' layout: new axes in the preset's size, labels that fit, shared ranges.

Every figure the plots make starts in :func:`new_axes` (one panel) or
:func:`bayescm.plots._grid.grid` (several), sized for ``rcParams["plot.preset"]``; a figure of
rows grows until its rows fit (:func:`fit_rows`); labels longer than their room wrap
(:func:`fit_labels`); panels that show the same quantity are put on one range
(:func:`join_panels`). The legends are :mod:`bayescm.plots._legends`'.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescm.metrics import MetricInfo
from bayescm.plots._common import percent
from bayescm.plots._style import MIN_FONT, preset_size, pt

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["check_figsize", "fit_labels", "fit_rows", "join_panels", "new_axes", "quantity",
           "share_range", "title_pad"]


def new_axes(ax: Axes | None, figsize: tuple[float, float] | None = None,
             default: tuple[float, float] = (6.0, 3.6)) -> Axes:
    """``ax``, or a fresh Axes on a new constrained-layout figure of ``figsize`` (or the default).

    Without ``figsize`` the figure is ``default`` resized for ``rcParams["plot.preset"]``
    (:func:`~bayescm.plots._style.preset_size`): a journal column's width, say.

    Raises
    ------
    ValueError
        Both ``ax`` and ``figsize`` given (the figure of ``ax`` has its size already).
    """
    if ax is not None:
        if figsize is not None:
            raise ValueError("Give ax= or figsize=, not both: the figure of ax has its size.")
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=check_figsize(figsize) or preset_size(default),
                         layout="constrained")
    return ax


def check_figsize(figsize: Any) -> tuple[float, float] | None:
    """``(width, height)`` in inches, both positive, or None."""
    if figsize is None:
        return None
    try:
        width, height = (float(v) for v in figsize)
    except (TypeError, ValueError):
        raise ValueError(f"figsize must be (width, height) in inches, got {figsize!r}.") from None
    if not (width > 0 and height > 0 and np.isfinite(width) and np.isfinite(height)):
        raise ValueError(f"figsize must be two positive numbers of inches, got {figsize!r}.")
    return width, height


def fit_rows(ax: Any, rows: float, lines: float = 1.0, grid_rows: int = 1) -> None:
    """Make a figure of ours tall enough that ``rows`` rows of ``lines`` text lines each fit.

    A forest, a heat map or a list of groups is sized before it is drawn, from the number of
    rows; in a narrow preset its title, labels and legend take a larger share of the height,
    and the rows' labels ran into each other. After the layout, the figure grows by what the
    axes lack (times ``grid_rows``, the rows of panels it holds). Call it only on a figure the
    plot made (not on axes the caller gave).
    """
    fig = ax.get_figure(root=True)
    engine = fig.get_layout_engine()
    if engine is None:
        return
    fit_labels(fig)  # wrapped labels first: they take height from the rows
    engine.execute(fig)
    have = ax.get_position().height * fig.get_size_inches()[1] * 72.0
    need = rows * (1.25 * lines + 0.45) * pt(10.0)
    if need > have:
        width, height = fig.get_size_inches()
        fig.set_size_inches(width, height + grid_rows * (need - have) / 72.0)


def title_pad(header: bool) -> float:
    """The pad (points) of a panel's title; with a column header at the top right, above it.

    The headers (``r_deceptive``, ``P(|gap| > ε)``, ``TP / pos.``) sit where a long title
    reaches in a narrow figure; the title rises above them.
    """
    return pt(MIN_FONT) * 1.4 + 6.0 if header else 6.0


_UNDER: weakref.WeakKeyDictionary[Any, Any] = weakref.WeakKeyDictionary()
"""The legends :func:`legend_under` put under an axes (re-anchored when its label wraps)."""


def _under(ax: Any) -> Any:
    """Where a legend under ``ax`` starts: below its tick labels and its x label's lines."""
    from matplotlib.transforms import ScaledTranslation

    lines = ax.xaxis.label.get_text().count("\n") + 1 if ax.xaxis.label.get_text() else 0
    depth = (pt(10.0) * (1.3 + 1.25 * lines) + 12.0) / 72.0  # ticks, label and their pads
    return ax.transAxes + ScaledTranslation(0.0, -depth, ax.figure.dpi_scale_trans)


def _renderer(fig: Any) -> Any:
    """A renderer that measures text on ``fig`` (its canvas's, or one made for it)."""
    canvas = fig.canvas
    return canvas.get_renderer() if hasattr(canvas, "get_renderer") else fig._get_renderer()


_QUANTITY: weakref.WeakKeyDictionary[Any, str] = weakref.WeakKeyDictionary()
"""What the x axis of each panel drawn by the plots shows (see :func:`quantity`)."""


def quantity(ax: Any, info: MetricInfo, what: str = "") -> None:
    """Record what the x axis of ``ax`` shows, for :func:`join_panels`.

    The metric (``F1`` for F1 macro and micro alike), ``what`` of it (``"difference"``) and
    the unit: panels of one figure that show the same are put on one x-range.
    """
    stem = info.display_name.split(" (")[0]
    _QUANTITY[ax] = f"{stem}|{what}|{'percent' if percent(info) else info.scale}"


def share_range(axes: Iterable[Any], which: str = "x") -> None:
    """Put ``axes`` on one range of their ``which`` axis: the union of their ranges.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from bayescm.plots._layout import share_range
    >>> fig, (a, b) = plt.subplots(1, 2)
    >>> _ = a.set_xlim(0.2, 0.6), b.set_xlim(0.4, 0.9)
    >>> share_range([a, b])
    >>> [float(v) for v in b.get_xlim()]
    [0.2, 0.9]
    >>> plt.close(fig)
    """
    axes = list(axes)
    if len(axes) < 2:
        return
    limits = [ax.get_xlim() if which == "x" else ax.get_ylim() for ax in axes]
    lo = float(min(min(lim) for lim in limits))
    hi = float(max(max(lim) for lim in limits))
    for ax in axes:
        (ax.set_xlim if which == "x" else ax.set_ylim)(lo, hi)


def join_panels(fig: Any) -> None:
    """Panels of ``fig`` whose x axes show the same quantity share one x-range.

    Compared panels on different ranges mislead (two AUC differences, F1 macro beside F1
    micro): every plot function calls this on its figure after drawing, so a panel drawn into
    a grid joins the panels of the same quantity already there.
    """
    groups: dict[str, list[Any]] = {}
    for ax in getattr(fig, "axes", []):
        key = _QUANTITY.get(ax)
        if key is not None:
            groups.setdefault(key, []).append(ax)
    for panels in groups.values():
        share_range(panels)


def _room(ax: Any, fig: Any, along: int) -> float:
    """How long a label centred on ``ax`` may be, as a fraction of the figure's side.

    Along x (``along=0``; an x label, a title) or y (1; a y label): as far to each side as the
    figure's edge, or half way to the centre of the next panel beside it (whose label is
    centred there).
    """
    where = ax.get_position()
    lo, hi = (where.x0, where.x1) if along == 0 else (where.y0, where.y1)
    across = (where.y0, where.y1) if along == 0 else (where.x0, where.x1)
    centre = (lo + hi) / 2
    start, end = 0.0, 1.0
    for other in fig.axes:
        if other is ax or not other.get_visible() or other.get_label() == "<colorbar>":
            continue
        pos = other.get_position()
        a, b = (pos.x0, pos.x1) if along == 0 else (pos.y0, pos.y1)
        c, d = (pos.y0, pos.y1) if along == 0 else (pos.x0, pos.x1)
        if d <= across[0] or c >= across[1]:
            continue  # not beside it
        middle = (centre + (a + b) / 2) / 2
        if (a + b) / 2 < centre:
            start = max(start, middle)
        elif (a + b) / 2 > centre:
            end = min(end, middle)
    return 0.96 * max(2 * min(centre - start, end - centre), hi - lo)


def fit_labels(fig: Any) -> None:
    """Wrap axis labels and titles longer than their panel's side onto more lines.

    A long label (``'true positive rate (sensitivity): A - B (percentage points)'``) in a
    narrow panel of a grid, or in a figure of a journal column, ran into its neighbour's or
    past the figure's edge; it is broken at spaces to the room the layout leaves it, up to
    the figure's edge or the next panel (:func:`_room`).
    """
    import textwrap

    renderer = _renderer(fig)
    engine = fig.get_layout_engine()
    if engine is not None:
        engine.execute(fig)
    box = fig.get_figure(root=True).bbox
    for ax in getattr(fig, "axes", []):
        wide = _room(ax, fig, 0) * box.width
        tall = _room(ax, fig, 1) * box.height
        for text, room in ((ax.xaxis.label, wide), (ax.title, wide), (ax.yaxis.label, tall)):
            content = text.get_text()
            if not content:
                continue
            extent = text.get_window_extent(renderer)
            long = extent.height if text is ax.yaxis.label else extent.width
            if long > room:  # each line to the room, in lines of even length
                per_char = long / max(len(line) for line in content.split("\n"))
                fits = max(8, int(room / per_char))
                text.set_text("\n".join(
                    textwrap.fill(line, max(8, math.ceil(len(line) / math.ceil(len(line) / fits))
                                        + 1), break_long_words=False, break_on_hyphens=False)
                    for line in content.split("\n")))
        legend = _UNDER.get(ax)
        if legend is not None and legend is ax.get_legend():  # under the label's new lines
            legend.set_bbox_to_anchor((0.5, 0.0), transform=_under(ax))
