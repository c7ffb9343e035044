"""Dirichlet priors of probability vectors: the multiclass prevalence and each row of the rates.

* :class:`Dirichlet`: a concentration, a scalar for every class or one per class;
* :class:`PresetDirichlet`: a named preset's symmetric Dirichlet (``Dirichlet(1/2) [jeffreys]``);
* :class:`RatesByClass`: one concentration row per true class (a K x K matrix).

All three update in closed form (``alpha + counts``), draw with NumPy and make their own PyMC
variable. A concentration with zeros (Haldane) is improper: its variable is a flat prior on the
additive log-ratios, and it cannot be sampled.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescm.core.exact import draw_dirichlet
from bayescm.priors.protocol import (
    PriorSpec,
    as_rng,
    dims_shape,
    is_numeric,
    n_draws,
    reshape_draws,
    size_tuple,
)

if TYPE_CHECKING:
    from pytensor.tensor.variable import TensorVariable

__all__ = ["Dirichlet", "PresetDirichlet", "RatesByClass", "simplex_variable"]


def simplex_variable(name: str, alpha: np.ndarray, dims: Any) -> TensorVariable:
    """A PyMC probability vector (last axis) with concentration ``alpha`` (its full shape).

    Proper concentrations give ``pm.Dirichlet``. One with zeros (Haldane) is written as a flat
    prior on additive log-ratios, whose density on the simplex is ``prod p^-1`` = Dirichlet(0),
    plus a potential ``sum(alpha log p)`` for the positive entries.
    """
    import pymc as pm
    import pytensor.tensor as pt

    if np.all(alpha > 0):
        return pm.Dirichlet(name, a=alpha, dims=dims)
    shape = alpha.shape
    logratio = pm.Flat(f"{name}_logratio", shape=shape[:-1] + (shape[-1] - 1,))
    full = pt.concatenate([logratio, pt.zeros(shape[:-1] + (1,))], axis=-1)
    value = pm.Deterministic(name, pt.special.softmax(full, axis=-1), dims=dims)
    if np.any(alpha > 0):
        pm.Potential(f"{name}_prior", pt.sum(alpha * pt.log(value)))
    return value


class _Simplex(PriorSpec):
    """What the Dirichlet priors share: variable, update and draws from a concentration."""

    family = "dirichlet"

    def concentration(self, k: int, role: str = "prevalence") -> np.ndarray:  # pragma: no cover
        """The concentration as a K-vector (``"prevalence"``) or K x K (``"rates"``)."""
        raise NotImplementedError

    def _event(self, k: int | None) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover

    def create_variable(self, name: str, dims: Any = None) -> TensorVariable:
        """The Dirichlet variable ``name``: concentration broadcast to the shape of ``dims``.

        The shape comes from the model's coords (e.g. ``("classifier", "class")``); the last dim
        is the simplex. Zeros in the concentration (Haldane) give a flat prior on the additive
        log-ratios.

        Examples
        --------
        >>> import pymc as pm, bayescm as bcm
        >>> with pm.Model(coords={"classifier": ["a", "b"], "class": ["x", "y", "z"]}):
        ...     prev = bcm.Dirichlet(2.0).create_variable("prevalence", ("classifier", "class"))
        >>> prev.eval().shape
        (2, 3)
        """
        shape = dims_shape(dims)
        alpha = self._event(shape[-1] if shape else None)
        if shape:
            alpha = np.broadcast_to(alpha, shape)
        return simplex_variable(name, alpha, dims)

    def posterior_params(self, counts: Any) -> np.ndarray:
        """Posterior concentration ``alpha + counts``, vectorised over leading axes of counts.

        Entries <= 0 mean an improper posterior (an improper prior met a zero count).

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Dirichlet(1.0).posterior_params([[3, 0, 1], [0, 0, 2]]).tolist()
        [[4.0, 1.0, 2.0], [1.0, 1.0, 3.0]]
        """
        counts = np.asarray(counts, dtype=float)
        if counts.ndim == 0:
            raise ValueError("counts must be a vector (or matrix) of class counts.")
        return self._event(counts.shape[-1]) + counts

    def _checked(self, alpha: np.ndarray) -> np.ndarray:
        if np.any(alpha <= 0):
            raise ValueError(f"The {self.name} prior gives an improper posterior because a "
                             "count it needs is 0; use a proper prior (e.g. 'jeffreys').")
        return alpha

    def sample(self, rng: Any = None, size: Any = None, k: int | None = None) -> np.ndarray:
        """Prior draws of shape ``size + event shape`` (``k`` classes for a scalar alpha).

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Dirichlet([1, 2, 3]).sample(0, size=5).shape
        (5, 3)
        """
        self._check_sampleable()
        shape = size_tuple(size)
        flat = draw_dirichlet(as_rng(rng), self._event(k), 1, n_draws(shape))
        return reshape_draws(flat, shape)

    def draw(self, rng: Any, chains: int, draws: int, k: int | None = None) -> np.ndarray:
        """Prior draws arranged as ``(chains, draws, *event shape)``.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Dirichlet(1.0).draw(0, chains=2, draws=10, k=4).shape
        (2, 10, 4)
        """
        self._check_sampleable()
        return draw_dirichlet(as_rng(rng), self._event(k), chains, draws)


@dataclass(frozen=True, init=False)
class Dirichlet(_Simplex):
    """Dirichlet(alpha) prior on a probability vector (multiclass prevalences or rates).

    Parameters
    ----------
    alpha : float or sequence of float
        Concentration; a scalar is used for every class. All entries > 0
        (0 is allowed only through the improper ``"haldane"`` preset).

    Other Parameters
    ----------------
    _allow_zero : bool, default False
        Internal: lets the Haldane preset build its improper Dirichlet(0).

    See Also
    --------
    Beta : The binary model's prior of one rate.
    Weak : The multiclass default, which builds its Dirichlets from the number of classes.

    Examples
    --------
    >>> import bayescm as bcm
    >>> bcm.Dirichlet([2, 1, 1]).alpha
    (2.0, 1.0, 1.0)
    >>> bcm.Dirichlet([2, 1, 1]).update([5, 0, 1])
    Dirichlet(alpha=(7.0, 1.0, 2.0))
    """

    alpha: float | tuple[float, ...]

    def __init__(self, alpha: Any, *, _allow_zero: bool = False) -> None:
        if not is_numeric(alpha):
            raise TypeError(f"Dirichlet alpha must be numeric, got {alpha!r}.")
        arr = np.asarray(alpha, dtype=float)
        if arr.ndim > 1:
            raise ValueError(f"Dirichlet alpha must be a scalar or vector, not shape {arr.shape}.")
        if not np.all(np.isfinite(arr)):
            raise ValueError(f"Dirichlet alpha must be finite, got {arr.tolist()}.")
        if np.any(arr < 0) or (not _allow_zero and np.any(arr == 0)):
            raise ValueError(f"Dirichlet alpha must be > 0, got {arr.tolist()}.")
        value = float(arr) if arr.ndim == 0 else tuple(float(v) for v in arr)
        object.__setattr__(self, "alpha", value)

    @property
    def name(self) -> str:
        """Short name used in messages and serialisation."""
        return "dirichlet"

    @property
    def proper(self) -> bool:
        """Whether every concentration is positive."""
        return bool(np.all(np.asarray(self.alpha) > 0))

    def vector(self, k: int) -> np.ndarray:
        """The concentration as a length-``k`` vector (broadcasting a scalar)."""
        arr = np.asarray(self.alpha, dtype=float)
        if arr.ndim == 1 and arr.size != k:
            raise ValueError(f"Dirichlet alpha has {arr.size} entries but there are {k} classes.")
        return np.broadcast_to(arr, (k,)).copy()

    def _event(self, k: int | None) -> np.ndarray:
        if k is None:
            if np.ndim(self.alpha) == 0:
                raise ValueError(f"{self!r} has one concentration for every class: give the "
                                 "number of classes (k=..., or dims with coords).")
            k = int(np.shape(self.alpha)[0])
        return self.vector(k)

    def concentration(self, k: int, role: str = "prevalence") -> np.ndarray:
        """The K-vector (``"prevalence"``) or the same vector on every row (``"rates"``).

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Dirichlet([2, 1]).concentration(2, "rates").tolist()
        [[2.0, 1.0], [2.0, 1.0]]
        """
        vec = self.vector(k)
        return vec if role == "prevalence" else np.broadcast_to(vec, (k, k)).copy()

    def for_classes(self, k: int, role: str = "prevalence", parameter: str = "the parameter"
                    ) -> Dirichlet:
        """Itself, once its length is checked against the ``k`` classes."""
        try:
            self.vector(k)
        except ValueError as exc:
            raise ValueError(f"Prior of {parameter}: {exc}") from None
        return self

    def update(self, counts: Any) -> Dirichlet:
        """The closed-form posterior ``Dirichlet(alpha + counts)`` for one vector of counts."""
        alpha = self._checked(self.posterior_params(counts))
        if alpha.ndim != 1:
            raise ValueError("update takes one vector of counts; use posterior_params for more.")
        return Dirichlet(alpha)

    def to_dict(self) -> dict[str, Any]:
        """Serialise to a JSON-compatible dict (:func:`bayescm.priors.from_dict` rebuilds it).

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Dirichlet([2, 1]).to_dict()
        {'dist': 'Dirichlet', 'name': 'dirichlet', 'alpha': [2.0, 1.0]}
        """
        alpha = list(self.alpha) if isinstance(self.alpha, tuple) else self.alpha
        return {"dist": "Dirichlet", "name": self.name, "alpha": alpha}


@dataclass(frozen=True, init=False, repr=False)
class PresetDirichlet(Dirichlet):
    """A named preset (``weak``, ``laplace``, ``jeffreys``, ``flat``, ``haldane``) as a Dirichlet.

    A symmetric Dirichlet: what a preset becomes as the multiclass prevalence (see
    :meth:`bayescm.Weak.for_classes`).

    Examples
    --------
    >>> from bayescm.priors import PresetDirichlet
    >>> PresetDirichlet("jeffreys", 0.5).to_dict()
    {'dist': 'Dirichlet', 'name': 'jeffreys', 'alpha': 0.5}
    """

    preset: str

    def __init__(self, preset: str, alpha: float) -> None:
        super().__init__(alpha, _allow_zero=True)
        object.__setattr__(self, "preset", str(preset))

    @property
    def name(self) -> str:
        """The preset's name."""
        return self.preset

    def __repr__(self) -> str:
        return f"Dirichlet({self.alpha:g}) [{self.name}]"


