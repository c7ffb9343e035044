"""The web app without a browser: widgets set in Python, the run callbacks called directly.

What a browser test relies on is checked here first: the css classes of the matrix tab, the
summary table equal to ``bcm.summary`` of the documented fit, every bad input shown in an
element with the class ``bcm-error`` (never raised), and ``serve(port=0)`` answering HTTP.
"""

from __future__ import annotations

import asyncio
import socket
import sys
import urllib.request

import numpy as np
import pandas as pd
import pytest

import bayescm as bcm

pytest.importorskip("panel")

from bayescm.app.layout import AppPage, create_page
from bayescm.app.matrixjob import MatrixJob
from bayescm.cli import main
from conftest import page_table


@pytest.fixture
def page() -> AppPage:
    return create_page(autorun=False)


def set_cells(page: AppPage, **cells: str) -> None:
    for name, value in cells.items():
        page.matrix.inputs.cells[name].value = value


def shown_errors(controller) -> list[str]:
    return [a.object for a in controller.errors.values() if a.visible and a.object]


# ----------------------------------------------------------------------------- the contract
def test_matrix_tab_widgets_carry_the_contract_css_classes(page: AppPage) -> None:
    tab = page.matrix
    for cell in ("tp", "fn", "tn", "fp"):
        assert tab.inputs.cells[cell].css_classes == [f"bcm-cell-{cell}"]
    assert tab.seed.css_classes == ["bcm-seed"] and tab.seed.value == "1"
    assert tab.draws.css_classes == ["bcm-draws"]
    assert tab.button.css_classes == ["bcm-run"]
    assert "bcm-summary" in tab.summary.css_classes
    assert all("bcm-error" in alert.css_classes for alert in tab.errors.values())


def test_summary_table_is_bcm_summary_of_the_documented_fit(page: AppPage) -> None:
    set_cells(page, tp="30", fn="5", tn="50", fp="7")
    page.matrix.seed.value, page.matrix.draws.value = "3", "2000"
    assert page.matrix.run() is True
    cm = bcm.ConfusionMatrix.from_counts(tp=30, fn=5, tn=50, fp=7)
    idata = bcm.fit(cm, draws=2000, random_seed=3)
    shown = page_table(page.matrix.summary.object)
    expected = bcm.summary(idata)
    assert list(shown.index) == list(page.matrix.metrics.value)
    assert set(shown.index) <= set(expected.index)
    for column in ("mean", "hdi_lower", "hdi_upper", "mu"):
        values = shown[column].astype(float).to_numpy()
        assert all(len(v.split(".")[1]) >= 4 for v in shown[column])
        np.testing.assert_allclose(values, expected.loc[shown.index, column], atol=5e-5)
    assert page.matrix.result.table.equals(bcm.summary(idata, var_names=list(shown.index)))


def test_reproduce_snippet_gives_the_page_numbers_with_priors_and_deployment(
        page: AppPage) -> None:
    tab = page.matrix
    tab.draws.value = "500"
    tab.priors.overall.value = "jeffreys"
    tpr = tab.priors.editors["tpr"]
    tpr.form.value = "mean"
    tpr.inputs["mean"].value, tpr.inputs["concentration"].value = "0.9", "20"
    tnr = tab.priors.editors["tnr"]
    tnr.form.value = "interval"
    tnr.inputs["lower"].value, tnr.inputs["upper"].value = "0.6", "0.9"
    tab.deployment.value = "0.05"
    tab.metrics.value = ["prevalence", "ppv", "npv", "bm"]
    assert tab.run() is True, tab.last_error
    scope: dict = {}
    exec(tab.result.job.code(), scope)  # the snippet shown on the page (test code only)
    assert tab.result.table.equals(scope["table"])
    assert tab.result.deployed_table.equals(scope["deployed_table"])
    deployed = bcm.summary(scope["deployed"], var_names=["ppv", "npv", "bm"])
    assert tab.result.deployed_table.equals(deployed)
    assert tab.deployed_summary.visible and "bcm-summary-deployed" in \
        tab.deployed_summary.css_classes
    assert "P(informative)" in tab.informed.object


