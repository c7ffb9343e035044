r"""The items model's log density and gradient, written out (numba) for nutpie.

The model of :mod:`bayescm.models.items`, on the sufficient statistics per (system, item)::

    logit p[s, i] = mu[s] + sd_cluster z_c[c(i)] + sd_item z_i[i] + sd_system_item z_w[s, i]
    y[s, i] ~ Binomial(n[s, i], p[s, i])          z_c, z_i, z_w ~ Normal(0, 1) (non-centred)

The unconstrained position is ``[mu (S), log sd (H), z_c (C), z_i (I), z_w (S I)]``, where only
the components the log has are present (no ``z_c`` without clusters, no ``z_w`` for one system,
where it cannot be told apart from ``z_i``). :func:`log_density` returns the log posterior
density (up to a constant) and fills its gradient in one pass over the (system, item) cells,
so a gradient costs one exponential and one logarithm per cell and no memory; the kernels
release the GIL, so nutpie's chains run in parallel threads.

The priors this path knows are those the hand-written density has in closed form:
:class:`~bayescm.priors.Normal` for ``mu_logit`` and :class:`~bayescm.priors.HalfNormal` or
:class:`~bayescm.priors.LogNormal` for the scales (PreliZ's Normal, HalfNormal and LogNormal
become these). Any other prior is sampled from the PyMC model
(:func:`bayescm.models.items_build.build_items_model`), which a test checks gives the same log
density.

Examples
--------
>>> import numpy as np
>>> from bayescm.models.items_density import Layout, log_density, prior_arrays
>>> from bayescm.priors import HalfNormal, Normal
>>> layout = Layout(n_systems=1, n_items=2, n_clusters=0, scales=("sd_item",))
>>> arrays = prior_arrays(layout, {"mu_logit": Normal(0, 3), "sd_item": HalfNormal(2.5)})
>>> y, n = np.array([[3.0, 1.0]]), np.array([[4.0, 4.0]])
>>> x = np.zeros(layout.ndim)
>>> lp, grad = log_density(x, y, n, np.zeros(2, np.int64), layout, arrays)
>>> round(float(grad[0]), 6)  # d/d mu at p = 1/2: successes - attempts / 2
0.0
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numba import njit

__all__ = ["K_GRID", "SCALES", "Layout", "draw_summaries", "fast_priors", "log_density",
           "prior_arrays", "summaries_of_draws"]

SCALES = ("sd_cluster", "sd_item", "sd_system_item")
"""The random-effect scales in the order of the position vector."""

_HALF_NORMAL, _LOG_NORMAL = 0, 1


@dataclass(frozen=True)
class Layout:
    """Where each parameter sits in the unconstrained position vector.

    Parameters
    ----------
    n_systems, n_items, n_clusters : int
        Sizes (``n_clusters`` 0 without clusters).
    scales : tuple of str
        The scales the model has (a subset of :data:`SCALES`, in that order).

    Examples
    --------
    >>> from bayescm.models.items_density import Layout
    >>> Layout(2, 10, 3, ("sd_cluster", "sd_item", "sd_system_item")).ndim
    38
    """

    n_systems: int
    n_items: int
    n_clusters: int
    scales: tuple[str, ...]

    @property
    def ndim(self) -> int:
        """Length of the position vector."""
        s, i = self.n_systems, self.n_items
        return s + len(self.scales) + self.n_clusters + i + (s * i if self.has_w else 0)

    @property
    def has_w(self) -> bool:
        """Whether the system-by-item effects are in the model."""
        return "sd_system_item" in self.scales

    @property
    def flags(self) -> np.ndarray:
        """``[S, I, C, has cluster scale, has w, H]`` for the kernels."""
        return np.array([self.n_systems, self.n_items, self.n_clusters,
                         int("sd_cluster" in self.scales), int(self.has_w), len(self.scales)],
                        dtype=np.int64)


def fast_priors(priors: Mapping[str, Any]) -> bool:
    """Whether every prior is one the written-out density knows (see the module notes).

    Examples
    --------
    >>> from bayescm.models.items_density import fast_priors
    >>> from bayescm.priors import HalfNormal, Normal
    >>> fast_priors({"mu_logit": Normal(0, 3), "sd_item": HalfNormal(1)})
    True
    """
    from bayescm.priors.continuous import HalfNormal, LogNormal, Normal

    return all(isinstance(p, Normal) if name == "mu_logit" else isinstance(p, (HalfNormal,
                                                                                  LogNormal))
               for name, p in priors.items())


def prior_arrays(layout: Layout, priors: Mapping[str, Any]) -> np.ndarray:
    """The priors as numbers for the kernels: ``mu``'s means and sds, each scale's family.

    Row 0 and 1: the Normal's mean and sd of each system's ``mu``; then one row per scale:
    ``[family (0 half-normal, 1 log-normal), sigma, log-normal mu]``, padded with zeros.
    """
    from bayescm.priors.continuous import HalfNormal

    s = layout.n_systems
    out = np.zeros((2 + len(layout.scales), max(s, 3)))
    mu = priors["mu_logit"]
    out[0, :s] = np.broadcast_to(np.asarray(mu.mu, dtype=float), (s,))
    out[1, :s] = np.broadcast_to(np.asarray(mu.sigma, dtype=float), (s,))
    for k, name in enumerate(layout.scales):
        p = priors[name]
        if isinstance(p, HalfNormal):
            out[2 + k, :3] = (_HALF_NORMAL, float(np.asarray(p.sigma)), 0.0)
        else:
            out[2 + k, :3] = (_LOG_NORMAL, float(np.asarray(p.sigma)), float(np.asarray(p.mu)))
    return out


def log_density(x: np.ndarray, y: np.ndarray, n: np.ndarray, cluster: np.ndarray,
                layout: Layout, arrays: np.ndarray) -> tuple[float, np.ndarray]:
    """Log posterior density (up to a constant) and its gradient at the position ``x``.

    Parameters
    ----------
    x : ndarray
        The unconstrained position (see :class:`Layout`).
    y, n : ndarray of float, shape (S, I)
        Successes and attempts per (system, item).
    cluster : ndarray of int, shape (I,)
        Each item's cluster (ignored without clusters).
    layout : Layout
        The model's layout.
    arrays : ndarray
        :func:`prior_arrays` of the priors.

    Returns
    -------
    float, ndarray
        The log density and its gradient.
    """
    grad = np.empty(x.size)
    lp = _kernel(x, y, n, cluster, layout.flags, arrays, grad)
    return lp, grad


@njit(cache=True, nogil=True)
def _kernel(x: np.ndarray, y: np.ndarray, n: np.ndarray, cl: np.ndarray, flags: np.ndarray,
            pri: np.ndarray, grad: np.ndarray) -> float:  # pragma: no cover - compiled
    S, I, C, hc, hw, H = flags[0], flags[1], flags[2], flags[3], flags[4], flags[5]  # noqa: E741
    sd = np.zeros(3)  # cluster, item, system-item (0 when absent)
    k = 0
    if hc:
        sd[0] = np.exp(x[S + k])
        k += 1
    sd[1] = np.exp(x[S + k])
    k += 1
    if hw:
        sd[2] = np.exp(x[S + k])
    oc = S + H
    oi = oc + C
    ow = oi + I
    for j in range(x.size):
        grad[j] = 0.0
    gsd0 = 0.0
    gsd1 = 0.0
    gsd2 = 0.0
    ll = 0.0
    for i in range(I):
        zc = x[oc + cl[i]] if hc else 0.0
        base = sd[0] * zc + sd[1] * x[oi + i]
        gi = 0.0
        for s in range(S):
            zw = x[ow + s * I + i] if hw else 0.0
            e = x[s] + base + sd[2] * zw
            t = np.exp(-abs(e))
            r = 1.0 / (1.0 + t)
            if e > 0:
                sp = e + np.log1p(t)
                p = r
            else:
                sp = np.log1p(t)
                p = t * r
            nn = n[s, i]
            ll += y[s, i] * e - nn * sp
            g = y[s, i] - nn * p
            grad[s] += g
            gi += g
            if hw:
                grad[ow + s * I + i] = sd[2] * g
                gsd2 += zw * g
        if hc:
            grad[oc + cl[i]] += sd[0] * gi
            gsd0 += zc * gi
        grad[oi + i] = sd[1] * gi
        gsd1 += x[oi + i] * gi
    for j in range(oc, x.size):  # standard normal effects
        ll -= 0.5 * x[j] * x[j]
        grad[j] -= x[j]
    for s in range(S):  # Normal priors of mu
        d = (x[s] - pri[0, s]) / pri[1, s]
        ll -= 0.5 * d * d
        grad[s] -= d / pri[1, s]
    gsd = np.array([gsd0, gsd1, gsd2])
    k = 0
    for which in range(3):
        if (which == 0 and not hc) or (which == 2 and not hw):
            continue
        h = x[S + k]
        v = sd[which]
        fam, sig, m = pri[2 + k, 0], pri[2 + k, 1], pri[2 + k, 2]
        if fam == 0:  # half-normal on the scale, log transform (Jacobian + h)
            ll += -0.5 * (v / sig) ** 2 + h
            grad[S + k] = v * gsd[which] - (v / sig) ** 2 + 1.0
        else:  # log-normal: log scale ~ Normal(m, sig); with the Jacobian, normal in h
            d = (h - m) / sig
            ll += -0.5 * d * d
            grad[S + k] = v * gsd[which] - d / sig
        k += 1
    return ll


K_GRID = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 16, 20)
"""The ``k`` of pass@k stored for these items, per draw (``pass_at_k`` of a new item takes any
k): by products and squaring, a few multiplications per (system, item) cell and draw."""


def draw_summaries(x: np.ndarray, layout: Layout, cluster: np.ndarray
                   ) -> dict[str, np.ndarray]:
    """Per draw: ``mu_logit``, the scales, and the quantities over these items.

    ``accuracy_items`` (S,): the mean of ``p[s, i]`` over the items; ``pass_items`` and
    ``all_items`` (S, len(K_GRID)): the means of ``1 - (1 - p)^k`` and ``p^k``; ``difficulty``
    (I,): ``-(sd_cluster z_c + sd_item z_i)``, an item's log-odds handicap shared by the
    systems (higher: harder).
    """
    s, i = layout.n_systems, layout.n_items
    acc = np.empty(s)
    passed = np.empty((s, len(K_GRID)))
    every = np.empty((s, len(K_GRID)))
    difficulty = np.empty(i)
    sd = np.empty(3)
    _summaries(x, cluster, layout.flags, sd, acc, passed, every, difficulty)
    out = {"mu_logit": x[:s].copy(), "accuracy_items": acc, "pass_items": passed,
           "all_items": every, "difficulty": difficulty}
    for k, name in enumerate(SCALES):
        if name in layout.scales:
            out[name] = np.array(sd[k])
    return out


def summaries_of_draws(x: np.ndarray, layout: Layout, cluster: np.ndarray
                       ) -> dict[str, np.ndarray]:
    """:func:`draw_summaries` of many positions ``x`` (rows), in one compiled loop.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.items_density import Layout, summaries_of_draws
    >>> layout = Layout(1, 3, 0, ("sd_item",))
    >>> out = summaries_of_draws(np.zeros((2, layout.ndim)), layout, np.zeros(3, np.int64))
    >>> out["accuracy_items"].tolist(), out["difficulty"].shape
    ([[0.5], [0.5]], (2, 3))
    """
    m, s, i = x.shape[0], layout.n_systems, layout.n_items
    sd = np.empty((m, 3))
    acc = np.empty((m, s))
    passed = np.empty((m, s, len(K_GRID)))
    every = np.empty((m, s, len(K_GRID)))
    difficulty = np.empty((m, i))
    _summaries_many(np.ascontiguousarray(x), cluster, layout.flags, sd, acc, passed, every,
                    difficulty)
    out = {"mu_logit": x[:, :s].copy(), "accuracy_items": acc, "pass_items": passed,
           "all_items": every, "difficulty": difficulty}
    for k, name in enumerate(SCALES):
        if name in layout.scales:
            out[name] = sd[:, k].copy()
    return out


@njit(cache=True, nogil=True)
def _summaries_many(x: np.ndarray, cl: np.ndarray, flags: np.ndarray, sd: np.ndarray,
                    acc: np.ndarray, passed: np.ndarray, every: np.ndarray,
                    difficulty: np.ndarray) -> None:  # pragma: no cover - compiled
    for r in range(x.shape[0]):
        _summaries(x[r], cl, flags, sd[r], acc[r], passed[r], every[r], difficulty[r])


@njit(cache=True, nogil=True)
def _summaries(x: np.ndarray, cl: np.ndarray, flags: np.ndarray, sd: np.ndarray,
               acc: np.ndarray, passed: np.ndarray, every: np.ndarray,
               difficulty: np.ndarray) -> None:  # pragma: no cover - compiled
    S, I, C, hc, hw, H = flags[0], flags[1], flags[2], flags[3], flags[4], flags[5]  # noqa: E741
    k = 0
    sd[0] = 0.0
    sd[2] = 0.0
    if hc:
        sd[0] = np.exp(x[S + k])
        k += 1
    sd[1] = np.exp(x[S + k])
    k += 1
    if hw:
        sd[2] = np.exp(x[S + k])
    oc = S + H
    oi = oc + C
    ow = oi + I
    nk = passed.shape[1]
    for s in range(S):
        acc[s] = 0.0
        for j in range(nk):
            passed[s, j] = 0.0
            every[s, j] = 0.0
    for i in range(I):
        base = sd[1] * x[oi + i]
        if hc:
            base += sd[0] * x[oc + cl[i]]
        difficulty[i] = -base
        for s in range(S):
            e = x[s] + base
            if hw:
                e += sd[2] * x[ow + s * I + i]
            p = 1.0 / (1.0 + np.exp(-e))
            acc[s] += p
            q = 1.0 - p
            qk = 1.0
            pk = 1.0
            q4 = 1.0
            p4 = 1.0
            q8 = 1.0
            p8 = 1.0
            for m in range(10):  # k = 1 .. 10 by products, then 16 and 20 by squaring
                qk *= q
                pk *= p
                passed[s, m] += 1.0 - qk
                every[s, m] += pk
                if m == 3:
                    q4, p4 = qk, pk
                elif m == 7:
                    q8, p8 = qk, pk
            q16, p16 = q8 * q8, p8 * p8
            passed[s, 10] += 1.0 - q16
            every[s, 10] += p16
            passed[s, 11] += 1.0 - q16 * q4
            every[s, 11] += p16 * p4
    for s in range(S):
        acc[s] /= I
        for j in range(nk):
            passed[s, j] /= I
            every[s, j] /= I
