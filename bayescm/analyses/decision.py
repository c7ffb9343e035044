r"""Decision curves: the posterior of the net benefit of risk models across threshold probabilities.

Decision curve analysis (Vickers & Elkin 2006) asks whether acting on a risk model beats the two
default strategies, treating everyone and treating no one. At a threshold probability ``t`` (the
risk at which one would just as soon act as not, so a false positive costs ``t / (1 - t)`` true
positives), with a case positive when its risk is ``>= t`` (the convention of ``dcurves``):

.. math::

    \mathrm{NB}(t) = \frac{TP(t)}{N} - \frac{FP(t)}{N}\,\frac{t}{1 - t}
                   = \pi\,\mathrm{TPR}(t) - (1 - \pi)\,\mathrm{FPR}(t)\,\frac{t}{1 - t},

treat-all has :math:`\mathrm{NB}_\mathrm{all}(t) = \pi - (1 - \pi)\,t/(1 - t)` and treat-none
has net benefit 0 at every threshold. Every posterior draw of a scores fit is a set of item
weights, so each draw gives one whole curve of every model and of treat-all (whose prevalence is
the same draw's): bands are coherent across thresholds and the comparison of two models scored on
the same items is paired. Beyond the curves (as in ``bayesDCA``, Sadatsafavi et al. 2022 for the
EVPI):

* the standardised net benefit :math:`\mathrm{NB}(t) / \pi`;
* ``p_useful``: :math:`P(\mathrm{NB}(t) > \max(\mathrm{NB}_\mathrm{all}(t), 0))`;
* ``evpi``: the expected value of perfect information,
  :math:`E[\max_s \mathrm{NB}_s(t)] - \max_s E[\mathrm{NB}_s(t)]` over the strategies ``s``
  (every model, treat-all, treat-none): what knowing the true net benefits would add to choosing
  by their posterior means, in the units of net benefit (true positives per case). It is never
  negative, and zero when one strategy is best in every draw.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np
import xarray as xr

from bayescm.analyses.decision_draws import RateDraws, rate_draws
from bayescm.core import container as box
from bayescm.core.arguments import keyword_checked

__all__ = ["decision_values", "evpi", "net_benefit", "point_net_benefit"]


def point_net_benefit(y: Any, risk: Any, thresholds: Any) -> np.ndarray:
    """The point net benefit of the items at each threshold (what ``dcurves`` prints).

    ``TP(t)/N - FP(t)/N * t/(1-t)`` with an item positive when its risk is ``>= t``; counted by
    binary search on the sorted risks of each class (no loop over items).

    Examples
    --------
    >>> from bayescm.analyses.decision import point_net_benefit
    >>> point_net_benefit([1, 0, 1, 0], [0.9, 0.6, 0.5, 0.1], [0.5, 0.6]).round(3).tolist()
    [0.25, -0.125]
    """
    y = np.asarray(y, dtype=bool)
    risk = np.asarray(risk, dtype=float)
    t = np.asarray(thresholds, dtype=float)
    pos, neg = np.sort(risk[y]), np.sort(risk[~y])
    tp = pos.size - np.searchsorted(pos, t, side="left")  # risks >= t
    fp = neg.size - np.searchsorted(neg, t, side="left")
    return np.asarray(tp / y.size - fp / y.size * t / (1.0 - t), dtype=float)


def evpi(strategies: np.ndarray) -> np.ndarray:
    """Expected value of perfect information of draws ``(sample, strategy, ...)``.

    :math:`E[\\max_s x_s] - \\max_s E[x_s]`, over the strategy axis, for each trailing index.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.analyses.decision import evpi
    >>> float(evpi(np.array([[1.0, 0.0], [0.0, 1.0]])))   # a coin flip between two: 1 - 0.5
    0.5
    >>> float(evpi(np.array([[2.0, 0.0], [1.0, 0.5]])))   # the first always best
    0.0
    """
    return np.maximum(strategies.max(axis=1).mean(axis=0) - strategies.mean(axis=0).max(axis=0),
                      0.0)


def decision_values(rates: RateDraws) -> dict[str, Any]:
    """Net benefit draws and their summaries from per-draw rates (the arrays of the tree).

    Returns
    -------
    dict
        ``net_benefit`` ``(chain, draw, system, threshold)``, ``treat_all`` ``(chain, draw,
        threshold)``, ``standardized_net_benefit``, ``p_useful`` ``(system, threshold)``,
        ``evpi`` ``(threshold,)`` and, with several systems, ``delta_net_benefit`` ``(chain,
        draw, pair, threshold)``, ``p_better`` ``(pair, threshold)`` and ``pairs``.
    """
    t = rates.thresholds
    odds = t / (1.0 - t)
    prev = rates.prevalence
    prev_t = prev[..., None, :] if prev.ndim == 3 else prev[..., None, None]
    nb = prev_t * rates.tpr - (1.0 - prev_t) * rates.fpr * odds
    all_prev = prev if prev.ndim == 3 else prev[..., None]
    treat_all = all_prev - (1.0 - all_prev) * odds
    out: dict[str, Any] = {"net_benefit": nb, "treat_all": treat_all,
                           "standardized_net_benefit": nb / prev_t}
    flat_nb = nb.reshape(-1, *nb.shape[2:])
    flat_all = treat_all.reshape(-1, t.size)
    best_default = np.maximum(flat_all, 0.0)[:, None, :]
    out["p_useful"] = (flat_nb > best_default).mean(axis=0)
    strategies = np.concatenate([flat_nb, flat_all[:, None, :],
                                 np.zeros_like(flat_all)[:, None, :]], axis=1)
    out["evpi"] = evpi(strategies)
    pairs = list(combinations(range(nb.shape[2]), 2))
    if pairs:
        delta = np.stack([nb[:, :, j] - nb[:, :, i] for i, j in pairs], axis=2)
        out["delta_net_benefit"] = delta
        out["p_better"] = (delta.reshape(-1, *delta.shape[2:]) > 0).mean(axis=0)
        out["pairs"] = [f"{rates.systems[j]} - {rates.systems[i]}" for i, j in pairs]
    return out


@keyword_checked
def net_benefit(idata: xr.DataTree, thresholds: Any = None) -> xr.DataTree:
    """Posterior decision curves: net benefit of each model, treat-all, P(useful) and EVPI.

    Conventions are those of ``dcurves``: a case is positive when its risk is ``>= t``; the
    default grid is 0.01, 0.02, ..., 0.99; ``NB(t) = TP/N - FP/N * t / (1 - t)``; treat-none's
    net benefit is 0 at every threshold (implied, not stored).

    Parameters
    ----------
    idata : xarray.DataTree
        A nonparametric scores fit of risks (``bcm.fit(bcm.Scores(y, {"A": risk_a, ...}))``,
        scores in [0, 1]): its weights are drawn again from the recorded seed, so each draw of
        the result is the same draw of the fit and one whole curve. Or a binary batch keyed by
        threshold (``bcm.fit({"0.1": cm_10, "0.2": cm_20, ...})``, batch names that are the
        thresholds): then each threshold's matrix was drawn on its own, so the bands are
        pointwise only and there is one system, ``"A"``.
    thresholds : sequence of float, optional
        Threshold probabilities strictly inside (0, 1) (sorted, duplicates dropped); default
        ``np.arange(0.01, 1.00, 0.01)``. Scores fits only.

    Returns
    -------
    xarray.DataTree
        Its ``posterior`` holds the draws ``net_benefit`` (``chain, draw, system, threshold``),
        ``treat_all`` (``chain, draw, threshold``: the prevalence is uncertain),
        ``standardized_net_benefit`` (``net_benefit / prevalence``) and, with two or more
        systems, ``delta_net_benefit`` (``chain, draw, pair, threshold``, pair ``"B - A"``: the
        later system minus the earlier, on the same items), and the posterior summaries
        ``p_useful`` (``system, threshold``: P(the model beats both treat-all and
        treat-none)), ``evpi`` (``threshold``: over every model and both defaults) and
        ``p_better`` (``pair, threshold``: P(delta > 0)). A scores fit's result also has
        ``observed_metrics``: the point ``net_benefit`` (``system, threshold``) and
        ``treat_all`` of the test items, the numbers ``dcurves`` prints. Root attributes state the
        conventions, the source and whether one draw is one whole curve (``coherent``).

    Raises
    ------
    ValueError
        Thresholds outside (0, 1); scores that are not risks in [0, 1]; a parametric scores fit
        (no item weights); a fit that is neither scores nor a batch keyed by threshold.

    See Also
    --------
    bayescm.expected_cost : The posterior of the expected cost per case at given costs.
    bayescm.plots.plot_decision_curve : Draws the curves with their bands.

    Examples
    --------
    >>> import numpy as np, bayescm as bcm
    >>> rng = np.random.default_rng(0)
    >>> risk = rng.beta(2, 5, size=500)
    >>> y = rng.random(500) < risk   # calibrated risks
    >>> idata = bcm.fit(bcm.Scores(y, risk), random_seed=1, draws=250)
    >>> nb = bcm.net_benefit(idata, thresholds=[0.1, 0.2, 0.3])
    >>> nb["posterior"]["net_benefit"].dims
    ('chain', 'draw', 'system', 'threshold')
    >>> nb["posterior"]["net_benefit"].mean(("chain", "draw")).round(2).values
    ... # doctest: +MC
    array([[0.2 , 0.13, 0.07]])
    >>> bool((nb["posterior"]["evpi"] >= 0).all())
    True
    """
    rates = rate_draws(idata, thresholds, "net_benefit")
    values = decision_values(rates)
    coords: dict[str, Any] = {"chain": np.arange(rates.tpr.shape[0]),
                              "draw": np.arange(rates.tpr.shape[1]),
                              "system": rates.systems, "threshold": rates.thresholds}
    sample = box.SAMPLE_DIMS
    variables: dict[str, Any] = {
        "net_benefit": (sample + ("system", "threshold"), values["net_benefit"],
                        {"long_name": "net benefit"}),
        "treat_all": (sample + ("threshold",), values["treat_all"],
                      {"long_name": "net benefit of treating all"}),
        "standardized_net_benefit": (sample + ("system", "threshold"),
                                     values["standardized_net_benefit"],
                                     {"long_name": "standardised net benefit"}),
        "p_useful": (("system", "threshold"), values["p_useful"],
                     {"long_name": "P(net benefit above treat-all and treat-none)"}),
        "evpi": (("threshold",), values["evpi"],
                 {"long_name": "expected value of perfect information"}),
    }
    if "pairs" in values:
        coords["pair"] = values["pairs"]
        variables["delta_net_benefit"] = (sample + ("pair", "threshold"),
                                          values["delta_net_benefit"],
                                          {"long_name": "difference in net benefit"})
        variables["p_better"] = (("pair", "threshold"), values["p_better"],
                                 {"long_name": "P(difference in net benefit > 0)"})
    posterior = box.make_dataset(variables, coords, {
        "note": "draws of net benefit (chain, draw); p_useful, evpi and p_better summarise "
                "them (no chain, draw); treat-none's net benefit is 0"})
    groups = {"posterior": posterior}
    if rates.coherent:  # a scores fit: the items are stored, so the point values are known
        from bayescm.models.scores_observed import scores_from_tree

        data, _ = scores_from_tree(idata)
        point = np.stack([point_net_benefit(data.y, data.scores[n], rates.thresholds)
                          for n in data.names])
        odds = rates.thresholds / (1.0 - rates.thresholds)
        prev = data.n_pos / data.n
        groups["observed_metrics"] = box.make_dataset({
            "net_benefit": (("system", "threshold"), point,
                            {"long_name": "net benefit of the observed items"}),
            "treat_all": (("threshold",), prev - (1.0 - prev) * odds,
                          {"long_name": "net benefit of treating all, observed items"})},
            {"system": rates.systems, "threshold": rates.thresholds},
            {"note": "point values of the test items (those of dcurves)"})
    attrs = box.root_attrs(idata)  # the fit's (model, method, seed, ...): a checked result
    return box.make_tree(groups, {
        **attrs, "analysis": "net_benefit", "source": rates.source, "coherent": int(rates.coherent),
        "convention": "positive when risk >= threshold (dcurves); NB = TP/N - FP/N t/(1-t)",
        "hdi_prob": attrs.get("hdi_prob", 0.95)}, owned=True)
