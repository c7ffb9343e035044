"""comparisons."""
