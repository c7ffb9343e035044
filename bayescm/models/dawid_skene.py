r"""The kind ``"dawid_skene"``: raters' confusion matrices and items' classes, no gold standard.

``bcm.fit(bcm.Ratings(frame, item=, rater=, rating=))``. Item ``i`` belongs to class ``k``
with probability ``prevalence[k]``; given its class, each rating of it by rater ``r`` is
class ``l`` with probability ``rates[r, k, l]`` (row ``k`` of the rater's confusion matrix),
independently of the other ratings (Dawid & Skene 1979). The class is marginalised per item
with a log-sum-exp over the ``K`` classes, on the item x rater x class counts (items with the
same counts are counted once), so the cost grows with the distinct rating patterns, not the
ratings.

Priors: ``prevalence`` a :class:`~bayescm.Dirichlet` (default ``Dirichlet(1)``: uniform);
``rates`` a ``K x K`` array of concentrations, row ``k`` the Dirichlet of a rater's ratings of
class-``k`` items, shared by the raters, or a mapping rater -> ``K x K`` array (raters not
named keep the default). The default is diagonal-heavy: :data:`DIAGONAL` on the diagonal and
1 elsewhere (a rater is right with prior mean 5 / (K + 4): 0.625 for four classes).

**Label switching.** Permuting the classes (with the rows of every confusion matrix and the
prevalence) leaves the likelihood unchanged. The diagonal-heavy prior makes the labelling in
which raters mostly agree with the class a far higher mode, and every chain starts there: at
the rates and prevalence implied by each item's majority rating (smoothed by the prior). With
raters that are mostly wrong about a class the modes can still swap; the convergence check
then reports an R-hat far above 1.

Stored besides the parameters (per draw): ``item_class`` (each item's class probabilities by
Bayes' rule, dims ``item, class``; the posterior mean over draws is the item's posterior
class probability), ``accuracy`` (each rater's chance to rate a random item correctly,
``sum_k prevalence[k] rates[r, k, k]``), ``kappa`` (Cohen's kappa of each rater against the
latent class: ``(accuracy - p_e) / (1 - p_e)`` with ``p_e = sum_k prevalence[k] q[r, k]``, ``q``
the rater's implied share of each rating) and ``rated_share`` (``q``; its observed value is in
``observed_metrics``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bayescm.core.ratings import Ratings
from bayescm.metrics.latent import LATENT_METRICS
from bayescm.models.base import ModelKind, Parameter
from bayescm.models.registry import register

__all__ = ["DIAGONAL", "DawidSkeneModel", "build_dawid_skene_model", "dawid_skene_em",
           "fit_dawid_skene", "item_class_probabilities", "ratings_tree"]

DIAGONAL = 5.0
"""Default prior concentration on the diagonal of each rater's confusion matrix (1 elsewhere)."""
_LONG = {"prevalence": "share of the items in each class",
         "rates": "each rater's confusion matrix: P(rated class | true class)",
         "item_class": "each item's class probabilities given its ratings",
         "accuracy": "each rater's probability to rate a random item correctly",
         "kappa": "Cohen's kappa of each rater against the latent class",
         "rated_share": "each rater's share of ratings in each class",
         "counts": "ratings per item, rater and rated class"}
_EXAMPLES: dict[int, Any] = {}


