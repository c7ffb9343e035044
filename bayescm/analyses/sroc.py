r"""The summary ROC of a hierarchical fit as data: curve, band, summary point and its regions.

A hierarchical fit (``bcm.fit(matrices, model="hierarchical", group="study")``) describes the
groups' (FPR, TPR) pairs as draws from one bivariate normal population on the logit scale.
:func:`sroc_regions` turns its posterior into what an SROC figure shows, so the figure
(:func:`bayescm.plots.plot_sroc`) and a user's own table or plot share one computation:

* the **summary ROC curve**: the posterior mean of ``sroc`` (``E[TPR | FPR]`` of the population)
  with its pointwise HDI band, and which FPRs lie inside the range the groups observed (the
  curve outside that range is an extrapolation of the model, as mada and RevMan warn);
* the **summary point**: the posterior mean of the pooled ``(1 - tnr_mean, tpr_mean)``;
* the **credible region**: where the pooled point lies, with probability ``hdi_prob``;
* the **prediction region**: where the true (FPR, TPR) of a *new* group lies, from the draws of
  ``(1 - tnr_new, tpr_new)``; it adds the spread between groups to the uncertainty of the
  centre, so it is the wider one.

How a region is drawn. The draws ``x_s = (logit FPR_s, logit TPR_s)`` of the point give a mean
``m`` and a covariance ``S``; the region is the ellipse
``{x : (x - m)^T S^{-1} (x - m) <= r^2}`` with ``r^2`` the ``hdi_prob`` quantile of the draws' own
squared distances ``(x_s - m)^T S^{-1} (x_s - m)``, so it holds the stated share of the draws
by construction; its boundary is mapped back to the ROC square with the inverse logit. For
normal draws ``r^2`` is the chi-square(2) quantile (5.99 at 95 %), which is the region of mada
and RevMan; a new group's draws (a normal mixed over the posterior) can have heavier tails,
and then the empirical radius is the larger one and the region keeps its promised coverage.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.arguments import keyword_checked
from bayescm.core.stats import hdi, hdi_prob_for
from bayescm.models import registry

__all__ = ["REGIONS", "in_region", "sroc_regions"]

REGIONS = ("credible", "prediction")
"""The regions of :func:`sroc_regions`: of the pooled point, and of a new group's point."""

_EDGE = 1e-12
"""Rates are clipped to ``[_EDGE, 1 - _EDGE]`` before the logit (a draw rounded to 1.0)."""


def _logit(p: np.ndarray) -> np.ndarray:
    from scipy.special import logit

    return np.asarray(logit(np.clip(p, _EDGE, 1.0 - _EDGE)), dtype=float)


def _flat(post: xr.Dataset, name: str) -> np.ndarray:
    return np.asarray(post[name].values, dtype=float).reshape(-1)


def _ellipse(points: np.ndarray, prob: float, n_points: int, what: str
             ) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    """Mean, covariance, radius and boundary (logit scale) of the region of ``points``."""
    center = points.mean(axis=0)
    cov = np.cov(points, rowvar=False)
    try:
        chol = np.linalg.cholesky(cov)
    except np.linalg.LinAlgError:
        raise ValueError(f"The draws of the {what} point do not spread in two directions (a "
                         "singular covariance on the logit scale), so they have no region; "
                         "fit with more draws.") from None
    white = np.linalg.solve(chol, (points - center).T)
    radius = float(np.sqrt(np.quantile((white * white).sum(axis=0), prob)))
    angle = np.linspace(0.0, 2.0 * np.pi, n_points)
    boundary = center + radius * (chol @ np.stack([np.cos(angle), np.sin(angle)])).T
    return center, cov, radius, boundary


