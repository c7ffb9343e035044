"""Credible bands of whole curves (ROC, PR, reliability) from a scores fit, as data.

Two kinds of band answer two questions. The **pointwise** band is the HDI of the curve's value
at each grid point on its own: "at FPR = 10 %, the TPR lies in [a, b]". The **simultaneous**
(whole-curve) band holds the stated share of the posterior curves inside it at every grid point
at once, so it is the one for statements about the curve as a whole ("the ROC lies above this
line everywhere"); it is wider. Here it is ``mean +- c * sd`` with ``c`` the ``hdi_prob``
quantile of each draw's largest standardised distance from the mean curve.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.arguments import keyword_checked
from bayescm.core.stats import hdi_prob_for
from bayescm.models import registry

__all__ = ["CURVES", "curve_bands"]

CURVES = {"roc": "fpr", "pr": "recall", "reliability": "bin"}
"""The curve variables of a scores fit and the dim each runs over."""


@keyword_checked
def curve_bands(idata: xr.DataTree, curve: str = "roc", hdi_prob: float | None = None
                ) -> xr.Dataset:
    """Posterior mean, pointwise and simultaneous bands of a curve of a scores fit.

    Parameters
    ----------
    idata : xarray.DataTree
        A result of ``bcm.fit(bcm.Scores(...))`` (any method).
    curve : {"roc", "pr", "reliability"}, default "roc"
        The ROC curve over the ``fpr`` grid, the PR curve over ``recall``, or the reliability
        curve over the calibration bins.
    hdi_prob : float, optional
        Probability of both bands; default the tree's ``hdi_prob``.

    Returns
    -------
    xarray.Dataset
        ``mean``, ``pointwise_lower``, ``pointwise_upper``, ``simultaneous_lower`` and
        ``simultaneous_upper`` over the curve's grid (and ``classifier``), and ``c`` (the
        simultaneous band's multiplier, per classifier); ``attrs`` name the methods.

    Raises
    ------
    ValueError
        Not a scores fit, or an unknown ``curve``.
    KeyError
        A curve the fit does not hold (a parametric fit has no reliability curve).

    See Also
    --------
    bayescm.plots.plot_roc : Draws the ROC curve with these bands.
    bayescm.plots.plot_pr : The same for the precision-recall curve.
    bayescm.Scores : The labels and scores such a fit starts from.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.scores import ScoresModel
    >>> bands = bcm.analyses.curve_bands(ScoresModel.example(), "roc")
    >>> bool((bands["simultaneous_upper"] >= bands["pointwise_upper"] - 1e-12).all())
    True
    """
    from bayescm.models.roc import curve_bands as bands_of

    registry.kind_of(idata, "curve_bands", "curve_bands reads whole curves per draw: fit "
                     "scored items, bcm.fit(bcm.Scores(y_true, scores)).")
    if curve not in CURVES:
        raise ValueError(f"curve must be one of {', '.join(map(repr, CURVES))}, got {curve!r}.")
    post = box.get_group(idata, "posterior")
    if curve not in post:
        raise KeyError(f"This fit has no {curve!r} curve (a parametric fit has no reliability "
                       "curve); its posterior has: " + ", ".join(map(str, post.data_vars)) + ".")
    prob = hdi_prob_for(hdi_prob, idata)
    da = post[curve]
    grid = CURVES[curve]
    batch = [d for d in da.dims if d not in ("chain", "draw", grid)]
    stacked = da.stack(sample=("chain", "draw")).transpose(*batch, "sample", grid)
    values = np.asarray(stacked.values, dtype=float)
    flat = values.reshape(-1, *values.shape[-2:])
    parts = [bands_of(rows, prob) for rows in flat]  # one per classifier: a handful
    shape = values.shape[:-2]
    out = {}
    for key in ("mean", "pointwise_lower", "pointwise_upper", "simultaneous_lower",
                "simultaneous_upper"):
        out[key] = (tuple(batch) + (grid,),
                    np.stack([p[key] for p in parts]).reshape(*shape, values.shape[-1]))
    out["c"] = (tuple(batch), np.array([float(p["simultaneous_c"]) for p in parts]).reshape(shape))
    coords = {d: da[d].values for d in (*batch, grid) if d in da.coords}
    return xr.Dataset(out, coords=coords, attrs={
        "curve": curve, "hdi_prob": prob,
        "pointwise": "HDI of the curve's value at each grid point",
        "simultaneous": "mean +- c * sd, c the hdi_prob quantile of each draw's largest "
                        "standardised distance from the mean curve (whole-curve coverage)"})