def test_a_fixed_prevalence_is_left_out_of_the_table(page: AppPage) -> None:
    tab = page.matrix
    tab.draws.value = "300"
    _prior(page, "prevalence", "fixed", value="0.5")
    assert tab.run() is True, tab.last_error
    assert "prevalence" not in tab.result.table.index
    scope: dict = {}
    exec(tab.result.job.code(), scope)
    assert tab.result.table.equals(scope["table"])


@pytest.mark.filterwarnings("ignore:The weak prior puts")
def test_multiclass_table_pasted(page: AppPage) -> None:
    tab = page.matrix
    tab.inputs.mode.value = "table"
    tab.inputs.table.value = "truth;a;b;c\na;9;1;0\nb;2;7;1\nc;0;1;5\n"
    tab.draws.value = "500"
    assert tab.run() is True, tab.last_error
    assert set(tab.metrics.value) <= set(bcm.metrics.list_metrics("multiclass").index)
    cm = bcm.ConfusionMatrix([[9, 1, 0], [2, 7, 1], [0, 1, 5]], labels=["a", "b", "c"])
    idata = bcm.fit(cm, draws=500, random_seed=1)
    assert tab.result.table.equals(bcm.summary(idata, var_names=list(tab.metrics.value)))
    assert any("prior" in note.lower() for note in tab.warnings + tab.result.warnings)


def test_two_class_table_without_positive_class_is_multiclass(page: AppPage) -> None:
    tab = page.matrix
    tab.inputs.mode.value = "table"
    tab.inputs.table.value = "t,yes,no\nyes,20,5\nno,4,30\n"
    assert not tab.priors.editors["tpr"].view.visible
    prevalence = tab.priors.editors["prevalence"]
    assert "mean" not in prevalence.form.options.values()
    prevalence.form.value = "fixed"
    prevalence.inputs["value"].value = "0.3, 0.7"
    tab.draws.value = "300"
    assert tab.run() is True, tab.last_error
    assert tab.result.job.family == "multiclass"
    assert tab.result.job.priors == {"prevalence": bcm.Fixed((0.3, 0.7))}
    prevalence.inputs["value"].value = "0.3, 0.6"
    assert tab.run() is False and "add up to 1" in tab.errors["priors"].object


@pytest.mark.slow  # seconds: three files written, one a netCDF
def test_downloads_serve_the_summary_the_result_and_the_figure(page: AppPage, tmp_path) -> None:
    tab = page.matrix
    assert all(d.disabled for d in tab.downloads)
    tab.draws.value = "300"
    assert tab.run()
    summary_csv, result_nc, figure_png = (d.callback() for d in tab.downloads)
    table = pd.read_csv(summary_csv, index_col=0)
    assert list(table.index) == list(tab.result.table.index)
    (tmp_path / "r.nc").write_bytes(result_nc.getvalue())
    assert bcm.load(tmp_path / "r.nc").attrs["draws"] == 300
    assert figure_png.getvalue()[:4] == b"\x89PNG"


# ----------------------------------------------------------------------------- bad input
BAD_MATRIX_INPUTS = [
    ({"tp": "-1"}, "negative"),
    ({"fn": "2.5"}, "whole number"),
    ({"tn": ""}, "missing"),
    ({"fp": "__import__('os').system('true')"}, "whole number"),
    ({"tp": "1e400"}, "whole number"),
]


@pytest.mark.parametrize(("cells", "words"), BAD_MATRIX_INPUTS)
def test_bad_cells_show_an_inline_error(page: AppPage, cells: dict, words: str) -> None:
    set_cells(page, **cells)
    assert page.matrix.run() is False
    errors = shown_errors(page.matrix)
    assert len(errors) == 1 and words in errors[0]
    assert page.matrix.errors["matrix"].visible
    assert page.matrix.result is None and "Analyse" in page.matrix.summary.object


