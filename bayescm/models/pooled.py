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

import warnings
from collections.abc import Callable, Mapping
from typing import Any

import numpy as np
import xarray as xr

__all__ = ["POPULATION_ROWS", "RESERVED_DIMS", "check_group_name", "diagnostics_dataset",
           "on_group", "pooled_result", "sample_first"]

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


def sample_first(posterior: Any, name: str) -> np.ndarray:
    """The draws of ``posterior[name]`` as floats shaped ``(chain, draw, ...)``.

    Examples
    --------
    >>> import numpy as np
    >>> import xarray as xr
    >>> from bayescm.models.pooled import sample_first
    >>> post = xr.Dataset({"x": (("site", "chain", "draw"), np.zeros((3, 2, 5)))})
    >>> sample_first(post, "x").shape
    (2, 5, 3)
    """
    return np.asarray(posterior[name].transpose("chain", "draw", ...).values, dtype=float)


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

    kept = {name: (dims, np.asarray(values, dtype=float)) for name, (dims, values, _)
            in variables.items() if name not in ("theta", "sroc")}
    diag: dict[str, Any] = {}
    if kept:  # one call over every element of every variable: (chain, draw, elements)
        first = next(iter(kept.values()))[1]
        flat = np.concatenate([v.reshape(*first.shape[:2], -1) for _, v in kept.values()],
                              axis=2)
        every = np.stack([rhat(flat, "rank"), ess(flat, "bulk"), ess(flat, "tail")])
        start = 0
        for name, (dims, values) in kept.items():
            size = int(np.prod(values.shape[2:], dtype=int))
            diag[name] = (("diagnostic",) + dims[2:],
                          every[:, start:start + size].reshape(3, *values.shape[2:]),
                          {"long_name": f"diagnostics of {name}"})
            start += size
    return box.make_dataset(diag, coords, {
        "r_hat_method": "rank", "ess_method": "bulk",
        "note": "rank-normalised split R-hat, bulk and tail ESS (Vehtari et al. 2021); the "
                "chains' E-BFMI, for NUTS fits, is sample_stats['e_bfmi']"})


RUN_SUFFIXES = {"mean": "at the population's mean run", "new": "of a new run (predictive)",
                "sd": "between-run SD over runs of the population"}
"""What ``<metric>_mean``, ``<metric>_new`` and ``<metric>_sd`` of a pooled result mean."""

BETWEEN_RUNS = 100
"""Runs drawn from the population per posterior draw for ``<metric>_sd``."""

Runs = Callable[[np.random.Generator, slice, int], Mapping[str, np.ndarray]]
"""``runs(rng, draws, r)``: parameters of ``r`` new runs for the posterior draws ``draws`` of
every chain, shaped ``(chain, len(draws), r, ...)``."""


