"""The "Compare two classifiers" tab's second form: folds, seeds or runs of one or two procedures.

Cross-validation (or retraining with several seeds) gives one confusion matrix per run. The form
takes them as one row per cell, ``run, true, predicted, count`` (the layout of ``bayescm
runs``; a cell without a row is 0), with an optional column ``procedure`` naming two procedures
on the same runs. It fits the hierarchical model over the runs (NUTS) and shows, per metric,
the pooled value, the between-run spread and a new run's interval; with two procedures also
their paired differences run by run (:func:`bayescm.compare_runs`), and each procedure's
forest of the runs.

Css classes: ``bcm-runs-table`` (the pasted table), ``bcm-runs-draws``, the button
``bcm-runs-run``; results ``bcm-runs-status``, ``bcm-runs-summary`` and ``bcm-runs-figure``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd
import panel as pn  # type: ignore[import-not-found, unused-ignore]

from bayescm.app.controller import Controller, error_alert, labelled, run_button, text_input
from bayescm.app.figures import png
from bayescm.app.parse import _read, _table, parse_whole
from bayescm.app.tables import table_html

__all__ = ["EXAMPLE", "MAX_RUNS_DRAWS", "RunsForm", "RunsJob", "runs_from_csv"]


def _example() -> str:
    rows = ["procedure,run,true,predicted,count"]
    base = [[[40, 6, 2], [5, 30, 7], [1, 6, 33]], [[38, 8, 1], [6, 28, 8], [2, 5, 34]],
            [[42, 4, 3], [4, 33, 5], [1, 8, 30]], [[37, 7, 3], [7, 29, 6], [0, 6, 35]]]
    for name, shift in (("baseline", 0), ("augmented", 4)):
        for f, matrix in enumerate(base):
            for i, row in enumerate(matrix):
                for j, c in enumerate(row):
                    rows.append(f"{name},fold{f + 1},{'abc'[i]},{'abc'[j]},"
                                f"{c + shift * (i == j)}")
    return "\n".join(rows) + "\n"


EXAMPLE = _example()
"""Two procedures of a three-class classifier on the same four folds (the second gets four
more items of each class right in every fold)."""
MAX_RUNS_DRAWS = 5000
"""Most NUTS draws per chain of a runs fit on the page."""
PROCEDURE = "procedure"
"""The optional column naming two procedures."""


def runs_from_csv(text: str, *, field: str = "input") -> dict[str, dict[str, Any]]:
    """The runs of a pasted table: ``{procedure: {run: ConfusionMatrix}}`` (one: ``""``).

    Examples
    --------
    >>> from bayescm.app.runs_form import EXAMPLE, runs_from_csv
    >>> runs = runs_from_csv(EXAMPLE)
    >>> list(runs), len(runs["baseline"])
    (['baseline', 'augmented'], 4)
    """
    from bayescm.io.readers import runs_from_table

    table = _table(text, "the table", field)
    procedure = PROCEDURE if PROCEDURE in table.header else None
    read = _read(lambda: runs_from_table(table, procedure=procedure), "the table", field)
    return read


@dataclass(frozen=True)
class RunsJob:
    """The runs to fit: one procedure, or two on the same runs.

    Examples
    --------
    >>> from bayescm.app.runs_form import EXAMPLE, RunsJob, runs_from_csv
    >>> job = RunsJob(runs_from_csv(EXAMPLE), draws=200)
    >>> job.metrics
    ['acc', 'f1_macro', 'tpr_macro']
    """

    procedures: dict[str, dict[str, Any]]
    draws: int = 500
    seed: int = 1

    @property
    def metrics(self) -> list[str]:
        """The metrics shown: those ``bayescm runs`` prints by default."""
        from bayescm.cli_runs import BINARY_METRICS, MULTICLASS_METRICS
        from bayescm.metrics.catalogue import resolve_metrics
        from bayescm.models import registry

        first = next(iter(next(iter(self.procedures.values())).values()))
        kind = registry.for_data(first)
        names = BINARY_METRICS if first.is_binary else MULTICLASS_METRICS
        return [m.name for m in resolve_metrics(list(names), kind.catalogue, kind.name)]

    def run(self) -> tuple[dict[str, pd.DataFrame], pd.DataFrame | None, list[bytes]]:
        """Each procedure's table, the differences (two procedures) and the forests (PNG)."""
        from bayescm.cli_runs import runs_table
        from bayescm.core.streams import child, seed_sequence
        from bayescm.io.runner import pooled_figure
        from bayescm.io.spec_runs import compare_table

        metrics = self.metrics
        root = seed_sequence(self.seed)
        trees = {name: _fit(runs, draws=self.draws, group="fold", metrics=metrics,
                            random_seed=child(root, i))
                 for i, (name, runs) in enumerate(self.procedures.items())}
        tables = {name: runs_table(tree, metrics) for name, tree in trees.items()}
        a, *b = trees.values()
        compared = compare_table(a, b[0], tuple(metrics)) if b else None
        figures = [png(pooled_figure(tree, "forest", metrics[:2])) for tree in trees.values()]
        return tables, compared, figures


