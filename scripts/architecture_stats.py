"""Count the package's modules and import edges, find cycles and upward imports.

Run from the repository root: ``python scripts/architecture_stats.py``. Reads the source with
:mod:`ast` only (nothing is imported), so it works on any checkout. Imports at module level are
what a module needs when it is imported; imports inside functions (loaded on first use) and in
``typing.TYPE_CHECKING`` blocks (for the type checker) are deferred and reported apart.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

LAYERS = ["core", "metrics", "priors", "models", "analyses", "comparisons", "plots", "io",
          "interfaces"]
"""Subpackages from the bottom up; a module may import from its own layer and those below."""

INTERFACE_PACKAGES = ["app"]
"""Subpackages that belong to the interfaces layer (the web app), like the top-level modules."""


def module_name(path: Path, root: Path) -> str:
    """Dotted module name of a file below the package root."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def layer(module: str) -> int:
    """Index of a module's layer (top-level modules are interfaces)."""
    parts = module.split(".")
    name = parts[1] if len(parts) > 1 else "interfaces"
    if name in INTERFACE_PACKAGES:
        return LAYERS.index("interfaces")
    if name in ("_version", "errors"):  # leaves every layer may import
        return 0
    return LAYERS.index(name) if name in LAYERS else LAYERS.index("interfaces")


def resolve(mod: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    """Absolute module named by a (possibly relative) ``from ... import``."""
    if node.level == 0:
        return node.module or ""
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def edges_of(root: Path) -> tuple[dict[str, Path], set[tuple[str, str]], set[tuple[str, str]]]:
    """Modules, import-time edges and deferred ones (inside functions or ``TYPE_CHECKING``)."""
    mods = {module_name(f, root): f for f in sorted(root.rglob("*.py"))}
    top: set[tuple[str, str]] = set()
    deferred: set[tuple[str, str]] = set()
    for name, path in mods.items():
        tree = ast.parse(path.read_text())
        is_pkg = path.name == "__init__.py"
        skip = {id(n) for b in ast.walk(tree) if isinstance(b, ast.If)
                and ast.unparse(b.test).endswith("TYPE_CHECKING") for n in ast.walk(b)}
        inner = {id(n) for f in ast.walk(tree)
                 if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef)) for n in ast.walk(f)}
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom):
                base = resolve(name, is_pkg, node)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                           for a in node.names]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            for t in targets:
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != name and t.startswith(root.name):
                    (deferred if id(node) in inner or id(node) in skip else top).add((name, t))
    return mods, top, deferred - top


def cycles_of(mods: dict[str, Path], edges: set[tuple[str, str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (package re-exports ignored)."""
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for a, b in edges:
        if mods[b].name != "__init__.py":
            graph[a].add(b)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for m in mods:
        if m not in index:
            visit(m)
    return found


def upward(edges: set[tuple[str, str]]) -> list[tuple[str, str]]:
    """Edges from a lower layer to a higher one (package __init__ re-exports excepted)."""
    return sorted((a, b) for a, b in edges if layer(a) < layer(b))


def main(root: Path) -> None:
    """Print the counts for the package at ``root``."""
    mods, top, deferred = edges_of(root)
    sizes = sorted(((len(p.read_text().splitlines()), m) for m, p in mods.items()), reverse=True)
    print(f"modules: {len(mods)}")
    print(f"internal import edges: {len(top)} at import time, {len(deferred)} deferred")
    print(f"largest modules: {', '.join(f'{m} ({n})' for n, m in sizes[:5])}")
    print(f"modules over 450 lines: {sum(n > 450 for n, _ in sizes)}")
    print(f"import cycles at import time: {cycles_of(mods, top) or 'none'}")
    print(f"import cycles counting deferred and typing-only imports: "
          f"{cycles_of(mods, top | deferred) or 'none'}")
    print(f"upward imports at import time: {upward(top) or 'none'}")
    print(f"upward imports deferred to a function: {len(upward(deferred))}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "bayescm").resolve())
