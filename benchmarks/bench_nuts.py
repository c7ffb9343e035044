"""NUTS on the binary model: PyMC's own sampler against nutpie (issue 13, point 6).

The cocaine matrix (TP 26, FN 0, TN 6, FP 2, Laplace priors), 4 chains x 1,000 draws after
1,000 tuning steps, through the public API as a user calls it::

    bcm.fit(cm, method="nuts", draws=1000, chains=4, random_seed=seed)                 # PyMC
    bcm.fit(cm, method="nuts", draws=1000, chains=4, random_seed=seed, nuts_sampler="nutpie")

Every round starts a fresh Python process per sampler (alternating), imports bayescm and pymc
untimed, then times the first fit (``cold``: building the model, compiling the log density and
its gradient -- C for PyMC, numba for nutpie -- and sampling) and a second fit in the same
process (``warm``). Compilers' on-disk caches are left as they are, as on a user's machine
after the first use. Medians of ``--rounds`` rounds (default 3).

Run: ``.venv/bin/python benchmarks/bench_nuts.py [--rounds 3]``
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys

CHILD = r"""
import json, sys, time, warnings
import numpy as np
import bayescm as bcm
import pymc  # noqa: F401  (imported untimed: the import is not the sampler's cost)

sampler = sys.argv[1]
cm = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
extra = {} if sampler == "pymc" else {"nuts_sampler": sampler}
out = {}
for label, seed in (("cold", 1), ("warm", 2)):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        start = time.perf_counter()
        tree = bcm.fit(cm, method="nuts", draws=1000, chains=4, random_seed=seed, **extra)
        out[label] = time.perf_counter() - start
stats = tree["sample_stats"]
out["divergences"] = int(stats["diverging"].sum())
out["ess_bulk_tpr"] = float(bcm.summary(tree, var_names=["tpr"])["ess_bulk"].iloc[0])
out["library"] = str(stats.attrs.get("inference_library", "pymc"))
print(json.dumps(out))
"""


def run_child(sampler: str) -> dict[str, float]:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    done = subprocess.run([sys.executable, "-c", CHILD, sampler], capture_output=True,
                          text=True, check=True, env=env)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="fresh processes per sampler")
    args = parser.parse_args()
    samplers = ["pymc"]
    if importlib.util.find_spec("nutpie") is None:
        print("nutpie is not installed (pip install 'bayescm[nutpie]'): timing PyMC only.")
    else:
        samplers.append("nutpie")
    runs: dict[str, list[dict[str, float]]] = {s: [] for s in samplers}
    for r in range(args.rounds):
        for s in samplers if r % 2 == 0 else samplers[::-1]:
            runs[s].append(run_child(s))
            print(f"round {r + 1} {s}: " + ", ".join(f"{k} {v:.2f}" if isinstance(v, float)
                                                     else f"{k} {v}"
                                                     for k, v in runs[s][-1].items()),
                  flush=True)
    print()
    print(f"NUTS, binary model (cocaine matrix), 4 x 1,000 draws + 1,000 tune, "
          f"medians of {args.rounds} fresh processes, {os.cpu_count()} cores")
    print()
    print("| sampler | first fit in a process (compiles) | second fit | divergences | "
          "bulk ESS (TPR) |")
    print("|---|---|---|---|---|")
    for s in samplers:
        med = {k: statistics.median(run[k] for run in runs[s])
               for k in ("cold", "warm", "divergences", "ess_bulk_tpr")}
        print(f"| {s} | {med['cold']:.2f} s | {med['warm']:.2f} s | {med['divergences']:.0f} | "
              f"{med['ess_bulk_tpr']:.0f} |")


if __name__ == "__main__":
    main()
