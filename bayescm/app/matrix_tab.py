"""The "Confusion matrix" tab: from a matrix and priors to the posterior of each metric.

In: the matrix, priors, a deployment prevalence and metrics. Out: the posterior of each metric,
P(informative/deceptive), downloads and the Python code that reproduces the numbers.

The fit is :meth:`bayescm.app.matrixjob.MatrixJob.fit`::

    bcm.fit(bcm.ConfusionMatrix.from_counts(tp=, fn=, tn=, fp=), draws=<draws>,
            random_seed=<seed>[, prior=<overall>][, priors={...}])

and the table ``bcm.summary(idata, var_names=<metrics shown>)``; the page prints the exact call
under the results. Css classes beyond the matrix's (:mod:`bayescm.app.matrix_inputs`) and the
priors' (:mod:`bayescm.app.prior_widgets`): ``bcm-seed``, ``bcm-draws``, ``bcm-deployment``,
``bcm-metrics``, ``bcm-run``; results ``bcm-status``, ``bcm-summary`` (the HTML table),
``bcm-informedness``, ``bcm-figure``, ``bcm-summary-deployed``, ``bcm-figure-deployed``,
``bcm-code``, ``bcm-warning``; downloads ``bcm-download-summary``, ``bcm-download-result``,
``bcm-download-figure``; errors ``bcm-error`` (plus ``bcm-error-<field>``). The optional
settings sit in cards that open on a click (``bcm-card-priors``, ``bcm-card-prevalence``,
``bcm-card-metrics``) under the button, so the matrix, the button and the status line are the
first screen; a message for a field in a card opens it.
"""

from __future__ import annotations

import html
import io
import tempfile
from pathlib import Path
from typing import Any

import panel as pn  # type: ignore[import-not-found, unused-ignore]

from bayescm.app.controller import (
    Controller,
    download,
    error_alert,
    labelled,
    option_card,
    run_button,
    set_message,
    text_input,
)
from bayescm.app.matrix_inputs import MatrixInputs
from bayescm.app.matrixjob import (
    BINARY_METRICS,
    MAX_DRAWS,
    MULTICLASS_METRICS,
    MatrixJob,
    MatrixResult,
)
from bayescm.app.parse import parse_real, parse_shares, parse_whole
from bayescm.app.prior_widgets import PriorsSection
from bayescm.app.tables import csv_bytes, table_html

__all__ = ["MatrixTab"]

_WAITING = "<p><i>Press <b>Analyse</b> to see the posterior of each metric.</i></p>"


def _metric_options(family: str) -> dict[str, str]:
    from bayescm.metrics.catalogue import list_metrics

    table = list_metrics(family)
    return {(str(row["long_name"]) if str(row["long_name"]).split(" ")[0] == name else
             f"{name}: {row['long_name']}"): str(name) for name, row in table.iterrows()}


def _section(title: str, *items: Any) -> Any:
    return pn.Column(pn.pane.Markdown(f"#### {title}", margin=(4, 10, 0, 10)), *items)


