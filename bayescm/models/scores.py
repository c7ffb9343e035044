"""``fit`` for scored items: nonparametric posteriors of ROC and PR curves as a tree.

:func:`fit_scores` (reached through ``bcm.fit(bcm.Scores(...))``) draws weights over the test
items and stores, per classifier: the AUC, the partial AUC over ``fpr_range``, the average
precision, the Brier score, the log-loss, the ROC curve on an ``fpr`` grid (variable ``roc``),
the PR curve on a ``recall`` grid (``pr``), the reliability curve per score ``bin`` with the
expected calibration error (``ece``, and ``ece_reference`` under perfect calibration), and
every binary confusion-matrix metric at ``threshold``. Two methods (:data:`METHODS`):

* ``"dirichlet_process"`` (the default): each class's score distribution has a
  Dirichlet-process posterior with 1.25 prior items' mass beyond the observed scores, half above
  and half below (:mod:`bayescm.models.roc_dp`, where the choice is argued and its coverage
  stated); the AUC keeps its 95 % promise where the bootstrap's does not (small samples, high
  AUC, separated classes);
* ``"bootstrap"`` (stored as ``"bayesian_bootstrap"``): Dirichlet(1, ..., 1) weights on the
  observed items only (:mod:`bayescm.models.roc`), the limit of the first as its prior mass goes
  to 0.

Several classifiers share the weights (dim ``classifier``), so
``bcm.prob_superior(idata, "B", "A", metric="auc")`` is a paired comparison.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.resources import check_memory
from bayescm.core.scores import Scores
from bayescm.core.stats import hdi_prob_for
from bayescm.core.streams import child, record, seed_sequence
from bayescm.core.validate import check_int, check_real
from bayescm.metrics.binary import BINARY_METRICS
from bayescm.metrics.catalogue import resolve_metrics
from bayescm.metrics.evaluation import evaluate
from bayescm.metrics.metric import Metric
from bayescm.metrics.scores import SCORE_METRICS
from bayescm.models.base import ModelKind
from bayescm.models.calibration import calibration_draws
from bayescm.models.pipeline import diagnostic_variables
from bayescm.models.registry import register
from bayescm.models.roc import CurveDraws, curve_draws, item_sums
from bayescm.models.roc_dp import CONCENTRATION
from bayescm.models.scores_observed import (
    fpr_range_of,
    observed_values,
    scores_from_tree,
    threshold_counts,
)
from bayescm.models.scores_weights import WeightLayout

__all__ = ["CURVES", "METHODS", "fit_scores"]

CURVES = ("roc", "pr", "reliability")
"""Curve variables (one value per grid point), left out of a default summary."""


METHODS = {"dirichlet_process": "dirichlet_process", "bootstrap": "bayesian_bootstrap"}
"""The nonparametric methods of scores (``method=``) and the name each result stores."""

_STORED = {"auto": "dirichlet_process", "exact": "dirichlet_process", **METHODS,
           "bayesian_bootstrap": "bayesian_bootstrap"}

_NOTES = {
    "dirichlet_process": f"Dirichlet-process posterior of each class (concentration "
                         f"{CONCENTRATION:g}, base measure half above and half below every "
                         f"observed score): Dirichlet(1, ..., 1) weights over the items and "
                         f"Gamma({CONCENTRATION / 2:g}) weights on four novel atoms; each draw "
                         f"is one whole ROC curve",
    "bayesian_bootstrap": "Dirichlet(1, ..., 1) weights over the test items (Bayesian "
                          "bootstrap); each draw is one whole ROC curve"}

def fit_scores(
    data: Scores,
    *,
    draws: int = 1000,
    chains: int = 4,
    random_seed: Any = None,
    metrics: Iterable[str | Metric] | str | Metric | None = None,
    threshold: float = 0.5,
    fpr_range: tuple[float, float] = (0.0, 0.1),
    grid_size: int = 201,
    n_bins: int = 10,
    hdi_prob: float | None = None,
    method: str = "dirichlet_process",
) -> xr.DataTree:
    """Posterior of the ROC and PR curves, AUC, calibration and thresholded metrics of scores.

    Parameters
    ----------
    data : Scores
        Labels and one or more classifiers' scores on the same items.
    draws, chains : int
        Draws per chain and chains (independent draws; 4 x 1,000 by default).
    random_seed : int, SeedSequence or Generator, optional
        Same seed, same weights (recorded in the result).
    metrics : list of str or Metric, optional
        Confusion-matrix metrics at ``threshold`` (default the binary catalogue except ``fpr``,
        whose name is the ROC grid's dim; it equals ``1 - tnr``).
    threshold : float, default 0.5
        Scores ``>= threshold`` are predicted positive for the confusion-matrix metrics.
    fpr_range : pair of float, default (0, 0.1)
        FPR interval of the partial AUC.
    grid_size : int, default 201
        Points of the ``fpr`` and ``recall`` grids (0 to 1).
    n_bins : int, default 10
        Equal-width score bins of the reliability curve (scores must be probabilities).
    hdi_prob : float, optional
        Recorded as the default interval probability of :func:`bayescm.summary`; default
        ``bcm.rcParams["stats.hdi_prob"]``.
    method : {"dirichlet_process", "bootstrap"}
        The Dirichlet-process posterior with mass beyond the observed scores (the default;
        :mod:`bayescm.models.roc_dp`) or the plain Bayesian bootstrap (stored as
        ``"bayesian_bootstrap"``, which is accepted too).

    Returns
    -------
    xarray.DataTree
        ``posterior`` and ``observed_metrics`` (the same variables at the observed items:
        scikit-learn's AUC and average precision, the plug-in Brier score, ...),
        ``observed_data`` (``y``, ``scores``, ``counts`` at the threshold), ``constant_data``
        (bin edges, counts and mean scores) and ``diagnostics``; the root attribute ``method``
        records the method.

    Raises
    ------
    TypeError
        ``data`` is not a :class:`~bayescm.Scores`.
    ValueError
        An unknown ``method``, or an option out of range.

    Examples
    --------
    >>> import numpy as np, bayescm as bcm
    >>> rng = np.random.default_rng(0)
    >>> y = rng.random(300) < 0.4
    >>> data = bcm.Scores(y, 1 / (1 + np.exp(-(2 * y - 1 + rng.normal(size=300)))))
    >>> idata = bcm.fit(data, random_seed=1)
    >>> idata["posterior"]["roc"].dims
    ('chain', 'draw', 'fpr')
    >>> 0.7 < float(idata["posterior"]["auc"].mean()) < 0.95
    True
    >>> idata.attrs["method"], bcm.fit(data, method="bootstrap", draws=10).attrs["method"]
    ('dirichlet_process', 'bayesian_bootstrap')
    """
    if not isinstance(data, Scores):
        raise TypeError(f"fit_scores needs a bcm.Scores, got {type(data).__name__}.")
    if not isinstance(method, str) or method not in (*METHODS, "bayesian_bootstrap"):
        raise ValueError(f"fit_scores takes method='dirichlet_process' (the default) or "
                         f"'bootstrap', got {method!r}.")
    method = _STORED[method]
    novel = method == "dirichlet_process"
    draws = check_int(draws, "draws", 1)
    chains = check_int(chains, "chains", 1)
    hdi_prob = hdi_prob_for(hdi_prob)
    threshold = check_real(threshold, "threshold")
    grid_size = check_int(grid_size, "grid_size", 2, 100_000)
    n_bins = check_int(n_bins, "n_bins", 1, 10_000)
    lo, hi = fpr_range_of(fpr_range)
    selected = [m for m in resolve_metrics(metrics, BINARY_METRICS, "binary") if m.name != "fpr"]
    names = data.names
    total = chains * draws
    check_memory(float(total) * len(names) * (3 * grid_size + n_bins + len(selected) + 10),
                 "This ROC analysis", ["fewer draws", "a coarser grid (grid_size=)"])
    seq = seed_sequence(random_seed)
    rng_cal = np.random.default_rng(child(seq, 1))
    fpr_grid = np.linspace(0.0, 1.0, grid_size)
    recall_grid = np.linspace(0.0, 1.0, grid_size)
    y = data.y
    # the weight columns: the first classifier's positives, then its negatives, each by score
    # (the Dirichlet process's novel atoms among them), as net_benefit draws them again
    layout = WeightLayout(data, novel)
    items, columns, y_all = layout.items, layout.columns, layout.y_all
    curves = {name: CurveDraws(y_all, s, columns) for name, (_, s) in items.items()}
    y_cols, scores_cols, seen = layout.y, layout.scores, layout.seen

    def chunk(job: tuple[int, int]) -> dict[str, np.ndarray]:
        index, m = job  # each chunk has its own stream: results do not depend on threads
        weights = layout.weights(seq, index, m)
        part: dict[str, np.ndarray] = {}
        for name, s in scores_cols.items():
            losses, cells = item_sums(y_cols, s, weights, threshold, seen)
            values = {**curve_draws(y_all, items[name][1], weights, fpr_grid, recall_grid,
                                    (lo, hi), curves[name]),
                      **losses, **evaluate(selected, cells, (m,))}
            part.update({f"{name}\0{key}": value for key, value in values.items()})
        return part

    jobs = layout.jobs(total)
    workers = min(2, os.cpu_count() or 1, len(jobs))
    if workers > 1:
        with ThreadPoolExecutor(workers) as pool:
            parts = list(pool.map(chunk, jobs))
    else:
        parts = [chunk(job) for job in jobs]
    out = {key: [p[key] for p in parts] for key in parts[0]}
    stacked = {key: np.concatenate(parts) for key, parts in out.items()}
    calib = {name: calibration_draws(rng_cal, y, s, total, n_bins)
             for name, s in data.scores.items()}

    def gather(key: str, source: Any = None) -> np.ndarray:
        arrays = [stacked[f"{n}\0{key}"] if source is None else source[n][key] for n in names]
        return np.stack(arrays, axis=1)  # (total, classifier, ...)

    keys = ["auc", "auc_partial", "average_precision", "brier", "log_loss", "roc", "pr",
            *[m.name for m in selected]]
    posterior = {k: gather(k) for k in keys}
    for k in ("ece", "ece_reference", "reliability"):
        posterior[k] = gather(k, calib)
    extra = {"roc": ("fpr",), "pr": ("recall",), "reliability": ("bin",)}
    single = len(names) == 1 and list(data.scores) == ["A"]
    long_names = {**{m.name: m.long_name for m in selected},
                  **{k: v.long_name for k, v in SCORE_METRICS.items()}}

    def variables(values: dict[str, np.ndarray], lead: tuple[str, ...], shape: tuple[int, ...]
                  ) -> dict[str, Any]:
        result = {}
        for k, v in values.items():
            arr = v.reshape(shape + v.shape[1:])
            dims = lead + ("classifier",) + extra.get(k, ())
            if single:
                arr = arr[(slice(None),) * len(lead) + (0,)]
                dims = lead + extra.get(k, ())
            result[k] = (dims, arr, {"long_name": long_names.get(k, k)})
        return result

    coords = {"chain": np.arange(chains), "draw": np.arange(draws), "classifier": names,
              "fpr": fpr_grid, "recall": recall_grid, "bin": np.arange(n_bins),
              "diagnostic": ["r_hat", "ess_mean"], "true_class": ["positive", "negative"],
              "pred_class": ["positive", "negative"], "item": np.arange(y.size)}
    post_vars = variables(posterior, box.SAMPLE_DIMS, (chains, draws))
    groups = {"posterior": box.make_dataset(post_vars, coords, {
        "method": method, "note": _NOTES[method]})}
    scalar = {k: v for k, v in post_vars.items() if k not in extra}
    groups["diagnostics"] = box.make_dataset(
        diagnostic_variables(scalar, "split", "mean"), coords,
        {"r_hat_method": "split", "ess_method": "mean",
         "note": "independent draws: classic split R-hat and Geyer ESS of the raw draws"})
    groups["observed_metrics"] = box.make_dataset(
        observed_values(data, selected, threshold, fpr_grid, recall_grid, (lo, hi), n_bins,
                        names, single, long_names, extra), coords,
        {"note": "the same quantities at the observed items (every weight 1); NaN means "
                 "undefined"})
    counts = np.stack([threshold_counts(y, s, threshold) for s in data.scores.values()])
    score_matrix = np.stack([data.scores[n] for n in names])
    groups["observed_data"] = box.make_dataset({
        "y": (("item",), y.astype(np.int8), {"long_name": "true class is positive (1) or not"}),
        "scores": ((("item",) if single else ("classifier", "item")),
                   score_matrix[0] if single else score_matrix, {"long_name": "scores"}),
        "counts": ((() if single else ("classifier",)) + ("true_class", "pred_class"),
                   counts[0] if single else counts,
                   {"long_name": f"confusion matrix at threshold {threshold:g}"}),
    }, coords)
    first = calib[names[0]]
    groups["constant_data"] = box.make_dataset({
        "bin_edges": (("bin_edge",), np.linspace(0, 1, n_bins + 1),
                      {"long_name": "edges of the score bins"}),
        "bin_count": ((("bin",) if single else ("classifier", "bin")),
                      first["bin_count"] if single else
                      np.stack([calib[n]["bin_count"] for n in names]),
                      {"long_name": "items per score bin"}),
        "bin_score": ((("bin",) if single else ("classifier", "bin")),
                      first["bin_score"] if single else
                      np.stack([calib[n]["bin_score"] for n in names]),
                      {"long_name": "mean score per bin"}),
    }, {**coords, "bin_edge": np.arange(n_bins + 1)})
    from bayescm.models.context import FitContext, assemble

    ctx = FitContext(kind=ScoresModel(), priors={}, metrics=selected, counts=None, names=None,
                     draws=draws, chains=chains, hdi_prob=hdi_prob, method=method, seed=seq)
    weights = {"dist": "Dirichlet", "name": method, "alpha": 1.0}
    if novel:  # the novel atoms' Dirichlet parameter: half the concentration each
        weights["novel"] = CONCENTRATION / 2
    return assemble(ctx, groups, method=method, threshold=threshold,
                    fpr_range=box.json_attr([lo, hi]), n_bins=n_bins,
                    positive=str(data.positive), classifiers=box.json_attr(names),
                    priors=box.json_attr({"weights": weights}), **record(seq))


_SCORE_OPTIONS = ("threshold", "fpr_range", "grid_size", "n_bins")


_CATALOGUE: dict[str, Metric] = {**BINARY_METRICS, **SCORE_METRICS}


@register
class ScoresModel(ModelKind):
    """The registered kind ``"scores"``: nonparametric posteriors of scored items.

    Fitted with ``bcm.fit(bcm.Scores(...))``: exact draws (4 x 1,000 by default) of the
    Dirichlet-process posterior with mass beyond the observed scores (``method=
    "dirichlet_process"``, the default) or of the Bayesian bootstrap (``method="bootstrap"``).
    Neither has parameter priors: their "prior" is the Dirichlet over the items (and, for the
    default, the novel atoms). ``method="binormal"`` or ``"bibeta"`` fits parametric class
    distributions instead (:mod:`bayescm.models.roc_parametric`, with ``priors={...}``).

    Examples
    --------
    >>> from bayescm.models.scores import ScoresModel
    >>> ScoresModel.accepts_matrices, ScoresModel.default_draws
    (False, 1000)
    """

    key = "scores"
    standard_pipeline = False  # its own fit
    description = "a scores (ROC) fit"
    accepts_matrices = False
    has_exact = True
    default_draws = 1000
    analyses = frozenset({"summary", "prob_superior", "rank_probabilities", "informedness",
                          "curve_bands", "refit", "net_benefit", "expected_cost",
                          "cost_curve"})
    figures = ("roc", "pr", "reliability")
    catalogue = _CATALOGUE

    def __init__(self, labels: Sequence[Any] = ("positive", "negative")) -> None:
        super().__init__(labels)

    @classmethod
    def accepts(cls, data: Any) -> bool:
        """Labels and scores (:class:`~bayescm.Scores`)."""
        return isinstance(data, Scores)

    @classmethod
    def from_data(cls, data: Any) -> ScoresModel:
        """The kind of :class:`~bayescm.Scores` (positive / negative cells)."""
        if not isinstance(data, Scores):
            raise TypeError(f"The scores model needs bcm.Scores, got {type(data).__name__}.")
        return cls()

    def select_metrics(self, selected: Sequence[Metric], priors: Mapping[str, Any]
                       ) -> list[Metric]:
        """Thresholded binary metrics except ``fpr`` (the ROC grid's dim)."""
        return [m for m in selected if m.name != "fpr" and m.name not in SCORE_METRICS]

    @classmethod
    def example(cls, random_seed: int = 0) -> xr.DataTree:
        """Two classifiers' binormal scores on 200 items (AUC 0.76 and 0.86), 4 x 250 draws."""
        from scipy import special

        rng = np.random.default_rng(random_seed)
        y = rng.random(200) < 0.4
        latent = {"A": 1.0, "B": 1.5}
        scores = {k: special.expit(d * y - d / 2 + rng.normal(size=200))
                  for k, d in latent.items()}
        return fit_scores(Scores(y, scores, positive=True), draws=250,
                          random_seed=random_seed)

    @property
    def prior_arguments(self) -> tuple[str, ...]:
        """``priors={...}`` keys of the parametric fits (the nonparametric ones have none)."""
        from bayescm.models.risk_calibration import CALIBRATION_PARAMETERS
        from bayescm.models.roc_parametric_priors import PARAMETERS

        return tuple(dict.fromkeys([*(k for keys in PARAMETERS.values() for k in keys),
                                    *CALIBRATION_PARAMETERS]))

    def resolve_priors(self, prior: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """No ``prior=``; ``priors={...}`` are kept for the parametric fits (checked there)."""
        if prior is not None:
            raise ValueError("Scores are analysed with a Dirichlet-process posterior (or the "
                             "Bayesian bootstrap), which has no "
                             "parameter priors or sampler options; drop prior=, prevalence=, "
                             "tpr=, tnr=, rates= and sampler_kwargs= (method='binormal' or "
                             "'bibeta' take priors={...} keyed by their parameters).")
        return {k: v for k, v in overrides.items() if v is not None}

    def build_pymc(self, names: Any, counts: Any, priors: Any) -> Any:
        """No PyMC model (its draws are exact)."""
        raise ValueError("The scores model draws its posterior exactly; it has no PyMC model.")

    def observed(self, counts: Any, priors: Any) -> Any:
        """Not used: :func:`fit_scores` computes the observed values from the items."""
        raise NotImplementedError

    def derive(self, params: Any, priors: Any, selected: Any, theta: Any = None,
               skip: Any = None) -> Any:
        """Not used: :func:`fit_scores` derives the curves from the weights."""
        raise NotImplementedError

    def fit(self, ctx: Any, options: Mapping[str, Any]) -> xr.DataTree:
        """The nonparametric fits (:func:`fit_scores`), or the parametric fits of ``method``.

        ``"auto"`` and ``"exact"`` mean ``"dirichlet_process"``; ``"bootstrap"`` (or its stored
        name ``"bayesian_bootstrap"``) the Bayesian bootstrap. ``method="binormal"`` and
        ``"bibeta"`` go to :func:`bayescm.models.roc_parametric.fit_parametric`, with a one-draw
        bootstrap of the same items and curve options as its reference (grids and observed
        values).
        """
        options = dict(options)
        if ctx.method == "calibration":  # logistic recalibration of risks (NUTS)
            from bayescm.models.risk_calibration import fit_calibration, no_curve_options

            return fit_calibration(ctx, no_curve_options(options, _SCORE_OPTIONS))
        if ctx.method in ("binormal", "bibeta"):
            from bayescm.models.roc_parametric import fit_parametric

            if options.pop("n_bins", None) is not None:
                raise TypeError(f"n_bins= sets the bootstrap's reliability bins; "
                                f"method={ctx.method!r} has no reliability curve.")
            curve = {k: options.pop(k) for k in _SCORE_OPTIONS if k in options}
            if options.pop("group", None) is not None:
                raise ValueError("group= belongs to model='hierarchical'; drop it for scores.")
            reference = fit_scores(ctx.data, draws=1, chains=1, random_seed=0,
                                   metrics=ctx.metrics, hdi_prob=ctx.hdi_prob, **curve)
            return fit_parametric(ctx, options, reference)
        if ctx.priors:
            self.resolve_priors("priors", {})
        if options.pop("sampler_kwargs", None):
            self.resolve_priors("sampler", {})
        options.pop("progressbar", None)
        if options.pop("group", None) is not None:
            raise ValueError("group= belongs to model='hierarchical'; drop it for scores.")
        unknown = [k for k in options if k not in _SCORE_OPTIONS]
        if unknown:
            raise TypeError(f"fit() of Scores got an unknown keyword argument {unknown[0]!r}; "
                            f"valid keywords for scores: draws, chains, random_seed, metrics, "
                            f"hdi_prob, {', '.join(_SCORE_OPTIONS)}.")
        if not isinstance(ctx.method, str) or ctx.method not in _STORED:
            raise ValueError(f"Scores are analysed with method='dirichlet_process' (exact "
                             f"draws, the default), 'bootstrap' (the Bayesian bootstrap, exact "
                             f"draws), 'binormal', 'bibeta' (parametric curves) or "
                             f"'calibration' (risks' intercept and slope; NUTS), got "
                             f"{ctx.method!r}.")
        return fit_scores(ctx.data, draws=ctx.draws, chains=ctx.chains, random_seed=ctx.seed,
                          metrics=ctx.metrics, hdi_prob=ctx.hdi_prob,
                          method=_STORED[ctx.method], **options)

    def refit_arguments(self, ctx: Any, idata: xr.DataTree
                        ) -> tuple[Scores, dict[str, Any], dict[str, Any]]:
        """The items, curve options and priors a scores result was fitted with.

        The labels and scores come from ``observed_data``, the options from the root
        attributes and the grid; the nonparametric methods have no priors to pass.
        """
        if ctx.method == "calibration":
            from bayescm.models.risk_calibration import calibration_refit

            return calibration_refit(ctx, idata)
        data, options = scores_from_tree(idata)
        if ctx.method in ("binormal", "bibeta"):
            return data, options, dict(ctx.priors)
        return data, {**options, "n_bins": int(box.root_attrs(idata)["n_bins"])}, {}
