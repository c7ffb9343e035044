"""Metrics own their metadata: display name, scale, support, reference; plots read it."""

from __future__ import annotations

import ast
import pickle
import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

import bayescm as bcm
from bayescm.metrics import (
    BINARY_METRICS,
    SCALES,
    catalogue_for,
    evaluate_theta,
    fbeta,
    metric_info,
)
from bayescm.metrics.multiclass import MULTICLASS_METRICS, OneVsRest
from bayescm.metrics.scores import SCORE_METRICS

CATALOGUES = {"binary": BINARY_METRICS, "multiclass": MULTICLASS_METRICS,
              "scores": SCORE_METRICS, "fbeta": {"f3": fbeta(3), "f075": fbeta(0.75)}}
ALL = [(kind, m) for kind, cat in CATALOGUES.items() for m in cat.values()]
EXPECTED_SCALES = {
    "signed": {"mcc", "bm", "mk", "kappa", "kappa_linear", "kappa_quadratic"},
    "ratio": {"lr_plus", "lr_minus", "dor"},
    "nonnegative": {"mae", "mse", "rmse", "log_loss"},
}


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.mark.parametrize(("kind", "metric"), ALL, ids=[f"{k}:{m.name}" for k, m in ALL])
def test_every_builtin_metric_has_consistent_metadata(kind, metric):
    assert metric.display_name and metric.display_name != metric.name
    assert "_" not in metric.display_name  # a label, not a variable name
    assert metric.scale in SCALES
    lo, hi = metric.support
    assert lo < hi
    if metric.reference is not None:
        assert lo <= metric.reference <= hi
    base = metric.name
    for suffix in ("_macro", "_weighted", "_micro"):
        base = base.removesuffix(suffix)
    expected = next((s for s, names in EXPECTED_SCALES.items() if base in names), "proportion")
    assert metric.scale == expected
    assert metric.reference == {"signed": 0.0, "ratio": 1.0}.get(
        metric.scale, 0.5 if metric.name == "auc" else None)
    assert metric.info.display_name == metric.display_name
    # a short axis label: no caveats, no variable names, and the same in the info
    assert metric.label and metric.info.label == metric.label
    assert len(metric.label) <= 57 and "_" not in metric.label and ";" not in metric.label
    assert "ordered classes" not in metric.label and "skipped" not in metric.label


def test_short_labels_drop_caveats_and_keep_synonyms():
    assert metric_info("tpr").label == "true positive rate (sensitivity)"
    assert metric_info("tpr_macro", "multiclass").label == "true positive rate (macro)"
    assert metric_info("kappa_quadratic", "multiclass").label == "quadratically weighted kappa"
    assert metric_info("bacc", "multiclass").label == "balanced accuracy"
    assert metric_info("mcc", "multiclass").label == "Matthews correlation coefficient"
    assert metric_info("acc_diff", "multiclass").label == "accuracy: A - B"
    assert "true positives" not in metric_info("prevalence").long_name  # not the TP cell
    assert bcm.metrics.Metric("nb", lambda tp, fn, fp, tn: tp, label="net benefit").info.label == (
        "net benefit")


def _theta(k: int, n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).dirichlet(np.ones(k * k), size=n).reshape(n, k, k)


def _check_inside(metric, values):
    values = np.asarray(values, dtype=float)
    finite = values[np.isfinite(values)]
    assert finite.size > 0, metric.name
    lo, hi = metric.support
    tol = 1e-9
    assert finite.min() >= lo - tol, (metric.name, finite.min())
    assert finite.max() <= hi + tol, (metric.name, finite.max())


@pytest.mark.parametrize("name", list(BINARY_METRICS))
def test_binary_values_lie_inside_the_support(name):
    metric = BINARY_METRICS[name]
    theta = _theta(2, 20_000, 0)
    _check_inside(metric, evaluate_theta([metric], theta, "binary")[name])


@pytest.mark.parametrize("k", [3, 5])
def test_multiclass_values_lie_inside_the_support(k):
    theta = _theta(k, 5_000, k)
    values = evaluate_theta(list(MULTICLASS_METRICS.values()), theta, "multiclass")
    for name, metric in MULTICLASS_METRICS.items():
        _check_inside(metric, values[name])
    # the distance errors reach at most the largest class distance
    assert np.nanmax(values["mae"]) <= k - 1


def test_evaluate_theta_is_the_one_evaluation():
    theta = _theta(3, 100, 1)
    mc = list(MULTICLASS_METRICS.values())
    shared = evaluate_theta(mc, theta, "multiclass")
    for m in mc:
        np.testing.assert_allclose(shared[m.name], m(theta), equal_nan=True)
        np.testing.assert_allclose(shared[m.name], m(OneVsRest(theta)), equal_nan=True)
    cells = _theta(2, 100, 2)
    out = evaluate_theta(list(BINARY_METRICS.values()), cells, "binary")
    tp, fn, fp, tn = cells[:, 0, 0], cells[:, 0, 1], cells[:, 1, 0], cells[:, 1, 1]
    for m in BINARY_METRICS.values():
        np.testing.assert_allclose(out[m.name], m(tp, fn, fp, tn), equal_nan=True)
    custom = bcm.metrics.Metric("diag", lambda t: np.einsum("...ii->...", t), kind="multiclass")
    np.testing.assert_allclose(evaluate_theta([custom], theta, "multiclass")["diag"],
                               np.trace(theta, axis1=-2, axis2=-1))
    with pytest.raises(ValueError, match="family"):
        evaluate_theta(mc, theta, "ternary")


