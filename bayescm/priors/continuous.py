r"""Priors of unbounded and positive parameters: Normal, HalfNormal, LogNormal, and LKJ.

The NUTS models (the hierarchical model's logit-scale means, scales and correlation; the
parametric ROC models' class means, sds and Beta shapes) take these, as the confusion-matrix
models take :class:`~bayescm.Beta` and :class:`~bayescm.Dirichlet`: the same protocol
(:class:`~bayescm.priors.PriorSpec`), so every prior the package accepts makes its own PyMC
variable (``create_variable(name, dims=)``), draws itself with NumPy (``sample``), describes
itself (``to_dict``, rebuilt by :func:`~bayescm.priors.from_dict`) and says it has no
conjugate family (these are sampled with NUTS).

A parameter may be one number or a sequence of numbers, one per entry of the variable's dims
(one per classifier of a parametric ROC fit, whose defaults are scaled to each classifier's own
scores).

============  ====================================================  ==================
prior         density                                               support
============  ====================================================  ==================
Normal        :math:`\mathcal N(\mu, \sigma)`                       real line
HalfNormal    :math:`|\mathcal N(0, \sigma)|`                       :math:`x > 0`
LogNormal     :math:`\log x \sim \mathcal N(\mu, \sigma)`           :math:`x > 0`
LKJ           :math:`(r + 1) / 2 \sim \mathrm{Beta}(\eta, \eta)`    :math:`-1 < r < 1`
============  ====================================================  ==================

See Also
--------
bayescm.priors : The one prior system.

Examples
--------
>>> import bayescm as bcm
>>> bcm.priors.HalfNormal(0.5).to_dict()
{'dist': 'HalfNormal', 'sigma': 0.5}
>>> bcm.priors.from_dict({"dist": "Normal", "mu": 0, "sigma": 2})
Normal(mu=0.0, sigma=2.0)
>>> draws = bcm.priors.LKJ(2).sample(random_seed=0, size=3)
>>> draws.shape, bool(((draws > -1) & (draws < 1)).all())
((3,), True)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np

from bayescm.core.validate import unmasked
from bayescm.priors.protocol import Family, PriorSpec, as_rng, size_tuple

if TYPE_CHECKING:
    from pytensor.tensor.variable import TensorVariable

__all__ = ["LKJ", "ContinuousPrior", "HalfNormal", "LogNormal", "Normal", "Value"]

Value = float | tuple[float, ...]
"""One number, or one per entry of the variable's dims (one per classifier)."""


def _value(value: Any, what: str, positive: bool) -> Value:
    """A float or a tuple of floats, finite (and > 0 when ``positive``), else an error."""
    if isinstance(value, (str, bytes, bool, np.bool_)):
        raise TypeError(f"{what} must be a number or a sequence of numbers, got {value!r}.")
    try:
        arr = np.asarray(unmasked(value, what), dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{what} must be a number or a sequence of numbers, got "
                        f"{value!r}.") from None
    if arr.ndim > 1 or arr.size == 0 or not np.all(np.isfinite(arr)):
        raise ValueError(f"{what} must be a finite number or a 1-d sequence of them (one per "
                         f"classifier), got {value!r}.")
    if positive and np.any(arr <= 0):
        raise ValueError(f"{what} must be > 0, got {value!r}.")
    return float(arr) if arr.ndim == 0 else tuple(float(v) for v in arr)


