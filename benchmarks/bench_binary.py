"""Timings of the binary model's main paths (issue 2 targets in brackets).

(a) one binary fit + summary of all metrics, with R-hat and ESS        [<= 100 ms warm]
(b) a batch of 1,000 binary matrices, 4 x 1,000 draws, all metrics     [<= 5 s, <= 2 GB]
(c) a NUTS fit, cold (first in the process) and warm

Run: ``.venv/bin/python benchmarks/bench_binary.py [--quick]``
"""

from __future__ import annotations

import argparse
import statistics
import time
import tracemalloc
import warnings

import numpy as np

import bayescm as bcm


def timed(fn, repeat: int) -> tuple[float, list[float]]:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times


def peak_mb(fn) -> float:
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repetitions")
    args = parser.parse_args()
    rep = 3 if args.quick else 20

    cm = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)

    def single():
        bcm.summary(bcm.fit(cm, random_seed=1))

    single()  # warm-up (imports, first allocations)
    med, _ = timed(single, rep)
    print(f"(a) one fit + summary, {len(bcm.summary(bcm.fit(cm)))} variables, 4 x 5,000 draws: "
          f"median {med * 1e3:.1f} ms over {rep} runs (target <= 100 ms)")

    rng = np.random.default_rng(0)
    counts = rng.integers(0, 60, size=(1000, 4))
    mats = {str(i): bcm.ConfusionMatrix.from_counts(tp=int(a), fn=int(b), tn=int(c), fp=int(d))
            for i, (a, b, c, d) in enumerate(counts)}

    def batch():
        return bcm.fit(mats, draws=1000, chains=4, random_seed=2)

    med, runs = timed(batch, 1 if args.quick else 5)
    mem = peak_mb(batch)
    print(f"(b) batch of 1,000 matrices, 4 x 1,000 draws, all metrics + diagnostics: "
          f"median {med:.2f} s (runs: {', '.join(f'{t:.2f}' for t in runs)}), "
          f"peak traced memory {mem:.0f} MB (target <= 5 s, <= 2 GB)")

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cold = timed(lambda: bcm.fit(cm, method="nuts", draws=1000, chains=2, cores=1,
                                     random_seed=3), 1)[0]
        warm, _ = timed(lambda: bcm.fit(cm, method="nuts", draws=1000, chains=2, cores=1,
                                        random_seed=4), 1 if args.quick else 3)
    print(f"(c) NUTS fit, 2 x 1,000 draws (+1,000 tune): cold {cold:.2f} s, warm {warm:.2f} s")


if __name__ == "__main__":
    main()
