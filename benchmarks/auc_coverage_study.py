"""Coverage of the 95 % HDI of the AUC: the Bayesian bootstrap against the default (issue 28).

For each truth, prevalence, test-set size ``n`` and true AUC, ``reps`` data sets are simulated
and each is fitted twice with ``bcm.fit(bcm.Scores(y, s))``: ``method="bootstrap"`` (the
Bayesian bootstrap, the default before issue 28) and the default ``"dirichlet_process"``
(:mod:`bayescm.models.roc_dp`), both with the default 4 x 1,000 draws. Counted per method: how
often the 95 % HDI of the AUC (the interval of ``bcm.summary``) contains the true AUC, and
whether the misses fall below (the interval lies above the truth) or above it.

Truths (negatives and positives; the positives' parameter solved for the AUC):

* ``binormal``: N(0, 1) and N(mu, 1), AUC = Phi(mu / sqrt 2);
* ``exponential``: Exp(1) and Exp(rate l), AUC = 1 / (1 + l) (a power ROC curve, TPR = FPR^l);
* ``mixture``: N(0, 1) and the even mixture of N(mu, 1) and N(mu + 2.5, 0.5^2) (a bimodal
  positive class, an ROC curve no binormal curve follows).

Labels are Bernoulli(prevalence); a data set with fewer than two items of a class is drawn
again. ``separated`` is the share of data sets whose classes do not overlap at all (observed
AUC 1), and ``P(AUC = 1)`` the share of posterior draws exactly at 1, averaged over them.

The paired section: two classifiers scored on the same items, binormal with correlated noise
(latent correlation 0.7), and the 95 % HDI of ``AUC_A - AUC_B`` against the true difference.

Run: ``.venv/bin/python benchmarks/auc_coverage_study.py --reps 300 --draws 500 --paired-reps
200 --unbalanced --jobs 2 --out benchmarks/coverage_table.md`` (it rewrites the file's ``auc``
section only: :mod:`sections`; the table records the command line, the date and the machine's
load). ``--jobs`` fits that many rows side by side in separate processes; every row seeds its
own streams, so the table does not depend on it. The n = 2,000 rows, the largest fits, take
most of the time; ``--reps-at 2000:100`` fits fewer data sets at
that size (the first ones of the same streams), the table's ``sets`` columns say how many each
row has, and its last line says the run was cut. ``--concentrations 0.5 1 1.25 1.5 --ns 40
100`` writes the ``auc-concentration`` section instead: the default's coverage with other
concentrations (:data:`bayescm.models.roc_dp.CONCENTRATION`) on the same data sets.
"""

from __future__ import annotations

import argparse
import datetime
import functools
import itertools
import os
import shlex
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor

import numpy as np
from scipy import optimize, stats
from sections import write_section

import bayescm as bcm
from bayescm.core.stats import hdi

Sampler = Callable[[np.random.Generator, int], np.ndarray]
METHODS = ("bootstrap", "dirichlet_process")
TRUTHS = ("binormal", "exponential", "mixture")
PAIRED = [(40, 0.75, 0.05), (100, 0.9, 0.05), (500, 0.98, 0.01), (2000, 0.9, 0.02)]
"""The paired rows: test-set size, AUC of A, true AUC_A - AUC_B."""
PAIRED_NS = [n for n, _, _ in PAIRED]
DESIGN_REPS = 300
"""Data sets per row the study is designed for (the default of ``--reps``)."""


def samplers(truth: str, auc: float) -> tuple[Sampler, Sampler]:
    """Negative and positive score samplers of a truth with the given AUC."""
    if truth == "binormal":
        mu = np.sqrt(2) * stats.norm.ppf(auc)
        return (lambda r, k: r.normal(size=k)), (lambda r, k: r.normal(mu, 1.0, k))
    if truth == "exponential":
        rate = 1 / auc - 1
        return (lambda r, k: r.exponential(1.0, k)), (lambda r, k: r.exponential(1 / rate, k))
    if truth == "mixture":
        def gap(m: float) -> float:
            return float(0.5 * stats.norm.cdf(m / np.sqrt(2))
                         + 0.5 * stats.norm.cdf((m + 2.5) / np.sqrt(1.25)) - auc)

        mu = optimize.brentq(gap, -20, 20)

        def positive(r: np.random.Generator, k: int) -> np.ndarray:
            first = r.random(k) < 0.5
            return np.where(first, r.normal(mu, 1.0, k), r.normal(mu + 2.5, 0.5, k))

        return (lambda r, k: r.normal(size=k)), positive
    raise ValueError(f"unknown truth {truth!r}")


