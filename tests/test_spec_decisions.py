"""``[decisions]`` of an analysis spec: parsed, refused with the key named, run and written."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayescm as bcm
from bayescm.errors import SpecError
from bayescm.io.spec import parse_spec

DATA = {"dataset": "dcurves_binary"}


def _spec(decisions: dict, data: dict | None = None, **options) -> object:
    return parse_spec({"data": data or DATA, "options": {"draws": 100, "seed": 1, **options},
                       "outputs": {"figures": []}, "decisions": decisions}, name="dca")


def test_the_settings_and_their_defaults() -> None:
    spec = _spec({"range": [0.05, 0.2, 0.05], "cost_fp": 1, "cost_fn": 4})
    assert spec.decisions["thresholds"] == [0.05, 0.1, 0.15, 0.2]
    assert spec.decisions["figures"] == ["decision_curve", "delta_net_benefit", "evpi",
                                         "cost_curve"]
    assert not spec.decisions["calibration"]
    assert "thresholds" not in _spec({}).decisions  # the dcurves grid


@pytest.mark.parametrize(("decisions", "match"), [
    ({"threshold": [0.1]}, "unknown key 'threshold' in \\[decisions\\]"),
    ({"thresholds": [0.0, 0.2]}, "strictly between 0 and 1"),
    ({"thresholds": [0.1], "range": [0.1, 0.2, 0.1]}, "not both"),
    ({"range": [0.3, 0.1, 0.1]}, "start <= stop"),
    ({"cost_fp": 1}, "give both cost_fp and cost_fn"),
    ({"cost_fp": -1, "cost_fn": 1}, "cost_fp must be a finite number >= 0"),
    ({"cost_fp": 0, "cost_fn": 0}, "all zero"),
    ({"prevalence": 0.2}, "give cost_fp and cost_fn with it"),
    ({"cost_fp": 1, "cost_fn": 2, "prevalence": 1.2}, "strictly between 0 and 1"),
    ({"calibration": "yes"}, "true or false"),
    ({"figures": ["roc"]}, "unknown figure 'roc'"),
    ({"figures": ["cost_curve"]}, "needs cost_fp and cost_fn"),
])
def test_bad_settings_name_the_key(decisions: dict, match: str) -> None:
    with pytest.raises(SpecError, match=match):
        _spec(decisions)


def test_data_and_options_that_cannot_have_decisions() -> None:
    with pytest.raises(SpecError, match="needs risks: \\[data\\] scores"):
        _spec({}, data={"tp": 5, "fn": 1, "tn": 4, "fp": 2})
    with pytest.raises(SpecError, match="needs risks in \\[0, 1\\]"):
        _spec({}, data={"y_true": [1, 0, 1, 0], "scores": [2.0, 0.1, 0.5, 0.3]})
    with pytest.raises(SpecError, match="method = 'binormal'"):
        _spec({}, method="binormal")
    with pytest.raises(SpecError, match="leaves out 'prevalence'"):
        _spec({"cost_fp": 1, "cost_fn": 2}, metrics=["tpr", "tnr"])
    one = {"y_true": [1, 0, 1, 0], "scores": [0.9, 0.1, 0.5, 0.3]}
    with pytest.raises(SpecError, match="two or more risk columns"):
        _spec({"figures": ["delta_net_benefit"]}, data=one)


def test_a_run_writes_the_tables_and_figures(tmp_path) -> None:
    spec = _spec({"thresholds": [0.1, 0.2], "cost_fp": 1, "cost_fn": 4,
                  "figures": ["decision_curve", "evpi", "cost_curve"]})
    idata = spec.run(tmp_path)
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == ["cost_curve.png", "dca.nc", "decision_curve.png", "evpi.png",
                     "expected_cost.csv", "net_benefit.csv", "summary.csv"]
    table = pd.read_csv(tmp_path / "net_benefit.csv")
    nb = bcm.net_benefit(idata, thresholds=[0.1, 0.2])
    expected = nb["posterior"]["net_benefit"].mean(("chain", "draw"))
    got = table.set_index(["system", "threshold"])["mean"]
    np.testing.assert_allclose(got.loc["cancerpredmarker"].values,
                               expected.sel(system="cancerpredmarker").values)
    assert table["observed"].iloc[2] == pytest.approx(0.08740740740740742)  # R dcurves
