"""Every figure type, rendered and looked at by machine: structure, text, references, legends.

One figure per case (a binary fit, a batch, an ordered multiclass fit, comparisons, planning,
scores, several sites, subgroups, the spec runner, the command line and the app) is drawn and
checked for what a reader needs: no empty axes; a legend wherever marks are drawn; the
reference line of every signed metric and difference (0) and ratio (1); ratios on a log axis;
an observed value the axis cannot show noted on its panel; no raw variable names in any text;
no text smaller than 8 pt; no two texts overlapping; no text cut off at the figure's edge; only
the colour-blind-safe palette (and greys); heat maps whose colours span their data; the
``figsize`` asked for; panels of one figure that show the same quantity on one x-range (and
panels side by side with the same rows on one y-range); no legend over a plotted point or line;
a legend entry "observed" only where an observed value is drawn (never for a result at a
deployment prevalence, whose values are plug-in). Every case is drawn again with
``rcParams["plot.preset"] = "column"``: 3.5 inches wide, every text at least 7 pt, and the same
checks. The PNGs are written to ``$BAYESCM_FIGURES`` when set (CI keeps them; the column ones as
``column_<case>.png``), so a person can look at what the checks passed.
"""

from __future__ import annotations

import itertools
import os
import re
from collections.abc import Callable, Iterator
from functools import cache
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.colors import to_hex, to_rgba_array
from matplotlib.figure import Figure
from matplotlib.text import Text

import bayescm as bcm
from bayescm import cli, plots
from bayescm.comparisons.groups import unpooled_fit
from bayescm.io import runner
from bayescm.io.datasets import literature_matrices, subgroups
from bayescm.metrics.catalogue import catalogue_for
from bayescm.plots._grid import plot_forests
from bayescm.plots._style import OKABE_ITO

# --------------------------------------------------------------------------- the fits


@cache
def binary() -> Any:
    """The paper's cocaine test: TP 26, FN 0 (so LR- = 0 and DOR = inf observed)."""
    return bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), random_seed=1,
                   draws=1000)


@cache
def batch() -> Any:
    mats = literature_matrices()
    return bcm.fit({k: mats[k] for k in ("5b", "6a", "7a", "8", "9a", "9b", "14b", "16")},
                   random_seed=2, draws=1000)


@cache
def ordered() -> Any:
    counts = [[30, 8, 2, 0], [6, 25, 9, 1], [1, 7, 22, 6], [0, 2, 5, 16]]
    cm = bcm.ConfusionMatrix(counts, labels=["none", "mild", "moderate", "severe"],
                             ordered=True)
    return bcm.fit(cm, random_seed=3, draws=1000)


@cache
def scores() -> Any:
    return bcm.fit(bcm.datasets.screening_scores(), random_seed=4)


@cache
def three_scores() -> Any:
    """The screening study with a third score (noisier): three AUC differences to compare."""
    data = bcm.datasets.screening_scores()
    columns = {name: np.asarray(data.scores[name], dtype=float) for name in data.names}
    noise = np.random.default_rng(7).normal(0.0, 0.15, data.n)
    columns["score_quick"] = np.clip(columns["score_standard"] + noise, 0.0, 1.0)
    return bcm.fit(bcm.Scores(data.y, columns), random_seed=8, draws=500)


@cache
def deployed() -> Any:
    """The cocaine test at a deployment prevalence of 1 %: its values are plug-in, not observed."""
    return bcm.with_prevalence(binary(), 0.01)


@cache
def sites() -> Any:
    from bayescm.models.hierarchical import HierarchicalModel

    return HierarchicalModel.example()


@cache
def predictive() -> Any:
    return bcm.posterior_predictive(binary(), random_seed=5, metrics=["acc"])


@cache
def groups() -> Any:
    return bcm.fit(subgroups(), draws=1000, random_seed=6)


@cache
def items() -> Any:
    """The packaged evaluation log: 3 systems, 198 questions in 16 subdomains, 5 attempts."""
    return bcm.fit(bcm.datasets.eval_log(), draws=300, random_seed=9)


@cache
def decisions() -> Any:
    """Net benefit of the screening study's two scores at the thresholds of a decision curve."""
    return bcm.net_benefit(scores(), thresholds=np.round(np.arange(0.05, 0.51, 0.05), 2))


@cache
def costs() -> Any:
    return bcm.cost_curve(binary(), points=21)


