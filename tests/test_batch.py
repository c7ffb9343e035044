"""summarize_batch: the summaries of fit + summary, chunk by chunk, in bounded memory."""

from __future__ import annotations

import pickle
import tracemalloc

import numpy as np
import pytest

import bayescm as bcm
from bayescm.analyses.batch import prepare
from bayescm.analyses.batch_chunk import summarize_chunk
from bayescm.core.diagnostics import rhat_ess_split
from bayescm.core.moments import moments_rhat_ess_rows
from bayescm.core.stats import hdi, hdi_rows
from bayescm.core.streams import child

COUNTS = bcm.analyses.simulate_counts(80, size=40, random_seed=0)
MATS = {f"c{i}": bcm.ConfusionMatrix(c, labels=["pos", "neg"], positive="pos")
        for i, c in enumerate(COUNTS)}
COLUMNS = ["observed", "mean", "sd", "hdi_lower", "hdi_upper", "mu", "r_hat", "ess_mean"]


def test_same_seed_and_chunks_give_the_same_table():
    a = bcm.summarize_batch(MATS, random_seed=1, chunk_size=7)
    b = bcm.summarize_batch(MATS, random_seed=1, chunk_size=7)
    assert a.equals(b)
    assert list(a.index.get_level_values("classifier").unique()) == list(MATS)
    assert list(a.columns) == COLUMNS
    assert a.index.names == ["classifier", "variable"]
    assert set(a.dtypes) == {np.dtype(np.float32)}
    assert a.attrs["random_seed"] == 1 and a.attrs["chunk_size"] == 7
    # the same variables, in the same order, as bcm.summary of a fit
    ref = bcm.summary(bcm.fit(MATS["c0"], random_seed=0, draws=100))
    assert list(a.loc["c0"].index) == list(ref.index)


def test_chunk_size_changes_the_streams_not_the_answer():
    a = bcm.summarize_batch(MATS, ["bm"], random_seed=1, chunk_size=7)
    b = bcm.summarize_batch(MATS, ["bm"], random_seed=1, chunk_size=13)
    assert not np.array_equal(a["mean"], b["mean"])  # other streams
    se = np.hypot(a["sd"] / np.sqrt(a["ess_mean"]), b["sd"] / np.sqrt(b["ess_mean"]))
    assert (np.abs(a["mean"] - b["mean"]) < 5 * se).all()
    assert (a["observed"] == b["observed"]).all()


def _sometimes_nan(tp, fn, fp, tn):
    """A proportion that is undefined (NaN) in a few draws of some rows."""
    return np.where(tp > 0.52, np.nan, tp + tn)


def _sometimes_inf(tp, fn, fp, tn):
    """An unbounded custom metric (float64 rows) that is +inf in some draws."""
    return np.where(fp < 0.08, np.inf, tp / fp)


def _half_tpr_mostly(tp, fn, fp, tn):
    """0.5 TPR (an affine image of the TPR) except where FN < 0.02: NaN, so not affine there."""
    return np.where(fn < 0.02, np.nan, 0.5 * tp / (tp + fn))


