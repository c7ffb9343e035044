"""Shared helpers of the plots: metric metadata, draw selection, a bounded KDE, formatting.

What a metric looks like (its display name, support, reference line, log axis) comes from the
metric catalogue (:func:`bayescm.metrics.metric_info`); whether proportions are shown in per
cent or as plain proportions from ``rcParams["plot.units"]``.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import replace
from typing import Any

import numpy as np
import xarray as xr
from matplotlib import ticker

from bayescm.analyses.summary import resolve_var_names
from bayescm.core import container as box
from bayescm.core.config import rcParams
from bayescm.core.stats import hdi, hdi_prob_for
from bayescm.metrics import SCALES, MetricInfo, metric_info
from bayescm.plots._style import power_of_ten, readable

__all__ = [
    "bounded_kde", "display_name", "draws_of", "format_interval", "format_value", "hdi_prob_of",
    "info_of", "label_of", "percent", "reference_line", "select",
]


def family_of(tree: Any) -> str | None:
    """The metric family of a result (``"binary"``, ``"multiclass"``), None if unknown."""
    attrs = getattr(tree, "attrs", None) or {}
    try:
        from bayescm.models import registry

        return str(registry.kind_of(tree).metric_family)
    except Exception:  # a tree of an older or foreign layout: look the name up everywhere
        family = attrs.get("family", attrs.get("model"))
        return str(family) if family is not None else None


def info_of(tree: Any, name: str, da: xr.DataArray | None = None) -> MetricInfo:
    """How to show the variable ``name`` of ``tree``: the catalogue's metadata.

    A variable that carries ``display_name`` or ``scale`` attributes (a custom metric whose
    fit recorded them) overrides the catalogue.
    """
    info = metric_info(name, family_of(tree))
    attrs = {} if da is None else da.attrs
    scale = str(attrs.get("scale", info.scale))
    if scale != info.scale and scale in SCALES:
        support, reference = SCALES[scale]
        info = replace(info, scale=scale, support=support, reference=reference)
    if "display_name" in attrs:
        info = replace(info, display_name=str(attrs["display_name"]))
    return info


def percent(info: MetricInfo) -> bool:
    """Whether values are drawn in per cent (proportions, with ``plot.units = "percent"``)."""
    return info.proportional and rcParams["plot.units"] == "percent"


def display_name(name: str, tree: Any = None) -> str:
    """A short name for titles: ``'TPR'``, ``'LR+'``, ``'F1 (macro)'``."""
    return info_of(tree, name).display_name


def hdi_prob_of(tree: xr.DataTree | None, hdi_prob: float | None) -> float:
    """The HDI probability: the argument, else the tree's, else ``rcParams["stats.hdi_prob"]``."""
    return hdi_prob_for(hdi_prob, tree)


def _pick(da: xr.DataArray, dim: str, value: Hashable | None, arg: str, name: str
          ) -> xr.DataArray:
    if dim not in da.dims:
        if value is not None and dim == "class":
            raise ValueError(f"{name!r} has no class dim; drop {arg}=.")
        return da
    options = [str(v) for v in da[dim].values] if dim in da.coords else [
        str(i) for i in range(da.sizes[dim])]
    if value is None:
        raise ValueError(
            f"{name!r} has a {dim!r} dim; choose one with {arg}=... (one of: "
            f"{some(options)})."
        )
    if str(value) not in options:
        raise KeyError(f"{arg}={value!r} is not in {name!r}; choose one of: {some(options)}.")
    return da.isel({dim: options.index(str(value))})


def some(options: list[str], limit: int = 12) -> str:
    """The options, or the first and last few of a long list (a batch of 20,000 classifiers).

    Examples
    --------
    >>> from bayescm.plots._common import some
    >>> some(["a", "b", "c"])
    'a, b, c'
    >>> some([f"c{i}" for i in range(20_000)])
    'c0, c1, c2, c3, c4, c5, ..., c19994, c19995, c19996, c19997, c19998, c19999 (20,000 in all)'
    """
    if len(options) <= limit:
        return ", ".join(options)
    half = limit // 2
    return (f"{', '.join(options[:half])}, ..., {', '.join(options[-half:])} "
            f"({len(options):,} in all)")


