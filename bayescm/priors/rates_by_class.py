"""The multiclass rates' prior as one Dirichlet row per true class (a K x K concentration).

:class:`RatesByClass` is what a row preset (:class:`~bayescm.Weak`, :class:`~bayescm.Laplace`,
...) or a prior per true class becomes for the rates; it updates row by row in closed form.
Re-exported by :mod:`bayescm.priors.dirichlet` and :mod:`bayescm.priors`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from bayescm.priors.simplex import _Simplex

__all__ = ["RatesByClass"]


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

    Raises
    ------
    ValueError
        ``alpha`` is not a square non-negative finite matrix, or ``names`` does not name each
        row.

    See Also
    --------
    bayescm.priors.resolve_multiclass_priors : Builds one from a prior per true class.
    bayescm.Dirichlet : The same concentration on every row.

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
        """The K x K concentration (only a prior of the rates).

        Row ``k`` holds the pseudo-counts of the predictions for true class ``k``.

        Parameters
        ----------
        k : int
            Number of classes (checked against the matrix).
        role : {"rates"}, default "rates"
            Must be ``"rates"``.

        Returns
        -------
        ndarray of float, shape (k, k)
            A copy of the concentration.

        Raises
        ------
        TypeError
            ``role`` other than ``"rates"``.

        See Also
        --------
        update : The concentration after the counts.

        Examples
        --------
        >>> from bayescm.priors import RatesByClass
        >>> RatesByClass([[2, 1], [1, 1]], ["dirichlet", "laplace"]).concentration(2).tolist()
        [[2.0, 1.0], [1.0, 1.0]]
        """
        if role != "rates":
            raise TypeError("A RatesByClass prior is a prior of the rates, not the prevalence.")
        return self._event(k)

    def for_classes(self, k: int, role: str = "rates", parameter: str = "the parameter"
                    ) -> RatesByClass:
        """Itself for the rates of ``k`` classes.

        Parameters
        ----------
        k : int
            Number of classes (checked against the matrix).
        role : {"rates"}, default "rates"
            Must be ``"rates"``.
        parameter : str, default "the parameter"
            Name of the parameter in messages.

        Returns
        -------
        RatesByClass
            Itself.

        See Also
        --------
        bayescm.priors.resolve_multiclass_priors : Turns every prior of a multiclass fit this way.

        Examples
        --------
        >>> from bayescm.priors import RatesByClass
        >>> prior = RatesByClass([[2, 1], [1, 1]], ["dirichlet", "laplace"])
        >>> prior.for_classes(2) is prior
        True
        """
        self.concentration(k, role)
        return self

    def update(self, counts: Any) -> RatesByClass:
        """The closed-form posterior: ``alpha + counts`` row by row (counts K x K).

        Each true class's row of predictions updates its own Dirichlet.

        Parameters
        ----------
        counts : array-like of float, shape (K, K)
            A confusion matrix, true classes as rows.

        Returns
        -------
        RatesByClass
            The posterior, with the same names and label.

        Raises
        ------
        ValueError
            Counts of another shape than the concentration.

        See Also
        --------
        bayescm.Dirichlet.update : The update of one row.

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
        """Serialise to a JSON-compatible dict (:func:`bayescm.priors.from_dict` rebuilds it).

        Returns
        -------
        dict
            ``{"dist": "Dirichlet", "name": ..., "alpha": [[...], ...], "rows": [...]}``.

        See Also
        --------
        bayescm.priors.from_dict : Rebuild the prior from this dict.

        Examples
        --------
        >>> from bayescm.priors import RatesByClass
        >>> RatesByClass([[2, 1], [1, 1]], ["dirichlet", "laplace"]).to_dict()["rows"]
        ['dirichlet', 'laplace']
        """
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
