"""Metrics evaluated on draws: on the cells of a binary model or on ``theta``.

* :func:`evaluate` -- metrics on their arguments (the four cells, one-vs-rest cells or
  ``theta``), in blocks for large arrays, each result checked against the expected shape;
* :func:`evaluate_theta` -- metrics on confusion probabilities ``theta[..., true, pred]``.

Both are re-exported by :mod:`bayescm.metrics.catalogue` and :mod:`bayescm.metrics`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from bayescm.metrics.metric import Metric
from bayescm.metrics.multiclass import MULTICLASS_METRICS, OneVsRest

__all__ = ["EVAL_BLOCK", "evaluate", "evaluate_theta"]


def evaluate(metrics: Sequence[Metric], inputs: tuple[Any, ...], shape: tuple[int, ...]
             ) -> dict[str, np.ndarray]:
    """Evaluate metrics on cell probabilities (binary) or theta (multiclass).

    ``shape`` is the expected leading shape of every result (draws and batch axes); a custom
    metric that returns anything else raises an error naming it. Large elementwise inputs (the
    binary cells of a batch) are evaluated in blocks written into the results, so the
    temporaries of each formula stay small and in cache instead of costing fresh pages.

    Parameters
    ----------
    metrics : sequence of Metric
        The metrics to compute.
    inputs : tuple
        Their arguments: the four cells ``(tp, fn, fp, tn)`` of a binary model, or one
        ``OneVsRest`` or theta array of a multiclass one.
    shape : tuple of int
        The expected leading shape of every result.

    Returns
    -------
    dict of str -> ndarray
        Each metric's values, of shape ``shape`` (plus a class axis for per-class metrics).

    Raises
    ------
    ValueError
        A metric that fails or returns another shape (the message names it).

    See Also
    --------
    evaluate_theta : The same from confusion probabilities ``theta``.
    Metric : How a metric's function is called.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.metrics import catalogue_for, evaluate
    >>> cells = tuple(np.array([v]) for v in (0.4, 0.1, 0.2, 0.3))  # tp, fn, fp, tn
    >>> out = evaluate([catalogue_for("binary")["acc"]], cells, (1,))
    >>> out["acc"].round(2).tolist()
    [0.7]
    """
    arrays = all(isinstance(a, np.ndarray) and a.shape == shape for a in inputs)
    size = int(np.prod(shape, dtype=np.int64))
    if arrays and size > 2 * EVAL_BLOCK and all(m.kind == "binary" for m in metrics):
        flat = [a.reshape(-1) for a in inputs]
        out = {m.name: np.empty(size) for m in metrics}
        for start in range(0, size, EVAL_BLOCK):
            block = tuple(a[start:start + EVAL_BLOCK] for a in flat)
            for name, value in _evaluate(metrics, block, block[0].shape).items():
                out[name][start:start + EVAL_BLOCK] = value
        return {name: value.reshape(shape) for name, value in out.items()}
    return _evaluate(metrics, inputs, shape)


EVAL_BLOCK = 1 << 16
"""Elements per block when evaluating elementwise metrics on large arrays."""


def _evaluate(metrics: Sequence[Metric], inputs: tuple[Any, ...], shape: tuple[int, ...]
              ) -> dict[str, np.ndarray]:
    out: dict[str, np.ndarray] = {}
    for metric in metrics:
        try:
            value = metric(*inputs)
        except Exception as exc:
            raise ValueError(f"Metric {metric.name!r} failed: {exc}") from exc
        expected = shape if metric.kind != "per_class" else shape + value.shape[-1:]
        if value.shape != expected:
            try:
                value = np.broadcast_to(value, expected).copy()
            except ValueError:
                raise ValueError(
                    f"Metric {metric.name!r} returned shape {value.shape}, expected {expected}; "
                    "a metric must be elementwise over draws."
                ) from None
        out[metric.name] = value
    return out


def evaluate_theta(metrics: Sequence[Metric], theta: Any, family: str,
                   skip: np.ndarray | dict[str, np.ndarray] | None = None
                   ) -> dict[str, np.ndarray]:
    """Metrics on confusion probabilities ``theta[..., true, pred]`` (any leading shape).

    ``family="binary"``: the cells are ``tp = theta[..., 0, 0]``, ``fn = theta[..., 0, 1]``,
    ``fp = theta[..., 1, 0]``, ``tn = theta[..., 1, 1]`` (positive class first).
    ``family="multiclass"``: built-in metrics share one set of one-vs-rest cells
    (:class:`~bayescm.metrics.multiclass.OneVsRest`); custom metrics get ``theta``. ``skip``
    leaves classes out of the averages: per metric, those where it is undefined at the
    observed counts (:func:`~bayescm.metrics.multiclass.undefined_classes`).

    Parameters
    ----------
    metrics : sequence of Metric
        The metrics to compute.
    theta : array-like, shape (..., K, K)
        Joint probabilities of (true class, predicted class); each matrix sums to 1.
    family : {"binary", "multiclass"}
        Which catalogue's conventions apply (``K = 2`` for ``"binary"``).
    skip : dict of str -> ndarray of bool, or ndarray of bool, shape (..., K), optional
        Classes left out of the averages (multiclass): per metric (a mapping), or the same
        classes for every metric (an array).

    Returns
    -------
    dict of str -> ndarray
        Shape ``theta.shape[:-2]`` (plus a class axis for per-class metrics).

    Raises
    ------
    ValueError
        ``theta`` that is not square in its last two axes, a binary ``theta`` that is not 2 x 2,
        or an unknown ``family``.

    See Also
    --------
    evaluate : The same from the cells.
    bayescm.fit : Computes every metric's posterior this way.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.metrics import catalogue_for, evaluate_theta
    >>> theta = np.array([[0.4, 0.1], [0.2, 0.3]])
    >>> out = evaluate_theta([catalogue_for("binary")["tpr"]], theta, "binary")
    >>> float(out["tpr"])
    0.8
    >>> mc = catalogue_for("multiclass")
    >>> out = evaluate_theta([mc["acc"], mc["tpr"]], theta, "multiclass")
    >>> float(out["acc"]), out["tpr"].round(2).tolist()
    (0.7, [0.8, 0.6])
    """
    theta = np.asarray(theta, dtype=float)
    if theta.ndim < 2 or theta.shape[-1] != theta.shape[-2]:
        raise ValueError(f"theta must have shape (..., K, K), got {theta.shape}.")
    shape = theta.shape[:-2]
    if family in ("binary", "hierarchical"):
        if theta.shape[-1] != 2:
            raise ValueError(f"Binary metrics need a 2 x 2 theta, got {theta.shape[-2:]}.")
        cells = (theta[..., 0, 0], theta[..., 0, 1], theta[..., 1, 0], theta[..., 1, 1])
        return evaluate(metrics, cells, shape)
    if family != "multiclass":
        raise ValueError(f"family must be 'binary' or 'multiclass', got {family!r}.")
    builtin = [m for m in metrics if MULTICLASS_METRICS.get(m.name) is m]
    custom = [m for m in metrics if MULTICLASS_METRICS.get(m.name) is not m]
    ovr = OneVsRest(theta)
    if isinstance(skip, dict):
        ovr.skip = {k: np.asarray(v, dtype=bool) for k, v in skip.items()}
    elif skip is not None and np.any(skip):
        ovr.skip = np.asarray(skip, dtype=bool)
    values = evaluate(builtin, (ovr,), shape)
    values.update(evaluate(custom, (theta,), shape))
    return {m.name: values[m.name] for m in metrics}
