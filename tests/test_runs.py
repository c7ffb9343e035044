"""Folds, seeds and runs (issue 30.3): multiclass pooling, a run's metrics, procedures compared.

The fast tests check the pieces with exact draws: the runs' conditional Dirichlet draws against
their closed-form means, the population model's likelihood against SciPy's
Dirichlet-multinomial, and the result layout and :func:`bcm.compare.compare_runs` on a kind
that reuses the multiclass pooled kind with an exact fit (each fold alone, the population from
all folds together), so no NUTS runs. The slow tests fit the NUTS models themselves and check
the between-run SD against quadrature over the fitted population.
"""

from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest
from scipy import stats

import bayescm as bcm
from bayescm.comparisons.runs import compare_runs
from bayescm.models import register
from bayescm.models.hierarchical import HierarchicalModel
from bayescm.models.hierarchical_multiclass import MulticlassHierarchicalModel
from bayescm.models.hierarchical_multiclass_fit import build_multiclass_hierarchical, run_draws
from bayescm.models.pooled import pooled_result

LABELS = ["a", "b", "c"]
FOLDS = [[[40, 6, 2], [5, 30, 7], [1, 6, 33]], [[38, 8, 1], [6, 28, 8], [2, 5, 34]],
         [[42, 4, 3], [4, 33, 5], [1, 8, 30]], [[37, 7, 3], [7, 29, 6], [0, 6, 35]]]


def _folds(rows: list[Any] = FOLDS, shift: int = 0) -> dict[str, bcm.ConfusionMatrix]:
    out = {}
    for i, r in enumerate(rows):
        r = np.array(r)
        r[np.arange(3), np.arange(3)] += shift  # a better procedure: more on the diagonal
        out[f"fold{i + 1}"] = bcm.ConfusionMatrix(r, labels=LABELS)
    return out


@register
class ExactFolds(MulticlassHierarchicalModel):
    """Each fold alone (flat Dirichlets), the population from all folds pooled: exact."""

    key = "test_exact_folds"

    def fit(self, ctx: Any, options: Mapping[str, Any]) -> Any:
        self.group = options.get("group", "fold")
        rng = np.random.default_rng(ctx.seed)
        counts = np.asarray(ctx.counts, dtype=float)
        shape = (ctx.chains, ctx.draws)
        fitted = {"prevalence": _dirichlet(rng, 1 + counts.sum(axis=-1), shape),
                  "rates": _dirichlet(rng, 1 + counts, shape)}
        total = counts.sum(axis=0)
        mean = {"prevalence": _dirichlet(rng, 1 + total.sum(axis=-1), shape),
                "rates": _dirichlet(rng, 1 + total, shape)}

        def between(stream: np.random.Generator, block: slice, r: int) -> dict[str, Any]:
            size = (ctx.chains, len(range(*block.indices(ctx.draws))), r)
            return {"prevalence": _dirichlet(stream, 1 + total.sum(axis=-1), size),
                    "rates": _dirichlet(stream, 1 + total, size)}

        return pooled_result(ctx, self.group, fitted, {}, method="exact", kind=ctx.kind,
                             runs={"mean": mean, "new": mean}, between=between,
                             **ctx.seed_record())


def _dirichlet(rng: np.random.Generator, alpha: np.ndarray, shape: tuple[int, ...]
               ) -> np.ndarray:
    g = rng.standard_gamma(np.broadcast_to(alpha, (*shape, *alpha.shape)))
    return g / g.sum(axis=-1, keepdims=True)


def _exact(folds: dict[str, bcm.ConfusionMatrix], seed: int) -> Any:
    return bcm.fit(folds, model="test_exact_folds", group="fold", draws=1000, chains=2,
                   random_seed=seed)


def test_run_draws_match_their_conjugate_means() -> None:
    rng = np.random.default_rng(1)
    m = np.array([[0.8, 0.15, 0.05], [0.1, 0.7, 0.2], [0.05, 0.15, 0.8]])
    pop = {"prevalence": np.full((20000, 3), 1 / 3), "rates": np.broadcast_to(m, (20000, 3, 3)),
           "spread": np.full((20000, 3), 0.2), "prevalence_spread": np.full(20000, 0.2)}
    counts = np.array(FOLDS[:2], dtype=float)
    got = run_draws(rng, pop, counts)
    c = 1 / 0.2**2
    want = (c * m + counts) / (c + counts.sum(axis=-1, keepdims=True))
    assert got["rates"].shape == (20000, 2, 3, 3)
    np.testing.assert_allclose(got["rates"].mean(axis=0), want, atol=0.004)
    new = run_draws(rng, pop, runs=4)
    np.testing.assert_allclose(new["rates"].mean(axis=(0, 1)), m, atol=0.004)
    # a new run's rate varies by about spread * sqrt(m (1 - m)) around the population's
    sd = new["rates"][..., 0, 0].std()
    assert abs(sd - np.sqrt(m[0, 0] * (1 - m[0, 0]) / (c + 1))) < 0.003


