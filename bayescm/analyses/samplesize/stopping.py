"""The questions a stopping rule asks of the labels so far: their state and its probabilities.

Two kinds of question. A claim on one rate (``"tpr > 0.9"``): the state is the successes
``k`` in ``m`` trials of the (oriented) rate, and, when the labels are a confusion matrix and
the rate is a TPR or TNR, the positives among all items (new labels split into classes at
the prevalence). A paired comparison (``"b > a"``, ``"a > b"``, ``"rope"``): the state is the
agreement table (both right, only A, only B, both wrong) under
:func:`bayescm.compare_paired_counts`'s Dirichlet. :class:`Question` reads the data and the
rule, and gives the posterior probabilities of the declarations for many states at once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy import special

from bayescm.analyses.samplesize.claims import Claim
from bayescm.analyses.samplesize.design import analysis_prior
from bayescm.analyses.samplesize.paired import beyond_at, prob_beyond, psi_nodes

__all__ = ["PAIRED_RULES", "Question"]

PAIRED_RULES = ("b > a", "a > b", "rope")
"""Rules on a paired comparison: B better, A better, or a three-way ROPE decision."""

_AGREEMENT = ("both_right", "only_a_right", "only_b_right", "both_wrong")


def _counts_of(data: Any) -> dict[str, int] | tuple[int, int] | np.ndarray:
    """The labels so far as plain counts (a matrix's cells, a pair, or an agreement table)."""
    import xarray as xr

    from bayescm.core.confusion import ConfusionMatrix

    if isinstance(data, xr.DataTree):
        from bayescm.core import container as box

        counts = np.asarray(box.get_group(data, "observed_data")["counts"].values)
        data = counts.tolist() if counts.shape == (4,) else counts
        if np.shape(data) == (2, 2):
            (tp, fn), (fp, tn) = np.asarray(data).tolist()
            return {"tp": tp, "fn": fn, "fp": fp, "tn": tn}
    if isinstance(data, ConfusionMatrix):
        if data.n_classes != 2 or data.positive is None:
            raise ValueError("A stopping rule on a rate needs a binary matrix with a positive "
                             "class.")
        (tp, fn), (fp, tn) = np.asarray(data.counts).tolist()
        return {"tp": tp, "fn": fn, "fp": fp, "tn": tn}
    if isinstance(data, Mapping):
        keys = set(data)
        if keys == set(_AGREEMENT):
            return np.array([data[k] for k in _AGREEMENT])
        if keys == {"tp", "fn", "fp", "tn"}:
            return {k: data[k] for k in ("tp", "fn", "fp", "tn")}
        raise ValueError(f"Counts are keyed tp, fn, fp, tn (a confusion matrix) or "
                         f"{', '.join(_AGREEMENT)} (paired items), got {sorted(keys)}.")
    if isinstance(data, Sequence) and not isinstance(data, str):
        if len(data) == 2:
            return (data[0], data[1])
        if len(data) == 4:
            return np.asarray(data)
    raise TypeError("The labels so far: a ConfusionMatrix, a fit, counts {'tp': .., 'fn': .., "
                    "'fp': .., 'tn': ..}, (successes, trials) of one rate, or the four "
                    "agreement counts of a paired comparison (both right, only A right, only "
                    f"B right, both wrong); got {data!r}.")


def _whole(values: Any, what: str) -> np.ndarray:
    arr = np.asarray(values)
    if arr.dtype.kind not in "iu" or np.any(arr < 0):
        raise ValueError(f"{what} must be whole numbers >= 0, got {values!r}.")
    return arr.astype(np.int64)


@dataclass(frozen=True)
class Question:
    """A rule with the labels so far; see the module docstring.

    Attributes
    ----------
    kind : str
        ``"rate"`` or ``"paired"``.
    text : str
        The rule as shown (``"tpr > 0.9"``, ``"B better than A"``).
    state : ndarray
        Rate: ``(k, m, positives, items)``; paired: the four agreement counts.
    prior : tuple of float
        Rate: ``(a0, b0, prevalence a, prevalence b)``; paired: the Dirichlet's four values.
    target : float
        The oriented target of a rate claim, the ROPE's half-width of a paired rule.
    split : bool
        Whether new labels are split into classes (a TPR or TNR of a confusion matrix).
    rule : str
        The rule's key (``"claim"``, ``"b > a"``, ``"a > b"``, ``"rope"``).
    reverse : bool
        Whether the oriented rate is ``1 -`` the claimed metric (an FPR claim is on the TNR).
    """

    kind: str
    text: str
    state: np.ndarray
    prior: tuple[float, ...]
    target: float
    split: bool
    rule: str
    reverse: bool = False

    @classmethod
    def read(cls, data: Any, rule: Any, prior: Any, rope: float) -> Question:
        """The question of ``rule`` about ``data`` (see :func:`~.sequential.sequential`)."""
        counts = _counts_of(data)
        key = rule.strip().lower() if isinstance(rule, str) else rule
        if key in PAIRED_RULES:
            from bayescm.models.paired_prior import paired_alpha

            if not (isinstance(counts, np.ndarray) and counts.shape == (4,)):
                raise ValueError(f"The rule {rule!r} compares two classifiers: give the four "
                                 "agreement counts (both right, only A right, only B right, "
                                 "both wrong) or a compare_paired_counts result.")
            alpha = paired_alpha(prior if prior is not None else "laplace", 4)
            if np.any(alpha <= 0):
                raise ValueError("The analysis prior must be proper (the Haldane prior is not).")
            text = {"b > a": "B better than A", "a > b": "A better than B",
                    "rope": "A, B or equivalent"}[key]
            if rope and key != "rope":
                text += f" by more than {rope:g}"
            return cls("paired", text, _whole(counts, "The agreement counts"),
                       tuple(float(a) for a in alpha), float(rope), False, key)
        claim = Claim.parse(rule)
        if claim.width or claim.rate is None:
            raise ValueError(f"A stopping rule is on a rate (tpr, tnr, fnr, fpr, prevalence, "
                             f"acc, ppv, npv) or a paired comparison ('b > a', 'a > b', "
                             f"'rope'); {claim.text!r} is not. Plan it with "
                             "bcm.samplesize.assurance.")
        return cls._rate(counts, claim, prior)

    @classmethod
    def _rate(cls, counts: Any, claim: Claim, prior: Any) -> Question:
        rate = claim.rate
        assert rate is not None
        split = False
        if isinstance(counts, tuple):
            k, m = (int(v) for v in _whole(counts, "(successes, trials)"))
            if k > m:
                raise ValueError(f"successes ({k}) cannot exceed trials ({m}).")
            pos, items = m, m
        elif isinstance(counts, dict):
            c = {key: int(v) for key, v in zip(counts, _whole(list(counts.values()),
                                                               "The counts"), strict=True)}
            items = sum(c.values())
            pos = c["tp"] + c["fn"]
            k, m = {"tpr": (c["tp"], pos), "tnr": (c["tn"], items - pos),
                    "prevalence": (pos, items), "acc": (c["tp"] + c["tn"], items),
                    "ppv": (c["tp"], c["tp"] + c["fp"]), "npv": (c["tn"], c["tn"] + c["fn"])
                    }[rate]
            split = rate in ("tpr", "tnr")
        else:
            raise ValueError(f"A claim on {rate} needs a confusion matrix or (successes, "
                             "trials), not the four counts of a paired comparison.")
        flip, t = claim.oriented()
        a0, b0 = analysis_prior(prior, rate)
        if flip:
            k, a0, b0 = m - k, b0, a0
        pa, pb = analysis_prior(prior, "prevalence")
        if rate == "tnr":  # new labels are negatives with probability 1 - prevalence
            pos, pa, pb = items - pos, pb, pa
        from bayescm.analyses.samplesize.claims import RATES

        reverse = RATES[claim.metric][1] != flip
        return cls("rate", claim.text, np.array([k, m, pos, items]), (a0, b0, pa, pb), t,
                   split, "claim", reverse)

    def probabilities(self, state: np.ndarray) -> dict[str, np.ndarray]:
        """Posterior probabilities of each declaration for states ``(..., 4)``."""
        state = np.asarray(state, dtype=float)
        if self.kind == "rate":
            a0, b0 = self.prior[:2]
            k, m = state[..., 0], state[..., 1]
            p = special.betaincc(a0 + k, b0 + m - k, self.target)
            return {"claim": p, "contrary": 1.0 - p}
        alpha = np.asarray(self.prior)
        both, a_only, b_only, wrong = np.moveaxis(state, -1, 0)
        a_b, b_b = alpha[2] + b_only, alpha[1] + a_only
        c, d = a_b + b_b, alpha[0] + alpha[3] + both + wrong
        if self.target == 0:
            b_wins = prob_beyond(a_b, b_b, c, d, 0.0)
            a_wins = prob_beyond(b_b, a_b, c, d, 0.0)
        else:  # the discordance's quantiles once for both directions
            nodes = psi_nodes(c, d)
            b_wins = beyond_at(a_b, b_b, nodes, self.target)
            a_wins = beyond_at(b_b, a_b, nodes, self.target)
        if self.rule == "b > a":
            return {"claim": b_wins, "contrary": 1.0 - b_wins}
        if self.rule == "a > b":
            return {"claim": a_wins, "contrary": 1.0 - a_wins}
        return {"b better": b_wins, "a better": a_wins,
                "equivalent": np.clip(1.0 - a_wins - b_wins, 0.0, 1.0)}

    def posterior_draws(self, rng: np.random.Generator, size: int) -> np.ndarray:
        """Truths drawn from the current posterior: rate ``(q, prevalence)``; paired cells."""
        if self.kind == "rate":
            a0, b0, pa, pb = self.prior
            k, m, pos, items = self.state
            q = rng.beta(a0 + k, b0 + m - k, size)
            share = rng.beta(pa + pos, pb + items - pos, size) if self.split else np.ones(size)
            return np.stack([q, share], axis=-1)
        return rng.dirichlet(np.asarray(self.prior) + self.state, size)

    def posterior_mean(self) -> np.ndarray:
        """The current posterior mean of what :meth:`posterior_draws` draws."""
        if self.kind == "rate":
            a0, b0, pa, pb = self.prior
            k, m, pos, items = self.state
            share = (pa + pos) / (pa + pb + items) if self.split else 1.0
            return np.array([(a0 + k) / (a0 + b0 + m), share])
        alpha = np.asarray(self.prior) + self.state
        return alpha / alpha.sum()