def select(da: xr.DataArray, name: str, classifier: Hashable | None = None,
           class_: Hashable | None = None, keep: tuple[str, ...] = ()) -> xr.DataArray:
    """Select one classifier and one class of ``da``; every other non-sample dim is an error."""
    if "classifier" not in keep:
        da = _pick(da, "classifier", classifier, "classifier", name)
    if "class" not in keep:
        da = _pick(da, "class", class_, "class_", name)
    extra = [d for d in da.dims if d not in box.SAMPLE_DIMS and d not in keep]
    if extra:
        hint = " (plot it with plot_theta)" if {"true_class", "pred_class"} & set(extra) else ""
        raise ValueError(f"{name!r} has dims {extra} that cannot be drawn as one density{hint}.")
    return da


def draws_of(tree: Any, var: str, group: str = "posterior", classifier: Hashable | None = None,
             class_: Hashable | None = None, keep: tuple[str, ...] = ()
             ) -> tuple[str, xr.DataArray]:
    """Resolve ``var`` (aliases allowed) in ``group`` and select classifier and class."""
    box.check_tree(tree)
    if not box.has_group(tree, group):
        have = ", ".join(tree.children) or "none"
        raise KeyError(f"The result has no {group!r} group (groups: {have}).")
    (name,) = resolve_var_names(tree, [var], group, default_skip=())
    da = box.get_group(tree, group)[name]
    return name, select(da, name, classifier, class_, keep)


def flat(da: xr.DataArray) -> np.ndarray:
    """Finite draws of a variable without other dims, as one flat array."""
    x = np.asarray(da.values, dtype=float).reshape(-1)
    return x[np.isfinite(x)]


def bandwidth(x: np.ndarray) -> float:
    """Silverman's rule, robust to heavy tails (IQR) and to constant draws."""
    n = x.size
    sd = float(np.std(x))
    q75, q25 = np.percentile(x, [75, 25])
    spread = min(sd, (q75 - q25) / 1.34) if q75 > q25 else sd
    if spread <= 0:
        spread = max(abs(float(np.mean(x))), 1.0) * 1e-3
    return 0.9 * spread * n ** -0.2


def bounded_kde(x: np.ndarray, lower: float = -np.inf, upper: float = np.inf,
                n_grid: int = 512) -> tuple[np.ndarray, np.ndarray]:
    """Gaussian KDE on a grid, reflected at finite bounds so no mass leaks past them.

    Draws are binned on a fine grid and convolved with the kernel (the binned KDE of ArviZ);
    at a finite bound the bins are mirrored before the convolution (the reflection method),
    so the density of a TPR near 100 % stays inside [0, 1] and keeps its height at the edge.

    Returns
    -------
    grid, density : ndarray
        Grid points (within the bounds) and the density, which integrates to 1 over the grid.
    """
    x = np.asarray(x, dtype=float)
    x = x[np.isfinite(x)]
    if x.size < 2:
        raise ValueError("A density needs at least 2 finite draws.")
    h = bandwidth(x)
    lo = max(lower, float(x.min()) - 3 * h)
    hi = min(upper, float(x.max()) + 3 * h)
    if hi <= lo:
        hi = lo + h
    edges = np.linspace(lo, hi, n_grid + 1)
    counts, _ = np.histogram(x, bins=edges)
    dx = edges[1] - edges[0]
    m = min(int(np.ceil(4 * h / dx)), n_grid)
    left = counts[:m][::-1] if np.isclose(lo, lower) else np.zeros(m)
    right = counts[-m:][::-1] if np.isclose(hi, upper) else np.zeros(m)
    padded = np.concatenate([left, counts, right]).astype(float)
    offsets = np.arange(-m, m + 1) * dx
    kernel = np.exp(-0.5 * (offsets / h) ** 2)
    kernel /= kernel.sum()
    smooth = np.convolve(padded, kernel, mode="same")[m: m + n_grid]
    grid = 0.5 * (edges[:-1] + edges[1:])
    grid = np.concatenate([[lo], grid, [hi]])
    smooth = np.concatenate([[smooth[0]], smooth, [smooth[-1]]])
    density = smooth / (x.size * dx)
    return grid, density


