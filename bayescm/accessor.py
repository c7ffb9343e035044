"""``idata.bcm``: bayescm's functions as methods of a result tree.

Importing :mod:`bayescm` registers the accessor on :class:`xarray.DataTree`, so a result (or a
tree loaded with :func:`bayescm.load`) offers ``idata.bcm.summary()``,
``idata.bcm.plot_metric("tpr")`` and so on. Every method is a thin call of the plain function
with the tree as its first argument: both spellings share one implementation, one set of
arguments and one set of defaults (see each function for the parameters). The plotting methods
import :mod:`bayescm.plots`, and with it matplotlib, only when called.

Examples
--------
>>> import bayescm as bcm
>>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), random_seed=1)
>>> idata.bcm.summary(var_names="tnr").equals(bcm.summary(idata, var_names="tnr"))
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import xarray as xr

if TYPE_CHECKING:  # annotations only: matplotlib loads when a plotting method is called
    from pathlib import Path

    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["BayescmAccessor"]


@xr.register_datatree_accessor("bcm")
class BayescmAccessor:
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

    # ------------------------------------------------------------------ tables and analyses
    def summary(self, *args: Any, **kwargs: Any) -> pd.DataFrame:
        """Table of observed value, mean, sd, HDI, MU, R-hat and ESS: :func:`bayescm.summary`.

        Examples
        --------
        >>> import bayescm as bcm
        >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
        ...                 random_seed=1)
        >>> round(float(idata.bcm.summary(var_names=["tnr"]).loc["tnr", "observed"]), 2)
        0.75
        """
        from bayescm.analyses.summary import summary

        return summary(self._tree, *args, **kwargs)

    def probability(self, *args: Any, **kwargs: Any) -> float | xr.DataArray:
        """Posterior probability that a variable lies in a range: :func:`bayescm.probability`.

        Examples
        --------
        >>> import bayescm as bcm
        >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
        ...                 random_seed=1)
        >>> idata.bcm.probability("tpr", lower=0.8) > 0.99
        True
        """
        from bayescm.analyses.summary import probability

        return probability(self._tree, *args, **kwargs)

    def informedness(self, *args: Any, **kwargs: Any) -> pd.DataFrame:
        """Chances of informative, uninformative, deceptive: :func:`bayescm.informedness`.

        Examples
        --------
        >>> import bayescm as bcm
        >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4),
        ...                 random_seed=0)
        >>> list(idata.bcm.informedness(rope=0.05).columns)
        ['informative', 'uninformative', 'deceptive']
        """
        from bayescm.analyses.summary import informedness

        return informedness(self._tree, *args, **kwargs)

    def with_prevalence(self, *args: Any, **kwargs: Any) -> xr.DataTree:
        """The result at another prevalence: :func:`bayescm.with_prevalence`.

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

        return with_prevalence(self._tree, *args, **kwargs)

    def posterior_predictive(self, *args: Any, **kwargs: Any) -> xr.DataTree:
        """Synthetic confusion matrices and their metrics: :func:`bayescm.posterior_predictive`.

        Examples
        --------
        >>> import bayescm as bcm
        >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2),
        ...                 random_seed=1)
        >>> "posterior_predictive" in idata.bcm.posterior_predictive(random_seed=0).children
        True
        """
        from bayescm.analyses.predictive import posterior_predictive

        return posterior_predictive(self._tree, *args, **kwargs)

    def prob_superior(self, *args: Any, **kwargs: Any) -> float:
        """P(A beats B) on a metric: :func:`bayescm.prob_superior` with this tree as ``a``.

        Pass another result (``idata.bcm.prob_superior(other, metric="acc")``) or, for a batch,
        two classifier names (``batch.bcm.prob_superior("8", "7a", metric="bm")``).

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

        return prob_superior(self._tree, *args, **kwargs)

    def rank_probabilities(self, *args: Any, **kwargs: Any) -> xr.Dataset:
        """P(rank) of every classifier of a batch: :func:`bayescm.rank_probabilities`.

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

        return rank_probabilities(self._tree, *args, **kwargs)

    def group_gaps(self, *args: Any, **kwargs: Any) -> xr.Dataset:
        """Draws of each group's gap to a reference group: :func:`bayescm.group_gaps`.

        Examples
        --------
        >>> import bayescm as bcm
        >>> fit = bcm.fit(bcm.datasets.subgroups(), random_seed=0)
        >>> fit.bcm.group_gaps(measures="tpr_gap").attrs["reference"]
        '30-44'
        """
        from bayescm.comparisons.groups import group_gaps

        return group_gaps(self._tree, *args, **kwargs)

    def fairness_table(self, *args: Any, **kwargs: Any) -> pd.DataFrame:
        """Gaps between groups with ``P(|gap| > epsilon)``: :func:`bayescm.fairness_table`.

        Examples
        --------
        >>> import bayescm as bcm
        >>> fit = bcm.fit(bcm.datasets.subgroups(), random_seed=0)
        >>> list(fit.bcm.fairness_table(measures="tpr_gap").index.names)
        ['measure', 'classifier']
        """
        from bayescm.comparisons.groups import fairness_table

        return fairness_table(self._tree, *args, **kwargs)

    def save(self, *args: Any, **kwargs: Any) -> Path:
        """Write the tree to netCDF: :func:`bayescm.save`.

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

        return save(self._tree, *args, **kwargs)

    # ------------------------------------------------------------------ plots
    def plot_metric(self, *args: Any, **kwargs: Any) -> Axes:
        """Posterior density of one metric: :func:`bayescm.plots.plot_metric`.

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

        return plot_metric(self._tree, *args, **kwargs)

    def plot_metrics(self, *args: Any, **kwargs: Any) -> Figure:
        """A grid of metric posteriors: :func:`bayescm.plots.plot_metrics`.

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

        return plot_metrics(self._tree, *args, **kwargs)

    def plot_forest(self, *args: Any, **kwargs: Any) -> Axes:
        """HDIs of a metric across classifiers (or classes): :func:`bayescm.plots.plot_forest`.

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

        return plot_forest(self._tree, *args, **kwargs)

    def plot_theta(self, *args: Any, **kwargs: Any) -> Axes:
        """Heatmap of the confusion probabilities: :func:`bayescm.plots.plot_theta`.

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

        return plot_theta(self._tree, *args, **kwargs)

    def plot_priors(self, *args: Any, **kwargs: Any) -> Figure:
        """Prior densities implied on the metrics: :func:`bayescm.plots.plot_priors`.

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

        return plot_priors(self._tree, *args, **kwargs)

    def plot_roc(self, *args: Any, **kwargs: Any) -> Axes:
        """ROC curves of a scores fit with their bands: :func:`bayescm.plots.plot_roc`.

        Examples
        --------
        >>> from bayescm.models.scores import ScoresModel
        >>> ScoresModel.example().bcm.plot_roc(bands="pointwise").get_title()
        'ROC curve'
        >>> import matplotlib.pyplot as plt; plt.close("all")
        """
        from bayescm.plots import plot_roc

        return plot_roc(self._tree, *args, **kwargs)

    def plot_pr(self, *args: Any, **kwargs: Any) -> Axes:
        """Precision-recall curves of a scores fit: :func:`bayescm.plots.plot_pr`.

        Examples
        --------
        >>> from bayescm.models.scores import ScoresModel
        >>> ScoresModel.example().bcm.plot_pr(classifier="A").get_title()
        'PR curve'
        >>> import matplotlib.pyplot as plt; plt.close("all")
        """
        from bayescm.plots import plot_pr

        return plot_pr(self._tree, *args, **kwargs)

    def plot_reliability(self, *args: Any, **kwargs: Any) -> Axes:
        """Reliability diagram and ECE of a scores fit: :func:`bayescm.plots.plot_reliability`.

        Examples
        --------
        >>> from bayescm.models.scores import ScoresModel
        >>> ScoresModel.example().bcm.plot_reliability().get_title()
        'Reliability'
        >>> import matplotlib.pyplot as plt; plt.close("all")
        """
        from bayescm.plots import plot_reliability

        return plot_reliability(self._tree, *args, **kwargs)

    def plot_delta_auc(self, *args: Any, **kwargs: Any) -> Axes:
        """Posterior of AUC_B - AUC_A with P(B > A): :func:`bayescm.plots.plot_delta_auc`.

        Examples
        --------
        >>> from bayescm.models.scores import ScoresModel
        >>> ScoresModel.example().bcm.plot_delta_auc("B", "A").get_title()[:14]
        'AUC: B - A, P('
        >>> import matplotlib.pyplot as plt; plt.close("all")
        """
        from bayescm.plots import plot_delta_auc

        return plot_delta_auc(self._tree, *args, **kwargs)

    def plot_sroc(self, *args: Any, **kwargs: Any) -> Axes:
        """Summary ROC of a hierarchical fit with its regions: :func:`bayescm.plots.plot_sroc`.

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

        return plot_sroc(self._tree, *args, **kwargs)

    def plot_group_forest(self, *args: Any, **kwargs: Any) -> Axes | Figure:
        """Groups, pooled and new-group rows: :func:`bayescm.plots.plot_group_forest`.

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

        return plot_group_forest(self._tree, *args, **kwargs)

    def plot_group_gaps(self, *args: Any, **kwargs: Any) -> Axes:
        """Subgroup gaps with their tolerance band: :func:`bayescm.plots.plot_group_gaps`.

        Examples
        --------
        >>> import bayescm as bcm
        >>> fit = bcm.fit(bcm.datasets.subgroups(), random_seed=0)
        >>> fit.bcm.plot_group_gaps("fpr_gap").get_title()
        "Equalized odds (FPR): FPR gap to '30-44'"
        >>> import matplotlib.pyplot as plt; plt.close("all")
        """
        from bayescm.plots import plot_group_gaps

        return plot_group_gaps(self._tree, *args, **kwargs)
