"""``bayescm audit``: a stratified audit from a CSV file, and its refusals."""

from __future__ import annotations

import json

import pytest

import bayescm as bcm
from bayescm.cli import main
from bayescm.io.readers import read_audit_csv

AUDIT = "stratum,size,tp,fn,tn,fp\nflagged,3000,150,0,0,50\nunflagged,997000,0,3,297,0\n"


@pytest.fixture
def audit_csv(tmp_path):
    path = tmp_path / "audit.csv"
    path.write_text(AUDIT)
    return path


def test_the_command_prints_the_fit_and_the_naive_reading(audit_csv, capsys, tmp_path):
    assert main(["audit", str(audit_csv), "--seed", "2", "--draws", "500", "--format", "json",
                 "--plot", str(tmp_path / "forest.png")]) == 0
    out = json.loads(capsys.readouterr().out)
    audit = bcm.StratifiedSample(
        {"flagged": bcm.ConfusionMatrix.from_counts(tp=150, fn=0, tn=0, fp=50),
         "unflagged": bcm.ConfusionMatrix.from_counts(tp=0, fn=3, tn=297, fp=0)},
        {"flagged": 3000, "unflagged": 997000})
    direct = bcm.fit(audit, draws=500, random_seed=2,
                     metrics=["prevalence", "tpr", "tnr", "ppv", "npv", "f1", "acc"])
    assert out["rows"]["tpr"]["mean"] == pytest.approx(float(direct["posterior"]["tpr"].mean()))
    # the naive reading pools the 500 labelled items: TPR 150 / 153
    assert out["rows"]["tpr"]["naive"] == pytest.approx(150 / 153, abs=1e-5)
    assert out["rows"]["tpr"]["observed"] < 0.3 and out["sizes"] == [3000, 997000]
    assert (tmp_path / "forest.png").stat().st_size > 1000


def test_super_population_option(audit_csv, capsys):
    assert main(["audit", str(audit_csv), "--seed", "2", "--draws", "200",
                 "--super-population", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["population"] == "super-population"


@pytest.mark.parametrize(("text", "words"), [
    ("stratum,tp,fn,tn,fp\na,1,0,0,1\n", "size"),
    ("stratum,size,tp,fn,tn,fp\na,1,1,0,0,1\n", "smaller"),
    ("stratum,size,tp,fn,tn,fp\na,10,1,0,0,1\na,10,1,0,0,1\n", "repeated"),
    ("stratum,size,tp,fn,tn,fp\na,10,1,0,0,1.5\n", "line 2"),
])
def test_bad_files_are_named(tmp_path, text, words):
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(ValueError, match=words):
        read_audit_csv(path)


def test_bad_files_give_one_line_errors(tmp_path, capsys):
    path = tmp_path / "bad.csv"
    path.write_text("stratum,size,tp,fn,tn,fp\na,1,1,0,0,1\n")
    assert main(["audit", str(path)]) != 0
    message = capsys.readouterr().err
    assert "bad.csv" in message and "smaller" in message
    assert len(message.strip().splitlines()) == 1