def interval(x: np.ndarray, prob: float, log: bool = False) -> tuple[float, float]:
    """HDI of flat draws (the rule of :func:`bayescm.core.stats.hdi`, as in ``bcm.summary``).

    With ``log`` (ratios) the HDI of the logarithm, transformed back: the shortest interval on
    the log axis the ratio is drawn on.
    """
    if log:
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            lo, hi = hdi(np.log(x[x >= 0]), prob)
        return float(np.exp(lo)), float(np.exp(hi))
    lo, hi = hdi(x, prob)
    return float(lo), float(hi)


def format_value(value: float, info: MetricInfo, digits: int = 1, points: bool = False) -> str:
    """A metric value for annotations: ``'89.4 %'`` for proportions, ``'1,700'`` for ratios.

    With ``points`` (a difference of proportions) in percentage points: ``'-3.0 pp'``.

    Examples
    --------
    >>> from bayescm.metrics import metric_info
    >>> from bayescm.plots._common import format_value
    >>> format_value(0.894, metric_info("tpr")), format_value(1734.0, metric_info("dor"))
    ('89.4 %', '1,700')
    >>> format_value(-0.03, metric_info("acc_diff"), points=True)
    '-3.0 pp'
    >>> format_value(0.023, metric_info("acc_diff"), points=True)
    '+2.3 pp'
    """
    if np.isnan(value):
        return "undefined"
    if np.isinf(value):
        return "∞" if value > 0 else "-∞"
    if percent(info):
        return f"{100 * value:+.{digits}f} pp" if points else f"{100 * value:.{digits}f} %"
    if info.log:
        return readable(value)
    return readable(value, 3)


def format_width(value: float, info: MetricInfo) -> str:
    """An interval width: ``'11 pp'`` (percentage points) for proportions shown in per cent."""
    if not np.isfinite(value):
        return "∞"
    if percent(info):
        pp = 100 * value
        return f"{pp:.0f} pp" if pp >= 10 else f"{pp:.1f} pp" if pp >= 0.1 else f"{pp:.2g} pp"
    return readable(value)


def format_interval(lo: float, hi: float, info: MetricInfo, prob: float,
                    points: bool = False) -> str:
    """An HDI for a legend: ``'95 % HDI [72.0 %, 99.9 %]'``; a ratio with its width factor.

    A ratio's interval is computed on the log scale, so its width is a factor: ``'95 % HDI
    [1.3, 10], ×7.8'`` (the upper bound is 7.8 times the lower).

    Examples
    --------
    >>> from bayescm.metrics import metric_info
    >>> from bayescm.plots._common import format_interval
    >>> format_interval(1.3, 10.2, metric_info("lr_plus"), 0.95)
    '95 % HDI [1.3, 10], ×7.8'
    """
    text = (f"{100 * prob:g} % HDI [{format_value(lo, info, points=points)}, "
            f"{format_value(hi, info, points=points)}]")
    if info.log and lo > 0 and np.isfinite(hi):
        text += f", ×{readable(hi / lo)}"
    return text


def _log_label(value: float, axis: Any) -> str:
    """A tick of a log axis: every decade, and 2 and 5 between when it spans few decades."""
    if value <= 0:
        return ""
    lo, hi = sorted(axis.get_view_interval())
    decades = np.log10(hi / lo) if lo > 0 else np.inf
    power = int(np.floor(np.log10(value) + 1e-9))
    lead = round(value / 10.0**power, 6)
    if lead == 1 and not -3 < power < 4:  # a power of ten, compact: 10⁴, 10⁻⁵
        return power_of_ten(power)
    if lead == 1 or (decades <= 2.5 and lead in (2, 5)) or (decades <= 1 and lead in (3,)):
        return readable(value, 1)
    return ""


