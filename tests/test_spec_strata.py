"""Stratified audits in specs (issue 30): ``[data.strata]`` and ``[data.sizes]``."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import bayescm as bcm
from bayescm.errors import SpecError
from bayescm.io.spec import load_spec, parse_spec

SPEC = Path(__file__).resolve().parents[1] / "models" / "fraud_audit.toml"
STRATA = {"flagged": {"tp": 150, "fp": 50, "fn": 0, "tn": 0},
          "unflagged": {"tp": 0, "fp": 0, "fn": 3, "tn": 297}}
SIZES = {"flagged": 3_000, "unflagged": 997_000}


def test_the_example_spec_is_the_python_call(tmp_path):
    spec = load_spec(SPEC)
    tree = spec.run(tmp_path, draws=400)
    audit = bcm.StratifiedSample({k: bcm.ConfusionMatrix.from_counts(**v)
                                  for k, v in STRATA.items()}, SIZES)
    direct = bcm.fit(audit, priors={"cells": bcm.Dirichlet(1)}, draws=400, random_seed=1,
                     metrics=["prevalence", "tpr", "tnr", "ppv", "npv", "f1", "acc"])
    np.testing.assert_array_equal(tree["posterior"]["tpr"].values,
                                  direct["posterior"]["tpr"].values)
    table = pd.read_csv(tmp_path / "summary.csv", index_col=0)
    assert table.loc["tpr", "mean"] == pytest.approx(float(direct["posterior"]["tpr"].mean()))
    assert (tmp_path / "forest.png").stat().st_size > 1000


def test_multiclass_strata_and_the_super_population():
    spec = parse_spec({"data": {
        "strata": {"a": {"counts": [[20, 0, 0], [3, 0, 0], [1, 0, 0]]},
                   "b": {"counts": [[0, 2, 0], [0, 30, 0], [0, 1, 0]]},
                   "c": {"counts": [[0, 0, 1], [0, 0, 2], [0, 0, 25]]}},
        "sizes": {"a": 400, "b": 900, "c": 300}, "labels": ["x", "y", "z"]},
        "options": {"finite": False, "draws": 200, "seed": 0}}, name="multi")
    assert spec.data.by_prediction
    tree = spec.fit()
    assert tree.attrs["population"] == "super-population"
    assert "acc" in tree["posterior"]


@pytest.mark.parametrize(("data", "extra", "words"), [
    ({"strata": STRATA}, {}, r"\[data\.sizes\]"),
    ({"strata": STRATA, "sizes": {"flagged": 3000}}, {}, "unflagged"),
    ({"strata": STRATA, "sizes": {"flagged": 100, "unflagged": 997_000}}, {}, "smaller"),
    ({"strata": {"flagged": {"tp": 1, "fp": 1}}, "sizes": SIZES}, {}, "missing fn, tn"),
    ({"strata": STRATA, "sizes": SIZES, "weights": 3}, {}, "unknown key 'weights'"),
    ({"strata": STRATA, "sizes": SIZES}, {"options": {"tune": 100}}, "unknown key 'tune'"),
    ({"strata": STRATA, "sizes": SIZES}, {"options": {"finite": "yes"}}, r"options\.finite"),
    ({"strata": STRATA, "sizes": SIZES}, {"priors": {"tpr": "jeffreys"}}, "unknown key 'tpr'"),
    ({"strata": STRATA, "sizes": SIZES}, {"outputs": {"figures": ["roc"]}},
     r"outputs\.figures"),
])
def test_bad_audits_are_named(data, extra, words):
    with pytest.raises(SpecError, match=words):
        parse_spec({"data": data, **extra}, name="bad")
