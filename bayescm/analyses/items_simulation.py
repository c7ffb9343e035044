"""Simulated item-level evaluation logs with known truth (the checks of the items model).

:func:`simulate_log` draws a log from the items model (:mod:`bayescm.models.items`) at given
parameters and returns it with the true values of the estimands: ``accuracy`` (a new item),
``accuracy_items`` (these items' realised success probabilities) and their differences. The
coverage study (``benchmarks/items_coverage.py``), its small slow test and the
simulation-based calibration use it; :func:`mu_for_accuracy` sets a system's ``mu_logit`` for a
wanted accuracy.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from scipy.special import expit

__all__ = ["mu_for_accuracy", "simulate_log"]


def mu_for_accuracy(accuracy: float, tau: float) -> float:
    """The ``mu_logit`` whose expected accuracy on a new item is ``accuracy``.

    ``tau`` is the total logit-scale spread of the random effects.

    Examples
    --------
    >>> from bayescm.analyses.items_simulation import mu_for_accuracy
    >>> round(mu_for_accuracy(0.5, 2.0), 6), mu_for_accuracy(0.9, 2.0) > 2.2
    (0.0, True)
    """
    from scipy.optimize import brentq

    from bayescm.models.items_estimands import normal_expectation

    def gap(mu: float) -> float:
        return float(normal_expectation(lambda z: expit(mu + tau * z))) - accuracy

    return float(brentq(gap, -30.0, 30.0, xtol=1e-12))


def simulate_log(rng: np.random.Generator, *, clusters: int, per_cluster: int, attempts: int,
                 mu: Sequence[float], sd_cluster: float, sd_item: float,
                 sd_system_item: float) -> tuple[Any, dict[str, np.ndarray]]:
    """A log drawn from the items model, and the true values of its estimands.

    Parameters
    ----------
    rng : numpy.random.Generator
        The random stream.
    clusters, per_cluster, attempts : int
        Clusters, items per cluster (1: no cluster column) and attempts per item and system.
    mu : sequence of float
        Each system's ``mu_logit`` (systems ``A``, ``B``, ...).
    sd_cluster, sd_item, sd_system_item : float
        The random-effect scales (logit scale).

    Returns
    -------
    Items, dict
        The log (a ``passage`` cluster column when ``per_cluster > 1``, a ``system`` column
        for several systems) and ``{"accuracy", "accuracy_items"}`` (one value per system),
        with ``"accuracy_diff"``, ``"accuracy_items_diff"`` (B - A of the first two) for two
        or more systems.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.analyses.items_simulation import simulate_log
    >>> log, truth = simulate_log(np.random.default_rng(0), clusters=10, per_cluster=3,
    ...                           attempts=2, mu=[0.0, 0.5], sd_cluster=0.5, sd_item=1.0,
    ...                           sd_system_item=0.3)
    >>> log.n_items, log.n_clusters, sorted(truth)
    (30, 10, ['accuracy', 'accuracy_diff', 'accuracy_items', 'accuracy_items_diff'])
    """
    import pandas as pd

    from bayescm.core.items import Items
    from bayescm.models.items_estimands import normal_expectation

    mu_arr = np.asarray(mu, dtype=float)
    s, n_items = mu_arr.size, clusters * per_cluster
    cluster = np.repeat(np.arange(clusters), per_cluster)
    shared = rng.normal(0, sd_cluster, clusters)[cluster] + rng.normal(0, sd_item, n_items)
    w = rng.normal(0, sd_system_item, (s, n_items)) if s > 1 else np.zeros((1, n_items))
    p = expit(mu_arr[:, None] + shared[None, :] + w)
    y = rng.random((s, attempts, n_items)) < p[:, None, :]
    names = [chr(ord("A") + k) for k in range(s)]
    frame = pd.DataFrame({
        "item_id": np.tile(np.arange(n_items), s * attempts),
        "passage": np.tile(cluster, s * attempts),
        "system": np.repeat(names, attempts * n_items),
        "correct": y.reshape(-1).astype(np.int8)})
    log = Items(frame, cluster="passage" if per_cluster > 1 else None,
                system="system" if s > 1 else None)
    tau = float(np.sqrt(sd_cluster ** 2 + sd_item ** 2 + (sd_system_item ** 2 if s > 1 else 0)))
    acc = np.array(normal_expectation(lambda z: expit(mu_arr[:, None] + tau * z)))
    truth = {"accuracy": acc, "accuracy_items": p.mean(axis=1)}
    if s > 1:
        truth["accuracy_diff"] = np.array([acc[1] - acc[0]])
        truth["accuracy_items_diff"] = np.array([truth["accuracy_items"][1]
                                                 - truth["accuracy_items"][0]])
    return log, truth
