"""The prior protocol: what every bayescm prior can do, and the checks they share.

A bayescm prior is a small frozen object. It answers questions about itself instead of being
sorted by ``isinstance`` in the callers:

* ``family``: the conjugate family it belongs to
  (:class:`~bayescm.priors.protocol.Family`), or None; callers ask
  :func:`~bayescm.priors.protocol.conjugate_to` instead of comparing names;
* ``fixed``: whether it is a known constant (:class:`~bayescm.Fixed`) rather than a distribution;
* ``proper``: whether it integrates to one (Haldane does not);
* ``conjugate``: whether the exact (closed-form) sampler can use it.

and it acts: ``create_variable(name, dims=None)`` makes its PyMC variable in the current model,
``to_dict()`` describes it (:func:`bayescm.priors.from_dict` rebuilds it), ``update(...)`` gives
the closed-form posterior, ``sample(rng, size)`` / ``draw(rng, chains, draws)`` draw from it with
NumPy, and ``for_classes(k, role)`` turns it into a prior of the multiclass model.

Any other object with ``create_variable(name)`` (the protocol of pymc-extras' ``Prior``) is
accepted as a :class:`PriorFactory` and sampled with NUTS.
"""

from __future__ import annotations

import math
from enum import StrEnum
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, runtime_checkable

import numpy as np

from bayescm.core.validate import check_real

if TYPE_CHECKING:
    from pytensor.tensor.variable import TensorVariable

__all__ = ["Family", "PriorFactory", "PriorSpec", "conjugate_to", "family_of", "is_conjugate"]


class Family(StrEnum):
    """The conjugate families the exact samplers know; a prior and a parameter declare one.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.priors.protocol import Family, conjugate_to
    >>> jeffreys = bcm.priors.Jeffreys()
    >>> conjugate_to(jeffreys, Family.BETA), conjugate_to(jeffreys, Family.DIRICHLET)
    (True, False)
    """

    BETA = "beta"
    """One proportion, conjugate to a binomial count (prevalence, TPR, TNR)."""
    DIRICHLET = "dirichlet"
    """A probability vector, conjugate to multinomial counts (class shares, a row of rates)."""


def family_of(prior: Any) -> Family | None:
    """The conjugate family a prior declares (None for factories and non-conjugate priors).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.priors.protocol import family_of
    >>> family_of(bcm.Dirichlet([1, 1])), family_of(object())
    (<Family.DIRICHLET: 'dirichlet'>, None)
    """
    value = getattr(prior, "family", None)
    return Family(value) if value is not None else None


def conjugate_to(prior: Any, family: Family) -> bool:
    """Whether the exact sampler of a ``family`` parameter can use ``prior`` (proper or not).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.priors.protocol import Family, conjugate_to
    >>> conjugate_to(bcm.priors.Normal(0, 1), Family.BETA)
    False
    """
    return is_conjugate(prior) and family_of(prior) is family


@runtime_checkable
class PriorFactory(Protocol):
    """Anything that can create a PyMC random variable inside a model context.

    See Also
    --------
    bayescm.priors.PriorSpec : The richer interface of bayescm's own priors.
    bayescm.fit : Samples a factory that is not conjugate with NUTS.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.priors import PriorFactory
    >>> isinstance(bcm.Beta(2, 3), PriorFactory)
    True
    """

    def create_variable(self, name: str) -> Any:  # pragma: no cover - protocol
        """Create the variable ``name`` in the current ``pm.Model``.

        Parameters
        ----------
        name : str
            Name of the variable.

        Returns
        -------
        object
            The PyMC variable.

        See Also
        --------
        bayescm.priors.PriorSpec.create_variable : Bayescm's own priors, with ``dims``.

        Examples
        --------
        >>> import pymc as pm, bayescm as bcm
        >>> with pm.Model() as model:
        ...     _ = bcm.Beta(2, 3).create_variable("tpr")
        >>> list(model.named_vars)
        ['tpr']
        """


