"""``idata.bcm``: every accessor method gives what the plain function gives."""

from __future__ import annotations

import subprocess
import sys

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

import bayescm as bcm
from bayescm import plots
from bayescm.io.datasets import literature_matrices

COCAINE = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@pytest.fixture(scope="module")
def fit():
    return bcm.fit(COCAINE, draws=500, random_seed=1)


@pytest.fixture(scope="module")
def batch():
    mats = literature_matrices()
    return bcm.fit({k: mats[k] for k in ("5b", "7a", "8")}, metrics=["bm", "acc"], draws=500,
                   random_seed=2)


def test_tables_and_probabilities(fit, batch):
    assert fit.bcm.summary().equals(bcm.summary(fit))
    assert fit.bcm.summary(var_names=["tpr"], hdi_prob=0.8).equals(
        bcm.summary(fit, var_names=["tpr"], hdi_prob=0.8))
    assert fit.bcm.probability("bm", upper=0.0) == bcm.probability(fit, "bm", upper=0.0)
    assert fit.bcm.informedness(rope=0.05).equals(bcm.informedness(fit, rope=0.05))
    assert batch.bcm.prob_superior("7a", "8", metric="bm") == bcm.prob_superior(
        batch, "7a", "8", metric="bm")
    assert batch.bcm.rank_probabilities("acc").identical(bcm.rank_probabilities(batch, "acc"))


def _undated(tree):
    """The tree without its creation times, which differ when two calls straddle a second."""
    out = tree.copy()
    for node in out.subtree:
        node.attrs.pop("created_at", None)
        for name in list(node.data_vars) + list(node.coords):
            node[name].attrs.pop("created_at", None)
    return out


def test_derived_trees(fit):
    assert _undated(fit.bcm.with_prevalence(0.1, random_seed=3)).identical(
        _undated(bcm.with_prevalence(fit, 0.1, random_seed=3)))
    assert _undated(fit.bcm.posterior_predictive(50, random_seed=3)).identical(
        _undated(bcm.posterior_predictive(fit, 50, random_seed=3)))


# slow: writes and reads back netCDF files of several trees; the slow run (CI) checks it
@pytest.mark.slow
def test_save(fit, tmp_path):
    path = fit.bcm.save(tmp_path / "a.nc")
    bcm.save(fit, tmp_path / "b.nc")
    assert bcm.load(path).identical(bcm.load(tmp_path / "b.nc"))


def _lines(ax):
    return [(ln.get_gid(), np.asarray(ln.get_xdata(), dtype=float).tolist())
            for ln in ax.get_lines()]


def test_plots(fit, batch):
    a, b = fit.bcm.plot_metric("tpr", prior=True), plots.plot_metric(fit, "tpr", prior=True)
    assert _lines(a) == _lines(b) and a.get_title() == b.get_title()
    fa, fb = fit.bcm.plot_metrics(["tpr", "bm"]), plots.plot_metrics(fit, ["tpr", "bm"])
    assert [ax.get_title() for ax in fa.axes] == [ax.get_title() for ax in fb.axes]
    assert [_lines(x) for x in fa.axes] == [_lines(x) for x in fb.axes]
    a, b = batch.bcm.plot_forest("bm"), plots.plot_forest(batch, "bm")
    assert _lines(a) == _lines(b)
    assert [t.get_text() for t in a.get_yticklabels()] == [
        t.get_text() for t in b.get_yticklabels()]
    a, b = fit.bcm.plot_theta(), plots.plot_theta(fit)
    assert [t.get_text() for t in a.texts] == [t.get_text() for t in b.texts]
    fa, fb = fit.bcm.plot_priors(["tpr", "bm"]), plots.plot_priors(fit, ["tpr", "bm"])
    assert [_lines(x) for x in fa.axes] == [_lines(x) for x in fb.axes]


def test_errors_are_the_functions_errors(fit):
    with pytest.raises(TypeError, match="valid keywords"):
        fit.bcm.summary(hdi_porb=0.9)
    with pytest.raises(KeyError, match="not a known metric"):
        fit.bcm.plot_metric("auc")


def test_registered_on_import_without_matplotlib():
    code = ("import sys, xarray as xr, bayescm\n"
            "assert hasattr(xr.DataTree(), 'bcm')\n"
            "assert 'matplotlib' not in sys.modules, 'import bayescm imported matplotlib'\n")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_methods_have_the_functions_signatures_and_the_file_is_current():
    """Each method takes what its function takes after the tree; the file is what
    scripts/make_accessor.py writes from the functions today (rerun it after a change)."""
    import importlib.util
    import inspect
    from pathlib import Path

    from bayescm.accessor import BayescmAccessor

    root = Path(__file__).resolve().parents[1]
    spec = importlib.util.spec_from_file_location("make_accessor",
                                                  root / "scripts" / "make_accessor.py")
    assert spec is not None and spec.loader is not None
    maker = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(maker)
    for name, (module, _) in maker.METHODS.items():
        func = inspect.unwrap(getattr(importlib.import_module(module), name))
        want = list(inspect.signature(func).parameters.values())[1:]
        got = list(inspect.signature(getattr(BayescmAccessor, name)).parameters.values())[1:]
        assert [(p.name, p.kind, p.default) for p in got] == \
            [(p.name, p.kind, p.default) for p in want], name
    public = {n for n in dir(BayescmAccessor) if not n.startswith("_")}
    assert public == set(maker.METHODS)
    for path, text in maker.rendered().items():
        assert path.read_text(encoding="utf-8") == text, (
            f"{path.name} is out of date: run .venv/bin/python scripts/make_accessor.py")
