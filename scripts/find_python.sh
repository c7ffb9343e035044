# Sourced by setup.sh and lock_dependencies.sh: find_python prints a Python >= 3.12.
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

