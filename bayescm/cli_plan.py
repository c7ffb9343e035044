"""The ``bayescm sample-size`` command: plan a test set.

Three questions, one per run:

* ``--mu 0.1``: the smallest N whose 95 % HDI is at most that wide with a given power
  (Kruschke's protocol, the paper's Fig. 6);
* ``--claim 'tpr>0.9' --assurance 0.8 --design tpr='{"mean": 0.95, "concentration": 100}'``:
  the smallest N that establishes the claim with that assurance under the design prior
  (``--n`` also prints the assurance at given sizes);
* ``--paired P_A_ONLY P_B_ONLY --power 0.8`` (or ``--assurance``): the paired items needed
  to detect the difference of two classifiers, McNemar's power and the Bayesian assurance
  side by side.

A spec's ``[planning]`` questions are these options (see docs/cli.md).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import pandas as pd

from bayescm.cli_common import (
    UsageError,
    emit,
    note_seed,
    positive_int,
    probability,
    real,
    seed_for,
    seed_int,
)

__all__ = ["add_parser", "run"]

SEED_HELP = ("random seed; without it one is drawn and printed with the results, so --seed "
             "repeats a run exactly")
FORMAT_HELP = ("table (default: aligned columns for reading), json (standard JSON: NaN is "
               "null, infinities \"inf\") or csv")


def _concentration(text: str) -> float:
    """Argument type: a number > 2 (a Beta's a + b with a mode inside (0, 1))."""
    value = real(text)
    if not value > 2:
        raise argparse.ArgumentTypeError(f"{text} must be larger than 2")
    return value


def _design(text: str) -> tuple[str, Any]:
    """``PARAM=PRIOR`` of ``--design``: a number (a known value) or a prior as ``--priors``.

    Examples
    --------
    >>> from bayescm.cli_plan import _design
    >>> _design("tpr=0.93"), _design('prevalence={"mean": 0.2, "concentration": 100}')
    (('tpr', 0.93), ('prevalence', Beta(alpha=20.0, beta=80.0)))
    """
    from bayescm.io.spec_parse import parse_prior

    name, _, value = text.partition("=")
    name, value = name.strip(), value.strip()
    try:
        return name, real(value)
    except argparse.ArgumentTypeError:
        if name.isidentifier() and (value.startswith("{") or value.isalpha()):
            try:
                spec = json.loads(value) if value.startswith("{") else value
                return name, parse_prior(spec, name)
            except (TypeError, ValueError) as err:  # JSONDecodeError is a ValueError
                raise argparse.ArgumentTypeError(str(err)) from None
        raise argparse.ArgumentTypeError(
            f"{text!r} is not PARAM=VALUE: a number in [0, 1] (tpr=0.93) or a Beta "
            "(tpr='{\"mean\": 0.95, \"concentration\": 100}')") from None


def _claim(args: argparse.Namespace) -> pd.DataFrame:
    from bayescm import samplesize

    if not args.design:
        raise UsageError("--claim needs --design, the design prior: e.g. --design "
                         "tpr='{\"mean\": 0.95, \"concentration\": 100}' (a TPR around "
                         "0.95), and "
                         "prevalence=0.2 to count all items")
    design = dict(args.design)
    goal = args.assurance if args.assurance is not None else 0.8
    common = {"level": args.level, "prior": args.prior, "random_seed": args.seed_used,
              "n_sims": args.sims}
    plan = samplesize.required_n_claim(args.claim, assurance=goal, design=design, **common)
    rows = [{"n": plan.n, "assurance": plan.assurance, "mc_error": plan.mc_error}]
    index = ["plan"]
    if args.n:
        curve = samplesize.assurance(args.claim, n=args.n, design=design, **common)
        rows += [{"n": int(n), "assurance": float(a), "mc_error": float(e)}
                 for n, a, e in zip(curve.n, curve.assurance, curve.mc_error, strict=True)]
        index += [f"N={int(n)}" for n in curve.n]
    table = pd.DataFrame(rows, index=index)
    table.attrs["title"] = (
        f"{plan.claim}: smallest N ({plan.counts}) with assurance >= {goal:g} that "
        f"P(claim) >= {plan.level:g}, {plan.method}; no N gives more than {plan.limit:.3f}")
    return table


def _paired(args: argparse.Namespace) -> pd.DataFrame:
    from bayescm import samplesize

    a, b = args.paired
    if (args.power is None) == (args.assurance is None):
        raise UsageError("--paired needs one of --power (McNemar's test) or --assurance "
                         "(Bayesian)")
    method = "exact" if args.exact else "normal"
    plan = samplesize.paired_n(a, b, power=args.power, assurance=args.assurance,
                               alpha=args.alpha, sides=args.sides, method=method,
                               level=args.level)
    assurance = plan.assurance if plan.assurance is not None else float(
        samplesize.paired_assurance(plan.n, a, b, level=args.level))
    table = pd.DataFrame([{"n": plan.n, "power": plan.power, "assurance": assurance}],
                         index=["plan"])
    table.attrs["title"] = (
        f"paired items to detect {b - a:+g} (B - A; discordance {a + b:g}) with {plan.goal} "
        f">= {plan.target:g}: McNemar {method}, alpha {args.alpha:g}, {args.sides}-sided; "
        f"assurance that P(better) >= {args.level:g}")
    return table


def _mu(args: argparse.Namespace) -> pd.DataFrame:
    from bayescm import samplesize

    power = args.power if args.power is not None else 0.95
    result = samplesize.plan(args.mu, power=power, mode=args.mode,
                             concentration=args.concentration, prior=args.prior or "laplace",
                             n_sims=args.sims, random_seed=args.seed_used)
    table = pd.DataFrame([{"n": result.n, "mu_target": result.mu,
                           "mu_reached": result.mu_reached, "power": result.power,
                           "rule_of_thumb_n": result.rule_of_thumb}], index=["plan"])
    table.attrs["title"] = (f"smallest N with MU <= {args.mu:g} in {100 * power:g} % of "
                            f"{args.sims:,} simulated studies per N")
    return table


def run(args: argparse.Namespace) -> int:
    """Run ``bayescm sample-size`` (one of ``--mu``, ``--claim``, ``--paired``)."""
    modes = [m for m in ("mu", "claim", "paired") if getattr(args, m) is not None]
    if len(modes) != 1:
        raise UsageError("give one of --mu (an interval width), --claim (e.g. 'tpr>0.9') or "
                         "--paired P_A_ONLY P_B_ONLY (a difference of two classifiers)"
                         + ("" if not modes else
                            f", not {' and '.join('--' + m for m in modes)}"))
    seed, drawn = seed_for(args.seed)
    args.seed_used = seed
    table = {"mu": _mu, "claim": _claim, "paired": _paired}[modes[0]](args)
    title = table.attrs.pop("title")
    if args.format == "table":
        print(f"{title}; seed {seed} (--seed {seed} repeats this run)")
    emit(table, args.format, {"seed": seed, "question": modes[0]})
    note_seed("sample-size", seed, drawn, args.format)
    return 0


def add_parser(sub: Any) -> None:
    """Add the ``sample-size`` command to the subparsers ``sub`` of the ``bayescm`` parser."""
    s = sub.add_parser(
        "sample-size", help="test-set size for an interval width, a claim or a difference",
        description="Plan a test set: the smallest N whose 95 % HDI is at most --mu wide "
                    "(Kruschke's protocol, paper Fig. 6); that establishes --claim with an "
                    "assurance; or the paired items that detect a difference (--paired).")
    s.add_argument("--mu", type=probability, help="target MU (HDI width), e.g. 0.1")
    s.add_argument("--claim", help="a claim to establish, e.g. 'tpr>0.9', 'fpr<0.05', "
                                   "'width(tpr)<0.1'")
    s.add_argument("--paired", type=probability, nargs=2, metavar=("P_A_ONLY", "P_B_ONLY"),
                   help="expected shares of items only A gets right and only B gets right")
    s.add_argument("--design", nargs="+", type=_design, metavar="PARAM=PRIOR",
                   help="design prior of --claim per parameter: a known value (tpr=0.93) or "
                        "a Beta (tpr='{\"mean\": 0.95, \"concentration\": 100}'); "
                        "prevalence=... makes N count all items")
    s.add_argument("--assurance", type=probability,
                   help="assurance to reach (--claim: default 0.8; --paired: instead of "
                        "--power)")
    s.add_argument("--n", type=positive_int, nargs="+",
                   help="with --claim: also print the assurance at these sizes")
    s.add_argument("--level", type=probability, default=0.95,
                   help="posterior probability that establishes a claim or a difference "
                        "(default 0.95)")
    s.add_argument("--power", type=probability,
                   help="--mu: share of simulated studies reaching the MU (default 0.95); "
                        "--paired: McNemar's power to reach")
    s.add_argument("--alpha", type=probability, default=0.05,
                   help="--paired: significance level of McNemar's test (default 0.05)")
    s.add_argument("--sides", type=int, choices=[1, 2], default=2,
                   help="--paired: two-sided test (default) or one-sided")
    s.add_argument("--exact", action="store_true",
                   help="--paired: the exact McNemar test's power (default: Connor's normal "
                        "approximation)")
    s.add_argument("--mode", type=probability, default=0.8,
                   help="--mu: mode of the design prior of the true metric (default 0.8)")
    s.add_argument("--concentration", type=_concentration, default=10.0,
                   help="--mu: concentration of that design prior, a Beta's a + b > 2 "
                        "(default 10: a vague guess; larger is surer)")
    s.add_argument("--prior", default=None,
                   help="analysis prior of each simulated study: laplace (default), jeffreys, "
                        "flat or weak")
    s.add_argument("--sims", type=positive_int, default=4000,
                   help="simulated studies per N (default 4000; --claim: for metrics that "
                        "are not one rate)")
    s.add_argument("--seed", type=seed_int, help=SEED_HELP)
    s.add_argument("--format", default="table", choices=["table", "json", "csv"],
                   help=FORMAT_HELP)
    s.set_defaults(func=run)