def _prior(page: AppPage, parameter: str, form: str, **fields: str) -> None:
    editor = page.matrix.priors.editors[parameter]
    editor.form.value = form
    for name, value in fields.items():
        editor.inputs[name].value = value


BAD_SETTINGS = [
    (lambda p: setattr(p.matrix.seed, "value", "seven"), "settings", "seed"),
    (lambda p: setattr(p.matrix.draws, "value", "0"), "settings", "at least 1"),
    (lambda p: setattr(p.matrix.draws, "value", "10000000"), "settings", "at most"),
    (lambda p: setattr(p.matrix.deployment, "value", "1.5"), "prevalence", "between 0 and 1"),
    (lambda p: setattr(p.matrix.deployment, "value", "often"), "prevalence", "number"),
    (lambda p: _prior(p, "tpr", "mean", mean="1.5", concentration="10"), "priors", "mean"),
    (lambda p: _prior(p, "tnr", "interval", lower="0.9", upper="0.8"), "priors", "smaller"),
    (lambda p: _prior(p, "tpr", "beta", a="-1", b="2"), "priors",
     "The first parameter (a) of the tpr prior must be above 0, got -1."),
    (lambda p: _prior(p, "prevalence", "fixed", value="1"), "priors", "between 0 and 1"),
    (lambda p: _prior(p, "tpr", "mean", mean="", concentration="3"), "priors", "missing"),
    (lambda p: setattr(p.matrix.priors.overall, "value", "haldane"), "priors", "FN = 0"),
    (lambda p: setattr(p.matrix.inputs.positive_label, "value", "negative"), "matrix",
     "different names"),
]


@pytest.mark.parametrize(("change", "field", "words"), BAD_SETTINGS)
def test_bad_settings_and_impossible_priors_show_an_inline_error(
        page: AppPage, change, field: str, words: str) -> None:
    page.matrix.draws.value = "200"
    change(page)
    assert page.matrix.run() is False
    assert page.matrix.errors[field].visible, shown_errors(page.matrix)
    assert words in page.matrix.errors[field].object
    if field in page.matrix.cards:  # the message is in an optional card: it is opened
        assert page.matrix.cards[field].collapsed is False


def test_optional_settings_start_closed_and_the_first_screen_stays_short(page: AppPage) -> None:
    """Priors, deployment prevalence and metrics are cards that open on a click; the matrix,
    the sampling settings, the button and the status line come first (the browser test
    measures that they are in view at 1280 x 800)."""
    tab = page.matrix
    assert set(tab.cards) == {"priors", "prevalence", "metrics"}
    assert all(card.collapsed for card in tab.cards.values())
    inputs = tab.view.objects[0].objects
    order = [id(o) for o in inputs]
    assert order.index(id(tab.button)) < order.index(id(tab.cards["priors"]))
    assert order.index(id(tab.status)) == order.index(id(tab.button)) + 1
    for controller in (page.planning, page.compare, page.scores, page.items):
        column = [id(o) for o in controller.view.objects[0].objects]
        assert column.index(id(controller.status)) == column.index(id(controller.button)) + 1


BAD_TABLES = [
    ("a,b\n1,2\n", "at least 2 rows"),
    ("x,a,b\na,1,2\nb,3\n", "cells"),
    ("x,a,b\na,1,-2\nb,3,4\n", "non-negative whole number"),
    ("x,a,b\na,1,2\nc,3,4\n", "same classes"),
    ("", "empty"),
]


@pytest.mark.parametrize(("text", "words"), BAD_TABLES)
def test_bad_tables_show_an_inline_error(page: AppPage, text: str, words: str) -> None:
    page.matrix.inputs.mode.value = "table"
    page.matrix.inputs.table.value = text
    assert page.matrix.run() is False
    assert words in page.matrix.errors["matrix"].object


