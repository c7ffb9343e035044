"""Write the outputs of an analysis: the result tree, summary tables and figures.

Used by :meth:`bayescm.io.spec.AnalysisSpec.run` and the ``bayescm`` command line. The figures are
deliberately plain (drawn on a ``matplotlib.figure.Figure``, so no pyplot state or GUI backend
is involved): a forest plot of the posterior HDIs and a panel of posterior histograms.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from bayescm.analyses.summary import informedness, resolve_var_names, summary
from bayescm.core import container as box
from bayescm.core.files import atomic_write
from bayescm.core.validate import keyword_checked

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from bayescm.io.spec import AnalysisSpec

__all__ = ["DEFAULT_FIGURE_METRICS", "figure", "write_outputs"]

DEFAULT_FIGURE_METRICS = {
    "binary": ("acc", "tpr", "tnr", "bm"),
    "multiclass": ("acc", "bacc", "kappa", "mcc"),
}
"""Metrics drawn when neither the figure nor the fit names any."""

_MAX_OVERLAY = 8


def figure_metrics(idata: xr.DataTree, metrics: Sequence[str] | None = None) -> list[str]:
    """The posterior variables to draw: ``metrics``, else the fit's selection, else a default.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.io.runner import figure_metrics
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=5, fn=1, tn=4, fp=2), draws=100)
    >>> figure_metrics(idata)
    ['acc', 'tpr', 'tnr', 'bm']
    """
    if metrics:
        return resolve_var_names(idata, list(metrics))
    present = set(box.get_group(idata, "posterior").data_vars)
    chosen = box.read_json_attr(idata, "metrics") if "metrics" in idata.attrs else []
    kind = str(idata.attrs.get("model", "binary"))
    default = [m for m in DEFAULT_FIGURE_METRICS.get(kind, ()) if m in present]
    if default and len(chosen) > len(default):
        return default
    return [m for m in chosen if m in present][:6] or default


@keyword_checked
def figure(idata: xr.DataTree, kind: str = "forest", metrics: Sequence[str] | None = None,
           hdi_prob: float | None = None) -> Figure:
    """A plain figure of a result: ``"forest"`` (HDIs) or ``"posterior"`` (histograms).

    Parameters
    ----------
    idata : xarray.DataTree
        A result of :func:`bayescm.fit`.
    kind : {"forest", "posterior"}
        Forest: one panel per metric, a row per classifier or class with the posterior mean,
        the HDI and the observed value. Posterior: one panel per metric with histograms of the
        draws (at most 8 rows of a batch overlaid) and the observed value.
    metrics : list of str, optional
        Metrics to draw (aliases accepted); default see :func:`figure_metrics`.
    hdi_prob : float, optional
        Interval probability; default the tree's.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.io.runner import figure
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), draws=200)
    >>> len(figure(idata, metrics=["tpr", "bm"]).axes)
    2
    """
    from bayescm.plots._common import percent_axis, reference_line, scale_of, unit_suffix
    from bayescm.plots._metric import _grid

    if kind not in ("forest", "posterior"):
        raise ValueError(f"Unknown figure {kind!r}; use 'forest' or 'posterior'.")
    names = figure_metrics(idata, metrics)
    if not names:
        raise ValueError("No metric to draw.")
    prob = float(idata.attrs.get("hdi_prob", 0.95) if hdi_prob is None else hdi_prob)
    tables = [summary(idata, var_names=[name], hdi_prob=prob) for name in names]
    n_rows = max(len(t) for t in tables)
    panel = (4.2, 0.8 + 0.28 * n_rows) if kind == "forest" else (4.2, 2.6)
    fig, axes = _grid(len(names), None, min(len(names), 3), panel=panel)
    post = box.get_group(idata, "posterior")
    for ax, name, table in zip(axes, names, tables, strict=True):
        scale = scale_of(name)
        labels = [_row_label(name, str(v)) for v in table.index]
        if kind == "forest":
            order = np.argsort(table["mean"].to_numpy())  # best at the top
            y = np.arange(len(table))
            ax.hlines(y, table["hdi_lower"].to_numpy()[order], table["hdi_upper"].to_numpy()[order],
                      color="C0", lw=2, gid="hdi")
            ax.plot(table["mean"].to_numpy()[order], y, "o", color="C0", ms=4, gid="mean")
            ax.plot(table["observed"].to_numpy()[order], y, "x", color="C3", ms=5,
                    gid="observed")
            ax.set_yticks(y, [labels[i] for i in order] if len(table) > 1 else [name])
            ax.set_ylim(-0.7, len(table) - 0.3)
        else:
            da = post[name]
            rest = [d for d in da.dims if d not in box.SAMPLE_DIMS]
            flat = da.stack(row=rest) if rest else da.expand_dims(row=[0])
            flat = flat.transpose("row", *box.SAMPLE_DIMS)
            values = flat.values.reshape(flat.sizes["row"], -1)
            for i in range(min(len(values), _MAX_OVERLAY)):
                draws = values[i][np.isfinite(values[i])]
                if draws.size:
                    ax.hist(draws, bins=50, density=True, histtype="step", color=f"C{i % 10}",
                            label=labels[i] if len(values) > 1 else "posterior")
            for i, obs in enumerate(table["observed"].to_numpy()[:_MAX_OVERLAY]):
                if np.isfinite(obs):
                    ax.axvline(obs, color=f"C{i % 10}", ls=":", lw=1, gid="observed")
            ax.set_yticks([])
            if len(values) > 1:
                ax.legend(fontsize=7, loc="best")
        if scale.log:
            ax.set_xscale("log")
        percent_axis(ax.xaxis, scale)
        reference_line(ax, scale)
        long_name = post[name].attrs.get("long_name", name)
        ax.set_xlabel(f"{long_name}{unit_suffix(scale)}", fontsize=8)
        ax.set_title(name.upper() if len(name) <= 5 else name, fontsize=9)
    _legend(fig, kind, prob)
    return fig


def _legend(fig: Figure, kind: str, prob: float) -> None:
    """One legend for the marks of every panel."""
    from matplotlib.lines import Line2D

    if kind == "forest":
        handles = [Line2D([], [], color="C0", lw=2, label=f"{100 * prob:g} % HDI"),
                   Line2D([], [], color="C0", marker="o", ls="", label="posterior mean"),
                   Line2D([], [], color="C3", marker="x", ls="", label="observed value")]
    else:
        handles = [Line2D([], [], color="C0", lw=1, label="posterior (histogram)"),
                   Line2D([], [], color="0.3", ls=":", lw=1, label="observed value")]
    fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), frameon=False,
               fontsize=8)


def _row_label(name: str, index: str) -> str:
    """``"bm[8]"`` -> ``"8"``; ``"tpr"`` -> ``"tpr"``."""
    if index.startswith(name + "[") and index.endswith("]"):
        return index[len(name) + 1:-1]
    return index


@keyword_checked
def write_outputs(
    spec: AnalysisSpec,
    idata: xr.DataTree,
    folder: str | Path,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Path]:
    """Write a spec's result tree, tables and figures into ``folder``.

    Files: ``<name>.nc`` (:func:`bayescm.save`), ``summary.csv`` (:func:`bayescm.analyses.summary`),
    ``informedness.csv`` (binary, if requested) and ``<figure>.<format>`` per figure.

    Parameters
    ----------
    spec : AnalysisSpec
        The specification (outputs, name, figure options).
    idata : xarray.DataTree
        Its fitted result.
    folder : str or Path
        Created if needed; existing files of the same names are replaced.
    progress : callable, optional
        Called with a short status message before each file.

    Returns
    -------
    dict of str -> Path
        What was written, by kind (``"netcdf"``, ``"summary"``, ``"forest"``, ...).

    Examples
    --------
    >>> import tempfile
    >>> from bayescm.io.spec import parse_spec
    >>> from bayescm.io.runner import write_outputs
    >>> spec = parse_spec({"data": {"tp": 5, "fn": 1, "tn": 4, "fp": 2},
    ...                    "outputs": {"figures": []}}, name="toy")
    >>> files = write_outputs(spec, spec.fit(draws=100), tempfile.mkdtemp())
    >>> sorted(files)
    ['netcdf', 'summary']
    """
    say = progress or (lambda message: None)
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    say(f"writing {folder / (spec.name + '.nc')}")
    written["netcdf"] = atomic_write(f"{spec.name}.nc", lambda tmp: box.write_netcdf(idata, tmp),
                                     root=folder)
    if "summary" in spec.tables:
        table = summary(idata)
        written["summary"] = atomic_write("summary.csv", table.to_csv, root=folder)
    if "informedness" in spec.tables:
        table = informedness(idata)
        table.index.name = "classifier"
        written["informedness"] = atomic_write("informedness.csv", table.to_csv, root=folder)
    for kind in spec.figures:
        name = f"{kind}.{spec.figure_format}"
        say(f"drawing {folder / name}")
        fig = figure(idata, kind, spec.figure_metrics or None)
        written[kind] = atomic_write(name, lambda tmp, fig=fig: fig.savefig(
            tmp, dpi=120, format=spec.figure_format), root=folder)
    return written
