"""One writer for every file bayescm creates: atomic, umask-respecting, never through a link.

:func:`atomic_write` writes into a temporary file in the destination's folder and renames it
over the destination. The rename replaces a symbolic link that stands at the destination
instead of writing through it (so ``summary.csv -> /etc/passwd`` in an output folder cannot be
used to overwrite the link's target), a reader never sees a half-written file, and an open
netCDF file can be replaced. The file gets the mode the umask gives a new file (``mkstemp``
would leave 0600). With ``root`` the destination must lie inside that folder (a spec named
``../../x`` cannot write outside its output folder).
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path

__all__ = ["atomic_write", "inside"]


def _umask() -> int:
    current = os.umask(0o022)
    os.umask(current)
    return current


def inside(root: str | os.PathLike[str], name: str | os.PathLike[str]) -> Path:
    """``root / name``, refusing a name that leaves ``root`` (``..``, absolute paths, links).

    Examples
    --------
    >>> import tempfile
    >>> from bayescm.core.files import inside
    >>> root = tempfile.mkdtemp()
    >>> inside(root, "fit.nc").name
    'fit.nc'
    >>> inside(root, "../escape.nc")
    Traceback (most recent call last):
    ...
    ValueError: '../escape.nc' would be written outside the output folder ...
    """
    base = Path(root).resolve()
    target = Path(name)
    if target.is_absolute():
        raise ValueError(f"{str(name)!r} is an absolute path; outputs are written inside the "
                         f"output folder {base}.")
    full = base / target
    parent = full.parent.resolve()  # follows links in the folders: they must stay inside too
    if parent != base and base not in parent.parents:
        raise ValueError(f"{str(name)!r} would be written outside the output folder {base}; "
                         "use a plain file name.")
    return parent / full.name


def atomic_write(path: str | os.PathLike[str], write: Callable[[Path], None], *,
                 root: str | os.PathLike[str] | None = None) -> Path:
    """Write a file through a temporary file in its folder, then rename it into place.

    Parameters
    ----------
    path : str or Path
        Destination (relative to ``root`` when given).
    write : callable
        ``write(tmp_path)`` writes the content to the temporary path.
    root : str or Path, optional
        Folder the destination must stay inside.

    Returns
    -------
    Path
        The destination.

    Examples
    --------
    >>> import tempfile
    >>> from bayescm.core.files import atomic_write
    >>> root = tempfile.mkdtemp()
    >>> atomic_write("note.txt", lambda p: p.write_text("hello"), root=root).read_text()
    'hello'
    """
    dest = inside(root, path) if root is not None else Path(path)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=".tmp", dir=dest.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, dest)  # replaces a link at dest; never follows it
    finally:
        if tmp.exists():
            tmp.unlink()
    return dest
