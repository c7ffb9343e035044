"""Decision curves (bcm.net_benefit): the fit's own draws, closed forms, EVPI, bad input."""

import numpy as np
import pytest

import bayescm as bcm
from bayescm.analyses.decision import evpi
from bayescm.analyses.decision_draws import DEFAULT_THRESHOLDS
from bayescm.models.roc_dp import CONCENTRATION

N = 600


@pytest.fixture(scope="module")
def data() -> bcm.Scores:
    rng = np.random.default_rng(11)
    risk = rng.beta(2, 5, size=N)
    y = rng.random(N) < risk  # calibrated risks
    other = np.clip(risk + rng.normal(0, 0.15, size=N), 0, 1)
    return bcm.Scores(y, {"A": risk, "B": other})


@pytest.fixture(scope="module")
def fits(data: bcm.Scores) -> dict:
    return {m: bcm.fit(data, random_seed=5, method=m, draws=1000, threshold=0.2)
            for m in ("dirichlet_process", "bootstrap")}


def _point(y: np.ndarray, risk: np.ndarray, t: np.ndarray) -> dict:
    """Point net benefit from the items (the dcurves convention: positive when risk >= t)."""
    positive = risk[:, None] >= t[None, :]
    tp = (positive & y[:, None]).sum(axis=0)
    fp = (positive & ~y[:, None]).sum(axis=0)
    return {"tp": tp, "fp": fp, "nb": tp / y.size - fp / y.size * t / (1 - t)}


def _mc_error(draws: np.ndarray) -> np.ndarray:
    return draws.std(axis=(0, 1)) / np.sqrt(draws.shape[0] * draws.shape[1])


@pytest.mark.parametrize("method", ["dirichlet_process", "bootstrap"])
def test_every_draw_is_the_fits_own_draw(fits: dict, method: str) -> None:
    """At the fit's threshold NB is that of its stored TPR, TNR and prevalence, draw by draw."""
    fit = fits[method]
    nb = bcm.net_benefit(fit, thresholds=[0.1, 0.2, 0.4])["posterior"]
    post = fit["posterior"]
    prev, tpr, tnr = (post[v].transpose("chain", "draw", "classifier").values
                      for v in ("prevalence", "tpr", "tnr"))
    expected = prev * tpr - (1 - prev) * (1 - tnr) * 0.2 / 0.8
    got = nb["net_benefit"].sel(threshold=0.2).transpose("chain", "draw", "system").values
    np.testing.assert_allclose(got, expected, atol=2e-6)  # the fit's weights are float32


def test_bootstrap_posterior_mean_is_the_point_net_benefit(data: bcm.Scores, fits: dict) -> None:
    """Dirichlet(1, ..., 1) weights have mean 1/N each: E[NB(t)] is the point NB, every t."""
    nb = bcm.net_benefit(fits["bootstrap"])["posterior"]["net_benefit"]
    for k, name in enumerate(data.names):
        draws = nb.isel(system=k).values
        point = _point(data.y, data.scores[name], DEFAULT_THRESHOLDS)["nb"]
        gap = np.abs(draws.mean(axis=(0, 1)) - point)
        assert np.all(gap <= 4 * _mc_error(draws) + 1e-9), gap.max()


def test_default_posterior_mean_is_the_closed_form(data: bcm.Scores, fits: dict) -> None:
    """The Dirichlet process adds c/2 of an item (c its concentration) above every risk in each
    class, and as much below (its novel atoms): E[TP/N] = (TP + c/2) / (N + 2c) and E[FP/N] =
    (FP + c/2) / (N + 2c) exactly, so the posterior mean is the point net benefit moved by
    c ((1/2 - 2 TP/N) - (1/2 - 2 FP/N) t/(1-t)) / (N + 2c), plus MC error."""
    t = DEFAULT_THRESHOLDS
    odds, c = t / (1 - t), CONCENTRATION
    nb = bcm.net_benefit(fits["dirichlet_process"])["posterior"]["net_benefit"]
    for k, name in enumerate(data.names):
        draws = nb.isel(system=k).values
        mean, mc = draws.mean(axis=(0, 1)), _mc_error(draws)
        p = _point(data.y, data.scores[name], t)
        closed = (p["tp"] + c / 2) / (N + 2 * c) - (p["fp"] + c / 2) / (N + 2 * c) * odds
        assert np.all(np.abs(mean - closed) <= 4 * mc + 1e-9)
        shift = c * ((0.5 - 2 * p["tp"] / N) - (0.5 - 2 * p["fp"] / N) * odds) / (N + 2 * c)
        np.testing.assert_allclose(closed - p["nb"], shift, rtol=0, atol=1e-12)  # the page's