def test_population_likelihood_is_the_dirichlet_multinomial() -> None:
    kind = MulticlassHierarchicalModel(LABELS)
    counts = np.array(FOLDS)
    model = build_multiclass_hierarchical(list("wxyz"), counts, "fold", kind.labels,
                                          kind.resolve_priors(None, {}))
    point = model.initial_point()
    logp = model.compile_fn(model.observedlogp)(point)
    rates = np.array([[0.7, 0.2, 0.1], [0.1, 0.6, 0.3], [0.2, 0.2, 0.6]])
    spread = np.array([0.3, 0.5, 0.4])
    with model:
        values = {"rates": rates, "prevalence": np.array([0.5, 0.3, 0.2]), "spread": spread,
                  "prevalence_spread": 0.25}
    point = {k: v for k, v in point.items()}
    for name, value in values.items():
        rv = model[name]
        transform = model.rvs_to_transforms[rv]
        key = model.rvs_to_values[rv].name
        v = np.asarray(value, dtype=float)
        point[key] = transform.forward(v).eval() if transform is not None else v
    logp = model.compile_fn(model.observedlogp)(point)
    want = 0.0
    for run in counts:
        rows = run.sum(axis=-1)
        want += stats.dirichlet_multinomial.logpmf(rows, values["prevalence"] / 0.25**2,
                                                   rows.sum())
        for k in range(3):
            want += stats.dirichlet_multinomial.logpmf(run[k], rates[k] / spread[k]**2,
                                                       rows[k])
    assert logp == pytest.approx(want, rel=1e-9)


def test_hierarchical_names_both_kinds() -> None:
    binary = {"a": bcm.ConfusionMatrix.from_counts(tp=9, fn=1, fp=2, tn=18),
              "b": bcm.ConfusionMatrix.from_counts(tp=7, fn=3, fp=1, tn=19)}
    assert type(HierarchicalModel.from_data(binary)) is HierarchicalModel
    assert type(HierarchicalModel.from_data(_folds())) is MulticlassHierarchicalModel
    with pytest.raises(ValueError, match="at least two"):
        MulticlassHierarchicalModel.from_data(dict(list(_folds().items())[:1]))
    with pytest.raises(TypeError, match="not parameters of the hierarchical_multiclass model"):
        bcm.fit(_folds(), model="hierarchical", group="fold",
                priors={"sd_logit_tpr": bcm.priors.HalfNormal(1.0)})
    with pytest.raises(ValueError, match="sampled with NUTS"):
        bcm.fit(_folds(), model="hierarchical", group="fold", method="exact")


def test_a_run_has_every_metric_at_the_mean_for_a_new_run_and_its_spread() -> None:
    tree = _exact(_folds(), 3)
    post = tree["posterior"]
    for name in ("acc", "f1_macro", "ppv_micro", "bm_weighted"):
        assert post[name].dims == ("chain", "draw", "fold")
        for suffix in ("mean", "new", "sd"):
            assert post[f"{name}_{suffix}"].dims == ("chain", "draw")
    assert post["f1_mean"].dims == ("chain", "draw", "class")
    assert "f1_sd" not in post  # a per-class metric has no scalar spread
    # fold 1 alone: acc = sum_k p_k r_kk with independent Dirichlets, so E[acc] is exact
    n = np.array(FOLDS[0], dtype=float)
    p, r = (1 + n.sum(axis=1)) / (3 + n.sum()), (1 + np.diag(n)) / (3 + n.sum(axis=1))
    assert float(post["acc"].sel(fold="fold1").mean()) == pytest.approx(p @ r, abs=0.002)
    total = np.array(FOLDS, dtype=float).sum(axis=0)
    p, r = (1 + total.sum(axis=1)) / (3 + total.sum()), (1 + np.diag(total)) / (3 + total.sum(1))
    assert float(post["acc_mean"].mean()) == pytest.approx(p @ r, abs=0.001)
    summary = bcm.summary(tree, var_names=["acc", "acc_mean"])
    assert len(summary) == len(FOLDS) + 1


