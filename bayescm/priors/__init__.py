"""Prior specifications: small, validated, serialisable objects that make their own variables."""

from bayescm.priors.base import (
    PRIOR_NAMES,
    Beta,
    Dirichlet,
    Fixed,
    Flat,
    Haldane,
    Jeffreys,
    Laplace,
    PriorFactory,
    Weak,
    is_conjugate,
    prior_to_dict,
    resolve_prior,
)

__all__ = ["PRIOR_NAMES", "Beta", "Dirichlet", "Fixed", "Flat", "Haldane", "Jeffreys",
           "Laplace", "PriorFactory", "Weak", "is_conjugate", "prior_to_dict", "resolve_prior"]
