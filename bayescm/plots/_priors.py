"""Priors implied on the metrics, several priors side by side (paper SI Fig. S1 and S2)."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import xarray as xr

from bayescm.analyses.summary import resolve_var_names
from bayescm.core import container as box
from bayescm.plots._checks import plot_function
from bayescm.plots._common import flat, info_of, label_of, select, unit_suffix
from bayescm.plots._legends import figure_legend
from bayescm.plots._metric import density, finish_axis, title_of
from bayescm.plots._panels import grid
from bayescm.plots._style import MIN_FONT, palette_color, pt

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["plot_priors"]


def _prior_sources(priors: Any) -> dict[str, xr.Dataset]:
    """``{label: prior Dataset}`` from a tree, a tree with a ``prior`` dim, or a mapping."""
    if isinstance(priors, Mapping) and not isinstance(priors, xr.DataTree):
        if not priors:
            raise ValueError("Give at least one prior: {name: result tree}.")
        out = {}
        for label, tree in priors.items():
            box.check_tree(tree)
            out[str(label)] = box.get_group(tree, "prior")
        return out
    box.check_tree(priors)
    ds = box.get_group(priors, "prior")
    dim = "prior_choice"  # the dim of bcm.analyses.prior_sensitivity
    if dim in ds.dims:
        labels = [str(v) for v in ds[dim].values]
        return {label: ds.isel({dim: i}) for i, label in enumerate(labels)}
    return {str(priors.attrs.get("prior_name", "prior")): ds}


@plot_function()
def plot_priors(
    priors: Any,
    var_names: Iterable[str] | str | None = None,
    axes: Any = None,
    class_: Hashable | None = None,
    *,
    ncols: int = 4,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """Prior densities of metrics, several priors side by side (paper SI Fig. S1 and S2).

    Flat priors on prevalence, TPR and TNR do not make flat priors on the metrics derived from
    them: this draws the ``prior`` group of one or more fits so that the implied priors can be
    compared.

    Parameters
    ----------
    priors : xarray.DataTree or mapping of str -> xarray.DataTree
        A fit or :func:`bayescm.prior_predictive` result (its ``prior`` group; a
        ``prior_choice`` dim there, as from :func:`bayescm.prior_sensitivity`, gives one curve
        per prior) or ``{label: fit}`` for several priors.
    var_names : str or list of str, optional
        Metrics to draw; default every prior variable that is one density (``theta`` and
        per-class metrics without ``class_`` are left out).
    axes : array of matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    class_ : hashable, optional
        Class of per-class multiclass metrics.
    ncols : int, default 4
        Panels per row of a new figure.
    figsize : tuple of float, optional
        Size of a new figure in inches (not with ``axes``).

    Returns
    -------
    matplotlib.figure.Figure
        The figure of the panels (a new one, or that of ``axes``).

    Raises
    ------
    KeyError
        A prior that lacks a requested variable.
    ValueError
        No prior given, no variable to draw, or a variable without finite prior draws.

    See Also
    --------
    plot_metric : With ``prior=True``, the prior under the posterior.

    Examples
    --------
    Laplace against Jeffreys priors (SI Fig. S1 against S2):

    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_priors
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    >>> fits = {name: bcm.fit(cm, prior=name, metrics=["ppv", "mcc"], draws=1000,
    ...                       random_seed=0) for name in ["laplace", "jeffreys"]}
    >>> fig = plot_priors(fits, ["ppv", "mcc"])
    >>> [t.get_text() for t in fig.legends[0].get_texts()]
    ['laplace', 'jeffreys']
    >>> import matplotlib.pyplot as plt; plt.close(fig)
    """
    sources = _prior_sources(priors)
    first = next(iter(sources.values()))
    present = [str(v) for v in first.data_vars]
    if var_names is None:
        keep = {"chain", "draw"} | ({"class"} if class_ is not None else set())
        names = [v for v in present if set(first[v].dims) <= keep
                 and v not in {"theta", "rates", "cells"}]
    else:
        tree = priors if isinstance(priors, xr.DataTree) else next(iter(priors.values()))
        names = resolve_var_names(tree, var_names, "prior", default_skip=())
    if not names:
        raise ValueError("No prior variable to draw; pass var_names= (and class_= if needed).")
    fig, flat_axes = grid(len(names), axes, ncols, figsize=figsize)
    tree = priors if isinstance(priors, xr.DataTree) else next(iter(priors.values()))
    for name, ax in zip(names, flat_axes, strict=False):
        info = info_of(tree, name, first[name])
        lims = []
        for i, (label, ds) in enumerate(sources.items()):
            if name not in ds:
                raise KeyError(f"The prior {label!r} has no {name!r}.")
            da = select(ds[name], name, None, class_ if "class" in ds[name].dims else None)
            x = flat(da)
            if x.size < 2:
                continue
            xs, dens = density(x, info)
            ax.plot(xs, dens, lw=1.8, color=palette_color(i), label=label, gid=f"prior:{label}")
            lims.append((float(xs[0]), float(xs[-1])))
        if not lims:
            raise ValueError(f"{name!r} has no finite prior draws.")
        finish_axis(ax, info, label_of(first[name], name, tree) + unit_suffix(info), lims)
        ax.xaxis.label.set_fontsize(pt(8))
        ax.set_title(title_of(info, None, class_ if "class" in first[name].dims else None))
    handles, labels = flat_axes[0].get_legend_handles_labels()
    if axes is None:  # one legend for every panel, under the grid
        figure_legend(fig, handles, labels, min(len(labels), 6), title="prior",
                      title_fontsize=pt(MIN_FONT))
    else:
        flat_axes[0].legend(fontsize=pt(MIN_FONT), frameon=False)
    fig.suptitle("Priors implied on the metrics")
    return fig
