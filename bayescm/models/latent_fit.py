"""Sampling the latent class models with NUTS and assembling their result trees.

The Hui-Walter (:mod:`bayescm.models.hui_walter`) and Dawid-Skene
(:mod:`bayescm.models.dawid_skene`) kinds build a small PyMC model on counts (the latent class
marginalised), sample it here with nutpie when it is installed (PyMC's sampler otherwise, or
with ``nuts_sampler="pymc"``), run the one convergence check of every NUTS path
(:func:`bayescm.models.nuts.warn_convergence`) and lay the tree out: ``posterior``,
``sample_stats``, ``diagnostics``, ``observed_data`` and ``observed_metrics``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["DEFAULT_TARGET_ACCEPT", "DEFAULT_TUNE", "OPTIONS", "check_options", "latent_tree",
           "sample_latent"]

DEFAULT_TUNE = 1000
"""Tuning steps per chain unless ``tune=`` is given."""
DEFAULT_TARGET_ACCEPT = 0.9
"""NUTS's target acceptance rate unless ``target_accept=`` is given."""
OPTIONS = ("tune", "target_accept", "cores", "nuts_sampler", "progressbar", "initvals")
"""The sampler options ``fit`` takes for test results and ratings."""


def check_options(ctx: Any, options: Mapping[str, Any], what: str,
                  prefer: str = "nutpie") -> dict[str, Any]:
    """The sampler options of a latent class fit, checked (unknown keywords are errors).

    ``prefer`` is the kind's default sampler: ``"nutpie"`` (when installed; PyMC's otherwise)
    or ``"pymc"``. Measured on this project's 2-core machine, a Hui-Walter fit is faster with
    PyMC's sampler (its compiled C code is cached on disk across processes; nutpie compiles
    numba kernels in every process: 9.8 s against 13.7 s at load 3.3), a Dawid-Skene fit of
    1,000 items with nutpie (20.8 s against 33.6 s).

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from bayescm.models.latent_fit import check_options
    >>> ctx = SimpleNamespace(method="auto", chains=4)
    >>> check_options(ctx, {"tune": 500}, "test results")["tune"]
    500
    >>> check_options(ctx, {"tunes": 500}, "test results")
    Traceback (most recent call last):
    ...
    TypeError: fit() of test results got an unknown keyword argument 'tunes'; ...
    """
    from bayescm.core.arguments import did_you_mean
    from bayescm.core.validate import check_int, check_real

    options = {k: v for k, v in options.items() if v is not None}
    if "group" in options:
        raise ValueError(f"group= belongs to model='hierarchical'; {what} name their groups "
                         "in the input object.")
    unknown = [k for k in options if k not in OPTIONS]
    if unknown:
        raise TypeError(f"fit() of {what} got an unknown keyword argument {unknown[0]!r}; "
                        f"sampler options: {', '.join(OPTIONS)}."
                        f"{did_you_mean(unknown[0], OPTIONS)}")
    if ctx.method not in ("auto", "nuts"):
        raise ValueError(f"A latent class model is sampled with NUTS; method={ctx.method!r} is "
                         "not available for it (use method='auto' or 'nuts').")
    sampler = options.get("nuts_sampler")
    if sampler not in (None, "nutpie", "pymc"):
        raise ValueError(f"nuts_sampler must be 'nutpie' or 'pymc', got {sampler!r}.")
    if sampler is None:
        from importlib.util import find_spec

        sampler = "nutpie" if prefer == "nutpie" and find_spec("nutpie") is not None else "pymc"
    return {"tune": check_int(options.get("tune", DEFAULT_TUNE), "tune", 0),
            "target_accept": check_real(options.get("target_accept", DEFAULT_TARGET_ACCEPT),
                                        "target_accept", 0.5, 0.999),
            "cores": check_int(options.get("cores", min(ctx.chains, 2)), "cores", 1),
            "progressbar": bool(options.get("progressbar", False)), "nuts_sampler": sampler,
            "initvals": options.get("initvals")}


def sample_latent(model: Any, names: list[str], ctx: Any, opts: Mapping[str, Any]
                  ) -> tuple[dict[str, np.ndarray], Any]:
    """NUTS draws ``(chain, draw, ...)`` of the named variables and the sample statistics."""
    import pymc as pm

    from bayescm.core import container as box
    from bayescm.core.streams import child

    seed = int(child(ctx.seed, 0).generate_state(1)[0])
    extra: dict[str, Any] = {}
    if opts.get("initvals") is not None:
        extra["initvals"] = opts["initvals"]
    trace = pm.sample(draws=ctx.draws, tune=opts["tune"], chains=ctx.chains, model=model,
                      random_seed=seed, progressbar=opts["progressbar"],
                      target_accept=opts["target_accept"], cores=opts["cores"],
                      nuts_sampler=opts["nuts_sampler"], compute_convergence_checks=False,
                      **extra)
    post = trace["posterior"]
    out = {name: np.asarray(post[name].transpose("chain", "draw", ...).values, dtype=float)
           for name in names}
    return out, box.get_group(trace, "sample_stats", foreign=True)


def latent_tree(ctx: Any, variables: Mapping[str, tuple[tuple[str, ...], np.ndarray]],
                coords: Mapping[str, Any], stats: Any, observed: Mapping[str, Any],
                observed_metrics: Mapping[str, Any], checked: list[str], opts: Mapping[str, Any],
                remedy: str, skip_diagnostics: tuple[str, ...] = (), **attrs: Any) -> Any:
    """The result tree of a latent class fit (draws ``(chain, draw, ...)``; see the module).

    ``variables`` maps a name to its extra dims and draws; ``observed`` and
    ``observed_metrics`` map a name to ``(dims, values, long_name)``; ``checked`` names the
    variables the convergence check reads.
    """
    from bayescm.core import container as box
    from bayescm.models.context import assemble
    from bayescm.models.nuts import warn_convergence
    from bayescm.models.pooled import diagnostics_dataset

    long_names = ctx.kind.long_names()
    lead = box.SAMPLE_DIMS
    post = {name: (lead + dims, np.ascontiguousarray(arr), {"long_name": long_names[name]})
            for name, (dims, arr) in variables.items()}
    full = {"chain": np.arange(ctx.chains), "draw": np.arange(ctx.draws), **coords,
            "diagnostic": ["r_hat", "ess_bulk", "ess_tail"]}
    groups = {"posterior": box.make_dataset(post, full, {"method": "nuts"}),
              "diagnostics": diagnostics_dataset(
                  {k: v for k, v in post.items() if k not in skip_diagnostics}, full),
              "sample_stats": stats[[v for v in stats.data_vars
                                     if set(stats[v].dims) <= {"chain", "draw"}]],
              "observed_data": box.make_dataset(
                  {k: (d, v, {"long_name": n}) for k, (d, v, n) in observed.items()}, full),
              "observed_metrics": box.make_dataset(
                  {k: (d, v, {"long_name": n}) for k, (d, v, n) in observed_metrics.items()},
                  full, {"note": "plug-in values of the data"})}
    tree = assemble(ctx, groups, method="nuts", nuts_sampler=str(opts["nuts_sampler"]),
                    target_accept=float(opts["target_accept"]), **attrs, **ctx.seed_record())
    warn_convergence(stats, {name: variables[name][1] for name in checked},
                     float(opts["target_accept"]), remedy)
    return tree

