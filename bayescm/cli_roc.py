"""The ``bayescm roc`` command: posterior AUCs of scored items read from a CSV file.

``bayescm roc scores.csv --label y --score old new`` fits the scores (``bcm.fit(bcm.Scores(...))``:
the Dirichlet-process posterior by default, ``--method bootstrap`` for the Bayesian bootstrap)
and prints, per classifier (score column), the observed AUC and the posterior mean, sd and HDI;
with two or more classifiers also, for every pair, the difference ``AUC_B - AUC_A`` (B the later
column) with its HDI and ``P(B > A)``: both AUCs come from the same weights, so it is a paired
comparison. ``--plot DIR`` writes ``roc.png``,
``pr.png``, ``reliability.png`` (probability scores only) and ``delta_auc.png``.
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bayescm.cli_common import (
    UsageError,
    existing,
    format_table,
    note_seed,
    positive_int,
    probability,
    progress,
    seed_for,
    seed_int,
    table_json,
)

__all__ = ["add_parser", "auc_tables", "run", "write_figures"]

def add_parser(sub: Any) -> None:
    """Add the ``roc`` command to the subparsers ``sub`` of the ``bayescm`` parser."""
    p = sub.add_parser(
        "roc", help="posterior ROC curve and AUC of scored items (CSV of labels and scores)",
        description="Posterior AUC of each score column (a Dirichlet-process posterior over "
                    "the items, or the Bayesian bootstrap), and for several columns the paired "
                    "difference of every two AUCs with P(B > A).")
    p.add_argument("file", help="CSV with a header row: a label column and one score column "
                                "per classifier (higher = more positive)")
    p.add_argument("--label", required=True, metavar="COL", help="column of the true labels")
    p.add_argument("--score", required=True, nargs="+", metavar="COL",
                   help="score column(s), one classifier each")
    p.add_argument("--positive", metavar="VALUE",
                   help="the positive label as written in the file (default 1 for 0/1 labels)")
    p.add_argument("--method", default="dirichlet_process",
                   choices=["dirichlet_process", "bootstrap"],
                   help="dirichlet_process (default: mass beyond the observed scores, an AUC "
                        "interval that keeps its probability for small samples and separated "
                        "classes) or bootstrap (the Bayesian bootstrap of the items)")
    p.add_argument("--draws", type=positive_int, default=1000,
                   help="posterior draws per chain (default 1000)")
    p.add_argument("--chains", type=positive_int, default=4,
                   help="independent chains of draws (default 4)")
    p.add_argument("--seed", type=seed_int, help="random seed; without it one is drawn and "
                                                 "printed with the results, so --seed repeats "
                                                 "a run exactly")
    p.add_argument("--hdi-prob", type=probability, default=None,
                   help="probability of the intervals (default rcParams['stats.hdi_prob'], 0.95)")
    p.add_argument("--format", default="table", choices=["table", "json", "csv"],
                   help="table (default: aligned columns for reading), json (standard JSON: "
                        "NaN is null, infinities \"inf\") or csv")
    p.add_argument("--plot", metavar="DIR", help="write roc.png, pr.png, reliability.png and, "
                                                 "for several columns, delta_auc.png into DIR")
    p.set_defaults(func=run)


def _read(args: argparse.Namespace) -> Any:
    from bayescm.core.scores import Scores

    path = existing(args.file)
    twice = sorted({c for c in args.score if args.score.count(c) > 1})
    if twice:
        raise UsageError(f"score column {twice[0]!r} is given twice")
    if args.label in args.score:
        raise UsageError(f"{args.label!r} is the label column; it cannot also be a score")
    try:
        return Scores.from_csv(path, label=args.label, score=list(args.score),
                               positive=args.positive)
    except ValueError as err:  # the message names the file
        if args.positive is None and "positive=" in str(err):
            raise UsageError(str(err).replace("positive=", "--positive")) from None
        raise


def auc_tables(idata: Any, hdi_prob: float | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The AUC of each classifier and the difference of each pair, as two tables.

    Parameters
    ----------
    idata : xarray.DataTree
        A scores fit.
    hdi_prob : float, optional
        Interval probability; default the fit's.

    Returns
    -------
    aucs, deltas : pandas.DataFrame
        ``aucs`` by classifier: ``observed, mean, sd, hdi_lower, hdi_upper``. ``deltas`` by
        pair ``"B - A"`` (B the later classifier): the same columns for ``AUC_B - AUC_A`` and
        ``p_greater`` = P(AUC_B > AUC_A); empty for a single classifier.

    Examples
    --------
    >>> from bayescm.models.scores import ScoresModel
    >>> from bayescm.cli_roc import auc_tables
    >>> aucs, deltas = auc_tables(ScoresModel.example())
    >>> list(aucs.index), list(deltas.index), list(deltas.columns)[-1]
    (['A', 'B'], ['B - A'], 'p_greater')
    """
    from bayescm.core.stats import hdi, hdi_prob_for

    prob = hdi_prob_for(hdi_prob, idata)
    post, obs = idata["posterior"]["auc"], idata["observed_metrics"]["auc"]
    if "classifier" not in post.dims:
        post, obs = post.expand_dims(classifier=["A"], axis=-1), obs.expand_dims(classifier=["A"])
    names = [str(v) for v in post["classifier"].values]
    draws = np.asarray(post.transpose(..., "classifier").values, dtype=float).reshape(
        -1, len(names))
    observed = np.asarray(obs.values, dtype=float)

    def row(x: np.ndarray, seen: float) -> dict[str, float]:
        lo, hi = hdi(x, prob)
        return {"observed": seen, "mean": float(np.mean(x)), "sd": float(np.std(x, ddof=1)),
                "hdi_lower": float(lo), "hdi_upper": float(hi)}

    aucs = pd.DataFrame([row(draws[:, i], observed[i]) for i in range(len(names))],
                        index=pd.Index(names, name="classifier"))
    pairs = {}
    for i, j in itertools.combinations(range(len(names)), 2):
        diff = draws[:, j] - draws[:, i]
        pairs[f"{names[j]} - {names[i]}"] = {**row(diff, observed[j] - observed[i]),
                                              "p_greater": float(np.mean(diff > 0))}
    deltas = pd.DataFrame.from_dict(pairs, orient="index", columns=[
        "observed", "mean", "sd", "hdi_lower", "hdi_upper", "p_greater"])
    deltas.index.name = "pair"
    aucs.attrs["hdi_prob"] = deltas.attrs["hdi_prob"] = prob
    return aucs, deltas


