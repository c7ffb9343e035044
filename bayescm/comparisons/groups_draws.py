"""Reading the groups of a fit and computing their gaps: the engine of :mod:`.groups`.

A fit of several groups is either hierarchical (its group dim named by the root attribute
``group``) or a plain batch of the binary model (dim ``classifier``; :func:`.groups.unpooled_fit`
records the group dim's name in the same attribute). :func:`compute_gaps` reads the groups'
draws and counts from either, checks the arguments, and returns the gaps dataset with the
observed (raw ``count / N``) value of each measure. Everything works on whole arrays: the draws
of all groups at once, no loop over draws.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.arguments import warn_user
from bayescm.core.stats import hdi_prob_for
from bayescm.core.validate import check_int, check_real
from bayescm.metrics.binary import BINARY_METRICS
from bayescm.metrics.catalogue import alias_table, canonical_name
from bayescm.models import registry

__all__ = ["MEASURES", "MIN_ITEMS", "compute_gaps", "group_dim", "group_counts"]

MEASURES = ("tpr_gap", "fpr_gap", "ppv_ratio", "selection_rate_ratio")
"""The default measures: equal opportunity, equalized odds, predictive and demographic parity."""

MIN_ITEMS = 10
"""Fewest positives and negatives an unpooled group needs not to be flagged prior-dominated."""

_CRITERIA = {"tpr_gap": "equal opportunity", "fpr_gap": "equalized odds (with tpr_gap)",
             "ppv_ratio": "predictive parity", "ppv_gap": "predictive parity",
             "selection_rate_ratio": "demographic parity (four-fifths rule)",
             "selection_rate_gap": "demographic parity"}


# ---------------------------------------------------------------------------- reading a fit
def group_dim(idata: xr.DataTree) -> tuple[str, str]:
    """``(dim of the tree, dim of the result)``: the hierarchical group dim or ``classifier``."""
    box.check_tree(idata)
    kind = registry.kind_of(idata)
    attrs = box.root_attrs(idata)
    post = box.get_group(idata, "posterior")
    if kind.pooled_groups:
        dim = str(attrs.get("group", "group"))
        return dim, dim
    if "group_gaps" in kind.analyses and "classifier" in post.dims:
        if "prior_choice" in post.dims:
            raise ValueError("This is a prior_sensitivity result (a prior_choice dim); compare "
                             "groups on one fit, e.g. bcm.fit(matrices, prior=...).")
        return "classifier", str(attrs.get("group", "classifier"))
    what = ("the fit of one matrix" if "group_gaps" in kind.analyses else
            kind.description or f"a {kind.key} result")
    raise ValueError(
        f"Gaps between groups need several groups of one binary classifier; this is {what}. "
        "Fit a mapping {group name: binary ConfusionMatrix}: bcm.fit(matrices, "
        "model='hierarchical', group='site') pools the groups partially, bcm.fit(matrices) "
        "fits each on its own (exact).")


def group_counts(idata: xr.DataTree, dim: str) -> np.ndarray:
    """The ``(G, 2, 2)`` counts of the groups (positive class first)."""
    if not box.has_group(idata, "observed_data") or "counts" not in box.get_group(
            idata, "observed_data"):
        raise ValueError("The result has no observed_data/counts, so the groups' sizes (and "
                         "which groups are prior-dominated) are unknown; use the tree bcm.fit "
                         "returned (or bcm.load of a saved one).")
    da = box.get_group(idata, "observed_data")["counts"]
    return np.asarray(da.transpose(dim, "true_class", "pred_class").values, dtype=np.int64)


def _metric_values(ds: xr.Dataset, metric: str, dim: str, take: np.ndarray) -> np.ndarray:
    """Values of ``metric`` per group (trailing axis), sample dims first if any.

    Read from the group when the fit stored the metric, else computed from ``theta`` (every
    fit stores it), so a fit with ``metrics=["acc"]`` still has its PPV and selection rate.
    """
    if metric in ds:
        da = ds[metric]
    elif "theta" in ds:
        theta = ds["theta"]
        cells = [theta.isel(true_class=i, pred_class=j, drop=True) for i, j in
                 ((0, 0), (0, 1), (1, 0), (1, 1))]
        da = xr.apply_ufunc(BINARY_METRICS[metric], *cells)
    else:  # pragma: no cover - every fit stores theta
        raise KeyError(f"{metric!r} is neither stored nor computable (no theta) in this result.")
    extra = [d for d in da.dims if d not in (*box.SAMPLE_DIMS, dim)]
    if extra:
        raise ValueError(f"{metric!r} has the dims {extra} besides the draws and the groups; "
                         "gaps need one value per group and draw.")
    order = [d for d in box.SAMPLE_DIMS if d in da.dims] + [dim]
    return np.asarray(da.transpose(*order).values, dtype=float)[..., take]


# ---------------------------------------------------------------------------- arguments
def _parse_measures(measures: Any) -> list[tuple[str, str, str]]:
    """``(result name, metric, "gap" or "ratio")`` for each requested measure."""
    if measures is None:
        measures = MEASURES
    if isinstance(measures, str):
        measures = [measures]
    aliases = alias_table("binary")
    out: list[tuple[str, str, str]] = []
    for given in measures:
        if not isinstance(given, str):
            raise TypeError(f"measures must be names such as 'tpr_gap', got {given!r}.")
        key = canonical_name(given)
        how = next((h for h in ("gap", "ratio") if key.endswith("_" + h)), None)
        if how is None:
            raise ValueError(
                f"measures: {given!r} names neither a gap nor a ratio; write "
                "'<metric>_gap' (group minus reference) or '<metric>_ratio' (group / "
                "reference), e.g. 'tpr_gap', 'fpr_gap', 'ppv_ratio', 'selection_rate_ratio'.")
        base = key[: -len(how) - 1]
        metric = "bias" if base == "selection_rate" else aliases.get(base)
        if metric is None:
            raise ValueError(
                f"measures: {base!r} in {given!r} is not a binary metric; use a name of "
                "bcm.metrics.list_metrics('binary') or 'selection_rate' (P(predicted positive)).")
        name = f"{'selection_rate' if metric == 'bias' else metric}_{how}"
        if name not in [o[0] for o in out]:
            out.append((name, metric, how))
    if not out:
        raise ValueError("measures is empty; name at least one, e.g. measures=['tpr_gap'].")
    return out


def _check_bounds(epsilon: Any, ratio_bounds: Any) -> tuple[float, tuple[float, float]]:
    eps = check_real(epsilon, "epsilon", 0.0, low_open=True)
    try:
        lo, hi = ratio_bounds
    except (TypeError, ValueError):
        raise TypeError(f"ratio_bounds must be a pair (lower, upper) around 1, e.g. (0.8, 1.25), "
                        f"got {ratio_bounds!r}.") from None
    lo = check_real(lo, "ratio_bounds[0]", 0.0, 1.0, low_open=True, high_open=True)
    hi = check_real(hi, "ratio_bounds[1]", 1.0, low_open=True)
    return eps, (lo, hi)


def _choose(names: list[str], counts: np.ndarray, groups: Any, reference: Any
            ) -> tuple[np.ndarray, int, str]:
    """Indices of the groups compared, the reference's position among them, and the rule."""
    def known(name: Any, arg: str) -> int:
        if str(name) not in names:
            shown = ", ".join(names[:12]) + (", ..." if len(names) > 12 else "")
            raise KeyError(f"{arg}={name!r} is not a group of this result (groups: {shown}).")
        return names.index(str(name))

    if groups is None:
        take = np.arange(len(names))
    else:
        if isinstance(groups, str):
            raise TypeError(f"groups must be a list of group names, e.g. [{groups!r}, ...].")
        take = np.array(list(dict.fromkeys(known(g, "groups") for g in groups)), dtype=np.intp)
    if take.size < 2:
        raise ValueError(f"Gaps need at least two groups; got {take.size}. Pass groups=None "
                         "(all) or list two or more.")
    items = counts[take].sum(axis=(1, 2))
    if reference is None:
        return take, int(np.argmax(items)), "the largest group (most items)"
    pos = np.flatnonzero(take == known(reference, "reference"))
    if pos.size == 0:
        raise ValueError(f"reference={reference!r} is not among groups={list(groups)}; add it.")
    return take, int(pos[0]), "given"


