"""The figure of a rate seen through an imperfect test or judge: apparent beside corrected.

:func:`plot_corrected` draws, for each population, system or class of a
:func:`~bayescm.true_prevalence`, :func:`~bayescm.judged_accuracy` or
:func:`~bayescm.true_shares` result, the apparent rate the test reported (observed, and its
posterior interval) and the corrected true rate (its HDI and mean) with the classical point
correction (Rogan-Gladen, or the adjusted count of K classes): how far the truth lies from what
the test says, and how much wider it is once the test's own uncertainty is counted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.stats import hdi
from bayescm.plots._checks import Needs, plot_function
from bayescm.plots._common import hdi_prob_of, info_of, percent_axis, unit_suffix
from bayescm.plots._layout import fit_rows, new_axes, quantity
from bayescm.plots._legends import legend_under
from bayescm.plots._style import BLUE, GREEN, ORANGE, VERMILION, pt

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_corrected"]

CORRECTED = Needs("corrected", "a rate corrected for an imperfect test or judge",
                  "Make one with bcm.true_prevalence(positives, n, tpr=..., tnr=...), "
                  "bcm.judged_accuracy(passed, n, calibration=...) or bcm.true_shares(counts, "
                  "validation=...).")
_POINT = {"true_prevalence": "Rogan-Gladen estimate", "judged_accuracy": "Rogan-Gladen estimate",
          "true_shares": "adjusted count (matrix inversion)"}


def _rows(da: xr.DataArray) -> tuple[list[str], np.ndarray]:
    """Row names and draws ``(samples, rows)``: systems, classes, or one unnamed row."""
    dim = next((d for d in ("system", "class") if d in da.dims), None)
    if dim is None:
        return [""], np.asarray(da.values, dtype=float).reshape(-1, 1)
    names = [str(v) for v in da[dim].values]
    return names, np.asarray(da.transpose(..., dim).values, dtype=float).reshape(-1, len(names))


@plot_function(CORRECTED)
def plot_corrected(idata: xr.DataTree, ax: Axes | None = None, hdi_prob: float | None = None,
                   *, title: str | None = None,
                   figsize: tuple[float, float] | None = None) -> Axes:
    """The apparent rate beside the corrected true rate, per population, system or class.

    Each row shows the apparent rate the test reported (a diamond) with the posterior interval
    of the apparent rate (thin), the corrected rate's HDI (thick) and mean (a dot), and the
    classical point correction (a cross; Rogan-Gladen, clipped to [0, 1], or the adjusted count
    of several classes), which ignores the test's uncertainty.

    Parameters
    ----------
    idata : xarray.DataTree
        A result of :func:`~bayescm.true_prevalence`, :func:`~bayescm.judged_accuracy` or
        :func:`~bayescm.true_shares`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    hdi_prob : float, optional
        Interval probability; default the result's, else ``rcParams["stats.hdi_prob"]``.
    title : str, optional
        The axes title (default "Apparent and corrected rate").
    figsize : tuple of float, optional
        Size of a new figure in inches (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        A result of another kind.

    See Also
    --------
    bayescm.true_prevalence : The corrected prevalence of a screening test.
    bayescm.true_shares : Class shares behind a K-class classifier's predictions.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_corrected
    >>> tree = bcm.true_prevalence({"north": 142, "south": 60}, {"north": 742, "south": 500},
    ...                            tpr=bcm.Beta(90, 10), tnr=bcm.Beta(95, 5), draws=200,
    ...                            random_seed=0)
    >>> ax = plot_corrected(tree)
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['north', 'south']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    model = str(idata.attrs.get("model", ""))
    post = box.get_group(idata, "posterior")
    observed = box.get_group(idata, "observed_metrics")
    true_name = "accuracy" if model == "judged_accuracy" else "prevalence"
    apparent_name = "judged" if model == "judged_accuracy" else "apparent"
    prob = hdi_prob_of(idata, hdi_prob)
    info = info_of(idata, true_name)
    names, true = _rows(post[true_name])
    _, apparent = _rows(post[apparent_name])
    seen = np.atleast_1d(np.asarray(observed[apparent_name].values, dtype=float))
    point = np.atleast_1d(np.asarray(observed[true_name].values, dtype=float))
    rows = len(names)
    ax = new_axes(ax, figsize, default=(5.6, 1.7 + 0.6 * rows))
    y = np.arange(rows)[::-1].astype(float)
    lows, highs = zip(*(hdi(true[:, r], prob) for r in range(rows)), strict=True)
    ax.hlines(y, lows, highs, color=BLUE, lw=4, gid="hdi",
              label=f"corrected: {100 * prob:g} % HDI")
    ax.plot(true.mean(axis=0), y, "o", color=BLUE, ms=5, gid="posterior",
            label="corrected: posterior mean")
    ax.plot(point, y, "x", color=GREEN, ms=7, mew=2, gid="point",
            label=_POINT.get(model, "point correction"))
    alow, ahigh = zip(*(hdi(apparent[:, r], prob) for r in range(rows)), strict=True)
    ax.hlines(y - 0.25, alow, ahigh, color=ORANGE, lw=2, gid="apparent_hdi",
              label=f"apparent: {100 * prob:g} % HDI")
    ax.plot(seen, y - 0.25, "D", color=VERMILION, ms=5, gid="observed",
            label="apparent: observed")
    ax.set_yticks(y - 0.125, names if rows > 1 or names[0] else [info.display_name])
    ax.set_ylim(-0.75, rows - 0.4)
    percent_axis(ax.xaxis, info)
    quantity(ax, info)
    ax.set_xlabel(f"rate{unit_suffix(info)}")
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title(title if title is not None else "Apparent and corrected rate",
                 fontsize=pt(11))
    fit_rows(ax, rows + 0.5)
    legend_under(ax)
    return ax

