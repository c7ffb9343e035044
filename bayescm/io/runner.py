"""Write the outputs of an analysis: the result tree, summary tables and figures.

Used by :meth:`bayescm.io.spec.AnalysisSpec.run` and the ``bayescm`` command line. The figures
are drawn by :mod:`bayescm.plots` (one plotting system): ``"forest"`` is a grid of
:func:`~bayescm.plots.plot_forest` panels, ``"posterior"`` is :func:`~bayescm.plots.plot_metrics`;
a scores fit also has ``"roc"``, ``"pr"``, ``"reliability"`` and ``"delta_auc"``
(:func:`scores_figure`), a fit that pools groups ``"group_forest"`` (and the hierarchical fit
``"sroc"``) with :func:`pooled_figure`, which also draws its ``"forest"``, an items fit
``"items_accuracy"``, ``"items_differences"``, ``"items_ranks"`` and ``"pass_at_k"``
(:func:`items_figure`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import xarray as xr

from bayescm.analyses.summary import informedness, resolve_var_names, summary
from bayescm.core import container as box
from bayescm.core.arguments import keyword_checked
from bayescm.core.files import atomic_write, ensure_folder
from bayescm.core.stats import hdi_prob_for
from bayescm.io.spec_parse import FIGURES, HIERARCHICAL_FIGURES, ITEMS_FIGURES, SCORE_FIGURES
from bayescm.models import registry

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

__all__ = ["DEFAULT_FIGURE_METRICS", "OutputPlan", "eval_table", "figure", "items_figure",
           "pooled_figure", "scores_figure", "write_outputs"]

MAX_PAIR_PANELS = 6
"""Most panels of a ``delta_auc`` figure: every pair up to this, else each classifier against
the first."""


class OutputPlan(Protocol):
    """What :func:`write_outputs` reads of a specification.

    :class:`~bayescm.io.spec.AnalysisSpec` is one: its name, the tables and figures to write,
    and the figures' metrics and format.
    """

    @property
    def name(self) -> str: ...  # noqa: D102
    @property
    def tables(self) -> Sequence[str]: ...  # noqa: D102
    @property
    def figures(self) -> Sequence[str]: ...  # noqa: D102
    @property
    def figure_metrics(self) -> Sequence[str]: ...  # noqa: D102
    @property
    def figure_format(self) -> str: ...  # noqa: D102

DEFAULT_FIGURE_METRICS = {
    "binary": ("acc", "tpr", "tnr", "bm"),
    "multiclass": ("acc", "kappa", "f1_macro", "f1_micro", "tpr", "ppv"),
}
"""Metrics drawn when neither the figure nor the fit names any (a multiclass fit: the plots'
overview, with the quadratic kappa for ordered classes)."""

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
    from bayescm.plots import overview

    kind = registry.kind_of(idata)
    default = (overview(idata) if kind.metric_family == "multiclass" else
               [m for m in DEFAULT_FIGURE_METRICS.get(kind.metric_family, ()) if m in present])
    if default and len(chosen) > len(default):
        return default
    return [m for m in chosen if m in present][:6] or default


@keyword_checked
def figure(idata: xr.DataTree, kind: str = "forest", metrics: Sequence[str] | None = None,
           hdi_prob: float | None = None) -> Figure:
    """A figure of a result: ``"forest"`` (HDIs), ``"posterior"`` (densities) or a scores curve.

    A thin dispatcher to :mod:`bayescm.plots`, so spec outputs, the command line and notebooks
    draw the same pictures.

    Parameters
    ----------
    idata : xarray.DataTree
        A result of :func:`bayescm.fit`.
    kind : str, default "forest"
        One of ``forest, posterior, roc, pr, reliability, delta_auc, sroc, group_forest``,
        ``items_accuracy, items_differences, items_ranks, pass_at_k``.
        Forest: one :func:`~bayescm.plots.plot_forest` panel per metric, a row per classifier
        or class (a single row for a single classifier) with the posterior mean, the HDI and
        the observed value. Posterior: :func:`~bayescm.plots.plot_metrics`, the densities of
        up to 8 classifiers (or classes) overlaid per panel. The others draw a scores fit
        (:func:`scores_figure`; ``metrics`` does not apply), a fit that pools groups
        (:func:`pooled_figure`, which draws its ``"forest"`` too), or an items fit
        (:func:`items_figure`).
    metrics : list of str, optional
        Metrics to draw (aliases accepted); default see :func:`figure_metrics`.
    hdi_prob : float, optional
        Interval probability; default the tree's, else ``rcParams["stats.hdi_prob"]``.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.io.runner import figure
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), draws=200)
    >>> fig = figure(idata, metrics=["tpr", "bm"])
    >>> [ax.get_title() for ax in fig.axes]
    ['TPR', 'BM']
    >>> import matplotlib.pyplot as plt; plt.close(fig)
    """
    if kind not in FIGURES:
        raise ValueError(f"Unknown figure {kind!r}; use one of {', '.join(FIGURES)}.")
    if kind in SCORE_FIGURES:
        return scores_figure(idata, kind, hdi_prob=hdi_prob)
    if kind in ITEMS_FIGURES:
        return items_figure(idata, kind, hdi_prob=hdi_prob)
    if kind in HIERARCHICAL_FIGURES or registry.kind_of(idata).pooled_groups:
        return pooled_figure(idata, kind, metrics, hdi_prob=hdi_prob)
    names = figure_metrics(idata, metrics)
    if not names:
        raise ValueError("No metric to draw.")
    prob = hdi_prob_for(hdi_prob, idata)
    if kind == "posterior":
        return _posterior_figure(idata, names, prob)
    from bayescm.plots import plot_forests

    return plot_forests(idata, names, hdi_prob=prob)


@keyword_checked
def scores_figure(idata: xr.DataTree, kind: str, hdi_prob: float | None = None) -> Figure:
    """A figure of a scores fit: its ROC, PR or reliability curves, or its AUC differences.

    ``"roc"``, ``"pr"`` and ``"reliability"`` overlay up to 8 classifiers
    (:func:`~bayescm.plots.plot_roc`, :func:`~bayescm.plots.plot_pr`,
    :func:`~bayescm.plots.plot_reliability`); ``"delta_auc"`` has one
    :func:`~bayescm.plots.plot_delta_auc` panel per pair (later minus earlier classifier), or,
    with more than 6 pairs, each classifier against the first.

    Examples
    --------
    >>> from bayescm.models.scores import ScoresModel
    >>> from bayescm.io.runner import scores_figure
    >>> fig = scores_figure(ScoresModel.example(), "delta_auc")
    >>> fig.axes[0].get_title()[:10]
    'AUC: B - A'
    >>> import matplotlib.pyplot as plt; plt.close(fig)
    """
    from bayescm import plots
    from bayescm.plots import MAX_CURVES, grid

    if kind not in SCORE_FIGURES:
        raise ValueError(f"Unknown scores figure {kind!r}; use one of "
                         f"{', '.join(SCORE_FIGURES)}.")
    post = box.get_group(idata, "posterior")
    names = [str(v) for v in post["classifier"].values] if "classifier" in post.dims else []
    shown = names[:MAX_CURVES] or None
    if kind != "delta_auc":
        draw = (plots.plot_roc if kind == "roc" else plots.plot_pr if kind == "pr" else
                plots.plot_reliability)
        fig = draw(idata, classifier=shown, hdi_prob=hdi_prob).get_figure(root=True)
        assert fig is not None  # the plots draw on pyplot figures
        return fig
    if len(names) < 2:
        raise ValueError("A delta_auc figure compares two classifiers; this scores fit has one.")
    pairs = [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    if len(pairs) > MAX_PAIR_PANELS:
        pairs = [(names[0], b) for b in names[1:MAX_PAIR_PANELS + 1]]
    fig, axes = grid(len(pairs), None, 3, (5.2, 3.4))  # a short last row centred
    for ax, (a, b) in zip(axes, pairs, strict=True):
        plots.plot_delta_auc(idata, b, a, ax=ax, hdi_prob=hdi_prob)
    return fig


@keyword_checked
def pooled_figure(idata: xr.DataTree, kind: str, metrics: Sequence[str] | None = None,
                  hdi_prob: float | None = None) -> Figure:
    """A figure of a fit that pools groups: ``"group_forest"``, ``"forest"`` or ``"sroc"``.

    ``"group_forest"`` is the :func:`~bayescm.plots.plot_group_forest` panels of TPR and TNR
    side by side (groups, pooled and new-group rows; of multiclass runs, which have a TPR
    per class, the panels of ``"forest"``); ``"forest"`` a group-forest panel per
    metric (default see :func:`figure_metrics`); ``"sroc"`` is
    :func:`~bayescm.plots.plot_sroc`, for the kinds that declare a summary ROC (the
    hierarchical model). Any kind that declares ``pooled_groups`` is drawn, a user's own too.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.io.runner import pooled_figure
    >>> from bayescm.models.hierarchical import HierarchicalModel
    >>> idata = HierarchicalModel.example()  # six sites, model="hierarchical"
    >>> [ax.get_title() for ax in pooled_figure(idata, "forest", ["ppv"]).axes]
    ['PPV by site']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    from bayescm import plots

    fitted = registry.kind_of(idata)
    if not fitted.pooled_groups:
        raise ValueError(f"The figure {kind!r} draws a fit of several groups pooled together "
                         f"(bcm.fit(matrices, model='hierarchical', group='study')); this is "
                         f"{fitted.description or 'a ' + fitted.key}.")
    if kind == "sroc":
        fig = plots.plot_sroc(idata, hdi_prob=hdi_prob).get_figure(root=True)
        assert fig is not None  # the plots draw on pyplot figures
        return fig
    if kind == "group_forest":  # TPR and TNR of binary runs; multiclass: the metrics' forest
        post = box.get_group(idata, "posterior")
        binary = "tpr" in post and "class" not in post["tpr"].dims
        names = ["tpr", "tnr"] if binary else figure_metrics(idata, metrics)
        return plots.plot_group_forest(idata, names, hdi_prob=hdi_prob)
    if kind == "forest":
        return plots.plot_group_forest(idata, figure_metrics(idata, metrics), hdi_prob=hdi_prob)
    raise ValueError(f"A fit that pools groups has the figures {', '.join(fitted.figures)} and "
                     f"forest, not {kind!r}.")


