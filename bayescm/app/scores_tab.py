"""The "Scores and ROC" tab: posterior ROC curves and AUCs of scored test items.

In: a CSV of true labels and score columns. Out: the posterior ROC curve with its bands, each
AUC and, for several columns, the paired AUC differences.

The fit is ``bcm.fit(bcm.Scores(labels, {column: scores, ...}, positive=...), draws=<draws>,
random_seed=<seed>)`` (the default Dirichlet-process posterior); the tables are those of
``bayescm roc`` (:func:`bayescm.cli_roc.auc_tables`). Css classes: ``bcm-scores-csv``,
``bcm-scores-file``,
``bcm-scores-label``, ``bcm-scores-columns``, ``bcm-scores-positive``, ``bcm-scores-seed``,
``bcm-scores-draws``, the button ``bcm-scores-run``; results ``bcm-scores-status``,
``bcm-scores-warning``, ``bcm-auc``, ``bcm-auc-diff``,
``bcm-roc-figure``, downloads ``bcm-download-auc`` and ``bcm-download-roc``.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from importlib import resources
from typing import Any

import pandas as pd
import panel as pn  # type: ignore[import-not-found, unused-ignore]

from bayescm.app.controller import (
    Controller,
    download,
    error_alert,
    labelled,
    option_card,
    run_button,
    text_input,
)
from bayescm.app.figures import single_png
from bayescm.app.parse import (
    InputError,
    csv_columns,
    parse_whole,
    scores_from_csv,
)
from bayescm.app.tables import csv_bytes, table_html

__all__ = ["ScoresJob", "ScoresTab"]

MAX_SCORE_DRAWS = 10_000
"""Most draws per chain of a scores fit on the page (each draw weighs every item)."""
_LABEL_NAMES = ("label", "labels", "y", "y_true", "truth", "target", "class", "disease",
                "outcome")


def _example() -> str:
    """The packaged screening study (600 people, two risk scores) as CSV text."""
    return resources.files("bayescm.data").joinpath("screening_scores.csv").read_text(
        encoding="utf-8")


@dataclass(frozen=True)
class ScoresJob:
    """A scores fit: the items and the sampling settings.

    Examples
    --------
    >>> from bayescm.app.parse import scores_from_csv
    >>> from bayescm.app.scores_tab import ScoresJob, _example
    >>> data = scores_from_csv(_example(), "disease", ["score_standard", "score_new"])
    >>> aucs, deltas, _ = ScoresJob(data, draws=200, seed=1).run()
    >>> list(aucs.index), list(deltas.index)
    (['score_standard', 'score_new'], ['score_new - score_standard'])
    """

    data: Any
    draws: int = 1000
    seed: int = 1

    def run(self) -> tuple[pd.DataFrame, pd.DataFrame, bytes]:
        """AUCs, AUC differences and the ROC figure (PNG)."""
        from bayescm.cli_roc import auc_tables
        from bayescm.models.fitting import fit
        from bayescm.plots import plot_roc

        idata = fit(self.data, draws=self.draws, random_seed=self.seed)
        aucs, deltas = auc_tables(idata)
        figure = single_png(lambda ax: plot_roc(idata, ax=ax), size=(6.0, 5.2))
        return aucs, deltas, figure


class ScoresTab(Controller):
    """The scores tab; :meth:`run` (the button) fits and shows.

    Examples
    --------
    >>> from bayescm.app.scores_tab import ScoresTab
    >>> tab = ScoresTab()
    >>> tab.label.value, tab.columns.value
    ('disease', ['score_standard', 'score_new'])
    >>> tab.draws.value = "200"
    >>> tab.run()
    True
    >>> tab.table.value = "a,b\\n1,x\\n0,0.5\\n"
    >>> tab.run(), tab.last_error
    (False, "The file, line 2, column 'b': 'x' is not a number.")
    """

    action = "Fitting"
    css = "bcm-scores"

    def __init__(self) -> None:
        self.table = labelled(pn.widgets.TextAreaInput, "scores (CSV with a header row)",
                              value=_example(), height=130, width=340,
                              css_classes=["bcm-scores-csv"])
        self.upload = pn.widgets.FileInput(accept=".csv,.tsv,.txt", width=340,
                                           css_classes=["bcm-scores-file"])
        self.label = labelled(pn.widgets.Select, "column of the true labels", options=[],
                              width=200, css_classes=["bcm-scores-label"])
        self.columns = labelled(pn.widgets.MultiChoice, "score columns (higher = more "
                                "positive)", options=[], width=340,
                                css_classes=["bcm-scores-columns"])
        self.positive = text_input("positive label (default 1 for 0/1 labels)", "",
                                   "bcm-scores-positive", width=250)
        self.seed = text_input("random seed", "1", "bcm-scores-seed", width=110)
        self.draws = text_input("draws per chain (4 chains)", "1000", "bcm-scores-draws",
                                width=170)
        errors = {"input": error_alert("scores-input"), "run": error_alert("scores")}
        self.result: tuple[pd.DataFrame, pd.DataFrame, bytes] | None = None
        self.aucs = pn.pane.HTML("", css_classes=["bcm-auc"], sizing_mode="stretch_width")
        self.deltas = pn.pane.HTML("", css_classes=["bcm-auc-diff"], visible=False,
                                   sizing_mode="stretch_width")
        self.figure = pn.pane.PNG(None, css_classes=["bcm-roc-figure"], visible=False,
                                  sizing_mode="scale_width", max_width=640)
        self.downloads = [download("AUCs (CSV)", "bayescm-auc.csv", self._auc_file,
                                   "bcm-download-auc"),
                          download("ROC curve (PNG)", "bayescm-roc.png", self._roc_file,
                                   "bcm-download-roc")]
        button = run_button("Fit ROC", "bcm-scores-run")
        self.setup(button, errors)
        results = pn.Column(self.notes, self.aucs, self.deltas, self.figure,
                            pn.Row(*self.downloads), sizing_mode="stretch_width",
                            styles={"flex": "1 1 520px"}, min_width=420)
        self.busy = results
        inputs = pn.Column(
            pn.pane.Markdown("One row per test item: its true label and the score of each "
                             "classifier. The example is a simulated screening study of 600 "
                             "people. The posterior (a Dirichlet process over the items, "
                             "with some mass beyond the observed scores) gives the whole ROC "
                             "curve with bands, and each AUC with its HDI.", width=380),
            self.table, self.upload, self.label, self.columns,
            pn.Row(self.seed, self.draws), errors["input"], button, self.status,
            errors["run"], option_card("Positive label", "bcm-scores-card-positive",
                                       self.positive), width=390)
        self.view = pn.FlexBox(inputs, results, flex_wrap="wrap", sizing_mode="stretch_width")
        self.table.param.watch(lambda _: self._header(), "value")
        self.upload.param.watch(lambda e: self.load_upload(e.new), "value")
        self._header()

    def _header(self) -> None:
        """Offer the file's columns: a label-like name as the label, the rest as scores."""
        try:
            header = csv_columns(self.table.value, field="input")
        except InputError:
            return
        self.label.options = header
        self.columns.options = header
        if self.label.value not in header:
            self.label.value = next((c for c in header if c.lower() in _LABEL_NAMES),
                                    header[0])
        self.columns.value = [c for c in header if c != self.label.value and c.lower() not in (
            "id", "person", "item", "name")] if len(header) > 1 else []

    def prepare(self) -> ScoresJob:
        """Read the fields."""
        data = scores_from_csv(self.table.value, str(self.label.value or ""),
                               list(self.columns.value), str(self.positive.value),
                               field="input")
        draws = parse_whole(self.draws.value, "draws per chain", 1, MAX_SCORE_DRAWS,
                            field="input")
        seed = parse_whole(self.seed.value, "the random seed", 0, 2**32 - 1, field="input")
        return ScoresJob(data, draws, seed)

    def compute(self, job: ScoresJob) -> tuple[pd.DataFrame, pd.DataFrame, bytes]:
        """Fit (in the worker)."""
        return job.run()

    def show(self, result: tuple[pd.DataFrame, pd.DataFrame, bytes]) -> None:
        """Put the AUCs and the curve on the page."""
        self.result = result
        aucs, deltas, figure = result
        self.aucs.object = table_html(aucs, caption="AUC of each score (95 % HDI)")
        self.deltas.visible = len(deltas) > 0
        self.deltas.object = table_html(
            deltas, caption="AUC difference B - A on the same items, and P(B > A)"
        ) if len(deltas) else ""
        self.figure.object, self.figure.visible = figure, True
        for button in self.downloads:
            button.disabled = False
        self.status.object = "Done."

    def report(self, err: BaseException) -> None:  # noqa: D102
        self.result = None
        self.aucs.object, self.deltas.object, self.deltas.visible = "", "", False
        self.figure.object, self.figure.visible = None, False
        for button in self.downloads:
            button.disabled = True
        super().report(err)

    def _auc_file(self) -> io.BytesIO | None:
        if self.result is None:
            return None
        aucs, deltas, _ = self.result
        both = pd.concat([aucs.rename(index=lambda k: f"auc[{k}]"),
                          deltas.rename(index=lambda k: f"delta_auc[{k}]")])
        both.index.name = "variable"
        return io.BytesIO(csv_bytes(both))

    def _roc_file(self) -> io.BytesIO | None:
        return None if self.result is None else io.BytesIO(self.result[2])
