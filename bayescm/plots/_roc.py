"""Curves of a scores fit: ROC and PR curves with their pointwise and simultaneous bands.

A scores fit (``bcm.fit(bcm.Scores(...))``, nonparametric by default) holds whole curves: every
draw of ``roc`` (over ``fpr``) and of ``pr`` (over ``recall``) is one curve. The bands are those
of :func:`bayescm.models.roc.curve_bands`: the pointwise HDI at each grid point, and the
simultaneous band that holds a fraction ``hdi_prob`` of the posterior curves entirely
(``mean ± c·sd`` with ``c`` the quantile of each curve's largest standardised distance from the
mean). The observed curves are drawn from the items themselves (``observed_data``), as exact
staircases. The helpers here (which classifiers, which draws) serve :mod:`._scores` too.
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
    format_value,
    hdi_prob_of,
    info_of,
    percent_axis,
    some,
    unit_suffix,
)
from bayescm.plots._layout import new_axes
from bayescm.plots._legends import legend_aside
from bayescm.plots._style import VERMILION, palette_color

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_pr", "plot_roc"]

MAX_CURVES = 8
"""Most classifiers one panel overlays."""

BANDS = ("pointwise", "simultaneous")
OBSERVED_COLOR = VERMILION
"""The observed curve of a single classifier (several: each in its classifier's colour)."""


# ----------------------------------------------------------------------------- helpers
def scores_posterior(idata: xr.DataTree, var: str, func: str, what: str) -> xr.Dataset:
    """The posterior of a scores fit holding ``var``, else a ValueError that says what to do."""
    box.check_tree(idata)
    post = box.get_group(idata, "posterior") if box.has_group(idata, "posterior") else None
    if post is None or var not in post.data_vars:
        try:
            from bayescm.models import registry

            key = registry.kind_of(idata, checked=True)
            kind = f"this result is {key.description}"
        except Exception:  # a foreign tree: say what is missing
            key, kind = None, "this result is not a bayescm fit"
        if getattr(key, "key", None) == "scores":
            raise ValueError(
                f"{func} draws {what}: the posterior variable {var!r}, which this scores fit "
                f"(method {idata.attrs.get('method')!r}) does not hold. The nonparametric "
                "fits compute it: bcm.fit(bcm.Scores(...)) with its default method, or "
                "method='bootstrap'.")
        raise ValueError(
            f"{func} draws {what} of a scores fit (posterior variable {var!r}); {kind}. Fit "
            "labels and scores first: bcm.fit(bcm.Scores(y_true, scores)), or bcm.Scores."
            "from_csv(path, label=..., score=[...]) for a file.")
    return post


def classifiers_of(da: xr.DataArray, classifier: Any, func: str) -> list[str | None]:
    """The classifiers to draw: all (None), one name or a list; None for a single fit."""
    if "classifier" not in da.dims:
        if classifier is not None:
            raise ValueError(f"This scores fit has one classifier (no classifier dim); drop "
                             f"classifier={classifier!r} from {func}.")
        return [None]
    names = [str(v) for v in da["classifier"].values]
    several = isinstance(classifier, (list, tuple, np.ndarray))
    chosen: list[str | None] = list(names)
    if classifier is not None:
        chosen = [str(c) for c in classifier] if several else [str(classifier)]
    unknown = [c for c in chosen if c not in names]
    if unknown:
        raise KeyError(f"classifier={unknown[0]!r} is not in the fit; choose from: "
                       f"{some(names)}.")
    if not 1 <= len(chosen) <= MAX_CURVES:
        raise ValueError(f"{func} overlays 1 to {MAX_CURVES} classifiers, got {len(chosen)}; "
                         "pass classifier=[...] with fewer names.")
    return chosen


def pick(da: xr.DataArray, name: str | None) -> xr.DataArray:
    """One classifier of ``da`` (``da`` itself for a fit of one)."""
    return da if name is None else da.sel(classifier=name)


def curve_rows(da: xr.DataArray, dim: str) -> np.ndarray:
    """Draws of a curve as rows: ``(chains * draws, points)``."""
    return np.asarray(da.transpose(*box.SAMPLE_DIMS, dim).values, dtype=float).reshape(
        -1, da.sizes[dim])


def scalar_summary(idata: xr.DataTree, var: str, name: str | None, prob: float
                   ) -> tuple[float, float, float, float | None]:
    """Posterior mean, HDI and observed value of a scalar variable of one classifier."""
    post = box.get_group(idata, "posterior")
    x = np.asarray(pick(post[var], name).values, dtype=float).reshape(-1)
    lo, hi = hdi(x, prob)
    observed = None
    if box.has_group(idata, "observed_metrics") and var in box.get_group(idata,
                                                                          "observed_metrics"):
        observed = float(pick(box.get_group(idata, "observed_metrics")[var], name).values)
    return float(np.mean(x)), float(lo), float(hi), observed


def _bands(bands: Any) -> tuple[str, ...]:
    if bands is None:
        return ()
    chosen = (bands,) if isinstance(bands, str) else tuple(bands)
    bad = [b for b in chosen if b not in BANDS]
    if bad:
        raise ValueError(f"Unknown band {bad[0]!r}; bands= takes 'pointwise', 'simultaneous', "
                         "both, or () for none.")
    return chosen


def _items(idata: xr.DataTree, name: str | None) -> tuple[np.ndarray, np.ndarray] | None:
    """Labels and scores of the observed items (``observed_data``), if the tree has them."""
    if not box.has_group(idata, "observed_data"):
        return None
    obs = box.get_group(idata, "observed_data")
    if "y" not in obs or "scores" not in obs:
        return None
    scores = obs["scores"]
    if name is not None and "classifier" in scores.dims:
        scores = scores.sel(classifier=name)
    return np.asarray(obs["y"].values).astype(bool), np.asarray(scores.values, dtype=float)


def _staircases(y: np.ndarray, s: np.ndarray) -> dict[str, np.ndarray]:
    """Vertices of the empirical ROC and PR curves (every weight 1)."""
    from bayescm.models.roc import CurveDraws

    tp, fp = (v[0] for v in CurveDraws(y, s).cells(np.ones((1, y.size))))
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = tp / (tp + fp)
    # PR: the precision of the first step that reaches a recall holds back to the previous one
    return {"fpr": np.r_[0.0, fp / fp[-1]], "tpr": np.r_[0.0, tp / tp[-1]],
            "recall": np.r_[0.0, tp / tp[-1]], "precision": np.r_[precision[0], precision]}


def label_for(name: str | None, text: str) -> str:
    return text if name is None else f"{name}: {text}"


def interval_text(mean: float, lo: float, hi: float, info: Any) -> str:
    return f"{format_value(mean, info)} [{format_value(lo, info)}, {format_value(hi, info)}]"


def _draw_bands(ax: Axes, grid: np.ndarray, rows: np.ndarray, prob: float, bands: tuple[str, ...],
                color: str, key: str, label: bool, single: bool) -> np.ndarray:
    """The posterior mean curve and its bands; returns the mean."""
    from bayescm.models.roc import curve_bands

    b = curve_bands(rows, prob)
    p = f"{100 * prob:g} %"
    if "simultaneous" in bands:
        method = (f"mean ± {float(b['simultaneous_c']):.2f} sd" if single else "mean ± c·sd")
        ax.fill_between(grid, np.clip(b["simultaneous_lower"], 0, 1),
                        np.clip(b["simultaneous_upper"], 0, 1), color=color, alpha=0.13, lw=0,
                        gid=f"simultaneous:{key}",
                        label=(f"{p} simultaneous band (whole curve, {method})"
                               if label else None))
    if "pointwise" in bands:
        ax.fill_between(grid, b["pointwise_lower"], b["pointwise_upper"], color=color,
                        alpha=0.3, lw=0, gid=f"pointwise:{key}",
                        label=f"{p} pointwise HDI" if label else None)
    return np.asarray(b["mean"])


def _draw_curves(ax: Axes, idata: xr.DataTree, post: xr.Dataset, curve: tuple[str, str],
                 scalar: tuple[str, str], names: Sequence[Any], prob: float,
                 bands: tuple[str, ...], steps: tuple[str, str] | None,
                 drawstyle: str = "default") -> None:
    """Each classifier's mean curve with its bands, its summary number and the observed curve.

    ``curve`` is (variable, grid dim), ``scalar`` (variable, short name) of the number shown with
    its HDI in the legend, ``steps`` the x and y keys of :func:`_staircases` for the empirical
    curve (None: not drawn).
    """
    info = info_of(idata, scalar[0])
    grid = np.asarray(post[curve[1]].values, dtype=float)
    single = len(names) == 1
    for i, name in enumerate(names):
        color, key = palette_color(i), name or "A"
        rows = curve_rows(pick(post[curve[0]], name), curve[1])
        mean = _draw_bands(ax, grid, rows, prob, bands, color, key, i == 0, single)
        m, lo, hi, obs = scalar_summary(idata, scalar[0], name, prob)
        text = f"{scalar[1]} {interval_text(m, lo, hi, info)}"
        if obs is not None:
            text += f", observed {format_value(obs, info)}"
        ax.plot(grid, mean, color=color, lw=2, gid=f"mean:{key}", label=label_for(name, text))
        items = _items(idata, name) if steps is not None else None
        if items is not None and steps is not None:
            line = _staircases(*items)
            _observed_line(ax, line[steps[0]], line[steps[1]], OBSERVED_COLOR if single
                           else color, key, i == 0, drawstyle=drawstyle)


def _observed_line(ax: Axes, x: np.ndarray, y: np.ndarray, color: str, key: str, label: bool,
                   drawstyle: str = "default") -> None:
    """The empirical curve: a thin dotted staircase above the bands."""
    ax.plot(x, y, color=color, lw=1.1, ls=(0, (1, 1.2)), alpha=0.95, zorder=3,
            drawstyle=drawstyle, gid=f"observed:{key}",
            label="observed (empirical)" if label else None)


def square_size(lines: int) -> tuple[float, float]:
    """A figure for a square plot with a legend of ``lines`` lines under it (inches).

    High enough that the square's side is set by the height left over, never by the width:
    a square limited by the width pushed its title and legend out of the figure.

    Examples
    --------
    >>> from bayescm.plots._roc import square_size
    >>> square_size(6)
    (5.6, 6.52)
    """
    return 5.6, round(5.2 + 0.22 * lines, 2)


def _unit_axes(ax: Axes, xvar: str, yvar: str, tree: xr.DataTree) -> None:
    """Both axes from 0 to 1 with the package's units (per cent by default)."""
    for axis, var, setter in ((ax.xaxis, xvar, ax.set_xlabel), (ax.yaxis, yvar, ax.set_ylabel)):
        info = info_of(tree, var)
        percent_axis(axis, info)
        setter(info.label + unit_suffix(info))
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.01)
    ax.spines[["top", "right"]].set_visible(False)


