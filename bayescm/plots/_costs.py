"""Cost curves, the expected value of perfect information, and the calibration curve.

:func:`plot_cost_curve` draws a result of :func:`bayescm.cost_curve` (Drummond & Holte),
:func:`plot_evpi` the EVPI of a result of :func:`bayescm.net_benefit`, and
:func:`plot_calibration_curve` the recalibration curve of ``bcm.fit(scores,
method="calibration")`` with its intercept and slope in the legend. Bands are pointwise HDIs;
the calibration curve's draws are whole curves (one intercept and slope each), so its
simultaneous band is drawn too.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.plots._checks import plot_function
from bayescm.plots._common import hdi_prob_of
from bayescm.plots._decision import _band, _chosen_bands, _selected
from bayescm.plots._layout import new_axes
from bayescm.plots._legends import legend_aside
from bayescm.plots._style import format_probability, palette_color

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_calibration_curve", "plot_cost_curve", "plot_evpi"]

_AXIS_LABELS = {"probability_cost": "probability cost PC(+)",
                "cost_ratio": "cost ratio c_FN / c_FP", "prevalence": "prevalence"}


def _posterior(tree: Any, func: str, var: str, remedy: str) -> xr.Dataset:
    post = (box.get_group(tree, "posterior", foreign=True) if isinstance(tree, xr.DataTree)
            and box.has_group(tree, "posterior") else None)
    if post is None or var not in post.data_vars:
        raise ValueError(f"{func} draws {remedy} (posterior variable {var!r}); this tree has "
                         "none.")
    return post


def _rows(da: xr.DataArray, dim: str) -> np.ndarray:
    return np.asarray(da.transpose(*box.SAMPLE_DIMS, dim).values, dtype=float).reshape(
        -1, da.sizes[dim])


@plot_function()
def plot_cost_curve(cost_tree: xr.DataTree,
                    system: Hashable | Sequence[Hashable] | None = None,
                    ax: Axes | None = None, hdi_prob: float | None = None, *,
                    legend: bool = True, title: str | None = None,
                    figsize: tuple[float, float] | None = None) -> Axes:
    """Cost curves: each classifier's normalised expected cost with its band, and the trivial.

    Draws the posterior mean of the normalised expected cost of each classifier over the x
    axis of the result (the probability cost, the cost ratio on a log axis, or the
    prevalence) with its pointwise HDI, and the cost of the better of treat-all and
    treat-none (the triangle ``min(PC, 1 - PC)``; its mean when the prevalence is uncertain).
    Below the triangle the classifier is worth using.

    Parameters
    ----------
    cost_tree : xarray.DataTree
        A result of :func:`bayescm.cost_curve`.
    system : str or list of str, optional
        Classifiers to draw; default all.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    hdi_prob : float, optional
        Probability of the bands; default the result's.
    legend : bool, default True
        Draw the legend.
    title : str, optional
        Axes title; default ``"Cost curve"``.
    figsize : tuple of float, optional
        Size of a new figure in inches (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        Not a result of :func:`bayescm.cost_curve`.
    KeyError
        An unknown system.

    See Also
    --------
    bayescm.cost_curve : Computes the curves.
    plot_decision_curve : The same decisions as net benefit over the threshold probability.

    Examples
    --------
    >>> import bayescm as bcm
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=40, fn=10, tn=45, fp=5)
    >>> curve = bcm.cost_curve(bcm.fit(cm, random_seed=0, draws=200), points=21)
    >>> bcm.plots.plot_cost_curve(curve).get_xlabel()
    'probability cost PC(+)'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    post = _posterior(cost_tree, "plot_cost_curve", "normalized_cost",
                      "the result of bcm.cost_curve(fit)")
    over = str(cost_tree.attrs.get("over", "probability_cost"))
    names = _selected(post, "system", system, "plot_cost_curve")
    prob = hdi_prob_of(cost_tree, hdi_prob)
    x = np.asarray(post[over].values, dtype=float)
    ax = new_axes(ax, figsize)
    for i, name in enumerate(names):
        color = palette_color(i)
        mean = _band(ax, x, _rows(post["normalized_cost"].sel(system=name), over), prob,
                     ("pointwise",), color, name, i == 0)
        below = post["p_below_trivial"].sel(system=name).values
        ax.plot(x, mean, color=color, lw=2, gid=f"mean:{name}",
                label=f"{name} (P(below trivial) up to {format_probability(below.max())})")
    trivial = _rows(post["trivial_cost"].isel(system=0), over).mean(axis=0)
    ax.plot(x, trivial, color="0.35", lw=1.3, ls="--", gid="trivial",
            label="treat all or treat none (the better)")
    if over == "cost_ratio":
        ax.set_xscale("log")
    ax.set_xlim(float(x[0]), float(x[-1]))
    ax.set_ylim(0, max(0.55, float(np.nanmax(trivial)) * 1.1))
    ax.set_xlabel(_AXIS_LABELS.get(over, over))
    ax.set_ylabel("normalised expected cost")
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title("Cost curve" if title is None else title)
    if legend:
        legend_aside(ax)
    return ax


