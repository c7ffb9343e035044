r"""The posterior of the expected cost per case of acting on a classifier.

With costs of a false positive and of a false negative (and, optionally, a benefit of a true
positive, counted as a negative cost), the expected cost per case at prevalence :math:`\pi` is

.. math::

    C = \pi\,(1 - \mathrm{TPR})\,c_\mathrm{FN} + (1 - \pi)\,(1 - \mathrm{TNR})\,c_\mathrm{FP}
        - \pi\,\mathrm{TPR}\,b_\mathrm{TP},

one value per posterior draw. At a deployment prevalence the classifier's TPR and TNR keep their
draws and the prevalence is replaced, as :func:`bayescm.with_prevalence` does. For a scores fit
of risks the same draws give the cost at every threshold (each draw one whole curve), so the
cost-minimising threshold and the cost at it have posteriors too; with costs only (no benefit)
the optimum of a calibrated model sits near ``t = c_FP / (c_FP + c_FN)``, the threshold
probability of decision curve analysis.

:func:`cost_curve` draws the cost curves of Drummond & Holte (2006, "Cost curves: an improved
method for visualizing classifier performance", Machine Learning 65, 95-130): the normalised
expected cost over the probability cost ``PC = pi c_FN / (pi c_FN + (1 - pi) c_FP)``, which
runs over the cost ratio at a fixed prevalence or over the prevalence at fixed costs.
"""

from __future__ import annotations

from itertools import permutations
from typing import Any

import numpy as np
import xarray as xr

from bayescm.analyses.decision_draws import rate_draws
from bayescm.analyses.prevalence import _Deployment
from bayescm.core import container as box
from bayescm.core.arguments import keyword_checked
from bayescm.core.streams import generator
from bayescm.models import registry

__all__ = ["COST_AXES", "check_costs", "cost_curve", "expected_cost"]

COST_AXES = ("probability_cost", "cost_ratio", "prevalence")
"""The x axes of :func:`cost_curve`."""
MAX_POINTS = 10_001
"""The most points of a cost curve's axis (``points=``)."""


def check_costs(cost_fp: Any, cost_fn: Any, benefit_tp: Any) -> tuple[float, float, float]:
    """Finite, non-negative costs, not all zero.

    Examples
    --------
    >>> from bayescm.analyses.cost import check_costs
    >>> check_costs(1, 4, 0)
    (1.0, 4.0, 0.0)
    >>> check_costs(0, 0, 0)
    Traceback (most recent call last):
    ...
    ValueError: cost_fp, cost_fn and benefit_tp are all zero: every classifier costs nothing. ...
    """
    values = {}
    for name, value in (("cost_fp", cost_fp), ("cost_fn", cost_fn), ("benefit_tp", benefit_tp)):
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)):
            raise TypeError(f"{name} must be a number, got {value!r}.")
        v = float(value)
        if not np.isfinite(v) or v < 0:
            raise ValueError(f"{name} must be a finite number >= 0, got {value!r} (a benefit "
                             "is benefit_tp, not a negative cost).")
        values[name] = v
    if not np.isfinite(sum(values.values())):
        raise ValueError("cost_fp, cost_fn and benefit_tp are too large to add up (their sum "
                         "overflows); give them in a larger unit.")
    if not any(values.values()):
        raise ValueError("cost_fp, cost_fn and benefit_tp are all zero: every classifier costs "
                         "nothing. Give the cost of a false positive and of a false negative.")
    return values["cost_fp"], values["cost_fn"], values["benefit_tp"]


def _cost(prev: np.ndarray, tpr: np.ndarray, fpr: np.ndarray, c: tuple[float, float, float]
          ) -> np.ndarray:
    c_fp, c_fn, b_tp = c
    return prev * (1.0 - tpr) * c_fn + (1.0 - prev) * fpr * c_fp - prev * tpr * b_tp


