"""Quantities of the latent class models (Hui-Walter, Dawid-Skene): names and metadata.

The kinds ``hui_walter`` and ``dawid_skene`` (:mod:`bayescm.models.hui_walter`,
:mod:`bayescm.models.dawid_skene`) store parameters and quantities derived from them, not
functions of one confusion matrix; their ``func`` only returns NaN. They sit in a catalogue
so that names, display names, directions and scales are looked up in one place.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescm.metrics.metric import Metric

__all__ = ["LATENT_METRICS"]


def _undefined(*args: Any) -> float:
    return np.nan


def _metric(name: str, long_name: str, higher: bool | None, display: str,
            scale: str = "proportion", aliases: tuple[str, ...] = ()) -> Metric:
    return Metric(name, _undefined, long_name, aliases, higher, "binary", "",
                  display_name=display, scale=scale)


LATENT_METRICS: dict[str, Metric] = {m.name: m for m in [
    _metric("prevalence", "prevalence of the latent class", None, "Prevalence"),
    _metric("tpr", "a test's true positive rate", True, "TPR", aliases=("sensitivity",)),
    _metric("tnr", "a test's true negative rate", True, "TNR", aliases=("specificity",)),
    _metric("youden", "Youden's J of a test (TPR + TNR - 1)", True, "Youden's J", "signed"),
    _metric("apparent_prevalence", "share of positive results of a test", None,
            "Apparent prevalence"),
    _metric("cov_pos", "covariance of two tests' results among the positives", None,
            "Covariance (positives)", "signed"),
    _metric("cov_neg", "covariance of two tests' results among the negatives", None,
            "Covariance (negatives)", "signed"),
    _metric("accuracy", "a rater's probability to rate an item correctly", True,
            "Rater accuracy"),
    _metric("kappa", "Cohen's kappa of a rater against the latent class", True, "Kappa",
            "signed"),
    _metric("rated_share", "a rater's share of ratings in each class", None, "Rated share"),
    _metric("item_class", "an item's class probabilities given its ratings", None,
            "Item class"),
]}
"""What a latent class result stores."""
