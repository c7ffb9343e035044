"""Analysis specifications: every spec in models/ runs and writes its outputs; bad specs fail
with messages that name the file and the key."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest

matplotlib.use("Agg")

import bayescm as bcm
from bayescm.errors import SpecError
from bayescm.io.spec import load_spec, parse_spec

MODELS = sorted((Path(__file__).resolve().parents[1] / "models").glob("*.toml"))
ANALYSES = [p for p in MODELS if "\n[planning]" not in p.read_text()
            and "\n[data.runs." not in p.read_text()]
"""The specs that analyse data (tests/test_spec_planning.py runs those that plan,
tests/test_spec_runs.py those that compare two procedures on the same runs)."""


def test_catalogue_is_complete():
    names = {p.stem for p in MODELS}
    assert {"cocaine_purity", "literature_table_s1", "simulated_classifier", "wordle",
            "screening_scores", "auditc_meta", "eval_log", "sensitivity_study",
            "dcurves_binary", "cv_three_class_procedures"} <= names


SLOW_SPECS = {"auditc_meta", "eval_log", "wordle", "literature_table_s1", "dcurves_binary",
              "screening_scores", "simulated_classifier", "cocaine_purity", "tuberculosis_tests",
              "anaesthesia_raters"}
"""Specs whose run takes long (NUTS with the spec's tuning, the latent class specs among them;
wordle's and the literature table's many classes or classifiers, 3-4 s each; dcurves_binary's
calibration model and seven figures; screening_scores' and simulated_classifier's figures, 1-2 s
each): run with -m slow
(tests/test_spec_decisions.py runs [decisions], test_scores_are_a_data_form a scores spec and
tests/test_cli_errors.py the cocaine spec through bayescm run in the fast suite)."""


@pytest.mark.parametrize("path", [pytest.param(p, marks=pytest.mark.slow)
                                  if p.stem in SLOW_SPECS else p for p in ANALYSES],
                         ids=[p.stem for p in ANALYSES])
@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_every_spec_runs_and_writes(path, tmp_path):
    spec = load_spec(path)
    idata = spec.run(tmp_path, draws=200)
    tree = bcm.load(tmp_path / f"{spec.name}.nc")
    assert set(tree.children) == set(idata.children)
    table = pd.read_csv(tmp_path / "summary.csv", index_col=0)
    expected = bcm.summary(idata)
    assert set(expected.index) <= set(table.index)
    pngs = list(tmp_path.glob("*.png"))
    assert pngs and all(p.stat().st_size > 1000 for p in pngs)


def test_paper_specs_hold_the_papers_data():
    lit = load_spec(next(p for p in MODELS if p.stem == "literature_table_s1"))
    assert len(lit.data) == 24 and lit.data["8"].cells == {"tp": 28, "fn": 9, "fp": 4, "tn": 3}
    coke = load_spec(next(p for p in MODELS if p.stem == "cocaine_purity"))
    assert coke.data.cells == {"tp": 26, "fn": 0, "fp": 2, "tn": 6}
    wordle = load_spec(next(p for p in MODELS if p.stem == "wordle"))
    assert wordle.data == bcm.datasets.wordle()


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"data": {"tp": 1, "fn": 1, "tn": 1, "fp": 1}, "colour": "red"}, "colour"),
        ({"options": {"draws": 10}}, "data"),
        ({"data": {"tp": 1, "fn": 1, "tn": 1}}, "fp"),
        ({"data": {"tp": -1, "fn": 1, "tn": 1, "fp": 1}}, "tp"),
        ({"data": {"tp": 1, "fn": 1, "tn": 1, "fp": 1}, "priors": {"tpr": "flatish"}}, "flatish"),
        ({"data": {"tp": 1, "fn": 1, "tn": 1, "fp": 1},
          "priors": {"tpr": {"dist": "Beta", "alpha": -2, "beta": 1}}}, "tpr"),
        ({"data": {"tp": 1, "fn": 1, "tn": 1, "fp": 1}, "options": {"draws": "many"}}, "draws"),
        ({"data": {"tp": 1, "fn": 1, "tn": 1, "fp": 1}, "options": {"metrics": ["auc"]}},
         "auc"),
        # the hierarchical model
        ({"data": {"tp": 1, "fn": 1, "tn": 1, "fp": 1},
          "options": {"model": "hierarchical", "group": "site"}}, "not a single matrix"),
        ({"data": {"y_true": [1, 0], "scores": [0.9, 0.2]},
          "options": {"model": "hierarchical", "group": "site"}}, "scores are fitted by"),
        ({"data": {"dataset": "auditc"}, "options": {"model": "hierarchical"}},
         "needs group"),
        ({"data": {"dataset": "auditc"}, "options": {"model": "hierarchical", "group": "a b"}},
         "identifier"),
        ({"data": {"dataset": "auditc"}, "options": {"group": "study"}},
         "group names the group dim"),
        ({"data": {"dataset": "auditc"}, "options": {"model": "paired"}}, "options.model"),
        ({"data": {"dataset": "auditc"}, "options": {"model": "hierarchical", "group": "study",
                                                     "method": "exact"}}, "sampled with NUTS"),
        ({"data": {"dataset": "auditc"}, "options": {"model": "hierarchical", "group": "study",
                                                     "target_accept": 1.5}}, "target_accept"),
        ({"data": {"dataset": "auditc"}, "options": {"model": "hierarchical", "group": "study",
                                                     "tune": -1}}, "options.tune"),
        ({"data": {"tp": 1, "fn": 1, "tn": 1, "fp": 1}, "options": {"tune": 500}},
         "tunes the NUTS sampler"),
        ({"data": {"dataset": "wordle"}, "options": {"model": "hierarchical",
                                                     "group": "study"}}, "not a single matrix"),
        ({"data": {"classifiers": {"a": {"tp": 1, "fn": 1, "tn": 1, "fp": 1}}},
          "outputs": {"figures": ["sroc"]}}, "'sroc' draws a hierarchical fit"),
        ({"data": {"dataset": "auditc"}, "options": {"model": "hierarchical", "group": "study"},
          "outputs": {"figures": ["posterior"]}}, "'posterior' draws the densities"),
        ({"data": {"dataset": "auditc"}, "options": {"model": "hierarchical", "group": "study"},
          "priors": {"tpr": "jeffreys"}}, r"unknown key 'tpr' in \[priors\]"),
        ({"data": {"dataset": "auditc"}, "options": {"model": "hierarchical", "group": "study"},
          "priors": {"sd_logit_tpr": {"dist": "Normal", "mu": 0, "sigma": 1}}},
         r"sd_logit_tpr: give a table \{dist = \"HalfNormal\""),
        ({"data": {"dataset": "auditc"}, "options": {"model": "hierarchical", "group": "study"},
          "priors": {"mu_logit_tpr": {"dist": "Normal", "mu": 0, "sigma": -1}}},
         "sigma must be > 0"),
        ({"data": {"dataset": "auditc"}, "options": {"model": "hierarchical", "group": "study"},
          "priors": {"corr_logit": {"dist": "LKJ", "eta": 2, "shape": 1}}}, "unknown key 'shape'"),
        ({"data": {"dataset": "auditc"}, "options": {"model": "hierarchical", "group": "study"},
          "priors": {"prevalence": "haldane"}}, "proper Beta"),
    ],
)
def test_bad_specs_name_the_key(raw, message):
    with pytest.raises((SpecError, ValueError, TypeError), match=message):
        parse_spec(raw, name="bad")


def test_bad_files(tmp_path):
    with pytest.raises(FileNotFoundError):
        load_spec(tmp_path / "none.toml")
    broken = tmp_path / "broken.toml"
    broken.write_text("[data\ntp = 1")
    with pytest.raises(SpecError, match=r"broken\.toml"):
        load_spec(broken)
    missing = tmp_path / "missing.toml"
    missing.write_text('[data]\ncsv = "nowhere.csv"\n')
    with pytest.raises((SpecError, FileNotFoundError), match=r"nowhere\.csv"):
        load_spec(missing)


def test_simulate_table_draws_reproducible_batches():
    raw = {"simulate": {"n": [20, 200], "tpr": 0.9, "size": 2, "seed": 5}}
    spec = parse_spec(raw, name="sim")
    assert list(spec.data) == ["N20_1", "N20_2", "N200_1", "N200_2"]
    assert [cm.n for cm in spec.data.values()] == [20, 20, 200, 200]
    again = parse_spec(raw, name="sim")
    assert all(a == b for a, b in zip(spec.data.values(), again.data.values(), strict=True))
    paper = load_spec(next(p for p in MODELS if p.stem == "simulated_classifier"))
    assert next(iter(paper.data)) == "N20" and paper.data["N2000"].n == 2000


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"simulate": {"n": 10}, "data": {"tp": 1, "fn": 1, "tn": 1, "fp": 1}}, "not both"),
        ({"simulate": {"tpr": 0.8}}, "needs n"),
        ({"simulate": {"n": [10, -5]}}, "positive whole number"),
        ({"simulate": {"n": 10, "tpr": 1.5}}, "tpr"),
        ({"simulate": {"n": 10, "bias": 0.1}}, "bias"),
    ],
)
def test_bad_simulate_tables(raw, message):
    with pytest.raises(SpecError, match=message):
        parse_spec(raw, name="bad")


def test_a_packaged_dataset_is_a_data_form() -> None:
    spec = parse_spec({"name": "w", "data": {"dataset": "wordle"}, "options": {"draws": 50}})
    assert spec.data.n == 118 and spec.data.ordered
    batch = parse_spec({"name": "s1", "data": {"dataset": "literature_table_s1"}})
    assert len(batch.data) == 24
    with pytest.raises(SpecError, match=r"Unknown data set 'nope'.*wordle"):
        parse_spec({"name": "x", "data": {"dataset": "nope"}})
    with pytest.raises(SpecError, match="name of a packaged data set"):
        parse_spec({"name": "x", "data": {"dataset": 3}})


def test_the_models_folder_has_no_copy_of_a_packaged_dataset() -> None:
    from pathlib import Path

    folder = Path(__file__).resolve().parents[1] / "models"
    assert not list(folder.rglob("*.csv"))
    assert 'dataset = "literature_table_s1"' in (folder / "literature_table_s1.toml").read_text()


# ----------------------------------------------------------------------------- scores
def _scores_csv(tmp_path):
    path = tmp_path / "scores.csv"
    path.write_text("label,old,new\n1,0.9,0.8\n0,0.2,0.4\n1,0.6,0.7\n0,0.5,0.1\n1,0.4,0.9\n"
                    "0,0.3,0.35\n")
    return path


def test_scores_are_a_data_form(tmp_path):
    _scores_csv(tmp_path)
    spec_file = tmp_path / "two.toml"
    spec_file.write_text('[data]\nscores = "scores.csv"\nlabel = "label"\n'
                         'score = ["old", "new"]\npositive = 1\n'
                         "[options]\nthreshold = 0.5\nfpr_range = [0.0, 0.2]\ngrid_size = 21\n"
                         "metrics = [\"tpr\", \"tnr\"]\n"
                         "n_bins = 5\n")
    spec = load_spec(spec_file)
    assert isinstance(spec.data, bcm.Scores) and spec.data.names == ["old", "new"]
    assert spec.data.n_pos == 3 and spec.data.positive == "1"  # CSV labels are text
    assert spec.figures == ("roc", "pr", "reliability", "delta_auc")
    assert spec.options == {"threshold": 0.5, "fpr_range": (0.0, 0.2), "grid_size": 21,
                            "n_bins": 5, "metrics": ["tpr", "tnr"]}
    idata = spec.run(tmp_path / "out", draws=50)
    assert idata["posterior"].sizes["fpr"] == 21 and idata["posterior"].sizes["bin"] == 5
    assert idata.attrs["method"] == "dirichlet_process"  # the default
    written = sorted(p.name for p in (tmp_path / "out").iterdir())
    assert written == ["delta_auc.png", "pr.png", "reliability.png", "roc.png", "summary.csv",
                       "two.nc"]
    inline = parse_spec({"data": {"y_true": [1, 0, 1, 0], "scores": [0.9, 0.3, 0.6, 0.4]},
                         "outputs": {"figures": ["roc", "forest"]}}, name="inline")
    assert inline.data.names == ["A"] and inline.figures == ("roc", "forest")
    table = parse_spec({"data": {"y_true": ["a", "b", "a"], "positive": "a",
                                 "scores": {"m1": [0.9, 0.1, 0.5], "m2": [0.7, 0.2, 0.8]}}},
                       name="table")
    assert table.data.names == ["m1", "m2"] and table.data.n_pos == 2
    shipped = parse_spec({"data": {"dataset": "screening_scores"}}, name="s")
    assert shipped.data == bcm.datasets.load("screening_scores")
    assert shipped.figures == ("roc", "pr", "reliability", "delta_auc")


SCORES = {"y_true": [1, 0, 1, 0], "scores": [0.9, 0.3, 0.6, 0.4]}
CELLS = {"tp": 1, "fn": 1, "tn": 1, "fp": 1}


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ({"data": {"scores": "s.csv", "score": ["a"]}}, "needs label"),
        ({"data": {"scores": "s.csv", "label": "y", "score": "a", "y_true": [1]}},
         "y_true goes with inline scores"),
        ({"data": {**SCORES, "label": "y"}}, "name the columns of a CSV file"),
        ({"data": {"scores": [0.1, 0.9]}}, "need y_true"),
        ({"data": {"y_true": [1, 0], "scores": 0.5}}, "must be a CSV file, a list"),
        ({"data": {"y_true": [1, 0], "scores": [0.5]}}, "have 1 entries"),
        ({"data": SCORES, "priors": {"tpr": "jeffreys"}}, "Bayesian bootstrap"),
        ({"data": SCORES, "options": {"method": "nuts"}}, "options.method of scores"),
        ({"data": SCORES, "options": {"fpr_range": [0.3, 0.1]}}, "fpr_range"),
        ({"data": SCORES, "options": {"method": "binormal"}, "priors": {"alpha_pos": {
            "dist": "LogNormal", "mu": 0, "sigma": 1}}}, r"unknown key 'alpha_pos' in \[priors\]"),
        ({"data": SCORES, "options": {"method": "bibeta"}, "priors": {"alpha_pos": 2.0}},
         "give a table such as"),
        ({"data": SCORES, "options": {"method": "binormal"}, "priors": {"mu_pos": {
            "dist": "Normal", "mu": 0, "sigma": -1}}}, "sigma must be > 0"),
        ({"data": SCORES, "options": {"method": "binormal"},
          "outputs": {"figures": ["reliability"]}}, "needs the bootstrap"),
        ({"data": CELLS, "options": {"method": "bibeta"}}, "models scores"),
        ({"data": CELLS, "options": {"method": "bootstrap"}}, "models scores"),
        ({"data": SCORES, "options": {"method": "smoothed"}}, "dirichlet_process, bootstrap"),
        ({"data": SCORES, "options": {"grid_size": 1}}, "grid_size"),
        ({"data": SCORES, "options": {"threshold": "high"}}, "threshold must be a number"),
        ({"data": SCORES, "options": {"metrics": ["auc"]}}, "auc"),
        ({"data": SCORES, "outputs": {"figures": ["delta_auc"]}}, "compares two classifiers"),
        ({"data": CELLS, "options": {"threshold": 0.3}}, "applies to scores"),
        ({"data": CELLS, "outputs": {"figures": ["roc"]}}, "'roc' draws scores"),
    ],
)
def test_bad_scores_specs_name_the_key(raw, message, tmp_path):
    (tmp_path / "s.csv").write_text("y,a\n1,0.5\n0,0.2\n")
    with pytest.raises(SpecError, match=message):
        parse_spec(raw, name="bad", source=tmp_path / "bad.toml")


def test_scores_spec_summary_and_forest(tmp_path):
    spec = parse_spec({"data": {"dataset": "screening_scores"},
                       "options": {"draws": 40, "seed": 2, "metrics": ["tpr", "bm"]},
                       "outputs": {"tables": ["summary", "informedness"],
                                   "figures": ["forest", "delta_auc"]}}, name="screening")
    spec.run(tmp_path)
    table = pd.read_csv(tmp_path / "summary.csv", index_col=0)
    assert {"auc[score_new]", "tpr[score_standard]"} <= set(table.index)
    assert (tmp_path / "informedness.csv").is_file() and (tmp_path / "forest.png").is_file()



@pytest.mark.parametrize(("method", "stored"), [("bootstrap", "bayesian_bootstrap"),
                                               ("dirichlet_process", "dirichlet_process")])
def test_scores_spec_names_its_nonparametric_method(method, stored, tmp_path):
    data = {"y_true": [1, 0, 1, 0, 1, 0], "scores": [0.9, 0.6, 0.4, 0.3, 0.7, 0.2]}
    spec = parse_spec({"data": data, "options": {"method": method, "draws": 20, "seed": 1},
                       "outputs": {"figures": []}}, name="named")
    assert spec.run(tmp_path).attrs["method"] == stored


@pytest.mark.slow  # a NUTS fit
def test_parametric_scores_spec_passes_its_priors(tmp_path):
    """A binormal spec's [priors] reach the PyMC model (the stored priors name them)."""
    import json
    import warnings

    rng = np.random.default_rng(3)
    y = np.r_[np.ones(40, int), np.zeros(60, int)]
    spec = parse_spec({"data": {"y_true": y.tolist(),
                                "scores": (rng.normal(size=100) + y).tolist()},
                       "options": {"method": "binormal", "draws": 100, "chains": 2, "seed": 1},
                       "priors": {"mu_pos": {"dist": "Normal", "mu": 3.0, "sigma": 0.01},
                                  "prevalence": {"fixed": 0.4}}}, name="bn")
    assert spec.figures == ("roc", "pr")  # no reliability curve for a parametric fit
    with warnings.catch_warnings():  # 2 x 100 draws: convergence warnings are expected
        warnings.simplefilter("ignore")
        idata = spec.fit()
    stored = json.loads(idata.attrs["priors"])
    assert stored["mu_pos"]["mu"] == 3.0
    assert abs(float(idata["posterior"]["mu_pos"].mean()) - 3.0) < 0.05  # the tight prior wins
    assert np.all(idata["posterior"]["prevalence"].values == 0.4)