@keyword_checked
def expected_cost(idata: xr.DataTree, *, cost_fp: float, cost_fn: float,
                  prevalence: Any = None, benefit_tp: float = 0.0, thresholds: Any = None,
                  random_seed: Any = None) -> xr.DataTree:
    """Posterior of the expected cost per case, P(cheaper), and for risks the best threshold.

    Parameters
    ----------
    idata : xarray.DataTree
        A binary fit (one matrix or a batch: dim ``system``, the batch names) or a
        nonparametric scores fit (cost at the fit's ``threshold``; with risks in [0, 1] also
        at every threshold of ``thresholds``).
    cost_fp, cost_fn : float
        Cost of a false positive and of a false negative (>= 0, in any unit).
    prevalence : float, Beta, Fixed or draws, optional
        Deployment prevalence, as :func:`bayescm.with_prevalence` takes it (TPR and TNR keep
        their draws, the prevalence is replaced); default the test set's posterior prevalence.
    benefit_tp : float, default 0
        Benefit of a true positive (>= 0), subtracted from the cost.
    thresholds : sequence of float, optional
        Scores fits: the grid of the cost curve (default 0.01, ..., 0.99).
    random_seed : int or numpy Generator, optional
        Seed of the prevalence draws of a prior.

    Returns
    -------
    xarray.DataTree
        ``posterior``: ``expected_cost`` (``chain, draw`` and ``system`` when there are
        several), ``cost_treat_all`` and ``cost_treat_none`` (acting on every case or on none),
        ``p_cheaper`` (``system, other``: P(the system costs less than the other)) with
        several systems; for scores of risks also ``cost_curve`` (``..., threshold``),
        ``optimal_threshold`` (the cost-minimising threshold of each draw) and
        ``minimum_cost`` (the cost there).

    Raises
    ------
    ValueError
        Negative, all-zero or overflowing costs, a fit that is not binary or scores (or a scores
        fit without TPR and TNR draws, ``method="calibration"``), an invalid prevalence, or
        ``thresholds`` for a fit that is not of risks.
    TypeError
        A cost that is not a number.

    See Also
    --------
    bayescm.net_benefit : Decision curves over threshold probabilities.
    bayescm.with_prevalence : Every metric at another prevalence.

    Examples
    --------
    A false negative costs ten times a false positive; deployed at 5 % prevalence:

    >>> import bayescm as bcm
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=40, fn=10, tn=45, fp=5)
    >>> idata = bcm.fit(cm, random_seed=0, draws=1000)
    >>> cost = bcm.expected_cost(idata, cost_fp=1, cost_fn=10, prevalence=0.05)
    >>> round(float(cost["posterior"]["expected_cost"].mean()), 2)  # doctest: +MC
    0.22
    >>> round(float(cost["posterior"]["cost_treat_none"].mean()), 2)   # 0.05 x 10
    0.5
    """
    costs = check_costs(cost_fp, cost_fn, benefit_tp)
    kind = registry.kind_of(idata, "expected_cost", remedy=(
        "Fit one classifier's binary matrix (or a batch of them), or scored items."))
    post = box.get_group(idata, "posterior")
    if any(v not in post for v in ("tpr", "tnr", "prevalence")):
        raise ValueError("expected_cost needs draws of TPR, TNR and the prevalence; this fit "
                         f"(method {idata.attrs.get('method')!r}) has none. Fit the scores "
                         "with the default method, or a binary confusion matrix.")
    chains, draws = int(post.sizes["chain"]), int(post.sizes["draw"])
    rng, _ = generator(random_seed)
    # the deployment prevalence is one proportion, read as with_prevalence reads a binary one
    deployment = None if prevalence is None else _Deployment(
        prevalence, registry.get("binary")(("positive", "negative")))
    names: list[str] = []
    batched = "classifier" in post["tpr"].dims
    if batched:
        names = [str(v) for v in post["classifier"].values]

    def matrix(name: str) -> np.ndarray:
        da = post[name]
        order = ("chain", "draw", "classifier") if batched else ("chain", "draw")
        arr = np.asarray(da.transpose(*order).values, dtype=float)
        return arr if batched else arr[..., None]

    tpr, tnr = matrix("tpr"), matrix("tnr")
    prev = matrix("prevalence")
    if deployment is not None:
        new = deployment.sample(rng, chains, draws)  # None: a fixed prevalence
        fixed = deployment.fixed
        prev = (np.full(prev.shape, float(fixed.value)) if fixed is not None
                else np.broadcast_to(np.asarray(new, float)[..., None], prev.shape).copy())
    variables: dict[str, Any] = {}
    sample = box.SAMPLE_DIMS
    lead = sample + (("system",) if batched else ())

    def keep(arr: np.ndarray) -> np.ndarray:
        return arr if batched else arr[..., 0]

    cost = _cost(prev, tpr, 1.0 - tnr, costs)
    variables["expected_cost"] = (lead, keep(cost), {"long_name": "expected cost per case"})
    variables["cost_treat_all"] = (lead, keep(_cost(prev, np.ones_like(prev), np.ones_like(prev),
                                                    costs)),
                                   {"long_name": "expected cost of acting on every case"})
    variables["cost_treat_none"] = (lead, keep(_cost(prev, np.zeros_like(prev),
                                                     np.zeros_like(prev), costs)),
                                    {"long_name": "expected cost of acting on no case"})
    coords: dict[str, Any] = {"chain": np.arange(chains), "draw": np.arange(draws)}
    if batched:
        coords["system"] = names
    if thresholds is not None and (kind.accepts_matrices or not _are_risks(idata)):
        raise ValueError("thresholds= belongs to scores fits of risks; this fit has one "
                         "operating point per classifier. Drop it.")
    if not kind.accepts_matrices and _are_risks(idata):
        rates = rate_draws(idata, thresholds, "expected_cost")
        p = rates.prevalence[..., None, None]
        if deployment is not None:
            p = prev[..., :1, None]
        curve = _cost(p, rates.tpr, rates.fpr, costs)
        best = np.argmin(curve, axis=-1)
        curve_lead = sample + ("system",) if batched else sample
        curve_values = curve if batched else curve[:, :, 0]
        variables["cost_curve"] = (curve_lead + ("threshold",), curve_values,
                                   {"long_name": "expected cost per case at each threshold"})
        variables["optimal_threshold"] = (curve_lead, keep(rates.thresholds[best]),
                                          {"long_name": "cost-minimising threshold"})
        variables["minimum_cost"] = (curve_lead, keep(curve.min(axis=-1)),
                                     {"long_name": "expected cost at the best threshold"})
        coords["threshold"] = rates.thresholds
    if batched and len(names) > 1:
        flat = cost.reshape(-1, len(names))
        p_cheaper = np.full((len(names), len(names)), np.nan)
        for i, j in permutations(range(len(names)), 2):
            p_cheaper[i, j] = float(np.mean(flat[:, i] < flat[:, j]))
        coords["other"] = names
        variables["p_cheaper"] = (("system", "other"), p_cheaper,
                                  {"long_name": "P(system costs less than other)"})
    posterior = box.make_dataset(variables, coords, {
        "note": "expected cost per case; p_cheaper summarises the draws (no chain, draw)"})
    attrs = box.root_attrs(idata)
    description = "the test set's posterior" if deployment is None else box.json_attr(
        deployment.description)
    return box.make_tree({"posterior": posterior}, {
        **attrs, "analysis": "expected_cost", "cost_fp": costs[0], "cost_fn": costs[1],
        "benefit_tp": costs[2], "prevalence": description,
        "hdi_prob": attrs.get("hdi_prob", 0.95)}, owned=True)


