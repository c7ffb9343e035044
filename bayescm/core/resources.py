"""Refusing the absurd up front: memory a computation needs against what the machine has.

A fit keeps every draw of every variable, so ``draws=10**8`` or 20,000 matrices at the default
4 x 5,000 draws need tens or hundreds of GB. Numpy would find out only after a minute of work,
with a bare ``MemoryError``; :func:`check_memory` finds out before anything is allocated and
says how much is needed and what to do instead.
"""

from __future__ import annotations

import os
from collections.abc import Iterable

from bayescm.errors import ResourceLimitError

__all__ = ["ResourceLimitError", "available_memory", "check_memory", "check_time",
           "format_bytes"]

BYTES_PER_VALUE = 8
"""Bytes of one stored draw (float64)."""

OVERHEAD = 1.6
"""Working memory on top of the stored draws (temporaries of the metric formulas, the tree)."""

SECONDS_PER_VALUE = 5e-9
"""Rough cost of producing one stored value on the project machine (for the message only)."""


def available_memory() -> int:
    """Bytes of memory available to this process (``MemAvailable``, else physical pages).

    Examples
    --------
    >>> from bayescm.core.resources import available_memory
    >>> available_memory() > 0
    True
    """
    try:
        with open("/proc/meminfo", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):  # pragma: no cover - non-POSIX
        return 2**40


def format_bytes(n: float) -> str:
    """``'12.5 GB'``.

    Examples
    --------
    >>> from bayescm.core.resources import format_bytes
    >>> format_bytes(1.25e10)
    '12.5 GB'
    """
    for unit, size in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if n >= size:
            return f"{n / size:.3g} {unit}"
    return f"{n:.0f} B"


SMALL = 64 * 2**20
"""Memory needs below this (64 MB) pass :func:`check_memory` without asking the system."""


def check_memory(values: float, what: str, remedies: Iterable[str], *,
                 bytes_each: float = BYTES_PER_VALUE * OVERHEAD) -> None:
    """Raise :class:`ResourceLimitError` when ``values`` stored floats will not fit in memory.

    Parameters
    ----------
    values : float
        Number of values (float64 draws by default) the computation stores.
    what : str
        What is being computed, for the message (``"this fit"``).
    remedies : iterable of str
        Ways out, listed in the message.
    bytes_each : float, optional
        Bytes one value really takes, working memory included (default: a float64 draw with
        :data:`OVERHEAD`); e.g. a Python object's measured size.

    Examples
    --------
    >>> from bayescm.core.resources import check_memory
    >>> check_memory(1e3, "a small fit", ["fewer draws"])   # fits: nothing happens
    >>> check_memory(1e15, "this fit", ["fewer draws"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bayescm.errors.ResourceLimitError: this fit would need about 12.8 PB of memory ...
    """
    need = float(values) * bytes_each
    if need <= SMALL:  # no machine running Python lacks this much: skip reading the system
        return
    have = available_memory()
    if need <= 0.8 * have:
        return
    minutes = float(values) * SECONDS_PER_VALUE / 60
    when = f" and about {minutes:.0f} minutes" if minutes >= 1 else ""
    need_text = format_bytes(need) if need < 1e15 else f"{need / 1e15:.3g} PB"
    raise ResourceLimitError(
        f"{what} would need about {need_text} of memory{when}, but "
        f"{format_bytes(have)} are available. Ways out: {'; '.join(remedies)}.")


TIME_LIMIT_S = 3600.0
"""Computations estimated to take longer than this are refused (one hour)."""


def check_time(values: float, what: str, remedies: Iterable[str],
               seconds_per_value: float = SECONDS_PER_VALUE) -> None:
    """Raise :class:`ResourceLimitError` when producing ``values`` would take over an hour.

    For computations that work in bounded memory (chunks) but whose size the user controls, such
    as ``leaderboard(draws=2**63)``: they would not run out of memory, they would never end.

    Examples
    --------
    >>> from bayescm.core.resources import check_time
    >>> check_time(1e6, "a leaderboard", ["fewer draws"])
    >>> check_time(1e20, "a leaderboard", ["fewer draws"])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bayescm.errors.ResourceLimitError: a leaderboard would take about ... hours ...
    """
    seconds = float(values) * seconds_per_value
    if seconds <= TIME_LIMIT_S:
        return
    raise ResourceLimitError(
        f"{what} would take about {seconds / 3600:.3g} hours on this kind of machine. Ways "
        f"out: {'; '.join(remedies)}.")
