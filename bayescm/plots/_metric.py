"""Densities of metrics: one metric (paper Fig. 2 and 4), a grid of metrics, and their priors."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping
from typing import Any

import numpy as np
import xarray as xr

from bayescm.analyses.summary import resolve_var_names
from bayescm.core import container as box
from bayescm.core.validate import keyword_checked
from bayescm.plots._common import (
    Scale,
    bounded_kde,
    display_name,
    draws_of,
    flat,
    format_value,
    format_width,
    hdi_prob_of,
    interval,
    label_of,
    new_axes,
    percent_axis,
    reference_line,
    scale_of,
    select,
    unit_suffix,
)

__all__ = ["plot_metric", "plot_metrics", "plot_priors"]

POSTERIOR_COLOR = "C0"
PREDICTIVE_COLOR = "C1"
PRIOR_COLOR = "0.45"
OBSERVED_COLOR = "C3"


def _density(x: np.ndarray, scale: Scale) -> tuple[np.ndarray, np.ndarray]:
    """Density on the metric's support; ratios are smoothed in log10 space (per log10 unit)."""
    if scale.log:
        x = x[x > 0]
        grid, dens = bounded_kde(np.log10(x))
        return 10.0**grid, dens
    return bounded_kde(x, scale.lower, scale.upper)


def _fill_hdi(ax: Any, grid: np.ndarray, dens: np.ndarray, lo: float, hi: float, scale: Scale,
              color: str, label: str) -> Any:
    """Shade the density between the HDI bounds, with vertices exactly at the bounds."""
    t = np.log10 if scale.log else (lambda v: v)
    g = t(grid)
    inside = (g > t(lo)) & (g < t(hi))
    xs = np.concatenate([[t(lo)], g[inside], [t(hi)]])
    ys = np.interp(xs, g, dens)
    if scale.log:
        xs = 10.0**xs
        xs[0], xs[-1] = lo, hi
    return ax.fill_between(xs, 0.0, ys, color=color, alpha=0.3, linewidth=0, label=label,
                           gid="hdi")


def _mu_bracket(ax: Any, lo: float, hi: float, scale: Scale, prob: float) -> None:
    """A double arrow under the HDI with 'MU = 11 pp' (the paper's Fig. 2B bottom)."""
    mid = np.sqrt(lo * hi) if scale.log and lo > 0 else 0.5 * (lo + hi)
    ax.annotate("", xy=(lo, 0.04), xytext=(hi, 0.04), xycoords=("data", "axes fraction"),
                arrowprops={"arrowstyle": "<->", "color": "0.2", "shrinkA": 0, "shrinkB": 0})
    ax.annotate(f"MU = {format_width(hi - lo, scale)}", xy=(mid, 0.06),
                xycoords=("data", "axes fraction"), ha="center", va="bottom", fontsize=9,
                gid="mu", bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none",
                                "alpha": 0.8})


def _observed(idata: xr.DataTree, name: str, classifier: Hashable | None,
              class_: Hashable | None) -> float | None:
    if not box.has_group(idata, "observed_metrics"):
        return None
    obs = box.get_group(idata, "observed_metrics")
    if name not in obs:
        return None
    return float(select(obs[name], name, classifier, class_).values)


def _predictive(idata: xr.DataTree, name: str, classifier: Hashable | None,
                class_: Hashable | None) -> tuple[np.ndarray, int, Any]:
    if not box.has_group(idata, "posterior_predictive"):
        raise ValueError(
            "predictive=True needs a 'posterior_predictive' group (synthetic confusion matrices "
            "and their metrics); call bcm.posterior_predictive(idata, ...) first "
            f"(groups: {', '.join(idata.children)})."
        )
    ds = box.get_group(idata, "posterior_predictive")
    if name not in ds:
        raise KeyError(f"The posterior_predictive group has no {name!r}; it has: "
                       f"{', '.join(map(str, ds.data_vars))}.")
    da = select(ds[name], name, classifier, class_)
    values = np.asarray(da.values, dtype=float).reshape(-1)
    n = ds.attrs.get("n", ds.attrs.get("N"))
    return values[np.isfinite(values)], int((~np.isfinite(values)).sum()), n


