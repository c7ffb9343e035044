"""Latent class specs and ``bayescm latent`` (issue 31): tests or raters without a gold standard.

The fast checks parse specs, refuse bad tables and options by name, and write the outputs of
trees laid out as fits from draws near the EM estimates (``latent_examples.tree_near_em``, no
NUTS); the checks marked slow sample with NUTS.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

import bayescm as bcm
from bayescm.cli import main
from bayescm.errors import SpecError
from bayescm.io.spec import load_spec, parse_spec
from bayescm.io.spec_latent import LatentSpec, item_class_table
from bayescm.models.latent_examples import tree_near_em

ROOT = Path(__file__).resolve().parents[1]
TB_SPEC = ROOT / "models" / "tuberculosis_tests.toml"
TB_CSV = ROOT / "bayescm" / "data" / "tuberculosis_tests.csv"
DS_SPEC = ROOT / "models" / "anaesthesia_raters.toml"
RATINGS_CSV = ROOT / "bayescm" / "data" / "anesthesia.csv"
RATER_DEFAULT = np.full((4, 4), 8 * 0.4 / 3)
np.fill_diagonal(RATER_DEFAULT, 8 * 0.6)
"""R rater's default prior of each row of a rater's confusion matrix (R/inference.R,
ds_parse_priors: N = 8, p = 0.6)."""


def _stand_in(data: Any, **_: Any) -> Any:
    """A fit's layout without NUTS (draws near the EM estimates)."""
    return tree_near_em(data)


# ----------------------------------------------------------------------------- parsing
def test_the_tuberculosis_spec_reads_its_csv_as_the_published_counts():
    spec = load_spec(TB_SPEC)
    assert isinstance(spec, LatentSpec) and spec.model == "hui_walter"
    assert spec.data.counts.tolist() == [[528, 9, 4, 14], [367, 37, 31, 887]]  # Hui & Walter
    assert spec.data.populations == ["southern_us", "ohio"]
    assert spec.priors["tpr"] == bcm.Beta(1, 1)
    assert spec.tables == ("summary",) and spec.figures == ("test_rates",)
    assert spec.options == {"draws": 1000, "chains": 4, "seed": 1}


def test_the_anaesthesia_spec_carries_raters_default_priors():
    spec = load_spec(DS_SPEC)
    assert spec.model == "dawid_skene"
    assert spec.data.counts.tolist() == bcm.datasets.anesthesia().counts.tolist()
    assert spec.priors["prevalence"] == bcm.Dirichlet(3)
    np.testing.assert_allclose(spec.priors["rates"], RATER_DEFAULT, atol=1e-4)
    assert spec.tables == ("summary", "item_classes")


def test_priors_keyed_by_test_population_and_rater(tmp_path):
    spec = parse_spec({"latent": {"results": str(TB_CSV), "tests": ["mantoux", "tine"],
                                  "population": "population"},
                       "priors": {"tpr": {"tine": "beta(20, 2)"},
                                  "prevalence": {"ohio": {"mean": 0.7, "concentration": 10}},
                                  "tnr": "jeffreys"}}, name="tb")
    from bayescm.priors import Jeffreys

    assert spec.priors["tpr"] == {"tine": bcm.Beta(20, 2)}
    assert spec.priors["prevalence"] == {"ohio": bcm.Beta(7, 3)}
    assert spec.priors["tnr"] == Jeffreys()
    ratings = parse_spec({"latent": {"dataset": "anesthesia"},
                          "priors": {"prevalence": [1, 2, 3, 4],
                                     "rates": {"2": RATER_DEFAULT.tolist()}}}, name="ds")
    assert ratings.priors["prevalence"] == bcm.Dirichlet([1, 2, 3, 4])
    assert set(ratings.priors["rates"]) == {"2"}


def test_a_ratings_csv_with_other_column_names_and_a_missing_rating(tmp_path):
    (tmp_path / "r.csv").write_text("case,judge,label\n1,a,x\n1,b,y\n2,a,y\n2,b,\n3,a,x\n"
                                    "3,b,x\n")
    (tmp_path / "s.toml").write_text('[latent]\nratings = "r.csv"\nitem = "case"\n'
                                     'rater = "judge"\nrating = "label"\n')
    spec = load_spec(tmp_path / "s.toml")  # the CSV's path is relative to the spec
    assert spec.data.raters == ["a", "b"] and int(spec.data.counts.sum()) == 5
    assert spec.name == "s"


