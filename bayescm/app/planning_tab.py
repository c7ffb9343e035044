"""The "Sample size" tab: test samples needed for a metric uncertainty (MU), and MU at N.

How many test samples a wanted MU needs, and the MU a given number of samples reaches
(:mod:`bayescm.analyses.samplesize`, the paper's Fig. 6).

Css classes: ``bcm-plan-mu``, ``bcm-plan-n``, ``bcm-plan-power``, ``bcm-plan-mode``,
``bcm-plan-concentration``, ``bcm-plan-prior``, ``bcm-plan-sims``, ``bcm-plan-seed``, the
button ``bcm-plan-run``; results ``bcm-plan-status``, ``bcm-plan-warning``, ``bcm-plan-summary``
and ``bcm-plan-figure``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import panel as pn  # type: ignore[import-not-found, unused-ignore]

from bayescm.app.controller import TableAndFigure, error_alert, labelled, run_button, text_input
from bayescm.app.figures import single_png
from bayescm.app.parse import parse_real, parse_whole

__all__ = ["PlanJob", "PlanningTab"]


@dataclass(frozen=True)
class PlanJob:
    """The planning question, checked.

    Examples
    --------
    >>> from bayescm.app.planning_tab import PlanJob
    >>> table, figure = PlanJob(mu=0.2, n=100, n_sims=500).run()
    >>> int(table.loc["rule of thumb for the target MU (N = 4 / MU^2)", "n"]), figure[:4]
    (100, b'\\x89PNG')
    """

    mu: float
    n: int
    power: float = 0.95
    mode: float = 0.8
    concentration: float = 10.0
    prior: str = "laplace"
    n_sims: int = 4000
    seed: int = 1

    def run(self) -> tuple[pd.DataFrame, bytes]:
        """The answers as a table and the MU-against-N curve as PNG."""
        from bayescm.analyses import samplesize
        from bayescm.plots import GREEN, legend_clear, plot_sample_size

        common: dict[str, Any] = {"mode": self.mode, "concentration": self.concentration,
                                  "prior": self.prior, "n_sims": self.n_sims,
                                  "random_seed": self.seed}
        plan = samplesize.plan(self.mu, power=self.power, **common)
        mu_n = float(samplesize.mu_at_power(self.n, power=self.power, **common))
        low = max(2, min(self.n, plan.n) // 10)
        sizes = np.unique(np.geomspace(low, max(self.n, plan.n) * 10, 40).astype(np.int64))
        curve = samplesize.mu_at_power(sizes, power=self.power, **common)
        rows = {
            "smallest N for the target MU (simulated)": (plan.n, plan.mu_reached),
            "rule of thumb for the target MU (N = 4 / MU^2)": (plan.rule_of_thumb, self.mu),
            "your N (simulated)": (self.n, mu_n),
            "your N, rule of thumb (MU = 2 / sqrt(N))": (self.n, samplesize.mu_bound(self.n)),
        }
        table = pd.DataFrame({"n": [int(n) for n, _ in rows.values()],
                              "mu": [float(mu) for _, mu in rows.values()]},
                             index=pd.Index(list(rows), name="question"))

        def draw(ax: Any) -> None:
            plot_sample_size({"n": sizes, "mu": curve}, ax=ax, plan=plan, power=self.power)
            ax.axvline(self.n, color=GREEN, ls=":", lw=1.5, label=f"your N = {self.n:,}")
            legend_clear(ax)  # the legend again, with this line, clear of the curves

        return table, single_png(draw)


class PlanningTab(TableAndFigure):
    """The sample-size tab; :meth:`run` (the button) plans and shows.

    Examples
    --------
    >>> from bayescm.app.planning_tab import PlanningTab
    >>> tab = PlanningTab()
    >>> tab.sims.value = "500"
    >>> tab.run()
    True
    >>> tab.mu.value = "1.5"
    >>> tab.run(), tab.last_error
    (False, 'The target MU must lie strictly between 0 and 1, got 1.5.')
    """

    action = "Simulating"
    css = "bcm-plan"

    def __init__(self) -> None:
        self.mu = text_input("target MU (HDI width)", "0.1", "bcm-plan-mu", width=160,
                             description="the widest 95 % interval you accept, as a proportion "
                                         "(0.1 = 10 percentage points)")
        self.n = text_input("your N (samples)", "100", "bcm-plan-n", width=160,
                            description="samples that inform the metric: all for accuracy, "
                                        "the positives for TPR, the negatives for TNR")
        self.power = text_input("assurance", "0.95", "bcm-plan-power", width=100,
                                description="the chance, before the data, that a study "
                                            "reaches the MU")
        self.mode = text_input("expected value of the metric", "0.8", "bcm-plan-mode",
                               width=200)
        self.concentration = text_input("certainty about it (concentration)", "10",
                                        "bcm-plan-concentration", width=220,
                                        description="> 2; higher = more sure of the expected "
                                                    "value")
        self.prior = labelled(pn.widgets.Select, "analysis prior",
                              options={"Laplace": "laplace", "Jeffreys": "jeffreys"},
                              value="laplace", width=140, css_classes=["bcm-plan-prior"])
        self.sims = text_input("simulated studies", "4000", "bcm-plan-sims", width=140)
        self.seed = text_input("random seed", "1", "bcm-plan-seed", width=110)
        errors = {"input": error_alert("plan-input"), "run": error_alert("plan")}
        button = run_button("Plan", "bcm-plan-run")
        self.setup(button, errors)
        results = self.result_panes()
        inputs = pn.Column(
            pn.pane.Markdown(
                "How many test samples does a metric need? **MU** (metric uncertainty) is the "
                "width of the 95 % HDI of a proportion such as accuracy, TPR or TNR. The "
                "simulation draws plausible true values, simulates studies and reports the "
                "MU reached with the given assurance (Kruschke's protocol, who calls it power; "
                "paper Fig. 6).",
                width=380),
            pn.Row(self.mu, self.n), pn.Row(self.power, self.prior),
            self.mode, self.concentration, pn.Row(self.sims, self.seed),
            errors["input"], button, self.status, errors["run"], width=390)
        self.view = pn.FlexBox(inputs, results, flex_wrap="wrap", sizing_mode="stretch_width")

    def prepare(self) -> PlanJob:
        """Read the fields."""
        def real(widget: Any, name: str, low: float, high: float) -> float:
            return parse_real(widget.value, name, low, high, open_low=True, open_high=True)

        return PlanJob(
            mu=real(self.mu, "the target MU", 0, 1),
            n=parse_whole(self.n.value, "your N", 1, 10**9),
            power=real(self.power, "the assurance", 0, 1),
            mode=parse_real(self.mode.value, "the expected value", 0, 1),
            concentration=real(self.concentration, "the concentration", 2, float("inf")),
            prior=str(self.prior.value),
            n_sims=parse_whole(self.sims.value, "simulated studies", 100, 100_000),
            seed=parse_whole(self.seed.value, "the random seed", 0, 2**32 - 1))

    def compute(self, job: PlanJob) -> tuple[pd.DataFrame, bytes]:
        """Simulate (in the worker)."""
        return job.run()

    def show(self, result: tuple[pd.DataFrame, bytes]) -> None:
        """Put the answers on the page."""
        table, figure = result
        self.put(table, figure,
                 "Test-set size N and the MU reached with the chosen assurance (MU as a "
                 "proportion: 0.1 = 10 percentage points)")

