r"""Exact draws of a true rate seen through an imperfect test: grids in quantile space.

The model (one or several apparent counts sharing one test)::

    tpr ~ prior_tpr (updated by a validation matrix's TP, FN),  tnr likewise (TN, FP)
    p_s ~ prior_p                                     for each system (or population) s
    a_s = p_s tpr + (1 - p_s) (1 - tnr)               the apparent (judged) rate
    positives_s ~ Binomial(n_s, a_s),                 with tpr + tnr > 1

Given ``(tpr, tnr)`` each ``p_s`` has a one-dimensional posterior; its normalising constant
``m_s(tpr, tnr)`` is what the apparent counts say about the test. So the draws are:

1. ``(tpr, tnr)`` on a grid of ``G x G`` cells of equal prior mass (midpoints of the quantiles
   of each rate's validation-updated prior), each cell weighted by ``prod_s m_s`` and zero where
   ``tpr + tnr <= 1``; a cell drawn with that weight, then a point uniform in its quantiles;
2. each ``p_s`` given that point by inverse-CDF sampling on a grid of cells in ``p`` (geometric
   towards the support's ends and around the likelihood's mode, in units of its standard
   deviation, so the sharp peaks of large counts and piles at a boundary are resolved).

Both steps are vectorised over the draws (loops run over chunks of rows only); the result is
exact up to the grids' resolution, with no importance weights.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["GRID", "Rate", "draw_corrected", "draw_p", "log_marginal"]

GRID = 64
"""Cells per free rate (TPR, TNR) in step 1: 64 x 64 cells of equal prior mass."""
_CHUNK = 2048
_NEAR = np.concatenate([[0.0], np.geomspace(0.01, 60.0, 40)])
"""Offsets of cell edges from the likelihood's mode, in its standard deviations."""
_ENDS = np.geomspace(1e-9, 1.0, 28)
"""Offsets of cell edges from the support's ends, as shares of its width."""


@dataclass(frozen=True)
class Rate:
    """A test's rate (TPR or TNR): its prior and the validation counts that update it.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.corrected_draws import Rate
    >>> rate = Rate(bcm.Beta(1, 1), 90.0, 10.0)
    >>> round(rate.point, 2), rate.ppf([0.5]).round(3).tolist()
    (0.9, [0.895])
    """

    prior: Any
    successes: float = 0.0
    failures: float = 0.0

    @property
    def fixed(self) -> bool:
        """Whether the rate is a known constant (a :class:`~bayescm.Fixed`)."""
        return bool(getattr(self.prior, "fixed", False))

    @property
    def point(self) -> float:
        """The validation's observed rate if there is one, else the prior's mean."""
        if self.fixed:
            return float(self.prior.value)
        total = self.successes + self.failures
        if total > 0:
            if hasattr(self.prior, "lower"):
                return float(np.clip(self.successes / total, self.prior.lower,
                                     self.prior.upper))
            return self.successes / total
        return float(self.prior.mean)

    def ppf(self, u: Any) -> np.ndarray:
        """Quantiles ``u`` of the validation-updated prior (a truncated Beta for a Uniform)."""
        from scipy.special import betainc, betaincinv

        u = np.clip(np.asarray(u, dtype=float), 1e-12, 1 - 1e-12)
        if self.fixed:
            return np.full(u.shape, float(self.prior.value))
        if hasattr(self.prior, "lower"):  # Uniform(lower, upper): Beta(1 + s, 1 + f) truncated
            lo, hi = float(self.prior.lower), float(self.prior.upper)
            a, b = 1.0 + self.successes, 1.0 + self.failures
            f_lo, f_hi = betainc(a, b, lo), betainc(a, b, hi)
            out = betaincinv(a, b, f_lo + u * (f_hi - f_lo))
            return np.clip(out, lo, hi)
        a, b = self.prior.posterior_params(self.successes, self.failures)
        return np.asarray(betaincinv(float(a), float(b), u))


def _log_prior(prior: Any, p: np.ndarray) -> np.ndarray:
    """Log density of the true rate's prior (Beta or Uniform) at ``p``."""
    from scipy.special import betaln, xlog1py, xlogy

    if hasattr(prior, "lower"):
        inside = (p >= prior.lower) & (p <= prior.upper)
        return np.where(inside, -np.log(prior.upper - prior.lower), -np.inf)
    a, b = float(prior.alpha), float(prior.beta)
    return xlogy(a - 1, p) + xlog1py(b - 1, -p) - betaln(a, b)


def _support(prior: Any) -> tuple[float, float]:
    return (float(prior.lower), float(prior.upper)) if hasattr(prior, "lower") else (0.0, 1.0)


