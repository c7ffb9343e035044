"""The documentation site's promises that need no build: every public name is in the API
reference, and the public docstrings teach in a checked form (issue 18, points 1 and 4).

"Public" means every function and class reachable as ``bcm.<name>`` for a name in
``bcm.__all__``, every one in the ``__all__`` of the public namespaces ``bcm.datasets``,
``bcm.stats``, ``bcm.analyses.frequentist``, ``bcm.metrics``, ``bcm.plots``, ``bcm.priors``,
``bcm.samplesize``, ``bcm.analyses``, ``bcm.compare``, ``bcm.errors``, ``bcm.spec`` and
``bcm.stats``, and the public methods (no leading underscore, defined in
the class itself) of those classes. Constants and settings objects (``HDI_PROB``,
``rcParams``, ``DATASETS``, ...) and anything defined outside bayescm are not callables of the
API and are left out. Each object is checked once, under the first public name that reaches it.

Three checks run over them:

* numpydoc's validation with the codes in :data:`CHECKS` (see the comments there);
* a Raises check, the equivalent numpydoc lacks (:func:`_raised`): an exception class the
  callable's own body raises must be named in its Raises section;
* every docstring's Examples is collected as a doctest of its module, so the suite's
  ``--doctest-modules`` runs it (:func:`test_public_examples_run_as_doctests`).

The site itself is built in CI (``.ci/run``: ``sphinx -W --keep-going``), which fails on a
docstring numpydoc cannot parse or a cross-reference that does not resolve.
"""

from __future__ import annotations

import ast
import builtins
import dataclasses
import doctest
import functools
import importlib
import inspect
import re
import textwrap
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import bayescm as bcm
import bayescm.plots

API_INDEX = Path(__file__).resolve().parents[1] / "docs" / "api" / "index.rst"

NAMESPACES = ("analyses", "compare", "datasets", "errors", "metrics", "plots", "priors",
              "samplesize", "spec", "stats")
"""The submodules in ``bcm.__all__`` whose own ``__all__`` is public API too."""

CHECKS = {
    "GL08",  # the object has a docstring
    "GL02", "GL03", "GL06", "GL07",  # laid out as numpydoc reads it: no stray blank lines, only
    # known section names, the sections in numpydoc's order (Sphinx renders them in that order)
    "SS01", "SS02", "SS03", "SS04", "SS06",  # a one-line summary: capitalised, ends with a
    # period, no leading whitespace, fits on one line. SS05 ("infinitive verb, not third
    # person") is left out: the project writes summaries as noun phrases ("Posterior
    # probability that ...", "Gaps between groups ..."), which SS05 misreads as verbs.
    "PR01", "PR02",  # every parameter documented, and only parameters of the signature
    "PR03",  # in the signature's order
    "PR07", "PR08", "PR09",  # each with a description, capitalised, ending with a period
    "RT01", "RT02", "RT03",  # a Returns section for a function that returns something, its
    # first line the type alone (or a name and a type), and a description of the value
    "SA01", "SA03", "SA04",  # a See Also section: where a reader goes next, each entry
    # with a capitalised description of why
    "EX01",  # an Examples section (run as a doctest: see test_public_examples_run_as_doctests)
}
"""numpydoc's codes the public docstrings must pass. Left out: SS05 (above); ES01 (an extended
summary: a one-line method such as ``Beta.draw`` says all in its summary); PR04 (a type for
every parameter: the project documents related parameters together, ``classifier, ax,
hdi_prob`` with "As for plot_roc", whose types are on that page)."""


def _documented_names() -> set[str]:
    text = API_INDEX.read_text(encoding="utf-8")
    names: set[str] = set()
    for block in re.findall(r"\.\. autosummary::\n((?:   .*\n|\n)+)", text):
        for line in block.splitlines():
            entry = line.strip()
            if entry and not entry.startswith(":"):
                names.add(entry if entry.startswith("bayescm.") else f"bayescm.{entry}")
    return names


