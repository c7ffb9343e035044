"""Bad input on every public entry point: a clear named error or a correct result, never worse.

Each case calls one public function with one odd argument (booleans, NaN, infinities, huge or
negative integers, strings, masked arrays, misaligned DataFrames, unknown keywords, every form
of seed) and asserts one of:

* ``error``: a TypeError, ValueError or OverflowError (KeyError where a name is looked up)
  whose message names the argument, raised within the time limit;
* ``ok``: a result, within the time limit, with the inputs left unchanged.

Never a silent wrong value, a raw error from NumPy or xarray (AttributeError, IndexError,
ZeroDivisionError, ...), a hang or a corrupted input. The table only uses the public API, so
the same file measures older versions too.
"""

from __future__ import annotations

import copy
import json
import math
import re
import signal
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

import bayescm as bcm
from bayescm import samplesize

NAMED_ERRORS = (TypeError, ValueError, OverflowError, KeyError)
LIMIT_S = 20


@contextmanager
def time_limit(seconds: int) -> Iterator[None]:
    def alarm(signum: int, frame: Any) -> None:
        raise TimeoutError(f"no answer within {seconds} s")

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


@dataclass(frozen=True)
class Case:
    id: str
    call: Callable[[], Any]
    expect: str  # "error" or "ok"
    names: tuple[str, ...] = ()  # one of these must appear in the error message
    inputs: tuple[Any, ...] = ()  # objects that must be unchanged afterwards
    pattern: str = ""  # a regular expression the error message must match (case-insensitive)


def snapshot(obj: Any) -> Any:
    if isinstance(obj, np.ndarray):
        return obj.copy()
    return copy.deepcopy(obj)


def same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ma.MaskedArray):
        return bool(np.array_equal(np.ma.getdata(a), np.ma.getdata(b))
                    and np.array_equal(np.ma.getmaskarray(a), np.ma.getmaskarray(b)))
    if isinstance(a, np.ndarray):
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    if isinstance(a, pd.DataFrame):
        return a.equals(b)
    return bool(a == b) if not hasattr(a, "identical") else bool(a.identical(b))


def run(case: Case) -> None:
    before = [snapshot(x) for x in case.inputs]
    try:
        with time_limit(LIMIT_S):
            result = case.call()
    except TimeoutError:
        pytest.fail(f"{case.id}: hung (no answer within {LIMIT_S} s)")
    except NAMED_ERRORS as err:
        if case.expect == "ok":
            pytest.fail(f"{case.id}: expected a result, got {type(err).__name__}: {err}")
        message = str(err).lower()
        if case.names and not any(name.lower() in message for name in case.names):
            pytest.fail(f"{case.id}: the message does not name {case.names}: {err}")
        if case.pattern and not re.search(case.pattern, str(err), re.IGNORECASE):
            pytest.fail(f"{case.id}: the message does not match {case.pattern!r}: {err}")
    except Exception as err:  # a raw error from somewhere inside
        pytest.fail(f"{case.id}: raw {type(err).__name__}: {err}")
    else:
        if case.expect == "error":
            pytest.fail(f"{case.id}: accepted silently, returned {type(result).__name__}")
    for x, old in zip(case.inputs, before, strict=True):
        assert same(x, old), f"{case.id}: an input was changed"


# ----------------------------------------------------------------------------- values
BOOLS = [True, False, np.True_]
NON_FINITE = [math.nan, math.inf, -math.inf, np.float64("nan")]
HUGE = [2**63, 2**70, 10**400]
STRINGS = ["3", "0.5", ""]
BAD_POSITIVE_INT = [*BOOLS, 0, -1, np.int64(-5), 1.5, 3.0, *NON_FINITE, *HUGE, *STRINGS, [2]]
BAD_PROBABILITY = [*BOOLS, 0, 1, 0.0, 1.0, -0.1, 1.5, *NON_FINITE, *STRINGS, 10**400, [0.5]]
BAD_POSITIVE_REAL = [*BOOLS, 0, -1, -0.5, *NON_FINITE, *STRINGS, 10**400, [1.0]]
BAD_PROPORTION = [*BOOLS, -0.1, 1.1, *NON_FINITE, *STRINGS, 10**400]
BAD_SEEDS = [True, -1, 1.5, "1", np.random.RandomState(0), [1, 2], math.nan]
GOOD_SEEDS = [None, 0, 7, np.int64(3), np.uint32(4), np.random.SeedSequence(5),
              np.random.default_rng(6), 2**70]

COCAINE = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
THREE = bcm.ConfusionMatrix([[9, 1, 0], [2, 7, 1], [0, 1, 5]], labels=["a", "b", "c"])
SMALL = {"draws": 50, "chains": 2}
_FIT = bcm.fit(COCAINE, random_seed=0, **SMALL)
_BATCH = bcm.fit({"a": COCAINE, "b": bcm.ConfusionMatrix.from_counts(tp=5, fn=3, tn=6, fp=2)},
                 random_seed=1, **SMALL)
Y_TRUE = [0, 1, 1, 0, 1, 0, 1, 1]
PRED_A = [0, 1, 0, 0, 1, 1, 1, 1]
PRED_B = [1, 1, 1, 0, 0, 0, 1, 1]


def fit_tree() -> Any:
    return _FIT.copy(deep=True)


def numeric(fname: str, call: Callable[[Any], Any], param: str, bad: list[Any],
            good: list[Any]) -> list[Case]:
    """Cases that pass each value as ``param``; bad ones must raise naming ``param``."""
    out = [Case(f"{fname}-{param}={_label(v)}"[:90], (lambda v=v: call(v)), "error", (param,))
           for v in bad]
    out += [Case(f"{fname}-{param}={_label(v)}-ok"[:90], (lambda v=v: call(v)), "ok")
            for v in good]
    return out


