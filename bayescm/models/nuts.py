"""What a NUTS fit tells the user about itself: convergence warnings with the remedy named.

``pm.sample``'s own checks are turned off (they print to the log and cost time on every fit);
:func:`warn_convergence` runs the few that matter on the draws and the sample statistics and
turns each problem into one :class:`ConvergenceWarning` that says what to do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from bayescm.core.arguments import warn_user

__all__ = ["ConvergenceWarning", "bfmi", "warn_convergence"]

RHAT_MAX = 1.01
ESS_MIN = 400
BFMI_MIN = 0.3


class ConvergenceWarning(UserWarning):
    """NUTS draws that may not represent the posterior (divergences, poor mixing)."""


def bfmi(energy: np.ndarray) -> np.ndarray:
    """Estimated Bayesian fraction of missing information per chain (``energy``: chain, draw).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.nuts import bfmi
    >>> bool(bfmi(np.random.default_rng(0).normal(size=(2, 1000)))[0] > 1)
    True
    """
    energy = np.asarray(energy, dtype=float)
    return np.square(np.diff(energy, axis=1)).mean(axis=1) / energy.var(axis=1)


def warn_convergence(stats: Any, diagnostics: Mapping[str, tuple[np.ndarray, np.ndarray]],
                     target_accept: float) -> list[str]:
    """Warn about divergences, low E-BFMI, high R-hat or low bulk ESS; return the problems.

    Parameters
    ----------
    stats : xarray.Dataset
        The ``sample_stats`` group (``diverging``, ``energy``).
    diagnostics : mapping of name -> (array, array)
        ``{variable: (r_hat, ess)}`` of the sampled parameters.
    target_accept : float
        The setting used (named in the remedy).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from bayescm.models.nuts import warn_convergence
    >>> stats = xr.Dataset({"diverging": (("chain", "draw"), np.zeros((2, 100), bool)),
    ...                     "energy": (("chain", "draw"), np.random.default_rng(0).normal(
    ...                         size=(2, 100)))})
    >>> warn_convergence(stats, {"tpr": (np.array(1.0), np.array(2000.0))}, 0.9)
    []
    """
    problems = []
    if "diverging" in stats:
        n = int(np.asarray(stats["diverging"].values).sum())
        if n:
            problems.append(
                f"{n} divergent transitions: the sampler met a region it could not follow, so the "
                f"draws may be biased. Raise target_accept (now {target_accept:g}; try 0.95 or "
                "0.99), reparameterise the prior (a non-centred form for hierarchies), or give "
                "the scales a stronger prior")
    if "energy" in stats:
        low = bfmi(stats["energy"].transpose("chain", "draw").values)
        if np.any(low < BFMI_MIN):
            problems.append(
                f"E-BFMI {float(low.min()):.2f} < {BFMI_MIN} in some chain: the momentum "
                "resampling explores the energy poorly (heavy tails, a funnel). Reparameterise "
                "the prior or use more tuning (tune=2000)")
    worst_r = max((float(np.nanmax(r)) for r, _ in diagnostics.values()), default=1.0)
    worst_e = min((float(np.nanmin(e)) for _, e in diagnostics.values()), default=np.inf)
    if worst_r > RHAT_MAX:
        problems.append(f"R-hat {worst_r:.3f} > {RHAT_MAX}: the chains disagree. Run more tuning "
                        "and draws (tune=2000, draws=2000) and check the prior")
    if worst_e < ESS_MIN:
        problems.append(f"bulk ESS {worst_e:.0f} < {ESS_MIN}: too few effective draws for "
                        "stable intervals. Draw more (draws=) or more chains")
    for problem in problems:
        warn_user(problem + ".", ConvergenceWarning)
    return problems