def _public_names() -> list[str]:
    """Full names of everything in ``bcm.__all__`` and ``bcm.plots.__all__`` (submodules by the
    name the API reference documents them under: the module's own)."""
    out = []
    for name in bcm.__all__:
        obj = getattr(bcm, name)
        out.append(obj.__name__ if isinstance(obj, types.ModuleType) else f"bayescm.{name}")
    return out + [f"bayescm.plots.{name}" for name in bayescm.plots.__all__]


def test_api_reference_lists_every_public_name() -> None:
    missing = sorted(set(_public_names()) - _documented_names())
    assert not missing, (
        f"in bcm.__all__ or bcm.plots.__all__ but not in docs/api/index.rst: {missing}; add "
        "each to the autosummary list of its task")


def _ours(obj: Any) -> bool:
    return (getattr(obj, "__module__", None) or "").startswith("bayescm")


@functools.cache
def _public_callables() -> dict[str, Any]:
    """Public name -> object for every function, class and public method of the API (see the
    module docstring), each object once."""
    out: dict[str, Any] = {}
    seen: set[tuple[str, str]] = set()

    def add(name: str, obj: Any) -> None:
        if not (inspect.isfunction(obj) or inspect.ismethod(obj) or isinstance(obj, type)):
            return  # a constant or a settings object
        key = (obj.__module__, obj.__qualname__)
        if not _ours(obj) or key in seen:
            return
        seen.add(key)
        out[name] = obj
        if isinstance(obj, type):  # its public methods, inherited ones of bayescm's included
            for cls in obj.__mro__:
                if not _ours(cls):
                    continue
                for attr, value in vars(cls).items():
                    if not attr.startswith("_") and isinstance(
                            value, (types.FunctionType, classmethod, staticmethod)):
                        add(f"{name}.{attr}", getattr(obj, attr))

    for name in bcm.__all__:
        obj = getattr(bcm, name)
        if not isinstance(obj, types.ModuleType):
            add(f"bayescm.{name}", obj)
        elif name in NAMESPACES:
            for inner in obj.__all__:
                add(f"bayescm.{name}.{inner}", getattr(obj, inner))
    return out


def test_public_api_is_found() -> None:
    found = _public_callables()
    for name in ("bayescm.fit", "bayescm.ConfusionMatrix.from_counts", "bayescm.plots.plot_roc",
                 "bayescm.Beta.from_interval",  # defined in a mixin of Beta
                 "bayescm.priors.from_dict", "bayescm.datasets.load", "bayescm.stats.hdi"):
        assert name in found
    assert "bayescm.rcParams" not in found and "bayescm.HDI_PROB" not in found


def _load(name: str) -> Any:
    return _public_callables()[name]


@pytest.mark.parametrize("name", list(_public_callables()))
def test_public_docstring_passes_numpydoc_validation(name: str) -> None:
    validate = pytest.importorskip("numpydoc.validate", reason="needs the docs extra: "
                                   "bash scripts/setup.sh docs").validate
    from numpydoc.docscrape import get_doc_object

    obj = _load(name)
    doc = get_doc_object(obj)
    skip = set()
    if isinstance(obj, type) and getattr(obj, "_is_protocol", False):
        skip.add("PR01")  # a Protocol has no constructor: its signature is (*args, **kwargs)
    errors = []
    if dataclasses.is_dataclass(obj):
        # a result record (SampleSizePlan, MetricInfo, ...) documents its fields as Attributes,
        # which numpydoc's PR01 does not count: every field in Parameters or Attributes
        skip.add("PR01")
        documented = {part.strip().lstrip("*") for section in ("Parameters", "Attributes")
                      for entry in doc[section] for part in entry.name.split(",")}
        errors += [f"PR01: field {field.name!r} is in neither Parameters nor Attributes"
                   for field in dataclasses.fields(obj)
                   if field.init and not field.name.startswith("_")
                   and field.name not in documented]
    errors += [f"{code}: {message}" for code, message in validate(doc)["errors"]
               if code in CHECKS - skip]
    assert not errors, f"{name}:\n" + "\n".join(errors)


