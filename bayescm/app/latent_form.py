"""The "Imperfect labels" tab's third form: several tests without a gold standard (Hui-Walter).

Two or more binary tests on the same subjects, none of them the truth. The form takes one row
per subject with a 0/1 column per test (an empty cell: the test was not done on that subject,
marginalised) and an optional population column, pasted or uploaded; the user chooses the
test columns and the population column. It fits the Hui-Walter latent class model with
``bcm.fit``'s defaults (flat Beta priors, NUTS) and shows each population's prevalence and
each test's TPR and TNR (the table of ``bayescm latent``) and their figure
(:func:`bayescm.plots.plot_test_rates`).

Css classes: ``bcm-latent-table`` (the pasted table), ``bcm-latent-file`` (the upload),
``bcm-latent-tests``, ``bcm-latent-population``, ``bcm-latent-draws``, ``bcm-latent-seed``, the
button ``bcm-latent-run``; results ``bcm-latent-status``, ``bcm-latent-summary`` and
``bcm-latent-figure``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import panel as pn  # type: ignore[import-not-found, unused-ignore]

from bayescm.app.controller import TableAndFigure, error_alert, labelled, run_button, text_input
from bayescm.app.figures import single_png
from bayescm.app.parse import InputError, _read, _table, csv_columns, parse_whole

__all__ = ["EXAMPLE", "MAX_LATENT_DRAWS", "LatentForm", "LatentJob", "results_from_csv"]

MAX_LATENT_DRAWS = 5000
"""Most NUTS draws per chain of a Hui-Walter fit on the page."""
NONE = "(none)"
"""The population choice for a table without a population column."""
POPULATION_NAMES = ("population", "herd", "site", "group", "centre", "center", "region")
"""Column names taken for the population column when a table is pasted (case ignored)."""


def _example() -> str:
    """Three tests on 200 subjects in two herds; culture not done on about a third."""
    rng = np.random.default_rng(31)
    rows = ["herd,elisa,pcr,culture"]
    tpr, tnr = np.array([0.9, 0.8, 0.7]), np.array([0.85, 0.95, 0.99])
    for herd, prevalence in (("north", 0.15), ("south", 0.55)):
        sick = rng.random(100) < prevalence
        results = np.where(sick[:, None], rng.random((100, 3)) < tpr,
                           rng.random((100, 3)) > tnr).astype(int)
        done = rng.random(100) > 0.3
        for row, culture in zip(results, done, strict=True):
            rows.append(f"{herd},{row[0]},{row[1]},{row[2] if culture else ''}")
    return "\n".join(rows) + "\n"


EXAMPLE = _example()
"""Simulated ELISA, PCR and culture results in two herds (culture missing on some)."""


def results_from_csv(text: str, tests: Sequence[str], population: str | None = None, *,
                   field: str = "input") -> Any:
    """:class:`~bayescm.TestResults` from a pasted or uploaded table (one row per subject).

    An empty cell in a test's column is a test not done (marginalised). Errors name the line.

    Examples
    --------
    >>> from bayescm.app.latent_form import EXAMPLE, results_from_csv
    >>> results = results_from_csv(EXAMPLE, ["elisa", "pcr", "culture"], "herd")
    >>> results.populations, int(results.n_subjects.sum()), results.has_missing
    (['north', 'south'], 200, True)
    """
    from bayescm.core.latent import TestResults
    from bayescm.core.latent_columns import table_frame

    tests = list(tests)
    if len(tests) < 2:
        raise InputError("choose at least two test columns (a latent class model needs two "
                         "or more tests on the same subjects).", field)
    if population is not None and population in tests:
        raise InputError(f"{population!r} is chosen as a test and as the population column; "
                         "choose it once.", field)
    table = _table(text, "the table", field)
    names = [*tests, *([population] if population is not None else [])]
    return _read(lambda: TestResults(table_frame(table, names, may_be_empty=tests),
                                     tests=tests, population=population), "the table", field)


@dataclass(frozen=True)
class LatentJob:
    """The test results to fit.

    Examples
    --------
    >>> from bayescm.app.latent_form import EXAMPLE, LatentJob, results_from_csv
    >>> job = LatentJob(results_from_csv(EXAMPLE, ["elisa", "pcr", "culture"], "herd"))
    >>> job.caption()[:40]
    '200 subjects (54 with missing results), '
    """

    results: Any
    draws: int = 500
    seed: int = 1

    def run(self) -> tuple[pd.DataFrame, bytes]:
        """The table of ``bayescm latent`` and the figure of the rates, as PNG."""
        from bayescm.cli_latent import reported
        from bayescm.plots import plot_test_rates

        tree = _fit(self.results, draws=self.draws, random_seed=self.seed)
        rows = len(self.results.populations) + 2 * len(self.results.tests)
        figure = single_png(lambda ax: plot_test_rates(tree, ax=ax),
                            size=(6.0, 1.4 + 0.32 * rows))
        return reported(tree), figure

    def caption(self) -> str:
        """What was fitted, for the table's caption."""
        r = self.results
        partly = int(r.partial_counts.sum())
        some = f" ({partly:,} with missing results)" if partly else ""
        return (f"{int(r.n_subjects.sum()):,} subjects{some}, {len(r.tests)} tests, "
                f"{len(r.populations)} population(s): Hui-Walter, 4 x {self.draws:,} NUTS "
                "draws; prevalence per population, TPR and TNR per test (95 % HDI)")