def test_bad_upload_and_unknown_positive_class(page: AppPage) -> None:
    inputs = page.matrix.inputs
    inputs.mode.value = "table"
    inputs.upload.value = b"\x00\x01binary"
    assert page.matrix.run() is False
    assert "not a text" in page.matrix.errors["matrix"].object
    inputs.upload.value = b"t,yes,no\nyes,5,1\nno,2,9\n"
    inputs.positive.value = "maybe"
    assert page.matrix.run() is False
    assert "'maybe' is not one of" in page.matrix.errors["matrix"].object
    inputs.positive.value = "yes"
    page.matrix.draws.value = "200"
    assert page.matrix.run() is True
    assert page.matrix.result.job.matrix.cells == {"tp": 5, "fn": 1, "fp": 2, "tn": 9}


def test_an_unexpected_failure_is_reported_not_raised(page: AppPage, monkeypatch) -> None:
    def broken(self):
        raise RuntimeError("boom")

    monkeypatch.setattr(MatrixJob, "run", broken)
    assert page.matrix.run() is False
    assert "Unexpected error (RuntimeError: boom)" in page.matrix.errors["run"].object


# ----------------------------------------------------------------------------- off the loop
@pytest.mark.slow  # seconds: an event loop and the worker thread
def test_runs_off_the_event_loop_and_a_newer_run_wins(page: AppPage) -> None:
    tab = page.matrix
    tab.draws.value = "300"

    async def two_runs() -> list[bool]:
        tab.seed.value = "1"
        first = asyncio.ensure_future(tab.run_async())
        await asyncio.sleep(0)  # the first run is now waiting for its worker
        assert tab.busy.loading and tab.button.disabled
        tab.seed.value = "2"
        second = asyncio.ensure_future(tab.run_async())
        return list(await asyncio.gather(first, second))

    assert asyncio.run(two_runs()) == [False, True]
    assert tab.result.job.seed == 2
    assert not tab.busy.loading and not tab.button.disabled
    assert tab.status.object.startswith("Done")


# ----------------------------------------------------------------------------- other tabs
def test_planning_tab(page: AppPage) -> None:
    tab = page.planning
    tab.sims.value, tab.mu.value, tab.n.value = "500", "0.2", "50"
    assert tab.run() is True
    table = page_table(tab.summary.object)
    assert table.loc["rule of thumb for the target MU (N = 4 / MU^2)", "n"] == "100"
    assert float(table.loc["your N, rule of thumb (MU = 2 / sqrt(N))", "mu"]) == pytest.approx(
        2 / 50**0.5, abs=5e-5)
    tab.concentration.value = "2"
    assert tab.run() is False and "concentration" in tab.errors["input"].object


# slow: fits both comparison modes of the app; the slow run (CI) checks it
@pytest.mark.slow
def test_compare_tab_both_modes_and_bad_input(page: AppPage) -> None:
    tab = page.compare
    tab.draws.value = "500"
    assert tab.run() is True
    table = page_table(tab.summary.object)
    a = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    b = bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4)
    idata = bcm.fit({"A": a, "B": b}, draws=500, random_seed=1, metrics=list(tab.metrics.value))
    assert float(table.loc["bm", "P(A better)"]) == pytest.approx(
        bcm.prob_superior(idata, "A", "B", metric="bm"), abs=5e-5)
    tab.mode.value = "paired"
    assert tab.run() is True
    assert "P(A better)" in tab.summary.object
    tab.positive.value = "7"
    assert tab.run() is False and "7" in tab.last_error
    tab.cells["a"]["tp"].value = "x"
    tab.mode.value = "separate"
    assert tab.run() is False and "A's TP" in tab.errors["input"].object


def test_scores_tab_fits_and_refuses_a_bad_file(page: AppPage) -> None:
    tab = page.scores
    tab.draws.value = "200"
    assert tab.run() is True
    table = page_table(tab.aucs.object)
    assert list(table.index) == ["score_standard", "score_new"]
    assert tab.deltas.visible and tab.figure.visible
    assert tab.downloads[1].callback().getvalue()[:4] == b"\x89PNG"
    tab.upload.value = b"y,s\n1,0.5\n1,0.7\n"
    assert tab.run() is False and "two classes" in tab.errors["input"].object


