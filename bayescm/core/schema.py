"""What a result tree must look like: root attributes and groups, checked on every read.

A tree written by bayescm and read back with :func:`bayescm.load` may have been edited, come
from another program or another version. Every function that reads a tree calls
:func:`validate` (through the container's ``check_tree``), so a wrong attribute is a
``ValueError`` that names it and says what is wrong, never a raw ``KeyError``,
``AttributeError`` or ``JSONDecodeError`` three calls later.
"""

from __future__ import annotations

import json
import numbers
from collections.abc import Callable, Hashable, Mapping
from typing import Any

__all__ = ["set_kind_check", "validate"]

_KIND_CHECK: list[Callable[[Any], None]] = []
"""The registry's check of a tree against its kind (:func:`set_kind_check`)."""


def set_kind_check(check: Callable[[Any], None]) -> None:
    """Install the check :func:`validate` ends with: the tree against its model kind.

    The registry installs it (this module cannot import the models): it checks that the
    ``model`` attribute names a registered kind (the registry is the one list of them), rebuilds
    the kind from the attributes, compares the stored parameters' dims with the kind's table
    and reads the priors back, each failure a ValueError naming the attribute.
    """
    _KIND_CHECK[:] = [check]


def _fail(attr: str, problem: str) -> ValueError:
    return ValueError(f"The result's attribute {attr!r} {problem}; the tree was edited or not "
                      "written by bcm.fit. Refit it, or restore the attribute.")


def _json(attrs: Mapping[Hashable, Any], key: str, kind: type, what: str) -> Any:
    raw = attrs[key]
    if not isinstance(raw, str):
        raise _fail(key, f"should be JSON text holding {what}, got {type(raw).__name__}")
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        raise _fail(key, f"is not valid JSON ({raw[:40]!r})") from None
    if not isinstance(value, kind):
        raise _fail(key, f"should hold {what}, got {type(value).__name__}")
    return value


def _positive_int(attrs: Mapping[Hashable, Any], key: str) -> int:
    value = attrs[key]
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or int(value) < 1:
        raise _fail(key, f"should be a positive integer, got {value!r}")
    return int(value)


def validate(tree: Any) -> None:
    """Check the root attributes and the group layout of a result tree.

    Raises
    ------
    TypeError
        ``tree`` is not an ``xarray.DataTree``.
    ValueError
        A missing or malformed attribute (named), labels that do not match the coordinates,
        draws or chains that do not match the posterior, no posterior or prior group.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.core.schema import validate
    >>> tree = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=5, fn=1, tn=4, fp=2), draws=20)
    >>> validate(tree)
    >>> tree.attrs["labels"] = "[1, 2"
    >>> validate(tree)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: The result's attribute 'labels' is not valid JSON ('[1, 2'); ...
    """
    import xarray as xr

    if not isinstance(tree, xr.DataTree):
        raise TypeError(
            f"Expected a result tree from bcm.fit (xarray.DataTree), got {type(tree).__name__}.")
    attrs = dict(tree.attrs)
    if "model" not in attrs:
        raise _fail("model", "is missing (the tree is not a bayescm result)")
    children = set(tree.children)
    sampled = [g for g in ("posterior", "prior") if g in children]
    if not sampled:
        raise ValueError("The result has neither a 'posterior' nor a 'prior' group; it is not "
                         f"a bayescm result (groups: {', '.join(sorted(children)) or 'none'}).")
    labels = None
    if "labels" in attrs:
        labels = _json(attrs, "labels", list, "a list of class labels")
        if len(labels) < 2 or len({str(v) for v in labels}) != len(labels) or not all(
                isinstance(v, str) for v in labels):
            raise _fail("labels", f"should be 2 or more distinct strings, got {labels!r}")
    if "priors" in attrs:
        _json(attrs, "priors", dict, "a mapping of parameter -> prior")
    if "metrics" in attrs:
        names = _json(attrs, "metrics", list, "a list of metric names")
        if not all(isinstance(v, str) for v in names):
            raise _fail("metrics", f"should list metric names (strings), got {names!r}")
    if "hdi_prob" in attrs:
        value = attrs["hdi_prob"]
        if isinstance(value, bool) or not isinstance(value, numbers.Real) or not (
                0 < float(value) < 1):
            raise _fail("hdi_prob", f"should be a probability in (0, 1), got {value!r}")
    first = tree.children[sampled[0]]  # the node itself: to_dataset() would copy it
    for dim in ("chain", "draw"):
        if dim not in first.sizes:
            raise ValueError(f"The {sampled[0]!r} group has no {dim!r} dim; it is not a bayescm "
                             "result.")
    for key, dim in (("chains", "chain"), ("draws", "draw")):
        if key in attrs and _positive_int(attrs, key) != first.sizes[dim] and (
                sampled[0] == "posterior"):
            raise _fail(key, f"says {attrs[key]}, but the posterior has {first.sizes[dim]} "
                        f"{dim}s")
    if labels is not None and "observed_data" in children:
        obs = tree.children["observed_data"]
        if "true_class" in obs.coords:
            coords = [str(v) for v in obs.coords["true_class"].values]
            if coords != [str(v) for v in labels]:
                raise _fail("labels", f"lists {labels}, but the counts' classes are {coords}")
    for check in _KIND_CHECK:
        check(tree)