def _finish_axis(ax: Any, scale: Scale, xlabel: str, lims: list[tuple[float, float]]) -> None:
    lo = min(v[0] for v in lims)
    hi = max(v[1] for v in lims)
    if scale.log:
        ax.set_xscale("log")
    else:
        pad = 0.02 * (hi - lo) if hi > lo else 0.01
        ax.set_xlim(max(scale.lower, lo - pad), min(scale.upper, hi + pad))
    percent_axis(ax.xaxis, scale)
    reference_line(ax, scale)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("density" + (" (per log10 unit)" if scale.log else ""))
    ax.set_yticks([])
    ax.set_ylim(bottom=0)
    ax.spines[["top", "right", "left"]].set_visible(False)


def _title(name: str, classifier: Hashable | None, class_: Hashable | None) -> str:
    parts = [display_name(name)]
    if classifier is not None:
        parts.append(f"classifier {classifier}")
    if class_ is not None:
        parts.append(f"class {class_}")
    return ", ".join(parts)


@keyword_checked
def plot_metric(
    idata: xr.DataTree,
    var: str,
    ax: Any = None,
    hdi_prob: float | None = None,
    predictive: bool = False,
    prior: bool = False,
    classifier: Hashable | None = None,
    class_: Hashable | None = None,
    *,
    legend: bool = True,
    title: str | None = None,
) -> Any:
    """Posterior density of one metric with its point estimate, HDI and metric uncertainty.

    Draws the posterior as a kernel density reflected at the metric's bounds (a TPR near
    100 % keeps its mass inside [0, 1]; likelihood and odds ratios are smoothed on a log axis),
    shades the highest-density interval, marks its width (MU, in percentage points for
    proportions) and draws the observed point estimate (``observed_metrics``) as a vertical
    line, as in the paper's Fig. 4. Optionally overlays the posterior predictive distribution
    of the metric on synthetic confusion matrices (Caelen's approach, Fig. 2) and the prior.

    Parameters
    ----------
    idata : xarray.DataTree
        A result of :func:`bayescm.fit`.
    var : str
        Metric name; aliases such as ``"sensitivity"`` work.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    hdi_prob : float, optional
        Probability of the HDI; default the tree's ``hdi_prob`` attribute (0.95).
    predictive : bool, default False
        Overlay the histogram of the metric in the ``posterior_predictive`` group (error if the
        group is missing: call ``bcm.posterior_predictive`` first).
    prior : bool, default False
        Overlay the prior density of the metric (dashed).
    classifier : hashable, optional
        Classifier of a batch fit (required when the metric has a ``classifier`` dim).
    class_ : hashable, optional
        Class of a per-class multiclass metric (required when it has a ``class`` dim).
    legend : bool, default True
        Draw the legend (HDI bounds and the observed value).
    title : str, optional
        Axes title; default the metric name (and the classifier or class).

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    KeyError
        Unknown metric, unknown classifier or class, missing group.
    ValueError
        A ``classifier`` or ``class`` dim without a selection; ``predictive=True`` without a
        ``posterior_predictive`` group.

    See Also
    --------
    plot_metrics : a grid of metrics.
    bayescm.analyses.summary : the same numbers as a table.

    Examples
    --------
    The TPR of the paper's cocaine-purity classifier (26 of 26 positives found, Fig. 4A):

    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_metric
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
    ...                 random_seed=1)
    >>> ax = plot_metric(idata, "tpr", prior=True)
    >>> ax.get_xlabel()
    'true positive rate (sensitivity) (%)'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    name, da = draws_of(idata, var, "posterior", classifier, class_)
    scale = scale_of(name)
    prob = hdi_prob_of(idata, hdi_prob)
    x = flat(da)
    if x.size < 2:
        raise ValueError(f"{name!r} has fewer than 2 finite posterior draws; nothing to draw.")
    ax = new_axes(ax)
    lims: list[tuple[float, float]] = []

    if predictive:
        values, undefined, n = _predictive(idata, name, classifier, class_)
        if values.size:
            bins = np.histogram_bin_edges(values, bins=min(60, max(10, np.unique(values).size)))
            label = "posterior predictive" + (f" (N = {n})" if n is not None else "")
            if undefined:
                label += f", {undefined / (values.size + undefined):.0%} undefined"
            ax.hist(values, bins=bins, density=True, histtype="stepfilled", alpha=0.25,
                    color=PREDICTIVE_COLOR, edgecolor=PREDICTIVE_COLOR, label=label,
                    gid="predictive")
            lims.append((float(bins[0]), float(bins[-1])))

    grid, dens = _density(x, scale)
    ax.plot(grid, dens, color=POSTERIOR_COLOR, lw=2, label="posterior", gid="posterior")
    lims.append((float(grid[0]), float(grid[-1])))

    if prior:
        _, pda = draws_of(idata, name, "prior", classifier, class_)
        px = flat(pda)
        if px.size >= 2:
            pgrid, pdens = _density(px, scale)
            ax.plot(pgrid, pdens, color=PRIOR_COLOR, lw=1.5, ls="--", label="prior", gid="prior")

    all_draws = np.asarray(da.values, dtype=float).reshape(-1)
    lo, hi = interval(all_draws, prob)
    if np.isfinite(lo) and np.isfinite(hi):
        label = f"{100 * prob:g} % HDI [{format_value(lo, scale)}, {format_value(hi, scale)}]"
        _fill_hdi(ax, grid, dens, lo, hi, scale, POSTERIOR_COLOR, label)
        _mu_bracket(ax, lo, hi, scale, prob)

    observed = _observed(idata, name, classifier, class_)
    if observed is not None:
        text = format_value(observed, scale)
        if np.isfinite(observed):
            ax.axvline(observed, color=OBSERVED_COLOR, lw=1.5, label=f"observed: {text}",
                       gid="observed")
        else:
            note = "undefined (0/0)" if np.isnan(observed) else "unbounded (∞)"
            ax.plot([], [], " ", label=f"observed: {note}")

    _finish_axis(ax, scale, label_of(da, name) + unit_suffix(scale), lims)
    ax.set_title(_title(name, classifier, class_) if title is None else title)
    if legend:
        ax.legend(fontsize=8, frameon=False, loc="upper left" if _mass_right(x, scale)
                  else "upper right")
    return ax


def _mass_right(x: np.ndarray, scale: Scale) -> bool:
    """Whether the draws sit in the right half of the support (put the legend left)."""
    if scale.log or not np.isfinite(scale.lower) or not np.isfinite(scale.upper):
        return False
    return float(np.median(x)) > 0.5 * (scale.lower + scale.upper)


def _drawable(ds: xr.Dataset, names: Iterable[str], classifier: Hashable | None,
              class_: Hashable | None) -> list[str]:
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


def _grid(n: int, axes: Any, ncols: int, panel: tuple[float, float] = (3.2, 2.4)
          ) -> tuple[Any, list[Any]]:
    """A figure of ``n`` panels without empty slots: a short last row is centred."""
    import matplotlib.pyplot as plt

    if axes is not None:
        flat_axes = list(np.ravel(axes))
        if len(flat_axes) < n:
            raise ValueError(f"{n} panels need at least {n} axes, got {len(flat_axes)}.")
        return flat_axes[0].figure, flat_axes
    ncols = max(1, min(ncols, n))
    nrows = int(np.ceil(n / ncols))
    fig = plt.figure(figsize=(panel[0] * ncols, panel[1] * nrows + 0.4), layout="constrained")
    spec = fig.add_gridspec(nrows, 2 * ncols)
    flat_axes = []
    for i in range(n):
        row, col = divmod(i, ncols)
        in_row = ncols if row < nrows - 1 else n - ncols * (nrows - 1)
        start = (ncols - in_row) + 2 * col  # centre a short last row
        flat_axes.append(fig.add_subplot(spec[row, start:start + 2]))
    return fig, flat_axes


def marks_legend(fig: Any, prob: float, prior: bool = False, predictive: bool = False) -> None:
    """One legend under a grid for the marks every panel shares."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [Line2D([], [], color=POSTERIOR_COLOR, lw=2, label="posterior density"),
               Patch(color=POSTERIOR_COLOR, alpha=0.3, label=f"{100 * prob:g} % HDI"),
               Line2D([], [], color=OBSERVED_COLOR, lw=1.5, label="observed value")]
    if prior:
        handles.append(Line2D([], [], color=PRIOR_COLOR, lw=1.5, ls="--", label="prior"))
    if predictive:
        handles.append(Patch(color=PREDICTIVE_COLOR, alpha=0.25, label="posterior predictive"))
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), frameon=False,
               fontsize=8)


