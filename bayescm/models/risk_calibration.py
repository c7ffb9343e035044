r"""Calibration of risks: the logistic recalibration model, sampled with NUTS.

``bcm.fit(bcm.Scores(y, risk), method="calibration")`` fits, for each model's risks
:math:`r_i \in (0, 1)`,

.. math::

    \operatorname{logit} P(y_i = 1) = a + b \operatorname{logit}(r_i), \qquad
    a \sim \mathcal{N}(0, 1.5), \quad b \sim \mathcal{N}(1, 1),

(Cox 1958): ``calibration_intercept`` :math:`a` and ``calibration_slope`` :math:`b`. Perfectly
calibrated risks have :math:`a = 0, b = 1`; a slope below 1 means risks too extreme (an
overfitted model), above 1 too moderate; with :math:`b = 1` the intercept says whether risks are
too high (:math:`a < 0`) or too low on average. This intercept is that of the joint model (as in
``CalibrationCurves``' logistic recalibration); calibration-in-the-large proper fixes the slope
at 1 (an offset model) and differs from it when the slope is not 1. Each draw also gives the
recalibration curve :math:`\operatorname{expit}(a + b \operatorname{logit}(p))` over a grid of
predicted risks ``risk`` (variable ``calibration_curve``), so its bands are whole-curve bands.

``knots=k`` (3 to 7) adds a restricted cubic spline of the logit risk to the linear predictor
(:mod:`bayescm.models.risk_calibration_spline`; coefficients ``calibration_spline``), so that
``calibration_curve`` is a smooth curve that can follow a miscalibration that is not linear on the
logit scale; the knots are stored in the root attribute ``knots``.

Sampling. With nutpie installed (``pip install 'bayescm[nutpie]'``) and Normal priors (the
defaults), nutpie samples the log density and gradient written out in
:mod:`bayescm.models.risk_calibration_density` (no graph to compile; the result's
``nuts_sampler`` attribute is ``"nutpie (written-out density)"``): 10,000 items in about 11 s
where PyMC's NUTS on the model below took 28 s (2 cores, load 3). Otherwise, with
``nuts_sampler="pymc"`` or options only PyMC's sampler takes, PyMC samples the model of
:func:`build_calibration_model`; a test checks that both have the same density.

Priors are keyed ``calibration_intercept`` and ``calibration_slope`` (``priors={...}``: any
prior of :mod:`bayescm.priors` with ``create_variable(name, dims=)``, e.g.
``bcm.priors.Normal(0, 1)``). Risks of exactly 0 or 1 are moved to ``[EDGE, 1 - EDGE]`` (with a
warning); risks outside [0, 1] and a single class are named errors.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr
from scipy import special

from bayescm.core import container as box
from bayescm.core.arguments import warn_user
from bayescm.core.scores import Scores
from bayescm.core.streams import child
from bayescm.models.pipeline import diagnostic_variables

if TYPE_CHECKING:
    import pymc as pm

    from bayescm.models.context import FitContext

__all__ = ["CALIBRATION_PARAMETERS", "EDGE", "build_calibration_model", "calibration_refit",
           "fit_calibration", "logistic_recalibration", "no_curve_options"]

CALIBRATION_PARAMETERS = ("calibration_intercept", "calibration_slope")
"""``priors={...}`` keys of ``method="calibration"``."""

EDGE = 1e-6
"""Risks of exactly 0 or 1 are moved this far inside (their logit is infinite)."""

_LONG = {"calibration_intercept": "calibration intercept (logistic recalibration)",
         "calibration_slope": "calibration slope (logistic recalibration)",
         "calibration_curve": "observed event rate at each predicted risk (recalibration)"}


def _logits(data: Scores) -> np.ndarray:
    """The logits of every model's risks, ``(classifier, item)``, checked."""
    if data.n_pos == 0 or data.n_pos == data.n:
        raise ValueError("method='calibration' needs both classes among the items; these are "
                         "all of one class.")
    matrix = np.stack([np.asarray(data.scores[n], dtype=float) for n in data.names])
    if np.any(matrix < 0) or np.any(matrix > 1):
        raise ValueError("method='calibration' needs risks (predicted probabilities in [0, 1]); "
                         f"these run from {matrix.min():g} to {matrix.max():g}.")
    edge = int(np.sum((matrix == 0) | (matrix == 1)))
    if edge:
        warn_user(f"{edge} risks are exactly 0 or 1 (an infinite logit); method='calibration' "
                  f"moves them to {EDGE:g} and 1 - {EDGE:g}.")
    return special.logit(np.clip(matrix, EDGE, 1 - EDGE))


