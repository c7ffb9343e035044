"""Latent class models without a gold standard (issue 31 part 2): inputs, arithmetic, errors.

Fast checks only (no NUTS): the inputs' counts and named errors, the identifiability count,
the PyMC models' log densities against the NumPy arithmetic, the EM cross-checks on simulated
data, and the keyword checks that run before anything is compiled. The NUTS fits, SBC and
coverage are in ``tests/test_latent_slow.py``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats

import bayescm as bcm
from bayescm.core.latent import patterns
from bayescm.errors import IdentifiabilityWarning, LatentClassFormatError
from bayescm.models import registry
from bayescm.models.dawid_skene import (
    DawidSkeneModel,
    build_dawid_skene_model,
    dawid_skene_em,
    item_class_probabilities,
)
from bayescm.models.hui_walter import HuiWalterModel, check_identifiable
from bayescm.models.hui_walter_build import (
    build_hui_walter_model,
    hui_walter_em,
    pattern_probabilities,
)

HUI_WALTER_1980 = np.array([[528, 9, 4, 14], [367, 37, 31, 887]])
"""Hui & Walter (1980), Table 1: Mantoux x Tine in two populations; patterns --, -+, +-, ++
(the Hui-Walter template of runjags fits the same 1,877 subjects)."""


# ------------------------------------------------------------------ TestResults
def test_test_results_count_the_patterns_per_population() -> None:
    frame = pd.DataFrame({"a": [1, 1, 0, 0, 1, True], "b": [1, 0, 0, 1, 1, False],
                          "site": ["x", "x", "x", "y", "y", "y"]})
    r = bcm.TestResults(frame, tests=["a", "b"], population="site")
    assert r.populations == ["x", "y"] and r.tests == ["a", "b"]
    assert r.counts.tolist() == [[1, 0, 1, 1], [0, 1, 1, 1]]
    assert r.pattern_names == ["--", "-+", "+-", "++"]
    assert r.n_subjects.tolist() == [3, 3]
    one = bcm.TestResults(frame, tests=["a", "b"])
    assert one.populations == ["all"] and one.counts.tolist() == [[1, 1, 2, 2]]


def test_three_tests_order_patterns_with_the_first_test_most_significant() -> None:
    frame = pd.DataFrame({"a": [1, 0], "b": [0, 0], "c": [1, 1]})
    r = bcm.TestResults(frame, tests=["a", "b", "c"])
    assert r.counts[0, 0b101] == 1 and r.counts[0, 0b001] == 1
    assert patterns(3)[5].tolist() == [1, 0, 1]


@pytest.mark.parametrize(("frame", "kwargs", "match"), [
    ({"a": [0, 1]}, {"tests": ["a"]}, "at least two tests"),
    ({"a": [0, 1], "b": [1, 2]}, {"tests": ["a", "b"]}, r"column 'b', row 1: 2 is not a test"),
    ({"a": [0, 1], "b": ["yes", "no"]}, {"tests": ["a", "b"]}, "'yes' is not a test result"),
    ({"a": [0, None], "b": [1, None]}, {"tests": ["a", "b"]},
     "row 1: every test result is missing"),
    ({"a": [0, 1], "b": [None, None]}, {"tests": ["a", "b"]}, "test 'b' has no result"),
    ({"a": [0, 1], "b": [1, 0]}, {"tests": ["a", "bb"]}, r"no column 'bb'.*Did you mean 'b'"),
    ({"a": [0, 1], "b": [1, 0]}, {"tests": ["a", "b"], "population": "site"},
     "no column 'site'"),
    ({"a": [0, 1], "b": [1, 0]}, {"tests": ["a", "a"]}, "names a column twice"),
    ({"a": [0, 1], "b": [1, 0], "c": [0, 0]},
     {"tests": ["a", "b", "c"], "dependence": [("a", "z")]}, "pair of two different tests"),
    ({"a": [0, 1], "b": [1, 0], "c": [0, 0]},
     {"tests": ["a", "b", "c"], "dependence": [("a", "b"), ("b", "c")]}, "one dependent pair"),
])
def test_test_results_refuse_bad_input_by_name(frame, kwargs, match) -> None:
    with pytest.raises(LatentClassFormatError, match=match):
        bcm.TestResults(pd.DataFrame(frame), **kwargs)


def test_a_declared_population_without_subjects_is_an_error() -> None:
    frame = pd.DataFrame({"a": [0, 1], "b": [1, 0],
                          "site": pd.Categorical(["x", "x"], categories=["x", "y"])})
    with pytest.raises(LatentClassFormatError, match="population 'y' has no subjects"):
        bcm.TestResults(frame, tests=["a", "b"], population="site")
    with pytest.raises(LatentClassFormatError, match="population 'pop2' has no subjects"):
        bcm.TestResults.from_counts([[1, 2, 3, 4], [0, 0, 0, 0]], tests=["a", "b"])
    with pytest.raises(LatentClassFormatError, match="shape"):
        bcm.TestResults.from_counts([[1, 2, 3]], tests=["a", "b"])


# ------------------------------------------------------------------ Ratings
def test_ratings_count_repeated_and_skip_missing_ratings() -> None:
    frame = pd.DataFrame({"item": [1, 1, 1, 2, 2, 3], "rater": ["a", "a", "b", "a", "b", "b"],
                          "rating": [2, 2, 1, 1, None, 2]})
    r = bcm.Ratings(frame)
    assert r.items == ["1", "2", "3"] and r.raters == ["a", "b"] and r.classes == ["1", "2"]
    assert r.counts[0].tolist() == [[0, 2], [1, 0]]  # rater a rated item 1 twice
    assert r.counts[1].tolist() == [[1, 0], [0, 0]]  # b's missing rating of item 2 is dropped
    assert r.majority().tolist() == [1, 0, 1]


def test_ratings_refuse_bad_input_by_name() -> None:
    base = {"item": [1, 2], "rater": ["a", "a"], "rating": ["x", "y"]}
    with pytest.raises(LatentClassFormatError, match=r"no column 'score'"):
        bcm.Ratings(pd.DataFrame(base), rating="score")
    lonely = dict(base, rater=pd.Categorical(["a", "a"], categories=["a", "b"]))
    with pytest.raises(LatentClassFormatError, match="rater 'b' has no ratings"):
        bcm.Ratings(pd.DataFrame(lonely))
    unrated = dict(base, rating=["x", None])
    with pytest.raises(LatentClassFormatError, match="item '2' was rated by nobody"):
        bcm.Ratings(pd.DataFrame(unrated), classes=["x", "y"])
    with pytest.raises(LatentClassFormatError, match="'z' is not one of the classes"):
        bcm.Ratings(pd.DataFrame(dict(base, rating=["x", "z"])), classes=["x", "y"])
    with pytest.raises(LatentClassFormatError, match="two or more"):
        bcm.Ratings(pd.DataFrame(dict(base, rating=["x", "x"])))
    with pytest.raises(LatentClassFormatError, match="rater id is missing"):
        bcm.Ratings(pd.DataFrame(dict(base, rater=["a", None])))


def test_the_anaesthesia_data_are_dawid_and_skenes_table() -> None:
    r = bcm.datasets.load("anesthesia")
    assert r.counts.shape == (45, 5, 4) and int(r.counts.sum()) == 315
    assert r.counts[:, 0].sum(axis=1).tolist() == [3] * 45  # rater 1 rated each form 3 times
    assert (r.counts[:, 1:].sum(axis=2) == 1).all()
    assert r.counts[35, 0].tolist() == [0, 0, 2, 1]  # patient 36: rater 1 said 4, 3, 3


# ------------------------------------------------------------------ identifiability
@pytest.mark.parametrize(("counts", "priors", "dependence", "identified"), [
    ([[30, 5, 8, 57]], {}, None, False),                            # 5 parameters, 3 df
    (HUI_WALTER_1980, {}, None, True),                              # 6 and 6
    (HUI_WALTER_1980, {}, [("a", "b")], False),                     # 8 and 6
    ([[30, 5, 8, 57]], {"tpr": {"a": bcm.Beta(90, 10)}, "tnr": {"a": bcm.Beta(95, 5)}},
     None, True),                                                   # two informative priors
    ([[30, 5, 8, 57]], {"tpr": {"a": bcm.Beta(2, 2)}}, None, False),  # weak: not counted
])
def test_identifiability_count(counts, priors, dependence, identified) -> None:
    r = bcm.TestResults.from_counts(counts, tests=["a", "b"], dependence=dependence)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        assert check_identifiable(r, priors) is identified
    mine = [w for w in seen if issubclass(w.category, IdentifiabilityWarning)]
    assert len(mine) == (0 if identified else 1)
    if mine:
        text = str(mine[0].message)
        assert "second population" in text and "third test" in text
        assert "informative priors" in text


def test_three_tests_in_one_population_are_identified() -> None:
    r = bcm.TestResults.from_counts(np.arange(1, 9)[None], tests=["a", "b", "c"])
    assert check_identifiable(r, {})


# ------------------------------------------------------------------ Hui-Walter arithmetic
def test_pattern_probabilities_match_the_pymc_likelihood() -> None:
    r = bcm.TestResults.from_counts(HUI_WALTER_1980, tests=["a", "b"])
    model = build_hui_walter_model(r, {})
    point = {"prevalence_logodds__": special.logit(np.array([0.1, 0.6])),
             "tnr_unit_interval__": special.logit(np.array([0.95, 0.9])),
             "tpr_share_interval__": special.logit(np.array([0.5, 0.6]))}
    logl = model.compile_fn(model.observedlogp)(point)
    tnr = np.array([0.95, 0.9])
    tpr = 1 - tnr * (1 - np.array([0.5, 0.6]))
    pi = pattern_probabilities(np.array([0.1, 0.6]), tpr, tnr)
    expected = sum(stats.multinomial.logpmf(HUI_WALTER_1980[p], HUI_WALTER_1980[p].sum(), pi[p])
                   for p in range(2))
    assert logl == pytest.approx(expected, rel=1e-10)


def test_dependent_pairs_keep_probabilities_valid_and_sum_to_one() -> None:
    rng = np.random.default_rng(0)
    tpr, tnr = rng.uniform(0.6, 0.99, (500, 4)), rng.uniform(0.6, 0.99, (500, 4))
    prev = rng.uniform(0.01, 0.9, (500, 2))
    a, b = tpr[:, 0], tpr[:, 1]
    lo, hi = np.maximum(-a * b, -(1 - a) * (1 - b)), np.minimum(a * (1 - b), b * (1 - a))
    cov = (lo + (hi - lo) * rng.uniform(size=500))[:, None]
    pi = pattern_probabilities(prev, tpr, tnr, [(0, 1)], cov, np.zeros((500, 1)))
    assert pi.shape == (500, 2, 16)
    assert (pi >= 0).all() and np.allclose(pi.sum(axis=-1), 1)
    # the pair's margins are the tests' rates: P(a+ | D+) = tpr_a whatever the covariance
    pos = pattern_probabilities(np.ones((500, 1)), tpr, tnr, [(0, 1)], cov, np.zeros((500, 1)))
    assert np.allclose(pos[:, 0] @ patterns(4)[:, 0], tpr[:, 0])


def test_em_recovers_simulated_rates() -> None:
    rng = np.random.default_rng(1)
    prev, tpr, tnr = np.array([0.1, 0.5]), np.array([0.9, 0.75, 0.8]), np.array([0.95, 0.9, 0.7])
    pi = pattern_probabilities(prev, tpr, tnr)
    counts = np.stack([rng.multinomial(200_000, p) for p in pi])
    est = hui_walter_em(counts)
    np.testing.assert_allclose(est["tpr"], tpr, atol=0.01)
    np.testing.assert_allclose(est["tnr"], tnr, atol=0.01)
    np.testing.assert_allclose(est["prevalence"], prev, atol=0.01)


def test_hui_walter_priors_and_options_are_checked_before_sampling() -> None:
    r = HuiWalterModel.example_data()
    with pytest.raises(TypeError, match="not parameters of the hui_walter model"):
        bcm.fit(r, priors={"sensitivity": bcm.Beta(2, 1)})
    with pytest.raises(ValueError, match="'nope' is not one of"):
        bcm.fit(r, priors={"tpr": {"nope": bcm.Beta(2, 1)}})
    with pytest.raises(TypeError, match="takes Beta priors"):
        bcm.fit(r, priors={"tnr": bcm.priors.Normal(0, 1)})
    with pytest.raises(TypeError, match=r"unknown keyword argument 'tunes'.*tune"):
        bcm.fit(r, tunes=10)
    with pytest.raises(ValueError, match="sampled with NUTS"):
        bcm.fit(r, method="exact")
    with pytest.raises(ValueError, match=r"priors=\{\.\.\.\}"):
        bcm.fit(r, prior="laplace")


def test_the_kinds_are_registered_and_rebuild_from_their_attributes() -> None:
    assert registry.for_data(HuiWalterModel.example_data()).key == "hui_walter"
    assert registry.for_data(bcm.datasets.anesthesia()).key == "dawid_skene"
    hw = HuiWalterModel(["a", "b", "c"], ["p", "q"], [("a", "b")])
    back = HuiWalterModel.from_attrs(hw.root_attrs(), [])
    assert (back.tests, back.populations, back.dependence) == (hw.tests, hw.populations,
                                                               hw.dependence)
    ds = DawidSkeneModel(["r1", "r2"], ["x", "y"], ["i1"])
    again = DawidSkeneModel.from_attrs(ds.root_attrs(), [])
    assert (again.raters, again.classes, again.items) == (ds.raters, ds.classes, ds.items)


# ------------------------------------------------------------------ Dawid-Skene arithmetic
def _simulate_ratings(rng, n_items, rates, prev):
    n_r, n_k, _ = rates.shape
    z = rng.choice(n_k, size=n_items, p=prev)
    counts = np.zeros((n_items, n_r, n_k), dtype=np.int64)
    for r in range(n_r):  # one rating per rater and item (vectorised over items)
        u = rng.random(n_items)[:, None]
        label = (u > np.cumsum(rates[r, z], axis=1)).sum(axis=1)
        counts[np.arange(n_items), r, label] += 1
    return counts, z


def test_the_dawid_skene_likelihood_matches_a_direct_sum() -> None:
    rng = np.random.default_rng(2)
    rates = rng.dirichlet(np.ones(3) + 4 * np.eye(3)[0], size=(4, 3))
    counts, _ = _simulate_ratings(rng, 60, rates, np.array([0.5, 0.3, 0.2]))
    r = bcm.Ratings.from_counts(counts)
    kind = DawidSkeneModel.from_data(r)
    priors = kind.resolve_priors(None, {})
    prev = np.array([0.4, 0.35, 0.25])
    for distinct in (True, False):
        model = build_dawid_skene_model(r, priors, distinct=distinct)
        point = model.initial_point()
        point["prevalence_simplex__"] = model.rvs_to_transforms[
            model["prevalence"]].forward(prev).eval()
        point["rates_simplex__"] = model.rvs_to_transforms[model["rates"]].forward(rates).eval()
        logl = model.compile_fn(model.potentiallogp)(point)
        direct = np.log(np.exp(np.einsum("irl,rkl->ik", counts, np.log(rates))) @ prev).sum()
        assert logl == pytest.approx(direct, rel=1e-10)


def test_item_class_probabilities_are_bayes_rule() -> None:
    rng = np.random.default_rng(3)
    rates = rng.dirichlet(np.ones(2) * 2, size=(3, 2))
    counts, _ = _simulate_ratings(rng, 5, rates, np.array([0.6, 0.4]))
    prev = np.array([0.6, 0.4])
    got = item_class_probabilities(counts, prev, rates)
    like = np.exp(np.einsum("irl,rkl->ik", counts, np.log(rates))) * prev
    np.testing.assert_allclose(got, like / like.sum(axis=1, keepdims=True))
    draws = item_class_probabilities(counts, np.stack([prev] * 7), np.stack([rates] * 7))
    assert draws.shape == (7, 5, 2)


def test_dawid_skene_em_recovers_simulated_raters() -> None:
    rng = np.random.default_rng(4)
    rates = np.stack([np.full((4, 4), 0.1) + 0.6 * np.eye(4)] * 5)
    rates[2] = np.full((4, 4), 0.2) + 0.2 * np.eye(4)  # a poor rater
    prev = np.array([0.4, 0.3, 0.2, 0.1])
    counts, z = _simulate_ratings(rng, 3000, rates, prev)
    est = dawid_skene_em(counts)
    np.testing.assert_allclose(est["prevalence"], prev, atol=0.03)
    np.testing.assert_allclose(est["rates"], rates, atol=0.08)
    right = (est["item_class"].argmax(axis=1) == z).mean()
    majority = (bcm.Ratings.from_counts(counts).majority() == z).mean()
    assert right > 0.85 and right >= majority  # weighing raters by their rates helps


def test_dawid_skene_priors_and_options_are_checked_before_sampling() -> None:
    r = bcm.datasets.anesthesia()
    with pytest.raises(ValueError, match="4 x 4 array"):
        bcm.fit(r, priors={"rates": np.ones((3, 3))})
    with pytest.raises(ValueError, match="not one of the raters"):
        bcm.fit(r, priors={"rates": {"zz": np.ones((4, 4))}})
    with pytest.raises(TypeError, match=r"bcm\.Dirichlet"):
        bcm.fit(r, priors={"prevalence": bcm.Beta(1, 1)})
    with pytest.raises(ValueError, match="give 4 concentrations"):
        bcm.fit(r, priors={"prevalence": bcm.Dirichlet([1, 1, 1])})
    with pytest.raises(TypeError, match="unknown keyword argument 'draw'"):
        bcm.fit(r, draw=10)
    kind = DawidSkeneModel.from_data(r)
    p = kind.resolve_priors(None, {"rates": {"2": 2 * np.ones((4, 4))},
                                   "prevalence": bcm.Dirichlet(3)})
    assert p["prevalence"].tolist() == [3.0] * 4
    assert p["rates"][1].tolist() == (2 * np.ones((4, 4))).tolist()
    assert p["rates"][0, 0].tolist() == [5.0, 1.0, 1.0, 1.0]


# ------------------------------------------------------------------ the trees (no NUTS)
@pytest.mark.parametrize("which", ["hui_walter", "dawid_skene"])
def test_latent_trees_summarise_save_and_load(which, tmp_path) -> None:
    from conftest import synthetic_latent_fit

    data = (HuiWalterModel.example_data() if which == "hui_walter"
            else bcm.datasets.anesthesia())
    tree = synthetic_latent_fit(data)
    assert tree.attrs["model"] == which
    kind = registry.kind_of(tree)
    assert kind.key == which
    post = tree["posterior"].to_dataset()
    for p in kind.parameters:
        assert post[p.name].dims[2:] == p.dims
    observed = tree["observed_metrics"].to_dataset()
    assert set(observed.data_vars) and set(observed.data_vars) <= set(post.data_vars)
    diag = tree["diagnostics"].to_dataset()
    assert set(diag.data_vars) <= set(post.data_vars)
    table = bcm.summary(tree)
    assert {"mean", "hdi_lower", "hdi_upper"} <= set(table.columns)
    back = bcm.load(bcm.save(tree, tmp_path / f"{which}.nc", compact=False))
    assert registry.kind_of(back).key == which
    pd.testing.assert_frame_equal(bcm.summary(back), table)
    with pytest.raises(ValueError, match=r"with_prevalence needs .* fit; this is a latent"):
        bcm.with_prevalence(tree, 0.3)


def test_the_rater_quantities_follow_from_the_draws() -> None:
    from conftest import synthetic_latent_fit

    tree = synthetic_latent_fit(bcm.datasets.anesthesia())
    post = tree["posterior"]
    prev = post["prevalence"].values
    rates = post["rates"].values
    acc = np.einsum("cdk,cdrkk->cdr", prev, rates)
    np.testing.assert_allclose(post["accuracy"].values, acc)
    share = np.einsum("cdk,cdrkl->cdrl", prev, rates)
    p_e = np.einsum("cdk,cdrk->cdr", prev, share)
    np.testing.assert_allclose(post["kappa"].values, (acc - p_e) / (1 - p_e))
    np.testing.assert_allclose(post["item_class"].values.sum(axis=-1), 1)
    first = item_class_probabilities(bcm.datasets.anesthesia().counts, prev[0, 0],
                                     rates[0, 0])
    np.testing.assert_allclose(post["item_class"].values[0, 0], first)
