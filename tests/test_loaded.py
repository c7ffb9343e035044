"""Loaded or edited result trees are checked: a named error, never a raw one later on."""

from __future__ import annotations

import pytest

import bayescm as bcm

COCAINE = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
TAMPERED = [
    ("model", "nonsense", "'model' is 'nonsense'"),
    ("model", None, "'model' is missing"),
    ("labels", "[1, 2", "'labels' is not valid JSON"),
    ("labels", '["only"]', "'labels' should be 2 or more"),
    ("labels", '["x", "y"]', "counts' classes"),
    ("labels", '{"a": 1}', "'labels' should hold a list"),
    ("priors", "[]", "'priors' should hold a mapping"),
    ("priors", "{", "'priors' is not valid JSON"),
    ("metrics", '"tpr"', "'metrics' should hold a list"),
    ("metrics", "[1, 2]", "'metrics' should list metric names"),
    ("hdi_prob", 1.5, "'hdi_prob' should be a probability"),
    ("draws", 7, "'draws' says 7"),
    ("chains", -1, "'chains' should be a positive integer"),
    ("positive", "negative", "'positive' is 'negative'"),
]


@pytest.fixture(scope="module")
def saved(tmp_path_factory):
    return bcm.fit(COCAINE, metrics=["bm"], draws=60, random_seed=0)


@pytest.mark.parametrize(("attr", "value", "match"), TAMPERED,
                         ids=[f"{a}={v!r}" for a, v, _ in TAMPERED])
def test_tampered_files_are_refused_by_name(saved, tmp_path, attr, value, match):
    tree = saved.copy(deep=True)
    if value is None:
        del tree.attrs[attr]
    else:
        tree.attrs[attr] = value
    path = tmp_path / "fit.nc"
    tree.to_netcdf(path, engine="h5netcdf")  # not bcm.save, which refuses to write it
    with pytest.raises(ValueError, match=match):
        bcm.load(path)
    for reader in (bcm.summary, bcm.informedness,
                   lambda t: bcm.probability(t, "bm", upper=0.0),
                   lambda t: bcm.with_prevalence(t, 0.1),
                   lambda t: bcm.posterior_predictive(t),
                   lambda t: bcm.save(t, tmp_path / "again.nc")):
        with pytest.raises(ValueError, match=match):
            reader(tree)


def test_missing_groups_and_foreign_trees(saved):
    import xarray as xr

    foreign = xr.DataTree.from_dict({"/posterior": xr.Dataset({"x": ("chain", [1.0])})})
    foreign.attrs["model"] = "binary"
    with pytest.raises(ValueError, match="no 'draw' dim"):
        bcm.summary(foreign)
    empty = xr.DataTree()
    empty.attrs["model"] = "binary"
    with pytest.raises(ValueError, match="neither a 'posterior' nor a 'prior'"):
        bcm.summary(empty)
    with pytest.raises(TypeError, match="result tree"):
        bcm.summary({"posterior": 1})


def test_analyses_name_the_kind_they_need():
    paired = bcm.compare_paired([1, 0, 1, 1, 0], [1, 0, 0, 1, 0], [1, 1, 1, 1, 0], positive=1,
                                draws=50, random_seed=0)
    with pytest.raises(ValueError, match=r"needs a binary, hierarchical or multiclass fit.*"
                                         r"paired comparison"):
        bcm.with_prevalence(paired, 0.1)
    with pytest.raises(ValueError, match="paired comparison"):
        bcm.posterior_predictive(paired)


def test_sensitivity_results_are_supported_or_refused_by_name():
    tree = bcm.analyses.prior_sensitivity(COCAINE, ["laplace", "jeffreys"], draws=100,
                                          random_seed=0)
    assert "tpr[jeffreys]" in bcm.summary(tree).index
    assert set(bcm.informedness(tree).index) == {"laplace", "jeffreys"}
    for call in (lambda t: bcm.with_prevalence(t, 0.1), bcm.posterior_predictive):
        with pytest.raises(ValueError, match="prior_sensitivity result"):
            call(tree)
    with pytest.raises(ValueError, match="prior_choice"):
        bcm.prob_superior(tree, tree, metric="tpr")
