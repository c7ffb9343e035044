"""The app's no-gold-standard form: the table and figure of ``bayescm latent``, and refusals.

The fast tests stand a tree laid out from draws near the EM estimates in for the NUTS fit
(``latent_form._fit``, :func:`~bayescm.models.latent_examples.tree_near_em`); the slow test
fits the page's example with NUTS.
"""

from __future__ import annotations

from typing import Any

import pytest

pn = pytest.importorskip("panel")

from bayescm.app import latent_form  # noqa: E402
from bayescm.app.latent_form import (  # noqa: E402
    EXAMPLE,
    NONE,
    LatentForm,
    LatentJob,
    results_from_csv,
)
from bayescm.models.hui_walter import check_identifiable  # noqa: E402
from bayescm.models.latent_examples import tree_near_em  # noqa: E402


@pytest.fixture
def near_em(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []

    def stand_in(data: Any, **kwargs: Any) -> Any:
        calls.append({"data": data, **kwargs})
        check_identifiable(data, {})  # as the fit does before sampling
        return tree_near_em(data)

    monkeypatch.setattr(latent_form, "_fit", stand_in)
    return calls


def test_the_widgets_carry_the_contract_css_classes() -> None:
    form = LatentForm()
    for widget, css in ((form.table, "bcm-latent-table"), (form.upload, "bcm-latent-file"),
                        (form.tests, "bcm-latent-tests"),
                        (form.population, "bcm-latent-population"),
                        (form.draws, "bcm-latent-draws"), (form.seed, "bcm-latent-seed"),
                        (form.button, "bcm-latent-run"), (form.status, "bcm-latent-status"),
                        (form.summary, "bcm-latent-summary"), (form.figure, "bcm-latent-figure")):
        assert css in widget.css_classes


def test_the_form_offers_the_columns_and_guesses_the_population() -> None:
    form = LatentForm()
    assert form.population.value == "herd" and form.tests.value == ["elisa", "pcr", "culture"]
    form.table.value = "a,b,c\n1,0,1\n0,0,\n"
    assert form.population.value == NONE and form.tests.value == ["a", "b", "c"]
    assert form.population.options == [NONE, "a", "b", "c"]


def test_the_form_fits_with_the_defaults_and_shows_the_table_and_figure(near_em) -> None:
    form = LatentForm()
    form.draws.value, form.seed.value = "200", "7"
    assert form.run() is True, form.last_error
    (call,) = near_em
    assert call["draws"] == 200 and call["random_seed"] == 7
    assert set(call) == {"data", "draws", "random_seed"}  # bcm.fit's defaults otherwise
    assert call["data"].has_missing and call["data"].populations == ["north", "south"]
    text = str(form.summary.object)
    for row in ("prevalence[north]", "tpr[culture]", "tnr[elisa]"):
        assert row in text
    assert "200 subjects (54 with missing results), 3 tests, 2 population(s)" in text
    assert form.figure.visible and form.figure.object[:4] == b"\x89PNG"
    assert form.status.object == "Done."


def test_the_job_gives_the_cli_s_table(near_em) -> None:
    from bayescm.cli_latent import reported

    results = results_from_csv(EXAMPLE, ["elisa", "pcr", "culture"], "herd")
    table, figure = LatentJob(results, draws=100, seed=2).run()
    assert list(table.index) == list(reported(tree_near_em(results)).index)
    assert figure[:4] == b"\x89PNG"


@pytest.mark.parametrize(("table", "tests", "population", "words"), [
    ("a,b\n1,0\n", ["a"], NONE, "at least two test columns"),
    ("a,b,h\n1,0,x\n", ["a", "h"], "h", "chosen as a test and as the population"),
    ("a,b\n1,0\n2,1\n", ["a", "b"], NONE, "row 3: '2' is not a test result"),
    ("a,b,h\n1,0,x\n,,y\n", ["a", "b"], "h", "row 3: every test result is missing"),
    ("a,b\n1,\n0,\n", ["a", "b"], NONE, "test 'b' has no result on any subject"),
    ("a,b\n1,0\n0", ["a", "b"], NONE, "line 3"),
])
def test_bad_tables_are_named_and_the_page_keeps_working(table, tests, population, words,
                                                        near_em) -> None:
    form = LatentForm()
    form.table.value = table
    form.tests.value, form.population.value = tests, population
    assert form.run() is False
    assert words.lower() in str(form.last_error).lower()
    assert form.summary.object == "" and not form.figure.visible
    assert not near_em  # refused before any fit


def test_bad_draws_and_uploads_are_named(near_em) -> None:
    form = LatentForm()
    form.draws.value = "0"
    assert form.run() is False and "raws per chain" in str(form.last_error)
    form.draws.value = "100"
    form.load_upload(b"a,b,population\n1,0,x\n0,,y\n1,1,y\n")
    assert form.tests.value == ["a", "b"] and form.population.value == "population"
    assert form.run() is True
    form.load_upload(b"")
    assert "empty" in str(form.last_error)


def test_an_unidentified_model_is_a_note_beside_the_results(near_em) -> None:
    form = LatentForm()
    form.table.value = "a,b\n1,1\n0,0\n1,0\n0,1\n1,1\n"
    assert form.run() is True
    assert any("not identified" in w for w in form.warnings)


def test_the_page_places_the_form_in_the_imperfect_labels_tab() -> None:
    from bayescm.app.layout import create_page

    page: Any = create_page(autorun=False)
    assert isinstance(page.latent, LatentForm)


@pytest.mark.slow
def test_the_page_s_example_fits_with_nuts() -> None:
    form = LatentForm()
    form.draws.value = "300"
    assert form.run() is True, form.last_error
    assert "tpr[pcr]" in str(form.summary.object) and form.figure.visible