def default_priors() -> dict[str, Any]:
    """``calibration_intercept ~ Normal(0, 1.5)``, ``calibration_slope ~ Normal(1, 1)``."""
    from bayescm.priors import Normal

    return {"calibration_intercept": Normal(0.0, 1.5), "calibration_slope": Normal(1.0, 1.0)}


def _resolved(priors: Mapping[str, Any]) -> dict[str, Any]:
    unknown = [k for k in priors if k not in CALIBRATION_PARAMETERS]
    if unknown:
        raise ValueError(f"method='calibration' takes priors keyed by "
                         f"{', '.join(CALIBRATION_PARAMETERS)}; got {unknown[0]!r}.")
    return {**default_priors(), **dict(priors)}


def build_calibration_model(data: Scores, priors: Mapping[str, Any] | None = None
                            ) -> pm.Model:
    """The PyMC logistic recalibration model of every model's risks (dim ``classifier``).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.risk_calibration import build_calibration_model
    >>> model = build_calibration_model(bcm.Scores([1, 0, 1, 0], [0.8, 0.3, 0.6, 0.5]))
    >>> model.named_vars_to_dims["calibration_slope"]
    ('classifier',)
    """
    return _build(data, _logits(data), _resolved(priors or {}))


def _build(data: Scores, logits: np.ndarray, chosen: Mapping[str, Any],
           basis: np.ndarray | None = None) -> pm.Model:
    """The PyMC model; ``basis`` ``(classifier, item, term)`` adds the spline term."""
    import pymc as pm

    coords: dict[str, Any] = {"classifier": data.names, "item": np.arange(data.n)}
    if basis is not None:
        coords["spline_term"] = np.arange(basis.shape[-1])
    with pm.Model(coords=coords) as model:
        a = chosen["calibration_intercept"].create_variable("calibration_intercept",
                                                            dims="classifier")
        b = chosen["calibration_slope"].create_variable("calibration_slope", dims="classifier")
        eta = a[:, None] + b[:, None] * logits
        if basis is not None:
            w = pm.Normal("calibration_spline", 0.0, 1.0, dims=("classifier", "spline_term"))
            eta = eta + (basis * w[:, None, :]).sum(axis=-1)
        y = np.broadcast_to(data.y.astype(np.int8), logits.shape)
        pm.Bernoulli("y", logit_p=eta, observed=y, dims=("classifier", "item"))
    return model


def logistic_recalibration(y: np.ndarray, logits: np.ndarray) -> tuple[float, float]:
    """Maximum-likelihood intercept and slope of ``logit P(y) = a + b logit(risk)`` (Newton).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import special
    >>> from bayescm.models.risk_calibration import logistic_recalibration
    >>> rng = np.random.default_rng(0)
    >>> x = rng.normal(size=20_000)
    >>> y = rng.random(20_000) < special.expit(0.5 + 0.7 * x)
    >>> [round(v, 1) for v in logistic_recalibration(y, x)]
    [0.5, 0.7]
    """
    design = np.column_stack([np.ones_like(logits), logits])
    beta = np.zeros(2)
    for _ in range(50):
        p = special.expit(design @ beta)
        step = np.linalg.solve(design.T @ (design * (p * (1 - p))[:, None]),
                               design.T @ (y - p))
        beta += step
        if np.max(np.abs(step)) < 1e-10:
            break
    return float(beta[0]), float(beta[1])


def no_curve_options(options: Mapping[str, Any], curve: tuple[str, ...]) -> dict[str, Any]:
    """``options`` without the curve options of the other methods, which would be ignored."""
    given = [k for k in (*curve, "n_bins") if options.get(k) is not None]
    if given:
        raise TypeError(f"{given[0]}= sets the curves of the other methods; "
                        "method='calibration' has none. Drop it.")
    if options.get("group") is not None:
        raise ValueError("group= belongs to model='hierarchical'; drop it for scores.")
    return {k: v for k, v in options.items() if k not in (*curve, "n_bins", "group")}


