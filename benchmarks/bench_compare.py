"""Timings of the comparison paths: leaderboard, rank probabilities, paired model, bootstrap.

Run: .venv/bin/python benchmarks/bench_compare.py [--repeat 5]
Prints median wall times and the peak traced memory (tracemalloc, which sees NumPy buffers).
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
import tracemalloc

import numpy as np
import xarray as xr

from bayescm.analyses.frequentist import bootstrap
from bayescm.comparisons import leaderboard, rank_probabilities
from bayescm.comparisons.paired import compare_paired


def measure(label, func, repeat):
    func()  # warm-up
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    func()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    print(f"{label:<58s} median {statistics.median(times):7.3f} s  "
          f"(min {min(times):.3f})  peak {peak / 1e6:7.1f} MB")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"cpus {os.cpu_count()}, load average {os.getloadavg()[0]:.2f}")
    rng = np.random.default_rng(0)
    acc = np.sort(rng.uniform(0.95, 0.98, 1000))[::-1]
    prizes = [10_000, 2_000, 1_000]
    for threads in (1, 2):
        measure(f"leaderboard 1,000 entries x 20,000 draws, threads={threads}",
                lambda t=threads: leaderboard(acc, 15_123, prizes=prizes, draws=20_000,
                                              random_seed=1, threads=t), args.repeat)

    k = rng.integers(8_000, 9_500, size=10_000).astype(np.float32)
    draws = rng.beta(k + 1, 10_000 - k + 1, size=(2000, 10_000)).astype(np.float32)
    da32 = xr.DataArray(draws.reshape(4, 500, 10_000), dims=("chain", "draw", "classifier"))
    da64 = da32.astype(np.float64)
    measure("rank_probabilities 10,000 classifiers x 2,000 draws f32",
            lambda: rank_probabilities(da32, direction="higher", max_rank=10), args.repeat)
    measure("rank_probabilities 10,000 classifiers x 2,000 draws f64",
            lambda: rank_probabilities(da64, direction="higher", max_rank=10), args.repeat)

    y = rng.integers(0, 2, size=1000)
    a = np.where(rng.random(1000) < 0.75, y, 1 - y)
    b = np.where(rng.random(1000) < 0.78, y, 1 - y)
    measure("compare_paired binary, all metrics, 4 x 5,000 draws",
            lambda: compare_paired(y, a, b, positive=1, random_seed=0), args.repeat)
    measure("bootstrap acc difference, 1,000 samples, 10,000 replicates",
            lambda: bootstrap(y, a, b, "acc", positive=1, random_seed=0), args.repeat)


if __name__ == "__main__":
    main()
