"""Write ``bayescm/accessor.py``: the ``idata.bcm`` methods with the functions' real signatures.

Each method of the accessor is the plain function with the tree as its first argument: this
script reads every function's signature (:data:`METHODS`), writes the method with the same
parameters, defaults and annotations (so editors show them), a one-line summary taken from the
function, a sentence that names the function, and the Examples the accessor already has (kept
from the current file). ``tests/test_accessor.py`` checks the written file against the
functions, so a changed signature fails until this is rerun::

    .venv/bin/python scripts/make_accessor.py
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "bayescm" / "accessor.py"

METHODS = {
    # method: (module, public spelling)
    "summary": ("bayescm.analyses.summary", "bayescm.summary"),
    "probability": ("bayescm.analyses.summary", "bayescm.probability"),
    "informedness": ("bayescm.analyses.summary", "bayescm.informedness"),
    "with_prevalence": ("bayescm.analyses.prevalence", "bayescm.with_prevalence"),
    "posterior_predictive": ("bayescm.analyses.predictive", "bayescm.posterior_predictive"),
    "prob_superior": ("bayescm.comparisons.superiority", "bayescm.prob_superior"),
    "rank_probabilities": ("bayescm.comparisons.ranks", "bayescm.rank_probabilities"),
    "group_gaps": ("bayescm.comparisons.groups", "bayescm.compare.group_gaps"),
    "fairness_table": ("bayescm.comparisons.groups", "bayescm.compare.fairness_table"),
    "save": ("bayescm.core.container", "bayescm.save"),
    "plot_metric": ("bayescm.plots", "bayescm.plots.plot_metric"),
    "plot_metrics": ("bayescm.plots", "bayescm.plots.plot_metrics"),
    "plot_forest": ("bayescm.plots", "bayescm.plots.plot_forest"),
    "plot_theta": ("bayescm.plots", "bayescm.plots.plot_theta"),
    "plot_priors": ("bayescm.plots", "bayescm.plots.plot_priors"),
    "plot_roc": ("bayescm.plots", "bayescm.plots.plot_roc"),
    "plot_pr": ("bayescm.plots", "bayescm.plots.plot_pr"),
    "plot_reliability": ("bayescm.plots", "bayescm.plots.plot_reliability"),
    "plot_delta_auc": ("bayescm.plots", "bayescm.plots.plot_delta_auc"),
    "plot_sroc": ("bayescm.plots", "bayescm.plots.plot_sroc"),
    "plot_group_forest": ("bayescm.plots", "bayescm.plots.plot_group_forest"),
    "plot_group_gaps": ("bayescm.plots", "bayescm.plots.plot_group_gaps"),
}
"""The accessor's methods, the module of the function each calls, and its public name."""

HEADER = '''"""``idata.bcm``: bayescm's functions as methods of a result tree.

Importing :mod:`bayescm` registers the accessor on :class:`xarray.DataTree`, so a result (or a
tree loaded with :func:`bayescm.load`) offers ``idata.bcm.summary()``,
``idata.bcm.plot_metric("tpr")`` and so on. Every method is a thin call of the plain function
with the tree as its first argument: both spellings share one implementation, and the methods
have the functions' own signatures (this file is written by ``scripts/make_accessor.py``, and
``tests/test_accessor.py`` checks it against the functions). The plotting methods import
:mod:`bayescm.plots`, and with it matplotlib, only when called.

Examples
--------
>>> import bayescm as bcm
>>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), random_seed=1)
>>> idata.bcm.summary(var_names="tnr").equals(bcm.summary(idata, var_names="tnr"))
True
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import xarray as xr

from bayescm.accessor_curves import CurveMethods
from bayescm.accessor_plots import PlotMethods
from bayescm.core.arguments import keyword_checked

if TYPE_CHECKING:  # annotations only: matplotlib loads when a plotting method is called
    import os
    from pathlib import Path

    import numpy as np
    import pandas as pd
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

    from bayescm.metrics.metric import Metric

__all__ = ["BayescmAccessor"]


@xr.register_datatree_accessor("bcm")
class BayescmAccessor(PlotMethods, CurveMethods):
    """Methods of a bayescm result tree, reached as ``idata.bcm``.

    Parameters
    ----------
    tree : xarray.DataTree
        The result the methods apply to (checked by each function, as with the plain calls).

    Examples
    --------
    >>> import bayescm as bcm
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4), random_seed=0)
    >>> round(idata.bcm.probability("bm", upper=0.0), 2)
    0.14
    """

    def __init__(self, tree: xr.DataTree) -> None:
        self._tree = tree
'''


