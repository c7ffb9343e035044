r"""Parametric ROC models of scored items: binormal and bibeta class distributions, with NUTS.

``bcm.fit(bcm.Scores(...), method="binormal")`` (or ``"bibeta"``) models the scores of each
class with a distribution, samples its parameters with NUTS (PyMC) and turns every draw into
one smooth ROC curve, PR curve, AUC, partial AUC, average precision and confusion matrix at the
threshold (:mod:`bayescm.models.roc_parametric_curves`)::

    binormal:  score | positive ~ Normal(mu_pos, sigma_pos)
               score | negative ~ Normal(mu_neg, sigma_neg)
    bibeta:    score | positive ~ Beta(alpha_pos, beta_pos)       (scores in [0, 1])
               score | negative ~ Beta(alpha_neg, beta_neg)
    both:      prevalence ~ Beta(1, 1),   n_positive ~ Binomial(n, prevalence)

What each assumes, next to the nonparametric fits (:func:`~bayescm.models.scores.fit_scores`:
the default Dirichlet process and the Bayesian bootstrap, which assume only that the test items
are exchangeable draws from the population, and keep the curve's steps at the observed scores):

* **binormal** fits the *raw* scores: it assumes they are normal within each class. The
  classical binormal ROC model only needs *some* monotone transform of the scores to be normal
  in both classes (the curve is invariant to such transforms), but this model does not search
  for it: transform the scores first when they are far from normal (the logit of a
  probability, the log of a positive score). Its scores have arbitrary units, so the default
  priors are scaled to the data (:func:`~bayescm.models.roc_parametric_priors.default_priors`)
  and the Brier score, log-loss and calibration are not computed (they need probabilities).
* **bibeta** fits scores in [0, 1] (probabilities) with a Beta density per class: flexible
  (U-shaped, J-shaped or peaked) but unimodal, and with no mass at exactly 0 or 1 (such scores
  are moved to ``[EDGE, 1 - EDGE]``, with a warning). It adds the expected Brier score and
  log-loss under the fitted distributions (closed forms); no reliability curve.

Both borrow strength from the assumed shape, so their bands are somewhat narrower than the
bootstrap's (and smooth) when the shape is right, and biased when it is not: compare with the
bootstrap (same variable names and dims) before relying on them. Several classifiers are fitted
jointly (one model, dim ``classifier``, one shared prevalence), but their scores are modelled
as independent given the class: a comparison of two classifiers (``bcm.prob_superior``) ignores
the correlation of their scores on the same items, so its posterior of the difference is wider
(more cautious) than the bootstrap's paired one when the scores are positively correlated.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.arguments import warn_user
from bayescm.core.deprecation import moved
from bayescm.core.resources import check_memory
from bayescm.core.scores import Scores
from bayescm.core.streams import child
from bayescm.errors import ScoreRangeError
from bayescm.metrics.evaluation import evaluate
from bayescm.metrics.scores import SCORE_METRICS
from bayescm.models.pipeline import diagnostic_variables
from bayescm.models.roc_checks import check_parametric_fit
from bayescm.models.roc_parametric_curves import BiBeta, Binormal, curve_metrics, threshold_cells
from bayescm.models.roc_parametric_priors import LONG_NAMES, PARAMETERS, resolve_priors

if TYPE_CHECKING:
    import pymc as pm

    from bayescm.metrics.metric import Metric
    from bayescm.models.context import FitContext

__all__ = ["EDGE", "PARAMETRIC_METHODS", "ScoreRangeError", "build_parametric_model",
           "fit_parametric"]

__getattr__ = moved(__name__, {name: ("bayescm.priors", name)
                               for name in ("Normal", "HalfNormal", "LogNormal")})

PARAMETRIC_METHODS = ("binormal", "bibeta")
"""``method=`` values of the parametric fits of :class:`~bayescm.Scores`."""
EDGE = 1e-6
"""The bibeta model moves scores of exactly 0 or 1 to ``EDGE`` and ``1 - EDGE``."""
_CHUNK = 512
_LEFT_OUT = {
    "binormal": "brier, log_loss, ece, ece_reference and reliability are left out: the binormal "
                "model treats scores as arbitrary units, not probabilities",
    "bibeta": "ece, ece_reference and reliability are left out (no calibration model); brier and "
              "log_loss are their expectations under the fitted Beta distributions",
}


def _checked(data: Scores, method: str) -> np.ndarray:
    """The ``(classifier, item)`` scores, refused by bibeta outside [0, 1], edges moved in."""
    matrix = np.stack([data.scores[n] for n in data.names]).astype(float)
    if method != "bibeta":
        return matrix
    for name, s in zip(data.names, matrix, strict=True):
        if s.min() < 0 or s.max() > 1:
            raise ScoreRangeError(
                f"method='bibeta' models scores in [0, 1] (probabilities), but classifier "
                f"{name!r} has scores from {s.min():g} to {s.max():g}. Use method='binormal' "
                "(any real scores) or the bootstrap (method='bootstrap'), or map the scores "
                "into [0, 1] first.")
    edge = np.count_nonzero((matrix == 0) | (matrix == 1))
    if edge:
        warn_user(f"{edge} scores are exactly 0 or 1, where a Beta density has no mass; "
                  f"bibeta moves them to {EDGE:g} and 1 - {EDGE:g}. Many such scores mean the "
                  "model does not fit: compare with method='bootstrap'.")
    return np.clip(matrix, EDGE, 1 - EDGE)


def _variable(name: str, prior: Any, n: int) -> Any:
    """The prior's variable with the ``classifier`` dim (a scalar factory for one classifier)."""
    params = inspect.signature(prior.create_variable).parameters
    if "dims" in params:
        return prior.create_variable(name, dims="classifier")
    var = prior.create_variable(name)
    if var.ndim == 0 and n == 1:
        return var[None]
    if var.ndim != 1:
        raise ValueError(f"The custom prior for {name} created a variable with {var.ndim} "
                         "dimension(s); it must have the `classifier` dim (e.g. Prior(..., "
                         "dims='classifier')).")
    return var


