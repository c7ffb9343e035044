"""Whether a parametric ROC model fits: its AUC against the model-free Bayesian bootstrap's.

A binormal or bibeta fit borrows strength from its assumed shape; when the shape is wrong
(scores far from normal within a class) its AUC is biased and its interval can exclude both the
truth and the observed AUC, with nothing in the fit itself to show it. The check here compares
the parametric AUC posterior with the Bayesian bootstrap's, which assumes no shape: both
estimate the same AUC from the same items, so their means agree to within their spreads when
the shape is right. A gap of more than :data:`AGREEMENT_Z` combined standard deviations is a
:class:`~bayescm.errors.MisspecificationWarning` naming the bootstrap.

Examples
--------
>>> import numpy as np
>>> from bayescm.models.roc_checks import auc_disagreement
>>> rng = np.random.default_rng(0)
>>> y = rng.random(400) < 0.5
>>> s = rng.normal(size=400) + y
>>> z = auc_disagreement(y, s, rng.normal(0.76, 0.02, size=2000), rng)
>>> bool(z < 2)
True
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from bayescm.core.arguments import warn_user
from bayescm.errors import MisspecificationWarning
from bayescm.models.roc import bayesian_bootstrap_weights, curve_draws

__all__ = ["AGREEMENT_Z", "auc_disagreement", "check_parametric_fit"]

AGREEMENT_Z = 1.25
"""Combined standard deviations between the parametric and the bootstrap AUC that count as
disagreement. The two posteriors share the items, so under the right shape their means differ
by far less than their spreads: over 30 simulated binormal data sets (n 60 to 1,000, AUC 0.64
to 0.96, unequal variances) the largest disagreement was 0.53; scores from an exponential
positive class against a normal-exponential mixture (n = 1,000) gave 1.62."""
BOOTSTRAP_DRAWS = 1000
"""Bootstrap draws of the check (its Monte-Carlo error is a thirtieth of the AUC's sd)."""


def auc_disagreement(y: np.ndarray, scores: np.ndarray, auc_draws: np.ndarray,
                     rng: np.random.Generator) -> float:
    """``|mean(parametric) - mean(bootstrap)| / sqrt(var(parametric) + var(bootstrap))``.

    Parameters
    ----------
    y : ndarray of bool
        True for positive items.
    scores : ndarray of float
        One classifier's scores.
    auc_draws : ndarray
        The parametric model's AUC draws for that classifier.
    rng : numpy.random.Generator
        The stream of the bootstrap's weights.

    Returns
    -------
    float
        The disagreement in combined standard deviations.
    """
    weights = bayesian_bootstrap_weights(rng, BOOTSTRAP_DRAWS, y.size)
    grid = np.array([0.0, 1.0])
    boot = curve_draws(y, scores, weights, grid, grid, (0.0, 1.0))["auc"]
    spread = float(np.sqrt(np.var(auc_draws) + np.var(boot)))
    gap = abs(float(np.mean(auc_draws)) - float(np.mean(boot)))
    return gap / spread if spread > 0 else (0.0 if gap == 0 else np.inf)


def check_parametric_fit(method: str, y: np.ndarray, scores: Mapping[str, np.ndarray],
                         auc: Mapping[str, np.ndarray], rng: np.random.Generator
                         ) -> dict[str, float]:
    """Warn for every classifier whose parametric AUC disagrees with the bootstrap's.

    Parameters
    ----------
    method : str
        ``"binormal"`` or ``"bibeta"`` (named in the message).
    y : ndarray of bool
        True for positive items.
    scores : mapping of name -> ndarray
        Each classifier's scores.
    auc : mapping of name -> ndarray
        Each classifier's parametric AUC draws.
    rng : numpy.random.Generator
        The stream of the bootstrap's weights.

    Returns
    -------
    dict of str -> float
        The disagreement of each classifier (:func:`auc_disagreement`).
    """
    out = {name: auc_disagreement(y, scores[name], auc[name], rng) for name in scores}
    bad = {k: v for k, v in out.items() if v > AGREEMENT_Z}
    if bad:
        named = ", ".join(f"{k} ({v:.1f} sd)" for k, v in bad.items())
        hint = (" The binormal model fits the raw scores: transform them first (the logit of "
                "a probability, the log of a positive score) if a transform makes each class "
                "normal." if method == "binormal" else "")
        warn_user(f"The {method} model's AUC disagrees with the model-free Bayesian "
                  f"bootstrap's for {named}: the scores do not follow the assumed shape, so "
                  "its intervals can exclude the truth. Use the bootstrap (the default "
                  f"method, bcm.fit(scores)) for these classifiers.{hint}",
                  MisspecificationWarning)
    return out