@cache
def calibration() -> Any:
    """The dcurves cohort's two risks, recalibrated (a spline with three knots)."""
    return bcm.fit(bcm.datasets.dcurves_binary(), method="calibration", draws=500,
                   random_seed=10)


@cache
def corrected() -> Any:
    """A screening test's apparent 142 of 742 corrected for its uncertain accuracy."""
    return bcm.true_prevalence(142, 742, tpr=bcm.Beta(90, 10), tnr=bcm.Beta(95, 5),
                               random_seed=11)


@cache
def raters() -> Any:
    from bayescm.models.latent_examples import example_tree

    return example_tree()  # the layout of a Dawid-Skene fit, without NUTS


@cache
def hui_walter() -> Any:
    from bayescm.models.hui_walter import HuiWalterModel
    from bayescm.models.latent_examples import tree_near_em

    return tree_near_em(HuiWalterModel.example_data())  # a Hui-Walter fit's layout, no NUTS


# --------------------------------------------------------------------------- the cases

def _ax(draw: Callable[..., Any]) -> Callable[[], Figure]:
    def make() -> Figure:
        out = draw()
        fig = out if isinstance(out, Figure) else out.get_figure(root=True)
        assert isinstance(fig, Figure)
        return fig
    return make


def _sample_size() -> Figure:
    sizes = np.array([8, 20, 50, 100, 300, 1000])
    uninformed = bcm.samplesize.mu_at_power(sizes, n_sims=300, random_seed=1)
    informed = bcm.samplesize.mu_at_power(sizes, n_sims=300, random_seed=1, concentration=50)
    ax = plots.plot_sample_size({"n": sizes, "mu": uninformed}, label="uninformed prior",
                                plan=bcm.samplesize.plan(0.2, n_sims=300, random_seed=1))
    plots.plot_sample_size({"n": sizes, "mu": informed}, ax=ax, rule=False,
                           label="informed prior (concentration 50)")
    return ax.get_figure(root=True)


def _assurance() -> Figure:
    sizes = np.unique(np.geomspace(20, 2000, 25).astype(int))
    curve = bcm.samplesize.assurance("tpr > 0.9", n=sizes, design={
        "tpr": bcm.Beta(95, 5), "prevalence": bcm.Beta(30, 70)})
    return plots.plot_assurance(curve, target=0.8).get_figure(root=True)


def _assurance_paired() -> Figure:
    sizes = np.unique(np.geomspace(50, 3000, 20).astype(int))
    curve = bcm.samplesize.paired_assurance(sizes, 0.04, 0.07)
    power = bcm.samplesize.paired_power(sizes, 0.04, 0.07)
    return plots.plot_assurance(curve, target=0.8, power=power).get_figure(root=True)


def _assurance_simulated() -> Figure:
    design = {"prevalence": bcm.Beta(20, 80), "tpr": bcm.Beta(90, 10), "tnr": bcm.Beta(95, 5)}
    curve = bcm.samplesize.assurance("ppv > 0.7", n=[100, 300, 1000, 3000], design=design,
                                     n_sims=300, n_draws=300, random_seed=1)
    return plots.plot_assurance(curve).get_figure(root=True)


def _stopping() -> Figure:
    res = bcm.samplesize.sequential([85, 8, 12, 15], "b > a", look_every=40, max_more=600,
                                    n_streams=400, random_seed=0)
    return plots.plot_stopping(res).get_figure(root=True)


def _app_figure(draw: Callable[[], Any]) -> Callable[[], Figure]:
    """An app figure, as the app draws it (PNG bytes), kept here as a Figure."""
    def make() -> Figure:
        pytest.importorskip("panel")
        captured: list[Figure] = []
        original = Figure.savefig

        def keep(fig: Figure, *args: Any, **kwargs: Any) -> Any:
            captured.append(fig)
            return original(fig, *args, **kwargs)

        Figure.savefig = keep  # type: ignore[method-assign]
        try:
            draw()
        finally:
            Figure.savefig = original  # type: ignore[method-assign]
        from matplotlib.backends.backend_agg import FigureCanvasAgg

        FigureCanvasAgg(captured[0])  # a bare Figure: give it a canvas that can measure text
        return captured[0]
    return make


def _app_grid() -> Any:
    from bayescm.app import figures

    return figures.metric_grid_png(binary(), ["tpr", "tnr", "bm", "lr_plus", "dor", "acc"],
                                   title="Cocaine purity test")


def _app_deployed() -> Any:
    from bayescm.app import figures

    return figures.metric_grid_png(deployed(), ["tpr", "ppv", "npv", "dor"],
                                   title="at a deployment prevalence of 0.01")


