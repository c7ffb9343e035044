"""The facts, allowed numbers and not-yet-traced numbers of ``tests/test_site_numbers.py``.

A fact ties a number the site's prose states to a Python expression that computes it from
bayescm; an allowed number is not a result (a definition, a chosen size), with its reason.
Snippets are the page's prose as the test reads it: inline code, math and links blanked to a
space, whitespace collapsed to one space.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class Fact:
    """A prose number and how the code computes it."""

    page: str
    snippet: str
    number: str
    compute: Callable[[], float]
    why: str
    percent: bool = False
    math: bool = False
    """The snippet is in the page's math (read from the page's text, whitespace collapsed):
    a prior written as a formula."""


def _row(name: str, k: int, row: int = 0):
    """What the named preset puts on row ``row`` of K classes' rates (its Dirichlet)."""
    return _preset(name).concentration(k, "rates")[row]


def _weak_row(k: int):
    return _row("Weak", k)


def _from_interval_mass(lower: float, upper: float) -> float:
    """The mass ``Beta.from_interval(lower, upper)`` puts between them."""
    from scipy import stats

    import bayescm as bcm

    prior = bcm.Beta.from_interval(lower, upper)
    dist = stats.beta(prior.alpha, prior.beta)
    return float(dist.cdf(upper) - dist.cdf(lower))


def _for_every_k(value: Callable[[int], float]) -> float:
    """``value(K)`` if it is the same for K = 3, 5 and 10 (a claim 'whatever K'), else NaN."""
    values = {round(float(value(k)), 12) for k in (3, 5, 10)}
    return values.pop() if len(values) == 1 else float("nan")


def _same(*values: float) -> float:
    """The common value of a symmetric prior's parameters (NaN when they differ)."""
    return float(values[0]) if len(set(map(float, values))) == 1 else float("nan")


def _preset(name: str):
    from bayescm import priors

    return getattr(priors, name)()


def _beta_hdi(a: float, b: float, end: int) -> float:
    from bayescm.core.betahdi import beta_hdi

    return float(beta_hdi(a, b, 0.95)[end])


@cache
def _paper_row(ident: str) -> dict:
    from bayescm.io.datasets import literature_table

    return next(r for r in literature_table() if r["id"] == ident)


def _p_deceptive(ident: str) -> float:
    """P(BM < 0) under Laplace priors, exactly: TPR and TNR are independent Betas."""
    from scipy import integrate, stats

    r = _paper_row(ident)
    tpr = stats.beta(1 + r["tp"], 1 + r["fn"])
    tnr = stats.beta(1 + r["tn"], 1 + r["fp"])
    return integrate.quad(lambda x: tpr.pdf(x) * tnr.cdf(1 - x), 0, 1)[0]


def _cocaine():
    import bayescm as bcm

    return bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)


@cache
def _wordle_acc(prior: str) -> tuple[float, float, float]:
    """Wordle's posterior accuracy (mean, HDI ends) under a prior, the seed the README used."""
    import warnings

    import bayescm as bcm
    from bayescm.io.datasets import wordle

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the small class's warnings are the README's point
        idata = bcm.fit(wordle(), prior=prior, random_seed=1)
    row = bcm.summary(idata, var_names=["acc"]).loc["acc"]
    return float(row["mean"]), float(row["hdi_lower"]), float(row["hdi_upper"])


def _wordle():
    from bayescm.io.datasets import wordle

    return wordle()


def _preset_attr(name: str, attr: str) -> float:
    from bayescm.plots._style import PRESETS

    return float(getattr(PRESETS[name], attr))


def _default_text(which: str) -> float:
    """The default preset's text size (legend, label or title): the legend's is the smallest
    text (``MIN_FONT``); the others are read back from the sizes a scaled preset's style sets
    (two_column's scale keeps them above its floor)."""
    import matplotlib as mpl

    import bayescm as bcm
    from bayescm.plots._style import MIN_FONT, PRESETS, preset_style

    if which == "legend":
        return MIN_FONT
    key = {"legend": "legend.fontsize", "label": "axes.labelsize", "title": "axes.titlesize"}
    with bcm.rc_context(plot_preset="two_column"), preset_style():
        size = float(mpl.rcParams[key[which]])
    return size / PRESETS["two_column"].scale


def _roc_concentration() -> float:
    from bayescm.models.roc_dp import CONCENTRATION

    return CONCENTRATION


@cache
def _coverage_table() -> str:
    """benchmarks/coverage_table.md's text."""
    from pathlib import Path

    return (Path(__file__).resolve().parents[1] / "benchmarks" / "coverage_table.md").read_text(
        encoding="utf-8")


def _pool(values: list[float], how: str) -> float:
    return {"mean": sum(values) / len(values), "min": min(values), "max": max(values)}[how]


