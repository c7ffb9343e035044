"""The ``bayescm dca`` command: posterior decision curves of risks read from a CSV file.

``bayescm dca risks.csv --label cancer --score model_a model_b`` fits the risks
(``bcm.fit(bcm.Scores(...))``, the Dirichlet-process posterior by default) and prints, per model
and threshold probability, the point net benefit of the items (the number ``dcurves`` prints),
the posterior mean and HDI, P(useful) (the model beats treat-all and treat-none), treat-all's
net benefit and the EVPI. ``--thresholds`` lists thresholds, ``--range START STOP STEP`` makes a
grid (both ends included, as ``dcurves``); ``--cost-fp`` and ``--cost-fn`` add the expected cost
per case at the fit's threshold (``--prevalence`` at another prevalence); ``--plot PATH`` writes
the decision curve (PNG, on a 0.01 grid over the thresholds' range).
"""

from __future__ import annotations

import argparse
import json
import sys
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
    real,
    seed_for,
    seed_int,
    table_json,
)

__all__ = ["DEFAULT_TABLE_THRESHOLDS", "add_parser", "run", "thresholds_of"]

DEFAULT_TABLE_THRESHOLDS = (0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5)
"""The thresholds the table shows without ``--thresholds`` or ``--range``."""


def add_parser(sub: Any) -> None:
    """Add the ``dca`` command to the subparsers ``sub`` of the ``bayescm`` parser."""
    p = sub.add_parser(
        "dca", help="posterior decision curves (net benefit) of risks (CSV of labels and risks)",
        description="Posterior net benefit of each risk column across threshold probabilities "
                    "(a case is treated when its risk is >= t, as in dcurves), with P(useful), "
                    "treat-all and the expected value of perfect information.")
    p.add_argument("file", help="CSV with a header row: a label column and one risk column per "
                                "model (predicted probabilities in [0, 1])")
    p.add_argument("--label", required=True, metavar="COL", help="column of the true labels")
    p.add_argument("--score", required=True, nargs="+", metavar="COL",
                   help="risk column(s), one model each")
    p.add_argument("--positive", metavar="VALUE",
                   help="the positive label as written in the file (default 1 for 0/1 labels)")
    grid = p.add_mutually_exclusive_group()
    grid.add_argument("--thresholds", type=real, nargs="+", metavar="T",
                      help="threshold probabilities in (0, 1) (default 0.05, 0.1, ..., 0.5)")
    grid.add_argument("--range", type=real, nargs=3, metavar=("START", "STOP", "STEP"),
                      help="a grid of thresholds from START to STOP (both included) by STEP")
    p.add_argument("--cost-fp", type=real, metavar="C",
                   help="cost of a false positive: with --cost-fn, adds the expected cost per "
                        "case of treating when risk >= 0.5")
    p.add_argument("--cost-fn", type=real, metavar="C", help="cost of a false negative")
    p.add_argument("--prevalence", type=probability, metavar="P",
                   help="deployment prevalence of the expected cost (default the items')")
    p.add_argument("--method", default="dirichlet_process",
                   choices=["dirichlet_process", "bootstrap"],
                   help="dirichlet_process (default) or bootstrap (the Bayesian bootstrap: its "
                        "posterior mean is the point net benefit)")
    p.add_argument("--draws", type=positive_int, default=1000,
                   help="posterior draws per chain (default 1000)")
    p.add_argument("--chains", type=positive_int, default=4,
                   help="independent chains of draws (default 4)")
    p.add_argument("--seed", type=seed_int, help="random seed; without it one is drawn and "
                                                 "printed with the results")
    p.add_argument("--hdi-prob", type=probability, default=None,
                   help="probability of the intervals (default rcParams['stats.hdi_prob'], 0.95)")
    p.add_argument("--format", default="table", choices=["table", "json", "csv"],
                   help="table (default), json or csv")
    p.add_argument("--plot", metavar="PATH",
                   help="write the decision curve to PATH (PNG, PDF, SVG: the suffix decides)")
    p.set_defaults(func=run)


def thresholds_of(args: argparse.Namespace) -> np.ndarray:
    """The thresholds of ``--thresholds`` or ``--range`` (checked), else the default ones.

    Examples
    --------
    >>> from argparse import Namespace
    >>> from bayescm.cli_dca import thresholds_of
    >>> thresholds_of(Namespace(thresholds=None, range=[0.1, 0.3, 0.1])).tolist()
    [0.1, 0.2, 0.3]
    """
    from bayescm.analyses.decision_draws import check_thresholds

    if args.range is not None:
        start, stop, step = args.range
        if not step > 0 or stop < start:
            raise UsageError(f"--range {start:g} {stop:g} {step:g}: give START <= STOP and a "
                             "STEP > 0, e.g. --range 0.05 0.5 0.05")
        count = int(np.floor((stop - start) / step + 1e-9)) + 1
        values = np.round(start + step * np.arange(count), 10)
    else:
        values = np.asarray(args.thresholds or DEFAULT_TABLE_THRESHOLDS, dtype=float)
    try:
        return check_thresholds(values)
    except ValueError as err:
        raise UsageError(str(err).replace("thresholds must", "--thresholds must")) from None


