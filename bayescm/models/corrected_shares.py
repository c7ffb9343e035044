r"""The kind ``"true_shares"``: the true class shares behind a K-class classifier's predictions.

A classifier (or an imperfect test with K outcomes) assigns ``n`` unlabelled items to K
classes; its predicted counts ``m`` are not the true class shares. With ``C[k, j]`` the
probability that an item of true class ``k`` is predicted ``j`` (a confusion matrix normalised
by rows) and ``pi`` the true shares, the predicted shares are ``q = pi @ C`` and
``m ~ Multinomial(n, q)``. :func:`true_shares` gives the posterior of ``pi`` with each row of
``C`` a Dirichlet, updated by a labelled validation matrix fitted jointly (the K-class form of
:func:`bayescm.true_prevalence`; QuaPy's ``BayesianCC`` is the same model). The validation
counts enter once, through the rows' Dirichlets (conjugate); the predicted counts through
``q``. The posterior is sampled with NUTS (the rows and the shares are simplexes; nothing is
conjugate once ``q`` mixes them).

The point estimate in ``observed_metrics`` is the matrix-inversion ("adjusted classify and
count") estimate: ``q_hat`` solved for ``pi`` at the validation's row shares, clipped at 0 and
renormalised; the posterior mean tends to it as ``n`` and the validation grow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bayescm.core.arguments import check_names, keyword_checked, warn_user
from bayescm.core.validate import check_int
from bayescm.metrics.corrected import CORRECTED_METRICS
from bayescm.models.base import ModelKind, Parameter
from bayescm.models.registry import register
from bayescm.priors.protocol import Family

__all__ = ["TrueSharesModel", "adjusted_count", "true_shares"]

NUTS_OPTIONS = ("tune", "target_accept", "cores", "nuts_sampler", "progressbar")
"""The sampler options :func:`true_shares` takes."""


@register
class TrueSharesModel(ModelKind):
    """True class shares from a K-class classifier's predicted counts (NUTS).

    The posterior holds ``prevalence`` (the true shares, dim ``class``), ``apparent`` (the
    predicted shares, dim ``class``) and ``rates`` (dims ``true_class``, ``pred_class``).

    Examples
    --------
    >>> from bayescm.models.corrected_shares import TrueSharesModel
    >>> TrueSharesModel(["a", "b", "c"]).prior_arguments
    ('prevalence', 'rates')
    """

    key = "true_shares"
    description = "class shares corrected for a classifier's errors"
    standard_pipeline = False
    accepts_matrices = False
    has_exact = False
    default_draws = 1000
    metric_family = "corrected"
    catalogue = CORRECTED_METRICS
    figures = ("corrected",)
    analyses = frozenset({"summary", "corrected"})
    parameters = (Parameter("prevalence", ("class",), "true class shares", Family.DIRICHLET),
                  Parameter("rates", ("true_class", "pred_class"),
                            "the classifier's rates (rows the true class)", Family.DIRICHLET))

    def coords(self) -> dict[str, Any]:
        """The class labels, for the shares and both axes of the rates."""
        return {"class": self.labels, "true_class": self.labels, "pred_class": self.labels}

    def select_metrics(self, selected: Sequence[Any], priors: Mapping[str, Any]) -> list[Any]:
        """None: the posterior holds the shares and the rates only."""
        return []

    def resolve_priors(self, prior: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """The shares' Dirichlet and the rates' concentration rows (see :func:`true_shares`)."""
        return {"prevalence": _shares_prior(overrides.get("prevalence"), len(self.labels)),
                "rates": _rates_prior(overrides.get("rates"), len(self.labels), True)}

    def build_pymc(self, names: Any, counts: Any, priors: Mapping[str, Any]) -> Any:
        """Not built from confusion matrices: :func:`true_shares` builds its own model."""
        raise TypeError("The true_shares model is built by bcm.true_shares from predicted "
                        "counts, not from confusion matrices.")

    def observed(self, counts: np.ndarray, priors: Mapping[str, Any]) -> Any:
        """Not fitted from a confusion matrix: its observed values are written by its fit."""
        raise TypeError("The true_shares model is not fitted from confusion matrices.")

    def derive(self, params: Mapping[str, np.ndarray], priors: Mapping[str, Any],
               selected: Sequence[Any], theta: np.ndarray | None = None,
               skip: Any = None) -> Any:
        """Nothing to derive: the fit stores the shares and rates themselves."""
        raise TypeError("The true_shares model derives no metrics from cells.")

    @classmethod
    def example(cls, random_seed: int = 0) -> Any:
        """Predicted counts of 600 items in three classes, the classifier validated on 150."""
        from bayescm.core.confusion import ConfusionMatrix

        validation = ConfusionMatrix([[40, 6, 4], [5, 42, 3], [2, 8, 40]],
                                     labels=["cat", "dog", "fox"])
        return true_shares({"cat": 250, "dog": 220, "fox": 130}, validation=validation,
                           draws=500, chains=2, random_seed=random_seed)


def _shares_prior(prior: Any, k: int) -> np.ndarray:
    """The shares' Dirichlet concentration (default flat), checked."""
    from bayescm.priors.dirichlet import Dirichlet

    if prior is None:
        return np.ones(k)
    if not isinstance(prior, Dirichlet):
        raise TypeError(f"prevalence= takes a bcm.Dirichlet prior of the {k} true shares, got "
                        f"{prior!r}.")
    alpha = np.asarray(prior.concentration(k), dtype=float)
    if not np.all(alpha > 0):
        raise ValueError(f"The prior of the shares must be proper (every concentration > 0), "
                         f"got {prior!r}.")
    return alpha


