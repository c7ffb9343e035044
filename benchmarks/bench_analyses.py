"""Timings of the analyses: sample-size sweep and plan, coverage batch, predictive, prevalence."""

import time

import numpy as np

import bayescm as bcm
from bayescm.analyses.predictive import posterior_predictive
from bayescm.analyses.prevalence import with_prevalence
from bayescm.analyses.samplesize import mu_at_power, plan
from bayescm.analyses.simulation import simulate
from bayescm.core.stats import hdi


def timed(label, func):
    start = time.perf_counter()
    out = func()
    print(f"{label:<55s} {time.perf_counter() - start:7.2f} s")
    return out


def main():
    n = np.unique(np.round(np.geomspace(10, 1e6, 50)).astype(int))
    mu = timed("mu_at_power, 50 sizes 10..1e6 x 4000 sims", lambda: mu_at_power(n, random_seed=0))
    print(f"  MU at N=100 (95 % power): {mu_at_power(100, random_seed=0):.4f}; "
          f"at N=1e6: {mu[-1]:.5f}")
    for target in (0.2, 0.05, 0.01, 0.001):
        res = timed(f"plan(mu={target})", lambda t=target: plan(t, random_seed=0))
        print(f"  n = {res.n} (rule 4/mu^2 = {res.rule_of_thumb}), MU reached {res.mu_reached:.5f}")

    def coverage():
        batch = simulate(400, size=1000, random_seed=7)
        idata = bcm.fit(batch, metrics=["bm"], draws=1000, chains=2, random_seed=8)
        bm = idata["posterior"]["bm"].transpose("classifier", "chain", "draw").values
        b = hdi(bm.reshape(1000, -1))
        return ((b[:, 0] <= 0.4) & (b[:, 1] >= 0.4)).mean()

    cov = timed("coverage: simulate + fit 1000 matrices (2 x 1000 draws)", coverage)
    print(f"  coverage of the 95 % HDI of BM: {cov:.3f}")
    cm = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    idata = bcm.fit(cm, random_seed=0)
    timed("posterior_predictive (20,000 draws, all metrics)",
          lambda: posterior_predictive(idata, random_seed=0))
    timed("with_prevalence(Beta) (20,000 draws, all metrics)",
          lambda: with_prevalence(idata, bcm.Beta(1, 99), random_seed=0))


if __name__ == "__main__":
    main()