class PriorSpec:
    """Base class of bayescm's own priors: the attributes and methods callers may rely on.

    Subclasses set ``family`` and implement ``create_variable``, ``to_dict`` and the draws;
    the defaults here say "not a constant, proper, conjugate".

    See Also
    --------
    bayescm.priors.PriorFactory : The minimal interface (any object with ``create_variable``).
    bayescm.priors.register_prior_form : Teach :func:`~bayescm.priors.from_dict` a new prior.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.priors import PriorSpec
    >>> prior = bcm.priors.Jeffreys()
    >>> isinstance(prior, PriorSpec), str(prior.family), prior.fixed, prior.proper
    (True, 'beta', False, True)
    """

    family: ClassVar[Family | None] = None
    """Conjugate family (:class:`~bayescm.priors.protocol.Family`): ``BETA`` (one proportion),
    ``DIRICHLET`` (a vector) or None; callers ask
    :func:`~bayescm.priors.protocol.conjugate_to`."""
    fixed: ClassVar[bool] = False
    """True for a known constant (no random variable, no likelihood for it)."""
    conjugate: ClassVar[bool] = True
    """Whether the exact (closed-form) sampler can use it."""

    @property
    def name(self) -> str:
        """Short name used in messages and serialisation."""
        return type(self).__name__.lower()

    @property
    def proper(self) -> bool:
        """Whether the prior integrates to one."""
        return True

    def create_variable(self, name: str, dims: Any = None) -> TensorVariable:  # pragma: no cover
        """Create the PyMC variable ``name`` (with ``dims``) in the current ``pm.Model``.

        Parameters
        ----------
        name : str
            Name of the variable in the model (``"tpr"``, ``"prevalence"``, ``"rates"``, ...).
        dims : str or tuple of str, optional
            Dims of the variable; their lengths come from the model's coords.

        Returns
        -------
        pytensor.tensor.variable.TensorVariable
            The variable, registered in the model.

        Raises
        ------
        NotImplementedError
            Here, on the base class; every subclass implements it.

        See Also
        --------
        bayescm.build_model : Calls it for each parameter.

        Examples
        --------
        >>> import pymc as pm, bayescm as bcm
        >>> with pm.Model() as model:
        ...     _ = bcm.priors.Jeffreys().create_variable("tnr")
        >>> list(model.named_vars)
        ['tnr']
        """
        raise NotImplementedError

    def to_dict(self) -> dict[str, Any]:  # pragma: no cover
        """A JSON-compatible description that :func:`bayescm.priors.from_dict` rebuilds.

        Returns
        -------
        dict
            At least ``"dist"`` (the form) and ``"name"``.

        Raises
        ------
        NotImplementedError
            Here, on the base class; every subclass implements it.

        See Also
        --------
        bayescm.priors.from_dict : The inverse.
        bayescm.priors.register_prior_form : How a new form is registered.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.priors.Laplace().to_dict()
        {'dist': 'Beta', 'name': 'laplace', 'alpha': 1.0, 'beta': 1.0}
        """
        raise NotImplementedError

    def for_classes(self, k: int, role: str = "prevalence", parameter: str = "the parameter"
                    ) -> Any:
        """The prior as a prior of the multiclass ``prevalence`` (K-vector) or ``rates``.

        Parameters
        ----------
        k : int
            Number of classes.
        role : {"prevalence", "rates"}, default "prevalence"
            Which multiclass parameter.
        parameter : str, default "the parameter"
            Name of the parameter in messages.

        Returns
        -------
        object
            The multiclass prior; the base class has none and raises.

        Raises
        ------
        TypeError
            Here, on the base class: a prior without a multiclass meaning.

        See Also
        --------
        bayescm.priors.resolve_multiclass_priors : Calls it for each multiclass parameter.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.priors.Weak().for_classes(3)
        Dirichlet(0.666667) [weak]
        """
        raise TypeError(f"{self!r} cannot be the prior of the multiclass {parameter}.")

    def _check_sampleable(self) -> None:
        if not self.proper:
            raise ValueError(
                f"The {self.name} prior is improper (it does not integrate to one), so it has no "
                "draws; use a proper prior (e.g. 'jeffreys' or 'laplace') to sample a prior.")


def is_conjugate(prior: Any) -> bool:
    """Whether the exact (closed-form) sampler can handle ``prior``.

    Parameters
    ----------
    prior : object
        Any prior object.

    Returns
    -------
    bool
        True for the Beta, Dirichlet and Fixed priors, which the closed-form posterior handles;
        False for PreliZ distributions on [0, 1] and other factories, which need NUTS.

    See Also
    --------
    bayescm.fit : ``method="auto"`` takes the exact path when every prior is conjugate.
    PriorSpec : The interface that declares it.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.priors import is_conjugate
    >>> is_conjugate(bcm.priors.Laplace()), is_conjugate(object())
    (True, False)
    """
    return bool(getattr(prior, "conjugate", False))


def check_positive(value: float, what: str, allow_zero: bool = False) -> float:
    """``value`` as a float, >= 0 (``allow_zero``) or > 0, else a ValueError naming ``what``."""
    value = check_real(value, what)
    if value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise ValueError(f"{what} must be {bound}, got {value}.")
    return value


def is_numeric(value: Any) -> bool:
    """Whether ``value`` is a real number or an array of them (not bool, not text)."""
    try:
        arr = np.asarray(value)
    except Exception:
        return False
    return arr.dtype.kind in "iuf" and arr.dtype != bool


def as_rng(rng: Any) -> np.random.Generator:
    """A NumPy Generator from a Generator, a seed or None."""
    return rng if isinstance(rng, np.random.Generator) else np.random.default_rng(rng)


def size_tuple(size: Any) -> tuple[int, ...]:
    """``size`` (None, an int or a tuple) as a shape tuple."""
    if size is None:
        return ()
    return (int(size),) if np.ndim(size) == 0 else tuple(int(s) for s in size)


def reshape_draws(flat: np.ndarray, size: tuple[int, ...]) -> np.ndarray:
    """Draws of shape ``(1, n, *event)`` from the exact samplers reshaped to ``size + event``."""
    return flat.reshape(size + flat.shape[2:])


def n_draws(size: tuple[int, ...]) -> int:
    """How many draws ``size`` asks for."""
    return math.prod(size)


def dims_shape(dims: Any) -> tuple[int, ...]:
    """The shape that ``dims`` implies in the current ``pm.Model`` (from its coords)."""
    import pymc as pm

    if dims is None:
        return ()
    dims = (dims,) if isinstance(dims, str) else tuple(dims)
    coords = pm.modelcontext(None).coords
    missing = [d for d in dims if d not in coords]
    if missing:
        raise ValueError(f"The model has no coords for the dims {missing}; add them with "
                         f"pm.Model(coords={{{missing[0]!r}: [...]}}).")
    return tuple(len(coords[d]) for d in dims)
