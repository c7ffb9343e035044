"""The ``bayescm eval`` command: accuracy of LLM-style systems from an item-level log (CSV).

``bayescm eval log.csv --outcome correct --item question --cluster passage --system model
--attempt epoch`` reads one row per outcome (:meth:`bayescm.Items.from_csv`), fits the items
model (``bcm.fit(bcm.Items(...))``, NUTS) and prints, per system, the accuracy on a new item
from the same population with its HDI, the naive interval beside it (every attempt an
independent Bernoulli trial: ``Beta(1 + correct, 1 + wrong)``), the CR1 cluster-robust interval
and the design effect; then, for every pair, the difference ``B - A`` (B the later system) with
its HDI, ``P(B > A)`` and the paired CR1 interval: both accuracies come from one posterior with
shared item difficulty, so it is a paired comparison (:func:`~bayescm.analyses.items_tables.
eval_tables`). ``--plot DIR`` writes ``items_accuracy.png``, ``pass_at_k.png`` and, for two
systems or more, ``items_differences.png`` and ``items_ranks.png`` (the figures a spec's
outputs name the same way).
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import partial
from pathlib import Path
from typing import Any

from bayescm.cli_common import (
    UsageError,
    existing,
    format_table,
    note_seed,
    parameter_prior,
    positive_int,
    probability,
    progress,
    seed_for,
    seed_int,
    table_json,
)

__all__ = ["add_parser", "run", "write_figures"]


def add_parser(sub: Any) -> None:
    """Add the ``eval`` command to the subparsers ``sub`` of the ``bayescm`` parser."""
    p = sub.add_parser(
        "eval", help="accuracy of LLM-style systems from an item-level log (clusters, repeated "
                     "attempts, several systems)",
        description="Fit the items model to an evaluation log (one row per outcome) and print "
                    "each system's accuracy on a new item with its interval, the naive and the "
                    "CR1 cluster-robust intervals beside it, the design effect, and every "
                    "paired difference with P(B > A).")
    p.add_argument("file", help="CSV with a header row and one row per outcome (one attempt of "
                                "one system on one item)")
    p.add_argument("--outcome", "--correct", dest="outcome", metavar="COL",
                   help="column of the outcomes: 1/0 or true/false (or give --label and "
                        "--prediction)")
    p.add_argument("--label", metavar="COL",
                   help="with --prediction instead of --outcome: the true answer's column")
    p.add_argument("--prediction", metavar="COL",
                   help="with --label: the system's answer's column (correct when equal)")
    p.add_argument("--item", required=True, metavar="COL", help="column of the item ids")
    p.add_argument("--cluster", metavar="COL",
                   help="column of the cluster ids (the passage or task an item belongs to)")
    p.add_argument("--system", metavar="COL",
                   help="column of the system (model) names; without it, one system")
    p.add_argument("--attempt", metavar="COL",
                   help="column of the attempt (epoch) numbers; without it, repeated rows of an "
                        "item and system are its attempts")
    p.add_argument("--priors", nargs="+", type=parameter_prior, metavar="PARAM=PRIOR",
                   help="priors keyed by parameter (mu_logit, sd_cluster, sd_item, "
                        "sd_system_item) as JSON tables, e.g. sd_item='{\"dist\": "
                        "\"HalfNormal\", \"sigma\": 1}'")
    p.add_argument("--draws", type=positive_int, default=1000,
                   help="NUTS draws per chain (default 1000)")
    p.add_argument("--chains", type=positive_int, default=4,
                   help="independent chains (default 4)")
    p.add_argument("--tune", type=positive_int, default=None,
                   help="NUTS tuning steps per chain (default 1000)")
    p.add_argument("--seed", type=seed_int, help="random seed; without it one is drawn and "
                                                 "printed with the results, so --seed repeats "
                                                 "a run exactly")
    p.add_argument("--hdi-prob", type=probability, default=None,
                   help="probability of the intervals (default rcParams['stats.hdi_prob'], 0.95)")
    p.add_argument("--format", default="table", choices=["table", "json", "csv"],
                   help="table (default: aligned columns for reading), json (standard JSON: "
                        "NaN is null) or csv")
    p.add_argument("--plot", metavar="DIR", help="write items_accuracy.png, pass_at_k.png and, "
                                                 "for several systems, items_differences.png "
                                                 "and items_ranks.png into DIR")
    p.set_defaults(func=run)


def _read(args: argparse.Namespace) -> Any:
    from bayescm.core.items import Items

    path = existing(args.file)
    if args.outcome is None and (args.label is None or args.prediction is None):
        raise UsageError("give --outcome COL (1/0 outcomes) or both --label COL and "
                         "--prediction COL")
    if args.outcome is not None and (args.label is not None or args.prediction is not None):
        raise UsageError("give --outcome or --label with --prediction, not both")
    return Items.from_csv(path, outcome=args.outcome, item=args.item, cluster=args.cluster,
                          system=args.system, attempt=args.attempt, label=args.label,
                          prediction=args.prediction)


def _priors(args: argparse.Namespace) -> dict[str, Any]:
    """``--priors`` as ``fit(priors=...)``; a parameter given twice is an error."""
    names = [name for name, _ in args.priors or []]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"the prior of {twice[0]} is given twice; give it once")
    return dict(args.priors or [])


def _fit(data: Any, **kwargs: Any) -> Any:
    """The fit of the log (one place, so tests can stand in a fit without NUTS)."""
    import bayescm as bcm

    return bcm.fit(data, **kwargs)


def write_figures(idata: Any, data: Any, folder: str | Path) -> list[Path]:
    """Write the PNG of each default figure of the log ``data`` into ``folder``.

    The figures a spec of the log draws by default
    (:func:`bayescm.io.spec_items.default_items_figures`).

    Examples
    --------
    >>> import tempfile
    >>> from bayescm.models.items import ItemsModel
    >>> from bayescm.cli_eval import write_figures
    >>> import bayescm as bcm
    >>> log = bcm.Items(ItemsModel.example_frame(), cluster="passage", system="system")
    >>> files = write_figures(ItemsModel.example(), log, tempfile.mkdtemp())
    >>> [p.name for p in files]
    ['items_accuracy.png', 'items_differences.png', 'items_ranks.png', 'pass_at_k.png']
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bayescm.core.files import atomic_write, ensure_folder
    from bayescm.io.runner import items_figure
    from bayescm.io.spec_items import default_items_figures

    out = ensure_folder(folder, "figures")
    written = []
    for name in default_items_figures(data):
        fig = items_figure(idata, name)
        try:
            written.append(atomic_write(f"{name}.png", partial(fig.savefig, dpi=120,
                                                               format="png"), root=out))
        finally:
            plt.close(fig)
    return written


