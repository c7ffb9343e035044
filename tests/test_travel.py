"""Objects travel (copy, deep copy, pickle, other processes) and results own their arrays."""

from __future__ import annotations

import copy
import pickle
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest

import bayescm as bcm
from bayescm.io.spec import load_spec
from bayescm.metrics.binary import BINARY_METRICS, fbeta
from bayescm.metrics.multiclass import MULTICLASS_METRICS
from bayescm.priors.dirichlet import PresetDirichlet
from bayescm.priors.rates_by_class import RatesByClass

MODELS = Path(__file__).resolve().parents[1] / "models"
COCAINE = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)


def j_index(tp, fn, fp, tn):
    """A custom metric defined at module level (so it pickles)."""
    return tp / (tp + fn) + tn / (tn + fp) - 1


OBJECTS = {
    "binary matrix": COCAINE,
    "multiclass matrix": bcm.ConfusionMatrix([[5, 1, 0], [2, 6, 1], [0, 1, 4]],
                                             labels=["a", "b", "c"], ordered=True),
    "empty matrix": bcm.ConfusionMatrix.__new__(bcm.ConfusionMatrix) if False else None,
    "beta": bcm.Beta(2, 3), "laplace": bcm.priors.Laplace(), "jeffreys": bcm.priors.Jeffreys(),
    "haldane": bcm.priors.Haldane(), "fixed": bcm.Fixed(0.3), "fixed vector": bcm.Fixed([0.2, 0.8]),
    "dirichlet": bcm.Dirichlet([1, 2, 3]), "preset dirichlet": PresetDirichlet("jeffreys", 0.5),
    "rates by class": RatesByClass([[1, 2], [3, 4]], ["a", "b"]),
    "built-in metric": BINARY_METRICS["mcc"], "multiclass metric": MULTICLASS_METRICS["f1_macro"],
    "f-beta metric": fbeta(3), "custom metric": bcm.metrics.Metric("j_index", j_index),
    "scores": bcm.Scores([1, 0, 1], {"A": [0.9, 0.2, 0.4]}),
}
OBJECTS = {k: v for k, v in OBJECTS.items() if v is not None}


@pytest.mark.parametrize("name", list(OBJECTS))
def test_objects_copy_and_pickle_to_equal_objects(name):
    obj = OBJECTS[name]
    for clone in (copy.copy(obj), copy.deepcopy(obj), pickle.loads(pickle.dumps(obj))):
        assert clone == obj
        assert type(clone) is type(obj)


def test_matrix_state_survives_pickling():
    cm = bcm.ConfusionMatrix([[3, 1], [2, 5]], labels=["a", "b"], positive="b")
    again = pickle.loads(pickle.dumps(cm))
    assert again.labels == ("b", "a") and again.positive == "b" and again.cells == cm.cells
    assert not again.counts.flags.writeable
    with pytest.raises(AttributeError, match="immutable"):
        again.foo = 1


def test_lambda_metric_says_how_to_travel():
    with pytest.raises(TypeError, match="top level of a module"):
        pickle.dumps(bcm.metrics.Metric("x", lambda tp, fn, fp, tn: tp))


def test_specs_and_results_travel():
    spec = load_spec(MODELS / "cocaine_purity.toml")
    again = pickle.loads(pickle.dumps(spec))
    assert again == spec and copy.deepcopy(spec) == spec
    tree = bcm.fit(COCAINE, draws=100, random_seed=0)
    assert pickle.loads(pickle.dumps(tree)).identical(tree)
    assert copy.deepcopy(tree).identical(tree)


def _fit_elsewhere(job):
    cm, prior, metric, spec = job
    tree = bcm.fit(cm, priors={"tnr": prior}, metrics=[metric, "tpr"], draws=200, random_seed=1)
    spec_tree = spec.fit(draws=100)
    return float(tree["posterior"][metric.name].mean()), sorted(spec_tree["posterior"].data_vars)


@pytest.mark.filterwarnings("ignore:This process .* is multi-threaded:DeprecationWarning")
def test_objects_work_in_a_process_pool():
    spec = load_spec(MODELS / "cocaine_purity.toml")
    jobs = [(COCAINE, bcm.Beta(2, 2), BINARY_METRICS["bm"], spec),
            (COCAINE, bcm.priors.Jeffreys(), bcm.metrics.Metric("j_index", j_index), spec)]
    with ProcessPoolExecutor(2) as pool:
        results = list(pool.map(_fit_elsewhere, jobs))
    local = bcm.fit(COCAINE, priors={"tnr": bcm.Beta(2, 2)}, metrics=["bm", "tpr"], draws=200,
                    random_seed=1)
    assert results[0][0] == pytest.approx(float(local["posterior"]["bm"].mean()))
    assert results[1][0] == pytest.approx(results[1][0])
    assert "tpr" in results[0][1]


def _arrays(tree):
    for group in tree.children:
        ds = tree[group].to_dataset()
        for name, var in ds.variables.items():
            yield f"{group}/{name}", var.values


def _assert_owns(out, inp):
    for path_out, a in _arrays(out):
        for path_in, b in _arrays(inp):
            if a.size and b.size and a.dtype != object and b.dtype != object:
                assert not np.shares_memory(a, b), (path_out, path_in)


DERIVED = {
    "with_prevalence": lambda t: bcm.with_prevalence(t, 0.1, random_seed=1),
    "with_prevalence prior": lambda t: bcm.with_prevalence(t, bcm.Beta(2, 20), random_seed=1),
    "posterior_predictive": lambda t: bcm.posterior_predictive(t, random_seed=1),
}


@pytest.mark.parametrize("name", list(DERIVED))
@pytest.mark.parametrize("batch", [False, True])
def test_derived_trees_own_their_arrays(name, batch):
    data = {"a": COCAINE, "b": bcm.ConfusionMatrix.from_counts(tp=5, fn=3, tn=6, fp=2)} \
        if batch else COCAINE
    tree = bcm.fit(data, priors={"prevalence": bcm.Fixed(0.5) if not batch else None}, draws=100,
                   random_seed=0)
    before = tree.copy(deep=True)
    out = DERIVED[name](tree)
    _assert_owns(out, tree)
    # write into every array of the result: the input does not change
    for group in out.children:
        for var in out[group].to_dataset().data_vars.values():
            if var.dtype.kind == "f":
                var.values[...] = -7.0
            elif var.dtype.kind in "iu":
                var.values[...] = 7
    assert tree.identical(before)
