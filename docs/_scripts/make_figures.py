"""Figures of the documentation site, drawn before each build by ``docs/conf.py``.

* ``landing.png``: the paper's cocaine-purity classifier (TP 26, FN 0, TN 6, FP 2): the
  posteriors of four metrics with their 95 % HDI, MU and observed value (landing page);
* ``closed_form.png``: the exact sampler's TPR and TNR draws against the closed-form Beta
  densities (validation page);
* ``sbc.png``: simulation-based calibration of the binary model, the ranks of the true values
  (validation page);
* ``sample_size.png``: the simulated MU at 95 % power against N with the 2 / sqrt(N) rule
  (validation and user-guide pages);
* ``ci_figures.md``: a gallery of the figures CI wrote in its last slow run
  (``ci-output/figures``, copied by conf.py) or a sentence saying there are none.

Everything is seeded, so a rebuild draws the same figures. About 4 s on a 2-core machine.
"""

from __future__ import annotations

import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
from scipy import stats

import bayescm as bcm
from bayescm import plots, samplesize

COCAINE = {"tp": 26, "fn": 0, "tn": 6, "fp": 2}


def landing(out: Path) -> None:
    idata = bcm.fit(bcm.ConfusionMatrix.from_counts(**COCAINE), random_seed=1)
    fig = plots.plot_metrics(idata, ["tpr", "tnr", "ppv", "bm"], ncols=4, figsize=(11, 2.8))
    fig.savefig(out / "landing.png", dpi=110, bbox_inches="tight")
    plt.close(fig)


def closed_form(out: Path) -> None:
    idata = bcm.fit(bcm.ConfusionMatrix.from_counts(**COCAINE), random_seed=1)
    fig, axes = plt.subplots(1, 2, figsize=(8, 2.8), layout="constrained")
    x = np.linspace(0.001, 0.999, 500)
    for ax, var, (a, b) in zip(axes, ["tpr", "tnr"],
                               [(1 + 26, 1 + 0), (1 + 6, 1 + 2)], strict=True):
        draws = idata["posterior"][var].values.ravel()
        ax.hist(draws, bins=60, density=True, color="#88CCEE", label="exact draws")
        ax.plot(x, stats.beta(a, b).pdf(x), color="#332288", lw=1.5,
                label=f"Beta({a}, {b}) density")
        ax.set_title(var.upper())
        ax.set_xlabel("value")
        ax.legend(fontsize=8, loc="upper left")
    axes[0].set_ylabel("density")
    fig.savefig(out / "closed_form.png", dpi=110)
    plt.close(fig)


def sbc(out: Path, n_sims: int = 2000, n_draws: int = 99, n_test: int = 30) -> None:
    rng = np.random.default_rng(10)
    truth = {p: rng.beta(1, 1, n_sims) for p in ("prevalence", "tpr", "tnr")}
    n_pos = rng.binomial(n_test, truth["prevalence"])
    tp = rng.binomial(n_pos, truth["tpr"])
    tn = rng.binomial(n_test - n_pos, truth["tnr"])
    mats = {str(i): bcm.ConfusionMatrix.from_counts(tp=int(tp[i]), fn=int(n_pos[i] - tp[i]),
                                                    tn=int(tn[i]),
                                                    fp=int(n_test - n_pos[i] - tn[i]))
            for i in range(n_sims)}
    post = bcm.fit(mats, draws=n_draws, chains=1, metrics=["bm"], random_seed=11)["posterior"]
    truth["bm"] = truth["tpr"] + truth["tnr"] - 1
    fig, axes = plt.subplots(1, 4, figsize=(11, 2.5), layout="constrained", sharey=True)
    for ax, (name, value) in zip(axes, truth.items(), strict=True):
        ranks = (post[name].values[0] < value[None, :]).sum(axis=0)
        ax.hist(ranks, bins=np.arange(0, n_draws + 2, 10), color="#88CCEE", edgecolor="white")
        expected = n_sims * 10 / (n_draws + 1)
        band = stats.binom(n_sims, 10 / (n_draws + 1)).ppf([0.005, 0.995])
        ax.axhspan(*band, color="0.85", zorder=0, label="99 % band if uniform")
        ax.axhline(expected, color="0.4", lw=1)
        ax.set_title(name.upper() if name != "prevalence" else "Prevalence")
        ax.set_xlabel(f"rank of the truth among {n_draws} draws")
    axes[0].set_ylabel("simulations")
    axes[0].legend(fontsize=8, loc="lower left")
    fig.savefig(out / "sbc.png", dpi=110)
    plt.close(fig)


def sample_size(out: Path) -> None:
    sizes = np.unique(np.round(np.geomspace(10, 100_000, 17)).astype(int))
    mu = samplesize.mu_at_power(sizes, n_sims=1000, random_seed=0)
    ax = plots.plot_sample_size({"n": sizes, "mu": mu}, figsize=(6, 3.2))
    ax.figure.savefig(out / "sample_size.png", dpi=110, bbox_inches="tight")
    plt.close(ax.figure)


def ci_gallery(out: Path) -> None:
    ci = out / "ci"
    pngs = sorted(ci.glob("*.png")) if ci.is_dir() else []
    if not pngs:
        text = ("No figures from a CI run were found when this site was built (CI writes them "
                "to `ci-output/figures/` in its slow run, before it builds the site).\n")
    else:
        lines = [f"{len(pngs)} figures, written by `tests/test_figures.py` in the slow run "
                 "that preceded this build:\n"]
        for png in pngs:
            lines += [f":::{{figure}} /_generated/ci/{png.name}", ":width: 45%", "",
                      f"`{png.stem}`", ":::", ""]
        text = "\n".join(lines)
    (out / "ci_figures.md").write_text(text, encoding="utf-8")


def main(out: Path) -> None:
    """Draw every figure into ``out`` (made if missing) and write the CI gallery's page."""
    out.mkdir(parents=True, exist_ok=True)
    for draw in (landing, closed_form, sbc, sample_size, ci_gallery):
        draw(out)


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parents[1] / "_generated")
