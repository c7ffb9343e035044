"""Figures made of a grid of panels: ``plot_metrics`` and ``plot_forests``.

The grid itself and its shared legend are :mod:`bayescm.plots._panels`'.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from bayescm.analyses.summary import resolve_var_names
from bayescm.core import container as box
from bayescm.plots._checks import plot_function
from bayescm.plots._common import family_of, hdi_prob_of, info_of
from bayescm.plots._forest import plot_forest
from bayescm.plots._layout import fit_rows
from bayescm.plots._metric import plot_metric
from bayescm.plots._observed import observed_name
from bayescm.plots._panels import grid, marks_legend
from bayescm.plots._style import MIN_FONT, pt

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["OVERVIEW", "forest_panels", "overview", "plot_forests", "plot_metrics"]

OVERVIEW = ("acc", "kappa", "f1_macro", "f1_micro", "tpr", "ppv")
"""The default panels of a multiclass fit: accuracy, kappa (quadratic for ordered classes),
macro and micro F1 as densities, recall and precision of every class as forests."""


def overview(idata: xr.DataTree) -> list[str]:
    """The metrics a multiclass fit shows by default (``OVERVIEW``, where computed).

    Parameters
    ----------
    idata : xarray.DataTree
        A fit.

    Returns
    -------
    list of str
        Accuracy, the agreement measures, macro and micro F1 and the per-class rates, in that
        order, those the fit computed.

    See Also
    --------
    plot_metrics : Draws them when no ``var_names`` are given.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots import overview
    >>> cm = bcm.ConfusionMatrix([[27, 3, 0], [6, 21, 3], [0, 3, 15]], ordered=True)
    >>> overview(bcm.fit(cm, draws=100, random_seed=0))
    ['acc', 'kappa_quadratic', 'f1_macro', 'f1_micro', 'tpr', 'ppv']
    """
    present = set(box.get_group(idata, "posterior").data_vars)
    names = ["kappa_quadratic" if n == "kappa" and "kappa_quadratic" in present else n
             for n in OVERVIEW]
    return [n for n in names if n in present]


def _as_forest(dims: Sequence[Hashable], classifier: Any, class_: Any) -> bool:
    """Whether a panel is a forest: per-class without ``class_``, a batch without ``classifier``."""
    if "class" in dims and class_ is None:
        return "classifier" not in dims or classifier is None
    return "classifier" in dims and classifier is None and "class" not in dims


def _drawable(ds: xr.Dataset, names: Iterable[str], classifier: Any, class_: Any) -> list[str]:
    """Variables that reduce to one density with the given selections."""
    allowed = {"chain", "draw"}
    if classifier is not None:
        allowed.add("classifier")
    if class_ is not None:
        allowed.add("class")
    out = []
    for name in names:
        dims = set(ds[name].dims)
        if dims <= allowed:
            out.append(name)
    return out


@plot_function()
def plot_metrics(
    idata: xr.DataTree,
    var_names: Iterable[str] | str | None = None,
    axes: Any = None,
    hdi_prob: float | None = None,
    predictive: bool = False,
    prior: bool = False,
    classifier: Hashable | Sequence[Hashable] | None = None,
    class_: Hashable | Sequence[Hashable] | None = None,
    *,
    ncols: int | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """A grid of metric posteriors, one :func:`plot_metric` panel each (forests where needed).

    A metric with rows left after the selections (a per-class metric without ``class_``, a
    batch's metric without ``classifier``) is drawn as a :func:`plot_forest` panel, one row
    per class or classifier.

    Parameters
    ----------
    idata : xarray.DataTree
        A result of :func:`bayescm.fit`.
    var_names : str or list of str, optional
        Metrics to draw (aliases accepted). Default for a multiclass fit an overview
        (``OVERVIEW``): accuracy, kappa (quadratic for ordered classes), macro and micro
        F1 as densities and the per-class recall (TPR) and precision (PPV) as forests; for
        other fits every posterior variable that is one density with the given
        ``classifier`` / ``class_`` (``theta`` and per-class metrics without ``class_`` are
        left out).
    axes : array of matplotlib.axes.Axes, optional
        Axes to draw on (at least one per metric); default a new figure.
    hdi_prob, predictive, prior, classifier, class_
        As in :func:`plot_metric` (lists overlay several classifiers or classes, each panel
        then with its own legend); ``class_`` applies to the per-class metrics only.
    ncols : int, optional
        Panels per row of a new figure; default 3 for 5, 6 or 9 panels, else up to 4.
    figsize : tuple of float, optional
        Size of a new figure in inches (not with ``axes``); default 3.2 x 2.4 per panel.

    Returns
    -------
    matplotlib.figure.Figure
        The figure of the panels (a new one, or that of ``axes``).

    Raises
    ------
    ValueError
        No metric to draw with the given selections.

    See Also
    --------
    plot_metric : One metric's panel, with more options.
    plot_priors : The same grid for the priors.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_metrics
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
    ...                 metrics=["tpr", "tnr", "ppv", "bm"], random_seed=1)
    >>> fig = plot_metrics(idata, ["tpr", "tnr", "bm"])
    >>> [ax.get_title() for ax in fig.axes]
    ['TPR', 'TNR', 'BM']

    A multiclass fit's overview, the classes' recall and precision as forests:

    >>> cm = bcm.ConfusionMatrix([[27, 3, 0], [6, 21, 3], [0, 3, 15]], labels=["a", "b", "c"])
    >>> fig = plot_metrics(bcm.fit(cm, draws=500, random_seed=0))
    >>> [ax.get_title() for ax in fig.axes]
    ['Accuracy', 'Kappa', 'F1 (macro)', 'F1 (micro)', 'TPR of 3 classes', 'PPV of 3 classes']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    box.check_tree(idata)
    ds = box.get_group(idata, "posterior")
    if var_names is None and family_of(idata) == "multiclass" and class_ is None:
        names = overview(idata)
        if "classifier" in ds.dims:  # a batch: the overall metrics, per classifier
            names = [n for n in names if "class" not in ds[n].dims]
    elif var_names is None:
        names = _drawable(ds, resolve_var_names(idata, None), classifier, class_)
        if not names:
            raise ValueError(
                "No metric reduces to one density; pass classifier= for a batch fit or class_= "
                "for per-class metrics."
            )
    else:
        names = resolve_var_names(idata, var_names)
    forests = [_as_forest(ds[n].dims, classifier, class_) for n in names]
    rows = max([_rows_of(ds[n]) for n, f in zip(names, forests, strict=True) if f] or [0])
    if ncols is None:
        ncols = 3 if len(names) in (5, 6, 9) else min(4, len(names))
    fig, flat_axes = grid(len(names), axes, ncols, (3.2, max(2.4, 1.1 + 0.25 * rows)),
                          figsize=figsize)
    overlay = False
    series: tuple[list[Any], list[str]] | None = None
    for name, ax, forest in zip(names, flat_axes, forests, strict=False):
        dims = ds[name].dims
        if forest:
            # classes keep their order (ordered classes read top down); classifiers are ranked
            plot_forest(idata, name, ax=ax, hdi_prob=hdi_prob, legend=False,
                        sort="classifier" in dims, class_=class_ if "class" in dims else None)
            ax.set_xlabel(ax.get_xlabel(), fontsize=pt(MIN_FONT))
            continue
        pick = {"classifier": classifier if "classifier" in dims else None,
                "class_": class_ if "class" in dims else None}
        several = any(isinstance(v, (list, tuple, np.ndarray)) for v in pick.values())
        overlay |= several
        # a figure of ours says once under the grid which colour is which classifier or class
        plot_metric(idata, name, ax=ax, hdi_prob=hdi_prob, predictive=predictive, prior=prior,
                    legend=several and axes is not None, classifier=pick["classifier"],
                    class_=pick["class_"])
        if several and not series:
            series = ax.get_legend_handles_labels()
        ax.set_xlabel(ax.get_xlabel(), fontsize=pt(MIN_FONT))
    if axes is None:
        marks_legend(fig, hdi_prob_of(idata, hdi_prob), prior, predictive, overlay,
                     forest=any(forests), series=series, observed=observed_name(idata))
    return fig


