"""bayescm: honest uncertainty on classifier performance.

Turns a confusion matrix (or the labels, predictions or scores behind it) into the posterior
distribution of every metric, following Tötsch & Hoffmann (2021), as an ArviZ-schema DataTree.
The public names, by task:

**Data** (validated input objects): :class:`ConfusionMatrix`, :class:`Scores`, :class:`Items`
(an item-level evaluation log: clusters, repeated attempts, several systems),
:class:`StratifiedSample` (a stratified audit), :class:`TestResults` (several binary tests
without a gold standard: the Hui-Walter model), :class:`Ratings` (categorical ratings by
several raters without a gold standard: the Dawid-Skene model).

**Fitting and results**: :func:`fit` (the posterior of every metric), :func:`refit` (redraw or
extend a result from its attributes), :func:`build_model` (the PyMC model), :func:`save`,
:func:`load`.

**Reading a result**: :func:`summary`, :func:`probability`, :func:`informedness`,
:func:`with_prevalence` (another deployment's prevalence), :func:`posterior_predictive`,
:func:`summarize_batch` (summaries of many matrices in bounded memory), :func:`pass_at_k`
(pass@k of an items fit).

**Decisions**: :func:`net_benefit` (decision curves with P(useful) and EVPI),
:func:`expected_cost` (the expected cost per case at given costs and prevalence),
:func:`cost_curve` (Drummond & Holte's cost curves over the cost ratio or the prevalence).

**Rates seen through an imperfect test or judge**: :func:`true_prevalence` (a true prevalence
from a test's apparent count), :func:`judged_accuracy` (systems' true accuracies from an
automated judge's pass counts and its calibration set), :func:`true_shares` (true class
shares behind a K-class classifier's predicted counts).

**Comparing classifiers**: :func:`prob_superior`, :func:`rank_probabilities`,
:func:`compare_paired` (two classifiers on one test set), :func:`leaderboard`.

**Priors** (the common ones; every prior is in :mod:`bcm.priors <bayescm.priors>`):
:class:`Beta`, :class:`Dirichlet`, :class:`Fixed`.

**Settings**: :data:`rcParams`, :func:`rc_context`.

**Namespaces**: ``bcm.priors`` (every prior, elicitation), ``bcm.metrics`` (the catalogues,
custom metrics), ``bcm.plots``, ``bcm.samplesize`` (planning), ``bcm.datasets``,
``bcm.spec`` (analysis specifications), ``bcm.errors`` (every warning and error class),
``bcm.compare`` (every comparison: paired tables, group gaps, fairness), ``bcm.analyses``
(predictive checks, prior sensitivity, curve bands, SROC regions, simulation, frequentist
intervals), ``bcm.stats`` (HDI, R-hat, ESS on your own draws); ``bcm.app`` is the web app.

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
from bayescm import errors, metrics, priors
from bayescm._version import __version__
from bayescm.analyses.predictive import posterior_predictive
from bayescm.analyses.prevalence import with_prevalence
from bayescm.analyses.summary import informedness, probability, summary
from bayescm.core.config import rc_context, rcParams
from bayescm.core.confusion import ConfusionMatrix
from bayescm.core.container import load, save
from bayescm.core.deprecation import warn_deprecated
from bayescm.core.items import Items
from bayescm.core.latent import TestResults
from bayescm.core.ratings import Ratings
from bayescm.core.scores import Scores
from bayescm.core.stratified import StratifiedSample
from bayescm.io import datasets
from bayescm.models.build import build_model
from bayescm.models.fitting import fit, refit
from bayescm.priors.beta import Beta
from bayescm.priors.dirichlet import Dirichlet
from bayescm.priors.fixed import Fixed

_LAZY = {"app": "bayescm.app", "plots": "bayescm.plots", "samplesize":
         "bayescm.analyses.samplesize", "spec": "bayescm.io.spec", "compare":
         "bayescm.comparisons", "analyses": "bayescm.analyses", "stats": "bayescm.stats",
         "hierarchical": "bayescm.models.hierarchical"}
"""Namespaces with heavier imports (matplotlib, PyMC, Panel) or their own pages: loaded on use
(``app``, the web app, imports Panel only when a page is built or served)."""

_LAZY_NAMES = {
    "summarize_batch": "bayescm.analyses.batch",
    "pass_at_k": "bayescm.analyses.passk",
    "leaderboard": "bayescm.comparisons.leaderboard",
    "prob_superior": "bayescm.comparisons.superiority",
    "rank_probabilities": "bayescm.comparisons.ranks",
    "compare_paired": "bayescm.comparisons.paired",
    "net_benefit": "bayescm.analyses.decision",
    "expected_cost": "bayescm.analyses.cost",
    "cost_curve": "bayescm.analyses.cost",
    "true_prevalence": "bayescm.models.corrected_fit",
    "judged_accuracy": "bayescm.models.corrected_fit",
    "true_shares": "bayescm.models.corrected_shares",
}
"""Public functions whose modules load on first use, to keep ``import bayescm`` light."""

_MOVED = {
    # name: (where it lives now, its name there, how to spell it now)
    "Laplace": ("bayescm.priors.presets", "Laplace", "bcm.priors.Laplace (or prior='laplace')"),
    "Jeffreys": ("bayescm.priors.presets", "Jeffreys",
                 "bcm.priors.Jeffreys (or prior='jeffreys')"),
    "Haldane": ("bayescm.priors.presets", "Haldane", "bcm.priors.Haldane (or prior='haldane')"),
    "Weak": ("bayescm.priors.presets", "Weak", "bcm.priors.Weak (or prior='weak')"),
    "Flat": ("bayescm.priors.presets", "Flat", "bcm.priors.Flat (or prior='flat')"),
    "EmptyMatrixWarning": ("bayescm.errors", "EmptyMatrixWarning",
                           "bcm.errors.EmptyMatrixWarning"),
    "HDI_PROB": ("bayescm.core.stats", "HDI_PROB", "bcm.rcParams['stats.hdi_prob']"),
    "Metric": ("bayescm.metrics.metric", "Metric", "bcm.metrics.Metric"),
    "list_metrics": ("bayescm.metrics.catalogue", "list_metrics", "bcm.metrics.list_metrics"),
    "cells_from_metrics": ("bayescm.priors.elicit", "cells_from_metrics",
                           "bcm.priors.cells_from_metrics"),
    "priors_from_matrix": ("bayescm.priors.elicit", "priors_from_matrix",
                           "bcm.priors.priors_from_matrix"),
    "priors_from_metrics": ("bayescm.priors.elicit", "priors_from_metrics",
                            "bcm.priors.priors_from_metrics"),
    "compare_paired_counts": ("bayescm.comparisons.paired", "compare_paired_counts",
                              "bcm.compare.compare_paired_counts"),
    "comparison_table": ("bayescm.comparisons.paired", "comparison_table",
                         "bcm.compare.comparison_table"),
    "fairness_table": ("bayescm.comparisons.groups", "fairness_table",
                       "bcm.compare.fairness_table"),
    "group_gaps": ("bayescm.comparisons.groups", "group_gaps", "bcm.compare.group_gaps"),
    "unpooled_fit": ("bayescm.comparisons.groups", "unpooled_fit", "bcm.compare.unpooled_fit"),
    "curve_bands": ("bayescm.analyses.curves", "curve_bands", "bcm.analyses.curve_bands"),
    "sroc_regions": ("bayescm.analyses.sroc", "sroc_regions", "bcm.analyses.sroc_regions"),
    "prior_sensitivity": ("bayescm.analyses.sensitivity", "prior_sensitivity",
                          "bcm.analyses.prior_sensitivity"),
    "prior_predictive": ("bayescm.analyses.predictive", "prior_predictive",
                         "bcm.analyses.prior_predictive"),
    "simulate": ("bayescm.analyses.simulation", "simulate", "bcm.analyses.simulate"),
    "simulate_counts": ("bayescm.analyses.simulation", "simulate_counts",
                        "bcm.analyses.simulate_counts"),
    "load_spec": ("bayescm.io.spec", "load_spec", "bcm.spec.load_spec"),
    "frequentist": ("bayescm.analyses", "frequentist", "bcm.analyses.frequentist"),
    "diagnostics": ("bayescm.core", "diagnostics", "bcm.stats (rhat, ess)"),
}
"""Names that left the top level in the reorganisation after 0.1.0 (issue 29): they keep working for
one release with a DeprecationWarning that names the new spelling (listed in CHANGELOG.md)."""


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return import_module(_LAZY[name])
    if name in _LAZY_NAMES:
        value = getattr(import_module(_LAZY_NAMES[name]), name)
        globals()[name] = value  # later look-ups skip this hook
        return value
    if name in _MOVED:
        module, attr, spelling = _MOVED[name]
        warn_deprecated(f"bcm.{name}", spelling)
        return getattr(import_module(module), attr)
    raise AttributeError(f"module 'bayescm' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    # data
    "ConfusionMatrix", "Scores", "Items", "StratifiedSample", "TestResults", "Ratings",
    # fitting and results
    "fit", "refit", "build_model", "load", "save",
    # reading a result
    "summary", "probability", "informedness", "with_prevalence", "posterior_predictive",
    "summarize_batch", "pass_at_k",
    # decisions
    "net_benefit", "expected_cost", "cost_curve",
    # rates seen through an imperfect test or judge
    "true_prevalence", "judged_accuracy", "true_shares",
    # comparing classifiers
    "prob_superior", "rank_probabilities", "compare_paired", "leaderboard",
    # the common priors
    "Beta", "Dirichlet", "Fixed",
    # settings
    "rcParams", "rc_context",
    # namespaces
    "priors", "metrics", "plots", "samplesize", "datasets", "spec", "errors", "compare",
    "analyses", "stats",
    "__version__",
]
