"""prob_superior, rank_probabilities and leaderboard: checks against closed forms and slow loops."""

from __future__ import annotations

import time

import numpy as np
import pytest
import xarray as xr
from scipy import integrate, stats

import bayescm as bcm
from bayescm.comparisons import leaderboard, prob_superior, rank_probabilities

CM_A = bcm.ConfusionMatrix.from_counts(tp=45, fn=5, tn=40, fp=10)
CM_B = bcm.ConfusionMatrix.from_counts(tp=40, fn=10, tn=38, fp=12)
CM_C = bcm.ConfusionMatrix.from_counts(tp=30, fn=20, tn=25, fp=25)


def p_beta_greater(a1, b1, a2, b2, margin=0.0):
    """P(X > Y + margin) for independent X ~ Beta(a1, b1), Y ~ Beta(a2, b2), by quadrature."""
    x, y = stats.beta(a1, b1), stats.beta(a2, b2)
    val, _ = integrate.quad(lambda t: x.pdf(t) * y.cdf(t - margin), margin, 1, limit=200)
    return val


def mc_tol(p, n):
    return 4.5 * np.sqrt(p * (1 - p) / n) + 1e-3


@pytest.fixture(scope="module")
def fits():
    a = bcm.fit(CM_A, metrics=["tpr", "fnr", "acc", "prevalence"], random_seed=11)
    b = bcm.fit(CM_B, metrics=["tpr", "fnr", "acc", "prevalence"], random_seed=12)
    return a, b


@pytest.fixture(scope="module")
def batch():
    return bcm.fit({"a": CM_A, "b": CM_B, "c": CM_C}, metrics=["tpr", "fnr", "acc"],
                   random_seed=5)


# ---------------------------------------------------------------------------- prob_superior
def test_prob_superior_two_fits_matches_closed_form(fits):
    a, b = fits
    expected = p_beta_greater(1 + 45, 1 + 5, 1 + 40, 1 + 10)
    p = prob_superior(a, b, metric="sensitivity")
    assert abs(p - expected) < mc_tol(expected, 20_000)
    # with a margin
    expected_m = p_beta_greater(46, 6, 41, 11, margin=0.05)
    p_m = prob_superior(a, b, metric="tpr", margin=0.05)
    assert abs(p_m - expected_m) < mc_tol(expected_m, 20_000)
    assert p_m < p


def test_prob_superior_lower_is_better_is_the_same_event(fits):
    a, b = fits
    # FNR = 1 - TPR: "A has the lower miss rate" is "A has the higher TPR"
    assert prob_superior(a, b, metric="fnr") == pytest.approx(prob_superior(a, b, metric="tpr"),
                                                              abs=1e-3)
    # forcing the opposite direction flips the question
    p_up = prob_superior(a, b, metric="fnr", direction="higher")
    assert p_up == pytest.approx(1 - prob_superior(a, b, metric="fnr"), abs=1e-3)


def test_prob_superior_descriptive_needs_direction(fits):
    a, b = fits
    with pytest.raises(ValueError, match=r"descriptive.*direction='higher'"):
        prob_superior(a, b, metric="prevalence")
    p = prob_superior(a, b, metric="prevalence", direction="higher")
    expected = p_beta_greater(1 + 50, 1 + 50, 1 + 50, 1 + 50)
    assert abs(p - expected) < mc_tol(0.5, 20_000)


def test_prob_superior_batch_form(batch):
    expected = p_beta_greater(46, 6, 31, 21)
    p = prob_superior(batch, "a", "c", metric="recall")
    assert abs(p - expected) < mc_tol(expected, 20_000)
    assert prob_superior(batch, "c", "a", metric="tpr") == pytest.approx(1 - p, abs=1e-12)


def test_prob_superior_same_seed_warns():
    a = bcm.fit(CM_A, metrics=["tpr"], random_seed=3)
    b = bcm.fit(CM_B, metrics=["tpr"], random_seed=3)
    with pytest.warns(UserWarning, match="random_seed=3.*not independent"):
        prob_superior(a, b, metric="tpr")


