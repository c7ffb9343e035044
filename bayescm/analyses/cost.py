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

__all__ = ["check_costs", "expected_cost"]


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
        Negative or all-zero costs, a fit that is not binary or scores (or a scores fit without
        TPR and TNR draws, ``method="calibration"``), or an invalid prevalence.
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
        "analysis": "expected_cost", "cost_fp": costs[0], "cost_fn": costs[1],
        "benefit_tp": costs[2], "prevalence": description,
        "hdi_prob": attrs.get("hdi_prob", 0.95)}, owned=True)


def _are_risks(idata: xr.DataTree) -> bool:
    """Whether a scores fit's scores are probabilities (a cost curve over thresholds)."""
    if str(box.root_attrs(idata).get("method")) not in ("dirichlet_process",
                                                        "bayesian_bootstrap"):
        return False
    scores = np.asarray(box.get_group(idata, "observed_data")["scores"].values, dtype=float)
    return bool(np.all((scores >= 0) & (scores <= 1)))
