"""The "Decision curves" tab: posterior net benefit of risk models across thresholds.

In: a CSV of true labels and risk columns (predicted probabilities), and a range of threshold
probabilities. Out: the decision curve of each model with its bands against treat-all and
treat-none, and a table of the net benefit (point value, posterior mean and HDI), P(useful) and
the EVPI at every 0.05 of the range.

The fit is ``bcm.fit(bcm.Scores(labels, {column: risks, ...}, positive=...), draws=<draws>,
random_seed=<seed>)`` and ``bcm.net_benefit(fit, thresholds=<0.01 grid over the range>)``;
the table is that of ``bayescm dca``
(:func:`bayescm.analyses.decision_tables.net_benefit_table`). Css classes: ``bcm-dca-csv``,
``bcm-dca-file``, ``bcm-dca-label``, ``bcm-dca-columns``, ``bcm-dca-positive``,
``bcm-dca-from``, ``bcm-dca-to``, ``bcm-dca-seed``, ``bcm-dca-draws``, the button
``bcm-dca-run``; results ``bcm-dca-status``, ``bcm-net-benefit``, ``bcm-dca-figure``,
downloads ``bcm-download-nb`` and ``bcm-download-dca``.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np
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
from bayescm.app.parse import InputError, csv_columns, parse_whole, scores_from_csv
from bayescm.app.tables import csv_bytes, table_html

__all__ = ["DecisionJob", "DecisionTab"]

MAX_DECISION_DRAWS = 10_000
"""Most draws per chain on the page."""


def _example() -> str:
    """The decision-curve tutorials' cohort (750 men, two risks) as CSV text."""
    return resources.files("bayescm.data").joinpath("dcurves_df_binary.csv").read_text(
        encoding="utf-8")


def _probability(text: str, what: str) -> float:
    try:
        value = float(str(text).strip())
    except ValueError:
        raise InputError(f"{what} must be a number, got {text!r}.", "input") from None
    if not 0 < value < 1:
        raise InputError(f"{what} must lie strictly between 0 and 1, got {value:g}.", "input")
    return value


@dataclass(frozen=True)
class DecisionJob:
    """A decision-curve fit: the items, the threshold range and the sampling settings.

    Examples
    --------
    >>> from bayescm.app.parse import scores_from_csv
    >>> from bayescm.app.decision_tab import DecisionJob, _example
    >>> data = scores_from_csv(_example(), "cancer", ["famhistory", "cancerpredmarker"])
    >>> table, _ = DecisionJob(data, 0.05, 0.2, draws=100, seed=1).run()
    >>> sorted(set(table.index.get_level_values("threshold")))
    [0.05, 0.1, 0.15, 0.2]
    """

    data: Any
    low: float = 0.01
    high: float = 0.35
    draws: int = 1000
    seed: int = 1

    def thresholds(self) -> np.ndarray:
        """The 0.01 grid from ``low`` to ``high`` (both included)."""
        return np.unique(np.round(np.concatenate([np.arange(self.low, self.high + 1e-9, 0.01),
                                                  [self.low, self.high]]), 10))

    def run(self) -> tuple[pd.DataFrame, bytes]:
        """The table (every 0.05 of the range and its ends) and the decision curve (PNG)."""
        from bayescm.analyses.decision import net_benefit
        from bayescm.analyses.decision_tables import net_benefit_table
        from bayescm.models.fitting import fit
        from bayescm.plots import plot_decision_curve

        idata = fit(self.data, draws=self.draws, random_seed=self.seed)
        grid = self.thresholds()
        nb = net_benefit(idata, thresholds=grid)
        table = net_benefit_table(nb)
        shown = grid[np.isclose((grid * 100) % 5, 0) | np.isclose((grid * 100) % 5, 5)
                     | np.isin(grid, [grid[0], grid[-1]])]
        table = table[table.index.get_level_values("threshold").isin(shown)]
        figure = single_png(lambda ax: plot_decision_curve(nb, ax=ax), size=(6.4, 4.6))
        return table, figure


