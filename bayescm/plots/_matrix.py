"""The confusion probability matrix theta as a heatmap with per-cell uncertainty."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from bayescm.core.stats import hdi
from bayescm.core.validate import keyword_checked
from bayescm.plots._common import draws_of, hdi_prob_of, info_of, new_axes, percent

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_theta"]


@keyword_checked
def plot_theta(idata: xr.DataTree, ax: Axes | None = None, classifier: Hashable | None = None,
               hdi_prob: float | None = None, var: str = "theta") -> Axes:
    """Heatmap of the posterior mean of theta (true x predicted) with each cell's HDI.

    Each cell shows the posterior mean probability and its HDI (in per cent, or as
    proportions with ``rcParams["plot.units"] = "proportion"``); the colour is the mean. Works
    for binary and multiclass fits; readable up to about 10 classes.

    Parameters
    ----------
    idata : xarray.DataTree
        A result of :func:`bayescm.fit`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    classifier : hashable, optional
        Classifier of a batch fit.
    hdi_prob : float, optional
        HDI probability; default the tree's, else ``rcParams["stats.hdi_prob"]``.
    var : str, default "theta"
        ``"theta"`` (joint cell probabilities) or ``"rates"`` (rows sum to one).

    Returns
    -------
    matplotlib.axes.Axes

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_theta
    >>> idata = bcm.fit(bcm.ConfusionMatrix([[9, 1, 0], [2, 7, 1], [0, 1, 5]]), random_seed=0)
    >>> ax = plot_theta(idata)
    >>> ax.get_ylabel(), ax.get_xlabel()
    ('true class', 'predicted class')
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    name, da = draws_of(idata, var, "posterior", classifier=classifier,
                        keep=("true_class", "pred_class"))
    prob = hdi_prob_of(idata, hdi_prob)
    info = info_of(idata, name, da)
    scale = 100.0 if percent(info) else 1.0
    unit = " (%)" if scale == 100.0 else ""
    da = da.transpose("true_class", "pred_class", ...)
    k_true, k_pred = da.sizes["true_class"], da.sizes["pred_class"]
    draws = np.asarray(da.values, dtype=float).reshape(k_true, k_pred, -1)
    mean = draws.mean(axis=-1)
    sd = draws.std(axis=-1, ddof=1)
    bounds = hdi(draws, prob)
    ax = new_axes(ax, figsize=(1.8 + (0.75 if k_pred > 6 else 1.05) * k_pred,
                               1.2 + (0.6 if k_true > 6 else 0.8) * k_true))
    image = ax.imshow(scale * mean, cmap="Blues", vmin=0, aspect="auto", gid="theta_mean")
    top = float(mean.max()) if mean.size else 1.0
    small = k_pred > 6
    for (i, j), m in np.ndenumerate(mean):
        lo, hi = bounds[i, j]
        if scale == 100.0:
            text = (f"{100 * m:.1f}\n±{100 * sd[i, j]:.1f}" if small
                    else f"{100 * m:.1f} %\n[{100 * lo:.1f}, {100 * hi:.1f}]")
        else:
            text = (f"{m:.3f}\n±{sd[i, j]:.3f}" if small else f"{m:.3f}\n[{lo:.3f}, {hi:.3f}]")
        ax.text(j, i, text, ha="center", va="center", fontsize=6 if small else 7,
                color="white" if m > 0.6 * top else "black", gid=f"cell:{i},{j}")
    ax.set_xticks(range(k_pred), [str(v) for v in da["pred_class"].values])
    ax.set_yticks(range(k_true), [str(v) for v in da["true_class"].values])
    ax.set_xlabel("predicted class")
    ax.set_ylabel("true class")
    what = "P(true, predicted)" if name == "theta" else "P(predicted | true)"
    ax.figure.colorbar(image, ax=ax, label=f"posterior mean {what}{unit}", shrink=0.8)
    suffix = f", classifier {classifier}" if classifier is not None else ""
    cells = (f" ± sd{unit}" if small else f"{unit}, {100 * prob:g} % HDI in brackets")
    ax.set_title(f"{info.display_name}: posterior mean{cells}{suffix}", fontsize=10)
    return ax
