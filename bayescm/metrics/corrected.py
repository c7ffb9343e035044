"""Quantities of a rate corrected for an imperfect test or judge: names and metadata.

:func:`bayescm.true_prevalence` and :func:`bayescm.judged_accuracy` store the true rate, the
apparent (judged) rate and the test's TPR and TNR (:mod:`bayescm.models.corrected`). They are
not functions of one confusion matrix, so their ``func`` only returns NaN; they sit in a
catalogue so that names, aliases, display names, directions and scales are looked up in one
place (summaries, comparisons and plots read them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescm.metrics.metric import Metric

__all__ = ["CORRECTED_METRICS"]


def _undefined(*args: Any) -> float:
    return np.nan


def _metric(name: str, long_name: str, higher: bool | None, display: str,
            aliases: tuple[str, ...] = ()) -> Metric:
    return Metric(name, _undefined, long_name, aliases, higher, "binary", "",
                  display_name=display, scale="proportion")


CORRECTED_METRICS: dict[str, Metric] = {m.name: m for m in [
    _metric("prevalence", "true prevalence (corrected for the test's errors)", None,
            "True prevalence", ("true_prevalence",)),
    _metric("apparent", "apparent rate: share of positive results of the test", None,
            "Apparent rate", ("apparent_prevalence",)),
    _metric("accuracy", "true accuracy (share of answers correct by the human label)", True,
            "True accuracy", ("acc", "true_accuracy")),
    _metric("judged", "judged pass rate: share of answers the judge passed", True,
            "Judged pass rate", ("pass_rate",)),
    _metric("tpr", "the test's (judge's) true positive rate", True, "TPR",
            ("sensitivity", "recall")),
    _metric("tnr", "the test's (judge's) true negative rate", True, "TNR", ("specificity",)),
]}
"""What a corrected-rate result stores (see :mod:`bayescm.models.corrected`)."""
