"""The metric catalogue: every metric is a vectorised function of the confusion probabilities.

Binary metrics take the four cell probabilities ``tp, fn, fp, tn`` (arrays of any shape that sum
to one), so the same function gives the observed point estimate (``counts / N``), the posterior,
the prior and the posterior predictive. Metrics of multiclass matrices take ``theta`` with the
classes on the last two axes (rows true, columns predicted).

Undefined values follow IEEE arithmetic and are documented per metric: ``0/0`` (e.g. the PPV of a
classifier that never predicts the positive class) is **NaN, meaning "undefined"**; a positive
number divided by zero (e.g. LR+ with no false positives) is **+inf, meaning "unbounded"**.
Posterior draws almost never hit either, since a Beta draw is never exactly 0 or 1 in practice.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from bayescm.core.validate import keyword_checked

__all__ = ["Metric", "BINARY_METRICS", "canonical_name", "resolve_metrics", "fbeta", "list_metrics"]

_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
RESERVED = frozenset({"chain", "draw", "classifier", "true_class", "pred_class", "class",
                      "diagnostic", "theta", "counts", "rates"})


@dataclass(frozen=True)
class Metric:
    """A named classification metric.

    Parameters
    ----------
    name : str
        Short identifier used as the result's variable name (letters, digits, underscores).
    func : callable
        For ``kind="binary"``: ``func(tp, fn, fp, tn) -> array`` on cell probabilities.
        For ``kind="multiclass"``: ``func(theta) -> array`` with ``theta[..., true, pred]``;
        ``kind="per_class"`` returns an extra trailing class axis.
    long_name : str, optional
        Human-readable name (stored as the variable's ``long_name``).
    aliases : tuple of str
        Other names accepted wherever a metric is named.
    higher_is_better : bool or None
        Direction for comparisons; None for descriptive quantities (prevalence, bias).
    kind : {"binary", "multiclass", "per_class"}
        What ``func`` takes and returns.
    undefined : str
        When the metric is undefined (NaN) or unbounded (inf).

    Examples
    --------
    A metric the catalogue lacks, the net benefit at a 10 % threshold probability:

    >>> import bayescm as bcm
    >>> nb = bcm.Metric("net_benefit", lambda tp, fn, fp, tn: tp - fp * 0.1 / 0.9,
    ...                 long_name="net benefit at p_t = 0.1")
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    >>> idata = bcm.fit(cm, metrics=["tpr", nb], random_seed=0)
    >>> "net_benefit" in idata["posterior"]
    True
    """

    name: str
    func: Callable[..., Any] = field(repr=False, compare=False)  # same name and meta: equal
    long_name: str = ""
    aliases: tuple[str, ...] = ()
    higher_is_better: bool | None = True
    kind: str = "binary"
    undefined: str = ""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not _NAME_RE.match(self.name):
            raise ValueError(
                f"Metric name {self.name!r} must be an identifier (letters, digits, underscores)."
            )
        if self.name in RESERVED:
            raise ValueError(f"Metric name {self.name!r} is reserved for a dimension or variable.")
        if not callable(self.func):
            raise TypeError(f"Metric {self.name!r}: func must be callable, got {self.func!r}.")
        if self.kind not in {"binary", "multiclass", "per_class"}:
            raise ValueError(f"Metric kind must be binary, multiclass or per_class: {self.kind!r}")
        if not self.long_name:
            object.__setattr__(self, "long_name", self.name)

    def __reduce__(self) -> tuple[Any, ...]:
        # built-in metrics hold lambdas: they travel as a reference to their catalogue entry
        recipe = self.__dict__.get("_recipe")
        if recipe is not None:
            return recipe
        import pickle

        try:
            pickle.dumps(self.func)
        except Exception:
            raise TypeError(
                f"The custom metric {self.name!r} cannot be pickled (copied to another process) "
                "because its function is a lambda or a local function; define the function at "
                "the top level of a module and pass that instead.") from None
        return (Metric, (self.name, self.func, self.long_name, self.aliases,
                         self.higher_is_better, self.kind, self.undefined))

    def __call__(self, *args: Any) -> np.ndarray:
        """Evaluate the metric, with 0/0 -> NaN and x/0 -> inf and no floating-point warnings.

        Plain Python numbers are accepted (they are turned into float arrays first, so 1 / 0
        is inf, not a ZeroDivisionError).
        """
        args = tuple(a if isinstance(a, np.ndarray) or hasattr(a, "ovr") else
                     np.asarray(a, dtype=float) for a in args)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return np.asarray(self.func(*args), dtype=float)


def _safe(num: Any, den: Any) -> Any:
    return num / den


def _mean_defined(a: Any, b: Any) -> Any:
    """The mean of two rates, or the one that is defined (scikit-learn's balanced accuracy)."""
    return np.where(np.isnan(a), b, np.where(np.isnan(b), a, 0.5 * (a + b)))


def _mcc(tp: Any, fn: Any, fp: Any, tn: Any) -> Any:
    """MCC, 0 where a row or column is empty (scikit-learn), NaN without samples."""
    den = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    value = _safe(tp * tn - fp * fn, np.sqrt(den))
    return np.where((den == 0) & (tp + fn + fp + tn > 0), 0.0, value)


@keyword_checked
def fbeta(beta: float, name: str | None = None) -> Metric:
    """The F-beta score for any ``beta > 0`` as a binary :class:`Metric`.

    ``F_beta = (1 + beta^2) TP / ((1 + beta^2) TP + beta^2 FN + FP)``; beta > 1 weighs recall
    more, beta < 1 precision. Undefined (NaN) when TP = FN = FP = 0.

    Examples
    --------
    >>> import bayescm as bcm
    >>> f3 = bcm.metrics.fbeta(3)
    >>> f3.name, round(float(f3(0.4, 0.1, 0.1, 0.4)), 4)
    ('f3', 0.8)
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
    )
    object.__setattr__(metric, "_recipe", (fbeta, (beta, given_name)))
    return metric


def _m(name: str, func: Callable[..., Any], long_name: str, aliases: Sequence[str] = (),
       higher: bool | None = True, undefined: str = "") -> Metric:
    return Metric(name, func, long_name, tuple(aliases), higher, "binary", undefined)


_BINARY = [
    _m("prevalence", lambda tp, fn, fp, tn: tp + fn, "prevalence (share of true positives)",
       ["prev", "base_rate"], None),
    _m("bias", lambda tp, fn, fp, tn: tp + fp, "bias (predicted positive rate)",
       ["predicted_positive_rate", "ppr", "detection_prevalence"], None),
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
    _m("acc", lambda tp, fn, fp, tn: tp + tn, "accuracy", ["accuracy"], True),
    _m("err", lambda tp, fn, fp, tn: fn + fp, "error rate (1 - accuracy)",
       ["error_rate", "misclassification_rate", "error"], False),
    _m("bacc", lambda tp, fn, fp, tn: _mean_defined(_safe(tp, tp + fn), _safe(tn, tn + fp)),
       "balanced accuracy", ["balanced_accuracy"], True,
       "the recall of the class present when the other is absent (scikit-learn's convention: "
       "absent classes are skipped); NaN without samples"),
    _m("f1", lambda tp, fn, fp, tn: _safe(2 * tp, 2 * tp + fn + fp), "F1 score",
       ["f1_score", "f_measure", "f_score", "dice", "sorensen_dice"], True,
       "NaN when TP = FN = FP = 0"),
    fbeta(0.5, "f05"),
    fbeta(2, "f2"),
    _m("mcc", _mcc,
       "Matthews correlation coefficient", ["matthews_corrcoef", "matthews", "phi_coefficient"],
       True, "0 when a row or column of the matrix is empty (scikit-learn's convention: no "
             "association can be measured); NaN without samples"),
    _m("bm", lambda tp, fn, fp, tn: _safe(tp, tp + fn) + _safe(tn, tn + fp) - 1,
       "bookmaker informedness (TPR + TNR - 1)",
       ["informedness", "bookmaker_informedness", "youden", "youden_j", "youdens_j"], True,
       "NaN when a class is absent"),
    _m("mk", lambda tp, fn, fp, tn: _safe(tp, tp + fp) + _safe(tn, tn + fn) - 1,
       "markedness (PPV + NPV - 1)", ["markedness", "delta_p"], True,
       "NaN when a predicted class is empty"),
    _m("kappa",
       lambda tp, fn, fp, tn: _safe(2 * (tp * tn - fn * fp),
                                    (tp + fp) * (fp + tn) + (tp + fn) * (fn + tn)),
       "Cohen's kappa", ["cohen_kappa", "cohens_kappa", "cohen_kappa_score"], True,
       "NaN when both raters put everything in one class"),
    _m("lr_plus", lambda tp, fn, fp, tn: _safe(tp * (tn + fp), fp * (tp + fn)),
       "positive likelihood ratio (TPR / FPR)",
       ["positive_likelihood_ratio", "lr+", "plr", "lrp"], True,
       "+inf when FPR = 0 < TPR; NaN when TPR = FPR = 0 or a class is absent"),
    _m("lr_minus", lambda tp, fn, fp, tn: _safe(fn * (tn + fp), tn * (tp + fn)),
       "negative likelihood ratio (FNR / TNR)",
       ["negative_likelihood_ratio", "lr-", "nlr", "lrn"], False,
       "+inf when TNR = 0 < FNR; NaN when FNR = TNR = 0 or a class is absent"),
    _m("dor", lambda tp, fn, fp, tn: _safe(tp * tn, fp * fn), "diagnostic odds ratio",
       ["diagnostic_odds_ratio"], True, "+inf when FP or FN is 0; NaN for 0/0"),
    _m("jaccard", lambda tp, fn, fp, tn: _safe(tp, tp + fn + fp),
       "Jaccard index (threat score, critical success index)",
       ["threat_score", "critical_success_index", "csi", "ts", "jaccard_index", "iou"], True,
       "NaN when TP = FN = FP = 0"),
    _m("fm", lambda tp, fn, fp, tn: _safe(tp, np.sqrt((tp + fp) * (tp + fn))),
       "Fowlkes-Mallows index (sqrt(PPV * TPR))",
       ["fowlkes_mallows", "fowlkes_mallows_index", "fmi"], True,
       "NaN when nothing is predicted positive or there are no positives"),
    _m("pt",
       lambda tp, fn, fp, tn: _safe(
           np.sqrt(_safe(tp, tp + fn) * _safe(fp, tn + fp)) - _safe(fp, tn + fp),
           _safe(tp, tp + fn) - _safe(fp, tn + fp)),
       "prevalence threshold", ["prevalence_threshold"], None,
       "NaN when TPR = FPR or a class is absent"),
    _m("gmean", lambda tp, fn, fp, tn: np.sqrt(_safe(tp, tp + fn) * _safe(tn, tn + fp)),
       "geometric mean of TPR and TNR", ["g_mean", "geometric_mean"], True,
       "NaN when a class is absent"),
]

BINARY_METRICS: dict[str, Metric] = {m.name: m for m in _BINARY}
"""The built-in binary metrics, by short name."""


def builtin_metric(kind: str, name: str) -> Metric:
    """The catalogue entry ``name`` of ``kind`` (how built-in metrics are unpickled).

    Examples
    --------
    >>> from bayescm.metrics.base import builtin_metric
    >>> builtin_metric("binary", "tpr").long_name
    'true positive rate (sensitivity)'
    """
    return catalogue_for(kind)[name]


def mark_builtin(catalogue: dict[str, Metric], kind: str) -> None:
    """Let every metric of a catalogue travel by reference (see :meth:`Metric.__reduce__`)."""
    for name, metric in catalogue.items():
        if "_recipe" not in metric.__dict__ or metric.__dict__["_recipe"][0] is fbeta:
            object.__setattr__(metric, "_recipe", (builtin_metric, (kind, name)))


mark_builtin(BINARY_METRICS, "binary")


def canonical_name(name: str) -> str:
    """Normalise a user's spelling: lower case, spaces and hyphens to underscores.

    Examples
    --------
    >>> from bayescm.metrics.base import canonical_name
    >>> canonical_name("Balanced-Accuracy")
    'balanced_accuracy'
    """
    key = name.strip().lower()
    if key in {"lr+", "lr-", "f0.5"}:
        return key
    return re.sub(r"[\s\-]+", "_", key)


def _alias_table(catalogue: dict[str, Metric]) -> dict[str, str]:
    table: dict[str, str] = {}
    for metric in catalogue.values():
        table[canonical_name(metric.name)] = metric.name
        for alias in metric.aliases:
            table[canonical_name(alias)] = metric.name
    return table


def resolve_metrics(
    metrics: Iterable[str | Metric] | str | Metric | None,
    catalogue: dict[str, Metric],
    kind: str,
) -> list[Metric]:
    """Resolve a user's metric selection against a catalogue.

    Parameters
    ----------
    metrics : None, "all", str, Metric or iterable of them
        ``None`` and ``"all"`` select the whole catalogue. Names may be aliases.
    catalogue : dict
        Built-in metrics of the model kind.
    kind : str
        ``"binary"`` or ``"multiclass"``; custom metrics must match it.

    Examples
    --------
    >>> from bayescm.metrics.base import BINARY_METRICS, resolve_metrics
    >>> [m.name for m in resolve_metrics(["recall", "Specificity"], BINARY_METRICS, "binary")]
    ['tpr', 'tnr']
    """
    if metrics is None or (isinstance(metrics, str) and metrics.strip().lower() == "all"):
        return list(catalogue.values())
    if isinstance(metrics, (str, Metric)):
        metrics = [metrics]
    table = _alias_table(catalogue)
    out: dict[str, Metric] = {}
    for item in metrics:
        if isinstance(item, Metric):
            allowed = {"binary"} if kind == "binary" else {"multiclass", "per_class"}
            if item.kind not in allowed:
                raise ValueError(
                    f"Custom metric {item.name!r} is of kind {item.kind!r} but the model is "
                    f"{kind}; use kind='binary' with func(tp, fn, fp, tn) for binary matrices "
                    "and kind='multiclass' or 'per_class' with func(theta) otherwise."
                )
            builtin = table.get(canonical_name(item.name))
            if builtin is not None and catalogue[builtin] is not item:
                raise ValueError(
                    f"Custom metric name {item.name!r} clashes with the built-in {builtin!r}; "
                    "choose another name."
                )
            out[item.name] = item
            continue
        if not isinstance(item, str):
            raise TypeError(f"Metrics are named by strings or bcm.Metric objects, got {item!r}.")
        key = table.get(canonical_name(item))
        if key is None:
            raise ValueError(
                f"Unknown {kind} metric {item!r}. Known metrics: {', '.join(catalogue)} "
                "(long names such as 'sensitivity' work too); see bcm.list_metrics()."
            )
        out[key] = catalogue[key]
    return list(out.values())


@keyword_checked
def list_metrics(kind: str = "binary") -> Any:
    """A table of the built-in metrics: name, long name, aliases, direction, when undefined.

    Parameters
    ----------
    kind : {"binary", "multiclass"}
        Which catalogue to list.

    Examples
    --------
    >>> import bayescm as bcm
    >>> table = bcm.list_metrics()
    >>> table.loc["bm", "long_name"]
    'bookmaker informedness (TPR + TNR - 1)'
    """
    import pandas as pd

    rows = [
        {
            "name": m.name,
            "long_name": m.long_name,
            "aliases": ", ".join(m.aliases),
            "higher_is_better": m.higher_is_better,
            "kind": m.kind,
            "undefined": m.undefined,
        }
        for m in catalogue_for(kind).values()
    ]
    return pd.DataFrame(rows).set_index("name")


def catalogue_for(kind: str) -> dict[str, Metric]:
    """The built-in catalogue of a model kind (``"binary"`` or ``"multiclass"``)."""
    if kind in ("binary", "hierarchical"):
        return BINARY_METRICS
    if kind == "multiclass":
        from bayescm.metrics.multiclass import MULTICLASS_METRICS

        return MULTICLASS_METRICS
    if kind == "scores":
        from bayescm.models.scores import SCORE_METRICS

        return {**BINARY_METRICS, **SCORE_METRICS}
    raise ValueError(f"Unknown model kind {kind!r}; expected 'binary' or 'multiclass'.")


def evaluate(metrics: Sequence[Metric], inputs: tuple[Any, ...], shape: tuple[int, ...]
             ) -> dict[str, np.ndarray]:
    """Evaluate metrics on cell probabilities (binary) or theta (multiclass).

    ``shape`` is the expected leading shape of every result (draws and batch axes); a custom
    metric that returns anything else raises an error naming it. Large elementwise inputs (the
    binary cells of a batch) are evaluated in blocks written into the results, so the
    temporaries of each formula stay small and in cache instead of costing fresh pages.
    """
    arrays = all(isinstance(a, np.ndarray) and a.shape == shape for a in inputs)
    size = int(np.prod(shape, dtype=np.int64))
    if arrays and size > 2 * EVAL_BLOCK and all(m.kind == "binary" for m in metrics):
        flat = [a.reshape(-1) for a in inputs]
        out = {m.name: np.empty(size) for m in metrics}
        for start in range(0, size, EVAL_BLOCK):
            block = tuple(a[start:start + EVAL_BLOCK] for a in flat)
            for name, value in _evaluate(metrics, block, block[0].shape).items():
                out[name][start:start + EVAL_BLOCK] = value
        return {name: value.reshape(shape) for name, value in out.items()}
    return _evaluate(metrics, inputs, shape)


EVAL_BLOCK = 1 << 16
"""Elements per block when evaluating elementwise metrics on large arrays."""


def _evaluate(metrics: Sequence[Metric], inputs: tuple[Any, ...], shape: tuple[int, ...]
              ) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for metric in metrics:
        try:
            value = metric(*inputs)
        except Exception as exc:
            raise ValueError(f"Metric {metric.name!r} failed: {exc}") from exc
        expected = shape if metric.kind != "per_class" else shape + value.shape[-1:]
        if value.shape != expected:
            try:
                value = np.broadcast_to(value, expected).copy()
            except ValueError:
                raise ValueError(
                    f"Metric {metric.name!r} returned shape {value.shape}, expected {expected}; "
                    "a metric must be elementwise over draws."
                ) from None
        out[metric.name] = value
    return out
