"""Missing test results in the Hui-Walter model: partial patterns, marginalised (no NUTS).

A subject with some tests not done contributes the probability of its partial pattern, the
sum over the latent class and the missing tests. Checked here: complete data are unchanged;
the PyMC log density with missing cells against a direct sum written independently; EM
recovers simulated rates with 30 % of one test missing; the named errors; the identifiability
count; the CSV path; and what reads the data or a fit (observed values, summary, figure, CLI).
One NUTS fit is marked slow.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

import bayescm as bcm
from bayescm.cli import main
from bayescm.core.latent import patterns
from bayescm.errors import IdentifiabilityWarning, LatentClassFormatError, SpecError
from bayescm.io.spec import parse_spec
from bayescm.models.hui_walter import check_identifiable, degrees_of_freedom
from bayescm.models.hui_walter_build import (
    build_hui_walter_model,
    hui_walter_em,
    pattern_probabilities,
)
from bayescm.models.latent_examples import tree_near_em

HUI_WALTER_1980 = np.array([[528, 9, 4, 14], [367, 37, 31, 887]])


def _frame_with_gaps() -> pd.DataFrame:
    """Ten subjects of three tests in two herds, some tests not done."""
    return pd.DataFrame({
        "a": [1, 0, 1, None, 1, 0, 1, 0, None, 1],
        "b": [1, 0, None, 0, None, 0, 1, 1, 1, 0],
        "c": [0, 1, 1, 1, None, 0, None, 0, 1, 1],
        "herd": ["x", "x", "x", "x", "x", "y", "y", "y", "y", "y"]})


def _point(prev: np.ndarray, tpr: np.ndarray, tnr: np.ndarray) -> dict[str, np.ndarray]:
    """The model's unconstrained values at given rates (tpr + tnr > 1)."""
    share = 1 - (1 - tpr) / tnr
    return {"prevalence_logodds__": special.logit(prev),
            "tnr_unit_interval__": special.logit(tnr),
            "tpr_share_interval__": special.logit(share)}


def _log_likelihood(model: Any) -> Callable[[dict[str, np.ndarray]], float]:
    """The data's terms of the model's log density (the multinomial and the partial term)."""
    terms = [model["patterns"]] + [p for p in model.potentials if p.name == "partial_patterns"]
    return model.compile_fn(model.logp(vars=terms))


# ------------------------------------------------------------------ input
def test_missing_cells_are_partial_patterns_and_complete_subjects_stay_in_counts() -> None:
    r = bcm.TestResults(_frame_with_gaps(), tests=["a", "b", "c"], population="herd")
    complete = bcm.TestResults(_frame_with_gaps().dropna(), tests=["a", "b", "c"],
                               population="herd")
    np.testing.assert_array_equal(r.counts, complete.counts)
    assert r.partial_names == ["++?", "+?+", "+??", "?-+", "?++"]  # - + ? as base-3 digits
    assert r.partial_counts.tolist() == [[0, 1, 1, 1, 0], [1, 0, 0, 0, 1]]
    assert r.n_subjects.tolist() == [5, 5] and r.has_missing
    assert r.tested.tolist() == [[4, 3, 4], [4, 5, 4]]
    assert r.positives.tolist() == [[3, 1, 3], [2, 3, 2]]
    assert "5 with missing results" in repr(r)
    for frame in (_frame_with_gaps(), _frame_with_gaps().astype({"a": "Int64"})):
        again = bcm.TestResults(frame, tests=["a", "b", "c"], population="herd")
        np.testing.assert_array_equal(again.partial_counts, r.partial_counts)


def test_from_counts_takes_partial_patterns_in_the_frames_order() -> None:
    r = bcm.TestResults(_frame_with_gaps(), tests=["a", "b", "c"], population="herd")
    named = dict(zip(r.partial_names, r.partial_counts.T.tolist(), strict=True))
    again = bcm.TestResults.from_counts(r.counts, tests=["a", "b", "c"],
                                        populations=["x", "y"],
                                        partial=dict(reversed(named.items())))
    assert again.partial_names == r.partial_names
    np.testing.assert_array_equal(again.partial_counts, r.partial_counts)
    np.testing.assert_array_equal(again.tested, r.tested)


