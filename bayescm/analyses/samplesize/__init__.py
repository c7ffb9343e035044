"""Planning an evaluation: how many test items, and when to stop labelling (``bcm.samplesize``).

* The width of one interval (:mod:`.precision`): the metric uncertainty (MU) at ``n`` items,
  the ``n`` for an MU (the paper's Fig. 6 and its ``2 / sqrt(n)`` rule).
* Claims (:mod:`.assurance`): the probability that a test set establishes "TPR > 0.9" (or an
  interval narrower than a width), averaged over a design prior, and the ``n`` for a wanted
  assurance.
* Paired comparisons (:mod:`.paired`): McNemar power and Bayesian assurance of a difference
  between two classifiers scored on the same items, and the ``n`` for either.
* Clustered evaluations (:mod:`.clustered`): design effects of items grouped in clusters and
  of repeated attempts, minimum detectable effects.
* Sequential labelling (:mod:`.sequential`): the decision from the labels so far, the chance
  that more labels settle it, and a stopping rule's simulated operating characteristics.
"""

from bayescm.analyses.samplesize.assurance import (
    AssuranceCurve,
    ClaimPlan,
    assurance,
    required_n_claim,
)
from bayescm.analyses.samplesize.claims import Claim
from bayescm.analyses.samplesize.clustered import clustered_n, clustered_power, design_effect, mde
from bayescm.analyses.samplesize.paired import discordance, paired_assurance, paired_power
from bayescm.analyses.samplesize.paired_plan import PairedPlan, paired_n
from bayescm.analyses.samplesize.precision import (
    MAX_N as MAX_N,
)
from bayescm.analyses.samplesize.precision import (
    MU_MIN as MU_MIN,
)
from bayescm.analyses.samplesize.precision import (
    SampleSizePlan,
    mu_at_power,
    mu_bound,
    plan,
    required_n,
    simulated_mu,
)
from bayescm.analyses.samplesize.sequential import SequentialResult, sequential
from bayescm.core.betahdi import beta_hdi

__all__ = ["AssuranceCurve", "Claim", "ClaimPlan", "PairedPlan", "SampleSizePlan", "assurance",
           "beta_hdi", "clustered_n", "clustered_power", "design_effect", "discordance", "mde",
           "mu_at_power", "mu_bound", "paired_assurance", "paired_n",
           "paired_power", "plan", "required_n", "required_n_claim", "sequential", "simulated_mu",
           "SequentialResult"]