def test_compare_runs_subtracts_fold_by_fold() -> None:
    a, b = _exact(_folds(shift=40), 4), _exact(_folds(), 5)
    table = compare_runs(a, b, metric="acc")
    assert list(table.index) == [*(f"fold{i}" for i in range(1, 5)), "mean over folds",
                                 "population mean run"]
    post_a, post_b = a["posterior"]["acc"], b["posterior"]["acc"]
    diff = (post_a - post_b).mean(("chain", "draw"))
    np.testing.assert_allclose(table["mean"].iloc[:4], diff.values, atol=1e-12)
    assert table.loc["mean over folds", "mean"] == pytest.approx(float(diff.mean()), abs=1e-12)
    assert (table["p_a_better"] > 0.95).all()
    lower = compare_runs(a, b, metric="err")  # lower is better: the same events
    np.testing.assert_allclose(lower["p_a_better"], table["p_a_better"], atol=1e-12)
    assert (table["hdi_low"] < table["mean"]).all() and (table["mean"] < table["hdi_high"]).all()


def test_compare_runs_refuses_what_it_cannot_pair() -> None:
    a = _exact(_folds(), 6)
    other = dict(_folds())
    other["fold9"] = other.pop("fold4")
    with pytest.raises(ValueError, match="different folds"):
        compare_runs(a, _exact(other, 7), metric="acc")
    with pytest.raises(ValueError, match=r"besides the runs.*f1_macro"):
        compare_runs(a, _exact(_folds(), 8), metric="f1")
    single = bcm.fit(_folds()["fold1"], draws=100, random_seed=0)
    with pytest.raises(ValueError, match="compares pooled fits of runs"):
        compare_runs(single, a, metric="acc")
    with pytest.raises(TypeError, match="unknown keyword"):
        compare_runs(a, a, metric="acc", hdi=0.9)


def test_spec_takes_multiclass_runs_and_their_priors() -> None:
    from bayescm.io.spec_hierarchical import parse_pooled_priors
    from bayescm.io.spec_parse import SpecError

    options = {"model": "hierarchical", "group": "fold"}
    got = parse_pooled_priors({"spread": {"dist": "HalfNormal", "sigma": 0.1}}, options, None,
                              _folds())
    assert repr(got["priors"]["spread"]) == "HalfNormal(sigma=0.1)"
    with pytest.raises(SpecError, match="sd_logit_tpr"):
        parse_pooled_priors({"sd_logit_tpr": {"dist": "HalfNormal", "sigma": 1}}, options,
                            None, _folds())


@pytest.mark.slow
def test_multiclass_runs_fit_with_nuts() -> None:
    tree = MulticlassHierarchicalModel.example()
    post = tree["posterior"]
    assert post["acc"].dims == ("chain", "draw", "fold")
    observed = tree["observed_metrics"]["acc"].values
    # partial pooling: every fold's mean lies between its own accuracy and the pooled one
    pooled = float(post["acc_mean"].mean())
    means = post["acc"].mean(("chain", "draw")).values
    assert np.all((means - observed) * (pooled - observed) >= -1e-3)
    assert 0 < float(post["acc_sd"].mean()) < 0.05
    assert float(post["acc_new"].std()) > float(post["acc_mean"].std())


@pytest.mark.slow
def test_binary_runs_spread_matches_quadrature() -> None:
    tree = HierarchicalModel.example()
    post = tree["posterior"]
    mu = post["mu_logit_tpr"].values.reshape(-1)
    sd = post["sd_logit_tpr"].values.reshape(-1)
    x, w = np.polynomial.hermite_e.hermegauss(60)
    w = w / w.sum()
    p = 1 / (1 + np.exp(-(mu[:, None] + sd[:, None] * x)))
    m = p @ w
    want = np.sqrt(np.clip((p**2) @ w - m**2, 0, None))
    got = post["tpr_sd"].values.reshape(-1)
    # 100 new runs per draw: the sample SD scatters by about want / sqrt(200) around it
    assert abs(got.mean() - want.mean()) < 3 * want.mean() / np.sqrt(200 * 10)
    for name in ("acc", "f1", "mcc"):
        assert {f"{name}_mean", f"{name}_new", f"{name}_sd"} <= set(post.data_vars)


def test_compare_runs_refuses_one_fit_twice() -> None:
    a = _exact(_folds(), 6)
    with pytest.raises(ValueError, match="same fit twice"):  # every difference 0 before
        compare_runs(a, a, metric="acc")