def _rows_of(da: xr.DataArray) -> int:
    """Rows of a forest of ``da`` (classifiers times classes, at most those drawn)."""
    from bayescm.plots._forest import shown_rows

    return shown_rows(int(np.prod([da.sizes[d] for d in da.dims if d in ("classifier",
                                                                         "class")])))




def forest_panels(idata: xr.DataTree, names: Sequence[str]) -> list[str | list[str]]:
    """The panels of :func:`plot_forests`: a variable with rows alone, the others by scale.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots._grid import forest_panels
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), draws=100)
    >>> forest_panels(idata, ["acc", "tpr", "bm", "lr_plus"])
    [['acc', 'tpr'], ['bm'], ['lr_plus']]
    """
    ds = box.get_group(idata, "posterior")
    panels: list[str | list[str]] = []
    by_scale: dict[str, list[str]] = {}
    for name in names:
        if any(d in ds[name].dims for d in ("classifier", "class")):
            panels.append(name)
            continue
        scale = info_of(idata, name, ds[name]).scale
        if scale not in by_scale:
            by_scale[scale] = []
            panels.append(by_scale[scale])
        by_scale[scale].append(name)
    return panels


@plot_function()
def plot_forests(
    idata: xr.DataTree,
    var_names: Iterable[str] | str | None = None,
    hdi_prob: float | None = None,
    *,
    ncols: int = 3,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """A grid of :func:`plot_forest` panels: posterior means, HDIs and observed values.

    A metric with rows (the classifiers of a batch, the classes of a per-class metric) gets a
    panel of its own; the metrics of a single classifier share a panel per scale (proportions;
    chance-corrected metrics with their line at 0; ratios on a log axis with their line at 1).
    One legend under the grid explains the marks. This is the ``"forest"`` figure of the spec
    runner and the command line.

    Parameters
    ----------
    idata : xarray.DataTree
        A fit.
    var_names : str or list of str, optional
        Metrics (aliases accepted); default as :func:`plot_metrics` (a multiclass fit's
        overview).
    hdi_prob : float, optional
        Interval probability; default the tree's, else ``rcParams["stats.hdi_prob"]``.
    ncols : int, default 3
        Panels per row.
    figsize : tuple of float, optional
        Size of the figure in inches; default 4.2 inches wide per panel, high enough for the
        rows.

    Returns
    -------
    matplotlib.figure.Figure
        The grid, with one legend under it.

    Raises
    ------
    ValueError
        No metric is left to draw.

    See Also
    --------
    plot_forest : One forest panel.
    plot_metrics : The same metrics as densities.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_forests
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
    ...                 draws=500, random_seed=1)
    >>> fig = plot_forests(idata, ["acc", "tpr", "tnr", "bm"])
    >>> [ax.get_title() for ax in fig.axes]
    ['Accuracy, TPR, TNR', 'BM']
    >>> import matplotlib.pyplot as plt; plt.close(fig)
    """
    from bayescm.plots._forest import shown_rows

    box.check_tree(idata)
    ds = box.get_group(idata, "posterior")
    if var_names is None:
        names = (overview(idata) if family_of(idata) == "multiclass" else
                 [n for n in resolve_var_names(idata, None)
                  if set(ds[n].dims) - set(box.SAMPLE_DIMS) <= {"classifier", "class"}])
    else:
        names = resolve_var_names(idata, var_names)
    if not names:
        raise ValueError("No metric to draw.")
    panels = forest_panels(idata, names)
    rows = max(shown_rows(_rows_of(ds[p])) if isinstance(p, str) else len(p) for p in panels)
    prob = hdi_prob_of(idata, hdi_prob)
    ncols = 2 if len(panels) == 4 and ncols >= 2 else min(ncols, len(panels))
    fig, axes = grid(len(panels), None, ncols, (4.2, 1.3 + 0.28 * rows), figsize=figsize)
    for ax, panel in zip(axes, panels, strict=True):
        # classes keep their order (ordered classes read top down); classifiers are ranked
        classes = isinstance(panel, str) and "classifier" not in ds[panel].dims
        plot_forest(idata, panel, ax=ax, hdi_prob=prob, legend=False, sort=not classes)
        ax.xaxis.label.set_fontsize(pt(MIN_FONT + 1))
        ax.title.set_fontsize(pt(10))
    marks_legend(fig, prob, forest=True, density=False, observed=observed_name(idata))
    if figsize is None:  # tall enough for the rows of the longest forest, in every row
        heights = [shown_rows(_rows_of(ds[p])) if isinstance(p, str) else len(p)
                   for p in panels]
        spec = axes[0].get_subplotspec()
        fit_rows(axes[int(np.argmax(heights))], rows,
                 grid_rows=spec.get_gridspec().nrows if spec is not None else 1)
    return fig
