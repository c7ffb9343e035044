"""Coverage of the 95 % HDIs of multiclass defaults on simulated classifiers (issue 11).

For each number of classes K, true accuracy and test-set size, simulate ``reps`` test sets from a
classifier whose every class is recognised with the same probability (the accuracy) and whose
errors spread evenly over the wrong classes, fit them as one batch under each candidate prior,
and count how often the 95 % HDI of accuracy, macro recall, macro F1 and kappa covers the truth.

Run: ``.venv/bin/python benchmarks/coverage_study.py --reps 200 --out benchmarks/coverage_table.md``
(it rewrites the file's ``multiclass`` section only: :mod:`sections`). Small classes (issue 28):
``--priors default --ks 3 5 10 20 --per-class 5 10 --no-paired --section small_classes``.
"""

from __future__ import annotations

import argparse
import itertools
import time
import warnings

import numpy as np
from sections import write_section

import bayescm as bcm
from bayescm.core.stats import hdi
from bayescm.metrics.multiclass import MULTICLASS_METRICS

METRICS = ("acc", "tpr_macro", "f1_macro", "kappa")


def class_sizes(k: int, per_class: int, imbalance: float = 1.0) -> np.ndarray:
    """Items per class: from ``per_class`` (the smallest) up to ``imbalance`` times as many."""
    return np.round(per_class * np.linspace(1.0, imbalance, k)).astype(int)


def simulate(k: int, acc: float, sizes: np.ndarray, reps: int, rng: np.random.Generator
             ) -> tuple[np.ndarray, np.ndarray]:
    """Counts ``(reps, K, K)`` and the true theta ``(K, K)``: ``sizes[i]`` items in class i."""
    rates = np.full((k, k), (1 - acc) / (k - 1))
    np.fill_diagonal(rates, acc)
    prevalence = sizes / sizes.sum()
    theta = prevalence[:, None] * rates
    if np.all(sizes == sizes[0]):  # balanced: the draws of the tables measured before
        counts = rng.multinomial(sizes[0], rates, size=(reps, k))  # each row: one class's items
    else:
        counts = np.stack([rng.multinomial(sizes[i], rates[i], size=reps) for i in range(k)],
                          axis=1)
    return counts, theta


def candidate(name: str, k: int) -> object:
    """Rates priors: a per-row Dirichlet with diagonal a and off-diagonal total b."""
    if name == "default":
        return None
    if name == "flat":
        return bcm.Dirichlet(1.0)
    a, b = {"row-laplace": (1.0, 1.0), "row-jeffreys": (0.5, 0.5),
            "scaled-laplace": (2.0 / k, 2.0 / k), "scaled-half": (1.0 / k, 1.0 / k)}[name]
    rows = []
    for i in range(k):
        alpha = np.full(k, b / (k - 1))
        alpha[i] = a
        rows.append(bcm.Dirichlet(alpha))
    return rows


def coverage(k: int, acc: float, sizes: np.ndarray, prior: str, reps: int, seed: int
             ) -> dict[str, float]:
    rng = np.random.default_rng(seed)
    counts, theta = simulate(k, acc, sizes, reps, rng)
    truth = {m: float(MULTICLASS_METRICS[m](theta)) for m in METRICS}
    labels = [f"c{i}" for i in range(k)]
    hits = {m: 0 for m in METRICS}
    for start in range(0, reps, 50):
        batch = {str(i): bcm.ConfusionMatrix(c, labels=labels)
                 for i, c in enumerate(counts[start:start + 50], start=start)}
        tree = bcm.fit(batch, priors={"rates": candidate(prior, k)}, metrics=list(METRICS),
                       draws=500,
                       chains=2, random_seed=seed + start)  # rates=None: the default
        for m in METRICS:
            x = tree["posterior"][m].transpose("classifier", "chain", "draw").values
            bounds = hdi(x.reshape(x.shape[0], -1), 0.95)
            hits[m] += int(np.sum((bounds[:, 0] <= truth[m]) & (truth[m] <= bounds[:, 1])))
    return {m: hits[m] / reps for m in METRICS}


def paired_coverage(k: int, acc: float, n: int, reps: int, seed: int, prior: object = None,
                    gap: float = 0.05) -> float:
    """Coverage of the 95 % HDI of acc_A - acc_B for correlated classifiers (truth: gap).

    B is right wherever A is, except on a share of A's right answers chosen so that
    acc_B = acc - gap; errors land on a random wrong class.
    """
    rng = np.random.default_rng(seed)
    hits = 0
    for r in range(reps):
        y = rng.integers(0, k, size=n)
        wrong = (y + rng.integers(1, k, size=n)) % k
        a_right = rng.random(n) < acc
        b_right = a_right & (rng.random(n) < (acc - gap) / acc)
        a = np.where(a_right, y, wrong)
        b = np.where(b_right, y, wrong)
        res = bcm.compare_paired(y, a, b, metrics=["acc"], labels=list(range(k)),
                                 positive=1 if k == 2 else None, prior=prior, draws=250,
                                 chains=2, random_seed=seed + r)
        lo, hi = hdi(res["posterior"]["acc_diff"].values.reshape(-1), 0.95)
        hits += int(lo <= gap <= hi)
    return hits / reps


def main() -> None:
    from bayescm.errors import PriorStrengthWarning

    warnings.simplefilter("ignore", PriorStrengthWarning)  # small classes are the point here
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--priors", nargs="+",
                        default=["default", "flat", "row-laplace"])
    parser.add_argument("--ks", nargs="+", type=int, default=[2, 3, 5, 10, 20])
    parser.add_argument("--accs", nargs="+", type=float, default=[0.6, 0.8, 0.95])
    parser.add_argument("--per-class", nargs="+", type=int, default=[20, 50])
    parser.add_argument("--out")
    parser.add_argument("--section", default="multiclass",
                        help="the table file's section to rewrite (small classes: small_classes)")
    parser.add_argument("--no-paired", action="store_true", help="skip the paired rows")
    parser.add_argument("--imbalance", type=float, default=1.0,
                        help="largest class over smallest (sizes spaced evenly between)")
    args = parser.parse_args()
    lines = ["| prior | K | N | accuracy | " + " | ".join(METRICS) + " |",
             "|---|---|---|---|" + "---|" * len(METRICS)]
    start = time.time()
    for prior, k, acc, per in itertools.product(args.priors, args.ks, args.accs,
                                                args.per_class):
        sizes = class_sizes(k, per, args.imbalance)
        cov = coverage(k, acc, sizes, prior, args.reps, seed=k * 1000 + per)
        row = (f"| {prior} | {k} | {sizes.sum()} | {acc} | "
               + " | ".join(f"{cov[m]:.2f}" for m in METRICS) + " |")
        lines.append(row)
        print(row, flush=True)
    if not args.no_paired:
        lines += ["", "Paired comparison, 95 % HDI of acc_A - acc_B (truth 0.05), default "
                  "prior:", "", "| K | N | accuracy of A | coverage |", "|---|---|---|---|"]
    for k, acc, per in itertools.product(args.ks, (0.8, 0.95),
                                         [] if args.no_paired else args.per_class):
        cov = paired_coverage(k, acc, per * k, max(args.reps // 2, 20), seed=k * 7 + per)
        row = f"| {k} | {per * k} | {acc} | {cov:.2f} |"
        lines.append(row)
        print(row, flush=True)
    lines.append(f"\n{args.reps} simulated test sets per row ({max(args.reps // 2, 20)} for the "
                 f"paired rows); {time.time() - start:.0f} s.")
    if args.out:
        write_section(args.out, args.section, "\n".join(lines))


if __name__ == "__main__":
    main()
