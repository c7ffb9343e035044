"""``fit``: from confusion matrices to a result tree with the posterior of every metric.

The pipeline is the same for every model kind (binary, multiclass): resolve priors and metrics,
draw the parameters (exactly with NumPy, or with NUTS), derive ``theta`` and every metric with
the same vectorised functions for the posterior, the prior and the observed matrix, compute
diagnostics, and assemble the tree. What differs between kinds lives in the kind object
(:class:`bayescm.models.binary.BinaryModel`, :class:`bayescm.models.multiclass.MulticlassModel`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.confusion import ConfusionMatrix, as_batch
from bayescm.core.resources import check_memory
from bayescm.core.scores import Scores
from bayescm.core.stats import HDI_PROB, check_prob
from bayescm.core.streams import record, seed_sequence
from bayescm.core.validate import HINTS as _HINTS
from bayescm.metrics.base import Metric, resolve_metrics
from bayescm.models.binary import matrices_counts
from bayescm.models.build import checked_overrides, model_kind
from bayescm.models.pipeline import (
    DIAGNOSTIC_METHODS,
    DIAGNOSTIC_NOTES,
    check_int,
    constant_data,
    diagnostic_variables,
    name_variables,
    observed_derived,
    prior_draws,
    sample_array,
    seeds,
    stored_values,
    tree_attrs,
)
from bayescm.priors.base import Fixed, is_conjugate

__all__ = ["PrevalenceMismatchWarning", "PriorStrengthWarning", "fit"]

METHODS = ("auto", "exact", "nuts")
class PriorStrengthWarning(UserWarning):
    """A prior carries more than a tenth of the information of a row of the confusion matrix."""


def _check_prior_strength(kind: Any, priors: Mapping[str, Any], counts: np.ndarray,
                          names: list[str] | None) -> None:
    """Warn when a multiclass row's prior pseudo-counts exceed a tenth of its test items."""
    rates = priors.get("rates")
    if kind.name != "multiclass" or not is_conjugate(rates):
        return
    from bayescm.models.multiclass import _alpha

    k = counts.shape[-1]
    strength = _alpha(rates, (k, k)).sum(axis=-1)  # (K,)
    rows = counts.sum(axis=-1)  # (B, K)
    heavy = (rows > 0) & (strength[None, :] > 0.1 * rows)
    if not heavy.any():
        return
    b, i = map(int, np.argwhere(heavy)[0])
    who = f" of classifier {names[b]!r}" if names is not None else ""
    remedy = ("more test items for the class (the 'weak' default is already the lightest named "
              "prior)" if rates.name == "weak" else "more test items for the class, or a weaker "
              "prior (prior='weak', the default, puts 4/K per row; 'flat' puts K)")
    warnings.warn(
        f"The {rates.name} prior puts {strength[i]:.3g} pseudo-counts in the row of class "
        f"{kind.labels[i]!r}{who}, which has {int(rows[b, i])} test items: more than a tenth, "
        f"so the prior visibly shapes that class's rates. Remedy: {remedy}.",
        PriorStrengthWarning, stacklevel=3)


class PrevalenceMismatchWarning(UserWarning):
    """The counts are implausible under a fixed prevalence (a sign of a mixed-up question)."""


def _check_fixed_prevalence(priors: Mapping[str, Any], counts: np.ndarray,
                            names: list[str] | None) -> None:
    """Warn when a fixed prevalence is far from the test set's own class shares.

    A fixed prevalence describes how the test set was composed; evaluating a classifier at
    another population's prevalence is :func:`bayescm.with_prevalence`'s job.
    """
    fixed = priors.get("prevalence")
    if not isinstance(fixed, Fixed):
        return
    from scipy import stats  # only fits with a fixed prevalence need it
    share = np.atleast_1d(np.asarray(fixed.value, dtype=float))
    rows = counts.sum(axis=2)  # (B, K)
    if share.size == 1:
        share = np.array([share[0], 1 - share[0]])
    for i, row in enumerate(rows):
        n = int(row.sum())
        if n == 0:
            continue
        if share.size == 2:
            p = stats.binomtest(int(row[0]), n, float(share[0])).pvalue
        else:
            p = stats.chisquare(row, n * share).pvalue
        if p < 1e-3:
            who = f"classifier {names[i]!r}: " if names is not None else ""
            observed = ", ".join(f"{v:.0%}" for v in row / n)
            wanted = ", ".join(f"{v:.0%}" for v in share)
            warnings.warn(
                f"{who}the test set's class shares ({observed}) are implausible under the fixed "
                f"prevalence ({wanted}); p = {p:.1g}. Fixed describes how the test set was "
                "composed. To evaluate the classifier at another population's prevalence, fit "
                "without Fixed and use bcm.with_prevalence(idata, ...).",
                PrevalenceMismatchWarning, stacklevel=3)
            return


