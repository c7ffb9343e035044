"""Calibration of risks (method="calibration"): the PyMC recalibration model against maximum
likelihood, its result, and its errors."""

from types import SimpleNamespace

import numpy as np
import pytest
from scipy import special

import bayescm as bcm
from bayescm.models.risk_calibration import calibration_refit, logistic_recalibration

N = 600
TRUE_A, TRUE_B = -0.5, 0.6


@pytest.fixture(scope="module")
def data() -> bcm.Scores:
    rng = np.random.default_rng(7)
    risk = rng.beta(2, 5, size=N)
    # the risks are too extreme (slope 0.6) and too high (intercept -0.5)
    y = rng.random(N) < special.expit(TRUE_A + TRUE_B * special.logit(risk))
    return bcm.Scores(y, {"A": risk, "B": np.clip(risk * 0.5, 0, 1)})


@pytest.fixture(scope="module")
def fit(data: bcm.Scores):
    return bcm.fit(data, method="calibration", draws=1000, chains=2, tune=500, random_seed=3)


def test_maximum_likelihood_matches_statsmodels(data: bcm.Scores) -> None:
    import statsmodels.api as sm

    x = special.logit(data.scores["A"])
    ref = sm.Logit(data.y.astype(float), sm.add_constant(x)).fit(disp=0).params
    np.testing.assert_allclose(logistic_recalibration(data.y.astype(float), x), ref, rtol=1e-6)


@pytest.mark.slow  # a NUTS fit
def test_posterior_agrees_with_maximum_likelihood(fit) -> None:
    post, ml = fit["posterior"], fit["observed_metrics"]
    for name in ("calibration_intercept", "calibration_slope"):
        draws = post[name].transpose("chain", "draw", "classifier").values.reshape(-1, 2)
        # weak priors, 600 items: the posterior mean sits within a third of a posterior sd
        gap = np.abs(draws.mean(axis=0) - ml[name].values)
        assert np.all(gap < draws.std(axis=0) / 3), (name, gap)
    slope = post["calibration_slope"].sel(classifier="A").values.ravel()
    lo, hi = np.quantile(slope, [0.025, 0.975])
    assert lo < TRUE_B < hi and hi < 1  # the truth covered, and "too extreme" is visible
    assert float(fit["diagnostics"]["calibration_slope"].sel(diagnostic="r_hat").max()) < 1.01


@pytest.mark.slow  # a NUTS fit
def test_the_result_holds_the_curve_and_reads_back(fit, data: bcm.Scores) -> None:
    post = fit["posterior"]
    assert post["calibration_curve"].dims == ("chain", "draw", "classifier", "risk")
    a = post["calibration_intercept"].values[..., None]
    b = post["calibration_slope"].values[..., None]
    grid = post["risk"].values
    np.testing.assert_allclose(post["calibration_curve"].values,
                               special.expit(a + b * special.logit(grid)))
    table = bcm.summary(fit)
    assert not any("calibration_curve" in str(i) for i in table.index)
    stub = SimpleNamespace(priors={"calibration_slope": bcm.priors.Normal(1, 2)})
    again, options, priors = calibration_refit(stub, fit)  # type: ignore[arg-type]
    assert again.names == data.names and options == {} and priors == stub.priors
    np.testing.assert_array_equal(again.y, data.y)
    with pytest.raises(ValueError, match="nonparametric"):
        bcm.net_benefit(fit)
    with pytest.raises(ValueError, match="TPR, TNR"):
        bcm.expected_cost(fit, cost_fp=1, cost_fn=1)


def test_bad_input_is_refused() -> None:
    y = np.array([1, 0, 1, 0, 1, 0])
    with pytest.raises(ValueError, match="risks"):
        bcm.fit(bcm.Scores(y, [2.0, 0.1, 0.5, 0.2, 0.3, 0.1]), method="calibration")
    with pytest.raises(ValueError, match="two classes"):
        bcm.fit(bcm.Scores([1, 1, 1], [0.2, 0.5, 0.9], positive=1), method="calibration")
    with pytest.raises(TypeError, match="threshold"):
        bcm.fit(bcm.Scores(y, [0.9, 0.1, 0.5, 0.2, 0.3, 0.1]), method="calibration",
                threshold=0.3)
    with pytest.raises(TypeError, match="calibration_slope"):
        bcm.fit(bcm.Scores(y, [0.9, 0.1, 0.5, 0.2, 0.3, 0.1]), method="calibration",
                priors={"slope": bcm.priors.Normal(1, 1)})


