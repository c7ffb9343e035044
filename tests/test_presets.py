"""Figure presets: ``rcParams["plot.preset"]`` sets a new figure's width and its text sizes.

A figure for a journal column is drawn 3.5 inches wide with text of at least 7 pt there, not
drawn large and shrunk (the 8 pt text of a 10-inch figure is 3 pt in a column); a slide's text
is at least 12 pt. Every figure type under the column preset is checked in
``tests/test_figures.py`` (slow); here a few, under every preset.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

import bayescm as bcm
from bayescm import plots
from bayescm.errors import RcParamsError
from bayescm.plots._style import PRESETS


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


def _figure(drawn: Any) -> Figure:
    return drawn if isinstance(drawn, Figure) else drawn.get_figure(root=True)


DRAW: dict[str, Callable[[], Any]] = {
    "metric": lambda: plots.plot_metric(binary(), "tpr", prior=True),
    "grid": lambda: plots.plot_metrics(binary(), ["tpr", "tnr", "bm", "dor"]),
    "forest": lambda: plots.plot_forest(binary(), ["acc", "tpr", "tnr"]),
    "roc": lambda: plots.plot_roc(scores()),
    "theta": lambda: plots.plot_theta(binary()),
}


def _sizes(fig: Figure) -> list[float]:
    fig.canvas.draw()
    return [t.get_fontsize() for t in fig.findobj(Text) if t.get_visible() and t.get_text()]


@pytest.mark.parametrize("name", ["column", "two_column", "slide"])
@pytest.mark.parametrize("draw", sorted(DRAW))
def test_a_preset_sets_the_width_and_the_smallest_text(name, draw):
    preset = PRESETS[name]
    with bcm.rc_context(plot_preset=name):
        fig = _figure(DRAW[draw]())
    assert float(fig.get_size_inches()[0]) == pytest.approx(preset.width)
    sizes = _sizes(fig)
    assert min(sizes) >= preset.floor - 1e-9, (name, draw, min(sizes))


@pytest.mark.parametrize("draw", sorted(DRAW))
def test_text_is_sized_for_the_preset_not_shrunk_with_the_figure(draw):
    """The column's text is about three quarters of the default's, though the figure is half
    as wide or less: scaled down with the figure, 8 pt text would be 3-4 pt."""
    default = _sizes(_figure(DRAW[draw]()))
    with bcm.rc_context(plot_preset="column"):
        column = _sizes(_figure(DRAW[draw]()))
    assert min(column) >= 7.0
    assert max(column) <= max(default)
    assert max(column) < max(default) or max(default) <= 9.0


def test_figsize_wins_over_the_preset_width_but_not_over_its_text():
    with bcm.rc_context(plot_preset="column"):
        ax = plots.plot_metric(binary(), "tnr", figsize=(5.0, 3.0))
    fig = _figure(ax)
    assert tuple(fig.get_size_inches()) == pytest.approx((5.0, 3.0))
    assert min(_sizes(fig)) >= 7.0


def test_the_preset_is_a_validated_setting_with_the_choices_named():
    with pytest.raises(RcParamsError, match="'default', 'slide', 'column', 'two_column'"):
        bcm.rcParams["plot.preset"] = "journal"
    assert set(PRESETS) == {"default", "slide", "column", "two_column"}
    assert (PRESETS["column"].width, PRESETS["two_column"].width) == (3.5, 7.2)


def test_a_grid_keeps_readable_panels_in_a_column():
    with bcm.rc_context(plot_preset="column"):
        fig = plots.plot_metrics(binary(), ["tpr", "tnr", "ppv", "npv", "bm", "mcc"])
    columns = {round(ax.get_position().x0, 2) for ax in fig.axes}
    assert len(columns) == 2  # two panels per row at 3.5 inches, not three
