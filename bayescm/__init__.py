"""bayescm: honest uncertainty on classifier performance.

Turns a confusion matrix (or the labels and predictions behind it) into the posterior
distribution of every metric, following Tötsch & Hoffmann (2021), as an ArviZ-schema DataTree.

Examples
--------
>>> import bayescm as bcm
>>> cm = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
>>> idata = bcm.fit(cm, random_seed=1)
>>> sorted(idata.children)[:3]
['diagnostics', 'observed_data', 'observed_metrics']
"""

from importlib import import_module
from typing import Any

from . import datasets, diagnostics, metrics, priors, stats
from ._container import load, save
from ._version import __version__
from .batch import summarize_batch
from .compare import leaderboard, prob_superior, rank_probabilities
from .confusion import ConfusionMatrix, EmptyMatrixWarning
from .elicit import cells_from_metrics, priors_from_matrix, priors_from_metrics
from .fitting import fit
from .metrics import Metric, list_metrics
from .model import build_model
from .paired import compare_paired, compare_paired_counts, comparison_table
from .predictive import posterior_predictive, prior_predictive
from .prevalence import with_prevalence
from .priors import Beta, Dirichlet, Fixed, Flat, Haldane, Jeffreys, Laplace, Weak
from .scores import Scores
from .sensitivity import prior_sensitivity
from .simulate import simulate, simulate_counts
from .spec import load_spec
from .stats import HDI_PROB
from .summary import informedness, probability, summary

# Submodules with heavier imports (matplotlib) or their own namespace load on first use.
_LAZY = ("frequentist", "plots", "samplesize", "spec")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return import_module(f".{name}", __name__)
    raise AttributeError(f"module 'bayescm' has no attribute {name!r}")


__all__ = [
    "Beta",
    "ConfusionMatrix",
    "Dirichlet",
    "EmptyMatrixWarning",
    "Fixed",
    "Flat",
    "HDI_PROB",
    "Haldane",
    "Jeffreys",
    "Laplace",
    "Metric",
    "Scores",
    "Weak",
    "__version__",
    "build_model",
    "cells_from_metrics",
    "compare_paired",
    "compare_paired_counts",
    "comparison_table",
    "datasets",
    "diagnostics",
    "fit",
    "frequentist",
    "informedness",
    "leaderboard",
    "list_metrics",
    "load",
    "load_spec",
    "metrics",
    "plots",
    "posterior_predictive",
    "prior_predictive",
    "prior_sensitivity",
    "rank_probabilities",
    "priors",
    "priors_from_matrix",
    "priors_from_metrics",
    "prob_superior",
    "probability",
    "samplesize",
    "save",
    "simulate",
    "simulate_counts",
    "stats",
    "summarize_batch",
    "summary",
    "with_prevalence",
]
