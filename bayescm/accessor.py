"""``idata.bcm``: bayescm's functions as methods of a result tree.

Importing :mod:`bayescm` registers the accessor on :class:`xarray.DataTree`, so a result (or a
tree loaded with :func:`bayescm.load`) offers ``idata.bcm.summary()``,
``idata.bcm.plot_metric("tpr")`` and so on. Every method is a thin call of the plain function
with the tree as its first argument: both spellings share one implementation, and the methods
have the functions' own signatures (this file is written by ``scripts/make_accessor.py``, and
``tests/test_accessor.py`` checks it against the functions). The plotting methods import
:mod:`bayescm.plots`, and with it matplotlib, only when called.

Examples
--------
>>> import bayescm as bcm
>>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), random_seed=1)
>>> idata.bcm.summary(var_names="tnr").equals(bcm.summary(idata, var_names="tnr"))
True
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import xarray as xr

from bayescm.accessor_curves import CurveMethods
from bayescm.accessor_plots import PlotMethods
from bayescm.core.arguments import keyword_checked

if TYPE_CHECKING:  # annotations only: matplotlib loads when a plotting method is called
    import os
    from pathlib import Path

    import numpy as np
    import pandas as pd

    from bayescm.metrics.metric import Metric

__all__ = ["BayescmAccessor"]


@xr.register_datatree_accessor("bcm")
class BayescmAccessor(PlotMethods, CurveMethods):
    """Methods of a bayescm result tree, reached as ``idata.bcm``.

    Parameters
    ----------
    tree : xarray.DataTree
        The result the methods apply to (checked by each function, as with the plain calls).

    Examples
    --------
    >>> import bayescm as bcm
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4), random_seed=0)
    >>> round(idata.bcm.probability("bm", upper=0.0), 2)
    0.14
    """

    def __init__(self, tree: xr.DataTree) -> None:
        self._tree = tree

    @keyword_checked
    def summary(
        self,
        var_names: Iterable[str] | str | None = None,
        hdi_prob: float | None = None,
        group: str = "posterior",
        kind: str = "all",
    ) -> pd.DataFrame:
        """Table of every variable: observed value, mean, sd, HDI, metric uncertainty, R-hat, ESS.

        The method form of :func:`bayescm.summary`: ``idata.bcm.summary(...)`` is
        ``bcm.summary(idata, ...)``, with the same parameters.

        Examples
        --------
        >>> import bayescm as bcm
        >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
        ...                 random_seed=1)
        >>> round(float(idata.bcm.summary(var_names=["tnr"]).loc["tnr", "observed"]), 2)
        0.75
        """
        from bayescm.analyses.summary import summary

        return summary(self._tree, var_names=var_names, hdi_prob=hdi_prob, group=group, kind=kind)

    @keyword_checked
    def probability(
        self,
        var: str,
        lower: float | None = None,
        upper: float | None = None,
        group: str = "posterior",
    ) -> float | xr.DataArray:
        """Posterior probability that ``var`` lies between ``lower`` and ``upper``.

        The method form of :func:`bayescm.probability`: ``idata.bcm.probability(...)`` is
        ``bcm.probability(idata, ...)``, with the same parameters.

        Examples
        --------
        >>> import bayescm as bcm
        >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
        ...                 random_seed=1)
        >>> idata.bcm.probability("tpr", lower=0.8) > 0.99
        True
        """
        from bayescm.analyses.summary import probability

        return probability(self._tree, var=var, lower=lower, upper=upper, group=group)

    @keyword_checked
    def informedness(self, rope: float = 0.0, var: str | None = None) -> pd.DataFrame:
        """Chances that a classifier is informative, uninformative or deceptive (paper eqs. 13-14).

        The method form of :func:`bayescm.informedness`: ``idata.bcm.informedness(...)`` is
        ``bcm.informedness(idata, ...)``, with the same parameters.

        Examples
        --------
        >>> import bayescm as bcm
        >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4),
        ...                 random_seed=0)
        >>> list(idata.bcm.informedness(rope=0.05).columns)
        ['informative', 'uninformative', 'deceptive']
        """
        from bayescm.analyses.summary import informedness

        return informedness(self._tree, rope=rope, var=var)

    @keyword_checked
    def with_prevalence(
        self,
        prevalence: Any,
        *,
        metrics: Iterable[str | Metric] | str | Metric | None = None,
        random_seed: int | np.random.Generator | None = None,
    ) -> xr.DataTree:
        """The result at another prevalence: classifier posterior kept, every metric recomputed.

        The method form of :func:`bayescm.with_prevalence`: ``idata.bcm.with_prevalence(...)``
        is ``bcm.with_prevalence(idata, ...)``, with the same parameters.

        Examples
        --------
        >>> import bayescm as bcm
        >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
        ...                 random_seed=1)
        >>> rare = idata.bcm.with_prevalence(0.01, random_seed=0)
        >>> float(rare["posterior"]["ppv"].mean()) < float(idata["posterior"]["ppv"].mean())
        True
        """
        from bayescm.analyses.prevalence import with_prevalence

        return with_prevalence(
            self._tree,
            prevalence=prevalence,
            metrics=metrics,
            random_seed=random_seed,
        )

    @keyword_checked
    def posterior_predictive(
        self,
        n: int | Sequence[int] | None = None,
        random_seed: int | np.random.Generator | None = None,
        *,
        metrics: Iterable[str | Metric] | str | Metric | None = None,
    ) -> xr.DataTree:
        """Add synthetic confusion matrices of ``n`` samples and their metrics (Caelen's approach).

        The method form of :func:`bayescm.posterior_predictive`:
        ``idata.bcm.posterior_predictive(...)`` is ``bcm.posterior_predictive(idata, ...)``,
        with the same parameters.

        Examples
        --------
        >>> import bayescm as bcm
        >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
        ...                 random_seed=1)
        >>> "posterior_predictive" in idata.bcm.posterior_predictive(random_seed=0).children
        True
        """
        from bayescm.analyses.predictive import posterior_predictive

        return posterior_predictive(self._tree, n=n, random_seed=random_seed, metrics=metrics)

    @keyword_checked
    def prob_superior(
        self,
        b: xr.DataTree | Hashable,
        c: Hashable | None = None,
        /,
        *,
        metric: str | Metric,
        margin: float = 0.0,
        direction: str | None = None,
        coords: Mapping[str, Any] | None = None,
        group: str = "posterior",
    ) -> float:
        """Posterior probability that classifier A beats classifier B on ``metric`` by > ``margin``.

        The method form of :func:`bayescm.prob_superior`: ``idata.bcm.prob_superior(...)`` is
        ``bcm.prob_superior(idata, ...)``, with the same parameters.

        Examples
        --------
        >>> import bayescm as bcm
        >>> from bayescm.io.datasets import literature_matrices
        >>> mats = literature_matrices()
        >>> batch = bcm.fit({k: mats[k] for k in ("7a", "8")}, metrics=["bm"], random_seed=0)
        >>> 0 <= batch.bcm.prob_superior("7a", "8", metric="bm") <= 1
        True
        """
        from bayescm.comparisons.superiority import prob_superior

        return prob_superior(
            self._tree,
            b,
            c,
            metric=metric,
            margin=margin,
            direction=direction,
            coords=coords,
            group=group,
        )

    @keyword_checked
    def rank_probabilities(
        self,
        metric: str | Metric | None = None,
        *,
        direction: str | None = None,
        coords: Mapping[str, Any] | None = None,
        max_rank: int | None = None,
        chunk_size: int | None = None,
        group: str = "posterior",
    ) -> xr.Dataset:
        """Probabilistic leaderboard of a batch: P(rank), P(best) and expected rank per classifier.

        The method form of :func:`bayescm.rank_probabilities`:
        ``idata.bcm.rank_probabilities(...)`` is ``bcm.rank_probabilities(idata, ...)``, with
        the same parameters.

        Examples
        --------
        >>> import bayescm as bcm
        >>> from bayescm.io.datasets import literature_matrices
        >>> mats = literature_matrices()
        >>> batch = bcm.fit({k: mats[k] for k in ("5b", "7a", "8")}, metrics=["acc"],
        ...                 random_seed=0)
        >>> batch.bcm.rank_probabilities("acc")["rank_probability"].sizes["rank"]
        3
        """
        from bayescm.comparisons.ranks import rank_probabilities

        return rank_probabilities(
            self._tree,
            metric=metric,
            direction=direction,
            coords=coords,
            max_rank=max_rank,
            chunk_size=chunk_size,
            group=group,
        )

    @keyword_checked
    def group_gaps(
        self,
        reference: str | None = None,
        measures: str | Sequence[str] | None = None,
        *,
        epsilon: float = 0.05,
        ratio_bounds: tuple[float, float] = (0.8, 1.25),
        groups: Sequence[str] | None = None,
        min_items: int | None = None,
    ) -> xr.Dataset:
        """Posterior draws of each group's gap to a reference group, and of the largest gaps.

        The method form of :func:`bayescm.compare.group_gaps`: ``idata.bcm.group_gaps(...)`` is
        ``bcm.compare.group_gaps(idata, ...)``, with the same parameters.

        Examples
        --------
        >>> import bayescm as bcm
        >>> fit = bcm.fit(bcm.datasets.subgroups(), random_seed=0)
        >>> fit.bcm.group_gaps(measures="tpr_gap").attrs["reference"]
        '30-44'
        """
        from bayescm.comparisons.groups import group_gaps

        return group_gaps(
            self._tree,
            reference=reference,
            measures=measures,
            epsilon=epsilon,
            ratio_bounds=ratio_bounds,
            groups=groups,
            min_items=min_items,
        )

    @keyword_checked
    def fairness_table(
        self,
        reference: str | None = None,
        measures: str | Sequence[str] | None = None,
        *,
        epsilon: float = 0.05,
        ratio_bounds: tuple[float, float] = (0.8, 1.25),
        hdi_prob: float | None = None,
        groups: Sequence[str] | None = None,
        min_items: int | None = None,
    ) -> pd.DataFrame:
        """Gaps between groups as a table: observed, mean, HDI and ``P(outside the band)``.

        The method form of :func:`bayescm.compare.fairness_table`:
        ``idata.bcm.fairness_table(...)`` is ``bcm.compare.fairness_table(idata, ...)``, with
        the same parameters.

        Examples
        --------
        >>> import bayescm as bcm
        >>> fit = bcm.fit(bcm.datasets.subgroups(), random_seed=0)
        >>> list(fit.bcm.fairness_table(measures="tpr_gap").index.names)
        ['measure', 'classifier']
        """
        from bayescm.comparisons.groups import fairness_table

        return fairness_table(
            self._tree,
            reference=reference,
            measures=measures,
            epsilon=epsilon,
            ratio_bounds=ratio_bounds,
            hdi_prob=hdi_prob,
            groups=groups,
            min_items=min_items,
        )

    @keyword_checked
    def save(self, path: str | os.PathLike[str], *, compact: bool = True) -> Path:
        """Write a result tree to netCDF (via a temporary file, so an open file can be replaced).

        The method form of :func:`bayescm.save`: ``idata.bcm.save(...)`` is ``bcm.save(idata,
        ...)``, with the same parameters.

        Examples
        --------
        >>> import tempfile, pathlib
        >>> import bayescm as bcm
        >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
        ...                 draws=100, random_seed=1)
        >>> path = idata.bcm.save(pathlib.Path(tempfile.mkdtemp()) / "fit.nc")
        >>> bcm.load(path)["posterior"]["tpr"].shape
        (4, 100)
        """
        from bayescm.core.container import save

        return save(self._tree, path=path, compact=compact)
