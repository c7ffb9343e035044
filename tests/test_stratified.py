"""Stratified audits (issue 30.4): a population's metrics from items labelled within strata.

Checked against closed forms (the super-population's PPV is one stratum's Beta posterior), the
finite population (a fully labelled population has no uncertainty left), the design-weighted
plug-in, and by simulation: the 95 % intervals of a simulated population's TPR and prevalence
cover them, where treating the labelled items as a random sample misses by far.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

import bayescm as bcm
from bayescm.models.stratified_fit import population_draws, weighted_counts


def _audit(tp=150, fp=50, fn=3, tn=297, flagged=3_000, unflagged=997_000):
    return bcm.StratifiedSample(
        {"flagged": bcm.ConfusionMatrix.from_counts(tp=tp, fn=0, fp=fp, tn=0),
         "unflagged": bcm.ConfusionMatrix.from_counts(tp=0, fn=fn, fp=0, tn=tn)},
        {"flagged": flagged, "unflagged": unflagged})


@pytest.mark.filterwarnings("ignore::bayescm.errors.EmptyMatrixWarning")
def test_bad_audits_get_named_errors() -> None:
    cm = bcm.ConfusionMatrix.from_counts(tp=5, fn=0, fp=5, tn=0)
    with pytest.raises(ValueError, match="'b' has labelled counts but no size"):
        bcm.StratifiedSample({"a": cm, "b": cm}, {"a": 100})
    with pytest.raises(ValueError, match="names the stratum 'c', which has no counts"):
        bcm.StratifiedSample({"a": cm}, {"a": 100, "c": 5})
    with pytest.raises(ValueError, match="smaller than the 10 items labelled"):
        bcm.StratifiedSample({"a": cm}, {"a": 9})
    with pytest.raises(ValueError, match="whole number"):
        bcm.StratifiedSample({"a": cm}, {"a": 10.5})
    with pytest.raises(TypeError, match="whole number"):
        bcm.StratifiedSample({"a": cm}, {"a": "100"})
    with pytest.raises(ValueError, match="at least one item"):
        bcm.StratifiedSample({"a": bcm.ConfusionMatrix.from_counts(tp=0, fn=0, fp=0, tn=0)},
                             {"a": 0})
    with pytest.raises(TypeError, match="ConfusionMatrix"):
        bcm.StratifiedSample({"a": [[1, 2], [3, 4]]}, {"a": 10})
    with pytest.raises(TypeError, match="unknown keyword"):
        bcm.StratifiedSample({"a": cm}, {"a": 10}, size={"a": 10})
    with pytest.warns(UserWarning, match="'b' has no labelled items"):
        bcm.StratifiedSample({"a": cm, "b": bcm.ConfusionMatrix.from_counts(tp=0, fn=0, fp=0,
                                                                            tn=0)},
                             {"a": 100, "b": 50})
    with pytest.raises(TypeError, match="unknown options"):
        bcm.fit(_audit(), finit=False)
    with pytest.raises(ValueError, match="drawn exactly"):
        bcm.fit(_audit(), method="nuts")


def test_strata_by_prediction_hold_only_their_prediction() -> None:
    audit = _audit()
    assert audit.by_prediction
    assert audit.possible()[0].tolist() == [[True, False], [True, False]]
    assert audit.possible()[1].tolist() == [[False, True], [False, True]]
    general = bcm.StratifiedSample(
        {"north": bcm.ConfusionMatrix.from_counts(tp=5, fn=1, fp=2, tn=20),
         "south": bcm.ConfusionMatrix.from_counts(tp=3, fn=2, fp=1, tn=30)},
        {"north": 500, "south": 900})
    assert not general.by_prediction and general.possible().all()
    idata = bcm.fit(audit, draws=500, random_seed=0)
    cells = idata["posterior"]["cells"]
    assert float(cells.sel(stratum="flagged", pred_class="negative").max()) == 0.0


def test_super_population_ppv_is_the_flagged_strata_beta() -> None:
    idata = bcm.fit(_audit(), finite=False, draws=5_000, chains=2, random_seed=1)
    post = idata["posterior"]
    a, b = 1 + 150, 1 + 50  # the default: one per possible cell
    ppv = post["ppv"].values.reshape(-1)
    assert ppv.mean() == pytest.approx(a / (a + b), abs=4 * np.sqrt(a * b / (a + b) ** 3 / 10_000))
    w = np.array([3_000, 997_000]) / 1e6
    prev = w[0] * a / (a + b) + w[1] * 4 / 302
    assert float(post["prevalence"].mean()) == pytest.approx(prev, rel=0.01)
    assert idata.attrs["population"] == "super-population"


def test_a_fully_labelled_population_is_known_exactly() -> None:
    audit = _audit(flagged=200, unflagged=300)
    idata = bcm.fit(audit, draws=300, random_seed=2)
    post, obs = idata["posterior"], idata["observed_metrics"]
    for name in ("tpr", "prevalence", "acc", "f1"):
        assert float(post[name].std()) < 1e-12
        assert float(post[name][0, 0]) == pytest.approx(float(obs[name]))
    assert float(obs["tpr"]) == pytest.approx(150 / 153)


def test_observed_values_are_design_weighted() -> None:
    idata = bcm.fit(_audit(), draws=200, random_seed=3)
    pop = weighted_counts(_audit().counts, _audit().sizes)
    assert pop.sum() == pytest.approx(1e6)
    obs = idata["observed_metrics"]
    assert float(obs["tpr"]) == pytest.approx(pop[0, 0] / pop[0].sum())
    assert float(obs["prevalence"]) == pytest.approx(pop[0].sum() / 1e6)
    assert float(obs["ppv"]) == pytest.approx(0.75)


def test_population_draws_add_the_unlabelled_items() -> None:
    rng = np.random.default_rng(4)
    cells = np.broadcast_to(np.array([[[0.3, 0.0], [0.7, 0.0]], [[0.0, 0.1], [0.0, 0.9]]]),
                            (5000, 2, 2, 2))
    counts = np.array([[[3, 0], [7, 0]], [[0, 1], [0, 9]]])
    theta = population_draws(rng, cells, counts, np.array([110, 1010]))
    assert np.allclose(theta.sum(axis=(-2, -1)), 1.0)
    # E[TP] = 3 + 0.3 * 100; E[FN] = 1 + 0.1 * 1000
    assert theta[:, 0, 0].mean() * 1120 == pytest.approx(33, abs=0.2)
    assert theta[:, 0, 1].mean() * 1120 == pytest.approx(101, abs=0.5)


def test_multiclass_audit() -> None:
    labels = ["a", "b", "c"]
    strata = {}
    for j, lab in enumerate(labels):
        m = np.zeros((3, 3), dtype=int)
        m[:, j] = [10, 5, 5] if j == 0 else ([2, 30, 8] if j == 1 else [1, 1, 38])
        strata[lab] = bcm.ConfusionMatrix(m, labels=labels)
    audit = bcm.StratifiedSample(strata, {"a": 1000, "b": 5000, "c": 20000})
    idata = bcm.fit(audit, draws=1000, random_seed=5)
    post = idata["posterior"]
    assert {"acc", "f1_macro", "tpr"} <= set(post.data_vars)
    assert post["tpr"].dims == ("chain", "draw", "class")
    # E[acc] = (labelled correct + each stratum's unlabelled items x E[its correct share]) / N,
    # the share's posterior mean from the Dirichlet over the stratum's column (1 per cell)
    counts, sizes = audit.counts, audit.sizes
    n = counts.sum(axis=(1, 2))
    share = (np.array([counts[j, j, j] for j in range(3)]) + 1) / (n + 3)
    want = (sum(counts[j, j, j] for j in range(3)) + ((sizes - n) * share).sum()) / sizes.sum()
    assert float(post["acc"].mean()) == pytest.approx(want, abs=0.004)
    table = bcm.summary(idata, var_names=["acc", "f1_macro"])
    assert list(table.index) == ["acc", "f1_macro"]


@pytest.mark.slow
def test_intervals_cover_a_simulated_population() -> None:
    """200 audits of one simulated population: TPR and prevalence intervals cover ~95 %.

    The study is ``benchmarks/exact_coverage.py``'s (its table holds the counts the audits
    page quotes: 186 and 195 of 200, seed 6).
    """
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from exact_coverage import audit_coverage

    reps = 200
    hits = audit_coverage(reps, seed=6)
    se = np.sqrt(0.95 * 0.05 / reps)
    print(f"coverage over {reps} audits: {hits}")
    for name in ("tpr", "prevalence"):
        assert 0.95 - 3.5 * se <= hits[name] / reps <= 0.97 + 3.5 * se, hits
    assert hits["naive_prevalence"] == 0, hits
