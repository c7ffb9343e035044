"""Exact sampling: independent draws from the closed-form (conjugate) posterior with NumPy.

With Beta priors the binary model's posterior factorises into three Betas::

    prevalence ~ Beta(a + TP + FN, b + FP + TN)
    tpr        ~ Beta(a + TP, b + FN)
    tnr        ~ Beta(a + TN, b + FP)

Draws are vectorised over chains, draws and a batch of classifiers at once.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .priors import Beta, Fixed

__all__ = ["binary_posterior_parameters", "draw_beta"]


def binary_posterior_parameters(
    counts: np.ndarray, priors: dict[str, Any], names: list[str] | None = None
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Posterior Beta parameters ``(alpha, beta)`` of each free parameter for ``(B, 2, 2)`` counts.

    Raises a ``ValueError`` naming the parameter (and classifier) when an improper prior meets a
    zero count and the posterior would be improper.

    Examples
    --------
    >>> import numpy as np, bayescm as bcm
    >>> from bayescm.exact import binary_posterior_parameters
    >>> post = binary_posterior_parameters(np.array([[[26, 0], [2, 6]]]),
    ...                                    {p: bcm.Laplace() for p in ("prevalence", "tpr", "tnr")})
    >>> post["tpr"]
    (array([27.]), array([1.]))
    """
    tp, fn, fp, tn = (counts[:, i, j].astype(float) for i, j in ((0, 0), (0, 1), (1, 0), (1, 1)))
    data = {
        "prevalence": (tp + fn, fp + tn, "TP + FN (positives)", "FP + TN (negatives)"),
        "tpr": (tp, fn, "TP", "FN"),
        "tnr": (tn, fp, "TN", "FP"),
    }
    out: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for name, (succ, fail, s_name, f_name) in data.items():
        prior = priors[name]
        if isinstance(prior, Fixed):
            continue
        if not isinstance(prior, Beta):
            raise TypeError(f"The exact sampler needs a Beta prior for {name}, got {prior!r}.")
        a, b = prior.alpha + succ, prior.beta + fail
        bad = (a <= 0) | (b <= 0)
        if bad.any():
            i = int(np.argmax(bad))
            which = s_name if a[i] <= 0 else f_name
            who = f" of classifier {names[i]!r}" if names is not None else ""
            raise ValueError(
                f"The {prior.name} prior on {name}{who} gives an improper posterior because "
                f"{which} = 0. Use a proper prior for {name} (e.g. prior='jeffreys' or "
                f"{name}='laplace')."
            )
        out[name] = (a, b)
    return out


def draw_beta(
    rng: np.random.Generator, alpha: np.ndarray | float, beta: np.ndarray | float,
    chains: int, draws: int,
) -> np.ndarray:
    """Draws of shape ``(chains, draws, *shape(alpha))`` from Beta(alpha, beta).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.exact import draw_beta
    >>> draw_beta(np.random.default_rng(0), np.array([2.0, 3.0]), 1.0, 4, 10).shape
    (4, 10, 2)
    """
    alpha = np.asarray(alpha, dtype=float)
    beta = np.asarray(beta, dtype=float)
    shape = (chains, draws) + np.broadcast_shapes(alpha.shape, beta.shape)
    return rng.beta(alpha, beta, size=shape)
