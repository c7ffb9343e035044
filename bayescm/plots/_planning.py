"""Sample-size planning: metric uncertainty against the test-set size (paper Fig. 6)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescm.analyses.samplesize import SampleSizePlan, mu_bound
from bayescm.core.config import rcParams
from bayescm.core.stats import hdi_prob_for
from bayescm.plots._checks import plot_function
from bayescm.plots._common import (
    log_axis_labels,
)
from bayescm.plots._layout import new_axes
from bayescm.plots._legends import legend_clear
from bayescm.plots._style import GREY, VERMILION, palette_color

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_sample_size"]

RULE_FROM = 21
"""The smallest N the 2 / sqrt(N) rule is drawn for (the paper states it for N > 20)."""

MARKERS = ("o", "s", "^", "D", "v")
"""Markers of successive curves on one axes (with their colours, told apart without colour)."""


def _curve(result: Any) -> tuple[np.ndarray, np.ndarray]:
    import xarray as xr

    if isinstance(result, xr.DataTree):
        raise TypeError("plot_sample_size draws a planning curve, not a fit: give it "
                        "{'n': sizes, 'mu': bcm.samplesize.mu_at_power(sizes)}.")
    if isinstance(result, Mapping) or hasattr(result, "columns"):
        try:
            n, mu = result["n"], result["mu"]
        except KeyError:
            raise KeyError("Give the curve as {'n': sizes, 'mu': MU at each size}.") from None
    elif isinstance(result, tuple) and len(result) == 2:
        n, mu = result
    else:
        raise TypeError("plot_sample_size takes {'n': ..., 'mu': ...} (e.g. sizes and "
                        f"bcm.samplesize.mu_at_power(sizes)), not {type(result).__name__}.")
    n = np.asarray(n, dtype=float).reshape(-1)
    mu = np.asarray(mu, dtype=float).reshape(-1)
    if n.shape != mu.shape or n.size < 1:
        raise ValueError(f"n and mu need the same non-zero length, got {n.size} and {mu.size}.")
    if np.any(n <= 0) or np.any(~np.isfinite(n)):
        raise ValueError("Sample sizes must be positive and finite.")
    order = np.argsort(n)
    return n[order], mu[order]


@plot_function()
def plot_sample_size(result: Any, ax: Axes | None = None, plan: SampleSizePlan | None = None,
                     power: float = 0.95, rule: bool = True, *, label: str | None = None,
                     figsize: tuple[float, float] | None = None) -> Axes:
    """Metric uncertainty reached with a given power against the test-set size N (Fig. 6).

    Draws the simulated MU curve on a log N axis, the rule of thumb MU <~ 2 / sqrt(N) and,
    given a :class:`~bayescm.analyses.samplesize.SampleSizePlan`, its target and the N it found.

    Parameters
    ----------
    result : mapping or DataFrame with ``n`` and ``mu``, or a tuple ``(n, mu)``
        Sizes and the MU at each, e.g. from :func:`bayescm.analyses.samplesize.mu_at_power`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    plan : SampleSizePlan, optional
        Marks the target MU and the smallest N that reaches it.
    power : float, default 0.95
        The power of the curve (for the label).
    rule : bool, default True
        Draw the 2 / sqrt(N) rule.
    label : str, optional
        The curve's legend entry (say which prior or metric it is); default "MU reached with
        95 % power". A curve added to an axes that has one gets the next colour and marker.
    figsize : tuple of float, optional
        Size of a new figure in inches, e.g. (3.5, 2.6) for a journal column (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on: ``ax`` when given, else those of a new figure (``ax.figure`` to save
        it).

    See Also
    --------
    bayescm.samplesize.plan : The plan drawn as a marker.
    bayescm.samplesize.simulated_mu : The curve's values.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm import samplesize
    >>> from bayescm.plots import plot_sample_size
    >>> sizes = np.array([10, 100, 1000, 10000])
    >>> ax = plot_sample_size({"n": sizes, "mu": samplesize.mu_at_power(sizes, n_sims=500,
    ...                                                                  random_seed=0)})
    >>> ax.get_xscale()
    'log'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    n, mu = _curve(result)
    ax = new_axes(ax, figsize)
    pp = rcParams["plot.units"] == "percent"
    k = 100.0 if pp else 1.0
    before = sum(1 for line in ax.get_lines() if str(line.get_gid()).startswith("mu"))
    ax.plot(n, k * mu, ls="-", marker=MARKERS[before % len(MARKERS)],
            color=palette_color(0 if before == 0 else before + 3), ms=4,
            label=label or f"MU reached with {100 * power:g} % power",
            gid="mu" if before == 0 else f"mu:{before}")
    if rule and n.max() >= RULE_FROM:  # the rule is stated for N > 20
        grid = np.unique(np.round(np.geomspace(max(n.min(), RULE_FROM), n.max(), 200)))
        ax.plot(grid, k * mu_bound(grid.astype(int)), "--", color=GREY,
                label=f"rule of thumb 2/√N (N > {RULE_FROM - 1})", gid="rule")
    if plan is not None:
        ax.axhline(k * plan.mu, color=VERMILION, lw=1, ls=":", gid="target",
                   label=f"target MU {k * plan.mu:g}{' pp' if pp else ''}")
        ax.plot([plan.n], [k * plan.mu_reached], "*", color=VERMILION, ms=10, gid="plan",
                label=f"N = {plan.n:,}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    log_axis_labels(ax.xaxis)  # plain numbers (20, 1,000), as every log axis of the plots
    log_axis_labels(ax.yaxis)
    ax.set_xlabel("test-set size N")
    ax.set_ylabel("metric uncertainty MU" + (" (percentage points)" if pp else ""))
    prob = hdi_prob_for(plan.hdi_prob if plan is not None else None)
    ax.set_title(f"Sample size: width of the {100 * prob:g} % HDI against N")
    ax.grid(True, which="major", alpha=0.3)
    legend_clear(ax)  # in a corner free of the curves (the y-range raised if need be)
    return ax