def test_prob_superior_bad_inputs(fits, batch):
    a, b = fits
    short = bcm.fit(CM_B, metrics=["tpr"], draws=100, random_seed=4)
    with pytest.raises(ValueError, match=r"different numbers of draws.*same draws and chains"):
        prob_superior(a, short, metric="tpr")
    with pytest.raises(KeyError, match="Classifier 'zz' is not in the batch"):
        prob_superior(batch, "a", "zz", metric="tpr")
    with pytest.raises(KeyError, match="is not a known metric"):
        prob_superior(a, b, metric="nonsense")
    with pytest.raises(KeyError, match="was not computed"):
        prob_superior(a, b, metric="mcc")
    with pytest.raises(ValueError, match="margin must be a finite number >= 0"):
        prob_superior(a, b, metric="tpr", margin=-0.1)
    with pytest.raises(ValueError, match="direction must be 'higher'"):
        prob_superior(a, b, metric="tpr", direction="up")
    with pytest.raises(TypeError, match="only one classifier name"):
        prob_superior(batch, "a", metric="tpr")
    with pytest.raises(ValueError, match="no classifier dim"):
        prob_superior(a, "x", "y", metric="tpr")


def test_class_dim_needs_selection():
    rng = np.random.default_rng(0)
    da = xr.DataArray(rng.random((2, 50, 3, 2)), dims=("chain", "draw", "classifier", "class"),
                      coords={"classifier": ["p", "q", "r"], "class": ["cat", "dog"]}, name="f1")
    with pytest.raises(ValueError, match=r"carries the dims \['class'\].*coords=\{'class'"):
        rank_probabilities(da, direction="higher")
    out = rank_probabilities(da, direction="higher", coords={"class": "dog"})
    slow = rank_probabilities(da.sel({"class": "dog"}), direction="higher")
    np.testing.assert_array_equal(out["rank_probability"].values,
                                  slow["rank_probability"].values)


# ---------------------------------------------------------------------------- rank_probabilities
def test_rank_probabilities_sum_to_one(batch):
    ranks = rank_probabilities(batch, "acc")
    prob = ranks["rank_probability"]
    assert prob.dims == ("classifier", "rank")
    assert ranks["rank"].values.tolist() == [1, 2, 3]
    np.testing.assert_allclose(prob.sum("rank"), 1.0, atol=1e-12)
    np.testing.assert_allclose(prob.sum("classifier"), 1.0, atol=1e-12)
    np.testing.assert_allclose(ranks["p_best"], prob.sel(rank=1))
    # expected rank is consistent with the rank distribution
    np.testing.assert_allclose(ranks["expected_rank"], (prob * prob["rank"]).sum("rank"))


def test_two_classifiers_rank_one_equals_prob_superior(batch):
    pair = batch["posterior"]["tpr"].sel(classifier=["a", "b"])
    ranks = rank_probabilities(pair, "tpr")
    assert ranks["p_best"].sel(classifier="a").item() == pytest.approx(
        prob_superior(batch, "a", "b", metric="tpr"), abs=1e-12)
    # and for a lower-is-better metric from the tree
    two = bcm.fit({"a": CM_A, "b": CM_B}, metrics=["fnr"], random_seed=8)
    ranks = rank_probabilities(two, "miss_rate")
    assert ranks["p_best"].sel(classifier="b").item() == pytest.approx(
        prob_superior(two, "b", "a", metric="fnr"), abs=1e-12)


def slow_rank_probabilities(x, higher=True):
    """Per-draw loop: tied classifiers share their ranks equally (scipy rankdata min/max)."""
    s, c = x.shape
    prob = np.zeros((c, c))
    exp_rank = np.zeros(c)
    for row in x:
        v = -row if higher else row
        lo = stats.rankdata(v, method="min").astype(int)
        hi = stats.rankdata(v, method="max").astype(int)
        exp_rank += stats.rankdata(v, method="average")
        for i in range(c):
            prob[i, lo[i] - 1:hi[i]] += 1.0 / (hi[i] - lo[i] + 1)
    return prob / s, exp_rank / s


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("higher", [True, False])
def test_rank_probabilities_against_slow_loop_with_ties(dtype, higher):
    # integer-valued draws (negative too) make many ties
    rng = np.random.default_rng(1)
    x = rng.integers(-3, 3, size=(400, 6)).astype(dtype)
    x[:, 5] = rng.normal(size=400)  # one continuous column
    da = xr.DataArray(x.reshape(2, 200, 6), dims=("chain", "draw", "classifier"), name="m")
    out = rank_probabilities(da, direction="higher" if higher else "lower", chunk_size=37)
    prob, exp_rank = slow_rank_probabilities(x.astype(np.float64), higher)
    np.testing.assert_allclose(out["rank_probability"].values, prob, atol=1e-12)
    np.testing.assert_allclose(out["expected_rank"].values, exp_rank, atol=1e-12)
    # max_rank keeps the first columns and leaves P(best) and the expected rank unchanged
    top = rank_probabilities(da, direction="higher" if higher else "lower", max_rank=2)
    np.testing.assert_allclose(top["rank_probability"].values, prob[:, :2], atol=1e-12)
    np.testing.assert_allclose(top["expected_rank"].values, exp_rank, atol=1e-12)


