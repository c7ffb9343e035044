"""Confusion matrices of a classifier with known properties (supporting information, Fig. S3).

The simulated classifier of the paper has prevalence 0.5, TPR 0.8 and TNR 0.6, hence bookmaker
informedness 0.4. Matrices of ``n`` samples are drawn from ``Multinomial(n, theta)`` with
``theta = [[p TPR, p (1 - TPR)], [(1 - p)(1 - TNR), (1 - p) TNR]]``. Knowing the truth makes
them the test bed for coverage: a 95 % HDI should contain the true value in about 95 % of the
simulated studies.
"""

from __future__ import annotations

from typing import Any, overload

import numpy as np

from bayescm.core.arguments import keyword_checked
from bayescm.core.confusion import ConfusionMatrix
from bayescm.core.resources import check_memory
from bayescm.core.streams import generator
from bayescm.core.validate import check_int, check_real
from bayescm.models.binary import binary_cells

__all__ = ["simulate", "simulate_counts"]


def _proportion(value: Any, name: str) -> float:
    return check_real(value, f"{name} (a proportion)", 0.0, 1.0)


@keyword_checked
def simulate_counts(
    n: int,
    prevalence: float = 0.5,
    tpr: float = 0.8,
    tnr: float = 0.6,
    size: int | tuple[int, ...] | None = None,
    random_seed: int | np.random.Generator | None = None,
) -> np.ndarray:
    """Counts ``[[TP, FN], [FP, TN]]`` of simulated binary confusion matrices.

    Parameters
    ----------
    n : int
        Samples per matrix (>= 1).
    prevalence, tpr, tnr : float
        True parameters, proportions in [0, 1]. Defaults: the paper's simulated classifier.
    size : int or tuple of int, optional
        Number (or shape) of matrices; default one matrix.
    random_seed : int, numpy SeedSequence or Generator, optional
        Seed for reproducible matrices (a Generator's state is used and advanced).

    Returns
    -------
    ndarray of int64
        Shape ``(*size, 2, 2)`` (``(2, 2)`` without ``size``); every matrix sums to ``n``.

    Raises
    ------
    ValueError
        ``size`` that is not a positive integer or a tuple of them.

    See Also
    --------
    simulate : The same as :class:`~bayescm.ConfusionMatrix` objects, ready to fit.
    bayescm.samplesize.simulated_mu : Simulation-based metric uncertainty at a sample size.

    Examples
    --------
    >>> from bayescm.analyses.simulation import simulate_counts
    >>> counts = simulate_counts(100, size=3, random_seed=0)
    >>> counts.shape, counts.sum(axis=(1, 2)).tolist()
    ((3, 2, 2), [100, 100, 100])
    """
    n = check_int(n, "n (samples per matrix)", 1, kind="a whole number of samples")
    cells = np.array(binary_cells(_proportion(prevalence, "prevalence"),
                                  _proportion(tpr, "tpr"), _proportion(tnr, "tnr")))
    if size is None:
        shape: tuple[int, ...] = ()
    else:
        shape = (size,) if isinstance(size, (int, np.integer)) else tuple(size)
        if any(isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 1
               for s in shape):
            raise ValueError(f"size must be a positive integer or a tuple of them, got {size!r}.")
        check_memory(float(np.prod(shape, dtype=float)), "These simulated matrices",
                     ["a smaller size="], bytes_each=COUNTS_BYTES)
    rng, _ = generator(random_seed)
    draws = rng.multinomial(int(n), np.clip(cells, 0.0, 1.0), size=shape or None)
    return draws.reshape(shape + (2, 2)).astype(np.int64)


COUNTS_BYTES = 3 * 4 * 8.0
"""Bytes a simulated matrix's counts take while drawn: the multinomial draws, their int64 copy
and the cell probabilities broadcast (three arrays of four 8-byte cells)."""
MATRIX_BYTES = 600.0
"""Bytes of one simulated :class:`~bayescm.ConfusionMatrix` in the returned mapping (the object,
its arrays, its labels and the mapping's key and slot): tracemalloc measures about 400, RSS a
little more (``tests/test_simulate.py`` checks the figure stays an upper bound)."""


@overload
def simulate(n: int, prevalence: float = ..., tpr: float = ..., tnr: float = ...,
             size: None = None, random_seed: int | np.random.Generator | None = None
             ) -> ConfusionMatrix: ...
@overload
def simulate(n: int, prevalence: float = ..., tpr: float = ..., tnr: float = ..., *,
             size: int, random_seed: int | np.random.Generator | None = None
             ) -> dict[str, ConfusionMatrix]: ...
@overload
def simulate(n: int, prevalence: float, tpr: float, tnr: float, size: int,
             random_seed: int | np.random.Generator | None = None
             ) -> dict[str, ConfusionMatrix]: ...
@keyword_checked
def simulate(
    n: int,
    prevalence: float = 0.5,
    tpr: float = 0.8,
    tnr: float = 0.6,
    size: int | None = None,
    random_seed: int | np.random.Generator | None = None,
) -> ConfusionMatrix | dict[str, ConfusionMatrix]:
    """Simulated confusion matrices from known parameters, ready for :func:`~bayescm.fit`.

    Parameters
    ----------
    n : int
        Samples per matrix (>= 1).
    prevalence, tpr, tnr : float, default 0.5, 0.8, 0.6
        True parameters (the paper's simulated classifier: BM = 0.4).
    size : int, optional
        Number of matrices. Default one :class:`~bayescm.ConfusionMatrix`; with ``size`` a
        mapping ``{"sim0000": cm, ...}``, i.e. a batch for one vectorised ``bcm.fit``.
    random_seed : int or numpy Generator, optional
        Seed for reproducible matrices.

    Returns
    -------
    ConfusionMatrix or dict of str -> ConfusionMatrix
        The simulated matrices: one, or ``size`` of them keyed ``"sim0000"``, ``"sim0001"``, ...

    Raises
    ------
    TypeError
        ``size`` that is not a whole number.

    See Also
    --------
    simulate_counts : The raw counts array.
    bayescm.fit : Fit the simulated matrices to see how well the truth is recovered.
    bayescm.samplesize.plan : How many items a test set needs, from the same kind of simulation.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.analyses.simulation import simulate
    >>> batch = simulate(50, size=4, random_seed=1)
    >>> idata = bcm.fit(batch, metrics=["bm"], draws=200, random_seed=0)
    >>> idata["posterior"]["bm"].sizes["classifier"]
    4
    """
    if size is not None and (isinstance(size, bool) or not isinstance(size, (int, np.integer))):
        raise TypeError(f"size must be a whole number of matrices, got {size!r}.")
    if size is not None:  # the objects dwarf their counts: check what they will take
        check_memory(float(size), "These simulated matrices", [
            "a smaller size=", "simulate_counts(...), the counts array alone (about "
            f"{COUNTS_BYTES:.0f} bytes a matrix)"], bytes_each=MATRIX_BYTES + COUNTS_BYTES)
    counts = simulate_counts(n, prevalence, tpr, tnr, size, random_seed)
    if size is None:
        return ConfusionMatrix(counts, labels=["positive", "negative"], positive="positive")
    width = max(4, len(str(int(size) - 1)))
    return {f"sim{i:0{width}d}": ConfusionMatrix(c, labels=["positive", "negative"],
                                                 positive="positive")
            for i, c in enumerate(counts)}
