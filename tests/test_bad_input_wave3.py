"""Bad input to the newest interfaces (wave 3 of the adversarial review).

Each case failed before its fix: it was accepted silently, corrupted a result, or raised an
error from deep inside NumPy or pandas whose message did not say how to mend the input.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import bayescm as bcm
from bayescm.errors import ItemsFormatError, LatentClassFormatError

ITEMS = {"item_id": [1, 1, 2, 2, 3, 3], "correct": [1, 0, 1, 1, 0, 1], "sys": ["a", "b"] * 3}
TESTS = {"a": [1, 0, 1, 1, 0, 0], "b": [1, 0, 0, 1, 1, 0], "pop": ["x", "x", "x", "y", "y", "y"]}
RATINGS = {"item": [1, 1, 2, 2, 3, 3], "rater": ["r1", "r2"] * 3,
           "rating": ["x", "y", "x", "x", "y", "y"]}


def _with(base: dict, **columns: list) -> dict:
    return {**base, **columns}


def _items(frame: object) -> object:
    return bcm.Items(frame, system="sys")


def _tests(frame: object) -> object:
    return bcm.TestResults(frame, tests=["a", "b"], population="pop")


# ------------------------------------------------------------------ tables: one shared check
@pytest.mark.parametrize(("build", "frame", "error", "match"), [
    (_items, {"item_id": [1, 2, 3], "correct": [1, 0], "sys": ["a", "a", "a"]},
     ItemsFormatError, "different lengths"),
    (_items, {"item_id": 1, "correct": 1, "sys": "a"}, ItemsFormatError, "single value"),
    (_items, pd.DataFrame([[1, 1, "a"], [2, 0, "a"]], columns=["item_id", "correct", "correct"]),
     ItemsFormatError, "two columns named 'correct'"),
    (_tests, {"a": [1, 0], "b": [1], "pop": ["x", "y"]}, LatentClassFormatError,
     "different lengths"),
    (_tests, pd.DataFrame([[1, 0, "x"], [0, 1, "y"]], columns=["a", "b", "b"]),
     LatentClassFormatError, "two columns named 'b'"),
    (bcm.Ratings, pd.DataFrame([[1, 1, "x", "y"]], columns=["item", "rater", "rating", "rating"]),
     LatentClassFormatError, "two columns named 'rating'"),
])
def test_malformed_tables_are_named_errors(build, frame, error, match):
    with pytest.raises(error, match=match):
        build(frame)


@pytest.mark.parametrize(("build", "frame", "match"), [
    (_items, _with(ITEMS, item_id=[1, 1, "1", "1", 3, 3]), "item ids 1 and '1'"),
    (_items, _with(ITEMS, sys=[1, "1"] * 3), "system ids 1 and '1'"),
    (_tests, _with(TESTS, pop=[1, 1, 1, "1", "1", "1"]), "populations 1 and '1'"),
    (bcm.Ratings, _with(RATINGS, item=[1, "1", 2, 2, 3, 3]), "item ids 1 and '1'"),
    (bcm.Ratings, _with(RATINGS, rating=[1, "1", 2, 2, 1, 1]), "ratings 1 and '1'"),
])
def test_ids_that_read_alike_are_not_merged(build, frame, match):
    with pytest.raises(ValueError, match=match):
        build(frame)


def test_ids_of_one_type_still_read_as_text():
    items = bcm.Items(_with(ITEMS, item_id=["1", " 1", "2", "2", "3", "3"]), system="sys")
    assert items.items == ["1", "2", "3"]  # Items trims ids, as before


@pytest.mark.parametrize(("build", "frame"), [
    (_items, _with(ITEMS, correct=[1, 0, 1j, 1, 0, 1])),
    (_tests, _with(TESTS, a=[1j, 0, 1, 1, 0, 0])),
])
def test_complex_results_are_refused(build, frame):
    with pytest.raises(ValueError, match="complex numbers"):
        build(frame)


# ------------------------------------------------------------------ counts given as arrays
HW = [[528, 9, 4, 14], [367, 37, 31, 887]]
RC = np.array([[[1, 0], [0, 1]], [[2, 0], [1, 0]]])


@pytest.mark.parametrize(("call", "error", "match"), [
    (lambda: bcm.TestResults.from_counts([[1e30, 9, 4, 14]], tests=["m", "t"]), OverflowError,
     "not an exact count"),  # wrapped to a negative count before
    (lambda: bcm.TestResults.from_counts([[2**62] * 4], tests=["m", "t"]), OverflowError,
     "2\\*\\*63 - 1"),  # the total wrapped to 0: "no subjects" before
    (lambda: bcm.TestResults.from_counts(HW, tests=["m", "t"], partial={"+?": [1e30, 1]}),
     OverflowError, "not an exact count"),
    (lambda: bcm.TestResults.from_counts(HW, tests="mt"), TypeError, "tests="),
    (lambda: bcm.TestResults.from_counts(HW, tests=["m", "m"]), LatentClassFormatError,
     "duplicated"),
    (lambda: bcm.TestResults.from_counts(np.zeros((0, 4)), tests=["m", "t"]),
     LatentClassFormatError, "no rows"),
    (lambda: bcm.Ratings.from_counts(RC, items=["a"]), LatentClassFormatError, "one name each"),
    (lambda: bcm.Ratings.from_counts(RC, items=[]), LatentClassFormatError, "one name each"),
    (lambda: bcm.Ratings.from_counts(RC, raters=["r", "r"]), LatentClassFormatError,
     "duplicated"),
    (lambda: bcm.Ratings.from_counts(RC, classes="pq"), TypeError, "classes="),
    (lambda: bcm.Ratings.from_counts(RC + 0.5), LatentClassFormatError, "whole numbers"),
    (lambda: bcm.Ratings.from_counts(np.zeros((0, 2, 2), int)), LatentClassFormatError,
     "no item"),
    (lambda: bcm.Ratings.from_counts(np.ones((2, 2, 1), int)), LatentClassFormatError,
     "two or more"),
])
def test_bad_counts_and_names(call, error, match):
    with pytest.raises(error, match=match):
        call()


def test_ratings_from_counts_does_not_expand_the_counts():
    # 10**12 ratings were expanded to one row each (a MemoryError asking for terabytes)
    counts = np.array([[[10**12, 0], [0, 1]], [[2, 0], [1, 0]]])
    r = bcm.Ratings.from_counts(counts, classes=np.array(["p", "q"]))
    assert r.counts.tolist() == counts.tolist() and r.classes == ["p", "q"]
    counts[0, 0, 0] = 0
    assert r.counts[0, 0, 0] == 10**12  # its own copy, read-only
    assert not r.counts.flags.writeable


# ------------------------------------------------------------------ stratified audits
_FLAG = bcm.ConfusionMatrix.from_counts(tp=150, fn=0, fp=50, tn=0)
_REST = bcm.ConfusionMatrix.from_counts(tp=0, fn=3, fp=0, tn=297)


@pytest.mark.parametrize(("sizes", "error", "match"), [
    ({"f": 1e30, "u": 997_000}, OverflowError, "exact only below 2\\*\\*53"),  # raw C-long error
    ({"f": 2**70, "u": 997_000}, ValueError, "must be <="),  # a ufunc TypeError before
    ({"f": 2**62, "u": 2**62 + 5}, OverflowError, "sum to"),  # "not a whole number" before
    ({"f": np.bool_(True), "u": 997_000}, TypeError, "whole number of items"),
])
def test_stratum_sizes_out_of_range(sizes, error, match):
    with pytest.raises(error, match=match):
        bcm.StratifiedSample({"f": _FLAG, "u": _REST}, sizes)


def test_stratum_sizes_are_matched_by_name_as_text():
    # counts keyed "1", "2" and sizes keyed 1, 2: a bare KeyError('1') before
    audit = bcm.StratifiedSample({"1": _FLAG, "2": _REST}, {1: 3_000, 2: 997_000})
    assert audit.sizes.tolist() == [3_000, 997_000]
    exact = bcm.StratifiedSample({"f": _FLAG, "u": _REST}, {"f": 2**62 + 1, "u": 997_000})
    assert int(exact.sizes[0]) == 2**62 + 1  # an exact integer is kept exactly


# ------------------------------------------------------------------ corrected rates
_VAL = bcm.ConfusionMatrix([[90, 10], [5, 95]], labels=["pos", "neg"])
_CAL = bcm.ConfusionMatrix([[80, 20], [10, 90]], labels=["correct", "wrong"])
_SHARES_VAL = bcm.ConfusionMatrix([[9, 1], [2, 8]], labels=["a", "b"])


@pytest.mark.parametrize(("call", "error", "match"), [
    # two systems named "1" made a result with a duplicated coordinate
    (lambda: bcm.true_prevalence({1: 30, "1": 40}, 100, validation=_VAL, draws=10),
     ValueError, "duplicated"),
    (lambda: bcm.judged_accuracy({"a\n": 60, "b": 70}, 100, calibration=_CAL, draws=10),
     ValueError, "control character"),
    (lambda: bcm.true_shares({1: 3, "1": 4, 2: 5}, rates=np.ones((3, 3))), ValueError,
     "duplicated"),
    (lambda: bcm.true_shares([3, 4, 5], validation=_SHARES_VAL), ValueError,
     "one count per class"),  # a bare "zip() argument 2 is longer" before
    (lambda: bcm.true_shares({"a": 3, "b": 4, "c": 5}, rates=np.ones((3, 3), bool)),
     TypeError, "concentrations"),
])
def test_corrected_rates_refuse_bad_systems_and_classes(call, error, match):
    with pytest.raises(error, match=match):
        call()


# ------------------------------------------------------------------ folds and runs
_B1 = bcm.ConfusionMatrix.from_counts(tp=40, fn=5, fp=3, tn=50)
_M1 = bcm.ConfusionMatrix([[40, 6, 2], [5, 30, 7], [1, 6, 33]])
_M2 = bcm.ConfusionMatrix([[38, 8, 1], [6, 28, 8], [2, 5, 34]])


@pytest.mark.parametrize(("data", "group", "match"), [
    ({"f1": _M1}, "fold", "at least two"),
    ({"f1": _M1, "f2": _M2}, "class", "another dim"),  # the prevalence's class dim
])
def test_hierarchical_runs_refused_before_sampling(data, group, match):
    """(One binary group is allowed: its spreads come from their priors, and with tiny ones the
    fit is the plain one, tests/test_hierarchical.py::test_one_site_with_tiny_scales_...)"""
    with pytest.raises(ValueError, match=match):
        bcm.fit(data, model="hierarchical", group=group, draws=10)


# ------------------------------------------------------------------ priors of NUTS parameters
@pytest.mark.parametrize(("parameter", "support", "prior"), [
    ("sd_logit_tpr", "positive", bcm.priors.Normal(0, 1)),  # a negative spread was sampled
    ("sd_item", "positive", bcm.priors.LKJ(2)),
    ("corr_logit", "correlation", bcm.priors.HalfNormal(1)),  # correlations above 1
    ("sd_item", "positive", bcm.priors.Uniform(-1, 1)),
    ("sd_item", "positive", bcm.Dirichlet(1)),  # "give the number of classes" before
])
def test_nuts_priors_outside_the_parameters_support(parameter, support, prior):
    from bayescm.priors import resolve_nuts_prior

    with pytest.raises(TypeError, match=parameter):
        resolve_nuts_prior(prior, parameter, support)


@pytest.mark.parametrize(("parameter", "support", "prior"), [
    ("sd_item", "positive", bcm.priors.HalfNormal(1)),
    ("sd_item", "positive", bcm.priors.LogNormal(0, 1)),
    ("corr_logit", "correlation", bcm.priors.LKJ(2)),
    ("mu_logit", "real", bcm.priors.Normal(0, 1.5)),
    ("mu_logit", "real", bcm.Fixed(0.5)),
])
def test_nuts_priors_within_the_support_still_pass(parameter, support, prior):
    from bayescm.priors import resolve_nuts_prior

    assert resolve_nuts_prior(prior, parameter, support) is prior


def test_hierarchical_spread_prior_checked_before_sampling():
    data = {"a": _B1, "b": bcm.ConfusionMatrix.from_counts(tp=38, fn=7, fp=4, tn=49)}
    with pytest.raises(TypeError, match="sd_logit_tpr"):
        bcm.fit(data, model="hierarchical", group="site", draws=10,
                priors={"sd_logit_tpr": bcm.priors.Normal(0, 1)})


def test_scalar_nuts_parameters_refuse_priors_of_several_values():
    from bayescm.priors import resolve_nuts_prior

    # the items fit failed deep in its density ("only 0-dimensional arrays can be converted")
    with pytest.raises(ValueError, match="one number"):
        resolve_nuts_prior(bcm.priors.HalfNormal([1, 2]), "sd_item", "positive", scalar=True)
    data = {"a": _B1, "b": bcm.ConfusionMatrix.from_counts(tp=38, fn=7, fp=4, tn=49)}
    with pytest.raises(ValueError, match="one number"):
        bcm.fit(data, model="hierarchical", group="site", draws=10,
                priors={"sd_logit_tpr": bcm.priors.HalfNormal([1, 2])})
    # per-classifier priors stay allowed where the parameter has one value per classifier
    assert resolve_nuts_prior(bcm.priors.HalfNormal([1, 2]), "sigma", "positive") is not None


# ------------------------------------------------------------------ comparing a system with itself
def test_prob_superior_refuses_one_classifier_twice():
    batch = bcm.fit({"A": _B1, "B": bcm.ConfusionMatrix.from_counts(tp=38, fn=7, fp=4, tn=49)},
                    draws=50, random_seed=1)
    with pytest.raises(ValueError, match="never beats itself"):  # 0.0 before
        bcm.prob_superior(batch, "A", "A", metric="acc")
    one = bcm.fit(_B1, draws=50, random_seed=1)
    with pytest.raises(ValueError, match="never beats itself"):
        bcm.prob_superior(one, one, metric="acc")


@pytest.mark.parametrize("group", ["draw", "class", "true_class"])
def test_runs_spec_refuses_a_group_name_the_result_uses(group):
    from bayescm.errors import SpecError
    from bayescm.io.spec import parse_spec

    m = [[40, 6, 2], [5, 30, 7], [1, 6, 33]]
    raw = {"data": {"labels": ["a", "b", "c"], "runs": {"f1": m, "f2": m}},
           "options": {"model": "hierarchical", "group": group}}
    with pytest.raises(SpecError, match=r"options\.group"):  # parsed, then failed at the fit
        parse_spec(raw, "t")


@pytest.mark.parametrize("raw", [
    {"data": {"strata": {"f": {"tp": 150, "fn": 0, "tn": 0, "fp": 50}}, "sizes": {"f": 1e30}}},
    {"data": {"labels": ["a", "b", "c"],
              "runs": {"f1": [[2**62, 2**62, 0], [2**62, 0, 0], [0, 0, 1]],
                       "f2": [[1, 0, 0], [0, 1, 0], [0, 0, 1]]}}},
])
def test_spec_overflow_names_the_spec(raw, tmp_path):
    from bayescm.io.spec import parse_spec

    with pytest.raises(OverflowError, match=r"spec\.toml"):  # no place in the message before
        parse_spec(raw, "t", tmp_path / "spec.toml")


# ------------------------------------------------------------------ decisions
@pytest.fixture(scope="module")
def binary_fit():
    return bcm.fit(_B1, draws=50, random_seed=1)


@pytest.mark.parametrize("thresholds", [["0.1"], [True, 0.2], "0.1"])
def test_decision_thresholds_are_numbers_not_text_or_booleans(thresholds):
    from bayescm.analyses.decision_draws import check_thresholds

    with pytest.raises(TypeError, match="numbers in"):  # "0.1" was read as 0.1
        check_thresholds(thresholds)


@pytest.mark.parametrize(("call", "match"), [
    (lambda t: bcm.expected_cost(t, cost_fp=1e308, cost_fn=1e308), "overflows"),  # inf before
    (lambda t: bcm.expected_cost(t, cost_fp=1, cost_fn=5, thresholds=[2]), "thresholds="),
    (lambda t: bcm.cost_curve(t, points=10**9), "at most"),  # a MemoryError of terabytes
])
def test_costs_refuse_what_they_would_ignore_or_overflow(binary_fit, call, match):
    with pytest.raises(ValueError, match=match):
        call(binary_fit)


# ------------------------------------------------------------------ keywords
@pytest.mark.parametrize(("call", "suggestion"), [
    (lambda: bcm.TestResults(TESTS, tests=["a", "b"], populaton="pop"), "population"),
    (lambda: bcm.TestResults.from_counts([[1, 2, 3, 4]], tests=["a", "b"], partal={}),
     "partial"),
    (lambda: bcm.Ratings(RATINGS, raters="rater"), "rater"),
    (lambda: bcm.Ratings.from_counts(RC, clases=["p", "q"]), "classes"),
])
def test_latent_inputs_suggest_the_keyword_meant(call, suggestion):
    with pytest.raises(TypeError, match=f"Did you mean '{suggestion}'"):  # Python's bare message
        call()


@pytest.mark.parametrize(("build", "frame", "match"), [
    (_items, _with(ITEMS, item_id=[1.0, 1.0, np.inf, 2.0, 3.0, 3.0]), "item_id"),
    (_tests, _with(TESTS, pop=[1.0, 1.0, np.inf, 2.0, 2.0, 2.0]), "pop"),
    (bcm.Ratings, _with(RATINGS, rating=[1.0, np.inf, 1.0, 1.0, 2.0, 2.0]), "rating"),
])
def test_infinite_ids_and_classes_are_refused(build, frame, match):
    # inf became the id or class "inf", with a RuntimeWarning from np.mod
    with pytest.raises(ValueError, match=f"column '{match}'.*inf"):
        build(frame)


# ------------------------------------------------------------------ resources and options
@pytest.mark.parametrize("call", [
    lambda: bcm.true_prevalence(30, 100, tpr=bcm.Beta(9, 1), tnr=bcm.Beta(9, 1), draws=10**12),
    lambda: bcm.fit(bcm.StratifiedSample({"f": _FLAG}, {"f": 1000}), draws=10**12),
])
def test_exact_fits_too_large_for_memory(call):
    from bayescm.errors import ResourceLimitError

    with pytest.raises(ResourceLimitError, match="draws="):  # a MemoryError deep in NumPy
        call()


def test_stratified_finite_is_a_boolean():
    audit = bcm.StratifiedSample({"f": _FLAG, "u": _REST}, {"f": 3_000, "u": 997_000})
    with pytest.raises(TypeError, match="finite="):  # "no" was read as True
        bcm.fit(audit, draws=10, finite="no")


def test_an_empty_text_result_is_a_test_not_done():
    # refused with a message saying that an empty cell is a test not done
    r = bcm.TestResults(_with(TESTS, a=["", "0", "1", " ", "0", "0"]), tests=["a", "b"])
    assert r.has_missing and r.n_subjects.tolist() == [6]