def test_rank_probabilities_continuous_matches_rankdata():
    rng = np.random.default_rng(2)
    means = np.array([0.0, 0.1, 0.3, 0.35, -0.2])
    x = rng.normal(means, 0.2, size=(3000, 5))
    da = xr.DataArray(x[None], dims=("chain", "draw", "classifier"),
                      coords={"classifier": list("vwxyz")}, name="score")
    out = rank_probabilities(da, direction="higher")
    prob, exp_rank = slow_rank_probabilities(x)
    np.testing.assert_allclose(out["rank_probability"].values, prob, atol=1e-12)
    np.testing.assert_allclose(out["expected_rank"].values, exp_rank, atol=1e-12)


def test_rank_probabilities_errors(fits):
    a, _ = fits
    with pytest.raises(ValueError, match="no classifier dim"):
        rank_probabilities(a, "tpr")
    da = xr.DataArray(np.ones((1, 5, 3)), dims=("chain", "draw", "classifier"), name="m")
    with pytest.raises(ValueError, match="pass direction='higher' or 'lower'"):
        rank_probabilities(da)
    with pytest.raises(ValueError, match="direction is unknown"):
        rank_probabilities(da, "my_score")
    # a catalogue alias gives the direction: lower error is better
    rng = np.random.default_rng(4)
    err = xr.DataArray(rng.random((1, 300, 3)), dims=("chain", "draw", "classifier"))
    by_alias = rank_probabilities(err, "error_rate")
    by_hand = rank_probabilities(err, direction="lower")
    np.testing.assert_array_equal(by_alias["rank_probability"], by_hand["rank_probability"])
    nan = da.copy()
    nan[0, 0, 1] = np.nan
    with pytest.raises(ValueError, match=r"undefined \(NaN\) in 1 draw"):
        rank_probabilities(nan, direction="higher")
    big = xr.DataArray(np.zeros((1, 1, 5001), np.float32), dims=("chain", "draw", "classifier"))
    with pytest.raises(ValueError, match="pass max_rank"):
        rank_probabilities(big, direction="higher")


# ---------------------------------------------------------------------------- leaderboard
def test_leaderboard_two_entries_closed_form():
    n = 2000
    table = leaderboard([0.9, 0.89], n, draws=20_000, random_seed=0)
    expected = p_beta_greater(1800 + 1, 200 + 1, 1780 + 1, 220 + 1)
    assert table["correct"].tolist() == [1800, 1780]
    assert abs(table.loc["1", "p_best"] - expected) < mc_tol(expected, 20_000)
    np.testing.assert_allclose(table["expected_rank"], [2 - expected, 1 + expected], atol=0.01)
    # Jeffreys prior: Beta(k + 1/2, n - k + 1/2)
    jeff = leaderboard([0.9, 0.89], n, prior="jeffreys", draws=20_000, random_seed=0)
    expected_j = p_beta_greater(1800.5, 200.5, 1780.5, 220.5)
    assert abs(jeff.loc["1", "p_best"] - expected_j) < mc_tol(expected_j, 20_000)


def test_leaderboard_prizes_and_sums():
    rng = np.random.default_rng(3)
    acc = np.sort(rng.uniform(0.95, 0.97, 40))[::-1]
    prizes = [10_000, 2_000, 1_000]
    table = leaderboard(acc, 15_123, prizes=prizes, top=40, draws=5000, random_seed=1)
    p_cols = [f"p_rank_{r}" for r in range(1, 41)]
    np.testing.assert_allclose(table[p_cols].sum(axis=1), 1.0, atol=1e-9)
    np.testing.assert_allclose(table[p_cols].sum(axis=0), 1.0, atol=1e-9)
    # every draw hands out every prize once, so the expected prizes add up to the purse
    assert table["expected_prize"].sum() == pytest.approx(sum(prizes))
    np.testing.assert_allclose(
        table["expected_prize"],
        10_000 * table["p_rank_1"] + 2_000 * table["p_rank_2"] + 1_000 * table["p_rank_3"])
    assert table["prize"].tolist()[:4] == [10_000, 2_000, 1_000, 0]
    assert table["published_rank"].tolist() == list(range(1, 41))
    # the paper's observation: entries outside the top 3 earn a share of the prizes
    assert (table["expected_prize"].iloc[3:] > 0).sum() >= 3


