"""The registry of model kinds: one place that maps a key to its :class:`ModelKind`.

A result tree's root attribute ``model`` holds the key. :func:`kind_of` rebuilds the kind of a
tree, :func:`for_data` picks the kind for ``fit``'s data, and :func:`register` adds a kind
(built-in kinds register when :mod:`bayescm.models` is imported; a new kind registers itself in
its own module, see ``ARCHITECTURE.md``).

Examples
--------
>>> from bayescm.models import registry
>>> registry.keys()[:4]
['binary', 'dawid_skene', 'hierarchical', 'hierarchical_multiclass']
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any

from bayescm.core.schema import set_kind_check
from bayescm.models.base import ANALYSES, ModelKind, Parameter

__all__ = ["for_data", "get", "keys", "kind_of", "kinds_supporting", "register", "require",
           "unregister"]

_KINDS: dict[str, type[ModelKind]] = {}

BUILT_IN = {"binary": "bayescm.models.binary", "multiclass": "bayescm.models.multiclass",
            "scores": "bayescm.models.scores", "paired": "bayescm.models.paired",
            "hierarchical": "bayescm.models.hierarchical",
            "hierarchical_multiclass": "bayescm.models.hierarchical_multiclass",
            "items": "bayescm.models.items", "stratified": "bayescm.models.stratified",
            "true_prevalence": "bayescm.models.corrected",
            "judged_accuracy": "bayescm.models.corrected",
            "true_shares": "bayescm.models.corrected_shares",
            "hui_walter": "bayescm.models.hui_walter",
            "dawid_skene": "bayescm.models.dawid_skene"}
"""The built-in kinds and their modules, imported (and so registered) on first use."""



def check_tree_kind(tree: Any) -> None:
    """Check a tree against the kind its ``model`` attribute names (run on every tree read).

    Rebuilds the kind from the root attributes, compares the stored parameters' dims with the
    kind's table (:meth:`~bayescm.models.base.ModelKind.check_layout`) and reads every prior
    in the ``priors`` attribute back. The attributes' part is a pure function of their text,
    so it is done once per distinct text (:func:`_kind_from_attrs`).

    Raises
    ------
    ValueError
        The kind cannot be rebuilt, a parameter has other dims, or a prior cannot be read.
    """
    model = tree.attrs["model"]
    if not isinstance(model, str) or (model not in _KINDS and model not in BUILT_IN):
        raise ValueError(f"The result's attribute 'model' is {model!r}, not one of "
                         f"{', '.join(keys())}; the tree was edited or not written by bcm.fit "
                         "(or its kind's module is not imported). Refit it, or restore the "
                         "attribute.")
    kind = _kind_from_attrs(tuple(sorted((str(k), v if isinstance(v, (str, int, float))
                                          else str(v)) for k, v in tree.attrs.items())))
    for group in ("posterior", "prior"):
        if group in tree.children:
            node = tree.children[group]
            kind.check_layout({str(k): tuple(str(d) for d in v.dims)
                               for k, v in node.variables.items()})
            break


@functools.lru_cache(maxsize=256)
def _kind_from_attrs(items: tuple[tuple[str, Any], ...]) -> ModelKind:
    """The kind the root attributes describe, its priors read back once (see above)."""
    import json

    from bayescm.errors import PriorFormError
    from bayescm.priors.serialize import from_dict

    attrs = dict(items)
    model = str(attrs["model"])
    labels = json.loads(attrs["labels"]) if "labels" in attrs else []
    try:
        kind = get(model).from_attrs(attrs, labels)
    except (TypeError, ValueError, KeyError) as err:
        raise ValueError(f"The result's attributes do not rebuild its {model!r} model ({err}); "
                         "the tree was edited or not written by bcm.fit. Refit it, or restore "
                         "the attributes.") from None
    for name, spec in json.loads(attrs.get("priors", "{}")).items():
        if not isinstance(spec, (dict, str)) or (
                isinstance(spec, dict) and spec.get("name") == "custom"):
            continue  # a custom prior is stored by its description only
        try:
            from_dict(spec, parameter=name)
        except PriorFormError:
            continue  # a form only the kind itself reads
        except (TypeError, ValueError, KeyError) as err:
            raise ValueError(f"The result's attribute 'priors' holds {spec!r} for {name!r}, "
                             f"which is not a prior bayescm can read ({err}); the tree was "
                             "edited or not written by bcm.fit. Refit it, or restore the "
                             "attribute.") from None
    return kind


set_kind_check(check_tree_kind)


def _load_built_in(key: str | None = None) -> None:
    """Import the module of one built-in kind (or all), which registers it."""
    from importlib import import_module

    for name, module in BUILT_IN.items():
        if (key is None or name == key) and name not in _KINDS:
            import_module(module)


def register[K: type[ModelKind]](cls: K) -> K:
    """Add a model kind under ``cls.key`` (a class decorator); checks its declarations.

    Raises
    ------
    ValueError
        The key is taken by another class, or the parameter table or analyses are malformed.

    Examples
    --------
    >>> from bayescm.models import registry
    >>> registry.register(registry.get("binary")) is registry.get("binary")
    True
    """
    key = getattr(cls, "key", None)
    if not isinstance(key, str) or not key.isidentifier():
        raise ValueError(f"{cls.__name__}.key must be an identifier naming the kind, got {key!r}.")
    other = _KINDS.get(key)
    if other is not None and other is not cls and other.__qualname__ != cls.__qualname__:
        raise ValueError(f"The model key {key!r} is taken by {other.__qualname__}; choose "
                         "another key.")
    if not all(isinstance(p, Parameter) for p in cls.parameters) or len(
            {p.name for p in cls.parameters}) != len(cls.parameters):
        raise ValueError(f"{cls.__name__}.parameters must be distinct Parameter entries.")
    unknown = set(cls.analyses) - set(ANALYSES)
    if unknown:
        raise ValueError(f"{cls.__name__}.analyses names unknown analyses {sorted(unknown)}; "
                         f"known: {', '.join(ANALYSES)}.")
    _KINDS[key] = cls
    return cls


def unregister(key: str) -> None:
    """Remove a kind added with :func:`register` (results of it can no longer be read).

    Examples
    --------
    >>> from bayescm.models import registry
    >>> registry.unregister("no_such_kind")
    Traceback (most recent call last):
    ...
    ValueError: Unknown model 'no_such_kind'; registered models: ...
    """
    get(key)
    del _KINDS[key]
    _kind_from_attrs.cache_clear()  # its trees can no longer be read


def keys() -> list[str]:
    """Registered keys, sorted."""
    _load_built_in()
    return sorted(_KINDS)


def get(key: str) -> type[ModelKind]:
    """The kind class registered under ``key``; a ValueError naming the registered ones."""
    if isinstance(key, str) and key not in _KINDS and key in BUILT_IN:
        _load_built_in(key)
    try:
        return _KINDS[key]
    except (KeyError, TypeError):
        raise ValueError(f"Unknown model {key!r}; registered models: {', '.join(keys())}."
                         ) from None


def require(kind: ModelKind, analysis: str, remedy: str = "") -> None:
    """Raise a ValueError naming the kind when ``analysis`` does not apply to its results.

    Examples
    --------
    >>> from bayescm.models import registry
    >>> registry.require(registry.get("paired")(["a", "b"]), "with_prevalence")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: with_prevalence needs a binary, hierarchical or multiclass fit; this is a ...
    """
    if analysis in kind.analyses:
        return
    able = kinds_supporting(analysis)
    names = (", ".join(able[:-1]) + " or " + able[-1]) if len(able) > 1 else (
        able[0] if able else "")
    needs = f"a {names} fit" if names else "a fit of another kind"
    raise ValueError(
        f"{analysis} needs {needs}; this is {kind.description or 'a ' + kind.key}. "
        f"{remedy or 'Apply it to the fit of one classifier’s matrix (bcm.fit).'}")


def kinds_supporting(analysis: str) -> list[str]:
    """Keys of the kinds whose results an analysis applies to."""
    _load_built_in()
    return sorted(k for k, cls in _KINDS.items() if analysis in cls.analyses)


def for_data(data: Any, model: str = "auto") -> ModelKind:
    """The kind that fits ``data``: ``model`` if named, else the first kind that accepts it."""
    if model != "auto":
        return get(model).from_data(data)
    _load_built_in()  # every kind is asked, in the order registered (built-in kinds first)
    for cls in _KINDS.values():
        if cls.accepts(data):
            return cls.from_data(data)
    from bayescm.core.confusion import as_batch

    as_batch(data)  # names what is wrong with data that is not a matrix or a batch of them
    raise TypeError(f"No model fits {type(data).__name__}; pass a bcm.ConfusionMatrix, a "
                    "mapping of name -> ConfusionMatrix, or an input object of a registered "
                    f"kind ({', '.join(keys())}).")


def kind_of(idata: Any, analysis: str | None = None, remedy: str = "", *,
            checked: bool = False) -> ModelKind:
    """The kind of a result tree, rebuilt from its root attributes.

    With ``analysis`` given, raise a ValueError naming the kind when the analysis does not
    apply to it (e.g. "with_prevalence needs a binary or multiclass fit; this is a paired
    comparison"). ``checked=True`` skips the check of a tree the caller has just checked.
    """
    from bayescm.core import container as box

    if not checked:
        box.check_tree(idata)
    attrs: Mapping[str, Any] = box.root_attrs(idata)
    labels = box.read_json_attr(idata, "labels") if "labels" in attrs else []
    kind = get(str(attrs["model"])).from_attrs(attrs, labels)
    if analysis is not None:
        if box.has_group(idata, "posterior") and "prior_choice" in box.get_group(
                idata, "posterior").dims:
            raise ValueError(
                "This is a prior_sensitivity result (a prior_choice dim): the analysis applies "
                "to one fit. Fit the data under the prior you want (bcm.fit(cm, prior=...)) and "
                "apply it to that result.")
        require(kind, analysis, remedy)
    return kind
