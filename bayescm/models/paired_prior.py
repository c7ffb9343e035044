"""The paired model's prior over the joint cells and its exact draws.

The joint prior of two classifiers on the same items is the prevalence of the true classes
and, for each true class, a Dirichlet over the (A, B) prediction pairs whose margins are
:func:`bayescm.fit`'s rates prior; or, given a :class:`~bayescm.Dirichlet`, one Dirichlet
over the K^3 cells themselves.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescm.core.exact import draw_dirichlet
from bayescm.core.streams import streams
from bayescm.priors import Beta, Dirichlet, Fixed, resolve_prior


def paired_alpha(prior: Any, n_cells: int) -> np.ndarray:
    """The Dirichlet concentration over the cells from a prior name or bcm.Dirichlet."""
    if isinstance(prior, Dirichlet):
        alpha = np.asarray(prior.alpha, dtype=float)
        if alpha.ndim == 1 and alpha.size != n_cells:
            raise ValueError(
                f"The Dirichlet prior has {alpha.size} entries but the joint table has "
                f"{n_cells} cells (K^3 in the order true, A, B; or 4 for the agreement table)."
            )
        return np.broadcast_to(alpha, (n_cells,)).astype(float)
    if isinstance(prior, Fixed):
        raise ValueError("A paired comparison cannot fix the cell probabilities; use a prior.")
    p = resolve_prior(prior, "the joint cell probabilities")
    if not isinstance(p, Beta) or p.alpha != p.beta:
        raise TypeError(
            "The paired model takes a symmetric Dirichlet over its cells: pass 'laplace' "
            "(alpha = 1), 'jeffreys' (1/2), 'haldane' (0) or bcm.Dirichlet(alpha); got "
            f"{prior!r}."
        )
    return np.full(n_cells, p.alpha)


def _proper(alpha: Any) -> bool:
    parts = alpha if isinstance(alpha, tuple) else (alpha,)
    return all(bool(np.all(np.asarray(a) > 0)) for a in parts)


def _draw_cells(rng: np.random.Generator, alpha: Any, counts: np.ndarray, chains: int,
                draws: int, check: bool = False) -> np.ndarray:
    """Cell probabilities ``(chains, draws, *counts.shape)`` from the conjugate posterior."""
    if not isinstance(alpha, tuple):  # one Dirichlet over every cell
        post = counts.reshape(-1).astype(float) + alpha
        if check:
            _check_positive_cells(post.reshape(counts.shape))
        return draw_dirichlet(rng, post, chains, draws).reshape((chains, draws) + counts.shape)
    prev_alpha, joint_alpha = alpha
    k = counts.shape[0]
    prev_post = prev_alpha + counts.sum(axis=(1, 2))
    joint_post = joint_alpha + counts
    if check:
        _check_positive_cells(joint_post, prev_post)
    prev = draw_dirichlet(rng, prev_post, chains, draws)  # (chains, draws, K)
    joint = draw_dirichlet(rng, joint_post.reshape(k, -1), chains, draws)  # (.., K, K * K)
    return (prev[..., None] * joint).reshape((chains, draws) + counts.shape)


def _check_positive_cells(joint: np.ndarray, prev: np.ndarray | None = None) -> None:
    bad = joint <= 0
    if prev is not None and np.any(prev <= 0):
        raise ValueError("The improper (Haldane) prior leaves a true class without samples and "
                         "without concentration, so the posterior is improper; use "
                         "prior='weak' or 'jeffreys'.")
    if np.any(bad):
        cell = np.unravel_index(int(np.argmax(bad)), joint.shape)
        raise ValueError(
            f"The improper (Haldane) prior leaves cell {tuple(map(int, cell))} with zero count "
            "and zero concentration, so the posterior is improper; use prior='weak' or "
            "'jeffreys'."
        )


def _structured_prior(prior: Any, labels: list[str]) -> tuple[tuple[np.ndarray, np.ndarray],
                                                               dict[str, Any]]:
    """The paired prior that has ``fit``'s prior as each classifier's margin.

    For each true class ``k`` with ``fit``'s rates concentration ``beta_k`` the (A, B) pairs get
    ``alpha_k[l, m] = beta_k[l] beta_k[m] / sum(beta_k)``: its row and column sums are
    ``beta_k``, so (Dirichlet aggregation) A's and B's rates have exactly ``fit``'s prior and
    posterior, and the total strength per true class is ``fit``'s, not K times it.
    """
    from bayescm.priors.multiclass import concentration_of, resolve_multiclass_priors

    k = len(labels)
    chosen = resolve_multiclass_priors(labels, prior)
    prev = np.asarray(concentration_of(chosen["prevalence"], (k,)), dtype=float)
    rates = np.asarray(concentration_of(chosen["rates"], (k, k)), dtype=float)
    total = rates.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        joint = np.where(total[:, None, None] > 0,
                         rates[:, :, None] * rates[:, None, :] / total[:, None, None], 0.0)
    record = {"dist": "paired", "name": chosen["rates"].name, "prevalence": prev.tolist(),
              "rates": rates.tolist()}
    return (prev, joint), record


def _rng(seq: np.random.SeedSequence) -> tuple[np.random.Generator, np.random.Generator]:
    post, prior = streams(seq, 2)
    return post, prior


# ---------------------------------------------------------------------------- metrics
