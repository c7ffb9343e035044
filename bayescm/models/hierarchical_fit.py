"""Sampling the hierarchical model and assembling its result tree, with the diagnostics people see.

:func:`fit_hierarchical` runs NUTS on the model of
:func:`~bayescm.models.hierarchical_build.build_hierarchical_model` (nutpie when it is
installed, else PyMC's sampler; a high ``target_accept`` by default, see
:data:`DEFAULT_TARGET_ACCEPT`) and builds the tree: per-group rates and every binary
metric over the group dim, the population variables, the summary ROC, R-hat with bulk and
tail ESS, per-chain E-BFMI and divergences (in ``sample_stats``), and a ``group_info`` group
that says how much each group's estimate rests on its own data (:func:`pooling_weights`) and
flags the groups whose counts say little (``prior_dominated``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from bayescm.models.hierarchical_build import (
    GROUP_VARIABLES,
    LONG_NAMES,
    POPULATION_VARIABLES,
    build_hierarchical_model,
    sroc_draws,
)
from bayescm.models.hierarchical_priors import HIERARCHICAL_PARAMETERS
from bayescm.models.pooled import check_group_name, pooled_result, sample_first

__all__ = ["DEFAULT_TARGET_ACCEPT", "DEFAULT_TUNE", "INFORMATION_LIMIT",
           "e_bfmi", "fit_hierarchical", "pooling_weights", "sampler_defaults"]

DEFAULT_TARGET_ACCEPT = {"nutpie": 0.99, "pymc": 0.99}
"""NUTS's target acceptance rate per sampler unless the caller gives ``target_accept=``. The
non-centred model of groups of very different sizes (a large study with no false negatives
next to small ones, or large subgroups that agree next to tiny ones) has narrow curved
regions: at 0.95 both samplers diverged now and then on the shipped AUDIT-C and subgroup
data; at 0.99 with 2,000 tuning steps (:data:`DEFAULT_TUNE`) neither did."""
DEFAULT_TUNE = 2000
"""Tuning steps per chain unless the caller gives ``tune=``."""
INFORMATION_LIMIT = 1.0
"""A group is flagged ``prior_dominated`` when its own counts carry less information than this
about its logit TPR or logit TNR (``n p (1 - p) < 1``: a standard error above 1 on the logit
scale, e.g. fewer than about 11 positives at a TPR of 0.9, or none at all); its rates are then
mostly the population's. The flag is about the group's data, not about how similar the groups
are (a large pooling weight of a big group only says the groups agree)."""

def sampler_defaults(options: Mapping[str, Any], chains: int) -> dict[str, Any]:
    """NUTS settings the caller did not choose: nutpie when installed, target, tuning, cores.

    PyMC's own sampler runs chains in parallel processes only when it counts several cores,
    which it does not on some machines; here ``cores`` is the machine's CPUs (at most
    ``chains``).

    Examples
    --------
    >>> from bayescm.models.hierarchical_fit import sampler_defaults
    >>> sampler_defaults({"nuts_sampler": "pymc"}, chains=4)["target_accept"]
    0.99
    >>> sampler_defaults({"nuts_sampler": "nutpie", "target_accept": 0.9, "tune": 500},
    ...                  chains=4)
    {}
    """
    import os

    from bayescm.models.checks import require_nutpie

    sampler = options.get("nuts_sampler")
    out: dict[str, Any] = {}
    if sampler is None:
        try:
            require_nutpie()
            sampler = "nutpie"
        except ImportError:
            sampler = "pymc"
        out["nuts_sampler"] = sampler
    if "target_accept" not in options and sampler in DEFAULT_TARGET_ACCEPT:
        out["target_accept"] = DEFAULT_TARGET_ACCEPT[sampler]
    if "tune" not in options:
        out["tune"] = DEFAULT_TUNE
    if sampler == "pymc" and "cores" not in options:
        out["cores"] = max(1, min(chains, os.cpu_count() or 1))
    return out


def pooling_weights(n: np.ndarray, rate: np.ndarray, sd_logit: float | np.ndarray) -> np.ndarray:
    """The share of each group's estimate that comes from the population, not its own counts.

    On the logit scale a group's counts carry the information ``n p (1 - p)`` (``n`` items of
    the class, rate ``p``) and the population contributes the precision ``1 / sd^2`` (``sd``
    the between-group SD); the estimate is their precision-weighted mix, so the population's
    share is ``1 / (1 + n p (1 - p) sd^2)``: 0 for a group that speaks for itself, 1 for an
    empty group (whose estimate is the population's). It is large for every group when the
    groups agree (a small ``sd``); :data:`INFORMATION_LIMIT` flags groups with too little data.

    Parameters
    ----------
    n : array of int
        Items of the class in each group (positives for TPR, negatives for TNR).
    rate : array of float
        Each group's rate (the posterior mean).
    sd_logit : float or array
        Between-group SD on the logit scale (the posterior mean).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.hierarchical_fit import pooling_weights
    >>> np.round(pooling_weights(np.array([0, 4, 400]), np.array([0.8, 0.8, 0.8]), 0.5), 3)
    array([1.   , 0.862, 0.059])
    """
    info = np.asarray(n, dtype=float) * np.asarray(rate) * (1.0 - np.asarray(rate))
    return 1.0 / (1.0 + info * np.square(sd_logit))


def e_bfmi(energy: np.ndarray) -> np.ndarray:
    """Energy Bayesian fraction of missing information per chain (``energy``: chain x draw).

    ``mean((E_t - E_{t-1})^2) / var(E)``; below 0.3 the sampler explores the tails poorly
    (Betancourt 2016).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.hierarchical_fit import e_bfmi
    >>> energy = np.random.default_rng(0).normal(size=(2, 4000))  # independent draws
    >>> np.round(e_bfmi(energy), 1)
    array([2., 2.])
    """
    energy = np.asarray(energy, dtype=float)
    return np.square(np.diff(energy, axis=1)).mean(axis=1) / energy.var(axis=1)


def fit_hierarchical(ctx: Any, group: str, *, progressbar: bool, options: Mapping[str, Any]
                     ) -> Any:
    """Sample :func:`build_hierarchical_model` with NUTS and assemble the result tree.

    Called through ``bcm.fit(matrices, model="hierarchical", group=...)``
    (:meth:`~bayescm.models.hierarchical.HierarchicalModel.fit` validates the arguments);
    ``ctx`` is the fit's :class:`~bayescm.models.context.FitContext`.
    """
    import pymc as pm

    from bayescm.core import container as box
    from bayescm.core.streams import child

    names, counts, draws, chains = ctx.names, ctx.counts, ctx.draws, ctx.chains
    check_group_name(group, "hierarchical", HIERARCHICAL_PARAMETERS)
    model = build_hierarchical_model(names, counts, group, ctx.priors)
    kwargs = {**sampler_defaults(options, chains), **dict(options)}
    trace = pm.sample(draws=draws, chains=chains, model=model, progressbar=progressbar,
                      random_seed=int(child(ctx.seed, 0).generate_state(1)[0]),
                      compute_convergence_checks=False, **kwargs)
    post = trace["posterior"]

    def arr(name: str) -> np.ndarray:
        return sample_first(post, name)

    population: dict[str, tuple[tuple[str, ...], np.ndarray, str]] = {
        name: ((), arr(name), LONG_NAMES[name]) for name in POPULATION_VARIABLES}
    fpr_grid = np.linspace(0.0, 1.0, 101)
    flat = {k: arr(k).reshape(-1) for k in ("mu_logit_tpr", "mu_logit_tnr", "sd_logit_tpr",
                                              "sd_logit_tnr", "corr_logit")}
    sroc = sroc_draws(flat["mu_logit_tpr"], flat["mu_logit_tnr"], flat["sd_logit_tpr"],
                      flat["sd_logit_tnr"], flat["corr_logit"], fpr_grid)
    population["sroc"] = (("sroc_fpr",), sroc.reshape(chains, draws, -1), LONG_NAMES["sroc"])
    stats = box.get_group(trace, "sample_stats", foreign=True)
    if "energy" in stats:  # per chain, next to the sampler's own statistics
        stats["e_bfmi"] = (("chain",), e_bfmi(stats["energy"].transpose("chain", "draw").values),
                           {"long_name": "energy Bayesian fraction of missing information "
                                         "(below 0.3: the tails are explored poorly)"})
    rates = {p: arr(p) for p in GROUP_VARIABLES}
    info = _group_info(counts, rates, {k: arr(k) for k in ("sd_logit_tpr", "sd_logit_tnr")},
                       group)
    coords = {group: list(names), "rate": ["tpr", "tnr"]}
    group_info = box.make_dataset(info, coords, {
        "note": "pooling: the share of a group's logit-rate estimate that comes from the other "
                "groups, 1 / (1 + n p (1 - p) sd^2) at the posterior means; prior_dominated: "
                f"its counts' information n p (1 - p) below {INFORMATION_LIMIT} for TPR or TNR",
        "information_limit": INFORMATION_LIMIT})
    runs, between = _whole_runs(ctx, {k: arr(k) for k in SAMPLED_POPULATION}, population)
    tree = pooled_result(ctx, group, rates, population, method="nuts", runs=runs,
                         between=between, coords={"sroc_fpr": fpr_grid},
                         groups={"sample_stats": stats, "group_info": group_info},
                         target_accept=kwargs["target_accept"],
                         nuts_sampler=str(kwargs.get("nuts_sampler", "pymc")),
                         **ctx.seed_record())
    _warn(stats, info, list(names), group, kwargs["target_accept"],
          {name: arr(name) for name in (*SAMPLED_POPULATION, *GROUP_VARIABLES)})
    return tree


SAMPLED_POPULATION = ("mu_logit_tpr", "mu_logit_tnr", "sd_logit_tpr", "sd_logit_tnr",
                      "corr_logit")
"""The population parameters NUTS samples (the convergence check reads them and the groups')."""


def _whole_runs(ctx: Any, pop: Mapping[str, np.ndarray],
                population: Mapping[str, tuple[tuple[str, ...], np.ndarray, str]]) -> Any:
    """The population's mean run, a new run and new runs: every metric of a whole run.

    Runs share one prevalence, drawn from its prior updated with every run's counts (folds
    and seeds of one data set differ little in it; the between-run SD is that of the rates).
    """
    from bayescm.core.streams import child

    counts = np.asarray(ctx.counts)
    pos, neg = counts[:, 0].sum(), counts[:, 1].sum()
    prior = ctx.priors["prevalence"]
    rng = np.random.default_rng(child(ctx.seed, 2))
    prev = rng.beta(prior.alpha + pos, prior.beta + neg, size=(ctx.chains, ctx.draws))
    mean = {"tpr": population["tpr_mean"][1], "tnr": population["tnr_mean"][1],
            "prevalence": prev}
    new = {"tpr": population["tpr_new"][1], "tnr": population["tnr_new"][1],
           "prevalence": prev}

    def between(stream: np.random.Generator, block: slice, r: int) -> dict[str, np.ndarray]:
        p = {k: v[:, block, None] for k, v in pop.items()}
        z = stream.standard_normal((2, *p["mu_logit_tpr"].shape[:2], r))
        r_ = p["corr_logit"]
        logit_t = p["mu_logit_tpr"] + p["sd_logit_tpr"] * z[0]
        logit_n = p["mu_logit_tnr"] + p["sd_logit_tnr"] * (r_ * z[0]
                                                           + np.sqrt(1 - r_ * r_) * z[1])
        return {"tpr": 1 / (1 + np.exp(-logit_t)), "tnr": 1 / (1 + np.exp(-logit_n)),
                "prevalence": np.broadcast_to(prev[:, block, None], logit_t.shape)}

    return {"mean": mean, "new": new}, between


def _group_info(counts: np.ndarray, rates: Mapping[str, np.ndarray],
                scales: Mapping[str, np.ndarray], group: str) -> dict[str, Any]:
    """Items per class, pooling weights and the prior-dominated flag of each group."""
    n = np.stack([counts[:, 0, :].sum(axis=1), counts[:, 1, :].sum(axis=1)], axis=1)
    rate = np.stack([rates["tpr"].mean(axis=(0, 1)), rates["tnr"].mean(axis=(0, 1))], axis=1)
    sd = np.array([scales["sd_logit_tpr"].mean(), scales["sd_logit_tnr"].mean()])
    weights = pooling_weights(n, rate, sd)
    information = n * rate * (1.0 - rate)
    n_pos, n_neg = n[:, 0], n[:, 1]
    return {
        "n_positive": ((group,), n_pos, {"long_name": "items of the positive class"}),
        "n_negative": ((group,), n_neg, {"long_name": "items of the negative class"}),
        "pooling": ((group, "rate"), weights,
                    {"long_name": "share of the estimate that comes from the other groups"}),
        "prior_dominated": ((group,), (information < INFORMATION_LIMIT).any(axis=1),
                            {"long_name": "the group's rates rest mostly on the other groups"}),
    }


def _warn(stats: Any, info: Mapping[str, Any], names: list[str], group: str,
          target_accept: float, draws: Mapping[str, np.ndarray]) -> None:
    """The convergence check of every NUTS path, and prior-dominated groups, with remedies."""
    from bayescm.core.arguments import warn_user
    from bayescm.models.nuts import warn_convergence

    warn_convergence(stats, draws, target_accept,
                     "For the hierarchy: a stronger prior on the between-group scales "
                     "(priors={'sd_logit_tpr': bcm.priors.HalfNormal(0.5), ...}).")
    flagged = [name for name, bad in zip(names, info["prior_dominated"][1], strict=True) if bad]
    if flagged:
        warn_user(f"{len(flagged)} {group}(s) with too few items to speak for themselves "
                  f"({', '.join(flagged[:5])}{', ...' if len(flagged) > 5 else ''}): their "
                  "TPR or TNR estimate is mostly the other groups', so read it as the "
                  "population's, not their own (group_info['prior_dominated']). Remedy: more "
                  "test items for them.", UserWarning)
