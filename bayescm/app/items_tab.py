"""The "Evaluation log" tab: accuracy of LLM-style systems from an item-level log.

In: a CSV with one row per outcome (one attempt of one system on one item) and the columns of
the outcome, the item and, optionally, the cluster, the system and the attempt. Out: each
system's accuracy on a new item beside the naive and the CR1 intervals, the design effect,
every paired difference with P(B > A), and the accuracy figure.

The fit is ``bcm.fit(bcm.Items(frame, outcome=..., item=..., cluster=..., system=...,
attempt=...), draws=<draws>, random_seed=<seed>)`` (NUTS, 4 chains); the tables are those of
``bayescm eval`` (:func:`bayescm.analyses.items_tables.eval_tables`). Css classes:
``bcm-items-csv``, ``bcm-items-file``, ``bcm-items-outcome``, ``bcm-items-item``,
``bcm-items-cluster``, ``bcm-items-system``, ``bcm-items-attempt``, ``bcm-items-seed``,
``bcm-items-draws``, the button ``bcm-items-run``; results ``bcm-items-status``,
``bcm-items-warning``, ``bcm-items-accuracy``, ``bcm-items-diff``, ``bcm-items-figure``,
downloads ``bcm-download-eval`` and ``bcm-download-items-figure``.
"""

from __future__ import annotations

import io
import warnings
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

import pandas as pd
import panel as pn  # type: ignore[import-not-found, unused-ignore]

from bayescm.app.controller import (
    Controller,
    download,
    error_alert,
    labelled,
    run_button,
    text_input,
)
from bayescm.app.figures import single_png
from bayescm.app.parse import InputError, csv_columns, items_from_csv, parse_whole
from bayescm.app.tables import csv_bytes, table_html

__all__ = ["ItemsJob", "ItemsTab"]

MAX_ITEMS_DRAWS = 5_000
"""Most NUTS draws per chain of an items fit on the page."""
NONE = "(none)"
"""The choice of an optional column that the log does not have."""
GUESSES = {"outcome": ("correct", "outcome", "is_correct", "score", "right", "y"),
           "item": ("item", "item_id", "question", "question_id", "id", "sample_id"),
           "cluster": ("cluster", "passage", "subdomain", "topic", "task", "document",
                       "group"),
           "system": ("system", "model", "model_name", "classifier", "agent"),
           "attempt": ("attempt", "epoch", "sample", "run", "repeat", "trial")}
"""Column names each role takes when a log is pasted or uploaded (the first match, in case)."""


def _example() -> str:
    """The packaged simulated log (3 systems, 198 questions in 16 subdomains, 5 attempts)."""
    return resources.files("bayescm.data").joinpath("eval_log.csv").read_text(
        encoding="utf-8")


def _fit(data: Any, **kwargs: Any) -> Any:
    """The fit of the log (one place, so tests can stand in a fit without NUTS)."""
    from bayescm.models.fitting import fit

    return fit(data, **kwargs)


@dataclass(frozen=True)
class ItemsJob:
    """An items fit: the log, the sampling settings and the log's own notes.

    Examples
    --------
    >>> from bayescm.app.items_tab import ItemsJob
    >>> from bayescm.models.items import ItemsModel
    >>> import bayescm as bcm
    >>> log = bcm.Items(ItemsModel.example_frame(), cluster="passage", system="system")
    >>> systems, pairs, png, notes = ItemsJob(log, draws=200, seed=1).run()
    >>> list(systems.index), list(pairs.index), png[:4]
    (['A', 'B'], ['B - A'], b'\\x89PNG')
    """

    data: Any
    draws: int = 1000
    seed: int = 1
    notes: tuple[str, ...] = field(default=())

    def run(self) -> tuple[pd.DataFrame, pd.DataFrame, bytes, tuple[str, ...]]:
        """The systems' and the pairs' tables, the accuracy figure (PNG) and the notes."""
        from bayescm.analyses.items_tables import eval_tables
        from bayescm.plots import plot_items_accuracy

        idata = _fit(self.data, draws=self.draws, random_seed=self.seed)
        systems, pairs = eval_tables(idata)
        rows = len(systems)
        figure = single_png(lambda ax: plot_items_accuracy(idata, ax=ax),
                            size=(6.0, 2.6 + 0.55 * rows))
        return systems, pairs, figure, self.notes


