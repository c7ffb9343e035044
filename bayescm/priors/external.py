"""PreliZ distributions as priors: conjugate families become bayescm priors, others NUTS factories.

PreliZ (``pip install preliz``) elicits distributions in many parameterisations, e.g.
``preliz.Beta(mu=0.9, sigma=0.05)`` or ``preliz.maxent(preliz.Beta(), 0.7, 0.9)``.
:func:`from_preliz` reads what it needs from the distribution, so whatever parameterisation
made it:

* ``preliz.Beta`` -> :class:`bayescm.Beta` (its ``alpha`` and ``beta``; exact sampling),
* ``preliz.Uniform(0, 1)`` -> ``bcm.Beta(1, 1)``,
* ``preliz.Dirichlet`` -> :class:`bayescm.Dirichlet`,
* any other PreliZ distribution whose support lies in [0, 1] (TruncatedNormal on [0, 1],
  LogitNormal, Kumaraswamy, ...) -> a :class:`PreliZPrior`, a factory sampled with NUTS,
* anything else -> a TypeError naming what is accepted.

PreliZ is only needed to make these objects; bayescm recognises them by their module.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescm.priors.protocol import PriorSpec, as_rng, size_tuple

if TYPE_CHECKING:
    from pytensor.tensor.variable import TensorVariable

__all__ = ["PreliZPrior", "from_preliz", "is_preliz"]


def is_preliz(obj: Any) -> bool:
    """Whether ``obj`` is a PreliZ distribution (duck-typed by its class's module)."""
    return type(obj).__module__.split(".")[0] == "preliz"


def _params(dist: Any) -> dict[str, Any]:
    names = getattr(dist, "param_names", None)
    values = getattr(dist, "params", None)
    if names is None or values is None or any(v is None for v in values):
        raise TypeError(f"The PreliZ distribution {dist!r} has no parameters yet; give them "
                        "(e.g. preliz.Beta(mu=0.9, sigma=0.05)) or fit them (preliz.maxent).")
    out = {}
    for name, value in zip(names, values, strict=True):
        arr = np.asarray(value, dtype=float)
        out[str(name)] = arr.tolist() if arr.ndim else float(arr)
    return out


def from_preliz(dist: Any, parameter: str = "the parameter") -> Any:
    """The bayescm prior for a PreliZ distribution (see the module notes).

    Parameters
    ----------
    dist : preliz distribution
        With its parameters set.
    parameter : str
        The parameter it is for (error messages).

    Returns
    -------
    Beta, Dirichlet or PreliZPrior
        A conjugate bayescm prior where one exists (exact sampling), else a factory for NUTS.

    Raises
    ------
    TypeError
        A distribution whose parameters are not set, or whose support is not within [0, 1].

    See Also
    --------
    resolve_prior : Accepts PreliZ distributions wherever a prior is expected.
    bayescm.Beta.from_interval : A Beta from an interval without PreliZ.
    bayescm.plots.plot_priors : What the prior implies for every metric.

    Examples
    --------
    >>> import preliz as pz
    >>> from bayescm.priors import from_preliz
    >>> from_preliz(pz.Beta(mu=0.9, sigma=0.05))
    Beta(alpha=31.5, beta=3.5)
    >>> from_preliz(pz.Dirichlet([2, 1, 1]))
    Dirichlet(alpha=(2.0, 1.0, 1.0))
    """
    from bayescm.priors.beta import Beta
    from bayescm.priors.dirichlet import Dirichlet

    kind = type(dist).__name__
    params = _params(dist)  # in the parameterisation it was given (mu / sigma, ...)
    if kind == "Beta":
        # PreliZ converts any parameterisation to alpha / beta (in floating point)
        return Beta(round(float(dist.alpha), 12), round(float(dist.beta), 12))
    if kind == "Dirichlet":
        return Dirichlet(np.asarray(dist.alpha, dtype=float))
    if kind == "Uniform" and (params["lower"], params["upper"]) == (0.0, 1.0):
        return Beta(1.0, 1.0)
    lower, upper = (float(v) for v in getattr(dist, "support", (-np.inf, np.inf)))
    if kind != "Uniform" and lower >= 0.0 and upper <= 1.0 and hasattr(dist, "to_pymc"):
        return PreliZPrior(kind, params)
    raise TypeError(
        f"The PreliZ {kind} with support [{lower:g}, {upper:g}] cannot be the prior of "
        f"{parameter}: a proportion needs a distribution on [0, 1]. Accepted: preliz.Beta (any "
        "parameterisation; exact sampling), preliz.Dirichlet (multiclass), preliz.Uniform(0, 1), "
        "or another PreliZ distribution on [0, 1] (e.g. TruncatedNormal(..., lower=0, upper=1), "
        "LogitNormal, Kumaraswamy), sampled with NUTS."
    )


class PreliZPrior(PriorSpec):
    """A PreliZ distribution on [0, 1] without a conjugate family: a factory sampled with NUTS.

    Parameters
    ----------
    kind : str
        The PreliZ class name (``"TruncatedNormal"``, ``"LogitNormal"``, ...).
    params : mapping
        Its parameters by name.

    See Also
    --------
    bayescm.priors.from_preliz : Makes one from a PreliZ distribution.
    bayescm.fit : Samples it with NUTS.

    Examples
    --------
    >>> import preliz as pz
    >>> from bayescm.priors import from_preliz
    >>> prior = from_preliz(pz.TruncatedNormal(0.9, 0.05, lower=0, upper=1))
    >>> prior.conjugate, prior.to_dict()["dist"]
    (False, 'PreliZ')
    """

    family = None
    conjugate = False

    def __init__(self, kind: str, params: Mapping[str, Any]) -> None:
        self.kind = str(kind)
        self.params = dict(params)

    @property
    def name(self) -> str:
        """Short name used in messages and serialisation."""
        return "preliz"

    @property
    def distribution(self) -> Any:
        """The PreliZ distribution (needs PreliZ installed)."""
        try:
            import preliz
        except ImportError as exc:  # pragma: no cover - depends on the environment
            raise ImportError(f"The prior {self!r} needs PreliZ: pip install preliz.") from exc
        return getattr(preliz, self.kind)(**self.params)

    def create_variable(self, name: str, dims: Any = None) -> TensorVariable:
        """The PyMC variable of the PreliZ distribution (its ``to_pymc``), with ``dims``.

        Parameters
        ----------
        name : str
            Name of the variable in the model (``"tpr"``, ``"prevalence"``, ``"rates"``, ...).
        dims : str or tuple of str, optional
            Dims of the variable; their lengths come from the model's coords.

        Returns
        -------
        pytensor.tensor.variable.TensorVariable
            The random variable, registered in the model.

        See Also
        --------
        bayescm.build_model : Builds the whole model from the priors.

        Examples
        --------
        >>> import preliz as pz, pymc as pm
        >>> from bayescm.priors import from_preliz
        >>> prior = from_preliz(pz.TruncatedNormal(0.9, 0.05, lower=0, upper=1))
        >>> with pm.Model() as model:
        ...     _ = prior.create_variable("tpr")
        >>> list(model.named_vars)
        ['tpr']
        """
        return self.distribution.to_pymc(name, dims=dims)

    def sample(self, rng: Any = None, size: Any = None) -> np.ndarray:
        """Prior draws of shape ``size`` (PreliZ's ``rvs``).

        Parameters
        ----------
        rng : int, numpy.random.Generator or None, optional
            Seed or generator.
        size : int or tuple of int, optional
            Shape of the draws.

        Returns
        -------
        ndarray of float
            Draws of shape ``size``.

        See Also
        --------
        draw : The same, laid out as ``(chains, draws)``.

        Examples
        --------
        >>> import preliz as pz
        >>> from bayescm.priors import from_preliz
        >>> prior = from_preliz(pz.TruncatedNormal(0.9, 0.05, lower=0, upper=1))
        >>> prior.sample(0, size=4).shape
        (4,)
        """
        shape = size_tuple(size)
        return np.asarray(self.distribution.rvs(shape or None, random_state=as_rng(rng)),
                          dtype=float).reshape(shape)

    def draw(self, rng: Any, chains: int, draws: int) -> np.ndarray:
        """Prior draws arranged as ``(chains, draws)``.

        Parameters
        ----------
        rng : int, numpy.random.Generator or None
            Seed or generator.
        chains : int
            Number of chains.
        draws : int
            Draws per chain.

        Returns
        -------
        ndarray of float, shape (chains, draws)
            Independent draws.

        See Also
        --------
        sample : Draws of any shape.

        Examples
        --------
        >>> import preliz as pz
        >>> from bayescm.priors import from_preliz
        >>> prior = from_preliz(pz.TruncatedNormal(0.9, 0.05, lower=0, upper=1))
        >>> prior.draw(0, chains=2, draws=3).shape
        (2, 3)
        """
        return self.sample(rng, (chains, draws))

    def for_classes(self, k: int, role: str = "prevalence", parameter: str = "the parameter"
                    ) -> Any:
        """A distribution of one proportion has no multiclass meaning: a TypeError.

        Parameters
        ----------
        k : int
            Number of classes.
        role : {"prevalence", "rates"}, default "prevalence"
            Which multiclass parameter.
        parameter : str, default "the parameter"
            Name of the parameter in the message.

        Returns
        -------
        object
            Never returns.

        Raises
        ------
        TypeError
            Always, naming the Dirichlet alternatives.

        See Also
        --------
        bayescm.Dirichlet : The prior of a probability vector.

        Examples
        --------
        >>> import preliz as pz
        >>> from bayescm.priors import from_preliz
        >>> prior = from_preliz(pz.TruncatedNormal(0.9, 0.05, lower=0, upper=1))
        >>> try:
        ...     prior.for_classes(3)
        ... except TypeError:
        ...     print("one proportion only")
        one proportion only
        """
        raise TypeError(f"{self!r} is a prior for one proportion and cannot be the prior of the "
                        f"multiclass {parameter}; use preliz.Dirichlet or bcm.Dirichlet.")

    def to_dict(self) -> dict[str, Any]:
        """Serialise to a JSON-compatible dict (:func:`bayescm.priors.from_dict` rebuilds it).

        Returns
        -------
        dict
            ``{"dist": "PreliZ", "name": "preliz", "kind": ..., "params": {...}}``.

        See Also
        --------
        bayescm.priors.from_dict : Rebuild the prior (needs PreliZ installed).

        Examples
        --------
        >>> import preliz as pz
        >>> from bayescm.priors import from_dict, from_preliz
        >>> prior = from_preliz(pz.TruncatedNormal(0.9, 0.05, lower=0, upper=1))
        >>> from_dict(prior.to_dict()) == prior
        True
        """
        return {"dist": "PreliZ", "name": "preliz", "kind": self.kind, "params": self.params}

    def __repr__(self) -> str:
        args = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"PreliZPrior({self.kind}({args}))"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, PreliZPrior):
            return NotImplemented
        return self.kind == other.kind and self.params == other.params

    __hash__ = None  # type: ignore[assignment]
