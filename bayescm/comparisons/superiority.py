"""Comparing classifiers: superiority probabilities, rank probabilities and leaderboards.

Posterior draws of one metric for several classifiers answer "which one is better?" with
probabilities instead of a single ordering (Tötsch & Hoffmann 2021, Fig. 5):

* :func:`prob_superior` -- ``P(A better than B by more than margin)`` for two fits, or two
  classifiers of one batch;
* :func:`rank_probabilities` -- for every classifier of a batch the probability of holding each
  rank, of being the best, and its expected rank;
* :func:`leaderboard` -- the same for a published leaderboard that lists only accuracies and the
  test-set size, with rank-weighted prizes.

Draws are compared draw by draw. That is valid when the classifiers' posteriors are independent
(separate fits with different seeds, or the classifiers of one batch, which are drawn
independently) or when the draws come from one joint posterior
(:func:`bayescm.compare_paired`), which keeps the correlation of classifiers scored on the
same samples.

Rank 1 is the best. **Ties** (equal draws, which continuous posteriors produce only through
floating-point rounding) share their ranks equally: a group of ``t`` tied classifiers occupying
ranks ``r .. r + t - 1`` gives each of them probability ``1 / t`` for each of these ranks and the
mean of them as its rank, the same as breaking ties uniformly at random (and the ``"average"``
rule of ``scipy.stats.rankdata`` for the expected rank). :func:`prob_superior` counts only strict
superiority, so for two classifiers ``P(rank 1) = prob_superior + P(tie) / 2``.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from bayescm.analyses.summary import resolve_var_names
from bayescm.core import container as box
from bayescm.core.arguments import keyword_checked
from bayescm.core.streams import warn_if_shared
from bayescm.metrics.catalogue import resolve_metrics
from bayescm.metrics.metric import Metric
from bayescm.models import registry
from bayescm.models.base import ModelKind

__all__ = ["prob_superior", "DIRECTIONS", "batch_dim"]

DIRECTIONS = ("higher", "lower")
"""Accepted values of ``direction``: which way a metric improves."""


# ---------------------------------------------------------------------------- metric draws
def _check_direction(direction: Any) -> str | None:
    if direction is None:
        return None
    if direction not in DIRECTIONS:
        raise ValueError(
            f"direction must be 'higher' (larger is better) or 'lower' (smaller is better), "
            f"got {direction!r}."
        )
    return str(direction)


def _metric_direction(kind: ModelKind, name: str, metric: Any, direction: str | None) -> str:
    """'higher' or 'lower' for a metric; the user's ``direction`` wins."""
    if direction is not None:
        return direction
    if isinstance(metric, Metric):
        higher = metric.higher_is_better
    else:
        try:
            found = resolve_metrics([name], kind.catalogue, kind.metric_family)[0]
        except ValueError:
            found = None
        if found is None:
            raise ValueError(
                f"{name!r} is not a built-in {kind.key} metric, so its direction is unknown; pass "
                "direction='higher' or direction='lower'."
            )
        higher = found.higher_is_better
    if higher is None:
        raise ValueError(
            f"{name!r} is descriptive (neither higher nor lower is better), so 'superior' is "
            "undefined; pass direction='higher' or direction='lower' to compare it anyway."
        )
    return "higher" if higher else "lower"


def _metric_draws(idata: xr.DataTree, metric: str | Metric, group: str) -> tuple[str, xr.DataArray]:
    """The draws of one metric (aliases resolved) from a result tree."""
    if isinstance(metric, Metric):
        metric = metric.name
    if not isinstance(metric, str):
        raise TypeError(f"metric must be a metric name or a bcm.metrics.Metric, got {metric!r}.")
    (name,) = resolve_var_names(idata, [metric], group)
    return name, box.get_group(idata, group)[name]


