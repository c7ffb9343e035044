"""Stratified audits in analysis specs: the strata's labelled counts and population sizes.

A spec fits the kind ``"stratified"`` (:mod:`bayescm.models.stratified`) with::

    [data.strata.flagged]             # one table per stratum: the labelled items' counts
    tp = 150                          #   tp/fn/tn/fp (binary), or counts = [[...]] with
    fp = 50                           #   labels = [...] in [data] (any classes); cells a
    fn = 0                            #   stratum cannot hold (by prediction) are 0
    tn = 0
    [data.strata.unflagged]
    tp = 0
    fp = 0
    fn = 3
    tn = 297
    [data.sizes]                      # each stratum's number of items in the population
    flagged = 3_000
    unflagged = 997_000

    [priors]
    cells = {dist = "Dirichlet", alpha = 1}   # per possible cell of a stratum (the default)

    [options]
    draws = 5000                      # exact draws: draws, chains, seed, hdi_prob, metrics,
    finite = true                     #   finite (the population's own matrix; false: the
                                      #   super-population)

These become ``bcm.fit(bcm.StratifiedSample(counts, sizes), priors={"cells": ...},
draws=...)``; every other key is a :class:`~bayescm.errors.SpecError` naming it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bayescm.errors import SpecError
from bayescm.io.spec_parse import CELL_KEYS, _check_keys, _where, parse_prior

__all__ = ["STRATA_DATA_KEYS", "STRATA_OPTIONS", "is_strata_data", "parse_strata_data",
           "parse_strata_options", "parse_strata_priors"]

STRATA_DATA_KEYS = ("strata", "sizes", "labels", "positive")
"""The keys of ``[data]`` for a stratified audit."""
STRATA_OPTIONS = ("draws", "chains", "seed", "hdi_prob", "metrics", "finite")
"""The ``[options]`` a stratified audit takes (exact draws: no sampler options)."""


def is_strata_data(data: Any) -> bool:
    """Whether ``[data]`` holds a stratified audit (``[data.strata]``).

    Examples
    --------
    >>> from bayescm.io.spec_strata import is_strata_data
    >>> is_strata_data({"strata": {}, "sizes": {}}), is_strata_data({"tp": 3})
    (True, False)
    """
    return isinstance(data, Mapping) and "strata" in data


def parse_strata_data(data: Mapping[str, Any], source: Any) -> Any:
    """The :class:`~bayescm.StratifiedSample` of ``[data.strata]`` and ``[data.sizes]``.

    Examples
    --------
    >>> from bayescm.io.spec_strata import parse_strata_data
    >>> audit = parse_strata_data({"strata": {"flagged": {"tp": 15, "fp": 5, "fn": 0, "tn": 0},
    ...                                       "other": {"tp": 0, "fp": 0, "fn": 1, "tn": 29}},
    ...                            "sizes": {"flagged": 300, "other": 9_700}}, None)
    >>> audit.strata, audit.by_prediction
    (['flagged', 'other'], True)
    """
    from bayescm.core.confusion import ConfusionMatrix
    from bayescm.core.stratified import StratifiedSample

    where = _where(source)
    _check_keys(data, STRATA_DATA_KEYS, "data", source)
    strata, sizes = data["strata"], data.get("sizes")
    if not isinstance(strata, Mapping) or not strata:
        raise SpecError(f"{where}[data.strata] must hold one table per stratum (tp/fn/tn/fp or "
                        "counts = [[...]]).")
    if not isinstance(sizes, Mapping):
        raise SpecError(f"{where}a stratified audit needs [data.sizes]: each stratum's number "
                        "of items in the population (stratum = N).")
    labels = data.get("labels")
    counts: dict[str, Any] = {}
    try:
        for name, cells in strata.items():
            if not isinstance(cells, Mapping):
                raise SpecError(f"{where}[data.strata.{name}] must be a table, got {cells!r}.")
            if "counts" in cells:
                _check_keys(cells, ("counts",), f"data.strata.{name}", source)
                counts[str(name)] = ConfusionMatrix(cells["counts"], labels=labels,
                                                    positive=data.get("positive"))
                continue
            _check_keys(cells, CELL_KEYS, f"data.strata.{name}", source)
            missing = [k for k in CELL_KEYS if k not in cells]
            if missing:
                raise SpecError(f"{where}[data.strata.{name}] is missing {', '.join(missing)} "
                                "(0 for a cell the stratum cannot hold).")
            counts[str(name)] = ConfusionMatrix.from_counts(
                tp=cells["tp"], fn=cells["fn"], tn=cells["tn"], fp=cells["fp"],
                labels=labels or ("positive", "negative"))
        return StratifiedSample(counts, {str(k): v for k, v in sizes.items()})
    except SpecError:
        raise
    except (TypeError, ValueError) as err:
        raise SpecError(f"{where}[data] (a stratified audit): {err}") from None
    except OverflowError as err:  # stays an OverflowError (bayescm's rule), with the place
        raise OverflowError(f"{where}[data] (a stratified audit): {err}") from None


def parse_strata_options(options: Mapping[str, Any], source: Any) -> dict[str, Any]:
    """``finite`` checked and the other options left to the common reader.

    Examples
    --------
    >>> from bayescm.io.spec_strata import parse_strata_options
    >>> parse_strata_options({"draws": 100, "finite": False}, None)
    {'finite': False}
    """
    where = _where(source)
    _check_keys(options, STRATA_OPTIONS, "options (a stratified audit, exact draws)", source)
    finite = options.get("finite", True)
    if not isinstance(finite, bool):
        raise SpecError(f"{where}options.finite must be true (the population's own matrix) or "
                        f"false (the super-population), got {finite!r}.")
    return {} if "finite" not in options else {"finite": finite}


def parse_strata_priors(priors: Mapping[str, Any], source: Any) -> dict[str, Any]:
    """``[priors] cells = ...``: the one prior of a stratified audit, as ``priors={...}``.

    Examples
    --------
    >>> from bayescm.io.spec_strata import parse_strata_priors
    >>> parse_strata_priors({"cells": {"dist": "Dirichlet", "alpha": 0.5}}, None)
    {'priors': {'cells': Dirichlet(alpha=0.5)}}
    """
    where = _where(source)
    _check_keys(priors, ("cells",), "priors (a stratified audit: each stratum's cells)", source)
    if not priors:
        return {}
    try:
        return {"priors": {"cells": parse_prior(priors["cells"], "cells")}}
    except (TypeError, ValueError) as err:
        raise SpecError(f"{where}priors.cells: {err}") from None
