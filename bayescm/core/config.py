"""Package settings: ``rcParams``, a validated mapping of defaults, and ``rc_context``.

Functions whose default would otherwise be a literal read it from :data:`rcParams` when they
are called (an argument left at ``None`` means "the current setting"), so a notebook can change
a default once, or for one block with :func:`rc_context`, instead of at every call.

=====================  =============  ==========================================================
key                    default        meaning
=====================  =============  ==========================================================
``stats.hdi_prob``     ``0.95``       probability of highest-density (and frequentist) intervals
                                      when a function is given none; a fitted result records
                                      its own (its ``hdi_prob`` attribute), which wins for
                                      summaries of that result
``plot.units``         ``"percent"``  how every figure shows proportions (the API's, the command
                                      line's, the spec runner's and the web app's):
                                      ``"percent"`` (89.4 %, widths in percentage points) or
                                      ``"proportion"`` (0.894)
``plot.preset``        ``"default"``  the size of new figures and their text: ``"default"``
                                      (screens and notebooks), ``"slide"`` (10 in wide, text
                                      from 12 pt), ``"column"`` (one journal column, 3.5 in)
                                      or ``"two_column"`` (a page width, 7.2 in); with a
                                      print preset the text is at least 7 pt at print size
=====================  =============  ==========================================================

Every key has a validator: an unknown key or an invalid value raises :class:`RcParamsError`
naming the valid keys or values. Keys cannot be deleted; :meth:`RcParams.reset` restores
defaults.

Examples
--------
>>> import bayescm as bcm
>>> bcm.rcParams["stats.hdi_prob"]
0.95
>>> with bcm.rc_context({"stats.hdi_prob": 0.89}):
...     bcm.rcParams["stats.hdi_prob"]
0.89
>>> bcm.rcParams["stats.hdi_prob"]
0.95
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from contextlib import AbstractContextManager, contextmanager
from typing import Any, NoReturn

from bayescm.errors import RcParamsError

__all__ = ["PLOT_PRESETS", "RcParams", "RcParamsError", "rcParams", "rc_context"]


def _probability(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise ValueError(f"must be a number strictly between 0 and 1, got {value!r}")
    value = float(value)
    if not (math.isfinite(value) and 0.0 < value < 1.0):
        raise ValueError(f"must be a number strictly between 0 and 1, got {value!r}")
    return value


def _choice(*options: str) -> Callable[[Any], str]:
    def validate(value: Any) -> str:
        key = value.strip().lower() if isinstance(value, str) else value
        if key not in options:
            raise ValueError(f"must be one of {', '.join(map(repr, options))}, got {value!r}")
        return str(key)

    return validate


PLOT_PRESETS = ("default", "slide", "column", "two_column")
"""The names ``rcParams["plot.preset"]`` takes (their sizes: :mod:`bayescm.plots._style`)."""

DEFAULTS: dict[str, tuple[Any, Callable[[Any], Any]]] = {
    "stats.hdi_prob": (0.95, _probability),
    "plot.units": ("percent", _choice("percent", "proportion")),
    "plot.preset": ("default", _choice(*PLOT_PRESETS)),
}
"""Every key: its default value and its validator (which returns the value to store)."""


class RcParams(MutableMapping[str, Any]):
    """A mapping of settings whose keys are fixed and whose values are validated when set.

    Examples
    --------
    >>> from bayescm.core.config import RcParams
    >>> rc = RcParams()
    >>> rc["plot.units"] = "proportion"
    >>> rc["plot.units"]
    'proportion'
    >>> rc["plot.unit"] = "percent"  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bayescm.errors.RcParamsError: 'plot.unit' is not a setting; valid keys: plot.preset, ...
    """

    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        self._values: dict[str, Any] = {key: default for key, (default, _) in DEFAULTS.items()}
        if values:
            self.update(values)

    @staticmethod
    def _unknown(key: Any) -> NoReturn:
        raise RcParamsError(f"{key!r} is not a setting; valid keys: {', '.join(sorted(DEFAULTS))}.")

    def validate(self, key: str, value: Any) -> Any:
        """The value as it would be stored under ``key``; raises :class:`RcParamsError`."""
        if key not in DEFAULTS:
            self._unknown(key)
        try:
            return DEFAULTS[key][1](value)
        except ValueError as err:
            raise RcParamsError(f"rcParams[{key!r}] {err}.") from None

    def __getitem__(self, key: str) -> Any:
        if key not in self._values:
            self._unknown(key)
        return self._values[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self._values[key] = self.validate(key, value)

    def __delitem__(self, key: str) -> None:
        raise TypeError("Settings cannot be deleted; use rcParams.reset(key) to restore a default.")

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._values))

    def __len__(self) -> int:
        return len(self._values)

    def __repr__(self) -> str:
        body = ", ".join(f"{k!r}: {self._values[k]!r}" for k in self)
        return f"RcParams({{{body}}})"

    def reset(self, key: str | None = None) -> None:
        """Restore the default of ``key``, or of every key.

        Examples
        --------
        >>> from bayescm.core.config import RcParams
        >>> rc = RcParams({"stats.hdi_prob": 0.9})
        >>> rc.reset("stats.hdi_prob"); rc["stats.hdi_prob"]
        0.95
        """
        for name in DEFAULTS if key is None else [key]:
            if name not in DEFAULTS:
                self._unknown(name)
            self._values[name] = DEFAULTS[name][0]

    def copy(self) -> dict[str, Any]:
        """The current settings as a plain dict."""
        return dict(self._values)


rcParams = RcParams()  # noqa: N816 (the name ArviZ and matplotlib use)
"""The package's settings (see the module docstring for the keys)."""


