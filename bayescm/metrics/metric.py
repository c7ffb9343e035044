"""What a metric is: :class:`Metric` (a function of theta with its metadata) and its scales.

A metric carries everything the rest of the package needs to know about it: its variable name,
the function of the confusion probabilities, a long name (stored as the variable's
``long_name``), the aliases accepted wherever a metric is named, the direction used by
comparisons, when it is undefined, and how to show it: a short ``display_name`` for titles, a
``scale`` with its ``support`` and the ``reference`` value drawn as a line. Plots, tables and
the command line read these instead of keeping their own name lists.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["SCALES", "Metric", "MetricInfo", "RESERVED", "short_label"]

_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
RESERVED = frozenset({"chain", "draw", "classifier", "true_class", "pred_class", "class",
                      "diagnostic", "theta", "counts", "rates"})
"""Names a metric cannot take: dims and the model's own variables."""

_INF = math.inf
SCALES: dict[str, tuple[tuple[float, float], float | None]] = {
    "proportion": ((0.0, 1.0), None),
    "signed": ((-1.0, 1.0), 0.0),
    "ratio": ((0.0, _INF), 1.0),
    "nonnegative": ((0.0, _INF), None),
    "unbounded": ((-_INF, _INF), None),
}
"""Every scale with its default support and reference value.

* ``"proportion"``: a share or rate in [0, 1] (TPR, PPV, accuracy, F1...); shown in per cent.
* ``"signed"``: chance-corrected, in [-1, 1] with 0 at chance (BM, MK, MCC, kappas) or a
  difference of proportions (reference 0); shown in per cent (differences in percentage points).
* ``"ratio"``: positive, 1 means "no information" (LR+, LR-, DOR); shown on a log axis.
* ``"nonnegative"``: in raw units from 0 up (class distances MAE, MSE, RMSE; log-loss).
* ``"unbounded"``: anything else, in raw units (the default of a custom metric).
"""


_PAREN = re.compile(r"\s*\(([^()]*)\)")
_LABEL_MAX = 24
"""Longest parenthesised remark an axis label keeps ("(sensitivity)", "(TPR + TNR - 1)")."""


def short_label(long_name: str) -> str:
    """An axis label from a long name: parenthesised caveats and variable names left out.

    Remarks in parentheses stay when they are short and plain (a synonym, a formula); long
    ones, and those with a comma, a semicolon, an underscore or a bar, are caveats for the
    documentation and go, as does a ``|...|`` formula.

    Examples
    --------
    >>> from bayescm.metrics.metric import short_label
    >>> short_label("true positive rate (sensitivity)")
    'true positive rate (sensitivity)'
    >>> short_label("balanced accuracy (mean recall; classes where it is undefined (0/0) "
    ...             "are skipped)")
    'balanced accuracy'
    >>> short_label("Matthews correlation coefficient (Gorodkin's R_K)")
    'Matthews correlation coefficient'
    """
    text = re.sub(r"\s*\|[^|]*\|", "", long_name)

    def drop(match: re.Match[str]) -> str:
        inner = match.group(1)
        if len(inner) > _LABEL_MAX or re.search(r"[;,_|]", inner):
            return ""
        # kept: its brackets hidden from the next pass (over the groups around it)
        return match.group(0).replace("(", "\x00").replace(")", "\x01")

    previous = None
    while previous != text:
        previous, text = text, _PAREN.sub(drop, text)
    return text.replace("\x00", "(").replace("\x01", ")").strip() or long_name


@dataclass(frozen=True)
class MetricInfo:
    """How to name and show a quantity: the metadata of a :class:`Metric` without its function.

    Also describes quantities that are not catalogue metrics, such as ``<metric>_diff`` (a
    difference A - B) or the parameters ``theta`` and ``rates``; see
    :func:`bayescm.metrics.metric_info`.

    Attributes
    ----------
    name, display_name, long_name : str
        Variable name, short label for titles ("TPR", "LR+"), and the long name.
    scale : str
        One of :data:`SCALES`.
    support : tuple of float
        ``(lower, upper)``, the range the values lie in (infinite bounds allowed).
    reference : float or None
        The value drawn as a reference line (0 for chance-corrected metrics and differences,
        1 for ratios), or None.
    higher_is_better : bool or None
        Direction (None for descriptive quantities).
    label : str
        A short axis label ("true positive rate (sensitivity)", "F1 score (macro)"): the long
        name without its caveats (:func:`short_label`) unless given.

    See Also
    --------
    metric_info : Looks the record up by a variable's name.
    Metric : A metric: this record plus its function.

    Examples
    --------
    >>> from bayescm.metrics import metric_info
    >>> metric_info("tpr_macro", "multiclass").label
    'true positive rate (macro)'
    """

    name: str
    display_name: str
    long_name: str
    scale: str
    support: tuple[float, float]
    reference: float | None = None
    higher_is_better: bool | None = None
    label: str = ""

    def __post_init__(self) -> None:
        if not self.label:
            object.__setattr__(self, "label", short_label(self.long_name))

    @property
    def lower(self) -> float:
        """Lower end of the support."""
        return self.support[0]

    @property
    def upper(self) -> float:
        """Upper end of the support."""
        return self.support[1]

    @property
    def proportional(self) -> bool:
        """A share or a difference of shares (shown in per cent by the plots by default)."""
        return self.scale in ("proportion", "signed")

    @property
    def log(self) -> bool:
        """Whether the quantity belongs on a logarithmic axis (ratios)."""
        return self.scale == "ratio"