# ----------------------------------------------------------------------------- hierarchical
def test_hierarchical_spec_reads_its_options_priors_and_figures(tmp_path):
    from bayescm.priors import LKJ, HalfNormal, Normal

    spec = load_spec(next(p for p in MODELS if p.stem == "auditc_meta"))
    assert spec.data == bcm.datasets.load("auditc")
    assert {k: spec.options[k] for k in ("model", "group", "tune")} == {
        "model": "hierarchical", "group": "study", "tune": 1000}
    assert "target_accept" not in spec.options  # the sampler's own default (0.95 or 0.99)
    priors = spec.priors["priors"]
    assert priors["mu_logit_tpr"] == Normal(0.0, 2.0) and priors["corr_logit"] == LKJ(2.0)
    assert priors["sd_logit_tnr"] == HalfNormal(1.0)
    assert priors["prevalence"] == bcm.priors.Laplace()
    assert spec.figures == ("sroc", "group_forest")
    kwargs = spec.fit_kwargs()
    assert kwargs["model"] == "hierarchical" and kwargs["priors"] is priors
    table = tmp_path / "studies.csv"
    table.write_text("study,tp,fn,fp,tn\nx,10,2,3,30\ny,8,4,5,40\n")
    own = parse_spec({"data": {"table": "studies.csv", "id_column": "study"},
                      "options": {"model": "hierarchical", "group": "study"},
                      "outputs": {"figures": ["forest", "sroc"]}},
                     name="own", source=tmp_path / "own.toml")
    assert list(own.data) == ["x", "y"] and own.priors == {}
    assert own.figures == ("forest", "sroc")


