"""``bcm.stats``: the interval and convergence statistics bayescm computes, for your own draws.

============  ==============================================================================
function      computes
============  ==============================================================================
hdi           the highest-density interval of draws (the narrowest window with the mass)
hdi_rows      the HDI of every row of a 2-D array, in one pass
hdi_prob_for  the interval probability in force (an argument, a result's, or the setting)
rhat          split R-hat (rank-normalised, Vehtari et al. 2021, or classic)
ess           effective sample size (bulk, tail, or of the mean)
============  ==============================================================================

Examples
--------
>>> import numpy as np, bayescm as bcm
>>> draws = np.random.default_rng(0).beta(7, 3, size=(4, 5000))
>>> lo, hi = bcm.stats.hdi(draws.ravel(), 0.95)
>>> bool(0.40 < lo < 0.46 and 0.92 < hi < 0.97)   # Beta(7, 3): [0.432, 0.946]
True
>>> float(bcm.stats.rhat(draws)) < 1.01
True
"""

from bayescm.core.diagnostics import ess, rhat
from bayescm.core.stats import hdi, hdi_prob_for, hdi_rows

__all__ = ["ess", "hdi", "hdi_prob_for", "hdi_rows", "rhat"]
