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

from . import datasets, diagnostics, metrics, priors, stats
from ._container import load, save
from ._version import __version__
from .confusion import ConfusionMatrix, EmptyMatrixWarning
from .fitting import fit
from .metrics import Metric, list_metrics
from .model import build_model
from .priors import Beta, Dirichlet, Fixed, Haldane, Jeffreys, Laplace
from .stats import HDI_PROB
from .summary import informedness, probability, summary

__all__ = [
    "Beta",
    "ConfusionMatrix",
    "Dirichlet",
    "EmptyMatrixWarning",
    "Fixed",
    "HDI_PROB",
    "Haldane",
    "Jeffreys",
    "Laplace",
    "Metric",
    "__version__",
    "build_model",
    "datasets",
    "diagnostics",
    "fit",
    "informedness",
    "list_metrics",
    "load",
    "metrics",
    "priors",
    "probability",
    "save",
    "stats",
    "summary",
]