@pytest.mark.slow  # about 5 s: the NUTS fit's compilation and sampling
def test_a_small_hierarchical_spec_runs_and_writes_its_figures(tmp_path):
    import warnings

    cells = {"a": (45, 5, 8, 92), "b": (30, 6, 12, 70), "c": (60, 4, 9, 120),
             "d": (18, 5, 3, 40)}
    spec = parse_spec({
        "data": {"classifiers": {k: dict(zip(("tp", "fn", "fp", "tn"), v, strict=True))
                                 for k, v in cells.items()}},
        "options": {"model": "hierarchical", "group": "site", "chains": 2, "tune": 150,
                    "target_accept": 0.9, "seed": 2, "metrics": ["ppv"]},
        "priors": {"sd_logit_tpr": {"dist": "HalfNormal", "sigma": 0.5}},
        "outputs": {"figures": ["sroc", "group_forest", "forest"]}}, name="sites")
    with warnings.catch_warnings():  # 2 x 100 draws of 4 sites: the fit's notes are expected
        warnings.simplefilter("ignore", UserWarning)
        idata = spec.run(tmp_path, draws=100)
    assert idata.attrs["group"] == "site" and idata.attrs["target_accept"] == 0.9
    assert '"sigma": 0.5' in idata.attrs["priors"]
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == ["forest.png", "group_forest.png", "sites.nc", "sroc.png", "summary.csv"]
    table = pd.read_csv(tmp_path / "summary.csv", index_col=0)
    assert {"tpr_mean", "tnr_new", "sd_logit_tpr", "corr_logit", "ppv[a]"} <= set(table.index)


