"""Calibration and comparison plots of a scores fit: the reliability diagram and ΔAUC.

Both read a scores fit (``bcm.fit(bcm.Scores(...))``): the reliability curve's per-bin
posteriors with the ECE against its calibrated reference, and the paired difference of two
classifiers' AUCs (or another scalar variable) with P(B > A).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.stats import hdi
from bayescm.plots._checks import SCORES, plot_function
from bayescm.plots._common import (
    bounded_kde,
    hdi_prob_of,
    info_of,
    percent,
    percent_axis,
    some,
    unit_suffix,
)
from bayescm.plots._layout import new_axes, quantity
from bayescm.plots._legends import legend_aside, legend_clear
from bayescm.plots._roc import (
    classifiers_of,
    curve_rows,
    interval_text,
    label_for,
    pick,
    scalar_summary,
    scores_posterior,
    square_size,
)
from bayescm.plots._style import BLUE, VERMILION, palette_color, probability_is

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_delta_auc", "plot_reliability"]


# ----------------------------------------------------------------------------- calibration
@plot_function(SCORES)
def plot_reliability(idata: xr.DataTree,
                     classifier: Hashable | Sequence[Hashable] | None = None,
                     ax: Axes | None = None, hdi_prob: float | None = None, *,
                     counts: bool = True, legend: bool = True, title: str | None = None,
                     figsize: tuple[float, float] | None = None) -> Axes:
    """Reliability diagram: the event rate in each score bin against the bin's mean score.

    For each bin the posterior of the observed positive rate (Beta(1 + k, 1 + n - k) for ``k``
    positives of ``n`` items) is drawn as its mean with an HDI bar, at the bin's mean score;
    a calibrated classifier's points lie on the diagonal. Bars at the bottom show the items per
    bin. Under the axes, with the legend, the expected calibration error (ECE) against the ECE
    that a perfectly calibrated classifier would show on the same items (``ece_reference``):
    the plug-in ECE is positive even then, so calibration is in doubt only when ECE clearly
    exceeds it.

    Parameters
    ----------
    idata : xarray.DataTree
        A scores fit of probability scores (``bcm.fit(bcm.Scores(...))``, scores in [0, 1]).
    classifier, ax, hdi_prob
        As for :func:`plot_roc`.
    counts : bool, default True
        Draw the items per bin as bars at the bottom.
    legend
        As for :func:`plot_roc`.
    title : str, optional
        Axes title; default ``"Reliability"``.
    figsize
        As for :func:`plot_roc`.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on: ``ax`` when given, else those of a new figure (``ax.figure`` to save
        it).

    Raises
    ------
    ValueError
        Not a scores fit, or scores that are not probabilities (no reliability curve).

    See Also
    --------
    plot_roc : How well the scores rank, rather than how well they are calibrated.
    plot_delta_auc : The AUC difference of two scores.

    Examples
    --------
    >>> from bayescm.models.scores import ScoresModel
    >>> from bayescm.plots import plot_reliability
    >>> ax = plot_reliability(ScoresModel.example(), classifier="A")
    >>> ax.get_xlabel()
    'mean score in the bin (%)'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    from matplotlib.transforms import blended_transform_factory

    post = scores_posterior(idata, "reliability", "plot_reliability", "the reliability curve")
    names = classifiers_of(post["reliability"], classifier, "plot_reliability")
    if not box.has_group(idata, "constant_data"):
        raise ValueError("plot_reliability needs the constant_data group of a scores fit "
                         "(bin_score, bin_count); refit with bcm.fit(bcm.Scores(...)).")
    const = box.get_group(idata, "constant_data")
    prob = hdi_prob_of(idata, hdi_prob)
    info = info_of(idata, "reliability")
    # the legend under the square: a line per classifier, two for its ECE, the diagonal, bars
    ax = new_axes(ax, figsize, default=square_size(3 * len(names) + 1 + counts))
    ax.plot([0, 1], [0, 1], color="0.55", lw=0.9, ls=":", gid="calibrated",
            label="perfectly calibrated")
    edges = np.asarray(const["bin_edges"].values, dtype=float)
    width = np.diff(edges)
    below = blended_transform_factory(ax.transData, ax.transAxes)
    lines = []
    for i, name in enumerate(names):
        color, key = palette_color(i), name or "A"
        rows = curve_rows(pick(post["reliability"], name), "bin")
        x = np.asarray(pick(const["bin_score"], name).values, dtype=float)
        n = np.asarray(pick(const["bin_count"], name).values, dtype=float)
        used = (n > 0) & np.isfinite(x)
        if not used.any():
            raise ValueError(f"{'The' if name is None else name + ':'} scores are not "
                             "probabilities in [0, 1]: there is no reliability curve to draw.")
        band = hdi(rows[:, used].T, prob)
        mean = np.nanmean(rows[:, used], axis=0)
        ax.errorbar(x[used], mean, yerr=np.abs(np.stack([mean - band[:, 0],
                                                          band[:, 1] - mean])),
                    color=color, fmt="o-", ms=4, lw=1.4, capsize=2, gid=f"reliability:{key}",
                    label=label_for(name, f"event rate, {100 * prob:g} % HDI"))
        if counts:
            share = len(names)
            left = edges[:-1] + width * i / share
            ax.bar(left, 0.15 * n / max(n.max(), 1.0), width=width / share, align="edge",
                   bottom=0.0, transform=below, color=color, alpha=0.25, lw=0,
                   gid=f"counts:{key}")
        ece = scalar_summary(idata, "ece", name, prob)
        ref = scalar_summary(idata, "ece_reference", name, prob)
        draws = [np.asarray(pick(post[v], name).values, dtype=float).reshape(-1)
                 for v in ("ece", "ece_reference")]
        p_worse = float(np.mean(draws[0] > draws[1]))
        lines.append(f"ECE{'' if name is None else f' ({name})'}: "
                     f"{interval_text(*ece[:3], info)}\n   if calibrated: "
                     f"{interval_text(*ref[:3], info)}, "
                     f"{probability_is('P(ECE > calibrated)', p_worse, 0)}")
    for axis in (ax.xaxis, ax.yaxis):
        percent_axis(axis, info)
    ax.set_xlabel("mean score in the bin" + unit_suffix(info))
    ax.set_ylabel("observed positive rate" + unit_suffix(info))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.01)
    ax.set_box_aspect(1)  # a square the layout sizes, with the legend under it
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title("Reliability" if title is None else title)
    # the legend and the ECE go under the axes (inside, they covered points and their bars)
    handles, labels = ax.get_legend_handles_labels() if legend else ([], [])
    if legend and counts:
        handles.append(Patch(color="0.5", alpha=0.3))
        labels.append("items per bin (bars)")
    handles += [Line2D([], [], ls="none") for _ in lines]
    under = legend_aside(ax, handles, [*labels, *lines])
    for text in under.get_texts()[len(labels):]:
        text.set_gid("ece")
    return ax


