"""The ``bayescm audit`` command: a population's metrics from a stratified audit (CSV).

``bayescm audit audit.csv`` reads one row per stratum, ``stratum, size, tp, fn, tn, fp``
(:func:`bayescm.io.readers.read_audit_csv`: the stratum's size in the population and the counts
of its labelled items), fits the kind ``"stratified"`` (``bcm.fit(bcm.StratifiedSample(...))``,
exact draws) and prints the population's metrics with their HDIs; the observed value of each is
the design-weighted estimate (each stratum's labelled shares scaled to its size). Beside it the
command prints what treating the labelled items as one random sample would have said, which
is badly wrong when strata are sampled at different rates. ``--plot PATH`` draws the forest.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from bayescm.cli_common import (
    emit,
    existing,
    note_seed,
    positive_int,
    probability,
    seed_for,
    seed_int,
)

__all__ = ["add_parser", "run"]

DEFAULT_METRICS = ("prevalence", "tpr", "tnr", "ppv", "npv", "f1", "acc")
"""The metrics printed unless ``--metrics`` names others."""


_POPULATION = {"finite": "the population's own confusion matrix",
               "super-population": "the super-population (strata weighted by size)"}


def add_parser(sub: Any) -> None:
    """Add the ``audit`` command to the subparsers ``sub`` of the ``bayescm`` parser."""
    p = sub.add_parser(
        "audit", help="a population's metrics from items labelled within strata",
        description="Fit a stratified audit (one row per stratum: stratum, size, tp, fn, tn, "
                    "fp; size the stratum's number of items in the population) and print the "
                    "population's metrics with their intervals, beside the naive estimate that "
                    "treats the labelled items as one random sample.")
    p.add_argument("file", help="CSV with columns stratum, size, tp, fn, tn, fp")
    p.add_argument("--metrics", nargs="+", metavar="NAME",
                   help=f"metrics to print (default {' '.join(DEFAULT_METRICS)})")
    p.add_argument("--super-population", action="store_true",
                   help="the metrics of the process that made the population (strata weighted "
                        "by size) instead of the population's own confusion matrix")
    p.add_argument("--draws", type=positive_int, default=5000,
                   help="exact draws per chain (default 5000)")
    p.add_argument("--chains", type=positive_int, default=4, help="chains (default 4)")
    p.add_argument("--seed", type=seed_int, help="random seed; without it one is drawn and "
                                                 "printed with the results")
    p.add_argument("--hdi-prob", type=probability, default=None,
                   help="probability of the intervals (default 0.95)")
    p.add_argument("--format", default="table", choices=["table", "json", "csv"],
                   help="table (default), json or csv")
    p.add_argument("--plot", metavar="PATH", help="write the forest of the metrics (PNG, PDF, "
                                                  "SVG by the suffix)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """The ``audit`` command: read, fit, print, draw."""
    import numpy as np

    import bayescm as bcm
    from bayescm.cli_common import check_figure_path, save_figure
    from bayescm.io.readers import read_audit_csv
    from bayescm.models.stratified_fit import naive_reading

    audit = read_audit_csv(existing(args.file))
    if args.plot is not None:
        check_figure_path(args.plot)
    metrics = list(args.metrics or DEFAULT_METRICS)
    seed, drawn = seed_for(args.seed)
    kwargs: dict[str, Any] = {"draws": args.draws, "chains": args.chains, "random_seed": seed,
                              "metrics": metrics, "finite": not args.super_population}
    if args.hdi_prob is not None:
        kwargs["hdi_prob"] = args.hdi_prob
    idata = bcm.fit(audit, **kwargs)
    table = bcm.summary(idata, var_names=[m for m in metrics
                                          if m in idata["posterior"].data_vars])
    table["naive"] = naive_reading(audit, table.index)
    extra = {"model": "stratified", "strata": audit.strata,
             "sizes": [int(v) for v in audit.sizes], "seed": seed,
             "population": idata.attrs["population"]}
    if args.format == "table":
        print(f"Stratified audit of {int(audit.sizes.sum()):,} items in {len(audit.strata)} "
              f"strata ({int(np.asarray(audit.counts).sum()):,} labelled), "
              f"{_POPULATION[idata.attrs['population']]}: exact draws ({args.chains} x "
              f"{args.draws:,}), seed {seed} (--seed {seed} repeats this run). observed = "
              "design-weighted; naive = the labelled items read as one random sample (wrong "
              "when strata are sampled at different rates)")
    emit(table, args.format, extra)
    if args.plot is not None:
        import matplotlib

        matplotlib.use("Agg")
        from bayescm.io.runner import figure

        save_figure(figure(idata, "forest", metrics), args.plot)
        if args.format == "table":
            print(f"wrote {args.plot}", file=sys.stderr)
    note_seed("audit", seed, drawn, args.format)
    return 0

