"""The Beta prior of one proportion (prevalence, TPR, TNR): its variable, update and draws.

Its other parameterisations (``Beta.from_mean``, ``from_counts``, ``from_interval``) are
inherited from :mod:`bayescm.priors.beta_constructors`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescm.core.exact import draw_beta
from bayescm.priors.beta_constructors import BetaConstructors
from bayescm.priors.protocol import (
    Family,
    PriorSpec,
    as_rng,
    check_positive,
    n_draws,
    reshape_draws,
    size_tuple,
)

if TYPE_CHECKING:
    from pytensor.tensor.variable import TensorVariable

__all__ = ["Beta"]


@dataclass(frozen=True)
class Beta(BetaConstructors["Beta"], PriorSpec):
    r"""Beta(alpha, beta) prior on a proportion.

    .. math:: p(x) \propto x^{\alpha - 1} (1 - x)^{\beta - 1}, \quad 0 < x < 1

    Conjugate to the binomial likelihood: with ``k`` successes in ``n`` trials the posterior is
    ``Beta(alpha + k, beta + n - k)`` (:meth:`update`), which is what the exact sampler draws
    from.

    Parameters
    ----------
    alpha, beta : float
        Pseudo-counts of successes and failures; both must be finite and > 0.

    See Also
    --------
    Laplace, Jeffreys, Haldane : The three objective presets.
    Beta.from_mean, Beta.from_counts, Beta.from_interval : Informative alternatives.
    bayescm.fit : Takes a prior per parameter (``priors={"tpr": bcm.Beta(...)}``).

    Examples
    --------
    >>> import bayescm as bcm
    >>> bcm.Beta(2, 8).mean
    0.2
    >>> bcm.Beta(2, 8).update(successes=26, failures=0)
    Beta(alpha=28.0, beta=8.0)
    """

    alpha: float
    beta: float

    def __post_init__(self) -> None:
        allow_zero = self._improper_ok
        object.__setattr__(self, "alpha", check_positive(self.alpha, "Beta alpha", allow_zero))
        object.__setattr__(self, "beta", check_positive(self.beta, "Beta beta", allow_zero))

    _improper_ok = False
    family = Family.BETA

    @property
    def name(self) -> str:
        """Short name used in messages and serialisation."""
        return "beta"

    @property
    def mean(self) -> float:
        """Prior mean ``alpha / (alpha + beta)``."""
        return self.alpha / (self.alpha + self.beta)

    @property
    def proper(self) -> bool:
        """Whether the prior integrates to one."""
        return self.alpha > 0 and self.beta > 0

    def to_dict(self) -> dict[str, Any]:
        """Serialise to a JSON-compatible dict (:func:`bayescm.priors.from_dict` rebuilds it).

        This is how a fit records its priors in the result's ``priors`` attribute, so that a saved
        result says which prior produced it and :func:`bayescm.refit` can use it again.

        Returns
        -------
        dict
            ``{"dist": "Beta", "name": ..., "alpha": ..., "beta": ...}``; ``name`` is the preset's
            name for the presets (``"laplace"``, ``"jeffreys"``, ...).

        See Also
        --------
        bayescm.priors.from_dict : Rebuild the prior from this dict.
        bayescm.priors.prior_to_dict : The same for any prior the package accepts.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.priors.Jeffreys().to_dict()
        {'dist': 'Beta', 'name': 'jeffreys', 'alpha': 0.5, 'beta': 0.5}
        >>> bcm.priors.from_dict(bcm.Beta(2, 8).to_dict())
        Beta(alpha=2.0, beta=8.0)
        """
        return {"dist": "Beta", "name": self.name, "alpha": self.alpha, "beta": self.beta}

    # ------------------------------------------------------------------ acting
    def create_variable(self, name: str, dims: Any = None) -> TensorVariable:
        """The ``pm.Beta`` variable ``name`` in the current model (``dims`` from its coords).

        This is the NUTS path of a fit; the exact path never builds a PyMC model and uses
        :meth:`posterior_params` instead.

        Parameters
        ----------
        name : str
            Name of the variable in the model (``"tpr"``, ``"tnr"``, ``"prevalence"``).
        dims : str or tuple of str, optional
            Dims of the variable, e.g. ``"classifier"`` for one rate per classifier of a batch;
            their lengths come from the model's coords.

        Returns
        -------
        pytensor.tensor.variable.TensorVariable
            The random variable, registered in the model.

        See Also
        --------
        bayescm.build_model : Builds the whole model from the priors.
        sample : Prior draws with NumPy, without a model.

        Examples
        --------
        >>> import pymc as pm, bayescm as bcm
        >>> with pm.Model(coords={"classifier": ["a", "b"]}):
        ...     tpr = bcm.Beta(2, 8).create_variable("tpr", dims="classifier")
        >>> tpr.eval().shape
        (2,)
        """
        import pymc as pm

        return pm.Beta(name, alpha=self.alpha, beta=self.beta, dims=dims)

    def posterior_params(self, successes: Any, failures: Any) -> tuple[np.ndarray, np.ndarray]:
        """Posterior ``(alpha + successes, beta + failures)``, vectorised over arrays of counts.

        Conjugacy in one line: a Beta prior worth ``alpha`` successes and ``beta`` failures plus the
        observed counts gives a Beta posterior. For the TPR the successes are TP and the failures
        FN; for the TNR, TN and FP.

        Entries <= 0 (an improper prior that met a zero count) mean an improper posterior; the
        caller checks them (:meth:`update` raises).

        Parameters
        ----------
        successes : array-like of float
            Observed successes (e.g. TP for the TPR), any shape.
        failures : array-like of float
            Observed failures (e.g. FN for the TPR), broadcastable with ``successes``.

        Returns
        -------
        alpha : ndarray of float
            Posterior ``alpha`` of each entry.
        beta : ndarray of float
            Posterior ``beta`` of each entry.

        See Also
        --------
        update : The same for one pair of counts, as a checked :class:`Beta`.
        bayescm.fit : With ``method="exact"`` draws from these posteriors.

        Examples
        --------
        >>> import bayescm as bcm
        >>> a, b = bcm.priors.Laplace().posterior_params([26, 3], [0, 5])
        >>> a.tolist(), b.tolist()
        ([27.0, 4.0], [1.0, 6.0])
        """
        succ = np.asarray(successes, dtype=float)
        fail = np.asarray(failures, dtype=float)
        return self.alpha + succ, self.beta + fail

    def update(self, successes: float, failures: float) -> Beta:
        """The closed-form posterior ``Beta(alpha + successes, beta + failures)``.

        The prior's pseudo-counts plus the observed counts: a ``Beta(2, 8)`` prior on the TPR that
        meets 26 TP and 0 FN becomes ``Beta(28, 8)``. The posterior mean
        ``(alpha + successes) / (alpha + beta + n)`` sits between the prior mean and the observed
        proportion, closer to the one with more weight.

        Parameters
        ----------
        successes : float
            Observed successes (e.g. TP for the TPR).
        failures : float
            Observed failures (e.g. FN for the TPR).

        Returns
        -------
        Beta
            The posterior, a prior again: it can be updated with more data.

        Raises
        ------
        ValueError
            Arrays instead of one pair of counts (use :meth:`posterior_params`), or an improper
            posterior (the Haldane prior and a zero count).

        See Also
        --------
        posterior_params : The vectorised form.
        from_counts : An earlier study's counts as a prior, optionally down-weighted.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.priors.Jeffreys().update(10, 2)
        Beta(alpha=10.5, beta=2.5)
        """
        a, b = self.posterior_params(successes, failures)
        if a.ndim or b.ndim:
            raise ValueError("update takes one pair of counts; use posterior_params for arrays.")
        if a <= 0 or b <= 0:
            which = "successes" if a <= 0 else "failures"
            raise ValueError(f"The {self.name} prior gives an improper posterior because "
                             f"{which} = 0; use a proper prior (e.g. 'jeffreys').")
        return Beta(float(a), float(b))

    def sample(self, rng: Any = None, size: Any = None) -> np.ndarray:
        """Independent prior draws of shape ``size`` (NumPy; a seed or Generator as ``rng``).

        Drawing from the prior shows what it says before any data: a quick check that a prior
        means what you intended.

        Parameters
        ----------
        rng : int, numpy.random.Generator or None, optional
            Seed or generator; None draws fresh entropy.
        size : int or tuple of int, optional
            Shape of the draws; None gives one draw as a 0-d array.

        Returns
        -------
        ndarray of float
            Draws in (0, 1), of shape ``size``.

        Raises
        ------
        ValueError
            An improper prior (Haldane), which has no draws.

        See Also
        --------
        draw : The same, laid out as ``(chains, draws)``.
        bayescm.prior_predictive : The prior of every metric, not only of one rate.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.Beta(2, 8).sample(0, size=(2, 3)).shape
        (2, 3)
        """
        self._check_sampleable()
        shape = size_tuple(size)
        flat = draw_beta(as_rng(rng), self.alpha, self.beta, 1, n_draws(shape))
        return reshape_draws(flat, shape)

    def draw(self, rng: Any, chains: int, draws: int) -> np.ndarray:
        """Prior draws arranged as ``(chains, draws)``, as the exact sampler lays them out.

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
            Independent draws from the prior.

        Raises
        ------
        ValueError
            An improper prior (Haldane), which has no draws.

        See Also
        --------
        sample : Draws of any shape.
        bayescm.prior_predictive : Prior draws of every metric in a result tree.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.priors.Laplace().draw(0, chains=4, draws=100).shape
        (4, 100)
        """
        self._check_sampleable()
        return draw_beta(as_rng(rng), self.alpha, self.beta, chains, draws)

    def for_classes(self, k: int, role: str = "prevalence", parameter: str = "the parameter"
                    ) -> Any:
        """A Beta other than a preset has no multiclass meaning: a TypeError that says so.

        A Beta describes one proportion; the multiclass model's prevalence and rates rows are
        probability vectors, which need a :class:`~bayescm.Dirichlet`. The presets
        (:class:`~bayescm.Laplace`, :class:`~bayescm.Weak`, ...) override this and know their
        Dirichlets.

        Parameters
        ----------
        k : int
            Number of classes.
        role : {"prevalence", "rates"}, default "prevalence"
            Which multiclass parameter the prior is asked to be.
        parameter : str, default "the parameter"
            Name of the parameter in the message.

        Returns
        -------
        object
            Never returns: a plain Beta always raises.

        Raises
        ------
        TypeError
            Always, with a message that names the alternatives.

        See Also
        --------
        bayescm.Dirichlet : The prior of a probability vector.
        bayescm.Weak : The multiclass default, a preset that knows its Dirichlets.

        Examples
        --------
        >>> import bayescm as bcm
        >>> try:
        ...     bcm.Beta(2, 8).for_classes(3)
        ... except TypeError as err:
        ...     print(str(err)[:47])
        Beta(alpha=2.0, beta=8.0) is a prior for one pr
        """
        raise TypeError(
            f"{self!r} is a prior for one proportion (binary matrices) and cannot be the prior of "
            f"the multiclass {parameter}; use bcm.Dirichlet(alpha) with a scalar or one "
            f"concentration per class ({k} classes), or 'weak', 'laplace', 'jeffreys', 'flat', "
            "'haldane'."
        )

    def concentration(self, k: int, role: str = "prevalence") -> np.ndarray:
        """Multiclass concentration; only the presets have one (see :class:`bayescm.Weak`).

        Parameters
        ----------
        k : int
            Number of classes.
        role : {"prevalence", "rates"}, default "prevalence"
            Which multiclass parameter.

        Returns
        -------
        ndarray
            A preset's concentration; a plain Beta raises instead.

        Raises
        ------
        TypeError
            A plain Beta (not a preset), as in :meth:`for_classes`.

        See Also
        --------
        for_classes : The multiclass prior itself.
        bayescm.Dirichlet.concentration : A Dirichlet's concentration.

        Examples
        --------
        >>> import bayescm as bcm
        >>> bcm.priors.Laplace().concentration(3).tolist()
        [1.0, 1.0, 1.0]
        """
        return self.for_classes(k, role)

    @classmethod
    def _plain(cls, alpha: float, beta: float) -> Beta:
        """A plain ``Beta(alpha, beta)``: what the inherited constructors return."""
        return Beta(alpha, beta)
