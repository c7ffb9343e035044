"""Generate ``bayescm/data/subgroups.csv``: one screening classifier evaluated on six age groups.

The package ships it for the fairness example (gaps between subgroups, partial pooling). Nothing
in it comes from people: it is drawn from the model below with a fixed seed, and is released
with the package (public domain, CC0).

Model: a fixed number of people per age group; in group ``g`` each person has the condition
with probability ``prevalence_g``; the classifier flags a person with the condition with
probability ``TPR_g`` and one without it with probability ``FPR_g``. So, per group::

    positives ~ Binomial(n_g, prevalence_g)
    tp ~ Binomial(positives, TPR_g)            fn = positives - tp
    fp ~ Binomial(n_g - positives, FPR_g)      tn = n_g - positives - fp

The true rates (``n``, prevalence, TPR, FPR):

==========  =====  ==========  =====  =====
group         n    prevalence   TPR    FPR
==========  =====  ==========  =====  =====
under 18      40      0.00       --    0.05
18-29        700      0.10      0.85   0.08
30-44       1500      0.15      0.85   0.08
45-59       1100      0.20      0.85   0.10
60-74        500      0.25      0.70   0.12
75+           12      0.25      0.85   0.08
==========  =====  ==========  =====  =====

What it teaches: "60-74" has a real TPR gap of -15 percentage points to the largest group
("30-44": equal opportunity fails there) and a small FPR gap; "75+" is tiny (a handful of
people, so its rates rest mostly on the prior or, in a hierarchical fit, on the other groups);
"under 18" has no positives at all (the condition does not occur before 18 in this model), so
its TPR is not observed. The selection rates differ mostly because the prevalences do, which
shows why the four-fifths rule (a ratio of selection rates) can fail for an accurate
classifier.

Run: ``.venv/bin/python scripts/make_subgroups.py`` (writes the CSV and prints it).
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

SEED = 15
GROUPS = {  # name: (n, prevalence, TPR, FPR)
    "under 18": (40, 0.0, 0.85, 0.05),
    "18-29": (700, 0.10, 0.85, 0.08),
    "30-44": (1500, 0.15, 0.85, 0.08),
    "45-59": (1100, 0.20, 0.85, 0.10),
    "60-74": (500, 0.25, 0.70, 0.12),
    "75+": (12, 0.25, 0.85, 0.08),
}
OUT = Path(__file__).resolve().parents[1] / "bayescm" / "data" / "subgroups.csv"


def draw(seed: int = SEED) -> list[tuple[str, int, int, int, int]]:
    """One draw of the study: ``(group, tp, fn, fp, tn)`` per group, in the table's order."""
    rng = np.random.default_rng(seed)
    rows = []
    for name, (n, prevalence, tpr, fpr) in GROUPS.items():
        positives = int(rng.binomial(n, prevalence))
        tp = int(rng.binomial(positives, tpr))
        fp = int(rng.binomial(n - positives, fpr))
        rows.append((name, tp, positives - tp, fp, n - positives - fp))
    return rows


def main() -> None:
    """Draw the study and write the CSV."""
    rows = draw()
    with OUT.open("w", newline="", encoding="ascii") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(["group", "tp", "fn", "fp", "tn"])
        writer.writerows(rows)
    for name, tp, fn, fp, tn in rows:
        tpr = f"{tp / (tp + fn):.3f}" if tp + fn else "  -  "
        print(f"{name:>9}: tp={tp:4d} fn={fn:4d} fp={fp:4d} tn={tn:5d}  TPR {tpr}  "
              f"FPR {fp / (fp + tn):.3f}")
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
