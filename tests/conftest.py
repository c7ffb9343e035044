"""Shared fixtures: the paper's matrices and closed-form references."""

from __future__ import annotations

import csv
import os
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

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


def synthetic_items_fit(log: bcm.Items, chains: int = 2, draws: int = 150,
                        **options: Any) -> Any:
    """An items fit's tree assembled from NumPy draws around the truth (no NUTS).

    The draws go through the same summaries (:func:`~bayescm.models.items_density.
    summaries_of_draws`) and assembly (:func:`~bayescm.models.items_tree.items_tree`) as a
    fit's, so the tree has every variable of one: for tests of what reads a fit (the tree,
    pass@k, comparisons, figures, the ``eval`` command, the app) without sampling.
    """
    import warnings

    import xarray as xr

    from bayescm.models.context import FitContext
    from bayescm.models.items_build import scales_of
    from bayescm.models.items_density import Layout, summaries_of_draws
    from bayescm.models.items_tree import items_tree

    options.setdefault("random_seed", 0)
    ctx = FitContext.from_arguments(log, draws=draws, chains=chains, **options)
    layout = Layout(log.n_systems, log.n_items,
                    0 if log.cluster_index is None else log.n_clusters, scales_of(log))
    rng = np.random.default_rng(8)
    x = rng.normal(0, 0.3, (chains * draws, layout.ndim))
    x[:, :log.n_systems] += np.linspace(0.0, 0.8, log.n_systems)
    cl = log.cluster_index if log.cluster_index is not None else np.zeros(log.n_items, np.int64)
    out = summaries_of_draws(x, layout, cl)
    out = {k: v.reshape((chains, draws) + v.shape[1:]) for k, v in out.items()}
    stats = xr.Dataset({"diverging": (("chain", "draw"), np.zeros((chains, draws), bool))})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return items_tree(ctx, layout, out, stats, "numpy (test)", 0.95)


def synthetic_latent_fit(data: Any, chains: int = 2, draws: int = 150, **options: Any) -> Any:
    """A Hui-Walter or Dawid-Skene tree from NumPy draws near the EM estimates (no NUTS).

    See :func:`bayescm.models.latent_examples.tree_near_em`: the kind's own tree assembly, so
    the tree has every variable of a fit, for tests of what reads one without sampling.
    """
    from bayescm.models.latent_examples import tree_near_em

    return tree_near_em(data, chains=chains, draws=draws, **options)


class _Table(HTMLParser):
    """The cells of the first HTML table, row by row."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag: str, attrs: list) -> None:
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell).strip())
            self._cell = None

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def page_table(html: str) -> Any:
    """The first HTML table of an app pane as a DataFrame indexed by its first column."""
    import pandas as pd

    parser = _Table()
    parser.feed(html)
    header, *rows = parser.rows
    return pd.DataFrame(rows, columns=header).set_index(header[0])


def synthetic_pooled_fit(chains: int = 2, draws: int = 200) -> Any:
    """A hierarchical (pooled) result of six sites built from NumPy draws, without NUTS.

    The figures and argument checks need the layout of a pooled fit (per-site rates and
    metrics, the population's rows, counts), not its inference: the draws are Beta draws
    around each site's observed rates and the population rows are their averages.
    """
    from bayescm.models.context import FitContext
    from bayescm.models.hierarchical_build import sroc_draws
    from bayescm.models.pooled import pooled_result

    cells = {"a": (45, 5, 8, 92), "b": (30, 6, 12, 70), "c": (60, 4, 9, 120),
             "d": (18, 5, 3, 40), "e": (25, 2, 6, 55), "f": (9, 3, 2, 30)}
    sites = {k: bcm.ConfusionMatrix.from_counts(tp=tp, fn=fn, fp=fp, tn=tn)
             for k, (tp, fn, fp, tn) in cells.items()}
    ctx = FitContext.from_arguments(sites, model="hierarchical", draws=draws, chains=chains,
                                    random_seed=0)
    ctx.kind.group = "site"
    gen = np.random.default_rng(0)
    counts = np.array(list(cells.values()), dtype=float)
    tp, fn, fp, tn = counts.T
    shape = (chains, draws, len(cells))
    params = {"tpr": gen.beta(1 + tp, 1 + fn, shape), "tnr": gen.beta(1 + tn, 1 + fp, shape),
              "prevalence": gen.beta(1 + tp + fn, 1 + fp + tn, shape)}
    population = {f"{r}_{s}": ((), params[r].mean(axis=2) if s == "mean" else params[r][..., 0],
                               f"{r} ({s})") for r in ("tpr", "tnr") for s in ("mean", "new")}
    logits = {r: np.log(params[r] / (1 - params[r])) for r in ("tpr", "tnr")}
    for r in ("tpr", "tnr"):
        population[f"mu_logit_{r}"] = ((), logits[r].mean(axis=2), f"mean logit {r}")
        population[f"sd_logit_{r}"] = ((), logits[r].std(axis=2), f"sd of logit {r}")
    population["corr_logit"] = ((), np.full((chains, draws), -0.3), "correlation")
    grid = np.linspace(0.0, 1.0, 101)
    flat = {k: population[k][1].reshape(-1) for k in ("mu_logit_tpr", "mu_logit_tnr",
                                                     "sd_logit_tpr", "sd_logit_tnr")}
    curve = sroc_draws(flat["mu_logit_tpr"], flat["mu_logit_tnr"], flat["sd_logit_tpr"],
                       flat["sd_logit_tnr"], np.full(chains * draws, -0.3), grid)
    population["sroc"] = (("sroc_fpr",), curve.reshape(chains, draws, -1), "summary ROC")
    return pooled_result(ctx, "site", params, population, method="nuts",
                         coords={"sroc_fpr": grid}, **ctx.seed_record())
