"""Gaps between groups: subgroup comparisons and fairness criteria, draw by draw.

One classifier evaluated on several groups (sites, subgroups, demographic groups) is fitted
either with partial pooling, ``bcm.fit(matrices, model="hierarchical", group="site")``, or
unpooled, ``bcm.fit(matrices)`` (exact Beta posteriors, one per group; :func:`unpooled_fit`
makes it from a hierarchical result). Either fit answers the same questions here, so the two
can be read side by side.

**Measures.** Each is named ``<metric>_gap`` (the group's value minus the reference group's)
or ``<metric>_ratio`` (the group's value divided by the reference group's), computed in every
posterior draw. The default four are the usual fairness criteria:

========================  ===============================  ===============================
measure                   per draw                         criterion
========================  ===============================  ===============================
``tpr_gap``               TPR(group) - TPR(reference)      equal opportunity
``fpr_gap``               FPR(group) - FPR(reference)      with ``tpr_gap``: equalized odds
``ppv_ratio``             PPV(group) / PPV(reference)      predictive parity
``selection_rate_ratio``  P(flag | group) / P(flag | ref)  demographic parity (4/5 rule)
========================  ===============================  ===============================

The selection rate is the share of a group predicted positive (the catalogue's ``bias``). Any
binary metric or alias works the same way (``tnr_gap``, ``npv_ratio``, ``recall_gap``).

**Across groups** (no reference needed), also per draw: ``<metric>_gap_max`` is the largest
difference between any two groups (max minus min), ``<metric>_ratio_min`` the smallest ratio
(min over max; the four-fifths rule asks that it stays above 0.8), and ``equalized_odds`` is the
larger of ``tpr_gap_max`` and ``fpr_gap_max``.

**Tolerance.** A difference matters when ``|gap| > epsilon`` (default 0.05, five percentage
points). A ratio matters when it leaves ``ratio_bounds`` (default ``(0.8, 1.25)``: the
four-fifths rule and its mirror image, the same distance from 1 on the log scale). Every
measure thus has a band ``[lower, upper]``, and ``p_exceeds`` is the posterior probability that
it lies outside, ``P(|gap| > epsilon)`` for a difference.

**Reference.** Default: the largest group (the most items; the first of equal ones). Its own
gaps are exactly 0 (ratios 1); the choice is stored in the result's attributes.

**Prior-dominated groups** rest more on the model than on their own data; they are kept (empty
groups too: their gaps are wide, as they should be) and flagged. In an unpooled fit a group is
flagged when it has fewer than ``min_items`` (default 10) positives or fewer than ``min_items``
negatives: below 10 items the two pseudo-items of the uniform prior are more than a sixth of
what a rate rests on. A hierarchical fit flags its groups itself (``group_info["prior_dominated"]``:
its counts carry less information than ``n p (1 - p) = 1`` about its logit TPR or logit TNR,
so its rates are mostly the other groups'), and that flag is used unless ``min_items`` is
given, which applies the count rule to any fit.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from bayescm.comparisons.groups_draws import (
    compute_gaps,
    group_counts,
    group_dim,
)
from bayescm.core import container as box
from bayescm.core.arguments import keyword_checked
from bayescm.core.stats import hdi, hdi_prob_for
from bayescm.metrics.binary import BINARY_METRICS

__all__ = ["ACROSS", "fairness_table", "group_gaps", "unpooled_fit"]

ACROSS = "(across groups)"
"""The group label of the across-group rows of :func:`fairness_table`."""


@keyword_checked
def group_gaps(
    idata: xr.DataTree,
    reference: str | None = None,
    measures: str | Sequence[str] | None = None,
    *,
    epsilon: float = 0.05,
    ratio_bounds: tuple[float, float] = (0.8, 1.25),
    groups: Sequence[str] | None = None,
    min_items: int | None = None,
) -> xr.Dataset:
    """Posterior draws of each group's gap to a reference group, and of the largest gaps.

    Works on a hierarchical fit (the groups are its group dim) and on a plain batch fit
    (the groups are its classifiers), so pooled and unpooled answers can be compared; see the
    module notes for the measures, the tolerance band and the prior-dominated flag.

    Parameters
    ----------
    idata : xarray.DataTree
        ``bcm.fit(matrices, model="hierarchical", group=...)`` or ``bcm.fit(matrices)`` of
        binary matrices, one per group.
    reference : str, optional
        The group every other is compared with; default the largest group (most items).
    measures : str or list of str, optional
        ``"<metric>_gap"`` and ``"<metric>_ratio"`` names;
        default :data:`~bayescm.comparisons.groups_draws.MEASURES`
        (``tpr_gap``, ``fpr_gap``, ``ppv_ratio``, ``selection_rate_ratio``).
    epsilon : float, default 0.05
        Half-width of the tolerance band of differences (> 0, in the metric's units).
    ratio_bounds : (float, float), default (0.8, 1.25)
        Tolerance band of ratios, ``0 < lower < 1 < upper``.
    groups : list of str, optional
        Compare only these groups (they must include ``reference`` if one is given).
    min_items : int, optional
        Flag a group ``prior_dominated`` when it has fewer positives or fewer negatives than
        this. Default: the hierarchical fit's own flag (its ``group_info``), else 10.

    Returns
    -------
    xarray.Dataset
        Each measure with dims ``(chain, draw, <group dim>)`` (the reference's values are 0
        for gaps and 1 for ratios); ``<measure>_max`` (gaps) or ``<measure>_min`` (ratios)
        across groups and, with both ``tpr_gap`` and ``fpr_gap``, ``equalized_odds``, with dims
        ``(chain, draw)``; per group ``positives``, ``negatives`` and ``prior_dominated``. Each
        measure's attributes hold its band (``lower``, ``upper``) and criterion; the dataset's
        the ``reference``, ``epsilon``, ``ratio_bounds`` and the rules. The group dim is the
        hierarchical fit's (or the ``group`` attribute of :func:`unpooled_fit`'s result),
        else ``classifier``.

    Raises
    ------
    KeyError
        ``reference`` or a name in ``groups`` that is not a group of the result.
    ValueError
        A result that is not several binary groups; ``epsilon <= 0``; ratio bounds not around
        1; an unknown measure; fewer than two groups.

    See Also
    --------
    fairness_table : The same as a table of means, HDIs and ``P(|gap| > epsilon)``.
    bayescm.plots.plot_group_gaps : The figure.

    Examples
    --------
    The shipped age groups, fitted unpooled (exact and fast; a hierarchical fit is read the
    same way):

    >>> import bayescm as bcm
    >>> from bayescm.comparisons.groups import group_gaps
    >>> fit = bcm.fit(bcm.datasets.subgroups(), random_seed=0)
    >>> gaps = group_gaps(fit)
    >>> gaps.attrs["reference"], gaps.attrs["reference_rule"]
    ('30-44', 'the largest group (most items)')

    ``P(|TPR gap| > 5 points)`` is the share of draws outside the band; the group aged 60-74
    misses far more of its positives than the reference does:

    >>> p = (abs(gaps["tpr_gap"]) > 0.05).mean(("chain", "draw"))
    >>> round(float(p.sel(classifier="60-74")), 2)
    0.99

    The tiny group (12 people) and the one without positives are kept, and flagged:

    >>> gaps["prior_dominated"].to_series().to_dict()
    {'under 18': True, '18-29': False, '30-44': False, '45-59': False, '60-74': False, '75+': True}
    """
    ds, _ = compute_gaps(idata, reference, measures, epsilon, ratio_bounds, groups, min_items)
    return ds


# ---------------------------------------------------------------------------- table
_COLUMNS = ["observed", "mean", "hdi_lower", "hdi_upper", "lower", "upper", "p_exceeds",
            "positives", "negatives", "prior_dominated"]


def _row_stats(x: np.ndarray, lower: float, upper: float, prob: float
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean, HDI ``(rows, 2)`` and ``P(outside [lower, upper])`` of draws ``(samples, rows)``."""
    finite = np.isfinite(x)
    outside = ((x < lower) | (x > upper)) & finite
    with np.errstate(invalid="ignore", divide="ignore"):
        p = outside.sum(axis=0) / finite.sum(axis=0)
    return x.mean(axis=0), hdi(x, prob, axis=0), p