def _app_paired() -> Any:
    from bayescm.app.compare_tab import EXAMPLE, CompareJob
    from bayescm.app.parse import text_columns

    truth, a, b = text_columns(EXAMPLE, ["truth", "model_a", "model_b"], "labels")
    return CompareJob(("tpr", "tnr", "acc", "bm"), 1000, 1, truth=tuple(truth),
                      pred_a=tuple(a), pred_b=tuple(b), positive="1").run()


CASES: dict[str, Callable[[], Figure]] = {
    "binary_metric_tpr": _ax(lambda: plots.plot_metric(binary(), "tpr", prior=True)),
    "binary_metric_bm": _ax(lambda: plots.plot_metric(binary(), "bm")),
    "binary_metric_lr_plus": _ax(lambda: plots.plot_metric(binary(), "lr_plus")),
    "binary_metric_dor": _ax(lambda: plots.plot_metric(binary(), "dor")),
    "binary_metric_lr_minus": _ax(lambda: plots.plot_metric(binary(), "lr_minus")),
    "binary_metric_column": _ax(lambda: plots.plot_metric(binary(), "dor", prior=True,
                                                          figsize=(3.5, 2.6))),
    "binary_metric_predictive": _ax(lambda: plots.plot_metric(predictive(), "acc",
                                                              predictive=True)),
    "binary_grid_default": _ax(lambda: plots.plot_metrics(binary())),
    "binary_grid_all": _ax(lambda: plots.plot_metrics(
        binary(), ["tpr", "tnr", "ppv", "npv", "bm", "mk", "mcc", "kappa", "lr_plus",
                   "lr_minus", "dor", "f1", "prevalence"])),
    "binary_grid_slide": _ax(lambda: plots.plot_metrics(
        binary(), ["tpr", "tnr", "bm", "lr_plus", "lr_minus", "dor"], figsize=(10, 5.6))),
    "binary_forest_metrics": _ax(lambda: plots.plot_forest(binary(), ["acc", "tpr", "tnr",
                                                                      "ppv", "npv"])),
    "binary_forests": lambda: plot_forests(binary(), ["acc", "tpr", "tnr", "bm", "mcc",
                                                      "lr_plus", "lr_minus"]),
    "binary_theta": _ax(lambda: plots.plot_theta(binary())),
    "binary_theta_rates": _ax(lambda: plots.plot_theta(binary(), var="rates")),
    "binary_priors": _ax(lambda: plots.plot_priors(
        bcm.analyses.prior_sensitivity(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
                              ["laplace", "jeffreys"], draws=500, random_seed=0),
        ["tpr", "tnr", "bm", "lr_plus"])),
    "batch_forest_bm": _ax(lambda: plots.plot_forest(batch(), "bm")),
    "batch_forest_dor": _ax(lambda: plots.plot_forest(batch(), "dor")),
    "batch_grid_overlay": _ax(lambda: plots.plot_metrics(batch(), ["bm", "acc", "dor"],
                                                         classifier=["7a", "8", "9b"])),
    "batch_ranks": _ax(lambda: plots.plot_rank_probabilities(
        bcm.rank_probabilities(batch(), "bm"), prizes=[100, 50, 10])),
    "leaderboard_kaggle": _ax(lambda: plots.plot_rank_probabilities(
        bcm.leaderboard({"a": 0.9134, "b": 0.9129, "c": 0.9120, "d": 0.9101}, n=15123,
                        prizes=[12000, 8000, 5000], random_seed=0))),
    "multiclass_grid_default": _ax(lambda: plots.plot_metrics(ordered())),
    "multiclass_forest_recall": _ax(lambda: plots.plot_forest(ordered(), "tpr")),
    "multiclass_classes_overlay": _ax(lambda: plots.plot_metric(
        ordered(), "f1", class_=["none", "mild", "moderate", "severe"])),
    "multiclass_theta": _ax(lambda: plots.plot_theta(ordered())),
    "multiclass_theta_rates": _ax(lambda: plots.plot_theta(ordered(), var="rates")),
    "paired": _ax(lambda: plots.plot_paired(
        bcm.compare.compare_paired_counts(700, 60, 20, 220, rope=0.01, random_seed=0), "acc")),
    "planning_sample_size": _sample_size,
    "planning_assurance": _assurance,
    "planning_assurance_paired": _assurance_paired,
    "planning_assurance_simulated": _assurance_simulated,
    "planning_stopping": _stopping,
    "scores_roc": _ax(lambda: plots.plot_roc(scores())),
    "scores_pr": _ax(lambda: plots.plot_pr(scores())),
    "scores_reliability": _ax(lambda: plots.plot_reliability(scores())),
    "scores_delta_auc": _ax(lambda: plots.plot_delta_auc(
        scores(), *list(scores()["posterior"]["classifier"].values[:2])[::-1])),
    "sites_sroc": _ax(lambda: plots.plot_sroc(sites())),
    "sites_forest": _ax(lambda: plots.plot_group_forest(sites(), ["tpr", "tnr"])),
    "sites_gaps": _ax(lambda: plots.plot_group_gaps(sites(), "tpr_gap",
                                                    unpooled=unpooled_fit(sites()))),
    "subgroups_gaps": _ax(lambda: plots.plot_group_gaps(groups(), "tpr_gap")),
    "subgroups_gaps_ratio": _ax(lambda: plots.plot_group_gaps(groups(),
                                                              "selection_rate_ratio")),
    "spec_forest_batch": lambda: runner.figure(batch(), "forest"),
    "spec_posterior_binary": lambda: runner.figure(binary(), "posterior"),
    "spec_forest_multiclass": lambda: runner.figure(ordered(), "forest"),
    "spec_posterior_multiclass": lambda: runner.figure(ordered(), "posterior"),
    "spec_posterior_batch": lambda: runner.figure(batch(), "posterior"),
    "spec_delta_auc": lambda: runner.figure(scores(), "delta_auc"),
    "cli_analyze_binary": lambda: cli.analyze_figure(binary()),
    "cli_analyze_multiclass": lambda: cli.analyze_figure(ordered()),
    "app_metric_grid": _app_figure(_app_grid),
    "app_deployed_grid": _app_figure(_app_deployed),
    "app_paired_grid": _app_figure(_app_paired),
    "batch_overlay_lr_minus": _ax(lambda: plots.plot_metric(batch(), "lr_minus",
                                                            classifier=["7a", "16"])),
    "deployed_metric_ppv": _ax(lambda: plots.plot_metric(deployed(), "ppv")),
    "deployed_grid": _ax(lambda: plots.plot_metrics(deployed(), ["tpr", "ppv", "npv", "acc"])),
    "deployed_forest": _ax(lambda: plots.plot_forest(deployed(), ["tpr", "ppv", "npv"])),
    "spec_delta_auc_three": lambda: runner.figure(three_scores(), "delta_auc"),
    "cli_roc_three": lambda: runner.scores_figure(three_scores(), "roc"),
    "scores_reliability_three": _ax(lambda: plots.plot_reliability(three_scores())),
    "items_accuracy": _ax(lambda: plots.plot_items_accuracy(items())),
    "items_differences": _ax(lambda: plots.plot_items_differences(items())),
    "items_ranks": _ax(lambda: plots.plot_items_ranks(items())),
    "items_pass_at_k": _ax(lambda: plots.plot_pass_at_k(items())),
    "decision_curve": _ax(lambda: plots.plot_decision_curve(decisions())),
    "decision_delta_net_benefit": _ax(lambda: plots.plot_delta_net_benefit(decisions())),
    "decision_evpi": _ax(lambda: plots.plot_evpi(decisions())),
    "decision_cost_curve": _ax(lambda: plots.plot_cost_curve(costs())),
    "decision_calibration_curve": _ax(lambda: plots.plot_calibration_curve(calibration())),
    "corrected_prevalence": _ax(lambda: plots.plot_corrected(corrected())),
    "latent_rater_rates": lambda: plots.plot_rater_rates(raters()),
    "latent_item_classes": _ax(lambda: plots.plot_item_classes(raters())),
    "latent_test_rates": _ax(lambda: plots.plot_test_rates(hui_walter())),
}

