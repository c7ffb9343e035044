"""The set-up script finds a Python >= 3.12 by itself, or says clearly what to do."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

SETUP = Path(__file__).resolve().parents[1] / "scripts" / "setup.sh"
FIND = SETUP.with_name("find_python.sh")


def _old_system_python() -> bool:
    exe = shutil.which("python3", path="/usr/bin:/bin")
    if exe is None:
        return True
    done = subprocess.run([exe, "-c", "import sys; print(sys.version_info >= (3, 12))"],
                          capture_output=True, text=True, check=False)
    return done.stdout.strip() == "False"


@pytest.mark.skipif(not _old_system_python(), reason="the system python3 is already >= 3.12")
def test_no_suitable_python_is_a_clear_error(tmp_path):
    (tmp_path / "scripts").mkdir()
    shutil.copy(SETUP, tmp_path / "scripts" / "setup.sh")
    shutil.copy(FIND, tmp_path / "scripts" / "find_python.sh")
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYENV_ROOT": str(tmp_path / "none")}
    done = subprocess.run(["bash", "scripts/setup.sh"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert "needs Python >= 3.12, and none was found" in done.stderr
    assert "BAYESCM_PYTHON" in done.stderr
    assert not (tmp_path / ".venv").exists()


def test_finds_an_interpreter_named_by_the_user(tmp_path):
    """BAYESCM_PYTHON is tried first (here: the interpreter running the tests)."""
    probe = FIND.read_text() + "find_python\n"
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "PYENV_ROOT": str(tmp_path / "none"),
           "BAYESCM_PYTHON": sys.executable}
    done = subprocess.run(["bash", "-c", probe], env=env, capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0
    assert done.stdout.strip() == sys.executable
