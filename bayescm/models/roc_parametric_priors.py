"""Priors of the parametric ROC models: keys, defaults, and normal / half-normal / log-normal.

``bcm.fit(scores, method="binormal", priors={...})`` and ``method="bibeta"`` take priors keyed
by :data:`PARAMETERS` of the method; :func:`resolve_priors` merges them over
:func:`default_priors`. Each prior here makes its own PyMC variable over the ``classifier`` dim
(``create_variable(name, dims=)``), describes itself (``to_dict``) and is rebuilt from that
description (``from_dict``): :class:`bayescm.priors.Normal`, :class:`~bayescm.priors.HalfNormal`
and :class:`~bayescm.priors.LogNormal` of the one prior system, a PreliZ distribution or a
pymc-extras ``Prior``. A parameter may be one
number for every classifier or a sequence with one per classifier: the binormal defaults are
scaled to each classifier's own scores that way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bayescm.core.deprecation import moved
from bayescm.priors import continuous as priors
from bayescm.priors.protocol import Family, family_of

__all__ = ["BIBETA_PARAMETERS", "BINORMAL_PARAMETERS", "PARAMETERS", "default_priors",
           "prior_from_dict", "resolve_priors"]

__getattr__ = moved(__name__, {name: ("bayescm.priors", name)
                               for name in ("Normal", "HalfNormal", "LogNormal")})

BINORMAL_PARAMETERS = ("mu_pos", "sigma_pos", "mu_neg", "sigma_neg", "prevalence")
"""``priors={...}`` keys of ``method="binormal"``."""
BIBETA_PARAMETERS = ("alpha_pos", "beta_pos", "alpha_neg", "beta_neg", "prevalence")
"""``priors={...}`` keys of ``method="bibeta"``."""
PARAMETERS = {"binormal": BINORMAL_PARAMETERS, "bibeta": BIBETA_PARAMETERS}
"""The parameters of each parametric method, in the order they are stored."""

LONG_NAMES = {
    "mu_pos": "mean score of the positive class", "sigma_pos": "score sd of the positive class",
    "mu_neg": "mean score of the negative class", "sigma_neg": "score sd of the negative class",
    "alpha_pos": "Beta alpha of the positive class's scores",
    "beta_pos": "Beta beta of the positive class's scores",
    "alpha_neg": "Beta alpha of the negative class's scores",
    "beta_neg": "Beta beta of the negative class's scores",
}
"""Long names of the class-distribution parameters (the prevalence's is the catalogue's)."""


def prior_from_dict(data: Mapping[str, Any]) -> Any:
    """A prior of a parametric ROC model from its ``to_dict()`` (:func:`bayescm.priors.from_dict`).

    Examples
    --------
    >>> from bayescm.priors import LogNormal
    >>> from bayescm.models.roc_parametric_priors import prior_from_dict
    >>> prior_from_dict(LogNormal(0, 2).to_dict())
    LogNormal(mu=0.0, sigma=2.0)
    """
    from bayescm.priors import from_dict

    return from_dict(data)


def default_priors(method: str, scores: Sequence[np.ndarray]) -> dict[str, Any]:
    """The weakly informative defaults of ``method``, scaled to each classifier's scores.

    * binormal (scores in arbitrary units): with ``m`` and ``s`` the mean and sd of all of a
      classifier's scores (both classes pooled), ``mu_pos, mu_neg ~ Normal(m, 2 s)`` and
      ``sigma_pos, sigma_neg ~ HalfNormal(2 s)``: any class mean within a few pooled sds of the
      centre and any class sd up to several pooled sds are plausible, so a few items per class
      outweigh the prior. (The prior is set from the data it is then fitted to, an empirical
      Bayes shortcut that only fixes the units; give fixed priors for a strictly Bayesian
      analysis or a simulation-based calibration.)
    * bibeta (scores in [0, 1], no units): ``alpha_*, beta_* ~ LogNormal(0, 1.5)``, a median of
      1 (the uniform Beta) and 95 % between 0.05 and 19, from U-shaped to peaked densities.
    * ``prevalence ~ Beta(1, 1)`` (Laplace), as the binary model's default.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.roc_parametric_priors import default_priors
    >>> default_priors("binormal", [np.array([0.0, 2.0, 4.0])])["mu_pos"]
    Normal(mu=2.0, sigma=4.0)
    """
    from bayescm.priors import Laplace

    if method == "bibeta":
        return {**{p: priors.LogNormal(0.0, 1.5) for p in BIBETA_PARAMETERS[:4]},
                "prevalence": Laplace()}
    centre = [float(np.mean(s)) for s in scores]
    spread = [float(np.std(s, ddof=1)) if s.size > 1 else 0.0 for s in scores]
    spread = [2.0 * (v if v > 0 else max(abs(c), 1.0)) for v, c in zip(spread, centre,
                                                                         strict=True)]
    mu = centre[0] if len(centre) == 1 else tuple(centre)
    sd = spread[0] if len(spread) == 1 else tuple(spread)
    return {"mu_pos": priors.Normal(mu, sd), "sigma_pos": priors.HalfNormal(sd),
            "mu_neg": priors.Normal(mu, sd), "sigma_neg": priors.HalfNormal(sd),
            "prevalence": Laplace()}


def resolve_priors(method: str, overrides: Mapping[str, Any], scores: Sequence[np.ndarray]
                   ) -> dict[str, Any]:
    """The defaults of ``method`` merged under ``overrides``; unknown keys raise a TypeError.

    ``prevalence`` takes what the binary model's does (a name such as ``"jeffreys"``, a
    :class:`~bayescm.Beta`, a :class:`~bayescm.Fixed` value, a PreliZ or pymc-extras prior);
    the other keys :class:`~bayescm.priors.Normal`, :class:`~bayescm.priors.HalfNormal`,
    :class:`~bayescm.priors.LogNormal` (one value or one per classifier), a PreliZ distribution,
    or a pymc-extras ``Prior`` (with ``dims="classifier"`` when there are several classifiers).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.priors import Normal
    >>> from bayescm.models.roc_parametric_priors import resolve_priors
    >>> resolve_priors("binormal", {"mu_pos": Normal(1, 1)}, [np.zeros(3)])["mu_pos"]
    Normal(mu=1.0, sigma=1.0)
    >>> resolve_priors("bibeta", {"mu_pos": Normal(1, 1)}, [np.zeros(3)])
    Traceback (most recent call last):
    ...
    TypeError: ['mu_pos'] are not parameters of the bibeta model; valid keys: alpha_pos, ...
    """
    from bayescm.priors import Fixed, resolve_nuts_prior, resolve_prior

    valid = PARAMETERS[method]
    unknown = [k for k in overrides if k not in valid]
    if unknown:
        raise TypeError(f"{unknown} are not parameters of the {method} model; valid keys: "
                        f"{', '.join(valid)}.")
    out = default_priors(method, scores)
    for key, value in overrides.items():
        if key == "prevalence":
            value = resolve_prior(value, "prevalence")
            if isinstance(value, Fixed) and (np.ndim(value.value) != 0
                                             or not 0 < float(value.value) < 1):
                raise ValueError(f"A fixed prevalence of scored items is one number in (0, 1), "
                                 f"got {value.value!r}.")
            if family_of(value) is Family.DIRICHLET:
                raise TypeError(f"The prevalence of scored items is one proportion: give a Beta "
                                f"prior (or a Fixed value), got {value!r}.")
        else:
            value = resolve_nuts_prior(value, key, "real" if key.startswith("mu") else
                                       "positive")
        out[key] = value
    return out