# ---------------------------------------------------------------------------- gaps
def _flags(idata: xr.DataTree, tree_dim: str, take: np.ndarray, positives: np.ndarray,
           negatives: np.ndarray, min_items: Any) -> tuple[np.ndarray, str]:
    """Each group's prior-dominated flag and the rule that set it.

    With ``min_items=None`` a fit that flags its own groups (the hierarchical fit's
    ``group_info``) is followed; otherwise, and for unpooled fits, a group with fewer than
    ``min_items`` (default :data:`MIN_ITEMS`) positives or negatives is flagged.
    """
    if min_items is None and box.has_group(idata, "group_info"):
        info = box.get_group(idata, "group_info")
        if "prior_dominated" in info:
            limit = info.attrs.get("pooling_limit", 0.5)
            flags = np.asarray(info["prior_dominated"].transpose(tree_dim).values, dtype=bool)
            return flags[take], (f"more than {limit:g} of the group's TPR or TNR estimate "
                                 "comes from the other groups (the fit's group_info)")
    n = MIN_ITEMS if min_items is None else check_int(min_items, "min_items", 0)
    return ((positives < n) | (negatives < n),
            f"fewer than {n} positives or fewer than {n} negatives")


def _label(metric: str) -> str:
    return "selection rate" if metric == "bias" else BINARY_METRICS[metric].display_name