def _label(value: Any) -> str:
    """A test id that is the same in every process (no memory addresses: pytest-xdist)."""
    return re.sub(r" at 0x[0-9A-Fa-f]+", "", repr(value))


def cases() -> list[Case]:
    out: list[Case] = []
    # -------------------------------------------------------------- counts
    bad_counts: list[tuple[str, Any]] = [
        ("negative", [[-1, 2], [3, 4]]),
        ("fraction", [[1.5, 0], [0, 1]]),
        ("nan", [[math.nan, 0], [0, 1]]),
        ("inf", [[math.inf, 0], [0, 1]]),
        ("bools", np.array([[True, False], [False, True]])),
        ("strings", [["1", "2"], ["3", "4"]]),
        ("ragged", [[1, 2], [3]]),
        ("3d", np.ones((2, 2, 2), dtype=int)),
        ("1x1", [[5]]),
        ("non-square", [[1, 2, 3], [4, 5, 6]]),
        ("int64 max + 1", [[2**63 - 1, 1], [0, 5]]),
        ("cell beyond int64", [[2**63, 0], [0, 1]]),
        ("uint64 max", np.array([[2**64 - 1, 0], [0, 1]], dtype=np.uint64)),
        ("1e19", [[1e19, 0], [0, 1]]),
        ("float beyond 2**53", [[2.0**60, 0], [0, 1]]),
        ("sum overflow", [[2**62, 2**62], [2**62, 2**62]]),
        ("None cell", [[None, 1], [2, 3]]),
        ("masked", np.ma.array([[1, 999], [2, 3]], mask=[[0, 1], [0, 0]])),
        ("frame disagrees", pd.DataFrame([[1, 2], [3, 4]], index=["a", "b"],
                                         columns=["a", "c"])),
        ("frame duplicate", pd.DataFrame([[1, 2], [3, 4]], index=["a", "a"],
                                         columns=["a", "a"])),
        ("string", "1 2 3 4"),
    ]
    for label, counts in bad_counts:
        out.append(Case(f"ConfusionMatrix-{label}", (lambda c=counts: bcm.ConfusionMatrix(c)),
                        "error", ("count", "label", "class", "shape", "frame", "array"),
                        (counts,) if not isinstance(counts, str) else ()))
    frame = pd.DataFrame([[5, 1], [2, 7]], index=["a", "b"], columns=["a", "b"])
    out.append(Case("ConfusionMatrix-frame-reordered-columns",
                    lambda: _expect(bcm.ConfusionMatrix(frame[["b", "a"]]).counts.tolist(),
                                    [[5, 1], [2, 7]]), "ok", inputs=(frame,)))
    out.append(Case("ConfusionMatrix-frame-labels-order",
                    lambda: _expect(bcm.ConfusionMatrix(frame, labels=["b", "a"]).counts.tolist(),
                                    [[7, 2], [1, 5]]), "ok", inputs=(frame,)))
    big = np.array([[2**62, 1], [0, 5]], dtype=np.int64)
    out.append(Case("ConfusionMatrix-large-but-fits",
                    lambda: _expect(bcm.ConfusionMatrix(big).n, 2**62 + 6), "ok", inputs=(big,)))
    arr = np.array([[3, 1], [0, 5]])
    out.append(Case("ConfusionMatrix-no-alias",
                    lambda: _no_alias(arr), "ok", inputs=(arr,)))
    for label, value in [("labels-duplicate", ["a", "a"]), ("labels-count", ["a"]),
                         ("labels-none", [None, "b"]), ("labels-nan", [math.nan, "b"]),
                         ("labels-string", "ab")]:
        out.append(Case(f"ConfusionMatrix-{label}",
                        (lambda v=value: bcm.ConfusionMatrix([[1, 2], [3, 4]], labels=v)),
                        "error", ("label",)))
    out.append(Case("ConfusionMatrix-positive-missing",
                    lambda: bcm.ConfusionMatrix([[1, 2], [3, 4]], positive="x"), "error",
                    ("positive",)))
    out.append(Case("ConfusionMatrix-ordered-string",
                    lambda: bcm.ConfusionMatrix([[1, 2], [3, 4]], ordered="yes"), "error",
                    ("ordered",)))
    for cell in ("tp", "fn", "tn", "fp"):
        def make(v: Any, cell: str = cell) -> Any:
            cells = {"tp": 5, "fn": 1, "tn": 4, "fp": 2, cell: v}
            return bcm.ConfusionMatrix.from_counts(**cells)
        out += numeric("from_counts", make, cell,
                       [*BOOLS, -1, 1.5, *NON_FINITE, 2**63, "3", [1]], [0, np.int64(3)])
    out.append(Case("from_counts-sum-overflow",
                    lambda: bcm.ConfusionMatrix.from_counts(tp=2**62, fn=2**62, tn=2**62,
                                                            fp=2**62), "error", ("count",)))
    # -------------------------------------------------------------- predictions
    masked = np.ma.array([1, 0, 1], mask=[0, 1, 0])
    for label, y in [("none", [1, None, 0]), ("nan", [1.0, math.nan, 0.0]),
                     ("masked", masked), ("pandas-na", pd.array([1, pd.NA, 0], dtype="Int64")),
                     ("short", [1, 0])]:
        out.append(Case(f"from_predictions-{label}",
                        (lambda y=y: bcm.ConfusionMatrix.from_predictions(y, [1, 0, 1])),
                        "error", ("y_true", "missing", "label")))
    out.append(Case("from_predictions-one-class",
                    lambda: bcm.ConfusionMatrix.from_predictions([1, 1], [1, 1]), "error",
                    ("class",)))
    # -------------------------------------------------------------- fit
    out += numeric("fit", lambda v: bcm.fit(COCAINE, draws=v, chains=2), "draws",
                   BAD_POSITIVE_INT, [2, np.int64(3)])
    out += numeric("fit", lambda v: bcm.fit(COCAINE, chains=v, draws=20), "chains",
                   BAD_POSITIVE_INT, [1, np.int64(2)])
    out += numeric("fit", lambda v: bcm.fit(COCAINE, hdi_prob=v, **SMALL), "hdi_prob",
                   BAD_PROBABILITY, [0.5, np.float64(0.9)])
    out += numeric("fit", lambda v: bcm.fit(COCAINE, random_seed=v, **SMALL), "random_seed",
                   BAD_SEEDS, GOOD_SEEDS)
    out += numeric("fit", lambda v: bcm.fit(COCAINE, method=v, **SMALL), "method",
                   ["fast", 1, None], ["exact", "auto"])
    out += numeric("fit", lambda v: bcm.fit(COCAINE, prior=v, **SMALL), "prior",
                   ["uniformish", 3, True], ["jeffreys", bcm.Beta(2, 2), None, "weak"])
    out += numeric("fit", lambda v: bcm.fit(COCAINE, metrics=v, **SMALL), "metric",
                   ["nonsense", [3], ["tpr", "nope"]], [["tpr"], "all"])
    out += numeric("fit", lambda v: bcm.fit(COCAINE, **SMALL, **v), "keyword",
                   [{"bogus": 1}, {"tune": 100}], [{"priors": {"tpr": bcm.Beta(2, 2)}}])
    out += numeric("fit", lambda v: bcm.fit(COCAINE, **SMALL, **v), "prior",
                   [{"priors": {"tpr": 3}}, {"priors": {"bogus": bcm.Beta(2, 2)}},
                    {"priors": {"tpr": bcm.Beta(2, 2)}, "tpr": "jeffreys"}, {"priors": 3}], [])
    out += numeric("fit", lambda v: bcm.fit(v, model="hierarchical", group="study", **SMALL),
                   "mapping", [COCAINE, [COCAINE]], [])
    out += numeric("fit", lambda v: bcm.fit({"a": COCAINE}, model="hierarchical", group=v,
                                            **SMALL), "group", [None, 3, "two words", "draw"], [])
    out += numeric("fit", lambda v: bcm.fit(COCAINE, model=v, **SMALL), "model",
                   ["hier", 3], ["auto"])
    out += numeric("fit", lambda v: bcm.fit(v, **SMALL), "data",
                   [[[1, 2], [3, 4]], {}, {"a": [[1, 2], [3, 4]]}, None], [])
    out.append(Case("fit-absurd-draws", lambda: bcm.fit(COCAINE, draws=10**8), "error",
                    ("memory", "draws")))
    out.append(Case("fit-absurd-batch",
                    lambda: bcm.fit(dict.fromkeys(map(str, range(20_000)), COCAINE)),
                    "error", ("memory", "draws")))
    out.append(Case("fit-save-big-seed", lambda: _save_roundtrip(
        bcm.fit(COCAINE, random_seed=2**70, **SMALL)), "ok"))
    out.append(Case("fit-seed-recorded-none", lambda: _redraw(None), "ok"))
    out.append(Case("fit-seed-recorded-generator", lambda: _redraw(np.random.default_rng(3)),
                    "ok"))
    out.append(Case("fit-generator-advances", _generator_advances, "ok"))
    # -------------------------------------------------------------- tree readers
    tree = _FIT
    out += numeric("summary", lambda v: bcm.summary(tree, hdi_prob=v), "hdi_prob",
                   BAD_PROBABILITY, [0.5])
    out += numeric("summary", lambda v: bcm.summary(tree, var_names=v), "metric",
                   ["nope", [3]], [["tpr"], "sensitivity"])
    out += numeric("summary", lambda v: bcm.summary(v), "tree",
                   [None, 3, {"posterior": 1}], [])
    for side in ("lower", "upper"):
        out += numeric("probability", lambda v, s=side: bcm.probability(tree, "bm", **{s: v}),
                       side, [*BOOLS, math.nan, "0", [0.1]], [0.0, np.float64(0.5)])
    out += numeric("informedness", lambda v: bcm.informedness(tree, rope=v), "rope",
                   [*BOOLS, -0.1, 1.0, 1.5, *NON_FINITE, "0.1"], [0.0, 0.05])
    out += numeric("with_prevalence", lambda v: bcm.with_prevalence(fit_tree(), v),
                   "prevalence", [*BOOLS, 0, 1, -0.1, 1.5, *NON_FINITE, "0.5", [0.5, 0.6]],
                   [0.01, np.float64(0.3), bcm.Beta(2, 50)])
    out += numeric("with_prevalence", lambda v: bcm.with_prevalence(fit_tree(), 0.1,
                                                                    random_seed=v),
                   "random_seed", BAD_SEEDS, GOOD_SEEDS[:4])
    out += numeric("posterior_predictive", lambda v: bcm.posterior_predictive(fit_tree(), n=v),
                   "n", [*BOOLS, 0, -3, 1.5, *NON_FINITE, 2**70, "10", [1, 2, 3]], [1, 100])
    out += numeric("posterior_predictive",
                   lambda v: bcm.posterior_predictive(fit_tree(), random_seed=v), "random_seed",
                   BAD_SEEDS, GOOD_SEEDS[:4])
    out += numeric("prior_predictive", lambda v: bcm.analyses.prior_predictive(draws=v, chains=2),
                   "draws", BAD_POSITIVE_INT, [2])
    out += numeric("prior_predictive", lambda v: bcm.analyses.prior_predictive(labels=v, **SMALL),
                   "label", [["a"], ["a", "a"], "ab"], [["x", "y", "z"]])
    out += numeric("prior_sensitivity",
                   lambda v: bcm.analyses.prior_sensitivity(COCAINE, v, **SMALL), "prior",
                   [[], ["nonsense"], 3], [["laplace", "jeffreys"]])
    # -------------------------------------------------------------- priors
    out += numeric("Beta", lambda v: bcm.Beta(v, 2), "alpha", BAD_POSITIVE_REAL, [0.5, 3])
    out += numeric("Beta", lambda v: bcm.Beta(2, v), "beta", BAD_POSITIVE_REAL, [0.5, 3])
    out += numeric("Beta.from_mean", lambda v: bcm.Beta.from_mean(v, 10), "mean",
                   [*BOOLS, 0, 1, -0.1, 1.5, *NON_FINITE, "0.5"], [0.3])
    out += numeric("Beta.from_mean", lambda v: bcm.Beta.from_mean(0.5, v), "concentration",
                   BAD_POSITIVE_REAL, [10])
    out += numeric("Beta.from_interval", lambda v: bcm.Beta.from_interval(0.2, 0.4, v), "mass",
                   BAD_PROBABILITY, [0.9])
    out += numeric("Beta.from_counts", lambda v: bcm.Beta.from_counts(v, 3), "successes",
                   [*BOOLS, -1, *NON_FINITE, "2"], [0, 4])
    out += numeric("Fixed", bcm.Fixed, "value",
                   [*BOOLS, 0, 1, -0.1, 1.5, *NON_FINITE, "0.5", [0.5, 0.6], [[0.5]]],
                   [0.5, [0.2, 0.8]])
    out += numeric("Dirichlet", bcm.Dirichlet, "alpha",
                   [*BOOLS, 0, -1, *NON_FINITE, "1", [[1, 2]], [1, -1]], [1, [1, 2, 3]])
    # -------------------------------------------------------------- sample size
    out += numeric("mu_bound", samplesize.mu_bound, "n",
                   [*BOOLS, 0, -5, 1.5, *NON_FINITE, 10**30, "10"], [1, 100, [10, 100]])
    out += numeric("required_n", samplesize.required_n, "mu",
                   [*BOOLS, 0, -0.1, 1.5, *NON_FINITE, 1e-10, "0.1"], [0.1, 1e-9])
    out += numeric("mu_at_power", lambda v: samplesize.mu_at_power(v, n_sims=200), "n",
                   [*BOOLS, 0, -5, 2.5, *NON_FINITE, 2**70, "10"], [10, 10**12, 10**18])
    out += numeric("mu_at_power", lambda v: samplesize.mu_at_power(100, power=v, n_sims=200),
                   "power", BAD_PROBABILITY, [0.5])
    out += numeric("mu_at_power", lambda v: samplesize.mu_at_power(100, mode=v, n_sims=200),
                   "mode", [*BOOLS, -0.1, 1.5, *NON_FINITE, "0.8"], [0.8])
    out += numeric("mu_at_power",
                   lambda v: samplesize.mu_at_power(100, concentration=v, n_sims=200),
                   "concentration", [*BOOLS, 1, -3, *NON_FINITE, 10**400, "10"], [10])
    out += numeric("mu_at_power", lambda v: samplesize.mu_at_power(100, n_sims=v), "n_sims",
                   BAD_POSITIVE_INT, [10])
    out += numeric("plan", lambda v: samplesize.plan(v, n_sims=200), "mu",
                   [*BOOLS, 0, 1.5, *NON_FINITE, 1e-10, "0.1"], [0.2])
    out += numeric("plan", lambda v: samplesize.plan(0.2, n_max=v, n_sims=200), "n_max",
                   [*BOOLS, 1, -5, 2.5, *NON_FINITE, 10**19, "100"], [10**18])
    out.append(Case("plan-huge-n", lambda: samplesize.plan(1e-9, n_max=10**18, n_sims=200),
                    "error", ("n_max",)))
    out += numeric("beta_hdi", lambda v: samplesize.beta_hdi(v, 3), "alpha",
                   [0, -1, *NON_FINITE, "2"], [2, 1e12])
    # -------------------------------------------------------------- comparisons
    other = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=20, fn=6, tn=5, fp=3), random_seed=9,
                    **SMALL)
    out += numeric("prob_superior",
                   lambda v: bcm.prob_superior(tree, other, metric="tpr", margin=v), "margin",
                   [*BOOLS, -0.1, *NON_FINITE, "0"], [0.0, 0.05])
    out += numeric("rank_probabilities",
                   lambda v: bcm.rank_probabilities(_BATCH, "acc", max_rank=v), "max_rank",
                   [*BOOLS, 0, -1, 1.5, *NON_FINITE, "2"], [1, 2])
    out += numeric("leaderboard", lambda v: bcm.leaderboard([0.9, 0.8, 0.7], n=v, draws=200),
                   "n", [*BOOLS, 0, -10, 1.5, *NON_FINITE, "100"], [100])
    out += numeric("leaderboard", lambda v: bcm.leaderboard(v, n=100, draws=200), "scores",
                   [[0.9, math.nan], [0.9, 1.5], [0.9], "0.9", [True, False]], [[0.9, 0.8]])
    out += numeric("leaderboard",
                   lambda v: bcm.leaderboard([0.9, 0.8], n=100, draws=v), "draws",
                   BAD_POSITIVE_INT, [10])
    out += numeric("leaderboard",
                   lambda v: bcm.leaderboard([0.9, 0.8], n=100, draws=200, random_seed=v),
                   "random_seed", BAD_SEEDS, GOOD_SEEDS[:5])
    out += numeric("compare_paired",
                   lambda v: bcm.compare_paired(Y_TRUE, PRED_A, PRED_B, positive=1, rope=v,
                                                **SMALL), "rope",
                   [*BOOLS, -0.1, *NON_FINITE, "0"], [0.0, 0.02])
    out += numeric("compare_paired",
                   lambda v: bcm.compare_paired(Y_TRUE, PRED_A, PRED_B, positive=1,
                                                random_seed=v, **SMALL), "random_seed",
                   BAD_SEEDS, GOOD_SEEDS[:5])
    out += numeric("compare_paired_counts",
                   lambda v: bcm.compare.compare_paired_counts(v, 10, 4, 20, **SMALL), "both_right",
                   [*BOOLS, -1, 1.5, *NON_FINITE, "3"], [5])
    # -------------------------------------------------------------- simulation, baselines
    out += numeric("simulate", lambda v: bcm.analyses.simulate(v, random_seed=0), "n",
                   [*BOOLS, 0, -1, 1.5, *NON_FINITE, 2**70, "10"], [1, 100])
    for p in ("prevalence", "tpr", "tnr"):
        out += numeric("simulate", lambda v, p=p: bcm.analyses.simulate(50, random_seed=0,
                                                                        **{p: v}), p,
                       BAD_PROPORTION, [0.0, 1.0, 0.3])
    out += numeric("simulate", lambda v: bcm.analyses.simulate(50, random_seed=v), "random_seed",
                   BAD_SEEDS, GOOD_SEEDS[:5])
    from bayescm.analyses import frequentist

    out += numeric("bootstrap",
                   lambda v: frequentist.bootstrap(Y_TRUE, PRED_A, n_boot=v, positive=1),
                   "n_boot", BAD_POSITIVE_INT, [10])
    out += numeric("bootstrap",
                   lambda v: frequentist.bootstrap(Y_TRUE, PRED_A, ci=v, n_boot=50, positive=1),
                   "ci", BAD_PROBABILITY, [0.9])
    out += numeric("binomial_interval", lambda v: frequentist.binomial_interval(3, v), "n",
                   [*BOOLS, 0, -3, 1.5, *NON_FINITE, "10"], [10])
    out += numeric("priors_from_matrix", lambda v: bcm.priors.priors_from_matrix(COCAINE, weight=v),
                   "weight", BAD_POSITIVE_REAL, [0.5])
    out += numeric("priors_from_metrics",
                   lambda v: bcm.priors.priors_from_metrics({"acc": v, "tpr": 0.7, "ppv": 0.75},
                                                            10),
                   "acc", [*BOOLS, -0.1, 1.5, *NON_FINITE, "0.8"], [0.8])
    # -------------------------------------------------------------- unknown keywords
    keyword_calls: dict[str, Callable[..., Any]] = {
        "fit": lambda **k: bcm.fit(COCAINE, **SMALL, **k),
        "build_model": lambda **k: bcm.build_model(COCAINE, **k),
        "summary": lambda **k: bcm.summary(tree, **k),
        "probability": lambda **k: bcm.probability(tree, "bm", upper=0, **k),
        "informedness": lambda **k: bcm.informedness(tree, **k),
        "with_prevalence": lambda **k: bcm.with_prevalence(fit_tree(), 0.1, **k),
        "posterior_predictive": lambda **k: bcm.posterior_predictive(fit_tree(), **k),
        "prior_predictive": lambda **k: bcm.analyses.prior_predictive(**SMALL, **k),
        "prior_sensitivity": lambda **k: bcm.analyses.prior_sensitivity(COCAINE, **SMALL, **k),
        "prob_superior": lambda **k: bcm.prob_superior(tree, other, metric="tpr", **k),
        "rank_probabilities": lambda **k: bcm.rank_probabilities(_BATCH, "acc", **k),
        "leaderboard": lambda **k: bcm.leaderboard([0.9, 0.8], n=100, draws=50, **k),
        "compare_paired": lambda **k: bcm.compare_paired(Y_TRUE, PRED_A, PRED_B, positive=1,
                                                         **SMALL, **k),
        "compare_paired_counts": lambda **k: bcm.compare.compare_paired_counts(5, 3, 2, 9, **SMALL,
                                                                       **k),
        "simulate": lambda **k: bcm.analyses.simulate(20, **k),
        "simulate_counts": lambda **k: bcm.analyses.simulate_counts(20, **k),
        "priors_from_matrix": lambda **k: bcm.priors.priors_from_matrix(COCAINE, **k),
        "priors_from_metrics": lambda **k: bcm.priors.priors_from_metrics(
            {"acc": 0.8, "tpr": 0.7, "ppv": 0.75}, 10, **k),
        "cells_from_metrics": lambda **k: bcm.priors.cells_from_metrics(
            {"acc": 0.8, "tpr": 0.7, "ppv": 0.75}, **k),
        "list_metrics": lambda **k: bcm.metrics.list_metrics(**k),
        "mu_bound": lambda **k: samplesize.mu_bound(100, **k),
        "required_n": lambda **k: samplesize.required_n(0.1, **k),
        "mu_at_power": lambda **k: samplesize.mu_at_power(100, n_sims=50, **k),
        "plan": lambda **k: samplesize.plan(0.3, n_sims=50, **k),
        "bootstrap": lambda **k: frequentist.bootstrap(Y_TRUE, PRED_A, n_boot=20, positive=1,
                                                       **k),
        "binomial_interval": lambda **k: frequentist.binomial_interval(3, 10, **k),
        "ConfusionMatrix": lambda **k: bcm.ConfusionMatrix([[1, 2], [3, 4]], **k),
        "plot_metric": lambda **k: bcm.plots.plot_metric(tree, "tpr", **k),
        "plot_forest": lambda **k: bcm.plots.plot_forest(_BATCH, "bm", **k),
        "save": lambda **k: bcm.save(tree, "unused.nc", **k),
        "load": lambda **k: bcm.load("unused.nc", **k),
        "load_spec": lambda **k: bcm.spec.load_spec("unused.toml", **k),
        "from_counts": lambda **k: bcm.ConfusionMatrix.from_counts(tp=1, fn=2, tn=3, fp=4, **k),
        "from_predictions": lambda **k: bcm.ConfusionMatrix.from_predictions([0, 1], [1, 1],
                                                                             **k),
    }
    for name, call in keyword_calls.items():
        out.append(Case(f"{name}-unknown-keyword", (lambda c=call: c(bogus_option=1)), "error",
                        ("bogus_option",)))
        out.append(Case(f"{name}-unknown-keyword-lists-valid",
                        (lambda c=call: c(bogus_option=1)), "error", ("valid",)))
    out += file_cases()
    out += app_field_cases()
    return out


