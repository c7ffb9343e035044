"""The layout the architecture promises (ARCHITECTURE.md): layers, no cycles, short modules."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import architecture_stats as stats  # noqa: E402


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
