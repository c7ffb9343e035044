"""Multiclass metrics: overall, per-class (one-vs-rest) and averaged, as functions of ``theta``.

Every metric takes ``theta`` with the classes on the last two axes (rows true, columns
predicted) and any leading shape (chains, draws, classifiers), so the same function gives the
observed point estimate (``counts / N``), the posterior and the prior. ``theta`` need not sum to
one; every metric is invariant to its scale.

* **Overall**: ``acc``, ``err``, ``bacc`` (mean recall over the classes that occur, as
  scikit-learn), ``kappa`` (Cohen), ``mcc`` (Gorodkin's R_K); for ordered classes
  ``kappa_linear``, ``kappa_quadratic`` (Cohen's weighted Kappa with weights ``|i - j|`` and
  ``(i - j)^2``) and the distance-aware errors ``mae``, ``mse``, ``rmse`` (mean absolute / squared
  / root mean squared distance between true and predicted class positions).
* **Per class** (dim ``class``): the binary formulas of :data:`bayescm.metrics.BINARY_METRICS`
  applied to each class's one-vs-rest cells ``tp = theta[k, k]``, ``fn = row_k - tp``,
  ``fp = col_k - tp``, ``tn = total - row_k - col_k + tp``.
* **Averages** of the per-class rates: ``<metric>_macro`` (plain mean over classes),
  ``<metric>_weighted`` (weighted by the true-class prevalence) and ``<metric>_micro`` (the binary
  formula on the one-vs-rest cells *pooled* over classes, i.e. true micro averaging; for
  single-label data ``tpr_micro = ppv_micro = f1_micro = acc``).

Undefined values: a per-class value that is 0/0 (e.g. the TPR of a class that never occurs, the
PPV of a class that is never predicted) is NaN. Macro and weighted averages **skip** such classes
(weights renormalised over the classes where the metric is defined, as scikit-learn does with
``zero_division=np.nan``); they are NaN only when no class defines the metric. Posterior draws
are never 0/0, since every Dirichlet draw is strictly positive, so the posterior averages leave
out the same classes as the observed ones: those where the metric is undefined *at the observed
counts* (:func:`undefined_classes`), metric by metric.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np

from bayescm.metrics.binary import BINARY_METRICS
from bayescm.metrics.metric import Metric, short_label

__all__ = [
    "AVERAGED",
    "MULTICLASS_METRICS",
    "ORDERED_ONLY",
    "PER_CLASS",
    "OneVsRest",
    "undefined_classes",
    "weighted_kappa",
]


class OneVsRest:
    """Marginals and one-vs-rest cells of ``theta[..., true, pred]``, computed once.

    Parameters
    ----------
    theta : array-like, shape (..., K, K)
        Confusion probabilities or counts (rows true, columns predicted).

    Examples
    --------
    >>> from bayescm.metrics.multiclass import OneVsRest
    >>> cells = OneVsRest([[3, 1, 0], [1, 2, 1], [0, 0, 2]])
    >>> [c.tolist() for c in cells.ovr]
    [[3.0, 2.0, 2.0], [1.0, 2.0, 0.0], [1.0, 1.0, 1.0], [5.0, 5.0, 7.0]]
    """

    __slots__ = ("_cache", "_ovr", "diag", "pred", "skip", "theta", "total", "true")

    def __init__(self, theta: Any) -> None:
        self.theta = np.asarray(theta, dtype=float)
        if self.theta.ndim < 2 or self.theta.shape[-1] != self.theta.shape[-2]:
            raise ValueError(f"theta must have shape (..., K, K), got {self.theta.shape}.")
        self.diag = np.diagonal(self.theta, axis1=-2, axis2=-1)
        self.true = np.einsum("...ij->...i", self.theta)
        self.pred = np.einsum("...ij->...j", self.theta)
        self.total = _sum(self.true)
        self._ovr: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None
        self._cache: dict[str, np.ndarray] = {}
        self.skip: np.ndarray | dict[str, np.ndarray] | None = None  # left out of averages

    @property
    def ovr(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per-class one-vs-rest cells ``(tp, fn, fp, tn)``, each of shape ``(..., K)``."""
        if self._ovr is None:
            tp = self.diag
            tn = self.total[..., None] - self.true - self.pred + tp
            # the subtraction leaves ~1e-17 where the true negatives are exactly none (all
            # predictions in one class): snap those to 0, so 0/0 stays NaN and never tiny/tiny
            tn = np.where(np.abs(tn) <= 16 * np.finfo(float).eps * np.abs(
                self.total[..., None]), 0.0, tn)
            self._ovr = (tp, self.true - tp, self.pred - tp, tn)
        return self._ovr

    @property
    def pooled(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The one-vs-rest cells summed over classes (micro averaging), each of shape ``(...)``."""
        if "_pooled" not in self._cache:
            self._cache["_pooled"] = np.stack([_sum(c) for c in self.ovr])
        return tuple(self._cache["_pooled"])

    def per_class(self, name: str) -> np.ndarray:
        """The binary metric ``name`` on every class's one-vs-rest cells (cached)."""
        if name not in self._cache:
            self._cache[name] = np.asarray(BINARY_METRICS[name].func(*self.ovr), dtype=float)
        return self._cache[name]

    def averaged(self, name: str) -> np.ndarray:
        """``per_class(name)`` with NaN for the classes ``skip`` leaves out of its averages.

        ``skip`` is a mapping ``{metric: (..., K) bool}`` (see :func:`undefined_classes`: the
        classes where the metric is undefined at the observed counts) or one ``(..., K)``
        mask for every metric.
        """
        values = self.per_class(name)
        mask = self.skip.get(name) if isinstance(self.skip, dict) else self.skip
        if mask is None:
            return values
        return np.where(np.broadcast_to(mask, values.shape), np.nan, values)


def undefined_classes(counts: Any) -> dict[str, np.ndarray]:
    """Per averaged metric, the classes where it is undefined (0/0) at the observed counts.

    The one rule of the averages: a class whose per-class value is defined at the observed
    counts is in both the observed and the posterior average; a class where it is undefined
    is in neither (scikit-learn's ``zero_division=np.nan``). A class with no test items but
    some predictions has an undefined recall (0/0) but a PPV and an F1 of 0, so it is left out
    of ``tpr_macro`` and kept in ``ppv_macro`` and ``f1_macro``; a class never predicted is
    left out of ``ppv_macro``. Posterior draws are never 0/0, so without this mask the
    posterior would average over other classes than the observed value.

    Parameters
    ----------
    counts : array-like, shape (..., K, K)
        The observed counts.

    Returns
    -------
    dict of str -> ndarray of bool, shape (..., K)
        Only metrics with some undefined class are listed.

    Examples
    --------
    >>> from bayescm.metrics.multiclass import undefined_classes
    >>> masks = undefined_classes([[10, 2, 1], [0, 0, 0], [1, 2, 8]])
    >>> masks["tpr"].tolist(), "ppv" in masks, "f1" in masks
    ([False, True, False], False, False)
    """
    cells = OneVsRest(counts)
    out = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for name in AVERAGED:
            mask = np.isnan(cells.per_class(name))
            if mask.any():
                out[name] = mask
    return out


def _sum(x: np.ndarray) -> np.ndarray:
    """Sum over the last axis (einsum: several times faster than ``sum`` for short axes)."""
    return np.einsum("...k->...", x)


def _cells(theta: Any) -> OneVsRest:
    return theta if isinstance(theta, OneVsRest) else OneVsRest(theta)


def _nan_average(values: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Average over the last axis skipping NaN (weights renormalised); NaN if nothing is left."""
    with np.errstate(divide="ignore", invalid="ignore"):
        if not np.isnan(values).any():
            if weights is None:
                return _sum(values) / values.shape[-1]
            return np.einsum("...k,...k->...", values, weights) / _sum(weights)
        defined = ~np.isnan(values)
        w = defined.astype(float) if weights is None else np.where(defined, weights, 0.0)
        return _sum(np.where(defined, values, 0.0) * w) / _sum(w)


def _distance(k: int, power: int) -> np.ndarray:
    idx = np.arange(k, dtype=float)
    return np.abs(idx[:, None] - idx[None, :]) ** power


def weighted_kappa(theta: Any, weights: str | None = None) -> np.ndarray:
    r"""Cohen's (weighted) Kappa of ``theta[..., true, pred]``.

    .. math:: \kappa_w = 1 - \frac{\sum_{ij} w_{ij} \theta_{ij} / s}
                                  {\sum_{ij} w_{ij} r_i c_j / s^2}

    with row sums ``r``, column sums ``c``, total ``s`` and disagreement weights
    ``w_ij = 1 - [i = j]`` (``weights=None``, Cohen's Kappa), ``|i - j|`` (``"linear"``) or
    ``(i - j)^2`` (``"quadratic"``), as in Cohen (1968) and scikit-learn's
    ``cohen_kappa_score``. NaN when the expected disagreement is 0 (both raters put everything
    in one class).

    Parameters
    ----------
    theta : array-like, shape (..., K, K)
        Confusion probabilities or counts.
    weights : {None, "linear", "quadratic"}
        Disagreement weights.

    Returns
    -------
    ndarray of shape ``theta.shape[:-2]``

    Examples
    --------
    >>> from bayescm.metrics.multiclass import weighted_kappa
    >>> round(float(weighted_kappa([[20, 5], [10, 15]])), 2)
    0.4
    """
    cells = _cells(theta)
    with np.errstate(divide="ignore", invalid="ignore"):
        if weights is None:
            observed = 1.0 - _sum(cells.diag) / cells.total
            expected = 1.0 - _dot(cells.true, cells.pred) / cells.total**2
        elif weights in ("linear", "quadratic"):
            w = _distance(cells.theta.shape[-1], 1 if weights == "linear" else 2)
            observed = np.einsum("...ij,ij->...", cells.theta, w) / cells.total
            expected = _dot(cells.true @ w, cells.pred) / cells.total**2
        else:
            raise ValueError(f"weights must be None, 'linear' or 'quadratic', got {weights!r}.")
        return 1.0 - observed / expected


def _dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.einsum("...k,...k->...", a, b)


def _acc(theta: Any) -> np.ndarray:
    c = _cells(theta)
    return _sum(c.diag) / c.total


def _bacc(theta: Any) -> np.ndarray:
    return _nan_average(_cells(theta).averaged("tpr"))  # mean recall of the classes present


def _mcc(theta: Any) -> np.ndarray:
    """Gorodkin's R_K (the multiclass Matthews correlation coefficient)."""
    c = _cells(theta)
    s = c.total
    cov_tp = _sum(c.diag) * s - _dot(c.true, c.pred)
    cov_pp = s * s - _dot(c.pred, c.pred)
    cov_tt = s * s - _dot(c.true, c.true)
    den = cov_pp * cov_tt
    # scikit-learn's convention: 0 when all samples are in one true or one predicted class
    return np.where((den == 0) & (s > 0), 0.0, cov_tp / np.sqrt(den))


def _mean_distance(power: int, root: bool = False) -> Callable[[Any], np.ndarray]:
    def func(theta: Any) -> np.ndarray:
        c = _cells(theta)
        value = np.einsum("...ij,ij->...", c.theta, _distance(c.theta.shape[-1], power)) / c.total
        return np.sqrt(value) if root else value

    return func


def _per_class(name: str) -> Callable[[Any], np.ndarray]:
    def func(theta: Any) -> np.ndarray:
        return _cells(theta).per_class(name)

    return func


def _share(axis: str) -> Callable[[Any], np.ndarray]:
    def func(theta: Any) -> np.ndarray:
        c = _cells(theta)
        return getattr(c, axis) / c.total[..., None]

    return func


def _macro(name: str) -> Callable[[Any], np.ndarray]:
    def func(theta: Any) -> np.ndarray:
        return _nan_average(_cells(theta).averaged(name))

    return func


def _weighted(name: str) -> Callable[[Any], np.ndarray]:
    def func(theta: Any) -> np.ndarray:
        c = _cells(theta)
        return _nan_average(c.averaged(name), c.true)

    return func


def _micro(name: str) -> Callable[[Any], np.ndarray]:
    binary = BINARY_METRICS[name].func

    def func(theta: Any) -> np.ndarray:
        return binary(*_cells(theta).pooled)

    return func


PER_CLASS = ("prevalence", "bias", "tpr", "tnr", "ppv", "npv", "fnr", "fpr", "fdr", "for", "f1",
             "bm", "mk", "jaccard")
"""Per-class (one-vs-rest) metrics, named as in the binary catalogue."""

AVERAGED = ("tpr", "tnr", "ppv", "npv", "fnr", "fpr", "fdr", "for", "f1", "bm", "mk", "jaccard")
"""Per-class metrics that also get ``_macro``, ``_weighted`` and ``_micro`` averages."""

ORDERED_ONLY = ("kappa_linear", "kappa_quadratic", "mae", "mse", "rmse")
"""Metrics that need ordered classes (``ConfusionMatrix(..., ordered=True)``)."""

_SKIP = "classes where it is undefined (0/0) are skipped"
_AVERAGE_TEXT = {
    "macro": f"macro average over classes ({_SKIP})",
    "weighted": f"average weighted by true-class prevalence ({_SKIP}, weights renormalised)",
    "micro": "micro average (one-vs-rest counts pooled over classes)",
}


def _overall() -> list[Metric]:
    def m(name: str, func: Callable[[Any], np.ndarray], long_name: str,
          aliases: tuple[str, ...] = (), higher: bool | None = True, undefined: str = "", *,
          display: str, scale: str = "proportion") -> Metric:
        # "(ordered classes)" is a condition of use, not part of an axis label
        return Metric(name, func, long_name, aliases, higher, "multiclass", undefined,
                      display_name=display, scale=scale,
                      label=short_label(long_name.replace(" (ordered classes)", "")))

    return [
        m("acc", _acc, "accuracy", ("accuracy",), display="Accuracy"),
        m("err", lambda t: 1.0 - _acc(t), "error rate (1 - accuracy)",
          ("error_rate", "misclassification_rate", "error"), False, display="Error rate"),
        m("bacc", _bacc, f"balanced accuracy (mean recall; {_SKIP})",
          ("balanced_accuracy", "balanced_accuracy_score"), True, "NaN when no class occurs",
          display="Balanced accuracy"),
        m("kappa", lambda t: weighted_kappa(t), "Cohen's kappa",
          ("cohen_kappa", "cohens_kappa", "cohen_kappa_score"), True,
          "NaN when both raters put everything in one class", display="Kappa", scale="signed"),
        m("mcc", _mcc, "Matthews correlation coefficient (Gorodkin's R_K)",
          ("matthews_corrcoef", "matthews", "r_k", "rk", "gorodkin"), True,
          "0 when all samples are in one true class or one predicted class (scikit-learn's "
          "convention); NaN without samples", display="MCC", scale="signed"),
        m("kappa_linear", lambda t: weighted_kappa(t, "linear"),
          "linearly weighted kappa (ordered classes)",
          ("linear_kappa", "weighted_kappa_linear", "cohen_kappa_linear"), True,
          "NaN when the expected disagreement is 0", display="Linear kappa", scale="signed"),
        m("kappa_quadratic", lambda t: weighted_kappa(t, "quadratic"),
          "quadratically weighted kappa (ordered classes)",
          ("quadratic_kappa", "weighted_kappa_quadratic", "cohen_kappa_quadratic", "qwk"), True,
          "NaN when the expected disagreement is 0", display="Quadratic kappa",
          scale="signed"),
        m("mae", _mean_distance(1), "mean absolute class distance |true - predicted| "
          "(ordered classes)", ("mean_absolute_error",), False, display="MAE",
          scale="nonnegative"),
        m("mse", _mean_distance(2), "mean squared class distance (ordered classes)",
          ("mean_squared_error",), False, display="MSE", scale="nonnegative"),
        m("rmse", _mean_distance(2, root=True), "root mean squared class distance "
          "(ordered classes)", ("root_mean_squared_error",), False, display="RMSE",
          scale="nonnegative"),
    ]


def _plain(long_name: str) -> str:
    """A long name without its remark in parentheses: ``'true positive rate'``."""
    return re.sub(r"\s*\(.*\)$", "", long_name)


def _catalogue() -> dict[str, Metric]:
    out = {m.name: m for m in _overall()}
    for name in PER_CLASS:
        b = BINARY_METRICS[name]
        func, long_name = _per_class(name), f"{b.long_name}, per class (one-vs-rest)"
        if name == "prevalence":
            func, long_name = _share("true"), "prevalence (share of each true class)"
        elif name == "bias":
            func, long_name = _share("pred"), "bias (share of each predicted class)"
        out[name] = Metric(name, func, long_name, b.aliases, b.higher_is_better, "per_class",
                           b.undefined, display_name=b.display_name, scale=b.scale,
                           support=b.support, reference=b.reference,
                           label="" if name in ("prevalence", "bias") else b.label)
    makers = {"macro": _macro, "weighted": _weighted, "micro": _micro}
    for name in AVERAGED:
        b = BINARY_METRICS[name]
        for avg, maker in makers.items():
            aliases = tuple(f"{a}_{avg}" for a in b.aliases) + tuple(
                f"{avg}_{a}" for a in (name, *b.aliases))
            undefined = ("NaN when no class defines it" if avg != "micro" else
                         "NaN when the pooled cells are 0/0")
            out[f"{name}_{avg}"] = Metric(
                f"{name}_{avg}", maker(name), f"{b.long_name}, {_AVERAGE_TEXT[avg]}", aliases,
                b.higher_is_better, "multiclass", undefined,
                display_name=f"{b.display_name} ({avg})", scale=b.scale, support=b.support,
                reference=b.reference, label=f"{_plain(b.long_name)} ({avg})")
    return out


MULTICLASS_METRICS: dict[str, Metric] = _catalogue()
"""The built-in multiclass metrics, by short name (ordered-only ones included)."""