class MatrixTab(Controller):
    """The first tab; :meth:`run` (the button) fits and shows.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.app.matrix_tab import MatrixTab
    >>> tab = MatrixTab()
    >>> tab.draws.value = "1000"
    >>> tab.run()
    True
    >>> expected = bcm.summary(bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
    ...                                draws=1000, random_seed=1), var_names=tab.result.job.shown)
    >>> tab.result.table.equals(expected)
    True
    >>> tab.inputs.cells["tp"].value = "-1"
    >>> tab.run(), tab.last_error
    (False, 'TP is negative (-1); a count of samples is 0 or more.')
    """

    action = "Analysing"

    def __init__(self) -> None:
        self.inputs = MatrixInputs()
        self.priors = PriorsSection()
        self.deployment = text_input("deployment prevalence (optional)", "", "bcm-deployment",
                                     width=250, placeholder="e.g. 0.01",
                                     description="the share of positives where the classifier "
                                                 "will be used; PPV and NPV depend on it")
        self.metrics = labelled(pn.widgets.MultiChoice, "metrics shown",
                                options=_metric_options("binary"), value=list(BINARY_METRICS),
                                width=340, css_classes=["bcm-metrics"])
        self.seed = text_input("random seed", "1", "bcm-seed", width=110)
        self.draws = text_input("draws per chain (4 chains)", "5000", "bcm-draws", width=170)
        self.result: MatrixResult | None = None
        errors = {name: error_alert(name) for name in ("matrix", "priors", "prevalence",
                                                        "metrics", "settings", "run")}
        self._family = "binary"
        for widget in (self.inputs.mode, self.inputs.positive, self.inputs.table):
            widget.param.watch(lambda _: self._family_changed(), "value")

        self.summary = pn.pane.HTML(_WAITING, css_classes=["bcm-summary"],
                                    sizing_mode="stretch_width")
        self.informed = pn.pane.Markdown("", css_classes=["bcm-informedness"])
        self.figure = pn.pane.PNG(None, css_classes=["bcm-figure"], sizing_mode="scale_width",
                                  max_width=980, visible=False)
        self.deployed_summary = pn.pane.HTML("", css_classes=["bcm-summary-deployed"],
                                             sizing_mode="stretch_width", visible=False)
        self.deployed_figure = pn.pane.PNG(None, css_classes=["bcm-figure-deployed"],
                                           sizing_mode="scale_width", max_width=980,
                                           visible=False)
        self.code = pn.pane.HTML("", css_classes=["bcm-code"], sizing_mode="stretch_width")
        self.downloads = [
            download("Summary (CSV)", "bayescm-summary.csv", self._summary_file,
                     "bcm-download-summary"),
            download("Result (netCDF)", "bayescm-result.nc", self._result_file,
                     "bcm-download-result"),
            download("Figure (PNG)", "bayescm-metrics.png", self._figure_file,
                     "bcm-download-figure")]
        button = run_button("Analyse", "bcm-run")
        self.setup(button, errors)
        results = pn.Column(
            self.notes, self.informed, self.summary, self.figure,
            self.deployed_summary, self.deployed_figure, pn.Row(*self.downloads), self.code,
            sizing_mode="stretch_width", styles={"flex": "1 1 560px"}, min_width=420)
        self.busy = results
        # the matrix, the sampling and the button first; the optional settings in cards
        self.cards = {
            "priors": option_card("Priors (default: Laplace; 3+ classes: weak)",
                                  "bcm-card-priors", self.priors.view, errors["priors"]),
            "prevalence": option_card("Deployment prevalence", "bcm-card-prevalence",
                                      self.deployment, errors["prevalence"]),
            "metrics": option_card("Metrics shown", "bcm-card-metrics", self.metrics,
                                   errors["metrics"])}
        inputs = pn.Column(
            _section("The test set's confusion matrix", self.inputs.view, errors["matrix"]),
            pn.Row(self.seed, self.draws), errors["settings"],
            button, self.status, errors["run"], *self.cards.values(), width=390)
        self.view = pn.FlexBox(inputs, results, flex_wrap="wrap", sizing_mode="stretch_width")

    # ----------------------------------------------------------------- fields
    def _family_changed(self) -> None:
        family = "binary" if self.inputs.binary() else "multiclass"
        self.priors.set_binary(family == "binary")
        if family == self._family:
            return
        self._family = family  # the metrics differ: start from the family's defaults
        self.metrics.options = _metric_options(family)
        self.metrics.value = list(BINARY_METRICS if family == "binary" else MULTICLASS_METRICS)

    def prepare(self) -> MatrixJob:
        """Read every field into a :class:`~bayescm.app.matrixjob.MatrixJob`."""
        cm, from_cells, notes = self.inputs.read()
        k = int(cm.n_classes)
        overall, priors = self.priors.read(k, bool(cm.is_binary))
        text = str(self.deployment.value).strip()
        deployment: float | tuple[float, ...] | None = None
        if text:
            deployment = (parse_real(text, "the deployment prevalence", 0, 1, open_low=True,
                                     open_high=True, field="prevalence") if cm.is_binary else
                          parse_shares(text, "the deployment prevalence", k, field="prevalence"))
        seed = parse_whole(self.seed.value, "the random seed", 0, 2**32 - 1, field="settings")
        draws = parse_whole(self.draws.value, "draws per chain", 1, MAX_DRAWS, field="settings")
        job = MatrixJob(cm, draws=draws, seed=seed, prior=overall, priors=priors,
                        metrics=tuple(self.metrics.value), deployment=deployment,
                        from_cells=from_cells, notes=tuple(notes))
        return job

    def compute(self, job: MatrixJob) -> MatrixResult:
        """Fit and draw (in the worker)."""
        return job.run()

    # ----------------------------------------------------------------- results
    def clear(self) -> None:
        """Remove the results of an earlier run (they no longer match the fields)."""
        self.result = None
        self.summary.object = _WAITING
        self.informed.object = ""
        for pane in (self.figure, self.deployed_figure):
            pane.object, pane.visible = None, False
        self.deployed_summary.object, self.deployed_summary.visible = "", False
        self.code.object = ""
        set_message(self.notes, None)
        for button in self.downloads:
            button.disabled = True

    def field_of(self, err: BaseException) -> str:
        """Refusals that name a prior (an improper posterior) go next to the priors."""
        return "priors" if "prior" in str(err).lower() else "run"

    def report(self, err: BaseException) -> None:  # noqa: D102
        self.clear()
        super().report(err)

    def show(self, result: MatrixResult) -> None:
        """Put a result on the page."""
        self.result = result
        job = result.job
        notes = result.warnings
        set_message(self.notes, "\n\n".join(f"Note: {m}" for m in notes) if notes else None)
        self.informed.object = f"**Is it better than guessing?** {result.sentence()}"
        prob = float(result.table.attrs.get("hdi_prob", 0.95))
        self.summary.object = table_html(
            result.table, caption=f"Posterior of each metric on the test set ({100 * prob:g} % "
                                  "HDI; proportions, MU = HDI width)")
        self.figure.object, self.figure.visible = result.figure, result.figure is not None
        deployed = result.deployed_table is not None
        self.deployed_summary.visible = deployed
        self.deployed_summary.object = table_html(
            result.deployed_table, caption=f"At the deployment prevalence {job.deployment}: "
                                           "TPR and TNR unchanged, the rest recomputed"
        ) if result.deployed_table is not None else ""
        self.deployed_figure.object = result.deployed_figure
        self.deployed_figure.visible = result.deployed_figure is not None
        self.code.object = ("<p><b>Reproduce in Python</b> (the same numbers):</p><pre style="
                            "'background:#f6f8fa;padding:8px;overflow-x:auto'>"
                            f"{html.escape(job.code())}</pre>")
        self.downloads[0].disabled = self.downloads[1].disabled = False
        self.downloads[2].disabled = result.figure is None
        n = int(job.matrix.n)
        self.status.object = (f"Done: {n:,} test samples, 4 x {job.draws:,} draws, "
                              f"{result.seconds:.1f} s.")

    def _summary_file(self) -> io.BytesIO | None:
        if self.result is None:
            return None
        return io.BytesIO(csv_bytes(self.result.table))

    def _figure_file(self) -> io.BytesIO | None:
        if self.result is None or self.result.figure is None:
            return None
        return io.BytesIO(self.result.figure)

    def _result_file(self) -> io.BytesIO | None:
        if self.result is None:
            return None
        from bayescm.core.container import save

        with tempfile.TemporaryDirectory(prefix="bayescm-app-") as folder:
            path = save(self.result.idata, Path(folder) / "result.nc")
            return io.BytesIO(path.read_bytes())