BAD_TABLES = [
    ({"latent": {"tests": ["a", "b"]}}, "takes one of results"),
    ({"latent": {"results": 3, "tests": ["a", "b"]}}, r"\[latent\] results must be a file"),
    ({"latent": {"results": "x.csv", "ratings": "y.csv"}}, "takes one of results"),
    ({"latent": {"dataset": "anesthesia", "rating": "score"}}, "has its own columns"),
    ({"latent": {"dataset": "eval_log"}}, "dataset must be 'anesthesia'"),
    ({"latent": {"dataset": "anesthesia", "raters": "r"}}, "unknown key 'raters'"),
    ({"latent": {"results": str(TB_CSV)}}, "tests lists the 0/1 columns"),
    ({"latent": {"results": str(TB_CSV), "tests": ["mantoux", "tine"], "rater": "r"}},
     "latent.rater does not go with results"),
    ({"latent": {"results": str(TB_CSV), "tests": ["mantoux", "pcr"]}},
     r"tuberculosis_tests\.csv, line 1: no column\(s\) \['pcr'\]"),
    ({"latent": {"results": str(TB_CSV), "tests": ["mantoux", "tine"]},
      "priors": {"sensitivity": "beta(9, 1)"}}, "unknown key 'sensitivity'"),
    ({"latent": {"results": str(TB_CSV), "tests": ["mantoux", "tine"]},
      "priors": {"tpr": {"pcr": "beta(9, 1)"}}}, r"\[priors\] tpr"),
    ({"latent": {"results": str(TB_CSV), "tests": ["mantoux", "tine"]},
      "priors": {"tpr": "uniform(0.6, 1)"}}, "Beta priors"),
    ({"latent": {"dataset": "anesthesia"}, "priors": {"rates": [[5, 1], [1, 5]]}},
     r"\[priors\]"),
    ({"latent": {"dataset": "anesthesia"}, "priors": {"rates": {"9": [[1]]}}},
     "'9' is not one of the raters"),
    ({"latent": {"dataset": "anesthesia"}, "priors": {"prevalence": "flat"}},
     "Dirichlet concentrations"),
    ({"latent": {"dataset": "anesthesia"}, "options": {"method": "exact"}},
     "unknown key 'method'"),
    ({"latent": {"dataset": "anesthesia"}, "options": {"draws": 0}}, "options.draws"),
    ({"latent": {"dataset": "anesthesia"}, "options": {"target_accept": 1.2}},
     "options.target_accept"),
    ({"latent": {"results": str(TB_CSV), "tests": ["mantoux", "tine"]},
      "outputs": {"tables": ["item_classes"]}}, "outputs.tables: unknown 'item_classes'"),
    ({"latent": {"dataset": "anesthesia"}, "outputs": {"figures": ["test_rates"]}},
     "outputs.figures: unknown 'test_rates'"),
    ({"latent": {"dataset": "anesthesia"}, "outputs": {"figure_format": "gif"}},
     "figure_format"),
    ({"latent": {"dataset": "anesthesia"}, "data": {"tp": 1}}, r"also has \[data\]"),
    ({"latent": {"dataset": "anesthesia"}, "description": 3}, "description"),
]


@pytest.mark.parametrize(("raw", "words"), BAD_TABLES)
def test_bad_tables_are_named(raw, words):
    with pytest.raises(SpecError, match=words):
        parse_spec(raw, name="bad")


def test_bad_csv_cells_name_the_file_and_the_line(tmp_path):
    (tmp_path / "t.csv").write_text("a,b\n1,0\n2,1\n")
    with pytest.raises(SpecError, match=r"t\.csv, column 'a', row 3: '2' is not a test result"):
        parse_spec({"latent": {"results": str(tmp_path / "t.csv"), "tests": ["a", "b"]}},
                   name="bad")
    (tmp_path / "e.csv").write_text("a,b\n")
    with pytest.raises(SpecError, match="no rows"):
        parse_spec({"latent": {"results": str(tmp_path / "e.csv"), "tests": ["a", "b"]}},
                   name="bad")
    with pytest.raises(FileNotFoundError, match=r"\[latent\] results: no such file"):
        parse_spec({"latent": {"results": str(tmp_path / "none.csv"), "tests": ["a", "b"]}},
                   name="bad")


# ----------------------------------------------------------------------------- outputs
# slow: writes a whole spec's tables and figures (2-3 s); the slow run (CI) checks it
@pytest.mark.slow
def test_the_outputs_of_a_tests_spec(tmp_path):
    spec = load_spec(TB_SPEC)
    written = spec.write(tree_near_em(spec.data), tmp_path)
    assert sorted(written) == ["result", "summary", "test_rates"]
    table = pd.read_csv(tmp_path / "summary.csv", index_col=0)
    assert "tpr[mantoux]" in table.index and "prevalence[ohio]" in table.index
    assert (tmp_path / "test_rates.png").stat().st_size > 1000
    assert bcm.load(tmp_path / "tuberculosis_tests.nc").attrs["model"] == "hui_walter"


