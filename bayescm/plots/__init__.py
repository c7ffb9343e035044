"""Plots of bayescm results (matplotlib): metric posteriors, forests, leaderboards, planning.

Every function draws on ``ax=`` (or ``axes=`` for grids) when given, else on a new figure, and
returns the Axes (or the Figure of a grid). Titles use each metric's display name and axes its
long name; supports, reference lines and log axes come from the metric catalogue
(:func:`bayescm.metrics.metric_info`). Proportions are shown in per cent and widths of intervals
(MU) in percentage points, or as plain proportions with ``rcParams["plot.units"] =
"proportion"``; likelihood and odds ratios on a log axis. Interval probabilities default to the
result's ``hdi_prob``, else ``rcParams["stats.hdi_prob"]``. ``rcParams["plot.preset"]`` sizes
new figures and their text for a screen (``"default"``), a journal column (``"column"``, 3.5
in, text from 7 pt), a page (``"two_column"``, 7.2 in) or a slide (``"slide"``). Bad arguments
(an ``ax`` that is not an Axes, an empty selection, a result of the wrong kind, an unknown
keyword) raise errors that name them and the remedy.

=======================  =======================================================  ===========
function                 draws                                                    paper
=======================  =======================================================  ===========
plot_metric              one metric: density, HDI, MU, observed value             Fig. 2, 4
plot_metrics             a grid of metrics (a multiclass fit: an overview)        Fig. 3
plot_forest              HDIs of a batch, of classes, or of several metrics       Fig. 3C
plot_rank_probabilities  P(rank) heatmap with expected prizes                     Fig. 5
plot_sample_size         MU against N with the 2 / sqrt(N) rule                   Fig. 6
plot_priors              priors implied on the metrics                            Fig. S1, S2
plot_theta               the confusion probability matrix (true x predicted)
plot_paired              difference of two classifiers with its ROPE
plot_roc                 ROC curves of scores: both bands, observed, AUC
plot_pr                  PR curves of scores with bands and the prevalence
plot_reliability         calibration: event rate per score bin, ECE
plot_delta_auc           AUC_B - AUC_A of two classifiers, P(B > A)
plot_corrected           apparent rate beside the rate corrected for the test
plot_decision_curve      net benefit of risk models with bands, treat-all, -none
plot_delta_net_benefit   NB_B - NB_A across thresholds with P(B better)
plot_evpi                expected value of perfect information across thresholds
plot_cost_curve          cost curves (Drummond & Holte) with bands, trivial cost
plot_calibration_curve   recalibration curve of risks: bands, intercept, slope
plot_sroc                summary ROC of groups: curve, summary point, regions
plot_group_forest        groups, pooled and new-group rows (meta-analysis)
plot_group_gaps          subgroup gaps to a reference, ±ε band, ``P(|gap| > ε)``
plot_items_accuracy      accuracy on a new item beside naive and CR1 intervals
plot_items_differences   paired accuracy differences of systems with P(B > A)
plot_items_ranks         P(rank) of systems evaluated item by item
plot_pass_at_k           pass@k and "all k succeed" of each system against k
plot_rater_rates         each rater's confusion matrix (Dawid-Skene) as heatmaps
plot_item_classes        each item's posterior class probabilities (Dawid-Skene)
plot_test_rates          prevalence, each test's TPR and TNR (Hui-Walter)
=======================  =======================================================  ===========

Building blocks for figures of your own, the ones the command line, the spec runner and the
app use: :func:`grid` (panels without empty slots, in the size preset), :func:`plot_forests`
(a forest per metric), :func:`overview` (the default metrics of a multiclass fit),
:func:`legend_clear` and :func:`marks_legend` (legends off the data), :func:`observed_name`
("observed" or "plug-in"), :func:`pt` (a text size in the current preset), the palette
``OKABE_ITO`` and its ``GREEN``, and the most curves (``MAX_CURVES``) and overlaid densities
(``MAX_OVERLAY``) one panel shows.
"""

from bayescm.plots._assurance import plot_assurance, plot_stopping
from bayescm.plots._batch import plot_paired, plot_rank_probabilities
from bayescm.plots._corrected import plot_corrected
from bayescm.plots._costs import plot_calibration_curve, plot_cost_curve, plot_evpi
from bayescm.plots._decision import plot_decision_curve, plot_delta_net_benefit
from bayescm.plots._forest import plot_forest
from bayescm.plots._grid import overview, plot_forests, plot_metrics
from bayescm.plots._group_forest import plot_group_forest
from bayescm.plots._groups import plot_group_gaps
from bayescm.plots._items import (
    plot_items_accuracy,
    plot_items_differences,
    plot_items_ranks,
    plot_pass_at_k,
)
from bayescm.plots._latent import plot_item_classes, plot_rater_rates, plot_test_rates
from bayescm.plots._legends import legend_clear
from bayescm.plots._matrix import plot_theta
from bayescm.plots._metric import MAX_OVERLAY, plot_metric
from bayescm.plots._observed import observed_name
from bayescm.plots._panels import grid, marks_legend
from bayescm.plots._planning import plot_sample_size
from bayescm.plots._priors import plot_priors
from bayescm.plots._roc import MAX_CURVES, plot_pr, plot_roc
from bayescm.plots._scores import plot_delta_auc, plot_reliability
from bayescm.plots._sroc import plot_sroc
from bayescm.plots._style import GREEN, OKABE_ITO, pt

__all__ = [
    # building blocks for figures of your own (the CLI, the spec runner and the app use them)
    "GREEN",
    "MAX_CURVES",
    "MAX_OVERLAY",
    "OKABE_ITO",
    "grid",
    "legend_clear",
    "marks_legend",
    "observed_name",
    "overview",
    "plot_forests",
    "pt",
    # the figures
    "plot_assurance",
    "plot_corrected",
    "plot_calibration_curve",
    "plot_cost_curve",
    "plot_decision_curve",
    "plot_delta_auc",
    "plot_delta_net_benefit",
    "plot_evpi",
    "plot_forest",
    "plot_group_forest",
    "plot_group_gaps",
    "plot_item_classes",
    "plot_items_accuracy",
    "plot_items_differences",
    "plot_items_ranks",
    "plot_metric",
    "plot_metrics",
    "plot_paired",
    "plot_pass_at_k",
    "plot_pr",
    "plot_priors",
    "plot_rank_probabilities",
    "plot_rater_rates",
    "plot_reliability",
    "plot_roc",
    "plot_sample_size",
    "plot_sroc",
    "plot_stopping",
    "plot_test_rates",
    "plot_theta",
]