SIZES = {"binary_metric_column": (3.5, 2.6), "binary_grid_slide": (10, 5.6)}
"""Cases drawn at a size asked for with ``figsize=`` (a journal column, a slide)."""

DEPLOYED = {"app_deployed_grid", "deployed_metric_ppv", "deployed_grid", "deployed_forest"}
"""Cases of a result at a deployment prevalence: nothing there was observed."""

NOTES = {
    "binary_metric_dor": {"DOR": "observed: ∞ (FN = 0)"},
    "binary_metric_column": {"DOR": "observed: ∞ (FN = 0)"},
    "binary_metric_lr_minus": {"LR−": "observed: 0 (FN = 0)"},
    "binary_grid_all": {"DOR": "observed: ∞ (FN = 0)", "LR−": "observed: 0 (FN = 0)"},
    "binary_grid_slide": {"DOR": "observed: ∞ (FN = 0)", "LR−": "observed: 0 (FN = 0)"},
    "app_metric_grid": {"DOR": "observed: ∞ (FN = 0)"},
}
"""Observed values an axis cannot show (the cocaine test has FN = 0), noted on the panel."""



def test_every_public_plot_function_has_a_case() -> None:
    """A new figure type joins the cases above, so every check here runs on it."""
    source = Path(__file__).read_text()
    public = {name for name in plots.__all__ if name.startswith("plot_")}
    missing = sorted(name for name in public if f"{name}(" not in source)
    assert missing == [], f"figure types without a case in CASES: {missing}"