def test_treat_all_is_the_same_draws_prevalence(fits: dict) -> None:
    fit = fits["dirichlet_process"]
    post = bcm.net_benefit(fit)["posterior"]
    prev = fit["posterior"]["prevalence"].isel(classifier=0).values[..., None]
    t = post["threshold"].values
    np.testing.assert_allclose(post["treat_all"].values, prev - (1 - prev) * t / (1 - t),
                               atol=1e-5)
    std = post["standardized_net_benefit"].values
    np.testing.assert_allclose(std, post["net_benefit"].values / prev[:, :, None, :], rtol=1e-5)


def test_summaries_follow_their_definitions(fits: dict) -> None:
    post = bcm.net_benefit(fits["dirichlet_process"], thresholds=[0.05, 0.2, 0.5])["posterior"]
    nb, all_ = post["net_benefit"].values, post["treat_all"].values
    useful = (nb > np.maximum(all_, 0)[:, :, None, :]).mean(axis=(0, 1))
    np.testing.assert_allclose(post["p_useful"].values, useful)
    delta = post["delta_net_benefit"].sel(pair="B - A").values
    np.testing.assert_allclose(delta, nb[:, :, 1] - nb[:, :, 0])
    np.testing.assert_allclose(post["p_better"].sel(pair="B - A").values,
                               (delta > 0).mean(axis=(0, 1)))
    strategies = np.concatenate([nb, all_[:, :, None], np.zeros_like(all_)[:, :, None]], axis=2)
    flat = strategies.reshape(-1, 4, 3)
    expected = flat.max(axis=1).mean(axis=0) - flat.mean(axis=0).max(axis=0)
    np.testing.assert_allclose(post["evpi"].values, expected, atol=1e-12)
    assert np.all(post["evpi"].values >= 0)


def test_evpi_is_zero_when_one_strategy_dominates() -> None:
    """A model that separates the classes beats both defaults in every draw: nothing to learn."""
    rng = np.random.default_rng(3)
    y = rng.random(300) < 0.3
    risk = np.where(y, 0.995, 0.005)
    fit = bcm.fit(bcm.Scores(y, risk), method="bootstrap", random_seed=1, draws=500)
    post = bcm.net_benefit(fit)["posterior"]
    assert np.all(post["evpi"].values == 0)
    assert np.all(post["p_useful"].values == 1)
    draws = np.stack([[1.0, 0.5, 0.0], [0.0, 0.5, 1.0]])  # two strategies swap: EVPI > 0
    assert float(evpi(draws)) == pytest.approx(0.5)


