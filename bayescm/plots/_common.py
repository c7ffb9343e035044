"""Shared helpers of the plots: metric scales, draw selection, a bounded KDE, formatting."""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import xarray as xr
from matplotlib import ticker

from bayescm.analyses.summary import resolve_var_names
from bayescm.core import container as box
from bayescm.core.stats import HDI_PROB, check_prob, hdi

__all__ = [
    "Scale", "bounded_kde", "display_name", "draws_of", "format_value", "hdi_prob_of",
    "reference_line",
    "scale_of", "select",
]

_PROPORTIONS = frozenset({
    "prevalence", "bias", "tpr", "tnr", "ppv", "npv", "fnr", "fpr", "fdr", "for", "acc", "err",
    "bacc", "f1", "f05", "f2", "jaccard", "fm", "pt", "gmean", "theta", "rates", "cells",
})
_SIGNED = frozenset({"mcc", "bm", "mk", "kappa", "kappa_linear", "kappa_quadratic"})
_RATIOS = frozenset({"lr_plus", "lr_minus", "dor"})
_NON_NEGATIVE = frozenset({"mae", "mse", "rmse"})
_AVERAGES = ("_macro", "_micro", "_weighted")
CHANCE_CORRECTED = _SIGNED
"""Metrics whose negative values mean 'worse than chance' (r_deceptive = P(metric < 0))."""


@dataclass(frozen=True)
class Scale:
    """How a metric is drawn: its support, whether it is shown in %, and a log axis."""

    kind: str  # "proportion", "signed", "ratio", "non_negative" or "raw"
    lower: float
    upper: float

    @property
    def percent(self) -> bool:
        """Whether values are proportions shown as percentages (widths in pp)."""
        return self.kind in {"proportion", "signed"}

    @property
    def log(self) -> bool:
        """Whether the axis is logarithmic (likelihood and odds ratios)."""
        return self.kind == "ratio"


def scale_of(name: str) -> Scale:
    """The scale of a metric by its short name (custom metrics: unbounded, raw units)."""
    base = name
    for suffix in (*_AVERAGES, "_diff"):
        if base.endswith(suffix):
            base = base[: -len(suffix)]
    diff = name.endswith("_diff")
    if base in _PROPORTIONS:
        return Scale("proportion", -1.0 if diff else 0.0, 1.0)
    if base in _SIGNED:
        return Scale("signed", -2.0 if diff else -1.0, 2.0 if diff else 1.0)
    if base in _RATIOS and not diff:
        return Scale("ratio", 0.0, np.inf)
    if base in _NON_NEGATIVE and not diff:
        return Scale("non_negative", 0.0, np.inf)
    return Scale("raw", -np.inf, np.inf)


def hdi_prob_of(tree: xr.DataTree | None, hdi_prob: float | None) -> float:
    """The HDI probability: the argument, else the tree's attribute, else ``HDI_PROB``."""
    if hdi_prob is not None:
        return check_prob(hdi_prob)
    if tree is not None and "hdi_prob" in tree.attrs:
        return check_prob(tree.attrs["hdi_prob"])
    return HDI_PROB


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
            f"{', '.join(options)})."
        )
    if str(value) not in options:
        raise KeyError(f"{arg}={value!r} is not in {name!r}; choose one of: {', '.join(options)}.")
    return da.isel({dim: options.index(str(value))})


def select(da: xr.DataArray, name: str, classifier: Hashable | None = None,
           class_: Hashable | None = None, keep: tuple[str, ...] = ()) -> xr.DataArray:
    """Select one classifier and one class of ``da``; every other non-sample dim is an error."""
    if "classifier" not in keep:
        da = _pick(da, "classifier", classifier, "classifier", name)
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


def interval(x: np.ndarray, prob: float) -> tuple[float, float]:
    """HDI of flat draws (the rule of :func:`bayescm.core.stats.hdi`, as in ``bcm.summary``)."""
    lo, hi = hdi(x, prob)
    return float(lo), float(hi)


def format_value(value: float, scale: Scale, digits: int = 1) -> str:
    """A metric value for annotations: ``'89.4 %'`` for proportions, ``'3.21'`` otherwise."""
    if np.isnan(value):
        return "undefined"
    if np.isinf(value):
        return "∞" if value > 0 else "-∞"
    if scale.percent:
        return f"{100 * value:.{digits}f} %"
    return f"{value:.3g}"


def format_width(value: float, scale: Scale) -> str:
    """An interval width: ``'11 pp'`` (percentage points) for proportions."""
    if not np.isfinite(value):
        return "∞"
    if scale.percent:
        pp = 100 * value
        return f"{pp:.0f} pp" if pp >= 10 else f"{pp:.1f} pp" if pp >= 0.1 else f"{pp:.2g} pp"
    return f"{value:.3g}"


def percent_axis(axis: Any, scale: Scale, points: bool = False) -> None:
    """Format an axis of proportions as percentages (or percentage points for differences)."""
    if scale.log:
        axis.set_major_formatter(ticker.LogFormatterSciNotation())
        return
    if scale.percent:
        if points:
            axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{100 * v:+.0f}"
                                                          if v else "0"))
        else:
            axis.set_major_formatter(ticker.FuncFormatter(lambda v, _: f"{100 * v:.6g}%"))


def reference_line(ax: Any, scale: Scale, vertical: bool = True) -> None:
    """The line where a metric's sign or ratio changes meaning: 0 (signed), 1 (ratios).

    The axis is widened to show it (whether a classifier is better than chance is the first
    question for BM, MCC or a difference); marked ``gid="reference"``.
    """
    if scale.kind == "signed" or (scale.kind == "proportion" and scale.lower < 0):
        at = 0.0
    elif scale.kind == "ratio":
        at = 1.0
    else:
        return
    lo, hi = ax.get_xlim() if vertical else ax.get_ylim()
    if not lo <= at <= hi:
        pad = 0.03 * (hi - lo) if not scale.log else 0.0
        new = (min(lo, at - pad), max(hi, at + pad)) if not scale.log else (
            min(lo, at / 1.5), max(hi, at * 1.5))
        (ax.set_xlim if vertical else ax.set_ylim)(*new)
    (ax.axvline if vertical else ax.axhline)(at, color="0.35", lw=0.9, ls=":", gid="reference",
                                             zorder=0)


def unit_suffix(scale: Scale, points: bool = False) -> str:
    """The unit in an axis label: ``' (%)'``, ``' (percentage points, %)'`` or ``''``."""
    if scale.percent:
        return " (percentage points)" if points else " (%)"
    if scale.log:
        return " (log scale)"
    return ""


_DISPLAY = {"lr_plus": "LR+", "lr_minus": "LR−", "f05": "F0.5", "gmean": "G-mean",
            "jaccard": "Jaccard", "prevalence": "prevalence", "theta": "θ"}


def display_name(name: str) -> str:
    """A short name for titles: ``'TPR'``, ``'LR+'``, ``'F1_MACRO'``."""
    return _DISPLAY.get(name, name.upper() if len(name) <= 5 or "_" in name else name)


def label_of(da: xr.DataArray, name: str) -> str:
    """The variable's long name, or its short name."""
    return str(da.attrs.get("long_name") or name)


def new_axes(ax: Any, figsize: tuple[float, float] = (6.0, 3.6)) -> Any:
    """``ax`` or a fresh Axes on a new constrained-layout figure."""
    if ax is not None:
        return ax
    import matplotlib.pyplot as plt

    _, ax = plt.subplots(figsize=figsize, layout="constrained")
    return ax
