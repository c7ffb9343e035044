"""Predictive distributions: synthetic confusion matrices (posterior) and metric priors (prior).

* :func:`posterior_predictive` draws one synthetic confusion matrix of ``n`` samples per
  posterior draw, ``V ~ Multinomial(n, theta)`` (Caelen's approach, the paper's Fig. 2), and
  computes every metric on ``V / n``. This is what a *replication* of the test with ``n``
  samples would show, not the uncertainty of the metric itself: by the law of total variance
  ``Var(V_i / n) = E[theta_i (1 - theta_i)] / n + Var(theta_i)``, which for a Dirichlet
  posterior with concentration ``alpha_0`` is ``(1 + alpha_0 / n) Var(theta_i)``
  (supporting information, eq. S8): about twice the posterior variance at the observed ``n``.
* :func:`prior_predictive` gives the priors that the parameter priors imply on every metric,
  without data (supporting information, Figs. S1 and S2): flat priors on prevalence, TPR and TNR
  are far from flat on PPV, MCC or F1.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.arguments import keyword_checked
from bayescm.core.confusion import ConfusionMatrix
from bayescm.core.resources import check_memory
from bayescm.core.streams import generator, record
from bayescm.core.validate import check_int_array
from bayescm.errors import EmptyMatrixWarning
from bayescm.metrics.metric import Metric
from bayescm.models.context import FitContext, assemble
from bayescm.models.pipeline import prior_draws, seeds, stored_values

__all__ = ["posterior_predictive", "prior_predictive"]


def _sample_size(n: Any, observed: np.ndarray) -> np.ndarray:
    """Per-classifier sample sizes ``(B,)``: the observed N or the user's ``n``."""
    if n is None:
        if np.any(observed < 1):
            raise ValueError("A matrix has no observations; pass n= (the synthetic sample size).")
        return observed
    if isinstance(n, (bool, np.bool_, str, bytes)):
        raise TypeError(f"n must be a whole number of samples (or one per classifier), got {n!r}.")
    raw = np.asarray(n) if not isinstance(n, int) else None
    if raw is not None and raw.dtype.kind == "f" and np.all(np.isfinite(raw)) and np.any(
            raw != np.round(raw)):
        raise TypeError(f"n must be a whole number of samples (or one per classifier), got {n!r}.")
    arr = check_int_array(n, "n (the synthetic sample size)", 1)
    if arr.ndim > 1 or (arr.ndim == 1 and arr.size != observed.size):
        raise ValueError(f"n must be one number or one per classifier ({observed.size}), "
                         f"got shape {arr.shape}.")
    return np.broadcast_to(arr.astype(np.int64), observed.shape)


