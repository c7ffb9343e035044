"""The app's "Evaluation log" tab without a browser: columns guessed, tables shown, errors inline.

The fast tests stand a tree assembled from NumPy draws (``conftest.synthetic_items_fit``) in for
the NUTS fit (``items_tab._fit``); one slow test fits the packaged log with NUTS on the page.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest

import bayescm as bcm

pytest.importorskip("panel")

from bayescm.analyses.items_tables import eval_tables, stack_tables
from bayescm.app import items_tab
from bayescm.app.layout import AppPage, create_page
from conftest import page_table, synthetic_items_fit


@pytest.fixture
def page() -> AppPage:
    return create_page(autorun=False)


@pytest.fixture
def fits(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Each fit the tab asks for; the tree comes without NUTS."""
    calls: list[dict[str, Any]] = []

    def fake(data: Any, **kwargs: Any) -> Any:
        calls.append({"data": data, **kwargs})
        return synthetic_items_fit(data, draws=kwargs["draws"],
                                   random_seed=kwargs["random_seed"])

    monkeypatch.setattr(items_tab, "_fit", fake)
    return calls


def _log(**columns: list[Any]) -> str:
    return pd.DataFrame(columns).to_csv(index=False)


def test_the_example_log_is_read_with_its_columns_guessed(page: AppPage, fits) -> None:
    tab = page.items
    roles = {role: widget.value for role, widget in tab.roles.items()}
    assert roles == {"outcome": "correct", "item": "question", "cluster": "subdomain",
                     "system": "model", "attempt": "epoch"}
    tab.draws.value, tab.seed.value = "120", "7"
    assert tab.run() is True, tab.last_error
    (call,) = fits
    assert (call["draws"], call["random_seed"]) == (120, 7)
    log = bcm.datasets.eval_log()
    np.testing.assert_array_equal(call["data"].successes, log.successes)
    assert call["data"].clusters == log.clusters
    systems, pairs = eval_tables(synthetic_items_fit(call["data"], draws=120, random_seed=7))
    shown = page_table(tab.accuracy.object)
    assert list(shown.index) == ["model_a", "model_b", "model_c"]
    np.testing.assert_allclose(shown[list(systems.columns)].astype(float), systems, atol=5e-5)
    diffs = page_table(tab.differences.object)
    assert tab.differences.visible and list(diffs.index) == list(pairs.index)
    np.testing.assert_allclose(diffs["p_greater"].astype(float), pairs["p_greater"], atol=5e-5)
    assert tab.figure.visible and tab.figure.object[:4] == b"\x89PNG"
    table = pd.read_csv(tab.downloads[0].callback(), index_col=0)
    np.testing.assert_allclose(table.to_numpy(dtype=float),
                               stack_tables(systems, pairs).to_numpy(dtype=float))
    assert tab.downloads[1].callback().getvalue()[:4] == b"\x89PNG"
    assert tab.status.object == "Done."


def test_one_system_without_optional_columns(page: AppPage, fits) -> None:
    tab = page.items
    tab.table.value = _log(q=[f"q{i // 2}" for i in range(40)], ok=[1, 0, 1, 1] * 10)
    assert [tab.roles[r].value for r in ("cluster", "system", "attempt")] == ["(none)"] * 3
    assert tab.roles["cluster"].options == ["(none)", "q", "ok"]
    tab.roles["outcome"].value, tab.roles["item"].value = "ok", "q"
    assert tab.run() is True, tab.last_error
    log = fits[0]["data"]
    assert log.n_items == 20 and log.n_systems == 1 and log.clusters is None
    assert list(page_table(tab.accuracy.object).index) == ["A"]
    assert not tab.differences.visible


def test_items_some_systems_skipped_become_a_note(page: AppPage, fits) -> None:
    tab = page.items
    tab.table.value = _log(item=["a", "a", "b", "c", "c"], model=["x", "y", "x", "x", "y"],
                           correct=[1, 0, 1, 0, 1])
    assert tab.roles["system"].value == "model"
    assert tab.run() is True, tab.last_error
    assert tab.notes.visible and "1 of 3 items were not answered by every system" in \
        tab.notes.object


@pytest.mark.parametrize(("log", "roles", "words"), [
    ({"item": ["a", "b"], "correct": [1, 2]}, {}, "'2' is not an outcome"),
    ({"item": ["a", "a"], "passage": ["p", "q"], "correct": [1, 0]}, {},
     "item 'a' is in cluster 'q' here but in 'p'"),
    ({"item": ["a", "a"], "epoch": [1, 1], "correct": [1, 0]}, {},
     "attempt '1' appears twice"),
    ({"item": ["a", ""], "correct": [1, 0]}, {}, "line 3, column 'item': the cell is empty"),
    ({"item": ["a", "b"], "correct": [1, 0]}, {"outcome": "item"},
     "the column 'item' is named for two roles"),
])
def test_bad_logs_show_an_inline_error(page: AppPage, fits, log, roles, words) -> None:
    tab = page.items
    tab.table.value = _log(**log)
    for role, value in roles.items():
        tab.roles[role].value = value
    assert tab.run() is False
    assert words.lower() in tab.errors["input"].object.lower() and tab.errors["input"].visible
    assert not fits and not tab.figure.visible
    assert all(d.disabled for d in tab.downloads)


def test_bad_settings_show_an_inline_error(page: AppPage, fits) -> None:
    tab = page.items
    tab.draws.value = "0"
    assert tab.run() is False and "Draws per chain must be at least 1" in tab.errors[
        "input"].object
    tab.draws.value, tab.seed.value = "100", "-3"
    assert tab.run() is False and "random seed" in tab.errors["input"].object
    assert not fits
    tab.seed.value = "1"
    before = tab.table.value
    tab.upload.value = "item,correct\nq1,1\n".encode("utf-16")
    assert "UTF-16" in tab.errors["input"].object and tab.table.value == before


@pytest.mark.slow  # NUTS on the packaged log: about 10 s
def test_the_tab_fits_the_example_with_nuts(page: AppPage) -> None:
    tab = page.items
    tab.draws.value, tab.seed.value = "150", "3"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert tab.run() is True, tab.last_error
        idata = bcm.fit(bcm.datasets.eval_log(), draws=150, random_seed=3)
    systems, _ = eval_tables(idata)
    shown = page_table(tab.accuracy.object)
    np.testing.assert_allclose(shown["mean"].astype(float), systems["mean"], atol=5e-5)
