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


def test_the_audit_form_shows_the_population_beside_the_naive_reading():
    from bayescm.app.audit_form import EXAMPLE, AuditForm, AuditJob
    from bayescm.app.parse import audit_from_csv

    table, png = AuditJob(audit_from_csv(EXAMPLE), seed=4).run()
    audit = bcm.StratifiedSample(
        {"flagged": bcm.ConfusionMatrix.from_counts(tp=150, fn=0, tn=0, fp=50),
         "unflagged": bcm.ConfusionMatrix.from_counts(tp=0, fn=3, tn=297, fp=0)},
        {"flagged": 3000, "unflagged": 997000})
    direct = bcm.fit(audit, draws=2500, random_seed=4, metrics=["tpr"])
    assert table.loc["tpr", "mean"] == pytest.approx(float(direct["posterior"]["tpr"].mean()))
    assert table.loc["tpr", "naive"] == pytest.approx(150 / 153, abs=1e-5)
    assert png[:4] == b"\x89PNG"
    form = AuditForm()
    form.table.value = "stratum;size;tp;fn;tn;fp\nflagged;3000;150;0;0;50\n"  # a paste with ;
    assert form.run()
    for bad, words in (("stratum,tp,fn,tn,fp\na,1,0,0,1\n", "size"),
                       ("stratum,size,tp,fn,tn,fp\na,10,1,0,0,x\n", "line 2")):
        form.table.value = bad
        assert not form.run() and words in form.last_error