class ItemsTab(Controller):
    """The evaluation-log tab; :meth:`run` (the button) fits and shows.

    Examples
    --------
    >>> from bayescm.app.items_tab import ItemsTab
    >>> tab = ItemsTab()
    >>> [tab.roles[r].value for r in ("outcome", "item", "cluster", "system", "attempt")]
    ['correct', 'question', 'subdomain', 'model', 'epoch']
    >>> tab.table.value = "q,ok\\nq1,1\\nq2,maybe\\n"
    >>> tab.roles["outcome"].value = "ok"
    >>> tab.run(), tab.last_error  # doctest: +ELLIPSIS
    (False, "Column 'ok': 'maybe' is not an outcome (0 or 1, True or False) at line 3; ...")
    """

    action = "Fitting (NUTS)"
    css = "bcm-items"

    def __init__(self) -> None:
        self.table = labelled(pn.widgets.TextAreaInput, "evaluation log (CSV, one row per "
                              "outcome)", value=_example(), height=130, width=340,
                              css_classes=["bcm-items-csv"])
        self.upload = pn.widgets.FileInput(accept=".csv,.tsv,.txt", width=340,
                                           css_classes=["bcm-items-file"])
        labels = {"outcome": "outcome column", "item": "item column",
                  "cluster": "cluster column", "system": "system column",
                  "attempt": "attempt column"}
        self.roles = {role: labelled(pn.widgets.Select, text, options=[], width=165,
                                     css_classes=[f"bcm-items-{role}"])
                      for role, text in labels.items()}
        self.seed = text_input("random seed", "1", "bcm-items-seed", width=110)
        self.draws = text_input("draws per chain (4 chains, NUTS)", "1000",
                                "bcm-items-draws", width=200)
        errors = {"input": error_alert("items-input"), "run": error_alert("items")}
        self.result: tuple[pd.DataFrame, pd.DataFrame, bytes, tuple[str, ...]] | None = None
        self.accuracy = pn.pane.HTML("", css_classes=["bcm-items-accuracy"],
                                     sizing_mode="stretch_width")
        self.differences = pn.pane.HTML("", css_classes=["bcm-items-diff"], visible=False,
                                        sizing_mode="stretch_width")
        self.figure = pn.pane.PNG(None, css_classes=["bcm-items-figure"], visible=False,
                                  sizing_mode="scale_width", max_width=640)
        self.downloads = [download("Accuracies (CSV)", "bayescm-eval.csv", self._eval_file,
                                   "bcm-download-eval"),
                          download("Figure (PNG)", "bayescm-accuracy.png", self._figure_file,
                                   "bcm-download-items-figure")]
        button = run_button("Fit the log", "bcm-items-run")
        self.setup(button, errors)
        results = pn.Column(self.notes, self.accuracy, self.differences, self.figure,
                            pn.Row(*self.downloads), sizing_mode="stretch_width",
                            styles={"flex": "1 1 520px"}, min_width=420)
        self.busy = results
        r = self.roles
        inputs = pn.Column(
            pn.pane.Markdown("One row per answer: the item, the outcome (1 right, 0 wrong) "
                             "and, if the log has them, the cluster (passage, task), the "
                             "system and the attempt (epoch). The example: a simulated "
                             "GPQA-like log, 3 systems x 198 questions x 5 attempts.",
                             width=380),
            self.table, self.upload, pn.Row(r["outcome"], r["item"]),
            pn.Row(r["cluster"], r["system"]), pn.Row(r["attempt"], self.seed), self.draws,
            errors["input"], button, self.status, errors["run"], width=390)
        self.view = pn.FlexBox(inputs, results, flex_wrap="wrap", sizing_mode="stretch_width")
        self.table.param.watch(lambda _: self._header(), "value")
        self.upload.param.watch(lambda e: self.load_upload(e.new), "value")
        self._header()

    def _header(self) -> None:
        """Offer the file's columns; guess each role from the names (optional ones may be none)."""
        try:
            header = csv_columns(self.table.value, field="input")
        except InputError:
            return
        lower = {c.lower(): c for c in header}
        for role, widget in self.roles.items():
            optional = role in ("cluster", "system", "attempt")
            widget.options = [NONE, *header] if optional else list(header)
            if widget.value in widget.options and widget.value != NONE:
                continue
            guess = next((lower[g] for g in GUESSES[role] if g in lower), None)
            widget.value = guess if guess is not None else (NONE if optional else header[0])

    def _column(self, role: str) -> str | None:
        value = self.roles[role].value
        return None if value in (None, "", NONE) else str(value)

    def prepare(self) -> ItemsJob:
        """Read the fields and the log (its warnings become notes beside the results)."""
        draws = parse_whole(self.draws.value, "draws per chain", 1, MAX_ITEMS_DRAWS,
                            field="input")
        seed = parse_whole(self.seed.value, "the random seed", 0, 2**32 - 1, field="input")
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            data = items_from_csv(self.table.value, self._column("outcome") or "",
                                  self._column("item") or "", self._column("cluster"),
                                  self._column("system"), self._column("attempt"),
                                  field="input")
        notes = tuple(dict.fromkeys(str(w.message) for w in caught))
        return ItemsJob(data, draws, seed, notes)

    def compute(self, job: ItemsJob) -> tuple[pd.DataFrame, pd.DataFrame, bytes,
                                              tuple[str, ...]]:
        """Fit (in the worker)."""
        return job.run()

    def show(self, result: tuple[pd.DataFrame, pd.DataFrame, bytes, tuple[str, ...]]) -> None:
        """Put the tables and the figure on the page; the log's notes join the fit's."""
        from bayescm.app.controller import set_message

        self.result = result
        systems, pairs, figure, notes = result
        prob = systems.attrs.get("hdi_prob", 0.95)
        if notes:
            self.warnings = [*notes, *self.warnings]
            set_message(self.notes, "\n\n".join(f"Note: {m}" for m in self.warnings))
        self.accuracy.object = table_html(
            systems, caption=f"Accuracy on a new item ({100 * prob:g} % HDI) beside the naive "
                             "interval (every attempt independent) and the cluster-robust CR1 "
                             "interval")
        self.differences.visible = len(pairs) > 0
        self.differences.object = table_html(
            pairs, caption="Accuracy difference B - A on the same items, P(B > A) and the "
                           "paired CR1 interval") if len(pairs) else ""
        self.figure.object, self.figure.visible = figure, True
        for button in self.downloads:
            button.disabled = False
        self.status.object = "Done."

    def report(self, err: BaseException) -> None:  # noqa: D102
        self.result = None
        self.accuracy.object, self.differences.object = "", ""
        self.differences.visible = False
        self.figure.object, self.figure.visible = None, False
        for button in self.downloads:
            button.disabled = True
        super().report(err)

    def _eval_file(self) -> io.BytesIO | None:
        if self.result is None:
            return None
        from bayescm.analyses.items_tables import stack_tables

        systems, pairs, _, _ = self.result
        return io.BytesIO(csv_bytes(stack_tables(systems, pairs)))

    def _figure_file(self) -> io.BytesIO | None:
        return None if self.result is None else io.BytesIO(self.result[2])