# --------------------------------------------------------------------------- the checks

_SCALE_OF = {m.display_name: m.scale for kind in ("binary", "multiclass", "scores")
             for m in catalogue_for(kind).values()}
RATIOS = {name for name, scale in _SCALE_OF.items() if scale == "ratio"}
SIGNED_NAMES = {name for name, scale in _SCALE_OF.items() if scale == "signed"}

RAW_NAMES = sorted({name for kind in ("binary", "multiclass", "scores")
                    for name in catalogue_for(kind) if "_" in name}
                   | {"theta", "rates", "hdi_lower", "hdi_upper", "hdi_prob"})
_RAW = re.compile(r"\b(" + "|".join(map(re.escape, RAW_NAMES)) + r")\b", re.IGNORECASE)
SIGNED = {"BM", "MK", "MCC", "κ", "Kappa", "Cohen's κ"}


def _texts(fig: Figure) -> Iterator[Text]:
    """The texts drawn: visible, not empty, and of the ticks only those inside the view."""
    hidden: set[int] = set()
    for ax in fig.axes:
        for axis in ax._axis_map.values():
            ticks = axis.get_major_ticks() + axis.get_minor_ticks()
            drawn = {id(t) for t in axis._update_ticks()} if axis.get_visible() else set()
            hidden.update(id(label) for t in ticks if id(t) not in drawn
                          for label in (t.label1, t.label2))  # a twin's hidden x axis too
    for text in fig.findobj(Text):
        if (text.get_visible() and text.get_text().strip() and id(text) not in hidden
                and text.get_figure() is not None):
            yield text


def _is_colorbar(ax: Axes) -> bool:
    return ax.get_label() == "<colorbar>"


def _in_a_twins_legend(ax: Axes) -> bool:
    """A twin axes (``twinx``) whose every line is an entry of its partner's legend."""
    twins = [a for a in ax.get_shared_x_axes().get_siblings(ax) if a is not ax]
    entries = {t.get_text() for a in twins if a.get_legend() is not None
               for t in a.get_legend().get_texts()}
    labels = [str(line.get_label()) for line in ax.get_lines()]
    return bool(twins and labels) and all(label in entries for label in labels)


def _has_marks(ax: Axes) -> bool:
    return bool(ax.lines or ax.collections or ax.patches or ax.images)


def structural_problems(fig: Figure, min_font: float = 8.0) -> list[str]:
    """What a reader would stumble over in ``fig`` (empty when the figure is fine)."""
    problems: list[str] = []
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    axes = [ax for ax in fig.axes if ax.get_visible() and not _is_colorbar(ax)]
    legend_in_figure = bool(fig.legends)
    for ax in axes:
        name = ax.get_title() or ax.get_label() or "an axes"
        if not (_has_marks(ax) or ax.texts or ax.tables):
            problems.append(f"{name}: empty axes")
        explained = (ax.get_legend() is not None or legend_in_figure or ax.images
                     or ax.tables or any(a.get_gid() == "legend" for a in ax.texts)
                     or _in_a_twins_legend(ax))
        if _has_marks(ax) and not explained:
            problems.append(f"{name}: marks without a legend")
    for text in _texts(fig):
        content = text.get_text()
        if _RAW.search(content):
            problems.append(f"raw variable name in {content!r}")
        if text.get_fontsize() < min_font - 1e-9:
            problems.append(f"{content!r} at {text.get_fontsize():.1f} pt")
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in _texts(fig)]
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            inter_w = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
            inter_h = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
            if inter_w > 1.5 and inter_h > 1.5:
                problems.append(f"texts overlap: {a!r} and {b!r}")
    edge = fig.bbox
    for content, box in boxes:  # a title above the top, a legend under the bottom edge
        if (box.x0 < edge.x0 - 1 or box.x1 > edge.x1 + 1 or box.y0 < edge.y0 - 1
                or box.y1 > edge.y1 + 1):
            problems.append(f"{content!r} is cut off at the figure's edge")
    return problems


