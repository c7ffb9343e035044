"""The ``bayescm runs`` command: a classifier's metrics over folds, seeds or runs (CSV).

``bayescm runs cv.csv`` reads one row per cell of each run's confusion matrix, ``run, true,
predicted, count`` (:func:`bayescm.io.readers.runs_from_table`; a cell without a row is 0),
fits the hierarchical model over the runs (``bcm.fit({run: ConfusionMatrix},
model="hierarchical", group=...)``, NUTS; binary or multiclass) and prints, per metric, the
pooled value (the population's mean run, ``<metric>_mean``), the between-run spread (the SD of
the metric over new runs, ``<metric>_sd``) and a new run's predictive interval
(``<metric>_new``). ``--compare COL`` names a column with two procedures evaluated on the same
runs: each is fitted, and the paired differences ``A - B`` (A the procedure the file names
first) run by run, their mean and the difference of the population means are printed with
``P(A better)`` (:func:`bayescm.compare_runs`). ``--plot PATH`` draws the runs' forest
(with ``--compare``, one file per procedure: ``PATH`` with ``_<procedure>`` before the suffix).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

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

__all__ = ["add_parser", "run", "runs_table"]

BINARY_METRICS = ("acc", "tpr", "tnr", "f1")
MULTICLASS_METRICS = ("acc", "f1_macro", "recall_macro")
"""The metrics printed unless ``--metrics`` names others."""

FORMAT = ("CSV with a header and one row per cell of a run's confusion matrix: the run's name, "
          "the true class, the predicted class and the count (columns run, true, predicted, "
          "count unless --run, --true, --predicted, --count name others); a cell without a row "
          "is 0")


def add_parser(sub: Any) -> None:
    """Add the ``runs`` command to the subparsers ``sub`` of the ``bayescm`` parser."""
    p = sub.add_parser(
        "runs", help="a classifier's metrics over folds, seeds or runs (pooled, spread, new "
                     "run); two procedures compared on the same runs",
        description="Fit the hierarchical model to several confusion matrices of one classifier "
                    "(cross-validation folds, training seeds, repeated runs) and print, per "
                    "metric, the pooled value, the between-run spread and a new run's "
                    f"predictive interval. Input: {FORMAT}. With --compare COL, two procedures "
                    "on the same runs and their paired differences run by run.")
    p.add_argument("file", help=FORMAT)
    p.add_argument("--run", default="run", metavar="COL",
                   help="column of the run (fold, seed) names (default run)")
    p.add_argument("--true", default="true", metavar="COL",
                   help="column of the true classes (default true)")
    p.add_argument("--predicted", default="predicted", metavar="COL",
                   help="column of the predicted classes (default predicted)")
    p.add_argument("--count", default="count", metavar="COL",
                   help="column of the cells' counts (default count)")
    p.add_argument("--compare", metavar="COL",
                   help="column naming two procedures (e.g. baseline, augmented) evaluated on "
                        "the same runs: fit each and print the differences A - B run by run")
    p.add_argument("--labels", nargs="+", metavar="CLASS",
                   help="the classes in order (default: as they appear in the file)")
    p.add_argument("--positive", metavar="CLASS",
                   help="two classes: the positive one (default the first)")
    p.add_argument("--group", default="run", metavar="NAME",
                   help="the name of the run dim in the result (default run; e.g. fold, seed)")
    p.add_argument("--metrics", nargs="+", metavar="NAME",
                   help="scalar metrics of a run to print (default "
                        f"{' '.join(BINARY_METRICS)} for two classes, "
                        f"{' '.join(MULTICLASS_METRICS)} for more)")
    p.add_argument("--draws", type=positive_int, default=1000,
                   help="NUTS draws per chain (default 1000)")
    p.add_argument("--chains", type=positive_int, default=4,
                   help="independent chains (default 4)")
    p.add_argument("--tune", type=positive_int, default=None,
                   help="NUTS tuning steps per chain (default the model's)")
    p.add_argument("--seed", type=seed_int, help="random seed; without it one is drawn and "
                                                 "printed with the results, so --seed repeats "
                                                 "a run exactly")
    p.add_argument("--hdi-prob", type=probability, default=None,
                   help="probability of the intervals (default rcParams['stats.hdi_prob'], 0.95)")
    p.add_argument("--format", default="table", choices=["table", "json", "csv"],
                   help="table (default: aligned columns for reading), json (standard JSON: "
                        "NaN is null; the metrics and the differences) or csv (the metrics; "
                        "with --compare the differences)")
    p.add_argument("--plot", metavar="PATH", help="write the runs' forest of the metrics (PNG, "
                                                  "PDF, SVG by the suffix; with --compare one "
                                                  "file per procedure, PATH_<procedure>)")
    p.set_defaults(func=run)


def _read(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    from bayescm.core.csvtable import read_csv
    from bayescm.io.readers import runs_from_table

    if not args.group.isidentifier():
        raise UsageError(f"--group {args.group!r}: the run dim's name must be an identifier "
                         "(e.g. fold, seed, run)")
    if args.labels is not None and len(set(args.labels)) != len(args.labels):
        raise UsageError(f"--labels names a class twice ({' '.join(args.labels)})")
    if args.positive is not None and args.labels is not None and args.positive not in args.labels:
        raise UsageError(f"--positive {args.positive} is not one of --labels "
                         f"{' '.join(args.labels)}")
    table = read_csv(existing(args.file))
    return runs_from_table(table, run=args.run, true=args.true, predicted=args.predicted,
                           count=args.count, procedure=args.compare, labels=args.labels,
                           positive=args.positive)


def _metrics(args: argparse.Namespace, first: Any) -> list[str]:
    """The asked metrics' canonical names: scalar metrics of a run, or a UsageError."""
    from bayescm.metrics.catalogue import resolve_metrics
    from bayescm.models import registry

    kind = registry.for_data(first)
    default = BINARY_METRICS if first.is_binary else MULTICLASS_METRICS
    try:
        chosen = resolve_metrics(list(args.metrics or default), kind.catalogue, kind.name)
    except (ValueError, TypeError) as err:
        raise UsageError(f"--metrics: {err}") from None
    for m in chosen:
        if m.kind == "per_class":
            raise UsageError(f"--metrics: {m.name} has a value per class; a run's spread and "
                             f"the comparison need a scalar metric (e.g. {m.name}_macro)")
    return list(dict.fromkeys(m.name for m in chosen))


