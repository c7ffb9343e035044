"""The "Compare two classifiers" tab: which of A and B is better, and how sure that is.

Two test sets (a matrix each): one fit of both, ``bcm.fit({"A": cm_a, "B": cm_b})``, and
:func:`bayescm.prob_superior` per metric. One test set (true labels and both predictions, as
a CSV table): :func:`bayescm.compare_paired`, which keeps the correlation of errors on shared
samples. Css classes: ``bcm-cmp-mode``; ``bcm-cmp-a-tp`` ... ``bcm-cmp-b-fp``; ``bcm-cmp-csv``,
``bcm-cmp-file``, ``bcm-cmp-truth``, ``bcm-cmp-pred-a``, ``bcm-cmp-pred-b``,
``bcm-cmp-positive``; ``bcm-cmp-metrics``, ``bcm-cmp-seed``, ``bcm-cmp-draws``, the button
``bcm-cmp-run``; results ``bcm-cmp-status``, ``bcm-cmp-warning``, ``bcm-cmp-summary``,
``bcm-cmp-figure``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd
import panel as pn  # type: ignore[import-not-found, unused-ignore]

from bayescm.app.controller import (
    Controller,
    error_alert,
    labelled,
    option_card,
    run_button,
    text_input,
)
from bayescm.app.figures import grid_figure, metric_grid_png, png
from bayescm.app.matrix_inputs import CELLS
from bayescm.app.matrixjob import MAX_DRAWS
from bayescm.app.parse import (
    InputError,
    csv_columns,
    parse_count,
    parse_whole,
    text_columns,
)
from bayescm.app.tables import table_html

__all__ = ["CompareJob", "CompareTab"]

METRICS = ("tpr", "tnr", "ppv", "npv", "acc", "bacc", "f1", "mcc", "bm")
"""Metrics offered (each has a direction: higher is better)."""
EXAMPLE = "truth,model_a,model_b\n" + "\n".join(
    f"{t},{a},{b}" for t, a, b in [(1, 1, 1), (1, 1, 0), (1, 0, 0), (0, 0, 0), (0, 0, 1),
                                   (1, 1, 1), (0, 0, 0), (0, 1, 0), (1, 1, 1), (0, 0, 0),
                                   (1, 1, 0), (0, 0, 0)]) + "\n"


@dataclass(frozen=True)
class CompareJob:
    """A comparison: two matrices (``a``, ``b``) or labels (``truth``, ``pred_a``, ``pred_b``).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.app.compare_tab import CompareJob
    >>> a = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    >>> b = bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4)
    >>> table, _ = CompareJob(("bm",), 1000, 1, a=a, b=b).run()
    >>> round(float(table.loc["bm", "P(A better)"]), 2)
    0.98
    """

    metrics: tuple[str, ...]
    draws: int
    seed: int
    a: Any = None
    b: Any = None
    truth: tuple[str, ...] = ()
    pred_a: tuple[str, ...] = ()
    pred_b: tuple[str, ...] = ()
    positive: str | None = None

    def run(self) -> tuple[pd.DataFrame, bytes]:
        """The table (one row per metric) and a figure (PNG)."""
        return self._paired() if self.a is None else self._separate()

    def _separate(self) -> tuple[pd.DataFrame, bytes]:
        from bayescm.analyses.summary import summary
        from bayescm.comparisons.superiority import prob_superior
        from bayescm.models.fitting import fit

        idata = fit({"A": self.a, "B": self.b}, draws=self.draws, random_seed=self.seed,
                    metrics=list(self.metrics))
        table = summary(idata, var_names=list(self.metrics), kind="stats")
        rows = {}
        for m in self.metrics:
            rows[m] = {"A mean": table.loc[f"{m}[A]", "mean"],
                       "A hdi_lower": table.loc[f"{m}[A]", "hdi_lower"],
                       "A hdi_upper": table.loc[f"{m}[A]", "hdi_upper"],
                       "B mean": table.loc[f"{m}[B]", "mean"],
                       "B hdi_lower": table.loc[f"{m}[B]", "hdi_lower"],
                       "B hdi_upper": table.loc[f"{m}[B]", "hdi_upper"],
                       "P(A better)": prob_superior(idata, "A", "B", metric=m),
                       "P(B better)": prob_superior(idata, "B", "A", metric=m)}
        out = pd.DataFrame.from_dict(rows, orient="index")
        out.index.name = "metric"
        return out, metric_grid_png(idata, list(self.metrics)[:9], classifier=["A", "B"])

    def _paired(self) -> tuple[pd.DataFrame, bytes]:
        from bayescm.app.figures import app_style
        from bayescm.comparisons.paired import compare_paired, comparison_table
        from bayescm.plots import plot_paired

        result = compare_paired(list(self.truth), list(self.pred_a), list(self.pred_b),
                                metrics=list(self.metrics), positive=self.positive,
                                draws=self.draws, random_seed=self.seed)
        full = comparison_table(result)
        table = full[["diff_mean", "diff_hdi_lower", "diff_hdi_upper", "p_a_better",
                      "p_b_better"]].rename(columns={
            "diff_mean": "A - B mean", "diff_hdi_lower": "A - B hdi_lower",
            "diff_hdi_upper": "A - B hdi_upper", "p_a_better": "P(A better)",
            "p_b_better": "P(B better)"})
        shown = list(table.index)[:9]
        with app_style():
            # room for each panel's legend: two per row, one in a narrow preset
            fig, axes = grid_figure(len(shown), ncols=2, min_width=3.4)
            for name, ax in zip(shown, axes, strict=True):
                plot_paired(result, str(name), ax=ax)
            return table, png(fig)


class CompareTab(Controller):
    """The comparison tab; :meth:`run` (the button) compares and shows.

    Examples
    --------
    >>> from bayescm.app.compare_tab import CompareTab
    >>> tab = CompareTab()
    >>> tab.draws.value = "1000"
    >>> tab.run()
    True
    >>> tab.mode.value = "paired"
    >>> tab.run()
    True
    >>> tab.truth.value = tab.pred_a.value
    >>> tab.run(), tab.last_error
    (False, 'Choose three different columns (the truth, A and B).')
    """

    action = "Comparing"
    css = "bcm-cmp"

    def __init__(self) -> None:
        self.mode = pn.widgets.RadioButtonGroup(
            options={"Two test sets": "separate", "One test set (paired)": "paired"},
            value="separate", css_classes=["bcm-cmp-mode"])
        defaults = {"a": {"tp": "26", "fn": "0", "fp": "2", "tn": "6"},
                    "b": {"tp": "28", "fn": "9", "fp": "4", "tn": "3"}}
        self.cells = {who: {k: text_input(f"{who.upper()}: {short}", defaults[who][k],
                                          f"bcm-cmp-{who}-{k}", width=80)
                            for k, (short, _) in CELLS.items()} for who in ("a", "b")}
        self.table = labelled(pn.widgets.TextAreaInput, "labels (one row per test sample)",
                              value=EXAMPLE, height=130, width=340, css_classes=["bcm-cmp-csv"])
        self.upload = pn.widgets.FileInput(accept=".csv,.tsv,.txt", width=340,
                                           css_classes=["bcm-cmp-file"])
        self.truth = labelled(pn.widgets.Select, "true labels", options=[], width=110,
                              css_classes=["bcm-cmp-truth"])
        self.pred_a = labelled(pn.widgets.Select, "A's predictions", options=[], width=110,
                               css_classes=["bcm-cmp-pred-a"])
        self.pred_b = labelled(pn.widgets.Select, "B's predictions", options=[], width=110,
                               css_classes=["bcm-cmp-pred-b"])
        self.positive = text_input("positive class", "1", "bcm-cmp-positive", width=120)
        self.metrics = labelled(pn.widgets.MultiChoice, "metrics", options=list(METRICS),
                                value=["tpr", "tnr", "acc", "bm"], width=340,
                                css_classes=["bcm-cmp-metrics"])
        self.seed = text_input("random seed", "1", "bcm-cmp-seed", width=110)
        self.draws = text_input("draws per chain", "5000", "bcm-cmp-draws", width=130)
        errors = {"input": error_alert("cmp-input"), "run": error_alert("cmp")}
        self.summary = pn.pane.HTML("", css_classes=["bcm-cmp-summary"],
                                    sizing_mode="stretch_width")
        self.figure = pn.pane.PNG(None, css_classes=["bcm-cmp-figure"], visible=False,
                                  sizing_mode="scale_width", max_width=980)
        self.separate_view = pn.Column(*(pn.Row(*self.cells[w].values()) for w in ("a", "b")))
        self.paired_view = pn.Column(self.table, self.upload, pn.Row(
            self.truth, self.pred_a, self.pred_b), self.positive, visible=False)
        button = run_button("Compare", "bcm-cmp-run")
        self.setup(button, errors)
        results = pn.Column(self.notes, self.summary, self.figure, sizing_mode="stretch_width",
                            styles={"flex": "1 1 560px"}, min_width=420)
        self.busy = results
        inputs = pn.Column(
            pn.pane.Markdown("Two classifiers A and B: on **two test sets** each matrix is "
                             "fitted on its own; on **one test set** the paired model keeps "
                             "the correlation of their errors.", width=380),
            self.mode, self.separate_view, self.paired_view,
            pn.Row(self.seed, self.draws), errors["input"], button, self.status,
            errors["run"], option_card("Metrics compared", "bcm-cmp-card-metrics", self.metrics),
            width=390)
        self.view = pn.FlexBox(inputs, results, flex_wrap="wrap", sizing_mode="stretch_width")
        self.mode.param.watch(lambda _: self._refresh(), "value")
        self.table.param.watch(lambda _: self._columns(), "value")
        self.upload.param.watch(lambda e: self.load_upload(e.new), "value")
        self._columns()

    def _refresh(self) -> None:
        paired = self.mode.value == "paired"
        self.separate_view.visible, self.paired_view.visible = not paired, paired

    def _columns(self) -> None:
        try:
            header = csv_columns(self.table.value, "the labels table", field="input")
        except InputError:
            return
        for widget, position in ((self.truth, 0), (self.pred_a, 1), (self.pred_b, 2)):
            widget.options = header
            if widget.value not in header:
                widget.value = header[min(position, len(header) - 1)]

    def prepare(self) -> CompareJob:
        """Read the fields."""
        metrics = tuple(self.metrics.value)
        if not metrics:
            raise InputError("choose at least one metric.", "input")
        draws = parse_whole(self.draws.value, "draws per chain", 1, MAX_DRAWS, field="input")
        seed = parse_whole(self.seed.value, "the random seed", 0, 2**32 - 1, field="input")
        if self.mode.value == "separate":
            from bayescm.core.confusion import ConfusionMatrix

            cms = {}
            for who, cells in self.cells.items():
                counts = {k: parse_count(w.value, f"{who.upper()}'s {CELLS[k][0]}",
                                         field="input") for k, w in cells.items()}
                try:
                    cms[who] = ConfusionMatrix.from_counts(
                        tp=counts["tp"], fn=counts["fn"], tn=counts["tn"], fp=counts["fp"])
                except (ValueError, TypeError, OverflowError) as err:
                    raise InputError(str(err), "input") from None
            return CompareJob(metrics, draws, seed, a=cms["a"], b=cms["b"])
        names = [self.truth.value, self.pred_a.value, self.pred_b.value]
        if len(set(names)) < 3 or not all(names):
            raise InputError("choose three different columns (the truth, A and B).", "input")
        truth, pred_a, pred_b = text_columns(self.table.value, names, "the labels table",
                                             field="input")
        positive = str(self.positive.value).strip() or None
        return CompareJob(metrics, draws, seed, truth=tuple(truth), pred_a=tuple(pred_a),
                          pred_b=tuple(pred_b), positive=positive)

    def compute(self, job: CompareJob) -> tuple[bool, pd.DataFrame, bytes]:
        """Fit and compare (in the worker); the first item says whether it was paired."""
        return (job.a is None, *job.run())

    def show(self, result: tuple[bool, pd.DataFrame, bytes]) -> None:
        """Put the comparison on the page."""
        paired, table, figure = result
        caption = ("A - B on the same test set: the difference, its 95 % HDI and the "
                   "probability that each is better" if paired else
                   "A against B: posterior means, 95 % HDIs and the probability that each is "
                   "better")
        self.summary.object = table_html(table, caption=caption)
        self.figure.object, self.figure.visible = figure, True
        self.status.object = "Done."

    def report(self, err: BaseException) -> None:  # noqa: D102
        self.summary.object = ""
        self.figure.object, self.figure.visible = None, False
        super().report(err)
