"""The metric catalogue's public names in one module (kept so existing imports keep working).

The pieces live in modules with one job each: :mod:`bayescm.metrics.metric` (what a metric
is), :mod:`bayescm.metrics.binary` (the binary catalogue), :mod:`bayescm.metrics.multiclass`,
:mod:`bayescm.metrics.scores`, :mod:`bayescm.metrics.catalogue` (aliases, selection, lookup)
and :mod:`bayescm.metrics.evaluation` (metrics on draws). New code imports from
:mod:`bayescm.metrics`.
"""

from bayescm.metrics.binary import BINARY_METRICS, fbeta
from bayescm.metrics.catalogue import (
    EVAL_BLOCK,
    alias_table,
    builtin_metric,
    canonical_name,
    catalogue_for,
    evaluate,
    evaluate_theta,
    list_metrics,
    mark_builtin,
    metric_info,
    resolve_metrics,
)
from bayescm.metrics.metric import RESERVED, SCALES, Metric, MetricInfo

__all__ = ["BINARY_METRICS", "EVAL_BLOCK", "RESERVED", "SCALES", "Metric", "MetricInfo",
           "alias_table", "builtin_metric", "canonical_name", "catalogue_for", "evaluate",
           "evaluate_theta", "fbeta", "list_metrics", "mark_builtin", "metric_info",
           "resolve_metrics"]
