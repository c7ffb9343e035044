"""The page: a header, "how to read this", seven tabs and the citation, built fresh per session.

:func:`create_app` makes new widgets and tab controllers on every call, so each browser
session (and each notebook cell) has its own state; the server calls it once per session.

The first screen holds what a visitor needs to act: at a 1280 x 800 window each tab's main
button and its status line are visible without scrolling (the browser test checks it). So the
header is two lines, "how to read this" is a card that opens on a click, and each tab has its
inputs in a narrow column at the left (button and status right under the data; optional
settings in cards that open on a click) and its results beside them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import panel as pn  # type: ignore[import-not-found, unused-ignore]

from bayescm.app.audit_form import AuditForm
from bayescm.app.claim_form import ClaimForm
from bayescm.app.compare_tab import CompareTab
from bayescm.app.correct_tab import CorrectTab
from bayescm.app.decision_tab import DecisionTab
from bayescm.app.items_tab import ItemsTab
from bayescm.app.latent_form import LatentForm
from bayescm.app.matrix_tab import MatrixTab
from bayescm.app.planning_tab import PlanningTab
from bayescm.app.runs_form import RunsForm
from bayescm.app.scores_tab import ScoresTab

__all__ = ["CITATION", "HOW_TO_READ", "TITLE", "AppPage", "create_app", "create_page"]

TITLE = "bayescm: how sure are your classifier's metrics?"
"""The page title."""

INTRO = (
    "A metric computed on a finite test set is an estimate, not an exact number: this page "
    "gives the posterior distribution of each metric, the range where its true value plausibly "
    "lies, given the test set and the priors you choose.")

HOW_TO_READ = (
    "**How to read this.** Each curve is the posterior distribution of one metric. The shaded "
    "part is the 95 % highest-density interval (HDI): the narrowest range holding 95 % of the "
    "probability. Its width, marked by a bracket, is the metric uncertainty (MU); the vertical "
    "line is the observed value, the number usually reported, computed from the counts alone. "
    "A wide HDI means the test set is too small to pin the metric down, and two classifiers "
    "whose HDIs overlap widely may not differ at all. P(deceptive) is the probability that the "
    "classifier does worse than guessing (informedness below 0). **Units:** the figures show "
    "rates and intervals in per cent and MU in percentage points (pp), as every bayescm figure "
    "does; the tables give proportions between 0 and 1, as `bcm.summary` does (0.95 = 95 %; an "
    "MU of 0.10 = 10 pp); LR+, LR- and DOR are ratios.")

CITATION = (
    "Method: N. Tötsch and D. Hoffmann (2021), *Classifier uncertainty: evidence, potential "
    "impact, and probabilistic treatment*, PeerJ Computer Science 7:e398, "
    "[doi:10.7717/peerj-cs.398](https://doi.org/10.7717/peerj-cs.398). Please cite it when you "
    "report these numbers. Computed with bayescm {version} on the computer that serves this "
    "page; nothing you enter is sent anywhere else.")

_HEADER_STYLE = {"background": "#f2f5f8", "border-left": "4px solid #0072B2",
                 "padding": "0px 14px 6px 14px", "border-radius": "4px"}


@dataclass
class AppPage:
    """The page and its tab controllers (for tests and notebooks that drive the page).

    Attributes
    ----------
    view : panel.Column
        The page.
    matrix, planning, compare, scores, items, decisions : Controller
        The tabs, each with ``run()`` (what its button does).
    claims : ClaimForm
        The sample-size tab's second form (the assurance of a claim).
    correct : CorrectTab
        The imperfect-labels tab's first form (the true prevalence behind an apparent count).
    audit : AuditForm
        Its second form (a population's metrics from a stratified audit).
    runs : RunsForm
        The comparison tab's second form (folds, seeds or runs of one or two procedures).
    latent : LatentForm
        The imperfect-labels tab's third form (several tests without a gold standard).
    """

    view: Any
    matrix: MatrixTab
    planning: PlanningTab
    compare: CompareTab
    scores: ScoresTab
    items: ItemsTab
    claims: ClaimForm
    correct: CorrectTab
    audit: AuditForm
    decisions: DecisionTab
    runs: RunsForm
    latent: LatentForm


def create_page(autorun: bool = True) -> AppPage:
    """Build the page with new widgets; ``autorun`` analyses the example once it is shown.

    Examples
    --------
    >>> from bayescm.app.layout import create_page
    >>> page = create_page()
    >>> page.matrix.run()
    True
    """
    from bayescm._version import __version__

    matrix, planning, compare, scores = MatrixTab(), PlanningTab(), CompareTab(), ScoresTab()
    items, claims, correct, audit = ItemsTab(), ClaimForm(), CorrectTab(), AuditForm()
    decisions, runs, latent = DecisionTab(), RunsForm(), LatentForm()
    sizes = pn.Column(planning.view, pn.layout.Divider(), claims.view,
                      sizing_mode="stretch_width")
    labels = pn.Column(correct.view, pn.layout.Divider(), audit.view, pn.layout.Divider(),
                       latent.view, sizing_mode="stretch_width")
    pairs = pn.Column(compare.view, pn.layout.Divider(), runs.view, sizing_mode="stretch_width")
    tabs = pn.Tabs(("Confusion matrix", matrix.view), ("Sample size", sizes),
                   ("Compare two classifiers", pairs), ("Scores and ROC", scores.view),
                   ("Decision curves", decisions.view), ("Evaluation log", items.view),
                   ("Imperfect labels", labels),
                   dynamic=False,
                   sizing_mode="stretch_width", css_classes=["bcm-tabs"])
    how = pn.Card(pn.pane.Markdown(HOW_TO_READ, css_classes=["bcm-how-to-read"],
                                   sizing_mode="stretch_width"),
                  title="How to read this (intervals, MU, observed value, units)",
                  collapsed=True, sizing_mode="stretch_width", css_classes=["bcm-how-card"],
                  margin=(0, 0))
    header = pn.Column(
        pn.pane.Markdown(f"### {TITLE}\n{INTRO}", sizing_mode="stretch_width",
                         margin=(0, 10)),
        how, styles=_HEADER_STYLE, sizing_mode="stretch_width", margin=(5, 10))
    footer = pn.pane.Markdown(CITATION.format(version=__version__), css_classes=["bcm-citation"],
                              sizing_mode="stretch_width", styles={"font-size": "90%",
                                                                   "color": "#444"})
    view = pn.Column(header, tabs, footer, sizing_mode="stretch_width", max_width=1400,
                     css_classes=["bcm-app"])
    doc = pn.state.curdoc
    if autorun and doc is not None and doc.session_context is not None:
        async def first_run() -> None:  # the example's results appear after loading
            await matrix.run_async()

        pn.state.onload(first_run)
    return AppPage(view, matrix, planning, compare, scores, items, claims, correct, audit,
                   decisions, runs, latent)


def create_app() -> Any:
    """The app as a Panel layout: serve it (``bayescm app``) or show it in a notebook.

    Each call builds new widgets, so every session has its own state. In a notebook run
    ``import panel as pn; pn.extension()`` first, then display ``bcm.app.create_app()``
    (or call ``.servable()`` on it for ``panel serve``).

    Returns
    -------
    panel.Column
        The page.

    Examples
    --------
    >>> from bayescm.app.layout import create_app
    >>> type(create_app()).__name__
    'Column'
    """
    return create_page().view