def _rates_prior(prior: Any, k: int, validated: bool) -> np.ndarray:
    """The rates' K x K concentration (one Dirichlet per true class), checked."""
    from bayescm.priors.dirichlet import Dirichlet

    if prior is None:
        if not validated:
            raise TypeError(
                "Give the classifier's rates: rates= a K x K array of Dirichlet concentrations "
                "(rows the true class, e.g. counts from an earlier study), or validation= a "
                "labelled bcm.ConfusionMatrix; without either the predicted counts say nothing "
                "about the true shares.")
        return np.ones((k, k))
    if isinstance(prior, Dirichlet):
        return np.broadcast_to(np.asarray(prior.concentration(k), dtype=float), (k, k)).copy()
    try:
        if np.asarray(prior).dtype == bool:
            raise TypeError  # True/False are not concentrations
        alpha = np.array(prior, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"rates= takes a K x K array of Dirichlet concentrations or a "
                        f"bcm.Dirichlet, got {type(prior).__name__}.") from None
    if alpha.shape != (k, k) or not np.all(np.isfinite(alpha)) or not np.all(alpha > 0):
        raise ValueError(f"rates= must be a {k} x {k} array of positive concentrations (rows "
                         f"the true class), got shape {alpha.shape}"
                         + ("" if alpha.shape != (k, k) else " with a value <= 0") + ".")
    return alpha


def _predicted(predicted: Any, labels: list[str] | None) -> tuple[list[str], np.ndarray]:
    """The class labels and the predicted counts, checked against the validation's labels."""
    if isinstance(predicted, Mapping) or hasattr(predicted, "items"):
        items = dict(predicted.items())
        names = check_names(items, "predicted: class names")
        values = list(items.values())
    else:
        values = list(np.atleast_1d(np.asarray(predicted, dtype=object)))
        if labels is None:
            raise TypeError("Give the predicted counts as a mapping {class: count} (or with a "
                            "validation matrix whose labels name them in order).")
        names = list(labels)
        if len(values) != len(names):
            raise ValueError(f"predicted holds {len(values)} counts but the validation matrix "
                             f"has {len(names)} classes {names}; give one count per class, or "
                             "a mapping {class: count}.")
    if len(names) < 2:
        raise ValueError(f"true_shares needs counts of at least two classes, got {names}.")
    counts = np.array([check_int(v, f"predicted[{c!r}]", 0) for c, v in
                       zip(names, values, strict=True)], dtype=float)
    if labels is not None and sorted(names) != sorted(labels):
        raise ValueError(f"The predicted counts name the classes {names}, the validation "
                         f"matrix {labels}: give both for the same classes.")
    if labels is not None:
        counts = counts[[names.index(c) for c in labels]]
        names = list(labels)
    if counts.sum() < 1:
        raise ValueError("The predicted counts are all 0: nothing was classified.")
    return names, counts


def adjusted_count(apparent: Any, rates: Any) -> np.ndarray:
    """The matrix-inversion estimate of true shares: ``apparent = shares @ rates`` solved.

    Negative solutions are clipped at 0 and the result renormalised; the binary case is the
    Rogan-Gladen estimate.

    Parameters
    ----------
    apparent : array_like, shape (K,)
        The predicted shares.
    rates : array_like, shape (K, K)
        Rows the true class, each summing to 1.

    Returns
    -------
    numpy.ndarray
        The estimated true shares.

    Examples
    --------
    >>> from bayescm.models.corrected_shares import adjusted_count
    >>> adjusted_count([0.19, 0.81], [[0.9, 0.1], [0.05, 0.95]]).round(3)
    array([0.165, 0.835])
    """
    apparent = np.asarray(apparent, dtype=float)
    solved = np.linalg.lstsq(np.asarray(rates, dtype=float).T, apparent, rcond=None)[0]
    solved = np.clip(solved, 0.0, None)
    return solved / solved.sum() if solved.sum() > 0 else np.full_like(apparent, np.nan)


