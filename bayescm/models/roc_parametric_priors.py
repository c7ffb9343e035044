"""Priors of the parametric ROC models: keys, defaults, and normal / half-normal / log-normal.

``bcm.fit(scores, method="binormal", priors={...})`` and ``method="bibeta"`` take priors keyed
by :data:`PARAMETERS` of the method; :func:`resolve_priors` merges them over
:func:`default_priors`. Each prior here makes its own PyMC variable over the ``classifier`` dim
(``create_variable(name, dims=)``), describes itself (``to_dict``) and is rebuilt from that
description (``from_dict``), in the manner of pymc-extras' ``Prior``. A parameter may be one
number for every classifier or a sequence with one per classifier: the binormal defaults are
scaled to each classifier's own scores that way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

if TYPE_CHECKING:
    from pytensor.tensor.variable import TensorVariable

__all__ = ["BIBETA_PARAMETERS", "BINORMAL_PARAMETERS", "PARAMETERS", "HalfNormal", "LogNormal",
           "Normal", "default_priors", "prior_from_dict", "resolve_priors"]

Value = float | tuple[float, ...]
"""One number for every classifier, or one per classifier."""

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


def _value(value: Any, what: str, positive: bool) -> Value:
    """A float or a tuple of floats, finite (and > 0 when ``positive``), else an error."""
    if isinstance(value, (str, bytes, bool)):
        raise TypeError(f"{what} must be a number or a sequence of numbers, got {value!r}.")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a number or a sequence of numbers, got "
                        f"{value!r}.") from None
    if arr.ndim > 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"{what} must be a finite number or a 1-d sequence of them (one per "
                         f"classifier), got {value!r}.")
    if positive and np.any(arr <= 0):
        raise ValueError(f"{what} must be > 0, got {value!r}.")
    return float(arr) if arr.ndim == 0 else tuple(float(v) for v in arr)


class _Prior:
    """Shared behaviour: validation, the PyMC variable, ``to_dict`` and ``from_dict``."""

    dist: ClassVar[str]
    positive: ClassVar[tuple[str, ...]]

    def __post_init__(self) -> None:
        for f in fields(self):  # type: ignore[arg-type]
            checked = _value(getattr(self, f.name), f"{self.dist} {f.name}",
                             f.name in self.positive)
            object.__setattr__(self, f.name, checked)

    def _kwargs(self) -> dict[str, Any]:
        names = [f.name for f in fields(self)]  # type: ignore[arg-type]
        return {name: np.asarray(getattr(self, name)) for name in names}

    def create_variable(self, name: str, dims: Any = None) -> TensorVariable:
        """The variable ``name`` (with ``dims``) in the current ``pm.Model``."""
        import pymc as pm

        return getattr(pm, self.dist)(name, dims=dims, **self._kwargs())

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible description (:meth:`from_dict` rebuilds it)."""
        out: dict[str, Any] = {"dist": self.dist}
        for f in fields(self):  # type: ignore[arg-type]
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Any:
        """The prior described by ``data`` (what :meth:`to_dict` wrote)."""
        if data.get("dist") != cls.dist:
            raise ValueError(f"{dict(data)!r} does not describe a {cls.dist} prior.")
        names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        extra = set(data) - names - {"dist", "name"}
        if extra:
            raise ValueError(f"Unknown key {sorted(extra)[0]!r} in a {cls.dist} prior; allowed: "
                             f"{', '.join(sorted(names))}.")
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass(frozen=True)
class Normal(_Prior):
    """A normal prior (of a class's mean score): ``Normal(mu, sigma)``.

    Examples
    --------
    >>> from bayescm.models.roc_parametric_priors import Normal
    >>> Normal(0.5, [1.0, 2.0]).to_dict()
    {'dist': 'Normal', 'mu': 0.5, 'sigma': [1.0, 2.0]}
    >>> Normal.from_dict({"dist": "Normal", "mu": 0, "sigma": 1})
    Normal(mu=0.0, sigma=1.0)
    """

    dist: ClassVar[str] = "Normal"
    positive: ClassVar[tuple[str, ...]] = ("sigma",)
    mu: Value = 0.0
    sigma: Value = 1.0


