"""Sampling the items model and assembling its result tree, with the convergence check.

:func:`fit_items` (reached through ``bcm.fit(bcm.Items(...))``) samples the model of
:mod:`bayescm.models.items` with NUTS: nutpie on the written-out density of
:mod:`bayescm.models.items_density` when nutpie is installed and the priors are ones that
density knows (no compilation: the kernels are numba functions cached on disk), otherwise the
PyMC model of :mod:`bayescm.models.items_build` (with nutpie or PyMC's own sampler). Either way
it then computes the estimands per draw (:mod:`bayescm.models.items_estimands`), runs
:func:`bayescm.models.nuts.warn_convergence` and builds the tree: ``posterior``,
``sample_stats``, ``diagnostics``, ``observed_data`` (successes and attempts per system and
item, each item's cluster) and ``observed_metrics`` (the observed accuracy of each system: the
mean over items of each item's share of correct attempts).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from bayescm.models.items_density import K_GRID, SCALES, Layout

__all__ = ["DEFAULT_TARGET_ACCEPT", "DEFAULT_TUNE", "OPTIONS", "SCALES", "fit_items"]

DEFAULT_TUNE = 1000
"""Tuning steps per chain unless ``tune=`` is given."""
DEFAULT_TARGET_ACCEPT = 0.95
"""NUTS's target acceptance rate unless ``target_accept=`` is given (the non-centred effects of
items with few attempts next to items with many leave curved regions; 0.9 avoided the
occasional divergences of 0.8 in the simulation study)."""
OPTIONS = ("tune", "target_accept", "cores", "nuts_sampler", "progressbar")
"""The sampler options ``fit`` takes for an items log."""


def _check_options(ctx: Any, options: Mapping[str, Any]) -> dict[str, Any]:
    from bayescm.core.arguments import did_you_mean
    from bayescm.core.validate import check_int, check_real

    options = {k: v for k, v in options.items() if v is not None}
    if "group" in options:
        raise ValueError("group= belongs to model='hierarchical'; an items log names its "
                         "clusters with bcm.Items(..., cluster=).")
    unknown = [k for k in options if k not in OPTIONS]
    if unknown:
        raise TypeError(f"fit() of an items log got an unknown keyword argument "
                        f"{unknown[0]!r}; sampler options for items: {', '.join(OPTIONS)}."
                        f"{did_you_mean(unknown[0], OPTIONS)}")
    if ctx.method not in ("auto", "nuts"):
        raise ValueError(f"The items model is sampled with NUTS; method={ctx.method!r} is not "
                         "available for it.")
    sampler = options.get("nuts_sampler")
    if sampler not in (None, "nutpie", "pymc"):
        raise ValueError(f"nuts_sampler must be 'nutpie' or 'pymc', got {sampler!r}.")
    out = {"tune": check_int(options.get("tune", DEFAULT_TUNE), "tune", 0),
           "target_accept": check_real(options.get("target_accept", DEFAULT_TARGET_ACCEPT),
                                       "target_accept", 0.5, 0.999),
           "cores": check_int(options.get("cores", min(ctx.chains, 2)), "cores", 1),
           "progressbar": bool(options.get("progressbar", False)), "nuts_sampler": sampler}
    return out


def _nutpie_available() -> bool:
    from importlib.util import find_spec

    return find_spec("nutpie") is not None


def _initial_point(data: Any, layout: Layout, seed: int) -> np.ndarray:
    """Start near the data: each system's logit accuracy, scales of 0.5, small effects."""
    rng = np.random.default_rng(seed)
    x = rng.normal(0.0, 0.3, layout.ndim)
    y, n = data.successes.sum(axis=1), data.attempts.sum(axis=1)
    share = np.clip((y + 0.5) / (n + 1.0), 0.02, 0.98)
    x[:layout.n_systems] = np.log(share / (1 - share)) + rng.normal(0, 0.2, layout.n_systems)
    s = layout.n_systems
    x[s:s + len(layout.scales)] = np.log(0.5) + rng.normal(0, 0.2, len(layout.scales))
    return x


