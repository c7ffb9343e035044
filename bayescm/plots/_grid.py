"""Grids of panels: a figure without empty slots, its shared legend, and ``plot_metrics``."""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from bayescm.analyses.summary import resolve_var_names
from bayescm.core import container as box
from bayescm.core.validate import keyword_checked
from bayescm.plots._common import hdi_prob_of
from bayescm.plots._metric import (
    OBSERVED_COLOR,
    POSTERIOR_COLOR,
    PREDICTIVE_COLOR,
    PRIOR_COLOR,
    plot_metric,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["grid", "marks_legend", "plot_metrics"]


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


def grid(n: int, axes: Any, ncols: int, panel: tuple[float, float] = (3.2, 2.4)
         ) -> tuple[Figure, list[Axes]]:
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


def marks_legend(fig: Figure, prob: float, prior: bool = False, predictive: bool = False,
                 overlay: bool = False) -> None:
    """One legend under a grid for the marks every panel shares."""
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    handles = [Line2D([], [], color=POSTERIOR_COLOR, lw=2, label="posterior density"),
               Patch(color=POSTERIOR_COLOR, alpha=0.3, label=f"{100 * prob:g} % HDI"),
               Line2D([], [], color=OBSERVED_COLOR, lw=1.5, label="observed value")]
    if overlay:  # several classifiers or classes: one colour each, HDIs as bars
        handles[1] = Line2D([], [], color="0.3", lw=3, label=f"{100 * prob:g} % HDI (bar)")
        handles[2] = Line2D([], [], color="0.3", lw=1, ls=":", label="observed value")
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
    classifier: Hashable | Sequence[Hashable] | None = None,
    class_: Hashable | Sequence[Hashable] | None = None,
    *,
    ncols: int = 4,
) -> Figure:
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
        As in :func:`plot_metric` (lists overlay several classifiers or classes, each panel
        then with its own legend); ``class_`` applies to the per-class metrics only.
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
    fig, flat_axes = grid(len(names), axes, ncols)
    overlay = False
    for name, ax in zip(names, flat_axes, strict=False):
        dims = ds[name].dims
        pick = {"classifier": classifier if "classifier" in dims else None,
                "class_": class_ if "class" in dims else None}
        several = any(isinstance(v, (list, tuple, np.ndarray)) for v in pick.values())
        overlay |= several
        plot_metric(idata, name, ax=ax, hdi_prob=hdi_prob, predictive=predictive, prior=prior,
                    legend=several, classifier=pick["classifier"], class_=pick["class_"])
        ax.set_xlabel(ax.get_xlabel(), fontsize=8)
    if axes is None:
        marks_legend(fig, hdi_prob_of(idata, hdi_prob), prior, predictive, overlay)
    return fig


