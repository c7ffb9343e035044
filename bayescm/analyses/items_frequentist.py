r"""The yardsticks of an item-level evaluation: the naive Beta interval and the CR1 standard error.

* :func:`naive_intervals`: every attempt counted as an independent Bernoulli trial, a
  ``Beta(1 + correct, 1 + wrong)`` posterior per system (the exact Beta interval of small
  evaluations, Bowyer et al. 2025, which assumes independent attempts). It is too narrow when
  attempts of one item agree or items of one cluster are alike: the contrast with the items
  model's interval is the point of the comparison.
* :func:`cluster_robust`: the cluster-robust (CR1) standard error of the mean of per-item
  scores, Miller (2024) "Adding Error Bars to Evals" and Inspect AI's ``stderr(cluster=)``:
  each item's share of correct attempts :math:`s_i`, their mean :math:`\bar s` over ``n``
  items, and

  .. math:: \widehat{\mathrm{SE}}^2 = \frac{G}{G - 1} \frac{1}{n^2}
            \sum_{g=1}^{G} \Big(\sum_{i \in g} (s_i - \bar s)\Big)^2

  over the ``G`` clusters (items are their own clusters without clusters), with the normal
  interval :math:`\bar s \pm z \widehat{\mathrm{SE}}`; for two systems the same on the per-item
  differences of the items both answered (paired). It is the large-sample yardstick of the items
  model's ``accuracy`` (a new item from the population) and ``accuracy_diff``. Its design
  effect is :math:`\widehat{\mathrm{SE}}^2` over the binomial variance
  :math:`\bar s (1 - \bar s) / N` of the ``N`` attempts.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pandas as pd
from scipy import stats

from bayescm.core.arguments import keyword_checked
from bayescm.core.stats import hdi_prob_for

__all__ = ["cluster_robust", "naive_intervals"]


def _log(data: Any) -> tuple[list[str], np.ndarray, np.ndarray, np.ndarray | None]:
    """Systems, successes, attempts and each item's cluster of an Items log or items fit."""
    import xarray as xr

    from bayescm.core import container as box
    from bayescm.core.items import Items

    if isinstance(data, Items):
        return data.systems, data.successes, data.attempts, data.cluster_index
    if not isinstance(data, xr.DataTree) or not box.has_group(data, "observed_data") or \
            "successes" not in box.get_group(data, "observed_data"):
        raise TypeError(f"Give a bcm.Items log or the result of bcm.fit(bcm.Items(...)), got "
                        f"{type(data).__name__}.")
    obs = box.get_group(data, "observed_data")
    systems = [str(v) for v in obs["system"].values]
    cluster = None
    if "cluster" in obs:
        _, cluster = np.unique(np.asarray(obs["cluster"].values).astype(str),
                               return_inverse=True)
    return (systems, np.asarray(obs["successes"].values), np.asarray(obs["attempts"].values),
            cluster)


@keyword_checked
def naive_intervals(data: Any, hdi_prob: float | None = None) -> pd.DataFrame:
    """Each system's accuracy with every attempt an independent trial: a Beta interval.

    Parameters
    ----------
    data : Items or xarray.DataTree
        An evaluation log, or an items fit (its ``observed_data``).
    hdi_prob : float, optional
        Interval probability; default ``bcm.rcParams["stats.hdi_prob"]``.

    Returns
    -------
    pandas.DataFrame
        By system: ``correct``, ``attempts``, ``mean`` and the equal-tailed ``lower`` and
        ``upper`` of ``Beta(1 + correct, 1 + wrong)``.

    See Also
    --------
    cluster_robust : The interval that allows for clusters and repeated attempts.

    Examples
    --------
    >>> import pandas as pd, bayescm as bcm
    >>> from bayescm.analyses.items_frequentist import naive_intervals
    >>> log = bcm.Items(pd.DataFrame({"item_id": [1, 1, 2, 2], "correct": [1, 1, 0, 1]}))
    >>> naive_intervals(log).loc["A", ["correct", "attempts"]].tolist()
    [3, 4]
    """
    systems, y, n, _ = _log(data)
    prob = hdi_prob_for(hdi_prob)
    correct, total = y.sum(axis=1), n.sum(axis=1)
    a, b = 1.0 + correct, 1.0 + total - correct
    tail = (1.0 - prob) / 2.0
    return pd.DataFrame({"correct": correct.astype(int), "attempts": total.astype(int),
                         "mean": a / (a + b), "lower": stats.beta.ppf(tail, a, b),
                         "upper": stats.beta.ppf(1.0 - tail, a, b)},
                        index=pd.Index(systems, name="system"))


