"""From a user's prior argument (a name, a prior, a PreliZ distribution, a factory) to a prior."""

from __future__ import annotations

from typing import Any

from bayescm.core.validate import did_you_mean
from bayescm.priors.external import from_preliz, is_preliz
from bayescm.priors.presets import PRIOR_NAMES
from bayescm.priors.protocol import PriorFactory, PriorSpec

__all__ = ["resolve_prior"]


def resolve_prior(prior: Any, parameter: str) -> Any:
    """Turn a user's prior argument into a prior object.

    Parameters
    ----------
    prior : str, prior object, PreliZ distribution, or object with ``create_variable``
        ``"weak"``, ``"laplace"``, ``"jeffreys"``, ``"haldane"``, ``"flat"``
        (case-insensitive), a bayescm prior (:class:`Beta`, :class:`Fixed`,
        :class:`Dirichlet`, ...), a PreliZ distribution (see
        :func:`bayescm.priors.from_preliz`), or any PyMC distribution factory.
    parameter : str
        The parameter it is for, used in error messages.

    Returns
    -------
    object
        The prior object: a preset, a bayescm prior as given, a converted PreliZ distribution,
        or the factory itself.

    Raises
    ------
    ValueError
        An unknown preset name (the message lists the names).
    TypeError
        An object that is not a prior.

    See Also
    --------
    from_preliz : How PreliZ distributions are converted.
    resolve_multiclass_priors : The same for the multiclass model's priors.
    bayescm.fit : Where the prior arguments come from.

    Examples
    --------
    >>> from bayescm.priors import resolve_prior
    >>> resolve_prior("Jeffreys", "tpr")
    Jeffreys()
    """
    if isinstance(prior, str):
        key = prior.strip().lower()
        if key not in PRIOR_NAMES:
            names = ", ".join(sorted(set(PRIOR_NAMES)))
            raise ValueError(
                f"Unknown prior name {prior!r} for {parameter}; use one of {names}, "
                "or a prior object such as bcm.Beta(a, b)."
                f"{did_you_mean(key, PRIOR_NAMES)}"
            )
        return PRIOR_NAMES[key]()
    if isinstance(prior, PriorSpec):
        return prior
    if is_preliz(prior):
        return from_preliz(prior, parameter)
    if isinstance(prior, PriorFactory):
        return prior
    raise TypeError(
        f"Cannot use {prior!r} as the prior of {parameter}: pass a name (laplace, jeffreys, "
        "haldane), a bcm.Beta / bcm.Fixed / bcm.Dirichlet, a PreliZ distribution such as "
        "preliz.Beta(mu=0.9, sigma=0.05), or an object with create_variable(name) such as a "
        "pymc-extras Prior."
    )