_SET_BY_FIT = ("draws", "chains", "random_seed", "progressbar", "return_inferencedata")


def _sampler_options(method: str, sampler_kwargs: Mapping[str, Any] | None,
                     nuts_options: Mapping[str, Any]) -> dict[str, Any]:
    """Validated ``pymc.sample`` options; none are allowed on the exact path."""
    if sampler_kwargs is not None and not isinstance(sampler_kwargs, Mapping):
        raise TypeError(f"sampler_kwargs must be a mapping of pymc.sample options, got "
                        f"{sampler_kwargs!r}.")
    options = {**dict(sampler_kwargs or {}), **dict(nuts_options)}
    if not options:
        return {}
    taken = [k for k in options if k in _SET_BY_FIT]
    if taken:
        hint = "".join(dict.fromkeys(_HINTS.get(k, "") for k in taken))
        raise TypeError(f"fit() got the keyword argument(s) {taken}, which fit sets itself; "
                        "pass draws=, chains=, random_seed=, progressbar= as fit's own "
                        f"arguments.{hint}")
    unknown = [k for k in options if k not in nuts_option_names()]
    if unknown:
        own = ("data, prior, prevalence, tpr, tnr, rates, method, draws, chains, random_seed, "
               "metrics, hdi_prob, progressbar, sampler_kwargs, priors, model, group")
        hint = _HINTS.get(unknown[0], "")
        raise TypeError(
            f"fit() got an unknown keyword argument {unknown[0]!r}; valid keywords: {own}, "
            "and pymc.sample options for method='nuts' (e.g. tune, target_accept, cores, "
            f"max_treedepth).{hint}")
    if method == "exact":
        raise ValueError(
            f"The keyword arguments {sorted(options)} are NUTS sampler options, but this fit "
            "uses the exact "
            "(closed-form) sampler, which has none. Drop them, or pass method='nuts' to sample "
            "with PyMC.")
    return options


def nuts_option_names() -> frozenset[str]:
    """Options ``pymc.sample`` accepts (its own parameters and the NUTS step's)."""
    import inspect

    import pymc as pm

    own = set(inspect.signature(pm.sample).parameters) - {"kwargs", "step", "model"} - set(
        _SET_BY_FIT)
    nuts = {"target_accept", "max_treedepth", "early_max_treedepth", "step_scale",
            "adapt_step_size", "max_energy_error", "gamma", "k", "t0"}
    return frozenset(own | nuts)


def _merged_priors(priors: Mapping[str, Any] | None, keywords: Mapping[str, Any]
                   ) -> dict[str, Any]:
    """``priors={...}`` merged with the per-parameter keywords (both for one is an error)."""
    if priors is None:
        return dict(keywords)
    if not isinstance(priors, Mapping):
        raise TypeError(f"priors must be a mapping {{parameter: prior}}, got {priors!r}.")
    both = [k for k, v in keywords.items() if v is not None and k in priors]
    if both:
        raise ValueError(f"The prior of {both[0]} is given twice (priors={{...}} and "
                         f"{both[0]}=); give it once.")
    return {**dict(keywords), **{k: v for k, v in priors.items() if k not in keywords or
                                 keywords[k] is None}}


