"""``bayescm runs``: folds or runs from a CSV file, two procedures compared, and refusals.

The fast tests stand the exact kind of tests/test_runs.py in for the NUTS fit (``cli_runs._fit``),
so they check the reading, the tables and the errors without sampling; the slow test runs NUTS.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_runs import FOLDS, ExactFolds  # registers the exact stand-in kind

import bayescm as bcm
from bayescm import cli_runs
from bayescm.cli import main
from bayescm.core.csvtable import parse_csv
from bayescm.errors import CSVFormatError
from bayescm.io.readers import runs_from_table

LABELS = ["a", "b", "c"]


def _rows(folds: list[Any], procedure: str | None = None, shift: int = 0) -> list[str]:
    out = []
    for f, matrix in enumerate(folds):
        for i, row in enumerate(matrix):
            for j, c in enumerate(row):
                cells = [f"fold{f + 1}", LABELS[i], LABELS[j], str(c + shift * (i == j))]
                out.append(",".join([*([procedure] if procedure else []), *cells]))
    return out


def _csv(path: Path, compare: bool = False) -> Path:
    if compare:
        lines = ["procedure,run,true,predicted,count", *_rows(FOLDS, "base"),
                 *_rows(FOLDS, "better", 30)]
    else:
        lines = ["run,true,predicted,count", *_rows(FOLDS)]
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.fixture
def exact(monkeypatch: pytest.MonkeyPatch) -> None:
    assert ExactFolds.key == "test_exact_folds"
    monkeypatch.setattr(cli_runs, "_fit", lambda data, **kw: bcm.fit(
        data, model="test_exact_folds", **kw))


def test_the_reader_builds_each_run_s_matrix() -> None:
    runs = runs_from_table(parse_csv("\n".join(["run,true,predicted,count", *_rows(FOLDS)])))
    assert list(runs) == [""] and list(runs[""]) == [f"fold{i}" for i in range(1, 5)]
    assert runs[""]["fold2"].counts.tolist() == FOLDS[1]
    # missing cells are 0; two classes are binary, the first (or 1 of 0/1) positive
    two = runs_from_table(parse_csv("run,true,predicted,count\nr1,no,no,5\nr1,yes,no,2\n"
                                    "r2,no,yes,1\n"), labels=["yes", "no"])[""]
    assert two["r1"].is_binary and two["r1"].cells == {"tp": 0, "fn": 2, "fp": 0, "tn": 5}
    zero_one = runs_from_table(parse_csv("run,true,predicted,count\nr1,0,0,5\nr2,1,1,2\n"))[""]
    assert zero_one["r1"].positive == "1" and zero_one["r2"].cells["tp"] == 2


@pytest.mark.parametrize(("text", "words"), [
    ("run,true,count\nr1,a,3\n", "predicted"),
    ("run,true,predicted,count\nr1,a,a,3\nr1,a,a,4\nr2,a,a,1\n", "given twice.*line 2"),
    ("run,true,predicted,count\nr1,a,a,3.5\nr2,a,a,1\n", "line 2"),
    ("run,true,predicted,count\nr1,a,,3\nr2,a,a,1\n", "empty"),
    ("run,true,predicted,count\nr1,a,a,3\nr1,b,b,4\n", "one run"),
])
def test_bad_tables_are_named(text: str, words: str) -> None:
    with pytest.raises((CSVFormatError, ValueError), match=words):
        runs_from_table(parse_csv(text))


def test_bad_procedures_and_labels_are_named() -> None:
    rows = "procedure,run,true,predicted,count\n"
    three = rows + "x,r1,a,a,1\nx,r2,a,a,1\ny,r1,a,a,1\ny,r2,a,a,1\nz,r1,a,a,1\nz,r2,a,a,1\n"
    with pytest.raises(ValueError, match=r"3 procedure.*compare two"):
        runs_from_table(parse_csv(three), procedure="procedure")
    apart = rows + "x,r1,a,b,1\nx,r2,a,a,1\ny,r1,a,a,1\ny,r3,b,a,1\n"
    with pytest.raises(ValueError, match="different runs"):
        runs_from_table(parse_csv(apart), procedure="procedure")
    with pytest.raises(CSVFormatError, match="'c' is not one of the labels"):
        runs_from_table(parse_csv("run,true,predicted,count\nr1,a,c,1\nr2,a,a,1\n"),
                        labels=["a", "b"])


def test_the_command_prints_pooled_spread_and_new_run(exact: None, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = _csv(tmp_path / "cv.csv")
    assert main(["runs", str(path), "--seed", "4", "--draws", "200", "--group", "fold",
                 "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["seed"] == 4 and out["runs"] == [f"fold{i}" for i in range(1, 5)]
    rows = out["metrics"]["runs"]
    assert list(rows) == ["acc", "f1_macro", "tpr_macro"]
    direct = bcm.fit({k: bcm.ConfusionMatrix(m, labels=LABELS)
                      for k, m in zip(out["runs"], FOLDS, strict=True)},
                     model="test_exact_folds", group="fold", draws=200, random_seed=4,
                     metrics=["acc", "f1_macro", "tpr_macro"])
    post = direct["posterior"]
    assert rows["acc"]["pooled"] == pytest.approx(float(post["acc_mean"].mean()))
    assert rows["acc"]["spread"] == pytest.approx(float(post["acc_sd"].mean()))
    assert main(["runs", str(path), "--seed", "4", "--draws", "200"]) == 0
    text = capsys.readouterr().out
    assert "seed 4" in text and "pooled" in text and "spread" in text and "new_upper" in text


def test_compare_prints_the_paired_differences(exact: None, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    path = _csv(tmp_path / "cv.csv", compare=True)
    assert main(["runs", str(path), "--compare", "procedure", "--metrics", "acc", "--seed", "5",
                 "--draws", "200", "--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["procedures"] == ["base", "better"] and set(out["metrics"]) == {"base", "better"}
    rows = out["compare"]["acc"]
    assert list(rows)[:4] == out["runs"] and rows["mean over folds"]["mean"] < 0
    assert rows["mean over folds"]["p_a_better"] < 0.05
    assert main(["runs", str(path), "--compare", "procedure", "--metrics", "acc", "--seed", "5",
                 "--draws", "200", "--format", "csv"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert lines[0].startswith("metric,run,mean") and len(lines) == 1 + 4 + 2


@pytest.mark.slow  # two figures drawn, ~1 s
def test_plot_writes_one_forest_per_procedure(exact: None, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    path = _csv(tmp_path / "cv.csv", compare=True)
    assert main(["runs", str(path), "--compare", "procedure", "--metrics", "acc", "f1_macro",
                 "--seed", "5", "--draws", "100", "--plot", str(tmp_path / "forest.png")]) == 0
    assert "wrote" in capsys.readouterr().err
    assert all((tmp_path / f"forest_{p}.png").stat().st_size > 1000 for p in ("base", "better"))


@pytest.mark.parametrize(("argv", "words"), [
    (["--run", "fold"], "no column"),
    (["--metrics", "f1"], "value per class.*f1_macro"),
    (["--metrics", "accuracy_typo"], "--metrics"),
    (["--group", "a b"], "identifier"),
    (["--plot", "x.docx"], "not .docx"),
    (["--labels", "a", "a", "b", "c"], "twice"),
    (["--labels", "a", "b", "c", "--positive", "d"], "not one of --labels"),
    (["--labels", "a", "b"], "not one of the labels"),
    (["--compare", "procedure"], "no column"),
    (["--draws", "0"], "--draws: 0 must be >= 1"),
])
def test_bad_arguments_give_one_line_errors(argv: list[str], words: str, tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    path = _csv(tmp_path / "cv.csv")
    try:
        code = main(["runs", str(path), *argv])
    except SystemExit as stop:  # argparse's own refusals
        code = stop.code
    assert code == 2
    message = capsys.readouterr().err
    assert len(message.strip().splitlines()) == 1
    assert __import__("re").search(words, message), message


def test_a_missing_file_is_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs", "no_such.csv"]) == 2
    assert "no such file" in capsys.readouterr().err


def test_help_documents_the_format(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["runs", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "one row per cell" in text and "--compare" in text and "--metrics" in text


@pytest.mark.slow
def test_the_command_fits_with_nuts(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _csv(tmp_path / "cv.csv")
    assert main(["runs", str(path), "--seed", "1", "--draws", "300", "--chains", "2",
                 "--metrics", "acc", "--format", "json"]) == 0
    acc = json.loads(capsys.readouterr().out)["metrics"]["runs"]["acc"]
    observed = np.trace(np.array(FOLDS), axis1=1, axis2=2).sum() / np.array(FOLDS).sum()
    assert acc["pooled_lower"] < observed < acc["pooled_upper"]
    assert 0 < acc["spread"] < 0.1 and acc["new_upper"] - acc["new_lower"] > (
        acc["pooled_upper"] - acc["pooled_lower"])