@keyword_checked
def items_figure(idata: xr.DataTree, kind: str, hdi_prob: float | None = None) -> Figure:
    """A figure of an items fit: ``"items_accuracy"``, ``"items_differences"``, ...

    ``"items_accuracy"`` is :func:`~bayescm.plots.plot_items_accuracy` (the items model's HDI
    beside the CR1 and naive intervals), ``"items_differences"``
    :func:`~bayescm.plots.plot_items_differences`, ``"items_ranks"``
    :func:`~bayescm.plots.plot_items_ranks` and ``"pass_at_k"``
    :func:`~bayescm.plots.plot_pass_at_k`. The differences and the ranks compare two systems
    or more (a ValueError for one).

    Examples
    --------
    >>> from bayescm.models.items import ItemsModel
    >>> from bayescm.io.runner import items_figure
    >>> items_figure(ItemsModel.example(), "items_accuracy").axes[0].get_title()
    'Accuracy on a new item'
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    from bayescm import plots

    if kind not in ITEMS_FIGURES:
        raise ValueError(f"Unknown items figure {kind!r}; use one of "
                         f"{', '.join(ITEMS_FIGURES)}.")
    if kind == "items_ranks":
        ax = plots.plot_items_ranks(idata)
    elif kind == "items_accuracy":
        ax = plots.plot_items_accuracy(idata, hdi_prob=hdi_prob)
    elif kind == "items_differences":
        ax = plots.plot_items_differences(idata, hdi_prob=hdi_prob)
    else:
        ax = plots.plot_pass_at_k(idata, hdi_prob=hdi_prob)
    fig = ax.get_figure(root=True)
    assert fig is not None  # the plots draw on pyplot figures
    return fig


def _posterior_figure(idata: xr.DataTree, names: list[str], prob: float) -> Figure:
    """plot_metrics with up to 8 classifiers (or classes) overlaid per panel."""
    from bayescm.plots import MAX_OVERLAY, plot_metrics

    post = box.get_group(idata, "posterior")
    dims = {d for n in names for d in post[n].dims}
    classifiers = ([str(v) for v in post["classifier"].values][:MAX_OVERLAY]
                   if "classifier" in dims else None)
    classes = None
    if "class" in dims and classifiers is not None:  # else per-class metrics are forests
        room = MAX_OVERLAY // len(classifiers) if classifiers else MAX_OVERLAY
        classes = [str(v) for v in post["class"].values][:max(1, room)]
    return plot_metrics(idata, names, hdi_prob=prob, classifier=classifiers, class_=classes)


@keyword_checked
def write_outputs(
    spec: OutputPlan,
    idata: xr.DataTree,
    folder: str | Path,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Path]:
    """Write a spec's result tree, tables and figures into ``folder``.

    Files: ``<name>.nc`` (:func:`bayescm.save`), ``summary.csv`` (:func:`bayescm.summary`),
    ``informedness.csv`` (binary, if requested), ``eval.csv`` (an evaluation log's
    ``eval_table``) and ``<figure>.<format>`` per figure; with ``[decisions]``
    (:mod:`bayescm.io.spec_decisions`) also ``net_benefit.csv``, ``expected_cost.csv``,
    ``calibration.csv`` and their figures.

    Parameters
    ----------
    spec : OutputPlan
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

    Raises
    ------
    OutputError
        A folder (or a file in it) that cannot be written: a file where the folder should be,
        a name too long, no permission, a full disk.

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
    folder = ensure_folder(folder)
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
    if "eval" in spec.tables:
        written["eval"] = atomic_write("eval.csv", eval_table(idata).to_csv, root=folder)
    for kind in spec.figures:
        name = f"{kind}.{spec.figure_format}"
        say(f"drawing {folder / name}")
        fig = figure(idata, kind, spec.figure_metrics or None)
        try:
            written[kind] = atomic_write(
                name, partial(fig.savefig, dpi=120, format=spec.figure_format), root=folder)
        finally:
            _close(fig)
    decisions = getattr(spec, "decisions", None)
    if decisions is not None:  # [decisions] of risks: net benefit, costs, calibration
        from bayescm.core.streams import seed_from_attrs
        from bayescm.io.spec_decisions import write_decisions

        seed = seed_from_attrs(box.root_attrs(idata))
        written.update(write_decisions(decisions, getattr(spec, "data", None), idata, folder,
                                       spec.figure_format, seed=seed, progress=say))
    return written


def eval_table(idata: xr.DataTree) -> pd.DataFrame:
    """An items fit's accuracies and paired differences in one table (``eval.csv``).

    The rows ``accuracy[SYSTEM]`` and ``accuracy_diff[B - A]`` of
    :func:`bayescm.analyses.items_tables.eval_tables`, as ``bayescm eval --format csv`` prints
    them.

    Examples
    --------
    >>> from bayescm.models.items import ItemsModel
    >>> from bayescm.io.runner import eval_table
    >>> list(eval_table(ItemsModel.example()).index)
    ['accuracy[A]', 'accuracy[B]', 'accuracy_diff[B - A]']
    """
    from bayescm.analyses.items_tables import eval_tables, stack_tables

    return stack_tables(*eval_tables(idata))


def _close(fig: Figure) -> None:
    """Release a written figure (the plots draw on pyplot figures)."""
    import matplotlib.pyplot as plt

    plt.close(fig)