@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")
def test_the_wordle_comment_describes_the_prior_it_uses():
    """models/wordle.toml's comment once described the flat prior under default = "laplace"."""
    path = next(p for p in MODELS if p.stem == "wordle")
    text = path.read_text(encoding="utf-8")
    spec = load_spec(path)
    assert type(spec.priors["prior"]) is bcm.priors.Laplace and 'default = "laplace"' in text
    k = spec.data.n_classes
    rates = bcm.priors.Laplace().concentration(k, "rates")[0]
    assert rates[0] == 1 and rates[1:].sum() == pytest.approx(1)
    assert f"1 spread over the {k - 1} wrong" in text and f"({rates[1]:.1f} each)" in text
    weak_row = bcm.priors.Weak().concentration(k, "rates")[0].sum()
    assert weak_row == pytest.approx(4 / k) and f"4/K = {weak_row:.2f}" in text
    assert bcm.priors.Weak().concentration(k)[0] == pytest.approx(1 / 3)
    assert "Dirichlet(1/3)" in text
    assert bcm.priors.Flat().concentration(k, "rates")[0].sum() == k and f"({k} per row" in text
    names = ["acc", "kappa", "kappa_linear", "kappa_quadratic"]
    means = {}
    for prior in ("flat", "laplace", "weak"):
        table = bcm.summary(bcm.fit(spec.data, prior=prior, draws=1000, random_seed=1,
                                    metrics=names), var_names=names)
        means[prior] = table["mean"]
        if prior == "laplace":  # "sit below the observed values (the quadratic kappa most)"
            gap = table["observed"] - table["mean"]
            assert (gap > 0).all() and gap.idxmax() == "kappa_quadratic"
    # "weak ... pulls less; flat ... pulls hardest"
    assert (means["flat"] < means["laplace"]).all() and (means["laplace"] < means["weak"]).all()