def test_a_batch_keyed_by_threshold() -> None:
    cms = {"0.1": bcm.ConfusionMatrix.from_counts(tp=45, fn=5, tn=20, fp=30),
           "0.3": bcm.ConfusionMatrix.from_counts(tp=35, fn=15, tn=40, fp=10)}
    fit = bcm.fit(cms, random_seed=2, draws=500)
    out = bcm.net_benefit(fit)
    post, fitted = out["posterior"], fit["posterior"]
    assert post["threshold"].values.tolist() == [0.1, 0.3]
    assert out.attrs["coherent"] == 0
    for t in ("0.1", "0.3"):
        prev, tpr, tnr = (fitted[v].sel(classifier=t).values for v in ("prevalence", "tpr", "tnr"))
        odds = float(t) / (1 - float(t))
        np.testing.assert_allclose(post["net_benefit"].sel(system="A", threshold=float(t)),
                                   prev * tpr - (1 - prev) * (1 - tnr) * odds)
    with pytest.warns(bcm.errors.PrevalenceMismatchWarning):
        curated = bcm.fit(cms, priors={"prevalence": bcm.Fixed(0.2)}, random_seed=2, draws=200)
    fixed = bcm.net_benefit(curated)["posterior"]
    np.testing.assert_allclose(fixed["treat_all"].values,
                               np.broadcast_to(0.2 - 0.8 * np.array([1 / 9, 3 / 7]), (4, 200, 2)))
    tpr, tnr = (curated["posterior"][v].sel(classifier="0.3").values for v in ("tpr", "tnr"))
    np.testing.assert_allclose(fixed["net_benefit"].sel(system="A", threshold=0.3),
                               0.2 * tpr - 0.8 * (1 - tnr) * 3 / 7)
    with pytest.raises(ValueError, match="drop thresholds"):
        bcm.net_benefit(fit, thresholds=[0.1])
    named = bcm.fit({"old": cms["0.1"], "new": cms["0.3"]}, draws=10)
    with pytest.raises(ValueError, match="not numbers"):
        bcm.net_benefit(named)
    with pytest.raises(ValueError, match="keyed by threshold"):
        bcm.net_benefit(bcm.fit(cms["0.1"], draws=10))


@pytest.mark.parametrize("bad", [[0.0, 0.5], [0.5, 1.0], [-0.1], [np.nan], []])
def test_thresholds_outside_the_open_interval_are_refused(fits: dict, bad: list) -> None:
    with pytest.raises(ValueError, match="thresholds"):
        bcm.net_benefit(fits["bootstrap"], thresholds=bad)


def test_bad_fits_are_refused() -> None:
    rng = np.random.default_rng(0)
    y = rng.random(50) < 0.5
    logits = bcm.fit(bcm.Scores(y, rng.normal(size=50)), draws=10)
    with pytest.raises(ValueError, match="risks"):
        bcm.net_benefit(logits)
    parametric = logits.copy()
    parametric.attrs["method"] = "binormal"
    with pytest.raises(ValueError, match="nonparametric"):
        bcm.net_benefit(parametric)
    multiclass = bcm.fit(bcm.ConfusionMatrix(np.array([[50, 10, 10], [10, 50, 10], [10, 10, 50]])),
                         draws=10)
    with pytest.raises(ValueError, match="net_benefit needs"):
        bcm.net_benefit(multiclass)
    with pytest.raises(TypeError, match="unknown keyword"):
        bcm.net_benefit(logits, threshold=[0.5])  # type: ignore[call-arg]


def test_decision_results_are_checked_results_that_save_and_load(fits: dict, tmp_path) -> None:
    """They carry the fit's root attributes (model, method, seed): schema-valid, saved, read."""
    nb = bcm.net_benefit(fits["bootstrap"], thresholds=[0.1, 0.2])
    cost = bcm.expected_cost(fits["bootstrap"], cost_fp=1, cost_fn=4)
    for tree in (nb, cost, bcm.cost_curve(fits["bootstrap"], points=5)):
        assert tree.attrs["model"] == fits["bootstrap"].attrs["model"]
        back = bcm.load(bcm.save(tree, tmp_path / f"{tree.attrs['analysis']}.nc"))
        assert back.attrs["analysis"] == tree.attrs["analysis"]
    again = bcm.load(tmp_path / "net_benefit.nc")
    np.testing.assert_allclose(again["posterior"]["net_benefit"].values,
                               nb["posterior"]["net_benefit"].values)


def test_summary_of_a_decision_result_summarises_its_draws_and_names_the_rest(fits) -> None:
    nb = bcm.net_benefit(fits["bootstrap"], thresholds=[0.1, 0.2])
    table = bcm.summary(nb, var_names=["net_benefit"])
    assert "net_benefit[A, 0.1]" in table.index
    with pytest.raises(ValueError, match=r"'p_useful' has no draws .* var_names=\['net_benefit'"):
        bcm.summary(nb)