_UNIT_OF = re.compile(r"\((%|percentage points|log scale)\)$")


def _quantity(ax: Axes) -> tuple[str, str, str] | None:
    """What a panel's x axis shows: its title's metric, the unit of its label, its scale."""
    title = " ".join(ax.get_title().split())
    if not title or _is_colorbar(ax) or not ax.get_visible():
        return None
    unit = _UNIT_OF.search(ax.get_xlabel().strip())
    difference = " - " in title or "gap" in ax.get_xlabel()
    return (_metric_of(title) + (" difference" if difference else ""),
            unit.group(1) if unit else "", ax.get_xscale())


def range_problems(fig: Figure) -> list[str]:
    """Panels of the same quantity on different x-ranges; panels of the same rows on different
    y-ranges (a side-by-side forest read across)."""
    problems = []
    same: dict[Any, list[Axes]] = {}
    rows: dict[tuple[str, ...], list[Axes]] = {}
    for ax in fig.axes:
        key = _quantity(ax)
        if key is not None:
            same.setdefault(key, []).append(ax)
            labels = tuple(t.get_text() for t in ax.get_yticklabels())
            if any(label.strip() for label in labels) and ax.get_yticks().size != 0:
                rows.setdefault(labels, []).append(ax)
    for key, panels in same.items():
        ranges = {tuple(np.round(ax.get_xlim(), 9)) for ax in panels}
        if len(ranges) > 1:
            problems.append(f"panels of {key[0]} ({', '.join(ax.get_title() for ax in panels)}) "
                            f"on different x-ranges: {sorted(ranges)}")
    for labels, panels in rows.items():
        ranges = {tuple(np.round(ax.get_ylim(), 9)) for ax in panels}
        if len(panels) > 1 and len(ranges) > 1:
            problems.append(f"panels with the rows {list(labels)[:3]}... on different "
                            f"y-ranges: {sorted(ranges)}")
    return problems


CONTEXT = {"reference", "chance", "calibrated", "baseline", "gap", "tolerance"}
"""Lines that mark context (a reference, the chance diagonal), not data."""


def _dense(xy: np.ndarray, step: float = 3.0) -> np.ndarray:
    """The points of a polyline every ``step`` pixels, so a legend over a segment is found."""
    xy = xy[np.isfinite(xy).all(axis=1)]
    if len(xy) < 2:
        return xy
    parts = [xy[:1]]
    for a, b in itertools.pairwise(xy):
        n = max(1, int(np.ceil(np.hypot(*(b - a)) / step)))
        parts.append(a + (b - a) * np.linspace(0, 1, n + 1)[1:, None])
    return np.concatenate(parts)


def _data_points(ax: Axes) -> list[tuple[str, np.ndarray]]:
    """The plotted points and lines of ``ax`` in pixels, where they are visible."""
    from matplotlib.collections import LineCollection, PathCollection

    found: list[tuple[str, np.ndarray]] = []
    for line in ax.get_lines():
        if str(line.get_gid()) in CONTEXT or not line.get_visible():
            continue
        xy = np.asarray(line.get_xydata(), dtype=float)
        if xy.size == 0:
            continue
        xy = line.get_transform().transform(xy)
        curve = line.get_linestyle() not in ("None", " ", "", "none")
        found.append((str(line.get_gid() or line.get_label()), _dense(xy) if curve else xy))
    for coll in ax.collections:
        if str(coll.get_gid()) in CONTEXT or not coll.get_visible():
            continue
        if isinstance(coll, PathCollection) and len(coll.get_offsets()):
            xy = coll.get_offset_transform().transform(np.asarray(coll.get_offsets(), float))
            found.append((str(coll.get_gid()), xy))
        elif isinstance(coll, LineCollection):
            for seg in coll.get_segments():
                found.append((str(coll.get_gid()),
                              _dense(coll.get_transform().transform(np.asarray(seg, float)))))
    inside = ax.bbox
    clipped = []
    for gid, xy in found:
        xy = xy[np.isfinite(xy).all(axis=1)]
        keep = ((xy[:, 0] >= inside.x0) & (xy[:, 0] <= inside.x1) & (xy[:, 1] >= inside.y0)
                & (xy[:, 1] <= inside.y1))
        clipped.append((gid, xy[keep]))
    return clipped