def _written_path(chosen: Any, options: Mapping[str, Any], priors: Mapping[str, Any]) -> bool:
    """Whether nutpie samples the written-out density.

    It does when nutpie is installed, the priors are Normal, no option only PyMC's sampler
    takes is given and ``nuts_sampler`` is not ``"pymc"``.
    """
    from importlib.util import find_spec

    known = {"tune", "target_accept", "nuts_sampler", "compute_convergence_checks"}
    if chosen not in (None, "nutpie") or find_spec("nutpie") is None or not set(options) <= known:
        return False
    from bayescm.models.risk_calibration_density import fast_calibration_priors

    return fast_calibration_priors(priors)


def calibration_refit(ctx: FitContext, idata: xr.DataTree
                      ) -> tuple[Scores, dict[str, Any], dict[str, Any]]:
    """The items and priors a calibration result was fitted with (what ``bcm.refit`` needs)."""
    obs = box.get_group(idata, "observed_data")
    names = box.read_json_attr(idata, "classifiers")
    positive = str(box.root_attrs(idata)["positive"])
    values = np.asarray(obs["scores"].values, dtype=float).reshape(len(names), -1)
    labels = np.where(obs["y"].values.astype(bool), positive, f"not {positive}")
    scores: Any = dict(zip(names, values, strict=True))
    if "classifier" not in obs["scores"].dims:
        scores = scores[names[0]]
    options = {}
    if "knots" in idata.attrs:  # the spline's knots, one row per model
        options["knots"] = len(box.read_json_attr(idata, "knots")[0])
    return Scores(labels, scores, positive=positive), options, dict(ctx.priors)


