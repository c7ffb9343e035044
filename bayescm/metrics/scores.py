"""Metrics of scored items: names and metadata of what ``fit(bcm.Scores(...))`` computes.

These are not functions of one confusion matrix: the score model
(:mod:`bayescm.models.scores`) computes them from the weighted items, so their ``func`` only
returns NaN. They sit in the catalogue so that names, aliases, display names and scales are
looked up in one place (``catalogue_for("scores")`` adds them to the binary catalogue).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescm.metrics.metric import Metric

__all__ = ["SCORE_METRICS"]


def _undefined(*args: Any) -> float:
    return np.nan


def _score_metric(name: str, long_name: str, higher: bool | None, display: str,
                  scale: str = "proportion", reference: float | None = None,
                  aliases: tuple[str, ...] = ()) -> Metric:
    return Metric(name, _undefined, long_name, aliases, higher, "binary", "",
                  display_name=display, scale=scale, reference=reference)


SCORE_METRICS: dict[str, Metric] = {m.name: m for m in [
    _score_metric("auc", "area under the ROC curve", True, "AUC", reference=0.5,
                  aliases=("roc_auc",)),
    _score_metric("auc_partial", "partial area under the ROC curve (over the FPR range)", True,
                  "Partial AUC"),
    _score_metric("average_precision", "average precision (area under the PR curve, steps)",
                  True, "Average precision", aliases=("ap", "pr_auc")),
    _score_metric("brier", "Brier score (mean squared error of the probabilities)", False,
                  "Brier score", aliases=("brier_score",)),
    _score_metric("log_loss", "log-loss (cross-entropy of the probabilities)", False,
                  "Log-loss", scale="nonnegative", aliases=("cross_entropy",)),
    _score_metric("ece", "expected calibration error", False, "ECE",
                  aliases=("expected_calibration_error",)),
    _score_metric("ece_reference", "expected calibration error under perfect calibration",
                  False, "ECE (calibrated)"),
    _score_metric("roc", "ROC curve: true positive rate at each false positive rate", True,
                  "ROC curve"),
    _score_metric("pr", "PR curve: precision at each recall", True, "PR curve"),
    _score_metric("reliability", "reliability curve: event rate in each score bin", None,
                  "Reliability"),
]}
"""Metrics of scored items (besides the confusion-matrix catalogue at the threshold)."""