@pytest.mark.parametrize(("partial", "match"), [
    ({"++": [1, 2]}, "at least one '\\?'"),
    ({"??": [1, 2]}, "one result"),
    ({"+?+": [1, 2]}, "one symbol per test"),
    ({"+x": [1, 2]}, "one symbol per test"),
    ({"+?": [1]}, "one per population"),
    ({"+?": [1, -2]}, "whole numbers"),
    ({"+?": [1.5, 2]}, "whole numbers"),
])
def test_from_counts_refuses_bad_partial_patterns(partial, match) -> None:
    with pytest.raises(LatentClassFormatError, match=match):
        bcm.TestResults.from_counts(HUI_WALTER_1980, tests=["a", "b"], partial=partial)
    with pytest.raises(TypeError, match="partial= maps"):
        bcm.TestResults.from_counts(HUI_WALTER_1980, tests=["a", "b"], partial=[1, 2])


def test_a_subject_without_any_result_is_an_error_naming_its_row() -> None:
    frame = pd.DataFrame({"a": [1, 0, None], "b": [1, None, None]}, index=[10, 11, 12])
    with pytest.raises(LatentClassFormatError, match=r"row 12: every test result is missing"):
        bcm.TestResults(frame, tests=["a", "b"])
    with pytest.raises(LatentClassFormatError, match="test 'b' has no result on any subject"):
        bcm.TestResults(pd.DataFrame({"a": [1, 0], "b": [None, None], "c": [0, 1]}),
                        tests=["a", "b", "c"])
    # a population of subjects with missing results only is a population with subjects
    r = bcm.TestResults.from_counts([[1, 2, 3, 4], [0, 0, 0, 0]], tests=["a", "b"],
                                    partial={"+?": [0, 3]})
    assert r.n_subjects.tolist() == [10, 3]


