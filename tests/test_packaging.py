"""The release artefacts: an sdist and a wheel that build, pass ``twine check`` and install.

Slow (about a minute, most of it pip installing the dependencies into a fresh virtual
environment): builds both with ``python -m build``, checks what the wheel carries (the package,
its data sets and ``py.typed``; nothing from ``tests/`` or ``notebooks/``) and the version it
declares, installs the wheel into a new venv outside the source tree and runs the installed
``bayescm`` command.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

from bayescm._version import __version__

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.slow


def _run(*args: str | Path, cwd: Path | None = None, timeout: float = 600) -> str:
    done = subprocess.run([str(a) for a in args], cwd=cwd, capture_output=True, text=True,
                          timeout=timeout, check=False)
    assert done.returncode == 0, f"{' '.join(map(str, args))} failed:\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    _run(sys.executable, "-m", "build", "--outdir", out, ROOT, cwd=ROOT)
    return out


def test_sdist_and_wheel_build_and_pass_twine(dist: Path) -> None:
    wheels, sdists = list(dist.glob("*.whl")), list(dist.glob("*.tar.gz"))
    assert [w.name for w in wheels] == [f"bayescm-{__version__}-py3-none-any.whl"]
    assert [s.name for s in sdists] == [f"bayescm-{__version__}.tar.gz"]
    report = _run(sys.executable, "-m", "twine", "check", "--strict", *wheels, *sdists)
    assert report.count("PASSED") == 2


def test_wheel_carries_the_package_its_data_and_nothing_else(dist: Path) -> None:
    with zipfile.ZipFile(next(dist.glob("*.whl"))) as wheel:
        names = wheel.namelist()
        metadata = wheel.read(f"bayescm-{__version__}.dist-info/METADATA").decode()
    top = {n.split("/")[0] for n in names}
    assert top == {"bayescm", f"bayescm-{__version__}.dist-info"}
    for needed in ("bayescm/py.typed", "bayescm/data/literature_table_s1.csv",
                   "bayescm/data/screening_scores.csv", "bayescm/data/auditc.csv",
                   "bayescm/data/subgroups.csv",
                   f"bayescm-{__version__}.dist-info/licenses/LICENSE"):
        assert needed in names, needed
    assert not [n for n in names if "/tests/" in n or "notebooks" in n or n.endswith(".ipynb")]
    assert f"Version: {__version__}\n" in metadata and "License-Expression: MIT" in metadata
    with tarfile.open(next(dist.glob("*.tar.gz"))) as archive:
        sdist = archive.getnames()
    for needed in ("README.md", "LICENSE", "pyproject.toml", "bayescm/_version.py"):
        assert f"bayescm-{__version__}/{needed}" in sdist, needed


def test_the_wheel_installs_into_a_fresh_venv_and_runs(dist: Path, tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    base = getattr(sys, "_base_executable", sys.executable)
    _run(base, "-m", "venv", venv)
    python, command = venv / "bin" / "python", venv / "bin" / "bayescm"
    _run(python, "-m", "pip", "install", "--quiet", next(dist.glob("*.whl")), timeout=900)
    work = tmp_path / "elsewhere"  # not the source tree, so the installed package is imported
    work.mkdir()
    where = _run(python, "-c", "import bayescm, sys; print(bayescm.__file__); "
                 "print(bayescm.__version__)", cwd=work).split()
    assert str(venv) in where[0] and where[1] == __version__
    assert _run(command, "--version", cwd=work).strip() == f"bayescm {__version__}"
    table = _run(command, "analyze", "--tp", "26", "--fn", "0", "--tn", "6", "--fp", "2",
                 "--metrics", "tpr", "--format", "csv", "--seed", "1", cwd=work)
    header, row = table.strip().splitlines()[:2]
    assert header.split(",")[:3] == ["variable", "observed", "mean"] and row.startswith("tpr,1.0")
    rows = _run(python, "-c", "import bayescm as bcm; "
                "print(len(bcm.datasets.literature_matrices()))", cwd=work)
    assert rows.strip() == "24"
