"""``fit``: from data to a result tree with the posterior of every metric.

``fit`` builds a :class:`~bayescm.models.context.FitContext` from its arguments (the model kind
from the registry, resolved priors and metrics, counts, seed) and hands it to the kind's
:meth:`~bayescm.models.base.ModelKind.fit`. For the kinds fitted from confusion matrices that is
:func:`fit_standard`: draw the parameters (exactly with NumPy, or with NUTS), derive ``theta``
and every metric with the same vectorised functions for the posterior, the prior and the
observed matrix, compute diagnostics, and :func:`~bayescm.models.context.assemble` the tree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.arguments import keyword_checked
from bayescm.core.confusion import ConfusionMatrix
from bayescm.core.lazy import LazyArrays, lazy_variable
from bayescm.core.resources import check_memory
from bayescm.core.scores import Scores
from bayescm.core.streams import child
from bayescm.core.workspace import roomy_heap
from bayescm.metrics.metric import Metric
from bayescm.models.base import ModelKind
from bayescm.models.checks import (
    check_fixed_prevalence,
    check_prior_strength,
    check_small_classes,
    choose_method,
    sampler_options,
)
from bayescm.models.context import FitContext, assemble, observed_data
from bayescm.models.pipeline import (
    DIAGNOSTIC_METHODS,
    DIAGNOSTIC_NOTES,
    diagnostic_variables,
    lazy_diagnostic_variables,
    observed_derived,
    prior_draws,
    sample_array,
    seeds,
    stored_values,
)

__all__ = ["PRIOR_KEYWORDS", "fit", "fit_standard", "refit"]

PRIOR_KEYWORDS = ("prevalence", "tpr", "tnr", "rates")
"""The deprecated per-parameter prior keywords of ``fit`` and ``build_model``
(``fit(cm, tpr=...)``); ``priors={"tpr": ...}`` replaces them."""


def fit(
    data: ConfusionMatrix | Mapping[str, ConfusionMatrix] | Scores | Any,
    prior: Any = None,
    *,
    priors: Mapping[str, Any] | None = None,
    method: str = "auto",
    draws: int | None = None,
    chains: int = 4,
    random_seed: int | np.random.SeedSequence | np.random.Generator | None = None,
    metrics: Iterable[str | Metric] | str | Metric | None = None,
    hdi_prob: float | None = None,
    progressbar: bool = False,
    model: str = "auto",
    group: str | None = None,
    **options: Any,
) -> xr.DataTree:
    """Posterior of every metric of a confusion matrix (or a batch of them).

    Parameters
    ----------
    data : ConfusionMatrix, mapping of name -> ConfusionMatrix, Scores, Items, StratifiedSample
        One matrix, or several of the same classes; a mapping gives one tree with a
        ``classifier`` dim (the exact path draws the whole batch in one vectorised step).
        :class:`~bayescm.Items` (an item-level evaluation log: clusters, repeated attempts,
        several systems) gives the items model (:mod:`bayescm.models.items`; NUTS, 4 x 1,000
        draws; sampler options ``tune``, ``target_accept``, ``cores``, ``nuts_sampler``).
        :class:`~bayescm.Scores` (labels and scores) give the posterior of whole ROC and PR
        curves, the AUC and calibration (:func:`bayescm.models.scores.fit_scores`, whose options
        ``threshold``, ``fpr_range``, ``grid_size`` and ``n_bins`` pass through).
        :class:`~bayescm.StratifiedSample` (a stratified audit) gives the population's
        metrics (:mod:`bayescm.models.stratified`; option ``finite``). Any input object a
        registered kind accepts is fitted by that kind.
    prior : str or prior, optional
        Prior of every parameter not given separately. Default: Laplace (uniform) for a binary
        matrix and ``"weak"`` for K classes, a prior whose strength does not grow with K
        (:class:`~bayescm.Weak`; it is Laplace at K = 2). Names: ``"weak"``, ``"laplace"``,
        ``"jeffreys"`` (for K classes: a uniform / Jeffreys Beta on each row's correct rate,
        errors spread evenly), ``"flat"`` (Dirichlet(1) on every cell, the pre-0.2 multiclass
        default), ``"haldane"``; or a :class:`~bayescm.Beta` (binary),
        :class:`~bayescm.Dirichlet` (multiclass), or an object with ``create_variable(name)``
        (sampled with NUTS).
    priors : mapping of parameter name -> prior, optional
        Priors keyed by parameter, e.g. ``{"tpr": bcm.Beta(10, 2), "prevalence":
        bcm.Fixed(0.5)}`` (binary: ``prevalence``, ``tpr``, ``tnr``; multiclass:
        ``prevalence``, ``rates``): the one way to give a parameter its own prior;
        :class:`~bayescm.Fixed` as the prevalence for a curated test set whose share of each
        class was chosen, not observed. For ``model="hierarchical"``
        the keys are :data:`bayescm.models.hierarchical.HIERARCHICAL_PARAMETERS`; for
        :class:`~bayescm.Scores` with ``method="binormal"`` or ``"bibeta"`` they are
        :data:`bayescm.models.roc_parametric_priors.PARAMETERS` of the method.
    method : {"auto", "exact", "nuts"}
        ``"exact"`` draws from the closed-form posterior (NumPy); ``"nuts"`` samples
        :func:`~bayescm.build_model` with PyMC; ``"auto"`` picks exact when every prior is
        conjugate. :class:`~bayescm.Scores` take ``"dirichlet_process"`` (the default, also
        ``"auto"``: a Dirichlet-process posterior of each class with mass beyond the observed
        scores, exact draws; :mod:`bayescm.models.roc_dp`), ``"bootstrap"`` (the Bayesian
        bootstrap), ``"binormal"`` or ``"bibeta"`` (parametric class distributions sampled
        with NUTS: :mod:`bayescm.models.roc_parametric`).
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
    hdi_prob : float, optional
        Recorded as the tree's default interval probability for :func:`~bayescm.summary`;
        default ``bcm.rcParams["stats.hdi_prob"]`` (0.95).
    progressbar : bool, default False
        Show PyMC's progress bar (NUTS).
    model : str, default "auto"
        A key of the model registry (:func:`bayescm.models.registry.keys`). ``"auto"``: the
        binary or multiclass model of each matrix (scores for :class:`~bayescm.Scores`).
        ``"hierarchical"``: the bivariate binomial-normal model of several binary matrices
        with partial pooling (:mod:`bayescm.models.hierarchical`; NUTS, 4 x 1,000 draws by
        default). A kind registered by the user is fitted the same way.
    group : str, optional
        With ``model="hierarchical"``: the name of the group dim (``"site"``, ``"study"``,
        ``"subgroup"``, ...).
    **options
        NUTS options as keywords (``tune=``, ``target_accept=``, ``cores=``, ``init=``,
        ``nuts_sampler=``, ...), the one way to give them; ``target_accept`` defaults to 0.9
        (PyMC's 0.8 leaves occasional divergences where a rate's posterior piles against 0 or
        1). Each is checked before anything is compiled; names ``pymc.sample`` does not take
        raise a TypeError listing the valid ones, and any of them on the exact path raises a
        ValueError (the exact sampler has no such options). :class:`~bayescm.Scores` take
        their curve options here too (``threshold``, ``fpr_range``, ``grid_size``,
        ``n_bins``). Deprecated (working for one more release, with a DeprecationWarning): the prior
        keywords ``prevalence=``, ``tpr=``, ``tnr=``, ``rates=`` (use ``priors={...}``) and
        ``sampler_kwargs={...}`` (give the options as keywords).

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
    summary : The posterior of every metric as a table.
    probability : The probability that a metric lies in a range.
    informedness : Whether the classifier is better than chance.
    build_model : The PyMC model behind a NUTS fit.

    Examples
    --------
    >>> import bayescm as bcm
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    >>> idata = bcm.fit(cm, random_seed=1)
    >>> lo, hi = bcm.summary(idata, var_names=["tpr"]).loc["tpr", ["hdi_lower", "hdi_upper"]]
    >>> round(lo, 2), round(hi, 2)  # doctest: +MC
    (0.9, 1.0)
    """
    if model != "auto" and not isinstance(model, str):
        raise TypeError(f"model must be a registered model name (str), got {model!r}.")
    if model == "auto" and isinstance(data, Scores):
        model = "scores"
    options = dict(options)
    keywords = {k: options.pop(k) for k in PRIOR_KEYWORDS if k in options}  # deprecated
    ctx = FitContext.from_arguments(
        data, model=model, prior=prior, priors=priors, keywords=keywords, metrics=metrics,
        draws=draws, chains=chains, hdi_prob=hdi_prob, method=method, random_seed=random_seed)
    if group is not None:
        options["group"] = group
    if progressbar:
        options["progressbar"] = progressbar
    if ctx.kind.standard_pipeline:
        return fit_standard(ctx.kind, ctx, options)
    return ctx.kind.fit(ctx, options)  # a kind with its own data or sampler


def fit_standard(kind: ModelKind, ctx: FitContext, options: Mapping[str, Any]) -> xr.DataTree:
    """The standard pipeline of a kind fitted from confusion matrices (see the module).

    ``options`` are ``fit``'s sampler options: ``sampler_kwargs``, ``progressbar`` and
    ``pymc.sample`` keywords (NUTS only).
    """
    options = dict(options)
    if options.pop("group", None) is not None:
        raise ValueError("group= names the group dim of model='hierarchical'; pass "
                         "model='hierarchical' too, or drop group= for a plain batch.")
    progressbar = bool(options.pop("progressbar", False))
    priors, names, counts = ctx.priors, ctx.names, ctx.counts
    draws, chains = ctx.draws, ctx.chains
    assert counts is not None
    method = choose_method(ctx.method, priors, kind.has_exact)
    ctx = ctx.replace(method=method)
    options = sampler_options(method, options.pop("sampler_kwargs", None), options)
    check_fixed_prevalence(priors, counts, names)
    check_prior_strength(kind, priors, counts, names)
    check_small_classes(kind, ctx.metrics, counts, names)
    selected = ctx.metrics
    check_memory(stored_values(kind, selected, len(counts), chains, draws), "This fit", [
        "fewer draws (draws=, chains=)", "only the metrics you need (metrics=[...])",
        "bcm.summarize_batch for summaries only: it works through chunks in bounded memory, "
        "on a dask cluster with client=", "the batch in smaller parts"])
    roomy_heap()  # the draws and metrics come from the heap from the second fit on
    rng_post, rng_prior, nuts_seed = seeds(ctx.seed)
    free = kind.free(priors)

    groups: dict[str, xr.Dataset] = {}
    extra: dict[str, xr.DataArray] = {}
    if method == "exact":
        params = kind.exact_posterior(counts, priors, rng_post, chains, draws, names)
    else:
        import pymc as pm

        pymc_model = kind.build_pymc(names, counts, priors)
        options.setdefault("compute_convergence_checks", False)
        # rate posteriors piled against 0 or 1 (TP = 26, FN = 0) diverge now and then at
        # PyMC's 0.8; 0.9 costs a few more leapfrog steps and removes them
        options.setdefault("target_accept", 0.9)
        trace = pm.sample(draws=draws, chains=chains, random_seed=nuts_seed, model=pymc_model,
                          progressbar=progressbar, **options)
        params = {p: sample_array(trace["posterior"][p], kind, p, names is not None)
                  for p in free}
        groups["sample_stats"] = box.get_group(trace, "sample_stats", foreign=True)
        # variables a custom prior created (its hyper-parameters, transforms) stay inspectable
        extra = {str(v): da.transpose("chain", "draw", ...) for v, da in
                 trace["posterior"].data_vars.items() if v not in free and v != "theta"}

    coords = ctx.coords()
    posterior = ctx.name_variables(kind.derive(params, priors, selected, skip=ctx.undefined()),
                                   box.SAMPLE_DIMS)
    for name, da in extra.items():
        if name not in posterior:
            posterior[name] = (tuple(str(d) for d in da.dims), np.asarray(da.values),
                               {str(k): v for k, v in da.attrs.items()})
            coords.update({str(d): da[d].values for d in da.dims if d in da.coords
                           and d not in coords})
    shared = box.coordinates(coords)  # indexes built once for every group
    groups["posterior"] = box.make_dataset(posterior, shared, {"method": method})
    r_method, e_method = DIAGNOSTIC_METHODS[method]
    # NUTS needs its diagnostics now (to warn); independent draws' are computed when read
    diagnostics = (diagnostic_variables(posterior, r_method, e_method) if method == "nuts" else
                   lazy_diagnostic_variables(posterior, r_method, e_method))
    groups["diagnostics"] = box.make_dataset(
        diagnostics, shared,
        {"r_hat_method": r_method, "ess_method": e_method, "note": DIAGNOSTIC_NOTES[method]})
    if method == "nuts":
        from bayescm.models.nuts import warn_convergence

        warn_convergence(groups["sample_stats"], {p: params[p] for p in free},
                         float(options.get("target_accept", 0.9)))
    probe = None if kind.improper(priors) else kind.exact_prior(
        priors, np.random.default_rng(0), 1, 1)  # one draw: can NumPy draw this prior?
    if probe is not None:
        # drawn with NumPy and shared by the batch: computed when first read (summaries never
        # read it), from the same stream an eager draw would use
        groups["prior"] = _lazy_prior(kind, ctx, shared, method, probe)
    else:
        prior_params, prior_batch = prior_draws(kind, priors, names, counts, rng_prior, chains,
                                                 draws)
        if prior_params is not None:
            groups["prior"] = box.make_dataset(
                ctx.name_variables(kind.derive(prior_params, priors, selected),
                                   box.SAMPLE_DIMS, "auto" if prior_batch else "none"),
                shared, {"method": method})
    groups["observed_metrics"] = box.make_dataset(
        ctx.name_variables(observed_derived(kind, counts, priors, selected), ()),
        shared, {"note": "every posterior variable at the observed counts (at a fixed "
                         "prevalence: the plug-in at that prevalence); NaN means undefined "
                         "(0/0), inf unbounded; see bcm.metrics.list_metrics()['undefined']"})

    groups["observed_data"] = observed_data(ctx, shared)  # the same indexes again
    attrs: dict[str, Any] = {"method": method, **ctx.seed_record()}
    absent = None if ctx.counts is None else ctx.counts.sum(axis=-1) == 0
    if kind.scale_free and absent is not None and absent.any():
        labels = np.asarray(kind.labels)
        missing = {name: labels[row].tolist() for name, row in zip(names or ["_"], absent,
                                                                     strict=True) if row.any()}
        attrs["classes_without_items"] = box.json_attr(missing if names else missing["_"])
        attrs["classes_without_items_note"] = (
            "no test items: their rows keep the prior (per-class values are prior-only) and "
            "they are left out of macro/weighted averages and bacc, observed and posterior alike")
    if "prior" not in groups:
        attrs["prior_note"] = "no prior group: an improper prior (Haldane) cannot be sampled"
    return assemble(ctx, groups, owned=True, **attrs)  # every group was made above


def _lazy_prior(kind: ModelKind, ctx: FitContext, coords: xr.Coordinates, method: str,
                probe_params: dict[str, np.ndarray]) -> xr.Dataset:
    """The prior group of NumPy-drawn priors, its arrays computed on first read.

    The names, dims and long names come from a one-draw probe; the draws themselves use the
    prior stream of :func:`~bayescm.models.pipeline.seeds` (child 1 of the fit's seed), so the
    values equal an eager draw's.
    """
    priors, selected, chains, draws = ctx.priors, ctx.metrics, ctx.chains, ctx.draws
    probe = ctx.name_variables(kind.derive(probe_params, priors, selected), box.SAMPLE_DIMS,
                               "none")
    seq = child(ctx.seed, 1)

    def compute() -> dict[str, np.ndarray]:
        params = kind.exact_prior(priors, np.random.default_rng(seq), chains, draws)
        assert params is not None
        return {name: arr for name, (_, arr) in kind.derive(params, priors, selected).items()}

    source = LazyArrays(compute)
    variables = {name: lazy_variable(dims, source, name, (chains, draws) + arr.shape[2:],
                                         attrs)
                 for name, (dims, arr, attrs) in probe.items()}
    return box.make_dataset(variables, coords,
                            {"method": "exact" if method == "exact" else method})


@keyword_checked
def refit(idata: xr.DataTree, *, draws: int | None = None, chains: int | None = None,
          random_seed: int | np.random.SeedSequence | np.random.Generator | None = None,
          method: str | None = None, metrics: Iterable[str | Metric] | str | None = None,
          hdi_prob: float | None = None, priors: Mapping[str, Any] | None = None,
          ) -> xr.DataTree:
    """Fit a result's data again, with its priors and metrics, from the tree alone.

    The model kind, class labels, counts, priors (decoded from the ``priors`` attribute),
    metrics and sampling settings are read back from the tree
    (:meth:`~bayescm.models.context.FitContext.from_tree`), so a loaded result can be redrawn
    or extended (more draws, another seed, a changed prior) without the original objects. A
    scores fit is refitted from the labels and scores it stores, with its method (the default
    ``"dirichlet_process"`` or ``"bootstrap"``) and curve options
    (:meth:`~bayescm.models.base.ModelKind.refit_arguments` of its kind).

    Parameters
    ----------
    idata : xarray.DataTree
        A result of :func:`fit` (or :func:`bayescm.load`) of a kind fitted from confusion
        matrices (binary, multiclass or a registered kind of that sort) or from scores.
    draws, chains
        Override the tree's settings; default the tree's own.
    random_seed : int, SeedSequence or Generator, optional
        Default: the seed recorded in the tree, which redraws the same numbers (at the same
        draws and chains).
    method
        Overrides the tree's method; default the tree's own.
    metrics : list of str, optional
        Default the tree's metrics (custom metrics must be passed again: their functions are
        not stored).
    hdi_prob
        Overrides the tree's HDI probability; default the tree's own.
    priors : mapping, optional
        Priors to change, keyed by parameter; the others keep the tree's.

    Returns
    -------
    xarray.DataTree
        A new result of the same kind, priors and metrics (except those overridden), with the
        new settings recorded in its attributes.

    Raises
    ------
    ValueError
        The kind cannot be refitted (a paired comparison), or the tree records a custom
        prior or metric whose definition it does not hold.

    See Also
    --------
    fit : The first fit.
    bayescm.load : Read a saved result to refit.

    Examples
    --------
    >>> import bayescm as bcm
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    >>> idata = bcm.fit(cm, priors={"tpr": bcm.Beta(10, 2)}, draws=200, random_seed=3)
    >>> again = bcm.refit(idata)
    >>> bool((again["posterior"]["tpr"] == idata["posterior"]["tpr"]).all())
    True
    >>> bcm.refit(idata, draws=400)["posterior"].sizes["draw"]
    400
    >>> roc = bcm.fit(bcm.Scores([1, 0, 1, 0, 1], [0.9, 0.3, 0.6, 0.7, 0.8]), draws=50,
    ...               random_seed=4)
    >>> again = bcm.refit(roc)
    >>> again.attrs["method"], bool((again["posterior"]["auc"] == roc["posterior"]["auc"]).all())
    ('dirichlet_process', True)
    """
    from bayescm.core.streams import seed_from_attrs

    ctx = FitContext.from_tree(idata, "refit", metrics,
                               remedy="Refit the original data with bcm.fit.")
    data, options, stored = ctx.kind.refit_arguments(ctx, idata)
    opaque = [k for k, v in stored.items() if isinstance(v, Mapping)]
    changed = dict(priors or {})
    if any(k not in changed for k in opaque):
        raise ValueError(f"The tree records the priors of {opaque} only as a description; pass "
                         "them again with priors={...}.")
    seed = (seed_from_attrs(box.root_attrs(idata), strict=True) if random_seed is None
            else random_seed)
    return fit(data, priors={**stored, **changed}, model=ctx.kind.key,
               metrics=ctx.metrics, draws=ctx.draws if draws is None else draws,
               chains=ctx.chains if chains is None else chains,
               method=ctx.method if method is None else method,
               hdi_prob=ctx.hdi_prob if hdi_prob is None else hdi_prob, random_seed=seed,
               **options)
