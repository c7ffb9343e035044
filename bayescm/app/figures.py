"""The app's figures: bayescm's plots drawn on pyplot-free figures and rendered to PNG bytes.

Figures are made with :class:`matplotlib.figure.Figure` directly (not pyplot), so drawing works
in worker threads whatever matplotlib backend the process uses, and nothing is left open in
pyplot's registry; their grids are :mod:`bayescm.plots`' own (one plotting system), and their
units those of every figure of the package, ``rcParams["plot.units"]`` (per cent unless set
otherwise). Drawing happens under one lock with the plots' Okabe-Ito palette as the colour
cycle, which stays distinguishable with the common colour-vision deficiencies.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

__all__ = ["PLOT_LOCK", "app_style", "grid_figure", "metric_grid_png", "png", "single_png"]

from bayescm.plots import OKABE_ITO  # the plots' palette

PLOT_LOCK = threading.RLock()
"""Serialises drawing: matplotlib's settings are global to the process."""


@contextmanager
def app_style() -> Iterator[None]:
    """Draw with the plots' palette as the colour cycle, one figure at a time.

    The units are the package's setting, ``rcParams["plot.units"]``, as for every figure
    (the app does not override them).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.app.figures import app_style
    >>> with app_style():
    ...     bcm.rcParams["plot.units"]
    'percent'
    """
    import matplotlib as mpl
    from cycler import cycler

    with PLOT_LOCK, mpl.rc_context({"axes.prop_cycle": cycler(color=OKABE_ITO),
                                    "figure.dpi": 100}):
        yield


def grid_figure(n: int, ncols: int = 3, panel: tuple[float, float] = (3.4, 2.5),
                min_width: float | None = None) -> tuple[Any, list[Any]]:
    """A figure of ``n`` panels in rows of ``ncols``, a short last row centred.

    The plots' grid (:func:`bayescm.plots._grid.grid`) on a figure outside pyplot; a preset
    (``rcParams["plot.preset"]``) keeps panels at least ``min_width`` inches wide.

    Examples
    --------
    >>> from bayescm.app.figures import grid_figure
    >>> fig, axes = grid_figure(5)
    >>> len(axes), [round(float(v), 1) for v in fig.get_size_inches()]
    (5, [10.2, 5.4])
    """
    from bayescm.plots import grid

    return grid(n, None, ncols, panel, pyplot=False, min_width=min_width)


def png(fig: Any, dpi: int = 110) -> bytes:
    """The figure as PNG bytes."""
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def metric_grid_png(idata: Any, names: Sequence[str], *, ncols: int = 2,
                    classifier: Any = None, title: str | None = None) -> bytes:
    """Posterior density, HDI, MU and observed value of each metric, one panel each, as PNG.

    Parameters
    ----------
    idata : xarray.DataTree
        A fit.
    names : sequence of str
        Metrics that reduce to one density (per-class metrics need their class, e.g. by name
        ``"tpr"`` is left out of a multiclass grid; its macro average ``"tpr_macro"`` is not).
    ncols : int, default 2
        Panels per row (two stay readable at a laptop's width).
    classifier : hashable or list, optional
        As in :func:`bayescm.plots.plot_metrics` (a list overlays classifiers of a batch).
    title : str, optional
        A title over the grid.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.app.figures import metric_grid_png
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
    ...                 draws=500, random_seed=1)
    >>> metric_grid_png(idata, ["tpr", "tnr"])[:4]
    b'\\x89PNG'
    """
    from bayescm.core.stats import hdi_prob_for
    from bayescm.plots import marks_legend, observed_name, plot_metrics, pt

    with app_style():
        fig, axes = grid_figure(len(names), ncols)
        plot_metrics(idata, list(names), axes=axes, classifier=classifier)
        overlay = isinstance(classifier, (list, tuple))
        if not overlay:
            marks_legend(fig, hdi_prob_for(None, idata), observed=observed_name(idata))
        if title:
            fig.suptitle(title, fontsize=pt(11))
        return png(fig)


def single_png(draw: Callable[[Any], Any], size: tuple[float, float] = (6.0, 4.2)) -> bytes:
    """Call ``draw(ax)`` on a fresh one-panel figure in the app's style; return the PNG.

    Examples
    --------
    >>> from bayescm.app.figures import single_png
    >>> single_png(lambda ax: ax.plot([0, 1], [0, 1]))[:4]
    b'\\x89PNG'
    """
    from matplotlib.figure import Figure

    with app_style():
        fig = Figure(figsize=size, layout="constrained")
        draw(fig.add_subplot())
        return png(fig)
