"""The metric catalogue: every metric a vectorised function of the confusion probabilities.

:mod:`~bayescm.metrics.metric` defines :class:`Metric` (a function with its metadata: names,
direction, scale, support, reference line); :mod:`~bayescm.metrics.binary`,
:mod:`~bayescm.metrics.multiclass` and :mod:`~bayescm.metrics.scores` hold the catalogues;
:mod:`~bayescm.metrics.catalogue` resolves names; :mod:`~bayescm.metrics.evaluation` evaluates
metrics on ``theta``.
"""

from bayescm.metrics.binary import BINARY_METRICS, fbeta
from bayescm.metrics.catalogue import (
           alias_table,
           builtin_metric,
           canonical_name,
           catalogue_for,
           list_metrics,
           mark_builtin,
           metric_info,
           resolve_metrics,
)
from bayescm.metrics.evaluation import evaluate, evaluate_theta
from bayescm.metrics.metric import SCALES, Metric, MetricInfo

__all__ = ["BINARY_METRICS", "SCALES", "Metric", "MetricInfo", "alias_table", "builtin_metric",
           "canonical_name", "catalogue_for", "evaluate", "evaluate_theta", "fbeta",
           "list_metrics", "mark_builtin", "metric_info", "resolve_metrics"]