def legend_problems(fig: Figure) -> list[str]:
    """Legends drawn over a plotted point or line of any panel of the figure."""
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    legends += list(fig.legends)
    points = [(ax, gid, xy) for ax in fig.axes if not _is_colorbar(ax)
              for gid, xy in _data_points(ax)]
    problems = []
    for legend in legends:
        box = legend.get_window_extent(renderer).shrunk(0.98, 0.98)
        covered = sorted({f"{ax.get_title() or 'panel'}: {gid}" for ax, gid, xy in points
                          if len(xy) and ((xy[:, 0] > box.x0) & (xy[:, 0] < box.x1)
                                          & (xy[:, 1] > box.y0) & (xy[:, 1] < box.y1)).any()})
        if covered:
            problems.append(f"a legend covers plotted data: {covered}")
    return problems


def _legend_texts(fig: Figure) -> list[str]:
    legends = [ax.get_legend() for ax in fig.axes if ax.get_legend() is not None]
    return [t.get_text() for legend in [*legends, *fig.legends] for t in legend.get_texts()]


def observed_problems(fig: Figure, deployed: bool) -> list[str]:
    """A legend entry named "observed" without an observed value drawn; "observed" at all for a
    result at a deployment prevalence (its values are the test set's rates there: plug-in)."""
    problems = []
    texts = [*_legend_texts(fig), *(t.get_text() for ax in fig.axes for t in ax.texts)]
    says = [t for t in texts if re.match(r"\s*observed\b", t, re.IGNORECASE)]
    if deployed:
        return [f"'observed' for a deployment prevalence: {t!r}" for t in says]
    drawn = any(str(line.get_gid()).split(":")[0] == "observed" and len(xy)
                for ax in fig.axes for line in ax.get_lines()
                for xy in [next((xy for gid, xy in _data_points(ax)
                                 if gid == str(line.get_gid())), np.empty((0, 2)))])
    for text in says:
        if not re.match(r"\s*observed\s*:", text, re.IGNORECASE) and not drawn:
            problems.append(f"legend entry {text!r} but no observed value is drawn")
    return problems


def references(fig: Figure) -> dict[str, list[float]]:
    """The reference lines (gid ``reference``) of each titled axes, by title."""
    found: dict[str, list[float]] = {}
    for ax in fig.axes:
        at = []
        for line in ax.get_lines():
            if line.get_gid() == "reference":
                xs = np.unique(np.asarray(line.get_xdata(), float))
                ys = np.unique(np.asarray(line.get_ydata(), float))
                at.append(float(xs[0] if xs.size == 1 else ys[0]))
        found[ax.get_title()] = at
    return found


def _metric_of(title: str) -> str:
    """The display name a panel's title starts with: 'BM' of 'BM of 8 classifiers'.

    A title wrapped onto lines in a narrow panel is read as one line.
    """
    return re.split(r" of | by |, |: | \(", " ".join(title.split()), maxsplit=1)[0]


def reference_problems(fig: Figure) -> list[str]:
    """Signed metrics and differences without a line at 0, ratios without one at 1 or a log axis."""
    problems = []
    for title, at in references(fig).items():
        name = _metric_of(title)
        difference = " - " in title.split("\n")[0]
        want = 1.0 if name in RATIOS else 0.0 if name in SIGNED_NAMES or difference else None
        if want is not None and want not in at:
            problems.append(f"{title!r}: no reference line at {want:g}")
    for ax in fig.axes:
        if _metric_of(ax.get_title()) in RATIOS and ax.get_xscale() != "log":
            problems.append(f"{ax.get_title()!r}: a ratio on a {ax.get_xscale()} axis")
    return problems


def _greyish(rgba: np.ndarray) -> bool:
    return bool(np.ptp(rgba[:3]) < 0.02) or rgba[3] == 0


