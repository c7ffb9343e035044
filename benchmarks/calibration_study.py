"""What the ECE posterior and its calibrated reference can and cannot tell (issue 28).

Simulated risk scores s ~ Beta(2, 3) with true event probabilities
``P(y = 1 | s) = expit(a + b logit s)``: calibrated (a = 0, b = 1) and miscalibrated (slopes
0.6 and 1.4, intercepts -0.5 and +0.5). For each scenario and test-set size, ``reps`` data sets
are fitted with ``bcm.fit(bcm.Scores(y, s))`` (10 bins; the reliability curve and the ECE are
the same under both nonparametric methods), and counted:

* ``covers``: the 95 % HDI of ``ece`` contains the true binned ECE (the ECE of the true
  probabilities in the same 10 bins, over the score distribution);
* ``flag_post``: ``P(ece > ece_reference) > 0.95`` (the comparison the docs describe);
* ``flag_test``: the observed plug-in ECE exceeds the 95th percentile of the plug-in ECE of
  labels drawn from the scores themselves (a calibrated classifier), 2,000 such label sets: a
  test with 5 % false alarms by construction.

Run: ``.venv/bin/python benchmarks/calibration_study.py --reps 200 --out
benchmarks/calibration_table.md`` (``--out`` rewrites the file's ``ece`` or ``recalibration``
section only, with the date, the load and the command line: :mod:`sections`).

``--recalibration``: the coverage of the logistic recalibration model instead
(``method="calibration"``, issue 32). Risks s ~ Beta(2, 3), labels from
``expit(a + b logit s)`` for every slope b in (0.6, 1, 1.4) and intercept a in (-0.5, 0, 0.5);
each data set is fitted (2 chains x 500 draws) and counted: the 95 % HDIs of
``calibration_intercept`` and ``calibration_slope`` contain a and b, and the pointwise 95 % HDI
of ``calibration_curve`` contains the true curve ``expit(a + b logit p)`` at p = 0.1, 0.3, 0.5.
Run: ``.venv/bin/python benchmarks/calibration_study.py --recalibration --reps 100 --sizes 500``
"""

from __future__ import annotations

import argparse
import datetime
import os
import shlex
import sys
import time
import warnings

import numpy as np
from scipy import special
from sections import write_section

import bayescm as bcm
from bayescm.core.stats import hdi

SCENARIOS = {"calibrated": (0.0, 1.0), "slope 0.6": (0.0, 0.6), "slope 1.4": (0.0, 1.4),
             "intercept -0.5": (-0.5, 1.0), "intercept +0.5": (0.5, 1.0)}
BINS = 10


def true_ece(a: float, b: float, rng: np.random.Generator, m: int = 400_000) -> float:
    s = rng.beta(2, 3, m)
    p = special.expit(a + b * special.logit(s))
    bins = np.minimum((s * BINS).astype(int), BINS - 1)
    count = np.bincount(bins, minlength=BINS)
    rate = np.bincount(bins, weights=p, minlength=BINS) / count
    conf = np.bincount(bins, weights=s, minlength=BINS) / count
    return float(np.abs(rate - conf) @ (count / m))


