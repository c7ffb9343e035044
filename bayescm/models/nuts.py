"""What a NUTS fit tells the user about itself: convergence warnings with the remedy named.

``pm.sample``'s own checks are turned off (they print to the log and cost time on every fit);
every NUTS path of the package (custom priors, parametric scores, hierarchical fits and the
later kinds) calls :func:`warn_convergence`, which runs the checks that matter on the sampled
parameters and the sample statistics (divergences, E-BFMI, R-hat, bulk and tail ESS) and turns
each problem into one :class:`ConvergenceWarning` that says what to do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from bayescm.core.arguments import warn_user
from bayescm.errors import ConvergenceWarning

__all__ = ["ConvergenceWarning", "bfmi", "convergence_problems", "warn_convergence"]

RHAT_MAX = 1.01
ESS_MIN = 400
BFMI_MIN = 0.3


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


def convergence_problems(stats: Any, draws: Mapping[str, np.ndarray], target_accept: float,
                         remedy: str = "") -> list[str]:
    """The problems of a NUTS fit, each with what to do (the one check of every NUTS path).

    Checked: divergent transitions, E-BFMI below :data:`BFMI_MIN` in some chain, rank-normalised
    R-hat above :data:`RHAT_MAX`, bulk or tail ESS below :data:`ESS_MIN` (Vehtari et al. 2021),
    on the sampled parameters' draws.

    Parameters
    ----------
    stats : xarray.Dataset
        The ``sample_stats`` group (``diverging``, ``energy``).
    draws : mapping of name -> ndarray
        The sampled parameters' draws, ``(chain, draw, ...)``.
    target_accept : float
        The setting used (named in the remedy).
    remedy : str, optional
        The kind's own advice, added to the divergence and E-BFMI remedies (e.g. a stronger
        prior on the between-group scales of a hierarchical model).

    Returns
    -------
    list of str
        One sentence per problem (empty when the fit passes).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from bayescm.models.nuts import convergence_problems
    >>> rng = np.random.default_rng(0)
    >>> stats = xr.Dataset({"diverging": (("chain", "draw"), np.zeros((2, 500), bool)),
    ...                     "energy": (("chain", "draw"), rng.normal(size=(2, 500)))})
    >>> convergence_problems(stats, {"tpr": rng.normal(size=(2, 500))}, 0.9)
    []
    >>> stuck = np.stack([rng.normal(size=500), rng.normal(3, 1, size=500)])
    >>> convergence_problems(stats, {"tpr": stuck}, 0.9)[0][:25]
    'R-hat 1.74 > 1.01 for tpr'
    """
    from bayescm.core.diagnostics import ess, rhat

    extra = f" {remedy}" if remedy else ""
    problems = []
    if "diverging" in stats:
        n = int(np.asarray(stats["diverging"].values).sum())
        if n:
            problems.append(
                f"{n} divergent transitions: the sampler met a region it could not follow, so "
                f"the draws may be biased. Raise target_accept (now {target_accept:g}; try "
                f"0.95 or 0.99), reparameterise the prior (a non-centred form for hierarchies), "
                f"or give the scales a stronger prior.{extra}")
    if "energy" in stats:
        low = bfmi(stats["energy"].transpose("chain", "draw").values)
        if np.any(low < BFMI_MIN):
            problems.append(
                f"E-BFMI {float(low.min()):.2f} < {BFMI_MIN} in some chain: the momentum "
                "resampling explores the energy poorly (heavy tails, a funnel). Reparameterise "
                f"the prior or use more tuning (tune=2000).{extra}")
    worst: dict[str, tuple[float, str]] = {}
    for name, values in draws.items():
        x = np.asarray(values, dtype=float)
        if x.ndim < 2 or x.shape[0] * x.shape[1] < 8 or not np.isfinite(x).all():
            continue
        for what, value in (("r_hat", float(np.nanmax(rhat(x, "rank")))),
                            ("bulk", float(np.nanmin(ess(x, "bulk")))),
                            ("tail", float(np.nanmin(ess(x, "tail"))))):
            bad = value > RHAT_MAX if what == "r_hat" else value < ESS_MIN
            if bad and (what not in worst or (value > worst[what][0] if what == "r_hat"
                                              else value < worst[what][0])):
                worst[what] = (value, name)
    if "r_hat" in worst:
        value, name = worst["r_hat"]
        shown = f"{value:.3g}" if float(f"{value:.3g}") > RHAT_MAX else f"{value:.4f}"
        problems.append(f"R-hat {shown} > {RHAT_MAX} for {name}: the chains disagree. Run "
                        "more tuning and draws (tune=2000, draws=2000) and check the prior.")
    for what in ("bulk", "tail"):
        if what in worst:
            value, name = worst[what]
            where = "the centre" if what == "bulk" else "the 5 % and 95 % quantiles"
            problems.append(f"{what} ESS {value:.0f} < {ESS_MIN} for {name}: too few effective "
                            f"draws to pin down {where} (the interval ends). Draw more "
                            "(draws=) or more chains.")
    return problems


def warn_convergence(stats: Any, draws: Mapping[str, np.ndarray], target_accept: float,
                     remedy: str = "") -> list[str]:
    """Issue one :class:`ConvergenceWarning` per problem of :func:`convergence_problems`.

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from bayescm.models.nuts import warn_convergence
    >>> stats = xr.Dataset({"diverging": (("chain", "draw"), np.zeros((2, 100), bool))})
    >>> warn_convergence(stats, {}, 0.9)
    []
    """
    problems = convergence_problems(stats, draws, target_accept, remedy)
    for problem in problems:
        warn_user(problem, ConvergenceWarning)
    return problems