def _raised(func: Callable[..., Any]) -> set[type[BaseException]]:
    """Exception classes a function's own body raises.

    The rule: every ``raise Name(...)`` or ``raise Name`` statement in the function's source
    (:func:`inspect.getsource` of the function itself, not of what it calls) whose ``Name`` (or
    ``module.Name``) resolves, in the function's globals or the builtins, to an exception
    class; ``raise ... from err`` counts (the caller sees the new exception). Left out: a bare
    ``raise`` and ``raise err`` of a caught exception held in a variable (a re-raise, of a type
    the statement does not name), and the bodies of functions, lambdas and classes nested in
    it (they raise when they are called, which may be never).
    """
    func = inspect.unwrap(getattr(func, "__func__", func))
    tree = ast.parse(textwrap.dedent(inspect.getsource(func))).body[0]
    found: set[type[BaseException]] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda,
                                  ast.ClassDef)):
                continue
            if isinstance(child, ast.Raise) and child.exc is not None:
                exc = child.exc.func if isinstance(child.exc, ast.Call) else child.exc
                name = (exc.attr if isinstance(exc, ast.Attribute)
                        else exc.id if isinstance(exc, ast.Name) else None)
                value = (func.__globals__.get(name, getattr(builtins, name, None))
                         if name else None)
                if isinstance(value, type) and issubclass(value, BaseException):
                    found.add(value)
            visit(child)

    visit(tree)
    return found


def test_raised_finds_raises_by_the_rule() -> None:
    def f(x: int) -> int:
        def inner() -> None:
            raise KeyError("nested: not f's")
        if x < 0:
            raise ValueError("negative")
        try:
            return 1 // x
        except ZeroDivisionError as err:
            if x:
                raise err
            raise ArithmeticError("zero") from err

    assert _raised(f) == {ValueError, ArithmeticError}


def _raisers(obj: Any) -> list[Callable[..., Any]]:
    """The functions whose raises a docstring must name: the callable itself, or for a class
    the ``__init__``, ``__new__`` and ``__post_init__`` it defines (documented on the class;
    not those that ``dataclass`` generates, which have no source and check nothing)."""
    if not isinstance(obj, type):
        return [obj]
    return [value for attr, value in vars(obj).items()
            if attr in ("__init__", "__new__", "__post_init__") and inspect.isfunction(value)
            and _ours(value) and not value.__code__.co_filename.startswith("<")]


@pytest.mark.parametrize("name", list(_public_callables()))
def test_public_docstring_names_what_it_raises(name: str) -> None:
    docscrape = pytest.importorskip("numpydoc.docscrape", reason="needs the docs extra: "
                                    "bash scripts/setup.sh docs")
    obj = _load(name)
    raised: set[type[BaseException]] = set()
    for func in _raisers(obj):
        raised |= _raised(func)
    entries = docscrape.get_doc_object(obj)["Raises"]
    named = {word for entry in entries for word in re.findall(r"\w+", f"{entry.name} {entry.type}")}
    # a documented base class covers a subclass (a caller catching ValueError catches
    # PriorFormError), but not Exception or BaseException, which would cover everything
    missing = sorted(exc.__name__ for exc in raised
                     if not any(base.__name__ in named for base in exc.__mro__
                                if base not in (Exception, BaseException, object)))
    assert not missing, f"{name} raises {missing} but its Raises section does not name them"


@functools.cache
def _module_doctests(module: str) -> set[str]:
    """Qualified names (``module.qualname``) of the docstrings in ``module`` that carry examples,
    as pytest's ``--doctest-modules`` collects them."""
    tests = doctest.DocTestFinder().find(importlib.import_module(module))
    return {test.name for test in tests if test.examples}


@pytest.mark.parametrize("name", list(_public_callables()))
def test_public_examples_run_as_doctests(name: str) -> None:
    obj = _load(name)
    func = getattr(obj, "__func__", obj)
    assert f"{func.__module__}.{func.__qualname__}" in _module_doctests(func.__module__), (
        f"{name}: its Examples are not collected as a doctest of {func.__module__} (the suite "
        "runs them through --doctest-modules)")
