"""Shared fixtures: the paper's matrices and closed-form references."""

from __future__ import annotations

import csv
import os
from pathlib import Path

import numpy as np
import pytest
from hypothesis import settings
from scipy import optimize, stats

import bayescm as bcm

# CI explores the same examples every run (a new edge case should be found locally, not make a
# submission's CI flaky); locally hypothesis keeps exploring with fresh random examples.
settings.register_profile("ci", derandomize=True, deadline=None)
if os.environ.get("CI"):
    settings.load_profile("ci")

DATA = Path(__file__).resolve().parents[1] / "bayescm" / "data"


def beta_hdi(a: float, b: float, prob: float = 0.95) -> tuple[float, float]:
    """Closed-form-based HDI of Beta(a, b): the narrowest interval with mass ``prob``."""
    dist = stats.beta(a, b)
    res = optimize.minimize_scalar(
        lambda p: dist.ppf(p + prob) - dist.ppf(p), bounds=(0.0, 1.0 - prob), method="bounded",
        options={"xatol": 1e-10},
    )
    return float(dist.ppf(res.x)), float(dist.ppf(res.x + prob))


@pytest.fixture
def cocaine() -> bcm.ConfusionMatrix:
    return bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)


@pytest.fixture(scope="session")
def table_s1() -> dict[str, dict[str, int]]:
    """Table S1 of the paper (24 literature classifiers), from the packaged copy."""
    with (DATA / "literature_table_s1.csv").open() as fh:
        rows = list(csv.DictReader(fh))
    return {r["id"]: {k: int(r[k]) for k in ("tp", "fn", "tn", "fp")} for r in rows}


def rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


@pytest.fixture(scope="session")
def small_hierarchical():
    """One short hierarchical fit shared by the fast tests (NUTS compiles once per session).

    Five AUDIT-C studies plus a tiny and an empty study (both prior-dominated), 2 x 200 draws
    after 300 tuning steps: enough to check shapes, flags and identities, not for inference.
    """
    import warnings

    from bayescm.io import datasets

    labels = ("unhealthy use", "no unhealthy use")
    studies = dict(list(datasets.load("auditc").items())[:5])
    studies["tiny"] = bcm.ConfusionMatrix.from_counts(tp=2, fn=0, fp=1, tn=3, labels=labels)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        studies["empty"] = bcm.ConfusionMatrix.from_counts(tp=0, fn=0, fp=0, tn=0,
                                                           labels=labels)
        return bcm.fit(studies, model="hierarchical", group="study", random_seed=1, draws=200,
                       tune=300, chains=2, nuts_sampler="pymc", cores=1, target_accept=0.9)
