"""Comparing classifiers, groups and procedures: superiority, ranks, leaderboards, pairs, gaps."""

from bayescm.comparisons.groups import fairness_table, group_gaps, unpooled_fit
from bayescm.comparisons.leaderboard import leaderboard
from bayescm.comparisons.paired import compare_paired, compare_paired_counts, comparison_table
from bayescm.comparisons.ranks import rank_probabilities
from bayescm.comparisons.runs import compare_runs
from bayescm.comparisons.superiority import prob_superior

__all__ = ["compare_paired", "compare_paired_counts", "compare_runs", "comparison_table",
           "fairness_table", "group_gaps", "leaderboard", "prob_superior", "rank_probabilities",
           "unpooled_fit"]