def test_the_written_out_density_is_the_pymc_models(data: bcm.Scores) -> None:
    """Same log density (up to a constant) and gradient as the PyMC model, at several points."""
    from bayescm.models.risk_calibration import _logits, build_calibration_model, default_priors
    from bayescm.models.risk_calibration_density import CalibrationDensity

    model = build_calibration_model(data)
    logp = model.compile_logp()
    dlogp = model.compile_dlogp()
    dens = CalibrationDensity(data.y, _logits(data), default_priors())
    rng = np.random.default_rng(0)
    gaps = []
    for _ in range(4):
        x = rng.normal(0, 0.5, 4) + np.array([0, 0, 1, 1])
        point = {"calibration_intercept": x[:2], "calibration_slope": x[2:]}
        lp, grad = dens.logp(x)
        gaps.append(lp - float(logp(point)))
        np.testing.assert_allclose(grad, dlogp(point), rtol=1e-9, atol=1e-8)
    np.testing.assert_allclose(gaps, gaps[0], atol=1e-8)  # a constant apart


def test_the_written_out_density_with_a_spline_is_the_pymc_models(data: bcm.Scores) -> None:
    from bayescm.models.risk_calibration import _build, _logits, default_priors
    from bayescm.models.risk_calibration_density import CalibrationDensity
    from bayescm.models.risk_calibration_spline import knot_positions, spline_basis

    logits = _logits(data)
    basis = np.stack([spline_basis(row, knot_positions(row, 4)) for row in logits])
    model = _build(data, logits, default_priors(), basis)
    logp, dlogp = model.compile_logp(), model.compile_dlogp()
    dens = CalibrationDensity(data.y, logits, default_priors(), basis)
    rng = np.random.default_rng(1)
    gaps = []
    for _ in range(3):
        x = rng.normal(0, 0.5, 8) + np.array([0, 0, 1, 1, 0, 0, 0, 0])
        point = {"calibration_intercept": x[:2], "calibration_slope": x[2:4],
                 "calibration_spline": x[4:].reshape(2, 2)}
        lp, grad = dens.logp(x)
        gaps.append(lp - float(logp(point)))
        np.testing.assert_allclose(grad, dlogp(point), rtol=1e-9, atol=1e-8)
    np.testing.assert_allclose(gaps, gaps[0], atol=1e-8)


@pytest.mark.slow  # two NUTS fits
def test_nutpie_on_the_written_density_agrees_with_pymcs_nuts(data: bcm.Scores) -> None:
    one = bcm.Scores(data.y, data.scores["A"])
    fast = bcm.fit(one, method="calibration", draws=1000, chains=2, random_seed=3)
    slow = bcm.fit(one, method="calibration", draws=1000, chains=2, random_seed=3,
                   nuts_sampler="pymc")
    assert fast.attrs["nuts_sampler"] == "nutpie (written-out density)"
    assert slow.attrs["nuts_sampler"] == "pymc"
    for name in ("calibration_intercept", "calibration_slope"):
        f, s = fast["posterior"][name].values, slow["posterior"][name].values
        assert abs(f.mean() - s.mean()) < 0.15 * s.std() and abs(f.std() / s.std() - 1) < 0.15