def test_metric_info_lookups():
    assert metric_info("Sensitivity").name == "tpr"
    assert metric_info("LR+").display_name == "LR+"
    assert metric_info("recall_macro", "multiclass").display_name == "TPR (macro)"
    row = metric_info("tpr[cat]", "multiclass")
    assert row.display_name == "TPR" and row.scale == "proportion"
    diff = metric_info("acc_diff")
    assert (diff.scale, diff.support, diff.reference) == ("signed", (-1.0, 1.0), 0.0)
    signed = metric_info("mcc_diff")
    assert signed.support == (-2.0, 2.0) and signed.display_name == "MCC difference"
    ratio = metric_info("dor_diff")
    assert ratio.scale == "unbounded" and ratio.reference == 0.0
    assert metric_info("kappa_quadratic", "binary").display_name == "Quadratic kappa"
    assert metric_info("auc", "binary").reference == 0.5  # found in the score catalogue
    assert metric_info("theta").display_name == "θ"
    unknown = metric_info("net_benefit")
    assert (unknown.display_name, unknown.scale) == ("net_benefit", "unbounded")


def test_custom_metrics_default_to_unbounded_and_travel():
    m = bcm.metrics.Metric("j_index", _j_index)
    assert (m.scale, m.support, m.reference, m.display_name) == (
        "unbounded", (-np.inf, np.inf), None, "j_index")
    shaped = bcm.metrics.Metric("j_index", _j_index, display_name="J", scale="signed")
    assert shaped.support == (-1.0, 1.0) and shaped.reference == 0.0
    again = pickle.loads(pickle.dumps(shaped))
    assert again == shaped and again.display_name == "J" and again.scale == "signed"
    assert again != m  # the metadata is part of equality
    with pytest.raises(ValueError, match="scale must be one of"):
        bcm.metrics.Metric("x", _j_index, scale="percent")
    with pytest.raises(ValueError, match="outside the support"):
        bcm.metrics.Metric("x", _j_index, scale="proportion", reference=2.0)
    with pytest.raises(ValueError, match="lower < upper"):
        bcm.metrics.Metric("x", _j_index, support=(1.0, 0.0))


def _j_index(tp, fn, fp, tn):
    return tp / (tp + fn) + tn / (tn + fp) - 1


def test_list_metrics_shows_the_metadata():
    table = bcm.metrics.list_metrics("multiclass")
    assert table.loc["kappa_quadratic", "display_name"] == "Quadratic kappa"
    assert table.loc["mae", "scale"] == "nonnegative"
    assert "auc" in bcm.metrics.list_metrics("scores").index


def test_metrics_package_does_not_import_models():
    root = Path(bcm.__file__).parent / "metrics"
    for path in root.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import) else
                     [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n.startswith("bayescm.models") for n in names), path.name
    assert set(catalogue_for("scores")) == set(BINARY_METRICS) | set(SCORE_METRICS)


_RAW = re.compile(r"\b[a-z0-9]+_[a-z0-9_]+\b|\b[A-Z0-9]+_[A-Z0-9_]+\b")
_NAMES = {n for cat in CATALOGUES.values() for n in cat} | {
    n.upper() for cat in CATALOGUES.values() for n in cat}


def _raw_names(fig) -> list[str]:
    texts = [fig._suptitle.get_text()] if fig._suptitle is not None else []
    for ax in fig.axes:
        texts += [ax.get_title(), ax.get_xlabel(), ax.get_ylabel()]
        texts += [t.get_text() for t in ax.get_yticklabels()]
    return [w for text in texts for w in _RAW.findall(text) if w in _NAMES]


# slow: draws every figure type; the slow run (CI) checks it
@pytest.mark.slow
def test_plot_titles_and_labels_use_display_names():
    cm = bcm.ConfusionMatrix([[50, 5, 1], [4, 40, 6], [1, 5, 30]], labels=["lo", "mid", "hi"],
                             ordered=True)
    multi = bcm.fit(cm, draws=300, random_seed=0)
    fig = bcm.plots.plot_metrics(multi, class_="mid")
    titles = [ax.get_title() for ax in fig.axes]
    assert "Quadratic kappa" in titles and "TPR (weighted)" in titles
    assert "TPR, class mid" in titles
    assert _raw_names(fig) == []
    binary = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), draws=300,
                     random_seed=0)
    fig = bcm.plots.plot_metrics(binary)
    assert {"Balanced accuracy", "LR+", "LR−", "F0.5", "G-mean"} <= {
        ax.get_title() for ax in fig.axes}
    assert _raw_names(fig) == []
    from bayescm.io.runner import figure

    for kind in ("forest", "posterior"):
        assert _raw_names(figure(multi, kind, ["kappa_quadratic", "tpr_weighted", "tpr"])) == []
    paired = bcm.compare.compare_paired_counts(700, 60, 20, 220, random_seed=0)
    assert bcm.plots.plot_paired(paired, "acc").get_title() == "Accuracy: A - B"
