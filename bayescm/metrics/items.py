"""Quantities of an item-level evaluation: names and metadata of what an items fit stores.

These are not functions of a confusion matrix: the items model (:mod:`bayescm.models.items`)
computes them from its parameters, so their ``func`` only returns NaN. They sit in a catalogue
so that names, aliases, display names, directions and scales are looked up in one place
(summaries, comparisons and plots read them).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescm.metrics.metric import Metric

__all__ = ["ITEM_METRICS"]


def _undefined(*args: Any) -> float:
    return np.nan


def _item_metric(name: str, long_name: str, higher: bool | None, display: str,
                 scale: str = "proportion", aliases: tuple[str, ...] = (),
                 reference: float | None = None) -> Metric:
    return Metric(name, _undefined, long_name, aliases, higher, "binary", "",
                  display_name=display, scale=scale, reference=reference)


ITEM_METRICS: dict[str, Metric] = {m.name: m for m in [
    _item_metric("accuracy", "expected accuracy on a new item from the same population of "
                 "items (and clusters)", True, "Accuracy", aliases=("acc",)),
    _item_metric("accuracy_items", "mean accuracy over these items (a fixed benchmark, new "
                 "attempts)", True, "Accuracy (these items)"),
    _item_metric("icc_item", "intraclass correlation of two attempts on one item (probability "
                 "scale)", None, "ICC (item)"),
    _item_metric("icc_cluster", "intraclass correlation of two items in one cluster "
                 "(probability scale)", None, "ICC (cluster)"),
    _item_metric("design_effect", "design effect: variance of the mean over its binomial "
                 "variance", None, "Design effect", scale="ratio", aliases=("deff",)),
    _item_metric("effective_n", "effective number of independent attempts (attempts / design "
                 "effect)", None, "Effective n", scale="nonnegative"),
]}
"""What an items fit stores besides its parameters (see :mod:`bayescm.models.items`)."""
