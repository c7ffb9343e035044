"""``bayescm dca``: decision curves of risks from a CSV file, its output and its errors."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import bayescm as bcm
from bayescm.cli import main

DATA = Path(bcm.__file__).parent / "data" / "dcurves_df_binary.csv"
BOTH = ["--label", "cancer", "--score", "famhistory", "cancerpredmarker"]


def run(capsys, *args):
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_json_holds_the_published_point_values_and_the_posterior(capsys) -> None:
    code, out, err = run(capsys, "dca", str(DATA), *BOTH, "--thresholds", "0.1", "0.2",
                         "--draws", "250", "--seed", "3", "--format", "json")
    assert code == 0 and err == ""
    payload = json.loads(out)
    assert payload["n"] == 750 and payload["n_pos"] == 105 and payload["thresholds"] == [0.1, 0.2]
    rows = payload["net_benefit"]["cancerpredmarker"]
    # R dcurves on df_binary (tests/data/dcurves_net_benefit.csv)
    assert rows["0.1"]["observed"] == pytest.approx(0.08740740740740742, abs=1e-12)
    assert rows["0.2"]["observed"] == pytest.approx(0.06733333333333334, abs=1e-12)
    nb = bcm.net_benefit(bcm.fit(bcm.datasets.dcurves_binary(), draws=250, random_seed=3),
                         thresholds=[0.1, 0.2])
    mean = nb["posterior"]["net_benefit"].sel(system="cancerpredmarker").mean(("chain", "draw"))
    assert rows["0.2"]["mean"] == pytest.approx(float(mean.sel(threshold=0.2)))
    assert rows["0.1"]["hdi_lower"] < rows["0.1"]["mean"] < rows["0.1"]["hdi_upper"]
    assert rows["0.1"]["p_useful"] == pytest.approx(float(
        nb["posterior"]["p_useful"].sel(system="cancerpredmarker", threshold=0.1)))


def test_table_with_costs_csv_and_the_figure(capsys, tmp_path) -> None:
    figure = tmp_path / "dca.png"
    code, out, _ = run(capsys, "dca", str(DATA), *BOTH, "--range", "0.05", "0.25", "0.05",
                       "--cost-fp", "1", "--cost-fn", "4", "--draws", "100", "--seed", "1",
                       "--plot", str(figure))
    assert code == 0 and figure.stat().st_size > 10_000
    assert "cancerpredmarker @ 0.25" in out and "famhistory @ 0.05" in out
    assert "Expected cost per case" in out and f"wrote {figure}" in out
    code, out, _ = run(capsys, "dca", str(DATA), *BOTH, "--draws", "50", "--seed", "1",
                       "--format", "csv")
    lines = out.strip().splitlines()
    assert code == 0 and lines[0].startswith("variable,system,threshold,observed,mean")
    assert len(lines) == 1 + 2 * 10  # the default thresholds 0.05, ..., 0.5


@pytest.fixture(scope="module")
def bad_csv(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("dca") / "bad.csv"
    rng = np.random.default_rng(0)
    rows = ["y,risk,score,one_class"] + [f"{i % 2},{r:.3f},{3 * r:.3f},1"
                                         for i, r in enumerate(rng.random(40))]
    path.write_text("\n".join(rows) + "\n")
    return path


@pytest.mark.parametrize(("args", "message"), [
    (["--thresholds", "0", "0.2"], "--thresholds must lie strictly between 0 and 1"),
    (["--thresholds", "0.5", "1.2"], "--thresholds must lie strictly between 0 and 1"),
    (["--range", "0.3", "0.1", "0.1"], "START <= STOP"),
    (["--cost-fp", "-1", "--cost-fn", "2"], "--cost-fp must be a finite number >= 0"),
    (["--cost-fp", "0", "--cost-fn", "0"], "--cost-fp and --cost-fn are both zero"),
    (["--cost-fp", "1"], "give both --cost-fp and --cost-fn"),
    (["--prevalence", "0.2"], "give --cost-fp and --cost-fn with it"),
])
def test_bad_options_exit_2_with_one_line(capsys, bad_csv, args, message) -> None:
    code, _, err = run(capsys, "dca", str(bad_csv), "--label", "y", "--score", "risk", *args)
    assert code == 2 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(("args", "message"), [
    (["--label", "y", "--score", "score"], "need risks (predicted probabilities in [0, 1])"),
    (["--label", "one_class", "--score", "risk", "--positive", "1"], "exactly two classes"),
])
def test_bad_data_exit_2_with_one_line(capsys, bad_csv, args, message) -> None:
    code, _, err = run(capsys, "dca", str(bad_csv), *args)
    assert code == 2 and message in err and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_the_figure_path_is_checked_before_the_fit_and_its_suffix_decides(capsys, tmp_path,
                                                                          monkeypatch) -> None:
    def no_fit(*args, **kwargs):  # the path's error must come before any fitting
        raise AssertionError("fitted before checking --plot")

    with monkeypatch.context() as patch:
        patch.setattr(bcm, "fit", no_fit)
        for bad, words in ((tmp_path, "is a folder"), (tmp_path / "f.foo", "not .foo")):
            code, _, err = run(capsys, "dca", str(DATA), *BOTH, "--plot", str(bad))
            assert code == 2 and words in err and len(err.strip().splitlines()) == 1, err
    pdf = tmp_path / "curve.pdf"
    code, _, _ = run(capsys, "dca", str(DATA), *BOTH, "--draws", "50", "--plot", str(pdf))
    assert code == 0 and pdf.read_bytes()[:5] == b"%PDF-"  # not PNG bytes in a .pdf
