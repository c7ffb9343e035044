"""The ``bayescm run`` command: fit an analysis specification and say what it did.

``bayescm run models/NAME.toml [--output DIR] [--draws N] [--seed S]`` loads the spec
(:func:`bayescm.io.spec.load_spec`), checks the output folder before fitting, fits it, writes
the result tree, the tables and the figures (:func:`bayescm.io.runner.write_outputs`), and
prints what it did: the spec and the data it fitted, the model, method, draws and seed (drawn
and printed when neither the spec nor ``--seed`` gives one), the summary (or its file, when it
is long) and every file written with what it holds.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import pandas as pd

from bayescm.cli_common import (
    existing,
    format_table,
    positive_int,
    progress,
    seed_for,
    seed_int,
)

__all__ = ["add_parser", "run"]


def add_parser(sub: Any) -> None:
    """Add the ``run`` command to the subparsers ``sub`` of the ``bayescm`` parser."""
    r = sub.add_parser("run", help="run an analysis specification (models/NAME.toml)",
                       description="Run a TOML analysis spec: fit it, write its result tree "
                                   "(netCDF), summary (CSV) and figures, and print what was "
                                   "fitted and written.")
    r.add_argument("spec", help="path to a .toml spec, e.g. models/cocaine_purity.toml")
    r.add_argument("--output", help="output folder (default output/<name>/)")
    r.add_argument("--draws", type=positive_int, help="override the spec's draws per chain")
    r.add_argument("--seed", type=seed_int, help="override the spec's seed (without either, "
                                                 "one is drawn and printed)")
    r.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """The ``run`` command: load the spec, fit it, write and report its outputs."""
    from bayescm.core.files import check_folder
    from bayescm.io.runner import write_outputs
    from bayescm.io.spec import load_spec
    from bayescm.io.spec_correction import CorrectionSpec
    from bayescm.io.spec_latent import FILE_KINDS, LatentSpec
    from bayescm.io.spec_planning import PlanningSpec
    from bayescm.io.spec_runs import RunsComparisonSpec

    path = existing(args.spec, "spec file")
    spec = load_spec(path)
    folder = spec.output_folder(args.output)
    check_folder(folder)  # before the fit, not after
    if isinstance(spec, PlanningSpec):
        return _run_planning(spec, path, folder, args)
    if isinstance(spec, CorrectionSpec):
        return _run_correction(spec, path, folder, args)
    if isinstance(spec, LatentSpec):  # the same report: the fit, its summary, its files
        return _run_correction(spec, path, folder, args, FILE_KINDS)
    if isinstance(spec, RunsComparisonSpec):
        return _run_comparison(spec, path, folder, args)
    seed, drawn = seed_for(args.seed if args.seed is not None else
                           spec.options.get("random_seed"))
    say = progress(sys.stderr.isatty())
    import matplotlib

    matplotlib.use("Agg")
    idata = spec.run(write=False, draws=args.draws, random_seed=seed, progress=say)
    written = write_outputs(spec, idata, folder, progress=say)
    _report_run(spec, path, idata, seed, drawn, written)
    return 0


def _run_planning(spec: Any, path: Path, folder: Path, args: argparse.Namespace) -> int:
    """``bayescm run`` of a planning spec: the sizes and the assurance curve."""
    if args.draws is not None or args.seed is not None:
        raise SystemExit("bayescm run: error: --draws and --seed set a fit; a planning spec "
                         "computes its assurance exactly. Drop them.")
    import matplotlib

    matplotlib.use("Agg")
    table = spec.run(folder, progress=progress(sys.stderr.isatty()))
    print(f"bayescm run: {spec.name} ({path}): planning {spec.claim!r} at assurance "
          f"{spec.assurance:g} (P(claim) >= {spec.level:g}; n counts {table['counts'].iloc[0]})")
    print(format_table(table[["n", "assurance"]]))
    written = table.attrs["written"]
    print(f"\nwrote {len(written)} file(s) to {folder}{Path('/')}:")
    for kind, file in written.items():
        print(f"  {file.name:<24} {PLANNING_KINDS[kind]}")
    return 0


def _run_correction(spec: Any, path: Path, folder: Path, args: argparse.Namespace,
                    kinds: dict[str, str] | None = None) -> int:
    """``bayescm run`` of a correction (or latent class) spec: the fit, summary and files."""
    import matplotlib

    import bayescm as bcm

    matplotlib.use("Agg")
    seed, drawn = seed_for(args.seed if args.seed is not None else spec.options.get("seed"))
    say = progress(sys.stderr.isatty())
    tree = spec.run(write=False, draws=args.draws, random_seed=seed, progress=say)
    written = spec.write(tree, folder, say)
    model = str(tree.attrs["model"])
    print(f"bayescm run: {spec.name} ({path}): "
          f"{model if model == spec.function else f'{model} ({spec.function})'}, "
          f"seed {seed}" + (f" (--seed {seed} repeats this run)" if drawn else ""))
    if kinds is None:
        print(format_table(bcm.summary(tree)))
    else:  # a latent fit: prevalence and the tests' or raters' rates (items' classes: files)
        from bayescm.cli_latent import reported

        print(format_table(reported(tree)))
    print(f"\nwrote {len(written)} file(s) to {folder}{Path('/')}:")
    for kind, file in written.items():
        print(f"  {file.name:<24} {(kinds or CORRECTION_KINDS)[kind]}")
    return 0


def _run_comparison(spec: Any, path: Path, folder: Path, args: argparse.Namespace) -> int:
    """``bayescm run`` of two procedures on the same runs: both fits and their differences."""
    import matplotlib

    matplotlib.use("Agg")
    seed, drawn = seed_for(args.seed if args.seed is not None else
                           spec.options.get("random_seed"))
    trees = spec.run(folder, draws=args.draws, random_seed=seed,
                     progress=progress(sys.stderr.isatty()))
    a, b = spec.procedures
    runs = next(iter(spec.procedures.values())).data
    print(f"bayescm run: {spec.name} ({path}): {a} against {b} on the same {len(runs)} "
          f"{spec.options['group']}s; {spec.options['model']} model, seed {seed}"
          + (f" (drawn: --seed {seed} repeats this run)" if drawn else ""))
    print(f"\ndifference A - B ({a} - {b}), run by run:")
    print(format_table(spec.comparison(trees)))
    compare = " and compare.csv (the differences)" if "compare" in spec.tables else ""
    print(f"\nwrote {a}{Path('/')} and {b}{Path('/')} (each procedure's result tree, summary "
          f"and figures){compare} to {folder}{Path('/')}")
    return 0


CORRECTION_KINDS = {"result": "the result tree (netCDF; bcm.load reads it)",
                    "summary": "the posterior summary (CSV)",
                    "corrected": "figure (the apparent and corrected rates)"}
"""How ``bayescm run`` describes the files of a correction spec."""


PLANNING_KINDS = {"planning": "the smallest n and the assurance at each n (CSV)",
                  "assurance": "figure (the assurance curve)"}
"""How ``bayescm run`` describes the files of a planning spec."""


def _report_run(spec: Any, path: Path, idata: Any, seed: int, drawn: bool,
                written: dict[str, Path]) -> None:
    """What ``bayescm run`` did: the spec, the data fitted, the summary, the files written."""
    from bayescm.core.items import Items
    from bayescm.core.scores import Scores

    data = spec.data
    if isinstance(data, Scores):
        what = f"{data.n:,} scored items, {len(data.names)} classifier(s)"
    elif isinstance(data, Items):
        clusters = f" in {data.n_clusters:,} clusters" if data.clusters is not None else ""
        what = (f"an evaluation log ({data.n_attempts:,} outcomes of {data.n_systems} "
                f"system(s) on {data.n_items:,} items{clusters})")
    elif isinstance(data, dict):
        first = next(iter(data.values()))
        what = (f"{len(data)} {first.n_classes}-class matrices "
                f"({sum(cm.n for cm in data.values()):,} samples)")
    else:
        what = f"a {data.n_classes}-class matrix ({data.n:,} samples)"
    attrs = idata.attrs
    print(f"bayescm run: {spec.name} ({path}): {what}; {attrs.get('model')} model, "
          f"{attrs.get('method')} draws ({attrs.get('chains', '?')} x "
          f"{attrs.get('draws', '?')}), seed {seed}"
          + (f" (drawn: --seed {seed} repeats this run)" if drawn else ""))
    if "summary" in written:
        table = pd.read_csv(written["summary"], index_col=0)
        if len(table) <= MAX_SUMMARY_ROWS:
            print(f"\nsummary ({written['summary']}):")
            print(format_table(table))
        else:
            print(f"\nsummary: {len(table):,} rows in {written['summary']}")
    folder = written["netcdf"].parent
    print(f"\nwrote {len(written)} file(s) to {folder}{Path('/')}:")
    for kind, file in written.items():
        print(f"  {file.name:<24} {OUTPUT_KINDS.get(kind, f'figure ({kind})')}")


MAX_SUMMARY_ROWS = 40
"""Longest summary ``bayescm run`` prints; a longer one is named by its file."""

OUTPUT_KINDS = {"netcdf": "result tree (netCDF; bcm.load reads it)",
                "summary": "summary table (CSV)", "informedness": "informedness table (CSV)",
                "eval": "accuracy beside the naive and CR1 intervals, paired differences (CSV)",
                "net_benefit": "net benefit per model and threshold, P(useful), EVPI (CSV)",
                "expected_cost": "expected cost per case of each model (CSV)",
                "calibration": "calibration intercept and slope of each model (CSV)"}
"""How ``bayescm run`` describes each file it wrote (the others are figures)."""
