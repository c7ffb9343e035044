"""The result of a kind that pools groups: per-group rates and metrics, and the population's rows.

A kind that declares ``pooled_groups = True`` (the hierarchical model, or one of your own) hands
its draws to :func:`pooled_result`, which lays them out the way the summary, the comparisons,
the group forest, the subgroup gaps and the spec runner read them:

- ``posterior``: the per-group parameters (``tpr``, ``tnr``, ``prevalence``) and every selected
  binary metric derived from them, on the group dim the user named; the population's variables
  without it. Those named in :data:`POPULATION_ROWS` (``tpr_mean`` and ``tpr_new``, the same for
  TNR) are the pooled and new-group rows a group forest draws under the groups.
- ``observed_metrics``: every per-group variable at the group's own counts (unpooled).
- ``observed_data``: the counts, ``(group, true_class, pred_class)``.
- ``diagnostics``: R-hat, bulk and tail ESS of every variable (:func:`diagnostics_dataset`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

__all__ = ["POPULATION_ROWS", "RESERVED_DIMS", "check_group_name", "diagnostics_dataset",
           "on_group", "pooled_result"]

POPULATION_ROWS = {"tpr": ("tpr_mean", "tpr_new"), "tnr": ("tnr_mean", "tnr_new")}
"""For a per-group rate, the population variables of its pooled row and its new-group row."""

RESERVED_DIMS = ("chain", "draw", "classifier", "sroc_fpr", "logit", "diagnostic", "true_class",
                 "pred_class", "rate")
"""Dims and coordinates a pooled result uses itself: a group dim may not take these names."""

GROUP_PARAMETERS = ("tpr", "tnr", "prevalence")
"""The per-group parameters of a binary pooled result (the rest is derived from them)."""


def check_group_name(group: Any, model: str, taken: tuple[str, ...] = ()) -> str:
    """``group`` if it can name the group dim, else a ValueError that says what to give.

    Examples
    --------
    >>> from bayescm.models.pooled import check_group_name
    >>> check_group_name("site", "hierarchical")
    'site'
    >>> check_group_name("draw", "hierarchical")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: group='draw' is a name bayescm uses for another dim or variable; ...
    """
    if not isinstance(group, str) or not group.isidentifier():
        raise ValueError(f"model={model!r} needs group='name' naming the group dim (e.g. "
                         f"'site', 'study', 'subgroup'), got group={group!r}.")
    if group in RESERVED_DIMS or group in taken or group in GROUP_PARAMETERS:
        raise ValueError(f"group={group!r} is a name bayescm uses for another dim or variable; "
                         "choose another (e.g. 'study', 'site', 'subgroup').")
    return group


def on_group(variables: Mapping[str, Any], group: str) -> dict[str, Any]:
    """Rename the batch axis ``classifier`` of ``{name: (dims, values, attrs)}`` to ``group``."""
    return {k: (tuple(group if d == "classifier" else d for d in dims), v, a)
            for k, (dims, v, a) in variables.items()}


def diagnostics_dataset(variables: Mapping[str, Any], coords: Mapping[str, Any]) -> xr.Dataset:
    """R-hat, bulk and tail ESS of every variable but the curves (a ``diagnostic`` dim).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.pooled import diagnostics_dataset
    >>> x = np.random.default_rng(0).normal(size=(2, 500))
    >>> ds = diagnostics_dataset({"x": (("chain", "draw"), x, {})},
    ...                          {"diagnostic": ["r_hat", "ess_bulk", "ess_tail"]})
    >>> bool(ds["x"].sel(diagnostic="r_hat") < 1.01)
    True
    """
    from bayescm.core import container as box
    from bayescm.core.diagnostics import ess, rhat

    diag: dict[str, Any] = {}
    for name, (dims, values, _) in variables.items():
        if name in ("theta", "sroc"):
            continue
        diag[name] = (("diagnostic",) + dims[2:],
                      np.stack([rhat(values, "rank"), ess(values, "bulk"), ess(values, "tail")]),
                      {"long_name": f"diagnostics of {name}"})
    return box.make_dataset(diag, coords, {
        "r_hat_method": "rank", "ess_method": "bulk",
        "note": "rank-normalised split R-hat, bulk and tail ESS (Vehtari et al. 2021); the "
                "chains' E-BFMI, for NUTS fits, is sample_stats['e_bfmi']"})


def pooled_result(ctx: Any, group: str, params: Mapping[str, np.ndarray],
                  population: Mapping[str, tuple[tuple[str, ...], np.ndarray, str]], *,
                  method: str, coords: Mapping[str, Any] | None = None,
                  groups: Mapping[str, xr.Dataset] | None = None,
                  **attrs: Any) -> xr.DataTree:
    """The result tree of a pooled fit of several groups' binary matrices.

    Parameters
    ----------
    ctx : FitContext
        The fit's context (:class:`~bayescm.models.context.FitContext`): its labels, group
        names, counts ``(G, 2, 2)``, metrics and seed.
    group : str
        The group dim's name (checked with :func:`check_group_name`).
    params : mapping of str to ndarray
        Draws ``(chain, draw, G)`` of each group's ``tpr``, ``tnr`` and ``prevalence``.
    population : mapping of str to (dims, ndarray, str)
        The population's variables: extra dims after ``(chain, draw)``, the draws and a long
        name. Give ``tpr_mean``, ``tpr_new``, ``tnr_mean`` and ``tnr_new``
        (:data:`POPULATION_ROWS`) for the group forest's pooled and new-group rows.
    method : str
        How the draws were made (``"nuts"``, ``"exact"``), stored on the posterior and the root.
    coords : mapping, optional
        Coordinates of the population variables' own dims.
    groups : mapping of str to Dataset, optional
        More groups of the tree (``sample_stats``, ``group_info``).
    **attrs
        More root attributes (the sampler, its settings).

    Returns
    -------
    xarray.DataTree
        A result in the layout of the module docstring.

    Examples
    --------
    >>> import numpy as np
    >>> import bayescm as bcm
    >>> from bayescm.models.context import FitContext
    >>> from bayescm.models.pooled import pooled_result
    >>> sites = {"a": bcm.ConfusionMatrix.from_counts(tp=9, fn=1, fp=2, tn=18),
    ...          "b": bcm.ConfusionMatrix.from_counts(tp=7, fn=3, fp=1, tn=19)}
    >>> ctx = FitContext.from_arguments(sites, model="binary", draws=100, chains=2,
    ...                                 random_seed=0)
    >>> rng = np.random.default_rng(0)
    >>> params = {p: rng.uniform(size=(2, 100, 2)) for p in ("tpr", "tnr", "prevalence")}
    >>> population = {v: ((), rng.uniform(size=(2, 100)), v)
    ...               for v in ("tpr_mean", "tpr_new", "tnr_mean", "tnr_new")}
    >>> tree = pooled_result(ctx, "site", params, population, method="exact")
    >>> tree["posterior"]["ppv"].dims, float(tree["observed_metrics"]["tpr"][0])
    (('chain', 'draw', 'site'), 0.9)
    """
    from bayescm.core import container as box
    from bayescm.models.binary import BinaryModel
    from bayescm.models.context import assemble
    from bayescm.priors import Beta

    counts = np.asarray(ctx.counts)
    kind = BinaryModel(ctx.kind.labels)
    flat = {"prevalence": Beta(1, 1), "tpr": Beta(1, 1), "tnr": Beta(1, 1)}
    derived = kind.derive({p: np.asarray(params[p], dtype=float) for p in GROUP_PARAMETERS},
                          flat, list(ctx.metrics))
    variables = on_group(ctx.name_variables(derived, box.SAMPLE_DIMS, "keep"), group)
    for name, (dims, values, long_name) in population.items():
        variables[name] = (box.SAMPLE_DIMS + tuple(dims), np.asarray(values),
                           {"long_name": long_name})
    first = next(iter(params.values()))
    all_coords = {"chain": np.arange(first.shape[0]), "draw": np.arange(first.shape[1]),
                  group: list(ctx.names), "true_class": kind.labels, "pred_class": kind.labels,
                  "diagnostic": ["r_hat", "ess_bulk", "ess_tail"], **dict(coords or {})}
    out = {"posterior": box.make_dataset(variables, all_coords, {"method": method}),
           "diagnostics": diagnostics_dataset(variables, all_coords)}
    obs_params, obs_theta = kind.observed(counts, flat)
    observed = ctx.name_variables(kind.derive(obs_params, flat, list(ctx.metrics),
                                              theta=obs_theta), (), "keep")
    out["observed_metrics"] = box.make_dataset(
        on_group(observed, group), all_coords,
        {"note": "every per-group variable at the group's observed counts / N (unpooled)"})
    out["observed_data"] = box.make_dataset(
        {"counts": ((group, "true_class", "pred_class"), counts,
                    {"long_name": "confusion matrix counts of each group"})}, all_coords)
    out.update(groups or {})
    return assemble(ctx, out, method=method, **attrs)
