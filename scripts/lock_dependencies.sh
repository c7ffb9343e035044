#!/usr/bin/env bash
# Refresh constraints.txt: the exact versions every set-up (and so CI) installs.
#   bash scripts/lock_dependencies.sh
# Resolves the package with every extra (test, dask, nutpie, app, browser, docs, bench) in a
# throw-away virtual environment with the newest releases the pyproject ranges allow, then
# writes what pip installed. Run it on purpose, read the diff (a new release of PyMC, ArviZ,
# xarray or NumPy can change results), run the tests, and commit constraints.txt with them.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/find_python.sh
base="$(find_python)" || { echo "error: needs Python >= 3.12 (see scripts/setup.sh)" >&2; exit 1; }
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
"$base" -m venv "$tmp/venv"
"$tmp/venv/bin/python" -m pip install --quiet --upgrade pip
"$tmp/venv/bin/python" -m pip install --quiet ".[test,dask,nutpie,app,browser,docs,bench]" \
    2> >(grep -v '^WARNING: Location' >&2)
{
    echo "# Exact versions for scripts/setup.sh and CI (pip install -c constraints.txt)."
    echo "# Made by: bash scripts/lock_dependencies.sh (Python $("$tmp/venv/bin/python" -c 'import sys; print(sys.version.split()[0])'), $(date -u +%Y-%m-%d))."
    "$tmp/venv/bin/python" -m pip freeze --exclude bayescm | LC_ALL=C sort -f
} > constraints.txt
echo "lock: wrote constraints.txt ($(grep -vc '^#' constraints.txt) pins)"
