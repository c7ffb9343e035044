"""Sequential labelling (issue 33 points 4 and 5): the stopping rule's reported operating
characteristics against an exact recursion and an independent simulation.

A rule on one rate with every new label a trial has one count as its state, so the
probability that it ever declares the claim when the truth sits at the target (a wrong
declaration) is computed exactly here by carrying the distribution of the count from look to
look and removing what stops. The paired rule is simulated here independently, stream by
stream, with scipy's Beta tail for P(B > A).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import bayescm as bcm

S = bcm.samplesize


def _exact_wrong(k0: int, m0: int, t: float, level: float, looks: np.ndarray,
                 one_look: bool = False) -> float:
    """P(the claim "rate > t" is declared) when the truth is t, Laplace prior, futility on."""
    dist = np.zeros(1)  # distribution of the new successes so far (not yet stopped)
    dist[0] = 1.0
    done = 0
    declared = 0.0
    for j, look in enumerate(looks):
        step = int(look - done)
        new = np.convolve(dist, stats.binom.pmf(np.arange(step + 1), step, t))
        k = k0 + np.arange(new.size)
        m = m0 + look
        p = stats.beta.sf(t, 1 + k, 1 + m - k)
        if one_look and j < len(looks) - 1:
            dist, done = new, look
            continue
        declared += new[p >= level].sum()
        new[(p >= level) | (p <= 1 - level)] = 0.0  # stopped either way
        dist, done = new, look
    return float(declared)


def test_wrong_declarations_of_a_rate_rule_match_the_exact_recursion():
    res = S.sequential((46, 50), "acc > 0.9", level=0.95, look_every=25, max_more=500,
                       n_streams=4000, random_seed=3)
    row = res.operating.loc["at the target"]
    exact = _exact_wrong(46, 50, 0.9, 0.95, res.looks)
    one = _exact_wrong(46, 50, 0.9, 0.95, res.looks, one_look=True)
    assert res.n_streams >= 1000
    assert row["p_wrong"] == pytest.approx(exact, abs=4 * np.sqrt(exact * (1 - exact) / 4000))
    assert row["p_wrong_one_look"] == pytest.approx(one, abs=4 * np.sqrt(one * (1 - one) / 4000))
    assert exact > one  # the repeated looks cost wrong declarations


def test_one_look_settle_probability_equals_the_exact_predictive_assurance():
    k, m = 46, 50
    res = S.sequential((k, m), "acc > 0.9", look_every=100, max_more=600, n_streams=6000,
                       random_seed=8)
    post = bcm.Beta(1 + k, 1 + m - k)
    hit = S.assurance("acc > 0.9", n=res.looks, design={"acc": post}, prior=post).assurance
    miss = S.assurance("acc < 0.9", n=res.looks, design={"acc": post}, prior=post).assurance
    exact = hit + miss
    se = np.sqrt(exact * (1 - exact) / 6000)
    assert np.all(np.abs(res.settle - exact) < 4 * se + 1e-9), (res.settle, exact)
    first = np.flatnonzero(res.settle >= 0.8)
    assert res.more_labels == (int(res.looks[first[0]]) if first.size else None)


def _independent_paired(counts, truth, looks, level, streams, seed):
    rng = np.random.default_rng(seed)
    wrong = 0
    for _ in range(streams):  # stream by stream, look by look: the plain reading of the rule
        state = np.array(counts, dtype=int)
        done = 0
        for look in looks:
            state = state + rng.multinomial(look - done, truth)
            done = look
            p_b = stats.beta.sf(0.5, 1 + state[2], 1 + state[1])
            if p_b >= level:
                wrong += 1
                break
            if p_b <= 1 - level:
                break
    return wrong / streams


@pytest.mark.slow
def test_paired_rule_wrong_declarations_match_an_independent_simulation():
    counts = [60, 5, 7, 8]
    res = S.sequential(counts, "b > a", look_every=40, max_more=600, n_streams=3000,
                       random_seed=2)
    psi = (1 + 5 + 1 + 7) / (4 + 80)  # the posterior mean discordance, split evenly
    rest = 1 - psi
    share = (1 + 60) / (1 + 60 + 1 + 8)
    truth = np.array([rest * share, psi / 2, psi / 2, rest * (1 - share)])
    theirs = _independent_paired(counts, truth, res.looks, 0.95, 3000, 9)
    ours = res.operating.loc["no difference", "p_wrong"]
    se = np.sqrt(2 * theirs * (1 - theirs) / 3000)
    assert abs(ours - theirs) < 4 * se, (ours, theirs)


def test_the_decision_now_and_its_probabilities():
    res = S.sequential({"tp": 98, "fn": 1, "tn": 50, "fp": 5}, "tpr > 0.9", max_more=100,
                       n_streams=200, random_seed=0)
    p = stats.beta.sf(0.9, 1 + 98, 1 + 1)
    assert res.probabilities["claim"] == pytest.approx(p)
    assert res.decision == ("claim" if p >= 0.95 else "continue")
    res = S.sequential({"tp": 98, "fn": 1, "tn": 50, "fp": 5}, "fpr < 0.05", max_more=100,
                       n_streams=200, random_seed=0)
    assert res.probabilities["claim"] == pytest.approx(stats.beta.sf(0.95, 51, 6))


def test_a_rope_rule_has_three_outcomes_and_a_scenario_of_the_users():
    res = S.sequential([300, 10, 12, 78], "rope", rope=0.02, look_every=100, max_more=400,
                       n_streams=200, random_seed=1,
                       scenarios={"B 4 points better": {"p_a_only": 0.03, "p_b_only": 0.07}})
    assert set(res.probabilities) == {"b better", "a better", "equivalent"}
    assert sum(res.probabilities.values()) == pytest.approx(1.0)
    assert list(res.operating.index) == ["predictive", "no difference", "B 4 points better"]
    row = res.operating.loc["B 4 points better"]
    assert row["p_b_better"] + row["p_a_better"] + row["p_equivalent"] + row["p_undecided"] \
        == pytest.approx(1.0)


@pytest.mark.parametrize(("args", "kwargs", "error", "match"), [
    (([1, 2, 3, 4], "tpr > 0.9"), {}, ValueError, "needs a confusion matrix"),
    (({"tp": 4, "fn": 1, "tn": 3, "fp": 1}, "b > a"), {}, ValueError, "agreement counts"),
    (((5, 3), "acc > 0.9"), {}, ValueError, "cannot exceed"),
    (((3, 5), "width(acc) < 0.1"), {}, ValueError, "is not"),
    (((3, 5), "acc > 0.9"), {"look_every": 0}, ValueError, ">= 1"),
    (("abc", "acc > 0.9"), {}, TypeError, "The labels so far"),
    (((3, 5), "acc > 0.9"), {"n_stream": 10}, TypeError, "Did you mean 'n_streams'"),
])
def test_bad_input_is_a_named_error(args, kwargs, error, match):
    with pytest.raises(error, match=match):
        S.sequential(*args, **kwargs)