def _fit_hierarchical(data: Any, group: Any, priors: Any, flat_priors: tuple[Any, ...],
                      method: str, draws: int | None, chains: int, random_seed: Any,
                      metrics: Any, hdi_prob: float, progressbar: bool, sampler_kwargs: Any,
                      options: Mapping[str, Any]) -> xr.DataTree:
    """``fit(..., model="hierarchical")``: checks, then :mod:`bayescm.models.hierarchical`."""
    from bayescm.models.hierarchical import fit_hierarchical

    if not isinstance(group, str) or not group.isidentifier():
        raise ValueError(f"model='hierarchical' needs group='name' naming the group dim (e.g. "
                         f"'site', 'study', 'subgroup'), got group={group!r}.")
    if not isinstance(data, Mapping):
        raise TypeError("model='hierarchical' needs a mapping {group name: binary "
                        f"ConfusionMatrix}}, got {type(data).__name__}.")
    names, mats = as_batch(data)
    if not mats[0].is_binary:
        raise ValueError("model='hierarchical' pools binary matrices (give each a positive "
                         "class); multiclass pooling is not available.")
    if flat_priors[0] is not None or any(v is not None for v in flat_priors[1:]):
        raise ValueError("The hierarchical model's priors are set with priors={...} (keys: "
                         "mu_logit_tpr, mu_logit_tnr, sd_logit_tpr, sd_logit_tnr, corr_logit, "
                         "prevalence), not prior=/prevalence=/tpr=/tnr=.")
    if method not in ("auto", "nuts"):
        raise ValueError(f"The hierarchical model is sampled with NUTS; method={method!r} is "
                         "not available for it.")
    draws = check_int(1000 if draws is None else draws, "draws", 1)
    chains = check_int(chains, "chains", 1)
    hdi_prob = check_prob(hdi_prob)
    seq = seed_sequence(random_seed)
    options = {**dict(sampler_kwargs or {}), **dict(options)}
    unknown = [k for k in options if k not in nuts_option_names()]
    if unknown:
        raise TypeError(f"fit() got an unknown keyword argument {unknown[0]!r}; valid "
                        "keywords: pymc.sample options such as tune, target_accept, cores.")
    from bayescm.models.binary import BinaryModel

    kind = BinaryModel(mats[0].coords)
    selected = kind.select_metrics(resolve_metrics(metrics, kind.catalogue, kind.name), {})
    return fit_hierarchical(names or [], matrices_counts(mats), group, priors=priors,
                            draws=draws, chains=chains, seed=seq, selected=selected,
                            hdi_prob=hdi_prob, progressbar=progressbar, options=options)


_SCORE_OPTIONS = ("threshold", "fpr_range", "grid_size", "n_bins")


def _fit_scores(data: Scores, prior: Any, overrides: tuple[Any, ...], method: str,
                draws: int | None, chains: int, random_seed: Any, metrics: Any, hdi_prob: float,
                sampler_kwargs: Any, options: Mapping[str, Any]) -> xr.DataTree:
    """``fit`` of scored items: the Bayesian bootstrap of :mod:`bayescm.models.scores`."""
    from bayescm.models.scores import fit_scores

    unknown = [k for k in options if k not in _SCORE_OPTIONS]
    if unknown:
        raise TypeError(f"fit() of Scores got an unknown keyword argument {unknown[0]!r}; "
                        f"valid keywords for scores: draws, chains, random_seed, metrics, "
                        f"hdi_prob, {', '.join(_SCORE_OPTIONS)}.")
    if prior is not None or any(v is not None for v in overrides) or sampler_kwargs:
        raise ValueError("Scores are analysed with the Bayesian bootstrap, which has no "
                         "parameter priors or sampler options; drop prior=, prevalence=, tpr=, "
                         "tnr=, rates= and sampler_kwargs=.")
    if method not in ("auto", "exact", "bootstrap"):
        raise ValueError(f"Scores are analysed with method='bootstrap' (exact draws), got "
                         f"{method!r}.")
    return fit_scores(data, draws=1000 if draws is None else draws, chains=chains,
                      random_seed=random_seed, metrics=metrics, hdi_prob=hdi_prob, **options)


def _choose_method(method: str, priors: Mapping[str, Any]) -> str:
    if method not in METHODS:
        raise ValueError(f"Unknown method {method!r}; use one of {', '.join(METHODS)}.")
    conjugate = all(is_conjugate(p) for p in priors.values())
    if method == "exact" and not conjugate:
        custom = [k for k, p in priors.items() if not is_conjugate(p)]
        raise ValueError(
            f"method='exact' needs conjugate priors (Beta, Dirichlet or Fixed), but {custom} "
            "have custom priors; use method='nuts' or 'auto'."
        )
    if method == "auto":
        return "exact" if conjugate else "nuts"
    return method