@keyword_checked
def posterior_predictive(
    idata: xr.DataTree,
    n: int | Sequence[int] | None = None,
    random_seed: int | np.random.Generator | None = None,
    *,
    metrics: Iterable[str | Metric] | str | Metric | None = None,
) -> xr.DataTree:
    """Add synthetic confusion matrices of ``n`` samples and their metrics (Caelen's approach).

    For every posterior draw of ``theta`` one matrix ``V ~ Multinomial(n, theta)`` is drawn
    (vectorised over chains, draws and classifiers), and the parameters and metrics are
    evaluated on ``V / n``, exactly as ``observed_metrics`` is evaluated on the observed
    counts. Use it to ask what a replication with ``n`` samples would report; the posterior
    itself is the uncertainty of the metric (paper, Fig. 2).

    Parameters
    ----------
    idata : xarray.DataTree
        A result of :func:`~bayescm.fit`.
    n : int or sequence of int, optional
        Samples per synthetic matrix (one number, or one per classifier); default the observed
        N of each classifier.
    random_seed : int, numpy SeedSequence or Generator, optional
        Seed of the multinomial draws (recorded in the group's attributes).
    metrics : list of str or Metric, optional
        Metrics to compute; default the fit's (custom metrics must be passed again, see
        :func:`~bayescm.analyses.prevalence.with_prevalence`).

    Returns
    -------
    xarray.DataTree
        A copy of ``idata`` with a ``posterior_predictive`` group: ``counts`` (dims ``chain,
        draw, [classifier], true_class, pred_class``), the parameters, ``theta = counts / n``
        and every metric. Metrics that are 0/0 on a synthetic matrix are NaN (undefined).

    See Also
    --------
    prior_predictive : The same question before the data.
    bayescm.plots.plot_metric : ``predictive=True`` overlays the result on the posterior.
    summary : The posterior the synthetic matrices are drawn from.

    Examples
    --------
    With one observation (TP = 1) the synthetic accuracy is 0 or 1 (paper, Fig. 2A):

    >>> import numpy as np, bayescm as bcm
    >>> from bayescm.analyses.predictive import posterior_predictive
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=1, fn=0, tn=0, fp=0)
    >>> pp = posterior_predictive(bcm.fit(cm, random_seed=0, draws=500), random_seed=0)
    >>> np.unique(pp["posterior_predictive"]["acc"].values).tolist()
    [0.0, 1.0]
    """
    ctx = FitContext.from_tree(idata, "posterior_predictive", metrics,
                               remedy="Use the fit of one classifier's matrix instead.")
    kind, priors, selected = ctx.kind, ctx.priors, ctx.metrics
    post = box.get_group(idata, "posterior")
    batched = ctx.batched
    order = ["chain", "draw"] + (["classifier"] if batched else []) + ["true_class", "pred_class"]
    theta = np.asarray(post["theta"].transpose(*order).values, dtype=float)
    if not batched:
        theta = theta[:, :, None]
    assert ctx.counts is not None
    observed = ctx.counts.sum(axis=(-2, -1))
    sizes = _sample_size(n, observed)
    k = theta.shape[-1]
    pvals = np.clip(theta.reshape(theta.shape[:-2] + (k * k,)), 0.0, None)
    pvals /= pvals.sum(axis=-1, keepdims=True)
    check_memory(2.0 * theta.size * (1 + len(selected)), "This posterior predictive",
                 ["fewer metrics (metrics=[...])", "a fit with fewer draws"])
    rng, seq = generator(random_seed)
    counts = rng.multinomial(sizes, pvals).reshape(theta.shape)

    params, synthetic_theta = kind.observed(counts, priors)
    variables = ctx.name_variables(kind.derive(params, priors, selected, theta=synthetic_theta),
                                   box.SAMPLE_DIMS)
    lead = box.SAMPLE_DIMS + (("classifier",) if batched else ())
    variables["counts"] = (lead + ("true_class", "pred_class"),
                           counts if batched else counts[:, :, 0],
                           {"long_name": "synthetic confusion matrix counts (rows true)"})
    variables["theta"] = (variables["theta"][0], variables["theta"][1],
                          {"long_name": "synthetic proportions counts / n"})
    coords = ctx.coords(post.sizes["chain"], post.sizes["draw"])
    ds = box.make_dataset(variables, coords, {
        "n": box.json_attr(sizes.tolist() if batched else int(sizes[0])),
        **record(seq),
        "note": "V ~ Multinomial(n, theta) per posterior draw; metrics on V / n. Their spread "
                "is that of a replication with n samples, (1 + alpha_0 / n) times the "
                "posterior variance, not the metric's uncertainty.",
    })
    out = idata.copy(deep=True)  # the result owns its arrays: writing into it leaves idata alone
    box.set_group(out, "posterior_predictive", ds)
    return out


