"""The "Imperfect labels" tab's second form: a population's metrics from a stratified audit.

A classifier flagged some of a population's items; an auditor labelled a few flagged and a few
unflagged ones. The form takes one row per stratum (``stratum, size, tp, fn, tn, fp``: the
stratum's size in the population and its labelled counts), fits the kind ``"stratified"``
(:class:`bayescm.StratifiedSample`, exact draws) and shows the population's metrics beside the
naive reading of the labelled items as one random sample, and their forest.

Css classes: ``bcm-audit-table`` (the pasted table), the button ``bcm-audit-run``; results
``bcm-audit-status``, ``bcm-audit-summary`` and ``bcm-audit-figure``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd
import panel as pn  # type: ignore[import-not-found, unused-ignore]

from bayescm.app.controller import TableAndFigure, error_alert, labelled, run_button
from bayescm.app.figures import png
from bayescm.app.parse import audit_from_csv

__all__ = ["EXAMPLE", "METRICS", "AuditForm", "AuditJob"]

EXAMPLE = ("stratum,size,tp,fn,tn,fp\n"
           "flagged,3000,150,0,0,50\n"
           "unflagged,997000,0,3,297,0\n")
"""A fraud classifier's audit: 200 of 3,000 flagged and 300 of 997,000 unflagged labelled."""
METRICS = ("prevalence", "tpr", "tnr", "ppv", "npv", "f1", "acc")
"""The metrics shown."""


@dataclass(frozen=True)
class AuditJob:
    """The audit to fit.

    Examples
    --------
    >>> from bayescm.app.audit_form import EXAMPLE, AuditJob
    >>> from bayescm.app.parse import audit_from_csv
    >>> table, figure = AuditJob(audit_from_csv(EXAMPLE)).run()
    >>> bool(table.loc["tpr", "naive"] > 0.9 > table.loc["tpr", "mean"]), figure[:4]
    (True, b'\\x89PNG')
    """

    audit: Any
    seed: int = 0

    def run(self) -> tuple[pd.DataFrame, bytes]:
        """The population's summary with the naive column, and the forest as PNG."""
        import bayescm as bcm
        from bayescm.io.runner import figure
        from bayescm.models.stratified_fit import naive_reading

        idata = bcm.fit(self.audit, draws=2500, random_seed=self.seed, metrics=list(METRICS))
        table = bcm.summary(idata, var_names=list(METRICS))
        table["naive"] = naive_reading(self.audit, table.index)
        return table, png(figure(idata, "forest", list(METRICS)))


class AuditForm(TableAndFigure):
    """The stratified-audit form; :meth:`run` (its button) fits and shows.

    Examples
    --------
    >>> from bayescm.app.audit_form import AuditForm
    >>> form = AuditForm()
    >>> form.run()
    True
    >>> form.table.value = "stratum,size,tp,fn,tn,fp\\na,1,1,0,0,1\\n"
    >>> form.run(), "smaller" in form.last_error
    (False, True)
    """

    action = "Fitting the audit"
    css = "bcm-audit"

    def __init__(self) -> None:
        self.table = labelled(pn.widgets.TextAreaInput, "strata (CSV: stratum, size, tp, fn, "
                              "tn, fp)", value=EXAMPLE, css_classes=["bcm-audit-table"],
                              width=370, height=120)
        errors = {"input": error_alert("audit-input"), "run": error_alert("audit")}
        button = run_button("Fit the audit", "bcm-audit-run")
        self.setup(button, errors)
        results = self.result_panes()
        inputs = pn.Column(
            pn.pane.Markdown(
                "**Stratified audit.** Items were labelled within strata (e.g. flagged and "
                "unflagged) at different rates. Give each stratum's **size** in the population "
                "and its labelled counts; the fit gives the population's metrics. The column "
                "*naive* reads the labelled items as one random sample, which is wrong when the "
                "strata were sampled at different rates.", width=380),
            self.table, errors["input"], button, self.status, errors["run"], width=390)
        self.view = pn.FlexBox(inputs, results, flex_wrap="wrap", sizing_mode="stretch_width")

    def prepare(self) -> AuditJob:
        """Read the table."""
        return AuditJob(audit_from_csv(str(self.table.value or "")))

    def compute(self, job: AuditJob) -> tuple[pd.DataFrame, bytes]:
        """Fit (in the worker)."""
        return job.run()

    def show(self, result: tuple[pd.DataFrame, bytes]) -> None:
        """Put the summary and the forest on the page."""
        table, figure = result
        self.put(table, figure,
                 "The population's metrics (observed: design-weighted); naive: the "
                 "labelled items read as one random sample")