def _auc_coverage_rows() -> list[dict]:
    """The AUC section of benchmarks/coverage_table.md, one dict per simulated case."""
    import re

    section = _coverage_table().split("### AUC of scores")[1].split("Paired comparison")[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 10 and re.fullmatch(r"[\d,]+", cells[2]):
            rows.append({"truth": cells[0], "prevalence": float(cells[1]),
                         "n": int(cells[2].replace(",", "")), "auc": float(cells[3]),
                         "bootstrap": float(cells[7].split()[0]),
                         "default": float(cells[8].split()[0]), "ratio": float(cells[9]),
                         "separated": float(cells[5])})
    return rows


_AUC_GROUPS = {"low": (0.6, 0.75), "high": (0.9, 0.98, 0.99)}


def _pooled_coverage(n: int, group: str, method: str, how: str = "mean") -> float:
    """The scores page's pooled coverage: the mean (or range) over the table's cases."""
    values = [r[method] for r in _auc_coverage_rows()
              if r["n"] == n and r["auc"] in _AUC_GROUPS[group]]
    return _pool(values, how)


def _concentration_values(ns: tuple[int, ...], group: str, concentration: str) -> list[float]:
    """The default's AUC coverage at a Dirichlet-process concentration: one value per case of
    coverage_table.md's auc-concentration section with n in ``ns`` and an AUC of ``group``."""
    section = _coverage_table().split("<!-- section: auc-concentration -->")[1].split(
        "<!-- end:")[0]
    lines = [line for line in section.splitlines() if line.startswith("| ")]
    header = [c.strip() for c in lines[0].strip("| ").split("|")]
    column = header.index(f"concentration {concentration}")
    values = []
    for line in lines[1:]:
        cells = [c.strip() for c in line.strip("| ").split("|")]
        if int(cells[2].replace(",", "")) in ns and float(cells[3]) in _AUC_GROUPS[group]:
            values.append(float(cells[column].split()[0]))
    return values


def _concentration_coverage(n: int, group: str, concentration: str, how: str = "mean"
                            ) -> float:
    """The mean (or range) of :func:`_concentration_values` at one test-set size."""
    return _pool(_concentration_values((n,), group, concentration), how)


def _pooled_facts() -> list[Fact]:
    """One fact per number of the scores page's pooled-coverage table."""
    facts = []
    for n, cells in _POOLED.items():
        row = f"| {n:,} | " + " | ".join(cells) + " |"
        for cell, (group, method) in zip(cells, [("low", "bootstrap"), ("low", "default"),
                                                 ("high", "bootstrap"), ("high", "default")],
                                         strict=True):
            mean, low, high = cell.replace("(", "").replace(")", "").replace("-", " ").split()
            for number, how in ((mean, "mean"), (low, "min"), (high, "max")):
                facts.append(Fact(_S, row, number,
                                  lambda n=n, g=group, m=method, h=how: _pooled_coverage(
                                      n, g, m, h),
                                  f"{how} of the {method} coverage over coverage_table.md's "
                                  f"cases at n = {n}, AUC {group}"))
    return facts


_POOLED = {
    40: ["0.908 (0.87-0.95)", "0.964 (0.95-0.98)", "0.697 (0.48-0.89)", "0.964 (0.94-0.99)"],
    100: ["0.926 (0.90-0.94)", "0.948 (0.93-0.97)", "0.827 (0.60-0.94)", "0.959 (0.95-0.98)"],
    500: ["0.944 (0.93-0.96)", "0.948 (0.94-0.96)", "0.917 (0.87-0.96)", "0.955 (0.93-0.98)"],
    2000: ["0.952 (0.92-0.96)", "0.951 (0.93-0.97)", "0.940 (0.91-0.95)", "0.948 (0.92-0.97)"],
}
"""The scores page's pooled table as printed (its facts are computed from the cited file)."""

@cache
def _judge_calibration():
    """The corrected page's calibration matrix of the judge (human label x verdict)."""
    import bayescm as bcm

    return bcm.ConfusionMatrix([[110, 10], [12, 68]], labels=["correct", "incorrect"])


def _corrected(which: str):
    """The corrected page's examples, fitted with seed 0 as the page says (fast: no NUTS)."""
    import warnings

    import bayescm as bcm

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if which == "priors":
            tree = bcm.true_prevalence(142, 742, tpr=bcm.priors.Uniform(0.6, 1),
                                       tnr=bcm.priors.Uniform(0.6, 1), random_seed=0)
        elif which == "validation":
            validation = bcm.ConfusionMatrix.from_counts(tp=45, fn=5, tn=190, fp=10)
            tree = bcm.true_prevalence(142, 742, validation=validation, random_seed=0)
        else:
            return bcm.judged_accuracy({"A": 340, "B": 310}, 500,
                                       calibration=_judge_calibration(), random_seed=0)
    return bcm.summary(tree)


def _judged(what: str) -> float:
    import bayescm as bcm

    tree = _corrected("judged")
    if what == "p":
        return bcm.prob_superior(tree, "A", "B", metric="accuracy")
    accuracy = tree["posterior"]["accuracy"]
    return float((accuracy.sel(system="A") - accuracy.sel(system="B")).std())


@cache
def _separate_judged(what: str, seeds: tuple[int, int] = (1, 2)) -> float:
    """Systems A and B of the corrected page's example judged in two separate fits."""
    import bayescm as bcm

    a, b = (bcm.judged_accuracy(k, 500, calibration=_judge_calibration(), random_seed=seed)
            ["posterior"]["accuracy"].values.reshape(-1) for k, seed in zip((340, 310), seeds,
                                                                            strict=True))
    return float((a > b).mean()) if what == "p" else float((a - b).std())


def _shares_validation_total() -> float:
    """The items of tests/test_corrected_shares.py's large validation matrix (its VALIDATION
    scaled by 400)."""
    from test_corrected_shares import VALIDATION

    return 400 * sum(map(sum, VALIDATION))


def _threshold_grid_end() -> float:
    """The last threshold of net_benefit's default grid."""
    from bayescm.analyses.decision_draws import DEFAULT_THRESHOLDS

    return float(DEFAULT_THRESHOLDS[-1])


@cache
def _cost_ratio_end() -> float:
    """The largest c_FN / c_FP of cost_curve(over="cost_ratio") (a tiny binary fit's curve)."""
    import bayescm as bcm

    tree = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=5, fn=2, fp=1, tn=9), draws=10,
                   random_seed=0)
    return float(bcm.cost_curve(tree, over="cost_ratio", points=2)["posterior"]
                 ["cost_ratio"].max())


def _audit_population(metric: str) -> float:
    """The fraud audit's population prevalence or TPR at the strata's point estimates."""
    flagged, unflagged = 3_000, 997_000
    positives_flagged = flagged * 150 / 200
    positives_unflagged = unflagged * 3 / 300
    positives = positives_flagged + positives_unflagged
    return positives / 1_000_000 if metric == "prevalence" else positives_flagged / positives



def _k_grid() -> tuple[int, ...]:
    from bayescm.models.items_density import K_GRID

    assert K_GRID[:10] == tuple(range(1, 11)), K_GRID  # "1 to 10"
    return K_GRID


def _cr1_design_effect() -> float:
    import bayescm as bcm
    from bayescm.analyses.items_frequentist import cluster_robust

    return float(cluster_robust(bcm.datasets.eval_log())[0]["design_effect"].mean())

def _attempts_per_system() -> float:
    """Rows of the packaged eval log per model (every system answers the same attempts)."""
    import csv
    from collections import Counter
    from importlib import resources

    with resources.files("bayescm.data").joinpath("eval_log.csv").open(encoding="utf-8") as f:
        counts = Counter(row["model"] for row in csv.DictReader(f))
    return _same(*counts.values())


def _eval_log_count(column: str) -> float:
    """Distinct values of a column of the packaged eval log."""
    import csv
    from importlib import resources

    with resources.files("bayescm.data").joinpath("eval_log.csv").open(encoding="utf-8") as f:
        return len({row[column] for row in csv.DictReader(f)})


def _dca_thresholds(i: int) -> float:
    from bayescm.cli_dca import DEFAULT_TABLE_THRESHOLDS

    return DEFAULT_TABLE_THRESHOLDS[i]


def _default(function: str, parameter: str) -> float:
    """A function's default argument (the figure of the planning page uses the defaults)."""
    import importlib
    import inspect

    module, name = function.rsplit(".", 1)
    return inspect.signature(getattr(importlib.import_module(module), name)).parameters[
        parameter].default


_MU_AT_POWER = "bayescm.analyses.samplesize.precision.mu_at_power"
def _grid() -> int:
    from bayescm.models.corrected_draws import GRID

    return GRID


