"""The items model: a small evaluation and a large one, one fit each, in a fresh process.

Usage: ``python benchmarks/bench_items.py [small|large|both]``.

* small: 2 systems x 200 items x 5 attempts (40 clusters of 5), the default settings (4 chains
  x 1,000 draws after 1,000 tuning steps), target under 10 s including imports and the numba
  kernels' first load;
* large: 3 systems x 20,000 items in 2,000 clusters x 5 attempts (300,000 outcomes; 82,000
  parameters), 4 chains x 500 draws after 300 tuning steps (2,000 draws: what the summaries
  need), target under 2 minutes.

Each case runs in a fresh process, so the time includes what a user waits for: importing
bayescm, reading the log (``bcm.Items`` on a DataFrame of one row per outcome), sampling with
nutpie on the written-out density, the estimands and the tree. Printed: seconds against the
target, divergences, the largest R-hat and the smallest bulk ESS of the parameters, the peak
RSS, and the load average before and after (the machine's 2 cores are shared).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

CASES = {"small": (2, 200, 40, 5, 1000, 1000, 10.0),
         "large": (3, 20_000, 2_000, 5, 500, 300, 120.0)}
"""systems, items, clusters, attempts, draws per chain, tuning steps, target seconds."""

_CHILD = """
import json, sys, time, warnings, resource
t0 = time.perf_counter()
import numpy as np, pandas as pd
import bayescm as bcm
from scipy.special import expit
systems, items, clusters, attempts, draws, tune = (int(v) for v in sys.argv[1:7])
rng = np.random.default_rng(11)
cluster = rng.integers(0, clusters, items)
shared = rng.normal(0, 0.8, clusters)[cluster] + rng.normal(0, 1.5, items)
mu = np.linspace(0.2, 1.0, systems)
p = expit(mu[:, None] + shared + rng.normal(0, 0.5, (systems, items)))
y = rng.random((systems, attempts, items)) < p[:, None, :]
frame = pd.DataFrame({"item_id": np.tile(np.arange(items), systems * attempts),
                      "passage": np.tile(cluster, systems * attempts),
                      "system": np.repeat([f"s{k}" for k in range(systems)], attempts * items),
                      "correct": y.reshape(-1).astype(np.int8)})
t_data = time.perf_counter()
log = bcm.Items(frame, cluster="passage", system="system")
with warnings.catch_warnings(record=True) as seen:
    warnings.simplefilter("always")
    idata = bcm.fit(log, draws=draws, tune=tune, random_seed=1)
t1 = time.perf_counter()
diag = idata["diagnostics"]
names = ["mu_logit", "sd_cluster", "sd_item", "sd_system_item", "accuracy"]
rhat = max(float(diag[n].sel(diagnostic="r_hat").max()) for n in names)
ess = min(float(diag[n].sel(diagnostic="ess_bulk").min()) for n in names)
print(json.dumps({"seconds": t1 - t_data, "seconds_total": t1 - t0,
                  "simulate_s": t_data - t0,
                  "divergences": int(idata["sample_stats"]["diverging"].sum()),
                  "r_hat_max": rhat, "ess_bulk_min": ess, "warnings": len(seen),
                  "peak_rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run(case: str) -> dict:
    systems, items, clusters, attempts, draws, tune, target = CASES[case]
    before = os.getloadavg()[0]
    out = subprocess.run([sys.executable, "-c", _CHILD, *map(str, (systems, items, clusters,
                                                                    attempts, draws, tune))],
                         capture_output=True, text=True, check=True)
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result.update(case=case, target_s=target, load_before=before,
                  load_after=os.getloadavg()[0])
    return result


def main() -> None:
    which = sys.argv[1] if len(sys.argv) > 1 else "both"
    for case in (["small", "large"] if which == "both" else [which]):
        r = run(case)
        ok = "OK" if r["seconds_total"] < r["target_s"] else "over target"
        print(f"{case}: {r['seconds_total']:.1f} s in all ({r['simulate_s']:.1f} s importing "
              f"and simulating the log; target {r['target_s']:.0f} s: {ok}), "
              f"{r['divergences']} divergences, max R-hat {r['r_hat_max']:.3f}, min bulk ESS "
              f"{r['ess_bulk_min']:.0f}, peak RSS {r['peak_rss_mb']:.0f} MB, load "
              f"{r['load_before']:.1f} -> {r['load_after']:.1f}")


if __name__ == "__main__":
    main()