def _cells(k: float, n: float, t: np.ndarray, s: np.ndarray, prior: Any
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cells in ``p`` for each row (t, s): left edges, widths and log masses (unnormalised)."""
    from scipy.special import xlog1py, xlogy

    lo, hi = _support(prior)
    span = hi - lo
    j = t + s - 1.0
    rate = k / n
    mode = np.clip((rate - (1.0 - s)) / j, lo, hi)
    scale = np.sqrt(max(rate * (1.0 - rate), 1.0 / n) / n) / j  # the likelihood's sd in p
    near = scale[:, None] * _NEAR
    rows = len(t)
    fixed = np.concatenate([lo + span * _ENDS, hi - span * _ENDS, np.linspace(lo, hi, 33)])
    edges = np.concatenate([np.broadcast_to(fixed, (rows, len(fixed))), mode[:, None] + near,
                            mode[:, None] - near], axis=1)
    edges = np.sort(np.clip(edges, lo, hi), axis=1)
    left, width = edges[:, :-1], np.diff(edges, axis=1)
    mid = left + width / 2
    a = (1.0 - s)[:, None] + mid * j[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        logw = (_log_prior(prior, mid) + xlogy(k, a) + xlog1py(n - k, -a) + np.log(width))
    return left, width, np.where(width > 0, logw, -np.inf)  # duplicate edges: empty cells


def log_marginal(k: float, n: float, t: np.ndarray, s: np.ndarray, prior: Any) -> np.ndarray:
    """``log m(t, s)`` of each row: the log integral over ``p`` of prior times likelihood.

    The binomial coefficient is left out (it is the same for every row).

    Examples
    --------
    >>> import numpy as np, bayescm as bcm
    >>> from bayescm.models.corrected_draws import log_marginal
    >>> # a flat prior and a perfect test: the Beta function B(k + 1, n - k + 1)
    >>> m = log_marginal(3, 10, np.array([1 - 1e-12]), np.array([1 - 1e-12]), bcm.Beta(1, 1))
    >>> from scipy.special import betaln
    >>> bool(abs(m[0] - betaln(4, 8)) < 1e-3)
    True
    """
    from scipy.special import logsumexp

    out = np.empty(len(t))
    for start in range(0, len(t), _CHUNK):
        part = slice(start, start + _CHUNK)
        out[part] = logsumexp(_cells(k, n, t[part], s[part], prior)[2], axis=1)
    return out


def draw_p(k: float, n: float, t: np.ndarray, s: np.ndarray, prior: Any,
           rng: np.random.Generator) -> np.ndarray:
    """One draw of the true rate ``p`` given each row's ``(t, s)`` (inverse CDF on the cells)."""
    out = np.empty(len(t))
    for start in range(0, len(t), _CHUNK):
        part = slice(start, start + _CHUNK)
        left, width, logw = _cells(k, n, t[part], s[part], prior)
        w = np.exp(logw - logw.max(axis=1, keepdims=True))
        cum = np.cumsum(w, axis=1)
        r = rng.random(len(cum)) * cum[:, -1]
        idx = np.minimum((cum < r[:, None]).sum(axis=1), cum.shape[1] - 1)
        rows = np.arange(len(cum))
        out[part] = left[rows, idx] + rng.random(len(cum)) * width[rows, idx]
    return out


def _quantile_grid(rate: Rate, grid: int) -> np.ndarray:
    return np.array([0.5]) if rate.fixed else (np.arange(grid) + 0.5) / grid


def draw_corrected(positives: np.ndarray, n: np.ndarray, tpr: Rate, tnr: Rate, prior: Any,
                   size: int, rng: np.random.Generator, grid: int = GRID
                   ) -> tuple[dict[str, np.ndarray], float]:
    """Joint draws of ``tpr``, ``tnr`` (``(size,)``) and each system's ``p`` (``(size, S)``).

    Returns the draws and the share of the rates' (validation-updated) prior mass with
    ``tpr + tnr <= 1`` that the constraint removed.

    Raises
    ------
    ValueError
        No prior mass with ``tpr + tnr > 1``.

    Examples
    --------
    >>> import numpy as np, bayescm as bcm
    >>> from bayescm.models.corrected_draws import Rate, draw_corrected
    >>> out, cut = draw_corrected(np.array([142]), np.array([742]), Rate(bcm.Fixed(0.9)),
    ...                           Rate(bcm.Fixed(0.95)), bcm.Beta(1, 1), 4000,
    ...                           np.random.default_rng(0))
    >>> round(float(out["prevalence"].mean()), 2), cut  # doctest: +MC
    (0.17, 0.0)
    """
    ut, us = _quantile_grid(tpr, grid), _quantile_grid(tnr, grid)
    t_mid, s_mid = np.repeat(tpr.ppf(ut), len(us)), np.tile(tnr.ppf(us), len(ut))
    valid = t_mid + s_mid > 1.0
    excluded = float(1.0 - valid.mean())
    if not valid.any():
        raise ValueError(
            "The test's priors (and validation counts) leave no mass with TPR + TNR > 1, where "
            "the true rate is identified (a test with TPR + TNR <= 1 is no better than "
            "chance, or its labels are swapped). Check the priors of tpr and tnr.")
    logm = np.where(valid, 0.0, -np.inf)
    for k, m in zip(positives, n, strict=True):
        logm[valid] += log_marginal(float(k), float(m), t_mid[valid], s_mid[valid], prior)
    w = np.exp(logm - logm.max())
    cell = rng.choice(len(w), size=size, p=w / w.sum())
    i, j = np.divmod(cell, len(us))
    t = tpr.ppf((i + rng.random(size)) / len(ut)) if not tpr.fixed else t_mid[cell]
    s = tnr.ppf((j + rng.random(size)) / len(us)) if not tnr.fixed else s_mid[cell]
    off = t + s <= 1.0  # a point of a cell that straddles the line: the cell's centre
    t, s = np.where(off, t_mid[cell], t), np.where(off, s_mid[cell], s)
    p = np.stack([draw_p(float(k), float(m), t, s, prior, rng)
                  for k, m in zip(positives, n, strict=True)], axis=-1)
    apparent = p * t[:, None] + (1.0 - p) * (1.0 - s[:, None])
    return {"prevalence": p, "apparent": apparent, "tpr": t, "tnr": s}, excluded