def _select(da: xr.DataArray, coords: Mapping[str, Any] | None, keep: Iterable[str] = ()
            ) -> xr.DataArray:
    """Apply ``coords`` and check that only sample dims (and ``keep``) remain."""
    if coords:
        unknown = [d for d in coords if d not in da.dims]
        if unknown:
            raise ValueError(
                f"coords names {unknown}, but {da.name!r} has dims {list(da.dims)}."
            )
        try:
            da = da.sel(dict(coords))
        except KeyError as exc:
            raise KeyError(f"coords {dict(coords)} do not select from {da.name!r}: {exc}") from None
    allowed = set(box.SAMPLE_DIMS) | set(keep)
    extra = [d for d in da.dims if d not in allowed]
    if extra:
        hints = ", ".join(
            f"{d}: {', '.join(map(str, da[d].values[:5]))}" if d in da.coords else str(d)
            for d in extra
        )
        raise ValueError(
            f"{da.name!r} carries the dims {extra} besides the draws ({hints}); select one "
            f"element, e.g. coords={{{extra[0]!r}: ...}}."
        )
    return da


def _flat_draws(da: xr.DataArray, keep: tuple[str, ...] = ()) -> np.ndarray:
    """Draws as ``(samples, *keep)``: chains and draws flattened in order."""
    sample = [d for d in box.SAMPLE_DIMS if d in da.dims]
    if not sample:
        raise ValueError(f"{da.name!r} has no sample dims (chain, draw): {list(da.dims)}.")
    arr = np.asarray(da.transpose(*sample, *keep).values)
    n = int(np.prod([da.sizes[d] for d in sample]))
    return arr.reshape((n,) + arr.shape[len(sample):])


def _check_finite_draws(x: np.ndarray, name: str, labels: Sequence[Any] | None = None) -> None:
    bad = np.isnan(x)
    if bad.any():
        where = ""
        if labels is not None and x.ndim == 2:
            i = int(np.argmax(bad.any(axis=0)))
            where = f" (e.g. classifier {labels[i]!r})"
        raise ValueError(
            f"{name} is undefined (NaN) in {int(bad.sum())} draw(s){where}; comparisons need a "
            "metric that is defined for every draw (see bcm.metrics.list_metrics()['undefined'])."
        )