# ----------------------------------------------------------------------------- serving
def test_cli_app_help_works(capsys) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["app", "--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert "--port" in out and "--no-show" in out and "--address" in out


def test_cli_app_without_panel_says_how_to_install_it(monkeypatch, capsys) -> None:
    monkeypatch.setitem(sys.modules, "panel", None)
    assert main(["app", "--no-show"]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1
    assert "pip install 'bayescm[app]'" in err and "scripts/setup.sh app" in err


def test_cli_app_port_in_use(capsys) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        assert main(["app", "--port", str(port), "--no-show"]) == 2
    assert "already in use" in capsys.readouterr().err


@pytest.mark.slow  # seconds: a real server, as the browser test starts one
def test_serve_on_a_free_port_answers_and_stops() -> None:
    app = bcm.app.serve(port=0)
    try:
        assert app.port > 0
        for _ in range(2):  # two sessions, each with its own page
            with urllib.request.urlopen(app.url, timeout=30) as response:
                assert response.status == 200
                assert b"bayescm" in response.read()
    finally:
        app.stop()
    with pytest.raises(ConnectionRefusedError), socket.create_connection(
            ("127.0.0.1", app.port), timeout=2):
        pass


def test_claim_form_plans_what_required_n_claim_plans() -> None:
    from bayescm.app.claim_form import ClaimForm, ClaimJob

    table, png = ClaimJob(claim="tpr > 0.9", mean=0.95, concentration=100, n=80).run()
    want = bcm.samplesize.required_n_claim("tpr > 0.9", 0.8, {"tpr": bcm.Beta(95, 5)}, 0.95)
    assert int(table.loc["smallest N with the wanted assurance", "n"]) == want.n
    mine = bcm.samplesize.assurance("tpr > 0.9", [80], {"tpr": bcm.Beta(95, 5)})
    assert table.loc["your N", "assurance"] == pytest.approx(float(mine.assurance[0]))
    assert png[:4] == b"\x89PNG"
    form = ClaimForm()
    form.claim.value, form.mean.value, form.n.value = "fpr < 0.1", "0.03", "60"
    assert form.run()
    form.mean.value = "0.95"  # a design that makes the claim all but impossible: said so
    assert not form.run() and "design prior" in form.last_error
    form.claim.value = "tpr is good"
    assert not form.run() and "claim" in form.last_error.lower()
    form.claim.value, form.concentration.value = "tpr > 0.9", "1"  # not > 2
    assert not form.run() and "concentration" in form.last_error


def test_decision_tab_fits_the_tutorial_cohort_and_refuses_bad_input(page: AppPage) -> None:
    tab = page.decisions
    tab.draws.value, tab.low.value, tab.high.value = "100", "0.05", "0.2"
    assert tab.run() is True
    table = page_table(tab.nb.object)
    assert "cancerpredmarker @ 0.1" in table.index and "famhistory @ 0.2" in table.index
    assert float(table.loc["cancerpredmarker @ 0.1", "observed"]) == pytest.approx(0.0874,
                                                                                    abs=1e-4)
    assert tab.figure.visible and tab.downloads[1].callback().getvalue()[:4] == b"\x89PNG"
    assert b"cancerpredmarker" in tab.downloads[0].callback().getvalue()
    tab.low.value = "0"
    assert tab.run() is False and "strictly between 0 and 1" in tab.errors["input"].object
    tab.low.value = "0.05"
    tab.upload.value = b"y,s\n1,0.5\n0,1.7\n"
    assert tab.run() is False and "need risks" in tab.errors["input"].object
    tab.upload.value = b"y,s\n1,0.5\n1,0.7\n"
    assert tab.run() is False and "two classes" in tab.errors["input"].object