@keyword_checked
def sroc_regions(idata: xr.DataTree, hdi_prob: float | None = None, n_points: int = 200
                 ) -> xr.Dataset:
    """The SROC curve, the summary point and its credible and prediction regions, as data.

    Parameters
    ----------
    idata : xarray.DataTree
        A result of ``bcm.fit(matrices, model="hierarchical", group=...)``.
    hdi_prob : float, optional
        Probability of the band and of both regions; default the tree's ``hdi_prob``.
    n_points : int, default 200
        Vertices of each region's boundary (a closed polygon: the last equals the first).

    Returns
    -------
    xarray.Dataset
        * ``fpr``, ``tpr`` (dims ``region, vertex``): the boundaries of the ``"credible"`` and
          ``"prediction"`` regions in the ROC square;
        * ``center_logit_fpr``, ``center_logit_tpr``, ``sd_logit_fpr``, ``sd_logit_tpr``,
          ``corr_logit``, ``radius`` (dim ``region``): each ellipse on the logit scale (the
          draws' mean, standard deviations, correlation, and the Mahalanobis radius holding
          ``hdi_prob`` of the draws), enough to redraw it or test points with :func:`in_region`;
        * ``summary_fpr``, ``summary_tpr``: the summary point, the posterior mean of
          ``(1 - tnr_mean, tpr_mean)``;
        * ``sroc_mean``, ``sroc_lower``, ``sroc_upper`` (dim ``sroc_fpr``): the posterior mean
          SROC curve and its pointwise HDI band; ``in_observed_range`` marks the FPRs between
          the smallest and largest observed FPR of the groups;
        * ``observed_fpr``, ``observed_tpr``, ``n_items`` (the group dim): each group's
          unpooled point (its counts' FPR and TPR) and its number of items.

        ``attrs`` hold ``hdi_prob``, the group dim's name and the method of each part.

    Raises
    ------
    ValueError
        ``idata`` is not a hierarchical fit; ``n_points`` is below 3.

    See Also
    --------
    bayescm.plots.plot_sroc : Draws all of it.
    in_region : Whether points lie inside a region.

    Examples
    --------
    Six sites of one test:

    >>> import bayescm as bcm
    >>> from bayescm.models.hierarchical import HierarchicalModel
    >>> sites = HierarchicalModel.example_sites()  # six sites: {name: ConfusionMatrix}
    >>> # bcm.fit(sites, model="hierarchical", group="site", draws=500, chains=2), kept per process:
    >>> idata = HierarchicalModel.example()
    >>> regions = bcm.analyses.sroc_regions(idata)
    >>> regions["fpr"].sizes["vertex"], regions["region"].values.tolist()
    (200, ['credible', 'prediction'])

    The credible region holds 95 % of the pooled point's draws; a new site is less certain
    than the centre of the sites, so its region is wider:

    >>> bool(regions["radius"].sel(region="credible") > 2)
    True
    >>> width = regions["fpr"].max("vertex") - regions["fpr"].min("vertex")
    >>> bool(width.sel(region="prediction") > width.sel(region="credible"))
    True
    """
    from scipy.special import expit

    registry.kind_of(idata, "sroc_regions", "Fit several studies or sites partially pooled: "
                     "bcm.fit(matrices, model='hierarchical', group='study').")
    if isinstance(n_points, bool) or not isinstance(n_points, int) or n_points < 3:
        raise ValueError(f"n_points must be a whole number >= 3, got {n_points!r}.")
    prob = hdi_prob_for(hdi_prob, idata)
    group = str(idata.attrs.get("group", "group"))
    post = box.get_group(idata, "posterior")

    pooled = np.column_stack([-_flat(post, "mu_logit_tnr"), _flat(post, "mu_logit_tpr")])
    new = np.column_stack([_logit(1.0 - _flat(post, "tnr_new")), _logit(_flat(post, "tpr_new"))])
    keys = ("center_logit_fpr", "center_logit_tpr", "sd_logit_fpr", "sd_logit_tpr",
            "corr_logit", "radius")
    parts: dict[str, list[float]] = {k: [] for k in keys}
    boundaries = []
    for points, what in ((pooled, "pooled"), (new, "new-group")):
        center, cov, radius, boundary = _ellipse(points, prob, n_points, what)
        sd = np.sqrt(np.diag(cov))
        for key, value in zip(parts, (center[0], center[1], sd[0], sd[1],
                                      cov[0, 1] / (sd[0] * sd[1]), radius), strict=True):
            parts[key].append(float(value))
        boundaries.append(expit(boundary))
    edges = np.stack(boundaries)  # (region, vertex, 2)

    curves = np.asarray(post["sroc"].transpose("chain", "draw", "sroc_fpr").values, dtype=float)
    curves = curves.reshape(-1, curves.shape[-1])
    band = hdi(curves, prob, axis=0)
    grid = np.asarray(post["sroc_fpr"].values, dtype=float)
    data = box.get_group(idata, "observed_data")["counts"]
    counts = np.asarray(data.transpose(group, "true_class", "pred_class").values, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):  # a group without negatives: NaN
        obs_fpr = counts[:, 1, 0] / counts[:, 1].sum(axis=1)
        obs_tpr = counts[:, 0, 0] / counts[:, 0].sum(axis=1)
    finite = obs_fpr[np.isfinite(obs_fpr)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)

    region_dims = ("region",)
    out: dict[str, Any] = {
        "fpr": (("region", "vertex"), edges[..., 0],
                {"long_name": "false positive rate on the region's boundary"}),
        "tpr": (("region", "vertex"), edges[..., 1],
                {"long_name": "true positive rate on the region's boundary"}),
        **{k: (region_dims, np.array(v)) for k, v in parts.items()},
        "summary_fpr": ((), float(np.mean(1.0 - _flat(post, "tnr_mean"))),
                        {"long_name": "posterior mean of 1 - tnr_mean"}),
        "summary_tpr": ((), float(np.mean(_flat(post, "tpr_mean"))),
                        {"long_name": "posterior mean of tpr_mean"}),
        "sroc_mean": (("sroc_fpr",), curves.mean(axis=0)),
        "sroc_lower": (("sroc_fpr",), band[:, 0]),
        "sroc_upper": (("sroc_fpr",), band[:, 1]),
        "in_observed_range": (("sroc_fpr",), (grid >= low) & (grid <= high)),
        "observed_fpr": ((group,), obs_fpr),
        "observed_tpr": ((group,), obs_tpr),
        "n_items": ((group,), counts.reshape(len(counts), -1).sum(axis=1).astype(np.int64)),
    }
    coords = {"region": list(REGIONS), "vertex": np.arange(n_points), "sroc_fpr": grid,
              group: data[group].values}
    return xr.Dataset(out, coords=coords, attrs={
        "hdi_prob": prob, "group": group, "observed_fpr_range": [low, high],
        "regions": "ellipse on the logit scale from the draws' mean and covariance, radius the "
                   "hdi_prob quantile of the draws' Mahalanobis distances, back-transformed",
        "credible": "region of the pooled point (1 - tnr_mean, tpr_mean)",
        "prediction": "region of a new group's point (1 - tnr_new, tpr_new)",
        "band": "pointwise HDI of the SROC curve at each FPR"})


