"""Coverage and calibration of the corrected rates over simulated data sets (issue 31; slow).

For each scenario, 200 data sets are simulated from fixed true values (the apparent count and
the validation or calibration matrix both drawn from the test's true rates); the 95 % HDI of
the true rate must cover the truth in 95 % of them, within three Monte-Carlo standard errors
(``3 * sqrt(0.95 * 0.05 / 200) = 0.046``). Simulation-based calibration draws the true values
from the priors instead: the truth's rank among the posterior draws must be uniform. The
studies are ``benchmarks/exact_coverage.py``'s, whose table holds the numbers the corrected
page quotes (its SBC run is twice this one's size).
"""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from exact_coverage import corrected_coverage, corrected_sbc

SETS = 200
BOUND = 3 * np.sqrt(0.95 * 0.05 / SETS)


@pytest.mark.slow
@pytest.mark.parametrize(("truth", "n", "tpr", "tnr", "pos", "neg", "judged"), [
    pytest.param(0.02, 2000, 0.9, 0.98, 100, 400, False, id="rare-disease"),
    pytest.param(0.6, 500, 0.7, 0.7, 120, 80, True, id="judge-0.70"),
    pytest.param(0.6, 500, 0.95, 0.95, 120, 80, True, id="judge-0.95"),
])
def test_the_95_hdi_covers_the_true_rate(truth, n, tpr, tnr, pos, neg, judged) -> None:
    coverage = corrected_coverage(truth, n, tpr, tnr, pos, neg, judged, seed=31, sets=SETS)
    assert abs(coverage - 0.95) <= BOUND, coverage


@pytest.mark.slow
def test_simulation_based_calibration_of_the_exact_draws() -> None:
    """SBC: true values drawn from the priors; the truth's rank among the draws is uniform."""
    for name, r in corrected_sbc(sets=SETS, seed=5, draws=100, chains=4).items():
        assert r["p"] > 0.001, (name, r["histogram"])
