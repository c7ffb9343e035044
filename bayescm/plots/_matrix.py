"""The confusion probability matrix theta as a heatmap with per-cell uncertainty."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.stats import hdi
from bayescm.plots._checks import THETA, plot_function
from bayescm.plots._common import (
    draws_of,
    hdi_prob_of,
    info_of,
    percent,
)
from bayescm.plots._layout import check_figsize, fit_rows, new_axes
from bayescm.plots._style import MIN_FONT, preset, preset_size, pt

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_theta"]


@plot_function(THETA)
def plot_theta(idata: xr.DataTree, ax: Axes | None = None, classifier: Hashable | None = None,
               hdi_prob: float | None = None, var: str = "theta", *,
               figsize: tuple[float, float] | None = None) -> Axes:
    """Heatmap of the posterior mean of theta (true x predicted) with each cell's HDI.

    Each cell shows the posterior mean probability and its HDI (in per cent, or as
    proportions with ``rcParams["plot.units"] = "proportion"``); the colour is the mean, on a
    scale from 0 to the largest cell. Works for binary and multiclass fits; readable up to
    about 10 classes (from 6 classes the cells show mean ± sd).

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
        ``"theta"`` (joint cell probabilities) or ``"rates"`` (rows sum to one; of a binary
        fit, which stores theta only, computed from theta).
    figsize : tuple of float, optional
        Size of a new figure in inches, e.g. (3.5, 2.6) for a journal column (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on: ``ax`` when given, else those of a new figure (``ax.figure`` to save
        it).

    Raises
    ------
    ValueError
        ``var`` other than ``"theta"`` or ``"rates"``.

    See Also
    --------
    plot_metric : The posterior of one metric derived from theta.
    bayescm.summary : Every cell's mean and HDI as a table.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_theta
    >>> idata = bcm.fit(bcm.ConfusionMatrix([[27, 3, 0], [6, 21, 3], [0, 3, 15]]), random_seed=0)
    >>> ax = plot_theta(idata)
    >>> ax.get_ylabel(), ax.get_xlabel()
    ('true class', 'predicted class')
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    if var not in ("theta", "rates"):
        raise ValueError(f"var must be 'theta' (P(true, predicted)) or 'rates' "
                         f"(P(predicted | true)), got {var!r}.")
    posterior = box.get_group(idata, "posterior")
    derive = var == "rates" and "rates" not in posterior  # a binary fit stores theta only
    name, da = draws_of(idata, "theta" if derive else var, "posterior", classifier=classifier,
                        keep=("true_class", "pred_class"))
    if derive:
        name, da = "rates", da / da.sum("pred_class")
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
    own = ax is None and figsize is None  # a figure of ours: it may grow to fit the rows
    if ax is not None:
        root = ax.get_figure(root=True)
        assert root is not None  # an Axes on a figure
        room = ax.get_position().width * float(root.get_size_inches()[0])
    else:  # the width of a new figure, less the labels and the colour bar
        room = (check_figsize(figsize) or preset_size((2.2 + 1.25 * k_pred, 1.4 + 0.8 * k_true))
                )[0] - 1.6 * preset().scale
    # many or narrow columns: mean ± sd, two short lines per cell (an HDI needs 0.8 inch)
    small = k_pred > 5 or room / k_pred < 0.1 * pt(MIN_FONT)
    ax = new_axes(ax, figsize, default=(2.2 + (0.85 if small else 1.25) * k_pred,
                                        1.4 + (0.6 if small else 0.8) * k_true))
    top = float(mean.max()) if mean.size else 1.0
    image = ax.imshow(scale * mean, cmap="Blues", vmin=0, vmax=scale * top, aspect="auto",
                      gid="theta_mean")
    for (i, j), m in np.ndenumerate(mean):
        lo, hi = bounds[i, j]
        if scale == 100.0:
            text = (f"{100 * m:.1f}\n±{100 * sd[i, j]:.1f}" if small
                    else f"{100 * m:.1f} %\n[{100 * lo:.1f}, {100 * hi:.1f}]")
        else:
            text = (f"{m:.3f}\n±{sd[i, j]:.3f}" if small else f"{m:.3f}\n[{lo:.3f}, {hi:.3f}]")
        ax.text(j, i, text, ha="center", va="center", fontsize=pt(MIN_FONT),
                color="white" if m > 0.6 * top else "black", gid=f"cell:{i},{j}")
    ax.set_xticks(range(k_pred), [str(v) for v in da["pred_class"].values])
    ax.set_yticks(range(k_true), [str(v) for v in da["true_class"].values])
    ax.set_xlabel("predicted class")
    ax.set_ylabel("true class")
    what = "P(true, predicted)" if name == "theta" else "P(predicted | true)"
    bar = ax.figure.colorbar(image, ax=ax, shrink=0.8)
    bar.set_label(f"posterior mean{unit}", fontsize=pt(MIN_FONT + 1))
    suffix = f", classifier {classifier}" if classifier is not None else ""
    cells = "mean ± sd" if small else f"mean [{100 * prob:g} % HDI]"
    # the colour bar carries the unit: the title stays short and clear of its label
    ax.set_title(f"{what}: {cells}{unit}{suffix}", fontsize=pt(10), loc="left")
    if own:
        fit_rows(ax, k_true, 2)
    return ax
