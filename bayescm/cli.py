"""The ``bayescm`` command line: analyze, ROC of scores, sample size, leaderboard, spec, app.

Every command has ``--help``. Bad input (negative counts, unknown priors or metrics, missing or
malformed files) ends with a one-line message on stderr and exit code 2, never a traceback.
Long runs report their stages on stderr when it is a terminal, and stay quiet when piped.

JSON output is standard JSON: an undefined value (NaN, e.g. a PPV of 0/0) is ``null`` and an
unbounded one is the string ``"inf"`` or ``"-inf"``.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pandas as pd

from bayescm import cli_app, cli_roc
from bayescm._version import __version__
from bayescm.cli_common import (
    EXIT_USAGE,
    Parser,
    UsageError,
    count,
    emit,
    existing,
    positive_int,
    probability,
    progress,
)

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["main"]


# ------------------------------------------------------------------ analyze
def _matrix(args: argparse.Namespace) -> Any:
    import bayescm as bcm
    from bayescm.io.readers import read_matrix_csv

    cells = [args.tp, args.fn, args.tn, args.fp]
    if args.csv is not None:
        if any(c is not None for c in cells):
            raise UsageError("give either --csv FILE or --tp/--fn/--tn/--fp, not both")
        return read_matrix_csv(existing(args.csv), positive=args.positive, ordered=args.ordered)
    if any(c is None for c in cells):
        missing = [n for n, c in zip(("--tp", "--fn", "--tn", "--fp"), cells, strict=True)
                   if c is None]
        raise UsageError(f"missing {', '.join(missing)} (or give a matrix with --csv FILE)")
    return bcm.ConfusionMatrix.from_counts(tp=args.tp, fn=args.fn, tn=args.tn, fp=args.fp)


def _parameter_prior(text: str) -> tuple[str, Any]:
    """``PARAM=PRIOR`` of ``--priors``: a prior name or a JSON table, read as a spec reads it.

    Examples
    --------
    >>> from bayescm.cli import _parameter_prior
    >>> _parameter_prior('tpr={"mean": 0.9, "concentration": 20}')
    ('tpr', Beta(alpha=18.0, beta=2.0))
    >>> _parameter_prior("tnr=jeffreys")
    ('tnr', Jeffreys())
    """
    from bayescm.io.spec_parse import parse_prior

    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name.isidentifier() or not value:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not PARAM=PRIOR (e.g. tpr=jeffreys or "
            "prevalence='{\"fixed\": 0.5}')")
    spec: Any = value
    if value.startswith("{"):
        try:
            spec = json.loads(value)
        except json.JSONDecodeError as err:
            raise argparse.ArgumentTypeError(f"the prior of {name} is not valid JSON: "
                                             f"{err.msg}") from None
    try:
        return name, parse_prior(spec, name)
    except (TypeError, ValueError) as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def _analyze(args: argparse.Namespace) -> int:
    import bayescm as bcm
    from bayescm.core.stats import hdi_prob_for

    cm = _matrix(args)
    say = progress(sys.stderr.isatty())
    kwargs: dict[str, Any] = {"prior": args.prior, "method": args.method, "draws": args.draws,
                              "chains": args.chains, "random_seed": args.seed,
                              "hdi_prob": hdi_prob_for(args.hdi_prob)}
    if args.metrics:
        kwargs["metrics"] = args.metrics
    if args.priors:
        kwargs["priors"] = dict(args.priors)
    if args.fixed_prevalence is not None:
        if "prevalence" in kwargs.get("priors", {}):
            raise UsageError("the prevalence is given twice (--fixed-prevalence and --priors "
                             "prevalence=...); give it once")
        kwargs["prevalence"] = bcm.Fixed(args.fixed_prevalence)
    if say:
        say(f"fitting a {cm.n_classes}-class matrix of {cm.n} samples")
    idata = bcm.fit(cm, **kwargs)
    table = bcm.summary(idata, var_names=args.metrics or None)
    extra = {"model": idata.attrs["model"], "method": idata.attrs["method"], "n": cm.n,
             "hdi_prob": table.attrs["hdi_prob"], "priors": json.loads(idata.attrs["priors"]),
             "counts": cm.counts.tolist(), "labels": [str(v) for v in cm.labels]}
    emit(table, args.format, extra)
    if args.plot is not None:
        if say:
            say(f"drawing {args.plot}")
        _plot(idata, args.plot, args.metrics)
    return 0


def analyze_figure(idata: Any, metrics: Sequence[str] | None = None) -> Figure:
    """The figure of ``bayescm analyze --plot``: the spec runner's ``"posterior"`` figure.

    Drawn by :mod:`bayescm.plots` like every figure of the package: densities with their HDI
    and observed value (per-class metrics as forests; a multiclass fit's overview by default).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.cli import analyze_figure
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), draws=200)
    >>> [ax.get_title() for ax in analyze_figure(idata).axes]
    ['Accuracy', 'TPR', 'TNR', 'BM']
    >>> import matplotlib.pyplot as plt; plt.close("all")
    """
    from bayescm.io.runner import figure

    return figure(idata, "posterior", list(metrics) if metrics else None)


def _plot(idata: Any, path: str, metrics: Sequence[str] | None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    from bayescm.core.files import atomic_write

    fig = analyze_figure(idata, metrics)
    suffix = Path(path).suffix.lstrip(".").lower() or "png"
    try:
        atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=120, format=suffix))
    finally:
        import matplotlib.pyplot as plt

        plt.close(fig)


# ------------------------------------------------------------------ sample-size
def _sample_size(args: argparse.Namespace) -> int:
    from bayescm import samplesize

    result = samplesize.plan(args.mu, power=args.power, mode=args.mode,
                             concentration=args.concentration, prior=args.prior,
                             n_sims=args.sims, random_seed=args.seed)
    table = pd.DataFrame([{"n": result.n, "mu_target": result.mu,
                           "mu_reached": result.mu_reached, "power": result.power,
                           "rule_of_thumb_n": result.rule_of_thumb}], index=["plan"])
    emit(table, args.format)
    return 0


# ------------------------------------------------------------------ leaderboard
def _read_scores(path: Path) -> dict[str, float]:
    """Names and accuracies of a leaderboard CSV (columns ``name`` and ``accuracy``, any case)."""
    from bayescm.core.csvtable import read_csv

    table = read_csv(existing(path)).check_header()
    if table.find("name", ignore_case=True) is None or table.find(
            "accuracy", ignore_case=True) is None:
        raise table.error(f"a leaderboard needs a header with 'name' and 'accuracy' columns, "
                          f"got {list(table.header)}.", table.lines[0])
    if not table.body:
        raise table.error("no entries: give one row per entry under the header.",
                          table.lines[0])
    name_j, accuracy_j = table.require(["name", "accuracy"], ignore_case=True)
    names = table.texts(name_j, "the entry's name")
    accuracies = table.reals(accuracy_j, 0.0, 1.0)
    scores: dict[str, float] = {}
    for name, value, line in zip(names, accuracies, table.lines[1:], strict=True):
        if name in scores:
            raise table.error(f"the name {name!r} is repeated; give each entry its own name.",
                              line, table.header[name_j])
        scores[name] = value
    return scores


def _leaderboard(args: argparse.Namespace) -> int:
    import bayescm as bcm

    scores = _read_scores(Path(args.file))
    say = progress(sys.stderr.isatty())
    if say:
        say(f"ranking {len(scores)} entries with {args.draws} draws")
    table = bcm.leaderboard(scores, n=args.n, prizes=args.prizes, draws=args.draws,
                            random_seed=args.seed, top=args.top)
    emit(table, args.format, {"n": args.n, "draws": args.draws})
    return 0


# ------------------------------------------------------------------ run
def _run(args: argparse.Namespace) -> int:
    from bayescm.io.spec import load_spec

    path = Path(args.spec)
    if not path.is_file():
        raise UsageError(f"no such spec file: {path}")
    spec = load_spec(path)
    say = progress(sys.stderr.isatty())
    import matplotlib

    matplotlib.use("Agg")
    spec.run(args.output, draws=args.draws, random_seed=args.seed, progress=say)
    out = Path(args.output) if args.output else Path("output") / spec.name
    written = sorted(p.name for p in out.iterdir()) if out.is_dir() else []
    print(f"{spec.name}: wrote {', '.join(written)} to {out}")
    return 0


# ------------------------------------------------------------------ parser
def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``bayescm`` command.

    Examples
    --------
    >>> from bayescm.cli import build_parser
    >>> build_parser().parse_args(["analyze", "--tp", "26", "--fn", "0", "--tn", "6",
    ...                            "--fp", "2"]).tp
    26
    """
    parser = Parser(
        prog="bayescm",
        description="Honest uncertainty on classifier performance: posterior distributions of "
                    "confusion-matrix metrics (Tötsch & Hoffmann 2021).")
    parser.add_argument("--version", action="version", version=f"bayescm {__version__}",
                        help="print the version and exit")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    a = sub.add_parser("analyze", help="posterior of every metric of one confusion matrix",
                       description="Fit a confusion matrix and print the summary of its metrics "
                                   "(observed, mean, sd, HDI, MU, R-hat, ESS).")
    a.add_argument("--tp", type=count, help="true positives")
    a.add_argument("--fn", type=count, help="false negatives")
    a.add_argument("--tn", type=count, help="true negatives")
    a.add_argument("--fp", type=count, help="false positives")
    a.add_argument("--csv", help="a labelled matrix: header row of predicted labels, then one "
                                 "row per true label (rows true, columns predicted)")
    a.add_argument("--positive", help="positive class of a 2-class CSV matrix")
    a.add_argument("--ordered", action="store_true", help="the CSV's classes are ordered")
    a.add_argument("--prior", default=None,
                   help="weak (default: laplace for a binary matrix), laplace, jeffreys, flat or "
                        "haldane")
    a.add_argument("--fixed-prevalence", type=probability,
                   help="a known share of positives (curated test set)")
    a.add_argument("--priors", nargs="+", type=_parameter_prior, metavar="PARAM=PRIOR",
                   help="priors keyed by parameter, as in a spec's [priors] table: a name "
                        "(tpr=jeffreys) or a JSON table (tnr='{\"mean\": 0.9, "
                        "\"concentration\": 20}', prevalence='{\"fixed\": 0.5}')")
    a.add_argument("--metrics", nargs="+", help="metrics to compute and show (default all)")
    a.add_argument("--method", default="auto", choices=["auto", "exact", "nuts"])
    a.add_argument("--hdi-prob", type=probability, default=None,
                   help="probability of the intervals (default rcParams['stats.hdi_prob'], 0.95)")
    a.add_argument("--draws", type=positive_int, default=5000, help="draws per chain")
    a.add_argument("--chains", type=positive_int, default=4)
    a.add_argument("--seed", type=int, help="random seed")
    a.add_argument("--format", default="table", choices=["table", "json", "csv"])
    a.add_argument("--plot", metavar="FILE", help="write a figure of the metrics (PNG, PDF...)")
    a.set_defaults(func=_analyze)
    cli_roc.add_parser(sub)  # roc: labels and scores from a CSV file

    s = sub.add_parser("sample-size", help="test-set size needed for a metric uncertainty",
                       description="Smallest N whose 95 % HDI width (MU) is at most --mu with "
                                   "the given power (Kruschke's protocol, paper Fig. 6).")
    s.add_argument("--mu", type=probability, required=True, help="target MU, e.g. 0.1")
    s.add_argument("--power", type=probability, default=0.95)
    s.add_argument("--mode", type=probability, default=0.8, help="mode of the true metric")
    s.add_argument("--concentration", type=float, default=10.0)
    s.add_argument("--prior", default="laplace")
    s.add_argument("--sims", type=positive_int, default=4000, help="simulated studies per N")
    s.add_argument("--seed", type=int)
    s.add_argument("--format", default="table", choices=["table", "json", "csv"])
    s.set_defaults(func=_sample_size)

    b = sub.add_parser("leaderboard", help="probabilistic ranks of a published leaderboard",
                       description="Rank probabilities of leaderboard entries from their "
                                   "accuracies and the test-set size (paper Fig. 5).")
    b.add_argument("file", help="CSV with columns name,accuracy in published order")
    b.add_argument("--n", type=positive_int, required=True, help="test-set size")
    b.add_argument("--prizes", type=float, nargs="+", help="prize for rank 1, 2, ...")
    b.add_argument("--draws", type=positive_int, default=20000)
    b.add_argument("--top", type=positive_int, default=10, help="ranks to show")
    b.add_argument("--seed", type=int)
    b.add_argument("--format", default="table", choices=["table", "json", "csv"])
    b.set_defaults(func=_leaderboard)

    r = sub.add_parser("run", help="run an analysis specification (models/NAME.toml)",
                       description="Run a TOML analysis spec and write its result tree (netCDF),"
                                   " summary (CSV) and figures.")
    r.add_argument("spec", help="path to a .toml spec, e.g. models/cocaine_purity.toml")
    r.add_argument("--output", help="output folder (default output/<name>/)")
    r.add_argument("--draws", type=positive_int, help="override the spec's draws per chain")
    r.add_argument("--seed", type=int, help="override the spec's seed")
    r.set_defaults(func=_run)
    cli_app.add_parser(sub)  # app: the web app (Panel)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 success, 2 bad input).

    Examples
    --------
    >>> from bayescm.cli import main
    >>> main(["sample-size", "--mu", "0.2", "--sims", "500", "--seed", "1",
    ...       "--format", "csv"])  # doctest: +ELLIPSIS
    ,n,mu_target,mu_reached,power,rule_of_thumb_n
    plan,...
    0
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except UsageError as err:
        print(f"bayescm {args.command}: error: {err}", file=sys.stderr)
    except (ValueError, TypeError, KeyError, OverflowError, FileNotFoundError) as err:
        message = err.args[0] if isinstance(err, KeyError) and err.args else err
        print(f"bayescm {args.command}: error: {message}", file=sys.stderr)
    return EXIT_USAGE
