"""Old module paths (before the 0.3 layout) keep working, with one DeprecationWarning each.

``import bayescm.fitting`` or ``from bayescm.compare import prob_superior`` (and pickles that
name an old path) load the module's new home, e.g. :mod:`bayescm.models.fitting`, and warn
once per old path. The public names (``bcm.fit``, ``bcm.prob_superior``, ...) never moved.
"""

from __future__ import annotations

import importlib
import importlib.machinery
import sys
import warnings
from types import ModuleType
from typing import TYPE_CHECKING, Any, cast

if TYPE_CHECKING:
    from importlib.abc import Loader

__all__ = ["MOVED", "install"]

MOVED = {
    "_validate": "core.validate", "_random": "core.streams", "_resources": "core.resources",
    "_container": "core.container", "_schema": "core.schema", "_output": "core.files",
    "stats": "core.stats", "diagnostics": "core.diagnostics", "exact": "core.exact",
    "confusion": "core.confusion", "scores": "core.scores", "metrics_multiclass":
    "metrics.multiclass", "elicit": "priors.elicit", "binary": "models.binary",
    "multiclass": "models.multiclass", "model": "models.build", "_pipeline": "models.pipeline",
    "_trees": "models.context", "fitting": "models.fitting", "hierarchical":
    "models.hierarchical", "roc_model": "models.scores", "roc": "models.roc",
    "_nuts": "models.nuts", "summary": "analyses.summary", "prevalence": "analyses.prevalence",
    "predictive": "analyses.predictive", "sensitivity": "analyses.sensitivity",
    "samplesize": "analyses.samplesize", "simulate": "analyses.simulate",
    "batch": "analyses.batch", "frequentist": "analyses.frequentist",
    "compare": "comparisons.superiority", "paired": "comparisons.paired", "spec": "io.spec",
    "runner": "io.runner", "datasets": "io.datasets",
}
"""Old module (below ``bayescm.``) -> its new home."""

PUBLIC = frozenset({"stats", "diagnostics", "datasets", "samplesize", "frequentist", "spec"})
"""Old paths that are also public module names of ``bcm`` (``bcm.stats``): no warning."""

_warned: set[str] = set()
_HERE = __file__


class _Alias:  # a loader (duck-typed: importing importlib.abc costs ~18 ms at start-up)
    def __init__(self, target: str) -> None:
        self.target = target

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        return importlib.import_module(self.target)

    def exec_module(self, module: ModuleType) -> None:  # the target is already executed
        return None


class _OldPaths:  # a meta path finder (duck-typed)
    def find_spec(self, fullname: str, path: Any = None, target: Any = None
                  ) -> importlib.machinery.ModuleSpec | None:
        head, _, old = fullname.partition(".")
        if head != "bayescm" or old not in MOVED:
            return None
        new = f"bayescm.{MOVED[old]}"
        if old not in PUBLIC and fullname not in _warned:
            _warned.add(fullname)
            warnings.warn(f"{fullname} moved to {new} in bayescm 0.3; import it from there (or "
                          "use the names in bayescm's namespace, which did not move).",
                          DeprecationWarning, skip_file_prefixes=("<frozen", _HERE))
        return importlib.machinery.ModuleSpec(fullname, cast("Loader", _Alias(new)))


def install() -> None:
    """Put the old-path finder on ``sys.meta_path`` (once).

    An old module named like a public function (``bayescm.summary``, ``bayescm.simulate``)
    is put in ``sys.modules`` directly: importing it through the finder would bind the module
    to the package attribute and hide the function ``bcm.summary``.
    """
    package = sys.modules["bayescm"]
    for old, new in MOVED.items():
        attr = vars(package).get(old)  # (no lazy import triggered)
        if attr is not None and not isinstance(attr, ModuleType):
            sys.modules.setdefault(f"bayescm.{old}", importlib.import_module(f"bayescm.{new}"))
    if not any(isinstance(f, _OldPaths) for f in sys.meta_path):
        sys.meta_path.append(_OldPaths())
