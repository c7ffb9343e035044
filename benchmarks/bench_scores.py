"""The fit of scored items: ROC, AUC and PR posteriors of 10,000 items.

Usage: ``python benchmarks/bench_scores.py [ITEMS] [--draws 1000] [--chains 4] [--grid 200]
[--classifiers 1] [--repeat 5] [--method dirichlet_process]`` (default 10,000 binormal scores,
30 % positives, 4 x 1,000 draws, the ROC and PR curves on a 200-point grid, the default
method; ``--method bootstrap`` times the Bayesian bootstrap).

Times ``bcm.fit(bcm.Scores(...), grid_size=200)``: every draw is one whole ROC curve, so the fit
computes the AUC, the partial AUC, the average precision, the ROC and PR curves, the Brier
score, the log-loss, the reliability curve with its ECE and the confusion-matrix metrics at the
threshold, all from the same weights. One warm-up fit, then the median of ``--repeat`` fits
against the target of 2 s, the peak RSS of the process (``resource.getrusage``) and the
machine's load average, so figures from a busy machine are read as such.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import sys
import time

import numpy as np
from scipy import special

import bayescm as bcm

TARGET = 2.0
"""Seconds allowed for 10,000 items at 4 x 1,000 draws (one classifier)."""


def simulated(items: int, classifiers: int, seed: int = 0) -> bcm.Scores:
    """Binormal probability scores (separation 1.5 sd, 1.7 sd, ...), 30 % positives."""
    rng = np.random.default_rng(seed)
    y = rng.random(items) < 0.3
    scores = {f"c{k}": special.expit((1.5 + 0.2 * k) * (y - 0.5) + rng.normal(size=items))
              for k in range(classifiers)}
    return bcm.Scores(y, scores)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("items", nargs="?", type=int, default=10_000)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--chains", type=int, default=4)
    parser.add_argument("--grid", type=int, default=200, help="points of the ROC and PR grids")
    parser.add_argument("--classifiers", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--method", default="dirichlet_process",
                        choices=["dirichlet_process", "bootstrap"])
    args = parser.parse_args()
    data = simulated(args.items, args.classifiers)
    options = {"draws": args.draws, "chains": args.chains, "grid_size": args.grid,
               "method": args.method}
    bcm.fit(data, **{**options, "draws": 50}, random_seed=0)  # warm-up: imports, heap
    load0 = os.getloadavg()
    times = []
    for i in range(args.repeat):
        start = time.perf_counter()
        idata = bcm.fit(data, **options, random_seed=i + 1)
        times.append(time.perf_counter() - start)
    load1 = os.getloadavg()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    post = idata["posterior"]
    took = statistics.median(times)
    print(f"{args.items:,} items ({data.n_pos:,} positive), {args.classifiers} classifier(s), "
          f"{args.chains} x {args.draws:,} draws ({args.method}), grid {args.grid} points, "
          f"{len(post.data_vars)} variables")
    print(f"AUC posterior mean:  {float(post['auc'].mean()):.4f} "
          f"(observed {float(idata['observed_metrics']['auc'].mean()):.4f})")
    print(f"fit (median of {args.repeat}): {took:6.2f} s   (target <= {TARGET:g} s; runs: "
          f"{', '.join(f'{t:.2f}' for t in times)})")
    print(f"peak RSS:            {peak:6.0f} MB")
    print(f"load average:        {load0[0]:.2f} before, {load1[0]:.2f} after "
          f"({os.cpu_count()} cores)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
