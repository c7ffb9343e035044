"""The catalogues by model kind: one alias table, one selection rule, one lookup of metadata.

* :func:`catalogue_for` -- the built-in metrics of a model kind;
* :func:`alias_table` / :func:`canonical_name` -- every accepted spelling of a metric name;
* :func:`resolve_metrics` -- a user's selection (names, aliases, custom metrics) as metrics;
* :func:`metric_info` -- the display name, scale, support and reference of any variable name,
  including ``<metric>_diff`` differences and ``name[label]`` rows of a table;
* :func:`evaluate` / :func:`evaluate_theta` -- metrics on cells or on ``theta`` (defined in
  :mod:`bayescm.metrics.evaluation`, re-exported here).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import cache
from typing import TYPE_CHECKING

import numpy as np

from bayescm.core.arguments import did_you_mean, keyword_checked
from bayescm.metrics.binary import BINARY_METRICS, fbeta
from bayescm.metrics.corrected import CORRECTED_METRICS
from bayescm.metrics.items import ITEM_METRICS
from bayescm.metrics.latent import LATENT_METRICS
from bayescm.metrics.metric import Metric, MetricInfo
from bayescm.metrics.multiclass import MULTICLASS_METRICS
from bayescm.metrics.scores import SCORE_METRICS

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["alias_table", "builtin_metric", "canonical_name", "catalogue_for", "list_metrics",
           "mark_builtin", "metric_info", "resolve_metrics"]

_CATALOGUES: dict[str, dict[str, Metric]] = {
    "binary": BINARY_METRICS,
    "hierarchical": BINARY_METRICS,
    "multiclass": MULTICLASS_METRICS,
    "scores": {**BINARY_METRICS, **SCORE_METRICS},
    "items": ITEM_METRICS,
    "corrected": CORRECTED_METRICS,
    "latent": LATENT_METRICS,
}


def catalogue_for(kind: str) -> dict[str, Metric]:
    """The built-in catalogue of a model kind (``"binary"``, ``"multiclass"``, ``"scores"``).

    Parameters
    ----------
    kind : str
        A model kind: ``"binary"``, ``"multiclass"`` or ``"scores"``.

    Returns
    -------
    dict of str -> Metric
        The built-in metrics by name.

    Raises
    ------
    ValueError
        An unknown model kind.

    See Also
    --------
    list_metrics : The same catalogue as a readable table.
    metric_info : How one variable is named and shown.

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

    Parameters
    ----------
    kind : str
        A model kind: ``"binary"``, ``"multiclass"`` or ``"scores"``.
    name : str
        The metric's name in that catalogue.

    Returns
    -------
    Metric
        The catalogue's own object (not a copy).

    See Also
    --------
    catalogue_for : The whole catalogue of a kind.
    mark_builtin : Makes built-in metrics pickle as such a reference.

    Examples
    --------
    >>> from bayescm.metrics import builtin_metric
    >>> builtin_metric("binary", "tpr").long_name
    'true positive rate (sensitivity)'
    """
    return catalogue_for(kind)[name]


def mark_builtin(catalogue: dict[str, Metric], kind: str) -> None:
    """Let every metric of a catalogue travel by reference (see ``Metric.__reduce__``).

    Parameters
    ----------
    catalogue : dict of str -> Metric
        The catalogue whose metrics are marked.
    kind : str
        Its model kind (``"binary"``, ``"multiclass"``, ``"scores"``).

    See Also
    --------
    builtin_metric : How a marked metric is looked up again when unpickled.
    catalogue_for : The built-in catalogues.

    Examples
    --------
    A marked metric pickles as a reference to its catalogue entry, so its lambda never needs
    to be pickled:

    >>> import pickle
    >>> from bayescm.metrics import catalogue_for
    >>> tpr = catalogue_for("binary")["tpr"]
    >>> pickle.loads(pickle.dumps(tpr)) is tpr
    True
    """
    for name, metric in catalogue.items():
        if "_recipe" not in metric.__dict__ or metric.__dict__["_recipe"][0] is fbeta:
            object.__setattr__(metric, "_recipe", (builtin_metric, (kind, name)))


mark_builtin(BINARY_METRICS, "binary")
mark_builtin(MULTICLASS_METRICS, "multiclass")
mark_builtin(SCORE_METRICS, "scores")
mark_builtin(ITEM_METRICS, "items")
mark_builtin(CORRECTED_METRICS, "corrected")
mark_builtin(LATENT_METRICS, "latent")


def canonical_name(name: str) -> str:
    """Normalise a user's spelling: lower case, spaces and hyphens to underscores.

    Parameters
    ----------
    name : str
        A metric name as a user spells it.

    Returns
    -------
    str
        The normalised spelling, looked up in :func:`alias_table`.

    See Also
    --------
    alias_table : Every accepted spelling of the metrics.

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

    Parameters
    ----------
    kind : str or dict of str -> Metric
        A model kind (``"binary"``, ``"multiclass"``, ``"scores"``) or a catalogue.

    Returns
    -------
    dict of str -> str
        Every accepted spelling (canonicalised by :func:`canonical_name`) mapped to the metric's
        name: ``"recall"``, ``"sensitivity"`` and ``"tpr"`` all map to ``"tpr"``.

    See Also
    --------
    canonical_name : How a spelling is normalised before the look-up.
    list_metrics : The metrics with their aliases, as a table.

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

    Returns
    -------
    list of Metric
        The selected metrics in order, aliases resolved to the catalogue's objects.

    Raises
    ------
    TypeError
        An entry that is neither a name nor a :class:`Metric`.
    ValueError
        An unknown name (the message suggests close ones), a custom metric of the wrong kind,
        or one that reuses a built-in name.

    See Also
    --------
    list_metrics : The names and aliases to choose from.
    canonical_name : How spellings are normalised.

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
            raise TypeError(f"Metrics are named by strings or bcm.metrics.Metric objects, got "
                            f"{item!r}.")
        key = table.get(canonical_name(item))
        if key is None:
            raise ValueError(
                f"Unknown {kind} metric {item!r}. Known metrics: {', '.join(catalogue)} "
                "(long names such as 'sensitivity' work too); see bcm.metrics.list_metrics()."
                f"{did_you_mean(canonical_name(item), table)}"
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

    See Also
    --------
    metric_info : How one variable is named and shown.
    bayescm.metrics.fbeta : An F-score with any weight.
    Metric : A metric of your own.

    Examples
    --------
    >>> import bayescm as bcm
    >>> table = bcm.metrics.list_metrics()
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
        How plots and tables show the variable: its display name, scale (proportion, ratio,
        ...), support and reference value.

    See Also
    --------
    MetricInfo : The fields returned.
    list_metrics : Every metric's names and meaning.

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
