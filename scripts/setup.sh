#!/usr/bin/env bash
# Create .venv with a Python >= 3.12 and install bayescm into it.
#   bash scripts/setup.sh          # the package
#   bash scripts/setup.sh test     # the package, the test tools, every extra the tests cover
#                                  # (dask, nutpie, app, browser, docs) and Debian's chromium
#   bash scripts/setup.sh browser  # the app, Playwright and Debian's chromium (the browser test)
#   bash scripts/setup.sh docs     # Sphinx and its extensions: build the documentation site
#   bash scripts/setup.sh dask     # any extras by name, comma-separated: test,dask
set -euo pipefail
cd "$(dirname "$0")/.."
extra="${1:-}"

source scripts/find_python.sh

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
# Every install takes the versions pinned in constraints.txt (refreshed on purpose with
# scripts/lock_dependencies.sh), so a new release upstream cannot change what CI tests.
quiet_pip() {  # pip's notes about unused local index folders are noise here
    "$py" -m pip install --quiet -c constraints.txt "$@" 2> >(grep -v '^WARNING: Location' >&2)
}
# The app's browser test drives Debian's chromium through Playwright (Playwright's own browser
# downloads are not reachable here): install the package when /usr/bin/chromium is missing.
# Never fatal: without it the browser test skips and says to rerun this script.
install_chromium() {
    local chromium=/usr/bin/chromium
    if [ -x "$chromium" ]; then
        echo "setup: chromium found ($chromium)"; return 0
    fi
    local sudo=""
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then sudo="sudo -n"; fi
    fi
    if ! command -v apt-get >/dev/null 2>&1 || { [ "$(id -u)" != 0 ] && [ -z "$sudo" ]; }; then
        echo "setup: warning: $chromium is missing and cannot be installed here (needs apt-get" \
             "as root); the app's browser test will skip. Install Debian's chromium package," \
             "then rerun: bash scripts/setup.sh browser" >&2
        return 0
    fi
    local t0=$SECONDS
    echo "setup: installing Debian's chromium for the app's browser test:" \
         "apt-get update, apt-get install -y --no-install-recommends chromium"
    if $sudo apt-get update -qq >/dev/null \
        && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
            --no-install-recommends chromium 2> >(grep -v '^debconf: delaying' >&2) >/dev/null \
        && [ -x "$chromium" ]; then
        echo "setup: chromium installed in $(( SECONDS - t0 )) s ($("$chromium" --version 2>/dev/null || echo "$chromium"))"
    else
        echo "setup: warning: installing chromium with apt-get failed (see above); the app's" \
             "browser test will skip. Rerun: bash scripts/setup.sh browser" >&2
    fi
    return 0
}

quiet_pip --upgrade pip
case "$extra" in
    "") quiet_pip -e . ;;
    test) extras="test,dask,nutpie,app,browser,docs" ;;  # the tests cover all of these (CI
                                                          # also builds the site: docs)
    *)
        if ! [[ "$extra" =~ ^[a-z]+(,[a-z]+)*$ ]]; then
            echo "error: extras are names separated by commas (test, dask, test,dask), got '$extra'" >&2
            exit 2
        fi
        extras="$extra"
        # the browser test drives the app: bring Panel along
        if [[ ",$extras," == *,browser,* && ",$extras," != *,app,* ]]; then extras="$extras,app"; fi ;;
esac
if [ -n "$extra" ]; then
    quiet_pip -e ".[$extras]"
    if [[ ",$extras," == *,browser,* ]]; then install_chromium; fi
fi
# an editable install writes no bytecode, and PYTHONDONTWRITEBYTECODE (set on some machines)
# stops Python writing it at import: compile once, as installing a wheel does (stale files are
# ignored after an edit)
"$py" -m compileall -q bayescm >/dev/null
echo "setup: bayescm installed in .venv ($("$py" -c 'import bayescm; print(bayescm.__version__)'))"
