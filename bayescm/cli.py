"""The ``bayescm`` command line: analyze, ROC of scores, sample size, leaderboard, spec, app.

Every command has ``--help``. Bad input (negative counts, unknown priors or metrics, missing or
malformed files, an output path that cannot be written) ends with a one-line message on stderr
and exit code 2, never a traceback; a mistyped option, prior or metric name gets a "Did you mean
...?". A warning is one line ``bayescm: warning: ...``. Long runs report their stages on stderr
when it is a terminal, and stay quiet when piped. Commands that draw random numbers print the
seed they used (drawn when ``--seed`` is not given), so ``--seed`` repeats a run exactly.

JSON output is standard JSON: an undefined value (NaN, e.g. a PPV of 0/0) is ``null`` and an
unbounded one is the string ``"inf"`` or ``"-inf"``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bayescm import (
    cli_app,
    cli_audit,
    cli_correct,
    cli_dca,
    cli_eval,
    cli_latent,
    cli_plan,
    cli_roc,
    cli_run,
    cli_runs,
)
from bayescm._version import __version__
from bayescm.cli_common import (
    EXIT_USAGE,
    Parser,
    UsageError,
    check_figure_path,
    count,
    emit,
    existing,
    note_seed,
    one_line,
    parameter_prior,
    positive_int,
    probability,
    progress,
    real,
    save_figure,
    seed_for,
    seed_int,
    warnings_as_lines,
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
        cm = read_matrix_csv(existing(args.csv), positive=args.positive, ordered=args.ordered)
        if cm.n_classes == 2 and cm.positive is None:
            a, b = cm.labels
            raise UsageError(
                f"the matrix has two classes, {a!r} and {b!r}: name the positive one with "
                f"--positive {a} (or --positive {b}) for a binary analysis (TPR, TNR, PPV, "
                "...); labels 0 and 1 need none (1 is positive)")
        return cm
    if any(c is None for c in cells):
        missing = [n for n, c in zip(("--tp", "--fn", "--tn", "--fp"), cells, strict=True)
                   if c is None]
        raise UsageError(f"missing {', '.join(missing)} (or give a matrix with --csv FILE)")
    return bcm.ConfusionMatrix.from_counts(tp=args.tp, fn=args.fn, tn=args.tn, fp=args.fp)


def _analyze(args: argparse.Namespace) -> int:
    import bayescm as bcm
    from bayescm.core.stats import hdi_prob_for

    cm = _matrix(args)
    if args.plot is not None:
        check_figure_path(args.plot)  # before the fit, not after
    seed, drawn = seed_for(args.seed)
    say = progress(sys.stderr.isatty())
    kwargs: dict[str, Any] = {"prior": args.prior, "method": args.method, "draws": args.draws,
                              "chains": args.chains, "random_seed": seed,
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
             "counts": cm.counts.tolist(), "labels": [str(v) for v in cm.labels], "seed": seed}
    if args.format == "table":
        print(f"{cm.n_classes}-class matrix of {cm.n:,} samples, {idata.attrs['model']} model, "
              f"{idata.attrs['method']} draws ({args.chains} x {args.draws:,}), "
              f"{100 * table.attrs['hdi_prob']:g} % HDI, seed {seed} (--seed {seed} repeats "
              "this run)")
    emit(table, args.format, extra)
    note_seed("analyze", seed, drawn, args.format)
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
    save_figure(analyze_figure(idata, metrics), path)


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
    seed, drawn = seed_for(args.seed)
    say = progress(sys.stderr.isatty())
    if say:
        say(f"ranking {len(scores)} entries with {args.draws} draws")
    table = bcm.leaderboard(scores, n=args.n, prizes=args.prizes, draws=args.draws,
                            random_seed=seed, top=args.top)
    if args.format == "table":
        print(f"{len(scores)} entries, test-set size {args.n:,}, {args.draws:,} draws, seed "
              f"{seed} (--seed {seed} repeats this run)")
    emit(table, args.format, {"n": args.n, "draws": args.draws, "seed": seed})
    note_seed("leaderboard", seed, drawn, args.format)
    return 0


# ------------------------------------------------------------------ parser
SEED_HELP = ("random seed; without it one is drawn and printed with the results, so --seed "
             "repeats a run exactly")
FORMAT_HELP = ("table (default: aligned columns for reading), json (standard JSON: NaN is "
               "null, infinities \"inf\") or csv")


def build_parser() -> Parser:
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
    parser.commands = sub.choices  # the subcommands' parsers, for suggestions

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
    a.add_argument("--priors", nargs="+", type=parameter_prior, metavar="PARAM=PRIOR",
                   help="priors keyed by parameter, as in a spec's [priors] table: a name "
                        "(tpr=jeffreys) or a JSON table (tnr='{\"mean\": 0.9, "
                        "\"concentration\": 20}', prevalence='{\"fixed\": 0.5}')")
    a.add_argument("--metrics", nargs="+", help="metrics to compute and show (default all)")
    a.add_argument("--method", default="auto", choices=["auto", "exact", "nuts"],
                   help="auto (default): the exact closed-form posterior when every prior is "
                        "conjugate, else NUTS; exact; or nuts (PyMC's sampler)")
    a.add_argument("--hdi-prob", type=probability, default=None,
                   help="probability of the intervals (default rcParams['stats.hdi_prob'], 0.95)")
    a.add_argument("--draws", type=positive_int, default=5000,
                   help="draws per chain (default 5000)")
    a.add_argument("--chains", type=positive_int, default=4,
                   help="independent chains of draws (default 4)")
    a.add_argument("--seed", type=seed_int, help=SEED_HELP)
    a.add_argument("--format", default="table", choices=["table", "json", "csv"],
                   help=FORMAT_HELP)
    a.add_argument("--plot", metavar="FILE", help="write a figure of the metrics (PNG, PDF...)")
    a.set_defaults(func=_analyze)
    cli_roc.add_parser(sub)  # roc: labels and scores from a CSV file
    cli_dca.add_parser(sub)  # dca: decision curves of risks from a CSV file
    cli_eval.add_parser(sub)  # eval: an item-level evaluation log (clusters, attempts)
    cli_correct.add_parser(sub)  # correct: a true prevalence from an imperfect test
    cli_latent.add_parser(sub)  # latent: tests or raters without a gold standard
    cli_audit.add_parser(sub)  # audit: a population's metrics from a stratified audit
    cli_runs.add_parser(sub)  # runs: folds, seeds or runs; two procedures on the same runs

    cli_plan.add_parser(sub)  # sample-size: an interval width, a claim, a difference

    b = sub.add_parser("leaderboard", help="probabilistic ranks of a published leaderboard",
                       description="Rank probabilities of leaderboard entries from their "
                                   "accuracies and the test-set size (paper Fig. 5).")
    b.add_argument("file", help="CSV with columns name,accuracy in published order")
    b.add_argument("--n", type=positive_int, required=True, help="test-set size")
    b.add_argument("--prizes", type=real, nargs="+", help="prize for rank 1, 2, ...")
    b.add_argument("--draws", type=positive_int, default=20000,
                   help="posterior draws of every entry's accuracy (default 20000)")
    b.add_argument("--top", type=positive_int, default=10, help="ranks to show (default 10)")
    b.add_argument("--seed", type=seed_int, help=SEED_HELP)
    b.add_argument("--format", default="table", choices=["table", "json", "csv"],
                   help=FORMAT_HELP)
    b.set_defaults(func=_leaderboard)

    cli_run.add_parser(sub)  # run: an analysis specification (TOML)
    cli_app.add_parser(sub)  # app: the web app (Panel)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code (0 success, 2 bad input).

    Every error is one line on stderr, ``bayescm COMMAND: error: ...``, with exit code 2:
    argparse's own, the package's ``ValueError``/``TypeError`` (bad input, unreadable files,
    output paths that cannot be written), operating-system errors, a missing optional
    dependency, and, as a last resort, anything unexpected (set ``BAYESCM_TRACEBACK=1`` to see
    where it came from). Warnings are one line each, ``bayescm: warning: ...``.

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
    args, extras = parser.parse_known_args(argv)
    if extras:
        parser.commands[args.command].unknown(extras)
    with warnings_as_lines():
        try:
            return int(args.func(args))
        except UsageError as err:
            message: object = err
        except KeyError as err:
            message = err.args[0] if err.args else err
        except (ValueError, TypeError, OverflowError, ImportError, MemoryError) as err:
            message = err
        except OSError as err:  # a file system's refusal, named with its path
            where = f" ({err.filename})" if err.filename and str(err.filename) not in str(
                err.strerror) else ""
            message = f"{err.strerror or err}{where}"
        except KeyboardInterrupt:
            print(f"bayescm {args.command}: interrupted", file=sys.stderr)
            return 130
        except Exception as err:  # a bug: still one line, with the way to see more
            if os.environ.get("BAYESCM_TRACEBACK"):
                raise
            message = (f"unexpected {type(err).__name__}: {err} (a bug in bayescm? run again "
                       "with BAYESCM_TRACEBACK=1 for the traceback, and report it)")
    print(f"bayescm {args.command}: error: {one_line(message)}", file=sys.stderr)
    return EXIT_USAGE