def app_field_cases() -> list[Case]:
    """The web app's number fields: the strict parser, errors that name the field."""
    from bayescm.app.parse import parse_count, parse_real, parse_shares, parse_whole

    huge = "9" * 5000
    calls: list[tuple[str, Callable[[str], Any], list[str]]] = [
        ("draws", lambda v: parse_whole(v, "draws", 1, 100_000),
         [huge, huge + ".0", "inf", "nan", "1e999", "1_000", "0x10", "1,000", "\u0663", "2.5"]),
        ("TP", lambda v: parse_count(v, "TP"),
         [huge, "1" + "0" * 400 + ".0", "inf", "-inf", "nan", "1e400", "0_9", "-3", "1.5"]),
        ("mean", lambda v: parse_real(v, "mean", 0, 1, open_low=True, open_high=True),
         [huge, "inf", "nan", "1e999", "0,9", "0_5", "0x1", "1.5"]),
        ("concentration", lambda v: parse_real(v, "concentration", 0, open_low=True),
         [huge, "inf", "1e999", "1e309"]),
        ("prevalence", lambda v: parse_shares(v, "prevalence", 2), ["0.5, inf", "nan 0.5"]),
    ]
    out = [Case(f"app-{field}={_label(v)[:24]}", (lambda f=f, v=v: f(v)), "error", (field,))
           for field, f, values in calls for v in values]
    out.append(Case("app-count-exact", lambda: _expect(parse_count("9007199254740992", "TP"),
                                                      2**53), "ok"))
    return out


