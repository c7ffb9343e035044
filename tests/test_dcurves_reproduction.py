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
    Dirichlet process adds half a prior item of each class above every risk, which moves the mean
    by at most (1 + t/(1-t)) / (2 (N + 2)) (decisions.md): allowed on top of 4.5 Monte-Carlo
    standard errors (4,000 independent draws; 198 comparisons).
    """
    t = DEFAULT_THRESHOLDS
    prior = 0.0 if nb.attrs["source"].endswith("(bayesian_bootstrap)") else (
        (1 + t / (1 - t)) / (2 * (data.n + 2)))
    draws = nb["posterior"]["net_benefit"]
    for name in ("famhistory", "cancerpredmarker"):
        values = draws.sel(system=name).values.reshape(-1, t.size)
        mcse = values.std(axis=0) / np.sqrt(values.shape[0])
        gap = np.abs(values.mean(axis=0) - published[name])
        assert np.all(gap <= prior + 4.5 * mcse + 1e-12), (name, float(gap.max()))


def test_the_model_with_the_marker_is_useful_where_dcurves_says(nb) -> None:
    """The tutorial: cancerpredmarker beats both defaults from about 5 % to 35 %."""
    post = nb["posterior"]
    useful = post["p_useful"].sel(system="cancerpredmarker", threshold=[0.1, 0.2, 0.3]).values
    assert np.all(useful > 0.95)
