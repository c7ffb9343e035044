"""Plots of bayescm results (matplotlib): metric posteriors, forests, leaderboards, planning.

Every function draws on ``ax=`` (or ``axes=`` for grids) when given, else on a new figure, and
returns the Axes (or the Figure of a grid). Proportions are shown in per cent, widths of
intervals (MU) in percentage points; likelihood and odds ratios on a log axis.

========================  ===================================================  ============
function                  draws                                                paper
========================  ===================================================  ============
plot_metric               one metric: density, HDI, MU, observed value         Fig. 2, 4
plot_metrics              a grid of metrics                                    Fig. 3
plot_forest               one metric across a batch, with r_deceptive          Fig. 3C
plot_rank_probabilities   P(rank) heatmap with expected prizes                 Fig. 5
plot_sample_size          MU against N with the 2 / sqrt(N) rule               Fig. 6
plot_priors               priors implied on the metrics                        Fig. S1, S2
plot_theta                the confusion probability matrix (true x predicted)
plot_paired               difference of two classifiers with its ROPE
========================  ===================================================  ============
"""

from bayescm.plots._batch import plot_forest, plot_paired, plot_rank_probabilities
from bayescm.plots._matrix import plot_theta
from bayescm.plots._metric import plot_metric, plot_metrics, plot_priors
from bayescm.plots._planning import plot_sample_size

__all__ = [
    "plot_forest",
    "plot_metric",
    "plot_metrics",
    "plot_paired",
    "plot_priors",
    "plot_rank_probabilities",
    "plot_sample_size",
    "plot_theta",
]
