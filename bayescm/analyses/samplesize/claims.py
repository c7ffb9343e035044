"""Claims a planned test set should establish, and when a Beta posterior establishes them.

A claim is text: ``"tpr > 0.9"`` (a metric above a target), ``"fpr < 0.05"`` (below), or
``"width(tpr) < 0.1"`` (its HDI narrower than 0.1; ``mu(tpr)`` is the same, MU being the
package's name for the width). :class:`Claim` reads it, with the metric's aliases
(``"sensitivity > 0.9"``).

A claim on a *rate* (TPR, TNR, their complements FNR and FPR, the prevalence, accuracy taken
as one rate, PPV, NPV and their complements) is decided on a Beta posterior in closed form.
Every such claim is turned round (:meth:`Claim.oriented`) into "a rate q above t" with
``q = r`` or ``q = 1 - r`` for the base rate ``r``, so one search serves all: the posterior
``Beta(a0 + k, b0 + m - k)`` after ``k`` successes in ``m`` trials establishes it for every
``k`` from a threshold on (:func:`threshold_k`; the Beta family is ordered in ``k``), and a
width claim holds for ``k`` near 0 or near ``m`` (:func:`width_bounds`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from bayescm.core.betahdi import beta_hdi
from bayescm.metrics import BINARY_METRICS, Metric, resolve_metrics

__all__ = ["CRITERIA", "RATES", "Claim", "established", "threshold_k", "width_bounds"]

RATES: dict[str, tuple[str, bool, str]] = {
    "tpr": ("tpr", False, "positives"), "fnr": ("tpr", True, "positives"),
    "tnr": ("tnr", False, "negatives"), "fpr": ("tnr", True, "negatives"),
    "prevalence": ("prevalence", False, "items"), "acc": ("acc", False, "items"),
    "ppv": ("ppv", False, "predicted positives"), "fdr": ("ppv", True, "predicted positives"),
    "npv": ("npv", False, "predicted negatives"), "for": ("npv", True, "predicted negatives"),
}
"""Metrics that are one rate: metric -> (base rate, whether the metric is ``1 - rate``, what
the rate's trials are)."""

CRITERIA = ("probability", "hdi")
"""How a posterior establishes a claim: ``P(claim) >= level``, or the ``level`` HDI lies on the
claim's side of the target."""

_NUMBER = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"
_THRESHOLD = re.compile(r"^\s*([A-Za-z_][\w ]*?)\s*(>=|<=|>|<)\s*" + _NUMBER + r"\s*$")
_WIDTH = re.compile(r"^\s*(width|mu)\s*\(\s*([A-Za-z_][\w ]*?)\s*\)\s*(<=|<)\s*" + _NUMBER
                    + r"\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Claim:
    """A claim about one metric: above or below a target, or known to a width.

    Parameters
    ----------
    metric : str
        The metric's catalogue name (``"tpr"``), resolved from any alias.
    op : {">", "<"}
        Above or below the target (``>=`` and ``<=`` read as these: the posterior has no atoms).
    target : float
        The target value, or the widest HDI accepted for a width claim.
    width : bool, default False
        A width claim: the HDI narrower than ``target``.

    Raises
    ------
    ValueError
        A target outside the metric's support, or a width outside (0, 1].

    See Also
    --------
    Claim.parse : Reads a claim from text.
    bayescm.samplesize.assurance : The probability that a test set establishes a claim.

    Examples
    --------
    >>> from bayescm.analyses.samplesize.claims import Claim
    >>> Claim.parse("sensitivity >= 0.9")
    Claim(metric='tpr', op='>', target=0.9, width=False)
    >>> Claim.parse("width(acc) < 0.05").text
    'width(acc) < 0.05'
    """

    metric: str
    op: str
    target: float
    width: bool = False

    def __post_init__(self) -> None:
        metric = _metric(self.metric)
        object.__setattr__(self, "metric", metric.name)
        low, high = metric.support if metric.support is not None else (-np.inf, np.inf)
        if self.width:
            if not 0 < self.target <= 1:
                raise ValueError(f"The widest interval accepted must lie in (0, 1], got "
                                 f"{self.target:g}; e.g. 'width({metric.name}) < 0.1'.")
        elif not low <= self.target <= high:
            raise ValueError(f"The target {self.target:g} lies outside the values "
                             f"{metric.display_name} takes ({low:g} to {high:g}).")

    @classmethod
    def parse(cls, text: Any) -> Claim:
        """Read a claim: ``"tpr > 0.9"``, ``"fpr < 0.05"`` or ``"width(tpr) < 0.1"``.

        Parameters
        ----------
        text : str or Claim
            The claim (a Claim is returned as it is).

        Returns
        -------
        Claim
            The claim, its metric resolved from any alias.

        Raises
        ------
        TypeError
            Something other than text.
        ValueError
            Text that is not a claim, or an unknown metric.

        See Also
        --------
        bayescm.samplesize.assurance : Takes the claim as text or as a Claim.

        Examples
        --------
        >>> from bayescm.analyses.samplesize.claims import Claim
        >>> Claim.parse("specificity < 0.5").op
        '<'
        """
        if isinstance(text, Claim):
            return text
        if not isinstance(text, str):
            raise TypeError(f"A claim is text such as 'tpr > 0.9', 'fpr < 0.05' or "
                            f"'width(tpr) < 0.1', got {text!r}.")
        found = _WIDTH.match(text)
        if found:
            return cls(found.group(2), "<", float(found.group(4)), width=True)
        found = _THRESHOLD.match(text)
        if found:
            return cls(found.group(1), found.group(2)[0], float(found.group(3)))
        raise ValueError(
            f"{text!r} is not a claim: write METRIC > TARGET or METRIC < TARGET (e.g. "
            "'tpr > 0.9', 'fpr < 0.05'), or width(METRIC) < W for an HDI narrower than W "
            "(e.g. 'width(tpr) < 0.1').")

    @property
    def text(self) -> str:
        """The claim as text, e.g. ``"tpr > 0.9"``."""
        if self.width:
            return f"width({self.metric}) < {self.target:g}"
        return f"{self.metric} {self.op} {self.target:g}"

    @property
    def rate(self) -> str | None:
        """The base rate the metric is (``"tpr"`` for FNR), or None for other metrics."""
        return RATES[self.metric][0] if self.metric in RATES else None

    def oriented(self) -> tuple[bool, float]:
        """The claim as "q > t" on its base rate or its complement: ``(flip, t)``.

        ``q`` is ``1 - rate`` when ``flip``, else the base rate (the TPR for an FNR claim).
        For a width claim the target is the width and ``flip`` is False.

        Returns
        -------
        tuple of (bool, float)
            Whether ``q`` is the complement of the base rate, and the target of ``q``.

        See Also
        --------
        threshold_k : The first count that establishes "q > t".

        Examples
        --------
        >>> from bayescm.analyses.samplesize.claims import Claim
        >>> Claim.parse("fnr < 0.1").oriented()  # the TPR above 0.9
        (False, 0.9)
        >>> Claim.parse("tpr < 0.2").oriented()  # 1 - TPR above 0.8
        (True, 0.8)
        """
        if self.width:
            return False, self.target
        complement = RATES[self.metric][1] if self.metric in RATES else False
        above = (self.op == ">") != complement
        t = self.target if not complement else 1.0 - self.target
        return (not above), (t if above else 1.0 - t)


def _metric(name: Any) -> Metric:
    if isinstance(name, Metric):
        return name
    return resolve_metrics(str(name).strip(), BINARY_METRICS, "binary")[0]


def established(a: np.ndarray, b: np.ndarray, t: float, level: float, criterion: str,
                width: bool = False) -> np.ndarray:
    """Whether the Beta(a, b) posteriors of ``q`` establish "q > t" (or a width below t).

    ``criterion="probability"``: ``P(q > t) >= level``; ``"hdi"``: the ``level`` HDI's lower
    bound above ``t``; a width claim: the ``level`` HDI narrower than ``t``. A U-shaped
    posterior (both parameters below 1, a Jeffreys prior and no data) has no HDI and
    establishes nothing by the HDI.
    """
    a, b = np.broadcast_arrays(np.asarray(a, dtype=float), np.asarray(b, dtype=float))
    if criterion == "probability" and not width:
        return np.asarray(special.betaincc(a, b, t) >= level)
    out = np.zeros(a.shape, dtype=bool)
    ok = (a >= 1) | (b >= 1)
    if ok.any():
        bounds = beta_hdi(a[ok], b[ok], level)
        out[ok] = (bounds[..., 1] - bounds[..., 0] < t) if width else bounds[..., 0] > t
    return out


def threshold_k(m: np.ndarray, a0: float, b0: float, t: float, level: float,
                criterion: str) -> np.ndarray:
    """Smallest ``k`` in ``0..m`` whose posterior ``Beta(a0 + k, b0 + m - k)`` gives "q > t".

    ``m + 1`` when no ``k`` does; every ``m`` at once, by bisection.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.analyses.samplesize.claims import threshold_k
    >>> threshold_k(np.array([10, 100]), 1.0, 1.0, 0.5, 0.95, "probability").tolist()
    [8, 59]
    """
    m = np.asarray(m, dtype=np.int64)
    lo, hi = np.zeros_like(m), m + 1
    active = lo < hi
    while active.any():
        idx = np.flatnonzero(active)
        mid = (lo[idx] + hi[idx]) // 2
        ok = established(a0 + mid, b0 + (m[idx] - mid), t, level, criterion)
        hi[idx[ok]] = mid[ok]
        lo[idx[~ok]] = mid[~ok] + 1
        active = lo < hi
    return lo


def width_bounds(m: np.ndarray, a0: float, b0: float, w: float, level: float
                 ) -> tuple[np.ndarray, np.ndarray]:
    """``(k_lo, k_hi)``: the HDI of ``Beta(a0 + k, b0 + m - k)`` narrower than ``w``.

    Narrower for ``k <= k_lo`` and ``k >= k_hi`` (``k_lo = -1``, ``k_hi = m + 1`` when no
    such ``k``). The width grows with ``k`` up to the middle ``(m + b0 - a0) / 2`` and
    shrinks after it, so each side is one bisection.
    """
    m = np.asarray(m, dtype=np.int64)
    middle = np.clip(np.floor((m + b0 - a0) / 2.0), 0, m).astype(np.int64)

    def narrow(k: np.ndarray, mm: np.ndarray) -> np.ndarray:
        return established(a0 + k, b0 + (mm - k), w, level, "hdi", width=True)

    # rising side 0..middle: first k that is NOT narrow
    lo, hi = np.zeros_like(m), middle + 1
    active = lo < hi
    while active.any():
        idx = np.flatnonzero(active)
        mid = (lo[idx] + hi[idx]) // 2
        wide = ~narrow(mid, m[idx])
        hi[idx[wide]] = mid[wide]
        lo[idx[~wide]] = mid[~wide] + 1
        active = lo < hi
    k_lo = lo - 1
    # falling side middle+1..m: first k that IS narrow
    lo, hi = middle + 1, m + 1
    active = lo < hi
    while active.any():
        idx = np.flatnonzero(active)
        mid = (lo[idx] + hi[idx]) // 2
        ok = narrow(mid, m[idx])
        hi[idx[ok]] = mid[ok]
        lo[idx[~ok]] = mid[~ok] + 1
        active = lo < hi
    return k_lo, lo
