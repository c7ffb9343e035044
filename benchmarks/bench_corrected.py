"""Corrected rates: the time of ``bcm.true_prevalence`` and ``bcm.judged_accuracy`` (issue 31).

Usage: ``python benchmarks/bench_corrected.py [repeats]``.

Each case is fitted once to warm up (imports, SciPy's special functions), then ``repeats``
times (default 7); printed: the median seconds of one fit at the defaults (4 chains x 1,000
exact draws), against the issue's target of 0.2 s for a single test, and the load average
before and after (the machine's 2 cores are shared).
"""

from __future__ import annotations

import os
import statistics
import sys
import time

import bayescm as bcm

VALIDATION = bcm.ConfusionMatrix.from_counts(tp=45, fn=5, tn=190, fp=10)
CALIBRATION = bcm.ConfusionMatrix([[110, 10], [12, 68]], labels=["correct", "incorrect"])
CASES = {
    "fixed tpr and tnr": lambda: bcm.true_prevalence(
        142, 742, tpr=bcm.Fixed(0.9), tnr=bcm.Fixed(0.95), random_seed=0),
    "tpr fixed, tnr Beta": lambda: bcm.true_prevalence(
        142, 742, tpr=bcm.Fixed(0.9), tnr=bcm.Beta(95, 5), random_seed=0),
    "Uniform(0.6, 1) priors": lambda: bcm.true_prevalence(
        142, 742, tpr=bcm.priors.Uniform(0.6, 1), tnr=bcm.priors.Uniform(0.6, 1),
        random_seed=0),
    "validation matrix": lambda: bcm.true_prevalence(142, 742, validation=VALIDATION,
                                                     random_seed=0),
    "judge, 2 systems": lambda: bcm.judged_accuracy({"A": 340, "B": 310}, 500,
                                                    calibration=CALIBRATION, random_seed=0),
}
TARGET = 0.2


def main(repeats: int = 7) -> None:
    """Print the median time of each case."""
    print(f"load before: {os.getloadavg()[0]:.2f}")
    for name, call in CASES.items():
        call()
        times = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            call()
            times.append(time.perf_counter() - t0)
        median = statistics.median(times)
        print(f"{name:<26} {median:6.3f} s  ({'within' if median < TARGET else 'above'} "
              f"the {TARGET} s target)")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