def dataset(rng: np.random.Generator, truth: str, auc: float, n: int, prevalence: float
            ) -> tuple[np.ndarray, np.ndarray]:
    negative, positive = samplers(truth, auc)
    while True:
        y = rng.random(n) < prevalence
        if 2 <= y.sum() <= n - 2:
            break
    s = np.empty(n)
    s[y] = positive(rng, int(y.sum()))
    s[~y] = negative(rng, int((~y).sum()))
    return y, s


def interval(idata: object, var: str = "auc") -> tuple[float, float, np.ndarray]:
    draws = idata["posterior"][var].values.reshape(-1)  # type: ignore[index]
    lo, hi = hdi(draws, 0.95)
    return float(lo), float(hi), draws


def cell(truth: str, n: int, auc: float, prevalence: float, reps: int, draws: int,
         seed: int, methods: tuple[str, ...] = METHODS) -> dict[str, float]:
    key = [seed, TRUTHS.index(truth), n, round(auc * 1000), round(prevalence * 100)]
    rng = np.random.default_rng(key)
    out = {f"{m}_{k}": 0.0 for m in methods for k in ("hits", "below", "above", "width",
                                                    "at_one")}
    out["separated"] = 0.0
    for rep in range(reps):
        y, s = dataset(rng, truth, auc, n, prevalence)
        separated = s[y].min() > s[~y].max()
        out["separated"] += separated
        for m in methods:
            fit = bcm.fit(bcm.Scores(y, s), method=m, draws=draws, metrics=["acc"],
                          grid_size=11, n_bins=2, random_seed=np.random.SeedSequence([*key, rep]))
            lo, hi, x = interval(fit)
            out[f"{m}_hits"] += lo <= auc <= hi
            out[f"{m}_below"] += auc < lo
            out[f"{m}_above"] += auc > hi
            out[f"{m}_width"] += hi - lo
            if separated:
                out[f"{m}_at_one"] += float(np.mean(x == 1.0))
    sep = max(out["separated"], 1.0)
    return {k: v / (sep if k.endswith("at_one") else reps) for k, v in out.items()}


def paired_cell(n: int, auc_a: float, gap: float, reps: int, draws: int, seed: int,
                rho: float = 0.7) -> dict[str, float]:
    mu_a = np.sqrt(2) * stats.norm.ppf(auc_a)
    mu_b = np.sqrt(2) * stats.norm.ppf(auc_a - gap)
    key = [seed, 99, n, round(auc_a * 1000), round(gap * 1000)]
    rng = np.random.default_rng(key)
    out = {f"{m}_{k}": 0.0 for m in METHODS for k in ("hits", "width")}
    for rep in range(reps):
        while True:
            y = rng.random(n) < 0.5
            if 2 <= y.sum() <= n - 2:
                break
        e1, e2 = rng.normal(size=n), rng.normal(size=n)
        scores = {"A": mu_a * y + e1, "B": mu_b * y + rho * e1 + np.sqrt(1 - rho ** 2) * e2}
        for m in METHODS:
            fit = bcm.fit(bcm.Scores(y, scores), method=m, draws=draws, metrics=["acc"],
                          grid_size=11, n_bins=2, random_seed=np.random.SeedSequence([*key, rep]))
            auc = fit["posterior"]["auc"]
            diff = (auc.sel(classifier="A") - auc.sel(classifier="B")).values.reshape(-1)
            lo, hi = hdi(diff, 0.95)
            out[f"{m}_hits"] += lo <= gap <= hi
            out[f"{m}_width"] += hi - lo
    return {k: v / reps for k, v in out.items()}


def run_cells(function: Callable[..., dict[str, float]], cells: Iterable[tuple], jobs: int
              ) -> Iterator[dict[str, float]]:
    """``function(*cell)`` for each cell, in order, on ``jobs`` processes.

    Each cell seeds its own stream from its key, so the results do not depend on ``jobs``.
    """
    if jobs <= 1:
        yield from (function(*c) for c in cells)
        return
    with ProcessPoolExecutor(jobs) as pool:
        yield from pool.map(function, *zip(*cells, strict=True))


def timing(n: int, classifiers: int, repeat: int = 3) -> float:
    rng = np.random.default_rng(0)
    y = rng.random(n) < 0.4
    scores = {f"c{i}": rng.normal(size=n) + (1 + i) * y for i in range(classifiers)}
    data = bcm.Scores(y, scores)
    bcm.fit(data, draws=20, random_seed=0)
    best = np.inf
    for i in range(repeat):
        start = time.perf_counter()
        bcm.fit(data, random_seed=i)  # the default: dirichlet_process, 4 x 1,000 draws
        best = min(best, time.perf_counter() - start)
    return best


