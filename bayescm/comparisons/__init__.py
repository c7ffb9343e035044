"""Comparing classifiers: superiority, ranks, leaderboards and paired comparisons."""

from bayescm.comparisons.leaderboard import leaderboard
from bayescm.comparisons.paired import compare_paired, compare_paired_counts, comparison_table
from bayescm.comparisons.ranks import rank_probabilities
from bayescm.comparisons.superiority import prob_superior

__all__ = ["compare_paired", "compare_paired_counts", "comparison_table", "leaderboard",
           "prob_superior", "rank_probabilities"]
