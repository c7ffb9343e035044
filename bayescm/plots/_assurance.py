"""Planning figures of issue 33: assurance against the test-set size, and a stopping rule."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bayescm.analyses.samplesize.assurance import AssuranceCurve
from bayescm.analyses.samplesize.sequential import SequentialResult
from bayescm.core.config import rcParams
from bayescm.plots._checks import plot_function
from bayescm.plots._common import log_axis_labels
from bayescm.plots._layout import new_axes
from bayescm.plots._legends import legend_under
from bayescm.plots._style import (
    BLUE,
    GREEN,
    GREY,
    ORANGE,
    VERMILION,
    format_probability,
)

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_assurance", "plot_stopping"]


def _scale() -> tuple[float, str]:
    return (100.0, " (%)") if rcParams["plot.units"] == "percent" else (1.0, "")


@plot_function()
def plot_assurance(curve: Any, ax: Axes | None = None, target: float | None = None,
                   power: Any = None, *, label: str | None = None,
                   figsize: tuple[float, float] | None = None) -> Axes:
    """Assurance of a claim against the test-set size, with the target and its ``n``.

    Draws the assurance (with a band of two Monte Carlo errors where it was simulated), the
    largest assurance any size reaches (the design probability of the claim) and, given
    ``target``, the line it must reach and the first size that does; ``power`` adds a
    frequentist power curve beside it (McNemar's, for a paired comparison).

    Parameters
    ----------
    curve : AssuranceCurve
        From :func:`bayescm.samplesize.assurance` or
        :func:`bayescm.samplesize.paired_assurance`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    target : float, optional
        The assurance wanted, in (0, 1).
    power : array of float, optional
        Frequentist power at the same sizes (e.g.
        ``bcm.samplesize.paired_power(curve.n, ...)``).
    label : str, optional
        The curve's legend entry; default "assurance of <claim>".
    figsize : tuple of float, optional
        Size of a new figure in inches (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    TypeError
        ``curve`` that is no AssuranceCurve.
    ValueError
        ``power`` of another length than the curve, or a target outside (0, 1).

    See Also
    --------
    bayescm.samplesize.assurance : The curve's values.
    plot_stopping : A stopping rule's streams.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_assurance
    >>> curve = bcm.samplesize.assurance("tpr > 0.9", n=[25, 50, 100, 200, 400, 800],
    ...                                  design={"tpr": bcm.Beta(95, 5)})
    >>> ax = plot_assurance(curve, target=0.8)
    >>> ax.get_xscale()
    'log'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    if not isinstance(curve, AssuranceCurve):
        raise TypeError("plot_assurance draws an AssuranceCurve: give it "
                        "bcm.samplesize.assurance(claim, n=[...], design=...), not "
                        f"{type(curve).__name__}.")
    if target is not None and not 0 < float(target) < 1:
        raise ValueError(f"target is an assurance in (0, 1), got {target!r}.")
    n = curve.n.astype(float)
    k, unit = _scale()
    ax = new_axes(ax, figsize)
    y = curve.assurance
    ax.plot(n, k * y, "-o", color=BLUE, ms=3.5, label=label or f"assurance: {curve.claim}",
            gid="assurance")
    if np.any(curve.mc_error > 0):
        ax.fill_between(n, k * np.clip(y - 2 * curve.mc_error, 0, 1),
                        k * np.clip(y + 2 * curve.mc_error, 0, 1), color=BLUE, alpha=0.2,
                        lw=0, label="± 2 Monte Carlo errors")
    if power is not None:
        values = np.asarray(power, dtype=float).reshape(-1)
        if values.size != n.size:
            raise ValueError(f"power has {values.size} values for {n.size} sizes.")
        ax.plot(n, k * values, "--s", color=ORANGE, ms=3.5, label="frequentist power (McNemar)",
                gid="power")
    ax.axhline(k * curve.limit, color=GREY, ls=":", lw=1.2,
               label=f"largest possible: {format_probability(curve.limit)}")
    if target is not None:
        ax.axhline(k * float(target), color=VERMILION, ls="--", lw=1,
                   label=f"target {format_probability(float(target), 0)}")
        reached = np.flatnonzero(y >= float(target))
        if reached.size:
            i = int(reached[0])
            ax.plot([n[i]], [k * y[i]], "*", color=VERMILION, ms=11, gid="plan",
                    label=f"N = {int(n[i]):,}")
    if n.max() / max(n.min(), 1.0) >= 20:
        ax.set_xscale("log")
        log_axis_labels(ax.xaxis)
    ax.set_ylim(0, k * 1.02)
    ax.set_xlabel(f"test-set size N ({curve.counts})")
    ax.set_ylabel(f"assurance{unit}")
    ax.set_title(f"How likely N items establish {curve.claim}")
    ax.grid(True, alpha=0.3)
    legend_under(ax)
    return ax


@plot_function()
def plot_stopping(result: Any, ax: Axes | None = None, *,
                  figsize: tuple[float, float] | None = None) -> Axes:
    """A stopping rule: the posterior probability along simulated label streams, and the stops.

    Streams continue the labels so far with the truth drawn from the current posterior; each
    is drawn until it crosses the stopping boundary, the posterior probability ``level``
    (declare) or ``1 - level`` (the contrary, with futility). The legend gives the rule's
    wrong declarations in the first null scenario with its looks and with one look at the end.

    Parameters
    ----------
    result : SequentialResult
        From :func:`bayescm.samplesize.sequential`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    figsize : tuple of float, optional
        Size of a new figure in inches (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    TypeError
        ``result`` that is no SequentialResult.

    See Also
    --------
    bayescm.samplesize.sequential : The rule and its operating characteristics.
    plot_assurance : Assurance against a fixed size.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots import plot_stopping
    >>> res = bcm.samplesize.sequential((46, 50), "acc > 0.9", max_more=300, n_streams=200,
    ...                                 random_seed=0)
    >>> ax = plot_stopping(res)
    >>> ax.get_xlabel()
    'new labels (a look every 50)'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    if not isinstance(result, SequentialResult):
        raise TypeError("plot_stopping draws a SequentialResult: give it "
                        "bcm.samplesize.sequential(labels, rule), not "
                        f"{type(result).__name__}.")
    k, unit = _scale()
    ax = new_axes(ax, figsize)
    x = np.concatenate([[0], result.looks]).astype(float)
    first = next(iter(result.probabilities))
    for i, path in enumerate(result.paths):
        ok = np.isfinite(path)
        ax.plot(x[ok], k * path[ok], "-", color=GREY, lw=0.8, alpha=0.55,
                label="streams, truth from the posterior" if i == 0 else None)
        end = np.flatnonzero(ok)[-1]
        if end < x.size - 1 or path[end] >= result.level or path[end] <= 1 - result.level:
            colour = GREEN if path[end] >= result.level else VERMILION
            ax.plot([x[end]], [k * path[end]], "o", color=colour, ms=3.5)
    null = [s for s in result.operating.index if s != "predictive"]
    row = result.operating.loc[null[0]] if null else None
    note = "" if row is None else (
        f"\nwrong ({null[0]}): {format_probability(row['p_wrong'])};"
        f" one look: {format_probability(row['p_wrong_one_look'])}")
    what = result.rule if first == "claim" else first
    ax.axhline(k * result.level, color=GREEN, ls="--", lw=1.2,
               label=f"declare: {what}{note}")
    ax.axhline(k * (1 - result.level), color=VERMILION, ls="--", lw=1.2,
               label="declare the contrary" if "contrary" in result.probabilities else
               "boundary 1 − level")
    ax.plot([0], [k * result.probabilities[first]], "*", color=BLUE, ms=11,
            label=f"now, after {result.labels:,} labels")
    ax.set_ylim(0, k * 1.02)
    ax.set_xlim(0, x.max())
    ax.set_xlabel(f"new labels (a look every {int(result.looks[0]):,})")
    ax.set_ylabel(f"posterior probability{unit}")
    ax.set_title(f"Stopping: {result.rule}")
    ax.grid(True, alpha=0.3)
    legend_under(ax)
    return ax