def input_cases() -> list[Case]:
    """Issue 26: items that must pair up, 0/1 labels, options, names, priors, attributes."""
    y = pd.Series([1, 0, 1, 1, 0, 0], index=list("abcdef"))
    s = pd.Series([0.9, 0.1, 0.8, 0.7, 0.3, 0.2], index=list("abcdef"))
    other = s.set_axis(list("abcdeg"))
    nuts = {"method": "nuts", "draws": 20, "chains": 1}
    out = [
        Case("Scores-series-other-index", lambda: bcm.Scores(y, other), "error", ("index",)),
        Case("Scores-mapping-other-index", lambda: bcm.Scores(y, {"A": s, "B": other}),
             "error", ("index",)),
        Case("Scores-duplicate-index", lambda: bcm.Scores(
            y.set_axis(list("aacdef")), s.set_axis(list("aacdfe"))), "error", ("duplicate",)),
        Case("Scores-predict-proba", lambda: bcm.Scores(y.to_numpy(), np.c_[1 - s, s]),
             "error", ("proba[:, 1]",)),
        Case("Scores-frame-duplicate-columns", lambda: bcm.Scores(
            y, pd.DataFrame(np.c_[s, s], index=s.index, columns=["A", "A"])), "error",
             ("duplicate",)),
        Case("Scores-ints-beyond-2**53", lambda: bcm.Scores(
            [0, 1, 0], np.array([2**60, 2**60 + 1, 3], dtype=np.int64)), "error", ("2**53",)),
        Case("Scores-generator-labels", lambda: bcm.Scores(iter([0, 1, 0]), [0.1, 0.9, 0.2]),
             "ok"),
        Case("from_predictions-other-index", lambda: bcm.ConfusionMatrix.from_predictions(
            y, y.set_axis(list("abcdeg"))), "error", ("index",)),
        Case("from_predictions-predict-proba", lambda: bcm.ConfusionMatrix.from_predictions(
            y.to_numpy(), np.c_[1 - s, s]), "error", ("y_pred",)),
        Case("compare_paired-other-index", lambda: bcm.compare_paired(
            y, y, y.set_axis(list("abcdeg")), draws=20), "error", ("index",)),
        Case("from_counts-labels-string", lambda: bcm.ConfusionMatrix.from_counts(
            tp=1, fn=2, tn=3, fp=4, labels="ab"), "error", ("labels",)),
        Case("ConfusionMatrix-label-nul", lambda: bcm.ConfusionMatrix(
            [[3, 1], [1, 3]], labels=["x", "x\x00"]), "error", ("control character",)),
        Case("fit-batch-names-nul", lambda: bcm.fit({"a": COCAINE, "a\x00": COCAINE}, **SMALL),
             "error", ("control character",)),
        Case("fit-nuts-target_accept=2", lambda: bcm.fit(COCAINE, target_accept=2.0, **nuts),
             "error", ("target_accept",)),
        Case("fit-nuts-tune=-5", lambda: bcm.fit(COCAINE, tune=-5, **nuts), "error", ("tune",)),
        Case("fit-nuts-cores=x", lambda: bcm.fit(COCAINE, cores="x", **nuts), "error",
             ("cores",)),
        Case("fit-nuts-init=typo", lambda: bcm.fit(COCAINE, init="jitter", **nuts), "error",
             ("init",)),
        Case("fit-var_names", lambda: bcm.fit(COCAINE, var_names=["tpr"], **SMALL), "error",
             ("var_names",)),
        Case("HalfNormal-negative", lambda: bcm.priors.HalfNormal(-1), "error", ("sigma",)),
        Case("LKJ-negative", lambda: bcm.priors.LKJ(-1), "error", ("eta",)),
        Case("Normal-nan", lambda: bcm.priors.Normal(0, math.nan), "error", ("sigma",)),
        Case("Dirichlet-masked", lambda: bcm.Dirichlet(np.ma.array([1, 2, 3], mask=[0, 1, 0])),
             "error", ("masked",)),
        Case("Fixed-masked", lambda: bcm.Fixed(np.ma.array([0.2, 0.8], mask=[0, 1])), "error",
             ("masked",)),
        Case("leaderboard-n=2**63", lambda: bcm.leaderboard({"a": 0.9, "b": 0.8}, n=2**63),
             "error", ("2**53",)),
        Case("simulate-size-objects", lambda: bcm.analyses.simulate(10, size=5 * 10**7), "error",
             ("size",)),
        Case("refit-tampered-seed", lambda: bcm.refit(_tampered({"random_seed": "abc"})),
             "error", ("random_seed",)),
        Case("load-binary-model-on-3-classes", lambda: _reloaded(_three_as_binary()), "error",
             ("model",)),
        Case("load-fixed-without-value", lambda: _reloaded(_tampered({"priors": json.dumps({
            "prevalence": {"dist": "Fixed"}, "tpr": {"dist": "Beta", "alpha": 1, "beta": 1},
            "tnr": {"dist": "Beta", "alpha": 1, "beta": 1}})})), "error", ("priors",)),
    ]
    return out