@plot_function()
def plot_evpi(nb_tree: xr.DataTree, ax: Axes | None = None, *, legend: bool = True,
              title: str | None = None, figsize: tuple[float, float] | None = None) -> Axes:
    """The expected value of perfect information across threshold probabilities.

    EVPI(t) (true positives per case) is what knowing the true net benefits would add to
    choosing the strategy (a model, treat-all or treat-none) by its posterior mean: where it
    is near 0 the choice is settled, where it peaks more validation data would pay most.

    Parameters
    ----------
    nb_tree : xarray.DataTree
        A result of :func:`bayescm.net_benefit`.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    legend : bool, default True
        Draw the legend.
    title : str, optional
        Axes title; default ``"Expected value of perfect information"``.
    figsize : tuple of float, optional
        Size of a new figure in inches (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        Not a result of :func:`bayescm.net_benefit`.

    See Also
    --------
    plot_decision_curve : The net benefit of each strategy whose choice the EVPI weighs.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.scores import ScoresModel
    >>> nb = bcm.net_benefit(ScoresModel.example(), thresholds=[0.1, 0.2, 0.3, 0.4, 0.5])
    >>> bcm.plots.plot_evpi(nb).get_ylabel()
    'EVPI (net benefit)'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    post = _posterior(nb_tree, "plot_evpi", "evpi", "the result of bcm.net_benefit(fit)")
    t = np.asarray(post["threshold"].values, dtype=float)
    value = np.asarray(post["evpi"].values, dtype=float)
    ax = new_axes(ax, figsize)
    ax.plot(t, value, color=palette_color(0), lw=2, gid="evpi",
            label="EVPI over every model, treat-all and treat-none")
    peak = int(np.argmax(value))
    ax.plot([t[peak]], [value[peak]], "o", color=palette_color(0), gid="peak",
            label=f"largest: {value[peak]:.3g} at t = {t[peak]:g}")
    ax.set_xlim(float(t[0]), float(t[-1]))
    ax.set_ylim(0, max(float(value.max()) * 1.15, 1e-4))
    ax.set_xlabel("threshold probability")
    ax.set_ylabel("EVPI (net benefit)")
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title("Expected value of perfect information" if title is None else title)
    if legend:
        legend_aside(ax)
    return ax


def _interval(values: np.ndarray, prob: float) -> tuple[float, float]:
    from bayescm.core.stats import hdi

    lo, hi = hdi(values.ravel(), prob)
    return float(lo), float(hi)


@plot_function()
def plot_calibration_curve(fit: xr.DataTree,
                           classifier: Hashable | Sequence[Hashable] | None = None,
                           ax: Axes | None = None, hdi_prob: float | None = None,
                           bands: str | Sequence[str] | None = ("pointwise", "simultaneous"),
                           *, legend: bool = True, title: str | None = None,
                           figsize: tuple[float, float] | None = None) -> Axes:
    """The recalibration curve of risks with its bands, intercept and slope in the legend.

    Draws the posterior mean of ``expit(a + b logit(p))`` over the predicted risk ``p``, its
    pointwise HDI and its simultaneous band (each draw is one whole curve), and the diagonal of
    perfect calibration. The legend gives each model's calibration intercept ``a`` and slope
    ``b``: posterior means with their HDIs.

    Parameters
    ----------
    fit : xarray.DataTree
        A fit of ``bcm.fit(bcm.Scores(y, risk), method="calibration")``.
    classifier : str or list of str, optional
        Models to draw; default all.
    ax, hdi_prob, bands, legend
        As for :func:`plot_decision_curve`.
    title : str, optional
        Axes title; default ``"Calibration curve"``.
    figsize : tuple of float, optional
        Size of a new figure in inches (not with ``ax``).

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on.

    Raises
    ------
    ValueError
        Not a calibration fit, or an unknown band.
    KeyError
        An unknown classifier.

    See Also
    --------
    plot_reliability : The binned reliability curve of any scores fit.

    Examples
    --------
    >>> import numpy as np, bayescm as bcm
    >>> rng = np.random.default_rng(0)
    >>> risk = rng.beta(2, 5, 300)
    >>> fit = bcm.fit(bcm.Scores(rng.random(300) < risk, risk), method="calibration",
    ...               draws=200, chains=2, random_seed=1)
    >>> ax = bcm.plots.plot_calibration_curve(fit)
    >>> ax.get_legend().get_texts()[0].get_text().startswith("intercept")
    True
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    post = _posterior(fit, "plot_calibration_curve", "calibration_curve",
                      "a calibration fit, bcm.fit(bcm.Scores(y, risk), method='calibration')")
    chosen = _chosen_bands(bands, True)
    prob = hdi_prob_of(fit, hdi_prob)
    several = "classifier" in post["calibration_curve"].dims
    if several:
        names: list[Any] = _selected(post, "classifier", classifier, "plot_calibration_curve")
    elif classifier is not None:
        raise KeyError(f"plot_calibration_curve: this fit has one model (no classifier names); "
                       f"drop classifier={classifier!r}.")
    else:
        names = [None]
    risk = np.asarray(post["risk"].values, dtype=float)
    ax = new_axes(ax, figsize)
    ax.plot([0, 1], [0, 1], color="0.4", lw=1, ls=":", gid="diagonal",
            label="perfect calibration")
    p = f"{100 * prob:g} %"
    for i, name in enumerate(names):
        sel = {} if name is None else {"classifier": name}
        color = palette_color(i)
        key = "A" if name is None else str(name)
        mean = _band(ax, risk, _rows(post["calibration_curve"].sel(sel), "risk"), prob, chosen,
                     color, key, i == 0)
        a = post["calibration_intercept"].sel(sel).values
        b = post["calibration_slope"].sel(sel).values
        (a_lo, a_hi), (b_lo, b_hi) = _interval(a, prob), _interval(b, prob)
        prefix = "" if name is None else f"{name}: "
        ax.plot(risk, mean, color=color, lw=2, gid=f"mean:{key}",
                label=(f"{prefix}intercept {a.mean():.2f} [{a_lo:.2f}, {a_hi:.2f}], "
                       f"slope {b.mean():.2f} [{b_lo:.2f}, {b_hi:.2f}] ({p} HDI)"))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.set_xlabel("predicted risk")
    ax.set_ylabel("observed event rate")
    ax.spines[["top", "right"]].set_visible(False)
    ax.set_title("Calibration curve" if title is None else title)
    if legend:
        handles, labels = ax.get_legend_handles_labels()
        means = [k for k, label in enumerate(labels) if "slope" in label]
        rest = [k for k in range(len(labels)) if k not in means]
        order = means + rest
        legend_aside(ax, [handles[k] for k in order], [labels[k] for k in order])
    return ax