def concentration_section(concentrations: list[float], cells: list[tuple[str, float, int, float]],
                          reps: int, draws: int, seed: int) -> list[str]:
    """Coverage of the default's AUC interval when its concentration is changed (the
    ``--concentrations`` study): one row per case, one column per concentration."""
    from bayescm.models import roc_dp

    lines = ["### AUC of scores: the Dirichlet process's concentration (issue 28)", "",
             f"Why the default's concentration is {roc_dp.CONCENTRATION:g}. Coverage of the "
             "default's 95 % HDI of the "
             f"AUC ({reps} data sets per case, 4 x {draws:,} draws, the same data sets as the "
             "table above) with each class's novel mass given the prior weight of "
             f"{', '.join(f'{c:g}' for c in concentrations)} items "
             "(`bayescm.models.roc_dp.CONCENTRATION`; 0 is the Bayesian bootstrap). In brackets "
             "the share of data sets whose interval lies below the truth.", "",
             "| truth | prevalence | n | AUC | "
             + " | ".join(f"concentration {c:g}" for c in concentrations) + " |",
             "|---|---|---|---|" + "---|" * len(concentrations)]
    default = roc_dp.CONCENTRATION
    try:
        for truth, prevalence, n, auc in cells:
            entries = []
            for c in concentrations:
                roc_dp.CONCENTRATION = c
                r = cell(truth, n, auc, prevalence, reps, draws, seed,
                         methods=("dirichlet_process",))
                entries.append(f"{r['dirichlet_process_hits']:.3f} "
                               f"({r['dirichlet_process_above']:.3f})")
            lines.append(f"| {truth} | {prevalence:g} | {n:,} | {auc:g} | "
                         + " | ".join(entries) + " |")
            print(lines[-1], flush=True)
    finally:
        roc_dp.CONCENTRATION = default
    return lines


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=DESIGN_REPS)
    parser.add_argument("--paired-reps", type=int, default=None,
                        help="data sets per paired row (default --reps)")
    parser.add_argument("--reps-at", nargs="+", default=[], metavar="N:REPS",
                        help="fewer (or more) data sets for test-set size N, e.g. 2000:40 "
                             "(coverage and paired rows; a paired row takes the smaller of "
                             "this and --paired-reps)")
    parser.add_argument("--draws", type=int, default=1000, help="draws per chain (4 chains)")
    parser.add_argument("--truths", nargs="+", default=list(TRUTHS))
    parser.add_argument("--ns", nargs="+", type=int, default=[40, 100, 500, 2000])
    parser.add_argument("--aucs", nargs="+", type=float, default=[0.6, 0.75, 0.9, 0.98, 0.99])
    parser.add_argument("--prevalences", nargs="+", type=float, default=[0.5])
    parser.add_argument("--unbalanced", action="store_true",
                        help="also the binormal truth at prevalence 0.2")
    parser.add_argument("--seed", type=int, default=2028)
    parser.add_argument("--concentrations", nargs="+", type=float, default=None,
                        help="instead of the comparison with the bootstrap: the default's "
                             "coverage at each of these concentrations (section "
                             "'auc-concentration')")
    parser.add_argument("--jobs", type=int, default=1,
                        help="processes that fit the rows side by side (same results)")
    parser.add_argument("--out")
    args = parser.parse_args()
    if args.concentrations:
        load_start, start = os.getloadavg(), time.time()
        cells = list(itertools.product(args.truths, args.prevalences, args.ns, args.aucs))
        if args.unbalanced:
            cells += list(itertools.product(["binormal"], [0.2], args.ns, args.aucs))
        lines = concentration_section(args.concentrations, cells, args.reps, args.draws,
                                      args.seed)
        command = " ".join(shlex.quote(a) for a in sys.argv[1:])
        lines += ["", f"Run {datetime.date.today().isoformat()} on {os.cpu_count()} cores, load "
                  f"average {load_start[0]:.1f} at the start and {os.getloadavg()[0]:.1f} at "
                  f"the end, {time.time() - start:.0f} s: `.venv/bin/python "
                  f"benchmarks/auc_coverage_study.py {command}`."]
        if args.out:
            write_section(args.out, "auc-concentration", "\n".join(lines))
        return
    paired_reps = args.paired_reps or args.reps
    reps_at = {int(n): int(r) for n, r in (item.split(":") for item in args.reps_at)}

    def reps_of(n: int) -> int:
        return reps_at.get(n, args.reps)

    def paired_reps_of(n: int) -> int:
        return min(reps_at.get(n, paired_reps), paired_reps)

    load_start = os.getloadavg()
    start = time.time()
    check = bcm.fit(bcm.Scores(*dataset(np.random.default_rng(1), "binormal", 0.8, 60, 0.5)),
                    draws=args.draws, random_seed=1)
    table = bcm.summary(check, var_names=["auc"], hdi_prob=0.95)
    assert np.allclose(interval(check)[:2], table.loc["auc", ["hdi_lower", "hdi_upper"]])
    counts = sorted({reps_of(n) for n in args.ns}, reverse=True)
    se = ", ".join(f"{np.sqrt(0.95 * 0.05 / r):.3f} at {r}" for r in counts)
    lines = [
        "### AUC of scores: the Bayesian bootstrap and the Dirichlet-process default (issue 28)",
        "",
        "Coverage of the 95 % HDI of the AUC (the interval of `bcm.summary`) over "
        "`sets` simulated data sets per row, each fitted with `method=\"bootstrap\"` and "
        f"with the default `method=\"dirichlet_process\"` (4 x {args.draws:,} draws). In "
        "brackets: the "
        "share of data sets whose interval lies above the truth / below it. `separated`: "
        "share of data sets with no overlap of the classes (observed AUC 1); `P(AUC = 1)`: "
        "the share of posterior draws at exactly 1 in those, bootstrap / default. Monte-Carlo "
        f"standard error of a coverage near 0.95: {se} data sets. Truths, labels and seeds: the "
        "docstring of `benchmarks/auc_coverage_study.py`.",
        "",
        "| truth | prevalence | n | AUC | sets | separated | P(AUC = 1) | bootstrap | default "
        "| width ratio |",
        "|---|---|---|---|---|---|---|---|---|---|"]
    cells = list(itertools.product(args.truths, args.prevalences, args.ns, args.aucs))
    if args.unbalanced:
        cells += list(itertools.product(["binormal"], [0.2], args.ns, args.aucs))
    runs = run_cells(functools.partial(cell, draws=args.draws, seed=args.seed),
                     [(truth, n, auc, prevalence, reps_of(n))
                      for truth, prevalence, n, auc in cells], args.jobs)
    for (truth, prevalence, n, auc), r in zip(cells, runs, strict=True):
        boot, dp = ((f"{r[f'{m}_hits']:.3f} ({r[f'{m}_below']:.3f} / {r[f'{m}_above']:.3f})")
                    for m in METHODS)
        at_one = (f"{r['bootstrap_at_one']:.2f} / {r['dirichlet_process_at_one']:.2f}"
                  if r["separated"] else "-")
        row = (f"| {truth} | {prevalence:g} | {n:,} | {auc:g} | {reps_of(n)} | "
               f"{r['separated']:.3f} | "
               f"{at_one} | {boot} | {dp} | "
               f"{r['dirichlet_process_width'] / r['bootstrap_width']:.2f} |")
        lines.append(row)
        print(row, flush=True)
    lines += ["", "`width ratio`: mean width of the default's interval over the bootstrap's.",
              "", "Paired comparison: coverage of the 95 % HDI of AUC_A - AUC_B over `sets` "
              "data sets per row (binormal, latent noise correlation 0.7, prevalence 0.5):", "",
              "| n | AUC_A | AUC_A - AUC_B | sets | bootstrap | default | width ratio |",
              "|---|---|---|---|---|---|---|"]
    runs = run_cells(functools.partial(paired_cell, draws=args.draws, seed=args.seed),
                     [(n, auc_a, gap, paired_reps_of(n)) for n, auc_a, gap in PAIRED], args.jobs)
    for (n, auc_a, gap), r in zip(PAIRED, runs, strict=True):
        row = (f"| {n:,} | {auc_a:g} | {gap:g} | {paired_reps_of(n)} | {r['bootstrap_hits']:.3f} | "
               f"{r['dirichlet_process_hits']:.3f} | "
               f"{r['dirichlet_process_width'] / r['bootstrap_width']:.2f} |")
        lines.append(row)
        print(row, flush=True)
    fast = {(n, k): timing(n, k) for n in (2000, 10000) for k in (1, 2)}
    load_end = os.getloadavg()
    command = " ".join(shlex.quote(a) for a in sys.argv[1:])
    lines += ["", "Time of the default fit (4 x 1,000 draws, every variable, best of 3): "
              + ", ".join(f"{n:,} items and {k} classifier{'s' if k > 1 else ''} {t:.2f} s"
                          for (n, k), t in fast.items()) + ".", "",
              f"Run {datetime.date.today().isoformat()} on {os.cpu_count()} cores, load average "
              f"{load_start[0]:.1f} at the start and {load_end[0]:.1f} at the end, "
              f"{args.jobs} process{'es' if args.jobs > 1 else ''}, "
              f"{time.time() - start:.0f} s: `.venv/bin/python "
              f"benchmarks/auc_coverage_study.py {command}`."]
    fewest = min([reps_of(n) for n in args.ns] + [paired_reps_of(n) for n in PAIRED_NS])
    if fewest < DESIGN_REPS:
        lines[-1] += (f" This run fitted fewer data sets than the design's {DESIGN_REPS} per row "
                      f"(down to {fewest}; the `sets` columns) to keep its time down: read each "
                      "row with its Monte-Carlo error.")
    print("\n".join(lines[-3:]))
    if args.out:
        write_section(args.out, "auc", "\n".join(lines))


if __name__ == "__main__":
    main()
