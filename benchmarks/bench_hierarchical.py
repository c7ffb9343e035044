"""The hierarchical (several groups) model: 30 groups, one fit, including compilation.

Usage: ``python benchmarks/bench_hierarchical.py [GROUPS] [--sampler pymc|nutpie|both]
[--draws 1000] [--chains 4]`` (default 30 simulated sites, 4 x 1,000 draws after the default
2,000 tuning steps, both samplers).

Each sampler runs in a fresh process, so the time includes what a user waits for the first
time: building the PyMC model, compiling it (C for PyMC's sampler, numba for nutpie), tuning,
sampling and assembling the tree (per-group metrics, SROC, diagnostics). Printed: seconds
against the 60 s target, divergences, the largest R-hat, the smallest bulk ESS of the
population parameters, the peak RSS and the load average before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys

TARGET = 60.0
"""Seconds allowed for 30 groups with the default sampler, compilation included."""

_CHILD = """
import json, sys, time, warnings, resource
import numpy as np
t0 = time.perf_counter()
import bayescm as bcm
groups, sampler, draws, chains = int(sys.argv[1]), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
rng = np.random.default_rng(7)
cov = np.array([[0.36, -0.19], [-0.19, 0.49]])
logits = rng.multivariate_normal([1.5, 2.0], cov, size=groups)
rates = 1 / (1 + np.exp(-logits))
mats = {}
for i in range(groups):
    n_pos, n_neg = int(rng.integers(20, 200)), int(rng.integers(50, 500))
    tp, tn = int(rng.binomial(n_pos, rates[i, 0])), int(rng.binomial(n_neg, rates[i, 1]))
    mats[f"site{i:02d}"] = bcm.ConfusionMatrix.from_counts(tp=tp, fn=n_pos - tp, tn=tn,
                                                           fp=n_neg - tn)
t1 = time.perf_counter()
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    idata = bcm.fit(mats, model="hierarchical", group="site", nuts_sampler=sampler,
                    draws=draws, chains=chains, random_seed=1)
t2 = time.perf_counter()
table = bcm.summary(idata, var_names=["tpr_mean", "tnr_mean", "sd_logit_tpr", "sd_logit_tnr",
                                      "corr_logit"])
print(json.dumps({"fit_s": t2 - t1, "import_s": t1 - t0,
                  "divergences": int(idata["sample_stats"]["diverging"].sum()),
                  "max_rhat": float(table["r_hat"].max()),
                  "min_ess": float(table["ess_bulk"].min()),
                  "target_accept": idata.attrs["target_accept"],
                  "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def run(groups: int, sampler: str, draws: int, chains: int) -> dict:
    out = subprocess.run([sys.executable, "-c", _CHILD, str(groups), sampler, str(draws),
                          str(chains)], capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("groups", nargs="?", type=int, default=30)
    parser.add_argument("--sampler", choices=("pymc", "nutpie", "both"), default="both")
    parser.add_argument("--draws", type=int, default=1000)
    parser.add_argument("--chains", type=int, default=4)
    args = parser.parse_args()
    samplers = ("pymc", "nutpie") if args.sampler == "both" else (args.sampler,)
    print(f"{args.groups} groups, {args.chains} x {args.draws} draws; load before "
          f"{os.getloadavg()[0]:.2f}; {os.cpu_count()} CPUs")
    for sampler in samplers:
        r = run(args.groups, sampler, args.draws, args.chains)
        verdict = "ok" if r["fit_s"] <= TARGET else "SLOWER THAN TARGET"
        print(f"{sampler:>7}: fit {r['fit_s']:.1f} s (target {TARGET:.0f} s, {verdict}), "
              f"import {r['import_s']:.1f} s, target_accept {r['target_accept']}, "
              f"divergences {r['divergences']}, max R-hat {r['max_rhat']:.3f}, "
              f"min bulk ESS {r['min_ess']:.0f}, peak RSS {r['rss_mb']:.0f} MB")
    print(f"load after {os.getloadavg()[0]:.2f}; this process's RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main()