def test_leaderboard_matches_rank_probabilities_on_beta_draws():
    """The fast float32 path against the generic ranking of independent float64 Beta draws."""
    acc = [0.80, 0.795, 0.79, 0.75, 0.70]
    n = 3000
    table = leaderboard(acc, n, draws=20_000, random_seed=4, top=5)
    rng = np.random.default_rng(9)
    k = np.rint(np.array(acc) * n)
    draws = rng.beta(k + 1, n - k + 1, size=(20_000, 5))
    ref = rank_probabilities(xr.DataArray(draws[None], dims=("chain", "draw", "classifier")),
                             direction="higher")
    got = table[[f"p_rank_{r}" for r in range(1, 6)]].to_numpy()
    want = ref["rank_probability"].values
    assert np.all(np.abs(got - want) < 2 * mc_tol(want, 20_000))


def test_leaderboard_reproducible_and_thread_independent():
    acc = np.linspace(0.9, 0.88, 30)
    t1 = leaderboard(acc, 5000, draws=3000, random_seed=7, threads=1, chunk_size=500)
    t2 = leaderboard(acc, 5000, draws=3000, random_seed=7, threads=2, chunk_size=500)
    np.testing.assert_array_equal(t1.to_numpy(), t2.to_numpy())
    t3 = leaderboard(acc, 5000, draws=3000, random_seed=8, threads=1, chunk_size=500)
    assert not np.array_equal(t1.to_numpy(), t3.to_numpy())


def test_leaderboard_names_and_per_entry_n():
    table = leaderboard({"alice": 0.9, "bob": 0.5}, n=[100, 10], draws=2000, random_seed=0)
    assert table.index.tolist() == ["alice", "bob"]
    assert table["correct"].tolist() == [90, 5]


def test_leaderboard_bad_inputs():
    with pytest.raises(ValueError, match=r"Accuracies must lie in \[0, 1\]; entry '2' has 1.2"):
        leaderboard([0.9, 1.2], 100)
    with pytest.raises(ValueError, match="percentages"):
        leaderboard([98.1, 97.5], 100)
    with pytest.raises(ValueError, match="n must be a positive integer"):
        leaderboard([0.9, 0.8], 0)
    with pytest.raises(ValueError, match="n must be a positive integer"):
        leaderboard([0.9, 0.8], 100.5)
    with pytest.raises(TypeError, match="n must be a positive integer"):
        leaderboard([0.9, 0.8], "100")
    with pytest.raises(ValueError, match="prizes must be finite and non-negative"):
        leaderboard([0.9, 0.8], 100, prizes=[100, -5])
    with pytest.raises(ValueError, match="3 prizes but only 2 entries"):
        leaderboard([0.9, 0.8], 100, prizes=[3, 2, 1])
    with pytest.raises(ValueError, match="at least 2 entries"):
        leaderboard([0.9], 100)
    with pytest.raises(ValueError, match="improper posterior for entry '1'"):
        leaderboard([1.0, 0.8], 100, prior="haldane")
    with pytest.raises(TypeError, match="draws must be a positive integer"):
        leaderboard([0.9, 0.8], 100, draws=10.0)


# ---------------------------------------------------------------------------- scale
@pytest.mark.slow  # scale
def test_ten_thousand_classifiers():
    """10,000 classifiers x 2,000 float32 draws, top 10 ranks, in a few seconds."""
    rng = np.random.default_rng(0)
    n = 10_000
    k = rng.integers(8_000, 9_500, size=10_000).astype(np.float32)
    draws = rng.beta(k + 1, n - k + 1, size=(2000, 10_000)).astype(np.float32)
    da = xr.DataArray(draws.reshape(4, 500, 10_000), dims=("chain", "draw", "classifier"),
                      name="acc")
    start = time.perf_counter()
    out = rank_probabilities(da, "acc", max_rank=10)
    elapsed = time.perf_counter() - start
    assert elapsed < 20
    np.testing.assert_allclose(out["rank_probability"].sum("classifier"), 1.0, atol=1e-9)
    assert out["expected_rank"].mean().item() == pytest.approx(5000.5)
    best = int(np.argmax(k))
    assert int(np.argmax(out["p_best"].values)) in np.flatnonzero(k >= k[best] - 30)
    assert out["rank_probability"].shape == (10_000, 10)