def test_a_chunk_summarises_exactly_its_own_draws():
    """Replay chunk 0's stream: the table holds the summaries of exactly those draws.

    Every default metric, custom ones with NaN or inf in some draws, and one that is an affine
    image of the TPR in some rows only. Rows taken from an affine relation (FNR = 1 - TPR, BM =
    2 BACC - 1, ...) match up to float32 rounding; their HDI window may be a neighbour of the
    direct one where two windows tie within rounding, hence 1 % of an sd there.
    """
    odd = [bcm.metrics.Metric("nan_acc", _sometimes_nan, scale="proportion"),
           bcm.metrics.Metric("inf_ratio", _sometimes_inf),
           bcm.metrics.Metric("half_tpr", _half_tpr_mostly, scale="proportion")]
    batch = prepare(MATS, [*bcm.metrics.list_metrics("binary").index, *odd], random_seed=9,
                    chunk_size=40, probabilities={"bm": ("<", 0.5)})
    plan = batch.plan
    related = {y for y, _, _, _ in plan.relations}
    assert {"fnr", "fpr", "fdr", "for", "err", "bm", "half_tpr"} <= related
    got = summarize_chunk(plan, batch.counts, batch.names, 0)
    rng = np.random.default_rng(child(plan.seq, 0))
    kind = plan.kind
    wide = {name for name, _, _, is_wide in plan.rows if is_wide}
    assert wide == {"lr_plus", "lr_minus", "dor", "inf_ratio"}
    for a in range(0, 40, plan.block):
        part = batch.counts[a:a + plan.block]
        params = kind.exact_posterior(part, plan.priors, rng, plan.chains, plan.draws, None)
        derived = kind.derive(params, plan.priors, list(plan.selected))
        for row, name in enumerate(batch.rows):
            draws = derived[name][1]  # (chains, draws, b)
            x = draws.astype(np.float64 if name in wide else np.float32)
            flat = np.moveaxis(x, 2, 0).reshape(len(part), -1)
            want_hdi = hdi(flat.astype(np.float32), plan.prob).astype(np.float32)
            r_hat, ess = rhat_ess_split(x.astype(float))
            table = got[a:a + len(part), row]
            with np.errstate(invalid="ignore"):
                mean, sd = flat.mean(axis=1), flat.std(axis=1, ddof=1)
            np.testing.assert_allclose(table[:, 1], mean, rtol=1e-5, atol=1e-6)
            np.testing.assert_allclose(table[:, 2], sd, rtol=1e-4)
            if name in related:
                np.testing.assert_allclose(table[:, 3:5], want_hdi,
                                           atol=1e-6 + 0.01 * np.nanmax(np.r_[sd, 0]))
            else:
                np.testing.assert_array_equal(table[:, 3:5], want_hdi)
            np.testing.assert_allclose(table[:, 6], r_hat, rtol=1e-5)
            np.testing.assert_allclose(table[:, 7], ess, rtol=1e-3)
            if name == "bm":
                np.testing.assert_allclose(table[:, 8], (flat < 0.5).mean(axis=1), atol=1e-7)
            else:
                assert np.isnan(table[:, 8]).all()
    for name, case in (("nan_acc", np.isnan), ("inf_ratio", np.isinf), ("half_tpr", np.isnan)):
        hit = case(got[:, batch.rows.index(name), 1])
        assert 0 < hit.sum() < 40, name  # both kinds of rows were exercised


def test_agrees_with_fit_and_summary():
    """Within Monte-Carlo error of the in-memory fit (20,000 reference draws).

    Means: within 4 standard errors of the difference (each side's sd / sqrt(ESS)).
    HDI bounds: the standard error of a 2.5 % tail quantile of 4,000 draws is about
    sqrt(0.025 * 0.975 / 4000) / f(q) ~ 0.042 sd for a bell-shaped posterior; an HDI bound
    is a little noisier and the reference adds its own noise, so 0.35 sd is over 5 standard
    errors (skewed posteriors near 0 or 1 included: the largest seen over 324 rows was 0.25).
    """
    names = ["c0", "c5", "c17", "c33"]
    mats = {n: MATS[n] for n in names}
    table = bcm.summarize_batch(mats, random_seed=2)
    ref = bcm.summary(bcm.fit(mats, random_seed=3, draws=5000))
    for name in names:
        for var in ("prevalence", "tpr", "bm", "ppv", "f1", "mcc", "lr_plus", "pt"):
            got, want = table.loc[(name, var)], ref.loc[f"{var}[{name}]"]
            assert got["observed"] == pytest.approx(want["observed"], rel=1e-6)
            se = np.hypot(want["sd"] / np.sqrt(want["ess_mean"]),
                          got["sd"] / np.sqrt(got["ess_mean"]))
            assert abs(got["mean"] - want["mean"]) < 4 * se, (name, var)
            assert got["sd"] == pytest.approx(want["sd"], rel=0.1)
            for bound in ("hdi_lower", "hdi_upper"):
                assert abs(got[bound] - want[bound]) < 0.35 * want["sd"], (name, var, bound)
            assert got["r_hat"] == pytest.approx(1.0, abs=0.01)
            assert 2500 < got["ess_mean"] < 5500


