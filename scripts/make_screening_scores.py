"""Generate ``bayescm/data/screening_scores.csv``: a simulated screening study with two risk scores.

The package ships it so that the scores notebook and its tests run on a data set whose truth is
known. Nothing in it comes from patients: it is drawn from the model below with a fixed seed,
and is released with the package (public domain, CC0).

Model (600 people, prevalence 20 %): a latent severity ``t = 1.5 * disease + N(0, 1)``; two
scores read it with independent noise, the established score with more (``s = t + 0.8 e1``) than
the new one (``s = t + 0.45 e2``), so the two are correlated, as scores of one person are. Each
score is turned into a probability: the established one by its exact posterior probability of
disease (calibrated), rounded to 2 decimals (ties, as published scores have); the new one
over-confident (its log-odds 1.6 times too large), rounded to 3 decimals; neither is ever
exactly 0 or 1 (clipped to the smallest displayed value). True AUCs
``Phi(1.5 / sqrt(2 * v))`` with ``v`` the score's variance within a class: 0.796 (established)
and 0.833 (new); the true difference 0.037. The seed is the first of 1, 2, 3, ... whose
observed AUCs lie within one standard error of the truth, so that a teaching example is not
also a lesson in bad luck.

Run: ``.venv/bin/python scripts/make_screening_scores.py`` (writes the CSV; prints the true AUCs).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
from scipy.special import expit, logit
from scipy.stats import norm

N, PREVALENCE, SHIFT, SEED = 600, 0.2, 1.5, 1
NOISE = {"score_standard": 0.8, "score_new": 0.45}
OUT = Path(__file__).resolve().parents[1] / "bayescm" / "data" / "screening_scores.csv"


def true_auc(noise: float) -> float:
    """AUC of a score ``t + noise * e`` (binormal with equal variances ``1 + noise^2``)."""
    return float(norm.cdf(SHIFT / np.sqrt(2 * (1 + noise**2))))


def main() -> None:
    """Draw the study and write the CSV."""
    rng = np.random.default_rng(SEED)
    disease = rng.random(N) < PREVALENCE
    severity = SHIFT * disease + rng.normal(size=N)
    columns = {}
    for name, noise in NOISE.items():
        s = severity + noise * rng.normal(size=N)
        var = 1 + noise**2  # posterior log-odds of disease given s (equal-variance binormal)
        log_odds = logit(PREVALENCE) + (SHIFT * s - SHIFT**2 / 2) / var
        # displayed as a risk calculator would: rounded, and never exactly 0 or 1
        if name == "score_standard":
            columns[name] = np.clip(np.round(expit(log_odds), 2), 0.01, 0.99)
        else:
            columns[name] = np.clip(np.round(expit(1.6 * log_odds), 3), 0.001, 0.999)
    with OUT.open("w", newline="", encoding="ascii") as fh:
        writer = csv.writer(fh)
        writer.writerow(["person", "disease", *NOISE])
        for i in range(N):
            writer.writerow([i + 1, int(disease[i]), *(f"{columns[k][i]:g}" for k in NOISE)])
    for name, noise in NOISE.items():
        print(f"{name}: true AUC {true_auc(noise):.3f}")
    print(f"wrote {OUT} ({int(disease.sum())} of {N} with the disease)")


if __name__ == "__main__":
    main()
