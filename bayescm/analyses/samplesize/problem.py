"""The question of :func:`~.assurance.assurance`, checked: claim, design, priors, method.

:func:`problem` reads the claim and the design prior and decides how the assurance is
computed: exactly, when the claim is on a rate whose design prior is given (its own, or its
complement's: an FNR design for a TPR claim), with the prevalence's design splitting the items
when it is given; else by simulation through the binary model, which needs a design prior for
every parameter the metric depends on (and the prevalence, which splits the items).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescm.analyses.samplesize.claims import CRITERIA, RATES, Claim
from bayescm.analyses.samplesize.design import RateDesign, read_design
from bayescm.analyses.samplesize.montecarlo import needed_parameters
from bayescm.core.validate import check_probability

__all__ = ["METHODS", "problem"]

METHODS = ("auto", "exact", "simulation")


def problem(claim: Any, design: Any, level: Any, prior: Any, criterion: Any, method: Any
             ) -> dict[str, Any]:
    """Everything :func:`assurance` needs, checked once."""
    c = Claim.parse(claim)
    lvl = check_probability(level, "level (the posterior probability that establishes the "
                                   "claim)")
    if criterion not in CRITERIA:
        raise ValueError(f"criterion must be 'probability' (P(claim) >= level) or 'hdi' (the "
                         f"level HDI beyond the target), got {criterion!r}.")
    if method not in METHODS:
        raise ValueError(f"method must be one of {', '.join(METHODS)}, got {method!r}.")
    designs = read_design(design)
    rate = c.rate
    rate_design = None
    for key, value in designs.items():  # the rate's design, or its complement's (FNR for TPR)
        if key in RATES and RATES[key][0] == rate:
            rate_design = value.flipped() if RATES[key][1] else value
    exact_ok = rate_design is not None
    if method == "exact" and not exact_ok:
        raise ValueError(f"{c.metric} is exact only as a rate with its own design prior "
                         f"(e.g. design={{'{rate or 'tpr'}': bcm.Beta(45, 5)}}); use "
                         "method='simulation' or 'auto' for other metrics.")
    split = None
    counts = "items"
    if exact_ok and rate in ("tpr", "tnr"):
        counts = "positives" if rate == "tpr" else "negatives"
        if "prevalence" in designs:
            split = designs["prevalence"] if rate == "tpr" else designs["prevalence"].flipped()
            counts = "items"
    elif exact_ok and rate in ("ppv", "npv"):
        counts = "predicted positives" if rate == "ppv" else "predicted negatives"
    out = {"claim": c, "level": lvl, "criterion": criterion, "designs": designs,
           "rate_design": rate_design, "split": split, "counts": counts, "prior": prior}
    if exact_ok and method in ("auto", "exact"):
        out["method"] = "exact"
        return out
    if exact_ok:  # a rate by simulation: the same model, drawn
        out.update(_as_binary(c, rate, rate_design, split))
    else:
        needs = needed_parameters(c.metric)
        if set(needs) - {"prevalence"}:
            needs = sorted(set(needs) | {"prevalence"}, key=("prevalence", "tpr", "tnr").index)
        missing = [p for p in needs if p not in designs]
        if missing:
            raise ValueError(
                f"{c.metric} depends on {', '.join(needs)} (the prevalence splits the items "
                f"into positives and negatives): give a design prior for "
                f"{', '.join(missing)} too, e.g. design={{'prevalence': bcm.Beta(20, 80), "
                "'tpr': bcm.Beta(45, 5), 'tnr': bcm.Beta(90, 10)}.")
        out["sim_designs"] = {p: designs[p] for p in ("prevalence", "tpr", "tnr") if p in designs}
        out["sim_claim"] = c
    out["method"] = "simulation"
    return out


def _as_binary(c: Claim, rate: str | None, design: RateDesign | None,
               split: RateDesign | None) -> dict[str, Any]:
    """A rate claim as a claim on the binary model's TPR or TNR (for the simulation).

    A rate of all items is the TPR of a test set of positives only.
    """
    assert design is not None
    assert rate is not None
    param = "tnr" if rate == "tnr" else "tpr"
    if split is None:
        split = RateDesign(points=np.array([0.0 if param == "tnr" else 1.0]))
    elif param == "tnr":
        split = split.flipped()  # back to the prevalence
    complement = c.metric != rate
    metric = {"tpr": "fnr", "tnr": "fpr"}[param] if complement else param
    return {"sim_designs": {"prevalence": split, param: design},
            "sim_claim": Claim(metric, c.op, c.target, c.width)}