class RatesByClass(_Simplex):
    """One conjugate prior per true class for the multiclass ``rates`` (rows of a K x K alpha).

    Parameters
    ----------
    alpha : array-like, shape (K, K)
        Row ``k`` is the Dirichlet concentration of ``rates[k]``; entries >= 0.
    names : sequence of str
        Name of each row's prior (for messages and serialisation).
    label : str, default "by_class"
        Name of the whole prior (a preset's name when a preset made it).

    Examples
    --------
    >>> from bayescm.priors import RatesByClass
    >>> RatesByClass([[2, 1], [1, 1]], ["dirichlet", "laplace"]).proper
    True
    """

    def __init__(self, alpha: Any, names: Sequence[str], label: str = "by_class") -> None:
        arr = np.asarray(alpha, dtype=float)
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or np.any(arr < 0) \
                or not np.all(np.isfinite(arr)):
            raise ValueError(f"alpha must be a square non-negative matrix, got {arr.tolist()}.")
        if isinstance(names, str) or len(names) != arr.shape[0]:
            raise ValueError(f"names must name each of the {arr.shape[0]} rows, got {names!r}.")
        self.alpha = arr
        self.names = [str(n) for n in names]
        self.label = str(label)

    @property
    def name(self) -> str:
        """Short name used in messages and serialisation."""
        return self.label

    @property
    def proper(self) -> bool:
        """Whether every concentration is positive."""
        return bool(np.all(self.alpha > 0))

    def _event(self, k: int | None) -> np.ndarray:
        if k is not None and k != self.alpha.shape[0]:
            raise ValueError(f"The rates prior is {self.alpha.shape[0]} x {self.alpha.shape[0]} "
                             f"but there are {k} classes.")
        return self.alpha.copy()

    def concentration(self, k: int, role: str = "rates") -> np.ndarray:
        """The K x K concentration (only a prior of the rates)."""
        if role != "rates":
            raise TypeError("A RatesByClass prior is a prior of the rates, not the prevalence.")
        return self._event(k)

    def for_classes(self, k: int, role: str = "rates", parameter: str = "the parameter"
                    ) -> RatesByClass:
        """Itself for the rates of ``k`` classes."""
        self.concentration(k, role)
        return self

    def update(self, counts: Any) -> RatesByClass:
        """The closed-form posterior: ``alpha + counts`` row by row (counts K x K).

        Examples
        --------
        >>> from bayescm.priors import RatesByClass
        >>> RatesByClass([[1, 1], [1, 1]], ["a", "b"]).update([[5, 1], [2, 7]]).alpha.tolist()
        [[6.0, 2.0], [3.0, 8.0]]
        """
        alpha = self._checked(self.posterior_params(counts))
        if alpha.shape != self.alpha.shape:
            raise ValueError("update takes one K x K matrix of counts; use posterior_params.")
        return RatesByClass(alpha, self.names, self.label)

    def to_dict(self) -> dict[str, Any]:
        """Serialise to a JSON-compatible dict (:func:`bayescm.priors.from_dict` rebuilds it)."""
        return {"dist": "Dirichlet", "name": self.label, "alpha": self.alpha.tolist(),
                "rows": self.names}

    def __repr__(self) -> str:
        return f"RatesByClass({self.alpha.tolist()}, names={self.names}, label={self.label!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RatesByClass):
            return NotImplemented
        return (bool(np.array_equal(self.alpha, other.alpha)) and self.names == other.names
                and self.label == other.label)

    __hash__ = None  # type: ignore[assignment]
