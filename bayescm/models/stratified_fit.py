"""Drawing a stratified audit's posterior and laying out its tree.

:func:`fit_stratified` draws every stratum's cell probabilities from their Dirichlet
posteriors, the population's unlabelled items given them
(:func:`population_draws`), and derives every metric of the
population's matrix. The observed values are the design-weighted (Horvitz-Thompson) estimates:
each stratum's labelled counts scaled to its size.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["fit_stratified", "naive_reading", "params_of", "population_draws",
           "weighted_counts"]


def weighted_counts(counts: np.ndarray, sizes: np.ndarray) -> np.ndarray:
    """Each stratum's labelled counts scaled to its size, summed: the plug-in population matrix.

    Strata without labelled items are left out (their composition is unknown).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.stratified_fit import weighted_counts
    >>> counts = np.array([[[3, 0], [1, 0]], [[0, 1], [0, 9]]])
    >>> weighted_counts(counts, np.array([40, 1000])).tolist()
    [[30.0, 100.0], [10.0, 900.0]]
    """
    n = counts.sum(axis=(1, 2)).astype(float)
    scale = np.divide(sizes, n, out=np.zeros_like(n), where=n > 0)
    return (counts * scale[:, None, None]).sum(axis=0)


def fit_stratified(ctx: Any, finite: bool) -> Any:
    """The result tree of ``bcm.fit(StratifiedSample(...))`` (exact draws)."""
    from bayescm.core import container as box
    from bayescm.core.exact import dirichlet_each
    from bayescm.core.streams import child
    from bayescm.models.context import assemble
    from bayescm.models.pooled import diagnostics_dataset

    ctx = ctx.replace(method="exact")
    data, kind = ctx.data, ctx.kind
    counts, sizes, possible = data.counts, data.sizes, data.possible()
    a = float(ctx.priors["cells"].alpha)
    alpha = np.where(possible, a + counts, 0.0)
    shape = (ctx.chains, ctx.draws)
    rng = np.random.default_rng(child(ctx.seed, 0))
    cells = dirichlet_each(rng, np.broadcast_to(alpha.reshape(len(sizes), -1),
                                                (*shape, *alpha.reshape(len(sizes), -1).shape)))
    cells = cells.reshape(*shape, *counts.shape)
    if finite:
        theta = population_draws(np.random.default_rng(child(ctx.seed, 1)), cells, counts,
                                 sizes)
    else:
        weights = sizes / sizes.sum()
        theta = np.einsum("s,cdsij->cdij", weights, cells)
    metrics = list(ctx.metrics)
    derived = kind.derive(params_of(theta, kind.binary), ctx.priors, metrics, theta=theta)
    variables = ctx.name_variables(derived, box.SAMPLE_DIMS, "none")
    variables["cells"] = (box.SAMPLE_DIMS + ("stratum", "true_class", "pred_class"), cells,
                          {"long_name": "cell probabilities within each stratum"})
    coords = {**ctx.coords(), "stratum": data.strata,
              "diagnostic": ["r_hat", "ess_bulk", "ess_tail"]}
    obs_params, obs_theta = kind.observed(weighted_counts(counts, sizes), ctx.priors)
    observed = ctx.name_variables(kind.derive(obs_params, ctx.priors, metrics, theta=obs_theta),
                                  (), "none")
    observed["cells"] = (("stratum", "true_class", "pred_class"),
                         counts / np.maximum(counts.sum(axis=(1, 2), keepdims=True), 1),
                         {"long_name": "labelled share of each cell within each stratum"})
    groups = {
        "posterior": box.make_dataset(variables, coords, {"method": "exact"}),
        "diagnostics": diagnostics_dataset(variables, coords),
        "observed_metrics": box.make_dataset(observed, coords, {
            "note": "design-weighted (Horvitz-Thompson) estimates: each stratum's labelled "
                    "counts scaled to its size; strata without labels are left out"}),
        "observed_data": box.make_dataset({
            "counts": (("stratum", "true_class", "pred_class"), counts,
                       {"long_name": "labelled counts of each stratum"}),
            "sizes": (("stratum",), sizes, {"long_name": "items of each stratum in the "
                                                        "population"})}, coords),
    }
    return assemble(ctx, groups, method="exact", strata_by_prediction=int(data.by_prediction),
                    **ctx.seed_record())


def params_of(theta: np.ndarray, binary: bool) -> dict[str, np.ndarray]:
    """The model parameters of cells ``theta`` (``prevalence`` and ``tpr``/``tnr`` or ``rates``).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.stratified_fit import params_of
    >>> p = params_of(np.array([[0.2, 0.05], [0.15, 0.6]]), True)
    >>> round(float(p["tpr"]), 2), round(float(p["prevalence"]), 2)
    (0.8, 0.25)
    """
    prev = theta.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        if binary:
            return {"prevalence": prev[..., 0], "tpr": theta[..., 0, 0] / prev[..., 0],
                    "tnr": theta[..., 1, 1] / prev[..., 1]}
        return {"prevalence": prev, "rates": theta / prev[..., None]}


def population_draws(rng: np.random.Generator, cells: np.ndarray, counts: np.ndarray,
                     sizes: np.ndarray) -> np.ndarray:
    """The population's cell shares: labelled counts plus the unlabelled items drawn.

    Parameters
    ----------
    rng : numpy.random.Generator
        The stream.
    cells : ndarray
        ``(..., S, K, K)``: cell probabilities of every stratum.
    counts : ndarray
        ``(S, K, K)``: the labelled counts.
    sizes : ndarray
        ``(S,)``: the strata's sizes in the population.

    Returns
    -------
    ndarray
        ``(..., K, K)``: the population's confusion matrix divided by its size.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.stratified_fit import population_draws
    >>> cells = np.array([[[0.5, 0.0], [0.5, 0.0]], [[0.0, 0.0], [0.0, 1.0]]])  # (2, 2, 2)
    >>> counts = np.array([[[1, 0], [1, 0]], [[0, 0], [0, 3]]])
    >>> theta = population_draws(np.random.default_rng(0), cells[None], counts, np.array([4, 6]))
    >>> float(theta[0, :, 1].sum()), float(theta[0, 1, 1])  # 6 of 10 predicted negative
    (0.6, 0.6)
    """
    lead = cells.shape[:-3]
    k = cells.shape[-1]
    rest = np.broadcast_to(sizes - counts.sum(axis=(1, 2)), (*lead, len(sizes)))
    p = cells.reshape(*lead, len(sizes), k * k)
    p = p / p.sum(axis=-1, keepdims=True)
    drawn = rng.multinomial(rest, p).reshape(cells.shape)
    total = counts.sum(axis=0) + drawn.sum(axis=-3)
    return total / float(sizes.sum())


def naive_reading(audit: Any, names: Any) -> list[float]:
    """The metrics ``names`` of an audit's labelled items read as one random sample.

    The strata's labelled counts pooled into one binary matrix, its observed (plug-in)
    values: what ignoring the design would report, shown beside the population's metrics by
    ``bayescm audit`` and the app (NaN for a name the pooled matrix does not have).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.stratified_fit import naive_reading
    >>> audit = bcm.StratifiedSample(
    ...     {"flagged": bcm.ConfusionMatrix.from_counts(tp=150, fn=0, fp=50, tn=0),
    ...      "unflagged": bcm.ConfusionMatrix.from_counts(tp=0, fn=3, fp=0, tn=297)},
    ...     {"flagged": 3_000, "unflagged": 997_000})
    >>> [round(v, 3) for v in naive_reading(audit, ["tpr", "ppv"])]
    [0.98, 0.75]
    """
    from bayescm.analyses.summary import summary
    from bayescm.core.confusion import ConfusionMatrix
    from bayescm.models.fitting import fit

    names = list(names)
    summed = np.asarray(audit.counts).sum(axis=0)  # rows true, columns predicted; positive first
    pooled = ConfusionMatrix.from_counts(tp=int(summed[0, 0]), fn=int(summed[0, 1]),
                                         fp=int(summed[1, 0]), tn=int(summed[1, 1]))
    observed = summary(fit(pooled, draws=100, random_seed=0, metrics=names),
                       var_names=names)["observed"]
    return [float(observed.get(name, np.nan)) for name in names]