def test_probability_columns_agree_with_probability():
    table = bcm.summarize_batch(MATS, ["bm", "acc"], random_seed=5,
                                probabilities={"informedness": [(">", 0.3), ("<=", 0.0)],
                                               "acc": (">=", 0.75)})
    assert list(table.columns[8:]) == ["P(bm > 0.3)", "P(bm <= 0)", "P(acc >= 0.75)"]
    fit = bcm.fit({"c3": MATS["c3"]}, metrics=["bm", "acc"], random_seed=5, draws=5000)
    for column, p in (("P(bm > 0.3)", bcm.probability(fit, "bm", lower=0.3)),
                      ("P(acc >= 0.75)", bcm.probability(fit, "acc", lower=0.75))):
        p = float(np.asarray(p).ravel()[0])
        se = np.sqrt(max(p * (1 - p), 1e-4) * (1 / 4000 + 1 / 20000))
        row = "bm" if "bm" in column else "acc"
        assert abs(table.loc[("c3", row), column] - p) < 4 * se + 1e-3
    assert np.isnan(table.loc[("c3", "tpr"), "P(bm > 0.3)"])


def test_array_input_puts_the_positive_class_first():
    flipped = COUNTS[:, ::-1, ::-1]  # rows: neg, pos
    a = bcm.summarize_batch(flipped, ["tpr"], labels=["neg", "pos"], positive="pos",
                            random_seed=4)
    b = bcm.summarize_batch(COUNTS, ["tpr"], labels=["pos", "neg"], positive="pos",
                            random_seed=4)
    assert a.equals(b)
    assert list(a.index.get_level_values("classifier")[:3]) == ["0", "0", "0"]


def test_multiclass_batch():
    three = bcm.ConfusionMatrix([[40, 6, 2], [5, 30, 3], [1, 4, 25]], labels=["a", "b", "c"])
    other = bcm.ConfusionMatrix([[20, 1, 0], [9, 22, 4], [3, 2, 40]], labels=["a", "b", "c"])
    table = bcm.summarize_batch({"x": three, "y": other}, ["acc", "tpr", "f1_macro"],
                                random_seed=6, probabilities={"tpr": (">", 0.8)})
    ref = bcm.summary(bcm.fit({"x": three, "y": other}, metrics=["acc", "tpr", "f1_macro"],
                              random_seed=7, draws=5000))
    assert list(table.loc["x"].index) == [v.replace("[x, ", "[").replace("[x]", "")
                                          for v in ref.index if "x" in v.split("[")[1]]
    for name in ("x", "y"):
        for var in ("acc", "tpr[b]", "f1_macro", "prevalence[c]"):
            got = table.loc[(name, var)]
            label = var.replace("[", f"[{name}, ") if "[" in var else f"{var}[{name}]"
            want = ref.loc[label]
            assert got["observed"] == pytest.approx(want["observed"], rel=1e-6)
            se = np.hypot(want["sd"] / np.sqrt(want["ess_mean"]),
                          got["sd"] / np.sqrt(got["ess_mean"]))
            assert abs(got["mean"] - want["mean"]) < 4 * se, (name, var)
            assert abs(got["hdi_upper"] - want["hdi_upper"]) < 0.35 * want["sd"]
    assert table["P(tpr > 0.8)"].notna().sum() == 2 * 3  # tpr of three classes, two matrices


def test_var_names_aliases_and_the_matrix_variables():
    table = bcm.summarize_batch(MATS, ["bm"], var_names=["informedness", "theta"],
                                random_seed=1)
    assert list(table.loc["c0"].index) == ["bm", "theta[pos, pos]", "theta[pos, neg]",
                                           "theta[neg, pos]", "theta[neg, neg]"]


@pytest.mark.slow  # scale
def test_memory_does_not_grow_with_the_batch():
    """Peak allocations: one block of draws plus the table, whatever the batch size."""
    small = bcm.analyses.simulate_counts(50, size=130, random_seed=1)  # two blocks of 65
    large = bcm.analyses.simulate_counts(50, size=1300, random_seed=1)
    peaks = []
    for counts in (small, large):
        tracemalloc.start()
        table = bcm.summarize_batch(counts, labels=["p", "n"], positive="p", draws=500,
                                    random_seed=0, chunk_size=260)
        peaks.append(tracemalloc.get_traced_memory()[1])
        tracemalloc.stop()
        assert table.shape == (len(counts) * 27, 8)
    table_growth = (1300 - 130) * 27 * 8 * 4  # 1 MB; a fit would keep 130 MB more draws
    assert peaks[1] - peaks[0] < 2 * table_growth + 1e6


