"""``bayescm eval``: each system's accuracy beside its yardsticks, and every paired difference.

The fast tests stand a tree assembled from NumPy draws (``conftest.synthetic_items_fit``) in for
the NUTS fit (``cli_eval._fit``), so they check the command (reading, options, tables, output
forms, figures, errors) and not the sampler; one slow test runs the whole command.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import bayescm as bcm
from bayescm import cli_eval
from bayescm.analyses.items_frequentist import cluster_robust, naive_intervals
from bayescm.analyses.items_tables import eval_tables
from bayescm.cli import main
from bayescm.models.items import ItemsModel
from conftest import DATA, synthetic_items_fit

LOG = DATA / "eval_log.csv"
"""The packaged log: question, domain, subdomain, model, epoch, correct (3 systems)."""
COLUMNS = ["--outcome", "correct", "--item", "question", "--cluster", "subdomain",
           "--system", "model", "--attempt", "epoch"]


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as exit_info:  # argparse reports its own errors by exiting
        code = int(exit_info.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def fits(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """Each fit the command asks for (its log and keywords); the tree comes without NUTS."""
    calls: list[dict[str, Any]] = []

    def fake(data: Any, **kwargs: Any) -> Any:
        calls.append({"data": data, **kwargs})
        options = {k: kwargs[k] for k in ("priors", "hdi_prob", "random_seed") if k in kwargs}
        return synthetic_items_fit(data, chains=kwargs["chains"], draws=kwargs["draws"],
                                   **options)

    monkeypatch.setattr(cli_eval, "_fit", fake)
    return calls


def test_json_holds_the_tables_of_the_fit_it_made(capsys, fits) -> None:
    code, out, err = run(capsys, "eval", str(LOG), *COLUMNS, "--draws", "120", "--chains", "2",
                         "--seed", "4", "--hdi-prob", "0.9", "--tune", "300", "--priors",
                         'sd_item={"dist": "HalfNormal", "sigma": 1.5}', "--format", "json")
    assert code == 0, err
    payload = json.loads(out)
    (call,) = fits
    assert call["data"].systems == ["model_a", "model_b", "model_c"]
    assert call["data"].n_clusters == 16 and call["data"].n_attempts == 2970
    assert {k: call[k] for k in ("draws", "chains", "random_seed", "hdi_prob", "tune")} == {
        "draws": 120, "chains": 2, "random_seed": 4, "hdi_prob": 0.9, "tune": 300}
    assert call["priors"] == {"sd_item": bcm.priors.HalfNormal(1.5)}
    idata = synthetic_items_fit(call["data"], chains=2, draws=120, hdi_prob=0.9, random_seed=4,
                                priors=call["priors"])
    systems, pairs = eval_tables(idata)
    assert payload["hdi_prob"] == 0.9 and payload["seed"] == 4
    assert (payload["items"], payload["clusters"], payload["attempts"]) == (198, 16, 2970)
    assert payload["priors"]["sd_item"]["sigma"] == 1.5
    for name, row in systems.iterrows():
        for column, value in row.items():
            assert payload["accuracy"][name][column] == pytest.approx(value)
    assert list(payload["accuracy_diff"]) == list(pairs.index) == [
        "model_b - model_a", "model_c - model_a", "model_c - model_b"]
    for name, row in pairs.iterrows():
        assert payload["accuracy_diff"][name] == pytest.approx(row.to_dict())


def test_eval_tables_agree_with_the_draws_and_the_yardsticks() -> None:
    log = bcm.datasets.eval_log()
    idata = synthetic_items_fit(log)
    systems, pairs = eval_tables(idata, hdi_prob=0.8)
    acc = idata["posterior"]["accuracy"]
    assert systems.loc["model_b", "mean"] == pytest.approx(float(acc.sel(system="model_b")
                                                                 .mean()))
    naive = naive_intervals(log, hdi_prob=0.8)
    cr1, cr1_pairs = cluster_robust(log, hdi_prob=0.8)
    np.testing.assert_allclose(systems[["naive_lower", "naive_upper"]], naive[["lower",
                                                                               "upper"]])
    np.testing.assert_allclose(systems[["cr1_lower", "cr1_upper"]], cr1[["lower", "upper"]])
    np.testing.assert_allclose(pairs[["cr1_lower", "cr1_upper"]], cr1_pairs[["lower",
                                                                             "upper"]])
    observed = (log.successes / log.attempts).mean(axis=1)
    np.testing.assert_allclose(systems["observed"], observed)
    diff = idata["posterior"]["accuracy_diff"].sel(pair="model_c - model_b")
    assert pairs.loc["model_c - model_b", "p_greater"] == pytest.approx(
        bcm.prob_superior(idata, "model_c", "model_b", metric="accuracy"))
    assert pairs.loc["model_c - model_b", "mean"] == pytest.approx(float(diff.mean()))
    np.testing.assert_allclose(systems["design_effect"], idata["posterior"]["design_effect"]
                               .mean(("chain", "draw")))
    with pytest.raises(ValueError, match="reads an item-level evaluation fit"):
        eval_tables(bcm.fit(bcm.ConfusionMatrix.from_counts(tp=20, fn=5, tn=30, fp=5),
                            draws=20))


# slow: runs bayescm eval and draws its figures; the slow run (CI) checks it
@pytest.mark.slow
def test_table_csv_and_figures(capsys, fits, tmp_path) -> None:
    folder = tmp_path / "figures"
    code, out, err = run(capsys, "eval", str(LOG), *COLUMNS, "--draws", "100", "--chains", "2",
                         "--seed", "1", "--plot", str(folder))
    assert code == 0, err
    assert "Accuracy on a new item: 198 items in 16 clusters, 2,970 outcomes, 2 x 100 NUTS" in out
    assert "naive_lower" in out and "cr1_upper" in out and "model_c - model_b" in out
    assert "--seed 1 repeats this run" in out
    names = sorted(p.name for p in folder.iterdir())
    assert names == ["items_accuracy.png", "items_differences.png", "items_ranks.png",
                     "pass_at_k.png"]
    assert all(p.read_bytes()[:4] == b"\x89PNG" for p in folder.iterdir())
    code, out, err = run(capsys, "eval", str(LOG), *COLUMNS, "--draws", "100", "--format",
                         "csv")
    lines = out.strip().splitlines()
    assert lines[0] == ("variable,observed,mean,hdi_lower,hdi_upper,naive_lower,naive_upper,"
                        "cr1_lower,cr1_upper,design_effect,p_greater")
    assert [line.split(",")[0] for line in lines[1:]] == [
        "accuracy[model_a]", "accuracy[model_b]", "accuracy[model_c]",
        "accuracy_diff[model_b - model_a]", "accuracy_diff[model_c - model_a]",
        "accuracy_diff[model_c - model_b]"]
    assert "bayescm eval: seed" in err  # a drawn seed, named where CSV has no room


def test_one_system_from_label_and_prediction_columns(capsys, fits, tmp_path) -> None:
    rng = np.random.default_rng(2)
    item = np.repeat([f"q{i}" for i in range(40)], 2)
    truth = np.repeat(rng.choice(list("ABCD"), 40), 2)
    answer = np.where(rng.random(80) < 0.7, truth, "D")
    path = tmp_path / "log.csv"
    pd.DataFrame({"q": item, "truth": truth, "answer": answer}).to_csv(path, index=False)
    folder = tmp_path / "figures"
    code, out, err = run(capsys, "eval", str(path), "--item", "q", "--label", "truth",
                         "--prediction", "answer", "--draws", "50", "--chains", "1",
                         "--format", "json", "--plot", str(folder))
    assert code == 0, err
    payload = json.loads(out)
    assert list(payload["accuracy"]) == ["A"] and payload["accuracy_diff"] == {}
    assert payload["clusters"] is None and payload["items"] == 40
    assert payload["accuracy"]["A"]["observed"] == pytest.approx(
        pd.Series(answer == truth).groupby(item).mean().mean())
    assert sorted(p.name for p in folder.iterdir()) == ["items_accuracy.png", "pass_at_k.png"]


def test_correct_is_another_name_for_outcome(capsys, fits) -> None:
    args = [a if a != "--outcome" else "--correct" for a in COLUMNS]
    code, _, err = run(capsys, "eval", str(LOG), *args, "--draws", "50", "--format", "json")
    assert code == 0, err
    assert fits[0]["data"].columns["outcome"] == "correct"


@pytest.fixture
def bad_log(tmp_path) -> Path:
    path = tmp_path / "bad.csv"
    path.write_text("item,sys,correct,graded\nq1,a,1,1\nq1,b,0,0\nq2,a,0,0.5\nq2,b,1,1\n")
    return path


@pytest.mark.parametrize(("args", "message"), [
    (["--item", "item"], "give --outcome COL (1/0 outcomes) or both --label COL and "
                         "--prediction COL"),
    (["--item", "item", "--outcome", "correct", "--label", "x"], "not both"),
    (["--item", "itm", "--outcome", "correct"], "Did you mean 'item'?"),
    (["--item", "item", "--outcome", "graded", "--system", "sys"],
     "column 'graded': '0.5' is not an outcome (0 or 1, True or False) at line 4"),
    (["--item", "item", "--outcome", "correct", "--priors", "sd_item=laplace",
      "sd_item=jeffreys"], "the prior of sd_item is given twice"),
    (["--item", "item", "--outcome", "correct", "--priors", "sd_item"], "is not PARAM=PRIOR"),
    (["--item", "item", "--outcome", "correct", "--draws", "0"], "must be >= 1"),
    (["--item", "item", "--outcome", "correct", "--format", "jsn"], "Did you mean 'json'?"),
])
def test_bad_input_exits_2_with_one_line(capsys, fits, bad_log, args, message) -> None:
    code, out, err = run(capsys, "eval", str(bad_log), *args)
    assert code == 2 and out == ""
    assert err.startswith("bayescm eval: error: ") and err.count("\n") == 1
    assert message in err
    assert not fits  # refused before any fit


def test_priors_the_log_cannot_take_are_named_before_sampling(capsys, tmp_path) -> None:
    path = tmp_path / "log.csv"
    path.write_text("item,correct\n" + "".join(f"q{i},{i % 2}\n" for i in range(20)))
    code, _, err = run(capsys, "eval", str(path), "--item", "item", "--outcome", "correct",
                       "--priors", 'sd_cluster={"dist": "HalfNormal", "sigma": 1}')
    assert code == 2
    assert "sd_cluster" in err and "has no clusters" in err and err.count("\n") == 1


def test_missing_file_and_help(capsys) -> None:
    code, _, err = run(capsys, "eval", "nowhere.csv", "--item", "q", "--outcome", "y")
    assert code == 2 and "no such file: nowhere.csv" in err
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    out = capsys.readouterr().out
    assert "--cluster COL" in out and "--outcome COL, --correct COL" in out


@pytest.mark.slow  # NUTS: about 10 s
def test_the_command_fits_with_nuts_and_repeats_with_its_seed(capsys, tmp_path) -> None:
    path = tmp_path / "log.csv"
    ItemsModel.example_frame().to_csv(path, index=False)
    args = ["eval", str(path), "--item", "item_id", "--outcome", "correct", "--cluster",
            "passage", "--system", "system", "--attempt", "attempt", "--draws", "200",
            "--chains", "2", "--seed", "11", "--format", "json"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # 2 x 200 draws: convergence notes are expected
        code, out, err = run(capsys, *args)
        assert code == 0, err
        again = json.loads(run(capsys, *args)[1])
        idata = bcm.fit(bcm.Items.from_csv(path, item="item_id", cluster="passage",
                                           system="system", attempt="attempt"),
                        draws=200, chains=2, random_seed=11)
    payload = json.loads(out)
    assert payload == again  # --seed repeats the run
    systems, pairs = eval_tables(idata)
    assert payload["accuracy"]["B"]["mean"] == pytest.approx(systems.loc["B", "mean"])
    assert payload["accuracy_diff"]["B - A"]["p_greater"] == pytest.approx(
        pairs.loc["B - A", "p_greater"])
    for row in payload["accuracy"].values():
        assert row["hdi_lower"] < row["mean"] < row["hdi_upper"]
        assert row["naive_upper"] - row["naive_lower"] < row["hdi_upper"] - row["hdi_lower"]