@keyword_checked
def in_region(regions: xr.Dataset, fpr: Any, tpr: Any, region: str = "prediction"
              ) -> np.ndarray:
    """Whether points ``(fpr, tpr)`` lie inside a region of :func:`sroc_regions`.

    The test is made on the logit scale with the region's ellipse (its boundary polygon is a
    drawing of the same set). A group whose observed point lies outside the prediction region
    is unusual for the population the model describes; rates of exactly 0 or 1 are moved
    a hair inside the square.

    Parameters
    ----------
    regions : xarray.Dataset
        A result of :func:`sroc_regions`.
    fpr, tpr : float or array
        Points in the ROC square (broadcast against each other).
    region : {"prediction", "credible"}, default "prediction"
        Which region.

    Returns
    -------
    ndarray of bool

    Examples
    --------
    A region made by hand: centred at FPR 10 %, TPR 80 %, one logit unit wide each way.

    >>> import numpy as np
    >>> import xarray as xr
    >>> from scipy.special import logit
    >>> from bayescm.analyses.sroc import in_region
    >>> one = {"center_logit_fpr": logit(0.1), "center_logit_tpr": logit(0.8),
    ...        "sd_logit_fpr": 1.0, "sd_logit_tpr": 1.0, "corr_logit": 0.0, "radius": 1.0}
    >>> regions = xr.Dataset({k: ("region", [v]) for k, v in one.items()},
    ...                      coords={"region": ["prediction"]})
    >>> in_region(regions, [0.1, 0.5], [0.8, 0.8]).tolist()
    [True, False]
    """
    if region not in REGIONS:
        raise ValueError(f"region must be one of {', '.join(map(repr, REGIONS))}, got "
                         f"{region!r}.")
    one = regions.sel(region=region)
    x, y = np.broadcast_arrays(_logit(np.asarray(fpr, dtype=float)),
                               _logit(np.asarray(tpr, dtype=float)))
    dx = (x - float(one["center_logit_fpr"])) / float(one["sd_logit_fpr"])
    dy = (y - float(one["center_logit_tpr"])) / float(one["sd_logit_tpr"])
    r = float(one["corr_logit"])
    distance2 = (dx * dx - 2.0 * r * dx * dy + dy * dy) / (1.0 - r * r)
    return np.asarray(distance2 <= float(one["radius"]) ** 2)