def log_axis_labels(axis: Any) -> None:
    """Label a log axis in plain numbers: ``0.1, 1, 20, 1,000`` (``10⁴`` far out).

    Every decade is labelled, and 2 and 5 (and 3) between them when the axis spans only a
    few, so the labels never crowd.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from bayescm.plots._common import log_axis_labels
    >>> fig, ax = plt.subplots()
    >>> ax.set_xscale("log"); _ = ax.set_xlim(8, 1000); log_axis_labels(ax.xaxis)
    >>> label = ax.xaxis.get_major_formatter()
    >>> [label(v) for v in (20, 30, 1000, 1e4)]
    ['20', '', '1,000', '10⁴']
    >>> plt.close(fig)
    """
    axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: _log_label(v, axis)))
    axis.set_minor_formatter(ticker.FuncFormatter(lambda v, _: _log_label(v, axis)))


def percent_axis(axis: Any, info: MetricInfo, points: bool = False) -> None:
    """Format an axis of proportions as percentages (or percentage points for differences).

    A ratio's log axis is labelled in plain numbers (``0.1, 1, 10, 1,000``), with 2 and 5
    between the decades when it spans only a few.
    """
    if info.log:
        log_axis_labels(axis)
        return
    if percent(info):
        # steps of 1, 2 or 5 (never 2.5): short labels that do not crowd a narrow panel
        axis.set_major_locator(ticker.MaxNLocator(nbins="auto", steps=[1, 2, 5, 10]))
        if points:
            axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{100 * v:+.6g}"
                                                          if v else "0"))
        else:
            axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{100 * v:.6g}%"))


def reference_line(ax: Any, info: MetricInfo, vertical: bool = True) -> None:
    """The metric's reference line: 0 (chance-corrected metrics, differences), 1 (ratios).

    The axis is widened to show it (whether a classifier is better than chance is the first
    question for BM, MCC or a difference); marked ``gid="reference"``.
    """
    at = info.reference
    if at is None:
        return
    lo, hi = ax.get_xlim() if vertical else ax.get_ylim()
    if not lo <= at <= hi:
        pad = 0.03 * (hi - lo) if not info.log else 0.0
        new = (min(lo, at - pad), max(hi, at + pad)) if not info.log else (
            min(lo, at / 1.5), max(hi, at * 1.5))
        (ax.set_xlim if vertical else ax.set_ylim)(*new)
    (ax.axvline if vertical else ax.axhline)(at, color="0.35", lw=0.9, ls=":", gid="reference",
                                             zorder=0, label=reference_label(info))


def reference_label(info: MetricInfo) -> str:
    """What the reference line means, for legends: ``'no skill (0)'``, ``'no effect (1)'``.

    Examples
    --------
    >>> from bayescm.metrics import metric_info
    >>> reference_label(metric_info("bm")), reference_label(metric_info("lr_plus"))
    ('no skill (0)', 'no information (1)')
    >>> reference_label(metric_info("acc_diff"))
    'no difference (0)'
    """
    at = info.reference
    if at is None:
        return ""
    if info.log:
        return f"no information ({at:g})"
    return f"no skill ({at:g})" if chance_corrected(info) else f"no difference ({at:g})"


def unit_suffix(info: MetricInfo, points: bool = False) -> str:
    """The unit in an axis label: ``' (%)'``, ``' (percentage points)'``, ``' (log scale)'``."""
    if percent(info):
        return " (percentage points)" if points else " (%)"
    if info.log:
        return " (log scale)"
    return ""


def chance_corrected(info: MetricInfo) -> bool:
    """Negative values mean 'worse than chance' (r_deceptive = P(metric < 0))."""
    return info.scale == "signed" and info.reference == 0.0 and not info.name.endswith("_diff")


def label_of(da: xr.DataArray, name: str, tree: Any = None) -> str:
    """A short axis label of the variable: its metric's ``label`` (never the variable name).

    A custom metric that is not in the catalogue is labelled by its stored long name.
    """
    info = info_of(tree, name, da)
    if info.scale == "unbounded" and info.label == name:
        return str(da.attrs.get("long_name") or info.display_name)
    return info.label
