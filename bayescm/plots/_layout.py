"""The figures' layout: new axes in the preset's size, legends under the axes, shared ranges.

Every figure the plots make starts in :func:`new_axes` (one panel) or
:func:`bayescm.plots._grid.grid` (several), sized for ``rcParams["plot.preset"]``; legends that
must not cover marks go under the axes (:func:`legend_under`); panels that show the same
quantity are put on one range (:func:`join_panels`).
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescm.metrics import MetricInfo
from bayescm.plots._common import percent
from bayescm.plots._style import MIN_FONT, preset_size, pt

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["check_figsize", "join_panels", "legend_under", "new_axes", "quantity", "share_range"]


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
    >>> from bayescm.plots._layout import legend_under
    >>> fig, ax = plt.subplots(layout="constrained")
    >>> _ = ax.plot([0, 1], [0, 1], label="a line")
    >>> legend_under(ax)._loc
    9
    >>> plt.close(fig)
    """
    from matplotlib.transforms import ScaledTranslation

    if handles is None or labels is None:
        handles, labels = ax.get_legend_handles_labels()
    depth = (2.2 * pt(10.0) + 10.0) / 72.0  # tick labels, the axis label and their pads
    under = ax.transAxes + ScaledTranslation(0.0, -depth, ax.figure.dpi_scale_trans)
    options = {"fontsize": pt(MIN_FONT), "frameon": False, "loc": "upper center",
               "bbox_to_anchor": (0.5, 0.0), "bbox_transform": under, **kwargs}
    return ax.legend(handles, labels, **options)


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
