"""The layout the architecture promises (ARCHITECTURE.md): layers, no cycles, short modules."""

import ast
import subprocess
import sys
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import architecture_stats as stats  # noqa: E402


@cache  # one parse of the package serves every test of the module (about 3 s each)
def _graph() -> tuple[dict, set, set]:
    return stats.edges_of(ROOT / "bayescm")


def test_no_import_cycle() -> None:
    mods, top, deferred = _graph()
    assert stats.cycles_of(mods, top) == []
    assert stats.cycles_of(mods, top | deferred) == []  # not even through deferred imports


def test_no_layer_imports_a_higher_one_at_import_time() -> None:
    _, top, _ = _graph()
    assert stats.upward(top) == []


def test_every_module_is_short() -> None:
    mods, _, _ = _graph()
    long = {m: n for m, p in mods.items() if (n := len(p.read_text().splitlines())) > 450}
    assert long == {}


def test_every_subpackage_is_a_known_layer() -> None:
    subpackages = {p.parent.name for p in (ROOT / "bayescm").glob("*/__init__.py")}
    assert subpackages <= set(stats.LAYERS) | set(stats.INTERFACE_PACKAGES)


def test_only_the_command_line_imports_the_app() -> None:
    _, top, deferred = _graph()
    importers = {a for a, b in top | deferred
                 if b.startswith("bayescm.app") and not a.startswith("bayescm.app")}
    assert importers == {"bayescm.cli_app"}


def test_importing_bayescm_and_its_command_line_does_not_load_panel() -> None:
    code = ("import sys, bayescm, bayescm.app, bayescm.cli; bayescm.cli.build_parser(); "
            "print(sorted(m for m in sys.modules if m == 'panel' or m.startswith('panel.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == "[]"


def _compares_kind_key(node: ast.Compare) -> bool:
    """``kind.key == ...``, ``x.key in (...)``, ``attrs["model"] != ...``, ``.get("model") ==``."""
    for side in (node.left, *node.comparators):
        if isinstance(side, ast.Attribute) and side.attr == "key":
            return True
        if isinstance(side, ast.Subscript) and isinstance(side.slice, ast.Constant) and \
                side.slice.value == "model":
            return True
        if isinstance(side, ast.Call) and isinstance(side.func, ast.Attribute) and \
                side.func.attr == "get" and side.args and isinstance(side.args[0], ast.Constant) \
                and side.args[0].value == "model":
            return True
    return False


def test_no_code_outside_a_kind_branches_on_its_key() -> None:
    """Kinds declare what callers need (analyses, figures, pooling, batching); callers ask.

    Comparing a kind's registry key (``kind.key == "hierarchical"``, ``attrs["model"] ==
    "binary"``) anywhere but in the registry, the model contract and the kinds' own modules
    is the defect issue 29 removed: the scan fails on it.
    """
    package = ROOT / "bayescm"
    allowed = {package / "models" / "registry.py", package / "models" / "base.py"}
    offenders = []
    for path in package.rglob("*.py"):
        if path in allowed:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and _compares_kind_key(node):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == [], offenders


def test_the_kind_key_scan_finds_what_it_looks_for() -> None:
    tree = ast.parse('if kind.key == "hierarchical" or attrs["model"] in ("a",): pass\n'
                     'if options.get("model") != "auto": pass\nif kind.pooled_groups: pass')
    found = [n for n in ast.walk(tree) if isinstance(n, ast.Compare) and _compares_kind_key(n)]
    assert len(found) == 3


def _private_imports_across_subpackages(package: Path) -> list[str]:
    """``from bayescm.x._y import z`` or ``import _z`` from outside subpackage ``x``."""
    def subpackage(module: str) -> str:
        parts = module.split(".")
        return parts[1] if len(parts) > 2 else "<top>"

    found = []
    for path in package.rglob("*.py"):
        module = ".".join(path.relative_to(package.parent).with_suffix("").parts)
        if path.name == "__init__.py":
            module = module.removesuffix(".__init__") + ".x"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.ImportFrom) and node.module
                    and node.module.startswith("bayescm.")):
                continue
            hidden_module = any(p.startswith("_") for p in node.module.split(".")[1:])
            for alias in node.names:
                if (node.module, alias.name) == ("bayescm._version", "__version__"):
                    continue  # the version string is public; its module is generated
                if (alias.name.startswith("_") or hidden_module) and \
                        subpackage(node.module) != subpackage(module):
                    found.append(f"{module}: {node.module}.{alias.name}")
    return found


def test_no_private_name_crosses_a_subpackage() -> None:
    """What a subpackage shares it names publicly; its underscored parts are its own."""
    assert _private_imports_across_subpackages(ROOT / "bayescm") == []


def test_the_private_name_scan_finds_what_it_looks_for(tmp_path: Path) -> None:
    package = tmp_path / "bayescm"
    (package / "app").mkdir(parents=True)
    (package / "plots").mkdir()
    (package / "app" / "a.py").write_text(
        "from bayescm.plots._grid import grid\nfrom bayescm.plots.x import _y\n"
        "from bayescm.app._own import ok\n")
    assert len(_private_imports_across_subpackages(package)) == 2
