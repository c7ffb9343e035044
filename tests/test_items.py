"""Item-level evaluations (issue 30): the log, the density, the estimands, the yardsticks.

No NUTS here: the tree, pass@k and the comparisons are checked on a tree assembled from draws
made with NumPy (``conftest.synthetic_items_fit``). NUTS fits run in the slow tests of the
command (``test_cli_eval``), the app (``test_app_items``), the specs and the figures; the
coverage study is ``benchmarks/items_coverage.py`` (no slow test of it yet).
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit

import bayescm as bcm
from bayescm.analyses.items_frequentist import cluster_robust, naive_intervals
from bayescm.analyses.items_simulation import mu_for_accuracy, simulate_log
from bayescm.errors import ItemsFormatError, UnbalancedItemsWarning
from bayescm.models.items import ItemsModel
from bayescm.models.items_build import scales_of
from bayescm.models.items_density import (
    K_GRID,
    Layout,
    log_density,
    prior_arrays,
    summaries_of_draws,
)
from bayescm.models.items_estimands import design_constants, estimands, pass_new
from conftest import synthetic_items_fit


def _frame(**extra: list) -> pd.DataFrame:
    base = {"item_id": [1, 1, 2, 2, 3, 3], "system": ["a", "b"] * 3,
            "correct": [1, 0, 1, 1, 0, 0]}
    base.update(extra)
    return pd.DataFrame(base)


# ------------------------------------------------------------------------------ the log
def test_sufficient_statistics_match_a_groupby() -> None:
    rng = np.random.default_rng(0)
    n = 500
    frame = pd.DataFrame({"item_id": rng.integers(0, 40, n), "system": rng.choice(["x", "y"], n),
                          "correct": rng.random(n) < 0.6})
    frame = frame[frame["item_id"].isin(frame.groupby("item_id")["system"].nunique()
                                        .loc[lambda s: s == 2].index)]
    log = bcm.Items(frame, system="system")
    grouped = frame.groupby(["system", "item_id"])["correct"].agg(["sum", "count"])
    for s, name in enumerate(log.systems):
        for i, item in enumerate(log.items):
            row = grouped.loc[(name, int(item))]
            assert (log.successes[s, i], log.attempts[s, i]) == (row["sum"], row["count"])
    assert log.n_attempts == len(frame)


@pytest.mark.parametrize(("frame", "kwargs", "words"), [
    (_frame(correct=[1, 0, 2, 1, 0, 1]), {"system": "system"}, "2 is not an outcome"),
    (_frame(correct=[1, 0, np.nan, 1, 0, 1]), {"system": "system"}, "outcome is missing"),
    (_frame(correct=["1", "yes", "0", "1", "0", "1"]), {"system": "system"},
     "'yes' is not an outcome"),
    (_frame(item_id=[1, 1, None, 2, 3, 3]), {"system": "system"}, "item id is missing"),
    (_frame(system=["a", "b", "a", "", "a", "b"]), {"system": "system"}, "system id is missing"),
    (_frame(passage=["p", "p", "q", "r", "q", "q"]), {"system": "system", "cluster": "passage"},
     "item '2' is in cluster 'r' here but in 'q'"),
    (_frame(epoch=[1, 1, 1, 1, 1, 1], item_id=[1, 1, 1, 1, 3, 3]),
     {"system": "system", "attempt": "epoch"}, "attempt '1' appears twice"),
    (_frame(), {"system": "sytem"}, "Did you mean 'system'"),
    (_frame(), {"system": "system", "cluster": "system"}, "named for two roles"),
    (_frame().iloc[:0], {"system": "system"}, "no rows"),
    (_frame(), {"outcome": None}, "needs label= and prediction="),
])
def test_bad_logs_are_named_errors(frame: pd.DataFrame, kwargs: dict, words: str) -> None:
    with pytest.raises(ItemsFormatError, match=re.escape(words)):
        bcm.Items(frame, **kwargs)


def test_logs_accept_booleans_texts_and_label_prediction_columns() -> None:
    texts = bcm.Items(_frame(correct=["1", "true", "0", "False", "1", "0"]), system="system")
    booleans = bcm.Items(_frame(correct=[True, True, False, False, True, False]),
                         system="system")
    np.testing.assert_array_equal(texts.successes, booleans.successes)
    compared = bcm.Items(_frame(y=["A", "B", "C", "C", "D", "A"],
                                pred=["A", "C", "C", "C", "D", "D"]),
                         outcome=None, system="system", label="y", prediction="pred")
    assert compared.successes.tolist() == [[1, 1, 1], [0, 1, 0]]
    with pytest.raises(TypeError, match=r"unexpected keyword|unknown keyword"):
        bcm.Items(_frame(), sytem="system")


def test_items_some_systems_skipped_are_kept_with_a_warning() -> None:
    frame = _frame().iloc[:5]
    with pytest.warns(UnbalancedItemsWarning, match="1 of 3 items"):
        log = bcm.Items(frame, system="system")
    assert log.attempts.tolist() == [[1, 1, 1], [1, 1, 0]]


def test_csv_errors_name_the_line(tmp_path) -> None:
    path = tmp_path / "log.csv"
    path.write_text("item_id,passage,correct\nq1,p1,1\nq2,p1,0\nq1,p2,1\n")
    with pytest.raises(ItemsFormatError, match=r"log.csv, column 'passage', line 4"):
        bcm.Items.from_csv(path, cluster="passage")
    path.write_text("item_id,correct\nq1,1\nq2,0.5\n")
    with pytest.raises(ItemsFormatError, match="line 3"):
        bcm.Items.from_csv(path)


# ------------------------------------------------------------------------------ the density
def _random_log(rng: np.random.Generator) -> bcm.Items:
    log, _ = simulate_log(rng, clusters=6, per_cluster=3, attempts=4, mu=[0.3, 1.0],
                          sd_cluster=0.7, sd_item=1.2, sd_system_item=0.5)
    return log


def test_written_density_equals_the_pymc_model_up_to_a_constant() -> None:
    from bayescm.models.items_build import build_items_model
    from bayescm.priors import HalfNormal, LogNormal, Normal

    rng = np.random.default_rng(1)
    log = _random_log(rng)
    priors = {"mu_logit": Normal([0.5, -0.5], 2.0), "sd_cluster": LogNormal(0.0, 1.0),
              "sd_item": HalfNormal(2.5), "sd_system_item": HalfNormal(1.0)}
    layout = Layout(2, log.n_items, log.n_clusters, scales_of(log))
    model = build_items_model(log, priors)
    logp = model.compile_logp(mode="FAST_COMPILE")
    arrays = prior_arrays(layout, priors)
    gaps = []
    for _ in range(4):
        x = rng.normal(0, 0.7, layout.ndim)
        point = {"mu_logit": x[:2], "sd_cluster_log__": x[2], "sd_item_log__": x[3],
                 "sd_system_item_log__": x[4], "z_cluster": x[5:11], "z_item": x[11:29],
                 "z_system_item": x[29:].reshape(2, 18)}
        ours, _ = log_density(x, log.successes.astype(float), log.attempts.astype(float),
                              log.cluster_index, layout, arrays)
        gaps.append(ours - float(logp(point)))
    # the binomial coefficients and normal constants differ; nothing else may
    np.testing.assert_allclose(gaps, gaps[0], atol=1e-8)


def test_written_gradient_equals_finite_differences() -> None:
    from bayescm.priors import HalfNormal, Normal

    rng = np.random.default_rng(2)
    log = _random_log(rng)
    layout = Layout(2, log.n_items, log.n_clusters, scales_of(log))
    arrays = prior_arrays(layout, {"mu_logit": Normal(0, 3), **{
        s: HalfNormal(2.5) for s in layout.scales}})
    y, n = log.successes.astype(float), log.attempts.astype(float)
    x = rng.normal(0, 0.7, layout.ndim)
    _, grad = log_density(x, y, n, log.cluster_index, layout, arrays)
    step = 1e-6
    eye = np.eye(layout.ndim) * step
    numeric = np.array([(log_density(x + e, y, n, log.cluster_index, layout, arrays)[0]
                         - log_density(x - e, y, n, log.cluster_index, layout, arrays)[0])
                        / (2 * step) for e in eye])
    np.testing.assert_allclose(grad, numeric, rtol=1e-5, atol=1e-6)


def test_draw_summaries_match_a_direct_computation() -> None:
    rng = np.random.default_rng(3)
    log = _random_log(rng)
    layout = Layout(2, log.n_items, log.n_clusters, scales_of(log))
    x = rng.normal(0, 0.8, (3, layout.ndim))
    out = summaries_of_draws(x, layout, log.cluster_index)
    sd = np.exp(x[:, 2:5])
    zc, zi, zw = x[:, 5:11], x[:, 11:29], x[:, 29:].reshape(3, 2, 18)
    shared = sd[:, [0]] * zc[:, log.cluster_index] + sd[:, [1]] * zi
    p = expit(x[:, :2, None] + shared[:, None, :] + sd[:, 2, None, None] * zw)
    np.testing.assert_allclose(out["accuracy_items"], p.mean(axis=2))
    np.testing.assert_allclose(out["difficulty"], -shared)
    ks = np.array(K_GRID)
    np.testing.assert_allclose(out["pass_items"],
                               (1 - (1 - p[..., None]) ** ks).mean(axis=2), rtol=1e-12)
    np.testing.assert_allclose(out["all_items"], (p[..., None] ** ks).mean(axis=2), rtol=1e-10)


# ------------------------------------------------------------------------------ estimands
def test_estimands_match_monte_carlo_over_the_random_effects() -> None:
    rng = np.random.default_rng(4)
    mu, sc, si, sw = 0.8, 1.1, 1.5, 0.6
    m = 400_000
    u, v, w = rng.normal(0, sc, m), rng.normal(0, si, m), rng.normal(0, sw, m)
    p = expit(mu + u + v + w)
    est = estimands(np.array([[mu]]), {"sd_cluster": np.array([sc]), "sd_item": np.array([si]),
                                       "sd_system_item": np.array([sw])},
                    np.full((1, 4), 3), np.array([0, 0, 1, 1]))
    acc = p.mean()
    se = p.std() / np.sqrt(m)
    assert abs(est["accuracy"][0, 0] - acc) < 4 * se
    icc_item = p.var() / (acc * (1 - acc))
    assert est["icc_item"][0, 0] == pytest.approx(icc_item, rel=0.01)
    # two items of one cluster share u only
    p2 = expit(mu + u + rng.normal(0, si, m) + rng.normal(0, sw, m))
    icc_cluster = np.cov(p, p2)[0, 1] / (acc * (1 - acc))
    assert est["icc_cluster"][0, 0] == pytest.approx(icc_cluster, abs=0.005)


def test_design_effect_is_the_variance_of_the_mean_over_its_binomial_variance() -> None:
    rng = np.random.default_rng(5)
    mu, sc, si = 0.4, 0.9, 1.3
    clusters, per, k, sims = 30, 4, 3, 20_000
    cluster = np.repeat(np.arange(clusters), per)
    eta = mu + rng.normal(0, sc, (sims, clusters))[:, cluster] + rng.normal(
        0, si, (sims, clusters * per))
    means = rng.binomial(k, expit(eta)).sum(axis=1) / (k * clusters * per)
    est = estimands(np.array([[mu]]), {"sd_cluster": np.array([sc]), "sd_item": np.array([si])},
                    np.full((1, clusters * per), k), cluster)
    m = est["accuracy"][0, 0]
    deff = means.var() / (m * (1 - m) / (k * clusters * per))
    # the Monte Carlo error of a variance from 20,000 draws is about 1 %
    assert est["design_effect"][0, 0] == pytest.approx(deff, rel=0.04)
    assert est["effective_n"][0, 0] == pytest.approx(k * clusters * per / deff, rel=0.04)


def test_design_constants_of_unequal_clusters_and_attempts() -> None:
    n = np.array([[2, 3, 0, 5]])
    total, within, between = design_constants(n, np.array([0, 0, 1, 1]))
    assert total[0] == 10
    assert within[0] == pytest.approx((2 + 6 + 0 + 20) / 10)
    assert between[0] == pytest.approx(((5 ** 2 - 4 - 9) + (5 ** 2 - 25)) / 10)


def test_pass_at_k_of_a_new_item_matches_monte_carlo() -> None:
    rng = np.random.default_rng(6)
    p = expit(0.3 + 1.7 * rng.normal(size=400_000))
    at_least, every = pass_new(np.array(0.3), np.array(1.7), np.array([1, 5, 50]))
    for j, k in enumerate([1, 5, 50]):
        assert at_least[j] == pytest.approx(1 - ((1 - p) ** k).mean(), abs=0.003)
        assert every[j] == pytest.approx((p ** k).mean(), abs=0.003)


def test_mu_for_accuracy_inverts_the_accuracy() -> None:
    mu = mu_for_accuracy(0.83, 2.2)
    est = estimands(np.array([[mu]]), {"sd_item": np.array([2.2])}, np.ones((1, 3)), None)
    assert est["accuracy"][0, 0] == pytest.approx(0.83, abs=1e-9)


# ------------------------------------------------------------------------------ yardsticks
def test_cr1_equals_statsmodels_cluster_robust_ols() -> None:
    import statsmodels.api as sm

    log, _ = simulate_log(np.random.default_rng(7), clusters=25, per_cluster=4, attempts=3,
                          mu=[0.2, 0.9], sd_cluster=0.8, sd_item=1.0, sd_system_item=0.4)
    systems, pairs = cluster_robust(log)
    share = log.successes / log.attempts
    for s in range(2):
        ols = sm.OLS(share[s], np.ones(log.n_items)).fit(
            cov_type="cluster", cov_kwds={"groups": log.cluster_index})
        assert systems["se"].iloc[s] == pytest.approx(float(ols.bse[0]), rel=1e-10)
    d = share[1] - share[0]
    ols = sm.OLS(d, np.ones(d.size)).fit(cov_type="cluster",
                                         cov_kwds={"groups": log.cluster_index})
    assert pairs["se"].iloc[0] == pytest.approx(float(ols.bse[0]), rel=1e-10)


def test_naive_interval_is_the_beta_of_all_attempts() -> None:
    from scipy import stats

    log = bcm.datasets.eval_log()
    table = naive_intervals(log, hdi_prob=0.9)
    a = 1 + log.successes[0].sum()
    b = 1 + log.attempts[0].sum() - log.successes[0].sum()
    assert table["lower"].iloc[0] == pytest.approx(stats.beta.ppf(0.05, a, b))
    # attempts of one question agree: the CR1 interval is much wider than the naive one
    cr1, _ = cluster_robust(log, hdi_prob=0.9)
    assert ((cr1["upper"] - cr1["lower"]) > 1.4 * (table["upper"] - table["lower"])).all()


# ------------------------------------------------------------------------------ the tree
def test_the_tree_holds_the_contract_names_and_survives_save_and_load(tmp_path) -> None:
    log = bcm.datasets.eval_log()
    idata = synthetic_items_fit(log)
    post = idata["posterior"]
    assert idata.attrs["model"] == "items"
    for name in ("accuracy", "accuracy_items", "icc_item", "icc_cluster", "design_effect"):
        assert post[name].dims == ("chain", "draw", "system")
    assert list(post["accuracy_diff"]["pair"].values) == [
        "model_b - model_a", "model_c - model_a", "model_c - model_b"]
    np.testing.assert_allclose(
        post["accuracy_diff"].sel(pair="model_c - model_a"),
        post["accuracy"].sel(system="model_c") - post["accuracy"].sel(system="model_a"))
    back = bcm.load(bcm.save(idata, tmp_path / "items.nc"))
    table = bcm.summary(back)
    assert "accuracy[model_a]" in table.index and "difficulty[gpqa_000]" not in table.index
    assert table.loc["accuracy[model_a]", "observed"] == pytest.approx(
        (log.successes[0] / log.attempts[0]).mean())


def test_pass_at_k_prob_superior_and_ranks_read_the_tree() -> None:
    idata = synthetic_items_fit(bcm.datasets.eval_log())
    out = bcm.pass_at_k(idata, k=[1, 5])
    assert out["pass_at_k"].dims == ("chain", "draw", "system", "k")
    np.testing.assert_allclose(out["pass_at_k"].sel(k=1), idata["posterior"]["accuracy"],
                               atol=1e-6)
    np.testing.assert_allclose(out["pass_at_k_items"].sel(k=1),
                               idata["posterior"]["accuracy_items"], atol=1e-12)
    assert (out["pass_at_k"].sel(k=5) >= out["pass_at_k"].sel(k=1)).all()
    assert (out["pass_all_k"].sel(k=5) <= out["pass_all_k"].sel(k=1)).all()
    assert "pass_at_k_items" not in bcm.pass_at_k(idata, k=[1, 50])
    diff = idata["posterior"]["accuracy_diff"].sel(pair="model_c - model_a")
    assert bcm.prob_superior(idata, "model_c", "model_a", metric="accuracy") == pytest.approx(
        float((diff > 0).mean()))
    ranks = bcm.rank_probabilities(idata, "accuracy")
    assert ranks["rank_probability"].dims == ("system", "rank")
    np.testing.assert_allclose(ranks["rank_probability"].sum("rank"), 1.0)
    with pytest.raises(ValueError, match="k must be a positive integer"):
        bcm.pass_at_k(idata, k=[0])
    with pytest.raises(ValueError, match="needs an items fit"):
        bcm.pass_at_k(bcm.fit(bcm.ConfusionMatrix.from_counts(tp=20, fn=5, tn=30, fp=5),
                              draws=20))


def test_one_unnamed_system_has_no_system_dim() -> None:
    log = bcm.Items(pd.DataFrame({"item_id": np.repeat(np.arange(30), 2),
                                  "correct": np.tile([1, 0], 30)}))
    idata = synthetic_items_fit(log)
    assert idata["posterior"]["accuracy"].dims == ("chain", "draw")
    assert "accuracy_diff" not in idata["posterior"]
    assert bcm.pass_at_k(idata, k=3)["pass_at_k"].dims == ("chain", "draw", "k")


def test_priors_are_keyed_by_parameter_and_checked() -> None:
    kind = ItemsModel.from_data(bcm.datasets.eval_log())
    priors = kind.resolve_priors(None, {"sd_item": bcm.priors.HalfNormal(1.0)})
    assert priors["sd_item"] == bcm.priors.HalfNormal(1.0)
    one = ItemsModel.from_data(bcm.Items(pd.DataFrame({"item_id": [1, 2],
                                                       "correct": [1, 0]})))
    with pytest.raises(ValueError, match="has no clusters"):
        one.resolve_priors(None, {"sd_cluster": bcm.priors.HalfNormal(1.0)})
    with pytest.raises(ValueError, match="set with priors="):
        kind.resolve_priors("laplace", {})
    with pytest.raises(ValueError, match=r"sd_item is a standard deviation \(positive\); give "):
        kind.resolve_priors(None, {"sd_item": bcm.priors.Normal(0.0, 1.0)})
    assert kind.resolve_priors(None, {"sd_item": bcm.priors.LogNormal(0.0, 1.0)})[
        "sd_item"] == bcm.priors.LogNormal(0.0, 1.0)
    with pytest.raises(TypeError, match="keyed by mu_logit"):
        bcm.fit(bcm.datasets.eval_log(), priors={"sd": bcm.priors.HalfNormal(1.0)})
    with pytest.raises(TypeError, match="unknown keyword argument 'tunes'"):
        bcm.fit(bcm.datasets.eval_log(), tunes=10)