def plug_in(y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Plug-in ECE of label sets ``y`` (rows) on the scores ``s``."""
    bins = np.minimum((s * BINS).astype(int), BINS - 1)
    onehot = np.eye(BINS)[bins]
    count = onehot.sum(axis=0)
    used = count > 0
    rate = (np.atleast_2d(y).astype(float) @ onehot)[:, used] / count[used]
    conf = (s @ onehot)[used] / count[used]
    return np.abs(rate - conf) @ (count[used] / s.size)


def run(n: int, a: float, b: float, reps: int, rng: np.random.Generator) -> dict[str, float]:
    truth = true_ece(a, b, rng)
    out = {"covers": 0, "flag_post": 0, "flag_test": 0, "mean_ece": 0.0, "truth": truth}
    for _ in range(reps):
        s = rng.beta(2, 3, n)
        y = rng.random(n) < special.expit(a + b * special.logit(s))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = bcm.fit(bcm.Scores(y, s), draws=1000, random_seed=int(rng.integers(2**31)))
        ece = fit["posterior"]["ece"].values.ravel()
        ref = fit["posterior"]["ece_reference"].values.ravel()
        lo, hi = hdi(ece, 0.95)
        out["covers"] += lo <= truth <= hi
        out["flag_post"] += float(np.mean(ece > ref)) > 0.95
        calibrated = plug_in(rng.random((2000, n)) < s, s)
        out["flag_test"] += float(plug_in(y, s)[0]) > np.quantile(calibrated, 0.95)
        out["mean_ece"] += float(ece.mean())
    for k in ("covers", "flag_post", "flag_test", "mean_ece"):
        out[k] /= reps
    return out


RECALIBRATION = [(a, b) for b in (0.6, 1.0, 1.4) for a in (-0.5, 0.0, 0.5)]
CURVE_AT = (0.1, 0.3, 0.5)


def recalibration_run(n: int, a: float, b: float, reps: int, rng: np.random.Generator
                      ) -> dict[str, float]:
    """Coverage of the recalibration model's intercept, slope and curve (see the module)."""
    out = {"intercept": 0.0, "slope": 0.0, "curve": 0.0, "mean_slope": 0.0}
    true_curve = special.expit(a + b * special.logit(np.array(CURVE_AT)))
    for _ in range(reps):
        s = rng.beta(2, 3, n)
        y = rng.random(n) < special.expit(a + b * special.logit(s))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            fit = bcm.fit(bcm.Scores(y, s), method="calibration", draws=500, chains=2,
                          random_seed=int(rng.integers(2**31)))
        post = fit["posterior"]
        for key, name, truth in (("intercept", "calibration_intercept", a),
                                 ("slope", "calibration_slope", b)):
            lo, hi = hdi(post[name].values.ravel(), 0.95)
            out[key] += lo <= truth <= hi
        curve = post["calibration_curve"].sel(risk=list(CURVE_AT), method="nearest")
        rows = curve.values.reshape(-1, len(CURVE_AT))
        out["curve"] += float(np.mean([hdi(rows[:, j], 0.95)[0] <= true_curve[j]
                                       <= hdi(rows[:, j], 0.95)[1]
                                       for j in range(len(CURVE_AT))]))
        out["mean_slope"] += float(post["calibration_slope"].mean())
    return {k: v / reps for k, v in out.items()}


def recalibration_main(sizes: list[int], reps: int) -> list[str]:
    rng = np.random.default_rng(2032)
    lines = ["| slope | intercept | n | intercept HDI covers | slope HDI covers | curve HDI covers "
             "(p = 0.1, 0.3, 0.5) | posterior mean slope |", "|---|---|---|---|---|---|---|"]
    print("\n".join(lines))
    for n in sizes:
        for a, b in RECALIBRATION:
            r = recalibration_run(n, a, b, reps, rng)
            lines.append(f"| {b:g} | {a:+g} | {n} | {r['intercept']:.2f} | {r['slope']:.2f} | "
                         f"{r['curve']:.2f} | {r['mean_slope']:.2f} |")
            print(lines[-1], flush=True)
    return lines


def ece_main(sizes: list[int], reps: int) -> list[str]:
    rng = np.random.default_rng(2026)
    lines = ["| scenario | n | true ECE | posterior mean | HDI covers | P(ece > ref) > 0.95 "
             "| calibration test at 5 % |", "|---|---|---|---|---|---|---|"]
    print("\n".join(lines))
    for n in sizes:
        for name, (a, b) in SCENARIOS.items():
            r = run(n, a, b, reps, rng)
            lines.append(f"| {name} | {n} | {r['truth']:.3f} | {r['mean_ece']:.3f} | "
                         f"{r['covers']:.2f} | {r['flag_post']:.2f} | {r['flag_test']:.2f} |")
            print(lines[-1], flush=True)
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=200)
    parser.add_argument("--sizes", type=int, nargs="+", default=[300, 1000])
    parser.add_argument("--recalibration", action="store_true",
                        help="the coverage of method='calibration' (intercept, slope, curve)")
    parser.add_argument("--out", help="a markdown file whose section this run rewrites")
    args = parser.parse_args()
    load, start = os.getloadavg()[0], time.time()
    study = recalibration_main if args.recalibration else ece_main
    lines = study(args.sizes, args.reps)
    command = " ".join(shlex.quote(a) for a in sys.argv[1:])
    footer = (f"{args.reps} data sets per row. Run {datetime.date.today().isoformat()} on "
              f"{os.cpu_count()} cores, load average {load:.1f} at the start and "
              f"{os.getloadavg()[0]:.1f} at the end, {time.time() - start:.0f} s: "
              f"`.venv/bin/python benchmarks/calibration_study.py {command}`.")
    print("\n" + footer)
    if args.out:
        title = ("### Recalibration model (`method=\"calibration\"`): coverage"
                 if args.recalibration else
                 "### ECE posterior and its calibrated reference (issue 28)")
        write_section(args.out, "recalibration" if args.recalibration else "ece",
                      "\n".join([title, "", "See the docstring of "
                                  "`benchmarks/calibration_study.py` for the scenarios and "
                                  "columns.", "", *lines, "", footer]))


if __name__ == "__main__":
    main()
