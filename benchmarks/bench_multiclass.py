"""Multiclass timings: fit + summary of a 10-class matrix, fit of a 50-class matrix.

Prints the median of warm runs (after one untimed run) and the peak memory traced by
``tracemalloc`` during one extra run. Targets: 10-class fit + summary <= 0.5 s, 50-class fit
<= 10 s (4 chains x 5,000 draws, all metrics).

Run: ``.venv/bin/python benchmarks/bench_multiclass.py``
"""

from __future__ import annotations

import statistics
import time
import tracemalloc
from collections.abc import Callable

import numpy as np

import bayescm as bcm


def random_matrix(k: int, n: int, accuracy: float, seed: int) -> bcm.ConfusionMatrix:
    """A K-class matrix of about ``n`` counts with the given share on the diagonal."""
    rng = np.random.default_rng(seed)
    prevalence = rng.dirichlet(np.full(k, 5.0))
    rates = np.full((k, k), (1 - accuracy) / (k - 1)) + np.eye(k) * (
        accuracy - (1 - accuracy) / (k - 1))
    counts = rng.multinomial(n, (prevalence[:, None] * rates).ravel()).reshape(k, k)
    return bcm.ConfusionMatrix(counts, labels=[f"c{i}" for i in range(k)], ordered=True)


def timed(func: Callable[[], object], repeats: int) -> tuple[float, float]:
    """Median warm wall time (s) over ``repeats`` runs and peak traced memory (MB) of one run."""
    func()
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    func()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return statistics.median(times), peak / 1e6


def main() -> None:
    cm10 = random_matrix(10, 1000, 0.8, 0)
    cm50 = random_matrix(50, 5000, 0.7, 1)

    def fit10() -> object:
        return bcm.fit(cm10, random_seed=1)

    def fit_summary10() -> object:
        return bcm.summary(bcm.fit(cm10, random_seed=1))

    idata10 = fit10()

    def summary10() -> object:
        return bcm.summary(idata10)

    def fit50() -> object:
        return bcm.fit(cm50, random_seed=1)

    rows = [
        ("10 classes, 1,000 counts: fit", *timed(fit10, 5), 0.5),
        ("10 classes: summary of all metrics", *timed(summary10, 5), 0.5),
        ("10 classes: fit + summary", *timed(fit_summary10, 5), 0.5),
        ("50 classes, 5,000 counts: fit", *timed(fit50, 3), 10.0),
    ]
    print(f"{'case':<40} {'median s':>9} {'peak MB':>9} {'target s':>9}")
    for name, seconds, peak, target in rows:
        flag = "" if seconds <= target else "  (over target)"
        print(f"{name:<40} {seconds:>9.3f} {peak:>9.0f} {target:>9.1f}{flag}")


if __name__ == "__main__":
    main()
