r"""A uniform prior on an interval: ``Uniform(lower, upper)``, e.g. a test's TPR in U(0.6, 1).

The classic corrected-prevalence examples give a screening test's sensitivity and specificity
as uniform ranges ("somewhere between 60 % and 100 %"). It follows the one prior protocol
(:class:`~bayescm.priors.PriorSpec`): it makes its PyMC variable, draws itself with NumPy,
describes itself (``to_dict``, rebuilt by :func:`~bayescm.priors.from_dict`) and has no
conjugate family (a confusion-matrix fit with it samples with NUTS;
:func:`bayescm.true_prevalence` draws it exactly on its quantile grid).

Examples
--------
>>> import bayescm as bcm
>>> bcm.priors.Uniform(0.6, 1).to_dict()
{'dist': 'Uniform', 'lower': 0.6, 'upper': 1.0}
>>> bcm.priors.from_dict({"dist": "Uniform", "lower": 0.6, "upper": 1})
Uniform(lower=0.6, upper=1.0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from bayescm.priors.continuous import ContinuousPrior, Value

__all__ = ["Uniform"]


@dataclass(frozen=True)
class Uniform(ContinuousPrior):
    r"""A uniform prior on ``[lower, upper]``: every value in the interval equally likely.

    .. math:: p(x) = \frac{1}{\mathrm{upper} - \mathrm{lower}}, \quad
              \mathrm{lower} \le x \le \mathrm{upper}

    Parameters
    ----------
    lower : float, default 0
        Lower end of the interval.
    upper : float, default 1
        Upper end (> ``lower``).

    Raises
    ------
    ValueError
        ``upper <= lower``, or an end that is not finite.

    See Also
    --------
    bayescm.Beta.from_interval : A Beta with 95 % of its mass in an interval (conjugate).
    bayescm.true_prevalence : Takes it for the test's ``tpr`` and ``tnr``.

    Examples
    --------
    >>> from bayescm.priors import Uniform
    >>> draws = Uniform(0.6, 1).sample(random_seed=0, size=1000)
    >>> bool(draws.min() >= 0.6 and draws.max() <= 1.0), Uniform(0.6, 1).mean
    (True, 0.8)
    """

    dist: ClassVar[str] = "Uniform"
    lower: Value = 0.0
    upper: Value = 1.0

    def __post_init__(self) -> None:
        super().__post_init__()
        if np.any(np.asarray(self.upper) <= np.asarray(self.lower)):
            raise ValueError(f"Uniform needs lower < upper, got lower={self.lower!r}, "
                             f"upper={self.upper!r}.")

    @property
    def mean(self) -> float:
        """The interval's midpoint (of the first entry, for per-classifier ends)."""
        return float((np.ravel(self.lower)[0] + np.ravel(self.upper)[0]) / 2)

    def _draw(self, rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
        return rng.uniform(np.asarray(self.lower), np.asarray(self.upper), shape)
