"""One unit system: ``rcParams["plot.units"]`` is the one setting every figure path reads.

Per cent by default everywhere: the API's plots, the command line's figures (``analyze --plot``,
``roc --plot``), the spec runner's and the web app's (whose figures were drawn in proportions
by an override of their own). Each path is drawn at the default and under
``rc_context(plot_units="proportion")``, and no module of the package may set the setting.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure

import bayescm as bcm
from bayescm import cli, cli_roc, plots
from bayescm.io import runner

PACKAGE = Path(bcm.__file__).resolve().parent


@pytest.fixture(autouse=True)
def _close():
    yield
    plt.close("all")


@cache
def binary() -> Any:
    return bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), draws=300,
                   random_seed=1)


@cache
def scores() -> Any:
    from bayescm.models.scores import ScoresModel

    return ScoresModel.example()


@contextmanager
def _saved_figures() -> Iterator[list[Figure]]:
    """The figures saved meanwhile (the app and the command line hand out files or bytes)."""
    kept: list[Figure] = []
    original = Figure.savefig

    def keep(self: Figure, *args: Any, **kwargs: Any) -> Any:
        kept.append(self)
        return original(self, *args, **kwargs)

    Figure.savefig = keep  # type: ignore[method-assign]
    try:
        yield kept
    finally:
        Figure.savefig = original  # type: ignore[method-assign]


def _app(draw: Callable[[], Any]) -> Callable[[], Figure]:
    def make() -> Figure:
        pytest.importorskip("panel")
        with _saved_figures() as kept:
            draw()
        return kept[0]
    return make


def _app_matrix() -> Any:
    from bayescm.app.figures import metric_grid_png

    return metric_grid_png(binary(), ["tpr", "bm"])


def _app_planning() -> Any:
    from bayescm.app.planning_tab import PlanJob

    return PlanJob(mu=0.2, n=100, n_sims=300).run()


def _app_paired() -> Any:
    from bayescm.app.compare_tab import EXAMPLE, CompareJob
    from bayescm.app.parse import text_columns

    truth, a, b = text_columns(EXAMPLE, ["truth", "model_a", "model_b"], "labels")
    return CompareJob(("acc", "tpr"), 300, 1, truth=tuple(truth), pred_a=tuple(a),
                      pred_b=tuple(b), positive="1").run()


def _app_scores() -> Any:
    from bayescm.app.scores_tab import ScoresJob

    return ScoresJob(bcm.Scores([0, 0, 1, 1, 0, 1, 1, 0], {"s": [.1, .4, .35, .8, .2, .9, .7,
                                                                 .3]}), draws=100).run()


def _cli_roc(tmp: Path) -> Figure:
    with _saved_figures() as kept:
        cli_roc.write_figures(scores(), tmp)
    return kept[0]  # roc.png


PATHS: dict[str, Callable[[], Figure]] = {
    "plots.plot_metric": lambda: plots.plot_metric(binary(), "tnr").figure,
    "plots.plot_forest": lambda: plots.plot_forest(binary(), ["tpr", "tnr"]).figure,
    "cli analyze --plot": lambda: cli.analyze_figure(binary()),
    "spec runner forest": lambda: runner.figure(binary(), "forest"),
    "spec runner posterior": lambda: runner.figure(binary(), "posterior"),
    "spec runner roc": lambda: runner.figure(scores(), "roc"),
    "app matrix tab": _app(_app_matrix),
    "app sample-size tab": _app(_app_planning),
    "app paired comparison": _app(_app_paired),
    "app scores tab": _app(_app_scores),
}
"""Every path that draws a figure, by its entry point (``roc --plot`` below)."""

UNIT = re.compile(r"\((%|percentage points)\)|%$")
"""An axis label or tick in per cent: '(%)', '(percentage points)', '80%'."""


def _texts(fig: Figure) -> list[str]:
    fig.canvas.draw()
    out = []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            out.append(axis.get_label().get_text())
            out += [t.get_text() for t in axis.get_ticklabels()]
    return [t for t in out if t]


def _percent(fig: Figure) -> bool:
    return any(UNIT.search(t) for t in _texts(fig))


@pytest.mark.parametrize("path", sorted(PATHS))
def test_every_figure_path_draws_per_cent_by_default_and_follows_the_setting(path):
    assert bcm.rcParams["plot.units"] == "percent"
    assert _percent(PATHS[path]()), f"{path}: no axis in per cent by default"
    with bcm.rc_context(plot_units="proportion"):
        fig = PATHS[path]()
        assert not _percent(fig), f"{path}: per cent under plot_units='proportion': " + str(
            [t for t in _texts(fig) if UNIT.search(t)])


# slow: runs bayescm roc and draws its figures; the slow run (CI) checks it
@pytest.mark.slow
def test_roc_plot_of_the_command_line_follows_the_setting(tmp_path):
    assert _percent(_cli_roc(tmp_path / "a"))
    with bcm.rc_context(plot_units="proportion"):
        assert not _percent(_cli_roc(tmp_path / "b"))


def _sets_units(node: ast.AST) -> bool:
    """An assignment ``rcParams["plot.units"] = ...``, a ``{"plot.units": ...}`` entry or a
    ``plot_units=`` keyword: code that sets the units rather than reads them."""
    def names_units(key: ast.AST | None) -> bool:
        return isinstance(key, ast.Constant) and key.value == "plot.units"

    if isinstance(node, (ast.Assign, ast.AugAssign, ast.AnnAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return any(isinstance(t, ast.Subscript) and names_units(t.slice) for t in targets)
    if isinstance(node, ast.Dict):
        return any(names_units(key) for key in node.keys)
    if isinstance(node, ast.Call):
        return any(k.arg == "plot_units" for k in node.keywords)
    return False


def test_no_module_overrides_the_setting():
    """Only the settings module may set plot.units; every other module reads it (docstrings
    and their examples aside)."""
    found = [f"{path.relative_to(PACKAGE)}:{node.lineno}"
             for path in sorted(PACKAGE.rglob("*.py")) if path.name != "config.py"
             for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
             if _sets_units(node)]
    assert found == [], f"plot.units set outside bayescm/core/config.py: {found}"
