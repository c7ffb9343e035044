"""The figures of curves and groups of ``idata.bcm`` (a mixin of ``BayescmAccessor``).

Written by ``scripts/make_accessor.py`` with the plot functions' own signatures; each method
imports :mod:`bayescm.plots`, and with it matplotlib, only when called.

Examples
--------
>>> from bayescm.accessor_curves import CurveMethods
>>> sorted(n for n in dir(CurveMethods) if n.startswith("plot_"))[:2]
['plot_delta_auc', 'plot_group_forest']
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any, cast

import xarray as xr

from bayescm.core.arguments import keyword_checked

if TYPE_CHECKING:  # annotations only: matplotlib loads when a plotting method is called
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["CurveMethods"]


class CurveMethods:
    """The figures of curves and groups: each draws the tree with :mod:`bayescm.plots`.

    Examples
    --------
    >>> import bayescm as bcm
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), draws=100)
    >>> callable(idata.bcm.plot_roc)
    True
    """

    _tree: xr.DataTree

    @keyword_checked
    def plot_roc(
        self,
        classifier: Hashable | Sequence[Hashable] | None = None,
        ax: Axes | None = None,
        hdi_prob: float | None = None,
        bands: str | Sequence[str] | None = ('pointwise', 'simultaneous'),
        *,
        observed: bool = True,
        legend: bool = True,
        title: str | None = None,
        figsize: tuple[float, float] | None = None,
    ) -> Axes:
        """Posterior ROC curve with its pointwise and simultaneous bands and the AUC.

        The method form of :func:`bayescm.plots.plot_roc`: ``idata.bcm.plot_roc(...)`` is
        ``bcm.plots.plot_roc(idata, ...)``, with the same parameters.

        Examples
        --------
        >>> from bayescm.models.scores import ScoresModel
        >>> ScoresModel.example().bcm.plot_roc(bands="pointwise").get_title()
        'ROC curve'
        >>> import matplotlib.pyplot as plt; plt.close("all")
        """
        from bayescm.plots import plot_roc

        return plot_roc(
            self._tree,
            classifier=classifier,
            ax=ax,
            hdi_prob=hdi_prob,
            bands=bands,
            observed=observed,
            legend=legend,
            title=title,
            figsize=figsize,
        )

    @keyword_checked
    def plot_pr(
        self,
        classifier: Hashable | Sequence[Hashable] | None = None,
        ax: Axes | None = None,
        hdi_prob: float | None = None,
        bands: str | Sequence[str] | None = ('pointwise', 'simultaneous'),
        *,
        observed: bool = True,
        legend: bool = True,
        title: str | None = None,
        figsize: tuple[float, float] | None = None,
    ) -> Axes:
        """Posterior precision-recall curve with its bands, the average precision and the baseline.

        The method form of :func:`bayescm.plots.plot_pr`: ``idata.bcm.plot_pr(...)`` is
        ``bcm.plots.plot_pr(idata, ...)``, with the same parameters.

        Examples
        --------
        >>> from bayescm.models.scores import ScoresModel
        >>> ScoresModel.example().bcm.plot_pr(classifier="A").get_title()
        'PR curve'
        >>> import matplotlib.pyplot as plt; plt.close("all")
        """
        from bayescm.plots import plot_pr

        return plot_pr(
            self._tree,
            classifier=classifier,
            ax=ax,
            hdi_prob=hdi_prob,
            bands=bands,
            observed=observed,
            legend=legend,
            title=title,
            figsize=figsize,
        )

    @keyword_checked
    def plot_reliability(
        self,
        classifier: Hashable | Sequence[Hashable] | None = None,
        ax: Axes | None = None,
        hdi_prob: float | None = None,
        *,
        counts: bool = True,
        legend: bool = True,
        title: str | None = None,
        figsize: tuple[float, float] | None = None,
    ) -> Axes:
        """Reliability diagram: the event rate in each score bin against the bin's mean score.

        The method form of :func:`bayescm.plots.plot_reliability`:
        ``idata.bcm.plot_reliability(...)`` is ``bcm.plots.plot_reliability(idata, ...)``, with
        the same parameters.

        Examples
        --------
        >>> from bayescm.models.scores import ScoresModel
        >>> ScoresModel.example().bcm.plot_reliability().get_title()
        'Reliability'
        >>> import matplotlib.pyplot as plt; plt.close("all")
        """
        from bayescm.plots import plot_reliability

        return plot_reliability(
            self._tree,
            classifier=classifier,
            ax=ax,
            hdi_prob=hdi_prob,
            counts=counts,
            legend=legend,
            title=title,
            figsize=figsize,
        )

    @keyword_checked
    def plot_delta_auc(
        self,
        b: Hashable,
        a: Hashable,
        ax: Axes | None = None,
        hdi_prob: float | None = None,
        *,
        metric: str = "auc",
        legend: bool = True,
        title: str | None = None,
        figsize: tuple[float, float] | None = None,
    ) -> Axes:
        """Posterior of the difference ``AUC_B - AUC_A`` of two classifiers scored on the same items.

        The method form of :func:`bayescm.plots.plot_delta_auc`:
        ``idata.bcm.plot_delta_auc(...)`` is ``bcm.plots.plot_delta_auc(idata, ...)``, with the
        same parameters.

        Examples
        --------
        >>> from bayescm.models.scores import ScoresModel
        >>> ScoresModel.example().bcm.plot_delta_auc("B", "A").get_title()[:14]
        'AUC: B - A, P('
        >>> import matplotlib.pyplot as plt; plt.close("all")
        """
        from bayescm.plots import plot_delta_auc

        return plot_delta_auc(
            self._tree,
            b=b,
            a=a,
            ax=ax,
            hdi_prob=hdi_prob,
            metric=metric,
            legend=legend,
            title=title,
            figsize=figsize,
        )

    @keyword_checked
    def plot_sroc(
        self,
        hdi_prob: float | None = None,
        ax: Axes | None = None,
        *,
        outside: str = "fade",
        labels: bool = False,
        legend: bool = True,
        figsize: tuple[float, float] | None = None,
    ) -> Axes:
        """Summary ROC of a hierarchical fit: groups, SROC curve, summary point and its regions.

        The method form of :func:`bayescm.plots.plot_sroc`: ``idata.bcm.plot_sroc(...)`` is
        ``bcm.plots.plot_sroc(idata, ...)``, with the same parameters.

        Examples
        --------
        >>> import bayescm as bcm
        >>> from bayescm.models.hierarchical import HierarchicalModel
        >>> idata = HierarchicalModel.example()  # six sites, model="hierarchical"
        >>> idata.bcm.plot_sroc(outside="hide").get_title()
        'Summary ROC of 6 sites'
        >>> import matplotlib.pyplot as plt; plt.close("all")
        """
        from bayescm.plots import plot_sroc

        return plot_sroc(
            self._tree,
            hdi_prob=hdi_prob,
            ax=ax,
            outside=outside,
            labels=labels,
            legend=legend,
            figsize=figsize,
        )

    @keyword_checked
    def plot_group_forest(
        self,
        var: str | Sequence[str] = "tpr",
        hdi_prob: float | None = None,
        ax: Any = None,
        *,
        unpooled: bool = True,
        counts: bool = True,
        sort: bool = False,
        legend: bool = True,
    ) -> Axes | Figure:
        """Meta-analysis forest of a hierarchical fit: the groups, the pooled rate, a new group.

        The method form of :func:`bayescm.plots.plot_group_forest`:
        ``idata.bcm.plot_group_forest(...)`` is ``bcm.plots.plot_group_forest(idata, ...)``,
        with the same parameters.

        Examples
        --------
        >>> import bayescm as bcm
        >>> from bayescm.models.hierarchical import HierarchicalModel
        >>> idata = HierarchicalModel.example()  # six sites, model="hierarchical"
        >>> idata.bcm.plot_group_forest("specificity").get_title()
        'TNR by site'
        >>> import matplotlib.pyplot as plt; plt.close("all")
        """
        from bayescm.plots import plot_group_forest

        return cast(Any, plot_group_forest)(
            self._tree,
            var=var,
            hdi_prob=hdi_prob,
            ax=ax,
            unpooled=unpooled,
            counts=counts,
            sort=sort,
            legend=legend,
        )

    @keyword_checked
    def plot_group_gaps(
        self,
        measure: str = "tpr_gap",
        epsilon: float = 0.05,
        ax: Axes | None = None,
        hdi_prob: float | None = None,
        *,
        reference: str | None = None,
        ratio_bounds: tuple[float, float] = (0.8, 1.25),
        unpooled: xr.DataTree | None = None,
        groups: Sequence[str] | None = None,
        min_items: int | None = None,
        legend: bool = True,
        figsize: tuple[float, float] | None = None,
    ) -> Axes:
        """Each group's gap to the reference: HDI, mean, the tolerance band and P(outside it).

        The method form of :func:`bayescm.plots.plot_group_gaps`:
        ``idata.bcm.plot_group_gaps(...)`` is ``bcm.plots.plot_group_gaps(idata, ...)``, with
        the same parameters.

        Examples
        --------
        >>> import bayescm as bcm
        >>> fit = bcm.fit(bcm.datasets.subgroups(), random_seed=0)
        >>> fit.bcm.plot_group_gaps("fpr_gap").get_title()
        "Equalized odds (FPR): FPR gap to '30-44'"
        >>> import matplotlib.pyplot as plt; plt.close("all")
        """
        from bayescm.plots import plot_group_gaps

        return plot_group_gaps(
            self._tree,
            measure=measure,
            epsilon=epsilon,
            ax=ax,
            hdi_prob=hdi_prob,
            reference=reference,
            ratio_bounds=ratio_bounds,
            unpooled=unpooled,
            groups=groups,
            min_items=min_items,
            legend=legend,
            figsize=figsize,
        )
