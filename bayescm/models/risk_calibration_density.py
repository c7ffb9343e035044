r"""The logistic recalibration model's log density and gradient, written out, for nutpie.

The model of :mod:`bayescm.models.risk_calibration`, for ``K`` models' logit risks
:math:`x_{ki}` and labels :math:`y_i`,

.. math::

    \log p(a, b \mid y) = \sum_k \Big[ a_k S_y + b_k S_{k} - \sum_i \log(1 + e^{a_k + b_k x_{ki}})
                          \Big] + \log p(a) + \log p(b) + \text{const},

with the sufficient statistics :math:`S_y = \sum_i y_i` and :math:`S_k = \sum_i y_i x_{ki}` (the
Bernoulli term :math:`y \eta` is linear in the parameters; only the log-partition needs every
item). One call costs one exponential and one logarithm per (model, item) and returns the
gradient with it, so nutpie's NUTS spends no time compiling a graph: 10,000 items sample in a
few seconds where the PyMC model took half a minute (``benchmarks/bench_decision.py``).

The position is ``[a_1 .. a_K, b_1 .. b_K]``; the priors this path knows are
:class:`~bayescm.priors.Normal` (the defaults); any other prior is sampled from the PyMC model,
which a test checks has the same log density.

Examples
--------
>>> import numpy as np
>>> from bayescm.models.risk_calibration_density import CalibrationDensity
>>> from bayescm.priors import Normal
>>> dens = CalibrationDensity(np.array([1.0, 0.0]), np.array([[0.0, 0.0]]),
...                           {"calibration_intercept": Normal(0, 1.5),
...                            "calibration_slope": Normal(1, 1)})
>>> lp, grad = dens.logp(np.array([0.0, 1.0]))
>>> grad.round(6).tolist()   # d/da at p = 1/2: one success - two halves; prior at its mean
[0.0, 0.0]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numba import njit

__all__ = ["CalibrationDensity", "fast_calibration_priors"]


def fast_calibration_priors(priors: Mapping[str, Any]) -> bool:
    """Whether every prior is a :class:`~bayescm.priors.Normal` (the written-out density's).

    Examples
    --------
    >>> from bayescm.models.risk_calibration_density import fast_calibration_priors
    >>> from bayescm.priors import HalfNormal, Normal
    >>> fast_calibration_priors({"calibration_slope": Normal(1, 1)})
    True
    >>> fast_calibration_priors({"calibration_slope": HalfNormal(1)})
    False
    """
    from bayescm.priors.continuous import Normal

    return all(type(p) is Normal for p in priors.values())


class CalibrationDensity:
    """Log posterior density and gradient of the recalibration of ``K`` models' risks.

    Parameters
    ----------
    y : numpy.ndarray
        Labels, 1.0 for the positive class, ``(n,)``.
    logits : numpy.ndarray
        Each model's logit risks, ``(K, n)``.
    priors : mapping
        ``calibration_intercept`` and ``calibration_slope``, each a
        :class:`~bayescm.priors.Normal` (a scalar or one value per model).
    """

    def __init__(self, y: np.ndarray, logits: np.ndarray, priors: Mapping[str, Any],
                 basis: np.ndarray | None = None) -> None:
        self.x = np.ascontiguousarray(logits, dtype=float)
        self.k = self.x.shape[0]
        y = np.asarray(y, dtype=float)
        self.s_y = float(y.sum())
        self.s_xy = self.x @ y
        self.centre = self.x.mean(axis=1)
        # the spline's terms (K, n, J), J = 0 without one; their sufficient statistics y @ B
        self.basis = np.ascontiguousarray(np.zeros(self.x.shape + (0,)) if basis is None
                                          else basis, dtype=float)
        self.j = self.basis.shape[-1]
        self.s_yb = np.einsum("kij,i->kj", self.basis, y)
        a, b = priors["calibration_intercept"], priors["calibration_slope"]
        shape = (self.k,)
        self.prior_mu = np.concatenate([np.broadcast_to(np.asarray(p.mu, float), shape)
                                        for p in (a, b)] + [np.zeros(self.k * self.j)])
        self.prior_sd = np.concatenate([np.broadcast_to(np.asarray(p.sigma, float), shape)
                                        for p in (a, b)] + [np.ones(self.k * self.j)])

    @property
    def ndim(self) -> int:
        """The length of the position vector, ``2 K`` plus ``K J`` spline coefficients."""
        return self.k * (2 + self.j)

    def logp(self, position: np.ndarray) -> tuple[float, np.ndarray]:
        """The log density (up to a constant) and its gradient at ``[a, b, w]``."""
        grad = np.empty(self.ndim)
        lp = _kernel(np.asarray(position, dtype=float), self.x, self.basis, self.s_y,
                     self.s_xy, self.s_yb, self.prior_mu, self.prior_sd, grad)
        return lp, grad

    def _centred(self, position: np.ndarray) -> tuple[float, np.ndarray]:
        """The same at ``[c, b]`` with ``a = c - b * mean(x)``.

        The logit risks centred, the intercept and slope are nearly uncorrelated (a shear: its
        Jacobian is 1), and NUTS needs fewer steps per draw.
        """
        k = self.k
        natural = np.array(position, dtype=float)
        natural[:k] = position[:k] - position[k:2 * k] * self.centre
        lp, grad = self.logp(natural)
        grad[k:2 * k] -= self.centre * grad[:k]
        return lp, grad

    def start(self, seed: int) -> np.ndarray:
        """A starting point near calibration (a = 0, b = 1), jittered per chain (centred)."""
        rng = np.random.default_rng(seed)
        b = 1.0 + rng.normal(0.0, 0.2, self.k)
        return np.concatenate([rng.normal(0.0, 0.2, self.k) + b * self.centre, b,
                               rng.normal(0.0, 0.1, self.k * self.j)])

    def sample(self, draws: int, tune: int, chains: int, seed: int, target_accept: float,
               progressbar: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray, Any]:
        """NUTS draws with nutpie.

        Intercepts and slopes ``(chain, draw, K)``, the spline's coefficients ``(chain, draw,
        K, J)`` and the sample stats.
        """
        import nutpie
        from nutpie.compiled_pyfunc import from_pyfunc

        def make_logp() -> Any:
            def logp(x: np.ndarray, **_: Any) -> tuple[float, np.ndarray]:
                return self._centred(x)
            return logp

        def make_expand(*_: Any) -> Any:
            def expand(x: np.ndarray, **__: Any) -> dict[str, np.ndarray]:
                k = self.k
                return {"a": x[:k] - x[k:2 * k] * self.centre, "b": x[k:2 * k].copy(),
                        "w": x[2 * k:].reshape(k, self.j)}
            return expand

        model = from_pyfunc(self.ndim, make_logp, make_expand, [np.dtype("float64")] * 3,
                            [(self.k,), (self.k,), (self.k, self.j)], ["a", "b", "w"],
                            make_initial_point_fn=self.start)
        trace = nutpie.sample(model, draws=draws, tune=tune, chains=chains, seed=seed,
                              progress_bar=progressbar, target_accept=target_accept,
                              save_warmup=False)
        post = trace["posterior"]
        a = np.asarray(post["a"].transpose("chain", "draw", ...).values, dtype=float)
        b = np.asarray(post["b"].transpose("chain", "draw", ...).values, dtype=float)
        w = np.asarray(post["w"].transpose("chain", "draw", ...).values, dtype=float)
        return a, b, w, trace["sample_stats"].to_dataset()


@njit(cache=True, nogil=True)
def _kernel(position: np.ndarray, x: np.ndarray, basis: np.ndarray, s_y: float,
            s_xy: np.ndarray, s_yb: np.ndarray, prior_mu: np.ndarray, prior_sd: np.ndarray,
            grad: np.ndarray) -> float:
    """One pass over the (model, item) cells: the log density, and its gradient into ``grad``."""
    k, n = x.shape
    m = basis.shape[2]
    lp = 0.0
    sum_pb = np.zeros(m)
    for j in range(k):
        a, b = position[j], position[k + j]
        w = position[2 * k + j * m:2 * k + (j + 1) * m]
        partition, sum_p, sum_px = 0.0, 0.0, 0.0
        sum_pb[:] = 0.0
        for i in range(n):
            eta = a + b * x[j, i]
            for q in range(m):
                eta += w[q] * basis[j, i, q]
            e = np.exp(-abs(eta))
            if eta >= 0.0:
                partition += eta + np.log1p(e)
                p = 1.0 / (1.0 + e)
            else:
                partition += np.log1p(e)
                p = e / (1.0 + e)
            sum_p += p
            sum_px += p * x[j, i]
            for q in range(m):
                sum_pb[q] += p * basis[j, i, q]
        lp += a * s_y + b * s_xy[j] - partition
        grad[j] = s_y - sum_p
        grad[k + j] = s_xy[j] - sum_px
        for q in range(m):
            lp += w[q] * s_yb[j, q]
            grad[2 * k + j * m + q] = s_yb[j, q] - sum_pb[q]
    for q in range(position.size):
        z = (position[q] - prior_mu[q]) / prior_sd[q]
        lp -= 0.5 * z * z
        grad[q] -= z / prior_sd[q]
    return lp