def _fit(data: Any, **kwargs: Any) -> Any:
    """The fit (one place, so tests can stand in a fit without NUTS)."""
    import bayescm as bcm

    return bcm.fit(data, **kwargs)


class LatentForm(TableAndFigure):
    """The no-gold-standard form; :meth:`run` (its button) fits and shows.

    Examples
    --------
    >>> from bayescm.app.latent_form import LatentForm
    >>> form = LatentForm()
    >>> form.tests.value, form.population.value
    (['elisa', 'pcr', 'culture'], 'herd')
    >>> form.tests.value = ["elisa"]
    >>> form.run(), "at least two test columns" in form.last_error
    (False, True)
    """

    action = "Fitting the tests"
    css = "bcm-latent"

    def __init__(self) -> None:
        self.table = labelled(pn.widgets.TextAreaInput, "test results (CSV: one row per "
                              "subject, a 0/1 column per test)", value=EXAMPLE,
                              css_classes=["bcm-latent-table"], width=370, height=120)
        self.upload = pn.widgets.FileInput(accept=".csv,.tsv,.txt", width=340,
                                           css_classes=["bcm-latent-file"])
        self.tests = labelled(pn.widgets.MultiChoice, "test columns", options=[], width=370,
                              css_classes=["bcm-latent-tests"])
        self.population = labelled(pn.widgets.Select, "population column", options=[NONE],
                                   width=180, css_classes=["bcm-latent-population"])
        self.draws = text_input("draws per chain (4 chains, NUTS)", "500",
                                "bcm-latent-draws", width=200)
        self.seed = text_input("random seed", "1", "bcm-latent-seed", width=110)
        errors = {"input": error_alert("latent-input"), "draws": error_alert("latent-draws"),
                  "run": error_alert("latent")}
        button = run_button("Fit the tests", "bcm-latent-run")
        self.setup(button, errors)
        results = self.result_panes(640)
        inputs = pn.Column(
            pn.pane.Markdown(
                "**No gold standard.** Two or more tests on the same subjects, none of them "
                "the truth (Hui-Walter). One row per subject, a 0/1 column per test; an empty "
                "cell is a test not done on that subject (valid when that is unrelated to the "
                "true class beyond the results seen). A population column (herds, sites) gives "
                "each its own prevalence; two tests in one population need a third test, a "
                "second population or informative priors.", width=380),
            self.table, self.upload, self.tests, self.population, errors["input"],
            pn.Row(self.draws, self.seed), errors["draws"], button, self.status,
            errors["run"], width=390)
        self.view = pn.FlexBox(inputs, results, flex_wrap="wrap", sizing_mode="stretch_width")
        self.table.param.watch(lambda _: self._header(), "value")
        self.upload.param.watch(lambda e: self.load_upload(e.new), "value")
        self._header()

    def _header(self) -> None:
        """Offer the table's columns; guess the population column by its name."""
        try:
            header = csv_columns(str(self.table.value or ""), field="input")
        except InputError:
            return
        self.population.options = [NONE, *header]
        if self.population.value not in header:
            lower = {c.lower(): c for c in header}
            self.population.value = next((lower[n] for n in POPULATION_NAMES if n in lower),
                                         NONE)
        self.tests.options = list(header)
        kept = [t for t in self.tests.value if t in header]
        self.tests.value = kept or [c for c in header if c != self.population.value]

    def prepare(self) -> LatentJob:
        """Read the table, the chosen columns, the draws and the seed."""
        population = self.population.value
        results = results_from_csv(str(self.table.value or ""), list(self.tests.value),
                                 None if population in (None, "", NONE) else str(population))
        draws = parse_whole(self.draws.value, "draws per chain", 1, MAX_LATENT_DRAWS,
                            field="draws")
        seed = parse_whole(self.seed.value, "the random seed", 0, 2**32 - 1, field="draws")
        return LatentJob(results, draws=draws, seed=seed)

    def compute(self, job: LatentJob) -> tuple[pd.DataFrame, bytes, str]:
        """Fit (in the worker)."""
        table, figure = job.run()
        return table, figure, job.caption()

    def show(self, result: tuple[pd.DataFrame, bytes, str]) -> None:
        """Put the summary and the figure on the page."""
        table, figure, caption = result
        self.put(table, figure, caption=caption)