@keyword_checked
def fairness_table(
    idata: xr.DataTree,
    reference: str | None = None,
    measures: str | Sequence[str] | None = None,
    *,
    epsilon: float = 0.05,
    ratio_bounds: tuple[float, float] = (0.8, 1.25),
    hdi_prob: float | None = None,
    groups: Sequence[str] | None = None,
    min_items: int | None = None,
) -> pd.DataFrame:
    """Gaps between groups as a table: observed, mean, HDI and ``P(outside the band)``.

    One row per measure and group (the reference left out: its gaps are 0), then one row per
    across-group measure (group :data:`ACROSS`). The arguments are those of
    :func:`group_gaps`, plus the interval probability.

    Parameters
    ----------
    idata : xarray.DataTree
        A hierarchical or a plain batch fit of binary matrices, one per group.
    reference, measures, epsilon, ratio_bounds
        As in :func:`group_gaps`.
    hdi_prob : float, optional
        HDI probability; default the fit's, else ``rcParams["stats.hdi_prob"]``.
    groups, min_items
        As in :func:`group_gaps`.

    Returns
    -------
    pandas.DataFrame
        Index ``(measure, group)``; columns ``observed`` (the gap of the raw rates
        ``count / N``, NaN where a rate is undefined), ``mean``, ``hdi_lower``, ``hdi_upper``,
        the band ``lower`` and ``upper`` (``-epsilon, epsilon`` or ``ratio_bounds``),
        ``p_exceeds`` (posterior probability outside the band: ``P(|gap| > epsilon)``),
        ``positives``, ``negatives`` and ``prior_dominated`` (across groups: the totals, and
        whether any group is flagged). ``attrs`` holds the reference, the source, ``hdi_prob``,
        ``epsilon`` and ``ratio_bounds``.

    Raises
    ------
    KeyError, ValueError
        As :func:`group_gaps`.

    See Also
    --------
    group_gaps : The gaps' posterior draws behind the table.
    bayescm.plots.plot_group_gaps : The same gaps drawn.
    unpooled_fit : Each group fitted on its own, to compare with the pooled fit.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.comparisons.groups import fairness_table
    >>> fit = bcm.fit(bcm.datasets.subgroups(), random_seed=0)
    >>> table = fairness_table(fit, measures=["tpr_gap", "selection_rate_ratio"])
    >>> table.attrs["reference"]
    '30-44'
    >>> row = table.loc[("tpr_gap", "60-74"), ["observed", "mean", "p_exceeds"]]
    >>> row.round(2).tolist()  # doctest: +MC
    [-0.16, -0.16, 1.0]

    Is the four-fifths rule met? The smallest ratio of selection rates says no, with certainty:
    nobody under 18 has the condition, so few are flagged there:

    >>> table.loc[("selection_rate_ratio_min", "(across groups)"), "p_exceeds"].item()
    1.0

    A pooled and an unpooled table side by side: ``pandas.concat({"pooled":
    fairness_table(hier), "unpooled": fairness_table(unpooled_fit(hier))}, axis=1)``.
    """
    ds, observed = compute_gaps(idata, reference, measures, epsilon, ratio_bounds, groups,
                            min_items)
    prob = hdi_prob_for(hdi_prob, idata)
    dim = str(ds.attrs["group_dim"])
    names = [str(v) for v in ds[dim].values]
    keep = [i for i, n in enumerate(names) if n != ds.attrs["reference"]]
    pos, neg = ds["positives"].values, ds["negatives"].values
    flag = ds["prior_dominated"].values
    blocks, index = [], []
    for name, da in ds.data_vars.items():
        if "measure" not in da.attrs:
            continue
        lower, upper = float(da.attrs["lower"]), float(da.attrs["upper"])
        per_group = dim in da.dims
        x = np.asarray(da.values).reshape(-1, len(names) if per_group else 1)
        if per_group:
            x = x[:, keep]
        mean, bounds, p = _row_stats(x, lower, upper, prob)
        rows = len(keep) if per_group else 1
        blocks.append(np.column_stack([
            np.asarray(observed[str(name)], dtype=float).reshape(-1)[keep] if per_group else
            np.asarray(observed[str(name)], dtype=float).reshape(1),
            mean, bounds[:, 0], bounds[:, 1], np.full(rows, lower), np.full(rows, upper), p,
            pos[keep] if per_group else [pos.sum()], neg[keep] if per_group else [neg.sum()],
            flag[keep] if per_group else [flag.any()]]))
        index += [(str(name), names[i]) for i in keep] if per_group else [(str(name), ACROSS)]
    table = pd.DataFrame(np.vstack(blocks), columns=_COLUMNS,
                         index=pd.MultiIndex.from_tuples(index, names=["measure", dim]))
    table = table.astype({"positives": np.int64, "negatives": np.int64, "prior_dominated": bool})
    table.attrs.update({k: ds.attrs[k] for k in ("reference", "source", "epsilon",
                                                  "ratio_bounds")}, hdi_prob=prob)
    return table