# ----------------------------------------------------------------------------- ROC and PR
@plot_function(SCORES)
def plot_roc(idata: xr.DataTree, classifier: Hashable | Sequence[Hashable] | None = None,
             ax: Axes | None = None, hdi_prob: float | None = None,
             bands: str | Sequence[str] | None = BANDS, *, observed: bool = True,
             legend: bool = True, title: str | None = None,
             figsize: tuple[float, float] | None = None) -> Axes:
    """Posterior ROC curve with its pointwise and simultaneous bands and the AUC.

    Draws the posterior mean curve (TPR over the fit's ``fpr`` grid), the pointwise HDI at
    each FPR, the simultaneous (whole-curve) band, the observed empirical ROC curve (a dotted
    staircase) and the chance diagonal; the legend gives the AUC's posterior mean, HDI and
    observed value. Several classifiers are overlaid, one colour each.

    Parameters
    ----------
    idata : xarray.DataTree
        A scores fit: ``bcm.fit(bcm.Scores(y_true, scores))``.
    classifier : str or list of str, optional
        Classifier(s) of a fit of several; default all (at most 8).
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure.
    hdi_prob : float, optional
        Probability of the bands and intervals; default the fit's, else
        ``rcParams["stats.hdi_prob"]``.
    bands : str or sequence of str, default ("pointwise", "simultaneous")
        Bands to draw: ``"pointwise"`` (the HDI at each grid point: each point is inside with
        probability ``hdi_prob``), ``"simultaneous"`` (a fraction ``hdi_prob`` of the posterior
        curves lies inside it everywhere at once), both, or ``()``.
    observed : bool, default True
        Draw the empirical ROC curve of the observed items.
    legend : bool, default True
        Draw the legend.
    title : str, optional
        Axes title; default ``"ROC curve"``.
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
        Not a scores fit (fit ``bcm.Scores`` first), an unknown band, too many classifiers.
    KeyError
        An unknown classifier.

    See Also
    --------
    plot_pr : The precision-recall curve of the same fit.
    plot_delta_auc : The AUC difference of two classifiers on the same items.
    bayescm.models.roc.curve_bands : How the two bands are computed.

    Examples
    --------
    >>> from bayescm.models.scores import ScoresModel
    >>> from bayescm.plots import plot_roc
    >>> idata = ScoresModel.example()   # two classifiers, A and B, on 200 items
    >>> ax = plot_roc(idata)
    >>> [t.get_text().split(":")[0] for t in ax.get_legend().get_texts()][:2]
    ['A', 'B']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    post = scores_posterior(idata, "roc", "plot_roc", "the ROC curves")
    names = classifiers_of(post["roc"], classifier, "plot_roc")
    chosen = _bands(bands)
    prob = hdi_prob_of(idata, hdi_prob)
    info = info_of(idata, "auc")
    ax = new_axes(ax, figsize, default=square_size(len(names) + 2 + len(chosen) + observed))
    ax.plot([0, 1], [0, 1], color="0.55", lw=0.9, ls=":", gid="chance",
            label=f"chance (AUC {format_value(0.5, info)})")
    _draw_curves(ax, idata, post, ("roc", "fpr"), ("auc", "AUC"), names, prob, chosen,
                 ("fpr", "tpr") if observed else None)
    _unit_axes(ax, "fpr", "tpr", idata)
    ax.set_box_aspect(1)  # a square the layout sizes, with the legend under it
    ax.set_title("ROC curve" if title is None else title)
    if legend:
        _ordered_legend(ax)
    return ax


@plot_function(SCORES)
def plot_pr(idata: xr.DataTree, classifier: Hashable | Sequence[Hashable] | None = None,
            ax: Axes | None = None, hdi_prob: float | None = None,
            bands: str | Sequence[str] | None = BANDS, *, observed: bool = True,
            legend: bool = True, title: str | None = None,
            figsize: tuple[float, float] | None = None) -> Axes:
    """Posterior precision-recall curve with its bands, the average precision and the baseline.

    Draws the posterior mean precision over the fit's ``recall`` grid (the precision at the
    highest threshold that reaches each recall), the pointwise HDI, the simultaneous band, the
    observed staircase and the prevalence of the test set: the precision of a classifier
    without skill. The legend gives the average precision (posterior mean, HDI, observed).

    Parameters
    ----------
    idata : xarray.DataTree
        A scores fit: ``bcm.fit(bcm.Scores(y_true, scores))``.
    classifier, ax, hdi_prob, bands, observed, legend
        As for :func:`plot_roc`.
    title : str, optional
        Axes title; default ``"PR curve"``.
    figsize
        As for :func:`plot_roc`.

    Returns
    -------
    matplotlib.axes.Axes
        The axes drawn on: ``ax`` when given, else those of a new figure (``ax.figure`` to save
        it).

    See Also
    --------
    plot_roc : The ROC curve, with the parameters shared here.

    Examples
    --------
    >>> from bayescm.models.scores import ScoresModel
    >>> from bayescm.plots import plot_pr
    >>> ax = plot_pr(ScoresModel.example(), classifier="B", bands="pointwise")
    >>> ax.get_title()
    'PR curve'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    post = scores_posterior(idata, "pr", "plot_pr", "the precision-recall curves")
    names = classifiers_of(post["pr"], classifier, "plot_pr")
    chosen = _bands(bands)
    prob = hdi_prob_of(idata, hdi_prob)
    info = info_of(idata, "average_precision")
    ax = new_axes(ax, figsize, default=square_size(len(names) + 2 + len(chosen) + observed))
    items = _items(idata, names[0])
    if items is not None:
        prevalence = float(np.mean(items[0]))
        ax.axhline(prevalence, color="0.55", lw=0.9, ls=":", gid="baseline",
                   label=f"no skill: prevalence {format_value(prevalence, info)}")
    _draw_curves(ax, idata, post, ("pr", "recall"), ("average_precision", "AP"), names, prob,
                 chosen, ("recall", "precision") if observed else None, drawstyle="steps-pre")
    _unit_axes(ax, "tpr", "ppv", idata)
    ax.set_xlabel("recall (TPR)" + unit_suffix(info))
    ax.set_ylabel("precision (PPV)" + unit_suffix(info))
    ax.set_title("PR curve" if title is None else title)
    if legend:
        _ordered_legend(ax)
    return ax


def _ordered_legend(ax: Axes) -> None:
    """Classifier entries first (with their numbers), then the bands and reference lines.

    The legend sits under the axes (beside them in a wide figure, a slide's), so it never
    covers a curve or its bands. With several
    classifiers each observed curve has its classifier's colour: the legend shows a grey one.
    """
    from matplotlib.lines import Line2D

    handles, labels = ax.get_legend_handles_labels()
    first = [i for i, h in enumerate(handles) if str(h.get_gid()).startswith("mean:")]
    rest = [i for i in range(len(handles)) if i not in first]
    order = first + rest
    if len(first) > 1:
        handles = [Line2D([], [], color="0.3", lw=1.1, ls=(0, (1, 1.2)))
                   if str(h.get_gid()).startswith("observed:") else h for h in handles]
    legend_aside(ax, [handles[i] for i in order], [labels[i] for i in order])