def _hierarchical_prior(name: str, attribute: str) -> float:
    from bayescm.models.hierarchical_priors import default_priors

    return float(getattr(default_priors()[name], attribute))


def _items_prior(name: str, attribute: str) -> float:
    from bayescm.models.items import ItemsModel

    return float(getattr(ItemsModel.default_priors()[name], attribute))


def _spread_prior() -> float:
    from bayescm.models import hierarchical_multiclass

    return float(hierarchical_multiclass.default_spread().sigma)


def _chunk_matrices() -> float:
    """Binary matrices per chunk of summarize_batch at 4 x 1,000 draws, to the thousand."""
    from bayescm.analyses.batch import _CHUNK_DRAWS

    return round(_CHUNK_DRAWS // (4 * 1_000 * 4 * 8), -3)


def _binary_metric_count() -> float:
    from bayescm.metrics import BINARY_METRICS

    return len(BINARY_METRICS)


def _heatmap_half() -> float:
    from bayescm.plots._batch import MAX_ROWS

    return MAX_ROWS / 2


@cache
def _dcurves_at_01() -> dict[str, float]:
    """The decisions page's seed-3 fit of dcurves' df_binary at threshold 0.1 (about 1 s)."""
    import warnings

    import bayescm as bcm
    from bayescm.core.stats import hdi

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        nb = bcm.net_benefit(bcm.fit(bcm.datasets.dcurves_binary(), random_seed=3))
    post = nb["posterior"]
    out = {"treat_all": float(post["treat_all"].sel(threshold=0.1).mean())}
    for system in ("cancerpredmarker", "famhistory"):
        draws = post["net_benefit"].sel(system=system, threshold=0.1)
        low, high = hdi(draws.values.ravel(), 0.95)
        out |= {f"{system}_mean": float(draws.mean()), f"{system}_low": float(low),
                f"{system}_high": float(high),
                f"{system}_useful": float(post["p_useful"].sel(system=system, threshold=0.1))}
    return out


_D = "docs/user_guide/decisions.md"
_D_MARKER = ("useful with posterior probability 1.00 (net benefit 0.088, 95 % HDI 0.064 to 0.109, "
             "treat-all 0.046)")
def _dcurves_fact(snippet: str, number: str, key: str) -> Fact:
    return Fact(_D, snippet, number, lambda: _dcurves_at_01()[key],
                f"{key} of net_benefit(fit(dcurves_binary(), random_seed=3)) at t = 0.1")


_H = "docs/user_guide/hierarchical.md"
def _stratum_cell_prior(prior=None) -> float:
    """The concentration per cell a stratified audit's default (or named) prior puts."""
    from bayescm.models.stratified import StratifiedModel

    return float(StratifiedModel.resolve_priors(None, prior, {})["cells"].alpha)


def _simulated_audit_unflagged_positives() -> float:
    """Positives among 300 unflagged labels in the audit test's population (prevalence 2 %,
    TPR 0.7, TNR 0.99): missed positives over all unflagged cases, times 300."""
    positives = 0.02
    missed = positives * (1 - 0.7)
    flagged = positives * 0.7 + (1 - positives) * (1 - 0.99)
    return 300 * missed / (1 - flagged)


_A = "docs/user_guide/audits.md"
_C = "docs/user_guide/corrected.md"
_S = "docs/user_guide/scores.md"
_F = "docs/user_guide/figures.md"
_U = "docs/user_guide/uncertainty.md"
_P = "docs/user_guide/priors.md"
_R = "README.md"
_I = "docs/index.md"
_G = "docs/getting_started.md"
FACTS_LIST: list[Fact] = [
    # the scores page's concentration sentence: coverage_table.md's auc-concentration section
    *[Fact(_S, snippet, number, lambda n=n, g=g, c=c, h=h: _concentration_coverage(n, g, c, h),
           f"{h} of the coverage at concentration {c}, n = {n}, AUC {g}")
      for snippet, number, n, g, c, h in [
          ("averages rise to 0.989 and 0.980;", "0.989", 40, "high", "0.5", "mean"),
          ("averages rise to 0.989 and 0.980;", "0.980", 100, "high", "0.5", "mean"),
          ("fall to 0.940 and 0.944 but", "0.940", 40, "high", "1.5", "mean"),
          ("fall to 0.940 and 0.944 but", "0.944", 100, "high", "1.5", "mean"),
          ("single balanced cases drop to 0.89;", "0.89", 40, "high", "1.5", "min"),
          ("at 1.25 they are 0.964 and 0.959,", "0.964", 40, "high", "1.25", "mean"),
          ("at 1.25 they are 0.964 and 0.959,", "0.959", 100, "high", "1.25", "mean"),
          ("lower-AUC averages 0.964 and 0.948,", "0.964", 40, "low", "1.25", "mean"),
          ("lower-AUC averages 0.964 and 0.948,", "0.948", 100, "low", "1.25", "mean")]],
    # the named priors' table (docs/user_guide/priors.md)
    Fact(_P, "Beta(1, 1), uniform", "1",
         lambda: _same(_preset("Laplace").alpha, _preset("Laplace").beta), "Laplace's a = b"),
    Fact(_P, "Beta(1, 1), uniform | 2 |", "2",
         lambda: _preset("Laplace").alpha + _preset("Laplace").beta, "Laplace's a + b"),
    Fact(_P, "Beta(1/2, 1/2) | 1 |", "1/2",
         lambda: _same(_preset("Jeffreys").alpha, _preset("Jeffreys").beta), "Jeffreys' a = b"),
    Fact(_P, "Beta(1/2, 1/2) | 1 |", "1",
         lambda: _preset("Jeffreys").alpha + _preset("Jeffreys").beta, "Jeffreys' a + b"),
    Fact(_P, "less pull towards 1/2 than Laplace", "1/2",
         lambda: _preset("Jeffreys").alpha / (_preset("Jeffreys").alpha
                                              + _preset("Jeffreys").beta), "the prior mean"),
    Fact(_P, "Beta(0, 0), improper | 0 |", "0",
         lambda: _same(_preset("Haldane").alpha, _preset("Haldane").beta,
                       _preset("Haldane").alpha + _preset("Haldane").beta),
         "Haldane's a, b, a + b"),
    Fact(_P, "4/K per row of rates", "4",
         lambda: _for_every_k(lambda k: k * _weak_row(k).sum()), "K x a weak row's total"),
    Fact(_P, "(2/K on the correct class", "2",
         lambda: _for_every_k(lambda k: k * _weak_row(k)[0]), "K x a weak row's correct cell"),
    Fact(_P, "2/K on the others;", "2",
         lambda: _for_every_k(lambda k: k * _weak_row(k)[1:].sum()), "K x its wrong cells"),
    Fact(_P, "4 in total over the K rows", "4",
         lambda: _for_every_k(lambda k: sum(_row("Weak", k, i).sum() for i in range(k))),
         "the weak rows' total"),
    Fact(_P, "), 2 on the prevalence", "2",
         lambda: _for_every_k(lambda k: _preset("Weak").concentration(k, "prevalence").sum()),
         "the weak prevalence Dirichlet's total"),
    Fact(_P, "0.94 at , where Laplace", "0.94",
         lambda: (3 + _weak_row(10)[0]) / (3 + _weak_row(10).sum()),
         "posterior mean recall, 3 of 3 right, weak row at K = 10"),
    Fact(_P, "where Laplace says 0.8)", "0.8",
         lambda: (3 + _row("Laplace", 10)[0]) / (3 + _row("Laplace", 10).sum()),
         "the same under Laplace rows"),
    Fact(_P, "95 % of the mass between 0.7 and 0.9", "95",
         lambda: _from_interval_mass(0.7, 0.9), "the mass Beta.from_interval(0.7, 0.9) puts there",
         True),
    # README.md: the priors' table and the change of the multiclass default
    Fact(_R, "binary: Laplace, Beta(1, 1) on prevalence", "1",
         lambda: _same(_preset("Laplace").alpha, _preset("Laplace").beta), "Laplace's a = b"),
    Fact(_R, "each row of the rates gets 2/K on the correct class", "2",
         lambda: _for_every_k(lambda k: k * _weak_row(k)[0]), "K x a weak row's correct cell"),
    Fact(_R, "and 2/K spread over the wrong ones", "2",
         lambda: _for_every_k(lambda k: k * _weak_row(k)[1:].sum()), "K x its wrong cells"),
    Fact(_R, "the prevalence Dirichlet(2/K)", "2",
         lambda: _for_every_k(lambda k: _same(
             *(k * _preset("Weak").concentration(k, "prevalence")))),
         "K x each class's weak prevalence concentration"),
    Fact(_R, "Laplace at K = 2", "2",
         lambda: 2.0 if (_row("Weak", 2) == _row("Laplace", 2)).all() else float("nan"),
         "the K at which the weak row is Laplace's"),
    Fact(_R, "| Beta(1, 1); for K classes a uniform Beta", "1",
         lambda: _for_every_k(lambda k: _same(_row("Laplace", k)[0],
                                              _row("Laplace", k)[1:].sum())),
         "a Laplace row: 1 on the correct cell, 1 spread over the wrong ones"),
    Fact(_R, "Beta(1/2, 1/2); for K classes the same", "1/2",
         lambda: _for_every_k(lambda k: _same(_preset("Jeffreys").alpha, _row("Jeffreys", k)[0],
                                              _row("Jeffreys", k)[1:].sum())),
         "Jeffreys' a = b, and a Jeffreys row's correct and wrong cells"),
    Fact(_R, "Dirichlet(1) on every cell", "1",
         lambda: _for_every_k(lambda k: _same(*_row("Flat", k))), "a flat row's cells"),
    Fact(_R, "Beta(0, 0): improper", "0",
         lambda: _same(_preset("Haldane").alpha, _preset("Haldane").beta), "Haldane's a, b"),
    Fact(_R, "Wordle (6 classes, 118", "6", lambda: len(_wordle().labels), "the packaged matrix"),
    Fact(_R, "6 classes, 118 games", "118", lambda: _wordle().n, "its total"),
    Fact(_R, "observed accuracy 0.805)", "0.805",
         lambda: _wordle().counts.trace() / _wordle().n, "its observed accuracy"),
    Fact(_R, "before, accuracy about 0.69 [0.61, 0.76]", "0.69", lambda: _wordle_acc("flat")[0],
         "the flat prior's posterior mean (seed 1)"),
    Fact(_R, "before, accuracy about 0.69 [0.61, 0.76]", "0.61", lambda: _wordle_acc("flat")[1],
         "its HDI's lower end (seed 1)"),
    Fact(_R, "before, accuracy about 0.69 [0.61, 0.76]", "0.76", lambda: _wordle_acc("flat")[2],
         "its HDI's upper end (seed 1)"),
    Fact(_R, "now about 0.80 [0.73, 0.87]", "0.80", lambda: _wordle_acc("weak")[0],
         "the weak prior's posterior mean (seed 1)"),
    Fact(_R, "now about 0.80 [0.73, 0.87]", "0.73", lambda: _wordle_acc("weak")[1],
         "its HDI's lower end (seed 1)"),
    Fact(_R, "now about 0.80 [0.73, 0.87]", "0.87", lambda: _wordle_acc("weak")[2],
         "its HDI's upper end (seed 1)"),
    # the 2 / sqrt(N) rule (docs/user_guide/uncertainty.md): MU = 2 / sqrt(N), so N = 4 / MU^2
    Fact(_U, "(MU = 0.1) needs about 400 samples", "400", lambda: 4 / 0.1 ** 2,
         "N = (2 / MU)^2 at MU = 0.1"),
    Fact(_U, "known to ±5 percentage points (MU = 0.1)", "5", lambda: 0.1 / 2,
         "half the interval's width", True),
    Fact(_U, "upper bound for rates near 0.5", "0.5",
         lambda: max((p / 1000 for p in range(1001)), key=lambda p: p * (1 - p)),
         "where a rate's binomial variance p(1 - p) is largest"),
    # the paired example (docs/user_guide/comparisons.md): its block's four cells 70, 12, 4, 14
    Fact("docs/user_guide/comparisons.md", "An example on 100 items", "100",
         lambda: 70 + 12 + 4 + 14, "the block's four paired cells"),
    Fact("docs/user_guide/comparisons.md", "A is right on 82", "82", lambda: 70 + 12,
         "both right + only A right (and TP + TN = 41 + 41 of A's matrix)"),
    Fact("docs/user_guide/comparisons.md", "B on 74;", "74", lambda: 70 + 4,
         "both right + only B right (and 37 + 37 of B's matrix)"),
    # the figure presets' table (docs/user_guide/figures.md), from bayescm.plots._style.PRESETS
    Fact(_F, "8 pt legends", "8", lambda: _default_text("legend"), "the default legend size"),
    Fact(_F, "10 pt labels", "10", lambda: _default_text("label"), "the default label size"),
    Fact(_F, "12 pt titles", "12", lambda: _default_text("title"), "the default title size"),
    Fact(_F, "| 3.5 in | 7 pt and more | one column", "7",
         lambda: _preset_attr("column", "floor"), "column's smallest text"),
    Fact(_F, "| 7.2 in | 7 pt and more |", "7.2",
         lambda: _preset_attr("two_column", "width"), "two_column's width"),
    Fact(_F, "| 7.2 in | 7 pt and more |", "7",
         lambda: _preset_attr("two_column", "floor"), "two_column's smallest text"),
    Fact(_F, "| 10 in (at most 5.6 in high) | 12 pt", "10",
         lambda: _preset_attr("slide", "width"), "slide's width"),
    Fact(_F, "| 10 in (at most 5.6 in high) | 12 pt", "5.6",
         lambda: _preset_attr("slide", "max_height"), "slide's most height"),
    Fact(_F, "| 10 in (at most 5.6 in high) | 12 pt", "12",
         lambda: _preset_attr("slide", "floor"), "slide's smallest text"),
    Fact(_F, "a 16:9 slide", "16", lambda: 9 * _preset_attr("slide", "width")
         / _preset_attr("slide", "max_height"), "the slide's width : height, times 9"),
    Fact(_F, "a 16:9 slide", "9", lambda: 16 * _preset_attr("slide", "max_height")
         / _preset_attr("slide", "width"), "the slide's height : width, times 16"),
    Fact(_F, "with its text at 7 pt or more", "7",
         lambda: _preset_attr("column", "floor"), "column's smallest text"),
    Fact(_F, "an 8 pt label of a 10-inch figure is 3 pt", "3",
         lambda: 8 * _preset_attr("column", "width") / _preset_attr("slide", "width"),
         "8 pt scaled by 3.5 / 10"),
    Fact(_F, "an 8 pt label of a 10-inch", "8", lambda: _default_text("legend"),
         "the default's smallest text"),
    Fact(_F, "a 10-inch figure", "10", lambda: _preset_attr("slide", "width"), "a slide"),
    # the scores page's AUC coverage (docs/user_guide/scores.md), pooled from its cited table
    *_pooled_facts(),
    Fact(_S, "(8 cases per cell for AUC 0.6-0.75, 12 for", "8",
         lambda: _same(*(sum(r["auc"] in _AUC_GROUPS["low"] for r in _auc_coverage_rows()
                             if r["n"] == n) for n in _POOLED)), "cases per cell, low AUCs"),
    Fact(_S, "(8 cases per cell for AUC 0.6-0.75, 12 for", "12",
         lambda: _same(*(sum(r["auc"] in _AUC_GROUPS["high"] for r in _auc_coverage_rows()
                             if r["n"] == n) for n in _POOLED)), "cases per cell, high AUCs"),
    Fact(_S, "(20 of the 24 cases with", "20",
         lambda: sum(v >= 0.97 for v in _concentration_values((40, 100), "high", "1")),
         "cases covering 0.97 or more at concentration 1"),
    Fact(_S, "(20 of the 24 cases with", "24",
         lambda: len(_concentration_values((40, 100), "high", "1")),
         "cases with n <= 100 and AUC >= 0.9"),
    Fact(_S, "averaged, 0.978 at n = 40", "0.978",
         lambda: _concentration_coverage(40, "high", "1"),
         "the mean at concentration 1, n = 40, high AUC"),
    Fact(_S, "and 0.972 at n = 100,", "0.972",
         lambda: _concentration_coverage(100, "high", "1"),
         "the mean at concentration 1, n = 100, high AUC"),
    Fact(_S, "Dirichlet(TP + 5/8, FN + 5/8, FP + 5/8, TN + 5/8)", "5/8",
         lambda: _roc_concentration() / 2, "half the concentration per cell (roc_dp)"),
    Fact(_S, "with Beta(5/8, 5/8) priors on TPR and TNR", "5/8",
         lambda: _roc_concentration() / 2, "half the concentration per rate's Beta parameter"),
    Fact(_S, "and Beta(1.25, 1.25) on the prevalence", "1.25", _roc_concentration,
         "the concentration per class (roc_dp.CONCENTRATION)"),
    Fact(_S, "of 1: a posterior mean of 0.94", "0.94",
         lambda: 0.5 + 0.5 * 20 * 20 / (20 + _roc_concentration()) ** 2,
         "1/2 + (1 - 1/2) n+ n- / ((n+ + c)(n- + c)) at n+ = n- = 20"),
    Fact(_S, "(up to 49 % of them at", "49",
         lambda: max(r["separated"] for r in _auc_coverage_rows() if r["n"] == 40),
         "the largest separated share at n = 40", True),
    Fact(_S, "(11.4 for 20 % positives and AUC 0.99)", "11.4",
         lambda: max(r["ratio"] for r in _auc_coverage_rows() if r["n"] == 40),
         "the widest width ratio at n = 40 in coverage_table.md"),
    Fact(_S, "by a factor of up to 6.0 at", "6.0",
         lambda: max(r["ratio"] for r in _auc_coverage_rows()
                     if r["n"] == 40 and r["prevalence"] == 0.5),
         "the widest width ratio at n = 40 and prevalence 0.5 in coverage_table.md"),
    # the corrected prevalence and the judged accuracies (docs/user_guide/corrected.md)
    Fact(_C, "where 142 of 742 (0.191)", "0.191",
         lambda: _corrected("priors").loc["apparent", "observed"], "the apparent rate"),
    Fact(_C, "the point values are 0.8 and 0.8", "0.8",
         lambda: _same(_corrected("priors").loc["tpr", "observed"],
                       _corrected("priors").loc["tnr", "observed"]),
         "the priors' point values of TPR and TNR"),
    Fact(_C, "and Rogan-Gladen gives 0,", "0",
         lambda: _corrected("priors").loc["prevalence", "observed"], "the clipped estimate"),
    Fact(_C, "has mean 0.133 and", "0.133",
         lambda: _corrected("priors").loc["prevalence", "mean"], "posterior mean, seed 0"),
    Fact(_C, "HDI [0.001, 0.264]", "0.001",
         lambda: _corrected("priors").loc["prevalence", "hdi_lower"], "HDI, seed 0"),
    Fact(_C, "HDI [0.001, 0.264]", "0.264",
         lambda: _corrected("priors").loc["prevalence", "hdi_upper"], "HDI, seed 0"),
    Fact(_C, "the posterior mean is 0.166, HDI", "0.166",
         lambda: _corrected("validation").loc["prevalence", "mean"], "posterior mean, seed 0"),
    Fact(_C, "HDI [0.113, 0.215], and", "0.113",
         lambda: _corrected("validation").loc["prevalence", "hdi_lower"], "HDI, seed 0"),
    Fact(_C, "HDI [0.113, 0.215], and", "0.215",
         lambda: _corrected("validation").loc["prevalence", "hdi_upper"], "HDI, seed 0"),
    Fact(_C, "rates (0.9 and 0.95) is 0.166", "0.9",
         lambda: _corrected("validation").loc["tpr", "observed"], "the validation's TPR"),
    Fact(_C, "rates (0.9 and 0.95) is 0.166", "0.95",
         lambda: _corrected("validation").loc["tnr", "observed"], "the validation's TNR"),
    Fact(_C, "rates (0.9 and 0.95) is 0.166", "0.166",
         lambda: _corrected("validation").loc["prevalence", "observed"], "Rogan-Gladen"),
    Fact(_C, "has a posterior sd of 0.040 and", "0.040", lambda: _judged("sd"),
         "sd of accuracy A - B in the joint fit, seed 0"),
    Fact(_C, "P(A better than B) is 0.976", "0.976", lambda: _judged("p"),
         "prob_superior in the joint fit, seed 0"),
    Fact(_C, "give an sd of 0.059 and", "0.059", lambda: _separate_judged("sd"),
         "sd of A - B from two separate fits, seeds 1 and 2"),
    Fact(_C, "a probability of 0.917", "0.917", lambda: _separate_judged("p"),
         "P(A > B) from two separate fits, seeds 1 and 2"),
    Fact(_C, "difference falls to 0.007", "0.007", lambda: _separate_judged("sd", (0, 0)),
         "sd of A - B from two separate fits with the same seed"),
    Fact(_C, "the true prevalence is not 19 %", "19", lambda: 142 / 742,
         "the apparent rate", True),
    Fact(_C, "a validation matrix of 60,000", "60,000", _shares_validation_total,
         "tests/test_corrected_shares.py's large validation matrix"),
    Fact("docs/spec.md", "grid 0.01-0.99)", "0.99", _threshold_grid_end,
         "net_benefit's default thresholds"),
    Fact(_D, "a false positive weighs 99 true positives", "99",
         lambda: _threshold_grid_end() / (1 - _threshold_grid_end()),
         "the odds t / (1 - t) at the grid's last threshold"),
    Fact(_D, "from 0.01 to 100 at the test", "100", _cost_ratio_end,
         "cost_curve's cost-ratio axis"),
    # the fraud audit (docs/user_guide/audits.md): its block's counts and sizes
    Fact(_A, "flagged cases are 40 % of them", "40", lambda: 200 / (200 + 300),
         "flagged share of the labelled items", True),
    Fact(_A, "and 0.3 % of the population", "0.3", lambda: 3_000 / 1_000_000,
         "flagged share of the population", True),
    Fact(_A, "a prevalence near 31 % where", "31", lambda: (150 + 3) / 500,
         "the pooled labelled items' prevalence", True),
    Fact(_A, "the population's is near 1 %", "1", lambda: _audit_population("prevalence"),
         "the strata's positives scaled to their sizes", True),
    Fact(_A, "flagged 3,000 of 1,000,000 cases", "1,000,000", lambda: 3_000 + 997_000,
         "the block's two strata sizes"),
    Fact(_A, "labelled 200 of the flagged ones", "200", lambda: 150 + 50, "TP + FP flagged"),
    Fact(_A, "and 300 of the rest", "300", lambda: 3 + 297, "FN + TN unflagged"),
    Fact(_A, "The 500 labelled items", "500", lambda: 150 + 50 + 3 + 297, "all labelled"),
    Fact(_A, "concentration per cell (1 by default", "1", _stratum_cell_prior,
         "StratifiedModel's default cells prior"),
    Fact(_A, "which is why the default is 1 per cell", "1", _stratum_cell_prior,
         "StratifiedModel's default cells prior"),
    Fact(_A, "(about 2 in 300 here)", "2", _simulated_audit_unflagged_positives,
         "expected positives among 300 unflagged labels of the simulated population"),
    Fact(_A, "TPR of 150 / 153 = 0.98", "0.98", lambda: 150 / 153, "the naive TPR"),
    Fact(_A, "TPR of 150 / 153 = 0.98", "153", lambda: 150 + 3,
         "the naive TPR's positives: flagged TP + unflagged FN"),
    Fact(_A, "where the population's is about 0.2", "0.2", lambda: _audit_population("tpr"),
         "flagged positives over all positives, scaled to the strata's sizes"),
    Fact(_A, "with Jeffreys' 1/2 per cell", "1/2", lambda: _stratum_cell_prior("jeffreys"),
         "the cells prior of prior='jeffreys'"),
    # the packaged eval log (docs/user_guide/items.md)
    Fact("docs/user_guide/items.md", "three systems, 198 questions in 16 subdomains", "198",
         lambda: _eval_log_count("question"), "distinct questions of eval_log.csv"),
    Fact("docs/user_guide/items.md", "three systems, 198 questions in 16 subdomains", "16",
         lambda: _eval_log_count("subdomain"), "distinct subdomains"),
    Fact("docs/user_guide/items.md", "The 990 answers of each system", "990",
         _attempts_per_system, "rows per model of eval_log.csv"),
    Fact("docs/user_guide/items.md", "carry the information of about 300 independent", "300",
         lambda: round(_attempts_per_system() / _cr1_design_effect(), -1),
         "the answers over the mean CR1 design effect, to the nearest ten ('about')"),
    *(Fact("docs/user_guide/items.md", "the fit stores: 1 to 10, 16 and 20", number,
           lambda i=i: _k_grid()[i], "the k the items fit stores (items_density.K_GRID)")
      for number, i in (("10", 9), ("16", 10), ("20", 11))),
    # the decisions page's seed-3 fit of dcurves' data at t = 0.1
    *(_dcurves_fact(_D_MARKER, number, key) for number, key in (
        ("1.00", "cancerpredmarker_useful"), ("0.088", "cancerpredmarker_mean"),
        ("0.064", "cancerpredmarker_low"), ("0.109", "cancerpredmarker_high"),
        ("0.046", "treat_all"))),
    *(_dcurves_fact("(0.019, 95 % HDI 0.006 to 0.032: P(useful) 0.01)", number, key)
      for number, key in (("0.019", "famhistory_mean"), ("0.006", "famhistory_low"),
                          ("0.032", "famhistory_high"), ("0.01", "famhistory_useful"))),
    # the command line (docs/cli.md)
    Fact("docs/cli.md", "the information of about 230)", "230",
         lambda: round(_attempts_per_system() / 4.335, -1),
         "990 attempts over model_a's design effect 4.335 in the page's output, to the ten"),
    Fact("docs/cli.md", "up to 2<sup>63</sup> - 1", "63",
         lambda: __import__("math").log2(__import__("numpy").iinfo("int64").max + 1),
         "the largest int64 is 2^63 - 1"),
    Fact("docs/cli.md", "990 attempts per system", "990", _attempts_per_system,
         "rows per model of bayescm/data/eval_log.csv"),
    Fact("docs/cli.md", "lists thresholds (default 0.05, 0.1, ..., 0.5)", "0.05",
         lambda: _dca_thresholds(0), "the first default threshold"),
    Fact("docs/cli.md", "lists thresholds (default 0.05, 0.1, ..., 0.5)", "0.1",
         lambda: _dca_thresholds(1), "the second"),
    Fact("docs/cli.md", "lists thresholds (default 0.05, 0.1, ..., 0.5)", "0.5",
         lambda: _dca_thresholds(-1), "the last"),
    # the spread of a hierarchical multiclass model (docs/user_guide/hierarchical.md)
    Fact("docs/user_guide/hierarchical.md", "an accuracy near 0.9 moves by about 0.015", "0.015",
         lambda: (0.9 * 0.1 / (1 / 0.05 ** 2 + 1)) ** 0.5,
         "SD of a Dirichlet(c m) component, m = 0.9, c = 1 / 0.05^2"),
    # the planning page's figure: docs/_scripts/make_figures.py calls mu_at_power's defaults
    Fact("docs/user_guide/planning.md", "MU reached with 95 % assurance", "95",
         lambda: _default(_MU_AT_POWER, "power"), "mu_at_power's default power", True),
    Fact("docs/user_guide/planning.md", "mode 0.8, concentration 10, Laplace", "0.8",
         lambda: _default(_MU_AT_POWER, "mode"), "mu_at_power's default mode"),
    Fact("docs/user_guide/planning.md", "mode 0.8, concentration 10, Laplace", "10",
         lambda: _default(_MU_AT_POWER, "concentration"), "its default concentration"),
    Fact(_A, "gives 1/2). When", "1/2", lambda: _stratum_cell_prior("jeffreys"),
         "Jeffreys' concentration per cell"),
    # the corrected page's grid and its coverage's Monte-Carlo error
    Fact(_C, "from a 64 x 64 grid", "64",
         lambda: _grid(),
         "GRID of bayescm.models.corrected_draws"),
    Fact(_C, "standard errors (0.046 for 200 data sets)", "0.046",
         lambda: 3 * (0.95 * 0.05 / 200) ** 0.5, "three binomial standard errors at 0.95"),
    Fact(_C, "are within 1.6 standard errors", "1.6",
         lambda: (0.95 - 0.925) / (0.95 * 0.05 / 200) ** 0.5,
         "the lower of the table's coverages, 0.925, in standard errors below 0.95"),
    # the latent page's degrees of freedom (docs/user_guide/latent.md)
    Fact("docs/user_guide/latent.md", "(8 parameters, 6 degrees of freedom)", "8",
         lambda: 2 + 2 * 2 + 2, "two prevalences, two TPRs and TNRs, two covariances"),
    Fact("docs/user_guide/latent.md", "(8 parameters, 6 degrees of freedom)", "6",
         lambda: 2 * (2 ** 2 - 1), "two populations' 2 x 2 tables of free cells"),
    Fact("docs/user_guide/latent.md", "(5 parameters, 3 degrees of freedom)", "5",
         lambda: 1 + 2 + 2, "a prevalence, two TPRs and two TNRs"),
    Fact("docs/user_guide/latent.md", "(5 parameters, 3 degrees of freedom)", "3",
         lambda: 2 ** 2 - 1, "one population's 2 x 2 table of free cells"),
    # the scores page's rule of three (docs/user_guide/scores.md)
    Fact(_S, "bound near 3/20)", "3/20", lambda: 3 / 20, "the rule of three, 3 / n at n = 20"),
    # the hierarchical and items models' default priors, written as formulas
    Fact(_H, r"\mu \sim \mathcal{N}(0, 2^2)$", "0",
         lambda: _same(_hierarchical_prior("mu_logit_tpr", "mu"),
                       _hierarchical_prior("mu_logit_tnr", "mu")), "the means' prior mean",
         math=True),
    Fact(_H, r"\mu \sim \mathcal{N}(0, 2^2)$", "2",
         lambda: _same(_hierarchical_prior("mu_logit_tpr", "sigma"),
                       _hierarchical_prior("mu_logit_tnr", "sigma")), "the means' prior sd",
         math=True),
    Fact(_H, r"$s \sim \text{Half-}\mathcal{N}(1)$", "1",
         lambda: _same(_hierarchical_prior("sd_logit_tpr", "sigma"),
                       _hierarchical_prior("sd_logit_tnr", "sigma")), "the scales' prior sd",
         math=True),
    Fact(_H, "(standard deviations 2 and 1)", "2",
         lambda: _hierarchical_prior("mu_logit_tpr", "sigma"), "the means' prior sd"),
    Fact(_H, "(standard deviations 2 and 1)", "1",
         lambda: _hierarchical_prior("sd_logit_tpr", "sigma"), "the scales' prior sd"),
    Fact(_H, "an LKJ(2) prior", "2", lambda: _hierarchical_prior("corr_logit", "eta"),
         "the correlation's LKJ eta", math=True),
    Fact(_H, "for a tolerance (default 0.05)", "0.05",
         lambda: _default("bayescm.comparisons.groups.fairness_table", "epsilon"),
         "fairness_table's epsilon"),
    Fact(_H, "its default prior is Half-Normal(0.2)", "0.2", _spread_prior,
         "the multiclass runs' spread prior"),
    Fact("docs/user_guide/items.md", r"$\mu_s \sim \mathcal N(0, 3^2)$", "3",
         lambda: _items_prior("mu_logit", "sigma"), "the items model's mean prior sd",
         math=True),
    Fact("docs/user_guide/items.md", r"$\mathrm{HalfNormal}(2.5)$", "2.5",
         lambda: _same(*(_items_prior(k, "sigma")
                         for k in ("sd_cluster", "sd_item", "sd_system_item"))),
         "every scale's prior sd", math=True),
    # README.md's opening, metrics, figures and batch
    Fact(_R, "with 34 test samples a", "34", lambda: _cocaine().n, "the cocaine matrix's total"),
    Fact(_R, "\"somewhere between 89 % and 100 %\"", "89", lambda: _beta_hdi(27, 1, 0),
         "exact 95 % HDI of the TPR's Beta(27, 1)", True),
    Fact(_R, "\"somewhere between 89 % and 100 %\"", "100", lambda: _beta_hdi(27, 1, 1),
         "exact 95 % HDI of the TPR's Beta(27, 1)", True),
    Fact(_R, "Binary (27), each", "27", _binary_metric_count, "len(bcm.metrics.BINARY_METRICS)"),
    Fact(_R, "a page's ( , 7.2 in)", "7.2", lambda: _preset_attr("two_column", "width"),
         "two_column's width"),
    Fact(_R, "(at least 7 pt in print, 12 pt on a slide)", "7",
         lambda: _same(_preset_attr("column", "floor"), _preset_attr("two_column", "floor")),
         "the print presets' smallest text"),
    Fact(_R, "(at least 7 pt in print, 12 pt on a slide)", "12",
         lambda: _preset_attr("slide", "floor"), "slide's smallest text"),
    Fact(_R, "about 4,000 binary matrices by default", "4,000", _chunk_matrices,
         "2^29 draws per chunk over 4 x 1,000 draws x 4 cells x 8 bytes, to the thousand"),
    Fact(_R, "the best and worst 25 rows", "25", _heatmap_half,
         "half of MAX_ROWS of bayescm.plots' rank heatmap"),
    # the landing page (docs/index.md)
    Fact(_I, "tested on 34 samples", "34", lambda: _cocaine().n, "the matrix's total"),
    Fact(_I, "between 89.5 % and 100 %", "89.5", lambda: _beta_hdi(27, 1, 0),
         "exact 95 % HDI of the TPR's Beta(1 + 26, 1 + 0)", True),
    Fact(_I, "between 89.5 % and 100 %", "100", lambda: _beta_hdi(27, 1, 1),
         "exact 95 % HDI of the TPR's Beta(1 + 26, 1 + 0)", True),
    Fact(_I, "the specificity of 75 %", "75", lambda: 6 / 8, "TN / (TN + FP)", True),
    Fact(_I, "The reported \"100 % sensitivity\"", "100", lambda: 26 / 26, "TP / (TP + FN)", True),
    Fact(_I, "from about 43 % to 95 %", "43", lambda: _beta_hdi(7, 3, 0),
         "exact 95 % HDI of the TNR's Beta(1 + 6, 1 + 2)", True),
    Fact(_I, "from about 43 % to 95 %", "95", lambda: _beta_hdi(7, 3, 1),
         "exact 95 % HDI of the TNR's Beta(1 + 6, 1 + 2)", True),
    Fact(_I, "Beta(7, 3) posterior", "7", lambda: _preset("Laplace").alpha + 6, "a + TN"),
    Fact(_I, "Beta(7, 3) posterior", "3", lambda: _preset("Laplace").beta + 2, "b + FP"),
    # getting started (docs/getting_started.md)
    Fact(_G, "On 34 test samples", "34", lambda: _cocaine().n, "the matrix's total"),
    Fact(_G, "Beta(1 + 6, 1 + 2)", "1", lambda: _same(_preset("Laplace").alpha,
                                                     _preset("Laplace").beta), "Laplace's a, b"),
    Fact(_G, "exact 95 % HDI is [0.432, 0.946]", "0.432", lambda: _beta_hdi(7, 3, 0),
         "exact 95 % HDI of Beta(7, 3)"),
    Fact(_G, "exact 95 % HDI is [0.432, 0.946]", "0.946", lambda: _beta_hdi(7, 3, 1),
         "exact 95 % HDI of Beta(7, 3)"),
    Fact(_G, "the TPR of 100 % becomes 96.4 %", "96.4", lambda: 27 / 28,
         "posterior mean of Beta(1 + 26, 1 + 0)", True),
    Fact(_G, "the exact posterior mean 27/28", "27/28",
         lambda: (_preset("Laplace").alpha + 26) / (_preset("Laplace").alpha
                                                   + _preset("Laplace").beta + 26),
         "posterior mean of the TPR under Laplace"),
    Fact(_G, "an MU of 51 percentage points", "51",
         lambda: _beta_hdi(7, 3, 1) - _beta_hdi(7, 3, 0), "width of Beta(7, 3)'s 95 % HDI", True),
    Fact(_G, "Classifier 8 of", "8", lambda: float(_paper_row("8")["id"]), "the table's id"),
    Fact(_G, "accuracy of 70 % (31 of 44)", "70",
         lambda: (_paper_row("8")["tp"] + _paper_row("8")["tn"]) / _paper_row("8")["n"],
         "(TP + TN) / N of the packaged literature table's classifier 8", True),
    Fact(_G, "accuracy of 70 % (31 of 44)", "31",
         lambda: _paper_row("8")["tp"] + _paper_row("8")["tn"], "TP + TN of classifier 8"),
    Fact(_G, "accuracy of 70 % (31 of 44)", "44", lambda: _paper_row("8")["n"], "its N"),
    Fact(_G, "with a probability of 0.143", "0.143", lambda: _p_deceptive("8"),
         "exact P(BM < 0) of classifier 8 under Laplace priors"),
]
FACTS: dict[str, list[Fact]] = {}
for _fact in FACTS_LIST:
    FACTS.setdefault(_fact.page, []).append(_fact)

ALLOWED: dict[str, dict[str, str]] = {
    _R: {
        "4,977 tests in": "the fast suite's size, measured with its run time on the named date "
                          "and machine (a timing record, like the seconds beside it)",
        "341 slow checks": "the slow run's size, measured with its run time on the named date "
                           "and machine (a timing record, like the seconds beside it)",
    },
    _F: {
        "draws 0.894 instead of 89.4 %": "an example of the two units, not a result",
    },
    "docs/cli.md": {
        "when the risk is at least 0.5": "the threshold the expected cost is reported at "
                                         "(the option's help in bayescm/cli_dca.py says so)",
    },
    "docs/user_guide/comparisons.md": {
        "even with 15,123 test items": "the paper's Kaggle test set's size, a quoted datum",
    },
    "docs/user_guide/model.md": {
        "Hoffmann 2021, Fig. 1)": "a figure of the cited paper",
        "## Several classes: c + 1 Dirichlet": "a formula's count (c classes, plus one)",
        "the paper's \"c + 1 multinomials\"": "the same count, quoted from the paper",
    },
    "docs/user_guide/priors.md": {
        "95 % of the mass between 0.7 and 0.9": "the example's arguments (the 95 % is a fact)",
    },
    _H: {
        "(0.05: an accuracy near 0.9 moves": "an example's inputs to the 0.015 that follows",
    },
    _U: {
        "that holds 95 % of the posterior": "the chosen HDI probability, in a definition",
        "a 95 % interval spans about": "the chosen HDI probability",
        "the width of its 95 % highest-density": "the chosen HDI probability, in a definition",
        "one setting, (0.95)": "the setting's default, a chosen probability",
        "## The 2 / √N rule": "the rule's name; the page derives it",
        "(MU = 0.001) needs millions": "an example precision (4 / 0.001^2 = 4 million)",
    },
    _I: {
        "Comput. Sci. 7:e398": "the paper's volume, a citation",
        "at 95 % probability": "the chosen HDI probability (bcm.set_options' default)",
        "(the exact 95 % HDI": "the chosen HDI probability",
        "width of the 95 % highest-density": "the chosen HDI probability, in a definition",
    },
    _C: {
        "on 200 answers also labelled": "the example's size of a calibration set, an input",
        "posterior of the prevalence piles up at 0": "the end of the unit interval, not a result",
    },
    _D: {
        "holds 95 % of the posterior curves": "the chosen band probability, in a definition",
    },
    _G: {
        "(report it as \"< 0.0001\", not as 0)": "a reporting rule: the next round number "
                                                  "above 1/20,000",
    },
}

UNTRACED: dict[str, list[str]] = {}
