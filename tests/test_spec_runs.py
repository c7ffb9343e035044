"""Folds and runs in analysis specs: one procedure's matrices, two procedures paired, refusals.

The fast tests parse specs and run a comparison with the exact stand-in kind of
tests/test_runs.py (each fold alone, the population from all folds pooled), so no NUTS runs; the
slow test runs the example spec in models/ with NUTS.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from test_runs import FOLDS, ExactFolds  # registers the exact stand-in kind

import bayescm as bcm
from bayescm.errors import SpecError
from bayescm.io.spec import load_spec, parse_spec
from bayescm.io.spec_analysis import AnalysisSpec
from bayescm.io.spec_runs import RunsComparisonSpec

EXAMPLE = Path(__file__).resolve().parents[1] / "models" / "cv_three_class_procedures.toml"
LABELS = ["a", "b", "c"]
RUNS = {f"fold{i + 1}": m for i, m in enumerate(FOLDS)}
BETTER = {k: [[c + 30 * (i == j) for j, c in enumerate(row)] for i, row in enumerate(m)]
          for k, m in RUNS.items()}
BINARY = {"s1": [[40, 10], [5, 45]], "s2": [[38, 12], [7, 43]], "s3": [[44, 6], [4, 46]]}


def _two(**options: object) -> dict:
    return {"data": {"labels": LABELS, "runs": {"base": RUNS, "better": BETTER}},
            "options": {"draws": 200, "chains": 2, "seed": 1, **options}}


def test_the_example_spec_compares_two_procedures_of_a_three_class_classifier() -> None:
    spec = load_spec(EXAMPLE)
    assert isinstance(spec, RunsComparisonSpec)
    assert list(spec.procedures) == ["baseline", "augmented"]
    assert spec.compare == ("acc", "f1_macro") and spec.tables == ("summary", "compare")
    base = spec.procedures["baseline"]
    assert len(base.data) == 5 and base.data["fold3"].n_classes == 3
    assert base.options["model"] == "hierarchical" and base.options["group"] == "fold"
    assert base.tables == ("summary",) and base.figures == ("group_forest",)
    assert repr(base.priors["priors"]["spread"]) == "HalfNormal(sigma=0.2)"


@pytest.mark.parametrize("runs", [RUNS, BINARY], ids=["multiclass", "binary"])
def test_one_procedure_is_a_hierarchical_batch(runs: dict) -> None:
    labels = LABELS if runs is RUNS else ["yes", "no"]
    spec = parse_spec({"data": {"runs": runs, "labels": labels}}, name="cv")
    assert isinstance(spec, AnalysisSpec)
    assert spec.options == {"model": "hierarchical", "group": "run"}
    assert list(spec.data) == list(runs)
    first = next(iter(spec.data.values()))
    assert first.is_binary == (runs is BINARY) and first.labels == tuple(labels)
    assert spec.fit_kwargs(draws=10)["group"] == "run"


def test_a_comparison_fits_both_procedures_and_compares_them_run_by_run() -> None:
    assert ExactFolds.key == "test_exact_folds"
    spec = parse_spec({**_two(model="test_exact_folds", group="fold",
                              metrics=["acc", "f1_macro"]),
                       "outputs": {"figures": [], "compare": ["acc", "f1_macro"]}}, name="cv")
    trees = spec.run(write=False)  # writing: the slow run of the example spec
    assert set(trees) == {"base", "better"}
    table = spec.comparison(trees)
    assert list(table.index.get_level_values(0).unique()) == ["acc", "f1_macro"]
    rows = table.loc["acc"]
    assert list(rows.index[:4]) == list(RUNS) and "mean over folds" in rows.index
    assert (rows["mean"] < 0).all() and (rows["p_a_better"] < 0.05).all()  # A (base) is worse
    want = (trees["base"]["posterior"]["acc"] - trees["better"]["posterior"]["acc"]).mean()
    assert rows.loc["mean over folds", "mean"] == pytest.approx(float(want), abs=1e-9)
    # the same seed repeats the fits; the two procedures draw from independent streams
    again = spec.run(write=False)
    assert float(again["base"]["posterior"]["acc"].mean()) == pytest.approx(
        float(trees["base"]["posterior"]["acc"].mean()), abs=0)
    assert not bool((again["base"]["posterior"]["acc"].values ==
                     again["better"]["posterior"]["acc"].values).any())


def test_the_compared_metrics_default_to_the_fit_s_scalar_metrics() -> None:
    spec = parse_spec(_two(metrics=["f1", "f1_macro"]), name="cv")
    assert spec.compare == ("f1_macro",)
    assert parse_spec(_two(), name="cv").compare == ("acc", "f1_macro")
    binary = {"data": {"runs": {"a": BINARY, "b": BINARY}}}
    assert parse_spec(binary, name="cv").compare == ("acc", "bm")


@pytest.mark.parametrize(("raw", "words"), [
    ({"data": {"runs": RUNS, "labels": LABELS, "colour": 1}}, "unknown key 'colour'"),
    ({"data": {"runs": {}}}, "one matrix per run"),
    ({"data": {"runs": [1, 2]}}, "one matrix per run"),
    ({"data": {"runs": {"fold1": FOLDS[0], "b": RUNS}}}, "mixes matrices and tables"),
    ({"data": {"runs": {"a": RUNS, "b": RUNS, "c": RUNS}}}, "two procedures.*has 3"),
    ({"data": {"runs": {"a": RUNS, "b": dict(list(RUNS.items())[:3])}}}, "different runs"),
    ({"data": {"runs": {"a/b": RUNS, "c": RUNS}}}, "no slashes"),
    ({"data": {"runs": {"a": {}, "b": {}}}}, r"\[data.runs.a\] holds no runs"),
    ({"data": {"runs": {"fold1": 5, "fold2": FOLDS[1]}}}, "fold1: give the run's matrix"),
    ({"data": {"runs": {"fold1": [[1, -2], [3, 4]], "fold2": [[1, 2], [3, 4]]}}},
     r"\[data.runs\] fold1:.*negative"),
    ({"data": {"runs": {"fold1": FOLDS[0], "fold2": [[1, 2], [3, 4]]}}}, "different classes"),
    ({"data": {"runs": {"fold1": FOLDS[0]}}}, "at least two"),
    ({"data": {"runs": RUNS}, "options": {"group": "a b"}}, "group"),
    ({"data": {"runs": RUNS}, "options": {"method": "exact"}}, "NUTS"),
    ({"data": {"runs": RUNS}, "outputs": {"compare": ["acc"]}}, "compares two procedures"),
    ({"data": {"runs": RUNS}, "outputs": {"tables": ["compare"]}}, "compares two procedures"),
    ({"data": {"runs": RUNS}, "priors": {"sd_logit_tpr": {"dist": "HalfNormal", "sigma": 1}}},
     "sd_logit_tpr"),
    ({**_two(), "outputs": {"compare": ["f1"]}}, "value per class.*f1_macro"),
    ({**_two(), "outputs": {"compare": ["acc_typo"]}}, "outputs.compare"),
    ({**_two(metrics=["f1_macro"]), "outputs": {"compare": ["acc"]}}, "not among options"),
    ({**_two(metrics=["f1"])}, "no scalar metric"),
    ({**_two(), "outputs": {"colour": 1}}, "unknown key 'colour'"),
])
def test_bad_run_specs_are_named(raw: dict, words: str) -> None:
    with pytest.raises(SpecError, match=words):
        parse_spec(raw, name="cv")


def test_bad_run_specs_name_their_file(tmp_path: Path) -> None:
    path = tmp_path / "cv.toml"
    path.write_text("[data]\nlabels = ['a', 'b']\n[data.runs]\nfold1 = [[1, 2], [3, 4]]\n"
                    "fold2 = 'many'\n")
    with pytest.raises(SpecError, match=r"cv.toml: \[data.runs\] fold2"):
        load_spec(path)


@pytest.mark.slow
def test_the_example_spec_runs_with_nuts_and_writes(tmp_path: Path) -> None:
    spec = load_spec(EXAMPLE)
    trees = spec.run(tmp_path, draws=200)
    post = trees["augmented"]["posterior"]
    assert post["acc"].dims == ("chain", "draw", "fold")
    assert {"acc_mean", "acc_sd", "acc_new", "f1_macro_mean"} <= set(post.data_vars)
    table = pd.read_csv(tmp_path / "compare.csv", index_col=[0, 1])
    assert list(table.index.get_level_values(0).unique()) == ["acc", "f1_macro"]
    # the augmented procedure is better on the whole: A - B (baseline - augmented) < 0
    assert table.loc[("acc", "mean over folds"), "mean"] < 0
    stored = bcm.load(tmp_path / "baseline" / "cv_three_class_procedures_baseline.nc")
    assert stored.attrs["model"] == "hierarchical_multiclass"
    assert (tmp_path / "augmented" / "summary.csv").exists()
    assert list((tmp_path / "baseline").glob("*.png"))


def test_the_group_forest_of_multiclass_runs_draws_their_metrics() -> None:
    import matplotlib.pyplot as plt

    from bayescm.io.runner import pooled_figure

    folds = {k: bcm.ConfusionMatrix(v, labels=LABELS) for k, v in RUNS.items()}
    tree = bcm.fit(folds, model="test_exact_folds", group="fold", draws=100, chains=2,
                   random_seed=3, metrics=["acc", "f1_macro"])
    fig = pooled_figure(tree, "group_forest", ["acc", "f1_macro"])
    assert len([ax for ax in fig.axes if ax.get_title()]) == 2
    plt.close(fig)
