"""The catalogues by model kind: one alias table, one selection rule, one evaluation on theta.

* :func:`catalogue_for` -- the built-in metrics of a model kind;
* :func:`alias_table` / :func:`canonical_name` -- every accepted spelling of a metric name;
* :func:`resolve_metrics` -- a user's selection (names, aliases, custom metrics) as metrics;
* :func:`metric_info` -- the display name, scale, support and reference of any variable name,
  including ``<metric>_diff`` differences and ``name[label]`` rows of a table;
* :func:`evaluate` / :func:`evaluate_theta` -- metrics on cells or on ``theta``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescm.core.validate import keyword_checked
from bayescm.metrics.binary import BINARY_METRICS, fbeta
from bayescm.metrics.metric import Metric, MetricInfo
from bayescm.metrics.multiclass import MULTICLASS_METRICS, OneVsRest
from bayescm.metrics.scores import SCORE_METRICS

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["EVAL_BLOCK", "alias_table", "builtin_metric", "canonical_name", "catalogue_for",
           "evaluate", "evaluate_theta", "list_metrics", "mark_builtin", "metric_info",
           "resolve_metrics"]

_CATALOGUES: dict[str, dict[str, Metric]] = {
    "binary": BINARY_METRICS,
    "hierarchical": BINARY_METRICS,
    "multiclass": MULTICLASS_METRICS,
    "scores": {**BINARY_METRICS, **SCORE_METRICS},
}


def catalogue_for(kind: str) -> dict[str, Metric]:
    """The built-in catalogue of a model kind (``"binary"``, ``"multiclass"``, ``"scores"``).

    Examples
    --------
    >>> from bayescm.metrics import catalogue_for
    >>> "kappa_quadratic" in catalogue_for("multiclass"), "auc" in catalogue_for("scores")
    (True, True)
    """
    try:
        return _CATALOGUES[kind]
    except (KeyError, TypeError):
        raise ValueError(f"Unknown model kind {kind!r}; expected one of "
                         f"{', '.join(map(repr, _CATALOGUES))}.") from None


def builtin_metric(kind: str, name: str) -> Metric:
    """The catalogue entry ``name`` of ``kind`` (how built-in metrics are unpickled).

    Examples
    --------
    >>> from bayescm.metrics import builtin_metric
    >>> builtin_metric("binary", "tpr").long_name
    'true positive rate (sensitivity)'
    """
    return catalogue_for(kind)[name]


def mark_builtin(catalogue: dict[str, Metric], kind: str) -> None:
    """Let every metric of a catalogue travel by reference (see ``Metric.__reduce__``)."""
    for name, metric in catalogue.items():
        if "_recipe" not in metric.__dict__ or metric.__dict__["_recipe"][0] is fbeta:
            object.__setattr__(metric, "_recipe", (builtin_metric, (kind, name)))


mark_builtin(BINARY_METRICS, "binary")
mark_builtin(MULTICLASS_METRICS, "multiclass")
mark_builtin(SCORE_METRICS, "scores")


def canonical_name(name: str) -> str:
    """Normalise a user's spelling: lower case, spaces and hyphens to underscores.

    Examples
    --------
    >>> from bayescm.metrics import canonical_name
    >>> canonical_name("Balanced-Accuracy")
    'balanced_accuracy'
    """
    key = name.strip().lower()
    if key in {"lr+", "lr-", "f0.5"}:
        return key
    return re.sub(r"[\s\-]+", "_", key)


def _table(catalogue: dict[str, Metric]) -> dict[str, str]:
    table: dict[str, str] = {}
    for metric in catalogue.values():
        table[canonical_name(metric.name)] = metric.name
        for alias in metric.aliases:
            table[canonical_name(alias)] = metric.name
    return table


@cache
def _cached_table(kind: str) -> dict[str, str]:
    return _table(catalogue_for(kind))


def alias_table(kind: str | dict[str, Metric]) -> dict[str, str]:
    """``{canonical spelling: metric name}`` for every name and alias of a catalogue.

    ``kind`` is a model kind (``"binary"``, ``"multiclass"``, ``"scores"``) or a catalogue.

    Examples
    --------
    >>> from bayescm.metrics import alias_table
    >>> alias_table("binary")["youden"], alias_table("multiclass")["macro_recall"]
    ('bm', 'tpr_macro')
    """
    return dict(_aliases(kind))


def _aliases(kind: str | dict[str, Metric]) -> dict[str, str]:
    """:func:`alias_table` without the copy (built-in catalogues are cached)."""
    if not isinstance(kind, dict):
        return _cached_table(kind)
    key = _key_of(kind)
    return _cached_table(key) if key is not None else _table(kind)


def _key_of(catalogue: dict[str, Metric]) -> str | None:
    """The kind whose built-in catalogue this is (None for another mapping)."""
    return next((k for k, c in _CATALOGUES.items() if c is catalogue), None)


def resolve_metrics(
    metrics: Iterable[str | Metric] | str | Metric | None,
    catalogue: dict[str, Metric],
    kind: str,
) -> list[Metric]:
    """Resolve a user's metric selection against a catalogue.

    Parameters
    ----------
    metrics : None, "all", str, Metric or iterable of them
        ``None`` and ``"all"`` select the whole catalogue. Names may be aliases.
    catalogue : dict
        Built-in metrics of the model kind.
    kind : str
        ``"binary"`` or ``"multiclass"``; custom metrics must match it.

    Examples
    --------
    >>> from bayescm.metrics import BINARY_METRICS, resolve_metrics
    >>> [m.name for m in resolve_metrics(["recall", "Specificity"], BINARY_METRICS, "binary")]
    ['tpr', 'tnr']
    """
    if metrics is None or (isinstance(metrics, str) and metrics.strip().lower() == "all"):
        return list(catalogue.values())
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    table = _aliases(catalogue)
    out: dict[str, Metric] = {}
    for item in metrics:
        if isinstance(item, Metric):
            allowed = {"binary"} if kind == "binary" else {"multiclass", "per_class"}
            if item.kind not in allowed:
                raise ValueError(
                    f"Custom metric {item.name!r} is of kind {item.kind!r} but the model is "
                    f"{kind}; use kind='binary' with func(tp, fn, fp, tn) for binary matrices "
                    "and kind='multiclass' or 'per_class' with func(theta) otherwise."
                )
            builtin = table.get(canonical_name(item.name))
            if builtin is not None and catalogue[builtin] is not item:
                raise ValueError(
                    f"Custom metric name {item.name!r} clashes with the built-in {builtin!r}; "
                    "choose another name."
                )
            out[item.name] = item
            continue
        if not isinstance(item, str):
            raise TypeError(f"Metrics are named by strings or bcm.Metric objects, got {item!r}.")
        key = table.get(canonical_name(item))
        if key is None:
            raise ValueError(
                f"Unknown {kind} metric {item!r}. Known metrics: {', '.join(catalogue)} "
                "(long names such as 'sensitivity' work too); see bcm.list_metrics()."
            )
        out[key] = catalogue[key]
    return list(out.values())


@keyword_checked
def list_metrics(kind: str = "binary") -> pd.DataFrame:
    """A table of the built-in metrics: names, direction, when undefined, and how they are shown.

    Parameters
    ----------
    kind : {"binary", "multiclass", "scores"}
        Which catalogue to list.

    Returns
    -------
    pandas.DataFrame
        Indexed by name, columns ``long_name, display_name, aliases, higher_is_better, kind,
        scale, support, reference, undefined``.

    Examples
    --------
    >>> import bayescm as bcm
    >>> table = bcm.list_metrics()
    >>> table.loc["bm", ["long_name", "display_name", "scale"]].tolist()
    ['bookmaker informedness (TPR + TNR - 1)', 'BM', 'signed']
    """
    import pandas as pd

    rows = [
        {
            "name": m.name,
            "long_name": m.long_name,
            "display_name": m.display_name,
            "aliases": ", ".join(m.aliases),
            "higher_is_better": m.higher_is_better,
            "kind": m.kind,
            "scale": m.scale,
            "support": m.support,
            "reference": m.reference,
            "undefined": m.undefined,
        }
        for m in catalogue_for(kind).values()
    ]
    return pd.DataFrame(rows).set_index("name")


_PARAMETERS = {
    "theta": MetricInfo("theta", "θ", "confusion probabilities P(true, predicted)",
                        "proportion", (0.0, 1.0)),
    "rates": MetricInfo("rates", "P(predicted | true)", "rates P(predicted | true)",
                        "proportion", (0.0, 1.0)),
    "cells": MetricInfo("cells", "Cells", "joint cell probabilities", "proportion",
                        (0.0, 1.0)),
}


def metric_info(name: str, kind: str | None = "binary") -> MetricInfo:
    """Display name, scale, support and reference of a result variable, by name.

    Parameters
    ----------
    name : str
        A metric name or alias of the catalogue of ``kind``; ``<metric>_diff`` (a difference
        A - B: signed, reference 0, support twice as wide); ``name[label]`` (a row of
        :func:`bayescm.summary`, e.g. ``"tpr[cat]"``); ``theta``, ``rates``, ``cells``. Any
        other name (a custom metric) is ``"unbounded"`` and displayed as itself.
    kind : str, optional
        Model kind (the tree's ``model`` attribute); None or an unknown kind searches every
        catalogue.

    Returns
    -------
    MetricInfo

    Examples
    --------
    >>> from bayescm.metrics import metric_info
    >>> metric_info("sensitivity").display_name, metric_info("lr_plus").reference
    ('TPR', 1.0)
    >>> info = metric_info("f1_weighted_diff", "multiclass")
    >>> info.display_name, info.scale, info.support, info.reference
    ('F1 (weighted) difference', 'signed', (-1.0, 1.0), 0.0)
    """
    base = name.split("[", 1)[0] if name.endswith("]") else name
    if base.endswith("_diff") and base not in _PARAMETERS:
        return _difference(metric_info(base[: -len("_diff")], kind), base)
    if base in _PARAMETERS:
        return _PARAMETERS[base]
    kinds = [kind] if kind in _CATALOGUES else []
    kinds += [k for k in ("binary", "multiclass", "scores") if k not in kinds]
    key = canonical_name(base)
    for k in kinds:
        found = _cached_table(k).get(key)
        if found is not None:
            return _CATALOGUES[k][found].info
    return MetricInfo(base, base, base, "unbounded", (-np.inf, np.inf))


def _difference(info: MetricInfo, name: str) -> MetricInfo:
    """A - B of a quantity: signed with reference 0, bounds from the quantity's support."""
    lo, hi = info.support
    width = hi - lo
    if info.proportional:
        return MetricInfo(name, f"{info.display_name} difference", f"{info.long_name}: A - B",
                          "signed", (-width, width), 0.0, info.higher_is_better,
                          f"{info.label}: A - B")
    return MetricInfo(name, f"{info.display_name} difference", f"{info.long_name}: A - B",
                      "unbounded", (-np.inf, np.inf), 0.0, info.higher_is_better,
                      f"{info.label}: A - B")


def evaluate(metrics: Sequence[Metric], inputs: tuple[Any, ...], shape: tuple[int, ...]
             ) -> dict[str, np.ndarray]:
    """Evaluate metrics on cell probabilities (binary) or theta (multiclass).

    ``shape`` is the expected leading shape of every result (draws and batch axes); a custom
    metric that returns anything else raises an error naming it. Large elementwise inputs (the
    binary cells of a batch) are evaluated in blocks written into the results, so the
    temporaries of each formula stay small and in cache instead of costing fresh pages.
    """
    arrays = all(isinstance(a, np.ndarray) and a.shape == shape for a in inputs)
    size = int(np.prod(shape, dtype=np.int64))
    if arrays and size > 2 * EVAL_BLOCK and all(m.kind == "binary" for m in metrics):
        flat = [a.reshape(-1) for a in inputs]
        out = {m.name: np.empty(size) for m in metrics}
        for start in range(0, size, EVAL_BLOCK):
            block = tuple(a[start:start + EVAL_BLOCK] for a in flat)
            for name, value in _evaluate(metrics, block, block[0].shape).items():
                out[name][start:start + EVAL_BLOCK] = value
        return {name: value.reshape(shape) for name, value in out.items()}
    return _evaluate(metrics, inputs, shape)


EVAL_BLOCK = 1 << 16
"""Elements per block when evaluating elementwise metrics on large arrays."""


def _evaluate(metrics: Sequence[Metric], inputs: tuple[Any, ...], shape: tuple[int, ...]
              ) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for metric in metrics:
        try:
            value = metric(*inputs)
        except Exception as exc:
            raise ValueError(f"Metric {metric.name!r} failed: {exc}") from exc
        expected = shape if metric.kind != "per_class" else shape + value.shape[-1:]
        if value.shape != expected:
            try:
                value = np.broadcast_to(value, expected).copy()
            except ValueError:
                raise ValueError(
                    f"Metric {metric.name!r} returned shape {value.shape}, expected {expected}; "
                    "a metric must be elementwise over draws."
                ) from None
        out[metric.name] = value
    return out


def evaluate_theta(metrics: Sequence[Metric], theta: Any, family: str,
                   skip: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Metrics on confusion probabilities ``theta[..., true, pred]`` (any leading shape).

    ``family="binary"``: the cells are ``tp = theta[..., 0, 0]``, ``fn = theta[..., 0, 1]``,
    ``fp = theta[..., 1, 0]``, ``tn = theta[..., 1, 1]`` (positive class first).
    ``family="multiclass"``: built-in metrics share one set of one-vs-rest cells
    (:class:`~bayescm.metrics.multiclass.OneVsRest`); custom metrics get ``theta``. ``skip``
    (boolean, ``(..., K)``) leaves classes without test items out of the averages.

    Returns
    -------
    dict of str -> ndarray
        Shape ``theta.shape[:-2]`` (plus a class axis for per-class metrics).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.metrics import catalogue_for, evaluate_theta
    >>> theta = np.array([[0.4, 0.1], [0.2, 0.3]])
    >>> out = evaluate_theta([catalogue_for("binary")["tpr"]], theta, "binary")
    >>> float(out["tpr"])
    0.8
    >>> mc = catalogue_for("multiclass")
    >>> out = evaluate_theta([mc["acc"], mc["tpr"]], theta, "multiclass")
    >>> float(out["acc"]), out["tpr"].round(2).tolist()
    (0.7, [0.8, 0.6])
    """
    theta = np.asarray(theta, dtype=float)
    if theta.ndim < 2 or theta.shape[-1] != theta.shape[-2]:
        raise ValueError(f"theta must have shape (..., K, K), got {theta.shape}.")
    shape = theta.shape[:-2]
    if family in ("binary", "hierarchical"):
        if theta.shape[-1] != 2:
            raise ValueError(f"Binary metrics need a 2 x 2 theta, got {theta.shape[-2:]}.")
        cells = (theta[..., 0, 0], theta[..., 0, 1], theta[..., 1, 0], theta[..., 1, 1])
        return evaluate(metrics, cells, shape)
    if family != "multiclass":
        raise ValueError(f"family must be 'binary' or 'multiclass', got {family!r}.")
    builtin = [m for m in metrics if MULTICLASS_METRICS.get(m.name) is m]
    custom = [m for m in metrics if MULTICLASS_METRICS.get(m.name) is not m]
    ovr = OneVsRest(theta)
    if skip is not None and np.any(skip):
        ovr.skip = np.asarray(skip, dtype=bool)
    values = evaluate(builtin, (ovr,), shape)
    values.update(evaluate(custom, (theta,), shape))
    return {m.name: values[m.name] for m in metrics}
