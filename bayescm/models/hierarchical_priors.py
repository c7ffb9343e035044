"""The hierarchical model's priors: logit-scale normals, half-normal scales, an LKJ correlation.

Each makes its own PyMC variable (``create_variable``) and serialises itself (``to_dict``);
``priors={...}`` on ``bcm.fit(..., model="hierarchical")`` is merged over
:func:`default_priors` by :func:`resolve_priors`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bayescm.core.validate import check_real

if TYPE_CHECKING:
    from pytensor.tensor.variable import TensorVariable

__all__ = ["HIERARCHICAL_PARAMETERS", "LKJ", "HalfNormal", "Normal", "default_priors",
           "resolve_priors"]



HIERARCHICAL_PARAMETERS = ("mu_logit_tpr", "mu_logit_tnr", "sd_logit_tpr", "sd_logit_tnr",
                           "corr_logit", "prevalence")
"""Parameters whose priors can be swapped (``priors={name: prior}``)."""


@dataclass(frozen=True)
class Normal:
    """A normal prior on a logit-scale location; makes its own PyMC variable.

    Examples
    --------
    >>> from bayescm.models.hierarchical_priors import Normal
    >>> Normal(1.0, 0.5).to_dict()
    {'dist': 'Normal', 'mu': 1.0, 'sigma': 0.5}
    """

    mu: float = 0.0
    sigma: float = 2.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "mu", check_real(self.mu, "Normal's mu"))
        object.__setattr__(self, "sigma", check_real(self.sigma, "Normal's sigma", 0.0,
                                                     low_open=True))

    def create_variable(self, name: str, dims: Any = None) -> TensorVariable:
        """The variable ``name`` in the current ``pm.Model``."""
        import pymc as pm

        return pm.Normal(name, mu=self.mu, sigma=self.sigma, dims=dims)

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible description."""
        return {"dist": "Normal", "mu": self.mu, "sigma": self.sigma}


@dataclass(frozen=True)
class HalfNormal:
    """A half-normal prior on a between-group standard deviation (logit scale).

    Examples
    --------
    >>> from bayescm.models.hierarchical_priors import HalfNormal
    >>> HalfNormal(0.5).to_dict()
    {'dist': 'HalfNormal', 'sigma': 0.5}
    """

    sigma: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "sigma", check_real(self.sigma, "HalfNormal's sigma", 0.0,
                                                     low_open=True))

    def create_variable(self, name: str, dims: Any = None) -> TensorVariable:
        """The variable ``name`` in the current ``pm.Model``."""
        import pymc as pm

        return pm.HalfNormal(name, sigma=self.sigma, dims=dims)

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible description."""
        return {"dist": "HalfNormal", "sigma": self.sigma}


@dataclass(frozen=True)
class LKJ:
    """LKJ(eta) prior on the correlation of the two logits: ``(r + 1) / 2 ~ Beta(eta, eta)``.

    Examples
    --------
    >>> from bayescm.models.hierarchical_priors import LKJ
    >>> LKJ(2.0).to_dict()
    {'dist': 'LKJ', 'eta': 2.0}
    """

    eta: float = 2.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "eta", check_real(self.eta, "LKJ's eta", 0.0, low_open=True))

    def create_variable(self, name: str, dims: Any = None) -> TensorVariable:
        """The correlation ``name`` in the current ``pm.Model``."""
        import pymc as pm

        half = pm.Beta(f"{name}_beta", alpha=self.eta, beta=self.eta)
        return pm.Deterministic(name, 2.0 * half - 1.0)

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible description."""
        return {"dist": "LKJ", "eta": self.eta}


def default_priors() -> dict[str, Any]:
    """The weakly informative defaults (see the module notes).

    Examples
    --------
    >>> from bayescm.models.hierarchical_priors import default_priors
    >>> sorted(default_priors())[:2]
    ['corr_logit', 'mu_logit_tnr']
    """
    from bayescm.priors import Laplace

    return {"mu_logit_tpr": Normal(0.0, 2.0), "mu_logit_tnr": Normal(0.0, 2.0),
            "sd_logit_tpr": HalfNormal(1.0), "sd_logit_tnr": HalfNormal(1.0),
            "corr_logit": LKJ(2.0), "prevalence": Laplace()}


def resolve_priors(priors: Mapping[str, Any] | None) -> dict[str, Any]:
    """Defaults merged under the user's ``{parameter: prior}``; unknown names are an error.

    Examples
    --------
    >>> from bayescm.models.hierarchical_priors import HalfNormal, resolve_priors
    >>> resolve_priors({"sd_logit_tpr": HalfNormal(0.5)})["sd_logit_tpr"]
    HalfNormal(sigma=0.5)
    """
    from bayescm.priors import Beta, resolve_prior

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
        elif not hasattr(value, "create_variable"):
            raise TypeError(f"The prior of {key} must make its own variable (an object with "
                            "create_variable(name), e.g. bcm.hierarchical.Normal(0, 1) or a "
                            f"pymc-extras Prior), got {value!r}.")
        out[key] = value
    return out