@keyword_checked
def prior_predictive(
    prior: Any = None,
    prevalence: Any = None,
    tpr: Any = None,
    tnr: Any = None,
    *,
    rates: Any = None,
    labels: Sequence[Any] | None = None,
    ordered: bool = False,
    draws: int = 5000,
    chains: int = 4,
    random_seed: int | np.random.Generator | None = None,
    metrics: Iterable[str | Metric] | str | Metric | None = None,
    hdi_prob: float | None = None,
    priors: Mapping[str, Any] | None = None,
) -> xr.DataTree:
    """The priors on every metric implied by the parameter priors, without any data.

    Draws the parameters from their priors (NumPy for Beta/Dirichlet priors, PyMC for custom
    ones) and derives ``theta`` and every metric with the same functions as :func:`~bayescm.fit`,
    so the ``prior`` group has the same layout as a fit's. Flat (Laplace) priors on prevalence,
    TPR and TNR give peaked priors on PPV, ACC or MCC; Jeffreys priors give U-shaped ones
    (supporting information, Figs. S1 and S2).

    Parameters
    ----------
    prior, prevalence, tpr, tnr, rates
        As in :func:`~bayescm.fit` (improper priors such as Haldane cannot be sampled).
    labels : sequence, optional
        Class labels. Default (or two labels) a binary model with the first label positive;
        three or more labels give the multiclass model.
    ordered : bool, default False
        Multiclass: whether the classes are ordered (adds weighted Kappa).
    draws, chains, random_seed, metrics, hdi_prob
        As in :func:`~bayescm.fit`.
    priors : mapping of parameter name -> prior, optional
        Priors keyed by parameter, as in :func:`~bayescm.fit` (unknown keys raise a
        TypeError naming the valid ones).

    Returns
    -------
    xarray.DataTree
        Groups ``prior`` (dims ``chain, draw`` and class dims) and, for a fixed prevalence,
        ``constant_data``; root attributes as written by ``fit``.

    Raises
    ------
    TypeError
        ``labels`` given as a single string.
    ValueError
        Fewer than two distinct labels, or an improper prior (Haldane), which cannot be
        sampled.

    See Also
    --------
    bayescm.plots.plot_priors : Draws the implied metric priors.
    prior_sensitivity : Fits the data under several priors to see how much the choice matters.
    posterior_predictive : The same question after the data: which matrices the fit expects.

    Examples
    --------
    Uniform priors on prevalence, TPR and TNR make accuracy's prior peak at 1/2:

    >>> from bayescm.analyses.predictive import prior_predictive
    >>> tree = prior_predictive(random_seed=0, draws=2000)
    >>> acc = tree["prior"]["acc"].values
    >>> bool(((acc > 0.4) & (acc < 0.6)).mean() > 0.2)
    True
    """
    if isinstance(labels, (str, bytes)):
        raise TypeError(f"labels must be a sequence of class labels, got the string {labels!r}.")
    labels = ["positive", "negative"] if labels is None else [str(v) for v in labels]
    if len(labels) < 2 or len(set(labels)) != len(labels):
        raise ValueError(f"labels must name at least 2 distinct classes, got {labels}.")
    k = len(labels)
    zeros = np.zeros((k, k), dtype=np.int64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyMatrixWarning)
        template = (ConfusionMatrix(zeros, labels=labels, positive=labels[0]) if k == 2 else
                    ConfusionMatrix(zeros, labels=labels, ordered=ordered))
        ctx = FitContext.from_arguments(
            template, prior=prior, priors=priors,
            keywords={"prevalence": prevalence, "tpr": tpr, "tnr": tnr, "rates": rates},
            metrics=metrics, draws=draws, chains=chains, hdi_prob=hdi_prob,
            random_seed=random_seed)
    kind, priors, selected, draws, chains = ctx.kind, ctx.priors, ctx.metrics, ctx.draws, \
        ctx.chains
    if kind.improper(priors):
        raise ValueError("An improper prior (Haldane) cannot be sampled, so it implies no "
                         "distribution on the metrics; use 'laplace', 'jeffreys' or a Beta.")
    seq = ctx.seed
    check_memory(stored_values(kind, selected, 0, chains, draws), "This prior predictive",
                 ["fewer draws (draws=, chains=)", "only the metrics you need (metrics=[...])"])
    _, rng, _ = seeds(seq)
    params, batched = prior_draws(kind, priors, None, zeros[None], rng, chains, draws)
    assert params is not None
    if not batched:
        params = {p: v[:, :, None] for p, v in params.items()}
    groups = {"prior": box.make_dataset(
        ctx.name_variables(kind.derive(params, priors, selected), box.SAMPLE_DIMS, "drop"),
        ctx.coords(), {"note": "metric priors implied by the parameter priors"})}
    return assemble(ctx.replace(counts=None), groups, **record(seq))
