"""Generate ``bayescm/data/eval_log.csv``: a simulated item-level LLM evaluation log.

No public item-level log with repeated attempts ships inside a package on the registries this
project can reach (inspect-ai, inspect-evals and lm-eval bundle datasets and summary headers,
not per-sample scores), so the package ships this simulated one. It mimics the structure of a
GPQA-Diamond run: 198 multiple-choice questions in 3 domains and 16 subdomains (the clusters),
every question answered 5 times ("epochs") by each of 3 systems. Nothing in it comes from a real
model; it is drawn from the model below with a fixed seed and released with the package (CC0).

Model (logit scale)::

    logit p[s, i] = mu[s] + u[subdomain(i)] + v[i] + w[s, i]
    u ~ Normal(0, 0.5)    v ~ Normal(0, 2.6)    w ~ Normal(0, 1.0)
    correct[s, i, attempt] ~ Bernoulli(p[s, i])

with ``mu = (-0.6, 0.1, 0.9)`` for systems ``model_a``, ``model_b``, ``model_c``: accuracies on a
new question of about 0.44, 0.51 and 0.60, and a design effect of repeated attempts of about 3
(a public GPQA-Diamond log with 5 epochs shows about 3.4): questions are mostly known or not
known, so the 5 attempts of one question agree and 990 attempts carry the information of about
300.

Run ``python scripts/make_eval_log.py`` to rewrite the file (the same bytes every time).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit

SEED = 20260530
SYSTEMS = {"model_a": -0.6, "model_b": 0.1, "model_c": 0.9}
SD = {"subdomain": 0.5, "question": 2.6, "system_question": 1.0}
DOMAINS = {"physics": ["astrophysics", "electromagnetism", "quantum mechanics",
                       "relativity", "condensed matter", "optics"],
           "chemistry": ["organic", "inorganic", "physical chemistry", "analytical",
                         "general chemistry"],
           "biology": ["molecular biology", "genetics", "biochemistry", "ecology",
                       "cell biology"]}
QUESTIONS, ATTEMPTS = 198, 5


def make(seed: int = SEED) -> pd.DataFrame:
    """The log: one row per (question, system, attempt)."""
    rng = np.random.default_rng(seed)
    subdomains = [(d, s) for d, subs in DOMAINS.items() for s in subs]
    weights = rng.dirichlet(np.full(len(subdomains), 4.0))
    cluster = np.sort(rng.choice(len(subdomains), QUESTIONS, p=weights))
    u = rng.normal(0, SD["subdomain"], len(subdomains))
    v = rng.normal(0, SD["question"], QUESTIONS)
    frames = []
    for name, mu in SYSTEMS.items():
        p = expit(mu + u[cluster] + v + rng.normal(0, SD["system_question"], QUESTIONS))
        y = rng.random((ATTEMPTS, QUESTIONS)) < p
        frames.append(pd.DataFrame({
            "question": np.tile([f"gpqa_{i:03d}" for i in range(QUESTIONS)], ATTEMPTS),
            "domain": np.tile([subdomains[c][0] for c in cluster], ATTEMPTS),
            "subdomain": np.tile([subdomains[c][1] for c in cluster], ATTEMPTS),
            "model": name,
            "epoch": np.repeat(np.arange(1, ATTEMPTS + 1), QUESTIONS),
            "correct": y.reshape(-1).astype(int)}))
    return pd.concat(frames, ignore_index=True)


if __name__ == "__main__":
    out = Path(__file__).resolve().parents[1] / "bayescm" / "data" / "eval_log.csv"
    make().to_csv(out, index=False, lineterminator="\n")
    print(f"wrote {out.name}")
