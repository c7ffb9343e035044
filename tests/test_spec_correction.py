"""Correction specs (issue 31): a ``[correction]`` table fits a rate behind an imperfect test."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayescm as bcm
from bayescm.errors import SpecError
from bayescm.io.spec import load_spec, parse_spec
from bayescm.io.spec_correction import CorrectionSpec

SPEC = Path(__file__).resolve().parents[1] / "models" / "screening_survey.toml"


def test_the_example_spec_equals_the_function_call(tmp_path):
    spec = load_spec(SPEC)
    assert isinstance(spec, CorrectionSpec) and spec.function == "true_prevalence"
    tree = spec.run(tmp_path, draws=300)
    direct = bcm.true_prevalence(142, 742, tpr=bcm.priors.Uniform(0.6, 1),
                                 tnr=bcm.priors.Uniform(0.6, 1), draws=300, chains=4,
                                 random_seed=1)
    np.testing.assert_array_equal(tree["posterior"]["prevalence"].values,
                                  direct["posterior"]["prevalence"].values)
    table = pd.read_csv(tmp_path / "summary.csv", index_col=0)
    assert table.loc["prevalence", "mean"] == pytest.approx(
        float(direct["posterior"]["prevalence"].mean()), abs=1e-9)
    assert (tmp_path / "corrected.png").stat().st_size > 1000


def test_bayescm_run_writes_and_reports(tmp_path, capsys):
    from bayescm.cli import main

    assert main(["run", str(SPEC), "--output", str(tmp_path), "--draws", "200"]) == 0
    out = capsys.readouterr().out
    assert "true_prevalence" in out and "summary.csv" in out and "corrected.png" in out
    assert (tmp_path / "summary.csv").exists()


def test_a_judge_and_several_classes_take_their_forms():
    judge = parse_spec({"correction": {
        "passed": {"A": 340, "B": 310}, "n": 500,
        "calibration": {"counts": [[110, 10], [12, 68]], "labels": ["correct", "incorrect"]},
        "tpr": {"dist": "Beta", "alpha": 2, "beta": 1}}, "options": {"draws": 100, "seed": 0}},
        name="judge")
    tree = judge.run(write=False)
    assert tree.attrs["model"] == "judged_accuracy"
    assert list(tree["posterior"]["accuracy"]["system"].values) == ["A", "B"]
    shares = parse_spec({"correction": {
        "predicted": {"cat": 250, "dog": 220, "fox": 130},
        "validation": {"counts": [[40, 6, 4], [5, 42, 3], [2, 8, 40]],
                       "labels": ["cat", "dog", "fox"]}, "prevalence": [2, 2, 2]}},
        name="shares")
    assert shares.function == "true_shares"
    assert list(shares.arguments["validation"].labels) == ["cat", "dog", "fox"]


@pytest.mark.parametrize(("correction", "words"), [
    ({"n": 10}, "one of positives"),
    ({"positives": 3, "passed": 4, "n": 10}, "one of positives"),
    ({"positives": 3}, "needs n"),
    ({"positives": 3, "n": 10, "calibration": {"tp": 1, "fn": 1, "tn": 1, "fp": 1}},
     "correction.calibration does not go with positives"),
    ({"positives": -3, "n": 10, "tpr": "beta(9, 1)", "tnr": "beta(9, 1)"},
     "correction.positives"),
    ({"positives": 3, "n": 10, "tpr": "beta(9)", "tnr": "beta(9, 1)"}, "correction.tpr"),
    ({"positives": 3, "n": 10, "validation": {"tp": 1, "fn": 1}}, "correction.validation"),
    ({"positives": 3, "n": 10, "sensitivity": "beta(9, 1)"}, "unknown key 'sensitivity'"),
])
def test_bad_tables_are_named(correction, words):
    with pytest.raises(SpecError, match=words):
        parse_spec({"correction": correction}, name="bad")


def test_a_correction_spec_does_not_mix_with_data():
    with pytest.raises(SpecError, match=r"\[data\]"):
        parse_spec({"correction": {"positives": 3, "n": 10}, "data": {"tp": 1, "fn": 1,
                                                                       "tn": 1, "fp": 1}},
                   name="mixed")
    with pytest.raises(SpecError, match=r"options\.draws"):
        parse_spec({"correction": {"positives": 3, "n": 10}, "options": {"draws": 0}},
                   name="bad")
