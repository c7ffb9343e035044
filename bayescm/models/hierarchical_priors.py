"""The hierarchical model's priors: logit-scale normals, half-normal scales, an LKJ correlation.

The priors are those of the one prior system (:class:`bayescm.priors.Normal`,
:class:`~bayescm.priors.HalfNormal`, :class:`~bayescm.priors.LKJ`), a PreliZ distribution or a
pymc-extras ``Prior``: each makes its own PyMC variable and serialises itself;
``priors={...}`` on ``bcm.fit(..., model="hierarchical")`` is merged over
:func:`default_priors` by :func:`resolve_priors`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bayescm.core.deprecation import moved
from bayescm.priors import continuous as priors

__all__ = ["HIERARCHICAL_PARAMETERS", "SUPPORT", "default_priors", "resolve_priors"]

__getattr__ = moved(__name__, {name: ("bayescm.priors", name)
                               for name in ("Normal", "HalfNormal", "LKJ")})

HIERARCHICAL_PARAMETERS = ("mu_logit_tpr", "mu_logit_tnr", "sd_logit_tpr", "sd_logit_tnr",
                           "corr_logit", "prevalence")
"""Parameters whose priors can be swapped (``priors={name: prior}``)."""
SUPPORT = {"mu_logit_tpr": "real", "mu_logit_tnr": "real", "sd_logit_tpr": "positive",
           "sd_logit_tnr": "positive", "corr_logit": "correlation"}
"""Where each population parameter lives (a PreliZ prior must lie within it)."""


def default_priors() -> dict[str, Any]:
    """The weakly informative defaults (see the module notes).

    Examples
    --------
    >>> from bayescm.models.hierarchical_priors import default_priors
    >>> sorted(default_priors())[:2]
    ['corr_logit', 'mu_logit_tnr']
    """
    from bayescm.priors import Laplace

    return {"mu_logit_tpr": priors.Normal(0.0, 2.0), "mu_logit_tnr": priors.Normal(0.0, 2.0),
            "sd_logit_tpr": priors.HalfNormal(1.0), "sd_logit_tnr": priors.HalfNormal(1.0),
            "corr_logit": priors.LKJ(2.0), "prevalence": Laplace()}


def resolve_priors(priors: Mapping[str, Any] | None) -> dict[str, Any]:
    """Defaults merged under the user's ``{parameter: prior}``; unknown names are an error.

    Examples
    --------
    >>> from bayescm.priors import HalfNormal
    >>> from bayescm.models.hierarchical_priors import resolve_priors
    >>> resolve_priors({"sd_logit_tpr": HalfNormal(0.5)})["sd_logit_tpr"]
    HalfNormal(sigma=0.5)
    """
    from bayescm.priors import Beta, resolve_nuts_prior, resolve_prior

    out = default_priors()
    if priors is None:
        return out
    if not isinstance(priors, Mapping):
        raise TypeError(f"priors must be a mapping {{parameter: prior}}, got {priors!r}.")
    unknown = [k for k in priors if k not in HIERARCHICAL_PARAMETERS]
    if unknown:
        raise ValueError(f"{unknown} are not parameters of the hierarchical model; valid keys: "
                         f"{', '.join(HIERARCHICAL_PARAMETERS)}.")
    for key, value in priors.items():
        if key == "prevalence":
            value = resolve_prior(value, "prevalence")
            if not isinstance(value, Beta) or not value.proper:
                raise TypeError("The hierarchical model's prevalence prior is a proper Beta "
                                "(e.g. 'laplace', 'jeffreys', bcm.Beta(a, b)).")
        else:
            value = resolve_nuts_prior(value, key, SUPPORT[key], scalar=True)
        out[key] = value
    return out