def _options(options: Mapping[str, Any], chains: int) -> dict[str, Any]:
    from bayescm.core.arguments import did_you_mean
    from bayescm.core.validate import check_real

    unknown = [k for k in options if k not in NUTS_OPTIONS]
    if unknown:
        raise TypeError(f"true_shares() got an unknown keyword argument {unknown[0]!r}; "
                        f"sampler options: {', '.join(NUTS_OPTIONS)}."
                        f"{did_you_mean(unknown[0], NUTS_OPTIONS)}")
    sampler = options.get("nuts_sampler", "pymc")
    if sampler not in ("pymc", "nutpie"):
        raise ValueError(f"nuts_sampler must be 'pymc' or 'nutpie', got {sampler!r}.")
    return {"tune": check_int(options.get("tune", 1000), "tune", 0),
            "target_accept": check_real(options.get("target_accept", 0.9), "target_accept",
                                        0.5, 0.999),
            "cores": check_int(options.get("cores", min(chains, 2)), "cores", 1),
            "progressbar": bool(options.get("progressbar", False)), "nuts_sampler": sampler}


@keyword_checked
def true_shares(predicted: Any, *, validation: Any = None, rates: Any = None,
                prevalence: Any = None, draws: int = 1000, chains: int = 4,
                random_seed: Any = None, **sampler: Any) -> Any:
    r"""The posterior of the true class shares behind a K-class classifier's predicted counts.

    ``predicted ~ Multinomial(n, shares @ rates)``, each row of ``rates`` (the probabilities of
    the predicted classes given a true class) a Dirichlet updated by the validation matrix;
    sampled with NUTS. The K-class form of :func:`~bayescm.true_prevalence`.

    Parameters
    ----------
    predicted : mapping of str to int, or sequence of int
        How many unlabelled items were predicted in each class (a sequence follows the
        validation matrix's labels).
    validation : ConfusionMatrix, optional
        The classifier on labelled items (rows the true class, columns the prediction), with
        the same classes.
    rates : array_like (K, K) or Dirichlet, optional
        Dirichlet concentrations of each true class's row before the validation matrix (default
        1 everywhere); required without ``validation``.
    prevalence : Dirichlet, optional
        The true shares' prior; default flat.
    draws, chains : int, default 1000, 4
        Draws per chain and chains.
    random_seed : int, optional
        Same seed, same draws (with the same sampler).
    **sampler
        ``tune`` (1000), ``target_accept`` (0.9), ``cores``, ``nuts_sampler`` ("pymc" or
        "nutpie"), ``progressbar``.

    Returns
    -------
    xarray.DataTree
        ``posterior``: ``prevalence`` (true shares, dim ``class``), ``apparent`` (predicted
        shares), ``rates``; ``observed_metrics``: the adjusted-count estimate
        (:func:`adjusted_count`) at the validation's rates, the observed predicted shares;
        ``observed_data``; ``sample_stats``; ``diagnostics``.

    Raises
    ------
    ValueError
        Negative or all-zero counts, classes that differ from the validation matrix's, rates
        that are not K x K positive concentrations.
    TypeError
        Neither ``rates`` nor ``validation``; an unknown keyword.

    See Also
    --------
    true_prevalence : Two classes, with exact draws.

    Examples
    --------
    >>> import bayescm as bcm
    >>> val = bcm.ConfusionMatrix([[40, 6, 4], [5, 42, 3], [2, 8, 40]],
    ...                           labels=["cat", "dog", "fox"])
    >>> tree = bcm.true_shares({"cat": 250, "dog": 220, "fox": 130}, validation=val,
    ...                        draws=250, chains=2, random_seed=0)  # doctest: +SKIP
    >>> tree["posterior"]["prevalence"].dims  # doctest: +SKIP
    ('chain', 'draw', 'class')
    """
    from bayescm.core.confusion import ConfusionMatrix

    draws, chains = check_int(draws, "draws", 1), check_int(chains, "chains", 1)
    options = _options({k: v for k, v in sampler.items() if v is not None}, chains)
    counts_v: np.ndarray | None = None
    labels: list[str] | None = None
    if validation is not None:
        if not isinstance(validation, ConfusionMatrix):
            raise TypeError(f"validation must be a bcm.ConfusionMatrix (rows the true class), "
                            f"got {type(validation).__name__}.")
        counts_v = np.asarray(validation.counts, dtype=float)
        labels = [str(v) for v in validation.labels]
    names, counts = _predicted(predicted, labels)
    k = len(names)
    alpha = _rates_prior(rates, k, counts_v is not None)
    shares_alpha = _shares_prior(prevalence, k)
    post_alpha = alpha + (counts_v if counts_v is not None else 0.0)
    if counts_v is not None and np.any(counts_v.sum(axis=1) == 0):
        empty = [names[i] for i in np.flatnonzero(counts_v.sum(axis=1) == 0)]
        warn_user(f"The validation matrix has no items of the true class(es) {empty}: their "
                  "rates come from the prior alone.")
    return _sample(TrueSharesModel(names), counts, counts_v, alpha, post_alpha, shares_alpha,
                   draws, chains, random_seed, options)


