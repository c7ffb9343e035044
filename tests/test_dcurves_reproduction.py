"""The dcurves tutorials' cohort (df_binary) reproduced: point values and posterior means.

``tests/data/dcurves_net_benefit.csv`` holds the net benefits R ``dcurves`` computed for
``cancer ~ famhistory`` and ``cancer ~ cancerpredmarker`` on ``df_binary`` at 0.01, ..., 0.99
(the benchmark tables of the Python ``dcurves`` package: ``r_case1_results.csv`` and
``r_bin_dca_result_1.csv`` of github.com/MSKCC-Epi-Bio/dcurves).
"""

from pathlib import Path

import numpy as np
import pytest

import bayescm as bcm
from bayescm.analyses.decision_draws import DEFAULT_THRESHOLDS
from bayescm.core.csvtable import read_csv
from bayescm.models.roc_dp import CONCENTRATION


@pytest.fixture(scope="module")
def published() -> dict[str, np.ndarray]:
    table = read_csv(Path(__file__).parent / "data" / "dcurves_net_benefit.csv")
    return {name: np.array(table.texts(name), dtype=float) for name in table.header}


@pytest.fixture(scope="module")
def data() -> bcm.Scores:
    return bcm.datasets.dcurves_binary()


@pytest.fixture(scope="module", params=["dirichlet_process", "bootstrap"])
def nb(request: pytest.FixtureRequest, data: bcm.Scores):
    return bcm.net_benefit(bcm.fit(data, method=request.param, random_seed=3))


def test_the_packaged_cohort_is_dcurves_df_binary(data: bcm.Scores) -> None:
    assert (data.n, data.n_pos) == (750, 105)
    assert int(data.scores["famhistory"].sum()) == 115
    assert bcm.datasets.load("dcurves_binary") == data


def test_the_grid_and_the_point_values_are_the_published_ones(
        nb, published: dict[str, np.ndarray]) -> None:
    """Same grid (0.01-0.99, both ends), same convention (risk >= t), same numbers."""
    np.testing.assert_allclose(published["threshold"], DEFAULT_THRESHOLDS)
    observed = nb["observed_metrics"]
    np.testing.assert_allclose(observed["threshold"].values, published["threshold"])
    for name in ("famhistory", "cancerpredmarker"):
        np.testing.assert_allclose(observed["net_benefit"].sel(system=name).values,
                                   published[name], rtol=0, atol=1e-12)
    np.testing.assert_allclose(observed["treat_all"].values, published["treat_all"],
                               rtol=0, atol=1e-12)


def test_the_posterior_mean_is_the_published_net_benefit_within_monte_carlo_error(
        nb, data: bcm.Scores, published: dict[str, np.ndarray]) -> None:
    """At every threshold of the grid, for both risks.

    Bootstrap weights (Dirichlet(1, ..., 1)) have the point value as their mean; the default
    Dirichlet process adds c/2 of a prior item of each class above every risk and as much below
    (c its concentration), which moves the mean by exactly c ((1/2 - 2 TP/N) - (1/2 - 2 FP/N)
    t/(1-t)) / (N + 2c) (decisions.md): the mean must be the published value plus that shift
    within 4.5 Monte-Carlo standard errors (4,000 independent draws; 198 comparisons).
    """
    t = DEFAULT_THRESHOLDS
    odds, c = t / (1 - t), CONCENTRATION
    default = not nb.attrs["source"].endswith("(bayesian_bootstrap)")
    draws = nb["posterior"]["net_benefit"]
    for name in ("famhistory", "cancerpredmarker"):
        values = draws.sel(system=name).values.reshape(-1, t.size)
        mcse = values.std(axis=0) / np.sqrt(values.shape[0])
        positive = data.scores[name][:, None] >= t
        tp, fp = (positive & data.y[:, None]).mean(axis=0), (positive & ~data.y[:, None]).mean(0)
        shift = c * ((0.5 - 2 * tp) - (0.5 - 2 * fp) * odds) / (data.n + 2 * c) if default else 0
        gap = np.abs(values.mean(axis=0) - published[name] - shift)
        assert np.all(gap <= 4.5 * mcse + 1e-12), (name, float(gap.max()))


def test_the_model_with_the_marker_is_useful_where_dcurves_says(nb) -> None:
    """The tutorial: cancerpredmarker beats both defaults from about 5 % to 35 %."""
    post = nb["posterior"]
    useful = post["p_useful"].sel(system="cancerpredmarker", threshold=[0.1, 0.2, 0.3]).values
    assert np.all(useful > 0.95)


def _newton_logistic(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Maximum-likelihood (a, b) of logit P(y = 1) = a + b x, by Newton's method (IRLS)."""
    design = np.column_stack([np.ones_like(x), x])
    beta = np.zeros(2)
    for _ in range(50):
        p = 1.0 / (1.0 + np.exp(-design @ beta))
        step = np.linalg.solve(design.T @ (design * (p * (1 - p))[:, None]),
                               design.T @ (y - p))
        beta += step
        if np.abs(step).max() < 1e-12:
            break
    return beta


@pytest.mark.slow  # a NUTS fit
def test_calibration_of_the_public_cohort_matches_maximum_likelihood(data: bcm.Scores) -> None:
    """The marker model's risks on df_binary: the posterior means of the calibration intercept
    and slope (weak priors, 750 men) lie within a third of a posterior sd of the
    maximum-likelihood logistic recalibration computed here by Newton's method."""
    import warnings

    risks = np.asarray(data.scores["cancerpredmarker"], dtype=float)
    only = bcm.Scores(data.y, {"cancerpredmarker": risks})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # exact 0/1 risks would be moved inward, with a warning
        fit = bcm.fit(only, method="calibration", random_seed=5)
    x = np.log(np.clip(risks, 1e-6, 1 - 1e-6) / (1 - np.clip(risks, 1e-6, 1 - 1e-6)))
    ml = _newton_logistic(np.asarray(data.y, dtype=float), x)
    post = fit["posterior"]
    for name, value in zip(("calibration_intercept", "calibration_slope"), ml, strict=True):
        draws = post[name].values.ravel()
        assert abs(draws.mean() - value) < draws.std() / 3, (name, draws.mean(), value)
    np.testing.assert_allclose(fit["observed_metrics"]["calibration_intercept"].values.ravel(),
                               ml[0], rtol=1e-4, atol=1e-6)
    np.testing.assert_allclose(fit["observed_metrics"]["calibration_slope"].values.ravel(),
                               ml[1], rtol=1e-4)
