"""Frequentist baselines for cross-checks and teaching: the bootstrap and binomial intervals.

* :func:`bootstrap` -- percentile intervals of any catalogue metric, for one classifier or the
  difference of two, with **joint** resampling (the same resampled samples for both
  classifiers, which keeps the correlation of a shared test set) or **independent** resampling
  (each classifier resampled on its own, as if it had its own test set; too wide when the
  classifiers are correlated, see Bruveris 2024).
* :func:`binomial_interval` -- Clopper-Pearson, Wilson and Jeffreys intervals of a proportion.

Resampling ``N`` samples with replacement only matters through how many land in each cell of the
(true, A, B) table, and those counts are ``Multinomial(N, observed cell shares)``. So every
replicate is one multinomial draw of ``K^3`` (or ``K^2``) cell counts, all replicates at once:
no loop over replicates and no ``N``-long index arrays.
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from scipy import special, stats

from bayescm.core.arguments import keyword_checked
from bayescm.core.counts import encode_labels
from bayescm.core.resources import check_memory
from bayescm.core.stats import hdi_prob_for
from bayescm.core.streams import generator
from bayescm.core.validate import check_int, check_probability
from bayescm.metrics.metric import Metric
from bayescm.models.paired import kind_and_catalogue, metric_values, select_metrics

__all__ = ["bootstrap", "BootstrapResult", "binomial_interval", "BINOMIAL_METHODS"]

BINOMIAL_METHODS = ("clopper-pearson", "wilson", "jeffreys")


@dataclass(frozen=True)
class BootstrapResult:
    """Bootstrap percentile intervals.

    Attributes
    ----------
    table : pandas.DataFrame
        Rows ``A`` (one classifier) or ``A, B, A - B`` (two), columns ``estimate`` (the metric
        on the full data), ``lower``, ``upper`` (percentile interval), ``se`` (sd of the
        replicates).
    replicates : ndarray
        ``(n_boot, rows)`` bootstrap values, NaN where the metric is undefined.
    metric : str
        Metric name.
    ci : float
        Interval probability.
    paired : bool
        Joint (True) or independent (False) resampling of two classifiers.

    See Also
    --------
    bootstrap : Makes it.
    bayescm.summary : The Bayesian intervals to compare with.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.analyses.frequentist import bootstrap
    >>> y = np.array([1] * 50 + [0] * 50)
    >>> pred = y.copy(); pred[:20] = 1 - pred[:20]
    >>> result = bootstrap(y, pred, metric="acc", positive=1, n_boot=200, random_seed=0)
    >>> result.metric, result.replicates.shape, list(result.table.columns)
    ('acc', (200, 1), ['estimate', 'lower', 'upper', 'se'])
    """

    table: pd.DataFrame
    replicates: np.ndarray = field(repr=False)
    metric: str
    ci: float
    paired: bool

    @property
    def interval(self) -> tuple[float, float]:
        """The interval of the last row: A - B for two classifiers, else A."""
        row = self.table.iloc[-1]
        return float(row["lower"]), float(row["upper"])


def _check_ci(ci: Any) -> float:
    return hdi_prob_for() if ci is None else check_probability(ci, "ci")


def _resample(rng: np.random.Generator, counts: np.ndarray, n_boot: int) -> np.ndarray:
    """``n_boot`` bootstrap replicates of cell counts: Multinomial(N, counts / N)."""
    flat = counts.reshape(-1)
    n = int(flat.sum())
    reps = rng.multinomial(n, flat / n, size=n_boot)
    return reps.reshape((n_boot,) + counts.shape)


@keyword_checked
def bootstrap(
    y_true: Iterable[Hashable],
    pred_a: Iterable[Hashable],
    pred_b: Iterable[Hashable] | None = None,
    metric: str | Metric = "acc",
    n_boot: int = 10_000,
    paired: bool = True,
    ci: float | None = None,
    random_seed: int | np.random.Generator | None = None,
    *,
    labels: Sequence[Hashable] | None = None,
    positive: Hashable | None = None,
    ordered: bool = False,
) -> BootstrapResult:
    """Percentile bootstrap interval of a metric, or of the difference of two classifiers.

    Parameters
    ----------
    y_true, pred_a : sequence of hashable
        True labels and the predictions of classifier A.
    pred_b : sequence of hashable, optional
        Predictions of classifier B for the same samples; then the table adds B and A - B.
    metric : str or Metric, default "acc"
        Any catalogue metric (aliases accepted) or a custom :class:`~bayescm.Metric`.
    n_boot : int, default 10000
        Bootstrap replicates.
    paired : bool, default True
        Joint resampling of samples (both classifiers see the same resample, keeping their
        correlation); False resamples each classifier's (true, prediction) pairs
        independently.
    ci : float, optional
        Probability of the percentile interval; default ``rcParams["stats.hdi_prob"]`` (the
        mass of the Bayesian intervals it is compared with).
    random_seed : int or numpy Generator, optional
        Same seed, same replicates.
    labels : sequence of hashable, optional
        Classes and their order.
    positive : hashable, optional
        Positive class (binary metrics need it; without it the multiclass catalogue is used).
    ordered : bool, default False
        Multiclass: classes are ordered (needed for weighted kappas, class-distance errors).

    Returns
    -------
    BootstrapResult
        ``table`` (estimate, lower, upper, se per row) and the ``replicates``.

    Raises
    ------
    TypeError
        ``paired`` that is not a bool, or a list of metrics (one metric per call).

    Warns
    -----
    RuntimeWarning
        When the metric is undefined (0/0) in some replicates; the interval uses the rest.

    See Also
    --------
    bayescm.comparisons.paired.compare_paired : The Bayesian paired comparison.
    binomial_interval : Closed-form confidence intervals of one proportion.
    bayescm.summary : The Bayesian posterior intervals to set these against.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.analyses.frequentist import bootstrap
    >>> y = np.array([1] * 500 + [0] * 500)
    >>> a = y.copy(); a[:250] = 1 - a[:250]               # 75 % accurate
    >>> b = y.copy(); b[10:230] = 1 - b[10:230]           # 78 %, mostly the same errors
    >>> joint = bootstrap(y, a, b, "acc", positive=1, random_seed=0)
    >>> lo, hi = joint.interval
    >>> bool(hi < 0)                                      # A - B < 0: B is better
    True
    >>> lo, hi = bootstrap(y, a, b, "acc", paired=False, positive=1, random_seed=0).interval
    >>> bool(lo < 0 < hi)                                 # independent resampling: unclear
    True
    """
    n_boot = check_int(n_boot, "n_boot", 2)
    ci = _check_ci(ci)
    if not isinstance(paired, (bool, np.bool_)):
        raise TypeError(f"paired must be True or False, got {paired!r}.")
    preds = [pred_a] if pred_b is None else [pred_a, pred_b]
    classes, positive, t, codes = encode_labels(y_true, preds, labels, positive)
    k = len(classes)
    check_memory(3.0 * n_boot * (2 + k**3), "This bootstrap", ["fewer replicates (n_boot=)"])
    kind, catalogue = kind_and_catalogue(k, positive)
    if isinstance(metric, (list, tuple)):
        raise TypeError("bootstrap takes one metric; call it once per metric.")
    (m,) = select_metrics(metric, catalogue, kind, bool(ordered))
    rng, _ = generator(random_seed)
    n = t.size
    if len(codes) == 1:
        counts = np.bincount(t * k + codes[0], minlength=k * k).reshape(k, k)
        theta = _resample(rng, counts, n_boot)[:, None] / n
        full = (counts / n)[None]
        rows = ["A"]
    else:
        a, b = codes
        joint = np.bincount((t * k + a) * k + b, minlength=k ** 3).reshape(k, k, k)
        full = np.stack([joint.sum(-1), joint.sum(-2)]) / n
        if paired:
            reps = _resample(rng, joint, n_boot)
            theta = np.stack([reps.sum(-1), reps.sum(-2)], axis=1) / n
        else:
            theta = np.stack([_resample(rng, joint.sum(-1), n_boot),
                              _resample(rng, joint.sum(-2), n_boot)], axis=1) / n
        rows = ["A", "B", "A - B"]
    values = metric_values(m, theta, kind)           # (n_boot, 1 or 2)
    estimate = metric_values(m, full, kind)
    if len(rows) == 3:
        with np.errstate(invalid="ignore", over="ignore"):  # inf - inf: undefined (NaN)
            values = np.column_stack([values, values[:, 0] - values[:, 1]])
            estimate = np.append(estimate, estimate[0] - estimate[1])
    undefined = np.isnan(values).any(axis=0)
    if undefined.any():
        share = np.isnan(values).mean(axis=0).max()
        warnings.warn(
            f"{m.name} is undefined (NaN: 0/0, or inf - inf in a difference) in {share:.1%} of "
            "the bootstrap replicates; the interval uses the others and may be unreliable.",
            RuntimeWarning, stacklevel=3)  # past the keyword check, to the caller
    tail = (1.0 - ci) / 2.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        lower, upper = np.nanquantile(values, [tail, 1.0 - tail], axis=0)
        se = np.nanstd(values, axis=0, ddof=1)
    table = pd.DataFrame({"estimate": estimate, "lower": lower, "upper": upper, "se": se},
                         index=pd.Index(rows, name="classifier"))
    table.attrs.update({"metric": m.name, "ci": ci, "n_boot": n_boot, "paired": bool(paired),
                        "method": "percentile bootstrap"})
    return BootstrapResult(table, values, m.name, ci, bool(paired))


@keyword_checked
def binomial_interval(
    k: int | np.ndarray,
    n: int | np.ndarray,
    method: str = "clopper-pearson",
    ci: float | None = None,
) -> tuple[Any, Any]:
    """Confidence interval of a binomial proportion ``k / n`` (vectorised over arrays).

    * ``"clopper-pearson"``: the exact interval from Beta quantiles,
      ``[B(a/2; k, n-k+1), B(1-a/2; k+1, n-k)]``, with 0 and 1 at ``k = 0`` and ``k = n``;
      conservative (coverage >= ``ci``).
    * ``"wilson"``: the score interval ``(k + z^2/2) / (n + z^2) +- z / (n + z^2) *
      sqrt(k (n - k) / n + z^2 / 4)``; close to nominal coverage.
    * ``"jeffreys"``: equal-tailed interval of the ``Beta(k + 1/2, n - k + 1/2)`` posterior,
      with the lower bound set to 0 at ``k = 0`` and the upper to 1 at ``k = n`` (Brown, Cai &
      DasGupta 2001).

    Parameters
    ----------
    k : int or array of int
        Successes, ``0 <= k <= n``.
    n : int or array of int
        Trials, ``n >= 1``.
    method : {"clopper-pearson", "wilson", "jeffreys"}
        Interval construction.
    ci : float, optional
        Confidence level; default ``rcParams["stats.hdi_prob"]``.

    Returns
    -------
    tuple
        ``(lower, upper)``: floats for scalar input, arrays otherwise.

    Raises
    ------
    ValueError
        An unknown ``method``, counts that are not whole numbers, ``n < 1`` or ``k`` outside
        ``[0, n]``.
    TypeError
        Counts that are not integers (booleans, text).

    See Also
    --------
    bootstrap : A frequentist interval of any metric, by resampling.
    bayescm.summary : The Bayesian HDI of the same proportion, for comparison.
    bayescm.samplesize.beta_hdi : The HDI of a Beta posterior in closed form.

    Examples
    --------
    >>> from bayescm.analyses.frequentist import binomial_interval
    >>> [round(v, 4) for v in binomial_interval(26, 26 + 0)]
    [0.8677, 1.0]
    >>> [round(v, 4) for v in binomial_interval(7, 10, "wilson")]
    [0.3968, 0.8922]
    """
    if method not in BINOMIAL_METHODS:
        raise ValueError(f"Unknown method {method!r}; use one of {', '.join(BINOMIAL_METHODS)}.")
    ci = _check_ci(ci)
    k_arr, n_arr = np.asarray(k), np.asarray(n)
    for arr, name in ((k_arr, "k"), (n_arr, "n")):
        if arr.dtype == bool or arr.dtype.kind not in "iuf":
            raise TypeError(f"{name} must be an integer count, got {arr!r}.")
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise ValueError(f"{name} must be whole numbers, got {arr.tolist()}.")
    if np.any(n_arr < 1):
        raise ValueError(f"n must be >= 1, got {n_arr.tolist()}.")
    if np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise ValueError(f"k must satisfy 0 <= k <= n, got k={k_arr.tolist()}, n={n_arr.tolist()}.")
    k_f, n_f = np.broadcast_arrays(k_arr.astype(float), n_arr.astype(float))
    alpha = 1.0 - ci
    with np.errstate(divide="ignore", invalid="ignore"):
        if method == "clopper-pearson":
            lower = np.where(k_f > 0, special.betaincinv(k_f, n_f - k_f + 1, alpha / 2), 0.0)
            upper = np.where(k_f < n_f, special.betaincinv(k_f + 1, n_f - k_f, 1 - alpha / 2),
                             1.0)
        elif method == "wilson":
            z = stats.norm.ppf(1 - alpha / 2)
            z2 = z * z
            center = (k_f + z2 / 2) / (n_f + z2)
            half = z / (n_f + z2) * np.sqrt(k_f * (n_f - k_f) / n_f + z2 / 4)
            lower, upper = np.clip(center - half, 0, 1), np.clip(center + half, 0, 1)
        else:
            lower = np.where(k_f > 0, special.betaincinv(k_f + 0.5, n_f - k_f + 0.5, alpha / 2),
                             0.0)
            upper = np.where(k_f < n_f,
                             special.betaincinv(k_f + 0.5, n_f - k_f + 0.5, 1 - alpha / 2), 1.0)
    if lower.ndim == 0:
        return float(lower), float(upper)
    return lower, upper

