"""The metric catalogue: every metric a vectorised function of the confusion probabilities.

:mod:`bayescm.metrics.base` defines :class:`Metric` and how a selection is resolved and
evaluated; :mod:`bayescm.metrics.multiclass` the multiclass catalogue.
"""

from bayescm.metrics.base import (
    BINARY_METRICS,
    Metric,
    builtin_metric,
    canonical_name,
    catalogue_for,
    evaluate,
    fbeta,
    list_metrics,
    mark_builtin,
    resolve_metrics,
)

__all__ = ["BINARY_METRICS", "Metric", "builtin_metric", "canonical_name", "catalogue_for",
           "evaluate", "fbeta", "list_metrics", "mark_builtin", "resolve_metrics"]
