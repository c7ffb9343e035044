"""A known, fixed prevalence instead of a prior: a constant in the model, not a random variable."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescm.core.validate import check_probability, unmasked
from bayescm.priors.protocol import PriorSpec, dims_shape, is_numeric, size_tuple

if TYPE_CHECKING:
    from pytensor.tensor.variable import TensorVariable

__all__ = ["Fixed"]


@dataclass(frozen=True)
class Fixed(PriorSpec):
    """A known, fixed value instead of a prior (e.g. a curated test set's share of positives).

    Only the prevalence can be fixed: it enters the model as a constant (``pm.Data``, not a
    degenerate random variable, which would break NUTS) and the ``n_pos`` likelihood is
    dropped (the test set's composition was chosen, not observed).

    Parameters
    ----------
    value : float or array-like
        Binary: a number strictly between 0 and 1. Multiclass: a vector of positive class
        shares that sums to 1.

    Raises
    ------
    TypeError
        A value that is not a number or a vector of numbers.
    ValueError
        A number outside (0, 1), or a vector that is not 1-D, has entries <= 0 or does not sum
        to 1.

    See Also
    --------
    bayescm.with_prevalence : Evaluate a fit at another population's prevalence instead.
    bayescm.fit : Takes it as ``priors={"prevalence": bcm.Fixed(...)}``.

    Examples
    --------
    >>> import bayescm as bcm
    >>> bcm.Fixed(0.5)
    Fixed(value=0.5)
    >>> bcm.Fixed(0.5).fixed, bcm.Fixed([0.2, 0.8]).shape
    (True, (2,))
    """

    value: Any
    fixed = True

    def __post_init__(self) -> None:
        arr = np.asarray(unmasked(self.value, "Fixed value"), dtype=float) if is_numeric(
            self.value) else None
        if arr is None:
            raise TypeError(f"Fixed value must be a number or a vector, got {self.value!r}.")
        if arr.ndim == 0:
            object.__setattr__(self, "value", check_probability(arr.item(), "Fixed value"))
            return
        if arr.ndim != 1 or arr.size < 2:
            raise ValueError(f"Fixed value: a fixed prevalence vector must be 1-D with >= 2 "
                             f"entries, got {arr.tolist()}.")
        if not np.all(np.isfinite(arr)) or np.any(arr <= 0):
            raise ValueError(f"Fixed value: prevalences must be finite and > 0, got "
                             f"{arr.tolist()}.")
        if not np.isclose(arr.sum(), 1.0, rtol=0, atol=1e-9):
            raise ValueError(f"Fixed value: prevalences must sum to 1, they sum to "
                             f"{arr.sum():.6g}.")
        object.__setattr__(self, "value", tuple(float(v) for v in arr))

    @property
    def name(self) -> str:
        """Short name used in messages and serialisation."""
        return "fixed"

    @property
    def shape(self) -> tuple[int, ...]:
        """``()`` for a binary prevalence, ``(K,)`` for a vector of class shares."""
        return np.shape(self.value)

    def to_dict(self) -> dict[str, Any]:
        """Serialise to a JSON-compatible dict (:func:`bayescm.priors.from_dict` rebuilds it).

        Returns
        -------
        dict
            ``{"dist": "Fixed", "name": "fixed", "value": ...}`` (a list for a vector).

        See Also
        --------
        bayescm.priors.from_dict : Rebuild the prior from this dict.
        bayescm.priors.prior_to_dict : The same for any prior the package accepts.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Fixed([0.2, 0.8]).to_dict()
        {'dist': 'Fixed', 'name': 'fixed', 'value': [0.2, 0.8]}
        """
        value = list(self.value) if isinstance(self.value, tuple) else self.value
        return {"dist": "Fixed", "name": "fixed", "value": value}

    def create_variable(self, name: str, dims: Any = None) -> TensorVariable:
        """The constant ``pm.Data`` ``name``, the value broadcast to the shape of ``dims``.

        Parameters
        ----------
        name : str
            Name of the variable in the model (``"tpr"``, ``"prevalence"``, ``"rates"``, ...).
        dims : str or tuple of str, optional
            Dims of the variable; their lengths come from the model's coords.

        Returns
        -------
        pytensor.tensor.variable.TensorVariable
            The constant, registered in the model as data (no prior, no likelihood term).

        See Also
        --------
        bayescm.build_model : Builds the whole model from the priors.

        Examples
        --------
        >>> import pymc as pm, bayescm as bcm
        >>> with pm.Model(coords={"classifier": ["a", "b", "c"]}):
        ...     prev = bcm.Fixed(0.3).create_variable("prevalence", dims="classifier")
        >>> prev.eval().tolist()
        [0.3, 0.3, 0.3]
        """
        import pymc as pm

        value = np.asarray(self.value, dtype=float)
        if dims is not None:
            value = np.broadcast_to(value, dims_shape(dims))
        return pm.Data(name, value, dims=dims)

    def update(self, *counts: Any) -> Fixed:
        """A fixed value learns nothing from data: the posterior is the same constant.

        Parameters
        ----------
        *counts : array-like
            Any counts (ignored).

        Returns
        -------
        Fixed
            Itself.

        See Also
        --------
        bayescm.Beta.update : A prior that does learn from counts.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Fixed(0.3).update(26, 2)
        Fixed(value=0.3)
        """
        return self

    def sample(self, rng: Any = None, size: Any = None) -> np.ndarray:
        """The value repeated: shape ``size`` (+ ``(K,)`` for a vector).

        Parameters
        ----------
        rng : int, numpy.random.Generator or None, optional
            Unused (a constant has no randomness); accepted like every prior's.
        size : int or tuple of int, optional
            Shape of the draws.

        Returns
        -------
        ndarray of float
            The value, of shape ``size`` (+ ``(K,)``).

        See Also
        --------
        draw : The same, laid out as ``(chains, draws)``.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Fixed(0.3).sample(size=3).tolist()
        [0.3, 0.3, 0.3]
        """
        return np.broadcast_to(np.asarray(self.value), size_tuple(size) + self.shape).copy()

    def draw(self, rng: Any, chains: int, draws: int) -> np.ndarray:
        """The value repeated as ``(chains, draws)`` (+ ``(K,)``).

        Parameters
        ----------
        rng : int, numpy.random.Generator or None
            Unused; accepted like every prior's.
        chains : int
            Number of chains.
        draws : int
            Draws per chain.

        Returns
        -------
        ndarray of float, shape (chains, draws) or (chains, draws, K)
            The value repeated.

        See Also
        --------
        sample : Draws of any shape.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Fixed([0.2, 0.8]).draw(0, chains=2, draws=5).shape
        (2, 5, 2)
        """
        return self.sample(rng, (chains, draws))

    def for_classes(self, k: int, role: str = "prevalence", parameter: str = "the parameter"
                    ) -> Fixed:
        """Itself for the prevalence; the rates cannot be fixed (a ValueError).

        Parameters
        ----------
        k : int
            Number of classes (unused: the value was checked when made).
        role : {"prevalence", "rates"}, default "prevalence"
            Which multiclass parameter the prior is asked to be.
        parameter : str, default "the parameter"
            Name of the parameter in messages.

        Returns
        -------
        Fixed
            Itself.

        Raises
        ------
        ValueError
            ``role`` other than ``"prevalence"``.

        See Also
        --------
        bayescm.Dirichlet : The prior for the rates (a large concentration for a near-certain
            value).

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Fixed([0.2, 0.3, 0.5]).for_classes(3)
        Fixed(value=(0.2, 0.3, 0.5))
        """
        if role != "prevalence":
            raise ValueError("Only the prevalence can be fixed, not the rates; give the rates a "
                             "Dirichlet prior (a large concentration for a near-certain value).")
        return self