def _patterns(data: Ratings) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct rows of the item x (rater, class) counts, their multiplicities and inverse."""
    flat = data.counts.reshape(data.counts.shape[0], -1)
    rows, inverse, weights = np.unique(flat, axis=0, return_inverse=True, return_counts=True)
    return rows.astype(float), weights.astype(float), inverse.reshape(-1)


def item_class_probabilities(counts: np.ndarray, prevalence: np.ndarray,
                             rates: np.ndarray) -> np.ndarray:
    """P(class | ratings) of every item, vectorised over leading dims of the parameters.

    Parameters
    ----------
    counts : array, shape (I, R, K)
        Ratings per item, rater and class.
    prevalence : array, shape (..., K)
        Class shares (per draw).
    rates : array, shape (..., R, K, K)
        Each rater's confusion matrix (per draw).

    Returns
    -------
    numpy.ndarray, shape (..., I, K)

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.dawid_skene import item_class_probabilities
    >>> rates = np.array([[[0.9, 0.1], [0.2, 0.8]]])
    >>> item_class_probabilities(np.array([[[1, 0]]]), np.array([0.5, 0.5]), rates).round(3)
    array([[0.818, 0.182]])
    """
    from scipy.special import softmax

    c = np.asarray(counts, dtype=float)
    n_i = c.shape[0]
    log_rates = np.log(np.asarray(rates, dtype=float))
    m = np.swapaxes(log_rates, -1, -2)  # (..., R, L, K)
    m = m.reshape(m.shape[:-3] + (-1, m.shape[-1]))  # (..., R*L, K)
    a = np.matmul(c.reshape(n_i, -1), m)  # (..., I, K)
    return softmax(a + np.log(np.asarray(prevalence, dtype=float))[..., None, :], axis=-1)


def dawid_skene_em(counts: np.ndarray, iterations: int = 1000, tol: float = 1e-10,
                   smoothing: float = 0.0) -> dict[str, np.ndarray]:
    """Maximum-likelihood estimates of the Dawid-Skene model by EM (from majority votes).

    A cross-check of the Bayesian fit; ``smoothing`` adds pseudo-counts to every rate cell
    (MAP under a Dirichlet of ``1 + smoothing``).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.dawid_skene import dawid_skene_em
    >>> est = dawid_skene_em(np.array([[[2, 0], [1, 0]], [[0, 1], [0, 1]], [[1, 0], [1, 0]]]))
    >>> est["item_class"].argmax(axis=1).tolist()
    [0, 1, 0]
    """
    c = np.asarray(counts, dtype=float)
    n_k = c.shape[2]
    t = np.eye(n_k)[c.sum(axis=1).argmax(axis=1)]  # majority vote
    last = -np.inf
    prev = t.mean(axis=0)
    rates = np.full((c.shape[1], n_k, n_k), 1.0 / n_k)
    for _ in range(iterations):
        prev = t.mean(axis=0)
        num = np.einsum("ik,irl->rkl", t, c) + smoothing
        rates = num / np.maximum(num.sum(axis=2, keepdims=True), 1e-300)
        with np.errstate(divide="ignore"):
            log_r = np.log(rates)
        a = np.einsum("irl,rkl->ik", c, np.where(np.isfinite(log_r), log_r, -1e300))
        a = a + np.log(np.maximum(prev, 1e-300))
        top = a.max(axis=1, keepdims=True)
        ll = float((top[:, 0] + np.log(np.exp(a - top).sum(axis=1))).sum())
        t = np.exp(a - top)
        t /= t.sum(axis=1, keepdims=True)
        if abs(ll - last) < tol:
            break
        last = ll
    return {"prevalence": prev, "rates": rates, "item_class": t, "loglik": np.array(ll)}


def build_dawid_skene_model(data: Ratings, priors: Mapping[str, Any],
                            distinct: bool = True) -> Any:
    """The PyMC model of ratings (the class marginalised per item; see the module).

    Free variables ``prevalence`` (dim ``class``) and ``rates`` (dims ``rater, true_class,
    rated_class``); the likelihood is a ``pm.Potential`` on the distinct rating patterns
    (``pm.Data("patterns")``: each row an item's counts per rater and class, flattened, and
    ``pm.Data("weights")``: how many items have it). ``distinct=False`` keeps one row per item
    (weights 1), so new ratings of as many items can be swapped in with ``pm.set_data`` or
    nutpie's ``with_data`` (what the calibration tests do).

    Examples
    --------
    >>> import numpy as np, bayescm as bcm
    >>> from bayescm.models.dawid_skene import DawidSkeneModel, build_dawid_skene_model
    >>> r = bcm.Ratings.from_counts(np.array([[[1, 0], [0, 1]], [[2, 0], [1, 0]]]))
    >>> kind = DawidSkeneModel.from_data(r)
    >>> model = build_dawid_skene_model(r, kind.resolve_priors(None, {}))
    >>> sorted(v.name for v in model.free_RVs)
    ['prevalence', 'rates']
    """
    import pymc as pm
    import pytensor.tensor as pt

    if distinct:
        rows, weights, _ = _patterns(data)
    else:
        rows = data.counts.reshape(len(data.items), -1).astype(float)
        weights = np.ones(len(rows))
    n_r, n_k = len(data.raters), len(data.classes)
    coords = {"class": data.classes, "rater": data.raters, "true_class": data.classes,
              "rated_class": data.classes}
    with pm.Model(coords=coords) as model:
        prev = pm.Dirichlet("prevalence", a=np.asarray(priors["prevalence"]), dims="class")
        rates = pm.Dirichlet("rates", a=np.asarray(priors["rates"]),
                             dims=("rater", "true_class", "rated_class"))
        x = pm.Data("patterns", rows)
        w = pm.Data("weights", weights)
        m = pt.log(rates).transpose(0, 2, 1).reshape((n_r * n_k, n_k))
        a = pt.dot(x, m) + pt.log(prev)[None, :]
        pm.Potential("ratings", pt.sum(w * pt.logsumexp(a, axis=1)))
    return model


def _concentrations(value: Any, raters: list[str], n_k: int) -> np.ndarray:
    default = np.ones((n_k, n_k)) + (DIAGONAL - 1) * np.eye(n_k)
    out = np.broadcast_to(default, (len(raters), n_k, n_k)).copy()

    def check(arr: Any, where: str) -> np.ndarray:
        try:
            x = np.asarray(arr, dtype=float)
        except (TypeError, ValueError):
            x = np.empty(0)
        if x.shape != (n_k, n_k) or not np.all(np.isfinite(x)) or np.any(x <= 0):
            raise ValueError(f"priors={{'rates': {where}...}} takes a {n_k} x {n_k} array of "
                             "positive concentrations (row k: the Dirichlet of a rater's "
                             f"ratings of class-k items), got {arr!r}.")
        return x

    if value is None:
        return out
    if isinstance(value, Mapping):
        for rater, arr in value.items():
            if str(rater) not in raters:
                raise ValueError(f"priors={{'rates': {{{rater!r}: ...}}}}: {rater!r} is not one "
                                 f"of the raters {raters}.")
            out[raters.index(str(rater))] = check(arr, f"{{{rater!r}: ")
        return out
    out[:] = check(value, "")
    return out


@register
class DawidSkeneModel(ModelKind):
    """The registered kind ``"dawid_skene"``: a latent class model of raters (see the module).

    Fitted with ``bcm.fit(bcm.Ratings(...))`` (NUTS, 4 x 1,000 draws by default; sampler
    options ``tune``, ``target_accept``, ``cores``, ``nuts_sampler``).

    Examples
    --------
    >>> from bayescm.models.dawid_skene import DawidSkeneModel
    >>> DawidSkeneModel(["a", "b"], ["x", "y"], ["i1"]).prior_arguments
    ('prevalence', 'rates')
    """

    key = "dawid_skene"
    standard_pipeline = False
    own_data_model = True
    accepts_matrices = False
    description = "a latent class fit of raters (Dawid-Skene)"
    default_draws = 1000
    parameters = (Parameter("prevalence", ("class",), _LONG["prevalence"]),
                  Parameter("rates", ("rater", "true_class", "rated_class"), _LONG["rates"]))
    analyses = frozenset({"summary", "rater_rates"})
    figures = ("rater_rates", "item_classes")
    metric_family = "latent"
    catalogue = LATENT_METRICS

    def __init__(self, raters: Sequence[str], classes: Sequence[str], items: Sequence[str],
                 data: Ratings | None = None) -> None:
        super().__init__([])
        self.raters = [str(r) for r in raters]
        self.classes = [str(c) for c in classes]
        self.items = [str(i) for i in items]
        self.data = data

    @staticmethod
    def long_names() -> dict[str, str]:
        """Long names of the stored variables."""
        return dict(_LONG)

    def coords(self) -> dict[str, Any]:
        """Raters, classes and items."""
        return {"rater": self.raters, "class": self.classes, "true_class": self.classes,
                "rated_class": self.classes, "item": self.items}

    def root_attrs(self) -> dict[str, Any]:
        """The raters, classes and items."""
        import json

        return {"raters": json.dumps(self.raters), "classes": json.dumps(self.classes),
                "items": json.dumps(self.items)}

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any], labels: Sequence[Any]) -> DawidSkeneModel:
        """The raters, classes and items stored by :meth:`root_attrs`."""
        import json

        return cls(json.loads(attrs["raters"]), json.loads(attrs["classes"]),
                   json.loads(attrs.get("items", "[]")))

    @classmethod
    def accepts(cls, data: Any) -> bool:
        """A :class:`~bayescm.Ratings`."""
        return isinstance(data, Ratings)

    @classmethod
    def from_data(cls, data: Any) -> DawidSkeneModel:
        """The kind of ratings."""
        if not isinstance(data, Ratings):
            raise TypeError("The Dawid-Skene model needs bcm.Ratings(frame, item=, rater=, "
                            f"rating=), got {type(data).__name__}.")
        return cls(data.raters, data.classes, data.items, data)

    def select_metrics(self, selected: Sequence[Any], priors: Mapping[str, Any]) -> list[Any]:
        """None: the stored quantities are fixed."""
        return []

    def resolve_priors(self, prior: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """Concentrations: ``prevalence`` (K,) and ``rates`` (R, K, K); see the module."""
        from bayescm.priors import Dirichlet

        if prior is not None:
            raise ValueError("The Dawid-Skene model's priors are set with priors={...} (keys: "
                             "prevalence, rates), not prior=.")
        n_k = len(self.classes)
        given = overrides.get("prevalence")
        if given is None:
            alpha = np.ones(n_k)
        elif isinstance(given, Dirichlet):
            alpha = np.broadcast_to(np.asarray(given.alpha, dtype=float), (n_k,)).copy() \
                if np.ndim(given.alpha) == 0 or len(np.atleast_1d(given.alpha)) == n_k \
                else np.empty(0)
            if alpha.size != n_k:
                raise ValueError(f"priors={{'prevalence': {given!r}}}: give {n_k} "
                                 f"concentrations (one per class: {self.classes}) or one.")
        else:
            raise TypeError("priors={'prevalence': ...} takes a bcm.Dirichlet, got "
                            f"{given!r}.")
        return {"prevalence": alpha,
                "rates": _concentrations(overrides.get("rates"), self.raters, n_k)}

    def build_pymc(self, names: Any, counts: Any, priors: Mapping[str, Any]) -> Any:
        """The PyMC model of the ratings (:func:`build_dawid_skene_model`)."""
        if self.data is None:
            raise ValueError("The Dawid-Skene model is built from its data: "
                             "bcm.build_model(ratings).")
        return build_dawid_skene_model(self.data, priors)

    def observed(self, counts: Any, priors: Any) -> Any:
        """Not used: the fit computes the observed values."""
        raise NotImplementedError

    def derive(self, params: Any, priors: Any, selected: Any, theta: Any = None,
               skip: Any = None) -> Any:
        """Not used: the fit derives its quantities."""
        raise NotImplementedError

    def fit(self, ctx: Any, options: Mapping[str, Any]) -> Any:
        """NUTS on the rating patterns (:func:`fit_dawid_skene`)."""
        return fit_dawid_skene(ctx, options)

    @classmethod
    def example(cls, random_seed: int = 0) -> Any:
        """Dawid & Skene's (1979) anaesthesia ratings (4 x 500 draws)."""
        if random_seed not in _EXAMPLES:
            from bayescm.io.datasets import anesthesia
            from bayescm.models.fitting import fit

            _EXAMPLES[random_seed] = fit(anesthesia(), draws=500, random_seed=random_seed)
        return _EXAMPLES[random_seed].copy(deep=True)


