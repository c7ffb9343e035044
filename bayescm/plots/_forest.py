"""Forest plots: posterior means and HDIs, one row per classifier, class or metric (Fig. 3C)."""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.stats import hdi
from bayescm.metrics import MetricInfo
from bayescm.plots._checks import plot_function
from bayescm.plots._common import (
    chance_corrected,
    draws_of,
    format_value,
    hdi_prob_of,
    info_of,
    label_of,
    percent,
    percent_axis,
    reference_line,
    select,
    unit_suffix,
)
from bayescm.plots._layout import fit_rows, new_axes, quantity, title_pad
from bayescm.plots._legends import legend_under
from bayescm.plots._observed import observed_name
from bayescm.plots._style import BLUE, VERMILION, pt

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_forest"]

MAX_ROWS = 50
"""Most rows of one metric a forest draws; a larger batch shows its best and worst halves."""


def shown_rows(rows: int, max_rows: int | None = MAX_ROWS) -> int:
    """Rows a forest of ``rows`` entries occupies (the best and worst halves and a gap row).

    For sizing figures before drawing (a grid of forests panels by its tallest).

    Examples
    --------
    >>> from bayescm.plots._forest import shown_rows
    >>> shown_rows(24), shown_rows(20_000), shown_rows(20_000, None)
    (24, 51, 20000)
    """
    if max_rows is None or rows <= max_rows:
        return rows
    return 2 * (max_rows // 2) + 1


def _rows(idata: xr.DataTree, var: str, class_: Hashable | None
          ) -> tuple[str, xr.DataArray, list[str], np.ndarray, np.ndarray | None]:
    """One metric's rows: every classifier (and class) left after selecting ``class_``.

    The draws come back sample-major, ``(chain * draw, rows)``: a view of the stored array
    (sample dims first, as every fit stores them), so a batch of 20,000 classifiers is not
    copied; only the rows a figure shows are gathered later.
    """
    keep = ("classifier",) if class_ is not None else ("classifier", "class")
    name, da = draws_of(idata, var, "posterior", class_=class_, keep=keep)
    rest = [d for d in da.dims if d not in box.SAMPLE_DIMS]
    if not rest:
        raise ValueError(
            f"A forest needs a batch fit with a 'classifier' dim, a per-class metric or several "
            f"metrics; {name!r} has dims {list(da.dims)}. Fit a mapping: "
            "bcm.fit({'a': cm_a, ...}), or pass a list of metrics.")
    da = da.transpose(*[d for d in da.dims if d in box.SAMPLE_DIMS], *rest)
    shape = [da.sizes[d] for d in rest]
    coords = [[str(v) for v in da[d].values] if d in da.coords else
              [str(i) for i in range(da.sizes[d])] for d in rest]
    labels = coords[0] if len(rest) == 1 else [
        ", ".join(coords[k][i] for k, i in enumerate(idx)) for idx in np.ndindex(*shape)]
    draws = np.asarray(da.values).reshape(-1, len(labels))
    observed = None
    if box.has_group(idata, "observed_metrics") and name in box.get_group(idata,
                                                                         "observed_metrics"):
        obs = select(box.get_group(idata, "observed_metrics")[name], name, None, class_, keep)
        if set(obs.dims) == set(rest):
            observed = np.asarray(obs.transpose(*rest).values, dtype=float).reshape(-1)
    return name, da, labels, draws, observed


def _metric_rows(idata: xr.DataTree, names: Sequence[str], class_: Hashable | None
                 ) -> tuple[list[MetricInfo], list[str], np.ndarray, np.ndarray | None]:
    """Several metrics of one classifier: a row each."""
    infos, draws, observed = [], [], []
    obs_group = (box.get_group(idata, "observed_metrics")
                 if box.has_group(idata, "observed_metrics") else None)
    for var in names:
        name, da = draws_of(idata, var, "posterior", class_=class_ if class_ is not None and
                            "class" in _dims(idata, var) else None)
        infos.append(info_of(idata, name, da))
        draws.append(np.asarray(da.values, dtype=float).reshape(-1))
        if obs_group is not None and name in obs_group:
            obs = select(obs_group[name], name, None, class_ if "class" in obs_group[name].dims
                         else None)
            observed.append(float(obs.values))
        else:
            observed.append(np.nan)
    if len({(percent(i), i.log) for i in infos}) > 1:
        raise ValueError(
            f"The metrics {[i.name for i in infos]} are on different scales (proportions, "
            "ratios, raw units); draw each on its own axes, e.g. plot_forest(idata, [name]).")
    labels = [i.display_name for i in infos]
    return infos, labels, np.stack(draws, axis=1), np.array(observed)


def _dims(idata: xr.DataTree, var: str) -> tuple[str, ...]:
    from bayescm.analyses.summary import resolve_var_names

    (name,) = resolve_var_names(idata, [var], default_skip=())
    return tuple(str(d) for d in box.get_group(idata, "posterior")[name].dims)


@plot_function()
def plot_forest(
    idata: xr.DataTree,
    var: str | Sequence[str] = "bm",
    ax: Axes | None = None,
    hdi_prob: float | None = None,
    sort: bool = True,
    annotate_deceptive: bool | None = None,
    class_: Any = None,
    *,
    legend: bool = True,
    max_rows: int | None = MAX_ROWS,
    figsize: tuple[float, float] | None = None,
) -> Axes:
    """Posterior means, HDIs and observed values, one row per classifier, class or metric.

    With one metric, the rows are the classifiers of a batch fit (and, for a per-class metric
    without ``class_``, its classes); with a list of metrics, the rows are those metrics of
    one classifier, on a shared axis. For chance-corrected metrics (BM, MK, MCC, kappas) each
    row is annotated with the chance that the classifier is deceptive,
    ``r_deceptive = P(metric < 0)`` (paper Fig. 3C).

    Parameters
    ----------
    idata : xarray.DataTree
        A fit; a batch fit (``classifier`` dim) for one row per classifier.
    var : str or list of str, default "bm"
        Metric (aliases accepted), or several metrics of a single classifier.
    ax : matplotlib.axes.Axes, optional
        Axes to draw on; default a new figure sized to the rows.
    hdi_prob : float, optional
        HDI probability; default the tree's, else ``rcParams["stats.hdi_prob"]``.
    sort : bool, default True
        Order the rows of one metric by posterior mean, the best at the top (the highest
        mean, or the lowest for error rates); else the data's order, top down. Rows of
        several metrics keep the given order.
    annotate_deceptive : bool, optional
        Write r_deceptive beside each row; default for chance-corrected metrics.
    class_ : hashable, optional
        Class of a per-class multiclass metric (default: one row per class).
    legend : bool, default True
        Draw the legend on the axes (a grid of forests may share one instead).
    max_rows : int or None, default 50
        Most rows of one metric drawn. A larger batch shows its ``max_rows // 2`` best and
        ``max_rows // 2`` worst rows by posterior mean (whatever ``sort`` says), with a row
        between them saying how many are not shown and the range of their means, and the title
        says so. Only the rows shown are summarised, so a forest of 20,000 classifiers saves in
        about a second. ``None`` draws every row.
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
        One metric without a classifier or class dim; metrics on different scales.

    See Also
    --------
    plot_metric : The full density of one metric.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.io.datasets import literature_matrices
    >>> from bayescm.plots import plot_forest
    >>> idata = bcm.fit(literature_matrices(), metrics=["bm"], draws=500, random_seed=0)
    >>> ax = plot_forest(idata, "bm")
    >>> len(ax.get_yticklabels()), ax.get_title()
    (24, 'BM of 24 classifiers')

    The metrics of one classifier:

    >>> cocaine = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2))
    >>> ax = plot_forest(cocaine, ["tpr", "tnr", "bm"])
    >>> [t.get_text() for t in ax.get_yticklabels()]
    ['BM', 'TNR', 'TPR']

    A large batch shows its best and worst rows and says how many it leaves out:

    >>> ax = plot_forest(idata, "bm", max_rows=10)
    >>> ax.get_title()
    'BM of 24 classifiers: the best and worst 5'
    >>> [t.get_text() for t in ax.texts if t.get_gid() == "not_shown"]  # doctest: +MC
    ['... 14 classifiers not shown (posterior means 23 % to 66 %)']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    prob = hdi_prob_of(idata, hdi_prob)
    if max_rows is not None and (isinstance(max_rows, bool) or not isinstance(max_rows, int)
                                 or max_rows < 2):
        raise ValueError(f"max_rows must be an integer >= 2 or None, got {max_rows!r}.")
    if isinstance(var, str):
        name, da, labels, draws, observed = _rows(idata, var, class_)
        info = info_of(idata, name, da)
        xlabel = label_of(da, name, idata) + unit_suffix(info)
        what = ("classifiers" if "classifier" in da.dims and "class" not in da.dims else
                "classes" if "class" in da.dims and "classifier" not in da.dims else "rows")
        title = f"{info.display_name} of {len(labels):,} {what}"
        ylabel = {"classifiers": "classifier", "classes": "class"}.get(what, "classifier, class")
        with np.errstate(invalid="ignore"):
            mean = draws.mean(axis=0, dtype=np.float64)
        # ascending "goodness" (NaN the worst): the best row ends up at the top
        key = np.where(np.isnan(mean), -np.inf, mean if info.higher_is_better is not False
                       else -mean)
        order = np.argsort(key, kind="stable") if sort else np.arange(len(labels))[::-1]
        annotate = chance_corrected(info) if annotate_deceptive is None else annotate_deceptive
    else:
        infos, labels, draws, observed = _metric_rows(idata, list(var), class_)
        info = infos[0] if len({i.reference for i in infos}) == 1 else _no_reference(infos[0])
        xlabel = ("value" if len(infos) > 1 else infos[0].label) + unit_suffix(info)
        title = (", ".join(labels) if len(labels) <= 4 and len(", ".join(labels)) <= 40
                 else "Posterior means and HDIs")
        ylabel, what = "", "metrics"
        mean = draws.mean(axis=0)
        key = None  # the given metrics are all drawn, in the given order
        order = np.arange(len(labels))[::-1]
        annotate = bool(annotate_deceptive)
    gap = None
    if key is not None and max_rows is not None and len(labels) > max_rows:
        half = max_rows // 2
        order = np.argsort(key, kind="stable") if not sort else order
        hidden = order[half:len(order) - half]
        gap = (half, len(hidden), np.nanmin(mean[hidden]), np.nanmax(mean[hidden]))
        order = np.concatenate([order[:half], order[len(order) - half:]])
        title += f": the best and worst {half}"
    shown = draws[:, order]  # (samples, rows shown): only these are summarised
    if info.log:  # a ratio's HDI on the log axis it is drawn on
        with np.errstate(divide="ignore", invalid="ignore"):
            bounds = np.exp(hdi(np.log(shown), prob, axis=0))
    else:
        bounds = hdi(shown, prob, axis=0)
    y = np.arange(len(order), dtype=float)
    if gap is not None:
        y[gap[0]:] += 1  # a free row between the worst and the best
    n_rows = len(order) + (gap is not None)
    own = ax is None and figsize is None  # a figure of ours: it may grow to fit the rows
    ax = new_axes(ax, figsize, default=(6.5, 1.2 + 0.28 * n_rows))
    ax.hlines(y, bounds[:, 0], bounds[:, 1], color=BLUE, lw=2.5, gid="hdi",
              label=f"{100 * prob:g} % HDI")
    ax.plot(mean[order], y, "o", color=BLUE, ms=4, label="posterior mean", gid="mean")
    if observed is not None and np.isfinite(observed[order]).any():
        ax.plot(observed[order], y, "x", color=VERMILION, ms=6, label=observed_name(idata),
                gid="observed")
    ax.set_yticks(y, [labels[i] for i in order])
    ax.set_ylim(-0.7, n_rows - 0.3)
    if info.log:
        ax.set_xscale("log")
    percent_axis(ax.xaxis, info)
    reference_line(ax, info)
    if isinstance(var, str):  # forests of the same metric in one figure share the x-range
        quantity(ax, info)
    if gap is not None:
        at, count, low, high = gap
        ax.axhline(at, color="0.85", lw=0.8, ls="--", zorder=0, gid="gap")
        ax.text(0.5, at, f"... {count:,} {what} not shown (posterior means "
                f"{format_value(float(low), info, 0)} to {format_value(float(high), info, 0)})",
                transform=ax.get_yaxis_transform(), ha="center", va="center", fontsize=pt(8),
                style="italic", bbox={"fc": "white", "ec": "none", "pad": 1}, gid="not_shown")
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if annotate:
        deceptive = (shown < 0).mean(axis=0)
        for row, i in enumerate(order):
            ax.annotate(f"{100 * deceptive[row]:.0f} %" if deceptive[row] >= 0.005 else "<1 %",
                        xy=(1.01, y[row]), xycoords=("axes fraction", "data"), va="center",
                        fontsize=pt(8), gid=f"r_deceptive:{labels[i]}")
        ax.annotate("r_deceptive", xy=(1.01, 1.0), xycoords="axes fraction", va="bottom",
                    fontsize=pt(8), fontweight="bold")
    ax.set_title(title, pad=title_pad(annotate))
    if legend:  # under the axis label, clear of the rows
        legend_under(ax, ncols=3)
    ax.spines[["top", "right"]].set_visible(False)
    if own:
        fit_rows(ax, n_rows)
    return ax


def _no_reference(info: MetricInfo) -> MetricInfo:
    from dataclasses import replace

    return replace(info, reference=None)