@pytest.mark.slow  # 24 NUTS fits (about 10 s with nutpie)
@pytest.mark.parametrize(("a", "b"), [(0.5, 0.6), (-0.5, 1.4)])
def test_intercept_and_slope_hdis_cover_the_truth_of_miscalibrated_risks(a: float, b: float
                                                                         ) -> None:
    """benchmarks/calibration_study.py --recalibration at small scale: 12 data sets of 400 items
    per scenario; 95 % HDIs should miss about 0.6 of 12, and 3 misses or more has probability
    0.02 for a calibrated interval."""
    rng = np.random.default_rng(int(10 * b + a * 4 + 100))
    misses = np.zeros(2, int)
    for _ in range(12):
        s = rng.beta(2, 3, 400)
        y = rng.random(400) < special.expit(a + b * special.logit(s))
        post = bcm.fit(bcm.Scores(y, s), method="calibration", draws=500, chains=2,
                       random_seed=int(rng.integers(2**31)))["posterior"]
        for k, (name, truth) in enumerate((("calibration_intercept", a),
                                           ("calibration_slope", b))):
            lo, hi = np.quantile(post[name].values, [0.025, 0.975])
            misses[k] += not lo <= truth <= hi
    assert np.all(misses <= 2), misses


def test_the_restricted_cubic_spline_is_linear_beyond_its_outer_knots() -> None:
    from bayescm.models.risk_calibration_spline import check_knots, knot_positions, spline_basis

    x = np.random.default_rng(0).normal(size=500)
    for k in range(3, 8):
        t = knot_positions(x, k)
        basis = spline_basis(np.linspace(t[-1], t[-1] + 4, 9), t)
        np.testing.assert_allclose(np.diff(basis, n=2, axis=0), 0, atol=1e-9)  # linear right
        np.testing.assert_allclose(spline_basis(np.linspace(t[0] - 4, t[0], 9), t), 0,
                                   atol=1e-12)  # zero left of the first knot
        assert basis.shape[-1] == k - 2
    for bad in (2, 8, 4.0, True):
        with pytest.raises(ValueError, match="knots= takes 3 to 7 knots"):
            check_knots(bad)
    with pytest.raises(ValueError, match="too few distinct values"):
        knot_positions(np.repeat([0.0, 1.0], 50), 5)


@pytest.mark.slow  # a NUTS fit of the PyMC model (about 15 s)
def test_a_spline_follows_a_miscalibration_the_logistic_curve_cannot(tmp_path) -> None:
    """True curve expit(x + 0.8 exp(-(x + 1)^2)): a bump on the logit scale."""
    rng = np.random.default_rng(1)
    risk = rng.beta(2, 5, 2000)
    x = special.logit(risk)
    y = rng.random(2000) < special.expit(x + 0.8 * np.exp(-(x + 1) ** 2))
    data = bcm.Scores(y, risk)
    smooth = bcm.fit(data, method="calibration", knots=4, draws=500, chains=2, random_seed=2)
    plain = bcm.fit(data, method="calibration", draws=500, chains=2, random_seed=2)
    grid = smooth["posterior"]["risk"].values[:60]  # where the risks are (Beta(2, 5))
    g = special.logit(grid)
    truth = special.expit(g + 0.8 * np.exp(-(g + 1) ** 2))

    def gap(fit) -> float:
        mean = fit["posterior"]["calibration_curve"].mean(("chain", "draw")).values[:60]
        return float(np.abs(mean - truth).max())

    assert gap(smooth) < 0.04 < gap(plain)
    assert smooth.attrs["nuts_sampler"] == "nutpie (written-out density)"
    assert smooth["posterior"]["calibration_spline"].dims == ("chain", "draw", "spline_term")
    back = bcm.load(bcm.save(smooth, tmp_path / "smooth.nc"))
    assert len(back.attrs["knots"]) > 0 and "calibration_spline" in back["posterior"]


@pytest.mark.slow  # two NUTS fits (nutpie, a few seconds)
def test_refit_of_a_calibration_fit_keeps_its_knots_and_repeats_its_draws() -> None:
    """bcm.refit read a confusion matrix the calibration fit does not store (a KeyError)."""
    rng = np.random.default_rng(0)
    risk = rng.beta(2, 5, 300)
    fit = bcm.fit(bcm.Scores(rng.random(300) < risk, risk), method="calibration", knots=3,
                  draws=200, chains=2, random_seed=1)
    again = bcm.refit(fit, draws=200, random_seed=1)
    assert again.attrs["knots"] == fit.attrs["knots"]
    np.testing.assert_allclose(again["posterior"]["calibration_spline"].values,
                               fit["posterior"]["calibration_spline"].values)
