"""The "Sample size" tab's second form: how many items establish a claim (Bayesian assurance).

"Will a test set of N positives show that the sensitivity exceeds 0.9?" The form takes the
claim, a design prior of the claimed rate (what one believes before the study, as a mean and a
certainty), the assurance wanted and the posterior probability that counts as establishing the
claim; it answers with the smallest N, the assurance at the user's N and the assurance curve
(:func:`bayescm.samplesize.required_n_claim`, :func:`~bayescm.samplesize.assurance`).

Css classes: ``bcm-claim-claim``, ``bcm-claim-mean``, ``bcm-claim-concentration``,
``bcm-claim-assurance``, ``bcm-claim-level``, ``bcm-claim-n``, the button ``bcm-claim-run``;
results ``bcm-claim-status``, ``bcm-claim-summary`` and ``bcm-claim-figure``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import panel as pn  # type: ignore[import-not-found, unused-ignore]

from bayescm.app.controller import TableAndFigure, error_alert, run_button, text_input
from bayescm.app.figures import single_png
from bayescm.app.parse import parse_real, parse_whole

__all__ = ["ClaimForm", "ClaimJob"]


@dataclass(frozen=True)
class ClaimJob:
    """The assurance question, checked.

    Examples
    --------
    >>> from bayescm.app.claim_form import ClaimJob
    >>> table, figure = ClaimJob(claim="tpr > 0.9", mean=0.95, concentration=100, n=100).run()
    >>> int(table.loc["smallest N with the wanted assurance", "n"]) > 0, figure[:4]
    (True, b'\\x89PNG')
    """

    claim: str
    mean: float
    concentration: float
    n: int
    assurance: float = 0.8
    level: float = 0.95

    def run(self) -> tuple[pd.DataFrame, bytes]:
        """The smallest N, the assurance at the user's N, and the curve as PNG."""
        from bayescm.analyses import samplesize
        from bayescm.analyses.samplesize.claims import Claim
        from bayescm.plots import GREEN, legend_clear, plot_assurance
        from bayescm.priors import Beta

        metric = Claim.parse(self.claim).metric
        design = {metric: Beta(self.mean * self.concentration,
                               (1 - self.mean) * self.concentration)}
        plan = samplesize.required_n_claim(self.claim, self.assurance, design, self.level)
        top = max(plan.n, self.n) * 3
        sizes = np.unique(np.append(np.geomspace(2, top, 40).astype(np.int64), self.n))
        curve = samplesize.assurance(self.claim, sizes, design, self.level)  # yours included
        mine = float(np.asarray(curve)[np.searchsorted(sizes, self.n)])
        rows = {"smallest N with the wanted assurance": (plan.n, plan.assurance),
                "your N": (self.n, mine),
                "no N does better than (the design's P(claim))": (np.nan, plan.limit)}
        table = pd.DataFrame({"n": [n for n, _ in rows.values()],
                              "assurance": [float(a) for _, a in rows.values()]},
                             index=pd.Index(list(rows), name="question"))
        table.attrs["counts"] = plan.counts

        def draw(ax: Any) -> None:
            plot_assurance(curve, ax=ax, target=self.assurance)
            ax.axvline(self.n, color=GREEN, ls=":", lw=1.5, label=f"your N = {self.n:,}")
            legend_clear(ax)

        return table, single_png(draw)


class ClaimForm(TableAndFigure):
    """The assurance form; :meth:`run` (its button) plans and shows.

    Examples
    --------
    >>> from bayescm.app.claim_form import ClaimForm
    >>> form = ClaimForm()
    >>> form.run()
    True
    >>> form.claim.value = "tpr > 1.5"
    >>> form.run(), form.last_error  # doctest: +ELLIPSIS
    (False, '...')
    """

    action = "Computing the assurance"
    css = "bcm-claim"

    def __init__(self) -> None:
        self.claim = text_input("claim", "tpr > 0.9", "bcm-claim-claim", width=160,
                                description="a rate and a bound, e.g. 'tpr > 0.9', "
                                            "'fpr < 0.05', 'width(tpr) < 0.1'")
        self.mean = text_input("expected value of the rate", "0.95", "bcm-claim-mean",
                               width=200, description="what you expect before the study")
        self.concentration = text_input("certainty (concentration)", "100",
                                        "bcm-claim-concentration", width=200,
                                        description="> 2; the design prior is Beta(mean x c, "
                                                    "(1 - mean) x c)")
        self.assurance = text_input("assurance wanted", "0.8", "bcm-claim-assurance",
                                    width=150, description="the chance, before the data, "
                                                           "that the study establishes the "
                                                           "claim")
        self.level = text_input("posterior probability", "0.95", "bcm-claim-level",
                                width=150, description="P(claim | data) that counts as "
                                                       "established")
        self.n = text_input("your N", "100", "bcm-claim-n", width=120,
                            description="items the rate is a rate of: positives for TPR")
        errors = {"input": error_alert("claim-input"), "run": error_alert("claim")}
        button = run_button("Plan the claim", "bcm-claim-run")
        self.setup(button, errors)
        results = self.result_panes()
        inputs = pn.Column(
            pn.pane.Markdown(
                "How many items establish a **claim** such as 'sensitivity above 0.9'? The "
                "**assurance** is the chance, before the data, that a study of N items ends "
                "with P(claim) of at least the posterior probability: the truth is drawn from "
                "your design prior, the study from the truth (exact, by the beta-binomial).",
                width=380),
            self.claim, self.mean, self.concentration, pn.Row(self.assurance, self.level),
            self.n, errors["input"], button, self.status, errors["run"], width=390)
        self.view = pn.FlexBox(inputs, results, flex_wrap="wrap", sizing_mode="stretch_width")

    def prepare(self) -> ClaimJob:
        """Read the fields."""
        from bayescm.analyses.samplesize.claims import Claim

        claim = str(self.claim.value).strip()
        Claim.parse(claim)  # a ValueError that says how to write one
        return ClaimJob(
            claim=claim,
            mean=parse_real(self.mean.value, "the expected value", 0, 1, open_low=True,
                            open_high=True),
            concentration=parse_real(self.concentration.value, "the concentration", 2,
                                     float("inf"), open_low=True),
            n=parse_whole(self.n.value, "your N", 1, 10**7),
            assurance=parse_real(self.assurance.value, "the assurance", 0, 1, open_low=True,
                                 open_high=True),
            level=parse_real(self.level.value, "the posterior probability", 0, 1,
                             open_low=True, open_high=True))

    def compute(self, job: ClaimJob) -> tuple[pd.DataFrame, bytes]:
        """Plan (in the worker)."""
        return job.run()

    def show(self, result: tuple[pd.DataFrame, bytes]) -> None:
        """Put the answers on the page."""
        table, figure = result
        self.put(table, figure,
                 f"Test-set size N (counting {table.attrs.get('counts', 'items')}) "
                 "and the assurance of establishing the claim")

