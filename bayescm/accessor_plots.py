"""The figures of metrics and matrices of ``idata.bcm`` (a mixin of ``BayescmAccessor``).

Written by ``scripts/make_accessor.py`` with the plot functions' own signatures; each method
imports :mod:`bayescm.plots`, and with it matplotlib, only when called.

Examples
--------
>>> from bayescm.accessor_plots import PlotMethods
>>> sorted(n for n in dir(PlotMethods) if n.startswith("plot_"))[:2]
['plot_forest', 'plot_metric']
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Sequence
from typing import TYPE_CHECKING, Any

import xarray as xr

from bayescm.core.arguments import keyword_checked

if TYPE_CHECKING:  # annotations only: matplotlib loads when a plotting method is called
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["PlotMethods"]


class PlotMethods:
    """The figures of metrics and matrices: each draws the tree with :mod:`bayescm.plots`.

    Examples
    --------
    >>> import bayescm as bcm
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), draws=100)
    >>> callable(idata.bcm.plot_metric)
    True
    """

    _tree: xr.DataTree

    @keyword_checked
    def plot_metric(
        self,
        var: str,
        ax: Axes | None = None,
        hdi_prob: float | None = None,
        predictive: bool = False,
        prior: bool = False,
        classifier: Hashable | Sequence[Hashable] | None = None,
        class_: Hashable | Sequence[Hashable] | None = None,
        *,
        legend: bool = True,
        title: str | None = None,
        figsize: tuple[float, float] | None = None,
    ) -> Axes:
        """Posterior density of one metric with its point estimate, HDI and metric uncertainty.

        The method form of :func:`bayescm.plots.plot_metric`: ``idata.bcm.plot_metric(...)`` is
        ``bcm.plots.plot_metric(idata, ...)``, with the same parameters.

        Examples
        --------
        >>> import bayescm as bcm
        >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
        ...                 random_seed=1)
        >>> idata.bcm.plot_metric("tpr").get_title()
        'TPR'
        >>> import matplotlib.pyplot as plt; plt.close("all")
        """
        from bayescm.plots import plot_metric

        return plot_metric(
            self._tree,
            var=var,
            ax=ax,
            hdi_prob=hdi_prob,
            predictive=predictive,
            prior=prior,
            classifier=classifier,
            class_=class_,
            legend=legend,
            title=title,
            figsize=figsize,
        )

    @keyword_checked
    def plot_metrics(
        self,
        var_names: Iterable[str] | str | None = None,
        axes: Any = None,
        hdi_prob: float | None = None,
        predictive: bool = False,
        prior: bool = False,
        classifier: Hashable | Sequence[Hashable] | None = None,
        class_: Hashable | Sequence[Hashable] | None = None,
        *,
        ncols: int | None = None,
        figsize: tuple[float, float] | None = None,
    ) -> Figure:
        """A grid of metric posteriors, one :func:`plot_metric` panel each (forests where needed).

        The method form of :func:`bayescm.plots.plot_metrics`: ``idata.bcm.plot_metrics(...)``
        is ``bcm.plots.plot_metrics(idata, ...)``, with the same parameters.

        Examples
        --------
        >>> import bayescm as bcm
        >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
        ...                 random_seed=1)
        >>> len(idata.bcm.plot_metrics(["tpr", "bm"]).axes)
        2
        >>> import matplotlib.pyplot as plt; plt.close("all")
        """
        from bayescm.plots import plot_metrics

        return plot_metrics(
            self._tree,
            var_names=var_names,
            axes=axes,
            hdi_prob=hdi_prob,
            predictive=predictive,
            prior=prior,
            classifier=classifier,
            class_=class_,
            ncols=ncols,
            figsize=figsize,
        )

    @keyword_checked
    def plot_forest(
        self,
        var: str | Sequence[str] = "bm",
        ax: Axes | None = None,
        hdi_prob: float | None = None,
        sort: bool = True,
        annotate_deceptive: bool | None = None,
        class_: Any = None,
        *,
        legend: bool = True,
        max_rows: int | None = 50,
        figsize: tuple[float, float] | None = None,
    ) -> Axes:
        """Posterior means, HDIs and observed values, one row per classifier, class or metric.

        The method form of :func:`bayescm.plots.plot_forest`: ``idata.bcm.plot_forest(...)`` is
        ``bcm.plots.plot_forest(idata, ...)``, with the same parameters.

        Examples
        --------
        >>> import bayescm as bcm
        >>> from bayescm.io.datasets import literature_matrices
        >>> mats = literature_matrices()
        >>> batch = bcm.fit({k: mats[k] for k in ("5b", "7a", "8")}, metrics=["bm"],
        ...                 random_seed=0)
        >>> len(batch.bcm.plot_forest("bm").get_yticklabels())
        3
        >>> import matplotlib.pyplot as plt; plt.close("all")
        """
        from bayescm.plots import plot_forest

        return plot_forest(
            self._tree,
            var=var,
            ax=ax,
            hdi_prob=hdi_prob,
            sort=sort,
            annotate_deceptive=annotate_deceptive,
            class_=class_,
            legend=legend,
            max_rows=max_rows,
            figsize=figsize,
        )

    @keyword_checked
    def plot_theta(
        self,
        ax: Axes | None = None,
        classifier: Hashable | None = None,
        hdi_prob: float | None = None,
        var: str = "theta",
        *,
        figsize: tuple[float, float] | None = None,
    ) -> Axes:
        """Heatmap of the posterior mean of theta (true x predicted) with each cell's HDI.

        The method form of :func:`bayescm.plots.plot_theta`: ``idata.bcm.plot_theta(...)`` is
        ``bcm.plots.plot_theta(idata, ...)``, with the same parameters.

        Examples
        --------
        >>> import bayescm as bcm
        >>> idata = bcm.fit(bcm.ConfusionMatrix([[90, 10, 0], [20, 70, 10], [0, 10, 50]]),
        ...                 random_seed=0)
        >>> idata.bcm.plot_theta().get_xlabel()
        'predicted class'
        >>> import matplotlib.pyplot as plt; plt.close("all")
        """
        from bayescm.plots import plot_theta

        return plot_theta(
            self._tree,
            ax=ax,
            classifier=classifier,
            hdi_prob=hdi_prob,
            var=var,
            figsize=figsize,
        )

    @keyword_checked
    def plot_priors(
        self,
        var_names: Iterable[str] | str | None = None,
        axes: Any = None,
        class_: Hashable | None = None,
        *,
        ncols: int = 4,
        figsize: tuple[float, float] | None = None,
    ) -> Figure:
        """Prior densities of metrics, several priors side by side (paper SI Fig. S1 and S2).

        The method form of :func:`bayescm.plots.plot_priors`: ``idata.bcm.plot_priors(...)`` is
        ``bcm.plots.plot_priors(idata, ...)``, with the same parameters.

        Examples
        --------
        >>> import bayescm as bcm
        >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
        ...                 random_seed=1)
        >>> idata.bcm.plot_priors(["tpr"]).axes[0].get_title()
        'TPR'
        >>> import matplotlib.pyplot as plt; plt.close("all")
        """
        from bayescm.plots import plot_priors

        return plot_priors(
            self._tree,
            var_names=var_names,
            axes=axes,
            class_=class_,
            ncols=ncols,
            figsize=figsize,
        )
