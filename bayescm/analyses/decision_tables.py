"""Tables of the decision analyses: what ``bayescm dca``, the spec runner and the app print.

:func:`net_benefit_table` reads a result of :func:`bayescm.net_benefit` into one row per
(system, threshold); :func:`cost_table` a result of :func:`bayescm.expected_cost` into one row
per system. Both summarise the draws with the package's HDI (:func:`bayescm.core.stats.hdi`).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from bayescm.core import container as box

__all__ = ["cost_table", "net_benefit_table"]


def _hdi_rows(draws: np.ndarray, prob: float) -> tuple[np.ndarray, np.ndarray]:
    """HDI bounds of every column of ``draws`` ``(sample, column)`` (exact, one pass)."""
    from bayescm.core.stats import hdi_rows

    bounds = np.asarray(hdi_rows(np.ascontiguousarray(draws.T), prob))
    return bounds[:, 0], bounds[:, 1]


def net_benefit_table(nb: xr.DataTree, hdi_prob: float | None = None) -> pd.DataFrame:
    """One row per (system, threshold): net benefit, its HDI, P(useful), treat-all and EVPI.

    Parameters
    ----------
    nb : xarray.DataTree
        A result of :func:`bayescm.net_benefit`.
    hdi_prob : float, optional
        Interval probability; default the result's.

    Returns
    -------
    pandas.DataFrame
        Index ``(system, threshold)``; columns ``observed`` (the point net benefit of the items,
        NaN for a batch of matrices), ``mean``, ``hdi_lower``, ``hdi_upper``, ``p_useful``,
        ``treat_all`` (posterior mean) and ``evpi``.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.scores import ScoresModel
    >>> from bayescm.analyses.decision_tables import net_benefit_table
    >>> table = net_benefit_table(bcm.net_benefit(ScoresModel.example(), thresholds=[0.1, 0.2]))
    >>> table.index.names, len(table), list(table.columns)[:3]
    (FrozenList(['system', 'threshold']), 4, ['observed', 'mean', 'hdi_lower'])
    """
    prob = float(nb.attrs.get("hdi_prob", 0.95) if hdi_prob is None else hdi_prob)
    post = box.get_group(nb, "posterior")
    t = np.asarray(post["threshold"].values, dtype=float)
    systems = [str(s) for s in post["system"].values]
    draws = np.asarray(post["net_benefit"].transpose(*box.SAMPLE_DIMS, "system",
                                                     "threshold").values, dtype=float)
    flat = draws.reshape(-1, len(systems) * t.size)
    lo, hi = _hdi_rows(flat, prob)
    observed = (np.asarray(box.get_group(nb, "observed_metrics")["net_benefit"].values, float)
                if box.has_group(nb, "observed_metrics") else np.full((len(systems), t.size),
                                                                       np.nan))
    treat_all = np.asarray(post["treat_all"].mean(box.SAMPLE_DIMS).values, dtype=float)
    index = pd.MultiIndex.from_product([systems, t], names=["system", "threshold"])
    table = pd.DataFrame({
        "observed": observed.reshape(-1), "mean": flat.mean(axis=0), "hdi_lower": lo,
        "hdi_upper": hi, "p_useful": np.asarray(post["p_useful"].values, float).reshape(-1),
        "treat_all": np.tile(treat_all, len(systems)),
        "evpi": np.tile(np.asarray(post["evpi"].values, float), len(systems))}, index=index)
    table.attrs["hdi_prob"] = prob
    return table


def cost_table(cost: xr.DataTree, hdi_prob: float | None = None) -> pd.DataFrame:
    """One row per system: the expected cost per case, its HDI and the two trivial costs.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.analyses.decision_tables import cost_table
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=40, fn=10, tn=45, fp=5)
    >>> cost = bcm.expected_cost(bcm.fit(cm, draws=200, random_seed=0), cost_fp=1, cost_fn=4)
    >>> list(cost_table(cost).columns)
    ['mean', 'hdi_lower', 'hdi_upper', 'treat_all', 'treat_none']
    """
    prob = float(cost.attrs.get("hdi_prob", 0.95) if hdi_prob is None else hdi_prob)
    post = box.get_group(cost, "posterior")

    def matrix(name: str) -> tuple[np.ndarray, list[str]]:
        da = post[name]
        if "system" not in da.dims:
            da = da.expand_dims(system=["A"], axis=-1)
        arr = np.asarray(da.transpose(*box.SAMPLE_DIMS, "system").values, dtype=float)
        return arr.reshape(-1, arr.shape[-1]), [str(s) for s in da["system"].values]

    values, systems = matrix("expected_cost")
    lo, hi = _hdi_rows(values, prob)
    columns: dict[str, Any] = {"mean": values.mean(axis=0), "hdi_lower": lo, "hdi_upper": hi,
                               "treat_all": matrix("cost_treat_all")[0].mean(axis=0),
                               "treat_none": matrix("cost_treat_none")[0].mean(axis=0)}
    table = pd.DataFrame(columns, index=pd.Index(systems, name="system"))
    table.attrs["hdi_prob"] = prob
    return table
