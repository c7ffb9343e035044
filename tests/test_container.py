"""The container's fast paths build exactly what xarray's public constructors build."""

from __future__ import annotations

import pickle

import numpy as np
import pytest
import xarray as xr

import bayescm as bcm
from bayescm.core import container as box


def _fits() -> dict[str, xr.DataTree]:
    binary = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    multi = bcm.ConfusionMatrix([[20, 3, 1], [2, 15, 4], [0, 1, 30]], labels=["a", "b", "c"])
    return {
        "binary": bcm.fit(binary, draws=200, random_seed=1),
        "multiclass": bcm.fit(multi, draws=200, random_seed=1),
        "batch": bcm.fit({"x": binary, "y": bcm.ConfusionMatrix.from_counts(tp=5, fn=3, tn=9,
                                                                            fp=1)},
                         draws=200, random_seed=1),
        "fixed prevalence": bcm.fit(binary, draws=200, random_seed=1,
                                    priors={"prevalence": bcm.Fixed(0.75)}),
    }


@pytest.mark.parametrize("case", list(_fits()))
def test_tree_equals_xarrays_own_constructors(case: str) -> None:
    tree = _fits()[case]
    groups = {name: tree[name].to_dataset() for name in tree.children}
    public = xr.DataTree.from_dict({f"/{name}": ds for name, ds in groups.items()})
    public.attrs.update(tree.attrs)
    assert tree.identical(public)
    for name, ds in groups.items():
        # every group equals the Dataset xarray's merge builds from the same variables
        rebuilt = xr.Dataset({k: ds.variables[k] for k in ds.data_vars},
                             coords=ds.coords, attrs=ds.attrs)
        assert ds.identical(rebuilt), name
        assert tree[name].path == f"/{name}" and tree[name].parent is tree
    # the tree works as any other: selection, copies, pickling, a round trip to netCDF
    assert pickle.loads(pickle.dumps(tree)).identical(tree)
    assert tree.copy(deep=True).identical(tree)


def test_make_dataset_checks_sizes_and_keeps_only_used_coordinates() -> None:
    coords = {"chain": np.arange(2), "draw": np.arange(3), "classifier": ["a", "b"]}
    ds = box.make_dataset({"x": (("chain", "draw"), np.zeros((2, 3)), {})}, coords)
    assert list(ds.coords) == ["chain", "draw"]
    with pytest.raises(ValueError, match=r"conflicting sizes|size"):
        box.make_dataset({"x": (("chain", "draw"), np.zeros((2, 3)), {}),
                          "y": (("chain",), np.zeros(5), {})}, coords)


def test_make_tree_rejects_bad_group_names() -> None:
    with pytest.raises(ValueError, match="group name"):
        box.make_tree({"a/b": xr.Dataset()}, {})


def test_two_results_never_share_coordinate_arrays() -> None:
    cm = bcm.ConfusionMatrix.from_counts(tp=5, fn=1, tn=4, fp=2)
    tree = bcm.fit(cm, draws=50, random_seed=0)
    other = bcm.fit(cm, draws=50, random_seed=1)
    for group in ("posterior", "observed_data"):
        for name in tree[group].coords:
            assert not np.shares_memory(tree[group][name].values, other[group][name].values)
    tree["posterior"] = tree["posterior"].to_dataset().assign_coords(draw=np.arange(50) + 100)
    assert int(other["posterior"]["draw"][0]) == 0
