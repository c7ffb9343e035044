"""summarize_batch: the summaries of fit + summary, chunk by chunk, in bounded memory."""

from __future__ import annotations

import numpy as np
import pytest

import bayescm as bcm

COUNTS = bcm.simulate_counts(80, size=40, random_seed=0)
MATS = {f"c{i}": bcm.ConfusionMatrix(c, labels=["pos", "neg"], positive="pos")
        for i, c in enumerate(COUNTS)}


def test_same_seed_and_chunks_give_the_same_table():
    a = bcm.summarize_batch(MATS, random_seed=1, chunk_size=7)
    b = bcm.summarize_batch(MATS, random_seed=1, chunk_size=7)
    assert a.equals(b)
    assert list(a.index.get_level_values("classifier").unique()) == list(MATS)
    assert list(a.columns[:8]) == ["observed", "mean", "sd", "hdi_lower", "hdi_upper", "mu",
                                   "r_hat", "ess_mean"]


def test_agrees_with_fit_and_summary():
    table = bcm.summarize_batch(MATS, ["bm", "ppv"], random_seed=2)
    ref = bcm.summary(bcm.fit(MATS, metrics=["bm", "ppv"], random_seed=3, draws=1000))
    for name in ("c0", "c17"):
        for var in ("bm", "ppv", "tpr"):
            got = table.loc[(name, var)]
            want = ref.loc[f"{var}[{name}]"]
            assert got["observed"] == pytest.approx(want["observed"])
            se = want["sd"] / np.sqrt(2000)
            assert abs(got["mean"] - want["mean"]) < 5 * se
            assert abs(got["hdi_lower"] - want["hdi_lower"]) < 0.03


def test_array_input_puts_the_positive_class_first():
    flipped = COUNTS[:, ::-1, ::-1]  # rows: neg, pos
    a = bcm.summarize_batch(flipped, ["tpr"], labels=["neg", "pos"], positive="pos",
                            random_seed=4)
    b = bcm.summarize_batch(COUNTS, ["tpr"], labels=["pos", "neg"], positive="pos",
                            random_seed=4)
    assert a.equals(b)


def test_probability_columns_and_multiclass():
    table = bcm.summarize_batch(MATS, ["bm"], probabilities={"bm": (">", 0.3)}, random_seed=5)
    fit = bcm.fit({"c3": MATS["c3"]}, metrics=["bm"], random_seed=5, draws=1000)
    p = float(bcm.probability(fit, "bm", lower=0.3).values[0])
    assert table.loc[("c3", "bm"), "P(bm > 0.3)"] == pytest.approx(p, abs=0.05)
    three = bcm.ConfusionMatrix([[9, 1, 0], [2, 7, 1], [0, 1, 5]], labels=["a", "b", "c"])
    multi = bcm.summarize_batch([three, three], ["acc", "tpr"], random_seed=6)
    assert ("1", "tpr[b]") in multi.index


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"probabilities": {"bm": ("=", 0)}}, ValueError, "operator"),
        ({"chunk_size": 0}, ValueError, "chunk_size"),
        ({"prior": "laplace", "tpr": 1}, TypeError, "valid keywords"),
        ({"labels": ["a", "b"]}, TypeError, "array of counts"),
    ],
)
def test_bad_arguments(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        bcm.summarize_batch(MATS, **kwargs)
