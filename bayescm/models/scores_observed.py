"""The observed values of a scores fit: every posterior quantity at the items themselves.

Part of the scores model (:mod:`bayescm.models.scores`): the ``observed_metrics`` group holds
the AUC, average precision, curves, losses, calibration and thresholded metrics with every item
weighed 1 (scikit-learn's AUC and average precision, the plug-in Brier score, ...), whichever
method drew the posterior; the novel atoms of the Dirichlet-process fit
(:mod:`bayescm.models.roc_dp`) are a prior's, not observations, and do not enter them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.scores import Scores
from bayescm.core.validate import check_real
from bayescm.metrics.evaluation import evaluate
from bayescm.metrics.metric import Metric
from bayescm.models.calibration import expected_calibrated_ece
from bayescm.models.roc import curve_draws, loss_draws

__all__ = ["fpr_range_of", "observed_calibration", "observed_values", "scores_from_tree",
           "threshold_counts"]


def fpr_range_of(value: Any) -> tuple[float, float]:
    """The ``fpr_range`` of the partial AUC, checked: an increasing pair in [0, 1].

    Raises
    ------
    TypeError
        Not a pair.
    ValueError
        Not increasing, or outside [0, 1].

    Examples
    --------
    >>> from bayescm.models.scores_observed import fpr_range_of
    >>> fpr_range_of([0, 0.2])
    (0.0, 0.2)
    """
    if isinstance(value, (str, bytes)) or np.ndim(value) != 1 or len(value) != 2:
        raise TypeError(f"fpr_range must be a pair (low, high), got {value!r}.")
    lo = check_real(value[0], "fpr_range[0]", 0.0, 1.0)
    hi = check_real(value[1], "fpr_range[1]", 0.0, 1.0)
    if not lo < hi:
        raise ValueError(f"fpr_range must be increasing, got {value!r}.")
    return lo, hi


def threshold_counts(y: np.ndarray, s: np.ndarray, threshold: float) -> np.ndarray:
    """The confusion matrix ``[[TP, FN], [FP, TN]]`` when ``score >= threshold`` is positive.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.scores_observed import threshold_counts
    >>> threshold_counts(np.array([True, True, False]), np.array([0.8, 0.3, 0.6]), 0.5).tolist()
    [[1, 1], [1, 0]]
    """
    pred = s >= threshold
    return np.array([[np.sum(y & pred), np.sum(y & ~pred)],
                     [np.sum(~y & pred), np.sum(~y & ~pred)]], dtype=np.int64)


def observed_values(data: Scores, selected: list[Metric], threshold: float,
                    fpr_grid: np.ndarray, recall_grid: np.ndarray,
                    fpr_range: tuple[float, float], n_bins: int, names: list[str],
                    single: bool, long_names: dict[str, str],
                    extra: Mapping[str, tuple[str, ...]]) -> dict[str, Any]:
    """Every posterior variable at the observed items (weights all 1), as dataset variables.

    Returns
    -------
    dict
        Name -> ``(dims, array, attrs)``: a ``classifier`` dim first unless ``single``, then
        the variable's ``extra`` dims.

    Examples
    --------
    >>> import numpy as np, bayescm as bcm
    >>> from bayescm.models.scores_observed import observed_values
    >>> data = bcm.Scores([1, 0, 1, 0], [0.9, 0.4, 0.6, 0.7])
    >>> out = observed_values(data, [], 0.5, np.linspace(0, 1, 3), np.linspace(0, 1, 3),
    ...                       (0.0, 0.1), 2, ["A"], True, {}, {"roc": ("fpr",)})
    >>> out["auc"][1].item(), out["roc"][0]
    (0.75, ('fpr',))
    """
    y = data.y
    ones = np.ones((1, y.size))
    per: dict[str, list[np.ndarray]] = {}
    for name in names:
        s = data.scores[name]
        values = {**curve_draws(y, s, ones, fpr_grid, recall_grid, fpr_range),
                  **loss_draws(y, s, ones)}
        counts = threshold_counts(y, s, threshold).astype(float)
        # the catalogue takes cell proportions (tp + fn + fp + tn = 1), as the posterior's
        cells = tuple((counts.reshape(-1) / counts.sum())[[0, 1, 2, 3]][:, None])
        values.update(evaluate(selected, cells, (1,)))
        values.update(observed_calibration(y, s, n_bins))
        for k, v in values.items():
            per.setdefault(k, []).append(np.asarray(v)[0])
    out = {}
    for k, parts in per.items():
        arr = np.stack(parts)
        dims = ("classifier",) + extra.get(k, ())
        if single:
            arr, dims = arr[0], extra.get(k, ())
        out[k] = (dims, arr, {"long_name": long_names.get(k, k)})
    return out


def observed_calibration(y: np.ndarray, s: np.ndarray, n_bins: int) -> dict[str, np.ndarray]:
    """The plug-in reliability curve and ECE of probability scores, and the calibrated ECE.

    NaN for scores outside [0, 1]; ``ece_reference`` is the exact expected plug-in ECE of
    calibrated labels on these items (:func:`~bayescm.models.calibration.expected_calibrated_ece`).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.scores_observed import observed_calibration
    >>> out = observed_calibration(np.array([True, False]), np.array([0.9, 0.2]), 2)
    >>> out["reliability"].tolist(), round(float(out["ece"][0]), 2)
    ([[0.0, 1.0]], 0.15)
    """
    if np.any(s < 0) or np.any(s > 1):
        nan = np.full((1,), np.nan)
        return {"ece": nan, "ece_reference": nan.copy(),
                "reliability": np.full((1, n_bins), np.nan)}
    bins = np.minimum((s * n_bins).astype(int), n_bins - 1)
    count = np.bincount(bins, minlength=n_bins).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = np.bincount(bins, weights=y.astype(float), minlength=n_bins) / count
        conf = np.bincount(bins, weights=s, minlength=n_bins) / count
    used = count > 0
    ece = np.abs(rate[used] - conf[used]) @ (count[used] / count.sum())
    return {"ece": np.array([ece]), "ece_reference": np.array([expected_calibrated_ece(s, bins)]),
            "reliability": rate[None]}


def scores_from_tree(idata: xr.DataTree) -> tuple[Scores, dict[str, Any]]:
    """The items a scores result was fitted to, and its curve options (what a refit needs).

    The labels and scores come from ``observed_data`` (the positive label as stored, the other
    one named ``"not <positive>"``), the threshold and partial-AUC range from the root
    attributes, the grid size from the ``fpr`` grid.

    Returns
    -------
    data : Scores
        The classifiers' scores under their names (one unnamed classifier stays unnamed).
    options : dict
        ``threshold``, ``fpr_range`` and ``grid_size``.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.scores_observed import scores_from_tree
    >>> data = bcm.Scores([1, 0, 1], {"old": [0.8, 0.4, 0.3], "new": [0.9, 0.2, 0.6]})
    >>> again, options = scores_from_tree(bcm.fit(data, draws=5, threshold=0.3))
    >>> again.names, again.n_pos, options["threshold"], options["grid_size"]
    (['old', 'new'], 2, 0.3, 201)
    """
    attrs = box.root_attrs(idata)
    obs = box.get_group(idata, "observed_data")
    names = box.read_json_attr(idata, "classifiers")
    values = np.asarray(obs["scores"].values, dtype=float).reshape(len(names), -1)
    positive = str(attrs["positive"])
    labels = np.where(obs["y"].values.astype(bool), positive, f"not {positive}")
    scores: Any = dict(zip(names, values, strict=True))
    if "classifier" not in obs["scores"].dims:
        scores = scores[names[0]]
    options = {"threshold": float(attrs["threshold"]),
               "fpr_range": tuple(box.read_json_attr(idata, "fpr_range")),
               "grid_size": int(box.get_group(idata, "posterior").sizes["fpr"])}
    return Scores(labels, scores, positive=positive), options