def _tampered(attrs: dict[str, Any]) -> Any:
    tree = fit_tree()
    tree.attrs.update(attrs)
    return tree


def _three_as_binary() -> Any:
    tree = bcm.fit(bcm.ConfusionMatrix([[30, 4, 1], [3, 25, 5], [0, 4, 28]]), **SMALL)
    tree.attrs["model"] = "binary"
    return tree


def _reloaded(tree: Any) -> Any:
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp()) / "t.nc"
    tree.to_netcdf(path, engine="h5netcdf")  # written as it is (bcm.save would refuse it)
    return bcm.load(path)


# ----------------------------------------------------------------------------- files
BAD_CELLS = {  # a cell of a CSV file -> words of the message
    "0,9": "decimal comma", "0_9": "underscore", '"1,000"': "comma", "nan": "finite",
    "inf": "finite", "0x1A": "hexadecimal", "9 1": "space", "": "empty", "1e999": "large",
    "9" * 5000: "large", "\u0663": "non-ascii"}


def _file(name: str, content: str | bytes) -> str:
    import tempfile
    from pathlib import Path

    path = Path(tempfile.mkdtemp()) / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return str(path)


def _folder() -> str:
    import tempfile

    return tempfile.mkdtemp()


def file_cases() -> list[Case]:
    """Malformed files and unwritable paths: a named error that names the file (issue 26)."""
    from bayescm.io.readers import read_matrix_csv

    out = []
    for cell, words in BAD_CELLS.items():
        out.append(Case(f"Scores.from_csv-cell={_label(cell)[:20]}", (
            lambda c=cell: bcm.Scores.from_csv(_file("s.csv", f"y,p\n1,{c}\n0,0.2\n"),
                                               label="y", score="p")),
            "error", ("line 2",), pattern=rf"s\.csv, line 2.*{re.escape(words)}"))
        out.append(Case(f"read_matrix_csv-cell={_label(cell)[:20]}", (
            lambda c=cell: read_matrix_csv(_file("m.csv", f"t,a,b\na,5,{c}\nb,2,7\n"))),
            "error", ("line 2",), pattern=rf"m\.csv, line 2.*{re.escape(words)}"))
    layouts = {"repeated-column": ("y,p,p\n1,0.9,0.1\n0,0.2,0.3\n", "twice"),
               "empty-column": ("y,p,\n1,0.9,1\n0,0.2,2\n", "empty column name"),
               "short-row": ("y,p,q\n1,0.9\n0,0.2,0.3\n", "cells"),
               "long-row": ("y,p\n1,0,9\n0,0.2\n", "decimal comma"),
               "semicolons": ("y;p\n1;0,9\n", "semicolons"),
               "latin-1": ("y,p\u00e9\n1,0.9\n".encode("latin-1"), "utf-8"),
               "utf-16": ("y,p\n1,0.9\n".encode("utf-16"), "utf-16"),
               "empty": ("", "empty")}
    for label, (content, words) in layouts.items():
        out.append(Case(f"Scores.from_csv-{label}", (
            lambda c=content: bcm.Scores.from_csv(_file("s.csv", c), label="y", score="p")),
            "error", ("s.csv",), pattern=re.escape(words)))
    tree = _FIT
    for label, call, words in [
        ("save-to-a-folder", lambda: bcm.save(tree, _folder()), "folder"),
        ("save-inside-a-file", lambda: bcm.save(tree, f"{_file('f', 'x')}/fit.nc"), "file"),
        ("save-name-too-long", lambda: bcm.save(tree, f"{_folder()}/{'x' * 300}.nc"),
         "too long"),
        ("load-a-folder", lambda: bcm.load(_folder()), "folder"),
        ("load-a-text-file", lambda: bcm.load(_file("fit.nc", "not netCDF")), "fit.nc"),
        ("load-an-empty-file", lambda: bcm.load(_file("fit.nc", b"")), "fit.nc"),
        ("load_spec-a-folder", lambda: bcm.spec.load_spec(_folder()), "folder"),
        ("load_spec-latin-1", lambda: bcm.spec.load_spec(_file("s.toml", "# caf\u00e9\n".encode(
            "latin-1"))), "utf-8"),
        ("spec.run-into-a-file", lambda: bcm.spec.parse_spec(
            {"data": {"tp": 5, "fn": 1, "tn": 4, "fp": 2}}, name="toy").run(_file("f", "x")),
         "file"),
        ("spec-name-too-long", lambda: bcm.spec.parse_spec(
            {"data": {"tp": 5, "fn": 1, "tn": 4, "fp": 2}}, name="x" * 300), "name"),
    ]:
        out.append(Case(f"files-{label}", call, "error", (words,)))
    for address in ["foo:bar", "host:", ":8786", "tcp://host:99999", "http://host:8787",
                    "tcp://ho st:8786", "udp://host:8786", "host:8786:1"]:
        out.append(Case(f"summarize_batch-client={address}", (
            lambda a=address: bcm.summarize_batch(COCAINE.counts[None], labels=["p", "n"],
                                                  positive="p", client=a)), "error",
            ("client",)))
    return out