def _examples(path: Path) -> dict[str, str]:
    """The Examples sections of the methods written in ``path`` now, by method name."""
    if not path.exists():
        return {}
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef):
            doc = ast.get_docstring(node, clean=True) or ""
            if "Examples\n--------" in doc:
                out[node.name] = doc[doc.index("Examples\n--------"):]
    return out


def _summary(func: object) -> str:
    doc = inspect.getdoc(func) or ""
    return doc.split("\n\n")[0].replace("\n", " ").strip()


def _param(p: inspect.Parameter) -> str:
    """One parameter as source: ``name: annotation = default`` (annotations as written)."""
    star = {inspect.Parameter.VAR_POSITIONAL: "*", inspect.Parameter.VAR_KEYWORD: "**"}
    text = star.get(p.kind, "") + p.name
    if p.annotation is not inspect.Parameter.empty:
        text += f": {p.annotation if isinstance(p.annotation, str) else p.annotation.__name__}"
    if p.default is not inspect.Parameter.empty:
        default = p.default
        shown = f'"{default}"' if isinstance(default, str) else repr(default)
        text += f" = {shown}" if p.annotation is not inspect.Parameter.empty else f"={shown}"
    return text


def method_source(name: str, examples: dict[str, str]) -> str:
    """The source of one method (signature from the function, summary, call)."""
    import typing

    module, public = METHODS[name]
    func = getattr(importlib.import_module(module), name)
    inner = inspect.unwrap(func)
    sig = inspect.signature(inner)
    params = list(sig.parameters.values())[1:]  # the first is the tree
    parts = ["self"]
    if any(p.kind is inspect.Parameter.POSITIONAL_ONLY for p in params):
        only = [p for p in params if p.kind is inspect.Parameter.POSITIONAL_ONLY]
        parts += [_param(p) for p in only] + ["/"]
        params = [p for p in params if p not in only]
    starred = False
    for p in params:
        if p.kind is inspect.Parameter.KEYWORD_ONLY and not starred:
            parts.append("*")
            starred = True
        if p.kind is inspect.Parameter.VAR_POSITIONAL:
            starred = True
        parts.append(_param(p))
    returns = sig.return_annotation
    ret = "" if returns is inspect.Signature.empty else f" -> {returns}"
    calls = [f"*{p.name}" if p.kind is inspect.Parameter.VAR_POSITIONAL else
             f"**{p.name}" if p.kind is inspect.Parameter.VAR_KEYWORD else
             f"{p.name}={p.name}" for p in params]
    calls = [p.name for p in list(sig.parameters.values())[1:]
             if p.kind is inspect.Parameter.POSITIONAL_ONLY] + calls
    summary = _summary(func)
    sentence = (f"The method form of :func:`{public}`: ``idata.bcm.{name}(...)`` is "
                f"``{public.replace('bayescm.', 'bcm.')}(idata, ...)``, with the same "
                "parameters.")
    body = [summary, "", textwrap.fill(sentence, 88)]  # the summary stays one line
    example = examples.get(name)
    if example:
        body += ["", example]
    doc = textwrap.indent("\n".join(body), " " * 8).strip()
    head = f"    def {name}({', '.join(parts)}){ret}:"
    if len(head) > 100:
        head = (f"    def {name}(\n" + "".join(f"        {p},\n" for p in parts) +
                f"    ){ret}:")
    overloaded = bool(typing.get_overloads(inner)) or bool(typing.get_overloads(func))
    callee = f"cast(Any, {name})" if overloaded else name  # the overloads type the call
    call = f"        return {callee}({', '.join(['self._tree', *calls])})"
    if len(call) > 100:
        call = (f"        return {callee}(\n" + "".join(
            f"            {a},\n" for a in ["self._tree", *calls]) + "        )")
    return (f"    @keyword_checked\n{head}\n        \"\"\"{doc}\n        \"\"\"\n"
            f"        from {module} import {name}\n\n{call}\n")


