"""The ``bayescm latent`` command: tests or raters without a gold standard, from a CSV file.

``bayescm latent results.csv --tests elisa pcr --population herd`` reads one row per subject
(:meth:`bayescm.TestResults.from_csv`), fits the Hui-Walter model and prints each
population's prevalence and each test's sensitivity (TPR) and specificity (TNR) with their
intervals. ``bayescm latent ratings.csv --item item --rater rater --rating rating`` reads one
row per rating (:meth:`bayescm.Ratings.from_csv`), fits the Dawid-Skene model and prints the
classes' prevalence and each rater's accuracy and Cohen's kappa against the latent class.
Both are sampled with NUTS (:func:`bayescm.fit`). ``--priors`` takes the keys of a spec's
``[priors]`` (:mod:`bayescm.io.spec_latent`); ``--plot DIR`` writes the figures a spec draws
(``test_rates.png``; ``rater_rates.png`` and ``item_classes.png``).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from bayescm.cli_common import (
    UsageError,
    emit,
    existing,
    note_seed,
    positive_int,
    progress,
    seed_for,
    seed_int,
)

__all__ = ["add_parser", "latent", "prior_entry", "reported"]

REPORTED = {"hui_walter": ["prevalence", "tpr", "tnr"],
            "dawid_skene": ["prevalence", "accuracy", "kappa"]}
"""The variables the command prints for each model."""


def prior_entry(text: str) -> tuple[str, Any]:
    """Argument type: ``PARAM=VALUE`` of ``--priors``; VALUE as a spec's ``[priors]`` value.

    VALUE is JSON (a number, a list, a table) or else text (``beta(20, 2)``, ``jeffreys``).

    Examples
    --------
    >>> from bayescm.cli_latent import prior_entry
    >>> prior_entry("tpr=beta(20, 2)"), prior_entry("prevalence=3")
    (('tpr', 'beta(20, 2)'), ('prevalence', 3))
    >>> prior_entry('tnr={"pcr": "beta(50, 1)"}')
    ('tnr', {'pcr': 'beta(50, 1)'})
    """
    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name.isidentifier() or not value:
        raise argparse.ArgumentTypeError(f"{text!r} is not PARAM=PRIOR (e.g. tpr='beta(20, 2)' "
                                         "or prevalence=3)")
    if value[0] in "{[-0123456789.":
        try:
            return name, json.loads(value)
        except json.JSONDecodeError as err:
            raise argparse.ArgumentTypeError(f"the prior of {name} is not valid JSON: "
                                             f"{err.msg}") from None
    return name, value


def add_parser(sub: Any) -> None:
    """Add the ``latent`` command to the subparsers ``sub`` of the ``bayescm`` parser."""
    p = sub.add_parser(
        "latent", help="tests or raters without a gold standard (Hui-Walter, Dawid-Skene)",
        description="Fit a latent class model to a CSV file: binary tests on the same subjects "
                    "(--tests; Hui-Walter: prevalence, each test's TPR and TNR) or ratings of "
                    "the same items by several raters (--item, --rater, --rating; "
                    "Dawid-Skene: class prevalence, each rater's accuracy and kappa). NUTS.")
    p.add_argument("file", help="CSV with a header row: one row per subject (test results) or "
                                "one row per rating")
    p.add_argument("--tests", nargs="+", metavar="COL",
                   help="test results: the 0/1 columns of the tests (at least two; an "
                        "empty cell is a test not done, marginalised)")
    p.add_argument("--population", metavar="COL",
                   help="with --tests: a column of populations, each with its own prevalence")
    p.add_argument("--dependence", nargs=2, action="append", metavar=("COL", "COL"),
                   help="with --tests: two tests dependent within each class (repeatable)")
    p.add_argument("--item", metavar="COL", help="ratings: the column of the item ids")
    p.add_argument("--rater", metavar="COL", help="ratings: the column of the rater ids")
    p.add_argument("--rating", metavar="COL",
                   help="ratings: the column of the ratings (an empty cell: not rated)")
    p.add_argument("--classes", nargs="+", metavar="CLASS",
                   help="ratings: the classes in order (default the ratings' values, sorted)")
    p.add_argument("--priors", nargs="+", type=prior_entry, metavar="PARAM=PRIOR",
                   help="priors as a spec's [priors]: tests take prevalence, tpr, tnr "
                        "(beta(a, b), or JSON per test: tpr='{\"elisa\": \"beta(20, 2)\"}'); "
                        "ratings take prevalence (Dirichlet concentrations: 3 or [3, 3, 3]) "
                        "and rates (a K x K JSON array)")
    p.add_argument("--draws", type=positive_int, default=1000,
                   help="NUTS draws per chain (default 1000)")
    p.add_argument("--chains", type=positive_int, default=4, help="chains (default 4)")
    p.add_argument("--tune", type=positive_int, default=None,
                   help="NUTS tuning steps per chain (default 1000)")
    p.add_argument("--seed", type=seed_int, help="random seed; without it one is drawn and "
                                                 "printed with the results")
    p.add_argument("--format", default="table", choices=["table", "json", "csv"],
                   help="table (default), json or csv")
    p.add_argument("--plot", metavar="DIR", help="write the figures into DIR: "
                                                 "test_rates.png (tests); rater_rates.png "
                                                 "and item_classes.png (ratings)")
    p.set_defaults(func=latent)


def _read(args: argparse.Namespace) -> Any:
    """The test results or ratings the options name (a usage error when they mix)."""
    from bayescm.core.latent import TestResults
    from bayescm.core.ratings import Ratings

    path = existing(args.file)
    rating_flags = [f"--{k}" for k in ("item", "rater", "rating", "classes")
                    if getattr(args, k) is not None]
    if args.tests is not None:
        if rating_flags:
            raise UsageError(f"--tests reads test results; {rating_flags[0]} belongs to "
                             "ratings: give one or the other")
        return TestResults.from_csv(path, tests=args.tests, population=args.population,
                                    dependence=args.dependence)
    test_flags = [f"--{k}" for k in ("population", "dependence") if getattr(args, k)]
    if test_flags:
        raise UsageError(f"{test_flags[0]} goes with --tests (the test columns)")
    missing = [f"--{k}" for k in ("item", "rater", "rating") if getattr(args, k) is None]
    if missing:
        raise UsageError("give --tests COL COL ... (test results) or --item, --rater and "
                         f"--rating (ratings); missing {', '.join(missing)}")
    return Ratings.from_csv(path, item=args.item, rater=args.rater, rating=args.rating,
                            classes=args.classes)


def _fit(data: Any, **kwargs: Any) -> Any:
    """The fit (one place, so tests can stand in a fit without NUTS)."""
    import bayescm as bcm

    return bcm.fit(data, **kwargs)


def reported(tree: Any) -> Any:
    """The summary rows the command prints: prevalence and each test's or rater's rates.

    The ``observed`` column is left out when no row has a plug-in value (a latent class has
    none).

    Examples
    --------
    >>> from bayescm.cli_latent import reported
    >>> from bayescm.models.hui_walter import HuiWalterModel
    >>> from bayescm.models.latent_examples import tree_near_em
    >>> list(reported(tree_near_em(HuiWalterModel.example_data())).index)[1:3]
    ['prevalence[ohio]', 'tpr[mantoux]']
    """
    import bayescm as bcm

    table = bcm.summary(tree, var_names=REPORTED[str(tree.attrs["model"])])
    if "observed" in table and table["observed"].isna().all():  # no plug-in value to show
        table = table.drop(columns="observed")
    return table


def latent(args: argparse.Namespace) -> int:
    """The ``latent`` command: read, fit, print the table, draw the figures."""
    from bayescm.io.spec_latent import FIGURES, latent_priors

    data = _read(args)
    model = "hui_walter" if args.tests is not None else "dawid_skene"
    names = [name for name, _ in args.priors or []]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"the prior of {twice[0]} is given twice; give it once")
    priors = latent_priors(dict(args.priors or []), model, data, "--priors")
    if args.plot is not None:
        from bayescm.core.files import check_folder

        check_folder(args.plot, "figures")  # before the fit, not after
    seed, drawn = seed_for(args.seed)
    say = progress(sys.stderr.isatty())
    if say:
        say(f"fitting {model} (NUTS)")
    kwargs: dict[str, Any] = {"draws": args.draws, "chains": args.chains, "random_seed": seed}
    if priors:
        kwargs["priors"] = priors
    if args.tune is not None:
        kwargs["tune"] = args.tune
    tree = _fit(data, **kwargs)
    table = reported(tree)
    if args.format == "table":
        if model == "hui_walter":
            partly = int(data.partial_counts.sum())
            some = f" ({partly:,} with missing results)" if partly else ""
            what = (f"{int(data.n_subjects.sum()):,} subjects{some}, {len(data.tests)} tests, "
                    f"{len(data.populations)} population(s): Hui-Walter")
        else:
            what = (f"{len(data.items):,} items, {len(data.raters)} raters, "
                    f"{len(data.classes)} classes, {int(data.counts.sum()):,} ratings: "
                    "Dawid-Skene")
        print(f"{what}, {args.chains} x {args.draws:,} NUTS draws, 95 % HDI; seed {seed} "
              f"(--seed {seed} repeats this run)")
    emit(table, args.format, {"model": model, "priors": json.loads(tree.attrs["priors"]),
                              "seed": seed})
    note_seed("latent", seed, drawn, args.format)
    if args.plot is not None:
        from bayescm.io.spec_latent import write_figures

        written = write_figures(tree, FIGURES[model], Path(args.plot), "png")
        if args.format == "table":
            print(f"\nwrote {', '.join(p.name for p in written)} to {args.plot}")
    return 0