# ---------------------------------------------------------------------------- prob_superior
@keyword_checked
def prob_superior(
    a: xr.DataTree,
    b: xr.DataTree | Hashable,
    c: Hashable | None = None,
    /,
    *,
    metric: str | Metric,
    margin: float = 0.0,
    direction: str | None = None,
    coords: Mapping[str, Any] | None = None,
    group: str = "posterior",
) -> float:
    """Posterior probability that classifier A beats classifier B on ``metric`` by > ``margin``.

    Two call forms:

    * ``prob_superior(idata_a, idata_b, metric=...)``: two results of :func:`~bayescm.fit`
      (separate test sets); their draws are independent and are paired draw by draw;
    * ``prob_superior(idata, "7a", "8", metric=...)``: two classifiers of one batch (or the
      ``"A"`` and ``"B"`` of :func:`~bayescm.compare_paired`, whose joint draws keep the
      correlation of a shared test set).

    For a metric where higher is better the result is ``P(m_A > m_B + margin)``; where lower is
    better (error rates) it is ``P(m_A < m_B - margin)``.

    Parameters
    ----------
    a : xarray.DataTree
        The result of classifier A, or a batch result holding both classifiers.
    b : xarray.DataTree or hashable
        The result of classifier B, or (batch form) the name of classifier A.
    c : hashable, optional
        Batch form only: the name of classifier B.
    metric : str or Metric
        The metric (aliases such as ``"sensitivity"`` accepted).
    margin : float, default 0.0
        Required advantage, >= 0, in the metric's units.
    direction : {"higher", "lower"}, optional
        Which way the metric improves; default from the metric catalogue. Required for
        descriptive quantities (``prevalence``, ``bias``) and custom metrics.
    coords : mapping, optional
        Selection applied to both draws, e.g. ``{"class": "cat"}`` for a per-class metric.
    group : str, default "posterior"
        ``"prior"`` compares the prior draws.

    Returns
    -------
    float
        The probability, a Monte Carlo estimate from the paired draws.

    Raises
    ------
    ValueError
        Different numbers of draws, a descriptive metric without ``direction``, a metric that
        still has a class dim, NaN draws, a negative margin, one classifier named (or one result
        passed) twice.
    KeyError
        A classifier not in the batch, an unknown metric or one not computed in the fit.
    TypeError
        Arguments that mix the two forms (two results and a name, or one batch and one name).

    Warns
    -----
    SharedRandomNumbersWarning
        Two separate fits drawn from the same random numbers (the same seed, however it was
        given: an integer, a NumPy integer, generators in the same state): their draws are not
        independent, which biases the probability.

    See Also
    --------
    rank_probabilities : The same comparison for any number of classifiers.
    bayescm.comparisons.paired.compare_paired : Paired comparison on one shared test set.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.comparisons.superiority import prob_superior
    >>> a = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=45, fn=5, tn=40, fp=10), random_seed=1)
    >>> b = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=40, fn=10, tn=38, fp=12), random_seed=2)
    >>> p = prob_superior(a, b, metric="accuracy")
    >>> 0.8 < p < 0.95
    True
    >>> round(prob_superior(a, b, metric="error_rate") - p, 6)  # lower is better: same event
    0.0
    """
    margin = _check_margin(margin)
    direction = _check_direction(direction)
    if isinstance(b, xr.DataTree):
        if c is not None:
            raise TypeError(
                "Give either two results, prob_superior(idata_a, idata_b, metric=...), or one "
                "batch and two names, prob_superior(idata, 'a', 'b', metric=...)."
            )
        kind = registry.kind_of(a, "prob_superior")  # a result it cannot read: named first
        name, da_a = _metric_draws(a, metric, group)
        if a is b:
            raise ValueError("prob_superior got the same result twice: a classifier never beats "
                             "itself (the probability would be 0); pass two results.")
        _, da_b = _metric_draws(b, name, group)
        x_a = _flat_draws(_select(da_a, coords))
        x_b = _flat_draws(_select(da_b, coords))
        if x_a.size != x_b.size:
            raise ValueError(
                f"The two results have different numbers of draws ({x_a.size} and {x_b.size}); "
                "fit both with the same draws and chains so they can be paired."
            )
        warn_if_shared(box.root_attrs(a), box.root_attrs(b))
    else:
        if c is None:
            raise TypeError(
                "Batch form: prob_superior(idata, 'name_a', 'name_b', metric=...); got only one "
                "classifier name."
            )
        if str(b) == str(c):
            raise ValueError(f"prob_superior compares two classifiers; both names are {c!r} "
                             "(a classifier never beats itself): name two different ones.")
        name, da = _metric_draws(a, metric, group)
        kind = registry.kind_of(a, "prob_superior")
        dim = batch_dim(kind, da)
        if dim not in da.dims:
            raise ValueError(
                f"This result has no {dim} dim; pass two results "
                "(prob_superior(idata_a, idata_b, metric=...)) or a batch from "
                "bcm.fit({'a': cm_a, 'b': cm_b})."
            )
        names = [str(v) for v in da[dim].values]
        picks = []
        for label in (b, c):
            if str(label) not in names:
                shown = ", ".join(names[:10]) + (", ..." if len(names) > 10 else "")
                raise KeyError(f"{dim.capitalize()} {label!r} is not in the batch ({dim}s: "
                               f"{shown}).")
            picks.append(da.isel({dim: names.index(str(label))}))
        x_a = _flat_draws(_select(picks[0], coords))
        x_b = _flat_draws(_select(picks[1], coords))
    direction = _metric_direction(kind, name, metric, direction)
    _check_finite_draws(x_a, name)
    _check_finite_draws(x_b, name)
    with np.errstate(invalid="ignore", over="ignore"):
        wins = x_a > x_b + margin if direction == "higher" else x_a < x_b - margin
    return float(np.mean(wins))


def batch_dim(kind: ModelKind, da: xr.DataArray) -> str:
    """The dim that holds the classifiers (or systems, groups) of a batch result.

    The kind declares it (:attr:`~bayescm.models.base.ModelKind.batch_dims`): ``classifier``
    for a batch of matrices, ``system`` for an items fit, the group dim of a hierarchical
    fit. The first of its batch dims that ``da`` has, else the first it declares.
    """
    return next((d for d in kind.batch_dims if d in da.dims), kind.batch_dims[0])


def _check_margin(margin: Any) -> float:
    if isinstance(margin, bool) or not isinstance(margin, (int, float, np.number)):
        raise TypeError(f"margin must be a number >= 0, got {margin!r}.")
    margin = float(margin)
    if not np.isfinite(margin) or margin < 0:
        raise ValueError(f"margin must be a finite number >= 0, got {margin}.")
    return margin


