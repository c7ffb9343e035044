r"""What an items fit reports, per posterior draw: accuracies, ICCs and the design effect.

Every quantity is an expectation over the random effects, computed per draw by Gauss-Hermite
quadrature (:func:`normal_expectation`), vectorised over draws and systems. With
:math:`\tau^2 = \sigma_c^2 + \sigma_i^2 + \sigma_w^2` (the scales the model has) and
:math:`p = \mathrm{logit}^{-1}(\mu_s + \tau Z)` the success probability of system ``s`` on a
new item:

* ``accuracy`` :math:`= E[p]`: the expected accuracy on a new item from the same population
  (of items and clusters): what a cluster-robust standard error targets;
* ``icc_item`` :math:`= \mathrm{Var}(p) / (m (1 - m))` with :math:`m = E[p]`: the correlation
  of two attempts on one item (probability scale; it includes the item's cluster);
* ``icc_cluster`` :math:`= \mathrm{Var}_u(E[p \mid u]) / (m (1 - m))`: the correlation of two
  different items of one cluster;
* ``design_effect`` :math:`= 1 + \mathrm{icc_{item}} \sum_i n_i (n_i - 1) / N +
  \mathrm{icc_{cluster}} \sum_c [(\sum_{i \in c} n_i)^2 - \sum_{i \in c} n_i^2] / N`: the
  variance of the mean of the ``N`` attempts over its binomial variance :math:`m (1 - m) / N`
  (for ``K`` attempts on every item and clusters of ``m`` items, :math:`1 + (K - 1)
  \mathrm{icc_{item}} + K (m - 1) \mathrm{icc_{cluster}}`, as in
  :func:`bayescm.samplesize.design_effect`); ``effective_n`` :math:`= N /` design effect.

Examples
--------
>>> import numpy as np
>>> from bayescm.models.items_estimands import normal_expectation
>>> from scipy.special import expit
>>> round(float(normal_expectation(lambda z: expit(1.0 + 0.0 * z))), 6)  # no spread
0.731059
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

import numpy as np
from scipy.special import expit

__all__ = ["NODES", "design_constants", "estimands", "normal_expectation", "pass_new"]

NODES = 64
"""Gauss-Hermite nodes per expectation (errors below 1e-6 for logit-scale spreads up to 5)."""


@cache
def _rule(n: int) -> tuple[np.ndarray, np.ndarray]:
    x, w = np.polynomial.hermite.hermgauss(n)
    return np.sqrt(2.0) * x, w / np.sqrt(np.pi)


def normal_expectation(f: Callable[[np.ndarray], np.ndarray], nodes: int = NODES
                       ) -> np.ndarray:
    """``E[f(Z)]`` for ``Z ~ Normal(0, 1)`` by Gauss-Hermite quadrature over a last axis.

    ``f`` takes the nodes (shape ``(nodes,)``, broadcast against the caller's arrays, which
    should end in an axis of length 1) and returns values whose last axis is the nodes.

    Examples
    --------
    >>> from bayescm.models.items_estimands import normal_expectation
    >>> round(float(normal_expectation(lambda z: z ** 2)), 10)
    1.0
    """
    x, w = _rule(nodes)
    return np.asarray(f(x)) @ w


def _logistic_moments(mu: np.ndarray, tau: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``E[p]`` and ``E[p^2]`` of ``p = expit(mu + tau Z)``."""
    p = expit(mu[..., None] + tau[..., None] * _rule(NODES)[0])
    w = _rule(NODES)[1]
    return p @ w, (p * p) @ w


def _cluster_variance(mu: np.ndarray, sd_cluster: np.ndarray, sd_rest: np.ndarray,
                      nodes: int = 40) -> np.ndarray:
    """``Var_u(E[p | u])``: nested quadrature, over the cluster effect outside."""
    x, w = _rule(nodes)
    inner = expit(mu[..., None, None] + sd_cluster[..., None, None] * x[:, None]
                  + sd_rest[..., None, None] * x[None, :]) @ w  # E over the rest, per u-node
    mean = inner @ w
    return (inner * inner) @ w - mean * mean