def write_figures(idata: Any, folder: str | Path) -> tuple[list[Path], list[str]]:
    """Write ``roc.png``, ``pr.png``, ``reliability.png`` and ``delta_auc.png`` into ``folder``.

    The figures of :func:`bayescm.io.runner.scores_figure` (those of a spec's outputs). Returns
    the files written and notes on figures left out (the reliability diagram of scores that are
    not probabilities).

    Examples
    --------
    >>> import tempfile
    >>> from bayescm.models.scores import ScoresModel
    >>> from bayescm.cli_roc import write_figures
    >>> files, notes = write_figures(ScoresModel.example(), tempfile.mkdtemp())
    >>> [p.name for p in files], notes
    (['roc.png', 'pr.png', 'reliability.png', 'delta_auc.png'], [])
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bayescm.core.files import atomic_write, ensure_folder
    from bayescm.io.runner import scores_figure

    out = ensure_folder(folder, "figures")
    several = "classifier" in idata["posterior"].dims and idata["posterior"].sizes[
        "classifier"] > 1
    written: list[Path] = []
    notes: list[str] = []
    for kind in ("roc", "pr", "reliability", *(["delta_auc"] if several else [])):
        try:
            fig = scores_figure(idata, kind)
        except ValueError as err:  # scores that are not probabilities: no reliability curve
            plt.close("all")
            notes.append(f"{kind}.png not written: {err}")
            continue
        try:
            written.append(atomic_write(f"{kind}.png", partial(fig.savefig, dpi=120,
                                                               format="png"), root=out))
        finally:
            plt.close(fig)
    return written, notes


def run(args: argparse.Namespace) -> int:
    """The ``roc`` command: read, fit, print the tables, draw the figures."""
    import bayescm as bcm
    from bayescm.core.stats import hdi_prob_for

    data = _read(args)
    if args.plot is not None:
        from bayescm.core.files import check_folder

        check_folder(args.plot, "figures")  # before the fit, not after
    seed, drawn = seed_for(args.seed)
    say = progress(sys.stderr.isatty())
    if say:
        say(f"fitting {data.n} items ({data.n_pos} positive), {len(data.names)} classifier(s)")
    idata = bcm.fit(data, draws=args.draws, chains=args.chains, random_seed=seed,
                    hdi_prob=hdi_prob_for(args.hdi_prob), method=args.method)
    aucs, deltas = auc_tables(idata)
    prob = aucs.attrs["hdi_prob"]
    if args.format == "json":
        print(json.dumps({"n": data.n, "n_pos": data.n_pos, "positive": str(data.positive),
                          "method": args.method, "draws": args.draws, "chains": args.chains,
                          "hdi_prob": prob, "seed": seed,
                          "auc": table_json(aucs), "delta_auc": table_json(deltas)}, indent=2))
    elif args.format == "csv":
        both = pd.concat([aucs.rename(index=lambda k: f"auc[{k}]"),
                          deltas.rename(index=lambda k: f"delta_auc[{k}]")])
        both.index.name = "variable"
        both.to_csv(sys.stdout)
    else:
        print(f"AUC: {data.n:,} items ({data.n_pos:,} positive, positive class "
              f"{data.positive!r}), {args.chains} x {args.draws:,} {args.method} draws, "
              f"{100 * prob:g} % HDI, seed {seed} (--seed {seed} repeats this run)")
        print(format_table(aucs))
        if len(deltas):
            print("\nAUC difference B - A (paired: the same items) and P(B > A)")
            print(format_table(deltas))
    note_seed("roc", seed, drawn, args.format)
    if args.plot is not None:
        if say:
            say(f"drawing into {args.plot}")
        written, notes = write_figures(idata, args.plot)
        for note in notes:
            print(f"bayescm roc: note: {note}", file=sys.stderr)
        if args.format == "table":
            print(f"\nwrote {', '.join(p.name for p in written)} to {args.plot}")
    return 0
