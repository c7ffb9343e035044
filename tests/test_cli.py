"""The command line: every command, JSON that parses, bad input exits 2 with a message."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import bayescm as bcm
from bayescm.cli import main

ROOT = Path(__file__).resolve().parents[1]


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_analyze_json_matches_summary(capsys):
    code, out, err = run(capsys, "analyze", "--tp", "26", "--fn", "0", "--tn", "6", "--fp", "2",
                         "--seed", "1", "--format", "json")
    assert code == 0 and err == ""
    payload = json.loads(out)
    table = bcm.summary(bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
                                random_seed=1))
    assert set(payload["rows"]) == set(table.index)
    for name in ("tpr", "tnr", "bm"):
        for column in ("observed", "mean", "hdi_lower", "hdi_upper", "mu", "r_hat"):
            assert payload["rows"][name][column] == pytest.approx(table.loc[name, column])
    assert payload["rows"]["dor"]["observed"] == "inf"  # unbounded, as a string
    assert payload["counts"] == [[26, 0], [2, 6]] and payload["method"] == "exact"


def test_analyze_nan_is_null(capsys):
    code, out, _ = run(capsys, "analyze", "--tp", "0", "--fn", "5", "--tn", "5", "--fp", "0",
                       "--metrics", "ppv", "tpr", "--draws", "200", "--format", "json")
    assert code == 0
    rows = json.loads(out)["rows"]
    assert rows["ppv"]["observed"] is None and rows["tpr"]["observed"] == 0.0


def test_analyze_options_table_and_csv(capsys, tmp_path):
    code, out, _ = run(capsys, "analyze", "--tp", "28", "--fn", "9", "--tn", "3", "--fp", "4",
                       "--prior", "jeffreys", "--fixed-prevalence", "0.8", "--metrics", "tpr",
                       "ppv", "--draws", "500", "--seed", "2", "--format", "csv",
                       "--plot", str(tmp_path / "fig.png"))
    assert code == 0
    lines = out.strip().splitlines()
    assert lines[0].startswith("variable,observed,mean") and len(lines) == 3
    assert (tmp_path / "fig.png").stat().st_size > 1000
    code, out, _ = run(capsys, "analyze", "--tp", "5", "--fn", "1", "--tn", "4", "--fp", "2",
                       "--metrics", "acc", "--draws", "100")
    assert code == 0 and "acc" in out and "hdi_lower" in out


def test_analyze_csv_matrix(capsys, tmp_path):
    path = tmp_path / "cm.csv"
    path.write_text("true\\pred,low,high\nlow,6,2\nhigh,0,26\n")
    code, out, _ = run(capsys, "analyze", "--csv", str(path), "--positive", "high",
                       "--metrics", "tpr", "--format", "json", "--draws", "200")
    assert code == 0
    payload = json.loads(out)
    assert payload["counts"] == [[26, 0], [2, 6]] and payload["labels"] == ["high", "low"]
    three = tmp_path / "three.csv"
    three.write_text("t,a,b,c\na,5,1,0\nb,1,4,1\nc,0,1,6\n")
    code, out, _ = run(capsys, "analyze", "--csv", str(three), "--metrics", "acc", "kappa",
                       "--format", "json", "--draws", "200")
    assert code == 0 and json.loads(out)["model"] == "multiclass"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["analyze", "--tp", "-1", "--fn", "0", "--tn", "6", "--fp", "2"], "negative"),
        (["analyze", "--tp", "1.5", "--fn", "0", "--tn", "6", "--fp", "2"], "whole number"),
        (["analyze", "--tp", "26", "--fn", "0", "--tn", "6"], "missing --fp"),
        (["analyze", "--tp", "1", "--fn", "0", "--tn", "6", "--fp", "2", "--prior", "flatish"],
         "Unknown prior name 'flatish'"),
        (["analyze", "--tp", "1", "--fn", "0", "--tn", "6", "--fp", "2", "--metrics", "auc"],
         "Unknown binary metric 'auc'"),
        (["analyze", "--tp", "1", "--fn", "0", "--tn", "6", "--fp", "2", "--prior", "haldane"],
         "improper posterior"),
        (["analyze", "--tp", "1", "--fn", "1", "--tn", "6", "--fp", "2", "--fixed-prevalence",
          "1.5"], "strictly between 0 and 1"),
        (["analyze", "--csv", "no/such.csv"], "no such file"),
        (["analyze", "--csv", "x.csv", "--tp", "1"], "not both"),
        (["sample-size", "--mu", "2"], "strictly between 0 and 1"),
        (["sample-size"], "--mu"),
        (["leaderboard", "no/such.csv", "--n", "100"], "no such file"),
        (["leaderboard", "x.csv"], "--n"),
        (["run", "no/such.toml"], "no such spec file"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_bad_input_exits_2(capsys, args, message):
    try:
        code = main(args)
    except SystemExit as exit_info:  # argparse reports its own errors by exiting
        code = exit_info.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1  # one line, also for argparse's own errors


def test_malformed_csv_exits_2(capsys, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("t,a,b\na,1,x\nb,2,3\n")
    code, _, err = run(capsys, "analyze", "--csv", str(bad))
    assert code == 2 and "error" in err
    board = tmp_path / "board.csv"
    board.write_text("team,score\na,0.9\n")
    code, _, err = run(capsys, "leaderboard", str(board), "--n", "100")
    assert code == 2 and "'name' and 'accuracy'" in err
    board.write_text("name,accuracy\na,0.9\nb,high\n")
    code, _, err = run(capsys, "leaderboard", str(board), "--n", "100")
    assert code == 2 and "line 3" in err
    board.write_text("name,accuracy\na,0.9\nb,1.2\n")
    code, _, err = run(capsys, "leaderboard", str(board), "--n", "100")
    assert code == 2 and "error" in err


def test_sample_size_matches_planner(capsys):
    code, out, _ = run(capsys, "sample-size", "--mu", "0.2", "--sims", "800", "--seed", "3",
                       "--format", "json")
    assert code == 0
    row = json.loads(out)["rows"]["plan"]
    plan = bcm.samplesize.plan(0.2, n_sims=800, random_seed=3)
    assert row["n"] == plan.n and row["rule_of_thumb_n"] == 100
    assert row["mu_reached"] <= 0.2


def test_leaderboard_command(capsys, tmp_path):
    board = tmp_path / "board.csv"
    board.write_text("name,accuracy\nA,0.91\nB,0.905\nC,0.89\n")
    code, out, _ = run(capsys, "leaderboard", str(board), "--n", "1000", "--prizes", "100",
                       "50", "--seed", "4", "--draws", "4000", "--format", "json")
    assert code == 0
    rows = json.loads(out)["rows"]
    expected = bcm.leaderboard({"A": 0.91, "B": 0.905, "C": 0.89}, n=1000, prizes=[100, 50],
                               draws=4000, random_seed=4)
    assert rows["A"]["p_best"] == pytest.approx(expected.loc["A", "p_best"])
    assert sum(r["expected_prize"] for r in rows.values()) == pytest.approx(150)


# slow: starts a Python process and runs a spec; the slow run (CI) checks it
@pytest.mark.slow
def test_run_command_writes_outputs(capsys, tmp_path):
    code, out, _ = run(capsys, "run", str(ROOT / "models" / "cocaine_purity.toml"),
                       "--output", str(tmp_path), "--draws", "300")
    assert code == 0 and "cocaine_purity" in out
    tree = bcm.load(tmp_path / "cocaine_purity.nc")
    assert tree["posterior"]["tpr"].shape == (4, 300)
    assert (tmp_path / "summary.csv").is_file()


@pytest.mark.slow  # a fresh interpreter imports everything (about 3.5 s)
def test_module_entry_point_help():
    done = subprocess.run([sys.executable, "-m", "bayescm", "--help"], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 0
    for command in ("analyze", "sample-size", "leaderboard", "run"):
        assert command in done.stdout
    for command in ("analyze", "sample-size", "leaderboard", "run"):
        sub = subprocess.run([sys.executable, "-m", "bayescm", command, "--help"],
                             capture_output=True, text=True, check=False)
        assert sub.returncode == 0 and "usage: bayescm" in sub.stdout


# slow: starts a Python process; the slow run (CI) checks it
@pytest.mark.slow
def test_quiet_when_piped():
    done = subprocess.run([sys.executable, "-m", "bayescm", "analyze", "--tp", "5", "--fn", "1",
                           "--tn", "4", "--fp", "2", "--draws", "100", "--metrics", "acc"],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stderr == ""
    assert np.isfinite(float(done.stdout.splitlines()[-1].split()[1]))


# slow: starts a Python process on a pseudo-terminal; the slow run (CI) checks it
@pytest.mark.slow
def test_progress_on_a_terminal():
    import os
    import pty

    master, slave = pty.openpty()
    done = subprocess.run([sys.executable, "-m", "bayescm", "analyze", "--tp", "5", "--fn", "1",
                           "--tn", "4", "--fp", "2", "--draws", "100", "--metrics", "acc"],
                          stdout=subprocess.PIPE, stderr=slave, text=True, check=False)
    os.close(slave)
    shown = os.read(master, 10_000).decode()
    os.close(master)
    assert done.returncode == 0
    assert "bayescm: fitting a 2-class matrix of 12 samples" in shown


def test_table_uses_one_number_format(capsys):
    from bayescm.cli import main

    main(["analyze", "--tp", "26", "--fn", "0", "--tn", "6", "--fp", "2", "--seed", "1",
          "--metrics", "tpr", "dor", "lr_plus"])
    out = capsys.readouterr().out
    assert "e+" not in out and "e-" not in out  # no scientific notation
    lines = [line.split() for line in out.strip().splitlines()[2:]]
    decimals = {len(cell.split(".")[1]) for row in lines for cell in row[1:7] if "." in cell}
    assert decimals == {3}


def test_sample_size_help_has_no_escaped_percent(capsys):
    import pytest

    from bayescm.cli import main

    with pytest.raises(SystemExit):
        main(["sample-size", "--help"])
    out = capsys.readouterr().out
    assert "95 %" in out and "%%" not in out


def test_analyze_hdi_prob_defaults_to_the_setting(capsys):
    args = ("analyze", "--tp", "26", "--fn", "0", "--tn", "6", "--fp", "2", "--metrics", "tpr",
            "--draws", "300", "--seed", "1", "--format", "json")
    code, out, _ = run(capsys, *args)
    assert code == 0 and json.loads(out)["hdi_prob"] == 0.95
    with bcm.rc_context(stats_hdi_prob=0.8):
        code, out, _ = run(capsys, *args)
    assert code == 0 and json.loads(out)["hdi_prob"] == 0.8
    code, out, _ = run(capsys, *args, "--hdi-prob", "0.5")
    assert json.loads(out)["hdi_prob"] == 0.5


def test_analyze_plot_of_a_multiclass_matrix_draws_per_class_metrics(capsys, tmp_path):
    three = tmp_path / "three.csv"
    three.write_text("t,a,b,c\na,15,1,0\nb,1,14,1\nc,0,1,16\n")
    fig = tmp_path / "fig.png"
    code, _, err = run(capsys, "analyze", "--csv", str(three), "--metrics", "acc", "recall",
                       "--draws", "200", "--format", "csv", "--plot", str(fig))
    assert code == 0, err
    assert fig.read_bytes()[:4] == b"\x89PNG"


def test_version_prints_the_package_version(capsys):
    from bayescm._version import __version__

    with pytest.raises(SystemExit) as exit_info:
        main(["--version"])
    assert exit_info.value.code == 0
    assert capsys.readouterr().out.strip() == f"bayescm {__version__}"


def test_sample_size_claim_and_paired_match_the_library(capsys):
    import bayescm as bcm

    code, out, _ = run(capsys, "sample-size", "--claim", "tpr>0.9", "--design",
                       'tpr={"mean": 0.95, "concentration": 100}', "--n", "200",
                       "--format", "json")
    assert code == 0
    rows = json.loads(out)["rows"]
    plan = bcm.samplesize.required_n_claim("tpr > 0.9", assurance=0.8,
                                           design={"tpr": bcm.Beta(95, 5)})
    assert rows["plan"]["n"] == plan.n
    assert rows["N=200"]["assurance"] == float(bcm.samplesize.assurance(
        "tpr > 0.9", n=200, design={"tpr": bcm.Beta(95, 5)}))
    code, out, _ = run(capsys, "sample-size", "--paired", "0.05", "0.45", "--power", "0.8",
                       "--format", "json")
    assert code == 0 and json.loads(out)["rows"]["plan"]["n"] == 23  # Connor's example


def test_sample_size_questions_are_one_at_a_time(capsys):
    for args, message in [(["--mu", "0.2", "--claim", "tpr>0.9"], "not --mu and --claim"),
                          (["--claim", "tpr>0.9"], "needs --design"),
                          (["--paired", "0.04", "0.07"], "one of --power"),
                          (["--claim", "tpr>0.9", "--design", "tpr=1.5"], "in [0, 1]")]:
        code, _, err = run(capsys, "sample-size", *args)
        assert code == 2 and message in err and len(err.strip().splitlines()) == 1, err
