"""What the Dirichlet priors share: a probability vector's PyMC variable, update and draws.

:func:`simplex_variable` builds the PyMC variable of a concentration (a flat prior on the
additive log-ratios where it has zeros, the improper Haldane case); ``_Simplex`` is the
base of :class:`~bayescm.Dirichlet` (:mod:`bayescm.priors.dirichlet`) and
:class:`~bayescm.priors.RatesByClass` (:mod:`bayescm.priors.rates_by_class`): each says how
its concentration looks for ``k`` classes, and the base makes the variable, the closed-form
posterior concentration and the NumPy draws from it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from bayescm.core.exact import draw_dirichlet
from bayescm.priors.protocol import (
    Family,
    PriorSpec,
    as_rng,
    dims_shape,
    n_draws,
    reshape_draws,
    size_tuple,
)

if TYPE_CHECKING:
    from pytensor.tensor.variable import TensorVariable

__all__ = ["simplex_variable"]


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

    family = Family.DIRICHLET

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

        Parameters
        ----------
        name : str
            Name of the PyMC variable.
        dims : str or tuple of str, optional
            Dims of the variable in the model's coords; the last one is the simplex.

        Returns
        -------
        pytensor.tensor.TensorVariable
            The variable, created in the model of the current ``with pm.Model()`` block.

        See Also
        --------
        bayescm.build_model : The PyMC model in which the fit creates its priors.
        bayescm.priors.PriorSpec : The protocol every prior follows.

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

        The Dirichlet is conjugate to the multinomial: observing counts adds them to the
        concentration. Entries <= 0 mean an improper posterior (an improper prior met a zero
        count).

        Parameters
        ----------
        counts : array_like
            Class counts, the classes on the last axis (a vector, or rows of a matrix).

        Returns
        -------
        numpy.ndarray
            The posterior concentration, the shape of ``counts``.

        Raises
        ------
        ValueError
            A scalar instead of a vector of counts.

        See Also
        --------
        sample : Draws from the prior (or, given these parameters, from a posterior).

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

        Parameters
        ----------
        rng : int or numpy.random.Generator, optional
            Seed or generator.
        size : int or tuple of int, optional
            Leading shape of the draws; default one draw.
        k : int, optional
            Number of classes, needed when the concentration is one number.

        Returns
        -------
        numpy.ndarray
            Draws on the simplex, shape ``size + (k,)`` (or the concentration's shape).

        See Also
        --------
        draw : The same arranged as chains and draws.

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

        Parameters
        ----------
        rng : int or numpy.random.Generator
            Seed or generator.
        chains : int
            Number of chains.
        draws : int
            Draws per chain.
        k : int, optional
            Number of classes, needed when the concentration is one number.

        Returns
        -------
        numpy.ndarray
            Draws on the simplex, shape ``(chains, draws, k)`` (or the concentration's shape).

        See Also
        --------
        sample : Draws of any shape.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Dirichlet(1.0).draw(0, chains=2, draws=10, k=4).shape
        (2, 10, 4)
        """
        self._check_sampleable()
        return draw_dirichlet(as_rng(rng), self._event(k), chains, draws)

