"""The model contract, checked on every registered kind (issue 12, point 1).

Each kind's ``example()`` result must carry its registry key, survive save/load, summarise, keep
observed values and diagnostics for its posterior variables, and refuse the analyses it does
not declare with a ValueError that names the kind.
"""

import re

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import bayescm as bcm
from bayescm.models import registry
from bayescm.models.base import ANALYSES, ModelKind, Parameter

SECONDS = {"paired", "multiclass", "scores"}
"""Kinds whose example takes seconds to build and summarise (a K^3 joint posterior, every
multiclass metric, whole curves): checked with the slow run, like the kinds sampled with NUTS,
so the default run stays under two minutes."""


def _package_kinds() -> list[str]:
    """The kinds bayescm registers; not those a test module registers for itself (such as
    tests/test_runs.py's exact stand-in), which collection may or may not have imported yet."""
    return [key for key in registry.keys()  # noqa: SIM118 (a function)
            if registry.get(key).__module__.startswith("bayescm.")]


def _kinds() -> list:
    return [pytest.param(key, marks=pytest.mark.slow)
            if not registry.get(key).has_exact or key in SECONDS
            else key for key in _package_kinds()]


@pytest.fixture(scope="module")
def examples() -> dict[str, xr.DataTree]:
    return {}


def _example(examples: dict, key: str) -> xr.DataTree:
    if key not in examples:
        examples[key] = registry.get(key).example(random_seed=3)
    return examples[key]


def test_the_built_in_kinds_are_registered() -> None:
    assert {"binary", "multiclass", "paired", "hierarchical", "scores"} <= set(registry.keys())


@pytest.mark.parametrize("key", _package_kinds())
def test_declarations(key: str) -> None:
    cls = registry.get(key)
    assert issubclass(cls, ModelKind) and cls.key == key
    assert all(isinstance(p, Parameter) for p in cls.parameters)
    assert set(cls.analyses) <= set(ANALYSES) and "summary" in cls.analyses
    assert cls.description, "messages name the kind by its description"
    for p in cls.parameters:
        assert p.family in (None, "beta", "dirichlet")
        assert p.long_name and isinstance(p.dims, tuple)


@pytest.mark.parametrize("key", _kinds())
def test_example_meets_the_contract(key: str, examples: dict, tmp_path) -> None:
    tree = _example(examples, key)
    cls = registry.get(key)
    assert tree.attrs["model"] == key
    kind = registry.kind_of(tree)
    assert isinstance(kind, cls)
    post = tree["posterior"].to_dataset()
    assert {"chain", "draw"} <= set(post.dims)
    for p in cls.parameters:  # every declared parameter is in the posterior (or fixed)
        fixed = tree["constant_data"].to_dataset() if "constant_data" in tree.children else {}
        assert p.name in post or p.name in fixed or (key == "paired" and p.name == "cells")
    # observed values: only variables the posterior has, at least one
    observed = tree["observed_metrics"].to_dataset()
    assert set(observed.data_vars) and set(observed.data_vars) <= set(post.data_vars)
    # diagnostics: R-hat and ESS for variables of the posterior, finite where draws are
    diag = tree["diagnostics"].to_dataset()
    assert set(diag.data_vars) <= set(post.data_vars) and len(diag.data_vars) > 0
    assert str(diag["diagnostic"].values[0]) == "r_hat"
    # the prior group, where there is one, has the posterior's layout
    if "prior" in tree.children:
        prior = tree["prior"].to_dataset()
        assert set(prior.data_vars) <= set(post.data_vars)
        for name in prior.data_vars:
            extra = set(prior[name].dims) - set(post[name].dims)
            assert not extra, (name, extra)
    # summary of every default variable
    table = bcm.summary(tree)
    assert isinstance(table, pd.DataFrame) and len(table) > 0
    assert {"mean", "sd", "hdi_lower", "hdi_upper", "mu"} <= set(table.columns)
    # save / load round trip: the same draws, the same kind
    path = bcm.save(tree, tmp_path / f"{key}.nc", compact=False)
    back = bcm.load(path)
    assert back.attrs["model"] == key and isinstance(registry.kind_of(back), cls)
    for name in post.data_vars:
        np.testing.assert_array_equal(back["posterior"][name].values, post[name].values)
    pd.testing.assert_frame_equal(bcm.summary(back), table)


@pytest.mark.parametrize("key", _kinds())
def test_analyses_a_kind_does_not_declare_name_it(key: str, examples: dict) -> None:
    cls = registry.get(key)
    tree = _example(examples, key)
    calls = {
        "with_prevalence": lambda: bcm.with_prevalence(tree, 0.3),
        "posterior_predictive": lambda: bcm.posterior_predictive(tree, random_seed=0),
        "refit": lambda: bcm.refit(tree, draws=10),
    }
    for analysis, call in calls.items():
        if analysis in cls.analyses:
            continue
        with pytest.raises(ValueError, match=rf"{analysis} needs a .* fit; this is "
                                             rf"{re.escape(cls.description)}"):
            call()


def test_paired_results_are_refused_by_single_fit_analyses_with_a_remedy() -> None:
    paired = registry.get("paired").example(random_seed=0)
    with pytest.raises(ValueError, match=r"with_prevalence needs a binary.*multiclass.* fit; "
                                         r"this is a paired comparison"):
        bcm.with_prevalence(paired, 0.2)


def test_unknown_model_names_the_registered_ones() -> None:
    cm = bcm.ConfusionMatrix.from_counts(tp=3, fn=1, tn=4, fp=2)
    with pytest.raises(ValueError, match=r"registered models: .*binary"):
        bcm.fit(cm, model="nonsense")


def test_register_refuses_a_taken_key_and_malformed_tables() -> None:
    class Clash(ModelKind):
        key = "binary"

    with pytest.raises(ValueError, match="taken"):
        registry.register(Clash)

    class Bad(ModelKind):
        key = "bad_table"
        parameters = ("tpr",)  # type: ignore[assignment]

    with pytest.raises(ValueError, match="Parameter"):
        registry.register(Bad)
    assert "bad_table" not in registry.keys()  # noqa: SIM118 (a function)


def test_loaded_tree_is_refitted_without_the_original_objects(tmp_path) -> None:
    cm = bcm.ConfusionMatrix([[30, 4, 1], [3, 25, 5], [0, 4, 28]], labels=["a", "b", "c"],
                             ordered=True)
    idata = bcm.fit(cm, prior="jeffreys", metrics=["acc", "kappa_quadratic"], draws=300,
                    random_seed=5)
    back = bcm.load(bcm.save(idata, tmp_path / "fit.nc", compact=False))
    again = bcm.refit(back)
    np.testing.assert_array_equal(again["posterior"]["acc"].values,
                                  idata["posterior"]["acc"].values)
    assert again.attrs["priors"] == idata.attrs["priors"]
    longer = bcm.refit(back, draws=600, random_seed=1)
    assert longer["posterior"].sizes["draw"] == 600 and "kappa_quadratic" in longer["posterior"]
