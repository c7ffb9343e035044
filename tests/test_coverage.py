"""Coverage of the default priors on simulated classifiers (issue 11; slow).

The full grid lives in ``benchmarks/coverage_study.py`` (table in ``benchmarks/coverage_table.md``);
this runs its corners. With 200 simulated test sets a coverage estimate has a standard error of
about 0.015, so the bounds allow two and a half of them around the 0.90-0.98 target.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import coverage_study as grid

pytestmark = [pytest.mark.slow,
              pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")]


@pytest.mark.parametrize(("k", "acc"), [(2, 0.6), (2, 0.95), (5, 0.8), (20, 0.6), (20, 0.95)])
def test_default_multiclass_prior_covers(k, acc):
    cov = grid.coverage(k, acc, grid.class_sizes(k, 20), "default", reps=200, seed=k * 1000 + 20)
    for metric, value in cov.items():
        assert 0.865 <= value <= 0.99, (k, acc, metric, value)


def test_flat_dirichlet_fails_where_the_issue_found_it():
    cov = grid.coverage(10, 0.95, grid.class_sizes(10, 20), "flat", reps=100, seed=1)
    assert cov["acc"] < 0.2  # the reason the default changed


@pytest.mark.parametrize(("k", "acc"), [(2, 0.8), (10, 0.9)])
def test_default_paired_prior_covers_the_difference(k, acc):
    cov = grid.paired_coverage(k, acc, 50 * k, reps=120, seed=k)
    assert 0.865 <= cov <= 0.99, (k, acc, cov)
