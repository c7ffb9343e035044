#!/usr/bin/env bash
# Create .venv with a Python >= 3.12 and install bayescm into it.
#   bash scripts/setup.sh          # the package
#   bash scripts/setup.sh test     # the package, the test tools and the dask extra
#   bash scripts/setup.sh dask     # any extras by name, comma-separated: test,dask
set -euo pipefail
cd "$(dirname "$0")/.."
extra="${1:-}"

version_ok() { "$1" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; }

find_python() {
    local c
    for c in "${BAYESCM_PYTHON:-}" python3.12 python3.13 python3; do
        [ -n "$c" ] || continue
        if command -v "$c" >/dev/null 2>&1 && version_ok "$(command -v "$c")"; then
            command -v "$c"; return 0
        fi
    done
    local root
    root="$(pyenv root 2>/dev/null || echo "${PYENV_ROOT:-$HOME/.pyenv}")"
    for c in $(ls -d "$root"/versions/3.1[2-9]*/bin/python 2>/dev/null | sort -V); do
        if version_ok "$c"; then echo "$c"; return 0; fi
    done
    return 1
}

if [ -x .venv/bin/python ] && version_ok .venv/bin/python; then
    py=.venv/bin/python
else
    if ! base="$(find_python)"; then
        cat >&2 <<'MSG'
error: bayescm needs Python >= 3.12, and none was found.
Looked for: $BAYESCM_PYTHON, python3.13, python3.12, python3 on PATH, and $(pyenv root)/versions/3.12+.
Fix: install one (e.g. `pyenv install 3.12`) or point BAYESCM_PYTHON at its interpreter, then rerun.
MSG
        exit 1
    fi
    echo "setup: using $base ($("$base" -c 'import sys; print(sys.version.split()[0])'))"
    rm -rf .venv
    "$base" -m venv .venv
    py=.venv/bin/python
fi
quiet_pip() {  # pip's notes about unused local index folders are noise here
    "$py" -m pip install --quiet "$@" 2> >(grep -v '^WARNING: Location' >&2)
}
quiet_pip --upgrade pip
case "$extra" in
    "") quiet_pip -e . ;;
    test) quiet_pip -e ".[test,dask,nutpie]" ;;  # the tests cover dask and nutpie too
    *)
        if ! [[ "$extra" =~ ^[a-z]+(,[a-z]+)*$ ]]; then
            echo "error: extras are names separated by commas (test, dask, test,dask), got '$extra'" >&2
            exit 2
        fi
        quiet_pip -e ".[$extra]" ;;
esac
# an editable install writes no bytecode, and PYTHONDONTWRITEBYTECODE (set on some machines)
# stops Python writing it at import: compile once, as installing a wheel does (stale files are
# ignored after an edit)
"$py" -m compileall -q bayescm >/dev/null
echo "setup: bayescm installed in .venv ($("$py" -c 'import bayescm; print(bayescm.__version__)'))"
