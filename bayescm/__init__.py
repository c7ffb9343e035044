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

import bayescm.accessor  # noqa: F401  (registers the idata.bcm accessor on xarray.DataTree)
from bayescm import _compat, metrics, priors
from bayescm._version import __version__
from bayescm.analyses.predictive import posterior_predictive, prior_predictive
from bayescm.analyses.prevalence import with_prevalence
from bayescm.analyses.simulate import simulate, simulate_counts  # old module path: see _compat
from bayescm.analyses.summary import informedness, probability, summary
from bayescm.core import diagnostics, stats
from bayescm.core.config import rc_context, rcParams
from bayescm.core.confusion import ConfusionMatrix, EmptyMatrixWarning
from bayescm.core.container import load, save
from bayescm.core.scores import Scores
from bayescm.core.stats import HDI_PROB
from bayescm.io import datasets
from bayescm.metrics.base import Metric, list_metrics
from bayescm.models.build import build_model
from bayescm.models.fitting import fit, refit
from bayescm.priors import Beta, Dirichlet, Fixed, Flat, Haldane, Jeffreys, Laplace, Weak

_LAZY = {"app": "bayescm.app", "frequentist": "bayescm.analyses.frequentist",
         "plots": "bayescm.plots",
         "samplesize": "bayescm.analyses.samplesize", "spec": "bayescm.io.spec",
         "hierarchical": "bayescm.models.hierarchical"}
"""Submodules with heavier imports (matplotlib, PyMC) or their own namespace: loaded on use
(``app``, the web app, imports Panel only when a page is built or served)."""

_LAZY_NAMES = {
    "summarize_batch": "bayescm.analyses.batch",
    "curve_bands": "bayescm.analyses.curves",
    "sroc_regions": "bayescm.analyses.sroc",
    "prior_sensitivity": "bayescm.analyses.sensitivity",
    "leaderboard": "bayescm.comparisons.leaderboard",
    "prob_superior": "bayescm.comparisons.superiority",
    "rank_probabilities": "bayescm.comparisons.ranks",
    "compare_paired": "bayescm.comparisons.paired",
    "compare_paired_counts": "bayescm.comparisons.paired",
    "comparison_table": "bayescm.comparisons.paired",
    "fairness_table": "bayescm.comparisons.groups", "group_gaps": "bayescm.comparisons.groups",
    "unpooled_fit": "bayescm.comparisons.groups",
    "load_spec": "bayescm.io.spec",
    "cells_from_metrics": "bayescm.priors.elicit", "priors_from_matrix": "bayescm.priors.elicit",
    "priors_from_metrics": "bayescm.priors.elicit",
}
"""Public functions whose modules load on first use, to keep ``import bayescm`` light."""
_compat.install()  # old module paths (bayescm.fitting, bayescm.compare, ...) warn once


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return import_module(_LAZY[name])
    if name in _LAZY_NAMES:
        value = getattr(import_module(_LAZY_NAMES[name]), name)
        globals()[name] = value  # later look-ups skip this hook
        return value
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
    "curve_bands",
    "datasets",
    "diagnostics",
    "fairness_table",
    "fit",
    "refit",
    "frequentist",
    "group_gaps",
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
    "rcParams",
    "rc_context",
    "priors",
    "priors_from_matrix",
    "priors_from_metrics",
    "prob_superior",
    "probability",
    "samplesize",
    "save",
    "simulate",
    "simulate_counts",
    "sroc_regions",
    "stats",
    "summarize_batch",
    "summary",
    "unpooled_fit",
    "with_prevalence",
]
