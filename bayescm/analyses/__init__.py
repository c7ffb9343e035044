"""``bcm.analyses``: what starts from a fitted tree or simulates one, beyond the everyday calls.

==================  ====================================================================
name                does
==================  ====================================================================
prior_predictive    synthetic confusion matrices drawn from the prior, with their metrics
prior_sensitivity   the same data under several priors, side by side
curve_bands         pointwise and whole-curve bands of ROC, PR and reliability curves
sroc_regions        the summary point's credible and a new group's prediction region
simulate            confusion matrices of a classifier with known rates, ready to fit
simulate_counts     the same as one counts array
frequentist         bootstrap and binomial intervals, for comparison
==================  ====================================================================

The everyday analyses (``summary``, ``probability``, ``informedness``, ``with_prevalence``,
``posterior_predictive``, ``summarize_batch``) are ``bcm.<name>``. Each name here loads its
module on first use.

Examples
--------
>>> import bayescm as bcm
>>> cm = bcm.analyses.simulate(200, prevalence=0.3, tpr=0.9, tnr=0.8, random_seed=0)
>>> cm.n
200
"""

from importlib import import_module
from typing import Any

__all__ = ["curve_bands", "frequentist", "prior_predictive", "prior_sensitivity", "simulate",
           "simulate_counts", "sroc_regions"]

_WHERE = {"curve_bands": "bayescm.analyses.curves",
          "prior_predictive": "bayescm.analyses.predictive",
          "prior_sensitivity": "bayescm.analyses.sensitivity",
          "simulate": "bayescm.analyses.simulation",
          "simulate_counts": "bayescm.analyses.simulation",
          "sroc_regions": "bayescm.analyses.sroc"}


def __getattr__(name: str) -> Any:
    if name == "frequentist":
        return import_module("bayescm.analyses.frequentist")
    if name in _WHERE:
        value = getattr(import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'bayescm.analyses' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
