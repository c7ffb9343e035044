"""Observed values on the figures: where they are, what they are called, how they are noted.

A fit's ``observed_metrics`` are the metrics of its counts, drawn as a line beside each
posterior, or noted on the panel when the axis cannot show them (infinite, undefined, 0 on a
log axis). A result at a deployment prevalence (:func:`bayescm.with_prevalence`) holds the test
set's rates at that prevalence, values nobody observed: they are called plug-in values there.
A legend names an observed value only where a panel drew one.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.metrics import MetricInfo
from bayescm.plots._common import format_value, select
from bayescm.plots._style import MIN_FONT, VERMILION, pt

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["drew_observed", "empty_cells", "observed_name", "observed_note", "observed_value"]

OBSERVED_COLOR = VERMILION


def observed_name(tree: Any) -> str:
    """What a result's ``observed_metrics`` are called: ``"observed"``, or ``"plug-in"``.

    At a deployment prevalence (:func:`bayescm.with_prevalence`) they are the test set's
    rates at that prevalence, values nobody observed: ``"plug-in"``.

    Parameters
    ----------
    tree : xarray.DataTree
        A fit (anything without ``attrs`` counts as an ordinary fit).

    Returns
    -------
    str
        ``"observed"`` or ``"plug-in"``, for legends and labels.

    See Also
    --------
    marks_legend : Uses it to name the observed marks.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots import observed_name
    >>> fit = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), draws=100)
    >>> observed_name(fit), observed_name(bcm.with_prevalence(fit, 0.01))
    ('observed', 'plug-in')
    """
    attrs = getattr(tree, "attrs", None) or {}
    return "plug-in" if "deployment_prevalence" in attrs else "observed"


def drew_observed(axes: Any, marks: bool = False) -> bool:
    """Whether any of ``axes`` drew an observed value: a legend names one only then.

    A line (``marks``: markers, as the forests draw) with finite data and the gid
    ``observed`` or ``observed:<key>``.
    """
    for ax in axes:
        for line in ax.get_lines():
            gid = str(line.get_gid())
            if ((gid == "observed" or gid.startswith("observed:"))
                    and (line.get_marker() not in ("None", "", None)) == marks
                    and np.isfinite(np.asarray(line.get_xdata(), dtype=float)).any()):
                return True
    return False


CELLS = {(0, 0): "TP", (0, 1): "FN", (1, 0): "FP", (1, 1): "TN"}
"""The binary cells by (true, predicted) position: positive first."""


def empty_cells(idata: xr.DataTree, classifier: Hashable | None) -> str:
    """``'FN = 0'``: the binary cells observed empty (why a ratio is 0 or infinite)."""
    if not box.has_group(idata, "observed_data"):
        return ""
    data = box.get_group(idata, "observed_data")
    if "counts" not in data:
        return ""
    counts = data["counts"]
    if "classifier" in counts.dims:
        if classifier is None or isinstance(classifier, (list, tuple, np.ndarray)):
            return ""
        counts = counts.sel(classifier=classifier)
    if counts.dims != ("true_class", "pred_class") or counts.shape != (2, 2):
        return ""
    values = np.asarray(counts.values)
    return ", ".join(f"{CELLS[ij]} = 0" for ij in np.ndindex(2, 2) if values[ij] == 0)


def observed_note(ax: Axes, observed: float, info: MetricInfo, why: str,
                  legend: bool = False, word: str = "observed") -> str | None:
    """Note on the panel an observed value the axis cannot show: ∞, undefined, 0 on a log axis.

    The note is an entry of the panel's legend (``legend``), else a text in its corner.
    Returns the note, None when the value can be drawn as a line.
    """
    if np.isnan(observed):
        text = f"{word}: undefined (0/0)"
    elif np.isinf(observed):
        text = f"{word}: {'∞' if observed > 0 else '-∞'}"
    elif info.log and observed <= 0:
        text = f"{word}: {format_value(observed, info)} (off the log axis)"
    else:
        return None
    if why and not np.isnan(observed):
        text = text.replace(" (off the log axis)", "") + f" ({why})"
    if legend:
        ax.plot([], [], " ", color=OBSERVED_COLOR, label=text, gid="observed_note")
        return text
    ax.text(0.02, 0.97, text, transform=ax.transAxes, ha="left", va="top", fontsize=pt(MIN_FONT),
            color=OBSERVED_COLOR, gid="observed_note", zorder=5,
            bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.85})
    return text


def observed_value(idata: xr.DataTree, name: str, classifier: Hashable | None,
                   class_: Hashable | None) -> float | None:
    """The observed value of ``name`` for one classifier and class (None if not recorded)."""
    if not box.has_group(idata, "observed_metrics"):
        return None
    obs = box.get_group(idata, "observed_metrics")
    if name not in obs:
        return None
    return float(select(obs[name], name, classifier, class_).values)
