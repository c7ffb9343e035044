"""``bayescm roc``: AUCs and their paired differences from a CSV of labels and scores."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from scipy import special

import bayescm as bcm
from bayescm.cli import main


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def scores_csv(tmp_path_factory):
    rng = np.random.default_rng(7)
    y = rng.random(160) < 0.35
    old = special.expit(1.2 * y - 0.6 + rng.normal(size=160)).round(2)
    new = special.expit(2.0 * y - 1.0 + rng.normal(size=160)).round(3)
    path = tmp_path_factory.mktemp("roc") / "scores.csv"
    lines = ["id,outcome,old,new"] + [f"p{i},{'yes' if t else 'no'},{a},{b}"
                                      for i, (t, a, b) in enumerate(zip(y, old, new, strict=True))]
    path.write_text("\n".join(lines) + "\n")
    return path


def test_json_matches_the_fit(capsys, scores_csv):
    code, out, err = run(capsys, "roc", str(scores_csv), "--label", "outcome", "--score", "old",
                         "new", "--positive", "yes", "--draws", "200", "--seed", "3",
                         "--format", "json")
    assert code == 0 and err == ""
    payload = json.loads(out)
    data = bcm.Scores.from_csv(scores_csv, label="outcome", score=["old", "new"],
                               positive="yes")
    idata = bcm.fit(data, draws=200, random_seed=3)
    table = bcm.summary(idata, var_names=["auc"])
    assert payload["n"] == 160 and payload["n_pos"] == data.n_pos and payload["hdi_prob"] == 0.95
    assert payload["method"] == "dirichlet_process"
    for name in ("old", "new"):
        row = payload["auc"][name]
        for column in ("observed", "mean", "sd", "hdi_lower", "hdi_upper"):
            assert row[column] == pytest.approx(table.loc[f"auc[{name}]", column])
    pair = payload["delta_auc"]["new - old"]
    assert pair["p_greater"] == pytest.approx(bcm.prob_superior(idata, "new", "old",
                                                                metric="auc"))
    assert pair["observed"] == pytest.approx(payload["auc"]["new"]["observed"]
                                             - payload["auc"]["old"]["observed"])
    assert pair["hdi_lower"] < pair["mean"] < pair["hdi_upper"]


def test_method_bootstrap_is_the_bayesian_bootstrap(capsys, scores_csv):
    code, out, err = run(capsys, "roc", str(scores_csv), "--label", "outcome", "--score", "old",
                         "--positive", "yes", "--draws", "200", "--seed", "4", "--method",
                         "bootstrap", "--format", "json")
    assert code == 0 and err == ""
    payload = json.loads(out)
    data = bcm.Scores.from_csv(scores_csv, label="outcome", score=["old"], positive="yes")
    idata = bcm.fit(data, draws=200, random_seed=4, method="bootstrap")
    table = bcm.summary(idata, var_names=["auc"])
    assert payload["method"] == "bootstrap"
    assert payload["auc"]["old"]["mean"] == pytest.approx(table.loc["auc[old]", "mean"])


def test_table_and_figures(capsys, scores_csv, tmp_path):
    folder = tmp_path / "figures"
    code, out, err = run(capsys, "roc", str(scores_csv), "--label", "outcome", "--score", "old",
                         "new", "--positive", "yes", "--draws", "150", "--chains", "2",
                         "--hdi-prob", "0.9", "--plot", str(folder))
    assert code == 0, err
    assert "2 x 150 dirichlet_process draws, 90 % HDI" in out  # the default method
    assert "new - old" in out and "p_greater" in out
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["delta_auc.png", "pr.png", "reliability.png", "roc.png"]
    assert all(p.read_bytes()[:4] == b"\x89PNG" for p in folder.iterdir())


def test_one_column_and_csv_output(capsys, scores_csv, tmp_path):
    code, out, _ = run(capsys, "roc", str(scores_csv), "--label", "outcome", "--score", "new",
                       "--positive", "yes", "--draws", "100", "--format", "csv",
                       "--plot", str(tmp_path))
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0] == "variable,observed,mean,sd,hdi_lower,hdi_upper,p_greater"
    assert len(lines) == 2 and lines[1].startswith("auc[new],")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pr.png", "reliability.png",
                                                          "roc.png"]


def test_scores_that_are_not_probabilities_skip_the_reliability_figure(capsys, tmp_path):
    path = tmp_path / "margins.csv"
    rng = np.random.default_rng(1)
    y = rng.random(60) < 0.5
    path.write_text("y,margin\n" + "".join(f"{int(t)},{v:.3f}\n"
                                           for t, v in zip(y, 2 * y + rng.normal(size=60),
                                                           strict=True)))
    code, out, err = run(capsys, "roc", str(path), "--label", "y", "--score", "margin",
                         "--draws", "50", "--plot", str(tmp_path / "fig"))
    assert code == 0 and "margin" in out
    assert "reliability.png not written" in err and "not probabilities" in err
    assert sorted(p.name for p in (tmp_path / "fig").iterdir()) == ["pr.png", "roc.png"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--label", "outcome", "--score", "nope", "--positive", "yes"], "no column(s) ['nope']"),
        (["--label", "outcome", "--score", "id", "--positive", "yes"], "'p0' is not a number"),
        (["--label", "outcome", "--score", "old"], "--positive, one of"),
        (["--label", "outcome", "--score", "old", "--positive", "maybe"], "positive='maybe'"),
        (["--label", "outcome", "--score", "old", "old", "--positive", "yes"], "given twice"),
        (["--label", "old", "--score", "old", "--positive", "yes"], "the label column"),
        (["--label", "outcome", "--score", "old", "--draws", "0"], "must be >= 1"),
        (["--score", "old"], "--label"),
    ],
)
def test_bad_input_exits_2_with_one_line(capsys, scores_csv, args, message):
    try:
        code = main(["roc", str(scores_csv), *args])
    except SystemExit as exit_info:  # argparse reports its own errors by exiting
        code = exit_info.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


# slow: starts two Python processes; the slow run (CI) checks it
@pytest.mark.slow
def test_missing_file_and_help(capsys):
    code, _, err = run(capsys, "roc", "no/such.csv", "--label", "y", "--score", "s")
    assert code == 2 and "no such file: no/such.csv" in err
    done = subprocess.run([sys.executable, "-m", "bayescm", "roc", "--help"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and "--score COL [COL ...]" in done.stdout
    listing = subprocess.run([sys.executable, "-m", "bayescm", "--help"], capture_output=True,
                             text=True, check=False).stdout
    assert "roc" in listing and "analyze" in listing
