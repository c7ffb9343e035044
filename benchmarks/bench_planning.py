"""Timings of issue 33's planning: assurance curves over 50 sizes, a stopping rule's streams.

Targets: an assurance curve over 50 values of N in under 2 s; a sequential rule's operating
characteristics over 1,000 streams in under 30 s. Prints the date and the machine's load.

    .venv/bin/python benchmarks/bench_planning.py
"""

import datetime
import os
import time

import numpy as np

import bayescm as bcm

S = bcm.samplesize


def timed(label, func):
    start = time.perf_counter()
    out = func()
    print(f"{label:<72s} {time.perf_counter() - start:7.3f} s")
    return out


def main():
    print(f"{datetime.datetime.now():%Y-%m-%d %H:%M}, load average "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())}, {os.cpu_count()} cores")
    sizes = np.unique(np.geomspace(10, 5000, 60).astype(int))[:50]
    tpr = {"tpr": bcm.Beta(95, 5)}
    split = tpr | {"prevalence": bcm.Beta(20, 80)}
    timed("assurance 'tpr > 0.9', 50 N up to ~5,000, Beta design (exact)",
          lambda: S.assurance("tpr > 0.9", n=sizes, design=tpr))
    timed("the same, N counting all items (prevalence Beta(20, 80), exact)",
          lambda: S.assurance("tpr > 0.9", n=sizes, design=split))
    timed("the same with the HDI criterion (exact)",
          lambda: S.assurance("tpr > 0.9", n=sizes, design=split, criterion="hdi"))
    timed("width(tpr) < 0.05, 50 N (exact)",
          lambda: S.assurance("width(tpr) < 0.05", n=sizes, design=split))
    timed("paired_assurance, 50 N up to ~5,000 (exact)",
          lambda: S.paired_assurance(sizes, 0.04, 0.07))
    timed("paired_power exact, 50 N", lambda: S.paired_power(sizes, 0.04, 0.07, method="exact"))
    design = split | {"tnr": bcm.Beta(95, 5)}
    timed("assurance 'ppv > 0.7' simulated, 10 N x 2000 sims x 1000 draws",
          lambda: S.assurance("ppv > 0.7", n=sizes[::5], design=design, random_seed=0))
    timed("required_n_claim 'tpr > 0.9' at 0.8",
          lambda: S.required_n_claim("tpr > 0.9", assurance=0.8, design=split))
    cm = {"tp": 40, "fn": 2, "tn": 50, "fp": 8}
    timed("sequential 'tpr > 0.9', 1,000 streams, 20 looks, 2 scenarios",
          lambda: S.sequential(cm, "tpr > 0.9", look_every=50, max_more=1000, n_streams=1000,
                               random_seed=0))
    timed("sequential 'b > a', 1,000 streams, 20 looks, 2 scenarios",
          lambda: S.sequential([85, 8, 12, 15], "b > a", look_every=50, max_more=1000,
                               n_streams=1000, random_seed=0))
    timed("sequential 'rope' (0.02), 1,000 streams, 20 looks, 2 scenarios",
          lambda: S.sequential([85, 8, 12, 15], "rope", rope=0.02, look_every=50,
                               max_more=1000, n_streams=1000, random_seed=0))


if __name__ == "__main__":
    main()