def palette_problems(fig: Figure) -> list[str]:
    """Colours of marks outside the Okabe-Ito palette and the greys."""
    allowed = {c.lower() for c in OKABE_ITO}
    problems = set()
    for ax in fig.axes:
        if _is_colorbar(ax):
            continue
        lines = [line for line in ax.get_lines() if len(line.get_xdata())]  # drawn ones
        colours = [line.get_color() for line in lines]
        colours += [line.get_markerfacecolor() for line in lines]
        for artist in [*ax.collections, *ax.patches]:
            colours += list(to_rgba_array(artist.get_facecolor()))
            colours += list(to_rgba_array(artist.get_edgecolor()))
        for colour in colours:
            if isinstance(colour, str) and colour in ("none", "auto"):
                continue
            for rgba in to_rgba_array(colour):
                if not _greyish(rgba) and to_hex(rgba[:3]) not in allowed:
                    problems.add(f"{ax.get_title()!r}: colour {to_hex(rgba[:3])} is not in the "
                                 "colour-blind-safe palette")
    return sorted(problems)


def heatmap_problems(fig: Figure) -> list[str]:
    """Heat maps whose colour scale does not span their data (0-100 for cells up to 36).

    Panels of one figure that share a colour scale (several raters' rates, compared on one
    scale) are measured together: the scale spans the data of them all.
    """
    problems = []
    images = [image for ax in fig.axes for image in ax.images]
    shared = {id(image): image.get_clim() for image in images}
    tops: dict[tuple[float, float], float] = {}
    for image in images:
        top = float(np.nanmax(np.asarray(image.get_array(), dtype=float)))
        clim = shared[id(image)]
        tops[clim] = max(tops.get(clim, -np.inf), top)
    for ax in fig.axes:
        for image in ax.images:
            top = tops[image.get_clim()]
            vmax = image.get_clim()[1]
            if not (top <= vmax + 1e-9 and vmax <= 1.5 * top + 1e-9):
                problems.append(f"{ax.get_title()!r}: colours up to {vmax:g} for data up to "
                                f"{top:g}")
    return problems


def notes_of(fig: Figure) -> dict[str, list[str]]:
    """Every text of each titled axes, its legend's included."""
    found: dict[str, list[str]] = {}
    for ax in fig.axes:
        texts = [t.get_text() for t in ax.texts]
        if ax.get_legend() is not None:
            texts += [t.get_text() for t in ax.get_legend().get_texts()]
        found[ax.get_title()] = texts
    return found


@pytest.fixture(scope="module")
def out_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = os.environ.get("BAYESCM_FIGURES")
    path = Path(where) if where else tmp_path_factory.mktemp("figures")
    path.mkdir(parents=True, exist_ok=True)
    return path


def problems_of(fig: Figure, case: str, min_font: float = 8.0) -> list[str]:
    """Every check of this module on one drawn case."""
    problems = structural_problems(fig, min_font) + reference_problems(fig)
    problems += palette_problems(fig) + heatmap_problems(fig) + range_problems(fig)
    problems += legend_problems(fig) + observed_problems(fig, case in DEPLOYED)
    notes = notes_of(fig)
    for title, note in NOTES.get(case, {}).items():
        if not any(note in text for text in notes.get(title, [])):
            problems.append(f"{title!r}: the note {note!r} is missing")
    return problems


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(CASES))
def test_figure_reads_well(case: str, out_dir: Path) -> None:
    fig = CASES[case]()
    try:
        fig.savefig(out_dir / f"{case}.png", dpi=100)
        fig.set_layout_engine("none")  # check what was saved: no second layout
        problems = problems_of(fig, case)
        if case in SIZES:
            size = tuple(float(v) for v in fig.get_size_inches())
            if size != pytest.approx(SIZES[case]):
                problems.append(f"figsize {SIZES[case]} asked for, {size} drawn")
        assert problems == [], "\n".join(problems)
    finally:
        plt.close(fig)


COLUMN = 3.5
"""The width of one journal column (inches), the preset's."""


@pytest.mark.slow
@pytest.mark.parametrize("case", sorted(set(CASES) - set(SIZES)))
def test_figure_in_a_journal_column(case: str, out_dir: Path) -> None:
    """Drawn with the column preset: 3.5 inches wide, no text under 7 pt, every other check."""
    with bcm.rc_context(plot_preset="column"):
        fig = CASES[case]()
    try:
        fig.savefig(out_dir / f"column_{case}.png", dpi=200)  # print resolution
        fig.set_layout_engine("none")  # check what was saved: no second layout
        problems = problems_of(fig, case, min_font=7.0)
        width = float(fig.get_size_inches()[0])
        if width != pytest.approx(COLUMN):
            problems.append(f"{width:.2f} inches wide, not the column's {COLUMN}")
        assert problems == [], "\n".join(problems)
    finally:
        plt.close(fig)