@keyword_checked
def plot_metrics(
    idata: xr.DataTree,
    var_names: Iterable[str] | str | None = None,
    axes: Any = None,
    hdi_prob: float | None = None,
    predictive: bool = False,
    prior: bool = False,
    classifier: Hashable | None = None,
    class_: Hashable | None = None,
    *,
    ncols: int = 4,
) -> Any:
    """A grid of metric posteriors, one :func:`plot_metric` panel each.

    Parameters
    ----------
    idata : xarray.DataTree
        A result of :func:`bayescm.fit`.
    var_names : str or list of str, optional
        Metrics to draw (aliases accepted); default every posterior variable that is one
        density with the given ``classifier`` / ``class_`` (``theta`` and per-class metrics
        without ``class_`` are left out).
    axes : array of matplotlib.axes.Axes, optional
        Axes to draw on (at least one per metric); default a new figure.
    hdi_prob, predictive, prior, classifier, class_
        As in :func:`plot_metric`.
    ncols : int, default 4
        Panels per row of a new figure.

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    plot_metric, plot_priors

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_metrics
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
    ...                 metrics=["tpr", "tnr", "ppv", "bm"], random_seed=1)
    >>> fig = plot_metrics(idata, ["tpr", "tnr", "bm"])
    >>> [ax.get_title() for ax in fig.axes]
    ['TPR', 'TNR', 'BM']
    >>> import matplotlib.pyplot as plt; plt.close(fig)
    """
    box.check_tree(idata)
    ds = box.get_group(idata, "posterior")
    if var_names is None:
        names = _drawable(ds, resolve_var_names(idata, None), classifier, class_)
        if not names:
            raise ValueError(
                "No metric reduces to one density; pass classifier= for a batch fit or class_= "
                "for per-class metrics."
            )
    else:
        names = resolve_var_names(idata, var_names)
    fig, flat_axes = _grid(len(names), axes, ncols)
    for name, ax in zip(names, flat_axes, strict=False):
        plot_metric(idata, name, ax=ax, hdi_prob=hdi_prob, predictive=predictive, prior=prior,
                    classifier=classifier, class_=class_ if "class" in ds[name].dims else None,
                    legend=False)
        ax.set_xlabel(ax.get_xlabel(), fontsize=8)
    if axes is None:
        marks_legend(fig, hdi_prob_of(idata, hdi_prob), prior, predictive)
    return fig


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
    dim = "prior_choice"  # the dim of bcm.prior_sensitivity
    if dim in ds.dims:
        labels = [str(v) for v in ds[dim].values]
        return {label: ds.isel({dim: i}) for i, label in enumerate(labels)}
    return {str(priors.attrs.get("prior_name", "prior")): ds}


