"""Assurance by simulation, for metrics that are no single rate (PPV, BM, F1, MCC, ...).

For each test-set size ``n``: ``n_sims`` true parameter sets are drawn from the design prior
(prevalence, TPR, TNR), a test set from each (positives ``~ Binomial(n, prevalence)``, TP and
TN binomial in them), ``n_draws`` posterior draws of each of the binary model's independent
Beta posteriors, and the metric on them decides the claim. The same true parameters are used
at every ``n`` (common random numbers), so a curve over ``n`` is smooth. The Monte Carlo
error reported is the binomial one of ``n_sims`` studies; the posterior probability of each
study is itself estimated from ``n_draws`` draws, which blurs decisions that fall within
about ``1 / sqrt(n_draws)`` of the level. A claim on TPR, TNR or their complements is decided
on its Beta posterior in closed form instead (no draws): the simulated twin of the exact sum.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from bayescm.analyses.samplesize.claims import Claim, _metric, established
from bayescm.analyses.samplesize.design import PARAMETERS, RateDesign
from bayescm.core.stats import hdi_rows
from bayescm.core.streams import child, seed_sequence

__all__ = ["needed_parameters", "simulate_assurance"]

_CHUNK = 1_000_000
"""Posterior draws evaluated at once (studies x draws)."""


def needed_parameters(metric: str) -> list[str]:
    """The binary model's parameters the metric depends on (found by evaluating it).

    Examples
    --------
    >>> from bayescm.analyses.samplesize.montecarlo import needed_parameters
    >>> needed_parameters("ppv"), needed_parameters("bm")
    (['prevalence', 'tpr', 'tnr'], ['tpr', 'tnr'])
    """
    func = _metric(metric)
    base = {"prevalence": 0.3, "tpr": 0.8, "tnr": 0.7}

    def value(params: dict[str, float]) -> float:
        p, s, c = params["prevalence"], params["tpr"], params["tnr"]
        return float(func(p * s, p * (1 - s), (1 - p) * (1 - c), (1 - p) * c))

    ref = value(base)
    out = []
    for name in PARAMETERS:
        moved = dict(base, **{name: base[name] * 0.5 + 0.1})
        v = value(moved)
        if not (v == ref or (np.isnan(v) and np.isnan(ref))):
            out.append(name)
    return out


_CLOSED = {"tpr": ("tpr", False), "fnr": ("tpr", True), "tnr": ("tnr", False),
           "fpr": ("tnr", True)}
"""Metrics decided on their Beta posterior directly, without draws: metric -> (rate, is the
complement)."""


def _closed_form(claim: Claim, priors: dict[str, tuple[float, float]], pos: np.ndarray,
                 tp: np.ndarray, neg: np.ndarray, tn: np.ndarray, level: float,
                 criterion: str) -> np.ndarray:
    rate, complement = _CLOSED[claim.metric]
    a0, b0 = priors[rate]
    trials, hits = (pos, tp) if rate == "tpr" else (neg, tn)
    a, b = a0 + hits, b0 + trials - hits
    if claim.width:
        return established(a, b, claim.target, level, criterion, width=True)
    above = (claim.op == ">") != complement
    t = claim.target if not complement else 1.0 - claim.target
    if above:
        return established(a, b, t, level, criterion)
    return established(b, a, 1.0 - t, level, criterion)


def _decide(values: np.ndarray, claim: Claim, level: float, criterion: str) -> np.ndarray:
    if claim.width or criterion == "hdi":
        clean = np.where(np.isfinite(values), values, np.nan)
        bounds = hdi_rows(clean, level)
        if claim.width:
            return (bounds[:, 1] - bounds[:, 0]) < claim.target
        return bounds[:, 0] > claim.target if claim.op == ">" else bounds[:, 1] < claim.target
    with np.errstate(invalid="ignore"):
        hit = values > claim.target if claim.op == ">" else values < claim.target
    return hit.mean(axis=1) >= level


def simulate_assurance(sizes: np.ndarray, claim: Claim, designs: dict[str, RateDesign],
                       priors: dict[str, tuple[float, float]], level: float, criterion: str,
                       n_sims: int, n_draws: int, random_seed: Any
                       ) -> tuple[np.ndarray, np.ndarray, float]:
    """Simulated assurance at each size, its Monte Carlo error, and its limit for large ``n``.

    The limit is the design probability that the claim is true (1 for a width claim).
    """
    func = _metric(claim.metric)
    seq = seed_sequence(random_seed)
    full = {name: designs.get(name, RateDesign(points=np.array([0.5]))) for name in PARAMETERS}
    rng = np.random.default_rng(child(seq, 0))
    truth = {name: full[name].draw(rng, n_sims) for name in PARAMETERS}
    if claim.width:
        limit = 1.0
    else:
        big = np.random.default_rng(child(seq, 1))
        t = {name: full[name].draw(big, 20_000) for name in PARAMETERS}
        p, s, c = t["prevalence"], t["tpr"], t["tnr"]
        v = func(p * s, p * (1 - s), (1 - p) * (1 - c), (1 - p) * c)
        with np.errstate(invalid="ignore"):
            limit = float(np.mean(v > claim.target if claim.op == ">" else v < claim.target))
    out = np.empty(sizes.size)
    for i, n in enumerate(sizes.tolist()):  # one pass per size; studies and draws vectorised
        gen = np.random.default_rng(child(seq, 2))  # the same studies at every size
        pos = gen.binomial(n, truth["prevalence"])
        tp = gen.binomial(pos, truth["tpr"])
        tn = gen.binomial(n - pos, truth["tnr"])
        if claim.metric in _CLOSED:  # one class's rate: the Beta posterior in closed form
            out[i] = _closed_form(claim, priors, pos, tp, n - pos, tn, level, criterion).mean()
            continue
        hits = np.empty(n_sims, dtype=bool)
        rows = max(1, _CHUNK // n_draws)
        for start in range(0, n_sims, rows):  # bounded memory: blocks of studies
            sl = slice(start, start + rows)
            shape = (pos[sl].size, n_draws)
            a, b = priors["prevalence"]
            prev = gen.beta(a + pos[sl, None], b + (n - pos[sl])[:, None], shape)
            a, b = priors["tpr"]
            sens = gen.beta(a + tp[sl, None], b + (pos[sl] - tp[sl])[:, None], shape)
            a, b = priors["tnr"]
            spec = gen.beta(a + tn[sl, None], b + (n - pos[sl] - tn[sl])[:, None], shape)
            values = func(prev * sens, prev * (1 - sens), (1 - prev) * (1 - spec),
                          (1 - prev) * spec)
            hits[sl] = _decide(values, claim, level, criterion)
        out[i] = hits.mean()
    return out, np.sqrt(out * (1 - out) / n_sims), limit
