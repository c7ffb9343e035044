"""Sequential labelling: decide from the labels so far, and see what peeking costs.

A stopping rule looks at the posterior every ``look_every`` new labels and stops at the first
look where a declaration's posterior probability reaches ``level``: the claim (``"tpr >
0.9"``; a paired ``"b > a"``), its contrary (with ``futility=True``; "the claim will not be
shown"), or one of the three outcomes of a ROPE rule (A better, B better, equivalent within
``rope``). Labelling stops at ``max_more`` new labels in any case.

:func:`sequential` reports the decision now and the rule's operating characteristics,
simulated over ``n_streams`` label streams that continue the labels so far under each
scenario: the truth drawn from the current posterior ("predictive": how likely, and how soon,
the question is settled), and truths where a declaration would be wrong (at the claim's
target; no difference between the classifiers), for which the probability of a wrong
declaration is reported both for the rule with its repeated looks and for one look at
``max_more``: the difference is what peeking costs. Streams are simulated as counts per look
(binomial increments, cumulated), every look of every stream evaluated in one pass. The
one-look probability that the question is settled after each number of new labels gives
"how many more labels"
(``more_labels`` of :class:`~bayescm.analyses.samplesize.sequential.SequentialResult`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bayescm.analyses.samplesize.stopping import Question
from bayescm.core.arguments import keyword_checked
from bayescm.core.streams import child, seed_sequence
from bayescm.core.validate import check_int, check_probability, check_real

__all__ = ["SequentialResult", "sequential"]

N_PATHS = 40
"""Streams of the predictive scenario kept whole, for the figure."""


@dataclass(frozen=True)
class SequentialResult:
    """What :func:`sequential` returns: the decision now and the rule's operating characteristics.

    Attributes
    ----------
    decision : str
        The declaration the labels so far allow: ``"claim"`` or ``"contrary"`` (a rate claim,
        ``"b > a"``, ``"a > b"``), ``"b better"``, ``"a better"`` or ``"equivalent"`` (a ROPE
        rule); or ``"continue"``.
    probabilities : dict of str to float
        The posterior probability of each declaration now.
    rule : str
        The rule, e.g. ``"tpr > 0.9"``.
    level : float
        The posterior probability that stops.
    labels : int
        Labels so far.
    looks : ndarray of int
        New labels at each look.
    operating : pandas.DataFrame
        One row per scenario: the probability of each declaration and of none by the last
        look, the expected number of new labels, the probability of a wrong declaration
        with repeated looks (``p_wrong``) and with one look at the end (``p_wrong_one_look``),
        and their Monte Carlo errors.
    settle : ndarray of float
        Probability (predictive) that one look after ``looks[j]`` new labels settles the
        question.
    more_labels : int or None
        The fewest new labels (a look) whose one-look settle probability reaches the
        requested assurance; None if none up to ``max_more`` does.
    paths : ndarray of float
        Posterior probability of the first declaration along :data:`N_PATHS` predictive
        streams (now, then at each look; NaN after a stream stopped).
    n_streams : int
        Streams per scenario.

    See Also
    --------
    sequential : Makes it.
    bayescm.plots.plot_stopping : Draws the streams and the stopping boundary.

    Examples
    --------
    >>> import bayescm as bcm
    >>> res = bcm.samplesize.sequential({"tp": 40, "fn": 2, "tn": 50, "fp": 8}, "tpr > 0.9",
    ...                                 max_more=200, n_streams=300, random_seed=1)
    >>> res.decision, list(res.operating.index)
    ('continue', ['predictive', 'at the target'])
    """

    decision: str
    probabilities: dict[str, float]
    rule: str
    level: float
    labels: int
    looks: np.ndarray
    operating: pd.DataFrame
    settle: np.ndarray
    more_labels: int | None
    paths: np.ndarray
    n_streams: int


def _declare(probs: dict[str, np.ndarray], level: float, futility: bool) -> np.ndarray:
    """Index (in ``probs``' order) of the declaration made in each state, -1 for none."""
    names = list(probs)
    stack = np.stack([probs[n] for n in names], axis=-1)
    if not futility and "contrary" in probs:
        stack[..., names.index("contrary")] = 0.0
    hit = stack >= level
    return np.where(hit.any(axis=-1), np.argmax(hit, axis=-1), -1)


def _wrong(q: Question, truth: np.ndarray) -> np.ndarray:
    """Which declarations are wrong under each truth: ``(streams, declarations)`` booleans."""
    if q.kind == "rate":
        above = truth[:, 0] > q.target
        return np.stack([~above, above], axis=-1)
    diff = truth[:, 2] - truth[:, 1]
    if q.rule == "b > a":
        return np.stack([diff <= q.target, diff > q.target], axis=-1)
    if q.rule == "a > b":
        return np.stack([-diff <= q.target, -diff > q.target], axis=-1)
    return np.stack([diff <= q.target, -diff <= q.target, np.abs(diff) > q.target], axis=-1)


def _streams(q: Question, truth: np.ndarray, looks: np.ndarray, rng: np.random.Generator
             ) -> np.ndarray:
    """States ``(streams, looks, 4)`` of streams that continue the labels so far."""
    steps = np.diff(looks, prepend=0)
    s = truth.shape[0]
    if q.kind == "rate":
        trials = rng.binomial(steps, truth[:, 1:2], (s, steps.size))  # trials of the rate
        hits = rng.binomial(trials, truth[:, 0:1])
        inc = np.stack([hits, trials, trials, np.broadcast_to(steps, (s, steps.size))], -1)
    else:
        counts = np.stack([rng.multinomial(step, truth) for step in steps.tolist()], axis=1)
        inc = counts  # (streams, looks, 4); one multinomial call per look, not per stream
    return q.state + np.cumsum(inc, axis=1)


def _scenarios(q: Question, extra: Any) -> dict[str, np.ndarray | None]:
    mean = q.posterior_mean()
    out: dict[str, np.ndarray | None] = {"predictive": None}
    if q.kind == "rate":
        out["at the target"] = np.array([q.target, mean[1]])
    else:
        psi = mean[1] + mean[2]
        out["no difference"] = np.array([1 - psi - mean[3], psi / 2, psi / 2, mean[3]])
    for name, value in (extra or {}).items():
        out[str(name)] = _truth(q, value)
    return out


def _truth(q: Question, value: Any) -> np.ndarray:
    mean = q.posterior_mean()
    if q.kind == "rate":
        t = check_real(value, "a scenario's true value of the claimed metric", 0.0, 1.0)
        return np.array([1.0 - t if q.reverse else t, mean[1]])
    if not isinstance(value, Mapping) or set(value) != {"p_a_only", "p_b_only"}:
        raise ValueError("A paired scenario is {'p_a_only': .., 'p_b_only': ..}.")
    a = check_real(value["p_a_only"], "p_a_only", 0.0, 1.0)
    b = check_real(value["p_b_only"], "p_b_only", 0.0, 1.0)
    rest = 1.0 - a - b
    if rest < 0:
        raise ValueError("p_a_only + p_b_only must be at most 1.")
    share = mean[0] / max(mean[0] + mean[3], 1e-12)
    return np.array([rest * share, a, b, rest * (1 - share)])


@keyword_checked
def sequential(data: Any, rule: str, *, level: float = 0.95, look_every: int = 50,
               max_more: int = 1000, prior: Any = None, rope: float = 0.0,
               futility: bool = True, scenarios: Mapping[str, Any] | None = None,
               assurance: float = 0.8, n_streams: int = 2000,
               random_seed: Any = None) -> SequentialResult:
    """The decision from the labels so far, and a stopping rule's operating characteristics.

    The operating characteristics are simulated over ``n_streams`` label streams per scenario
    (see the module docstring).

    Parameters
    ----------
    data : ConfusionMatrix, fit, mapping or sequence
        The labels so far: a binary matrix or fit, counts ``{"tp":, "fn":, "fp":, "tn":}``,
        ``(successes, trials)`` of one rate, or for a paired rule the four agreement counts
        (both right, only A right, only B right, both wrong) or a
        :func:`~bayescm.compare_paired_counts` result.
    rule : str
        A claim on a rate (``"tpr > 0.9"``, ``"fpr < 0.05"``, ``"acc > 0.8"``), or a paired
        rule: ``"b > a"``, ``"a > b"``, ``"rope"`` (A better, B better or equivalent).
    level : float, default 0.95
        Posterior probability at which a declaration stops the labelling.
    look_every : int, default 50
        New labels between looks.
    max_more : int, default 1000
        Most new labels (the last look).
    prior : str, Beta, Dirichlet or mapping, optional
        Analysis prior (default Laplace; a Dirichlet over the agreement table for paired
        rules).
    rope : float, default 0
        Half-width of the region of practical equivalence of a paired difference.
    futility : bool, default True
        Also stop when the contrary of the claim reaches ``level``.
    scenarios : mapping, optional
        More truths to simulate, by name: a true rate for a claim (``{"tpr at 0.95": 0.95}``,
        a true value of the claimed metric, ``{"fpr 0.08": 0.08}`` for an FPR claim), or
        ``{"p_a_only": .., "p_b_only": ..}`` for a paired rule.
    assurance : float, default 0.8
        The settle probability that the result's ``more_labels``
        (:class:`~bayescm.analyses.samplesize.sequential.SequentialResult`) asks for.
    n_streams : int, default 2000
        Simulated label streams per scenario (at least 100).
    random_seed : int or numpy Generator, optional
        Seed of the streams.

    Returns
    -------
    SequentialResult
        The decision now, the posterior probabilities, the operating characteristics per
        scenario, the one-look settle probabilities and the fewest new labels that reach
        ``assurance``, and some streams for :func:`bayescm.plots.plot_stopping`.

    Raises
    ------
    ValueError
        Data that do not fit the rule, a rule that is not a rate claim or paired rule, bad
        levels, looks or scenarios.
    TypeError
        Data that are not counts, a matrix or a fit.

    See Also
    --------
    assurance : The chance that a test set of fixed size establishes a claim.
    paired_assurance : The same for a paired comparison.
    bayescm.plots.plot_stopping : Draws the rule.

    Examples
    --------
    Two LLMs labelled on 120 shared items so far: B alone right on 12, A alone on 8.

    >>> import bayescm as bcm
    >>> res = bcm.samplesize.sequential([85, 8, 12, 15], "b > a", look_every=40,
    ...                                 max_more=400, n_streams=500, random_seed=0)
    >>> res.decision
    'continue'
    >>> row = res.operating.loc["no difference"]
    >>> bool(row["p_wrong"] >= row["p_wrong_one_look"])  # peeking costs
    True
    """
    lvl = check_probability(level, "level")
    step = check_int(look_every, "look_every", 1)
    most = check_int(max_more, "max_more", 1)
    streams = check_int(n_streams, "n_streams", 100, 10**6)
    target = check_probability(assurance, "assurance")
    rope = check_real(rope, "rope", 0.0, 1.0)
    q = Question.read(data, rule, prior, rope)
    looks = np.unique(np.append(np.arange(step, most + 1, step), most)).astype(np.int64)
    now = {k: float(v) for k, v in q.probabilities(q.state).items()}
    made = int(_declare({k: np.asarray(v) for k, v in now.items()}, lvl, futility))
    names = list(now)
    decision = "continue" if made < 0 else names[made]
    seq = seed_sequence(random_seed)
    rows, settle, paths = {}, np.zeros(looks.size), np.empty((0, looks.size + 1))
    for i, (name, point) in enumerate(_scenarios(q, scenarios).items()):
        rng = np.random.default_rng(child(seq, i))
        truth = (q.posterior_draws(rng, streams) if point is None
                 else np.tile(point, (streams, 1)))
        states = _streams(q, truth, looks, rng)
        probs = q.probabilities(states)
        made_at = _declare(probs, lvl, futility)  # (streams, looks)
        stopped = made_at >= 0
        first = np.where(stopped.any(axis=1), np.argmax(stopped, axis=1), looks.size)
        final = np.where(first < looks.size, made_at[np.arange(streams),
                                                     np.minimum(first, looks.size - 1)], -1)
        wrong = _wrong(q, truth)
        wrong_made = np.zeros(streams, dtype=bool)
        ok = final >= 0
        wrong_made[ok] = wrong[np.flatnonzero(ok), final[ok]]
        last = made_at[:, -1]
        wrong_last = np.zeros(streams, dtype=bool)
        ok_last = last >= 0
        wrong_last[ok_last] = wrong[np.flatnonzero(ok_last), last[ok_last]]
        used = np.where(first < looks.size, looks[np.minimum(first, looks.size - 1)], most)
        row = {f"p_{n.replace(' ', '_')}": float(np.mean(final == j)) for j, n in
               enumerate(names)}
        row |= {"p_undecided": float(np.mean(final < 0)), "expected_more": float(used.mean()),
                "p_wrong": float(wrong_made.mean()),
                "p_wrong_one_look": float(wrong_last.mean())}
        row |= {"mc_error_p_wrong": float(np.sqrt(row["p_wrong"] * (1 - row["p_wrong"])
                                                  / streams)),
                "mc_error_expected_more": float(used.std() / np.sqrt(streams))}
        rows[name] = row
        if point is None:
            settle = stopped.mean(axis=0)  # one look after looks[j] labels settles it
            track = probs[names[0]][:N_PATHS].astype(float)
            after = np.arange(looks.size)[None, :] > first[:N_PATHS, None]
            track = np.where(after, np.nan, track)
            paths = np.concatenate([np.full((track.shape[0], 1), now[names[0]]), track], 1)
    reach = np.flatnonzero(settle >= target)
    more = int(looks[reach[0]]) if reach.size else None
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "scenario"
    table.attrs.update(rule=q.text, level=lvl, look_every=step, max_more=most)
    labels = int(q.state[3] if q.kind == "rate" else q.state.sum())
    return SequentialResult(decision, now, q.text, lvl, labels, looks, table, settle, more,
                            paths, streams)