def run(args: argparse.Namespace) -> int:
    """The ``eval`` command: read, fit, print the tables, draw the figures."""
    from bayescm.analyses.items_tables import eval_tables
    from bayescm.core.stats import hdi_prob_for
    from bayescm.io.runner import eval_table

    data = _read(args)
    priors = _priors(args)
    if args.plot is not None:
        from bayescm.core.files import check_folder

        check_folder(args.plot, "figures")  # before the fit, not after
    seed, drawn = seed_for(args.seed)
    say = progress(sys.stderr.isatty())
    if say:
        say(f"fitting {data.n_attempts:,} outcomes of {data.n_systems} system(s) on "
            f"{data.n_items:,} items")
    kwargs: dict[str, Any] = {"draws": args.draws, "chains": args.chains, "random_seed": seed,
                              "hdi_prob": hdi_prob_for(args.hdi_prob)}
    if priors:
        kwargs["priors"] = priors
    if args.tune is not None:
        kwargs["tune"] = args.tune
    idata = _fit(data, **kwargs)
    systems, pairs = eval_tables(idata)
    prob = systems.attrs["hdi_prob"]
    clusters = data.n_clusters if data.clusters is not None else None
    if args.format == "json":
        print(json.dumps({"items": data.n_items, "clusters": clusters,
                          "attempts": data.n_attempts, "systems": data.systems,
                          "draws": args.draws, "chains": args.chains, "hdi_prob": prob,
                          "seed": seed, "priors": json.loads(idata.attrs["priors"]),
                          "accuracy": table_json(systems), "accuracy_diff": table_json(pairs)},
                         indent=2))
    elif args.format == "csv":
        eval_table(idata).to_csv(sys.stdout)
    else:
        where = f" in {clusters:,} clusters" if clusters is not None else ""
        print(f"Accuracy on a new item: {data.n_items:,} items{where}, {data.n_attempts:,} "
              f"outcomes, {args.chains} x {args.draws:,} NUTS draws, {100 * prob:g} % "
              f"intervals, seed {seed} (--seed {seed} repeats this run)")
        print("naive: every attempt independent (too narrow when attempts or items are "
              "alike); cr1: cluster-robust (Miller 2024)")
        print(format_table(systems))
        if len(pairs):
            print("\nAccuracy difference B - A (paired: the same items), P(B > A) and the "
                  "paired CR1 interval")
            print(format_table(pairs))
    note_seed("eval", seed, drawn, args.format)
    if args.plot is not None:
        if say:
            say(f"drawing into {args.plot}")
        written = write_figures(idata, data, args.plot)
        if args.format == "table":
            print(f"\nwrote {', '.join(p.name for p in written)} to {args.plot}")
    return 0