def test_empty_csv_cells_are_missing_results(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text("a,b,c,herd\n1,1,,x\n0,,0,x\n1,1,1,y\n,0,1,y\n")
    r = bcm.TestResults.from_csv(path, tests=["a", "b", "c"], population="herd")
    frame = pd.DataFrame({"a": [1, 0, 1, None], "b": [1, None, 1, 0],
                          "c": [None, 0, 1, 1], "herd": ["x", "x", "y", "y"]})
    same = bcm.TestResults(frame, tests=["a", "b", "c"], population="herd")
    np.testing.assert_array_equal(r.counts, same.counts)
    assert r.partial_names == same.partial_names
    np.testing.assert_array_equal(r.partial_counts, same.partial_counts)
    spec = parse_spec({"latent": {"results": str(path), "tests": ["a", "b"]}}, name="gaps")
    assert spec.data.partial_names == ["-?", "?-"]
    assert spec.data.partial_counts.tolist() == [[1, 1]]
    blank = tmp_path / "blank.csv"
    blank.write_text("a,b,herd\n1,1,x\n,,x\n")  # (a row of empty cells only is skipped)
    with pytest.raises(LatentClassFormatError, match=r"blank\.csv, row 3: every test result"):
        bcm.TestResults.from_csv(blank, tests=["a", "b"], population="herd")
    with pytest.raises(SpecError, match="row 3: every test result is missing"):
        parse_spec({"latent": {"results": str(blank), "tests": ["a", "b"],
                               "population": "herd"}}, name="gaps")


# ------------------------------------------------------------------ the model
def test_complete_data_build_the_same_model_as_before() -> None:
    r = bcm.TestResults.from_counts(HUI_WALTER_1980, tests=["a", "b"])
    same = bcm.TestResults.from_counts(HUI_WALTER_1980, tests=["a", "b"], partial={})
    assert r.partial_counts.shape == (2, 0) and not r.has_missing
    for results in (r, same):
        model = build_hui_walter_model(results, {})
        assert [p.name for p in model.potentials] == ["tpr_tnr_prior"]
        assert "partial_pattern" not in model.coords
    point = _point(np.array([0.1, 0.6]), np.array([0.9, 0.8]), np.array([0.95, 0.9]))
    a = build_hui_walter_model(r, {})
    b = build_hui_walter_model(same, {})
    assert a.compile_logp()(point) == b.compile_logp()(point)
    np.testing.assert_array_equal(hui_walter_em(r)["tpr"], hui_walter_em(r.counts)["tpr"])


@pytest.mark.parametrize("dependence", [None, [("a", "c")]])
def test_the_log_density_with_missing_cells_is_the_direct_sum(dependence) -> None:
    frame = _frame_with_gaps()
    r = bcm.TestResults(frame, tests=["a", "b", "c"], population="herd",
                        dependence=dependence)
    model = build_hui_walter_model(r, {})
    prev, tpr, tnr = np.array([0.2, 0.7]), np.array([0.9, 0.8, 0.7]), np.array([0.95, 0.85, 0.9])
    point = _point(prev, tpr, tnr)
    cov_pos = cov_neg = None
    if dependence:
        point["cov_pos_unit_interval__"] = special.logit(np.array([0.6]))
        point["cov_neg_unit_interval__"] = special.logit(np.array([0.3]))
        covs = model.replace_rvs_by_values([model["cov_pos"], model["cov_neg"]])
        bounds = model.compile_fn(covs, inputs=model.value_vars, on_unused_input="ignore")(point)
        cov_pos, cov_neg = bounds
    got = _log_likelihood(model)(point)
    # independently: each subject's probability, summed over the class and the tests not done
    pi = pattern_probabilities(prev, tpr, tnr, r.pairs, cov_pos, cov_neg)
    expected = sum(stats.multinomial.logpmf(r.counts[p], r.counts[p].sum(), pi[p])
                   for p in range(2))
    full = patterns(3).tolist()
    herd = {"x": 0, "y": 1}
    for _, row in frame.iterrows():
        seen = [None if pd.isna(row[t]) else int(row[t]) for t in "abc"]
        if None not in seen:
            continue
        total = 0.0
        for fill in itertools.product((0, 1), repeat=seen.count(None)):
            it = iter(fill)
            pattern = [v if v is not None else next(it) for v in seen]
            if dependence is None:
                p = herd[row["herd"]]
                pos = np.prod([tpr[t] if v else 1 - tpr[t] for t, v in enumerate(pattern)])
                neg = np.prod([1 - tnr[t] if v else tnr[t] for t, v in enumerate(pattern)])
                total += prev[p] * pos + (1 - prev[p]) * neg
            else:
                total += pi[herd[row["herd"]], full.index(pattern)]
        expected += np.log(total)
    assert got == pytest.approx(expected, rel=1e-10)


def test_a_population_without_any_complete_subject_still_has_a_finite_likelihood() -> None:
    r = bcm.TestResults.from_counts([[5, 1, 2, 9], [0, 0, 0, 0]], tests=["a", "b"],
                                    partial={"+?": [1, 4], "?-": [0, 6]})
    prev, tpr, tnr = np.array([0.3, 0.6]), np.array([0.9, 0.8]), np.array([0.85, 0.95])
    got = _log_likelihood(build_hui_walter_model(r, {}))(_point(prev, tpr, tnr))
    pi = pattern_probabilities(prev, tpr, tnr)  # patterns --, -+, +-, ++
    expected = (stats.multinomial.logpmf(r.counts[0], 17, pi[0]) + np.log(pi[0, 2] + pi[0, 3])
                + 4 * np.log(pi[1, 2] + pi[1, 3]) + 6 * np.log(pi[1, 0] + pi[1, 2]))
    assert got == pytest.approx(expected, rel=1e-12)
    est = hui_walter_em(r)
    assert np.isfinite(float(est["loglik"])) and 0 < est["prevalence"][1] < 1


def _two_herds_with_c_missing(seed: int, prev: np.ndarray, tpr: np.ndarray, tnr: np.ndarray,
                              n: int) -> bcm.TestResults:
    """Two herds of ``n`` subjects, three tests with known rates, about 30 % of test c missing."""
    rng = np.random.default_rng(seed)
    herd = np.repeat([0, 1], n)
    sick = rng.random(2 * n) < prev[herd]
    res = np.where(sick[:, None], rng.random((2 * n, 3)) < tpr, rng.random((2 * n, 3)) > tnr)
    frame = pd.DataFrame(res.astype(float), columns=["a", "b", "c"])
    frame.loc[rng.random(2 * n) < 0.3, "c"] = np.nan
    frame["herd"] = np.where(herd == 0, "x", "y")
    return bcm.TestResults(frame, tests=["a", "b", "c"], population="herd")


def test_em_recovers_rates_with_thirty_percent_of_one_test_missing() -> None:
    prev, tpr, tnr = np.array([0.15, 0.5]), np.array([0.9, 0.75, 0.8]), np.array([0.95, 0.9, 0.7])
    n = 60_000
    r = _two_herds_with_c_missing(3, prev, tpr, tnr, n)
    assert 0.28 < r.partial_counts.sum() / (2 * n) < 0.32
    est = hui_walter_em(r)
    np.testing.assert_allclose(est["tpr"], tpr, atol=0.015)
    np.testing.assert_allclose(est["tnr"], tnr, atol=0.015)
    np.testing.assert_allclose(est["prevalence"], prev, atol=0.015)
    # the EM log-likelihood is the model's at the estimates (up to the multinomial constants)
    model = build_hui_walter_model(r, {})
    constants = sum(special.gammaln(r.counts[p].sum() + 1) - special.gammaln(r.counts[p] + 1).sum()
                    for p in range(2))
    at = _log_likelihood(model)(_point(est["prevalence"], est["tpr"], est["tnr"]))
    assert at - constants == pytest.approx(float(est["loglik"]), rel=1e-9)


# ------------------------------------------------------------------ identifiability
def test_identifiability_counts_the_patterns_the_read_tests_can_show() -> None:
    partly = bcm.TestResults.from_counts(HUI_WALTER_1980, tests=["a", "b"],
                                         partial={"+?": [5, 6], "?-": [7, 0]})
    assert degrees_of_freedom(partly).tolist() == [3, 3]
    assert check_identifiable(partly, {})
    # the second population never had test b: 3 + 1 degrees of freedom for 6 parameters
    lonely = bcm.TestResults.from_counts([[528, 9, 4, 14], [0, 0, 0, 0]], tests=["a", "b"],
                                         partial={"+?": [0, 30], "-?": [0, 70]})
    assert degrees_of_freedom(lonely).tolist() == [3, 1]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert not check_identifiable(lonely, {})
    text = str(next(w for w in seen if issubclass(w.category, IdentifiabilityWarning)).message)
    assert "4 degrees of freedom" in text and "no subject with every test read" in text
    # three tests, each population tested in two different pairs: the margins add up
    pairs = bcm.TestResults.from_counts(np.zeros((1, 8)), tests=["a", "b", "c"],
                                        partial={"++?": 5, "+?+": 5, "?++": 5})
    assert degrees_of_freedom(pairs).tolist() == [6]


# ------------------------------------------------------------------ what reads a fit
def test_a_fit_with_missing_results_keeps_its_observed_values() -> None:
    r = bcm.TestResults(_frame_with_gaps(), tests=["a", "b", "c"], population="herd")
    tree = tree_near_em(r)
    observed = tree["observed_data"]
    assert observed["counts"].values.tolist() == r.counts.tolist()
    assert observed["partial_counts"].dims == ("population", "partial_pattern")
    assert list(observed["partial_pattern"].values) == r.partial_names
    assert observed["partial_counts"].values.tolist() == r.partial_counts.tolist()
    share = tree["observed_metrics"]["apparent_prevalence"].values
    np.testing.assert_allclose(share, r.positives / r.tested)
    assert tree.attrs["n_subjects"] == 10
    table = bcm.summary(tree)
    assert table.loc["apparent_prevalence[x, b]", "observed"] == pytest.approx(1 / 3)
    ax = bcm.plots.plot_test_rates(tree)
    assert next(t.get_text() for t in ax.get_yticklabels()) == "prevalence (x)"
    import matplotlib.pyplot as plt

    plt.close("all")
    complete = tree_near_em(bcm.TestResults.from_counts(HUI_WALTER_1980, tests=["a", "b"]))
    assert set(complete["observed_data"].data_vars) == {"counts"}
    assert "partial_pattern" not in complete["observed_data"].coords


def test_the_cli_says_how_many_subjects_miss_a_result(tmp_path: Path, capsys, monkeypatch):
    path = tmp_path / "t.csv"
    _frame_with_gaps().to_csv(path, index=False)
    monkeypatch.setattr("bayescm.cli_latent._fit", lambda data, **_: tree_near_em(data))
    assert main(["latent", str(path), "--tests", "a", "b", "c", "--population", "herd",
                 "--seed", "1"]) == 0
    out = capsys.readouterr().out
    assert "10 subjects (5 with missing results), 3 tests, 2 population(s)" in out


@pytest.mark.slow
def test_nuts_with_missing_results_lies_near_the_em_estimates() -> None:
    prev, tpr, tnr = np.array([0.2, 0.6]), np.array([0.9, 0.8, 0.85]), np.array([0.95, 0.9, 0.8])
    r = _two_herds_with_c_missing(5, prev, tpr, tnr, 1500)
    est = hui_walter_em(r)
    tree = bcm.fit(r, draws=500, random_seed=1)
    post = tree["posterior"]
    for name in ("prevalence", "tpr", "tnr"):
        np.testing.assert_allclose(post[name].mean(("chain", "draw")).values, est[name],
                                   atol=0.02)
