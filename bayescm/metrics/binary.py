"""The binary catalogue: every metric a vectorised function of the four cell probabilities.

Binary metrics take the cells ``tp, fn, fp, tn`` (arrays of any shape that sum to one), so the
same function gives the observed point estimate (``counts / N``), the posterior, the prior and
the posterior predictive.

Undefined values follow IEEE arithmetic and are documented per metric: ``0/0`` (e.g. the PPV of a
classifier that never predicts the positive class) is **NaN, meaning "undefined"**; a positive
number divided by zero (e.g. LR+ with no false positives) is **+inf, meaning "unbounded"**.
Posterior draws almost never hit either, since a Beta draw is never exactly 0 or 1 in practice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from bayescm.core.arguments import keyword_checked
from bayescm.metrics.metric import Metric

__all__ = ["BINARY_METRICS", "fbeta"]


def _safe(num: Any, den: Any) -> Any:
    return num / den


def _mean_defined(a: Any, b: Any) -> Any:
    """The mean of two rates, or the one that is defined (scikit-learn's balanced accuracy)."""
    mean = 0.5 * (a + b)
    if not np.isnan(mean).any():  # the usual case: no rate undefined, nothing to replace
        return np.asarray(mean)
    return np.where(np.isnan(a), b, np.where(np.isnan(b), a, mean))


def _mcc(tp: Any, fn: Any, fp: Any, tn: Any) -> Any:
    """MCC, 0 where a row or column is empty (scikit-learn), NaN without samples."""
    den = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    value = _safe(tp * tn - fp * fn, np.sqrt(den))
    empty = den == 0
    if not empty.any():  # posterior draws: no margin is ever exactly 0
        return np.asarray(value)
    return np.where(empty & (tp + fn + fp + tn > 0), 0.0, value)


def _pt(tp: Any, fn: Any, fp: Any, tn: Any) -> Any:
    """Prevalence threshold ``(sqrt(TPR FPR) - FPR) / (TPR - FPR)``."""
    tpr, fpr = _safe(tp, tp + fn), _safe(fp, tn + fp)
    return _safe(np.sqrt(tpr * fpr) - fpr, tpr - fpr)


@keyword_checked
def fbeta(beta: float, name: str | None = None) -> Metric:
    """The F-beta score for any ``beta > 0`` as a binary :class:`Metric`.

    ``F_beta = (1 + beta^2) TP / ((1 + beta^2) TP + beta^2 FN + FP)``; beta > 1 weighs recall
    more, beta < 1 precision. Undefined (NaN) when TP = FN = FP = 0.

    Parameters
    ----------
    beta : float
        How many times more recall counts than precision (> 0); 1 gives F1.
    name : str, optional
        Name of the metric in results; default ``f<beta>`` (``"f3"``, ``"f0.5"``).

    Returns
    -------
    Metric
        A binary metric, ready for ``bcm.fit(..., metrics=[...])``.

    Raises
    ------
    ValueError
        ``beta`` that is not a positive finite number.

    See Also
    --------
    Metric : Any metric of the cells, written as a function.
    list_metrics : The built-in metrics, F1 and F0.5 among them.
    bayescm.fit : Computes the posterior of the metric (``metrics=[...]``).

    Examples
    --------
    >>> import bayescm as bcm
    >>> f3 = bcm.metrics.fbeta(3)
    >>> f3.name, f3.display_name, round(float(f3(0.4, 0.1, 0.1, 0.4)), 4)
    ('f3', 'F3', 0.8)
    """
    beta = float(beta)
    if not np.isfinite(beta) or beta <= 0:
        raise ValueError(f"beta must be a positive finite number, got {beta}.")
    given_name = name
    b2 = beta * beta
    label = f"{beta:g}"
    default = "f" + label.replace(".", "")
    metric = Metric(
        name or default,
        lambda tp, fn, fp, tn: _safe((1 + b2) * tp, (1 + b2) * tp + b2 * fn + fp),
        long_name=f"F-beta score (beta = {label})",
        aliases=(f"f{label}", f"f_{label}", f"fbeta_{label}", f"f{label}_score"),
        undefined="NaN when TP = FN = FP = 0",
        display_name=f"F{label}",
        scale="proportion",
    )
    object.__setattr__(metric, "_recipe", (fbeta, (beta, given_name)))
    return metric


def _m(name: str, func: Callable[..., Any], long_name: str, aliases: Sequence[str] = (),
       higher: bool | None = True, undefined: str = "", display: str | None = None,
       scale: str = "proportion") -> Metric:
    return Metric(name, func, long_name, tuple(aliases), higher, "binary", undefined,
                  display_name=display or name.upper(), scale=scale)


_BINARY = [
    _m("prevalence", lambda tp, fn, fp, tn: tp + fn, "prevalence (share of actual positives)",
       ["prev", "base_rate"], None, display="Prevalence"),
    _m("bias", lambda tp, fn, fp, tn: tp + fp, "bias (predicted positive rate)",
       ["predicted_positive_rate", "ppr", "detection_prevalence"], None, display="Bias"),
    _m("tpr", lambda tp, fn, fp, tn: _safe(tp, tp + fn), "true positive rate (sensitivity)",
       ["sensitivity", "recall", "hit_rate", "true_positive_rate"], True,
       "NaN without positive samples"),
    _m("tnr", lambda tp, fn, fp, tn: _safe(tn, tn + fp), "true negative rate (specificity)",
       ["specificity", "selectivity", "true_negative_rate"], True,
       "NaN without negative samples"),
    _m("ppv", lambda tp, fn, fp, tn: _safe(tp, tp + fp), "positive predictive value (precision)",
       ["precision", "positive_predictive_value"], True, "NaN when nothing is predicted positive"),
    _m("npv", lambda tp, fn, fp, tn: _safe(tn, tn + fn), "negative predictive value",
       ["negative_predictive_value"], True, "NaN when nothing is predicted negative"),
    _m("fnr", lambda tp, fn, fp, tn: _safe(fn, tp + fn), "false negative rate (miss rate)",
       ["miss_rate", "false_negative_rate"], False, "NaN without positive samples"),
    _m("fpr", lambda tp, fn, fp, tn: _safe(fp, tn + fp), "false positive rate (fall-out)",
       ["fall_out", "fallout", "false_positive_rate"], False, "NaN without negative samples"),
    _m("fdr", lambda tp, fn, fp, tn: _safe(fp, tp + fp), "false discovery rate",
       ["false_discovery_rate"], False, "NaN when nothing is predicted positive"),
    _m("for", lambda tp, fn, fp, tn: _safe(fn, tn + fn), "false omission rate",
       ["false_omission_rate", "for_"], False, "NaN when nothing is predicted negative"),
    _m("acc", lambda tp, fn, fp, tn: tp + tn, "accuracy", ["accuracy"], True,
       display="Accuracy"),
    _m("err", lambda tp, fn, fp, tn: fn + fp, "error rate (1 - accuracy)",
       ["error_rate", "misclassification_rate", "error"], False, display="Error rate"),
    _m("bacc", lambda tp, fn, fp, tn: _mean_defined(_safe(tp, tp + fn), _safe(tn, tn + fp)),
       "balanced accuracy", ["balanced_accuracy"], True,
       "the recall of the class present when the other is absent (scikit-learn's convention: "
       "absent classes are skipped); NaN without samples", display="Balanced accuracy"),
    _m("f1", lambda tp, fn, fp, tn: _safe(2 * tp, 2 * tp + fn + fp), "F1 score",
       ["f1_score", "f_measure", "f_score", "dice", "sorensen_dice"], True,
       "NaN when TP = FN = FP = 0"),
    fbeta(0.5, "f05"),
    fbeta(2, "f2"),
    _m("mcc", _mcc,
       "Matthews correlation coefficient", ["matthews_corrcoef", "matthews", "phi_coefficient"],
       True, "0 when a row or column of the matrix is empty (scikit-learn's convention: no "
             "association can be measured); NaN without samples", scale="signed"),
    _m("bm", lambda tp, fn, fp, tn: _safe(tp, tp + fn) + _safe(tn, tn + fp) - 1,
       "bookmaker informedness (TPR + TNR - 1)",
       ["informedness", "bookmaker_informedness", "youden", "youden_j", "youdens_j"], True,
       "NaN when a class is absent", scale="signed"),
    _m("mk", lambda tp, fn, fp, tn: _safe(tp, tp + fp) + _safe(tn, tn + fn) - 1,
       "markedness (PPV + NPV - 1)", ["markedness", "delta_p"], True,
       "NaN when a predicted class is empty", scale="signed"),
    _m("kappa",
       lambda tp, fn, fp, tn: _safe(2 * (tp * tn - fn * fp),
                                    (tp + fp) * (fp + tn) + (tp + fn) * (fn + tn)),
       "Cohen's kappa", ["cohen_kappa", "cohens_kappa", "cohen_kappa_score"], True,
       "NaN when both raters put everything in one class", display="Kappa", scale="signed"),
    _m("lr_plus", lambda tp, fn, fp, tn: _safe(tp * (tn + fp), fp * (tp + fn)),
       "positive likelihood ratio (TPR / FPR)",
       ["positive_likelihood_ratio", "lr+", "plr", "lrp"], True,
       "+inf when FPR = 0 < TPR; NaN when TPR = FPR = 0 or a class is absent",
       display="LR+", scale="ratio"),
    _m("lr_minus", lambda tp, fn, fp, tn: _safe(fn * (tn + fp), tn * (tp + fn)),
       "negative likelihood ratio (FNR / TNR)",
       ["negative_likelihood_ratio", "lr-", "nlr", "lrn"], False,
       "+inf when TNR = 0 < FNR; NaN when FNR = TNR = 0 or a class is absent",
       display="LR−", scale="ratio"),
    _m("dor", lambda tp, fn, fp, tn: _safe(tp * tn, fp * fn), "diagnostic odds ratio",
       ["diagnostic_odds_ratio"], True, "+inf when FP or FN is 0; NaN for 0/0", scale="ratio"),
    _m("jaccard", lambda tp, fn, fp, tn: _safe(tp, tp + fn + fp),
       "Jaccard index (threat score, critical success index)",
       ["threat_score", "critical_success_index", "csi", "ts", "jaccard_index", "iou"], True,
       "NaN when TP = FN = FP = 0", display="Jaccard"),
    _m("fm", lambda tp, fn, fp, tn: _safe(tp, np.sqrt((tp + fp) * (tp + fn))),
       "Fowlkes-Mallows index (sqrt(PPV * TPR))",
       ["fowlkes_mallows", "fowlkes_mallows_index", "fmi"], True,
       "NaN when nothing is predicted positive or there are no positives",
       display="Fowlkes-Mallows"),
    _m("pt", _pt, "prevalence threshold", ["prevalence_threshold"], None,
       "NaN when TPR = FPR or a class is absent", display="Prevalence threshold"),
    _m("gmean", lambda tp, fn, fp, tn: np.sqrt(_safe(tp, tp + fn) * _safe(tn, tn + fp)),
       "geometric mean of TPR and TNR", ["g_mean", "geometric_mean"], True,
       "NaN when a class is absent", display="G-mean"),
]

BINARY_METRICS: dict[str, Metric] = {m.name: m for m in _BINARY}
"""The built-in binary metrics, by short name."""
