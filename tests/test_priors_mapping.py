"""``priors={...}`` keyed by parameter: fit, build_model, prior_predictive and the CLI."""

import json

import numpy as np
import pytest

import bayescm as bcm
from bayescm.cli import main

CM = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)


def test_fit_mapping_equals_the_keywords() -> None:
    by_map = bcm.fit(CM, priors={"tpr": bcm.Beta(10, 2), "prevalence": bcm.Fixed(0.5)},
                     draws=200, random_seed=4)
    by_kw = bcm.fit(CM, priors={"tpr": bcm.Beta(10, 2), "prevalence": bcm.Fixed(0.5)}, draws=200,
                    random_seed=4)
    np.testing.assert_array_equal(by_map["posterior"]["tpr"], by_kw["posterior"]["tpr"])
    assert by_map.attrs["priors"] == by_kw.attrs["priors"]
    assert "constant_data" in by_map.children


def test_build_model_takes_the_mapping() -> None:
    model = bcm.build_model(CM, priors={"prevalence": bcm.Fixed(0.5), "tpr": "jeffreys"})
    assert sorted(rv.name for rv in model.free_RVs) == ["tnr", "tpr"]
    three = bcm.ConfusionMatrix([[5, 1, 0], [1, 6, 1], [0, 1, 4]], labels=list("abc"))
    model = bcm.build_model(three, priors={"rates": "jeffreys"})
    assert {rv.name for rv in model.free_RVs} == {"prevalence", "rates"}


def test_prior_predictive_takes_the_mapping() -> None:
    a = bcm.analyses.prior_predictive(priors={"tpr": bcm.Beta(30, 3)}, draws=500, random_seed=2)
    with pytest.warns(DeprecationWarning, match="as a keyword"):  # the old spelling, same draws
        b = bcm.analyses.prior_predictive(tpr=bcm.Beta(30, 3), draws=500, random_seed=2)
    np.testing.assert_array_equal(a["prior"]["tpr"], b["prior"]["tpr"])
    assert float(a["prior"]["tpr"].mean()) == pytest.approx(30 / 33, abs=0.01)


@pytest.mark.parametrize("call", [
    lambda p: bcm.fit(CM, priors=p, draws=10),
    lambda p: bcm.build_model(CM, priors=p),
    lambda p: bcm.analyses.prior_predictive(priors=p, draws=10),
])
def test_unknown_keys_name_the_valid_ones(call) -> None:
    with pytest.raises(TypeError, match=r"\['rates'\] are not parameters of the binary model.*"
                                        r"prevalence, tpr, tnr"):
        call({"rates": "laplace"})


def test_a_parameter_given_twice_is_an_error() -> None:
    with pytest.raises(ValueError, match="given twice"):
        bcm.fit(CM, tpr="jeffreys", priors={"tpr": "laplace"})


def test_cli_priors(capsys) -> None:
    code = main(["analyze", "--tp", "26", "--fn", "0", "--tn", "6", "--fp", "2", "--seed", "1",
                 "--draws", "300", "--format", "json", "--priors",
                 'tpr={"mean": 0.9, "concentration": 20}', "prevalence=" + '{"fixed": 0.5}'])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["priors"]["tpr"]["alpha"] == pytest.approx(18.0)
    assert out["priors"]["prevalence"]["dist"] == "Fixed"


@pytest.mark.parametrize(("arg", "message"), [
    ("rates=jeffreys", "not parameters of the binary model"),
    ("tpr=bogus", "Unknown prior name 'bogus'"),
    ("tpr={oops", "not valid JSON"),
    ("jeffreys", "not PARAM=PRIOR"),
])
def test_cli_bad_priors_exit_2_with_one_line(arg: str, message: str, capsys) -> None:
    try:
        code = main(["analyze", "--tp", "3", "--fn", "1", "--tn", "4", "--fp", "2", "--priors",
                     arg])
    except SystemExit as stop:  # argparse's own exit for a bad argument type
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
