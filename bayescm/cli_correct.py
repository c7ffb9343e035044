"""The ``bayescm correct`` command: a true prevalence from an imperfect test's apparent count.

``bayescm correct --positives 142 --n 742 --tpr 'uniform(0.6, 1)' --tnr 'uniform(0.6, 1)'``,
or with the test's validation counts (``--validation-tp 45 --validation-fn 5 --validation-tn
190 --validation-fp 10``), prints the summary of :func:`bayescm.true_prevalence`: the true
prevalence, the apparent rate and the test's TPR and TNR, with the Rogan-Gladen estimate as
the true prevalence's observed value.
"""

from __future__ import annotations

import argparse
import json
import re
from typing import Any

from bayescm.cli_common import (
    count,
    emit,
    note_seed,
    positive_int,
    seed_for,
    seed_int,
)

__all__ = ["add_parser", "correct", "rate_prior"]

_SHORT = re.compile(r"^\s*(beta|uniform|fixed)\s*\(([^()]*)\)\s*$", re.IGNORECASE)


def rate_prior(text: str) -> Any:
    """Argument type: a rate's prior, ``beta(a, b)``, ``uniform(l, u)`` or ``fixed(v)``.

    A prior name or a JSON table (a spec's form) is read as ``--priors`` reads it.

    Examples
    --------
    >>> from bayescm.cli_correct import rate_prior
    >>> rate_prior("uniform(0.6, 1)"), rate_prior("beta(90, 10)"), rate_prior("jeffreys")
    (Uniform(lower=0.6, upper=1.0), Beta(alpha=90.0, beta=10.0), Jeffreys())
    >>> rate_prior('{"mean": 0.9, "concentration": 20}')
    Beta(alpha=18.0, beta=2.0)
    """
    from bayescm.io.spec_parse import parse_prior
    from bayescm.priors import Beta, Fixed
    from bayescm.priors.uniform import Uniform

    found = _SHORT.match(text)
    try:
        if found:
            kind = found.group(1).lower()
            try:
                values = [float(v) for v in found.group(2).split(",")]
            except ValueError:
                raise ValueError(f"{text!r}: the numbers in {kind}(...) are not numbers") from None
            need = {"beta": 2, "uniform": 2, "fixed": 1}[kind]
            if len(values) != need:
                raise ValueError(f"{text!r}: {kind}(...) takes {need} number(s)")
            maker: Any = {"beta": Beta, "uniform": Uniform, "fixed": Fixed}[kind]
            return maker(*values)
        spec: Any = json.loads(text) if text.strip().startswith("{") else text.strip()
        return parse_prior(spec, "the rate")
    except json.JSONDecodeError as err:
        raise argparse.ArgumentTypeError(f"{text!r} is not valid JSON: {err.msg}") from None
    except (TypeError, ValueError) as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def add_parser(sub: Any) -> None:
    """Add the ``correct`` command to the subparsers ``sub`` of the ``bayescm`` parser."""
    c = sub.add_parser(
        "correct", help="true prevalence from an imperfect test's apparent count",
        description="The posterior of a true prevalence from a test's positive count, with the "
                    "test's sensitivity (TPR) and specificity (TNR) as priors and/or its "
                    "validation counts (bcm.true_prevalence). The observed value of the "
                    "prevalence is the Rogan-Gladen estimate.")
    c.add_argument("--positives", type=count, required=True, help="positive results")
    c.add_argument("--n", type=positive_int, required=True, help="number tested")
    prior_help = ("prior: beta(a, b), uniform(lower, upper), fixed(value), a name (laplace, "
                  "jeffreys) or a JSON table such as '{\"mean\": 0.9, \"concentration\": 20}'")
    c.add_argument("--tpr", type=rate_prior, help=f"the test's sensitivity {prior_help}")
    c.add_argument("--tnr", type=rate_prior, help=f"the test's specificity {prior_help}")
    c.add_argument("--prevalence", type=rate_prior,
                   help="the true prevalence's prior (default beta(1, 1))")
    for cell, what in (("tp", "diseased subjects the test found"),
                       ("fn", "diseased subjects it missed"),
                       ("tn", "healthy subjects it cleared"),
                       ("fp", "healthy subjects it flagged")):
        c.add_argument(f"--validation-{cell}", type=count, help=f"validation counts: {what}")
    c.add_argument("--draws", type=positive_int, default=1000,
                   help="draws per chain (default 1000)")
    c.add_argument("--chains", type=positive_int, default=4, help="chains (default 4)")
    c.add_argument("--seed", type=seed_int, help="random seed; without it one is drawn and "
                                                 "printed with the results")
    c.add_argument("--format", default="table", choices=["table", "json", "csv"],
                   help="table (default), json or csv")
    c.set_defaults(func=correct)


def correct(args: argparse.Namespace) -> int:
    """The ``correct`` command: fit and print the summary."""
    import bayescm as bcm
    from bayescm.cli_common import UsageError

    cells = {k: getattr(args, f"validation_{k}") for k in ("tp", "fn", "tn", "fp")}
    given = [k for k, v in cells.items() if v is not None]
    validation = None
    if given:
        if len(given) < 4:
            missing = ", ".join(f"--validation-{k}" for k, v in cells.items() if v is None)
            raise UsageError(f"the validation matrix needs all four counts; missing {missing}")
        validation = bcm.ConfusionMatrix.from_counts(**cells)
    seed, drawn = seed_for(args.seed)
    tree = bcm.true_prevalence(args.positives, args.n, tpr=args.tpr, tnr=args.tnr,
                               validation=validation, prevalence=args.prevalence,
                               draws=args.draws, chains=args.chains, random_seed=seed)
    table = bcm.summary(tree)
    extra = {"model": tree.attrs["model"], "positives": args.positives, "n": args.n,
             "priors": json.loads(tree.attrs["priors"]),
             "excluded_share": float(tree.attrs["excluded_share"]), "seed": seed}
    if args.format == "table":
        print(f"{args.positives:,} positives of {args.n:,}: true prevalence, exact draws "
              f"({args.chains} x {args.draws:,}), 95 % HDI; observed = Rogan-Gladen; seed "
              f"{seed} (--seed {seed} repeats this run)")
    emit(table, args.format, extra)
    note_seed("correct", seed, drawn, args.format)
    return 0
