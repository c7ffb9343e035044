"""Coverage of the Hui-Walter model's 95 % HDIs over simulated data sets (issue 31 part 2).

Usage: ``python benchmarks/latent_coverage.py [reps] [scenario ...]`` (default 200 data sets
per scenario, every scenario); writes ``benchmarks/latent_coverage_table.md``.

The truth is fixed per scenario and the subjects are drawn anew for each data set (pattern
counts ~ multinomial with the model's cell probabilities); each data set is fitted with the
default (flat) priors by the model ``bcm.fit`` samples
(:func:`~bayescm.models.hui_walter_build.build_hui_walter_model`), compiled once per scenario
and refitted with nutpie's ``with_data`` (2 chains x 500 draws after 500 tuning steps). A
parameter is covered when bayescm's 95 % HDI holds its true value. Frequentist coverage of a
Bayesian interval under flat priors is not guaranteed to be 95 %: the table reports it as
measured (with its Monte Carlo standard error) so departures are seen, not hidden.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

SCENARIOS: dict[str, dict[str, Any]] = {
    # the classic design: two tests, two populations of different prevalence
    "two tests, two populations": dict(prev=(0.1, 0.6), n=(500, 500), tpr=(0.9, 0.85),
                                       tnr=(0.95, 0.9)),
    # three tests in two populations, moderate prevalence
    "three tests, two populations": dict(prev=(0.2, 0.5), n=(300, 300), tpr=(0.9, 0.8, 0.85),
                                         tnr=(0.95, 0.9, 0.85)),
    # a rare disease: 2 % and 5 %, about 70 diseased among 2,000 subjects
    "rare disease (2 % and 5 %)": dict(prev=(0.02, 0.05), n=(1000, 1000),
                                       tpr=(0.9, 0.8, 0.85), tnr=(0.98, 0.95, 0.97)),
}
LEVEL = 0.95


def coverage(name: str, reps: int = 200, seed: int = 0) -> dict[str, Any]:
    """Coverage of every parameter's 95 % HDI over ``reps`` simulated data sets of a scenario.

    Returns a dict with ``hits`` (parameter label -> share covered), ``width`` (mean HDI
    width), ``divergent`` (fits with a divergence), ``reps`` and ``seconds``.
    """
    import nutpie

    import bayescm as bcm
    from bayescm.core.stats import hdi
    from bayescm.models.hui_walter_build import build_hui_walter_model, pattern_probabilities

    s = SCENARIOS[name]
    prev, tpr, tnr = (np.asarray(s[k], dtype=float) for k in ("prev", "tpr", "tnr"))
    n_t = len(tpr)
    tests = [f"t{j + 1}" for j in range(n_t)]
    pi = pattern_probabilities(prev, tpr, tnr)
    rng = np.random.default_rng(seed)
    first = np.stack([rng.multinomial(n, p) for n, p in zip(s["n"], pi, strict=True)])
    results = bcm.TestResults.from_counts(first, tests=tests)
    model = build_hui_walter_model(results, {})
    compiled = nutpie.compile_pymc_model(model, initial_points={
        "tnr_unit": np.full(n_t, 0.85), "tpr_share": np.full(n_t, 0.8)})
    truth = {**{f"prevalence[{p}]": v for p, v in enumerate(prev)},
             **{f"tpr[{t}]": v for t, v in zip(tests, tpr, strict=True)},
             **{f"tnr[{t}]": v for t, v in zip(tests, tnr, strict=True)}}
    hits = dict.fromkeys(truth, 0)
    width = dict.fromkeys(truth, 0.0)
    divergent = 0
    t0 = time.perf_counter()
    for rep in range(reps):
        counts = first if rep == 0 else np.stack(
            [rng.multinomial(n, p) for n, p in zip(s["n"], pi, strict=True)])
        trace = nutpie.sample(compiled.with_data(counts=counts), draws=500, tune=500,
                              chains=2, seed=seed * 100_003 + rep, progress_bar=False,
                              target_accept=0.9)
        post = trace["posterior"]
        divergent += int(trace["sample_stats"]["diverging"].sum()) > 0
        for label, value in truth.items():
            var, idx = label.split("[")
            idx = idx.rstrip("]")
            arr = post[var].values.reshape(-1, post[var].shape[-1])
            j = int(idx) if var == "prevalence" else tests.index(idx)
            lo, hi = hdi(arr[:, j], LEVEL)
            hits[label] += bool(lo <= value <= hi)
            width[label] += (hi - lo) / reps
    return {"hits": {k: v / reps for k, v in hits.items()}, "width": width,
            "divergent": divergent, "reps": reps, "seconds": time.perf_counter() - t0}


def table(results: dict[str, dict[str, Any]]) -> str:
    """The markdown table of :func:`coverage` results."""
    lines = ["| scenario | parameter | truth | coverage of the 95 % HDI | MC s.e. | mean width |",
             "|---|---|---|---|---|---|"]
    for name, res in results.items():
        s = SCENARIOS[name]
        truth = {**{f"prevalence[{p}]": v for p, v in enumerate(s["prev"])},
                 **{f"tpr[t{j + 1}]": v for j, v in enumerate(s["tpr"])},
                 **{f"tnr[t{j + 1}]": v for j, v in enumerate(s["tnr"])}}
        for label, c in res["hits"].items():
            se = np.sqrt(c * (1 - c) / res["reps"]) if 0 < c < 1 else 0.0
            lines.append(f"| {name} | {label} | {truth[label]:g} | {c:.3f} | {se:.3f} | "
                         f"{res['width'][label]:.3f} |")
    return "\n".join(lines)


def main(reps: int, names: list[str]) -> None:
    """Run the scenarios, print and write the table."""
    load = os.getloadavg()[0]
    results = {}
    for name in names:
        results[name] = coverage(name, reps)
        r = results[name]
        print(f"{name}: {r['reps']} data sets in {r['seconds']:.0f} s, "
              f"{r['divergent']} with divergences; coverage {r['hits']}", flush=True)
    text = (f"# Hui-Walter coverage ({reps} simulated data sets per scenario)\n\n"
            "Written by `benchmarks/latent_coverage.py` (flat priors; 2 chains x 500 draws; "
            f"load average {load:.2f} -> {os.getloadavg()[0]:.2f}).\n\n" + table(results) + "\n")
    out = Path(__file__).with_name("latent_coverage_table.md")
    out.write_text(text, encoding="utf-8")
    print(text)


if __name__ == "__main__":
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 200
    main(n, sys.argv[2:] or list(SCENARIOS))