def _key(name: str) -> str:
    """``stats_hdi_prob`` -> ``stats.hdi_prob`` (keyword arguments cannot hold dots)."""
    if name in DEFAULTS:
        return name
    section, _, rest = name.partition("_")
    return f"{section}.{rest}" if rest else name


def rc_context(rc: Mapping[str, Any] | None = None, **changes: Any
               ) -> AbstractContextManager[RcParams]:
    """Change settings for the duration of a ``with`` block, then restore them.

    The changes are checked when ``rc_context`` is called, so a bad one raises before the
    block runs and nothing is changed.

    Parameters
    ----------
    rc : mapping, optional
        ``{key: value}``, e.g. ``{"stats.hdi_prob": 0.9}``.
    **changes
        The same as keywords, the section separated by an underscore:
        ``rc_context(stats_hdi_prob=0.9, plot_units="proportion", plot_preset="column")``.

    Returns
    -------
    contextlib.AbstractContextManager
        Use it in a ``with`` statement; it yields :data:`rcParams` with the changes applied.

    Raises
    ------
    TypeError
        ``rc`` is not a mapping (``rc_context("column")``: name the setting,
        ``rc_context(plot_preset="column")``).
    RcParamsError
        An unknown key or invalid value; nothing is changed then.

    See Also
    --------
    bayescm.rcParams : The settings and their current values.
    bayescm.stats.hdi_prob_for : How ``stats.hdi_prob`` is chosen when no argument gives it.

    Examples
    --------
    >>> import numpy as np
    >>> import bayescm as bcm
    >>> draws = np.random.default_rng(0).normal(size=20_000)
    >>> with bcm.rc_context(stats_hdi_prob=0.5):
    ...     lo, hi = bcm.stats.hdi(draws)
    >>> round(float(hi - lo), 2)  # the central half of a standard normal: 2 x 0.674
    1.35
    >>> with bcm.rc_context(plot_preset="column"):
    ...     bcm.rcParams["plot.preset"]
    'column'
    >>> bcm.rc_context("column")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: rc_context takes a mapping {key: value} or keywords, not str 'column'; e.g. ...
    """
    if rc is not None and not isinstance(rc, Mapping):
        raise TypeError(
            f"rc_context takes a mapping {{key: value}} or keywords, not {type(rc).__name__} "
            f"{rc!r}; e.g. rc_context({{'plot.preset': 'column'}}) or "
            f"rc_context(plot_preset='column'). Settings: {', '.join(sorted(DEFAULTS))}.")
    wanted = dict(rc or {})
    wanted.update({_key(name): value for name, value in changes.items()})
    checked = {key: rcParams.validate(key, value) for key, value in wanted.items()}
    return _applied(checked)


@contextmanager
def _applied(checked: dict[str, Any]) -> Iterator[RcParams]:
    """Apply checked values to :data:`rcParams` for a ``with`` block, then restore them."""
    saved = rcParams.copy()
    try:
        rcParams._values.update(checked)
        yield rcParams
    finally:
        rcParams._values.update(saved)
