"""``bcm.true_shares``: true class shares behind a K-class classifier's predicted counts.

The fast checks cover the point estimate and every refused input; the NUTS fits (slow) are
checked against an independent importance-sampling computation of the same posterior and
against the adjusted-count estimate in the large-sample limit.
"""

from __future__ import annotations

import numpy as np
import pytest

import bayescm as bcm
from bayescm.models.corrected_shares import adjusted_count

LABELS = ["cat", "dog", "fox"]
VALIDATION = [[40, 6, 4], [5, 42, 3], [2, 8, 40]]


def _val(counts=VALIDATION, labels=LABELS):
    return bcm.ConfusionMatrix(counts, labels=labels)


def test_adjusted_count_is_rogan_gladen_for_two_classes():
    tpr, tnr, apparent = 0.9, 0.95, 0.19
    rg = (apparent + tnr - 1) / (tpr + tnr - 1)
    got = adjusted_count([apparent, 1 - apparent], [[tpr, 1 - tpr], [1 - tnr, tnr]])
    np.testing.assert_allclose(got, [rg, 1 - rg], rtol=1e-12)


def test_adjusted_count_inverts_the_mixing_and_clips():
    rng = np.random.default_rng(1)
    rates = 0.7 * np.eye(4) + 0.3 * rng.dirichlet(np.ones(4), size=4)
    shares = rng.dirichlet(np.ones(4))
    np.testing.assert_allclose(adjusted_count(shares @ rates, rates), shares, atol=1e-10)
    # predicted shares no true shares reproduce: clipped at 0, still a simplex
    got = adjusted_count([1.0, 0.0], [[0.8, 0.2], [0.3, 0.7]])
    assert got.min() >= 0 and got.sum() == pytest.approx(1.0)


@pytest.mark.parametrize(("call", "error", "words"), [
    (lambda: bcm.true_shares({"cat": 5, "dog": 3, "fox": 2}), TypeError, "rates="),
    (lambda: bcm.true_shares({"cat": 5, "dog": 3, "emu": 2}, validation=_val()), ValueError,
     "same classes"),
    (lambda: bcm.true_shares({"cat": -1, "dog": 3, "fox": 2}, validation=_val()), ValueError,
     "predicted"),
    (lambda: bcm.true_shares({"cat": 0, "dog": 0, "fox": 0}, validation=_val()), ValueError,
     "all 0"),
    (lambda: bcm.true_shares({"cat": 5}, rates=np.ones((1, 1))), ValueError, "two classes"),
    (lambda: bcm.true_shares({"cat": 5, "dog": 3}, rates=np.ones((3, 3))), ValueError,
     "2 x 2"),
    (lambda: bcm.true_shares({"cat": 5, "dog": 3}, rates=[[1, 0], [0, 1]]), ValueError,
     "<= 0"),
    (lambda: bcm.true_shares({"cat": 5, "dog": 3, "fox": 2}, validation=[[1, 2], [3, 4]]),
     TypeError, "ConfusionMatrix"),
    (lambda: bcm.true_shares([5, 3, 2]), TypeError, "mapping"),
    (lambda: bcm.true_shares({"cat": 5, "dog": 3, "fox": 2}, validation=_val(), tunes=10),
     TypeError, "tune"),
    (lambda: bcm.true_shares({"cat": 5, "dog": 3, "fox": 2}, validation=_val(),
                             prevalence=bcm.Beta(1, 1)), TypeError, "Dirichlet"),
])
def test_bad_input_is_refused_with_the_fix(call, error, words):
    with pytest.raises(error, match=words):
        call()


def _importance_means(predicted, validation, n_samples=400_000, seed=3):
    """The posterior means of the shares by importance sampling from the prior (independent)."""
    rng = np.random.default_rng(seed)
    k = len(predicted)
    rates = np.stack([rng.dirichlet(1.0 + np.asarray(row, float), n_samples)
                      for row in validation], axis=1)  # (S, K, K)
    shares = rng.dirichlet(np.ones(k), n_samples)
    q = np.einsum("sk,skj->sj", shares, rates)
    logw = (np.asarray(predicted, float) * np.log(q)).sum(axis=1)
    w = np.exp(logw - logw.max())
    w /= w.sum()
    ess = 1.0 / np.square(w).sum()
    mean = w @ shares
    sd = np.sqrt(w @ np.square(shares - mean))
    return mean, sd, ess


@pytest.mark.slow
def test_nuts_matches_importance_sampling_of_the_same_posterior():
    predicted = {"cat": 50, "dog": 45, "fox": 25}
    mean_is, sd_is, ess = _importance_means(list(predicted.values()), VALIDATION)
    assert ess > 2000
    tree = bcm.true_shares(predicted, validation=_val(), draws=1500, chains=2, random_seed=4)
    post = tree["posterior"]["prevalence"]
    mean = post.mean(("chain", "draw")).values
    sd = post.std(("chain", "draw")).values
    # Monte-Carlo error of both: about sd / sqrt(ESS) (ESS >= 400 by the convergence check)
    np.testing.assert_allclose(mean, mean_is, atol=4 * sd_is.max() / np.sqrt(400))
    np.testing.assert_allclose(sd, sd_is, rtol=0.15)
    assert tree.attrs["model"] == "true_shares"
    assert post.dims == ("chain", "draw", "class")
    assert tree["posterior"]["rates"].dims == ("chain", "draw", "true_class", "pred_class")


@pytest.mark.slow
def test_large_samples_give_the_adjusted_count(tmp_path):
    big = np.asarray(VALIDATION) * 400
    rates = big / big.sum(axis=1, keepdims=True)
    truth = np.array([0.5, 0.3, 0.2])
    predicted = dict(zip(LABELS, np.round(200_000 * truth @ rates).astype(int), strict=True))
    tree = bcm.true_shares(predicted, validation=_val(big), draws=1000, chains=2,
                           random_seed=0)
    mean = tree["posterior"]["prevalence"].mean(("chain", "draw")).values
    point = tree["observed_metrics"]["prevalence"].values
    np.testing.assert_allclose(point, truth, atol=2e-4)
    np.testing.assert_allclose(mean, point, atol=0.003)
    back = bcm.load(bcm.save(tree, tmp_path / "shares.nc"))
    np.testing.assert_allclose(back["posterior"]["prevalence"].values,
                               tree["posterior"]["prevalence"].values, rtol=1e-6)
    assert back.attrs["model"] == "true_shares"
