"""Equal-work comparison with the peers: classifier-uncertainty, prob_conf_mat, plain NumPy.

Every row gives both contenders the same matrix, the same number of posterior draws (20,000),
the same metrics, the same prior and the same summaries, and times the whole job as a user
would write it. The contenders alternate inside one process (which one goes first switches
every round); a warm-up round is not timed; ``gc.collect()`` runs untimed between calls.
Medians of ``--rounds`` rounds (default 11).

(a) 9 metrics + posterior mean and 95 % HDI, binary cocaine matrix (TP 26, FN 0, TN 6, FP 2),
    Laplace priors, against classifier-uncertainty (``BinaryClassifier.from_cm`` ->
    ``at_threshold()`` -> one method per metric -> ``point_estimate``, ``credible_interval``;
    its interval is an HDI: the narrowest window of sorted draws).
(b) 21 metrics + 10 summaries (observed, mean, sd, median, mode, HDI lower and upper, MU,
    skew, kurtosis), binary cocaine matrix, Laplace priors, against prob_conf_mat
    (``Study`` -> ``add_experiment`` -> ``add_metric`` -> ``report_metric_summaries`` per
    metric, which gives observed, median, mode, HDI, MU, skew, kurtosis; mean and sd from
    ``get_metric_samples``). bayescm: ``fit`` + ``summary(kind="stats")`` (observed, mean,
    sd, HDI, MU: no R-hat or ESS, which the peers do not compute) + median, histogram mode,
    skew and kurtosis
    of the same draws with the peer's own estimators (``np.histogram(bins="auto")``,
    ``scipy.stats``). prob_conf_mat's HDI is an HDI (narrowest window of sorted draws).
(c) 8 metrics + the same 10 summaries, a 10-class matrix of N = 1,000, against prob_conf_mat;
    both with bayescm's default multiclass prior (its Dirichlet concentrations handed to
    prob_conf_mat as ``prevalence_prior`` and ``confusion_prior``).
(d) the full binary fit + summary (27 variables: observed, mean, sd, HDI, MU, split R-hat,
    Geyer ESS of the raw split chains, 4 x 5,000 draws) against a hand-written NumPy
    implementation of the same outputs with a partition-based HDI (written below).

Then the full 10-class fit + summary alone (target 0.25 s), and ``import bayescm`` against
``import numpy, xarray`` (and the peers' imports), each in a fresh interpreter, alternating,
median of 9, with bayescm's bytecode compiled as a wheel install compiles it.

At the end every row checks that both contenders computed the same thing: posterior means of
the bounded metrics agree within 0.01, and HDI bounds within 0.03 (Monte-Carlo error).

Run: ``.venv/bin/python -m pip install 'bayescm[bench]'`` once, then
``.venv/bin/python benchmarks/bench_peers.py [--rounds 11] [--out benchmarks/performance.md]``
(``--out`` rewrites that file's ``peers`` section, with the date and the machine's load).
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import os
import statistics
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from sections import run_record, write_section

import bayescm as bcm

DRAWS, CHAINS = 5_000, 4  # 20,000 draws
TOTAL = DRAWS * CHAINS
PROB = 0.95
COCAINE = {"tp": 26, "fn": 0, "tn": 6, "fp": 2}

# (a) the nine metrics classifier-uncertainty has, by its method names
CU_METRICS = {"acc": "accuracy", "tpr": "tpr", "tnr": "tnr", "ppv": "precision", "npv": "npv",
              "f1": "f1", "bacc": "balanced_accuracy", "bm": "bookmaker_informedness",
              "mcc": "mcc"}
# (b) 21 binary metrics both packages have: bayescm name -> prob_conf_mat name
PCM_BINARY = {"prevalence": "prevalence", "bias": "model_bias", "tpr": "tpr", "fnr": "fnr",
              "ppv": "ppv", "fdr": "fdr", "fpr": "fpr", "tnr": "tnr", "for": "for",
              "npv": "npv", "acc": "acc", "bacc": "ba", "mcc": "mcc", "kappa": "kappa",
              "f1": "f1", "bm": "informedness", "mk": "markedness", "jaccard": "jaccard",
              "lr_plus": "plr", "lr_minus": "nlr", "dor": "dor"}
# (c) 8 multiclass metrics
PCM_MULTICLASS = {"acc": "acc", "bacc": "ba", "kappa": "kappa", "mcc": "mcc",
                  "f1_macro": "f1@macro", "ppv_macro": "ppv@macro", "tpr_macro": "tpr@macro",
                  "jaccard_macro": "jaccard@macro"}
SUMMARY_10 = ["observed", "mean", "sd", "median", "mode", "hdi_lower", "hdi_upper", "mu",
              "skew", "kurtosis"]


def have(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


# ---------------------------------------------------------------- bayescm, as a user calls it
def extra_summaries(tree: Any, names: list[str]) -> pd.DataFrame:
    """Median, histogram mode, skew and kurtosis of the posterior draws (the peer's estimators)."""
    from scipy import stats

    x = np.stack([np.asarray(tree["posterior"][n].values, dtype=float).reshape(-1)
                  for n in names])
    modes = []
    for row in x:
        counts, edges = np.histogram(row, bins="auto")
        i = int(np.argmax(counts))
        modes.append(0.5 * (edges[i] + edges[i + 1]))
    return pd.DataFrame({"median": np.median(x, axis=1), "mode": modes,
                         "skew": stats.skew(x, axis=1), "kurtosis": stats.kurtosis(x, axis=1)},
                        index=names)


def bayescm_summary(cm: bcm.ConfusionMatrix, names: list[str], seed: int,
                    ten: bool) -> pd.DataFrame:
    tree = bcm.fit(cm, metrics=names, draws=DRAWS, chains=CHAINS, random_seed=seed)
    # the peers compute no R-hat or ESS: the same columns are kind="stats"
    table = bcm.summary(tree, var_names=names, hdi_prob=PROB, kind="stats")
    if ten:
        table = table.join(extra_summaries(tree, names))
    return table


# ---------------------------------------------------------------- classifier-uncertainty
def cu_summary(seed: int) -> pd.DataFrame:
    from classifier_uncertainty import BinaryClassifier

    clf = BinaryClassifier.from_cm(**COCAINE, n_samples=TOTAL, prior=(1.0, 1.0), seed=seed)
    res = clf.at_threshold()
    rows = {}
    for name, method in CU_METRICS.items():
        metric = getattr(res, method)()
        lo, hi = metric.credible_interval(PROB)
        rows[name] = (metric.point_estimate, lo, hi)
    return pd.DataFrame.from_dict(rows, orient="index", columns=["mean", "hdi_lower", "hdi_upper"])


# ---------------------------------------------------------------- prob_conf_mat
def pcm_summary(matrix: np.ndarray, metrics: dict[str, str], seed: int,
                prevalence_prior: Any, confusion_prior: Any) -> pd.DataFrame:
    import prob_conf_mat

    study = prob_conf_mat.Study(seed=seed, num_samples=TOTAL, ci_probability=PROB)
    study.add_experiment("bench/cm", confusion_matrix=matrix, prevalence_prior=prevalence_prior,
                         confusion_prior=confusion_prior)
    for name in metrics.values():
        study.add_metric(name)
    rows = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its ratios divide by zero on the cocaine matrix
        for ours, theirs in metrics.items():
            # group, experiment, observed, median, mode, "[lo, hi]", MU, skew, kurtosis
            record = study.report_metric_summaries(theirs, class_label=0, table_fmt="records")[0]
            draws = study.get_metric_samples(theirs, "bench/cm", "posterior").values[:, 0]
            lo, hi = (float(v) for v in record[5].strip("[]").split(","))
            rows[ours] = (record[2], draws.mean(), draws.std(ddof=1), record[3], record[4], lo,
                          hi, record[6], record[7], record[8])
    return pd.DataFrame.from_dict(rows, orient="index", columns=SUMMARY_10)


# ---------------------------------------------------------------- hand-written NumPy (row d)
def _binary_metrics(tp: Any, fn: Any, fp: Any, tn: Any) -> dict[str, Any]:
    """The 27 variables of a binary fit, from the cell probabilities (bayescm's definitions)."""
    pos, neg, ppos, pneg = tp + fn, fp + tn, tp + fp, fn + tn
    tpr, tnr, ppv, npv = tp / pos, tn / neg, tp / ppos, tn / pneg
    fpr = fp / neg
    den = ppos * pos * neg * pneg
    mcc = np.where(den == 0, 0.0, (tp * tn - fp * fn) / np.sqrt(den))
    return {
        "prevalence": pos, "tpr": tpr, "tnr": tnr, "bias": ppos, "ppv": ppv, "npv": npv,
        "fnr": fn / pos, "fpr": fpr, "fdr": fp / ppos, "for": fn / pneg, "acc": tp + tn,
        "err": fn + fp, "bacc": 0.5 * (tpr + tnr), "f1": 2 * tp / (2 * tp + fn + fp),
        "f05": 1.25 * tp / (1.25 * tp + 0.25 * fn + fp), "f2": 5 * tp / (5 * tp + 4 * fn + fp),
        "mcc": mcc, "bm": tpr + tnr - 1, "mk": ppv + npv - 1,
        "kappa": 2 * (tp * tn - fn * fp) / (ppos * neg + pos * pneg),
        "lr_plus": tp * neg / (fp * pos), "lr_minus": fn * neg / (tn * pos),
        "dor": tp * tn / (fp * fn), "jaccard": tp / (tp + fn + fp),
        "fm": tp / np.sqrt(ppos * pos), "pt": (np.sqrt(tpr * fpr) - fpr) / (tpr - fpr),
        "gmean": np.sqrt(tpr * tnr),
    }


def hdi_partition(x: np.ndarray, prob: float) -> tuple[np.ndarray, np.ndarray]:
    """HDI of every row (bayescm's rule: narrowest window of floor(prob n) + 1 sorted draws)
    from the two tails only: ``np.partition`` isolates them, and only they are sorted."""
    n = x.shape[-1]
    inc = int(np.floor(prob * n))
    n_int = n - inc
    part = np.partition(x, (n_int - 1, inc), axis=-1)
    low = np.sort(part[:, :n_int], axis=-1)
    high = np.sort(part[:, inc:], axis=-1)
    start = np.argmin(high - low, axis=-1)[:, None]
    return (np.take_along_axis(low, start, axis=-1)[:, 0],
            np.take_along_axis(high, start, axis=-1)[:, 0])


def rhat_ess(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Classic split R-hat and Geyer ESS of raw split chains, for series ``x`` (S, chain, draw).

    Autocovariances are computed one lag pair at a time for every series until each one's
    initial positive sequence ends (a few lags for independent draws)."""
    s_count, chains, draws = x.shape
    half = draws // 2
    s = x[:, :, : 2 * half].reshape(s_count, 2 * chains, half)
    m, n = s.shape[1:]
    chain_mean = s.mean(axis=2)
    centred = s - chain_mean[..., None]
    acov0 = np.einsum("smn,smn->sm", centred, centred) / n
    within = acov0.mean(axis=1) * n / (n - 1.0)
    between = n * chain_mean.var(axis=1, ddof=1)
    rhat = np.sqrt((between / within + n - 1) / n)
    var_plus = within * (n - 1.0) / n + chain_mean.var(axis=1, ddof=1)

    def rho(lag: int) -> np.ndarray:
        acov = np.einsum("smn,smn->s", centred[:, :, : n - lag], centred[:, :, lag:]) / (m * n)
        return 1.0 - (within - acov) / var_plus

    tau = np.full(s_count, -1.0)
    last = np.full(s_count, np.inf)
    running = np.ones(s_count, dtype=bool)
    t = 0
    while running.any() and 2 * t + 1 < n - 3:
        pair = (1.0 if t == 0 else rho(2 * t)) + rho(2 * t + 1)
        running &= pair > 0
        pair = np.minimum(pair, last)  # Geyer's initial monotone sequence
        tau += np.where(running, 2.0 * pair, 0.0)
        last = pair
        t += 1
    return rhat, m * n / tau


def numpy_fit_summary(counts: dict[str, int], seed: int) -> pd.DataFrame:
    """What ``bcm.summary(bcm.fit(cm))`` returns for a binary matrix, in plain NumPy."""
    tp, fn, tn, fp = counts["tp"], counts["fn"], counts["tn"], counts["fp"]
    rng = np.random.default_rng(seed)
    shape = (CHAINS, DRAWS)
    prev = rng.beta(tp + fn + 1, tn + fp + 1, shape)  # Laplace priors
    tpr = rng.beta(tp + 1, fn + 1, shape)
    tnr = rng.beta(tn + 1, fp + 1, shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        post = _binary_metrics(prev * tpr, prev * (1 - tpr), (1 - prev) * (1 - tnr),
                               (1 - prev) * tnr)
        n = tp + fn + tn + fp
        observed = _binary_metrics(*(np.float64(c) / n for c in (tp, fn, fp, tn)))
    names = list(post)
    x = np.stack([np.broadcast_to(post[k], shape) for k in names])  # (27, chain, draw)
    flat = x.reshape(len(names), -1)
    lo, hi = hdi_partition(flat, PROB)
    rhat, ess = rhat_ess(x)
    return pd.DataFrame({"observed": [float(observed[k]) for k in names],
                         "mean": flat.mean(axis=1), "sd": flat.std(axis=1, ddof=1),
                         "hdi_lower": lo, "hdi_upper": hi, "mu": hi - lo, "r_hat": rhat,
                         "ess_mean": ess}, index=pd.Index(names, name="variable"))


# ---------------------------------------------------------------- the rows
def multiclass_case() -> tuple[bcm.ConfusionMatrix, np.ndarray, np.ndarray]:
    """A 10-class matrix of N = 1,000 (80 % on the diagonal) and bayescm's default prior."""
    from bayescm.priors.multiclass import resolve_multiclass_priors

    k, n, accuracy = 10, 1000, 0.8
    rng = np.random.default_rng(0)
    prevalence = rng.dirichlet(np.full(k, 5.0))
    rates = np.full((k, k), (1 - accuracy) / (k - 1)) + np.eye(k) * (
        accuracy - (1 - accuracy) / (k - 1))
    counts = rng.multinomial(n, (prevalence[:, None] * rates).ravel()).reshape(k, k)
    labels = [f"c{i}" for i in range(k)]
    chosen = resolve_multiclass_priors(labels)
    prevalence_alpha = np.broadcast_to(np.asarray(chosen["prevalence"].alpha, float), (k,))
    rates_alpha = np.broadcast_to(np.asarray(chosen["rates"].alpha, float), (k, k))
    return bcm.ConfusionMatrix(counts, labels=labels), prevalence_alpha.copy(), rates_alpha.copy()


def rows() -> list[tuple[str, str, Callable[[int], pd.DataFrame], Callable[[int], pd.DataFrame]]]:
    cocaine = bcm.ConfusionMatrix.from_counts(**COCAINE)
    cocaine_matrix = np.array([[COCAINE["tp"], COCAINE["fn"]], [COCAINE["fp"], COCAINE["tn"]]])
    out = []
    if have("classifier_uncertainty"):
        out.append(("9 metrics + 95 % HDI, binary (cocaine matrix)", "classifier-uncertainty",
                    lambda s: bayescm_summary(cocaine, list(CU_METRICS), s, ten=False),
                    cu_summary))
    else:
        print("classifier-uncertainty is not installed: row (a) skipped "
              "(pip install 'bayescm[bench]').")
    if have("prob_conf_mat"):
        out.append(("21 metrics + 10 summaries, binary (cocaine matrix)", "prob_conf_mat",
                    lambda s: bayescm_summary(cocaine, list(PCM_BINARY), s, ten=True),
                    lambda s: pcm_summary(cocaine_matrix, PCM_BINARY, s, 1.0, 1.0)))
        cm10, prev_alpha, rates_alpha = multiclass_case()
        out.append(("8 metrics + 10 summaries, 10 classes (N = 1,000)", "prob_conf_mat",
                    lambda s: bayescm_summary(cm10, list(PCM_MULTICLASS), s, ten=True),
                    lambda s: pcm_summary(np.asarray(cm10.counts), PCM_MULTICLASS, s,
                                          prev_alpha, rates_alpha)))
    else:
        print("prob_conf_mat is not installed: rows (b) and (c) skipped "
              "(pip install 'bayescm[bench]').")
    out.append(("full binary fit + summary (27 variables, R-hat/ESS)",
                "hand-written NumPy, partition HDI",
                lambda s: bcm.summary(bcm.fit(cocaine, random_seed=s)),
                lambda s: numpy_fit_summary(COCAINE, s)))
    return out


def agreement(ours: pd.DataFrame, theirs: pd.DataFrame) -> str:
    """Largest differences of the means and HDI bounds over the metrics bounded in [-1, 1]."""
    names = [n for n in theirs.index if n in ours.index
             and np.all(np.abs(ours.loc[n, ["mean", "hdi_lower", "hdi_upper"]]) <= 1)]
    d_mean = float(np.max(np.abs(ours.loc[names, "mean"] - theirs.loc[names, "mean"])))
    d_hdi = float(np.max(np.abs(ours.loc[names, ["hdi_lower", "hdi_upper"]].to_numpy()
                                - theirs.loc[names, ["hdi_lower", "hdi_upper"]].to_numpy())))
    ok = d_mean < 0.01 and d_hdi < 0.03
    return (f"{'same' if ok else 'DIFFERENT'} results: max |mean diff| {d_mean:.4f}, "
            f"max |HDI bound diff| {d_hdi:.4f} over {len(names)} metrics")


def import_time(statement: str) -> float:
    """Seconds ``statement`` takes in a fresh interpreter."""
    code = (f"import time; t = time.perf_counter(); {statement}; "
            "print(time.perf_counter() - t)")
    return float(subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                                check=True).stdout)


def import_times(statements: list[str], repeat: int = 9) -> list[float]:
    """Median import time of each statement, the statements alternating in every round.

    bayescm's bytecode is compiled first, as installing a wheel does (pip compiles every
    module; numpy and xarray were compiled so): an editable install under
    ``PYTHONDONTWRITEBYTECODE`` would otherwise compile all of bayescm at each import.
    """
    import compileall

    compileall.compile_dir(os.path.dirname(bcm.__file__), quiet=1)
    times: list[list[float]] = [[] for _ in statements]
    for _ in range(repeat):
        for i, statement in enumerate(statements):
            times[i].append(import_time(statement))
    return [statistics.median(t) for t in times]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=11, help="timed rounds (default 11)")
    parser.add_argument("--out", help="a markdown file whose 'peers' section this run rewrites "
                                      "(the README cites benchmarks/performance.md)")
    args = parser.parse_args()
    started = os.getloadavg()[0]
    lines: list[str] = []

    def say(line: str = "") -> None:
        print(line, flush=True)
        lines.append(line)

    table = rows()
    times: list[list[list[float]]] = [[[], []] for _ in table]
    last: list[list[pd.DataFrame]] = [[pd.DataFrame(), pd.DataFrame()] for _ in table]
    for r in range(args.rounds + 1):  # round 0 warms up
        for i, (_, _, ours, theirs) in enumerate(table):
            order = [(0, ours), (1, theirs)] if r % 2 == 0 else [(1, theirs), (0, ours)]
            for j, func in order:
                gc.collect()
                start = time.perf_counter()
                last[i][j] = func(1000 + r)
                elapsed = time.perf_counter() - start
                if r:
                    times[i][j].append(elapsed)
    say()
    say(f"Equal work, {TOTAL:,} draws, alternating contenders, medians of {args.rounds} "
        f"rounds; {os.cpu_count()} cores, load average "
        f"{', '.join(f'{v:.2f}' for v in os.getloadavg())}")
    say()
    say("| workload (equal work) | bayescm | peer | bayescm / peer |")
    say("|---|---|---|---|")
    for (label, peer, _, _), (ours, theirs) in zip(table, times, strict=True):
        a, b = statistics.median(ours), statistics.median(theirs)
        say(f"| {label} | {a * 1e3:.1f} ms | {peer}: {b * 1e3:.1f} ms | {a / b:.2f} |")
    say()
    for (label, _, _, _), (ours, theirs) in zip(table, last, strict=True):
        say(f"{label}: {agreement(ours, theirs)}")
    say()
    cm10, _, _ = multiclass_case()
    full10 = []
    for r in range(args.rounds + 1):
        gc.collect()
        start = time.perf_counter()
        bcm.summary(bcm.fit(cm10, random_seed=r))
        if r:
            full10.append(time.perf_counter() - start)
    say(f"full 10-class fit + summary (every default variable, R-hat/ESS): "
        f"{statistics.median(full10) * 1e3:.0f} ms (target <= 250 ms)")
    base, own = import_times(["import numpy, xarray", "import bayescm"])
    say(f"import bayescm {own * 1e3:.0f} ms vs import numpy, xarray {base * 1e3:.0f} ms "
        f"(ratio {own / base:.2f}; fresh interpreters, alternating, median of 9, bytecode "
        "compiled)")
    for module in ("classifier_uncertainty", "prob_conf_mat"):
        if have(module):
            (took,) = import_times([f"import {module}"], repeat=5)
            say(f"import {module}: {took * 1e3:.0f} ms")
    if args.out:
        command = " ".join(["benchmarks/bench_peers.py", *sys.argv[1:]])
        write_section(args.out, "peers", "\n".join([
            "## Equal work against the peers (`benchmarks/bench_peers.py`)", "",
            run_record(command, started),
            *lines]))


if __name__ == "__main__":
    main()