def _costs(args: argparse.Namespace) -> tuple[float, float] | None:
    from bayescm.analyses.cost import check_costs

    given = [args.cost_fp is not None, args.cost_fn is not None]
    if not any(given):
        if args.prevalence is not None:
            raise UsageError("--prevalence is the prevalence of the expected cost; give "
                             "--cost-fp and --cost-fn with it")
        return None
    if not all(given):
        raise UsageError("give both --cost-fp and --cost-fn (the expected cost needs both)")
    for flag, value in (("--cost-fp", args.cost_fp), ("--cost-fn", args.cost_fn)):
        if not np.isfinite(value) or value < 0:
            raise UsageError(f"{flag} must be a finite number >= 0, got {value:g}")
    if args.cost_fp == 0 and args.cost_fn == 0:
        raise UsageError("--cost-fp and --cost-fn are both zero: every strategy costs nothing; "
                         "give the cost of a false positive and of a false negative")
    c_fp, c_fn, _ = check_costs(args.cost_fp, args.cost_fn, 0.0)
    return c_fp, c_fn


def _read(args: argparse.Namespace) -> Any:
    from bayescm.core.scores import Scores

    path = existing(args.file)
    twice = sorted({c for c in args.score if args.score.count(c) > 1})
    if twice:
        raise UsageError(f"score column {twice[0]!r} is given twice")
    if args.label in args.score:
        raise UsageError(f"{args.label!r} is the label column; it cannot also be a risk")
    try:
        data = Scores.from_csv(path, label=args.label, score=list(args.score),
                               positive=args.positive)
    except ValueError as err:
        if args.positive is None and "positive=" in str(err):
            raise UsageError(str(err).replace("positive=", "--positive")) from None
        raise
    for name, s in data.scores.items():
        if np.any(s < 0) or np.any(s > 1):
            raise UsageError(f"column {name!r} holds {s.min():g} to {s.max():g}; decision "
                             "curves need risks (predicted probabilities in [0, 1]): calibrate "
                             "the scores to probabilities first")
    return data


def _figure(idata: Any, thresholds: np.ndarray, path: str) -> None:
    import matplotlib

    matplotlib.use("Agg")

    import bayescm as bcm
    from bayescm.cli_common import save_figure

    lo, hi = float(thresholds.min()), float(thresholds.max())
    fine = np.unique(np.concatenate([np.round(np.arange(lo, hi + 1e-9, 0.01), 10), thresholds]))
    ax = bcm.plots.plot_decision_curve(bcm.net_benefit(idata, thresholds=fine))
    save_figure(ax.get_figure(root=True), path)  # in the format the suffix names


def run(args: argparse.Namespace) -> int:
    """The ``dca`` command: read, fit, print the tables, draw the figure."""
    import bayescm as bcm
    from bayescm.analyses.decision_tables import cost_table, net_benefit_table
    from bayescm.cli_common import check_figure_path
    from bayescm.core.stats import hdi_prob_for

    thresholds = thresholds_of(args)
    costs = _costs(args)
    if args.plot is not None:
        check_figure_path(args.plot)  # before the fit, not after
    data = _read(args)
    seed, drawn = seed_for(args.seed)
    say = progress(sys.stderr.isatty())
    if say:
        say(f"fitting {data.n} items ({data.n_pos} positive), {len(data.names)} model(s)")
    idata = bcm.fit(data, draws=args.draws, chains=args.chains, random_seed=seed,
                    hdi_prob=hdi_prob_for(args.hdi_prob), method=args.method)
    table = net_benefit_table(bcm.net_benefit(idata, thresholds=thresholds))
    prob = table.attrs["hdi_prob"]
    costs_table = None
    if costs is not None:
        costs_table = cost_table(bcm.expected_cost(idata, cost_fp=costs[0], cost_fn=costs[1],
                                                   prevalence=args.prevalence,
                                                   random_seed=seed))
    if args.format == "json":
        payload = {"n": data.n, "n_pos": data.n_pos, "positive": str(data.positive),
                   "method": args.method, "draws": args.draws, "chains": args.chains,
                   "hdi_prob": prob, "seed": seed, "thresholds": thresholds.tolist(),
                   "net_benefit": {s: table_json(table.loc[s]) for s in
                                   table.index.get_level_values(0).unique()}}
        if costs_table is not None:
            payload["expected_cost"] = table_json(costs_table)
        print(json.dumps(payload, indent=2))
    elif args.format == "csv":
        out = table.reset_index()
        out.insert(0, "variable", "net_benefit")
        if costs_table is not None:
            extra = costs_table.reset_index()
            extra.insert(0, "variable", "expected_cost")
            out = pd.concat([out, extra], ignore_index=True)
        out.to_csv(sys.stdout, index=False)
    else:
        print(f"Net benefit: {data.n:,} items ({data.n_pos:,} positive, positive class "
              f"{data.positive!r}), {args.chains} x {args.draws:,} {args.method} draws, "
              f"{100 * prob:g} % HDI, seed {seed} (--seed {seed} repeats this run); treated "
              "when risk >= t")
        shown = table.copy()
        shown.index = pd.Index([f"{m} @ {t:g}" for m, t in table.index], name="model @ t")
        print(format_table(shown))
        if costs is not None and costs_table is not None:
            where = ("the items' prevalence" if args.prevalence is None
                     else f"prevalence {args.prevalence:g}")
            print(f"\nExpected cost per case at threshold {idata.attrs.get('threshold', 0.5):g} "
                  f"(cost FP {costs[0]:g}, FN "
                  f"{costs[1]:g}, {where})")
            print(format_table(costs_table))
    note_seed("dca", seed, drawn, args.format)
    if args.plot is not None:
        if say:
            say(f"drawing {args.plot}")
        _figure(idata, thresholds, args.plot)
        if args.format == "table":
            print(f"\nwrote {args.plot}")
    return 0
