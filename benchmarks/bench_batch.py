"""summarize_batch against its floor: drawing the three Beta posteriors of the same batch.

Usage: ``python benchmarks/bench_batch.py [BATCH] [--draws 1000] [--chains 4] [--repeat 1]``
(default 20,000 binary matrices at 4 x 1,000 draws, every default metric).

Both are timed in one process on the same simulated batch: the floor only draws
``Beta(a + TP, b + FN)``, ``Beta(a + TN, b + FP)`` and ``Beta(a + TP + FN, b + FP + TN)``
(Laplace prior) for every matrix with NumPy, in the blocks ``summarize_batch`` uses, and drops
them (half the batch before ``summarize_batch``, half after, so both see the same load);
``summarize_batch`` does everything (draws, 27 variables, mean, sd, HDI, R-hat, ESS and a
``P(bm < 0)`` column). It prints both times, their ratio (target <= 3), the peak
RSS of the process (``resource.getrusage``; target <= 2 GB at a million matrices) and the
machine's load average, so figures from a busy machine are read as such.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import numpy as np

import bayescm as bcm
from bayescm.analyses.batch import _BLOCK_DRAWS


def floor(counts: np.ndarray, chains: int, draws: int, seed: int) -> float:
    """Seconds to draw the three Laplace-prior Beta posteriors of every matrix."""
    tp, fn = counts[:, 0, 0].astype(float), counts[:, 0, 1].astype(float)
    fp, tn = counts[:, 1, 0].astype(float), counts[:, 1, 1].astype(float)
    rng = np.random.default_rng(seed)
    block = max(1, _BLOCK_DRAWS // (chains * draws * 4))
    start = time.perf_counter()
    for a in range(0, len(counts), block):
        s = slice(a, a + block)
        for alpha, beta in ((tp[s] + fn[s] + 1, fp[s] + tn[s] + 1), (tp[s] + 1, fn[s] + 1),
                            (tn[s] + 1, fp[s] + 1)):
            rng.beta(alpha, beta, size=(chains, draws, alpha.size))
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("batch", nargs="?", type=int, default=20_000)
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--chains", type=int, default=4)
    args = parser.parse_args()
    counts = bcm.analyses.simulate_counts(200, size=args.batch, prevalence=0.3, tpr=0.85, tnr=0.9,
                                 random_seed=0)
    load0 = os.getloadavg()[0]
    half = args.batch // 2  # the floor's halves before and after: both see the same load
    base = floor(counts[:half], args.chains, args.draws, 1)
    start = time.perf_counter()
    table = bcm.summarize_batch(counts, labels=["pos", "neg"], positive="pos",
                                draws=args.draws, chains=args.chains, random_seed=2,
                                probabilities={"bm": ("<", 0.0)})
    took = time.perf_counter() - start
    base += floor(counts[half:], args.chains, args.draws, 2)
    load1 = os.getloadavg()[0]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kB on Linux
    print(f"batch {args.batch:,} binary matrices, {args.chains} x {args.draws:,} draws, "
          f"{table.index.get_level_values('variable').nunique()} variables, "
          f"{table.shape[0]:,} rows")
    print(f"floor (3 Beta posteriors): {base:8.1f} s  ({base / args.batch * 1e3:.3f} ms/matrix)")
    print(f"summarize_batch:           {took:8.1f} s  ({took / args.batch * 1e3:.3f} ms/matrix)")
    print(f"ratio:                     {took / base:8.2f}   (target <= 3)")
    print(f"peak RSS:                  {peak:8.0f} MB (target <= 2048 at 1,000,000)")
    print(f"load average:              {load0:.2f} before, {load1:.2f} after "
          f"({os.cpu_count()} cores)")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
