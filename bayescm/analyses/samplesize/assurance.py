"""Assurance of a claim: the probability that a test set of ``n`` items will establish it.

O'Hagan & Stevens (2001): draw the truth from a *design prior* (what the planner believes),
a test set from the truth, and analyse it with the *analysis prior* (the package default
unless told otherwise); the assurance is the probability that the analysis establishes the
claim, ``P(claim | data) >= level`` (or the HDI on the claim's side of the target, or an HDI
narrower than a width). It is a Bayesian probability over the design prior, not frequentist
power; with a design prior that is one point it is the frequentist probability of a
Bayesian decision at that truth. Claims on a rate are summed exactly (:mod:`.exact`); other
binary metrics are simulated (:mod:`.montecarlo`) with their Monte Carlo error.

What ``n`` counts: the trials the claimed rate is a rate of (the positives for a TPR, the
negatives for a TNR, all items for accuracy taken as one rate, the predicted positives for a
PPV taken as one rate) unless the design gives a prevalence, in which case it counts all
items and the positives among them are binomial (beta-binomial for an uncertain prevalence).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bayescm.analyses.samplesize.claims import Claim, threshold_k, width_bounds
from bayescm.analyses.samplesize.design import RateDesign, analysis_prior
from bayescm.analyses.samplesize.exact import accept_probability
from bayescm.analyses.samplesize.montecarlo import simulate_assurance
from bayescm.analyses.samplesize.precision import MAX_N, _check_n
from bayescm.analyses.samplesize.problem import problem
from bayescm.core.arguments import keyword_checked
from bayescm.core.validate import check_int, check_probability

__all__ = ["AssuranceCurve", "ClaimPlan", "assurance", "required_n_claim"]

@dataclass(frozen=True)
class AssuranceCurve:
    """Assurance of a claim at each test-set size: what :func:`assurance` returns.

    Behaves as the array of assurances (``np.asarray(curve)``, ``float(curve)`` for one size).

    Attributes
    ----------
    n : ndarray of int
        Test-set sizes.
    assurance : ndarray of float
        Probability that a test set of that size establishes the claim.
    mc_error : ndarray of float
        Monte Carlo standard error (0 where the sum is exact).
    claim : str
        The claim, e.g. ``"tpr > 0.9"``.
    level : float
        The posterior probability (or HDI mass) that establishes it.
    criterion : str
        ``"probability"`` or ``"hdi"``.
    method : str
        ``"exact"`` or ``"simulation"``.
    counts : str
        What ``n`` counts (``"positives"``, ``"items"``, ...).
    limit : float
        The assurance for an unlimited test set: the design probability that the claim is
        true (1 for a width claim). No ``n`` reaches more.

    See Also
    --------
    assurance : Makes it.
    bayescm.plots.plot_assurance : Draws it.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.analyses.samplesize.assurance import AssuranceCurve
    >>> c = AssuranceCurve(np.array([10]), np.array([0.5]), np.array([0.0]), "tpr > 0.9",
    ...                    0.95, "probability", "exact", "positives", 0.8)
    >>> float(c), len(c)
    (0.5, 1)
    """

    n: np.ndarray
    assurance: np.ndarray
    mc_error: np.ndarray
    claim: str
    level: float
    criterion: str
    method: str
    counts: str
    limit: float

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return np.asarray(self.assurance, dtype=dtype)

    def __len__(self) -> int:
        return int(self.n.size)

    def __float__(self) -> float:
        if self.n.size != 1:
            raise TypeError(f"float() of an assurance curve needs one size, not {self.n.size}; "
                            "use np.asarray(curve) or curve.assurance.")
        return float(self.assurance[0])

    def to_frame(self) -> pd.DataFrame:
        """The curve as a table: one row per size (``n``, ``assurance``, ``mc_error``).

        Returns
        -------
        pandas.DataFrame
            Indexed by ``n``; ``attrs`` hold the claim, level, criterion, method and limit.

        See Also
        --------
        bayescm.plots.plot_assurance : Draws the curve.

        Examples
        --------
        >>> import bayescm as bcm
        >>> curve = bcm.samplesize.assurance("tpr > 0.8", n=[50, 100],
        ...                                  design={"tpr": bcm.Beta(45, 5)})
        >>> list(curve.to_frame().columns)
        ['assurance', 'mc_error']
        """
        table = pd.DataFrame({"assurance": self.assurance, "mc_error": self.mc_error},
                             index=pd.Index(self.n, name="n"))
        table.attrs.update(claim=self.claim, level=self.level, criterion=self.criterion,
                           method=self.method, counts=self.counts, limit=self.limit)
        return table


@dataclass(frozen=True)
class ClaimPlan:
    """The test-set size that establishes a claim with a given assurance (:func:`required_n_claim`).

    Attributes
    ----------
    n : int
        Smallest size found whose assurance reaches the target.
    assurance : float
        The assurance at ``n``.
    target : float
        The assurance asked for.
    claim : str
        The claim.
    level : float
        The posterior probability that establishes it.
    method : str
        ``"exact"`` or ``"simulation"``.
    counts : str
        What ``n`` counts.
    limit : float
        The largest assurance any size reaches (the design probability of the claim).
    mc_error : float
        Monte Carlo standard error of ``assurance`` (0 when exact).

    See Also
    --------
    required_n_claim : Makes it.

    Examples
    --------
    >>> from bayescm.analyses.samplesize.assurance import ClaimPlan
    >>> ClaimPlan(120, 0.81, 0.8, "tpr > 0.9", 0.95, "exact", "positives", 0.93, 0.0).n
    120
    """

    n: int
    assurance: float
    target: float
    claim: str
    level: float
    method: str
    counts: str
    limit: float
    mc_error: float


def _exact(sizes: np.ndarray, p: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, float]:
    c: Claim = p["claim"]
    flip, t = c.oriented()
    design: RateDesign = p["rate_design"]
    a0, b0 = analysis_prior(p["prior"], c.rate or c.metric)
    if flip:
        design, a0, b0 = design.flipped(), b0, a0
    level, criterion = p["level"], p["criterion"]
    if c.width:
        def accepted(m: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
            lo, hi = width_bounds(m, a0, b0, t, level)
            return hi, lo
        limit = 1.0
    else:
        def accepted(m: np.ndarray, n: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
            return threshold_k(m, a0, b0, t, level, criterion), None
        limit = design.above(t)
    prob, err = accept_probability(sizes, design, p["split"], accepted)
    return prob, err, limit


def _simulate(sizes: np.ndarray, p: dict[str, Any], n_sims: int, n_draws: int,
              random_seed: Any) -> tuple[np.ndarray, np.ndarray, float]:
    priors = {name: analysis_prior(p["prior"], name) for name in ("prevalence", "tpr", "tnr")}
    return simulate_assurance(sizes, p["sim_claim"], p["sim_designs"], priors, p["level"],
                              p["criterion"], n_sims, n_draws, random_seed)


@keyword_checked
def assurance(claim: Any, n: Any, design: Any, level: float = 0.95, prior: Any = None, *,
              criterion: str = "probability", method: str = "auto", n_sims: int = 2000,
              n_draws: int = 1000, random_seed: Any = None) -> AssuranceCurve:
    """Probability that a test set of ``n`` items will establish a claim (Bayesian assurance).

    The truth is drawn from the design prior, a test set of ``n`` items from the truth, and
    the claim counts as established when the analysis posterior (under ``prior``) gives
    ``P(claim) >= level`` (``criterion="hdi"``: the ``level`` HDI lies beyond the target; a
    width claim: the ``level`` HDI is narrower than the width). Claims on a rate (TPR, TNR,
    FNR, FPR, prevalence, and accuracy, PPV or NPV given their own design prior) are summed
    exactly over the beta-binomial predictive of the counts with the Beta posteriors in
    closed form; other binary metrics (PPV from prevalence, TPR and TNR, balanced accuracy,
    F1, MCC, ...) are simulated through the binary model, with the Monte Carlo error.

    Parameters
    ----------
    claim : str or Claim
        ``"tpr > 0.9"``, ``"fpr < 0.05"``, ``"sensitivity >= 0.9"``, ``"width(tpr) < 0.1"``.
    n : int or array of int
        Test-set sizes: the trials the claimed rate is a rate of (positives for a TPR) or,
        when the design gives a prevalence, all items.
    design : mapping, fit or ConfusionMatrix
        The design prior, one per parameter: ``{"tpr": bcm.Beta(45, 5)}``, a known value
        ``{"tpr": 0.92}``, draws, with ``"prevalence"`` to count all items; a fit (its
        posterior draws); or a pilot's binary ConfusionMatrix (Laplace posteriors).
    level : float, default 0.95
        The posterior probability (or HDI mass) that establishes the claim.
    prior : str, Beta or mapping, optional
        The analysis prior of every rate (default ``"laplace"``, the package default), or
        ``{"tpr": ...}`` per parameter.
    criterion : {"probability", "hdi"}, default "probability"
        ``P(claim) >= level``, or the ``level`` HDI beyond the target.
    method : {"auto", "exact", "simulation"}, default "auto"
        Exact where the claim is on a rate with its own design prior, else simulation;
        ``"simulation"`` simulates a rate claim too (a check of the exact sum).
    n_sims, n_draws : int
        Simulated test sets per size, and posterior draws of each (simulation only).
    random_seed : int or numpy Generator, optional
        Seed of the simulation.

    Returns
    -------
    AssuranceCurve
        The assurance at each size (``np.asarray(result)``), its Monte Carlo error, the
        method, what ``n`` counts and the largest assurance any size reaches.

    Raises
    ------
    ValueError
        A claim that does not parse, a level outside (0, 1), an unknown criterion or method,
        design priors missing for what the metric depends on.
    TypeError
        A design that is no mapping, fit or matrix, or a non-Beta analysis prior.

    See Also
    --------
    required_n_claim : The size that reaches a given assurance.
    paired_assurance : The same for a difference between two classifiers.
    bayescm.plots.plot_assurance : Draws the curve.

    Examples
    --------
    How likely does a test set with 100 positives show a sensitivity above 0.9, when the
    classifier's sensitivity is believed to be about 0.95 (Beta(95, 5))?

    >>> import bayescm as bcm
    >>> curve = bcm.samplesize.assurance("tpr > 0.9", n=[50, 100, 200],
    ...                                  design={"tpr": bcm.Beta(95, 5)})
    >>> curve.method, curve.counts
    ('exact', 'positives')
    >>> bool(curve.assurance[0] < curve.assurance[2] < curve.limit)
    True
    """
    p = problem(claim, design, level, prior, criterion, method)
    sizes = np.atleast_1d(_check_n(n)).astype(np.int64).reshape(-1)
    n_sims = check_int(n_sims, "n_sims", 10, 10**7)
    n_draws = check_int(n_draws, "n_draws", 100, 10**6)
    if p["method"] == "exact":
        prob, err, limit = _exact(sizes, p)
    else:
        prob, err, limit = _simulate(sizes, p, n_sims, n_draws, random_seed)
    return AssuranceCurve(sizes, prob, err, p["claim"].text, p["level"], criterion,
                          p["method"], p["counts"], limit)


@keyword_checked
def required_n_claim(claim: Any, assurance: float = 0.8, design: Any = None,
                     level: float = 0.95, prior: Any = None, *, criterion: str = "probability",
                     method: str = "auto", n_max: int = 10**6, n_sims: int = 2000,
                     n_draws: int = 1000, random_seed: Any = 0) -> ClaimPlan:
    """Smallest test set whose assurance of establishing a claim reaches ``assurance``.

    Doubles the size until the assurance is reached, then bisects (the assurance rises with
    ``n`` up to small saw-teeth of the discrete counts). A simulated search uses the same
    simulated truths at every size, so it needs one seed: ``random_seed`` defaults to 0 here.

    Parameters
    ----------
    claim : str or Claim
        As for :func:`assurance`.
    assurance : float, default 0.8
        The assurance to reach, in (0, 1).
    design, level, prior, criterion, method
        As for :func:`assurance` (``design`` is required).
    n_max : int, default 10**6
        Give up (with an error) beyond this size.
    n_sims, n_draws, random_seed
        As for :func:`assurance`.

    Returns
    -------
    ClaimPlan
        The size, the assurance there, its target and limit, what ``n`` counts.

    Raises
    ------
    ValueError
        An assurance at or above the limit (the design probability that the claim is true:
        no test set establishes a claim the design prior doubts more often than that), none
        reached by ``n_max``, or the errors of :func:`assurance`.
    TypeError
        As for :func:`assurance`.

    See Also
    --------
    assurance : The assurance at given sizes.
    paired_n : The same for a paired comparison.

    Examples
    --------
    >>> import bayescm as bcm
    >>> plan = bcm.samplesize.required_n_claim("tpr > 0.9", assurance=0.8,
    ...                                        design={"tpr": bcm.Beta(95, 5)})
    >>> plan.assurance >= 0.8, plan.counts
    (True, 'positives')
    """
    if design is None:
        raise TypeError("required_n_claim needs design=, the design prior, e.g. "
                        "{'tpr': bcm.Beta(45, 5)}.")
    target = check_probability(assurance, "assurance")
    n_max = int(check_int(n_max, "n_max", 2, MAX_N))

    def at(sizes: Any) -> AssuranceCurve:
        return globals()["assurance"](claim, sizes, design, level, prior, criterion=criterion,
                                      method=method, n_sims=n_sims, n_draws=n_draws,
                                      random_seed=random_seed)

    first = at(1)
    if target >= first.limit:
        raise ValueError(
            f"No test set reaches assurance {target:g} for {first.claim}: the design prior "
            f"gives the claim a probability of only {first.limit:.3g} of being true, the most "
            "any size can reach. Ask for less assurance, or revisit the design prior.")
    if first.assurance[0] >= target:
        return ClaimPlan(1, float(first.assurance[0]), target, first.claim, first.level,
                         first.method, first.counts, first.limit, float(first.mc_error[0]))
    lo, hi = 1, 2
    while True:
        value = float(at(hi).assurance[0])
        if value >= target:
            break
        if hi >= n_max:
            raise ValueError(f"No size up to n_max={n_max:,} reaches assurance {target:g} "
                             f"for {first.claim} (the largest possible is {first.limit:.3g}); "
                             "raise n_max or ask for less.")
        lo, hi = hi, min(2 * hi, n_max)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if float(at(mid).assurance[0]) >= target:
            hi = mid
        else:
            lo = mid
    final = at(hi)
    return ClaimPlan(hi, float(final.assurance[0]), target, final.claim, final.level,
                     final.method, final.counts, final.limit, float(final.mc_error[0]))