def _across(x: np.ndarray, o: np.ndarray, how: str) -> tuple[np.ndarray, np.ndarray]:
    """The largest difference (max - min) or smallest ratio (min / max) of the groups.

    Per draw over the trailing axis, and the same of the observed values (undefined ones left
    out).
    """
    with warnings.catch_warnings(), np.errstate(divide="ignore", invalid="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)  # every observed value undefined
        if how == "gap":
            return x.max(axis=-1) - x.min(axis=-1), np.asarray(np.nanmax(o) - np.nanmin(o))
        return x.min(axis=-1) / x.max(axis=-1), np.asarray(np.nanmin(o) / np.nanmax(o))


def compute_gaps(idata: xr.DataTree, reference: Any = None, measures: Any = None,
                 epsilon: Any = 0.05, ratio_bounds: Any = (0.8, 1.25), groups: Any = None,
                 min_items: Any = None) -> tuple[xr.Dataset, dict[str, np.ndarray]]:
    """The dataset of :func:`.groups.group_gaps` and the observed value of each measure.

    The observed values are the same measures of the raw rates ``count / N`` (the fit's
    ``observed_metrics``): NaN where a rate is undefined (TPR of a group without positives).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.comparisons.groups_draws import compute_gaps
    >>> fit = bcm.fit({"a": bcm.ConfusionMatrix.from_counts(tp=40, fn=10, fp=5, tn=45),
    ...                "b": bcm.ConfusionMatrix.from_counts(tp=30, fn=20, fp=5, tn=45)},
    ...               random_seed=0)
    >>> gaps, observed = compute_gaps(fit, measures="tpr_gap")
    >>> gaps.attrs["reference"], observed["tpr_gap"].round(2).tolist()
    ('a', [0.0, -0.2])
    """
    tree_dim, dim = group_dim(idata)
    eps, (lo, hi) = _check_bounds(epsilon, ratio_bounds)
    parsed = _parse_measures(measures)
    post = box.get_group(idata, "posterior")
    names = [str(v) for v in post[tree_dim].values]
    counts = group_counts(idata, tree_dim)
    take, r, rule = _choose(names, counts, groups, reference)
    positives, negatives = counts[take, 0, :].sum(axis=1), counts[take, 1, :].sum(axis=1)
    flagged, flag_rule = _flags(idata, tree_dim, take, positives, negatives, min_items)
    obs = (box.get_group(idata, "observed_metrics")
           if box.has_group(idata, "observed_metrics") else None)
    variables: dict[str, Any] = {}
    observed: dict[str, np.ndarray] = {}
    for name, metric, how in parsed:
        x = _metric_values(post, metric, tree_dim, take)
        o = (_metric_values(obs, metric, tree_dim, take) if obs is not None
             else np.full(take.size, np.nan))
        with np.errstate(divide="ignore", invalid="ignore"):
            value, observed[name] = ((x - x[..., r:r + 1], o - o[r]) if how == "gap" else
                                     (x / x[..., r:r + 1], o / o[r]))
        band = (-eps, eps) if how == "gap" else (lo, hi)
        attrs = {"long_name": f"{_label(metric)} of each group "
                              f"{'minus' if how == 'gap' else 'divided by'} the reference's",
                 "metric": metric, "measure": how, "lower": band[0], "upper": band[1],
                 "criterion": _CRITERIA.get(name, "")}
        variables[name] = ((*box.SAMPLE_DIMS, dim), value, attrs)
        across = f"{name}_max" if how == "gap" else f"{name}_min"
        span, observed[across] = _across(x, o, how)
        variables[across] = (box.SAMPLE_DIMS, span, {**attrs, "long_name": (
            f"largest {_label(metric)} difference between two groups (max - min)" if how == "gap"
            else f"smallest {_label(metric)} ratio of two groups (min / max)")})
    if "tpr_gap_max" in variables and "fpr_gap_max" in variables:
        variables["equalized_odds"] = (box.SAMPLE_DIMS, np.maximum(
            variables["tpr_gap_max"][1], variables["fpr_gap_max"][1]), {
            "long_name": "largest TPR or FPR difference between two groups",
            "metric": "tpr, fpr", "measure": "gap", "lower": -eps, "upper": eps,
            "criterion": "equalized odds"})
        observed["equalized_odds"] = np.fmax(observed["tpr_gap_max"], observed["fpr_gap_max"])
    variables.update({
        "positives": ((dim,), positives, {"long_name": "items of the positive class"}),
        "negatives": ((dim,), negatives, {"long_name": "items of the negative class"}),
        "prior_dominated": ((dim,), flagged, {"long_name": f"prior-dominated: {flag_rule}"}),
    })
    ref_name = names[take[r]]
    coords = {"chain": post["chain"].values, "draw": post["draw"].values,
              dim: [names[i] for i in take]}
    ds = box.make_dataset(variables, coords, {
        "reference": ref_name, "reference_rule": rule, "group_dim": dim,
        "source": ("unpooled (exact)" if tree_dim == "classifier" else
                   "hierarchical (partially pooled)"),
        "epsilon": eps, "ratio_bounds": [lo, hi], "prior_dominated_rule": flag_rule,
        "hdi_prob": hdi_prob_for(None, idata)})
    if flagged[r]:
        warn_user(f"The reference group {ref_name!r} is prior-dominated ({flag_rule}), so "
                  "every gap carries its uncertainty; choose a larger group with reference=...")
    return ds, observed