def _expect(value: Any, wanted: Any) -> Any:
    assert value == wanted, f"got {value}, expected {wanted}"
    return value


def _no_alias(arr: np.ndarray) -> Any:
    cm = bcm.ConfusionMatrix(arr)
    assert not np.shares_memory(cm.counts, arr)
    return cm


def _save_roundtrip(tree: Any) -> Any:
    import tempfile
    from pathlib import Path

    path = bcm.save(tree, Path(tempfile.mkdtemp()) / "fit.nc")
    return bcm.load(path)


def _redraw(seed: Any) -> Any:
    first = bcm.fit(COCAINE, random_seed=seed, **SMALL)
    again = bcm.fit(COCAINE, random_seed=int(first.attrs["random_seed"]), **SMALL)
    np.testing.assert_array_equal(first["posterior"]["tpr"].values,
                                  again["posterior"]["tpr"].values)
    return again


def _generator_advances() -> Any:
    rng = np.random.default_rng(3)
    a = bcm.fit(COCAINE, random_seed=rng, **SMALL)
    b = bcm.fit(COCAINE, random_seed=rng, **SMALL)
    assert not np.array_equal(a["posterior"]["tpr"].values, b["posterior"]["tpr"].values)
    used = np.random.default_rng(3)
    used.random(10)
    c = bcm.fit(COCAINE, random_seed=used, **SMALL)
    assert not np.array_equal(a["posterior"]["tpr"].values, c["posterior"]["tpr"].values)
    return c