@dataclass(frozen=True)
class HalfNormal(_Prior):
    """A half-normal prior (of a class's score sd): the normal ``|N(0, sigma)|``.

    Examples
    --------
    >>> from bayescm.models.roc_parametric_priors import HalfNormal
    >>> HalfNormal(2).to_dict()
    {'dist': 'HalfNormal', 'sigma': 2.0}
    """

    dist: ClassVar[str] = "HalfNormal"
    positive: ClassVar[tuple[str, ...]] = ("sigma",)
    sigma: Value = 1.0


@dataclass(frozen=True)
class LogNormal(_Prior):
    """A log-normal prior (of a Beta shape parameter): ``log x ~ Normal(mu, sigma)``.

    Examples
    --------
    >>> from bayescm.models.roc_parametric_priors import LogNormal
    >>> LogNormal(0, 1.5).to_dict()
    {'dist': 'LogNormal', 'mu': 0.0, 'sigma': 1.5}
    """

    dist: ClassVar[str] = "LogNormal"
    positive: ClassVar[tuple[str, ...]] = ("sigma",)
    mu: Value = 0.0
    sigma: Value = 1.5


def prior_from_dict(data: Mapping[str, Any]) -> Any:
    """A :class:`Normal`, :class:`HalfNormal` or :class:`LogNormal` from its ``to_dict()``.

    Examples
    --------
    >>> from bayescm.models.roc_parametric_priors import LogNormal, prior_from_dict
    >>> prior_from_dict(LogNormal(0, 2).to_dict())
    LogNormal(mu=0.0, sigma=2.0)
    """
    for cls in (Normal, HalfNormal, LogNormal):
        if data.get("dist") == cls.dist:
            return cls.from_dict(data)
    raise ValueError(f"{dict(data)!r} is not a Normal, HalfNormal or LogNormal prior.")


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
        return {**{p: LogNormal(0.0, 1.5) for p in BIBETA_PARAMETERS[:4]},
                "prevalence": Laplace()}
    centre = [float(np.mean(s)) for s in scores]
    spread = [float(np.std(s, ddof=1)) if s.size > 1 else 0.0 for s in scores]
    spread = [2.0 * (v if v > 0 else max(abs(c), 1.0)) for v, c in zip(spread, centre,
                                                                         strict=True)]
    mu = centre[0] if len(centre) == 1 else tuple(centre)
    sd = spread[0] if len(spread) == 1 else tuple(spread)
    return {"mu_pos": Normal(mu, sd), "sigma_pos": HalfNormal(sd), "mu_neg": Normal(mu, sd),
            "sigma_neg": HalfNormal(sd), "prevalence": Laplace()}


_EXAMPLES = {"mu": "Normal(0, 1)", "si": "HalfNormal(1)", "al": "LogNormal(0, 1)",
             "be": "LogNormal(0, 1)"}


def resolve_priors(method: str, overrides: Mapping[str, Any], scores: Sequence[np.ndarray]
                   ) -> dict[str, Any]:
    """The defaults of ``method`` merged under ``overrides``; unknown keys raise a TypeError.

    ``prevalence`` takes what the binary model's does (a name such as ``"jeffreys"``, a
    :class:`~bayescm.Beta`, a :class:`~bayescm.Fixed` value, a PreliZ or pymc-extras prior);
    the other keys any object with ``create_variable(name)``: :class:`Normal`,
    :class:`HalfNormal`, :class:`LogNormal` (one value or one per classifier), or a pymc-extras
    ``Prior`` (with ``dims="classifier"`` when there are several classifiers).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.roc_parametric_priors import Normal, resolve_priors
    >>> resolve_priors("binormal", {"mu_pos": Normal(1, 1)}, [np.zeros(3)])["mu_pos"]
    Normal(mu=1.0, sigma=1.0)
    >>> resolve_priors("bibeta", {"mu_pos": Normal(1, 1)}, [np.zeros(3)])
    Traceback (most recent call last):
    ...
    TypeError: ['mu_pos'] are not parameters of the bibeta model; valid keys: alpha_pos, ...
    """
    from bayescm.priors import Fixed, resolve_prior

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
            if getattr(value, "family", None) == "dirichlet":
                raise TypeError(f"The prevalence of scored items is one proportion: give a Beta "
                                f"prior (or a Fixed value), got {value!r}.")
        elif not hasattr(value, "create_variable"):
            raise TypeError(f"The prior of {key} must make its own variable (an object with "
                            f"create_variable(name), e.g. {_EXAMPLES[key[:2]]} from "
                            f"bayescm.models.roc_parametric, or a pymc-extras Prior), got "
                            f"{value!r}.")
        out[key] = value
    return out