def fit(
    data: ConfusionMatrix | Mapping[str, ConfusionMatrix] | Scores,
    prior: Any = None,
    prevalence: Any = None,
    tpr: Any = None,
    tnr: Any = None,
    *,
    rates: Any = None,
    method: str = "auto",
    draws: int | None = None,
    chains: int = 4,
    random_seed: int | np.random.SeedSequence | np.random.Generator | None = None,
    metrics: Iterable[str | Metric] | str | Metric | None = None,
    hdi_prob: float = HDI_PROB,
    progressbar: bool = False,
    sampler_kwargs: Mapping[str, Any] | None = None,
    priors: Mapping[str, Any] | None = None,
    model: str = "auto",
    group: str | None = None,
    **nuts_options: Any,
) -> xr.DataTree:
    """Posterior of every metric of a confusion matrix (or a batch of them).

    Parameters
    ----------
    data : ConfusionMatrix, mapping of name -> ConfusionMatrix, or Scores
        One matrix, or several of the same classes; a mapping gives one tree with a
        ``classifier`` dim (the exact path draws the whole batch in one vectorised step).
        :class:`~bayescm.Scores` (labels and scores) give the posterior of whole ROC and PR
        curves, the AUC and calibration (:func:`bayescm.models.scores.fit_scores`, whose options
        ``threshold``, ``fpr_range``, ``grid_size`` and ``n_bins`` pass through).
    prior : str or prior, optional
        Prior of every parameter not given separately. Default: Laplace (uniform) for a binary
        matrix and ``"weak"`` for K classes, a prior whose strength does not grow with K
        (:class:`~bayescm.Weak`; it is Laplace at K = 2). Names: ``"weak"``, ``"laplace"``,
        ``"jeffreys"`` (for K classes: a uniform / Jeffreys Beta on each row's correct rate,
        errors spread evenly), ``"flat"`` (Dirichlet(1) on every cell, the pre-0.2 multiclass
        default), ``"haldane"``; or a :class:`~bayescm.Beta` (binary),
        :class:`~bayescm.Dirichlet` (multiclass), or an object with ``create_variable(name)``
        (sampled with NUTS).
    prevalence : prior, optional
        Prior of the class prevalence; :class:`~bayescm.Fixed` for a curated test set whose
        share of each class was chosen, not observed.
    tpr, tnr : prior, optional
        Binary matrices: priors of the true positive and true negative rates.
    rates : prior, optional
        Multiclass matrices: prior of each true class's row of prediction rates.
    method : {"auto", "exact", "nuts"}
        ``"exact"`` draws from the closed-form posterior (NumPy); ``"nuts"`` samples
        :func:`~bayescm.build_model` with PyMC; ``"auto"`` picks exact when every prior is
        conjugate.
    draws, chains : int
        Draws per chain and number of chains (default 4 x 5,000 = 20,000, as in the paper;
        4 x 1,000 for :class:`~bayescm.Scores`).
    random_seed : int, numpy SeedSequence or numpy Generator, optional
        Same seed, same draws. A Generator's state is used (and advanced). The seed actually
        used (fresh entropy when None) is recorded in the attributes ``random_seed`` (and
        ``random_seed_spawn_key``), so ``random_seed=int(idata.attrs["random_seed"])`` redraws
        a fit made with an integer seed or None.
    metrics : list of str or Metric, optional
        Metrics to compute (aliases accepted, custom :class:`~bayescm.Metric` objects too);
        default all. The parameters and ``theta`` are always stored.
    hdi_prob : float, default 0.95
        Recorded as the tree's default interval probability for :func:`~bayescm.analyses.summary`.
    progressbar : bool, default False
        Show PyMC's progress bar (NUTS).
    sampler_kwargs : mapping, optional
        Options for ``pymc.sample`` (NUTS only), e.g. ``{"tune": 2000, "target_accept": 0.95}``.
    priors : mapping of parameter name -> prior, optional
        Priors keyed by parameter, e.g. ``{"tpr": bcm.Beta(10, 2), "prevalence":
        bcm.Fixed(0.5)}``; the same as the ``prevalence=``, ``tpr=``, ``tnr=``, ``rates=``
        keywords (giving one parameter both ways is an error). For ``model="hierarchical"``
        the keys are :data:`bayescm.models.hierarchical.HIERARCHICAL_PARAMETERS`.
    model : {"auto", "hierarchical"}
        ``"auto"``: the binary or multiclass model of each matrix. ``"hierarchical"``: the
        bivariate binomial-normal model of several binary matrices with partial pooling
        (:mod:`bayescm.models.hierarchical`; NUTS, 4 x 1,000 draws by default).
    group : str, optional
        With ``model="hierarchical"``: the name of the group dim (``"site"``, ``"study"``,
        ``"subgroup"``, ...).
    **nuts_options
        The same options as keywords (``tune=``, ``target_accept=``, ``cores=``, ...);
        ``target_accept`` defaults to 0.9 (PyMC's 0.8 leaves occasional divergences where a
        rate's posterior piles against 0 or 1). Names
        ``pymc.sample`` does not know raise a TypeError listing the valid ones, and any of them
        on the exact path raises a ValueError (the exact sampler has no such options).

    Returns
    -------
    xarray.DataTree
        Groups ``posterior``, ``prior`` (absent for improper priors), ``observed_data``
        (``counts``), ``observed_metrics`` (every posterior variable evaluated at counts / N),
        ``diagnostics`` (R-hat and ESS along a ``diagnostic`` dim), ``constant_data`` (a fixed
        prevalence) and, for NUTS, ``sample_stats``. The prior group has no ``classifier`` dim
        unless a custom prior gives it one: priors are shared by the batch.

    Raises
    ------
    ValueError
        Unknown method or metric, improper posterior (Haldane prior with a zero count), exact
        method with a non-conjugate prior, sampler options on the exact path.
    ResourceLimitError
        (a ValueError) when the draws would not fit in memory; the message gives the amount
        and the ways out (fewer draws, ``metrics=``, smaller batches).
    TypeError
        Unknown keyword arguments (the message lists the valid ones).

    See Also
    --------
    summary, probability, informedness, build_model

    Examples
    --------
    >>> import bayescm as bcm
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    >>> idata = bcm.fit(cm, random_seed=1)
    >>> lo, hi = bcm.summary(idata, var_names=["tpr"]).loc["tpr", ["hdi_lower", "hdi_upper"]]
    >>> round(lo, 2), round(hi, 2)
    (0.9, 1.0)
    """
    if isinstance(data, Scores):
        return _fit_scores(data, prior, (prevalence, tpr, tnr, rates), method, draws, chains,
                           random_seed, metrics, hdi_prob, sampler_kwargs, nuts_options)
    if model not in ("auto", "hierarchical"):
        raise ValueError(f"model must be 'auto' or 'hierarchical', got {model!r}.")
    if model == "hierarchical":
        return _fit_hierarchical(data, group, priors, (prior, prevalence, tpr, tnr, rates),
                                 method, draws, chains, random_seed, metrics, hdi_prob,
                                 progressbar, sampler_kwargs, nuts_options)
    if group is not None:
        raise ValueError("group= names the group dim of model='hierarchical'; pass "
                         "model='hierarchical' too, or drop group= for a plain batch.")
    names, mats = as_batch(data)
    draws = check_int(5000 if draws is None else draws, "draws", 1)
    chains = check_int(chains, "chains", 1)
    hdi_prob = check_prob(hdi_prob)
    seq = seed_sequence(random_seed)
    kind = model_kind(mats[0])
    overrides = checked_overrides(kind, _merged_priors(
        priors, {"prevalence": prevalence, "tpr": tpr, "tnr": tnr, "rates": rates}))
    priors = kind.resolve_priors(prior, overrides)
    method = _choose_method(method, priors)
    options = _sampler_options(method, sampler_kwargs, nuts_options)
    _check_fixed_prevalence(priors, matrices_counts(mats), names)
    _check_prior_strength(kind, priors, matrices_counts(mats), names)
    selected = kind.select_metrics(resolve_metrics(metrics, kind.catalogue, kind.name), priors)
    check_memory(stored_values(kind, selected, len(mats), chains, draws), "This fit", [
        "fewer draws (draws=, chains=)", "only the metrics you need (metrics=[...])",
        "the batch in smaller parts (fit a few thousand matrices at a time)"])
    rng_post, rng_prior, nuts_seed = seeds(seq)
    counts = matrices_counts(mats)
    free = kind.free(priors)

    groups: dict[str, xr.Dataset] = {}
    if method == "exact":
        params = kind.exact_posterior(counts, priors, rng_post, chains, draws, names)
    else:
        import pymc as pm

        model = kind.build_pymc(names, counts, priors)
        options.setdefault("compute_convergence_checks", False)
        # rate posteriors piled against 0 or 1 (TP = 26, FN = 0) diverge now and then at
        # PyMC's 0.8; 0.9 costs a few more leapfrog steps and removes them
        options.setdefault("target_accept", 0.9)
        trace = pm.sample(draws=draws, chains=chains, random_seed=nuts_seed, model=model,
                          progressbar=progressbar, **options)
        params = {p: sample_array(trace["posterior"][p], kind, p, names is not None)
                  for p in free}
        groups["sample_stats"] = box.get_group(trace, "sample_stats", foreign=True)
        # variables a custom prior created (its hyper-parameters, transforms) stay inspectable
        extra = {str(v): da.transpose("chain", "draw", ...) for v, da in
                 trace["posterior"].data_vars.items() if v not in free and v != "theta"}

    coords: dict[str, Any] = {"chain": np.arange(chains), "draw": np.arange(draws),
                              "diagnostic": ["r_hat", "ess_bulk"], **kind.coords()}
    if names is not None:
        coords["classifier"] = names
    batch = "drop" if names is None else "keep"

    absent = counts.sum(axis=-1) == 0  # (B, K): classes without test items
    posterior = name_variables(kind.derive(params, priors, selected, skip=absent),
                               box.SAMPLE_DIMS, batch, kind, selected)
    if method == "nuts":
        for name, da in extra.items():
            if name not in posterior:
                posterior[name] = (da.dims, np.asarray(da.values), dict(da.attrs))
                coords.update({d: da[d].values for d in da.dims if d in da.coords
                               and d not in coords})
    groups["posterior"] = box.make_dataset(posterior, coords, {"method": method})
    r_method, e_method = DIAGNOSTIC_METHODS[method]
    diagnostics = diagnostic_variables(posterior, r_method, e_method)
    groups["diagnostics"] = box.make_dataset(
        diagnostics, coords,
        {"r_hat_method": r_method, "ess_method": e_method, "note": DIAGNOSTIC_NOTES[method]},
    )
    if method == "nuts":
        from bayescm.models.nuts import warn_convergence

        warn_convergence(groups["sample_stats"],
                         {p: (diagnostics[p][1][0], diagnostics[p][1][1]) for p in free},
                         float(options.get("target_accept", 0.9)))
    prior_params, prior_batch = prior_draws(kind, priors, names, counts, rng_prior, chains,
                                             draws)
    if prior_params is not None:
        groups["prior"] = box.make_dataset(
            name_variables(kind.derive(prior_params, priors, selected), box.SAMPLE_DIMS,
                       batch if prior_batch else "none", kind, selected),
            coords, {"method": "exact" if not prior_batch and method == "exact" else method})

    groups["observed_metrics"] = box.make_dataset(
        name_variables(observed_derived(kind, counts, priors, selected), (), batch, kind,
                       selected),
        coords, {"note": "every posterior variable at the observed counts (at a fixed "
                         "prevalence: the plug-in at that prevalence); NaN means undefined "
                         "(0/0), inf unbounded; see bcm.list_metrics()['undefined']"})
    cell_dims = ("true_class", "pred_class")
    groups["observed_data"] = box.make_dataset(
        {"counts": ((() if names is None else ("classifier",)) + cell_dims,
                    counts[0] if names is None else counts,
                    {"long_name": "confusion matrix counts (rows true, columns predicted)"})},
        coords)
    fixed = constant_data(kind, priors, coords)
    if fixed is not None:
        groups["constant_data"] = fixed

    attrs = tree_attrs(kind, priors, selected, hdi_prob, draws, chains, method=method,
                       **record(seq))
    if kind.name == "multiclass" and absent.any():
        labels = np.asarray(kind.labels)
        missing = {name: labels[row].tolist() for name, row in zip(names or ["_"], absent,
                                                                     strict=True) if row.any()}
        attrs["classes_without_items"] = box.json_attr(missing if names else missing["_"])
        attrs["classes_without_items_note"] = (
            "no test items: their rows keep the prior (per-class values are prior-only) and "
            "they are left out of macro/weighted averages and bacc, observed and posterior alike")
    if prior_params is None:
        attrs["prior_note"] = "no prior group: an improper prior (Haldane) cannot be sampled"
    return box.make_tree(groups, attrs)
