"""What a command-line user reads: one-line errors (OS errors too), warnings, help, seeds.

Every error, whatever raised it (argparse, a malformed file, a path that cannot be written, an
unexpected bug), is one line ``bayescm COMMAND: error: ...`` with exit code 2; a warning is one
line ``bayescm: warning: ...``; every option has help; a mistyped name gets a suggestion; whole
numbers print as integers; a run prints the seed that repeats it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import bayescm as bcm
from bayescm.cli import build_parser, main

ROOT = Path(__file__).resolve().parents[1]
MATRIX = ["--tp", "26", "--fn", "0", "--tn", "6", "--fp", "2"]
FAST = ["--draws", "100", "--metrics", "tpr"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as exit_info:  # argparse reports its own errors by exiting
        code = int(exit_info.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def _scores(tmp: Path) -> str:
    path = tmp / "scores.csv"
    path.write_text("y,a,b\n1,0.9,0.8\n0,0.2,0.3\n1,0.7,0.6\n0,0.4,0.1\n")
    return str(path)


def _board(tmp: Path) -> str:
    path = tmp / "board.csv"
    path.write_text("name,accuracy\nA,0.91\nB,0.905\n")
    return str(path)


def _file(tmp: Path, name: str = "taken", content: bytes = b"x") -> str:
    path = tmp / name
    path.write_bytes(content)
    return str(path)


def _spec(tmp: Path, name: str = "toy", content: bytes | None = None) -> str:
    path = tmp / "toy.toml"
    path.write_bytes(content if content is not None else (
        f'name = "{name}"\n[data]\ntp = 5\nfn = 1\ntn = 4\nfp = 2\n'.encode()))
    return str(path)


LONG = "x" * 300
# id -> (arguments from a temporary folder, words of the one-line error)
ERRORS: dict[str, tuple[Callable[[Path], list[str]], str]] = {
    "roc-plot-into-a-file": (lambda t: ["roc", _scores(t), "--label", "y", "--score", "a",
                                        "--plot", _file(t)], "is a file"),
    "run-output-is-a-file": (lambda t: ["run", _spec(t), "--output", _file(t)], "is a file"),
    "analyze-plot-is-a-folder": (lambda t: ["analyze", *MATRIX, "--plot", str(t)],
                                 "is a folder"),
    "analyze-plot-inside-a-file": (lambda t: ["analyze", *MATRIX, "--plot",
                                              f"{_file(t)}/fig.png"], "is a file"),
    "analyze-plot-unknown-format": (lambda t: ["analyze", *MATRIX, "--plot",
                                               str(t / "fig.pnx")], "Did you mean 'png'"),
    "analyze-plot-name-too-long": (lambda t: ["analyze", *MATRIX, "--plot",
                                              str(t / f"{LONG}.png")], "too long"),
    "run-output-name-too-long": (lambda t: ["run", _spec(t), "--output", str(t / LONG)],
                                 "too long"),
    "run-spec-name-too-long": (lambda t: ["run", _spec(t, LONG), "--output", str(t / "o")],
                               "at most 200"),
    "run-spec-is-a-folder": (lambda t: ["run", str(t)], "folder"),
    "run-spec-latin-1": (lambda t: ["run", _spec(t, content="# caf\u00e9\n".encode("latin-1"))],
                         "UTF-8"),
    "analyze-csv-is-a-folder": (lambda t: ["analyze", "--csv", str(t)], "folder"),
    "leaderboard-is-a-folder": (lambda t: ["leaderboard", str(t), "--n", "100"], "folder"),
    "leaderboard-decimal-comma": (lambda t: ["leaderboard", _file(
        t, "b.csv", b"name,accuracy\na,0,9\nb,0.8\n"), "--n", "100"], "line 2"),
    "leaderboard-accuracy-out-of-range": (lambda t: ["leaderboard", _file(
        t, "b.csv", b"name,accuracy\na,0.9\nb,1.2\n"), "--n", "100"], "line 3, column 'accuracy'"),
    "roc-repeated-column": (lambda t: ["roc", _file(t, "s.csv", b"y,a,a\n1,0.9,0.1\n0,0.2,0.3\n"),
                                       "--label", "y", "--score", "a"], "twice"),
    "roc-missing-cell": (lambda t: ["roc", _file(t, "s.csv", b"y,a,b\n1,0.9\n0,0.2,0.3\n"),
                                    "--label", "y", "--score", "a"], "line 2"),
    "roc-latin-1": (lambda t: ["roc", _file(t, "s.csv", "y,caf\u00e9\n1,0.9\n".encode(
        "latin-1")), "--label", "y", "--score", "a"], "s.csv, line 1"),
    "mistyped-flag": (lambda t: ["analyze", *MATRIX, "--drwas", "100"], "Did you mean '--draws'"),
    "mistyped-choice": (lambda t: ["analyze", *MATRIX, "--method", "exct"],
                        "Did you mean 'exact'"),
    "mistyped-command": (lambda t: ["analyse", *MATRIX], "Did you mean 'analyze'"),
    "mistyped-prior": (lambda t: ["analyze", *MATRIX, "--prior", "jefreys"],
                       "Did you mean 'jeffreys'"),
    "mistyped-metric": (lambda t: ["analyze", *MATRIX, "--metrics", "sensitivty"],
                        "Did you mean 'sensitivity'"),
    "mistyped-sample-size-prior": (lambda t: ["sample-size", "--mu", "0.2", "--prior",
                                              "laplase"], "Did you mean 'laplace'"),
    "count-with-underscore": (lambda t: ["analyze", "--tp", "2_6", "--fn", "0", "--tn", "6",
                                         "--fp", "2"], "underscore"),
    "draws-with-underscore": (lambda t: ["analyze", *MATRIX, "--draws", "1_000"], "underscore"),
    "seed-nan": (lambda t: ["analyze", *MATRIX, "--seed", "nan"], "--seed"),
    "prize-nan": (lambda t: ["leaderboard", _board(t), "--n", "100", "--prizes", "nan"],
                  "finite"),
    "prevalence-decimal-comma": (lambda t: ["analyze", *MATRIX, "--fixed-prevalence", "0,5"],
                                 "decimal comma"),
    "concentration-too-small": (lambda t: ["sample-size", "--mu", "0.2", "--concentration",
                                           "1"], "larger than 2"),
    "port-with-underscore": (lambda t: ["app", "--port", "5_006"], "port"),
}


@pytest.mark.parametrize("case", list(ERRORS))
def test_every_error_is_one_line_with_exit_code_2(capsys: pytest.CaptureFixture[str],
                                                  tmp_path: Path, case: str) -> None:
    make, words = ERRORS[case]
    code, out, err = run(capsys, *make(tmp_path))
    assert code == 2, (out, err)
    assert words in err, err
    assert err.startswith("bayescm") and "error:" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err


def test_an_unexpected_error_and_an_os_error_are_one_line_too(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("boom")

    def denied(*args: Any, **kwargs: Any) -> Any:
        raise PermissionError(13, "Permission denied", "/somewhere/fit.png")

    monkeypatch.delenv("BAYESCM_TRACEBACK", raising=False)
    for fake, words in ((broken, "unexpected RuntimeError: boom"),
                        (denied, "Permission denied (/somewhere/fit.png)")):
        monkeypatch.setattr(bcm, "fit", fake)
        code, _, err = run(capsys, "analyze", *MATRIX)
        assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err


# slow: starts a Python process; the slow run (CI) checks it
@pytest.mark.slow
def test_warnings_are_one_line_without_python_internals(tmp_path: Path) -> None:
    three = tmp_path / "three.csv"
    three.write_text("t,a,b,c\na,5,1,0\nb,1,4,1\nc,0,1,6\n")
    done = subprocess.run([sys.executable, "-m", "bayescm", "analyze", "--csv", str(three),
                           "--metrics", "acc", "--draws", "100", "--seed", "1"],
                          capture_output=True, text=True, check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    lines = done.stderr.strip().splitlines()
    assert lines and all(line.startswith("bayescm: warning: ") for line in lines), lines
    assert "pseudo-counts" in done.stderr
    for internal in ("Warning:", "sys.exit", "main()", ".py:"):
        assert internal not in done.stderr


def test_every_option_has_help() -> None:
    parser = build_parser()
    missing = [f"{name} {' / '.join(action.option_strings) or action.dest}"
               for name, sub in parser.commands.items() for action in sub._actions
               if not action.help and action.dest != "help"]
    assert missing == []


def test_whole_numbers_print_as_integers(capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    code, out, _ = run(capsys, "sample-size", "--mu", "0.2", "--sims", "300", "--seed", "1")
    assert code == 0
    header, row = out.strip().splitlines()[-2:]
    cells = dict(zip(header.split(), row.split()[1:], strict=True))
    plan = bcm.samplesize.plan(0.2, n_sims=300, random_seed=1)
    assert cells["n"] == str(plan.n) and cells["rule_of_thumb_n"] == str(plan.rule_of_thumb)
    code, out, _ = run(capsys, "leaderboard", _board(tmp_path), "--n", "1000", "--draws",
                       "500", "--seed", "1")
    assert code == 0
    header, *rows = [line.split() for line in out.strip().splitlines()[1:] if line.strip()]
    first = dict(zip(header, rows[-2][1:], strict=True))
    assert first["published_rank"] == "1" and first["correct"] == "910"


@pytest.mark.parametrize("command", [["analyze", *MATRIX, *FAST],
                                     ["sample-size", "--mu", "0.3", "--sims", "200"]])
def test_a_run_without_a_seed_prints_the_seed_that_repeats_it(
        capsys: pytest.CaptureFixture[str], command: list[str]) -> None:
    code, out, _ = run(capsys, *command, "--format", "json")
    assert code == 0
    first = json.loads(out)
    seed = first["seed"]
    code, out, _ = run(capsys, *command, "--format", "json", "--seed", str(seed))
    assert code == 0 and json.loads(out) == first
    code, out, _ = run(capsys, *command, "--seed", str(seed))
    assert f"seed {seed}" in out.splitlines()[0]
    code, _, err = run(capsys, *command, "--format", "csv")
    assert code == 0 and "seed" in err and "--seed" in err


def test_roc_prints_its_seed_and_its_figures(capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    code, out, _ = run(capsys, "roc", _scores(tmp_path), "--label", "y", "--score", "a", "b",
                       "--draws", "50", "--chains", "2", "--plot", str(tmp_path / "figs"))
    assert code == 0
    assert "seed " in out.splitlines()[0]
    assert "roc.png" in out and str(tmp_path / "figs") in out


def test_run_says_what_it_fitted_and_wrote(capsys: pytest.CaptureFixture[str],
                                           tmp_path: Path) -> None:
    out_dir = tmp_path / "out"
    code, out, err = run(capsys, "run", str(ROOT / "models" / "cocaine_purity.toml"),
                         "--output", str(out_dir), "--draws", "200")
    assert code == 0, err
    spec = bcm.spec.load_spec(ROOT / "models" / "cocaine_purity.toml")
    assert spec.name in out and f"{spec.data.n} samples" in out
    assert f"seed {spec.options['random_seed']}" in out
    assert "tpr" in out and "hdi_lower" in out  # the summary itself
    for file in out_dir.iterdir():
        assert file.name in out
    assert str(out_dir) in out