def _sample_written(data: Any, layout: Layout, priors: Mapping[str, Any], ctx: Any,
                    opts: Mapping[str, Any], seed: int) -> tuple[dict[str, np.ndarray], Any]:
    """Sample the written-out density with nutpie: draws of every stored quantity, sample stats."""
    import nutpie
    from nutpie.compiled_pyfunc import from_pyfunc

    from bayescm.models.items_density import _kernel, draw_summaries, prior_arrays

    y = data.successes.astype(float)
    n = data.attempts.astype(float)
    cl = (data.cluster_index if data.cluster_index is not None
          else np.zeros(layout.n_items, dtype=np.int64)).astype(np.int64)
    arrays, flags = prior_arrays(layout, priors), layout.flags

    def make_logp() -> Any:
        def logp(x: np.ndarray, **_: Any) -> tuple[float, np.ndarray]:
            grad = np.empty(x.size)
            return _kernel(x, y, n, cl, flags, arrays, grad), grad
        return logp

    def make_expand(*_: Any) -> Any:
        def expand(x: np.ndarray, **__: Any) -> dict[str, np.ndarray]:
            out = draw_summaries(x, layout, cl)
            return {name: out[name] for name in names}  # in the declared order
        return expand

    names = ["mu_logit", *layout.scales, "accuracy_items", "pass_items", "all_items",
             "difficulty"]
    s, i, k = layout.n_systems, layout.n_items, len(K_GRID)
    shapes = [(s,), *[()] * len(layout.scales), (s,), (s, k), (s, k), (i,)]
    dims = {"mu_logit": ("system",), "accuracy_items": ("system",),
            "pass_items": ("system", "k"), "all_items": ("system", "k"), "difficulty": ("item",)}
    model = from_pyfunc(layout.ndim, make_logp, make_expand, [np.dtype("float64")] * len(names),
                        shapes, names, coords={"system": data.systems, "item": data.items,
                                               "k": [str(k) for k in K_GRID]}, dims=dims,
                        make_initial_point_fn=lambda sd: _initial_point(data, layout, sd))
    trace = nutpie.sample(model, draws=ctx.draws, tune=opts["tune"], chains=ctx.chains,
                          cores=opts["cores"], seed=seed, progress_bar=opts["progressbar"],
                          target_accept=opts["target_accept"], save_warmup=False)
    post = trace["posterior"]
    out = {name: np.asarray(post[name].transpose("chain", "draw", ...).values, dtype=float)
           for name in names}
    return out, trace["sample_stats"].to_dataset()


def _sample_pymc(data: Any, layout: Layout, priors: Mapping[str, Any], ctx: Any,
                 opts: Mapping[str, Any], seed: int) -> tuple[dict[str, np.ndarray], Any]:
    """The PyMC model (any prior), sampled by nutpie when installed, else by PyMC."""
    import pymc as pm

    from bayescm.core import container as box
    from bayescm.models.items_build import build_items_model
    from bayescm.models.items_density import summaries_of_draws

    sampler = opts["nuts_sampler"] or ("nutpie" if _nutpie_available() else "pymc")
    model = build_items_model(data, priors)
    trace = pm.sample(draws=ctx.draws, tune=opts["tune"], chains=ctx.chains, model=model,
                      random_seed=seed, progressbar=opts["progressbar"],
                      target_accept=opts["target_accept"], cores=opts["cores"],
                      nuts_sampler=sampler, compute_convergence_checks=False)
    post = trace["posterior"]

    def arr(name: str) -> np.ndarray:
        return np.asarray(post[name].transpose("chain", "draw", ...).values, dtype=float)

    c, d = ctx.chains, ctx.draws
    parts = [arr("mu_logit").reshape(c * d, -1)]
    parts += [np.log(arr(name)).reshape(c * d, 1) for name in layout.scales]
    for name in ("z_cluster", "z_item", "z_system_item"):
        if name in post:
            parts.append(arr(name).reshape(c * d, -1))
    cl = (data.cluster_index if data.cluster_index is not None
          else np.zeros(layout.n_items, dtype=np.int64)).astype(np.int64)
    out = summaries_of_draws(np.concatenate(parts, axis=1), layout, cl)
    out = {k: v.reshape((c, d) + v.shape[1:]) for k, v in out.items()}
    return out, box.get_group(trace, "sample_stats", foreign=True)


def fit_items(ctx: Any, options: Mapping[str, Any]) -> Any:
    """Sample the items model of ``ctx.data`` and assemble the result tree (see the module).

    Called through ``bcm.fit(items)``; ``options`` are the sampler options of :data:`OPTIONS`.
    """
    from bayescm.core.streams import child
    from bayescm.models.items_build import scales_of
    from bayescm.models.items_density import fast_priors

    data = ctx.data
    opts = _check_options(ctx, options)
    layout = Layout(data.n_systems, data.n_items,
                    0 if data.cluster_index is None else data.n_clusters, scales_of(data))
    seed = int(child(ctx.seed, 0).generate_state(1)[0])
    written = opts["nuts_sampler"] != "pymc" and _nutpie_available() and fast_priors(ctx.priors)
    if written:
        draws, stats = _sample_written(data, layout, ctx.priors, ctx, opts, seed)
        sampler = "nutpie (written-out density)"
    else:
        draws, stats = _sample_pymc(data, layout, ctx.priors, ctx, opts, seed)
        sampler = opts["nuts_sampler"] or ("nutpie" if _nutpie_available() else "pymc")
    from bayescm.models.items_tree import items_tree

    return items_tree(ctx, layout, draws, stats, sampler, opts["target_accept"])