def build_parametric_model(data: Scores, method: str = "binormal",
                           priors: Mapping[str, Any] | None = None) -> pm.Model:
    """The PyMC model of ``method`` for scored items (see the module notes).

    Free variables: the four class-distribution parameters (dim ``classifier``) and
    ``prevalence`` (one for all classifiers: they score the same items). Observed:
    ``scores_positive`` (dims ``classifier, positive_item``), ``scores_negative`` and
    ``n_positive`` (absent when the prevalence is :class:`~bayescm.Fixed`).

    Examples
    --------
    >>> import numpy as np, bayescm as bcm
    >>> from bayescm.models.roc_parametric import build_parametric_model
    >>> data = bcm.Scores([1, 0, 1, 0, 0], [2.1, 0.3, 1.2, -0.5, 0.9])
    >>> model = build_parametric_model(data, "binormal")
    >>> model.named_vars_to_dims["mu_pos"], model.named_vars_to_dims["scores_positive"]
    (('classifier',), ('classifier', 'positive_item'))
    """
    if method not in PARAMETRIC_METHODS:
        raise ValueError(f"Unknown parametric method {method!r}; use one of "
                         f"{', '.join(map(repr, PARAMETRIC_METHODS))}.")
    matrix = _checked(data, method)
    return _build(data, method, resolve_priors(method, dict(priors or {}), list(matrix)),
                  matrix)


def _build(data: Scores, method: str, chosen: Mapping[str, Any], matrix: np.ndarray
           ) -> pm.Model:
    import pymc as pm

    y = data.y
    coords = {"classifier": data.names, "positive_item": np.flatnonzero(y),
              "negative_item": np.flatnonzero(~y)}
    with pm.Model(coords=coords) as model:
        prior = chosen["prevalence"]
        prevalence = prior.create_variable("prevalence")
        if not getattr(prior, "fixed", False):
            pm.Binomial("n_positive", n=y.size, p=prevalence, observed=int(y.sum()))
        p = {k: _variable(k, chosen[k], len(data.names)) for k in PARAMETERS[method][:4]}
        dist, keys = (pm.Normal, ("mu", "sigma")) if method == "binormal" else (
            pm.Beta, ("alpha", "beta"))
        for cls, mask in (("pos", y), ("neg", ~y)):
            dist(f"scores_{'positive' if cls == 'pos' else 'negative'}",
                 **{k: p[f"{k}_{cls}"][:, None] for k in keys}, observed=matrix[:, mask],
                 dims=("classifier", f"{'positive' if cls == 'pos' else 'negative'}_item"))
    return model