def design_constants(attempts: np.ndarray, cluster: np.ndarray | None
                     ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per system: ``N``, ``sum n_i (n_i - 1) / N`` and the cluster term (see the module).

    Parameters
    ----------
    attempts : ndarray of int, shape (S, I)
        Attempts per (system, item).
    cluster : ndarray of int, shape (I,), or None
        Each item's cluster.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.items_estimands import design_constants
    >>> n = np.full((1, 6), 5)            # 6 items, 5 attempts each, 2 clusters of 3
    >>> [v.tolist() for v in design_constants(n, np.array([0, 0, 0, 1, 1, 1]))]
    [[30.0], [4.0], [10.0]]
    """
    n = np.asarray(attempts, dtype=float)
    total = n.sum(axis=1)
    safe = np.where(total > 0, total, 1.0)
    within = (n * (n - 1.0)).sum(axis=1) / safe
    if cluster is None:
        return total, within, np.zeros_like(total)
    c = int(cluster.max()) + 1
    per = np.stack([np.bincount(cluster, weights=row, minlength=c) for row in n])
    sq = np.stack([np.bincount(cluster, weights=row * row, minlength=c) for row in n])
    return total, within, (per * per - sq).sum(axis=1) / safe


def estimands(mu: np.ndarray, scales: dict[str, np.ndarray], attempts: np.ndarray,
              cluster: np.ndarray | None) -> dict[str, np.ndarray]:
    """``accuracy``, ``icc_item``, ``icc_cluster``, ``design_effect``, ``effective_n``.

    Parameters
    ----------
    mu : ndarray, shape (..., S)
        Draws of each system's ``mu_logit``.
    scales : dict of str -> ndarray, shape (...)
        Draws of the scales the model has (``sd_cluster``, ``sd_item``, ``sd_system_item``).
    attempts : ndarray of int, shape (S, I)
        Attempts per (system, item), for the design effect.
    cluster : ndarray of int or None
        Each item's cluster (``icc_cluster`` only with clusters).

    Returns
    -------
    dict of str -> ndarray
        Each of shape ``(..., S)``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.items_estimands import estimands
    >>> out = estimands(np.zeros((1, 1)), {"sd_item": np.zeros(1)}, np.full((1, 4), 3), None)
    >>> float(out["accuracy"][0, 0]), float(out["design_effect"][0, 0])
    (0.5, 1.0)
    """
    zero = np.zeros(np.shape(mu)[:-1])
    sc = scales.get("sd_cluster", zero)[..., None]
    rest = np.sqrt(scales.get("sd_item", zero) ** 2 + scales.get("sd_system_item", zero) ** 2
                   )[..., None]
    tau = np.sqrt(sc * sc + rest * rest)
    tau_b = np.broadcast_to(tau, np.shape(mu))
    m, m2 = _logistic_moments(mu, tau_b)
    binomial = np.clip(m * (1.0 - m), 1e-300, None)
    icc_item = np.clip((m2 - m * m) / binomial, 0.0, 1.0)
    total, within, between = design_constants(attempts, cluster)
    out = {"accuracy": m, "icc_item": icc_item}
    deff = 1.0 + icc_item * within
    if cluster is not None:
        icc_cluster = np.clip(_cluster_variance(
            mu, np.broadcast_to(sc, np.shape(mu)), np.broadcast_to(rest, np.shape(mu)))
            / binomial, 0.0, 1.0)
        out["icc_cluster"] = icc_cluster
        deff = deff + icc_cluster * between
    out["design_effect"] = deff
    out["effective_n"] = total / deff
    return out


def pass_new(mu: np.ndarray, tau: np.ndarray, k: np.ndarray, nodes: int = 96
             ) -> tuple[np.ndarray, np.ndarray]:
    """pass@k and "all k succeed" of a new item: ``1 - E[(1 - p)^k]`` and ``E[p^k]``.

    Parameters
    ----------
    mu, tau : ndarray, broadcastable
        Each system's ``mu_logit`` and the total logit-scale spread of the random effects.
    k : ndarray of int
        The k values (a trailing axis of the result).
    nodes : int, default 96
        Gauss-Hermite nodes (``p^k`` of a large ``k`` is steep in the random effect).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.items_estimands import pass_new
    >>> at_least, every = pass_new(np.array(0.0), np.array(0.0), np.array([1, 2]))
    >>> np.round(at_least, 12).tolist(), np.round(every, 12).tolist()
    ([0.5, 0.75], [0.5, 0.25])
    """
    x, w = _rule(nodes)
    eta = np.asarray(mu)[..., None] + np.asarray(tau)[..., None] * x  # (..., nodes)
    log_q = -np.logaddexp(0.0, eta)  # log(1 - p)
    log_p = -np.logaddexp(0.0, -eta)
    kk = np.asarray(k, dtype=float)[:, None]
    miss = np.exp(kk * log_q[..., None, :]) @ w
    every = np.exp(kk * log_p[..., None, :]) @ w
    return 1.0 - miss, every
