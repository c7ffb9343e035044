"""Item-level evaluation logs in analysis specs: the data, priors, options and outputs, checked.

A spec fits the items model (``bayescm.models.items``) to a log with::

    [data]
    items = "eval_log.csv"           # one row per outcome; paths relative to the spec
    outcome = "correct"              # 1/0 or true/false (default "correct"); or label = "..."
                                     #   and prediction = "..." (right when equal)
    item = "question"                # the item id (default "item_id")
    cluster = "subdomain"            # optional: the passage, document or task of an item
    system = "model"                 # optional: several systems on the same items
    attempt = "epoch"                # optional: the attempt number

    [priors]                         # keyed by the model's parameters
    mu_logit = {dist = "Normal", mu = 0, sigma = 3}
    sd_cluster = {dist = "HalfNormal", sigma = 1}
    sd_item = {dist = "HalfNormal", sigma = 2.5}
    sd_system_item = {dist = "LogNormal", mu = 0, sigma = 1}

    [options]
    draws = 1000                     # NUTS: draws and chains, seed, hdi_prob,
    tune = 1000                      #   tune and target_accept

    [outputs]
    tables = ["summary", "eval"]     # eval.csv: accuracy beside the naive and CR1 intervals
    figures = ["items_accuracy", "items_differences", "items_ranks", "pass_at_k"]

(``dataset = "eval_log"`` is the packaged log.) These become ``bcm.fit(bcm.Items.from_csv(...),
priors={...}, draws=..., tune=...)``; every other key is a :class:`~bayescm.errors.SpecError`
naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bayescm.core.items import Items
from bayescm.errors import ItemsFormatError, SpecError
from bayescm.io.spec_parse import (
    ITEMS_FIGURES,
    _check_keys,
    _data_path,
    _where,
    parse_prior,
)

__all__ = ["ITEMS_DATA_KEYS", "ITEMS_OPTIONS", "ITEMS_TABLES", "check_items_options",
           "check_items_outputs", "default_items_figures", "is_items_data", "parse_items_data",
           "parse_items_priors"]

ITEMS_DATA_KEYS = ("items", "outcome", "item", "cluster", "system", "attempt", "label",
                   "prediction")
"""The keys of ``[data]`` for a log: the file and the columns by role (as :class:`Items`)."""
ITEMS_OPTIONS = ("draws", "chains", "seed", "hdi_prob", "method", "target_accept", "tune")
"""The ``[options]`` an items fit takes (``method`` only ``"auto"`` or ``"nuts"``)."""
ITEMS_TABLES = ("summary", "eval")
"""The tables of an items fit: ``summary.csv`` and ``eval.csv``
(:func:`bayescm.analyses.items_tables.eval_tables`)."""


def is_items_data(data: Any) -> bool:
    """Whether ``[data]`` holds a log (``items = "file.csv"``).

    Examples
    --------
    >>> from bayescm.io.spec_items import is_items_data
    >>> is_items_data({"items": "log.csv"}), is_items_data({"tp": 3})
    (True, False)
    """
    return isinstance(data, Mapping) and "items" in data


def parse_items_data(data: Mapping[str, Any], base: Path, source: Any) -> Items:
    """The log of ``[data] items = "file.csv"`` with its columns, read and validated.

    Examples
    --------
    >>> import os, tempfile
    >>> from pathlib import Path
    >>> from bayescm.io.spec_items import parse_items_data
    >>> folder = Path(tempfile.mkdtemp())
    >>> _ = (folder / "log.csv").write_text("q,ok\\nq1,1\\nq1,0\\nq2,1\\n")
    >>> parse_items_data({"items": "log.csv", "item": "q", "outcome": "ok"}, folder, None)
    Items(systems=['A'], items=2, attempts=3)
    """
    where = _where(source)
    _check_keys(data, ITEMS_DATA_KEYS, "data", source)
    columns: dict[str, str | None] = {}
    for key in ITEMS_DATA_KEYS[1:]:
        value = data.get(key)
        if value is not None and (not isinstance(value, str) or not value):
            raise SpecError(f"{where}[data] {key} names a column of the log (a string), got "
                            f"{value!r}.")
        columns[key] = value
    if columns["label"] is not None or columns["prediction"] is not None:
        if columns["outcome"] is not None:
            raise SpecError(f"{where}[data] gives outcome and label/prediction; name the "
                            "outcome column, or the label and prediction columns, not both.")
        if columns["label"] is None or columns["prediction"] is None:
            raise SpecError(f"{where}[data] label and prediction go together (a row is right "
                            "when they are equal); give both.")
    else:
        columns["outcome"] = columns["outcome"] or "correct"
    path = _data_path(data["items"], base, "items", source)
    try:
        return Items.from_csv(path, outcome=columns["outcome"],
                              item=columns["item"] or "item_id", cluster=columns["cluster"],
                              system=columns["system"], attempt=columns["attempt"],
                              label=columns["label"], prediction=columns["prediction"])
    except ItemsFormatError as err:  # it names the file and the line
        raise SpecError(f"{where}[data] items: {err}") from None


def parse_items_priors(priors: Any, data: Items, source: Any) -> dict[str, Any]:
    """``[priors]`` of an items spec as ``fit(..., priors={...})``, checked against the log.

    Keys are the model's parameters; values are tables such as ``{dist = "HalfNormal", sigma =
    1}`` (``Normal`` for ``mu_logit``; ``HalfNormal`` or ``LogNormal`` for a scale). A scale
    the log does not have (``sd_cluster`` without clusters, ``sd_system_item`` with one
    system) is an error.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.io.spec_items import parse_items_priors
    >>> parse_items_priors({"sd_item": {"dist": "HalfNormal", "sigma": 1}},
    ...                    bcm.datasets.eval_log(), None)
    {'priors': {'sd_item': HalfNormal(sigma=1.0)}}
    """
    from bayescm.models.items import ITEMS_PARAMETERS, ItemsModel

    where = _where(source)
    _check_keys(priors, ITEMS_PARAMETERS, "priors", source)
    if not priors:
        return {}
    kind = ItemsModel.from_data(data)
    out: dict[str, Any] = {}
    for key, value in priors.items():
        try:
            if not isinstance(value, Mapping) or "dist" not in value:
                raise TypeError(f"give a table such as {{dist = \"HalfNormal\", sigma = 1}} "
                                f"(Normal, HalfNormal or LogNormal), got {value!r}.")
            out[key] = parse_prior(value, key)
            kind.resolve_priors(None, {key: out[key]})
        except (ValueError, TypeError) as err:
            raise SpecError(f"{where}[priors] {key}: {err}") from None
    return {"priors": out}


def default_items_figures(data: Items) -> list[str]:
    """The accuracy forest and pass@k; with two systems or more the differences and ranks.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.io.spec_items import default_items_figures
    >>> default_items_figures(bcm.datasets.eval_log())
    ['items_accuracy', 'items_differences', 'items_ranks', 'pass_at_k']
    """
    several = data.n_systems > 1
    return ["items_accuracy", *(["items_differences", "items_ranks"] if several else []),
            "pass_at_k"]


def check_items_options(options: Mapping[str, Any], source: Any) -> None:
    """``[options]`` (as written) of a log: only :data:`ITEMS_OPTIONS`, NUTS's methods.

    Examples
    --------
    >>> from bayescm.io.spec_items import check_items_options
    >>> check_items_options({"threshold": 0.5}, None)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bayescm.errors.SpecError: options.threshold does not apply to an evaluation log; ...
    """
    where = _where(source)
    if not isinstance(options, Mapping):
        raise SpecError(f"{where}[options] must be a table, got {options!r}.")
    other = [k for k in options if k not in ITEMS_OPTIONS]
    if other:
        raise SpecError(f"{where}options.{other[0]} does not apply to an evaluation log; the "
                        f"items model takes {', '.join(ITEMS_OPTIONS)}.")
    if options.get("method", "auto") not in ("auto", "nuts"):
        raise SpecError(f"{where}the items model is sampled with NUTS: options.method must be "
                        f"'auto' or 'nuts', got {options['method']!r}.")


def check_items_outputs(data: Any, tables: tuple[str, ...], figures: tuple[str, ...],
                        figure_metrics: tuple[str, ...], source: Any) -> None:
    """Tables and figures that do not fit the data (a log, or matrices and scores).

    For a log: the tables :data:`ITEMS_TABLES`, the figures of an items fit (the differences
    and ranks with two systems or more) and no ``figure_metrics``. For other data: no ``eval``
    table and no items figure.
    """
    where = _where(source)
    if not isinstance(data, Items):
        if "eval" in tables:
            raise SpecError(f"{where}outputs.tables: 'eval' is the table of an evaluation log "
                            "([data] items = \"log.csv\"); matrices have summary and "
                            "informedness.")
        asked = [f for f in figures if f in ITEMS_FIGURES]
        if asked:
            raise SpecError(f"{where}outputs.figures: {asked[0]!r} draws an evaluation log "
                            "([data] items = \"log.csv\" or dataset = \"eval_log\").")
        return
    bad = [t for t in tables if t not in ITEMS_TABLES]
    if bad:
        raise SpecError(f"{where}outputs.tables: {bad[0]!r} does not apply to an evaluation "
                        f"log; use {', '.join(ITEMS_TABLES)}.")
    wrong = [f for f in figures if f not in ITEMS_FIGURES]
    if wrong:
        raise SpecError(f"{where}outputs.figures: {wrong[0]!r} draws confusion matrices or "
                        f"scores; an evaluation log has {', '.join(ITEMS_FIGURES)}.")
    pairs = [f for f in figures if f in ("items_differences", "items_ranks")]
    if pairs and data.n_systems < 2:
        raise SpecError(f"{where}outputs.figures: {pairs[0]!r} compares systems; the log has "
                        "one (name its system column with [data] system = \"...\").")
    if figure_metrics:
        raise SpecError(f"{where}outputs.figure_metrics does not apply to an evaluation log "
                        "(its figures show the accuracy, the differences and pass@k).")