# ----------------------------------------------------------------------------- difference
@plot_function(SCORES)
def plot_delta_auc(idata: xr.DataTree, b: Hashable, a: Hashable, ax: Axes | None = None,
                   hdi_prob: float | None = None, *, metric: str = "auc", legend: bool = True,
                   title: str | None = None, figsize: tuple[float, float] | None = None
                   ) -> Axes:
    """Posterior of the difference ``AUC_B - AUC_A`` of two classifiers scored on the same items.

    Both AUCs come from the same posterior weights, so the difference keeps their correlation
    (a paired comparison). Draws its density, shades the HDI, marks 0 and the observed
    difference, and gives P(B > A) in the title.

    Parameters
    ----------
    idata : xarray.DataTree
        A scores fit of two or more classifiers (``bcm.fit(bcm.Scores(y, {"A": ..., "B":
        ...}))``).
    b, a : str
        The classifiers: the difference is ``b - a``.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    hdi_prob : float, optional
        HDI probability; default the fit's, else ``rcParams["stats.hdi_prob"]``.
    metric : str, default "auc"
        Another scalar variable of the fit to compare instead (``"average_precision"``,
        ``"auc_partial"``, ``"brier"``, ...).
    legend, title
        Draw the legend; the axes title (default ``"AUC: B - A, P(B > A) = ..."``).
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
        Not a scores fit of several classifiers, the same classifier twice, a curve variable.
    KeyError
        An unknown classifier or variable.

    See Also
    --------
    bayescm.prob_superior : The same probability as a number.

    Examples
    --------
    >>> from bayescm.models.scores import ScoresModel
    >>> from bayescm.plots import plot_delta_auc
    >>> ax = plot_delta_auc(ScoresModel.example(), "B", "A")
    >>> ax.get_title().startswith("AUC: B - A, P(B > A) = ")
    True
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    post = scores_posterior(idata, "auc", "plot_delta_auc", "the difference of two AUCs")
    if metric not in post.data_vars:
        scalars = [str(v) for v in post.data_vars if set(post[v].dims) <= {
            "chain", "draw", "classifier"}]
        raise KeyError(f"The fit has no {metric!r}; scalar variables: {some(scalars)}.")
    da = post[metric]
    if set(da.dims) - {"chain", "draw", "classifier"}:
        raise ValueError(f"{metric!r} is a curve, not one number per draw; compare 'auc', "
                         "'average_precision', 'auc_partial', 'brier', 'log_loss' or 'ece'.")
    if "classifier" not in da.dims:
        raise ValueError("plot_delta_auc compares two classifiers scored on the same items; "
                         "this fit has one. Fit them together: bcm.fit(bcm.Scores(y_true, "
                         "{'A': scores_a, 'B': scores_b})).")
    (nb, na) = (classifiers_of(da, [b, a], "plot_delta_auc"))
    if nb == na:
        raise ValueError(f"b and a are the same classifier ({nb!r}); name two different ones.")
    diff = np.asarray((pick(da, nb) - pick(da, na)).values, dtype=float).reshape(-1)
    diff = diff[np.isfinite(diff)]
    info = info_of(idata, metric)
    prob = hdi_prob_of(idata, hdi_prob)
    ax = new_axes(ax, figsize)
    span = info.upper - info.lower
    grid, dens = bounded_kde(diff, -span, span)
    ax.plot(grid, dens, color=BLUE, lw=2, gid="posterior", label="posterior")
    lo, hi = (float(v) for v in hdi(diff, prob))
    inside = (grid >= lo) & (grid <= hi)
    ax.fill_between(grid[inside], 0, dens[inside], color=BLUE, alpha=0.3, lw=0, gid="hdi",
                    label=f"{100 * prob:g} % HDI [{_points(lo, info)}, {_points(hi, info)}]")
    ax.axvline(0.0, color="0.3", lw=1, ls=":", gid="reference")
    if box.has_group(idata, "observed_metrics") and metric in box.get_group(
            idata, "observed_metrics"):
        obs = box.get_group(idata, "observed_metrics")[metric]
        value = float(pick(obs, nb) - pick(obs, na))
        if np.isfinite(value):
            ax.axvline(value, color=VERMILION, lw=1.5, gid="observed",
                       label=f"observed: {_points(value, info)}")
    p_b = float(np.mean(diff > 0))
    percent_axis(ax.xaxis, info, points=True)
    quantity(ax, info, "difference")  # differences of other pairs in the figure: one range
    ax.set_xlabel(f"difference in {info.display_name}" + unit_suffix(info, points=True))
    ax.set_ylabel("density")
    ax.set_yticks([])
    ax.set_ylim(bottom=0)
    ax.spines[["top", "right", "left"]].set_visible(False)
    head = f"{info.display_name}: {nb} - {na}"
    tail = probability_is(f"P({nb} > {na})", p_b)
    ax.set_title((f"{head}, {tail}" if len(head + tail) < 56 else f"{head}\n{tail}")
                 if title is None else title)
    if legend:
        legend_clear(ax, ("upper left", "upper right") if np.median(diff) > 0
                     else ("upper right", "upper left"))
    return ax


def _points(value: float, info: Any) -> str:
    """A difference of proportions: ``'+3.2 pp'`` (or ``'+0.032'`` as plain proportions)."""
    return f"{100 * value:+.1f} pp" if percent(info) else f"{value:+.3f}"
