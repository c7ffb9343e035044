"""From a user's prior argument (a name, a prior, a PreliZ distribution, a factory) to a prior."""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from bayescm.core.arguments import did_you_mean
from bayescm.priors.external import from_preliz, is_preliz
from bayescm.priors.presets import PRIOR_NAMES
from bayescm.priors.protocol import PriorFactory, PriorSpec

__all__ = ["SUPPORTS", "resolve_nuts_prior", "resolve_prior"]


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
            number = _number(key)
            hint = (f" {prior!r} is a number, not a prior: a rate known exactly is "
                    f"bcm.Fixed({number:g}) (fixed({number:g}) on the command line, "
                    f"{{fixed = {number:g}}} in a spec's prior table), a rate known roughly a "
                    "Beta such as "
                    f"bcm.Beta.from_mean({number:g}, concentration=50)."
                    if number is not None else did_you_mean(key, PRIOR_NAMES))
            raise ValueError(
                f"Unknown prior name {prior!r} for {parameter}; use one of {names}, "
                f"or a prior object such as bcm.Beta(a, b).{hint}"
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


SUPPORTS = {"real": (-np.inf, np.inf), "positive": (0.0, np.inf), "correlation": (-1.0, 1.0),
            "proportion": (0.0, 1.0)}
"""The supports a parameter of a NUTS model can have (its prior's support must lie within)."""
_PRELIZ_AS_OWN = {"Normal": "Normal", "HalfNormal": "HalfNormal", "LogNormal": "LogNormal"}


def resolve_nuts_prior(prior: Any, parameter: str, support: str = "real", *,
                       scalar: bool = False) -> Any:
    """A user's prior of a NUTS model's parameter (a mean, a scale, a correlation) as a prior.

    Accepted: any bayescm prior (:class:`~bayescm.priors.Normal`, ``HalfNormal``,
    ``LogNormal``, ``LKJ``, ...), a PreliZ distribution (its Normal, HalfNormal and LogNormal
    become bayescm's own; any other whose support lies within the parameter's is sampled from
    its ``to_pymc``), or a pymc-extras ``Prior`` (any object with ``create_variable(name)``).

    Parameters
    ----------
    prior : object
        The user's prior.
    parameter : str
        The parameter it is for (messages).
    support : {"real", "positive", "correlation", "proportion"}, default "real"
        Where the parameter lives; a PreliZ distribution must lie within it.
    scalar : bool, default False
        Whether the parameter is one number (then a prior of one value per classifier, such
        as ``HalfNormal([1, 2])``, is refused).

    Returns
    -------
    object
        A prior that makes its own variable.

    Raises
    ------
    TypeError
        A name, a number or another object that makes no variable, a PreliZ distribution or a
        bayescm prior with too wide a support (a Normal of a standard deviation, a HalfNormal
        of a correlation), or a Dirichlet.
    ValueError
        With ``scalar=True``, a prior with a parameter of several values.

    See Also
    --------
    resolve_prior : The same for the proportions and class shares of the matrix models.
    bayescm.priors.continuous : The priors of means, scales and correlations.

    Examples
    --------
    >>> import preliz as pz
    >>> from bayescm.priors import resolve_nuts_prior
    >>> resolve_nuts_prior(pz.HalfNormal(0.5), "sd_logit_tpr", "positive")
    HalfNormal(sigma=0.5)
    >>> resolve_nuts_prior("laplace", "sd_logit_tpr", "positive")
    Traceback (most recent call last):
    ...
    TypeError: The prior of sd_logit_tpr must make its own variable (create_variable(name)): ...
    """
    from bayescm.priors import continuous
    from bayescm.priors.external import PreliZPrior, _params

    low, high = SUPPORTS[support]
    if isinstance(prior, PriorSpec):
        _check_support(prior, parameter, low, high)
        if scalar and dataclasses.is_dataclass(prior) and any(
                np.ndim(getattr(prior, f.name)) for f in dataclasses.fields(prior)):
            raise ValueError(f"{prior!r} has several values; {parameter} is one number: give "
                             "its prior one value per parameter.")
        return prior
    if not is_preliz(prior) and isinstance(prior, PriorFactory) and not isinstance(prior, str):
        return prior
    if is_preliz(prior):
        kind = type(prior).__name__
        params = _params(prior)
        lo, hi = (float(v) for v in getattr(prior, "support", (-np.inf, np.inf)))
        if lo < low or hi > high:
            raise TypeError(f"The PreliZ {kind} with support [{lo:g}, {hi:g}] cannot be the "
                            f"prior of {parameter}, which lies in ({low:g}, {high:g}).")
        if kind in _PRELIZ_AS_OWN and set(params) <= {"mu", "sigma"}:
            return getattr(continuous, _PRELIZ_AS_OWN[kind])(**params)
        return PreliZPrior(kind, params)
    raise TypeError(
        f"The prior of {parameter} must make its own variable (create_variable(name)): a "
        "bayescm prior such as "
        "bcm.priors.Normal(0, 1), bcm.priors.HalfNormal(0.5) or bcm.priors.LKJ(2), a PreliZ "
        f"distribution, or a pymc-extras Prior; got {prior!r}.")


def _support_of(prior: Any) -> tuple[float, float] | None:
    """The support of one of bayescm's own priors (None: a user's class, not checked here)."""
    kind = type(prior).__name__
    if kind == "Uniform":
        return float(np.min(prior.lower)), float(np.max(prior.upper))
    if kind == "Fixed":
        value = np.asarray(prior.value, dtype=float)
        return float(value.min()), float(value.max())
    return {"Normal": (-np.inf, np.inf), "HalfNormal": (0.0, np.inf),
            "LogNormal": (0.0, np.inf), "LKJ": (-1.0, 1.0), "Beta": (0.0, 1.0)}.get(kind)


def _check_support(prior: Any, parameter: str, low: float, high: float) -> None:
    """Refuse a bayescm prior whose support reaches outside the parameter's (or a Dirichlet)."""
    if type(prior).__name__ == "Dirichlet":
        raise TypeError(f"{prior!r} is a prior of class shares; {parameter} is one number: give "
                        "e.g. bcm.priors.Normal(mu, sigma) or bcm.priors.HalfNormal(sigma).")
    support = _support_of(prior)
    if support is None:
        return
    lo, hi = support
    fixed = type(prior).__name__ == "Fixed"
    if lo < low or hi > high or (fixed and (lo == low or hi == high)):
        raise TypeError(f"{prior!r} reaches [{lo:g}, {hi:g}], outside ({low:g}, {high:g}) where "
                        f"{parameter} lies; give a prior within it (a standard deviation: "
                        "HalfNormal or LogNormal; a correlation: LKJ; a mean on the logit "
                        "scale: Normal).")


def _number(text: str) -> float | None:
    """``text`` as a finite number in [0, 1] (a rate written where a prior belongs), else None."""
    try:
        value = float(text)
    except ValueError:
        return None
    return value if 0.0 <= value <= 1.0 else None