class ContinuousPrior(PriorSpec):
    """Shared behaviour: validation, the PyMC variable, NumPy draws, ``to_dict``/``from_dict``.

    Subclasses are frozen dataclasses that name their PyMC distribution (``dist``), their
    parameters that must be positive, and how NumPy draws them (:meth:`_draw`).

    See Also
    --------
    Normal, HalfNormal, LogNormal, LKJ : The priors built on it.
    bayescm.priors.PriorSpec : The protocol every prior follows.

    Examples
    --------
    >>> from bayescm.priors import HalfNormal, Normal
    >>> Normal(1, 2).conjugate, HalfNormal(1).family is None
    (False, True)
    """

    dist: ClassVar[str]
    positive: ClassVar[tuple[str, ...]] = ()
    conjugate: ClassVar[bool] = False
    family: ClassVar[Family | None] = None

    def __post_init__(self) -> None:
        for f in fields(self):  # type: ignore[arg-type]
            checked = _value(getattr(self, f.name), f"{self.dist} {f.name}",
                             f.name in self.positive)
            object.__setattr__(self, f.name, checked)

    @property
    def name(self) -> str:
        """Short name used in messages and serialisation."""
        return self.dist.lower()

    def _kwargs(self) -> dict[str, np.ndarray]:
        return {f.name: np.asarray(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]

    def create_variable(self, name: str, dims: Any = None) -> TensorVariable:
        """The variable ``name`` (with ``dims``) in the current ``pm.Model``.

        Parameters
        ----------
        name : str
            Name of the variable.
        dims : str or tuple of str, optional
            Its dims (a parameter given per classifier needs ``dims="classifier"``).

        Returns
        -------
        pytensor.tensor.variable.TensorVariable
            The random variable, registered in the model.

        See Also
        --------
        sample : Draws from the prior with NumPy instead.
        bayescm.build_model : Builds the model whose variables these are.

        Examples
        --------
        >>> import pymc as pm
        >>> from bayescm.priors import HalfNormal
        >>> with pm.Model() as model:
        ...     _ = HalfNormal(0.5).create_variable("sd_logit_tpr")
        >>> list(model.named_vars)
        ['sd_logit_tpr']
        """
        import pymc as pm

        return getattr(pm, self.dist)(name, dims=dims, **self._kwargs())

    def sample(self, random_seed: Any = None, size: Any = None) -> np.ndarray:
        """Draws from the prior with NumPy.

        Parameters
        ----------
        random_seed : int or numpy Generator, optional
            Same seed, same draws.
        size : int or tuple of int, optional
            Leading shape of the draws (a parameter given per classifier adds its axis).

        Returns
        -------
        numpy.ndarray
            ``size`` (plus the parameters' own axis) draws.

        See Also
        --------
        create_variable : The same prior as a PyMC variable.

        Examples
        --------
        >>> from bayescm.priors import LogNormal
        >>> draws = LogNormal(0, 1).sample(random_seed=1, size=(2, 3))
        >>> draws.shape, bool((draws > 0).all())
        ((2, 3), True)
        """
        rng = as_rng(random_seed)
        shape = size_tuple(size) + np.broadcast_shapes(
            *(np.shape(v) for v in self._kwargs().values()))
        return self._draw(rng, shape)

    def _draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover - every subclass draws

    def to_dict(self) -> dict[str, Any]:
        """JSON-compatible description (:func:`bayescm.priors.from_dict` rebuilds it).

        Returns
        -------
        dict
            ``{"dist": ..., <parameter>: ...}``; per-classifier values as lists.

        See Also
        --------
        from_dict : The inverse.
        bayescm.priors.from_dict : Reads every prior form.

        Examples
        --------
        >>> from bayescm.priors import Normal
        >>> Normal(0.5, [1.0, 2.0]).to_dict()
        {'dist': 'Normal', 'mu': 0.5, 'sigma': [1.0, 2.0]}
        """
        out: dict[str, Any] = {"dist": self.dist}
        for f in fields(self):  # type: ignore[arg-type]
            v = getattr(self, f.name)
            out[f.name] = list(v) if isinstance(v, tuple) else v
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Any:
        """The prior described by ``data`` (what :meth:`to_dict` wrote).

        Parameters
        ----------
        data : mapping
            ``{"dist": ..., <parameter>: ...}``.

        Returns
        -------
        ContinuousPrior
            The prior.

        Raises
        ------
        ValueError
            Another distribution, or an unknown key.

        See Also
        --------
        to_dict : The inverse.
        bayescm.priors.from_dict : Reads every prior form.

        Examples
        --------
        >>> from bayescm.priors import Normal
        >>> Normal.from_dict({"dist": "Normal", "mu": 0, "sigma": 1})
        Normal(mu=0.0, sigma=1.0)
        """
        if str(data.get("dist", "")).lower() != cls.dist.lower():
            raise ValueError(f"{dict(data)!r} does not describe a {cls.dist} prior.")
        names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
        extra = set(data) - names - {"dist", "name"}
        if extra:
            raise ValueError(f"Unknown key {sorted(extra)[0]!r} in a {cls.dist} prior; allowed: "
                             f"{', '.join(sorted(names))}.")
        return cls(**{k: v for k, v in data.items() if k in names})


@dataclass(frozen=True)
class Normal(ContinuousPrior):
    r"""A normal prior on an unbounded parameter: ``Normal(mu, sigma)``.

    .. math:: p(x) \propto \exp\left(-\frac{(x - \mu)^2}{2 \sigma^2}\right)

    The hierarchical model's logit-scale means (``mu_logit_tpr``; default ``Normal(0, 2)``:
    rates from about 2 % to 98 %) and the binormal model's class means.

    Parameters
    ----------
    mu : float or sequence of float, default 0
        Mean.
    sigma : float or sequence of float, default 1
        Standard deviation (> 0).

    See Also
    --------
    bayescm.priors.from_dict : Rebuilds it from its to_dict().
    bayescm.fit : Takes it in priors={...} of a NUTS model.

    Examples
    --------
    >>> from bayescm.priors import Normal
    >>> draws = Normal(0, 2).sample(random_seed=0, size=100_000)
    >>> bool(abs(draws.std() - 2) < 0.03)   # Monte-Carlo error about 0.005
    True
    """

    dist: ClassVar[str] = "Normal"
    positive: ClassVar[tuple[str, ...]] = ("sigma",)
    mu: Value = 0.0
    sigma: Value = 1.0

    def _draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return rng.normal(np.asarray(self.mu), np.asarray(self.sigma), shape)


@dataclass(frozen=True)
class HalfNormal(ContinuousPrior):
    r"""A half-normal prior on a scale: the absolute value of ``Normal(0, sigma)``.

    .. math:: p(x) \propto \exp\left(-\frac{x^2}{2 \sigma^2}\right), \quad x > 0

    The hierarchical model's between-group standard deviations on the logit scale (default
    ``HalfNormal(1)``: most mass below 2, i.e. groups whose odds differ by up to a factor of
    about 7) and the binormal model's class sds.

    Parameters
    ----------
    sigma : float or sequence of float, default 1
        Scale (> 0).

    See Also
    --------
    bayescm.priors.from_dict : Rebuilds it from its to_dict().
    bayescm.fit : Takes it in priors={...} of a NUTS model.

    Examples
    --------
    >>> from bayescm.priors import HalfNormal
    >>> bool((HalfNormal(0.5).sample(random_seed=0, size=100) > 0).all())
    True
    """

    dist: ClassVar[str] = "HalfNormal"
    positive: ClassVar[tuple[str, ...]] = ("sigma",)
    sigma: Value = 1.0

    def _draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return np.abs(rng.normal(0.0, np.asarray(self.sigma), shape))


@dataclass(frozen=True)
class LogNormal(ContinuousPrior):
    r"""A log-normal prior on a positive parameter: ``log x ~ Normal(mu, sigma)``.

    The bibeta model's Beta shapes (default ``LogNormal(0, 1.5)``: a median of 1, the uniform
    Beta, and 95 % between 0.05 and 19).

    Parameters
    ----------
    mu : float or sequence of float, default 0
        Mean of ``log x``.
    sigma : float or sequence of float, default 1.5
        Standard deviation of ``log x`` (> 0).

    See Also
    --------
    bayescm.priors.from_dict : Rebuilds it from its to_dict().
    bayescm.fit : Takes it in priors={...} of a NUTS model.

    Examples
    --------
    >>> from bayescm.priors import LogNormal
    >>> LogNormal(0, 1.5).to_dict()
    {'dist': 'LogNormal', 'mu': 0.0, 'sigma': 1.5}
    """

    dist: ClassVar[str] = "LogNormal"
    positive: ClassVar[tuple[str, ...]] = ("sigma",)
    mu: Value = 0.0
    sigma: Value = 1.5

    def _draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return rng.lognormal(np.asarray(self.mu), np.asarray(self.sigma), shape)


@dataclass(frozen=True)
class LKJ(ContinuousPrior):
    r"""The LKJ prior of one correlation: ``(r + 1) / 2 ~ Beta(eta, eta)``.

    For two variables the LKJ(eta) distribution of correlation matrices is this Beta on the
    one correlation: ``eta = 1`` is uniform on (-1, 1), larger ``eta`` favours small
    correlations. The hierarchical model's correlation of the two logit rates (default
    ``LKJ(2)``). Its PyMC variable is a ``Deterministic`` of a Beta variable named
    ``<name>_beta``.

    Parameters
    ----------
    eta : float, default 2
        Concentration (> 0).

    See Also
    --------
    bayescm.priors.from_dict : Rebuilds it from its to_dict().
    bayescm.fit : Takes it in priors={...} of a NUTS model.

    Examples
    --------
    >>> from bayescm.priors import LKJ
    >>> draws = LKJ(1).sample(random_seed=0, size=10_000)
    >>> bool(abs(draws.mean()) < 0.02 and draws.min() > -1)
    True
    """

    dist: ClassVar[str] = "LKJ"
    positive: ClassVar[tuple[str, ...]] = ("eta",)
    eta: Value = 2.0

    def create_variable(self, name: str, dims: Any = None) -> TensorVariable:
        """The correlation ``name`` in the current ``pm.Model`` (a rescaled Beta).

        Parameters
        ----------
        name : str
            Name of the correlation.
        dims : str or tuple of str, optional
            Its dims.

        Returns
        -------
        pytensor.tensor.variable.TensorVariable
            ``2 * <name>_beta - 1``, registered as a Deterministic.

        See Also
        --------
        sample : Draws from the prior with NumPy instead.
        bayescm.build_model : Builds the model whose variables these are.

        Examples
        --------
        >>> import pymc as pm
        >>> from bayescm.priors import LKJ
        >>> with pm.Model() as model:
        ...     _ = LKJ(2).create_variable("corr_logit")
        >>> sorted(model.named_vars)
        ['corr_logit', 'corr_logit_beta']
        """
        import pymc as pm

        eta = np.asarray(self.eta)
        half = pm.Beta(f"{name}_beta", alpha=eta, beta=eta, dims=dims)
        return pm.Deterministic(name, 2.0 * half - 1.0, dims=dims)

    def _draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        eta = np.asarray(self.eta)
        return 2.0 * rng.beta(eta, eta, shape) - 1.0