def _initial_values(data: Ratings, priors: Mapping[str, Any]) -> dict[str, np.ndarray]:
    """Rates and prevalence implied by the majority votes, smoothed by the prior."""
    t = np.eye(len(data.classes))[data.majority()]
    num = np.einsum("ik,irl->rkl", t, data.counts) + np.asarray(priors["rates"])
    prev = t.sum(axis=0) + np.asarray(priors["prevalence"])
    return {"rates": num / num.sum(axis=2, keepdims=True), "prevalence": prev / prev.sum()}


def fit_dawid_skene(ctx: Any, options: Mapping[str, Any]) -> Any:
    """Sample the Dawid-Skene model of ``ctx.data`` and assemble the tree (see the module)."""
    from bayescm.models.latent_fit import check_options, sample_latent

    data: Ratings = ctx.data
    opts = check_options(ctx, options, "ratings")
    if opts["initvals"] is None:
        opts["initvals"] = _initial_values(data, ctx.priors)
    model = build_dawid_skene_model(data, ctx.priors)
    draws, stats = sample_latent(model, ["prevalence", "rates"], ctx, opts)
    return ratings_tree(ctx, draws, stats, opts)


def ratings_tree(ctx: Any, draws: Mapping[str, np.ndarray], stats: Any,
                 opts: Mapping[str, Any]) -> Any:
    """The tree of a Dawid-Skene fit from draws ``(chain, draw, ...)`` of its parameters.

    Derives ``accuracy``, ``kappa``, ``rated_share`` and ``item_class`` (see the module),
    then :func:`~bayescm.models.latent_fit.latent_tree` (diagnostics, convergence check).
    """
    from bayescm.models.latent_fit import latent_tree

    data: Ratings = ctx.data
    prev, rates = draws["prevalence"], draws["rates"]
    diag = np.diagonal(rates, axis1=-2, axis2=-1)  # (c, d, R, K)
    accuracy = np.einsum("cdk,cdrk->cdr", prev, diag)
    share = np.einsum("cdk,cdrkl->cdrl", prev, rates)
    p_e = np.einsum("cdk,cdrk->cdr", prev, share)
    kappa = (accuracy - p_e) / (1 - p_e)
    rows, _, inverse = _patterns(data)
    n_k = len(data.classes)
    unique = item_class_probabilities(rows.reshape(len(rows), len(data.raters), n_k), prev,
                                      rates)
    variables: dict[str, tuple[tuple[str, ...], np.ndarray]] = {
        "prevalence": (("class",), prev), "rates": (("rater", "true_class", "rated_class"),
                                                    rates),
        "accuracy": (("rater",), accuracy), "kappa": (("rater",), kappa),
        "rated_share": (("rater", "rated_class"), share),
        "item_class": (("item", "class"), unique[:, :, inverse])}
    coords = {"class": data.classes, "true_class": data.classes, "rated_class": data.classes,
              "rater": data.raters, "item": data.items}
    per_rater = data.counts.sum(axis=0)
    observed_share = per_rater / per_rater.sum(axis=1, keepdims=True)
    return latent_tree(
        ctx, variables, coords, stats,
        observed={"counts": (("item", "rater", "rated_class"), np.asarray(data.counts),
                             _LONG["counts"])},
        observed_metrics={"rated_share": (("rater", "rated_class"), observed_share,
                                          _LONG["rated_share"])},
        checked=["prevalence", "rates", "accuracy"], opts=opts,
        remedy="For ratings: a stronger diagonal in priors={'rates': ...}, or more tuning "
               "(tune=2000); an R-hat far above 1 can mean the classes swapped in a chain.",
        skip_diagnostics=("item_class",), n_items=len(data.items),
        n_ratings=int(data.counts.sum()))