def _cr1(scores: np.ndarray, cluster: np.ndarray) -> tuple[float, float]:
    """Mean and CR1 standard error of item scores grouped by cluster."""
    n = scores.size
    mean = float(scores.mean())
    _, groups = np.unique(cluster, return_inverse=True)
    g = int(groups.max()) + 1
    sums = np.bincount(groups, weights=scores - mean, minlength=g)
    if g < 2:
        return mean, float("nan")
    return mean, float(np.sqrt(g / (g - 1.0) * np.sum(sums * sums)) / n)


@keyword_checked
def cluster_robust(data: Any, hdi_prob: float | None = None
                   ) -> tuple[pd.DataFrame, pd.DataFrame]:
    """CR1 cluster-robust standard errors of each accuracy and each paired difference.

    Parameters
    ----------
    data : Items or xarray.DataTree
        An evaluation log, or an items fit (its ``observed_data``).
    hdi_prob : float, optional
        Interval probability (normal interval); default ``bcm.rcParams["stats.hdi_prob"]``.

    Returns
    -------
    systems, pairs : pandas.DataFrame
        ``systems`` by system: ``mean`` (the mean of per-item scores), ``se``, ``lower``,
        ``upper``, ``items``, ``clusters`` and ``design_effect`` (``se^2`` over the binomial
        variance of the attempts). ``pairs`` by ``"B - A"`` (B the later system): the same for
        the per-item differences on the items both answered (empty for one system).

    See Also
    --------
    naive_intervals : Every attempt independent.
    bayescm.fit : The items model, whose ``accuracy`` this approximates in large samples.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.analyses.items_frequentist import cluster_robust
    >>> systems, pairs = cluster_robust(bcm.datasets.eval_log())
    >>> list(pairs.index)
    ['model_b - model_a', 'model_c - model_a', 'model_c - model_b']
    >>> bool((systems["design_effect"] > 2).all())   # attempts of one question agree
    True
    """
    systems, y, n, cluster = _log(data)
    prob = hdi_prob_for(hdi_prob)
    z = float(stats.norm.ppf(0.5 + prob / 2.0))
    answered = n > 0
    share = np.divide(y, n, out=np.zeros(n.shape), where=answered)
    cl = cluster if cluster is not None else np.arange(n.shape[1])

    def row(scores: np.ndarray, groups: np.ndarray, attempts: float) -> dict[str, float]:
        mean, se = _cr1(scores, groups)
        binomial = mean * (1.0 - mean) / attempts if attempts else float("nan")
        return {"mean": mean, "se": se, "lower": mean - z * se, "upper": mean + z * se,
                "items": float(scores.size), "clusters": float(np.unique(groups).size),
                "design_effect": se * se / binomial if binomial > 0 else float("nan")}

    rows = [row(share[s, answered[s]], cl[answered[s]], float(n[s].sum()))
            for s in range(len(systems))]
    table = pd.DataFrame(rows, index=pd.Index(systems, name="system"))
    pairs = {}
    for a, b in itertools.combinations(range(len(systems)), 2):
        both = answered[a] & answered[b]
        r = row(share[b, both] - share[a, both], cl[both], float("nan"))
        r["design_effect"] = float("nan")
        pairs[f"{systems[b]} - {systems[a]}"] = r
    diff = pd.DataFrame.from_dict(pairs, orient="index", columns=list(table.columns))
    diff.index.name = "pair"
    for frame in (table, diff):
        frame[["items", "clusters"]] = frame[["items", "clusters"]].astype(int)
        frame.attrs["hdi_prob"] = prob
    return table, diff