def _check_meta(name: str, scale: str, support: Any, reference: Any
                ) -> tuple[tuple[float, float], float | None]:
    if scale not in SCALES:
        raise ValueError(f"Metric {name!r}: scale must be one of {', '.join(SCALES)}, "
                         f"got {scale!r}.")
    default_support, default_reference = SCALES[scale]
    if support is None:
        support = default_support
    try:
        lo, hi = (float(v) for v in support)
    except (TypeError, ValueError):
        raise ValueError(f"Metric {name!r}: support must be a pair (lower, upper) of numbers, "
                         f"got {support!r}.") from None
    if math.isnan(lo) or math.isnan(hi) or not lo < hi:
        raise ValueError(f"Metric {name!r}: support needs lower < upper, got {support!r}.")
    if reference is None:
        reference = default_reference if default_reference is not None and (
            lo <= default_reference <= hi) else None
    else:
        if isinstance(reference, bool) or not isinstance(reference, (int, float, np.number)):
            raise TypeError(f"Metric {name!r}: reference must be a number or None, "
                            f"got {reference!r}.")
        reference = float(reference)
        if not (math.isfinite(reference) and lo <= reference <= hi):
            raise ValueError(f"Metric {name!r}: reference {reference} lies outside the support "
                             f"({lo:g}, {hi:g}).")
    return (lo, hi), reference


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
    display_name : str, optional
        Short label for plot titles and axes ("TPR", "LR+"); default ``name``.
    scale : str, default "unbounded"
        One of :data:`SCALES`: ``"proportion"``, ``"signed"``, ``"ratio"``, ``"nonnegative"``
        or ``"unbounded"``. A custom metric is ``"unbounded"`` unless told otherwise: its
        density is then never cut at a bound it may not have, and it is shown in raw units.
    support : tuple of float, optional
        ``(lower, upper)``; default the scale's ([0, 1], [-1, 1], [0, inf), [0, inf),
        (-inf, inf)).
    reference : float, optional
        Value drawn as a reference line; default the scale's (0 for signed, 1 for ratios).
    label : str, optional
        Short axis label; default the long name without its caveats (:func:`short_label`).

    Raises
    ------
    ValueError
        A name that is not an identifier or is reserved, or an unknown ``kind``.
    TypeError
        ``func`` that is not callable.

    See Also
    --------
    bayescm.metrics.fbeta : A ready-made family of metrics.
    list_metrics : The built-in metrics.
    bayescm.fit : Computes custom metrics with ``metrics=[...]``.

    Examples
    --------
    A metric the catalogue lacks, the net benefit at a 10 % threshold probability:

    >>> import bayescm as bcm
    >>> nb = bcm.metrics.Metric("net_benefit", lambda tp, fn, fp, tn: tp - fp * 0.1 / 0.9,
    ...                 long_name="net benefit at p_t = 0.1", display_name="Net benefit",
    ...                 reference=0.0)
    >>> nb.scale, nb.support, nb.reference
    ('unbounded', (-inf, inf), 0.0)
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
    display_name: str = ""
    scale: str = "unbounded"
    support: tuple[float, float] | None = None
    reference: float | None = None
    label: str = ""

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
        if not self.display_name:
            object.__setattr__(self, "display_name", self.name)
        if not self.label:
            object.__setattr__(self, "label", short_label(self.long_name))
        support, reference = _check_meta(self.name, self.scale, self.support, self.reference)
        object.__setattr__(self, "support", support)
        object.__setattr__(self, "reference", reference)

    @property
    def info(self) -> MetricInfo:
        """The metadata without the function."""
        assert self.support is not None  # __post_init__ fills in the scale's default
        return MetricInfo(self.name, self.display_name, self.long_name, self.scale,
                          self.support, self.reference, self.higher_is_better, self.label)

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
                         self.higher_is_better, self.kind, self.undefined, self.display_name,
                         self.scale, self.support, self.reference, self.label))

    def __call__(self, *args: Any) -> np.ndarray:
        """Evaluate the metric, with 0/0 -> NaN and x/0 -> inf and no floating-point warnings.

        Plain Python numbers are accepted (they are turned into float arrays first, so 1 / 0
        is inf, not a ZeroDivisionError).
        """
        args = tuple(a if isinstance(a, np.ndarray) or hasattr(a, "ovr") else
                     np.asarray(a, dtype=float) for a in args)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            return np.asarray(self.func(*args), dtype=float)
