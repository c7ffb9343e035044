"""Latent class models: the time of a whole ``bcm.fit`` of test results and of ratings (issue 31).

Usage: ``python benchmarks/bench_latent.py [case ...]`` (cases: ``hui_walter``,
``dawid_skene``; default both).

Each case runs in a fresh interpreter (``python -c``), so the time includes what a user's
first fit pays: importing PyMC, building the model, compiling it (nutpie's numba kernels, or
PyMC's C code) and sampling 4 chains x 1,000 draws after 1,000 tuning steps, then the derived
quantities, the diagnostics and the tree. Printed: the seconds of the fit, the seconds of the
process (imports included), the ratio to the issue's target, and the load average before and
after (the machine's 2 cores are shared). Targets: Hui-Walter with 3 tests in 2 populations
under 20 s; Dawid-Skene with 1,000 items x 5 raters x 4 classes under 60 s.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

HUI_WALTER = """
import time, numpy as np
t0 = time.perf_counter()
import bayescm as bcm
from bayescm.models.hui_walter_build import pattern_probabilities
rng = np.random.default_rng(0)
pi = pattern_probabilities(np.array([0.1, 0.4]), np.array([0.9, 0.8, 0.85]),
                           np.array([0.95, 0.9, 0.8]))
counts = np.stack([rng.multinomial(n, p) for n, p in zip((600, 400), pi)])
results = bcm.TestResults.from_counts(counts, tests=["a", "b", "c"])
t1 = time.perf_counter()
tree = bcm.fit(results, random_seed=0)
t2 = time.perf_counter()
print(f"RESULT {t2 - t1:.2f} {t2 - t0:.2f} {tree.attrs['nuts_sampler']}")
"""

DAWID_SKENE = """
import time, numpy as np
t0 = time.perf_counter()
import bayescm as bcm
rng = np.random.default_rng(0)
n_items, n_raters, n_k = 1000, 5, 4
prev = np.array([0.4, 0.3, 0.2, 0.1])
rates = np.stack([np.stack([rng.dirichlet(np.ones(n_k) + 12 * np.eye(n_k)[k])
                            for k in range(n_k)]) for _ in range(n_raters)])
z = rng.choice(n_k, n_items, p=prev)
counts = np.zeros((n_items, n_raters, n_k), dtype=np.int64)
for r in range(n_raters):
    u = rng.random(n_items)[:, None]
    counts[np.arange(n_items), r, (u > np.cumsum(rates[r, z], axis=1)).sum(axis=1)] += 1
ratings = bcm.Ratings.from_counts(counts)
t1 = time.perf_counter()
tree = bcm.fit(ratings, random_seed=0)
t2 = time.perf_counter()
print(f"RESULT {t2 - t1:.2f} {t2 - t0:.2f} {tree.attrs['nuts_sampler']}")
"""

CASES = {"hui_walter": ("Hui-Walter, 3 tests x 2 populations", HUI_WALTER, 20.0),
         "dawid_skene": ("Dawid-Skene, 1,000 items x 5 raters x 4 classes", DAWID_SKENE, 60.0)}


def run(name: str) -> None:
    """Fit one case in a fresh interpreter and print its times against the target."""
    label, code, target = CASES[name]
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    wall = time.perf_counter() - t0
    line = next(x for x in out.stdout.splitlines() if x.startswith("RESULT"))
    fit_s, process_s, sampler = line.split()[1:]
    print(f"{label:<50} fit {float(fit_s):6.1f} s, process {float(process_s):6.1f} s "
          f"(wall {wall:5.1f} s), sampler {sampler}; ratio to the {target:.0f} s target "
          f"{float(fit_s) / target:.2f}; load {load:.2f} -> {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    for case in sys.argv[1:] or list(CASES):
        run(case)