class DecisionTab(Controller):
    """The decision-curve tab; :meth:`run` (the button) fits and shows.

    Examples
    --------
    >>> from bayescm.app.decision_tab import DecisionTab
    >>> tab = DecisionTab()
    >>> tab.label.value, tab.columns.value
    ('cancer', ['famhistory', 'cancerpredmarker'])
    >>> tab.draws.value = "100"
    >>> tab.run()
    True
    >>> tab.high.value = "1.5"
    >>> tab.run(), tab.last_error
    (False, 'The highest threshold must lie strictly between 0 and 1, got 1.5.')
    """

    action = "Fitting"
    css = "bcm-dca"

    def __init__(self) -> None:
        self.table = labelled(pn.widgets.TextAreaInput, "risks (CSV with a header row)",
                              value=_example(), height=110, width=340,
                              css_classes=["bcm-dca-csv"])
        self.upload = pn.widgets.FileInput(accept=".csv,.tsv,.txt", width=340,
                                           css_classes=["bcm-dca-file"])
        self.label = labelled(pn.widgets.Select, "column of the true labels", options=[],
                              width=200, css_classes=["bcm-dca-label"])
        self.columns = labelled(pn.widgets.MultiChoice, "risk columns (probabilities in "
                                "[0, 1])", options=[], width=340,
                                css_classes=["bcm-dca-columns"])
        self.positive = text_input("positive label (default 1 for 0/1 labels)", "",
                                   "bcm-dca-positive", width=250)
        self.low = text_input("lowest threshold", "0.01", "bcm-dca-from", width=120)
        self.high = text_input("highest threshold", "0.35", "bcm-dca-to", width=120)
        self.seed = text_input("random seed", "1", "bcm-dca-seed", width=110)
        self.draws = text_input("draws per chain (4 chains)", "1000", "bcm-dca-draws",
                                width=170)
        errors = {"input": error_alert("dca-input"), "run": error_alert("dca")}
        self.result: tuple[pd.DataFrame, bytes] | None = None
        self.nb = pn.pane.HTML("", css_classes=["bcm-net-benefit"], sizing_mode="stretch_width")
        self.figure = pn.pane.PNG(None, css_classes=["bcm-dca-figure"], visible=False,
                                  sizing_mode="scale_width", max_width=680)
        self.downloads = [download("net benefit (CSV)", "bayescm-net-benefit.csv",
                                   self._table_file, "bcm-download-nb"),
                          download("decision curve (PNG)", "bayescm-decision-curve.png",
                                   self._figure_file, "bcm-download-dca")]
        button = run_button("Fit decision curves", "bcm-dca-run")
        self.setup(button, errors)
        results = pn.Column(self.notes, self.figure, self.nb, pn.Row(*self.downloads),
                            sizing_mode="stretch_width", styles={"flex": "1 1 520px"},
                            min_width=420)
        self.busy = results
        inputs = pn.Column(
            pn.pane.Markdown("One row per person: the true outcome and each model's predicted "
                             "risk. A person is treated when the risk is at least the "
                             "threshold t (as in dcurves). The example is the decision-curve "
                             "tutorials' cohort (750 men referred for biopsy). Each posterior "
                             "draw is a whole curve, so the bands hold across thresholds.",
                             width=380),
            self.table, self.upload, self.label, self.columns, pn.Row(self.low, self.high),
            errors["input"], button, self.status, errors["run"],
            option_card("Sampling (seed, draws)", "bcm-dca-card-sampling",
                        pn.Row(self.seed, self.draws)),
            option_card("Positive label", "bcm-dca-card-positive", self.positive), width=390)
        self.view = pn.FlexBox(inputs, results, flex_wrap="wrap", sizing_mode="stretch_width")
        self.table.param.watch(lambda _: self._header(), "value")
        self.upload.param.watch(lambda e: self.load_upload(e.new), "value")
        self._header()

    def _header(self) -> None:
        """Offer the file's columns: a label-like name as the label, the rest as risks."""
        try:
            header = csv_columns(self.table.value, field="input")
        except InputError:
            return
        self.label.options = header
        self.columns.options = header
        if self.label.value not in header:
            self.label.value = next((c for c in header if c.lower() in (
                "cancer", "label", "y", "outcome", "event", "disease", "truth")), header[0])
        self.columns.value = [c for c in header if c != self.label.value and c.lower() not in (
            "id", "patientid", "person", "item", "name")] if len(header) > 1 else []

    def prepare(self) -> DecisionJob:
        """Read the fields."""
        data = scores_from_csv(self.table.value, str(self.label.value or ""),
                               list(self.columns.value), str(self.positive.value),
                               field="input")
        for name, s in data.scores.items():
            if np.any(s < 0) or np.any(s > 1):
                raise InputError(f"column {name!r} holds {s.min():g} to {s.max():g}; decision "
                                 "curves need risks (probabilities in [0, 1]).", "input")
        low = _probability(self.low.value, "the lowest threshold")
        high = _probability(self.high.value, "the highest threshold")
        if high < low:
            raise InputError(f"the highest threshold ({high:g}) is below the lowest "
                             f"({low:g}).", "input")
        draws = parse_whole(self.draws.value, "draws per chain", 1, MAX_DECISION_DRAWS,
                            field="input")
        seed = parse_whole(self.seed.value, "the random seed", 0, 2**32 - 1, field="input")
        return DecisionJob(data, low, high, draws, seed)

    def compute(self, job: DecisionJob) -> tuple[pd.DataFrame, bytes]:
        """Fit (in the worker)."""
        return job.run()

    def show(self, result: tuple[pd.DataFrame, bytes]) -> None:
        """Put the curve and the table on the page."""
        self.result = result
        table, figure = result
        shown = table.copy()
        shown.index = pd.Index([f"{m} @ {t:g}" for m, t in table.index], name="model @ t")
        self.nb.object = table_html(shown, caption=(
            "Net benefit (true positives per person; 95 % HDI), P(the model beats treat-all "
            "and treat-none), treat-all and the expected value of perfect information"))
        self.figure.object, self.figure.visible = figure, True
        for button in self.downloads:
            button.disabled = False
        self.status.object = "Done."

    def report(self, err: BaseException) -> None:  # noqa: D102
        self.result = None
        self.nb.object = ""
        self.figure.object, self.figure.visible = None, False
        for button in self.downloads:
            button.disabled = True
        super().report(err)

    def _table_file(self) -> io.BytesIO | None:
        return None if self.result is None else io.BytesIO(csv_bytes(self.result[0]))

    def _figure_file(self) -> io.BytesIO | None:
        return None if self.result is None else io.BytesIO(self.result[1])
