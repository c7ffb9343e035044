"""Two training procedures evaluated on the same folds (or seeds): differences fold by fold.

Cross-validation gives every procedure the same folds, and folds differ: one holds the easy
items, another the hard ones. Comparing the two procedures' pooled metrics as if they came from
unrelated runs leaves that fold-to-fold variation in the difference. :func:`compare_runs`
subtracts fold by fold instead, so what a fold does to both procedures cancels, and reports:

- each fold's difference ``A - B`` with its interval and ``P(A better)``;
- the mean of the fold differences (the procedures' difference on these folds);
- the difference of the two populations' mean runs (``<metric>_mean``), when the fits store it.

Only the counts of each fold are known, so within a fold the two procedures' posteriors are
independent given their counts: the items both procedures saw are not matched. That is
conservative (an item-level comparison of a fold, :func:`bayescm.compare_paired`, is narrower
when both procedures err on the same items).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from bayescm.comparisons.superiority import (
    _check_direction,
    _check_finite_draws,
    _flat_draws,
    _metric_direction,
    _metric_draws,
)
from bayescm.core import container as box
from bayescm.core.arguments import keyword_checked
from bayescm.core.stats import hdi, hdi_prob_for
from bayescm.core.streams import warn_if_shared
from bayescm.metrics.metric import Metric
from bayescm.models import registry

__all__ = ["compare_runs"]

MEAN_ROW = "mean over folds"
POPULATION_ROW = "population mean run"


@keyword_checked
def compare_runs(a: xr.DataTree, b: xr.DataTree, /, *, metric: str | Metric,
                 direction: str | None = None, hdi_prob: float | None = None) -> pd.DataFrame:
    """Procedure A against procedure B on the same folds, seeds or runs, fold by fold.

    Parameters
    ----------
    a, b : xarray.DataTree
        Pooled fits of the two procedures on the same runs, e.g.
        ``bcm.fit({fold: ConfusionMatrix}, model="hierarchical", group="fold")``: the same
        group dim with the same run names (their order may differ).
    metric : str or Metric
        A scalar metric of every run (``"acc"``, ``"f1_macro"``, ``"tpr"``, ...).
    direction : {"higher", "lower"}, optional
        Which way the metric improves; default from the catalogue.
    hdi_prob : float, optional
        Interval probability (default ``rcParams["stats.hdi_prob"]``).

    Returns
    -------
    pandas.DataFrame
        One row per run, then ``"mean over folds"`` and (when both fits store
        ``<metric>_mean``) ``"population mean run"``; columns ``mean`` (of ``A - B``),
        ``hdi_low``, ``hdi_high`` and ``p_a_better``.

    Raises
    ------
    ValueError
        Fits that do not pool runs, different group dims or run names, different numbers of
        draws, a metric with a class dim or undefined draws, or one fit passed twice.

    See Also
    --------
    bayescm.compare_paired : Two classifiers on one test set, item by item.
    bayescm.prob_superior : Two classifiers of one batch, or two separate fits.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.comparisons.runs import compare_runs
    >>> from bayescm.models.hierarchical import HierarchicalModel
    >>> a = HierarchicalModel.example(random_seed=1)  # doctest: +SKIP
    >>> b = HierarchicalModel.example(random_seed=2)  # doctest: +SKIP
    >>> compare_runs(a, b, metric="acc").loc["mean over folds", "p_a_better"]  # doctest: +SKIP
    """
    prob = hdi_prob_for(hdi_prob, a)
    direction = _check_direction(direction)
    group = _run_dim(a, "a")
    if a is b:
        raise ValueError("compare_runs got the same fit twice: every difference would be 0. "
                         "Pass the fits of the two procedures.")
    if _run_dim(b, "b") != group:
        raise ValueError(f"The fits pool different dims ({group!r} and {_run_dim(b, 'b')!r}); "
                         "fit both with the same group= over the same runs.")
    name, da_a = _metric_draws(a, metric, "posterior")
    _, da_b = _metric_draws(b, name, "posterior")
    runs_a = [str(v) for v in da_a[group].values]
    runs_b = [str(v) for v in da_b[group].values]
    if sorted(runs_a) != sorted(runs_b):
        raise ValueError(f"The fits cover different {group}s ({', '.join(runs_a)} against "
                         f"{', '.join(runs_b)}); compare procedures on the same runs.")
    da_b = da_b.isel({group: [runs_b.index(r) for r in runs_a]})
    x_a, x_b = (_flat_draws(_scalar(da, name, group), (group,)) for da in (da_a, da_b))
    if x_a.shape != x_b.shape:
        raise ValueError(f"The fits have different numbers of draws ({x_a.shape[0]} and "
                         f"{x_b.shape[0]}); fit both with the same draws and chains.")
    warn_if_shared(box.root_attrs(a), box.root_attrs(b))
    for x in (x_a, x_b):
        _check_finite_draws(x, name, runs_a)
    sign = 1.0 if _metric_direction(registry.kind_of(a), name, metric,
                                    direction) == "higher" else -1.0
    diff = x_a - x_b
    columns = {**{r: diff[:, i] for i, r in enumerate(runs_a)}, MEAN_ROW: diff.mean(axis=1)}
    post_a, post_b = box.get_group(a, "posterior"), box.get_group(b, "posterior")
    if f"{name}_mean" in post_a and f"{name}_mean" in post_b:
        pop = [np.asarray(p[f"{name}_mean"].values, dtype=float).reshape(-1)
               for p in (post_a, post_b)]
        columns[POPULATION_ROW] = pop[0] - pop[1]
    rows = []
    for d in columns.values():
        lo, hi = hdi(d, prob)
        rows.append({"mean": float(d.mean()), "hdi_low": float(lo), "hdi_high": float(hi),
                     "p_a_better": float(np.mean(sign * d > 0))})
    out = pd.DataFrame(rows, index=pd.Index(list(columns), name=group))
    out.attrs.update({"metric": name, "difference": "A - B", "hdi_prob": prob})
    return out


def _run_dim(tree: Any, which: str) -> str:
    """The group dim of a fit that pools runs, or a ValueError."""
    if not isinstance(tree, xr.DataTree):
        raise TypeError(f"{which} must be a fitted result (xarray.DataTree), got "
                        f"{type(tree).__name__}.")
    kind = registry.kind_of(tree)
    if not getattr(kind, "pooled_groups", False):
        raise ValueError(f"{which} is a {kind.key!r} fit; compare_runs compares pooled fits of "
                         "runs: bcm.fit({fold: ConfusionMatrix}, model='hierarchical', "
                         "group='fold'). For two classifiers of one test set use "
                         "bcm.compare_paired or bcm.prob_superior.")
    return str(kind.batch_dims[0])


def _scalar(da: xr.DataArray, name: str, group: str) -> xr.DataArray:
    extra = [d for d in da.dims if d not in (*box.SAMPLE_DIMS, group)]
    if extra:
        raise ValueError(f"{name!r} has the dims {extra} besides the runs; compare a scalar "
                         f"metric of a run (e.g. its macro average, '{name}_macro').")
    return da
