"""The "Imperfect labels" tab's first form: the true prevalence behind a test's apparent count.

A screening test reported ``positives`` of ``n``; its sensitivity (TPR) and specificity (TNR)
are known only roughly (priors such as ``uniform(0.6, 1)`` or ``beta(90, 10)``), or from a
validation table of the test on subjects of known status. The tab fits
:func:`bayescm.true_prevalence` (exact draws) and shows its summary, the Rogan-Gladen estimate
beside it and :func:`bayescm.plots.plot_corrected`.

Css classes: ``bcm-correct-positives``, ``bcm-correct-n``, ``bcm-correct-tpr``,
``bcm-correct-tnr``, ``bcm-correct-tp`` / ``-fn`` / ``-tn`` / ``-fp`` (the validation table,
optional), the button ``bcm-correct-run``; results ``bcm-correct-status``,
``bcm-correct-summary`` and ``bcm-correct-figure``.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

import pandas as pd
import panel as pn  # type: ignore[import-not-found, unused-ignore]

from bayescm.app.controller import TableAndFigure, error_alert, option_card, run_button, text_input
from bayescm.app.figures import single_png
from bayescm.app.parse import InputError, parse_whole

__all__ = ["CorrectJob", "CorrectTab"]

_CELLS = ("tp", "fn", "tn", "fp")


@dataclass(frozen=True)
class CorrectJob:
    """The correction to fit, checked.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.app.correct_tab import CorrectJob
    >>> job = CorrectJob(142, 742, bcm.priors.Uniform(0.6, 1), bcm.priors.Uniform(0.6, 1))
    >>> table, figure = job.run()
    >>> list(table.index[:2]), figure[:4]
    (['prevalence', 'apparent'], b'\\x89PNG')
    """

    positives: int
    n: int
    tpr: Any = None
    tnr: Any = None
    validation: tuple[int, int, int, int] | None = None
    seed: int = 0

    def run(self) -> tuple[pd.DataFrame, bytes]:
        """The summary (the Rogan-Gladen estimate as the observed value) and the figure."""
        import bayescm as bcm
        from bayescm.plots import plot_corrected

        matrix = None
        if self.validation is not None:
            tp, fn, tn, fp = self.validation
            matrix = bcm.ConfusionMatrix.from_counts(tp=tp, fn=fn, tn=tn, fp=fp)
        tree = bcm.true_prevalence(self.positives, self.n, tpr=self.tpr, tnr=self.tnr,
                                   validation=matrix, random_seed=self.seed)
        table = bcm.summary(tree)
        table.attrs["excluded_share"] = float(tree.attrs["excluded_share"])
        return table, single_png(lambda ax: plot_corrected(tree, ax=ax), size=(6.0, 3.2))


def _prior(value: Any, name: str) -> Any:
    """A rate's prior from its field (empty: none), as ``bayescm correct`` reads it."""
    from bayescm.cli_correct import rate_prior

    text = "" if value is None else str(value).strip()
    if not text:
        return None
    try:
        return rate_prior(text)
    except argparse.ArgumentTypeError as err:
        raise InputError(f"The prior of the {name}: {err}. Write beta(a, b), "
                         "uniform(lower, upper) or fixed(value).", field="input") from None


