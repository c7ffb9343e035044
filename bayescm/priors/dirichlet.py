"""Dirichlet priors of probability vectors: the multiclass prevalence and each row of the rates.

* :class:`Dirichlet`: a concentration, a scalar for every class or one per class;
* :class:`PresetDirichlet`: a named preset's symmetric Dirichlet (``Dirichlet(1/2) [jeffreys]``);
* :class:`RatesByClass`: one concentration row per true class (a K x K matrix), defined in
  :mod:`bayescm.priors.rates_by_class` and re-exported here.

All three update in closed form (``alpha + counts``), draw with NumPy and make their own PyMC
variable (:mod:`bayescm.priors.simplex`, their shared base, also the home of
:func:`simplex_variable`). A concentration with zeros (Haldane) is improper: its variable is a
flat prior on the additive log-ratios, and it cannot be sampled.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from bayescm.core.validate import unmasked
from bayescm.priors.protocol import is_numeric
from bayescm.priors.simplex import _Simplex

__all__ = ["Dirichlet", "PresetDirichlet"]


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

    Raises
    ------
    TypeError
        ``alpha`` is not numeric.
    ValueError
        ``alpha`` is not a scalar or a vector, or has non-finite or non-positive entries.

    See Also
    --------
    Beta : The binary model's prior of one rate.
    Weak : The multiclass default, which builds its Dirichlets from the number of classes.
    bayescm.priors.RatesByClass : One Dirichlet per row of the rates.

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
        arr = np.asarray(unmasked(alpha, "Dirichlet alpha"), dtype=float)
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
        """The concentration as a length-``k`` vector (broadcasting a scalar).

        Parameters
        ----------
        k : int
            Number of classes.

        Returns
        -------
        ndarray of float, shape (k,)
            The concentration of each class.

        Raises
        ------
        ValueError
            A vector ``alpha`` whose length is not ``k``.

        See Also
        --------
        concentration : The vector, or the matrix of the rates.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Dirichlet(0.5).vector(3).tolist()
        [0.5, 0.5, 0.5]
        """
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

        The concentration is the prior's pseudo-counts: ``alpha = [2, 1, 1]`` is worth four earlier
        items, two of them in the first class.

        Parameters
        ----------
        k : int
            Number of classes.
        role : {"prevalence", "rates"}, default "prevalence"
            Which multiclass parameter.

        Returns
        -------
        ndarray of float, shape (k,) or (k, k)
            The concentration.

        See Also
        --------
        vector : The concentration as one vector.
        posterior_params : The concentration after the counts.

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
        """Itself, once its length is checked against the ``k`` classes.

        Parameters
        ----------
        k : int
            Number of classes.
        role : {"prevalence", "rates"}, default "prevalence"
            Which multiclass parameter (a Dirichlet serves both: for the rates, every row).
        parameter : str, default "the parameter"
            Name of the parameter in messages.

        Returns
        -------
        Dirichlet
            Itself.

        Raises
        ------
        ValueError
            A vector ``alpha`` whose length is not ``k``.

        See Also
        --------
        bayescm.priors.resolve_multiclass_priors : Turns every prior of a multiclass fit this way.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Dirichlet([2, 1, 1]).for_classes(3)
        Dirichlet(alpha=(2.0, 1.0, 1.0))
        """
        try:
            self.vector(k)
        except ValueError as exc:
            raise ValueError(f"Prior of {parameter}: {exc}") from None
        return self

    def update(self, counts: Any) -> Dirichlet:
        """The closed-form posterior ``Dirichlet(alpha + counts)`` for one vector of counts.

        Like the Beta's update: the prior's pseudo-counts plus the observed counts of each class.

        Parameters
        ----------
        counts : array-like of float, shape (K,)
            Observed counts of each class.

        Returns
        -------
        Dirichlet
            The posterior.

        Raises
        ------
        ValueError
            More than one vector of counts (use :meth:`posterior_params`), or an improper posterior
            (a zero concentration that met a zero count).

        See Also
        --------
        posterior_params : The vectorised form.
        bayescm.Beta.update : The binary counterpart.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Dirichlet(1.0).update([5, 0, 1])
        Dirichlet(alpha=(6.0, 1.0, 2.0))
        """
        alpha = self._checked(self.posterior_params(counts))
        if alpha.ndim != 1:
            raise ValueError("update takes one vector of counts; use posterior_params for more.")
        return Dirichlet(alpha)

    def to_dict(self) -> dict[str, Any]:
        """Serialise to a JSON-compatible dict (:func:`bayescm.priors.from_dict` rebuilds it).

        Returns
        -------
        dict
            ``{"dist": "Dirichlet", "name": ..., "alpha": ...}`` (a list for a vector).

        See Also
        --------
        bayescm.priors.from_dict : Rebuild the prior from this dict.
        bayescm.priors.prior_to_dict : The same for any prior the package accepts.

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
    :meth:`bayescm.Weak.for_classes`). It behaves as ``Dirichlet(alpha)`` but keeps the preset's
    name, so a result records ``"jeffreys"`` rather than a bare number.

    Parameters
    ----------
    preset : str
        The preset's name.
    alpha : float
        Its concentration per class (0 for Haldane, which makes it improper).

    See Also
    --------
    bayescm.Dirichlet : The same prior without a name.
    bayescm.priors.preset_row : What a preset puts on one row of the rates.

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
