"""Timings of the decision analyses (issue 32): decision curves, expected cost, calibration.

Run: .venv/bin/python benchmarks/bench_decision.py [--repeat 3] [--no-calibration]
Prints median wall times. The targets of issue 32: decision curves of 2 models on 10,000 items
over 99 thresholds with 4,000 draws under 3 s (the fit's weights drawn again included; the fit
itself is timed apart), the calibration model on 10,000 items under 30 s with compilation.

Measured 2026-11-27 (2 cores shared, load average about 3): the calibration model on 10,000
items took 27.8 s with PyMC's NUTS (``nuts_sampler="pymc"``, graph compilation included) and
11.0 s on the written-out density nutpie samples (the default when nutpie is installed).
Again at load average 6 (21:45 UTC): 40.7 s with PyMC's NUTS, 9.9 s written out; in the same
run decision curves of 2 models x 10,000 items x 99 thresholds x 4,000 draws took 1.0 s, the
expected cost with its curve 1.0 s, the fit itself 3.8 s.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import bayescm as bcm


def measure(label: str, func, repeat: int) -> None:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    print(f"{label:<62s} median {statistics.median(times):7.3f} s  (min {min(times):.3f})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-calibration", action="store_true")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    n = 10_000
    risk = rng.beta(2, 5, size=n)
    y = rng.random(n) < risk
    data = bcm.Scores(y, {"A": risk, "B": np.clip(risk + rng.normal(0, 0.1, n), 0, 1)})
    fit = bcm.fit(data, random_seed=1)  # 4 x 1,000 draws
    measure("fit: 2 models, 10,000 items, 4,000 draws", lambda: bcm.fit(data, random_seed=1),
            args.repeat)
    measure("net_benefit: 99 thresholds of that fit", lambda: bcm.net_benefit(fit),
            args.repeat)
    measure("expected_cost with the cost curve (99 thresholds)",
            lambda: bcm.expected_cost(fit, cost_fp=1, cost_fn=4), args.repeat)
    if not args.no_calibration:
        one = bcm.Scores(y, risk)
        measure("calibration model, 10,000 items (written-out density, nutpie, 4 x 1,000)",
                lambda: bcm.fit(one, method="calibration", random_seed=1), 1)
        measure("calibration model, 10,000 items (PyMC NUTS, compilation included)",
                lambda: bcm.fit(one, method="calibration", random_seed=1, nuts_sampler="pymc"),
                1)


if __name__ == "__main__":
    main()
