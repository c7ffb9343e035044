"""The documentation site's promises that need no build: every public name is in the API
reference, and the public docstrings pass numpydoc's validation (issue 18, points 1 and 4).

The site itself is built in CI (``.ci/run``: ``sphinx -W --keep-going``), which fails on a
docstring numpydoc cannot parse or a cross-reference that does not resolve.
"""

from __future__ import annotations

import re
import types
from pathlib import Path

import pytest

import bayescm as bcm
import bayescm.plots

API_INDEX = Path(__file__).resolve().parents[1] / "docs" / "api" / "index.rst"

CHECKS = {
    "GL08",  # the object has a docstring
    "SS01", "SS02", "SS03", "SS04", "SS06",  # a one-line summary: capitalised, ends with a
    # period, no leading whitespace, fits on one line. SS05 ("infinitive verb, not third
    # person") is left out: the project writes summaries as noun phrases ("Posterior
    # probability that ...", "Gaps between groups ..."), which SS05 misreads as verbs.
    "PR01", "PR02",  # every parameter documented, and only parameters of the signature
    "RT01",  # a Returns section for a function that returns something
    "EX01",  # an Examples section
}


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


def _validated() -> list[str]:
    names = [f"bayescm.{n}" for n in bcm.__all__ if callable(getattr(bcm, n))
             and not isinstance(getattr(bcm, n), types.ModuleType) and n != "rcParams"]
    return names + [f"bayescm.plots.{n}" for n in bayescm.plots.__all__]


@pytest.mark.parametrize("name", _validated())
def test_public_docstring_passes_numpydoc_validation(name: str) -> None:
    validate = pytest.importorskip("numpydoc.validate", reason="needs the docs extra: "
                                   "bash scripts/setup.sh docs").validate
    errors = [f"{code}: {message}" for code, message in validate(name)["errors"]
              if code in CHECKS]
    assert not errors, f"{name}:\n" + "\n".join(errors)