# slow: writes a whole spec's tables and figures (2-3 s); the slow run (CI) checks it
@pytest.mark.slow
def test_the_outputs_of_a_ratings_spec_in_svg(tmp_path):
    spec = parse_spec({"latent": {"dataset": "anesthesia"},
                       "outputs": {"figure_format": "svg"}}, name="ds")
    tree = tree_near_em(spec.data)
    written = spec.write(tree, tmp_path)
    assert sorted(p.name for p in written.values()) == [
        "ds.nc", "item_classes.csv", "item_classes.svg", "rater_rates.svg", "summary.csv"]
    classes = pd.read_csv(tmp_path / "item_classes.csv", index_col=0)
    np.testing.assert_allclose(classes[["1", "2", "3", "4"]].sum(axis=1), 1.0)
    assert classes.equals(item_class_table(tree)) or np.allclose(
        classes["probability"], item_class_table(tree)["probability"])


# slow: writes a whole spec's tables and figures (2-3 s); the slow run (CI) checks it
@pytest.mark.slow
def test_bayescm_run_reports_a_latent_spec(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(bcm, "fit", _stand_in)  # the report, not the sampler
    assert main(["run", str(DS_SPEC), "--output", str(tmp_path), "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "dawid_skene" in out and "seed 3" in out
    assert "item_classes.csv" in out and "each rater's confusion matrix" in out
    assert "accuracy[5]" in out and "item_class[" not in out  # 214 rows stay in the file
    assert (tmp_path / "rater_rates.png").exists()


# ----------------------------------------------------------------------------- the CLI
@pytest.mark.parametrize(("argv", "words"), [
    ([str(TB_CSV)], "give --tests COL COL ... (test results) or --item"),
    ([str(TB_CSV), "--tests", "mantoux", "tine", "--item", "subject"],
     "--item belongs to ratings"),
    ([str(RATINGS_CSV), "--item", "item", "--rater", "rater", "--rating", "rating",
      "--population", "rater"], "--population goes with --tests"),
    ([str(RATINGS_CSV), "--item", "item", "--rater", "rater"], "missing --rating"),
    ([str(TB_CSV), "--tests", "mantoux", "pcr"], "no column(s) ['pcr']"),
    ([str(TB_CSV), "--tests", "mantoux"], "at least two tests"),
    ([str(TB_CSV), "--tests", "mantoux", "tine", "--priors", "tpr=beta(9, 1)",
      "tpr=jeffreys"], "the prior of tpr is given twice"),
    ([str(TB_CSV), "--tests", "mantoux", "tine", "--priors", "sensitivity=beta(9, 1)"],
     "unknown key 'sensitivity'"),
    ([str(TB_CSV), "--tests", "mantoux", "tine", "--priors", "tpr"], "is not PARAM=PRIOR"),
    ([str(RATINGS_CSV), "--item", "item", "--rater", "rater", "--rating", "rating",
      "--priors", "rates=[[5, 1], [1, 5]]"], "--priors"),
    (["no_such.csv", "--tests", "a", "b"], "no_such.csv"),
    ([str(TB_CSV), "--tests", "mantoux", "tine", "--draws", "0"], "--draws"),
    ([str(TB_CSV), "--tests", "mantoux", "tine", "--plot", str(TB_CSV)], "figures"),
])
def test_the_cli_refuses_bad_input_in_one_line(argv, words, capsys, monkeypatch):
    monkeypatch.setattr("bayescm.cli_latent._fit", _stand_in)  # never reached
    try:
        code = main(["latent", *argv])
    except SystemExit as exit_info:  # argparse reports its own errors by exiting
        code = int(exit_info.code or 0)
    err = capsys.readouterr().err
    assert code == 2
    assert words in err and err.count("\n") == 1 and err.startswith("bayescm latent")


def test_the_cli_prints_tests_rates_and_draws_their_figure(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("bayescm.cli_latent._fit", _stand_in)
    assert main(["latent", str(TB_CSV), "--tests", "mantoux", "tine", "--population",
                 "population", "--seed", "5", "--plot", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "1,877 subjects, 2 tests, 2 population(s): Hui-Walter" in out and "seed 5" in out
    for row in ("prevalence[ohio]", "tpr[mantoux]", "tnr[tine]"):
        assert row in out
    assert "youden" not in out and "observed" not in out  # no plug-in value of latent rates
    assert (tmp_path / "test_rates.png").exists()


def test_the_cli_prints_raters_accuracy_as_json(capsys, monkeypatch):
    import json

    monkeypatch.setattr("bayescm.cli_latent._fit", _stand_in)
    assert main(["latent", str(RATINGS_CSV), "--item", "item", "--rater", "rater", "--rating",
                 "rating", "--priors", "prevalence=3", "--format", "json", "--seed", "1"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["model"] == "dawid_skene" and report["seed"] == 1
    assert {"accuracy[1]", "kappa[5]", "prevalence[4]"} <= set(report["rows"])


def test_an_unidentified_model_is_a_one_line_warning(tmp_path, capsys, monkeypatch):
    from bayescm.models.hui_walter import HuiWalterModel, check_identifiable

    def checked(data: Any, **kwargs: Any) -> Any:  # the fit's check, then no NUTS
        priors = HuiWalterModel.from_data(data).resolve_priors(None, kwargs.get("priors", {}))
        check_identifiable(data, priors)
        return tree_near_em(data)

    monkeypatch.setattr("bayescm.cli_latent._fit", checked)
    (tmp_path / "two.csv").write_text("a,b\n" + "1,1\n" * 30 + "0,0\n" * 60 + "1,0\n" * 5
                                      + "0,1\n" * 5)
    assert main(["latent", str(tmp_path / "two.csv"), "--tests", "a", "b", "--seed", "1"]) == 0
    err = capsys.readouterr().err
    warning = [line for line in err.splitlines() if line.startswith("bayescm: warning:")]
    assert len(warning) == 1 and "informative" in warning[0]
    assert main(["latent", str(tmp_path / "two.csv"), "--tests", "a", "b", "--seed", "1",
                 "--priors", "tpr=beta(90, 10)", "tnr=beta(95, 5)"]) == 0
    assert "warning" not in capsys.readouterr().err  # informative priors identify it


# ----------------------------------------------------------------------------- NUTS
@pytest.mark.slow
def test_the_tuberculosis_spec_fit_lies_near_the_maximum_likelihood(tmp_path):
    from test_latent_slow import em_hui_walter  # EM written in the tests, not the package's

    spec = load_spec(TB_SPEC)
    tree = spec.run(tmp_path)
    em = em_hui_walter(spec.data.counts)
    post = tree["posterior"]
    for name in ("prevalence", "tpr", "tnr"):  # flat priors, 1,877 subjects: within 0.01
        np.testing.assert_allclose(post[name].mean(("chain", "draw")).values, em[name],
                                   atol=0.01)
    assert (tmp_path / "test_rates.png").exists()


@pytest.mark.slow
def test_the_cli_fits_ratings_with_nuts(capsys):
    assert main(["latent", str(RATINGS_CSV), "--item", "item", "--rater", "rater", "--rating",
                 "rating", "--draws", "300", "--seed", "2", "--format", "csv"]) == 0
    table = pd.read_csv(__import__("io").StringIO(capsys.readouterr().out), index_col=0)
    assert table.loc["accuracy[1]", "mean"] > 0.7
    assert (table["r_hat"] < 1.05).all()


RATER_README_PI = np.array([0.37559632, 0.40734481, 0.14321934, 0.07383953])
"""Posterior mean of the class prevalence ("pi") of Dawid & Skene's anaesthesia ratings under
R rater's default priors (Dirichlet(3, 3, 3, 3) on pi, rows of each rater's matrix Dirichlet
with 4.8 on the diagonal and 1.0667 elsewhere): ``rater(anesthesia, "dawid_skene");
point_estimate(fit, "pi")``, 4 chains of 1,000 draws after 1,000 warm-up (Stan's NUTS), as
printed in rater's README.md ("Example usage"), github.com/jeffreypullin/rater at bc1e414."""


@pytest.mark.slow
def test_the_anaesthesia_spec_agrees_with_the_r_package_rater():
    spec = load_spec(DS_SPEC)  # rater's default priors (the spec's [priors])
    tree = spec.run(write=False)
    mean = tree["posterior"]["prevalence"].mean(("chain", "draw")).values
    # Measured: within 0.0005 of rater's means (posterior sds 0.035-0.068; the Monte Carlo
    # error of each side's mean is about 0.002): 0.01 leaves room for both samplers' noise.
    np.testing.assert_allclose(mean, RATER_README_PI, atol=0.01)
    assert float(tree["diagnostics"]["prevalence"].sel(diagnostic="r_hat").max()) < 1.01