def _fit(data: Any, **kwargs: Any) -> Any:
    """The fit of one procedure's runs (one place, so tests can stand in a fit without NUTS)."""
    import bayescm as bcm

    return bcm.fit(data, model="hierarchical", **kwargs)


def runs_table(idata: Any, metrics: list[str], hdi_prob: float | None = None) -> Any:
    """Per metric, the pooled value, the between-run spread and a new run's interval.

    Columns ``pooled`` (posterior mean of ``<metric>_mean``) with ``pooled_lower`` and
    ``pooled_upper`` (its HDI), ``spread`` (of ``<metric>_sd``) with its HDI, and ``new``,
    ``new_lower``, ``new_upper`` (a new run's predictive, ``<metric>_new``).

    Examples
    --------
    >>> from bayescm.cli_runs import runs_table
    >>> from bayescm.models.hierarchical import HierarchicalModel
    >>> idata = HierarchicalModel.example()  # doctest: +SKIP
    >>> list(runs_table(idata, ["tpr"]).columns)[:3]  # doctest: +SKIP
    ['pooled', 'pooled_lower', 'pooled_upper']
    """
    import numpy as np
    import pandas as pd

    from bayescm.core import container as box
    from bayescm.core.stats import hdi, hdi_prob_for

    prob = hdi_prob_for(hdi_prob, idata)
    post = box.get_group(idata, "posterior")
    rows = {}
    for name in metrics:
        row: dict[str, float] = {}
        for column, suffix in (("pooled", "mean"), ("spread", "sd"), ("new", "new")):
            x = np.asarray(post[f"{name}_{suffix}"].values, dtype=float).reshape(-1)
            lo, hi = hdi(x, prob)
            row.update({column: float(np.nanmean(x)), f"{column}_lower": float(lo),
                        f"{column}_upper": float(hi)})
        rows[name] = row
    out = pd.DataFrame.from_dict(rows, orient="index")
    out.index.name = "metric"
    out.attrs["hdi_prob"] = prob
    return out


