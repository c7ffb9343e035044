"""Specs of item-level evaluation logs: the data, priors, options and outputs, and their errors.

No NUTS: the outputs are written from a tree assembled from NumPy draws
(``conftest.synthetic_items_fit``); the shipped spec runs with NUTS in ``test_spec.py``'s slow
run of every spec.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import bayescm as bcm
from bayescm import cli_run
from bayescm.errors import CSVFormatError, SpecError
from bayescm.io.runner import eval_table, write_outputs
from bayescm.io.spec import load_spec, parse_spec
from conftest import synthetic_items_fit

SPEC = Path(__file__).resolve().parents[1] / "models" / "eval_log.toml"
COLUMNS = {"outcome": "correct", "item": "question", "cluster": "subdomain", "system": "model",
           "attempt": "epoch"}


def test_the_shipped_spec_reads_the_packaged_log_with_its_priors() -> None:
    spec = load_spec(SPEC)
    log = bcm.datasets.eval_log()
    assert isinstance(spec.data, bcm.Items)
    assert spec.data.systems == log.systems and spec.data.items == log.items
    np.testing.assert_array_equal(spec.data.successes, log.successes)
    np.testing.assert_array_equal(spec.data.attempts, log.attempts)
    assert spec.data.clusters == log.clusters and spec.data.columns == COLUMNS
    priors = spec.priors["priors"]
    assert priors["sd_item"] == bcm.priors.HalfNormal(2.5)
    assert priors["mu_logit"] == bcm.priors.Normal(0.0, 3.0)
    assert spec.tables == ("summary", "eval")
    assert spec.figures == ("items_accuracy", "items_differences", "items_ranks", "pass_at_k")
    kwargs = spec.fit_kwargs(draws=50)
    assert kwargs == {"priors": priors, "draws": 50, "chains": 4, "random_seed": 1,
                      "tune": 1000}


def test_a_dataset_and_the_defaults() -> None:
    spec = parse_spec({"data": {"dataset": "eval_log"}}, name="log")
    assert isinstance(spec.data, bcm.Items) and spec.priors == {}
    assert spec.tables == ("summary", "eval")
    assert spec.figures == ("items_accuracy", "items_differences", "items_ranks", "pass_at_k")


def test_one_system_without_clusters_from_label_and_prediction(tmp_path) -> None:
    (tmp_path / "log.csv").write_text("q,truth,answer\nq1,A,A\nq1,A,B\nq2,C,C\nq3,D,D\n")
    spec = parse_spec({"data": {"items": "log.csv", "item": "q", "label": "truth",
                                "prediction": "answer"},
                       "priors": {"sd_item": {"dist": "LogNormal", "mu": 0, "sigma": 1}}},
                      name="one", source=tmp_path / "one.toml")
    assert spec.data.successes.tolist() == [[1, 1, 1]]
    assert spec.data.attempts.tolist() == [[2, 1, 1]]
    assert spec.figures == ("items_accuracy", "pass_at_k")
    assert spec.priors["priors"]["sd_item"] == bcm.priors.LogNormal(0.0, 1.0)


@pytest.fixture
def log_csv(tmp_path: Path) -> Path:
    path = tmp_path / "log.csv"
    frame = pd.DataFrame({"q": [1, 1, 2, 2, 3, 3], "model": ["a", "b"] * 3,
                          "right": [1, 0, 1, 1, 0, 1]})
    frame.to_csv(path, index=False)
    return path


def _parse(source: Path, data: dict[str, Any] | None = None, **tables: Any) -> Any:
    raw: dict[str, Any] = {"data": {"items": "log.csv", "item": "q", "outcome": "right",
                                    "system": "model", **(data or {})}, **tables}
    return parse_spec(raw, name="x", source=source.parent / "x.toml")


@pytest.mark.parametrize(("data", "tables", "message"), [
    ({"passage": "p"}, {}, "unknown key 'passage' in [data]; allowed: items, outcome"),
    ({"label": "right"}, {}, "gives outcome and label/prediction"),
    ({"outcome": None, "label": "right"}, {}, "label and prediction go together"),
    ({"item": 3}, {}, "[data] item names a column of the log (a string), got 3"),
    ({"cluster": "model"}, {}, "the column 'model' is named for two roles"),
    ({}, {"priors": {"sd": {"dist": "HalfNormal", "sigma": 1}}},
     "unknown key 'sd' in [priors]; allowed: mu_logit, sd_cluster, sd_item, sd_system_item"),
    ({}, {"priors": {"sd_item": "laplace"}}, "[priors] sd_item: give a table such as"),
    ({}, {"priors": {"sd_item": {"dist": "Normal", "mu": 0, "sigma": 1}}},
     "[priors] sd_item: priors={'sd_item': Normal(mu=0.0, sigma=1.0)}: sd_item is a standard "
     "deviation"),
    ({}, {"priors": {"sd_cluster": {"dist": "HalfNormal", "sigma": 1}}},
     "[priors] sd_cluster: priors={'sd_cluster': ...}: the log has no clusters"),
    ({}, {"options": {"threshold": 0.5}},
     "options.threshold does not apply to an evaluation log; the items model takes draws"),
    ({}, {"options": {"model": "hierarchical", "group": "g"}}, "options.model does not apply"),
    ({}, {"options": {"method": "exact"}}, "options.method must be 'auto' or 'nuts'"),
    ({}, {"options": {"tune": -1}}, "options.tune must be a whole number >= 0"),
    ({}, {"outputs": {"tables": ["informedness"]}},
     "outputs.tables: 'informedness' does not apply to an evaluation log"),
    ({}, {"outputs": {"figures": ["forest"]}},
     "outputs.figures: 'forest' draws confusion matrices or scores; an evaluation log has"),
    ({}, {"outputs": {"figure_metrics": ["acc"]}}, "outputs.figure_metrics does not apply"),
])
def test_bad_keys_are_named(log_csv, data, tables, message) -> None:
    with pytest.raises(SpecError) as err:
        _parse(log_csv, data, **tables)
    assert message in str(err.value)
    assert str(err.value).startswith(str(log_csv.parent / "x.toml"))


def test_a_bad_outcome_names_the_file_and_the_line(tmp_path) -> None:
    (tmp_path / "log.csv").write_text("q,right\nq1,1\nq2,yes\n")
    with pytest.raises(SpecError, match=r"log\.csv, column 'right': 'yes' is not an outcome .* "
                                        r"at line 3"):
        parse_spec({"data": {"items": "log.csv", "item": "q", "outcome": "right"}}, name="x",
                   source=tmp_path / "x.toml")
    with pytest.raises(CSVFormatError, match=r"log\.csv, line 1: no column\(s\) \['answer'\]; "
                                             r"the header has \['q', 'right'\]"):
        parse_spec({"data": {"items": "log.csv", "item": "q", "outcome": "answer"}},
                   name="x", source=tmp_path / "x.toml")
    with pytest.raises(FileNotFoundError, match="items: no such file"):
        parse_spec({"data": {"items": "nope.csv"}}, name="x", source=tmp_path / "x.toml")


def test_one_system_cannot_draw_differences_and_matrices_no_items_figures(tmp_path) -> None:
    (tmp_path / "log.csv").write_text("q,right\nq1,1\nq2,0\n")
    with pytest.raises(SpecError, match="'items_ranks' compares systems; the log has one"):
        parse_spec({"data": {"items": "log.csv", "item": "q", "outcome": "right"},
                    "outputs": {"figures": ["items_ranks"]}}, name="x",
                   source=tmp_path / "x.toml")
    cells = {"tp": 5, "fn": 1, "tn": 4, "fp": 2}
    with pytest.raises(SpecError, match="'pass_at_k' draws an evaluation log"):
        parse_spec({"data": cells, "outputs": {"figures": ["pass_at_k"]}}, name="x")
    with pytest.raises(SpecError, match="'eval' is the table of an evaluation log"):
        parse_spec({"data": cells, "outputs": {"tables": ["eval"]}}, name="x")


# slow: runs a whole items spec with its figures; the slow run (CI) checks it
@pytest.mark.slow
def test_outputs_of_a_log_are_written_and_reported(tmp_path, capsys) -> None:
    spec = load_spec(SPEC)
    idata = synthetic_items_fit(spec.data)
    written = write_outputs(spec, idata, tmp_path)
    assert sorted(written) == ["eval", "items_accuracy", "items_differences", "items_ranks",
                               "netcdf", "pass_at_k", "summary"]
    table = pd.read_csv(written["eval"], index_col=0)
    expected = eval_table(idata)
    assert list(table.index) == list(expected.index) == [
        "accuracy[model_a]", "accuracy[model_b]", "accuracy[model_c]",
        "accuracy_diff[model_b - model_a]", "accuracy_diff[model_c - model_a]",
        "accuracy_diff[model_c - model_b]"]
    np.testing.assert_allclose(table.to_numpy(dtype=float), expected.to_numpy(dtype=float))
    assert all(written[f].read_bytes()[:4] == b"\x89PNG" for f in (
        "items_accuracy", "items_differences", "items_ranks", "pass_at_k"))
    cli_run._report_run(spec, SPEC, idata, 1, False, written)
    out = capsys.readouterr().out
    assert ("an evaluation log (2,970 outcomes of 3 system(s) on 198 items in 16 clusters); "
            "items model") in out
    assert "eval.csv" in out and "naive and CR1 intervals" in out