def fit_parametric(ctx: FitContext, options: Mapping[str, Any], reference: xr.DataTree
                   ) -> xr.DataTree:
    """Sample :func:`build_parametric_model` with NUTS and assemble the scores result tree.

    Reached through ``bcm.fit(bcm.Scores(...), method="binormal")`` or ``method="bibeta"``
    (:meth:`bayescm.models.scores.ScoresModel.fit` dispatches here); ``fit``'s ``draws``,
    ``chains``, ``random_seed``, ``metrics``, ``hdi_prob``, ``threshold``, ``fpr_range``,
    ``grid_size`` and the NUTS options (``tune=``, ``target_accept=`` (default 0.9),
    ``nuts_sampler=``, ...) apply; the priors are keyed by
    :data:`~bayescm.models.roc_parametric_priors.PARAMETERS` in ``priors={...}``.

    Parameters
    ----------
    ctx : FitContext
        The fit's context (data, method, priors as given, metrics, draws, seed).
    options : mapping
        ``pymc.sample`` options, ``sampler_kwargs`` and ``progressbar``.
    reference : xarray.DataTree
        A one-draw bootstrap fit of the same items and options: its grids, threshold and
        observed groups are the ones this tree reports, so both fits share ``observed_metrics``.

    Returns
    -------
    xarray.DataTree
        The bootstrap's layout (``auc``, ``auc_partial``, ``average_precision``, ``roc`` over
        ``fpr``, ``pr`` over ``recall``, the thresholded metrics; ``brier`` and ``log_loss`` for
        bibeta) plus the parameters, with ``sample_stats``, ``diagnostics`` (rank-normalised
        R-hat and bulk ESS), ``observed_metrics`` and ``observed_data``; root attribute
        ``method`` is ``"binormal"`` or ``"bibeta"``.

    Examples
    --------
    >>> import numpy as np, bayescm as bcm
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(200) < 0.4
    >>> data = bcm.Scores(y, rng.normal(size=200) + 1.5 * y)
    >>> idata = bcm.fit(data, method="binormal", draws=200, chains=2, random_seed=1)
    >>> idata.attrs["method"], idata["posterior"]["roc"].dims
    ('binormal', ('chain', 'draw', 'fpr'))
    >>> bool(0.75 < float(idata["posterior"]["auc"].mean()) < 0.95)   # truth Phi(1.5/sqrt 2)
    True
    """
    import pymc as pm

    from bayescm.models.checks import sampler_options
    from bayescm.models.context import assemble
    from bayescm.models.nuts import warn_convergence

    method, data = ctx.method, ctx.data
    options = dict(options)
    progressbar = bool(options.pop("progressbar", False))
    options = sampler_options("nuts", options.pop("sampler_kwargs", None), options)
    options.setdefault("target_accept", 0.9)
    options.setdefault("compute_convergence_checks", False)
    matrix = _checked(data, method)
    priors = resolve_priors(method, ctx.priors, list(matrix))
    ref_post = box.get_group(reference, "posterior")
    fpr_grid, recall_grid = ref_post["fpr"].values, ref_post["recall"].values
    attrs = box.root_attrs(reference)
    threshold = float(attrs["threshold"])
    lo, hi = box.read_json_attr(reference, "fpr_range")
    names, chains, draws = data.names, ctx.chains, ctx.draws
    total = chains * draws
    check_memory(float(total) * len(names) * (2 * fpr_grid.size + len(ctx.metrics) + 20),
                 "This ROC analysis", ["fewer draws", "a coarser grid (grid_size=)"])
    model = _build(data, method, priors, matrix)
    trace = pm.sample(draws=draws, chains=chains, model=model, progressbar=progressbar,
                      random_seed=int(child(ctx.seed, 0).generate_state(1)[0]), **options)
    post = trace["posterior"]
    keys = PARAMETERS[method][:4]

    def flat(name: str) -> np.ndarray:
        da = post[name]
        order = ["chain", "draw"] + [d for d in da.dims if d not in ("chain", "draw")]
        return np.asarray(da.transpose(*order).values, dtype=float).reshape(total, -1)

    params = {k: flat(k) for k in keys}  # (total, classifier)
    fixed = getattr(priors["prevalence"], "fixed", False)
    prevalence = (np.full(total, float(priors["prevalence"].value)) if fixed else
                  flat("prevalence")[:, 0])
    posterior = {**params, "prevalence": np.repeat(prevalence[:, None], len(names), axis=1),
                 **_derive(method, params, prevalence, ctx.metrics, threshold,
                           (fpr_grid, recall_grid, (lo, hi)))}
    single = "classifier" not in ref_post.dims
    extra = {"roc": ("fpr",), "pr": ("recall",)}
    long_names = {**{m.name: m.long_name for m in ctx.metrics},
                  **{k: v.long_name for k, v in SCORE_METRICS.items()}, **LONG_NAMES}

    def variables(values: Mapping[str, np.ndarray], lead: tuple[str, ...],
                  shape: tuple[int, ...]) -> dict[str, Any]:
        out = {}
        for k, v in values.items():
            arr = v.reshape(shape + v.shape[1:])
            dims = lead + ("classifier",) + extra.get(k, ())
            if single:
                arr, dims = arr[(slice(None),) * len(lead) + (0,)], lead + extra.get(k, ())
            out[k] = (dims, arr, {"long_name": long_names.get(k, k)})
        return out

    coords = {"chain": np.arange(chains), "draw": np.arange(draws), "classifier": names,
              "fpr": fpr_grid, "recall": recall_grid, "diagnostic": ["r_hat", "ess_bulk"]}
    post_vars = variables(posterior, box.SAMPLE_DIMS, (chains, draws))
    note = (f"{method} model sampled with NUTS; each draw of the class distributions is one "
            f"smooth ROC curve; {_LEFT_OUT[method]}")
    groups: dict[str, xr.Dataset] = {"posterior": box.make_dataset(post_vars, coords, {
        "method": method, "note": note})}
    scalar = {k: v for k, v in post_vars.items() if k not in extra and not (
        k == "prevalence" and fixed)}
    diag = diagnostic_variables(scalar, "rank", "bulk")
    groups["diagnostics"] = box.make_dataset(diag, coords, {
        "r_hat_method": "rank", "ess_method": "bulk",
        "note": "rank-normalised split R-hat and bulk ESS (Vehtari et al. 2021), as in ArviZ"})
    groups["sample_stats"] = box.get_group(trace, "sample_stats", foreign=True)
    observed = box.get_group(reference, "observed_metrics")
    kept = {k: (tuple(map(str, observed[k].dims)), observed[k].values, dict(observed[k].attrs))
            for k in observed.data_vars if k in post_vars}
    for k, v in _plug_in(method, matrix, data.y).items():
        kept[k] = ((() if single else ("classifier",)), v[0] if single else v,
                   {"long_name": LONG_NAMES[k]})
    groups["observed_metrics"] = box.make_dataset(kept, coords, {
        "note": "the bootstrap's observed values (every item weight 1; scikit-learn's AUC and "
                "average precision), and plug-in class parameters (binormal: the class means "
                "and sds; bibeta: moment estimates); NaN means undefined"})
    groups["observed_data"] = box.get_group(reference, "observed_data")
    if fixed:
        groups["constant_data"] = box.make_dataset(
            {"prevalence": ((), np.asarray(prevalence[0]), {"long_name": "fixed prevalence"})},
            coords)
    auc = posterior["auc"]  # (total, classifier): the check against the bootstrap's AUC
    disagreement = check_parametric_fit(
        method, data.y, data.scores, {n: auc[:, i] for i, n in enumerate(names)},
        np.random.default_rng(child(ctx.seed, 1)))
    sampled = [*keys, *([] if fixed else ["prevalence"])]
    warn_convergence(groups["sample_stats"],
                     {k: np.asarray(post[k].transpose("chain", "draw", ...).values)
                      for k in sampled}, float(options["target_accept"]))
    fit_ctx = ctx.replace(priors=priors)
    return assemble(fit_ctx, groups, method=method, threshold=threshold,
                    fpr_range=box.json_attr([lo, hi]), positive=str(data.positive),
                    classifiers=box.json_attr(names), target_accept=options["target_accept"],
                    nuts_sampler=str(options["nuts_sampler"]), note=note,
                    auc_disagreement=box.json_attr({k: round(v, 3)
                                                    for k, v in disagreement.items()}),
                    **ctx.seed_record())