def fit_calibration(ctx: FitContext, options: Mapping[str, Any]) -> xr.DataTree:
    """Sample the recalibration model with NUTS and assemble its result tree.

    Reached through ``bcm.fit(bcm.Scores(...), method="calibration")``; ``draws``, ``chains``,
    ``random_seed``, ``hdi_prob``, ``priors={...}`` (keyed by :data:`CALIBRATION_PARAMETERS`)
    and the NUTS options (``tune=``, ``target_accept=``, ...) apply.

    Returns
    -------
    xarray.DataTree
        ``posterior``: ``calibration_intercept``, ``calibration_slope`` (dim ``classifier``
        when several) and ``calibration_curve`` (over ``risk``); ``observed_metrics``: the
        maximum-likelihood intercept and slope; ``observed_data`` (``y``, ``scores``),
        ``sample_stats``, ``diagnostics``; root attribute ``method`` is ``"calibration"``.
    """
    import pymc as pm

    from bayescm.models.checks import sampler_options
    from bayescm.models.context import assemble
    from bayescm.models.nuts import warn_convergence
    from bayescm.models.risk_calibration_spline import (
        check_knots,
        knot_positions,
        spline_basis,
    )

    data = ctx.data
    options = dict(options)
    progressbar = bool(options.pop("progressbar", False))
    knots = check_knots(options.pop("knots", None))
    chosen_sampler = options.get("nuts_sampler")
    options = sampler_options("nuts", options.pop("sampler_kwargs", None), options)
    options.setdefault("target_accept", 0.9)
    options.setdefault("compute_convergence_checks", False)
    logits = _logits(data)
    priors = _resolved(ctx.priors)
    seed = int(child(ctx.seed, 0).generate_state(1)[0])
    positions = None if knots is None else np.stack([knot_positions(row, knots)
                                                     for row in logits])
    w = None
    basis = None if positions is None else np.stack([
        spline_basis(row, t) for row, t in zip(logits, positions, strict=True)])
    if _written_path(chosen_sampler, options, priors):
        from bayescm.models.risk_calibration_density import CalibrationDensity

        a, b, w, stats = CalibrationDensity(data.y, logits, priors, basis).sample(
            ctx.draws, int(options.get("tune", 1000)), ctx.chains, seed,
            float(options["target_accept"]), progressbar)
        w = None if basis is None else w
        options["nuts_sampler"] = "nutpie (written-out density)"
    else:
        model = _build(data, logits, priors, basis)
        trace = pm.sample(draws=ctx.draws, chains=ctx.chains, model=model,
                          progressbar=progressbar, random_seed=seed, **options)
        post = trace["posterior"]
        a, b = (np.asarray(post[name].transpose("chain", "draw", "classifier").values, float)
                for name in CALIBRATION_PARAMETERS)
        if basis is not None:
            w = np.asarray(post["calibration_spline"].transpose(
                "chain", "draw", "classifier", "spline_term").values, float)
        stats = box.get_group(trace, "sample_stats", foreign=True)
    names = data.names
    single = len(names) == 1 and list(data.scores) == ["A"]
    grid = np.linspace(0.01, 0.99, 99)
    eta = a[..., None] + b[..., None] * special.logit(grid)
    if w is not None and positions is not None:  # the spline term on the grid, per model
        grid_basis = np.stack([spline_basis(special.logit(grid), t) for t in positions])
        eta = eta + np.einsum("cdkj,kgj->cdkg", w, grid_basis)
    curve = special.expit(eta)
    lead = box.SAMPLE_DIMS + (() if single else ("classifier",))

    def keep(arr: np.ndarray) -> np.ndarray:
        return arr[:, :, 0] if single else arr

    post_vars = {"calibration_intercept": (lead, keep(a), {"long_name": _LONG[
                     "calibration_intercept"]}),
                 "calibration_slope": (lead, keep(b), {"long_name": _LONG["calibration_slope"]}),
                 "calibration_curve": (lead + ("risk",), keep(curve),
                                       {"long_name": _LONG["calibration_curve"]})}
    coords = {"chain": np.arange(ctx.chains), "draw": np.arange(ctx.draws), "classifier": names,
              "risk": grid, "diagnostic": ["r_hat", "ess_bulk"], "item": np.arange(data.n)}
    note = ("logistic recalibration logit P(y = 1) = calibration_intercept + calibration_slope "
            "* logit(risk), sampled with NUTS")
    extra: dict[str, Any] = {}
    if w is not None and positions is not None:
        coords["spline_term"] = np.arange(w.shape[-1])
        post_vars["calibration_spline"] = (lead + ("spline_term",), keep(w), {
            "long_name": "coefficients of the restricted cubic spline of the logit risk"})
        note += (f" plus a restricted cubic spline of logit(risk) with {knots} knots "
                 "(calibration_spline ~ Normal(0, 1))")
        extra["knots"] = box.json_attr(positions.tolist())
    groups = {"posterior": box.make_dataset(post_vars, coords, {"method": "calibration",
                                                                 "note": note})}
    scalar = {k: v for k, v in post_vars.items() if k in CALIBRATION_PARAMETERS}
    groups["diagnostics"] = box.make_dataset(diagnostic_variables(scalar, "rank", "bulk"), coords, {
        "r_hat_method": "rank", "ess_method": "bulk",
        "note": "rank-normalised split R-hat and bulk ESS (Vehtari et al. 2021), as in ArviZ"})
    groups["sample_stats"] = stats
    ml = np.array([logistic_recalibration(data.y.astype(float), row) for row in logits])
    groups["observed_metrics"] = box.make_dataset({
        k: ((() if single else ("classifier",)), ml[0, i] if single else ml[:, i],
            {"long_name": f"maximum-likelihood {_LONG[k]}"})
        for i, k in enumerate(CALIBRATION_PARAMETERS)}, coords,
        {"note": "maximum-likelihood logistic recalibration of the observed items"})
    score_matrix = np.stack([data.scores[n] for n in names])
    groups["observed_data"] = box.make_dataset({
        "y": (("item",), data.y.astype(np.int8), {"long_name": "true class is positive (1)"}),
        "scores": ((("item",) if single else ("classifier", "item")),
                   score_matrix[0] if single else score_matrix, {"long_name": "risks"})}, coords)
    warn_convergence(groups["sample_stats"], {"calibration_intercept": a,
                                               "calibration_slope": b},
                     float(options["target_accept"]))
    return assemble(ctx.replace(priors=priors), groups, method="calibration",
                    positive=str(data.positive), classifiers=box.json_attr(names),
                    target_accept=options["target_accept"],
                    nuts_sampler=str(options["nuts_sampler"]), note=note, **extra,
                    **ctx.seed_record())
