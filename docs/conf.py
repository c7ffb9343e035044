"""Sphinx configuration of the bayescm documentation site.

Build (from the repository root): ``.venv/bin/python -m sphinx -W --keep-going -b html docs
docs/_build/html``, then open ``docs/_build/html/index.html``.

Before the build this file
* copies ``notebooks/*.ipynb`` into ``docs/notebooks/`` (git-ignored) so that myst-nb renders
  them from their stored outputs (``nb_execution_mode = "off"``; the slow test
  ``tests/test_notebooks.py`` checks in CI that the stored outputs are what the code computes),
  rewriting the one image link that points out of ``notebooks/`` (``../docs/images/...``);
* draws the landing page's figure and the figures of the validation page
  (``docs/_scripts/make_figures.py``, into ``docs/_generated/``, git-ignored).
"""

from __future__ import annotations

import importlib
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(DOCS / "_scripts"))

import make_figures  # noqa: E402

import bayescm  # noqa: E402

project = "bayescm"
author = "bayescm developers"
copyright = "2026, bayescm developers"
release = bayescm.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "myst_nb",
    "sphinx_copybutton",
    "sphinxarg.ext",
]
# No sphinx.ext.intersphinx: the build machines reach no documentation site, and a failed
# inventory fetch is a warning that -W turns into an error. References to NumPy, xarray,
# ArviZ, PyMC and pandas objects therefore stay plain text (see nitpick_ignore_regex below).

source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "_scripts", "images/README.md", "**.ipynb_checkpoints"]
templates_path = ["_templates"]
html_static_path = ["_static"]
html_css_files = ["custom.css"]

# -- MyST and notebooks ---------------------------------------------------------------------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
nb_execution_mode = "off"  # stored outputs; CI's tests/test_notebooks.py checks they are fresh
nb_merge_streams = True

# -- API reference ----------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types
numpydoc_show_class_members = False  # autosummary pages list members themselves
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# numpydoc's validation runs as a test (tests/test_docstrings.py) over the public API with
# the checks listed there; the build itself checks that every docstring parses.

# Cross-references to objects of other packages cannot resolve without intersphinx.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(numpy|np|xarray|xr|pandas|pd|pymc|pm|arviz|az|scipy|matplotlib|preliz"
               r"|pymc_extras|panel|dask|distributed|sklearn)(\..*)?"),
    (r"py:.*", r"(DataTree|Dataset|DataArray|DataFrame|Series|ndarray|Generator|SeedSequence"
               r"|Axes|Figure|Model|Path|Mapping|Sequence|Iterable|Hashable|Callable|Any)"),
]

# -- HTML -------------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"bayescm {release}"
html_theme_options = {
    "navbar_align": "left",
    "show_toc_level": 2,
    "navigation_with_keys": False,
    "header_links_before_dropdown": 5,  # the rest under "More": one row of links
    "navbar_persistent": ["search-button"],
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
    "secondary_sidebar_items": ["page-toc"],
}
html_context = {"default_mode": "light"}
# The API reference's pages number about 150: a sidebar listing them all buries the page
# itself, so those pages show the breadcrumbs and the page's own outline instead.
html_sidebars = {"api/index": [], "api/generated/*": [], "index": []}
html_show_sourcelink = False
copybutton_prompt_text = r">>> |\.\.\. |\$ "
copybutton_prompt_is_regexp = True


# -- files made before the build ----------------------------------------------------------------
def _copy_notebooks() -> None:
    """Copy the notebooks next to the pages, pointing their image links at ``docs/images``."""
    target = DOCS / "notebooks"
    target.mkdir(exist_ok=True)
    sources = sorted((ROOT / "notebooks").glob("*.ipynb"))
    for stale in set(target.glob("*.ipynb")) - {target / s.name for s in sources}:
        stale.unlink()
    for source in sources:
        text = source.read_text(encoding="utf-8").replace("../docs/images/", "../images/")
        json.loads(text)  # still a notebook
        dest = target / source.name
        if not dest.exists() or dest.read_text(encoding="utf-8") != text:
            dest.write_text(text, encoding="utf-8")  # unchanged files keep their time stamps