@keyword_checked
def plot_priors(
    priors: Any,
    var_names: Iterable[str] | str | None = None,
    axes: Any = None,
    class_: Hashable | None = None,
    *,
    ncols: int = 4,
) -> Any:
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

    Returns
    -------
    matplotlib.figure.Figure

    See Also
    --------
    plot_metric : with ``prior=True``, the prior under the posterior.

    Examples
    --------
    Laplace against Jeffreys priors (SI Fig. S1 against S2):

    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_priors
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    >>> fits = {name: bcm.fit(cm, prior=name, metrics=["ppv", "mcc"], draws=1000,
    ...                       random_seed=0) for name in ["laplace", "jeffreys"]}
    >>> fig = plot_priors(fits, ["ppv", "mcc"])
    >>> [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
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
    fig, flat_axes = _grid(len(names), axes, ncols)
    for name, ax in zip(names, flat_axes, strict=False):
        scale = scale_of(name)
        lims = []
        for i, (label, ds) in enumerate(sources.items()):
            if name not in ds:
                raise KeyError(f"The prior {label!r} has no {name!r}.")
            da = select(ds[name], name, None, class_ if "class" in ds[name].dims else None)
            x = flat(da)
            if x.size < 2:
                continue
            grid, dens = _density(x, scale)
            ax.plot(grid, dens, lw=1.8, color=f"C{i}", label=label, gid=f"prior:{label}")
            lims.append((float(grid[0]), float(grid[-1])))
        if not lims:
            raise ValueError(f"{name!r} has no finite prior draws.")
        _finish_axis(ax, scale, label_of(first[name], name) + unit_suffix(scale), lims)
        ax.xaxis.label.set_fontsize(8)
        ax.set_title(_title(name, None, class_ if "class" in first[name].dims else None))
    flat_axes[0].legend(fontsize=8, frameon=False)
    fig.suptitle("Priors implied on the metrics")
    return fig