# ---------------------------------------------------------------------------- unpooled
@keyword_checked
def unpooled_fit(
    idata: xr.DataTree,
    *,
    prior: Any = None,
    draws: int | None = None,
    chains: int | None = None,
    random_seed: int | None = None,
) -> xr.DataTree:
    """The unpooled exact fit of a hierarchical result's counts: each group on its own.

    The same groups (their names as the ``classifier`` coordinate), counts, metrics and
    numbers of draws, with independent conjugate Beta posteriors per group (no sampler): what
    each group's data say without borrowing from the others. The tree records the group dim's
    name (root attribute ``group``), so :func:`group_gaps` and :func:`fairness_table` label
    both results alike, and comparing them shows what pooling does to each gap.

    Parameters
    ----------
    idata : xarray.DataTree
        A result of ``bcm.fit(matrices, model="hierarchical", group=...)``.
    prior : str or prior, optional
        The prior of every rate, as in :func:`bayescm.fit` (default Laplace, uniform).
    draws, chains : int, optional
        Default those of ``idata``.
    random_seed : int, optional
        Default the seed ``idata`` records (the same result each call), else fresh entropy.

    Returns
    -------
    xarray.DataTree
        A batch fit of the binary model.

    Raises
    ------
    ValueError
        A result that is not a hierarchical fit (a batch fit is unpooled already).

    See Also
    --------
    group_gaps : Takes ``unpooled=`` to show both fits' gaps.
    bayescm.plots.plot_group_forest : Pooled and unpooled intervals side by side.
    bayescm.fit : The hierarchical fit it unpools.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.comparisons.groups import fairness_table, unpooled_fit
    >>> from bayescm.models.hierarchical import HierarchicalModel
    >>> hier = HierarchicalModel.example()  # six sites, model="hierarchical", group="site"
    >>> flat = unpooled_fit(hier)
    >>> flat["posterior"]["tpr"].sizes, flat.attrs["group"]
    (Frozen({'chain': 2, 'draw': 500, 'classifier': 6}), 'site')

    Pooling pulls the smallest site's TPR towards the others, so its gap narrows:

    >>> def width(t):
    ...     row = fairness_table(t, measures="tpr_gap").loc[("tpr_gap", "D")]
    ...     return row["hdi_upper"] - row["hdi_lower"]
    >>> bool(width(hier) < width(flat))
    True
    """
    from bayescm.core.confusion import ConfusionMatrix
    from bayescm.errors import EmptyMatrixWarning
    from bayescm.models.fitting import fit

    tree_dim, dim = group_dim(idata)
    if tree_dim == "classifier":
        raise ValueError("This is a batch fit, unpooled already: pass it to group_gaps or "
                         "fairness_table directly. unpooled_fit takes a hierarchical fit.")
    attrs = box.root_attrs(idata)
    counts = group_counts(idata, tree_dim)
    names = [str(v) for v in box.get_group(idata, "observed_data")[tree_dim].values]
    labels = tuple(box.read_json_attr(idata, "labels"))
    seed = attrs.get("random_seed") if random_seed is None else random_seed
    metrics = [m for m in box.read_json_attr(idata, "metrics") if m in BINARY_METRICS] if (
        "metrics" in attrs) else None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", EmptyMatrixWarning)  # said when the groups were fitted
        mats = {n: ConfusionMatrix.from_counts(tp=int(c[0, 0]), fn=int(c[0, 1]),
                                               fp=int(c[1, 0]), tn=int(c[1, 1]), labels=labels)
                for n, c in zip(names, counts, strict=True)}
        tree = fit(mats, prior, draws=int(attrs["draws"]) if draws is None else draws,
                   chains=int(attrs["chains"]) if chains is None else chains,
                   random_seed=int(seed) if isinstance(seed, (int, np.integer)) else None,
                   metrics=metrics or None, hdi_prob=attrs.get("hdi_prob"))
    tree.attrs["group"] = dim
    return tree