def _split_params(inner: str) -> list[str]:
    """Parameters of a signature string split at top-level commas."""
    out, depth, cur = [], 0, ""
    for ch in inner:
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


MIXIN_HEADER = """\"\"\"{what} of ``idata.bcm`` (a mixin of ``BayescmAccessor``).

Written by ``scripts/make_accessor.py`` with the plot functions' own signatures; each method
imports :mod:`bayescm.plots`, and with it matplotlib, only when called.

Examples
--------
>>> from bayescm.{module} import {cls}
>>> sorted(n for n in dir({cls}) if n.startswith("plot_"))[:2]
{first_two}
\"\"\"

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, cast

import xarray as xr

from bayescm.core.arguments import keyword_checked

if TYPE_CHECKING:  # annotations only: matplotlib loads when a plotting method is called
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["{cls}"]


class {cls}:
    \"\"\"{what}: each draws the tree with :mod:`bayescm.plots`.

    Examples
    --------
    >>> import bayescm as bcm
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), draws=100)
    >>> callable(idata.bcm.{first})
    True
    \"\"\"

    _tree: xr.DataTree
"""

MIXINS = {  # file: (class, what it holds, methods)
    ROOT / "bayescm" / "accessor_plots.py": (
        "PlotMethods", "The figures of metrics and matrices",
        ("plot_metric", "plot_metrics", "plot_forest", "plot_theta", "plot_priors")),
    ROOT / "bayescm" / "accessor_curves.py": (
        "CurveMethods", "The figures of curves and groups",
        ("plot_roc", "plot_pr", "plot_reliability", "plot_delta_auc", "plot_sroc",
         "plot_group_forest", "plot_group_gaps")),
}
"""The plotting mixins the accessor inherits (each module stays short)."""


def _collected(names: list[str] | tuple[str, ...], examples: dict[str, str]) -> str:
    return "\n".join(method_source(name, examples) for name in names)


def _all_examples() -> dict[str, str]:
    out = _examples(TARGET)
    for path in MIXINS:
        out.update(_examples(path))
    return out


def render() -> str:
    """The accessor module's whole source (tables, analyses, saving)."""
    plotted = {n for _, _, names in MIXINS.values() for n in names}
    return HEADER + "\n" + _collected([n for n in METHODS if n not in plotted], _all_examples())


def render_mixin(path: Path) -> str:
    """One plotting mixin's whole source."""
    cls, what, names = MIXINS[path]
    first_two = repr(sorted(names)[:2])
    header = MIXIN_HEADER.format(what=what, module=path.stem, cls=cls, first=names[0],
                                 first_two=first_two)
    return header + "\n" + _collected(names, _all_examples())


def rendered() -> dict[Path, str]:
    """Every file this script writes, with its text (read before anything is written).

    The imports each file does not use are dropped by ruff (the same rules as the project's
    lint), so the text is exactly what the linted file holds.
    """
    import subprocess
    import sys
    import tempfile

    texts = {TARGET: render(), **{path: render_mixin(path) for path in MIXINS}}
    with tempfile.TemporaryDirectory() as folder:
        copies = {path: Path(folder) / path.name for path in texts}
        for path, copy in copies.items():
            copy.write_text(texts[path], encoding="utf-8")
        subprocess.run([sys.executable, "-m", "ruff", "check", "--fix", "--quiet",
                        "--select", "F401,I", "--config", str(ROOT / "pyproject.toml"),
                        *map(str, copies.values())], check=False, capture_output=True)
        return {path: copy.read_text(encoding="utf-8") for path, copy in copies.items()}


if __name__ == "__main__":
    for path, text in rendered().items():
        path.write_text(text, encoding="utf-8")
        print(f"wrote {path.relative_to(ROOT)}")