def _are_risks(idata: xr.DataTree) -> bool:
    """Whether a scores fit's scores are probabilities (a cost curve over thresholds)."""
    if str(box.root_attrs(idata).get("method")) not in ("dirichlet_process",
                                                        "bayesian_bootstrap"):
        return False
    scores = np.asarray(box.get_group(idata, "observed_data")["scores"].values, dtype=float)
    return bool(np.all((scores >= 0) & (scores <= 1)))


def _operating_points(idata: xr.DataTree) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                    list[str]]:
    """FNR, FPR ``(chain, draw, system, 1)`` and prevalence ``(chain, draw, system)``.

    One operating point per classifier of a binary fit.
    """
    post = box.get_group(idata, "posterior")
    if any(v not in post for v in ("tpr", "tnr", "prevalence")):
        raise ValueError("cost_curve needs draws of TPR, TNR and the prevalence; this fit "
                         f"(method {idata.attrs.get('method')!r}) has none. Fit the scores with "
                         "the default method, or a binary confusion matrix.")
    batched = "classifier" in post["tpr"].dims
    order = ("chain", "draw", "classifier") if batched else ("chain", "draw")

    def arr(name: str) -> np.ndarray:
        values = np.asarray(post[name].transpose(*order).values, dtype=float)
        return values if batched else values[..., None]

    names = [str(v) for v in post["classifier"].values] if batched else ["A"]
    return (1.0 - arr("tpr"))[..., None], (1.0 - arr("tnr"))[..., None], arr("prevalence"), names


