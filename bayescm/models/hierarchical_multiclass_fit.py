"""Sampling the multiclass hierarchical model and drawing its runs: the result tree.

:func:`fit_multiclass_hierarchical` runs NUTS on the population of
:func:`~bayescm.models.hierarchical_multiclass.build_multiclass_hierarchical` (nutpie when it is
installed, else PyMC's sampler), then draws every run's class shares and rates from their exact
conditional posteriors (Dirichlet, given the population draw and the run's counts), a new run
from the population, and hands them to :func:`~bayescm.models.pooled.pooled_result`: every
multiclass metric per run, at the population's mean run (``_mean``), for a new run (``_new``)
and as a between-run SD (``_sd``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pymc as pm

__all__ = ["build_multiclass_hierarchical", "fit_multiclass_hierarchical", "run_draws"]

CELL_DIMS = ("true_class", "pred_class")

SAMPLED = ("prevalence", "rates", "spread", "prevalence_spread")
"""The population parameters NUTS samples (the convergence check reads them)."""


def run_draws(rng: np.random.Generator, population: Mapping[str, np.ndarray],
              counts: np.ndarray | None = None, runs: int = 1) -> dict[str, np.ndarray]:
    """Class shares and rates of runs given population draws (and, for fitted runs, counts).

    Parameters
    ----------
    rng : numpy.random.Generator
        The stream.
    population : mapping of str to ndarray
        ``prevalence`` ``(..., K)``, ``rates`` ``(..., K, K)``, ``spread`` ``(..., K)`` and
        ``prevalence_spread`` ``(...)``: population draws with any leading shape.
    counts : ndarray, optional
        ``(G, K, K)``: the fitted runs' counts; their conditional posteriors are drawn, with a
        ``G`` axis after the leading ones. Without: ``runs`` new runs from the population.
    runs : int, default 1
        New runs per population draw (a trailing axis of that length; only without counts).

    Returns
    -------
    dict of str to ndarray
        ``prevalence`` ``(..., G or runs, K)`` and ``rates`` ``(..., G or runs, K, K)``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.hierarchical_multiclass_fit import run_draws
    >>> pop = {"prevalence": np.full((5, 2), 0.5), "rates": np.tile(np.eye(2) * 0.8 + 0.1,
    ...        (5, 1, 1)), "spread": np.full((5, 2), 1e-3), "prevalence_spread": np.full(5, 1e-3)}
    >>> new = run_draws(np.random.default_rng(0), pop, runs=3)
    >>> new["rates"].shape, bool(np.allclose(new["rates"][..., 0, 0], 0.9, atol=0.01))
    ((5, 3, 2, 2), True)
    """
    from bayescm.core.exact import dirichlet_each

    conc = 1.0 / np.square(np.asarray(population["spread"], dtype=float))  # (..., K)
    p_conc = 1.0 / np.square(np.asarray(population["prevalence_spread"], dtype=float))
    rate_a = conc[..., :, None] * population["rates"]  # (..., K, K)
    prev_a = p_conc[..., None] * population["prevalence"]  # (..., K)
    if counts is None:
        rate_a = np.repeat(rate_a[..., None, :, :], runs, axis=-3)
        prev_a = np.repeat(prev_a[..., None, :], runs, axis=-2)
    else:
        counts = np.asarray(counts, dtype=float)
        rate_a = rate_a[..., None, :, :] + counts
        prev_a = prev_a[..., None, :] + counts.sum(axis=-1)
    return {"prevalence": dirichlet_each(rng, prev_a), "rates": dirichlet_each(rng, rate_a)}


def fit_multiclass_hierarchical(ctx: Any, group: str, options: Mapping[str, Any]) -> Any:
    """Sample the population with NUTS, draw the runs and assemble the result tree."""
    import pymc as pm

    from bayescm.core import container as box
    from bayescm.core.streams import child
    from bayescm.models.checks import sampler_options
    from bayescm.models.hierarchical_fit import e_bfmi, sampler_defaults
    from bayescm.models.nuts import warn_convergence
    from bayescm.models.pooled import pooled_result, sample_first

    options = dict(options)
    progressbar = bool(options.pop("progressbar", False))
    options = sampler_options("nuts", None, {**sampler_defaults(options, ctx.chains),
                                             **options})
    counts = np.asarray(ctx.counts)
    model = build_multiclass_hierarchical(ctx.names, counts, group, ctx.kind.labels,
                                          ctx.priors)
    trace = pm.sample(draws=ctx.draws, chains=ctx.chains, model=model, progressbar=progressbar,
                      random_seed=int(child(ctx.seed, 0).generate_state(1)[0]),
                      compute_convergence_checks=False, **options)
    post = trace["posterior"]

    def arr(name: str) -> np.ndarray:
        return sample_first(post, name)

    pop = {name: arr(name) for name in SAMPLED}
    rng = np.random.default_rng(child(ctx.seed, 1))
    fitted = run_draws(rng, pop, counts)
    new = {k: v[..., 0, :] if k == "prevalence" else v[..., 0, :, :]
           for k, v in run_draws(rng, pop, runs=1).items()}
    mean = {"prevalence": pop["prevalence"], "rates": pop["rates"]}

    def between(stream: np.random.Generator, block: slice, r: int) -> dict[str, np.ndarray]:
        return run_draws(stream, {k: v[:, block] for k, v in pop.items()}, runs=r)

    # the population's prevalence and rates are those of its mean run (prevalence_mean,
    # rates_mean, from ``runs``); its spreads keep their parameter names
    population = {
        "spread": (("true_class",), pop["spread"],
                   "between-run spread of each class's rates (1 / sqrt(concentration))"),
        "prevalence_spread": ((), pop["prevalence_spread"],
                              "between-run spread of the class shares")}
    stats = box.get_group(trace, "sample_stats", foreign=True)
    if "energy" in stats:
        stats["e_bfmi"] = (("chain",), e_bfmi(stats["energy"].transpose("chain", "draw").values),
                           {"long_name": "energy Bayesian fraction of missing information"})
    tree = pooled_result(ctx, group, fitted, population, method="nuts", kind=ctx.kind,
                         runs={"mean": mean, "new": new}, between=between,
                         groups={"sample_stats": stats},
                         target_accept=options["target_accept"],
                         nuts_sampler=str(options.get("nuts_sampler", "pymc")),
                         **ctx.seed_record())
    warn_convergence(stats, pop, options["target_accept"],
                     "For the runs: a stronger prior on the spreads "
                     "(priors={'spread': bcm.priors.HalfNormal(0.1)}).")
    return tree


def build_multiclass_hierarchical(names: Sequence[Any], counts: np.ndarray, group: str,
                                  labels: Sequence[str], priors: Mapping[str, Any]) -> pm.Model:
    """The PyMC model of several runs' ``(G, K, K)`` counts, the runs' rates integrated out.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.hierarchical_multiclass import MulticlassHierarchicalModel
    >>> from bayescm.models.hierarchical_multiclass_fit import build_multiclass_hierarchical
    >>> kind = MulticlassHierarchicalModel(["a", "b", "c"])
    >>> counts = np.array([[[9, 1, 0], [1, 8, 1], [0, 2, 8]]] * 3)
    >>> model = build_multiclass_hierarchical(["x", "y", "z"], counts, "fold", kind.labels,
    ...                                       kind.resolve_priors(None, {}))
    >>> sorted(rv.name for rv in model.free_RVs)
    ['prevalence', 'prevalence_spread', 'rates', 'spread']
    """
    import pymc as pm

    from bayescm.priors.multiclass import prevalence_variable

    counts = np.asarray(counts, dtype=np.int64)
    k = counts.shape[-1]
    rows = counts.sum(axis=-1)  # (G, K)
    coords = {group: [str(n) for n in names], "true_class": list(labels),
              "pred_class": list(labels), "class": list(labels)}
    with pm.Model(coords=coords) as model:
        pi = prevalence_variable("prevalence", priors["prevalence"], (k,), ("class",), (k,))
        rates = prevalence_variable("rates", priors["rates"], (k, k), CELL_DIMS, (k, k))
        spread = priors["spread"].create_variable("spread", dims=("true_class",))
        p_spread = priors["prevalence_spread"].create_variable("prevalence_spread")
        conc = pm.Deterministic("concentration", 1.0 / pm.math.sqr(spread),
                                dims=("true_class",))
        p_conc = 1.0 / pm.math.sqr(p_spread)
        # the counts as data, so one compiled model refits new counts of the same runs
        # (nutpie's with_data; the simulation-based calibration test does)
        rows_d = pm.Data("class_counts_data", rows, dims=(group, "class"))
        counts_d = pm.Data("row_counts_data", counts, dims=(group, *CELL_DIMS))
        pm.DirichletMultinomial("class_counts", n=rows_d.sum(axis=-1), a=p_conc * pi,
                                observed=rows_d, dims=(group, "class"))
        pm.DirichletMultinomial("row_counts", n=rows_d, a=conc[:, None] * rates,
                                observed=counts_d, dims=(group, *CELL_DIMS))
    return model