def _derive(method: str, params: Mapping[str, np.ndarray], prevalence: np.ndarray,
            metrics: Sequence[Metric], threshold: float,
            grids: tuple[np.ndarray, np.ndarray, tuple[float, float]]
            ) -> dict[str, np.ndarray]:
    """Curves and metrics of every draw, ``(draws, classifier, ...)``, in chunks of draws."""
    family = Binormal if method == "binormal" else BiBeta
    keys = PARAMETERS[method][:4]
    total, n = params[keys[0]].shape
    per_classifier = []
    for c in range(n):
        chunks = []
        for start in range(0, total, _CHUNK):
            rows = slice(start, min(start + _CHUNK, total))
            fam = family(*(params[k][rows, c] for k in keys))
            pi = prevalence[rows]
            values = curve_metrics(fam, pi, *grids)
            if isinstance(fam, Binormal):
                values["auc"] = fam.auc()  # the closed form
            else:
                values.update(fam.losses(pi))
            values.update(evaluate(metrics, threshold_cells(fam, pi, threshold), (pi.size,)))
            chunks.append(values)
        per_classifier.append({k: np.concatenate([ch[k] for ch in chunks]) for k in chunks[0]})
    return {k: np.stack([pc[k] for pc in per_classifier], axis=1) for k in per_classifier[0]}


def _plug_in(method: str, matrix: np.ndarray, y: np.ndarray) -> dict[str, np.ndarray]:
    """Point estimates of the class parameters, ``(classifier,)`` each."""
    out = {}
    for cls, mask in (("pos", y), ("neg", ~y)):
        s = matrix[:, mask]
        m = s.mean(axis=1)
        sd = s.std(axis=1, ddof=1) if s.shape[1] > 1 else np.full(m.shape, np.nan)
        if method == "binormal":
            out[f"mu_{cls}"], out[f"sigma_{cls}"] = m, sd
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                common = m * (1 - m) / sd ** 2 - 1
            out[f"alpha_{cls}"], out[f"beta_{cls}"] = m * common, (1 - m) * common
    return out
