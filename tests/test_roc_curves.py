"""The vectorised curves (bootstrap weights, and the Dirichlet process's novel atoms) against a
plain per-draw implementation, and the calibrated reference drawn from exact Poisson-binomial
counts."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from bayescm.models.calibration import _simulated_bin_positives, poisson_binomial_pmf
from bayescm.models.roc import CurveDraws, curve_draws, item_sums, search_rows
from bayescm.models.roc_dp import CONCENTRATION, dirichlet_process_weights, with_novel_items


def _reference(y, s, w, fpr_grid, recall_grid, fpr_range):
    """One draw at a time, step by step: the curves as the module docstring defines them."""
    steps = np.unique(s)[::-1]
    a = np.array([w[(s == v) & y].sum() for v in steps])
    b = np.array([w[(s == v) & ~y].sum() for v in steps])
    tp, fp = np.cumsum(a), np.cumsum(b)
    tpr, fpr = np.r_[0.0, tp / tp[-1]], np.r_[0.0, fp / fp[-1]]

    def roc_at(g):
        j = np.searchsorted(fpr, g, side="right") - 1  # the top of a vertical step
        if j >= fpr.size - 1:
            return tpr[-1]
        t = (g - fpr[j]) / (fpr[j + 1] - fpr[j])
        return tpr[j] + t * (tpr[j + 1] - tpr[j])

    def area_to(f):
        area = 0.0
        for j in range(fpr.size - 1):
            x0, x1 = fpr[j], min(fpr[j + 1], f)
            if x1 > x0:
                area += (x1 - x0) * (tpr[j] + roc_at(x1) if x1 < fpr[j + 1] else
                                     tpr[j] + tpr[j + 1]) / 2
        return area

    precision = tp / (tp + fp)
    pr = []
    for r in recall_grid:
        if r <= 1e-12:
            pr.append(precision[0])
        else:
            pr.append(precision[np.argmax(tpr[1:] >= r - 1e-12)])
    return {"auc": np.trapezoid(tpr, fpr), "auc_partial": area_to(fpr_range[1]) - area_to(
        fpr_range[0]), "average_precision": float(np.diff(tpr) @ precision),
        "roc": np.array([roc_at(g) for g in fpr_grid]), "pr": np.array(pr)}


@pytest.mark.parametrize("case", range(12))
def test_curves_equal_the_step_by_step_definition(case):
    rng = np.random.default_rng(case)
    n = int(rng.integers(2, 60))
    y = rng.random(n) < 0.4
    y[0], y[-1] = True, False
    s = rng.normal(size=n) + y
    if case % 3 == 1:
        s = np.round(s, 1)  # ties within and across the classes
    if case % 3 == 2:
        s = np.round(s)  # few steps, most of them mixed
    w = rng.standard_exponential((4, n))
    grid = np.linspace(0, 1, 17)
    span = ((0.0, 0.3), (0.1, 0.6), (0.2, 1.0))[case % 3]
    out = curve_draws(y, s, w, grid, grid, span)
    for d in range(w.shape[0]):
        expected = _reference(y, s, w[d], grid, grid, span)
        for key, value in expected.items():
            assert out[key][d] == pytest.approx(value, abs=1e-10), key


@pytest.mark.parametrize("case", range(6))
def test_curves_with_novel_atoms_equal_the_step_by_step_definition(case):
    """Novel atoms above and below every score (tied across the classes) read as any item."""
    rng = np.random.default_rng(100 + case)
    n = int(rng.integers(2, 40))
    y = rng.random(n) < 0.5
    y[0], y[-1] = True, False
    s = rng.normal(size=n) + 3 * y  # often separated
    if case % 2:
        s = np.round(s)
    y_all, s_all = with_novel_items(y, s)
    w = dirichlet_process_weights(rng, 4, n)
    grid = np.linspace(0, 1, 17)
    out = curve_draws(y_all, s_all, w, grid, grid, (0.0, 0.3))
    for d in range(w.shape[0]):
        expected = _reference(y_all, s_all, w[d], grid, grid, (0.0, 0.3))
        for key, value in expected.items():
            assert out[key][d] == pytest.approx(value, abs=1e-10), key
        # the AUC is P(X+ > X-) + P(X+ = X-) / 2 under the drawn class distributions
        pos, neg = w[d] * y_all, w[d] * ~y_all
        above = (s_all[:, None] > s_all[None, :]) + 0.5 * (s_all[:, None] == s_all[None, :])
        assert out["auc"][d] == pytest.approx(pos @ above @ neg / (pos.sum() * neg.sum()))


def test_dirichlet_process_weights_and_losses_of_the_observed_items():
    w = dirichlet_process_weights(np.random.default_rng(3), 40_000, 2, novel=np.array([0, 2, 4,
                                                                                          5]))
    k = CONCENTRATION / 2  # the novel atoms' Gamma shape, in columns 0, 2, 4, 5
    assert np.allclose(w.mean(axis=0), [k, 1.0, k, 1.0, k, k], atol=0.02)
    assert np.allclose(w.var(axis=0), [k, 1.0, k, 1.0, k, k], atol=0.05)  # Gamma(k): var k
    y_all, s_all = with_novel_items(np.array([True, False]), np.array([0.8, 0.4]))
    weights = np.array([[1.0, 3.0, 5.0, 7.0, 9.0, 11.0]])
    losses, cells = item_sums(y_all, s_all, weights, 0.5, np.arange(6) < 2)
    assert losses["brier"][0] == pytest.approx((1 * 0.2**2 + 3 * 0.4**2) / 4)
    assert losses["log_loss"][0] == pytest.approx(-(np.log(0.8) + 3 * np.log(0.6)) / 4)
    # a novel atom above every score is above every threshold: tp, fn, fp, tn
    assert [float(c[0]) for c in cells] == pytest.approx(np.array([1 + 5, 7, 9, 3 + 11]) / 36)


def test_weights_laid_out_in_another_order_give_the_same_curves():
    rng = np.random.default_rng(1)
    y = rng.random(40) < 0.5
    s = np.round(rng.normal(size=40) + y, 1)
    w = rng.standard_exponential((3, 40))
    grid = np.linspace(0, 1, 11)
    plain = curve_draws(y, s, w, grid, grid, (0.0, 0.2))
    columns = rng.permutation(40)  # item i's weight sits in column columns[i]
    moved = np.empty_like(w)
    moved[:, columns] = w
    curve = CurveDraws(y, s, columns)
    again = curve_draws(y, s, moved, grid, grid, (0.0, 0.2), curve)
    for key, value in plain.items():
        assert np.allclose(again[key], value, atol=1e-12), key
    assert np.allclose(curve.cells(moved)[0], CurveDraws(y, s).cells(w)[0])
    lead = CurveDraws(y, s)  # its own layout: positives, then negatives, each by score
    layout = np.r_[lead.pos_items, lead.neg_items]
    own = np.empty(40, dtype=int)
    own[layout] = np.arange(40)
    laid = w[:, layout]
    sliced = CurveDraws(y, s, own)
    assert np.shares_memory(sliced.weights_of(laid, True), laid)  # a view, not a copy
    assert np.array_equal(sliced.weights_of(laid, False), w[:, lead.neg_items])


def test_item_sums_and_search_rows():
    y = np.array([True, True, False, False])
    s = np.array([0.9, 0.3, 0.6, 0.1])
    losses, cells = item_sums(y, s, np.array([[1.0, 1.0, 1.0, 1.0], [2.0, 0.0, 1.0, 1.0]]), 0.5)
    assert [float(c[0]) for c in cells] == [0.25, 0.25, 0.25, 0.25]
    assert [float(c[1]) for c in cells] == [0.5, 0.0, 0.25, 0.25]
    assert losses["brier"][0] == pytest.approx(np.mean((s - y) ** 2))
    margins, _ = item_sums(y, 3 * s - 1, np.ones((1, 4)), 0.5)  # not probabilities
    assert np.isnan(margins["brier"][0]) and np.isnan(margins["log_loss"][0])
    rows = np.sort(np.random.default_rng(0).random((5, 30)), axis=1)
    targets = np.random.default_rng(1).random((5, 7))
    for side in ("left", "right"):
        expected = [np.searchsorted(r, t, side=side) for r, t in zip(rows, targets, strict=True)]
        assert np.array_equal(search_rows(rows, targets, side=side), expected)


def test_poisson_binomial_pmf_is_exact():
    rng = np.random.default_rng(2)
    p = rng.random(37)
    brute = np.array([1.0])
    for q in p:
        brute = np.convolve(brute, [1 - q, q])
    assert np.allclose(poisson_binomial_pmf(p), brute, atol=1e-14)
    assert np.allclose(poisson_binomial_pmf(np.full(513, 0.2)),
                       stats.binom(513, 0.2).pmf(np.arange(514)), atol=1e-13)
    assert poisson_binomial_pmf(np.array([])).tolist() == [1.0]
    assert poisson_binomial_pmf(np.array([1.0, 0.0])).tolist() == [0.0, 1.0, 0.0]


def test_calibrated_reference_counts_have_the_moments_of_simulated_labels():
    rng = np.random.default_rng(3)
    scores = rng.random(3000)
    bins = np.minimum((scores * 10).astype(int), 9)
    counts = _simulated_bin_positives(rng, bins, scores, 10, 20_000)
    mean = np.bincount(bins, weights=scores, minlength=10)
    var = np.bincount(bins, weights=scores * (1 - scores), minlength=10)
    assert np.all(np.abs(counts.mean(axis=0) - mean) < 5 * np.sqrt(var / 20_000))
    assert np.allclose(counts.var(axis=0) / var, 1.0, atol=0.05)
    assert np.all(counts == np.round(counts)) and counts.min() >= 0
