"""Batches, summaries, probabilities and persistence of result trees."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

import bayescm as bcm
from bayescm.io.datasets import literature_matrices


@pytest.fixture(scope="module")
def literature():
    return bcm.fit(literature_matrices(), random_seed=3)


def test_batch_layout(literature):
    post = literature["posterior"]
    assert post["bm"].dims == ("chain", "draw", "classifier")
    assert post["theta"].dims == ("chain", "draw", "classifier", "true_class", "pred_class")
    assert list(post["classifier"].values[:3]) == ["1", "2", "3"]
    assert literature["observed_data"]["counts"].sel(classifier="7a").values.tolist() == \
        [[26, 0], [2, 6]]
    diag = literature["diagnostics"]["bm"]
    assert diag.dims == ("diagnostic", "classifier")
    assert (diag.sel(diagnostic="r_hat") < 1.01).all()
    assert (diag.sel(diagnostic="ess_mean") > 15_000).all()


def test_batch_equals_individual_posteriors(literature):
    """Each classifier of the vectorised batch has its own closed-form posterior."""
    mats = literature_matrices()
    for name in ("1", "8", "14b"):
        c = mats[name].cells
        tnr = literature["posterior"]["tnr"].sel(classifier=name).values.ravel()
        assert stats.kstest(tnr, stats.beta(1 + c["tn"], 1 + c["fp"]).cdf).pvalue > 1e-3


def test_paper_deceptive_classifiers(literature):
    """Paper Fig. 3C: 5b, 6a, 8 and 14b have a considerable chance of being deceptive."""
    table = bcm.informedness(literature)
    assert table.index.name == "classifier"
    assert np.allclose(table.sum(axis=1), 1.0)
    top4 = set(table["deceptive"].sort_values(ascending=False).index[:4])
    assert top4 == {"5b", "6a", "8", "14b"}
    assert table.loc["8", "deceptive"] == pytest.approx(0.14, abs=0.01)
    # each r_deceptive equals P(TPR + TNR < 1) from the closed-form Betas
    mats = literature_matrices()
    for name in ("5b", "6a", "14b"):
        c = mats[name].cells
        tpr, tnr = stats.beta(1 + c["tp"], 1 + c["fn"]), stats.beta(1 + c["tn"], 1 + c["fp"])
        from scipy import integrate

        exact = integrate.quad(lambda x, a=tpr, b=tnr: a.pdf(x) * b.cdf(1 - x), 0, 1)[0]
        assert table.loc[name, "deceptive"] == pytest.approx(exact, abs=0.012)


def test_summary_rows_per_classifier(literature):
    table = bcm.summary(literature, var_names=["tpr", "bm"])
    assert list(table.columns) == ["observed", "mean", "sd", "hdi_lower", "hdi_upper", "mu",
                                   "r_hat", "ess_mean"]
    assert len(table) == 48
    assert "bm[8]" in table.index
    assert table.loc["tpr[7a]", "observed"] == 1.0
    assert (table["mu"] == table["hdi_upper"] - table["hdi_lower"]).all()
    assert (table["hdi_lower"] <= table["mean"]).all()
    assert (table["mean"] <= table["hdi_upper"]).all()


def test_mu_shrinks_like_one_over_sqrt_n(literature):
    """MU of TPR falls with the number of positives (paper Fig. 3B, SI S5: MU <~ 2/sqrt(N))."""
    table = bcm.summary(literature, var_names=["acc"])
    n = np.array([m.n for m in literature_matrices().values()])
    assert stats.spearmanr(n, table["mu"].to_numpy()).statistic < -0.8
    assert (table["mu"].to_numpy()[n > 20] <= 2 / np.sqrt(n[n > 20])).all()


def test_summary_options(cocaine):
    idata = bcm.fit(cocaine, random_seed=0)
    full = bcm.summary(idata)
    assert "theta" not in " ".join(full.index)
    assert len(full) >= 25
    theta = bcm.summary(idata, var_names=["theta"])
    assert list(theta.index) == ["theta[positive, positive]", "theta[positive, negative]",
                                 "theta[negative, positive]", "theta[negative, negative]"]
    assert theta["observed"].tolist() == pytest.approx([26 / 34, 0, 2 / 34, 6 / 34])
    narrow = bcm.summary(idata, var_names="tnr", hdi_prob=0.5)
    assert narrow.loc["tnr", "mu"] < full.loc["tnr", "mu"]
    assert narrow.attrs["hdi_prob"] == 0.5
    prior = bcm.summary(idata, group="prior", var_names=["tpr"])
    assert np.isnan(prior.loc["tpr", "observed"])
    assert prior.loc["tpr", "mean"] == pytest.approx(
        0.5, abs=0.01)
    with pytest.raises(KeyError, match="'auc' is not a known metric"):
        bcm.summary(idata, var_names=["auc"])
    with pytest.raises(ValueError, match="hdi_prob must lie strictly"):
        bcm.summary(idata, hdi_prob=0)
    with pytest.raises(TypeError, match="Expected a result tree"):
        bcm.summary({"posterior": 1})
    restricted = bcm.fit(cocaine, metrics=["bm"], random_seed=0)
    with pytest.raises(KeyError, match="'mcc' was not computed"):
        bcm.summary(restricted, var_names=["mcc"])


@pytest.mark.filterwarnings("ignore:bulk ESS")
@pytest.mark.parametrize("method", ["exact", pytest.param("nuts", marks=pytest.mark.slow)])
def test_summary_kinds_split_the_full_table(cocaine, method):
    """``kind="stats"`` and ``kind="diagnostics"`` are the two halves of the full table."""
    draws = 5_000 if method == "exact" else 200
    idata = bcm.fit(cocaine, metrics=["tpr", "bm", "lr_plus"], method=method, draws=draws,
                    chains=2, random_seed=3)
    full = bcm.summary(idata)
    stats_part = bcm.summary(idata, kind="stats")
    diag_part = bcm.summary(idata, kind="diagnostics")
    assert list(stats_part.columns) == ["observed", "mean", "sd", "hdi_lower", "hdi_upper", "mu"]
    ess = "ess_mean" if method == "exact" else "ess_bulk"
    assert list(diag_part.columns) == ["r_hat", ess]
    pd.testing.assert_frame_equal(pd.concat([stats_part, diag_part], axis=1), full,
                                  check_exact=False, rtol=1e-12, atol=0)
    flat = np.asarray(idata["posterior"]["bm"]).reshape(-1)
    assert stats_part.loc["bm", "sd"] == pytest.approx(flat.std(ddof=1), rel=1e-12)
    prior = bcm.summary(idata, group="prior", kind="diagnostics")
    assert prior.isna().all().all()  # no diagnostics of prior draws
    assert bcm.summary(idata, var_names=[], kind="stats").empty
    with pytest.raises(ValueError, match="kind must be one of"):
        bcm.summary(idata, kind="mcse")


def test_probability(cocaine):
    idata = bcm.fit(cocaine, random_seed=0)
    tnr = idata["posterior"]["tnr"].values
    assert bcm.probability(idata, "specificity", upper=0.5) == pytest.approx((tnr < 0.5).mean())
    assert bcm.probability(idata, "tnr", 0.5, 0.9) == pytest.approx(
        ((tnr > 0.5) & (tnr < 0.9)).mean())
    assert bcm.probability(idata, "tnr", upper=0.5) == pytest.approx(
        stats.beta(7, 3).cdf(0.5), abs=0.01)
    with pytest.raises(ValueError, match="Give lower, upper or both"):
        bcm.probability(idata, "tnr")
    with pytest.raises(ValueError, match="must be smaller than upper"):
        bcm.probability(idata, "tnr", 0.9, 0.1)
    with pytest.raises(TypeError, match="upper must be a number"):
        bcm.probability(idata, "tnr", upper="0.5")
    with pytest.raises(TypeError, match="lower must be a number"):
        bcm.probability(idata, "tnr", lower=float("nan"))


def test_probability_over_batch(literature):
    p = bcm.probability(literature, "bm", upper=0.0)
    assert p.dims == ("classifier",)
    assert float(p.sel(classifier="8")) == pytest.approx(
        bcm.informedness(literature).loc["8", "deceptive"])


def test_informedness_rope(cocaine):
    idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4), random_seed=0)
    wide = bcm.informedness(idata, rope=0.1)
    bm = idata["posterior"]["bm"].values
    assert wide.loc["bm", "uninformative"] == pytest.approx((np.abs(bm) <= 0.1).mean())
    assert wide.loc["bm", "deceptive"] == pytest.approx((bm < -0.1).mean())
    with pytest.raises(ValueError, match=r"rope must lie in \[0, 1\)"):
        bcm.informedness(idata, rope=-0.1)
    with pytest.raises(TypeError, match="rope must be a number"):
        bcm.informedness(idata, rope="0.1")


@pytest.mark.slow  # 24 classifiers written and read twice (about 6 s)
def test_netcdf_round_trip(tmp_path, literature):
    path = bcm.save(literature, tmp_path / "sub" / "lit.nc", compact=False)  # exact storage
    back = bcm.load(path)
    assert set(back.children) == set(literature.children)
    assert back.attrs["priors"] == literature.attrs["priors"]
    np.testing.assert_array_equal(back["posterior"]["bm"].values,
                                  literature["posterior"]["bm"].values)
    pd.testing.assert_frame_equal(bcm.summary(back, var_names=["bm"]),
                                  bcm.summary(literature, var_names=["bm"]))
    # overwriting a file that was loaded works (written via a temporary file)
    bcm.save(back, path)
    assert bcm.load(path)["posterior"]["for"].shape == literature["posterior"]["for"].shape


def test_batch_prior_is_shared_and_haldane_batch_names_classifier():
    mats = {"a": bcm.ConfusionMatrix.from_counts(tp=5, fn=2, tn=4, fp=3),
            "b": bcm.ConfusionMatrix.from_counts(tp=9, fn=1, tn=8, fp=1)}
    idata = bcm.fit(mats, prior="jeffreys", random_seed=0)
    assert "classifier" not in idata["prior"].dims
    assert stats.kstest(idata["prior"]["tpr"].values.ravel(), stats.beta(0.5, 0.5).cdf
                        ).pvalue > 1e-3


def test_prior_group_is_computed_on_first_read_and_equals_an_eager_draw() -> None:
    import pickle

    from bayescm.models.context import FitContext
    from bayescm.models.pipeline import prior_draws, seeds

    cm = bcm.ConfusionMatrix([[30, 4, 1], [3, 25, 5], [0, 4, 28]], labels=list("abc"))
    idata = bcm.fit(cm, random_seed=7, draws=300)
    var = idata["prior"].to_dataset().variables["acc"]
    assert not isinstance(var._data, np.ndarray)  # not drawn by fit or summary
    bcm.summary(idata)
    assert not isinstance(idata["prior"].to_dataset().variables["acc"]._data, np.ndarray)
    ctx = FitContext.from_arguments(cm, random_seed=7, draws=300)
    _, rng, _ = seeds(ctx.seed)
    params, _ = prior_draws(ctx.kind, ctx.priors, None, ctx.counts, rng, 4, 300)
    eager = ctx.kind.derive(params, ctx.priors, ctx.metrics)
    for name, (_, values) in eager.items():
        np.testing.assert_array_equal(idata["prior"][name].values, values)
    again = pickle.loads(pickle.dumps(bcm.fit(cm, random_seed=7, draws=300)))
    np.testing.assert_array_equal(again["prior"]["kappa"].values, eager["kappa"][1])


def test_diagnostics_of_independent_draws_are_computed_per_variable_when_read() -> None:
    from bayescm.core.diagnostics import rhat_ess_split

    idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), random_seed=2,
                    draws=400)
    diag = idata["diagnostics"].to_dataset()
    assert not isinstance(diag.variables["ppv"]._data, np.ndarray)  # fit computed none
    bcm.summary(idata, var_names=["tpr"])
    assert not isinstance(idata["diagnostics"].to_dataset().variables["ppv"]._data, np.ndarray)
    r, e = rhat_ess_split(idata["posterior"]["ppv"].values)
    np.testing.assert_allclose(idata["diagnostics"]["ppv"].values, [r, e])
    table = bcm.summary(idata, var_names=["ppv"])
    assert table.loc["ppv", "r_hat"] == pytest.approx(float(r))