def pooled_result(ctx: Any, group: str, params: Mapping[str, np.ndarray],
                  population: Mapping[str, tuple[tuple[str, ...], np.ndarray, str]], *,
                  method: str, kind: Any = None,
                  runs: Mapping[str, Mapping[str, Any]] | None = None,
                  between: Runs | None = None, coords: Mapping[str, Any] | None = None,
                  groups: Mapping[str, xr.Dataset] | None = None,
                  **attrs: Any) -> xr.DataTree:
    """The result tree of a pooled fit of several groups' (or runs') matrices.

    Parameters
    ----------
    ctx : FitContext
        The fit's context (:class:`~bayescm.models.context.FitContext`): its labels, group
        names, counts ``(G, K, K)``, metrics and seed.
    group : str
        The group dim's name (checked with :func:`check_group_name`).
    params : mapping of str to ndarray
        Draws ``(chain, draw, G, ...)`` of each group's parameters: ``tpr``, ``tnr`` and
        ``prevalence`` of a binary result (the default ``kind``), or what ``kind`` derives from.
    population : mapping of str to (dims, ndarray, str)
        The population's own variables: extra dims after ``(chain, draw)``, the draws and a long
        name. A binary result gives ``tpr_mean``, ``tpr_new``, ``tnr_mean`` and ``tnr_new``
        (:data:`POPULATION_ROWS`) for the group forest's pooled and new-group rows.
    method : str
        How the draws were made (``"nuts"``, ``"exact"``), stored on the posterior and the root.
    kind : ModelKind, optional
        The kind whose ``derive`` turns parameters into metrics (default: the binary model).
    runs : mapping of str to mapping, optional
        Parameters of whole runs without the group dim, ``{"mean": {...}, "new": {...}}``:
        every metric is derived from them and stored as ``<metric>_mean`` and ``<metric>_new``
        (:data:`RUN_SUFFIXES`), unless ``population`` has that name already.
    between : callable, optional
        Draws new runs from the population (:data:`Runs`); every scalar metric's SD over
        :data:`BETWEEN_RUNS` of them per posterior draw is stored as ``<metric>_sd``.
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

    counts = np.asarray(ctx.counts)
    binary = kind is None
    kind = BinaryModel(ctx.kind.labels) if binary else kind
    priors = _flat_priors() if binary else dict(ctx.priors)
    metrics = list(ctx.metrics)
    skip = None if binary else ctx.undefined()
    derived = kind.derive({p: np.asarray(v, dtype=float) for p, v in params.items()}, priors,
                          metrics, skip=skip)
    variables = on_group(ctx.name_variables(derived, box.SAMPLE_DIMS, "keep"), group)
    for suffix, run in (runs or {}).items():
        whole = kind.derive(dict(run), priors, metrics)
        whole.pop("theta", None)
        _add_suffixed(variables, ctx.name_variables(whole, box.SAMPLE_DIMS, "none"), suffix,
                      population)
    if between is not None:
        spread = _between_sd(ctx, kind, priors, metrics, between)
        _add_suffixed(variables, ctx.name_variables(spread, box.SAMPLE_DIMS, "none"), "sd",
                      population)
    for name, (dims, values, long_name) in population.items():
        variables[name] = (box.SAMPLE_DIMS + tuple(dims), np.asarray(values),
                           {"long_name": long_name})
    first = next(iter(params.values()))
    all_coords = {"chain": np.arange(first.shape[0]), "draw": np.arange(first.shape[1]),
                  group: list(ctx.names), **kind.coords(),
                  "diagnostic": ["r_hat", "ess_bulk", "ess_tail"], **dict(coords or {})}
    out = {"posterior": box.make_dataset(variables, all_coords, {"method": method}),
           "diagnostics": diagnostics_dataset(variables, all_coords)}
    obs_params, obs_theta = kind.observed(counts, priors)
    observed = ctx.name_variables(kind.derive(obs_params, priors, metrics, theta=obs_theta,
                                              skip=skip), (), "keep")
    out["observed_metrics"] = box.make_dataset(
        on_group(observed, group), all_coords,
        {"note": "every per-group variable at the group's observed counts / N (unpooled)"})
    out["observed_data"] = box.make_dataset(
        {"counts": ((group, "true_class", "pred_class"), counts,
                    {"long_name": "confusion matrix counts of each group"})}, all_coords)
    out.update(groups or {})
    return assemble(ctx, out, method=method, **attrs)


def _flat_priors() -> dict[str, Any]:
    from bayescm.priors import Beta

    return {"prevalence": Beta(1, 1), "tpr": Beta(1, 1), "tnr": Beta(1, 1)}


def _add_suffixed(variables: dict[str, Any], named: Mapping[str, Any], suffix: str,
                  population: Mapping[str, Any]) -> None:
    """``named`` as ``<name>_<suffix>`` with its long name saying which run it describes."""
    for name, (dims, values, attrs) in named.items():
        key = f"{name}_{suffix}"
        if key in population:
            continue
        long_name = attrs.get("long_name", name)
        variables[key] = (dims, values, {**attrs,
                                         "long_name": f"{long_name}, {RUN_SUFFIXES[suffix]}"})


def _between_sd(ctx: Any, kind: Any, priors: Mapping[str, Any], metrics: list[Any],
                between: Runs) -> dict[str, tuple[tuple[str, ...], np.ndarray]]:
    """Per posterior draw, each scalar metric's SD over :data:`BETWEEN_RUNS` new runs."""
    from bayescm.core.streams import child

    scalar = [m for m in metrics if m.kind != "per_class"]
    rng = np.random.default_rng(child(ctx.seed, 7))
    out = {m.name: np.empty((ctx.chains, ctx.draws)) for m in scalar}
    # about 200,000 cells per block of draws: a few arrays of a few MB each
    step = max(1, 200_000 // (ctx.chains * BETWEEN_RUNS * len(ctx.kind.labels) ** 2))
    for lo in range(0, ctx.draws, step):
        block = slice(lo, min(lo + step, ctx.draws))
        params = dict(between(rng, block, BETWEEN_RUNS))
        derived = kind.derive(params, priors, scalar)
        # scalar parameters (a binary run's tpr and tnr) are metrics of a run as well
        values = {**{k: v for k, v in params.items() if np.ndim(v) == 3},
                  **{m.name: derived[m.name][1] for m in scalar}}
        for name, v in values.items():
            with warnings.catch_warnings():  # a metric undefined in every run: NaN
                warnings.simplefilter("ignore", RuntimeWarning)
                sd = np.nanstd(np.asarray(v, dtype=float), axis=2, ddof=1)
            out.setdefault(name, np.empty((ctx.chains, ctx.draws)))[:, block] = sd
    # a parameter the runs share (a binary run's prevalence) does not vary: no SD of it
    return {name: ((), v) for name, v in out.items() if np.any(v > 1e-9)}
