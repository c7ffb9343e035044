"""Coverage and calibration of the exact-draw models: stratified audits and corrected rates.

The user guide quotes these studies' outcomes (``docs/user_guide/audits.md``,
``docs/user_guide/corrected.md``); this script runs them and stores what they measured in
``benchmarks/exact_coverage_table.md``, so the quoted numbers have a file to be checked
against. The slow tests ``tests/test_stratified.py`` and ``tests/test_corrected_slow.py`` call
the same functions (smaller where the test says so) and assert the coverage bounds. Every draw
is exact (no MCMC) and every stream is seeded, so a run repeats its numbers to the last digit.

Studies
-------
``audits``: one simulated population of 200,000 cases (prevalence 2 %, TPR 0.7, TNR 0.99),
audited ``reps`` times by labelling 200 flagged and 300 unflagged cases; the 95 % HDIs of the
population's TPR and prevalence (``bcm.fit`` of the ``StratifiedSample``) against the truth,
and the naive fit of the 500 labels as one matrix. With the default prior (1 per cell) over
200 audits and with Jeffreys' 1/2 per cell over 400.

``corrected``: 200 data sets per scenario from fixed true values (the apparent count and the
validation or calibration matrix both drawn from the test's true rates); the 95 % HDI of the
true rate against the truth (seed 31, 2 x 500 draws per data set).

``sbc``: simulation-based calibration of ``bcm.true_prevalence``: prevalence, TPR and TNR drawn
from the priors (Beta(1, 1), U(0.5, 1), U(0.5, 1)), a validation matrix of 40 positives and 60
negatives, 300 subjects tested; the truth's rank among the posterior draws (uniform when the
draws are calibrated: chi-square test over 10 bins) and the coverage of the central 95 %
interval (seed 5, 400 data sets of 4 x 250 draws).

Run: ``.venv/bin/python benchmarks/exact_coverage.py --out benchmarks/exact_coverage_table.md``
(a few minutes on two cores; ``--only audits`` and the like run one study and rewrite only its
section of the file).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from typing import Any

import numpy as np
from sections import run_record, write_section

import bayescm as bcm
from bayescm.core.stats import hdi

CORRECTED = {
    "rare disease": dict(truth=0.02, n=2000, tpr=0.9, tnr=0.98, pos=100, neg=400,
                         judged=False),
    "a weak judge": dict(truth=0.6, n=500, tpr=0.7, tnr=0.7, pos=120, neg=80, judged=True),
    "a good judge": dict(truth=0.6, n=500, tpr=0.95, tnr=0.95, pos=120, neg=80, judged=True),
}
"""The corrected-rate scenarios: true rate, subjects, the test's or judge's rates, validation
(or calibration) positives and negatives, and whether it is a judge (accuracy) or a test."""


def audit_coverage(reps: int = 200, seed: int = 6, prior: str | None = None) -> dict[str, int]:
    """How many of ``reps`` audits' 95 % HDIs hold the population's TPR and prevalence.

    Returns the counts ``tpr``, ``prevalence`` (the stratified fit) and ``naive_prevalence``
    (the 500 labels read as one random sample).

    Examples
    --------
    >>> audit_coverage(reps=2)["naive_prevalence"]
    0
    """
    rng = np.random.default_rng(seed)
    n, prev, tpr, tnr = 200_000, 0.02, 0.7, 0.99
    y = rng.random(n) < prev
    pred = np.where(y, rng.random(n) < tpr, rng.random(n) > tnr)
    true_tpr, true_prev = (y & pred).sum() / y.sum(), y.mean()
    flagged, unflagged = np.flatnonzero(pred), np.flatnonzero(~pred)
    hits = {"tpr": 0, "prevalence": 0, "naive_prevalence": 0}
    for _ in range(reps):
        f = rng.choice(flagged, 200, replace=False)
        u = rng.choice(unflagged, 300, replace=False)
        audit = bcm.StratifiedSample(
            {"flagged": bcm.ConfusionMatrix.from_counts(tp=int(y[f].sum()), fn=0,
                                                        fp=int((~y[f]).sum()), tn=0),
             "unflagged": bcm.ConfusionMatrix.from_counts(tp=0, fn=int(y[u].sum()), fp=0,
                                                          tn=int((~y[u]).sum()))},
            {"flagged": flagged.size, "unflagged": unflagged.size})
        post = bcm.fit(audit, draws=500, chains=2, metrics=["tpr"],
                       random_seed=int(rng.integers(1 << 31)), prior=prior)["posterior"]
        for name, truth in (("tpr", true_tpr), ("prevalence", true_prev)):
            lo, hi = hdi(post[name].values.reshape(-1), 0.95)
            hits[name] += int(lo <= truth <= hi)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            naive = bcm.fit(bcm.ConfusionMatrix.from_counts(
                tp=int(y[f].sum()), fn=int(y[u].sum()), fp=int((~y[f]).sum()),
                tn=int((~y[u]).sum())), draws=500, random_seed=0)["posterior"]
        lo, hi = hdi(naive["prevalence"].values.reshape(-1), 0.95)
        hits["naive_prevalence"] += int(lo <= true_prev <= hi)
    return hits


def corrected_coverage(truth: float, n: int, tpr: float, tnr: float, pos: int, neg: int,
                       judged: bool, seed: int = 31, sets: int = 200) -> float:
    """Share of ``sets`` simulated data sets whose 95 % HDI of the true rate holds ``truth``.

    Examples
    --------
    >>> 0 <= corrected_coverage(**CORRECTED["a good judge"], sets=2) <= 1
    True
    """
    rng = np.random.default_rng(seed)
    hits = 0
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The apparent rate")
        for i in range(sets):
            apparent = truth * tpr + (1 - truth) * (1 - tnr)
            k = int(rng.binomial(n, apparent))
            tp, tn = int(rng.binomial(pos, tpr)), int(rng.binomial(neg, tnr))
            labels = ["correct", "incorrect"] if judged else ["positive", "negative"]
            val = bcm.ConfusionMatrix([[tp, pos - tp], [neg - tn, tn]], labels=labels)
            if judged:
                tree = bcm.judged_accuracy(k, n, calibration=val, draws=500, chains=2,
                                           random_seed=i)
                name = "accuracy"
            else:
                tree = bcm.true_prevalence(k, n, validation=val, draws=500, chains=2,
                                           random_seed=i)
                name = "prevalence"
            row = bcm.summary(tree, var_names=[name], kind="stats").iloc[0]
            hits += int(row["hdi_lower"] <= truth <= row["hdi_upper"])
    return hits / sets


def corrected_sbc(sets: int = 400, seed: int = 5, draws: int = 250, chains: int = 4
                  ) -> dict[str, dict[str, Any]]:
    """Simulation-based calibration of ``bcm.true_prevalence`` (see the module).

    Returns per parameter the ranks, the chi-square p-value of their 10-bin histogram and the
    share of data sets whose central 95 % interval holds the truth.

    Examples
    --------
    >>> out = corrected_sbc(sets=3, draws=20)
    >>> sorted(out), len(out["tpr"]["ranks"])
    (['prevalence', 'tnr', 'tpr'], 3)
    """
    from scipy import stats

    from bayescm.priors import Uniform

    rng = np.random.default_rng(seed)
    total = draws * chains
    ranks: dict[str, list[int]] = {"prevalence": [], "tpr": [], "tnr": []}
    inside = dict.fromkeys(ranks, 0)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The apparent rate")
        for i in range(sets):
            p, t, s = rng.uniform(), rng.uniform(0.5, 1), rng.uniform(0.5, 1)
            k = int(rng.binomial(300, p * t + (1 - p) * (1 - s)))
            tp, tn = int(rng.binomial(40, t)), int(rng.binomial(60, s))
            val = bcm.ConfusionMatrix.from_counts(tp=tp, fn=40 - tp, tn=tn, fp=60 - tn)
            tree = bcm.true_prevalence(k, 300, tpr=Uniform(0.5, 1), tnr=Uniform(0.5, 1),
                                       validation=val, draws=draws, chains=chains,
                                       random_seed=i)
            for name, truth in (("prevalence", p), ("tpr", t), ("tnr", s)):
                x = tree["posterior"][name].values.reshape(-1)
                ranks[name].append(int((x < truth).sum()))
                lo, hi = np.quantile(x, [0.025, 0.975])
                inside[name] += int(lo <= truth <= hi)
    out: dict[str, dict[str, Any]] = {}
    for name, r in ranks.items():
        hist = np.histogram(r, bins=10, range=(0, total))[0]
        out[name] = {"ranks": r, "p": float(stats.chisquare(hist).pvalue),
                     "coverage": inside[name] / sets, "histogram": hist.tolist()}
    return out


def audits_section(command: str) -> str:
    started, t0 = os.getloadavg()[0], time.time()
    default = audit_coverage(200)
    jeffreys = audit_coverage(400, prior="jeffreys")
    rows = [
        "## Stratified audits (`docs/user_guide/audits.md`)", "",
        "One population of 200,000 cases (prevalence 2 %, TPR 0.7, TNR 0.99), audited by "
        "labelling 200 flagged and 300 unflagged cases (seed 6); audits whose 95 % HDI holds "
        "the population's value:", "",
        "| prior | audits | TPR | prevalence | naive prevalence |", "|---|---|---|---|---|",
        f"| default (1 per cell) | 200 | {default['tpr']} ({default['tpr'] / 200:.3f}) | "
        f"{default['prevalence']} ({default['prevalence'] / 200:.3f}) | "
        f"{default['naive_prevalence']} |",
        f"| Jeffreys (1/2 per cell) | 400 | {jeffreys['tpr']} ({jeffreys['tpr'] / 400:.3f}) | "
        f"{jeffreys['prevalence']} ({jeffreys['prevalence'] / 400:.3f}) | "
        f"{jeffreys['naive_prevalence']} |", "",
        run_record(command, started) + f" {time.time() - t0:.0f} s."]
    return "\n".join(rows)


def corrected_section(command: str) -> str:
    started, t0 = os.getloadavg()[0], time.time()
    rows = ["## Corrected rates: coverage (`docs/user_guide/corrected.md`)", "",
            "200 data sets per scenario, seed 31, 2 x 500 draws each; share whose 95 % HDI of "
            "the true rate holds it (Monte-Carlo standard error 0.015):", "",
            "| scenario | true rate | coverage |", "|---|---|---|"]
    for name, s in CORRECTED.items():
        rows.append(f"| {name} | {s['truth']} | {corrected_coverage(**s):.3f} |")
    rows += ["", run_record(command, started) + f" {time.time() - t0:.0f} s."]
    return "\n".join(rows)


def sbc_section(command: str) -> str:
    started, t0 = os.getloadavg()[0], time.time()
    out = corrected_sbc()
    rows = ["## Corrected rates: simulation-based calibration (`docs/user_guide/corrected.md`)",
            "", "400 data sets drawn from the priors, seed 5, 4 x 250 draws each:", "",
            "| parameter | central 95 % interval covers | chi-square p (10 bins) | ranks per bin |",
            "|---|---|---|---|"]
    for name, r in out.items():
        rows.append(f"| {name} | {r['coverage']:.3f} | {r['p']:.2f} | "
                    f"{' '.join(map(str, r['histogram']))} |")
    rows += ["", run_record(command, started) + f" {time.time() - t0:.0f} s."]
    return "\n".join(rows)


SECTIONS = {"audits": audits_section, "corrected": corrected_section, "sbc": sbc_section}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=list(SECTIONS), default=list(SECTIONS))
    parser.add_argument("--out", help="the markdown file whose sections this run rewrites")
    args = parser.parse_args()
    command = " ".join(["benchmarks/exact_coverage.py", *sys.argv[1:]])
    for name in args.only:
        text = SECTIONS[name](command)
        print(text, "\n", flush=True)
        if args.out:
            write_section(args.out, name, text)


if __name__ == "__main__":
    main()
