"""Interval statistics on draws, vectorised over series."""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescm.core.config import rcParams
from bayescm.core.validate import check_probability, keyword_checked

__all__ = ["HDI_PROB", "check_prob", "hdi", "hdi_prob_for"]

HDI_PROB = 0.95
"""The paper's interval probability (95 % HDI), the default of ``rcParams["stats.hdi_prob"]``.

Functions take ``hdi_prob=None`` and resolve it with :func:`hdi_prob_for`, so a change of the
setting reaches every default; this constant is the value the setting starts from.
"""


def check_prob(prob: float, name: str = "hdi_prob") -> float:
    """Validate a probability strictly inside (0, 1) (see :mod:`bayescm.core.validate`)."""
    return check_probability(prob, name)


def hdi_prob_for(hdi_prob: float | None = None, idata: Any = None) -> float:
    """The interval probability to use: the argument, else the result's, else the setting.

    One rule for every function that takes ``hdi_prob=None``: an explicit argument wins; a
    fitted result (``idata``) contributes the probability it recorded (its root attribute
    ``hdi_prob``), so its summaries stay as they were computed; otherwise
    ``rcParams["stats.hdi_prob"]``.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.core.stats import hdi_prob_for
    >>> hdi_prob_for(0.9), hdi_prob_for()
    (0.9, 0.95)
    >>> with bcm.rc_context(stats_hdi_prob=0.8):
    ...     hdi_prob_for()
    0.8
    """
    if hdi_prob is not None:
        return check_prob(hdi_prob)
    attrs = getattr(idata, "attrs", None) or {}
    if "hdi_prob" in attrs:
        return check_prob(attrs["hdi_prob"])
    return float(rcParams["stats.hdi_prob"])


@keyword_checked
def hdi(samples: np.ndarray, prob: float | None = None, axis: int = -1) -> np.ndarray:
    """Highest-density interval of draws along ``axis``, for every other index at once.

    The narrowest window that contains ``floor(prob * n)`` + 1 sorted draws, the same rule as
    ArviZ's ``hdi(method="nearest")``. A series containing NaN gives NaN bounds.

    Parameters
    ----------
    samples : ndarray
        Draws; ``axis`` indexes them.
    prob : float, optional
        Probability mass of the interval, in (0, 1); default ``rcParams["stats.hdi_prob"]``.
    axis : int, default -1
        Axis of the draws.

    Returns
    -------
    ndarray
        Shape of ``samples`` without ``axis`` plus a trailing axis of length 2 (lower, upper).

    Examples
    --------
    The TPR of the paper's cocaine classifier (26 of 26 positives found, Laplace prior):

    >>> import numpy as np
    >>> from bayescm.core.stats import hdi
    >>> draws = np.random.default_rng(0).beta(27, 1, size=20_000)
    >>> lo, hi = hdi(draws)
    >>> round(float(lo), 2), round(float(hi), 3)
    (0.89, 1.0)
    """
    prob = check_prob(prob, "prob") if prob is not None else hdi_prob_for()
    x = np.moveaxis(np.asarray(samples, dtype=float), axis, -1)
    n = x.shape[-1]
    if n < 2:
        raise ValueError(f"An HDI needs at least 2 draws, got {n}.")
    srt = np.sort(x, axis=-1)
    inc = int(np.floor(prob * n))
    n_int = n - inc
    width = srt[..., inc:] - srt[..., :n_int]
    start = np.argmin(np.where(np.isnan(width), np.inf, width), axis=-1)[..., None]
    lower = np.take_along_axis(srt, start, axis=-1)[..., 0]
    upper = np.take_along_axis(srt, start + inc, axis=-1)[..., 0]
    out = np.stack([lower, upper], axis=-1)
    has_nan = np.isnan(x).any(axis=-1)
    out[has_nan] = np.nan
    return out
