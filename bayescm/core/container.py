"""Every access to the result container lives here, so a container change touches one file.

Results are ``xarray.DataTree`` objects that follow ArviZ's InferenceData schema: one child node
per group (``posterior``, ``prior``, ``observed_data``, ...), each holding a Dataset.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from bayescm._version import __version__
from bayescm.core.arguments import keyword_checked
from bayescm.core.lazy import (  # _ComputedData: pickles written before the move name it here
    _ComputedData,  # noqa: F401
    )

__all__ = ["SAMPLE_DIMS", "check_tree", "copy_group", "get_group", "has_group", "json_attr",
           "load", "make_dataset", "make_tree", "read_json_attr", "root_attrs", "save",
           "set_group"]

SAMPLE_DIMS = ("chain", "draw")

Variables = Mapping[str, tuple[tuple[str, ...], np.ndarray, Mapping[str, Any]]]


def _provenance(sample_dims: tuple[str, ...] | None = None) -> dict[str, Any]:
    """ArviZ's standard provenance attributes (``arviz_base.make_attrs``), naming bayescm.

    ``created_at``, ``creation_library`` (bayescm) and its version and language, and the
    sample dims of a group that has them, as ArviZ writes them on every group it creates.
    """
    from arviz_base import make_attrs  # on first use: importing arviz-base costs ~80 ms

    return make_attrs({"created_at": datetime.now(UTC).isoformat(timespec="seconds"),
                       "creation_library": "bayescm",
                       "creation_library_version": __version__},
                      sample_dims=sample_dims)


def coordinates(coords: Mapping[str, Any] | xr.Coordinates) -> xr.Coordinates:
    """Coordinates with their indexes built once, for several :func:`make_dataset` calls.

    Building a dimension's pandas index for every group costs more than the group itself;
    datasets made from one :class:`xarray.Coordinates` share its indexes (within one result:
    each call builds new ones, so two results never share an array).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.container import coordinates
    >>> c = coordinates({"chain": np.arange(4), "draw": np.arange(100)})
    >>> sorted(c.sizes.items())
    [('chain', 4), ('draw', 100)]
    """
    if isinstance(coords, xr.Coordinates):
        return coords
    indexes, variables = {}, {}
    for name, values in coords.items():
        arr = np.asarray(values)
        if arr.ndim != 1 or arr.dtype.kind not in "iufUSb":  # pragma: no cover
            return xr.Coordinates(dict(coords))  # anything else: xarray's own inference
        # the index xarray would build, without its type inference (half the cost)
        index = xr.indexes.PandasIndex(pd.Index(arr), name, coord_dtype=arr.dtype)
        indexes[name] = index
        variables.update(index.create_variables())
    return xr.Coordinates(variables, indexes=indexes)


def make_dataset(variables: Variables, coords: Mapping[str, Any] | xr.Coordinates,
                 attrs: Mapping[str, Any] | None = None) -> xr.Dataset:
    """Build a Dataset from ``{name: (dims, array, attrs)}`` with provenance attributes.

    ``coords`` gives the coordinates of every dim the variables may use (a mapping, or
    :func:`coordinates` to share the indexes between datasets); those of unused dims are left
    out.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.core.container import make_dataset
    >>> ds = make_dataset({"tpr": (("chain", "draw"), np.zeros((2, 3)), {"long_name": "TPR"})},
    ...                   {"chain": np.arange(2), "draw": np.arange(3), "unused": [1, 2]})
    >>> dict(ds.sizes), list(ds.coords)
    ({'chain': 2, 'draw': 3}, ['chain', 'draw'])
    """
    used = {d for dims, _, _ in variables.values() for d in dims}
    shared = coords if isinstance(coords, xr.Coordinates) else coordinates(
        {k: v for k, v in coords.items() if k in used})  # no index built for an unused dim
    keep = [str(k) for k in shared if k in used]
    sample = SAMPLE_DIMS if set(SAMPLE_DIMS) <= used else None
    all_attrs = {**_provenance(sample), **dict(attrs or {})}
    data_vars = {name: xr.Variable(dims, arr, dict(va)) for name, (dims, arr, va) in
                 variables.items()}
    fast = _direct_dataset(data_vars, shared, keep, all_attrs)
    if fast is not None:
        return fast
    ds_coords = xr.Coordinates({k: shared.variables[k] for k in keep},  # pragma: no cover
                               indexes={k: shared.xindexes[k] for k in keep
                                        if k in shared.xindexes})
    return xr.Dataset(data_vars, coords=ds_coords, attrs=all_attrs)  # pragma: no cover


def _direct_dataset(data_vars: dict[str, xr.Variable], coords: xr.Coordinates, keep: list[str],
                    attrs: dict[str, Any]) -> xr.Dataset | None:
    """The Dataset ``xr.Dataset(data_vars, coords)`` builds, without its merge and alignment.

    Every variable of a fit is made here with dims whose coordinates come from one
    :class:`xarray.Coordinates`, so there is nothing to merge or align; xarray's own merge
    costs about 0.5 ms per group, more than the rest of a small fit's bookkeeping. The sizes
    are still checked (:func:`xarray.core.variable.calculate_dimensions` raises on a clash).
    None where xarray lacks the private constructor (the public path is then used);
    ``tests/test_container.py`` checks both give identical datasets.
    """
    construct = getattr(xr.Dataset, "_construct_direct", None)
    if construct is None or any(name in coords or name in var.dims  # pragma: no cover
                                for name, var in data_vars.items()):
        return None  # a variable that would become a coordinate: xarray decides
    from xarray.core.variable import calculate_dimensions

    variables: dict[Any, xr.Variable] = {k: coords.variables[k] for k in keep}
    variables.update(data_vars)
    dims = calculate_dimensions(variables)
    indexes = {k: coords.xindexes[k] for k in keep if k in coords.xindexes}
    return construct(variables=variables, coord_names=set(keep), dims=dims, attrs=attrs,
                     indexes=indexes)


def make_tree(groups: Mapping[str, xr.Dataset], attrs: Mapping[str, Any], *,
              owned: bool = False) -> xr.DataTree:
    """Assemble groups into a DataTree with root attributes.

    ``owned=True`` says the datasets were made for this tree (by :func:`make_dataset`) and
    nothing else holds them: the nodes then take them over instead of copying each (the
    copies cost more than the rest of a small fit's bookkeeping).

    Examples
    --------
    >>> import numpy as np, xarray as xr
    >>> from bayescm.core.container import make_tree
    >>> tree = make_tree({"posterior": xr.Dataset({"x": ("draw", np.zeros(3))})}, {"a": 1})
    >>> list(tree.children), tree["posterior"].path, tree.attrs["a"]
    (['posterior'], '/posterior', 1)
    """
    tree = xr.DataTree()
    if not _attach_children(tree, groups, owned):  # pragma: no cover - another xarray's internals
        tree = xr.DataTree.from_dict({f"/{name}": ds for name, ds in groups.items()})
    tree.attrs.update({**_provenance(), **dict(attrs)})
    return tree


def _attach_children(root: xr.DataTree, groups: Mapping[str, xr.Dataset],
                     owned: bool = False) -> bool:
    """Hang one node per group under an empty root, as ``DataTree.from_dict`` does.

    ``from_dict`` copies every node twice and checks each against the root's coordinates,
    about 2 ms for a binary fit's five groups; the root here has no coordinates (its
    attributes come after), so there is nothing to check, and each group is copied once
    (shallowly, by ``DataTree(ds)``) as in ``from_dict``. False, with the root untouched,
    where xarray's tree internals differ from those this relies on.
    """
    if not all(hasattr(root, a) for a in ("_children", "_parent", "_name")) or root.variables:
        return False  # pragma: no cover
    nodes = {}
    for name, ds in groups.items():
        if not isinstance(name, str) or not name or "/" in name:
            raise ValueError(f"A group name must be a non-empty string without '/', got "
                             f"{name!r}.")
        nodes[name] = _node(ds) if owned else xr.DataTree(ds)
    for name, node in nodes.items():
        node._name = name
        node._parent = root
        root._children[name] = node
    return True


def _node(ds: xr.Dataset) -> xr.DataTree:
    """A tree node holding ``ds`` itself (``DataTree(ds)`` holds a shallow copy of it)."""
    node = xr.DataTree()
    set_data = getattr(node, "_set_node_data", None)
    if set_data is None:  # pragma: no cover - another xarray's internals
        return xr.DataTree(ds)
    set_data(ds)
    return node


def has_group(idata: xr.DataTree, name: str) -> bool:
    """Whether ``idata`` has the group ``name``."""
    return name in idata.children


def check_tree(idata: object) -> xr.DataTree:
    """Return ``idata`` if it is a valid result tree (see :func:`bayescm.core.schema.validate`).

    A TypeError for what is not a tree, a ValueError naming a missing or malformed attribute.
    """
    from bayescm.core.schema import validate

    validate(idata)
    return idata  # type: ignore[return-value]


def get_group(idata: xr.DataTree, name: str, *, foreign: bool = False,
              checked: bool = False) -> xr.Dataset:
    """The group ``name`` as a Dataset; a clear error if the tree lacks it.

    ``foreign=True`` reads a tree bayescm did not write (PyMC's trace) without checking it as
    a bayescm result; ``checked=True`` skips the check of a tree the caller has just checked.
    """
    if not foreign and not checked:
        check_tree(idata)
    elif not isinstance(idata, xr.DataTree):
        raise TypeError(f"Expected an xarray.DataTree, got {type(idata).__name__}.")
    if name not in idata.children:
        have = ", ".join(idata.children) or "none"
        raise KeyError(f"The result has no {name!r} group (groups: {have}).")
    node = idata.children[name]
    # a result's root holds no coordinates: nothing to inherit, and not inheriting skips a merge
    return node.to_dataset(inherit=bool(idata.coords))


def copy_group(idata: xr.DataTree, name: str) -> xr.Dataset:
    """The group ``name`` as a Dataset that owns its arrays (for trees derived from ``idata``)."""
    return get_group(idata, name).copy(deep=True)


def set_group(idata: xr.DataTree, name: str, ds: xr.Dataset) -> None:
    """Add or replace a group in place (``idata.name = ...`` would silently detach a copy)."""
    idata[name] = xr.DataTree(ds)


def root_attrs(idata: xr.DataTree) -> dict[str, Any]:
    """The root attributes (method, model kind, priors, ...)."""
    return {str(k): v for k, v in idata.attrs.items()}


def json_attr(value: Any) -> str:
    """Encode a structured attribute as JSON (netCDF attributes cannot hold dicts)."""
    return json.dumps(value, sort_keys=True)


def read_json_attr_text(text: str) -> Any:
    """Decode JSON text written by :func:`json_attr`."""
    return json.loads(text)


def read_json_attr(idata: xr.DataTree, key: str) -> Any:
    """Decode a JSON root attribute written by :func:`json_attr`."""
    return json.loads(idata.attrs[key])


@keyword_checked
def save(idata: xr.DataTree, path: str | os.PathLike[str], *, compact: bool = True) -> Path:
    """Write a result tree to netCDF (via a temporary file, so an open file can be replaced).

    Parameters
    ----------
    idata : xarray.DataTree
        A result of bayescm (checked: anything else is refused).
    path : str or Path
        Destination; a symbolic link there is replaced, not followed.
    compact : bool, default True
        Store the draws as float32 with gzip compression (about 40 % of the size; summaries
        unchanged within a small fraction of their Monte Carlo error). ``False`` stores
        every value exactly.

    Returns
    -------
    Path
        The path written (a ``pathlib.Path``), for :func:`load` to read back.

    Raises
    ------
    TypeError
        ``compact`` that is not a bool.
    OutputError
        A ``path`` that cannot be written: a folder, inside a file, a name too long, no
        permission, a full disk (the message names the path and what to do).

    See Also
    --------
    load : Read the result back.
    refit : Fit a loaded result's data again.

    Examples
    --------
    >>> import bayescm as bcm, tempfile, os
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=5, fn=1, tn=4, fp=2), random_seed=0)
    >>> path = bcm.save(idata, os.path.join(tempfile.mkdtemp(), "fit.nc"))
    >>> bcm.load(path)["posterior"]["tpr"].shape
    (4, 5000)
    """
    from bayescm.core.files import atomic_write

    check_tree(idata)
    if not isinstance(compact, bool):
        raise TypeError(f"compact must be True or False, got {compact!r}.")
    return atomic_write(path, lambda tmp: write_netcdf(idata, tmp, compact=compact))


COMPACT_GROUPS = ("posterior", "prior", "posterior_predictive")
"""Groups of draws stored as float32 (7 significant digits: far below Monte Carlo error)."""


def encoding(idata: xr.DataTree) -> dict[str, dict[str, dict[str, Any]]]:
    """The netCDF encoding: gzip for every variable, float32 for the float draws.

    Counts, observed values and diagnostics keep their exact types. Draws in float32 keep 24
    bits (relative 6e-8): no summary moves by a measurable fraction of its Monte Carlo error
    (tested), and the file is about 40 % of the float64 one.
    """
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for name, node in idata.children.items():
        group: dict[str, dict[str, Any]] = {}
        for var, da in node.to_dataset().data_vars.items():
            enc: dict[str, Any] = {"compression": "gzip", "compression_opts": 4,
                                   "shuffle": True}
            if name in COMPACT_GROUPS and da.dtype == np.float64:
                enc["dtype"] = "float32"
            if da.ndim == 0 or da.dtype.kind not in "iuf":
                enc = {}
            group[str(var)] = enc
        out[f"/{name}"] = group
    return out


def write_netcdf(idata: xr.DataTree, path: str | os.PathLike[str], compact: bool = True
                 ) -> None:
    """Write ``idata`` (compactly: see :func:`encoding`); the one place trees become files."""
    idata.to_netcdf(path, engine="h5netcdf", encoding=encoding(idata) if compact else None)


@keyword_checked
def load(path: str | os.PathLike[str]) -> xr.DataTree:
    """Read a result tree written by :func:`save` fully into memory (the file is closed after).

    Parameters
    ----------
    path : str or os.PathLike
        A netCDF file written by :func:`save`.

    Returns
    -------
    xarray.DataTree
        The result, checked against the result schema; float32 draws come back as float64.

    Raises
    ------
    FileNotFoundError
        No such file.
    ValueError
        If the path is a folder, the file cannot be read, is not netCDF, or is not a bayescm
        result tree (the message names the file and the problem).

    See Also
    --------
    save : Write a result tree.
    bayescm.refit : Redraw or extend a loaded result from its attributes alone.

    Examples
    --------
    A result survives the round trip with its attributes, so it can be summarised or refitted
    later:

    >>> import bayescm as bcm, tempfile, os
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), random_seed=1)
    >>> path = bcm.save(idata, os.path.join(tempfile.mkdtemp(), "cocaine.nc"))
    >>> loaded = bcm.load(path)
    >>> loaded.attrs["method"], loaded["posterior"]["tpr"].dtype
    ('exact', dtype('float64'))
    """
    from bayescm.core.schema import validate

    source = Path(path)
    if not source.exists():
        raise FileNotFoundError(f"No such file: {path}")
    if source.is_dir():
        raise ValueError(f"{path} is a folder; give the .nc file that bcm.save wrote.")
    try:
        with xr.open_datatree(path, engine="h5netcdf") as tree:
            out = tree.load().copy()
    except Exception as err:
        reason = getattr(err, "strerror", None) or str(err).split("\n")[0] or type(err).__name__
        raise ValueError(f"{path} is not a result tree written by bcm.save: it cannot be read "
                         f"as netCDF-4 ({reason}).") from None
    for node in out.subtree:  # float32 draws come back as float64 for computing
        for var in [str(v) for v in node.data_vars]:
            if node[var].dtype == np.float32:
                node[var] = node[var].astype(np.float64)
    try:
        validate(out)
    except ValueError as err:
        raise ValueError(f"{path}: {err}") from None
    return out
