"""The result tree of an items fit: the draws, the estimands, diagnostics, the observed log.

:func:`items_tree` turns the sampled draws of :mod:`bayescm.models.items_fit` into the tree
(see :mod:`bayescm.models.items` for what the posterior holds) and runs the convergence check
of every NUTS path (:func:`bayescm.models.nuts.warn_convergence`).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

import numpy as np

from bayescm.metrics.items import ITEM_METRICS
from bayescm.models.items_density import K_GRID, Layout

__all__ = ["DIAGNOSED_ITEMS", "LONG_NAMES", "items_tree", "observed_accuracy", "pair_names"]

DIAGNOSED_ITEMS = 2000
"""Per-item variables (``difficulty``) get R-hat and ESS, and join the convergence check, up to
this many items (beyond, their diagnostics would cost more than the fit's summaries)."""
LONG_NAMES = {
    "difficulty": "item difficulty: the item's log-odds handicap shared by the systems "
                  "(cluster and item effects; higher is harder)",
    "pass_items": "pass@k over these items: mean of 1 - (1 - p)^k",
    "all_items": "all k attempts succeed, over these items: mean of p^k",
    "accuracy_diff": "difference of expected accuracies on a new item (B - A)",
    "accuracy_items_diff": "difference of mean accuracies over these items (B - A)",
}


def observed_accuracy(successes: np.ndarray, attempts: np.ndarray) -> np.ndarray:
    """Each system's observed accuracy: the mean over its answered items of successes/attempts.

    Items weigh the same whatever their attempts (as Miller 2024's mean of per-item scores).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.items_tree import observed_accuracy
    >>> observed_accuracy(np.array([[2, 0, 5]]), np.array([[2, 4, 0]])).tolist()
    [0.5]
    """
    n = np.asarray(attempts, dtype=float)
    answered = n > 0
    share = np.divide(successes, n, out=np.zeros_like(n), where=answered)
    return share.sum(axis=1) / np.maximum(answered.sum(axis=1), 1)


def pair_names(systems: list[str]) -> tuple[list[str], np.ndarray, np.ndarray]:
    """Every pair ``"B - A"`` (B the later system) and the positions of B and A.

    Examples
    --------
    >>> from bayescm.models.items_tree import pair_names
    >>> names, b, a = pair_names(["x", "y", "z"])
    >>> names, b.tolist(), a.tolist()
    (['y - x', 'z - x', 'z - y'], [1, 2, 2], [0, 0, 1])
    """
    pairs = list(itertools.combinations(range(len(systems)), 2))
    names = [f"{systems[j]} - {systems[i]}" for i, j in pairs]
    return (names, np.array([j for _, j in pairs], dtype=np.int64),
            np.array([i for i, _ in pairs], dtype=np.int64))


def items_tree(ctx: Any, layout: Layout, draws: Mapping[str, np.ndarray], stats: Any,
               sampler: str, target_accept: float) -> Any:
    """Assemble the tree of an items fit from its draws ``(chain, draw, ...)`` and stats."""
    from bayescm.core import container as box
    from bayescm.models.context import assemble
    from bayescm.models.items_estimands import estimands
    from bayescm.models.pooled import diagnostics_dataset

    data = ctx.data
    keep = data.named_systems or data.n_systems > 1
    sys_dims: tuple[str, ...] = ("system",) if keep else ()
    lead = box.SAMPLE_DIMS
    long_names = {**{m.name: m.long_name for m in ITEM_METRICS.values()},
                  **ctx.kind.parameter_long_names, **LONG_NAMES}
    variables: dict[str, Any] = {}

    def put(name: str, extra: tuple[str, ...], arr: np.ndarray, per_system: bool) -> None:
        if per_system and not keep:
            arr = arr[:, :, 0]
        dims = lead + (sys_dims if per_system else ()) + extra
        variables[name] = (dims, np.ascontiguousarray(arr), {"long_name": long_names[name]})

    mu = draws["mu_logit"]
    scales = {name: draws[name] for name in layout.scales}
    est = estimands(mu, scales, data.attempts, data.cluster_index)
    put("mu_logit", (), mu, True)
    for name in layout.scales:
        put(name, (), scales[name], False)
    put("accuracy", (), est["accuracy"], True)
    put("accuracy_items", (), draws["accuracy_items"], True)
    for name in ("icc_item", "icc_cluster", "design_effect", "effective_n"):
        if name in est:
            put(name, (), est[name], True)
    pairs, b, a = pair_names(data.systems)
    if pairs:
        put("accuracy_diff", ("pair",), est["accuracy"][..., b] - est["accuracy"][..., a], False)
        put("accuracy_items_diff", ("pair",),
            draws["accuracy_items"][..., b] - draws["accuracy_items"][..., a], False)
    put("difficulty", ("item",), draws["difficulty"], False)
    put("pass_items", ("k",), draws["pass_items"], True)
    put("all_items", ("k",), draws["all_items"], True)
    coords: dict[str, Any] = {"chain": np.arange(ctx.chains), "draw": np.arange(ctx.draws),
                              "system": data.systems, "item": data.items, "k": list(K_GRID),
                              "pair": pairs, "diagnostic": ["r_hat", "ess_bulk", "ess_tail"]}
    big = data.n_items > DIAGNOSED_ITEMS
    skip = ("pass_items", "all_items", *(("difficulty",) if big else ()))
    diagnosed = {k: v for k, v in variables.items() if k not in skip}
    groups = {"posterior": box.make_dataset(variables, coords, {"method": "nuts"}),
              "diagnostics": diagnostics_dataset(diagnosed, coords),
              "sample_stats": stats[[v for v in stats.data_vars
                                     if set(stats[v].dims) <= {"chain", "draw"}]]}
    observed = observed_accuracy(data.successes, data.attempts)
    obs: dict[str, Any] = {}
    for name in ("accuracy", "accuracy_items"):
        obs[name] = (sys_dims, observed if keep else observed[0],
                     {"long_name": f"observed {name}: mean over the items of their share of "
                                   "correct attempts"})
    if pairs:
        for name in ("accuracy_diff", "accuracy_items_diff"):
            obs[name] = (("pair",), observed[b] - observed[a], {"long_name": long_names[name]})
    groups["observed_metrics"] = box.make_dataset(obs, coords, {
        "note": "plug-in values: each item's share of correct attempts, averaged over items"})
    logged: dict[str, Any] = {"successes": (("system", "item"), data.successes,
                            {"long_name": "correct attempts per system and item"}),
              "attempts": (("system", "item"), data.attempts,
                           {"long_name": "attempts per system and item (0: not answered)"})}
    if data.clusters is not None:
        logged["cluster"] = (("item",), np.asarray(data.clusters, dtype=object)[
            data.cluster_index].astype(str), {"long_name": "the cluster of each item"})
    groups["observed_data"] = box.make_dataset(logged, coords)
    tree = assemble(ctx, groups, method="nuts", nuts_sampler=sampler,
                    target_accept=target_accept, n_items=data.n_items,
                    n_clusters=data.n_clusters if data.clusters is not None else 0,
                    columns=box.json_attr(data.columns), **ctx.seed_record())
    from bayescm.models.nuts import warn_convergence

    checked = {name: draws[name] for name in ("mu_logit", *layout.scales, "accuracy_items")}
    checked["accuracy"] = est["accuracy"]
    if not big:
        checked["difficulty"] = draws["difficulty"]
    warn_convergence(stats, checked, target_accept,
                     "For an items log: a stronger prior on the scales (priors={'sd_item': "
                     "bcm.priors.HalfNormal(1), ...}) or more tuning (tune=1000).")
    return tree