class CorrectTab(TableAndFigure):
    """The imperfect-test form; :meth:`run` (its button) fits and shows.

    Examples
    --------
    >>> from bayescm.app.correct_tab import CorrectTab
    >>> tab = CorrectTab()
    >>> tab.run()
    True
    >>> tab.positives.value = "900"
    >>> tab.run(), tab.last_error  # doctest: +ELLIPSIS
    (False, '...larger than n...')
    """

    action = "Correcting"
    css = "bcm-correct"

    def __init__(self) -> None:
        self.positives = text_input("positive results", "142", "bcm-correct-positives",
                                    width=150)
        self.n = text_input("subjects tested", "742", "bcm-correct-n", width=150)
        self.tpr = text_input("sensitivity (TPR) prior", "uniform(0.6, 1)", "bcm-correct-tpr",
                              width=180, description="beta(a, b), uniform(lower, upper) or "
                                                     "fixed(value); empty with a validation "
                                                     "table: flat")
        self.tnr = text_input("specificity (TNR) prior", "uniform(0.6, 1)", "bcm-correct-tnr",
                              width=180, description="as the sensitivity")
        self.cells = {c: text_input(c.upper(), "", f"bcm-correct-{c}", width=80)
                      for c in _CELLS}
        self.seed = text_input("seed", "0", "bcm-correct-seed", width=90)
        errors = {"input": error_alert("correct-input"), "run": error_alert("correct"),
                  "validation": error_alert("correct-validation")}
        validation = option_card(
            "Validation table (optional)", "bcm-card-validation",
            pn.pane.Markdown("The test on subjects whose status is known: diseased found (TP) "
                             "and missed (FN), healthy cleared (TN) and flagged (FP). Fitted "
                             "jointly with the count; leave all four empty for none.",
                             width=330),
            pn.Row(self.cells["tp"], self.cells["fn"]),
            pn.Row(self.cells["tn"], self.cells["fp"]), errors["validation"])
        self.cards = {"validation": validation}
        button = run_button("Correct the rate", "bcm-correct-run")
        self.setup(button, errors)
        results = self.result_panes()
        inputs = pn.Column(
            pn.pane.Markdown(
                "A test that errs reports an **apparent** rate, not the true prevalence. Give "
                "its positive count and what is known of its sensitivity and specificity; the "
                "posterior of the **true prevalence** carries that uncertainty (exact draws; "
                "TPR + TNR > 1 assumed).", width=380),
            pn.Row(self.positives, self.n), pn.Row(self.tpr, self.tnr), validation,
            self.seed, errors["input"], button, self.status, errors["run"], width=390)
        self.view = pn.FlexBox(inputs, results, flex_wrap="wrap", sizing_mode="stretch_width")

    def prepare(self) -> CorrectJob:
        """Read the fields."""
        given = {c: str(w.value or "").strip() for c, w in self.cells.items()}
        filled = [c for c, v in given.items() if v]
        validation = None
        if filled:
            if len(filled) < 4:
                missing = ", ".join(c.upper() for c, v in given.items() if not v)
                raise InputError(f"The validation table needs all four counts; {missing} "
                                 "missing (or leave all four empty).", field="validation")
            validation = tuple(parse_whole(given[c], c.upper(), 0, 10**9) for c in _CELLS)
        tpr, tnr = _prior(self.tpr.value, "sensitivity"), _prior(self.tnr.value, "specificity")
        if validation is None and (tpr is None or tnr is None):
            raise InputError("Give priors of both the sensitivity and the specificity, or a "
                             "validation table: without either the count says nothing about "
                             "the true prevalence.")
        return CorrectJob(positives=parse_whole(self.positives.value, "the positive results",
                                                0, 10**9),
                          n=parse_whole(self.n.value, "the subjects tested", 1, 10**9),
                          tpr=tpr, tnr=tnr,
                          validation=validation,  # type: ignore[arg-type]
                          seed=parse_whole(self.seed.value, "the seed", 0, 2**32 - 1))

    def compute(self, job: CorrectJob) -> tuple[pd.DataFrame, bytes]:
        """Fit (in the worker)."""
        return job.run()

    def show(self, result: tuple[pd.DataFrame, bytes]) -> None:
        """Put the summary and the figure on the page."""
        table, figure = result
        excluded = table.attrs.get("excluded_share", 0.0)
        self.put(table, figure,
                 "True prevalence, apparent rate and the test's rates (observed: the "
                 "Rogan-Gladen estimate, the observed apparent rate); the constraint "
                 f"TPR + TNR > 1 removed {100 * excluded:.1f} % of the rates' prior")

