"""Planning specs (issue 33): a ``[planning]`` table answers with the test set a claim needs.

The spec's answers are those of ``bcm.samplesize`` called directly (the spec only reads and
writes), ``bayescm run`` prints and writes them, and every malformed key is a named error.
"""

from pathlib import Path

import pandas as pd
import pytest

import bayescm as bcm
from bayescm.cli import main
from bayescm.io.spec import load_spec, parse_spec
from bayescm.io.spec_parse import SpecError
from bayescm.io.spec_planning import PlanningSpec

SPEC = Path(__file__).resolve().parents[1] / "models" / "sensitivity_study.toml"


def test_the_shipped_spec_plans_what_samplesize_plans(tmp_path) -> None:
    spec = load_spec(SPEC)
    assert isinstance(spec, PlanningSpec) and spec.sizes == (50, 100, 200)
    table = spec.run(tmp_path)
    design = {"tpr": bcm.Beta.from_mean(0.95, concentration=100)}
    want = bcm.samplesize.required_n_claim("tpr > 0.9", 0.8, design, 0.95)
    assert int(table["n"].iloc[0]) == want.n
    curve = bcm.samplesize.assurance("tpr > 0.9", [50, 100, 200], design, 0.95)
    assert table["assurance"].iloc[1:].tolist() == pytest.approx(list(curve.assurance))
    written = pd.read_csv(tmp_path / "planning.csv", index_col=0)
    assert written["n"].tolist() == table["n"].tolist()
    assert (tmp_path / "assurance.png").stat().st_size > 1000


def test_bayescm_run_prints_and_writes_a_plan(tmp_path, capsys) -> None:
    assert main(["run", str(SPEC), "--output", str(tmp_path / "out")]) == 0
    out = capsys.readouterr().out
    assert "smallest n with assurance 0.8" in out and "planning.csv" in out
    with pytest.raises(SystemExit, match="--draws and --seed"):
        main(["run", str(SPEC), "--output", str(tmp_path / "again"), "--seed", "3"])


@pytest.mark.parametrize(("planning", "message"), [
    ({"design": {"tpr": 0.9}}, "needs claim"),
    ({"claim": "tpr > 0.9"}, "needs claim"),
    ({"claim": "tpr is high", "design": {"tpr": 0.9}}, "planning.claim"),
    ({"claim": "tpr > 0.9", "design": {"tpr": {"mean": 0.95}}}, "mean, concentration"),
    ({"claim": "tpr > 0.9", "design": {"tpr": {"mean": 1.5, "concentration": 10}}},
     "planning.design.tpr"),
    ({"claim": "tpr > 0.9", "design": {"tpr": 1.2}}, "strictly between 0 and 1"),
    ({"claim": "tpr > 0.9", "design": {"tpr": 0.95}, "assurance": 1.0}, "planning.assurance"),
    ({"claim": "tpr > 0.9", "design": {"tpr": 0.95}, "level": 0}, "planning.level"),
    ({"claim": "tpr > 0.9", "design": {"tpr": 0.95}, "n": [10, -1]}, "planning.n"),
    ({"claim": "tpr > 0.9", "design": {"tpr": 0.95}, "n": 2.5}, "planning.n"),
    ({"claim": "tpr > 0.9", "design": {"tpr": 0.95}, "prior": "flattish"}, "planning.prior"),
    ({"claim": "tpr > 0.9", "design": {"tpr": 0.95}, "assurence": 0.8}, "assurence"),
])
def test_bad_planning_tables_get_named_errors(planning, message) -> None:
    with pytest.raises(SpecError, match=message):
        parse_spec({"planning": planning}, name="p")


def test_a_spec_plans_or_analyses() -> None:
    with pytest.raises(SpecError, match="split it"):
        parse_spec({"planning": {"claim": "tpr > 0.9", "design": {"tpr": 0.95}},
                    "data": {"tp": 1, "fn": 1, "tn": 1, "fp": 1}}, name="p")
    with pytest.raises(SpecError, match="no slashes"):
        parse_spec({"name": "a/b", "planning": {"claim": "tpr > 0.9",
                                                "design": {"tpr": 0.95}}})