def _fit(data: Any, **kwargs: Any) -> Any:
    """The fit of one procedure's runs (one place, so tests can stand in a fit without NUTS)."""
    import bayescm as bcm

    return bcm.fit(data, model="hierarchical", **kwargs)


class RunsForm(Controller):
    """The folds-and-runs form; :meth:`run` (its button) fits and shows.

    Examples
    --------
    >>> from bayescm.app.runs_form import RunsForm
    >>> form = RunsForm()
    >>> form.table.value = "run,true,predicted,count\\nf1,a,a,3\\nf1,a,a,4\\n"
    >>> form.run(), "twice" in form.last_error
    (False, True)
    """

    action = "Fitting the runs"
    css = "bcm-runs"

    def __init__(self) -> None:
        self.table = labelled(pn.widgets.TextAreaInput, "runs (CSV: run, true, predicted, "
                              "count; optional procedure)", value=EXAMPLE,
                              css_classes=["bcm-runs-table"], width=370, height=120)
        self.draws = text_input("draws per chain (4 chains, NUTS)", "500", "bcm-runs-draws",
                                width=200)
        errors = {"input": error_alert("runs-input"), "draws": error_alert("runs-draws"),
                  "run": error_alert("runs")}
        self.summary = pn.pane.HTML("", css_classes=["bcm-runs-summary"],
                                    sizing_mode="stretch_width")
        self.figure = pn.Row(css_classes=["bcm-runs-figure"], visible=False,
                             sizing_mode="stretch_width")
        button = run_button("Fit the runs", "bcm-runs-run")
        self.setup(button, errors)
        results = pn.Column(self.notes, self.summary, self.figure, sizing_mode="stretch_width",
                            styles={"flex": "1 1 520px"}, min_width=420)
        self.busy = results
        inputs = pn.Column(
            pn.pane.Markdown(
                "**Folds, seeds and runs.** One confusion matrix per run of a classifier "
                "(cross-validation folds, training seeds), one row per cell. The fit pools "
                "the runs: the pooled metric, its spread between runs and a new run's "
                "interval. A column *procedure* naming two procedures on the same runs adds "
                "their differences run by run (paired: what a fold does to both cancels).",
                width=380),
            self.table, errors["input"], self.draws, errors["draws"], button, self.status,
            errors["run"], width=390)
        self.view = pn.FlexBox(inputs, results, flex_wrap="wrap", sizing_mode="stretch_width")

    def prepare(self) -> RunsJob:
        """Read the table and the draws."""
        draws = parse_whole(self.draws.value, "draws per chain", 1, MAX_RUNS_DRAWS,
                            field="draws")
        return RunsJob(runs_from_csv(str(self.table.value or "")), draws=draws)

    def compute(self, job: RunsJob) -> tuple[dict[str, pd.DataFrame], pd.DataFrame | None,
                                             list[bytes]]:
        """Fit (in the worker)."""
        return job.run()

    def show(self, result: tuple[dict[str, pd.DataFrame], pd.DataFrame | None, list[bytes]]
             ) -> None:
        """Put the tables and the forests on the page."""
        tables, compared, figures = result
        parts = [table_html(t, caption=f"{name + ': ' if name else ''}pooled (the mean run), "
                                       "spread (SD between runs) and a new run")
                 for name, t in tables.items()]
        if compared is not None:
            a, b = tables
            parts.append(table_html(compared, caption=f"Difference {a} - {b} run by run "
                                                      "(paired: the same runs)"))
        self.summary.object = "".join(parts)
        self.figure.objects = [pn.pane.PNG(f, sizing_mode="scale_width", max_width=520)
                               for f in figures]
        self.figure.visible = True
        self.status.object = "Done."

    def report(self, err: BaseException) -> None:  # noqa: D102
        self.summary.object = ""
        self.figure.objects, self.figure.visible = [], False
        super().report(err)
