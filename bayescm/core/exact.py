"""Exact sampling: independent draws from closed-form (conjugate) posteriors with NumPy.

Draws are vectorised over chains, draws, a batch of classifiers and classes at once; there is no
Python loop over draws.
"""

from __future__ import annotations

import numpy as np

__all__ = ["dirichlet_each", "draw_beta", "draw_dirichlet"]


def draw_beta(
    rng: np.random.Generator, alpha: np.ndarray | float, beta: np.ndarray | float,
    chains: int, draws: int,
) -> np.ndarray:
    """Draws of shape ``(chains, draws, *broadcast(alpha, beta).shape)`` from Beta(alpha, beta).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.exact import draw_beta
    >>> draw_beta(np.random.default_rng(0), np.array([2.0, 3.0]), 1.0, 4, 10).shape
    (4, 10, 2)
    """
    alpha = np.asarray(alpha, dtype=float)
    beta = np.asarray(beta, dtype=float)
    shape = (chains, draws) + np.broadcast_shapes(alpha.shape, beta.shape)
    return rng.beta(alpha, beta, size=shape)


def draw_dirichlet(rng: np.random.Generator, alpha: np.ndarray, chains: int, draws: int
                   ) -> np.ndarray:
    """Draws of shape ``(chains, draws, *alpha.shape)`` from Dirichlet(alpha) along the last axis.

    Normalised Gamma variates, so ``alpha`` may carry any leading batch shape (NumPy's own
    ``dirichlet`` takes a single vector). A component with ``alpha == 0`` is exactly 0.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.exact import draw_dirichlet
    >>> x = draw_dirichlet(np.random.default_rng(0), np.ones((5, 3)), 2, 100)
    >>> x.shape, bool(np.allclose(x.sum(-1), 1))
    ((2, 100, 5, 3), True)
    """
    alpha = np.asarray(alpha, dtype=float)
    gamma = rng.standard_gamma(alpha, size=(chains, draws) + alpha.shape)
    return _normalised(rng, gamma, alpha)


def dirichlet_each(rng: np.random.Generator, alpha: np.ndarray) -> np.ndarray:
    """One Dirichlet draw along the last axis for every row of ``alpha`` (any shape).

    Where :func:`draw_dirichlet` repeats one ``alpha`` over chains and draws, this draws from a
    different Dirichlet per row: a conditional posterior whose parameters are themselves
    posterior draws (the runs of a hierarchical fit given its population). Tiny parameters are
    handled as there.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.exact import dirichlet_each
    >>> alpha = np.array([[[1e-4, 1e-4, 1e-4]], [[50.0, 30.0, 20.0]]])  # (2, 1, 3)
    >>> x = dirichlet_each(np.random.default_rng(0), alpha)
    >>> x.shape, bool(np.allclose(x.sum(-1), 1))
    ((2, 1, 3), True)
    """
    alpha = np.asarray(alpha, dtype=float)
    return _normalised(rng, rng.standard_gamma(alpha), alpha)


def _normalised(rng: np.random.Generator, gamma: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    """Gamma variates divided by their row sums, redrawn in log space where all underflowed."""
    total = gamma.sum(axis=-1, keepdims=True)
    # A Gamma(a) variate with tiny a can underflow to 0 in every component; a fresh set is
    # then drawn via the log-space construction Gamma(a) = Gamma(a + 1) * U^(1/a).
    empty = total[..., 0] == 0
    if np.any(empty & (alpha.sum(-1) > 0)):
        log_g = np.log(rng.standard_gamma(alpha + 1.0, size=gamma.shape)) + np.log(
            rng.random(gamma.shape)) / np.where(alpha > 0, alpha, 1.0)
        log_g = np.where(alpha > 0, log_g, -np.inf)
        log_g -= log_g.max(axis=-1, keepdims=True)
        redo = np.exp(log_g)
        gamma = np.where(empty[..., None], redo, gamma)
        total = gamma.sum(axis=-1, keepdims=True)
    return gamma / total