def run(args: argparse.Namespace) -> int:
    """The ``runs`` command: read, fit each procedure, print, draw."""
    from bayescm.cli_common import check_figure_path
    from bayescm.core.stats import hdi_prob_for
    from bayescm.core.streams import child, seed_sequence
    from bayescm.io.spec_runs import compare_table

    procedures = _read(args)
    first = next(iter(next(iter(procedures.values())).values()))
    metrics = _metrics(args, first)
    plots = _plot_paths(args.plot, list(procedures))
    for path in plots.values():
        check_figure_path(path)
    seed, drawn = seed_for(args.seed)
    prob = hdi_prob_for(args.hdi_prob)
    say = progress(sys.stderr.isatty())
    kwargs: dict[str, Any] = {"draws": args.draws, "chains": args.chains, "group": args.group,
                              "metrics": metrics, "hdi_prob": prob}
    if args.tune is not None:
        kwargs["tune"] = args.tune
    root = seed_sequence(seed)
    trees = {}
    for i, (name, runs) in enumerate(procedures.items()):
        if say:
            say(f"fitting {len(runs)} runs{f' of {name}' if name else ''}")
        stream = child(root, i) if len(procedures) > 1 else seed
        trees[name] = _fit(runs, random_seed=stream, **kwargs)
    tables = {name: runs_table(tree, metrics, prob) for name, tree in trees.items()}
    a, *b = trees.values()
    compared = compare_table(a, b[0], tuple(metrics), prob) if b else None
    _print(args, procedures, first, tables, compared, seed, prob)
    note_seed("runs", seed, drawn, args.format)
    if plots:
        _draw(trees, plots, metrics, prob, args.format)
    return 0


def _plot_paths(path: str | None, procedures: list[str]) -> dict[str, str]:
    if path is None:
        return {}
    if procedures == [""]:
        return {"": path}
    p = Path(path)
    return {name: str(p.with_name(f"{p.stem}_{name}{p.suffix}")) for name in procedures}


def _print(args: argparse.Namespace, procedures: dict[str, Any], first: Any,
           tables: dict[str, Any], compared: Any, seed: int, prob: float) -> None:
    runs = list(next(iter(procedures.values())))
    if args.format == "json":
        payload = {"runs": runs, "classes": [str(c) for c in first.labels],
                   "group": args.group, "draws": args.draws, "chains": args.chains,
                   "hdi_prob": prob, "seed": seed,
                   "metrics": {name or "runs": table_json(t) for name, t in tables.items()}}
        if compared is not None:
            payload["procedures"] = list(procedures)
            payload["compare"] = {m: table_json(compared.loc[m])
                                  for m in compared.index.get_level_values(0).unique()}
        print(json.dumps(payload, indent=2))
        return
    if args.format == "csv":  # one table: the runs' metrics, or the procedures' differences
        (compared if compared is not None else next(iter(tables.values()))).to_csv(sys.stdout)
        return
    print(f"{len(runs)} runs ({', '.join(runs)}) of a {first.n_classes}-class classifier, "
          f"{args.chains} x {args.draws:,} NUTS draws, {100 * prob:g} % intervals, seed {seed} "
          f"(--seed {seed} repeats this run)")
    print("pooled: the population's mean run; spread: the SD of the metric between runs; "
          "new: a new run's predictive interval")
    for name, table in tables.items():
        if name:
            print(f"\n{name}")
        print(format_table(table))
    if compared is not None:
        a, b = procedures
        print(f"\nDifference A - B ({a} - {b}) run by run, paired: the same {args.group}s")
        print(format_table(compared))


def _draw(trees: dict[str, Any], plots: dict[str, str], metrics: list[str], prob: float,
          fmt: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from bayescm.cli_common import save_figure
    from bayescm.io.runner import pooled_figure

    for name, path in plots.items():
        save_figure(pooled_figure(trees[name], "forest", metrics, hdi_prob=prob), path)
        if fmt == "table":
            print(f"wrote {path}", file=sys.stderr)
