"""Stored draws for live teaching: a lesson's slow fits, sampled once and read back in class.

A few cells of the lessons run NUTS for 5-30 s (their run times are in each notebook's second
cell). In a live class that is too long to wait, so each such cell goes through
:func:`fit_or_read`. With ``QUICK = False`` (the set-up cell's default, and how the stored
outputs and the site were made) the fit is sampled as the cell says and its draws are written
to ``notebooks/fits/``. With ``QUICK = True`` the cell reads the draws an earlier run wrote, in
about a second, and prints the same tables (same draws, same code); with nothing stored yet
it samples and stores, so the first run is the slow one. Run the notebook once before the
class, then teach with ``QUICK = True``. The draws are not committed (tens of MB per lesson);
``scripts/student_notebooks.py`` switches the student copies to ``QUICK = True`` and copies
this module and any stored draws beside them.

Exact draws (conjugate posteriors, no sampler) need no fallback: they take milliseconds.

Examples
--------
>>> import numpy as np, tempfile
>>> from pathlib import Path
>>> folder = Path(tempfile.mkdtemp())
>>> first = fit_or_read("demo", lambda: np.arange(3.0), quick=False, folder=folder)
>>> fit_or_read("demo", lambda: 1 / 0, quick=True, folder=folder).tolist()  # not sampled
[0.0, 1.0, 2.0]
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

import bayescm as bcm

FITS = Path(os.environ.get("BAYESCM_LESSON_FITS") or Path(__file__).resolve().parent / "fits")
"""Where the draws of the slow cells are kept (one file per cell, named by the lesson);
the environment variable ``BAYESCM_LESSON_FITS`` points elsewhere (the notebook tests do, so
a test run never rewrites the stored draws)."""


def _path(name: str, folder: Path, kind: str) -> Path:
    return folder / f"{name}.{'nc' if kind == 'tree' else 'npy'}"


def fit_or_read(name: str, fit: Callable[[], Any], *, quick: bool,
                folder: Path = FITS) -> Any:
    """Sample ``fit()`` and store its draws as ``name``, or read them back when ``quick``.

    Parameters
    ----------
    name : str
        The stored file's name (``"07_audit_c"``), unique across the lessons.
    fit : callable
        No arguments; returns a bayescm result tree or a NumPy array of draws.
    quick : bool
        True: read what an earlier run stored under ``name`` (``fit`` is not called), or
        sample and store when nothing is stored yet.
    folder : Path
        Where the draws live (``notebooks/fits``).

    Returns
    -------
    xarray.DataTree or numpy.ndarray
        The fit, sampled now or read back.
    """
    if quick:
        for kind in ("tree", "array"):
            path = _path(name, folder, kind)
            if path.exists():
                return bcm.load(path) if kind == "tree" else np.load(path)
        print(f"QUICK = True but no draws stored for {name!r} yet: sampling them once.")
    result = fit()
    folder.mkdir(parents=True, exist_ok=True)
    if isinstance(result, xr.DataTree):
        bcm.save(result, _path(name, folder, "tree"), compact=False)  # exact: same tables
    else:
        np.save(_path(name, folder, "array"), np.asarray(result))
    return result