def test_cli_refuses_counts_past_int64(capsys: pytest.CaptureFixture[str]) -> None:
    """The command line exits 2 with one line instead of printing an accuracy of -1."""
    from bayescm.cli import main

    code = main(["analyze", "--tp", str(2**63 - 1), "--fn", "1", "--tn", "1", "--fp", "1"])
    err = capsys.readouterr().err
    assert code == 2
    assert "2**63 - 1" in err
    assert len(err.strip().splitlines()) == 1


CASES = cases() + input_cases()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input(case: Case) -> None:
    run(case)


def test_shared_seeds_warn_however_given() -> None:
    """Two fits from the same random numbers warn, whether the seed was an int or a Generator."""
    twin = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    for make in (lambda: np.int64(3), lambda: np.random.default_rng(3), lambda: 3):
        a = bcm.fit(COCAINE, random_seed=make(), **SMALL)
        b = bcm.fit(twin, random_seed=make(), **SMALL)
        with pytest.warns(UserWarning, match="same random numbers"):
            bcm.prob_superior(a, b, metric="tpr")


@pytest.mark.filterwarnings("ignore::bayescm.errors.EmptyMatrixWarning")
@given(st.lists(st.integers(min_value=0, max_value=2**64), min_size=4, max_size=4))
def test_counts_exact_or_refused(cells: list[int]) -> None:
    """Any four non-negative integers give the exact total or a named OverflowError."""
    try:
        cm = bcm.ConfusionMatrix([cells[:2], cells[2:]])
    except OverflowError as err:
        assert "2**63 - 1" in str(err)  # noqa: PT017
        assert max(cells) > 2**63 - 1 or sum(cells) > 2**63 - 1
    else:
        assert cm.n == sum(cells)
        assert cm.counts.tolist() == [cells[:2], cells[2:]]
