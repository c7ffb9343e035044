"""Informative priors: from an earlier study's confusion matrix or from three metric values.

* :func:`priors_from_matrix` turns an earlier matrix into Beta priors for prevalence, TPR and
  TNR, each earlier observation counting ``weight`` times (a power prior built on
  :meth:`bayescm.Beta.from_counts`).
* :func:`cells_from_metrics` solves for the cell probabilities ``tp, fn, fp, tn`` that reproduce
  three metric values (and sum to one), and :func:`priors_from_metrics` turns them into
  pseudo-counts ``weight * cells`` and Beta priors, as the authors' web tool does.

Metrics that are ratios of sums of cells (accuracy, TPR, TNR, PPV, NPV, their complements,
prevalence, bias, F-beta, Jaccard) give *linear* equations ``num . x = m den . x``, so three of
them plus ``tp + fn + fp + tn = 1`` form a 4 x 4 linear system with an exact solution. If the
solution leaves the simplex (a negative cell), no confusion matrix has those values.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from bayescm.core.arguments import keyword_checked
from bayescm.core.confusion import ConfusionMatrix
from bayescm.core.validate import check_real
from bayescm.metrics.binary import BINARY_METRICS
from bayescm.metrics.catalogue import canonical_name
from bayescm.priors.beta import Beta

__all__ = ["LINEAR_METRICS", "cells_from_metrics", "priors_from_matrix", "priors_from_metrics"]

CELLS = ("tp", "fn", "fp", "tn")

# metric -> (numerator, denominator) coefficients over (tp, fn, fp, tn)
LINEAR_METRICS: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "acc": ((1, 0, 0, 1), (1, 1, 1, 1)),
    "err": ((0, 1, 1, 0), (1, 1, 1, 1)),
    "prevalence": ((1, 1, 0, 0), (1, 1, 1, 1)),
    "bias": ((1, 0, 1, 0), (1, 1, 1, 1)),
    "tpr": ((1, 0, 0, 0), (1, 1, 0, 0)),
    "fnr": ((0, 1, 0, 0), (1, 1, 0, 0)),
    "tnr": ((0, 0, 0, 1), (0, 0, 1, 1)),
    "fpr": ((0, 0, 1, 0), (0, 0, 1, 1)),
    "ppv": ((1, 0, 0, 0), (1, 0, 1, 0)),
    "fdr": ((0, 0, 1, 0), (1, 0, 1, 0)),
    "npv": ((0, 0, 0, 1), (0, 1, 0, 1)),
    "for": ((0, 1, 0, 0), (0, 1, 0, 1)),
    "f1": ((2, 0, 0, 0), (2, 1, 1, 0)),
    "f05": ((1.25, 0, 0, 0), (1.25, 0.25, 1, 0)),
    "f2": ((5, 0, 0, 0), (5, 4, 1, 0)),
    "jaccard": ((1, 0, 0, 0), (1, 1, 1, 0)),
}
"""Metrics that are ratios of linear combinations of the cells, usable for elicitation."""


def _weight(weight: Any) -> float:
    value = check_real(weight, "weight")
    if not value > 0:
        raise ValueError(f"weight must be a positive finite number, got {weight}.")
    return value


@keyword_checked
def priors_from_matrix(cm: ConfusionMatrix, weight: float = 1.0, base: Beta | None = None
                       ) -> dict[str, Beta]:
    """Beta priors for prevalence, TPR and TNR from an earlier study's binary matrix.

    ``tpr ~ Beta(a0 + w TP, b0 + w FN)``, ``tnr ~ Beta(a0 + w TN, b0 + w FP)``,
    ``prevalence ~ Beta(a0 + w (TP + FN), b0 + w (FP + TN))``: the posterior of the earlier
    study under ``base`` with every earlier observation worth ``weight`` new ones.

    Parameters
    ----------
    cm : ConfusionMatrix
        The earlier binary matrix.
    weight : float, default 1.0
        Worth of one earlier observation (> 0); 0.5 halves the earlier study's influence.
    base : Beta, optional
        Prior of the earlier analysis; default Laplace.

    Returns
    -------
    dict
        ``{"prevalence": Beta, "tpr": Beta, "tnr": Beta}``, to pass as ``bcm.fit(cm,
        priors=priors)``. Drop ``"prevalence"`` when the new test set's composition is unrelated.

    Raises
    ------
    TypeError
        ``cm`` that is not a :class:`ConfusionMatrix`.
    ValueError
        A multiclass matrix (the priors are for the binary model).

    See Also
    --------
    priors_from_metrics : Priors from published metric values.
    Beta.from_counts : The same for one proportion.
    bayescm.fit : Takes the priors as ``priors=...``.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.priors.elicit import priors_from_matrix
    >>> old = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    >>> priors_from_matrix(old, weight=0.5)["tpr"]
    Beta(alpha=14.0, beta=1.0)
    """
    if not isinstance(cm, ConfusionMatrix):
        raise TypeError(f"cm must be a bcm.ConfusionMatrix, got {type(cm).__name__}.")
    if not cm.is_binary:
        raise ValueError(
            "priors_from_matrix needs a binary matrix (two classes and a positive class); for "
            "a multiclass matrix build bcm.Dirichlet priors from its row sums and rows."
        )
    w = _weight(weight)
    c = cm.cells
    return {
        "prevalence": Beta.from_counts(c["tp"] + c["fn"], c["fp"] + c["tn"], w, base),
        "tpr": Beta.from_counts(c["tp"], c["fn"], w, base),
        "tnr": Beta.from_counts(c["tn"], c["fp"], w, base),
    }


@keyword_checked
def cells_from_metrics(values: Mapping[str, float]) -> dict[str, float]:
    """Cell probabilities ``tp, fn, fp, tn`` (summing to 1) that reproduce three metric values.

    Parameters
    ----------
    values : mapping of str -> float
        Exactly three metrics of :data:`LINEAR_METRICS` (aliases such as ``"precision"``
        accepted) with values in [0, 1].

    Returns
    -------
    dict
        ``{"tp": ..., "fn": ..., "fp": ..., "tn": ...}``.

    Raises
    ------
    ValueError
        Not three metrics, an unsupported metric, three metrics that do not determine the
        matrix (e.g. TPR and FNR, which say the same), or values that no confusion matrix has.
    TypeError
        ``values`` that is not a mapping.

    See Also
    --------
    priors_from_metrics : Priors from such values and a strength.
    priors_from_matrix : Priors from an earlier confusion matrix.

    Examples
    --------
    >>> from bayescm.priors.elicit import cells_from_metrics
    >>> cells = cells_from_metrics({"acc": 0.8, "tpr": 0.7, "ppv": 0.75})
    >>> {k: round(v, 4) for k, v in cells.items()}
    {'tp': 0.2625, 'fn': 0.1125, 'fp': 0.0875, 'tn': 0.5375}
    """
    if not isinstance(values, Mapping):
        raise TypeError("values must be a mapping such as {'acc': 0.8, 'tpr': 0.7, 'ppv': 0.75}.")
    if len(values) != 3:
        raise ValueError(f"Give exactly three metric values (with sum-to-one they fix the four "
                         f"cells), got {len(values)}: {list(values)}.")
    table = {}
    for m in BINARY_METRICS.values():
        for alias in (m.name, *m.aliases):
            table[canonical_name(alias)] = m.name
    rows, rhs, names = [], [], []
    for name, value in values.items():
        key = table.get(canonical_name(str(name)))
        if key not in LINEAR_METRICS:
            raise ValueError(f"Cannot elicit from {name!r}: use three of "
                             f"{', '.join(LINEAR_METRICS)} (ratios of cell sums).")
        if isinstance(value, bool) or not isinstance(value, (int, float, np.number)) or not (
                0.0 <= float(value) <= 1.0):
            raise ValueError(f"The value of {name} must be a number in [0, 1], got {value!r}.")
        num, den = (np.asarray(v, dtype=float) for v in LINEAR_METRICS[key])
        rows.append(num - float(value) * den)
        rhs.append(0.0)
        names.append(key)
    if len(set(names)) != 3:
        raise ValueError(f"The three metrics must differ, got {names}.")
    a = np.vstack(rows + [np.ones(4)])
    b = np.array(rhs + [1.0])
    if np.linalg.matrix_rank(a, tol=1e-10) < 4:
        raise ValueError(
            f"The metrics {names} at these values do not determine a unique confusion matrix "
            "(they are redundant, e.g. TPR and FNR); choose three that involve different cells."
        )
    x = np.linalg.solve(a, b)
    x[np.abs(x) < 1e-12] = 0.0
    if np.any(x < 0):
        bad = ", ".join(f"{c} = {v:.4g}" for c, v in zip(CELLS, x, strict=True) if v < 0)
        given = ", ".join(f"{n} = {values[k]}" for n, k in zip(names, values, strict=True))
        raise ValueError(
            f"No confusion matrix has {given}: the solution needs {bad} (negative). The values "
            "are inconsistent; check them (e.g. accuracy always lies between TPR and TNR, "
            "and PPV between the prevalence and 1 for an informative classifier)."
        )
    return {c: float(v) for c, v in zip(CELLS, x, strict=True)}


@keyword_checked
def priors_from_metrics(values: Mapping[str, float], weight: float, base: Beta | None = None
                        ) -> dict[str, Beta]:
    """Beta priors for prevalence, TPR and TNR from three metric values and a weight.

    Solves :func:`cells_from_metrics`, takes pseudo-counts ``weight * cells`` and returns
    ``prevalence ~ Beta(tp + fn, fp + tn)``, ``tpr ~ Beta(tp, fn)``, ``tnr ~ Beta(tn, fp)``
    (pseudo-counts added to ``base``, if given). Without ``base`` the prior means equal the
    implied prevalence, TPR and TNR exactly, and ``weight`` is the number of observations the
    prior is worth.

    Parameters
    ----------
    values : mapping of str -> float
        Three metric values, e.g. ``{"acc": 0.8, "tpr": 0.7, "ppv": 0.75}``.
    weight : float
        Total pseudo-count (> 0).
    base : Beta, optional
        A prior to add the pseudo-counts to (e.g. ``bcm.priors.Laplace()``); needed when a
        cell is 0.

    Returns
    -------
    dict
        ``{"prevalence": Beta, "tpr": Beta, "tnr": Beta}``.

    Raises
    ------
    ValueError
        Values that leave a parameter without pseudo-counts (a rate of 0 or 1).

    See Also
    --------
    cells_from_metrics : The cell probabilities the values imply.
    priors_from_matrix : Priors from an earlier confusion matrix.
    bayescm.fit : Takes the priors as ``priors=...``.

    Examples
    --------
    >>> from bayescm.priors.elicit import priors_from_metrics
    >>> priors = priors_from_metrics({"acc": 0.8, "tpr": 0.7, "ppv": 0.75}, weight=10)
    >>> priors["tpr"]
    Beta(alpha=2.625, beta=1.125)
    >>> round(priors["tpr"].mean, 3)
    0.7
    """
    w = _weight(weight)
    cells = cells_from_metrics(values)
    pseudo = {k: w * v for k, v in cells.items()}
    pairs = {"prevalence": (pseudo["tp"] + pseudo["fn"], pseudo["fp"] + pseudo["tn"]),
             "tpr": (pseudo["tp"], pseudo["fn"]), "tnr": (pseudo["tn"], pseudo["fp"])}
    out = {}
    for name, (s, f) in pairs.items():
        if base is None:
            if s <= 0 or f <= 0:
                raise ValueError(
                    f"The implied {name} is {0 if s <= 0 else 1} exactly, so its pseudo-counts "
                    f"({s:g}, {f:g}) are not a proper Beta; pass base=bcm.priors.Laplace() to add "
                    f"them "
                    "to a uniform prior."
                )
            out[name] = Beta(round(s, 12), round(f, 12))
        else:
            out[name] = Beta.from_counts(s, f, 1.0, base)
    return out
