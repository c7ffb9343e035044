r"""A restricted cubic spline of the logit risk: the calibration curve's smooth term.

``bcm.fit(scores, method="calibration", knots=k)`` adds to the logistic recalibration

.. math::

    \operatorname{logit} P(y = 1) = a + b\,x + \sum_{j=1}^{k-2} w_j\,B_j(x), \qquad
    x = \operatorname{logit}(r), \quad w_j \sim \mathcal{N}(0, 1),

the restricted (natural) cubic spline of Harrell (*Regression Modeling Strategies*, 2.4.5) with
``k`` knots at the quantiles of each model's logit risks that Harrell recommends: linear beyond
the outer knots, so the curve does not whip at the ends. The basis is divided by the square of
the knots' range, so a coefficient of 1 bends the curve by about one logit unit, and the
Normal(0, 1) prior keeps the bend weak unless the data ask for it. With ``w = 0`` the model is
the logistic recalibration; the posterior of ``calibration_curve`` is then a smooth curve with
bands that can follow a calibration error that is not linear on the logit scale.

Examples
--------
>>> import numpy as np
>>> from bayescm.models.risk_calibration_spline import knot_positions, spline_basis
>>> x = np.linspace(-3, 3, 7)
>>> t = knot_positions(x, 4)
>>> spline_basis(x, t).shape
(7, 2)
>>> bool(np.allclose(spline_basis(np.array([t[0] - 1.0]), t), 0.0))  # 0 left of the knots
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["KNOT_QUANTILES", "check_knots", "knot_positions", "spline_basis"]

KNOT_QUANTILES = {3: (0.10, 0.50, 0.90), 4: (0.05, 0.35, 0.65, 0.95),
                  5: (0.05, 0.275, 0.50, 0.725, 0.95),
                  6: (0.05, 0.23, 0.41, 0.59, 0.77, 0.95),
                  7: (0.025, 0.1833, 0.3417, 0.50, 0.6583, 0.8167, 0.975)}
"""Harrell's quantiles of the knots for 3 to 7 knots."""


def check_knots(knots: Any) -> int | None:
    """``knots=`` of the calibration model: None (no spline) or an integer from 3 to 7.

    Examples
    --------
    >>> from bayescm.models.risk_calibration_spline import check_knots
    >>> check_knots(4), check_knots(None)
    (4, None)
    >>> check_knots(2)
    Traceback (most recent call last):
    ...
    ValueError: knots= takes 3 to 7 knots (a restricted cubic spline of the logit risk), got 2; ...
    """
    if knots is None:
        return None
    if isinstance(knots, bool) or not isinstance(knots, (int, np.integer)) or not (
            3 <= int(knots) <= 7):
        raise ValueError(f"knots= takes 3 to 7 knots (a restricted cubic spline of the logit "
                         f"risk), got {knots!r}; 4 is the usual choice, or leave it out for "
                         "the logistic recalibration alone.")
    return int(knots)


def knot_positions(x: np.ndarray, knots: int) -> np.ndarray:
    """The knots at Harrell's quantiles of ``x`` (distinct; a ValueError if they are not)."""
    t = np.quantile(np.asarray(x, dtype=float), KNOT_QUANTILES[knots])
    if np.any(np.diff(t) <= 0):
        raise ValueError(f"knots={knots}: the risks have too few distinct values for "
                         f"{knots} distinct knots (at {np.round(t, 3).tolist()} on the logit "
                         "scale); use fewer knots or none.")
    return t


def spline_basis(x: np.ndarray, t: np.ndarray) -> np.ndarray:
    """The ``k - 2`` nonlinear terms of the restricted cubic spline with knots ``t``.

    ``x`` of any shape; the terms along a new last axis.
    """
    x = np.asarray(x, dtype=float)[..., None]
    k = t.size
    inner = t[:k - 2]
    scale = (t[-1] - t[0]) ** 2

    def cube(u: np.ndarray) -> np.ndarray:
        return np.maximum(u, 0.0) ** 3

    terms = (cube(x - inner) - cube(x - t[-2]) * (t[-1] - inner) / (t[-1] - t[-2])
             + cube(x - t[-1]) * (t[-2] - inner) / (t[-1] - t[-2]))
    return np.asarray(terms / scale, dtype=float)
