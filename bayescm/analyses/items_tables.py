"""The tables of an item-level evaluation: each system's accuracy beside its yardsticks, each pair.

:func:`eval_tables` is what ``bayescm eval`` prints and what a spec's ``eval`` table writes:
per system the items model's accuracy on a new item (posterior mean and HDI) beside the naive
interval (every attempt an independent trial) and the CR1 cluster-robust interval
(:mod:`bayescm.analyses.items_frequentist`), with the design effect; per pair ``"B - A"`` the
paired difference with its HDI, P(B > A) and the paired CR1 interval.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from bayescm.core.arguments import keyword_checked

__all__ = ["SYSTEM_COLUMNS", "PAIR_COLUMNS", "eval_tables", "stack_tables"]

SYSTEM_COLUMNS = ("observed", "mean", "hdi_lower", "hdi_upper", "naive_lower", "naive_upper",
                  "cr1_lower", "cr1_upper", "design_effect")
"""The columns of the systems' table."""
PAIR_COLUMNS = ("observed", "mean", "hdi_lower", "hdi_upper", "p_greater", "cr1_lower",
                "cr1_upper")
"""The columns of the pairs' table."""


def _by_system(da: Any) -> np.ndarray:
    """Draws ``(samples, systems)``; a fit of one unnamed system has no ``system`` dim."""
    if "system" not in da.dims:
        return np.asarray(da.values, dtype=float).reshape(-1, 1)
    return np.asarray(da.transpose(..., "system").values, dtype=float).reshape(
        -1, da.sizes["system"])


@keyword_checked
def eval_tables(idata: Any, hdi_prob: float | None = None
                ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Each system's accuracy beside the naive and CR1 intervals, and every paired difference.

    Parameters
    ----------
    idata : xarray.DataTree
        An items fit (``bcm.fit(bcm.Items(...))``).
    hdi_prob : float, optional
        Interval probability of every interval; default the fit's.

    Returns
    -------
    systems, pairs : pandas.DataFrame
        ``systems`` by system: ``observed`` (the mean over items of each item's share of
        correct attempts), ``mean``, ``hdi_lower``, ``hdi_upper`` (the accuracy on a new item),
        ``naive_lower``, ``naive_upper`` (every attempt independent), ``cr1_lower``,
        ``cr1_upper`` (cluster-robust) and ``design_effect`` (posterior mean). ``pairs`` by
        ``"B - A"`` (B the later system): ``observed``, ``mean``, ``hdi_lower``, ``hdi_upper``
        of ``accuracy_B - accuracy_A``, ``p_greater`` = P(B > A), and the paired CR1
        ``cr1_lower``, ``cr1_upper``; empty for one system. Both carry ``attrs["hdi_prob"]``.

    Raises
    ------
    ValueError
        A result that is not an items fit.

    See Also
    --------
    bayescm.analyses.items_frequentist.naive_intervals : The naive intervals.
    bayescm.analyses.items_frequentist.cluster_robust : The CR1 intervals.

    Examples
    --------
    >>> from bayescm.models.items import ItemsModel
    >>> from bayescm.analyses.items_tables import eval_tables
    >>> systems, pairs = eval_tables(ItemsModel.example())
    >>> list(systems.index), list(pairs.index), list(pairs.columns)[4]
    (['A', 'B'], ['B - A'], 'p_greater')
    """
    from bayescm.analyses.items_frequentist import cluster_robust, naive_intervals
    from bayescm.core.stats import hdi, hdi_prob_for
    from bayescm.models import registry

    registry.kind_of(idata, "item_level", "eval_tables reads an item-level evaluation fit: "
                     "bcm.fit(bcm.Items(...)).")
    prob = hdi_prob_for(hdi_prob, idata)
    post, obs = idata["posterior"], idata["observed_metrics"]
    draws = _by_system(post["accuracy"])
    deff = _by_system(post["design_effect"]).mean(axis=0)
    seen = np.atleast_1d(np.asarray(obs["accuracy"].values, dtype=float))
    naive = naive_intervals(idata, hdi_prob=prob)
    cr1, cr1_pairs = cluster_robust(idata, hdi_prob=prob)

    def row(x: np.ndarray, observed: float) -> dict[str, float]:
        lo, hi = hdi(x, prob)
        return {"observed": observed, "mean": float(np.mean(x)), "hdi_lower": float(lo),
                "hdi_upper": float(hi)}

    paired = {str(k): (float(lo), float(hi)) for k, lo, hi in zip(
        cr1_pairs.index, cr1_pairs["lower"].to_numpy(dtype=float),
        cr1_pairs["upper"].to_numpy(dtype=float), strict=True)}
    rows = []
    for s in range(draws.shape[1]):
        rows.append({**row(draws[:, s], float(seen[s])),
                     "naive_lower": float(naive["lower"].iloc[s]),
                     "naive_upper": float(naive["upper"].iloc[s]),
                     "cr1_lower": float(cr1["lower"].iloc[s]),
                     "cr1_upper": float(cr1["upper"].iloc[s]), "design_effect": float(deff[s])})
    systems = pd.DataFrame(rows, index=pd.Index(list(naive.index), name="system"),
                           columns=list(SYSTEM_COLUMNS))
    pairs: dict[str, dict[str, float]] = {}
    if "accuracy_diff" in post:
        diff = post["accuracy_diff"]
        for j, pair in enumerate(str(v) for v in diff["pair"].values):
            x = np.asarray(diff.isel(pair=j).values, dtype=float).reshape(-1)
            pairs[pair] = {**row(x, float(obs["accuracy_diff"].values[j])),
                           "p_greater": float(np.mean(x > 0)),
                           "cr1_lower": paired[pair][0], "cr1_upper": paired[pair][1]}
    table = pd.DataFrame.from_dict(pairs, orient="index", columns=list(PAIR_COLUMNS))
    table.index.name = "pair"
    systems.attrs["hdi_prob"] = table.attrs["hdi_prob"] = prob
    return systems, table


def stack_tables(systems: pd.DataFrame, pairs: pd.DataFrame) -> pd.DataFrame:
    """The two tables of :func:`eval_tables` as one: rows ``accuracy[S]``, ``accuracy_diff[P]``.

    What ``bayescm eval --format csv`` prints, a spec's ``eval.csv`` and the app's download
    hold.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayescm.analyses.items_tables import stack_tables
    >>> systems = pd.DataFrame({"mean": [0.4, 0.6]}, index=["a", "b"])
    >>> pairs = pd.DataFrame({"mean": [0.2], "p_greater": [0.99]}, index=["b - a"])
    >>> list(stack_tables(systems, pairs).index)
    ['accuracy[a]', 'accuracy[b]', 'accuracy_diff[b - a]']
    """
    both = pd.concat([systems.rename(index=lambda k: f"accuracy[{k}]"),
                      pairs.rename(index=lambda k: f"accuracy_diff[{k}]")])
    both.index.name = "variable"
    return both
