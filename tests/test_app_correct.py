"""The app's "Imperfect test" tab without a browser: the fit it shows, and errors inline."""

from __future__ import annotations

import pytest

pytest.importorskip("panel")

import bayescm as bcm
from bayescm.app.correct_tab import CorrectJob, CorrectTab


def test_the_tab_shows_what_true_prevalence_gives():
    table, png = CorrectJob(142, 742, bcm.priors.Uniform(0.6, 1),
                            bcm.priors.Uniform(0.6, 1), seed=3).run()
    tree = bcm.true_prevalence(142, 742, tpr=bcm.priors.Uniform(0.6, 1),
                               tnr=bcm.priors.Uniform(0.6, 1), random_seed=3)
    want = bcm.summary(tree)
    assert table.loc["prevalence", "mean"] == pytest.approx(want.loc["prevalence", "mean"])
    assert table.loc["prevalence", "observed"] == pytest.approx(
        want.loc["prevalence", "observed"])
    assert png[:4] == b"\x89PNG"
    tab = CorrectTab()
    tab.seed.value = "3"
    assert tab.run()
    assert "prevalence" in tab.summary.object and tab.figure.visible


def test_a_validation_table_alone_is_enough():
    tab = CorrectTab()
    tab.tpr.value, tab.tnr.value = "", ""
    for cell, value in {"tp": "45", "fn": "5", "tn": "190", "fp": "10"}.items():
        tab.cells[cell].value = value
    assert tab.run()


@pytest.mark.parametrize(("fields", "words"), [
    ({"positives": "900"}, "larger than n"),
    ({"tpr": "beta(9)"}, "sensitivity"),
    ({"tpr": ""}, "validation table"),
    ({"n": "0"}, "subjects tested"),
    ({"tp": "4"}, "all four counts"),
    ({"tpr": "uniform(0.2, 0.4)", "tnr": "uniform(0.2, 0.5)"}, "tpr + tnr > 1"),
])
def test_bad_fields_are_named_and_the_page_keeps_working(fields, words):
    tab = CorrectTab()
    for name, value in fields.items():
        widget = tab.cells[name] if name in tab.cells else getattr(tab, name)
        widget.value = value
    assert not tab.run()
    assert words.lower() in tab.last_error.lower()
    assert not tab.figure.visible