def _sample(kind: TrueSharesModel, counts: np.ndarray, counts_v: np.ndarray | None,
            alpha: np.ndarray, post_alpha: np.ndarray, shares_alpha: np.ndarray, draws: int,
            chains: int, random_seed: Any, options: dict[str, Any]) -> Any:
    import pymc as pm

    from bayescm.core import container as box
    from bayescm.core.stats import hdi_prob_for
    from bayescm.core.streams import child, seed_sequence
    from bayescm.models.context import FitContext, assemble
    from bayescm.models.nuts import warn_convergence
    from bayescm.models.pooled import diagnostics_dataset, sample_first
    from bayescm.priors.dirichlet import Dirichlet
    from bayescm.priors.rates_by_class import RatesByClass

    coords = kind.coords()
    with pm.Model(coords=coords) as model:
        shares = pm.Dirichlet("prevalence", a=shares_alpha, dims="class")
        rate = pm.Dirichlet("rates", a=post_alpha, dims=("true_class", "pred_class"))
        apparent = pm.Deterministic("apparent", shares @ rate, dims="class")
        pm.Multinomial("predicted", n=int(counts.sum()), p=apparent, observed=counts)
    seed = seed_sequence(random_seed)
    trace = pm.sample(draws=draws, chains=chains, model=model,
                      random_seed=int(child(seed, 0).generate_state(1)[0]),
                      compute_convergence_checks=False, **options)
    post = trace["posterior"]
    variables = {name: (box.SAMPLE_DIMS + tuple(post[name].dims[2:]), sample_first(post, name),
                        {"long_name": long})
                 for name, long in (("prevalence", "true class shares"),
                                    ("apparent", "predicted class shares"),
                                    ("rates", "rates of the predicted classes given the true "
                                              "class"))}
    stats = box.get_group(trace, "sample_stats", foreign=True)
    warn_convergence(stats, {n: variables[n][1] for n in ("prevalence", "rates")},
                     options["target_accept"])
    point = post_alpha / post_alpha.sum(axis=1, keepdims=True)
    apparent_obs = counts / counts.sum()
    observed = {
        "prevalence": (("class",), adjusted_count(apparent_obs, point),
                       {"long_name": "adjusted count: predicted shares solved for the true "
                                     "shares at the rates' point values"}),
        "apparent": (("class",), apparent_obs, {"long_name": "observed predicted shares"})}
    data: dict[str, Any] = {"predicted": (("class",), counts.astype(np.int64),
                                          {"long_name": "predicted counts"})}
    if counts_v is not None:
        data["validation"] = (("true_class", "pred_class"), counts_v.astype(np.int64),
                              {"long_name": "validation counts (rows true)"})
    coords = {**coords, "diagnostic": ["r_hat", "ess_bulk", "ess_tail"]}
    priors = {"prevalence": Dirichlet(shares_alpha),
              "rates": RatesByClass(alpha, [f"row {c}" for c in kind.labels])}
    ctx = FitContext(kind=kind, priors=priors, metrics=[], counts=None, names=None,
                     draws=draws, chains=chains, hdi_prob=hdi_prob_for(None), method="nuts",
                     seed=seed)
    groups = {"posterior": box.make_dataset(variables, coords, {"method": "nuts"}),
              "sample_stats": stats,
              "diagnostics": diagnostics_dataset(variables, coords),
              "observed_metrics": box.make_dataset(observed, coords),
              "observed_data": box.make_dataset(data, coords)}
    return assemble(ctx, groups, method="nuts", target_accept=options["target_accept"],
                    nuts_sampler=options["nuts_sampler"], **ctx.seed_record())

