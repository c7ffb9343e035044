"""The app's folds-and-runs form: the tables and forests of ``bayescm runs``, and refusals.

The fast tests stand the exact kind of tests/test_runs.py in for the NUTS fit
(``runs_form._fit``); the slow test fits the page's example with NUTS.
"""

from __future__ import annotations

from typing import Any

import pytest
from test_runs import ExactFolds  # registers the exact stand-in kind

pn = pytest.importorskip("panel")

import bayescm as bcm  # noqa: E402
from bayescm.app import runs_form  # noqa: E402
from bayescm.app.runs_form import EXAMPLE, RunsForm, RunsJob, runs_from_csv  # noqa: E402


@pytest.fixture
def exact(monkeypatch: pytest.MonkeyPatch) -> None:
    assert ExactFolds.key == "test_exact_folds"
    monkeypatch.setattr(runs_form, "_fit", lambda data, **kw: bcm.fit(
        data, model="test_exact_folds", **kw))


@pytest.mark.slow  # two forests drawn, ~2 s; the form's test below is its faster sibling
def test_the_job_gives_each_procedure_s_table_and_the_paired_differences(exact: None) -> None:
    tables, compared, figures = RunsJob(runs_from_csv(EXAMPLE), draws=200, seed=3).run()
    assert list(tables) == ["baseline", "augmented"]
    assert list(tables["baseline"].index) == ["acc", "f1_macro", "tpr_macro"]
    assert {"pooled", "spread", "new_lower", "new_upper"} <= set(tables["baseline"].columns)
    assert compared is not None
    assert compared.loc[("acc", "mean over folds"), "mean"] < 0  # baseline - augmented
    assert len(figures) == 2 and all(f[:4] == b"\x89PNG" for f in figures)


def test_the_form_shows_the_runs_and_refuses_bad_tables(exact: None) -> None:
    form = RunsForm()
    one = "\n".join(line.partition(",")[2] for line in EXAMPLE.splitlines()
                    if not line.startswith("augmented"))
    form.table.value, form.draws.value = one, "100"
    assert form.run() is True
    text = str(form.summary.object)
    assert "pooled" in text and "Difference" not in text and len(form.figure.objects) == 1
    form.draws.value = "0"
    assert form.run() is False and "raws per chain" in str(form.last_error)
    form.draws.value = "100"
    form.table.value = "run,true,count\nf1,a,3\n"
    assert form.run() is False and "predicted" in str(form.last_error)
    assert form.summary.object == "" and not form.figure.visible


@pytest.mark.slow
def test_the_page_s_example_fits_with_nuts() -> None:
    form = RunsForm()
    form.draws.value = "300"
    assert form.run() is True
    assert "Difference baseline - augmented" in str(form.summary.object)
    assert len(form.figure.objects) == 2


def test_the_page_places_the_form_in_the_comparison_tab() -> None:
    from bayescm.app.layout import create_page

    page: Any = create_page(autorun=False)
    assert isinstance(page.runs, RunsForm)