def test_progress_bar_only_when_asked_or_on_a_terminal(capsys):
    bcm.summarize_batch(MATS, ["bm"], random_seed=1)
    assert capsys.readouterr().err == ""  # pytest's stderr is not a terminal
    bcm.summarize_batch(MATS, ["bm"], random_seed=1, progressbar=True)
    err = capsys.readouterr().err
    assert "bayescm:" in err and "40/40 classifiers" in err


def test_what_a_task_ships_pickles():
    batch = prepare(MATS, ["bm", bcm.metrics.fbeta(3)], prior="jeffreys", random_seed=2,
                    chunk_size=16, probabilities={"bm": ("<", 0)})
    plan = pickle.loads(pickle.dumps(batch.plan))
    a = summarize_chunk(batch.plan, batch.counts[16:32], batch.names[16:32], 1)
    b = summarize_chunk(plan, batch.counts[16:32], batch.names[16:32], 1)
    np.testing.assert_array_equal(a, b)
    for cm in MATS.values():
        assert pickle.loads(pickle.dumps(cm)).counts.tolist() == cm.counts.tolist()


def test_row_statistics_match_the_reference_functions():
    rng = np.random.default_rng(3)
    x = rng.beta(20, 4, size=(30, 4, 1001))
    x[1, 0, 0] = np.nan
    x[2, 1, :4] = np.inf
    x[3] = 0.25  # constant
    mean, sd, r_hat, ess = moments_rhat_ess_rows(x)
    ref_r, ref_e = rhat_ess_split(np.moveaxis(x, 0, -1))
    flat = x.reshape(30, -1)
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(mean, flat.mean(axis=1), rtol=1e-12)
        np.testing.assert_allclose(np.delete(sd, [2, 3]), np.delete(flat.std(axis=1, ddof=1),
                                                                    [2, 3]), rtol=1e-10)
    keep = np.arange(30) != 3  # constant: R-hat undefined (NaN), not rounding noise
    np.testing.assert_allclose(r_hat[keep], ref_r[keep], rtol=1e-10)
    np.testing.assert_allclose(ess, ref_e, rtol=1e-8)
    assert np.isnan(r_hat[3]) and sd[3] == 0 and ess[3] == 4000  # split chains: 8 x 500
    for prob in (0.5, 0.9, 0.95, 0.99):
        for dtype in (np.float32, np.float64):
            y = flat.astype(dtype)
            with np.errstate(invalid="ignore"):
                np.testing.assert_array_equal(hdi_rows(y, prob), hdi(y, prob).astype(dtype))


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"probabilities": {"bm": ("=", 0)}}, ValueError, r"operator one of '<'"),
        ({"probabilities": {"bm": "< 0"}}, ValueError, "probabilities"),
        ({"probabilities": [("bm", "<", 0)]}, TypeError, "must be a mapping"),
        ({"probabilities": {"bm": ("<", "zero")}}, TypeError, "threshold must be a number"),
        ({"probabilities": {"nope": ("<", 0)}}, ValueError, "not summarised here"),
        ({"probabilities": {"ppv": ("<", 0)}, "metrics": ["bm"]}, ValueError, "ppv"),
        ({"chunk_size": -5}, ValueError, "chunk_size must be >= 1"),
        ({"chunk_size": 0}, ValueError, "chunk_size"),
        ({"chunk_size": 2.5}, TypeError, "chunk_size"),
        ({"client": 5}, TypeError, "client must be a dask.distributed.Client"),
        ({"client": "cluster"}, ValueError, "scheduler address"),
        ({"prior": "laplace", "tpr": 1}, TypeError, "valid keywords"),
        ({"labels": ["a", "b"]}, TypeError, "array of counts"),
        ({"var_names": ["nope"]}, ValueError, "not summarised here"),
        ({"draws": 0}, ValueError, "draws"),
    ],
)
def test_bad_arguments(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        bcm.summarize_batch(MATS, **kwargs)


def test_bad_batches():
    with pytest.raises(ValueError, match=r"shape \(B, K, K\)"):
        bcm.summarize_batch(np.ones((3, 2, 3), dtype=int), labels=["a", "b"], positive="a")
    with pytest.raises(ValueError, match="empty"):
        bcm.summarize_batch([])
    pz = pytest.importorskip("preliz")
    custom = {"tpr": pz.TruncatedNormal(0.8, 0.1, lower=0, upper=1)}  # NUTS only
    with pytest.raises(ValueError, match="conjugate"):
        bcm.summarize_batch(MATS, priors=custom)
