"""Count the package's modules, internal import edges and cycles, and name the largest module.

Run from the repository root: ``python scripts/architecture_stats.py``. Reads the source with
:mod:`ast` only (nothing is imported), so it works on any checkout.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path


def module_name(path: Path, root: Path) -> str:
    """Dotted module name of a file below the package root."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def resolve(mod: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    """Absolute module named by a (possibly relative) ``from ... import``."""
    if node.level == 0:
        return node.module or ""
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def main(root: Path) -> None:
    """Print the counts for the package at ``root``."""
    files = sorted(root.rglob("*.py"))
    mods = {module_name(f, root): f for f in files}
    edges: set[tuple[str, str]] = set()
    for name, path in mods.items():
        tree = ast.parse(path.read_text())
        is_pkg = path.name == "__init__.py"
        skip = {id(n) for b in ast.walk(tree) if isinstance(b, ast.If)
                and ast.unparse(b.test).endswith("TYPE_CHECKING") for n in ast.walk(b)}
        for node in ast.walk(tree):
            if id(node) in skip:
                continue
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
                    edges.add((name, t))
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for a, b in edges:
        graph[a].add(b)
    # strongly connected components (Tarjan), ignoring package __init__ re-exports
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    cycles: list[list[str]] = []
    counter = [0]
    sys.setrecursionlimit(10000)

    def visit(v: str) -> None:
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if mods[w].name == "__init__.py":
                continue
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
                cycles.append(sorted(comp))

    for m in mods:
        if m not in index:
            visit(m)
    sizes = sorted(((len(p.read_text().splitlines()), m) for m, p in mods.items()), reverse=True)
    print(f"modules: {len(mods)}")
    print(f"internal import edges: {len(edges)}")
    print(f"largest modules: {', '.join(f'{m} ({n})' for n, m in sizes[:5])}")
    print(f"modules over 450 lines: {sum(n > 450 for n, _ in sizes)}")
    print(f"import cycles (excluding package re-exports): {cycles or 'none'}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "bayescm").resolve())