def _copy_ci_figures() -> None:
    """Figures CI wrote in its last slow run (``ci-output/figures``), if any, for the
    validation page; else the page shows the figures drawn here.
    """
    source = Path(os.environ.get("BAYESCM_FIGURES", ROOT / "ci-output" / "figures"))
    target = DOCS / "_generated" / "ci"
    if target.exists():
        shutil.rmtree(target)
    if source.is_dir():
        target.mkdir(parents=True)
        for png in sorted(source.glob("*.png")):
            shutil.copy2(png, target / png.name)


_copy_notebooks()
_copy_ci_figures()
make_figures.main(DOCS / "_generated")


# -- references by implementation path ----------------------------------------------------------
# Docstrings often name an object by the module that defines it
# (:func:`bayescm.comparisons.groups.group_gaps`), while the reference documents it under its
# public name (bayescm.group_gaps). Such a reference is not broken: it names a documented
# object. This hook resolves it to the documented page when, and only when, importing the
# target gives the very object that a documented name gives; anything else stays a warning
# (and -W makes it an error).
_MISSING = object()


def _import(path: str) -> Any:
    parts = path.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return _MISSING
        return obj
    return _MISSING


_KINDS = {"func": ("function",), "class": ("class", "exception"), "data": ("data",),
          "meth": ("method", "classmethod", "staticmethod"), "mod": ("module",)}
_DOCUMENTED: dict[int, str] = {}  # id of a documented object -> its documented name


def _key(obj: Any) -> int | None:
    """Identity of a module, class, function or method (bound methods by their function)."""
    if isinstance(obj, (int, float, complex, str, bytes, bool)) or obj is None:
        return None  # small values are shared between unrelated names
    return id(getattr(obj, "__func__", obj))


def _documented(env: Any) -> dict[int, str]:
    """Every documented object by identity (made once per build)."""
    if not _DOCUMENTED:
        for name, entry in env.get_domain("py").objects.items():
            key = _key(_import(name))
            if not entry.aliased and key is not None:
                _DOCUMENTED.setdefault(key, name)
    return _DOCUMENTED


def _contexts(node: Any) -> list[str]:
    """Where a relative name may live: the page's module and class, and the module that
    defines the docstring (``...:docstring of bayescm.io.spec.load_spec``).
    """
    module, cls = node.get("py:module"), node.get("py:class")
    found = [f"{module}.{cls}" if module and cls else None, cls, module]
    source = str(node.source or "")
    if ":docstring of " in source:
        owner = source.split(":docstring of ", 1)[1]
        found += [owner, owner.rpartition(".")[0], owner.rpartition(".")[0].rpartition(".")[0]]
    return [c for c in found if c]


def _resolve_by_identity(app: Any, env: Any, node: Any, contnode: Any) -> Any:
    if node.get("refdomain") != "py":
        return None
    target = node["reftarget"].lstrip("~.")
    objects = env.get_domain("py").objects
    exists = False
    for candidate in [*(f"{c}.{target}" for c in _contexts(node)), target]:
        if candidate in objects:  # documented under the name the docstring's module gives
            name = candidate
        else:
            obj = _import(candidate)
            exists = exists or (obj is not _MISSING and candidate.startswith("bayescm"))
            key = None if obj is _MISSING else _key(obj)
            name = _documented(env).get(key) if key is not None else None
        if name is None and candidate == target:  # a summary line in an autosummary table
            kinds = _KINDS.get(node.get("reftype"), ())
            ends = [n for n, entry in objects.items() if n.endswith("." + target)
                    and (not kinds or entry.objtype in kinds)]
            name = ends[0] if len(ends) == 1 else None
        if name is not None:
            found = env.get_domain("py").resolve_any_xref(
                env, node["refdoc"], app.builder, name, node, contnode)
            return found[0][1] if found else None
    # an internal object of bayescm that exists but has no page of its own (a helper module,
    # a private function a docstring names): plain text, no warning; a name that does not
    # exist at all (a typo, a renamed object) still fails the build
    return contnode if exists else None


def setup(app: Any) -> None:
    app.connect("missing-reference", _resolve_by_identity)