def _probability_cost(over: str, x: np.ndarray, prev: np.ndarray, ratio: float,
                      prevalence: float | None) -> np.ndarray:
    """PC(+) ``(chain, draw, system, x)`` at each point of the x axis."""
    if over == "probability_cost":
        return np.broadcast_to(x, prev.shape + x.shape)
    if over == "cost_ratio":  # x = c_FN / c_FP at the test set's (or the given) prevalence
        p = prev[..., None] if prevalence is None else np.full(prev.shape + (1,), prevalence)
        return p * x / (p * x + 1.0 - p)
    return np.broadcast_to(x * ratio / (x * ratio + 1.0 - x), prev.shape + x.shape)


@keyword_checked
def cost_curve(idata: xr.DataTree, *, over: str = "probability_cost",
               cost_fp: float | None = None, cost_fn: float | None = None,
               prevalence: float | None = None, thresholds: Any = None,
               points: int = 101) -> xr.DataTree:
    """Posterior cost curves (Drummond & Holte): normalised expected cost with its bands.

    The normalised expected cost of acting on a classifier is
    ``NEC = FNR PC + FPR (1 - PC)``, the expected cost per case divided by that of a classifier
    that is always wrong, where the probability cost ``PC = pi c_FN / (pi c_FN + (1 - pi)
    c_FP)`` combines the prevalence ``pi`` and the costs. Treating no one costs ``PC``,
    treating everyone ``1 - PC``; the better of the two is the trivial cost. For a scores fit
    of risks each draw takes, at each PC, its cheapest threshold (the lower envelope of the
    thresholds' lines); a binary fit's classifier is one line per draw.

    Parameters
    ----------
    idata : xarray.DataTree
        A nonparametric scores fit of risks (each draw one whole curve over ``thresholds``) or
        a binary fit (one matrix or a batch: one operating point per classifier).
    over : {"probability_cost", "cost_ratio", "prevalence"}, default "probability_cost"
        The x axis: PC itself (Drummond & Holte's axis, 0 to 1); the cost ratio
        ``c_FN / c_FP`` from 0.01 to 100 (log-spaced) at the test set's prevalence (each
        draw's) or at ``prevalence``; or the prevalence from 0 to 1 at the costs ``cost_fp``
        and ``cost_fn``.
    cost_fp, cost_fn : float, optional
        ``over="prevalence"`` only: the costs of a false positive and of a false negative
        (default 1 and 1).
    prevalence : float, optional
        ``over="cost_ratio"`` only: a deployment prevalence in (0, 1).
    thresholds : sequence of float, optional
        Scores fits: the thresholds of the envelope (default 0.01, ..., 0.99).
    points : int, default 101
        Points on the x axis.

    Returns
    -------
    xarray.DataTree
        ``posterior``: ``normalized_cost`` and ``trivial_cost`` (``chain, draw, system,
        <over>``), ``pc`` (the probability cost of each point, same dims) and
        ``p_below_trivial`` (``system, <over>``: P(the classifier costs less than the better
        of treat-all and treat-none)). Root attribute ``over`` names the x axis.

    Raises
    ------
    ValueError
        An unknown ``over``, an option that does not belong to it, negative or all-zero costs,
        a prevalence outside (0, 1), a fit without TPR and TNR draws, or ``points`` outside
        2 to ``MAX_POINTS``.

    See Also
    --------
    expected_cost : The expected cost at given costs and prevalence.
    bayescm.plots.plot_cost_curve : Draws the curves with their bands.

    Examples
    --------
    >>> import bayescm as bcm
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=40, fn=10, tn=45, fp=5)
    >>> curve = bcm.cost_curve(bcm.fit(cm, random_seed=0, draws=500), points=5)
    >>> curve["posterior"]["normalized_cost"].dims
    ('chain', 'draw', 'system', 'probability_cost')
    >>> curve["posterior"]["normalized_cost"].mean(("chain", "draw")).round(2).values
    ... # doctest: +MC
    array([[0.11, 0.13, 0.15, 0.17, 0.19]])
    """
    if over not in COST_AXES:
        raise ValueError(f"over={over!r} is not a cost-curve axis; use one of "
                         f"{', '.join(map(repr, COST_AXES))}.")
    if over != "prevalence" and (cost_fp is not None or cost_fn is not None):
        raise ValueError(f"cost_fp= and cost_fn= set the costs of over='prevalence'; over={over!r} "
                         "runs over them (PC or their ratio). Drop them, or use over='prevalence'.")
    if over != "cost_ratio" and prevalence is not None:
        raise ValueError(f"prevalence= is the fixed prevalence of over='cost_ratio'; "
                         f"over={over!r} runs over it. Drop it, or use over='cost_ratio'.")
    if prevalence is not None and (isinstance(prevalence, bool) or not isinstance(
            prevalence, (int, float, np.number)) or not 0 < float(prevalence) < 1):
        raise ValueError(f"prevalence must be a number strictly between 0 and 1, got "
                         f"{prevalence!r}.")
    c_fp, c_fn, _ = check_costs(1.0 if cost_fp is None else cost_fp,
                                1.0 if cost_fn is None else cost_fn, 0.0)
    if c_fp == 0 or c_fn == 0:
        raise ValueError("over='prevalence' needs both costs > 0 (with one of them 0 the "
                         "cheapest strategy is always trivial).")
    if isinstance(points, bool) or not isinstance(points, (int, np.integer)) or points < 2:
        raise ValueError(f"points must be an integer >= 2, got {points!r}.")
    if points > MAX_POINTS:
        raise ValueError(f"points = {points:,} is more than a curve shows (at most "
                         f"{MAX_POINTS:,}; every draw stores a value at each).")
    x = (np.geomspace(0.01, 100.0, points) if over == "cost_ratio"
         else np.linspace(0.0, 1.0, points))
    kind = registry.kind_of(idata, "cost_curve", remedy=(
        "Fit risks (bcm.fit(bcm.Scores(y, risk))) or binary confusion matrices."))
    if not kind.accepts_matrices and _are_risks(idata):
        rates = rate_draws(idata, thresholds, "cost_curve")
        fnr, fpr, names = 1.0 - rates.tpr, rates.fpr, rates.systems
        prev = np.broadcast_to(rates.prevalence[..., None],
                               rates.prevalence.shape + (len(names),))
        source = rates.source
    else:
        if thresholds is not None:
            raise ValueError("thresholds= belongs to scores fits of risks; a binary fit has one "
                             "operating point per classifier. Drop it.")
        fnr, fpr, prev, names = _operating_points(idata)
        source = "binary fit (one operating point per classifier)"
    pc = _probability_cost(over, x, prev, c_fn / c_fp, None if prevalence is None
                           else float(prevalence))
    cost = np.full(pc.shape, np.inf)
    for k in range(fnr.shape[-1]):  # the lower envelope over thresholds (not draws or items)
        np.minimum(cost, fnr[..., k, None] * pc + fpr[..., k, None] * (1.0 - pc), out=cost)
    trivial = np.minimum(pc, 1.0 - pc)
    dims = box.SAMPLE_DIMS + ("system", over)
    variables: dict[str, Any] = {
        "normalized_cost": (dims, cost, {"long_name": "normalised expected cost"}),
        "trivial_cost": (dims, np.array(trivial), {
            "long_name": "normalised expected cost of the better of treat-all and treat-none"}),
        "pc": (dims, np.array(pc), {"long_name": "probability cost PC(+)"}),
        "p_below_trivial": (("system", over), (cost < trivial).mean(axis=(0, 1)), {
            "long_name": "P(cheaper than treat-all and treat-none)"}),
    }
    coords = {"chain": np.arange(cost.shape[0]), "draw": np.arange(cost.shape[1]),
              "system": names, over: x}
    posterior = box.make_dataset(variables, coords, {
        "note": "Drummond & Holte cost curves: NEC = FNR PC + FPR (1 - PC)"})
    return box.make_tree({"posterior": posterior}, {
        **box.root_attrs(idata), "analysis": "cost_curve", "over": over, "source": source,
        "cost_fp": c_fp, "cost_fn": c_fn,
        "prevalence": "each draw's" if prevalence is None else float(prevalence),
        "hdi_prob": box.root_attrs(idata).get("hdi_prob", 0.95)}, owned=True)
