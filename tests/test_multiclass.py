"""Multiclass model: Wordle example, metrics vs scikit-learn, empty classes, priors, errors."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy import stats
from sklearn import metrics as skm

import bayescm as bcm
from bayescm.metrics.multiclass import MULTICLASS_METRICS, ORDERED_ONLY

WORDLE_LABELS = ["2", "3", "4", "5", "6", "X"]
# Kuhn & Johnson, Table 15.5 (left): rows are PREDICTIONS there, so transpose to rows = truth.
WORDLE_PRINTED = np.array([
    [10, 2, 0, 0, 0, 0],
    [0, 28, 0, 4, 0, 0],
    [0, 7, 43, 2, 0, 0],
    [0, 0, 2, 13, 3, 0],
    [0, 0, 3, 0, 1, 0],
    [0, 0, 0, 0, 0, 0],
])
WORDLE = WORDLE_PRINTED.T


def labels_of(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """y_true, y_pred (class indices) behind a confusion matrix."""
    k = counts.shape[0]
    idx = np.arange(k * k)
    cells = np.repeat(idx, counts.ravel())
    return cells // k, cells % k


@pytest.fixture(scope="module")
def wordle() -> bcm.ConfusionMatrix:
    return bcm.ConfusionMatrix(WORDLE, labels=WORDLE_LABELS, ordered=True)


@pytest.fixture(scope="module")
def wordle_fit(wordle: bcm.ConfusionMatrix):
    return bcm.fit(wordle, prior="flat", random_seed=3)  # Dirichlet(1) rows: closed forms below


# ------------------------------------------------------------------ Wordle (reference chapter)
@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_wordle_observed_values_match_reference_and_sklearn(wordle_fit) -> None:
    obs = wordle_fit["observed_metrics"]
    # values printed in the chapter
    assert round(float(obs["acc"]), 3) == 0.805
    assert round(float(obs["kappa"]), 3) == 0.722
    assert round(float(obs["kappa_linear"]), 2) == 0.75
    assert round(float(obs["kappa_quadratic"]), 3) == 0.791
    assert round(float(obs["rmse"]), 3) == 0.611  # "mean squared error ... 0.611" is the RMSE
    yt, yp = labels_of(WORDLE)
    labels = list(range(6))
    assert float(obs["acc"]) == pytest.approx(skm.accuracy_score(yt, yp))
    for weights, name in ((None, "kappa"), ("linear", "kappa_linear"),
                          ("quadratic", "kappa_quadratic")):
        expected = skm.cohen_kappa_score(yt, yp, labels=labels, weights=weights)
        assert float(obs[name]) == pytest.approx(expected, rel=1e-12)
    assert float(obs["mae"]) == pytest.approx(np.mean(np.abs(yt - yp)))
    assert float(obs["mcc"]) == pytest.approx(skm.matthews_corrcoef(yt, yp))


def test_wordle_posterior_has_no_nan_although_x_never_occurs(wordle_fit) -> None:
    post = wordle_fit["posterior"]
    for name, da in post.data_vars.items():
        assert np.isfinite(da.values).all(), name
    # class X: prior-only row, observed rates and TPR undefined (NaN), prevalence 0
    obs = wordle_fit["observed_metrics"]
    assert np.isnan(obs["tpr"].sel({"class": "X"}).item())
    assert np.isnan(obs["rates"].sel(true_class="X")).all()
    assert obs["prevalence"].sel({"class": "X"}).item() == 0
    # its rates row is the Laplace prior Dirichlet(1, ..., 1): each entry Beta(1, 5)
    draws = post["rates"].sel(true_class="X", pred_class="X").values.ravel()
    assert stats.kstest(draws, stats.beta(1, 5).cdf).pvalue > 1e-3
    # the macro TPR at the observed point skips the undefined class
    tpr = obs["tpr"].values
    assert float(obs["tpr_macro"]) == pytest.approx(np.nanmean(tpr))
    assert float(obs["bacc"]) == pytest.approx(skm.balanced_accuracy_score(*labels_of(WORDLE)))


def _closed_form_mean_acc(counts: np.ndarray, a_prev: float, a_diag: float, a_row: float
                          ) -> float:
    """E[acc] = sum_k E[prevalence_k] E[rates_kk] (independent Dirichlet marginals).

    ``a_prev`` per class, ``a_diag`` on each row's correct class, ``a_row`` the row's total.
    """
    k = counts.shape[0]
    rows = counts.sum(axis=1)
    e_prev = (a_prev + rows) / (k * a_prev + rows.sum())
    e_diag = (a_diag + np.diag(counts)) / (a_row + rows)
    return float(e_prev @ e_diag)


@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_wordle_named_priors_pull_as_their_closed_forms(wordle: bcm.ConfusionMatrix) -> None:
    observed = np.trace(WORDLE) / WORDLE.sum()
    k = WORDLE.shape[0]
    expected = {
        "flat": _closed_form_mean_acc(WORDLE, 1.0, 1.0, k),         # Dirichlet(1) per cell
        "laplace": _closed_form_mean_acc(WORDLE, 1.0, 1.0, 2.0),    # Beta(1, 1) correct rate
        "jeffreys": _closed_form_mean_acc(WORDLE, 0.5, 0.5, 1.0),   # Beta(1/2, 1/2)
        "weak": _closed_form_mean_acc(WORDLE, 2 / k, 2 / k, 4 / k),  # strength 4 / K per row
    }
    # the flat Dirichlet pulls hardest towards chance; the weak default least
    assert expected["flat"] < expected["laplace"] < expected["jeffreys"] < expected["weak"]
    assert expected["weak"] < observed
    for prior, value in expected.items():
        draws = bcm.fit(wordle, prior=prior, random_seed=5, metrics=["acc"])["posterior"]["acc"]
        mc_error = float(draws.std()) / np.sqrt(draws.size)
        assert abs(float(draws.mean()) - value) < 5 * mc_error, prior


# ------------------------------------------------------------------ metrics vs scikit-learn
@st.composite
def matrices(draw) -> np.ndarray:
    k = draw(st.integers(2, 6))
    cells = draw(st.lists(st.integers(0, 7), min_size=k * k, max_size=k * k))
    counts = np.array(cells).reshape(k, k)
    if counts.sum() == 0:
        counts[0, 0] = 1
    return counts


def _close(ours: float, theirs: float) -> bool:
    if np.isnan(theirs):
        return bool(np.isnan(ours))
    return bool(np.isclose(ours, theirs, rtol=1e-9, atol=1e-12))


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(matrices())
def test_point_estimates_agree_with_sklearn(counts: np.ndarray) -> None:
    k = counts.shape[0]
    theta = counts / counts.sum()
    value = {name: m(theta) for name, m in MULTICLASS_METRICS.items()}
    yt, yp = labels_of(counts)
    labels = list(range(k))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _close(value["acc"], skm.accuracy_score(yt, yp))
        assert _close(value["bacc"], skm.balanced_accuracy_score(yt, yp))
        for weights, name in ((None, "kappa"), ("linear", "kappa_linear"),
                              ("quadratic", "kappa_quadratic")):
            assert _close(value[name], skm.cohen_kappa_score(
                yt, yp, labels=labels, weights=weights, replace_undefined_by=np.nan))
        mcc = skm.matthews_corrcoef(yt, yp)  # sklearn returns 0 where R_K is 0/0
        assert _close(value["mcc"], mcc) or (np.isnan(value["mcc"]) and mcc == 0)
        per_class = skm.precision_recall_fscore_support(yt, yp, labels=labels,
                                                        zero_division=np.nan)
        for ours, theirs in zip(("ppv", "tpr", "f1"), per_class[:3], strict=True):
            np.testing.assert_allclose(value[ours], theirs, rtol=1e-9)
        np.testing.assert_allclose(value["prevalence"], per_class[3] / counts.sum())
        for avg in ("macro", "weighted", "micro"):
            p, r, f, _ = skm.precision_recall_fscore_support(
                yt, yp, labels=labels, average=avg, zero_division=np.nan)
            for ours, theirs, per in (("ppv", p, per_class[0]), ("tpr", r, per_class[1]),
                                      ("f1", f, per_class[2])):
                got = value[f"{ours}_{avg}"]
                support = per_class[3][~np.isnan(per)].sum()
                if avg == "weighted" and support == 0:
                    # every class that defines the metric has zero weight: the weighted mean is
                    # 0/0, which we report as NaN (undefined); sklearn reports 0.0 here
                    assert np.isnan(got), (ours, avg)
                    continue
                assert _close(got, theirs), (ours, avg)
        jac = skm.jaccard_score(yt, yp, labels=labels, average=None, zero_division=1)
        absent = (counts.sum(axis=0) + counts.sum(axis=1)) == 0  # 0/0: ours NaN
        np.testing.assert_array_equal(np.isnan(value["jaccard"]), absent)
        np.testing.assert_allclose(value["jaccard"][~absent], jac[~absent], rtol=1e-9)


def test_true_micro_precision_is_pooled_not_prevalence_weighted() -> None:
    counts = np.array([[50, 3, 2], [10, 20, 5], [4, 6, 10]])
    theta = counts / counts.sum()
    micro, weighted = MULTICLASS_METRICS["ppv_micro"](theta), MULTICLASS_METRICS["ppv_weighted"](
        theta)
    tp = np.trace(counts)
    fp = (counts.sum(axis=0) - np.diag(counts)).sum()
    assert micro == pytest.approx(tp / (tp + fp))
    assert micro == pytest.approx(np.trace(counts) / counts.sum())  # single-label: = accuracy
    ppv = np.diag(counts) / counts.sum(axis=0)
    assert weighted == pytest.approx(ppv @ counts.sum(axis=1) / counts.sum())
    assert abs(micro - weighted) > 0.01


def test_metrics_are_scale_invariant_and_vectorised() -> None:
    rng = np.random.default_rng(0)
    theta = rng.dirichlet(np.ones(16), size=(3, 7)).reshape(3, 7, 4, 4)
    for name, metric in MULTICLASS_METRICS.items():
        value = metric(theta)
        expected = (3, 7, 4) if metric.kind == "per_class" else (3, 7)
        assert value.shape == expected, name
        np.testing.assert_allclose(metric(theta * 17.0), value, rtol=1e-9, err_msg=name)
        np.testing.assert_allclose(metric(theta[1, 2]), value[1, 2], rtol=1e-12, err_msg=name)


# ------------------------------------------------------------------ K = 2: same as the binary model
def test_two_class_multiclass_equals_binary_model() -> None:
    counts = [[26, 4], [7, 13]]
    binary = bcm.fit(bcm.ConfusionMatrix(counts, labels=["p", "n"], positive="p"),
                     random_seed=11)["posterior"]
    multi = bcm.fit(bcm.ConfusionMatrix(counts, labels=["p", "n"]), random_seed=12)["posterior"]
    pairs = {
        "tpr": multi["tpr"].sel({"class": "p"}),
        "tnr": multi["tnr"].sel({"class": "p"}),
        "ppv": multi["ppv"].sel({"class": "p"}),
        "f1": multi["f1"].sel({"class": "p"}),
        "bm": multi["bm"].sel({"class": "p"}),
        "prevalence": multi["prevalence"].sel({"class": "p"}),
        "mcc": multi["mcc"],
        "kappa": multi["kappa"],
        "acc": multi["acc"],
        "bacc": multi["bacc"],
    }
    for name, da in pairs.items():
        b, m = binary[name].values.ravel(), da.values.ravel()
        assert stats.ks_2samp(b, m).pvalue > 1e-3, name
        assert abs(b.mean() - m.mean()) < 4 * np.hypot(b.std(), m.std()) / np.sqrt(b.size), name
    # the class-n TPR of the multiclass fit is the binary TNR
    np.testing.assert_allclose(multi["tpr"].sel({"class": "n"}),
                               multi["tnr"].sel({"class": "p"}), rtol=1e-12)
    # and rates[p, p] is exactly the Beta(1 + TP, 1 + FN) of the binary TPR
    assert stats.kstest(multi["rates"].sel(true_class="p", pred_class="p").values.ravel(),
                        stats.beta(27, 5).cdf).pvalue > 1e-3


# ------------------------------------------------------------------ empty classes
@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_never_predicted_and_never_occurring_classes() -> None:
    counts = [[5, 2, 0, 0], [1, 7, 0, 0], [2, 1, 0, 0], [0, 0, 0, 0]]  # c never predicted, d absent
    idata = bcm.fit(bcm.ConfusionMatrix(counts, labels=list("abcd")), random_seed=0, draws=500)
    for name, da in idata["posterior"].data_vars.items():
        assert np.isfinite(da.values).all(), name
    obs = idata["observed_metrics"]
    assert np.isnan(obs["ppv"].sel({"class": "c"}).item())  # never predicted: 0/0
    assert obs["tpr"].sel({"class": "c"}).item() == 0.0
    assert np.isnan(obs["tpr"].sel({"class": "d"}).item())
    assert float(obs["ppv_macro"]) == pytest.approx(np.nanmean(obs["ppv"].values))
    assert "skipped" in idata["posterior"]["ppv_macro"].attrs["long_name"]


def test_all_zero_matrix_gives_the_prior() -> None:
    with pytest.warns(bcm.errors.EmptyMatrixWarning):
        cm = bcm.ConfusionMatrix(np.zeros((3, 3), dtype=int))
    idata = bcm.fit(cm, random_seed=0, draws=2000)
    acc = idata["posterior"]["acc"].values.ravel()
    # prior E[acc] = sum_k E[prev_k] E[rates_kk] = 1/2 under the weak default (each row's
    # correct rate has prior mean 1/2), 1/3 under the flat Dirichlet
    assert abs(acc.mean() - 1 / 2) < 5 * acc.std() / np.sqrt(acc.size)
    flat = bcm.fit(cm, prior="flat", random_seed=0, draws=2000)["posterior"]["acc"].values
    assert abs(flat.mean() - 1 / 3) < 5 * flat.std() / np.sqrt(flat.size)


# ------------------------------------------------------------------ priors
@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_fixed_prevalence_is_a_constant_and_drops_the_row_likelihood() -> None:
    cm = bcm.ConfusionMatrix([[8, 2, 0], [1, 5, 4], [0, 1, 9]], labels=list("abc"))
    shares = [0.5, 0.3, 0.2]
    idata = bcm.fit(cm, priors={"prevalence": bcm.Fixed(shares)}, random_seed=0, draws=300)
    assert "prevalence" not in idata["posterior"]
    np.testing.assert_allclose(idata["constant_data"]["prevalence"], shares)
    np.testing.assert_allclose(idata["posterior"]["theta"].sum("pred_class").values[0, 0], shares)
    model = bcm.build_model(cm, priors={"prevalence": bcm.Fixed(shares)})
    assert [rv.name for rv in model.free_RVs] == ["rates"]
    assert "class_counts" not in model.named_vars


@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_informative_priors_from_earlier_counts() -> None:
    earlier = np.array([[30, 5, 5], [2, 20, 8], [1, 4, 25]])
    cm = bcm.ConfusionMatrix([[9, 1, 0], [1, 6, 3], [0, 2, 8]], labels=list("abc"))
    rates = [bcm.Dirichlet(row + 1) for row in earlier]
    prevalence = bcm.Dirichlet(earlier.sum(axis=1) + 1)
    idata = bcm.fit(cm, priors={"rates": rates, "prevalence": prevalence}, random_seed=0)
    post = idata["posterior"]
    # closed form: Dirichlet(1 + earlier + counts) rows; marginal means
    alpha = 1 + earlier + cm.counts
    np.testing.assert_allclose(post["rates"].mean(("chain", "draw")),
                               alpha / alpha.sum(axis=1, keepdims=True), atol=0.005)
    by_label = bcm.fit(cm, priors={"rates": {"b": bcm.Dirichlet(earlier[1] + 1)}},
                       random_seed=0, draws=500)
    assert "by_class" in by_label.attrs["priors"]


@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_preset_priors_map_to_dirichlets(wordle: bcm.ConfusionMatrix) -> None:
    idata = bcm.fit(wordle, prior="jeffreys", random_seed=0, draws=200, metrics=["acc"])
    assert '"alpha": 0.5' in idata.attrs["priors"]
    assert '"dist": "Dirichlet"' in idata.attrs["priors"]


def test_haldane_exact_when_every_count_is_positive() -> None:
    counts = np.array([[5, 2, 1], [1, 6, 2], [2, 1, 7]])
    idata = bcm.fit(bcm.ConfusionMatrix(counts), prior="haldane", random_seed=0)
    assert "prior" not in idata.children
    rates = idata["posterior"]["rates"].values.reshape(-1, 3, 3)
    # Dirichlet(counts) rows: marginal Beta(c, n - c)
    assert stats.kstest(rates[:, 0, 2], stats.beta(1, 7).cdf).pvalue > 1e-3
    model = bcm.build_model(bcm.ConfusionMatrix(counts), prior="haldane")
    assert {"prevalence_logratio", "rates_logratio"} <= {rv.name for rv in model.free_RVs}


# ------------------------------------------------------------------ batches, inputs, metrics
@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_batch_has_classifier_dim_and_matches_closed_form() -> None:
    a = bcm.ConfusionMatrix([[8, 2, 0], [1, 5, 4], [0, 1, 9]], labels=list("abc"))
    b = bcm.ConfusionMatrix([[1, 9, 0], [5, 5, 0], [0, 0, 10]], labels=list("abc"))
    idata = bcm.fit({"a": a, "b": b}, prior="flat", random_seed=0)
    post = idata["posterior"]
    assert post["tpr"].dims == ("chain", "draw", "classifier", "class")
    assert post["rates"].dims == ("chain", "draw", "classifier", "true_class", "pred_class")
    mean = post["rates"].sel(classifier="b", true_class="a").mean(("chain", "draw")).values
    np.testing.assert_allclose(mean, (1 + b.counts[0]) / (3 + 10), atol=0.005)
    table = bcm.summary(idata, var_names=["recall"])
    assert "tpr[b, c]" in table.index


@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_from_predictions_any_hashable_labels() -> None:
    y_true = ["cat", "dog", "dog", ("x", 1), "cat", "cat"]
    y_pred = ["cat", "cat", "dog", ("x", 1), "dog", "cat"]
    cm = bcm.ConfusionMatrix.from_predictions(y_true, y_pred, labels=["cat", "dog", ("x", 1)])
    idata = bcm.fit(cm, random_seed=0, draws=200)
    assert list(idata["posterior"]["class"].values) == ["cat", "dog", "('x', 1)"]
    assert float(idata["observed_metrics"]["acc"]) == pytest.approx(4 / 6)


def test_fifty_classes() -> None:
    rng = np.random.default_rng(0)
    counts = rng.multinomial(2000, np.full(2500, 1 / 2500)).reshape(50, 50) + np.eye(
        50, dtype=int) * 20
    idata = bcm.fit(bcm.ConfusionMatrix(counts), random_seed=0, draws=200, chains=2)
    assert idata["posterior"]["f1"].shape == (2, 200, 50)
    assert np.isfinite(idata["posterior"]["kappa"]).all()
    assert len(bcm.summary(idata, var_names=["f1", "acc"])) == 51


@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_aliases_custom_metrics_and_summary(wordle: bcm.ConfusionMatrix) -> None:
    gap = bcm.metrics.Metric("gap", lambda t: t[..., 0, 0] - t[..., 1, 1], kind="multiclass")
    diag = bcm.metrics.Metric("diag", lambda t: np.diagonal(t, axis1=-2, axis2=-1),
                              kind="per_class")
    idata = bcm.fit(wordle, random_seed=0, draws=300,
                    metrics=["Macro Recall", "precision_micro", "balanced_accuracy", "qwk", gap,
                             diag])
    post = idata["posterior"]
    assert {"tpr_macro", "ppv_micro", "bacc", "kappa_quadratic", "gap", "diag"} <= set(post)
    assert post["diag"].dims == ("chain", "draw", "class")
    np.testing.assert_allclose(post["diag"], np.diagonal(post["theta"], axis1=-2, axis2=-1))
    assert list(bcm.summary(idata, var_names=["macro_recall"]).index) == ["tpr_macro"]
    assert "kappa_linear" in bcm.metrics.list_metrics("multiclass").index


@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_ordered_metrics_only_for_ordered_classes() -> None:
    cm = bcm.ConfusionMatrix([[8, 2], [1, 5]], labels=["lo", "hi"])
    idata = bcm.fit(cm, random_seed=0, draws=200)
    assert not set(ORDERED_ONLY) & set(idata["posterior"])
    ordered = bcm.fit(bcm.ConfusionMatrix(cm.counts, labels=["lo", "hi"], ordered=True),
                      random_seed=0, draws=200)
    assert set(ORDERED_ONLY) <= set(ordered["posterior"])


# ------------------------------------------------------------------ bad input
CM3 = bcm.ConfusionMatrix([[8, 2, 0], [1, 5, 4], [0, 0, 0]], labels=list("abc"))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"prior": bcm.Dirichlet([1, 1])}, ValueError, "2 entries but there are 3 classes"),
        ({"rates": bcm.Dirichlet([1, 1, 1, 1])}, ValueError, "Prior of rates"),
        ({"prevalence": bcm.Fixed([0.5, 0.5])}, ValueError, "2 entries but the matrix has 3"),
        ({"prevalence": bcm.Beta(2, 3)}, TypeError, "Dirichlet"),
        ({"prior": bcm.Beta(2, 2)}, TypeError, "one proportion"),
        ({"rates": bcm.Fixed([0.2, 0.3, 0.5])}, ValueError, "Only the prevalence can be fixed"),
        ({"prior": bcm.Fixed([0.2, 0.3, 0.5])}, ValueError, "only be given for the prevalence"),
        ({"rates": "haldane"}, ValueError, r"rates\[c, a\].*class 'c' never occurs"),
        ({"prevalence": "haldane"}, ValueError, r"prevalence\[c\].*row sum\[c\] = 0 \(class"),
        ({"rates": [bcm.Dirichlet(1)] * 2}, ValueError, "one prior per true class"),
        ({"rates": {"z": bcm.Dirichlet(1)}}, ValueError, "unknown classes"),
        ({"tpr": "laplace"}, TypeError, "not parameters of the multiclass model"),
        ({"metrics": ["kappa_linear"]}, ValueError, "need ordered classes"),
        ({"metrics": [bcm.metrics.Metric("m", lambda tp, fn, fp, tn: tp)]}, ValueError,
         "kind 'binary' but the model is multiclass"),
        ({"metrics": [bcm.metrics.Metric("m", lambda t: t[..., 0], kind="multiclass")]}, ValueError,
         "returned shape"),
    ],
)
@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_bad_inputs_raise_clear_errors(kwargs, error, match) -> None:
    kwargs = dict(kwargs)  # priors by parameter go in priors={...}, fit's one way to give them
    keyed = {k: kwargs.pop(k) for k in ("prevalence", "rates", "tpr") if k in kwargs}
    with pytest.raises(error, match=match):
        bcm.fit(CM3, draws=50, **({"priors": keyed} if keyed else {}), **kwargs)


def test_haldane_error_names_the_classifier_and_nuts_path() -> None:
    full = bcm.ConfusionMatrix([[3, 1, 1], [1, 3, 1], [1, 1, 3]], labels=list("abc"))
    with pytest.raises(ValueError, match="classifier 'second'"):
        bcm.fit({"first": full, "second": CM3}, prior="haldane", draws=50)
    with pytest.raises(ValueError, match="improper posterior"):
        bcm.build_model(CM3, prior="haldane")
    one_zero = bcm.ConfusionMatrix([[3, 1, 0], [1, 3, 1], [1, 1, 3]], labels=list("abc"))
    with pytest.raises(ValueError, match=r"rates\[a, c\] .*counts\[a, c\] = 0\. Use"):
        bcm.fit(one_zero, priors={"rates": "haldane"}, draws=50)


def test_summary_fast_hdi_equals_full_sort_hdi() -> None:
    from bayescm.analyses.summary import _hdi_rows
    from bayescm.core.stats import hdi

    rng = np.random.default_rng(1)
    draws = np.concatenate([rng.beta(2, 30, size=(5, 4001)), rng.normal(size=(3, 4001)),
                            rng.integers(0, 3, size=(2, 4001)).astype(float)])
    draws[0, 7] = np.nan
    draws[1, 9] = np.inf
    for prob in (0.5, 0.8, 0.95, 0.99):
        np.testing.assert_array_equal(_hdi_rows(draws, prob), hdi(draws, prob))
    np.testing.assert_array_equal(_hdi_rows(draws, 0.3), hdi(draws, 0.3))  # full-sort fallback


def test_heavy_priors_warn_naming_the_row() -> None:
    from bayescm.errors import PriorStrengthWarning

    cm = bcm.ConfusionMatrix([[60, 2, 1, 0, 0], [3, 50, 1, 0, 1], [0, 2, 55, 3, 0],
                              [1, 0, 2, 6, 1], [0, 0, 1, 1, 58]], labels=list("abcde"))
    with pytest.warns(PriorStrengthWarning, match=r"flat prior puts 5 pseudo-counts in the row "
                                                   r"of class 'd', which has 10 test items"):
        bcm.fit(cm, prior="flat", draws=50, random_seed=0)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error", PriorStrengthWarning)
        bcm.fit(cm, draws=50, random_seed=0)  # weak: 0.8 per row, below a tenth of 10 items


@pytest.mark.filterwarnings("ignore:A single label was found:UserWarning")  # sklearn
@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_observed_conventions_follow_scikit_learn_and_stay_exact() -> None:
    from sklearn.metrics import balanced_accuracy_score, matthews_corrcoef

    from bayescm.metrics.binary import BINARY_METRICS

    # every prediction in one class: NPV and MK of that class are 0/0 (NaN), not 1.0
    obs = bcm.fit(bcm.ConfusionMatrix([[1, 0, 0], [1, 0, 0], [1, 0, 0]]), draws=20,
                  random_seed=0)["observed_metrics"]
    assert np.isnan(obs["npv"].values[0]) and np.isnan(obs["mk"].values).all()
    assert float(obs["mcc"]) == matthews_corrcoef([0, 1, 2], [0, 0, 0]) == 0.0
    # binary: MCC 0 for an empty column, balanced accuracy skips the absent class
    assert float(BINARY_METRICS["mcc"](0, 5, 0, 9)) == 0.0
    assert float(BINARY_METRICS["bacc"](1, 0, 0, 0)) == balanced_accuracy_score([1], [1]) == 1.0
    # plain Python numbers: NaN and inf, never ZeroDivisionError
    assert np.isnan(BINARY_METRICS["ppv"](0, 1, 0, 1))
    assert np.isposinf(BINARY_METRICS["lr_plus"](1, 0, 0, 1))
    undefined = bcm.metrics.list_metrics()["undefined"]
    assert "absent" in undefined["lr_plus"] and "absent" in undefined["pt"]


def test_observed_at_a_fixed_prevalence_is_the_plug_in() -> None:
    cm = bcm.ConfusionMatrix.from_counts(tp=45, fn=5, tn=40, fp=10)
    fit = bcm.fit(cm, priors={"prevalence": bcm.Fixed(0.4)}, random_seed=0)
    ppv = 0.4 * 0.9 / (0.4 * 0.9 + 0.6 * 0.2)  # Bayes' rule at the fixed prevalence
    assert float(fit["observed_metrics"]["ppv"]) == pytest.approx(ppv)
    deployed = bcm.with_prevalence(bcm.fit(cm, random_seed=0), 0.4)
    assert float(deployed["observed_metrics"]["ppv"]) == pytest.approx(ppv)


@pytest.mark.filterwarnings("ignore::bayescm.errors.PriorStrengthWarning")  # tiny on purpose
def test_averages_cover_the_same_classes_observed_and_posterior(wordle) -> None:
    """Class X has no test items: left out of macro/weighted averages and bacc on both sides."""
    fit = bcm.fit(wordle, random_seed=1)
    assert json.loads(fit.attrs["classes_without_items"]) == ["X"]
    table = bcm.summary(fit, var_names=["tpr_macro", "tpr_weighted", "bacc", "ppv_macro"])
    for name, row in table.iterrows():
        assert row["hdi_lower"] <= row["observed"] <= row["hdi_upper"], name
    defined = [c for c in wordle.coords if c != "X"]
    per_class = fit["posterior"]["tpr"].sel({"class": defined}).mean("class")
    np.testing.assert_allclose(fit["posterior"]["tpr_macro"].values, per_class.values)
    moved = bcm.with_prevalence(fit, bcm.Dirichlet([2, 2, 2, 2, 2, 2]), random_seed=2)
    per_class = moved["posterior"]["tpr"].sel({"class": defined}).mean("class")
    np.testing.assert_allclose(moved["posterior"]["tpr_macro"].values, per_class.values)
