"""Names that moved: they keep working for one release with a warning that names the new one.

A module whose public names moved defines ``__getattr__ = moved(__name__, {...})``; reading an
old name returns the new object and issues a :class:`DeprecationWarning` (attributed to the
user's line) that says where it lives now and when the old spelling goes.

Examples
--------
>>> import warnings
>>> from bayescm.core.deprecation import moved
>>> getattr_ = moved("old.place", {"Normal": ("bayescm.priors", "Normal")})
>>> with warnings.catch_warnings(record=True) as seen:
...     warnings.simplefilter("always")
...     cls = getattr_("Normal")
>>> cls.__name__, "bayescm.priors.Normal" in str(seen[0].message)
('Normal', True)
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any

from bayescm.core.arguments import PACKAGE_DIR

__all__ = ["REMOVED_IN", "moved", "warn_deprecated"]

REMOVED_IN = "the release after the next one"
"""When deprecated spellings stop working: they keep working, with a warning, for one release
after 0.1.0 (the messages name released versions only)."""


def warn_deprecated(old: str, new: str) -> None:
    """Warn that ``old`` is deprecated in favour of ``new`` (removed in :data:`REMOVED_IN`).

    Examples
    --------
    >>> import warnings
    >>> from bayescm.core.deprecation import warn_deprecated
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     warn_deprecated("fit(tpr=...)", "fit(priors={'tpr': ...})")
    >>> seen[0].category.__name__
    'DeprecationWarning'
    """
    warnings.warn(f"{old} is deprecated since bayescm 0.1.0 and will be removed in "
                  f"{REMOVED_IN}; use {new} instead.", DeprecationWarning,
                  skip_file_prefixes=(PACKAGE_DIR,))


def moved(module: str, names: Mapping[str, tuple[str, str]]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that serves moved names with a deprecation warning.

    Parameters
    ----------
    module : str
        The old module's name (``__name__``).
    names : mapping of str -> (str, str)
        Old name -> (new module, new name).

    Returns
    -------
    callable
        The ``__getattr__`` to assign in the old module.
    """
    def __getattr__(name: str) -> Any:  # noqa: N807 (the module hook Python calls)
        if name not in names:
            raise AttributeError(f"module {module!r} has no attribute {name!r}")
        where, new = names[name]
        warn_deprecated(f"{module}.{name}", f"{where}.{new}")
        return getattr(import_module(where), new)

    return __getattr__
