"""One writer for every file bayescm creates: atomic, umask-respecting, never through a link.

:func:`atomic_write` writes into a temporary file in the destination's folder and renames it
over the destination. The rename replaces a symbolic link that stands at the destination
instead of writing through it (so ``summary.csv -> /etc/passwd`` in an output folder cannot be
used to overwrite the link's target), a reader never sees a half-written file, and an open
netCDF file can be replaced. The file gets the mode the umask gives a new file (``mkstemp``
would leave 0600). With ``root`` the destination must lie inside that folder (a spec named
``../../x`` cannot write outside its output folder).

A destination that cannot be written (a folder where a file is asked for, a file where a
folder is, a name too long for the file system, no permission, a full disk) is an
:class:`OutputError` that names the path and says what to do, never a raw ``OSError``;
:func:`check_file` and :func:`check_folder` find the first kinds before a long computation.
"""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from bayescm.errors import OutputError

__all__ = ["OutputError", "atomic_write", "check_file", "check_folder", "ensure_folder",
           "inside"]


_REASONS = {
    errno.ENAMETOOLONG: "the name is too long for the file system (at most 255 bytes per "
                        "name): choose a shorter name",
    errno.EACCES: "permission denied: choose a folder you can write to",
    errno.EPERM: "permission denied: choose a folder you can write to",
    errno.EROFS: "the file system is read-only: choose another folder",
    errno.ENOSPC: "the disk is full: free some space or choose another disk",
    errno.EDQUOT: "the disk quota is exceeded: free some space or choose another disk",
    errno.ENOTDIR: "a part of the path is a file, not a folder: choose another path",
    errno.EISDIR: "it is a folder: give a file name inside it",
}


def _os_error(path: Path | str, err: OSError, action: str) -> OutputError:
    reason = _REASONS.get(err.errno or -1, err.strerror or str(err))
    return OutputError(f"cannot {action} {path}: {reason}.")


def check_file(path: str | os.PathLike[str], example: str = "result.nc") -> Path:
    """Refuse a file destination that cannot be written: a folder, or a file as its folder.

    Nothing is created. Returns the path. ``example`` is the file name a message suggests
    inside a folder given instead of a file.

    Examples
    --------
    >>> import os, tempfile
    >>> from bayescm.core.files import check_file
    >>> check_file(os.path.join(tempfile.mkdtemp(), "new", "fit.nc")).name
    'fit.nc'
    """
    path = Path(path)
    try:
        is_dir = path.is_dir()
        blocking = next((p for p in path.parents if p.exists()), None)
    except OSError as err:  # a name too long, a folder that cannot be searched
        raise _os_error(path, err, "write") from None
    if is_dir:
        raise OutputError(f"{path} is a folder; give a file name inside it (e.g. "
                          f"{path / example}).")
    if blocking is not None and not blocking.is_dir():
        raise OutputError(f"{blocking} is a file, so {path} cannot be written inside it; "
                          "choose another path.")
    return path


def check_folder(path: str | os.PathLike[str], what: str = "outputs") -> Path:
    """Refuse a folder destination that is a file (or lies inside one). Nothing is created.

    Examples
    --------
    >>> import tempfile
    >>> from bayescm.core.files import check_folder
    >>> check_folder(tempfile.mkstemp()[1])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bayescm.errors.OutputError: ... is a file, not a folder: give a folder for the outputs ...
    """
    path = Path(path)
    try:
        is_file = path.exists() and not path.is_dir()
        blocking = next((p for p in path.parents if p.exists()), None)
    except OSError as err:  # a name too long, a folder that cannot be searched
        raise _os_error(path, err, f"create the folder for the {what}") from None
    if is_file:
        raise OutputError(f"{path} is a file, not a folder: give a folder for the {what} "
                          "(created if needed), or remove the file.")
    if blocking is not None and not blocking.is_dir():
        raise OutputError(f"{blocking} is a file, so the folder {path} for the {what} cannot "
                          "be made inside it; choose another folder.")
    return path


def ensure_folder(path: str | os.PathLike[str], what: str = "outputs") -> Path:
    """Create a folder (and its parents) if needed; a file in the way is an OutputError.

    Examples
    --------
    >>> import os, tempfile
    >>> from bayescm.core.files import ensure_folder
    >>> ensure_folder(os.path.join(tempfile.mkdtemp(), "a", "b")).is_dir()
    True
    """
    path = check_folder(path, what)
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise _os_error(path, err, f"create the folder for the {what}") from None
    return path


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

    Raises
    ------
    OutputError
        A destination that cannot be written (see the module's docstring).

    Examples
    --------
    >>> import tempfile
    >>> from bayescm.core.files import atomic_write
    >>> root = tempfile.mkdtemp()
    >>> atomic_write("note.txt", lambda p: p.write_text("hello"), root=root).read_text()
    'hello'
    """
    dest = inside(root, path) if root is not None else Path(path)
    check_file(dest)
    ensure_folder(dest.parent, dest.name)
    try:  # a short prefix: a long valid name must not fail through its temporary file's name
        fd, tmp_name = tempfile.mkstemp(prefix=f".{dest.name[:32]}.", suffix=".tmp",
                                        dir=dest.parent)
    except OSError as err:
        raise _os_error(dest, err, "write") from None
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        write(tmp)
        os.chmod(tmp, 0o666 & ~_umask())
        os.replace(tmp, dest)  # replaces a link at dest; never follows it
    except OSError as err:
        raise _os_error(dest, err, "write") from None
    finally:
        if tmp.exists():
            tmp.unlink()
    return dest
