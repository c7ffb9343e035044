"""The look every figure shares: a colour-blind-safe palette, sizes, readable numbers.

The palette is Okabe & Ito's, which stays distinguishable with the common colour-vision
deficiencies; the plots name their colours from it (never matplotlib's ``"C0"``, which follows
whatever colour cycle a notebook has set). Numbers in labels are written for a reader: ratios
as ``1,700`` rather than ``1.7e+03``, probabilities near certainty as ``>99.9 %`` rather than a
rounded ``100.0 %``.

Sizes follow ``rcParams["plot.preset"]`` (:data:`PRESETS`): a new figure is drawn at the
preset's width, and its text at the preset's sizes, so a figure for a journal column is drawn
3.5 inches wide with text of 7 pt and more, rather than drawn large and shrunk (8 pt text of a
10-inch figure is 3 pt in a column). Every size a plot writes goes through :func:`pt`.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from bayescm.core.config import PLOT_PRESETS, rcParams

__all__ = ["BLUE", "GREEN", "GREY", "MIN_FONT", "OKABE_ITO", "ORANGE", "PRESETS", "VERMILION",
           "Preset", "format_probability", "grid_size", "palette_color", "power_of_ten",
           "preset", "preset_size", "preset_style", "probability_is", "pt", "readable"]

OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442",
             "#000000"]
"""Okabe & Ito's colour-blind-safe palette: blue, orange, green, vermilion, reddish purple,
sky blue, yellow, black (the order of matplotlib's ``C0`` ... ``C7`` roles in bayescm)."""

BLUE, ORANGE, GREEN, VERMILION = OKABE_ITO[:4]
"""The posterior (blue), predictive or pooled (orange), new group (green), observed
(vermilion)."""

LINE_ORDER = (0, 1, 2, 3, 4, 5, 7, 6)
"""The palette's order for one line per series: yellow, faint on white, comes last."""

GREY = "0.45"
"""Priors, references and other context."""

MIN_FONT = 8.0
"""The smallest text any figure writes with the default preset (points)."""


@dataclass(frozen=True)
class Preset:
    """A figure size and its text sizes: one value of ``rcParams["plot.preset"]``.

    Attributes
    ----------
    name : str
        The preset's name.
    width : float or None
        Width of a new figure in inches (None: each figure's own default).
    scale : float
        Factor on the text sizes of the default preset (8 pt legends, 10 pt labels, 12 pt
        titles).
    floor : float
        The smallest text (points): no size is scaled below it.
    max_cols : int or None
        Most panels per row of a grid.
    max_height : float or None
        Most height of a one-panel figure (a slide's 16:9 area), inches.
    """

    name: str
    width: float | None
    scale: float
    floor: float
    max_cols: int | None
    max_height: float | None = None

    def size(self, points: float) -> float:
        """A text size of the default preset, for this preset (never under ``floor``)."""
        return points if self.name == "default" else max(self.floor, points * self.scale)


PRESETS = {
    "default": Preset("default", None, 1.0, MIN_FONT, None),
    "slide": Preset("slide", 10.0, 1.3, 12.0, 3, 5.6),
    "column": Preset("column", 3.5, 0.75, 7.0, 2),
    "two_column": Preset("two_column", 7.2, 0.8, 7.0, 4),
}
"""The presets: screens and notebooks; a slide (10 in wide, text from 12 pt); one journal column
(3.5 in) and two columns (7.2 in), text from 7 pt at that size."""

assert tuple(PRESETS) == PLOT_PRESETS, "the presets and the setting's choices differ"


def preset() -> Preset:
    """The preset chosen by ``rcParams["plot.preset"]``.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots._style import preset
    >>> with bcm.rc_context(plot_preset="column"):
    ...     preset().width
    3.5
    """
    return PRESETS[rcParams["plot.preset"]]


def pt(points: float) -> float:
    """A text size written for the default preset, in the current preset (points).

    Parameters
    ----------
    points : float
        The size in the ``"default"`` preset.

    Returns
    -------
    float
        The size in ``rcParams["plot.preset"]`` (smaller in a journal column).

    See Also
    --------
    bayescm.rc_context : Sets the preset for a block.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots import pt
    >>> pt(8), pt(12)
    (8, 12)
    >>> with bcm.rc_context(plot_preset="column"):
    ...     pt(8), pt(12)
    (7.0, 9.0)
    """
    return preset().size(points)


def preset_size(default: tuple[float, float]) -> tuple[float, float]:
    """The size of a new figure whose default size is ``default``, in the current preset.

    The width is the preset's; the height follows the width half way and the text size half
    way, so a narrower figure keeps room for its (smaller, but not proportionally smaller)
    text.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots._style import preset_size
    >>> preset_size((6.0, 3.6))
    (6.0, 3.6)
    >>> with bcm.rc_context(plot_preset="column"):
    ...     [round(v, 2) for v in preset_size((6.0, 3.6))]
    [3.5, 2.4]
    """
    chosen = preset()
    if chosen.width is None:
        return default
    width, height = default
    height *= 0.5 * (chosen.width / width + chosen.scale)
    return chosen.width, min(height, chosen.max_height or height)


def grid_size(n: int, ncols: int, panel: tuple[float, float], extra: float = 0.4,
              min_width: float | None = None) -> tuple[int, tuple[float, float]]:
    """Panels per row and the figure size of a grid of ``n`` panels in the current preset.

    ``extra`` is the height (inches, default preset) of what sits under the panels (a
    legend). A preset narrows the rows to its ``max_cols``, and to as many panels as are at
    least ``min_width`` wide (default half of ``panel``'s width; both in inches of the
    default preset, scaled with its text), and divides its width among them.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.plots._style import grid_size
    >>> ncols, size = grid_size(6, 3, (3.2, 2.4))
    >>> ncols, [round(v, 2) for v in size]
    (3, [9.6, 5.2])
    >>> with bcm.rc_context(plot_preset="column"):
    ...     ncols, size = grid_size(6, 3, (3.2, 2.4))
    >>> ncols, [round(v, 2) for v in size]
    (2, [3.5, 4.97])
    """
    chosen = preset()
    ncols = max(1, min(ncols, n, chosen.max_cols or ncols))
    if chosen.width is not None:
        least = (0.5 * panel[0] if min_width is None else min_width) * chosen.scale
        ncols = max(1, min(ncols, int(chosen.width // least)))
    nrows = math.ceil(n / ncols)
    if chosen.width is None:
        return ncols, (panel[0] * ncols, panel[1] * nrows + extra)
    width = chosen.width / ncols
    height = panel[1] * 0.5 * (width / panel[0] + chosen.scale)
    return ncols, (chosen.width, height * nrows + extra * chosen.scale)


@contextmanager
def preset_style() -> Iterator[None]:
    """Matplotlib's text sizes for the current preset while a plot draws (default: unchanged).

    Examples
    --------
    >>> import matplotlib as mpl
    >>> import bayescm as bcm
    >>> from bayescm.plots._style import preset_style
    >>> with bcm.rc_context(plot_preset="column"), preset_style():
    ...     mpl.rcParams["xtick.labelsize"], mpl.rcParams["axes.titlesize"]
    (7.5, 9.0)
    """
    chosen = preset()
    if chosen.name == "default":
        yield
        return
    import matplotlib as mpl

    label, title = chosen.size(10.0), chosen.size(12.0)
    with mpl.rc_context({"font.size": label, "axes.labelsize": label, "axes.titlesize": title,
                         "xtick.labelsize": label, "ytick.labelsize": label,
                         "legend.fontsize": chosen.size(MIN_FONT),
                         "legend.title_fontsize": chosen.size(MIN_FONT),
                         "figure.titlesize": title}):
        yield


def palette_color(i: int) -> str:
    """The ``i``-th colour of the palette (cycling), for one line per classifier or class.

    Examples
    --------
    >>> from bayescm.plots._style import palette_color
    >>> palette_color(0), palette_color(8)
    ('#0072B2', '#0072B2')
    """
    return OKABE_ITO[LINE_ORDER[i % len(LINE_ORDER)]]


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def power_of_ten(power: int) -> str:
    """``10`` to an integer power, written with superscripts: ``'10⁴'``, ``'10⁻⁵'``.

    Examples
    --------
    >>> from bayescm.plots._style import power_of_ten
    >>> power_of_ten(4), power_of_ten(-5)
    ('10⁴', '10⁻⁵')
    """
    return "10" + str(power).translate(_SUPERSCRIPT)


def readable(value: float, digits: int = 2) -> str:
    """A positive number with ``digits`` significant digits and no exponent where avoidable.

    Examples
    --------
    >>> from bayescm.plots._style import readable
    >>> readable(1734.2), readable(8.84), readable(0.0123), readable(2.5e7), readable(0.0)
    ('1,700', '8.8', '0.012', '2.5×10⁷', '0')
    """
    if not math.isfinite(value):
        return "∞" if value > 0 else "-∞" if value < 0 else "undefined"
    if value == 0:
        return "0"
    sign = "-" if value < 0 else ""
    value = abs(value)
    power = math.floor(math.log10(value))
    rounded = float(f"{value:.{digits}g}")
    if rounded >= 10 ** (power + 1):  # 9.96 -> 10: one power up
        power += 1
    if not -4 <= power < 6:
        mantissa = rounded / 10**power
        return f"{sign}{mantissa:.{digits - 1}f}×{power_of_ten(power)}"
    decimals = max(0, digits - 1 - power)
    return f"{sign}{rounded:,.{decimals}f}"


def format_probability(p: float, digits: int = 1) -> str:
    """A probability for a label: ``'84.2 %'``, ``'>99.9 %'`` for one just below 1.

    A probability that is not exactly 0 or 1 is never rounded to it: with one decimal in per
    cent, 0.9996 reads ``'>99.9 %'`` and 0.0004 ``'<0.1 %'``. With ``rcParams["plot.units"] =
    "proportion"`` the same in proportions (``'>0.999'``).

    Examples
    --------
    >>> from bayescm.plots._style import format_probability
    >>> format_probability(0.8421), format_probability(0.99996), format_probability(0.0)
    ('84.2 %', '>99.9 %', '0.0 %')
    """
    if math.isnan(p):
        return "undefined"
    percent = rcParams["plot.units"] == "percent"
    scale, unit = (100.0, " %") if percent else (1.0, "")
    places = digits if percent else digits + 2
    step = 10.0 ** -places / scale
    if 0 < p < step:
        return f"<{step * scale:.{places}f}{unit}"
    if 1 - step < p < 1:
        return f">{(1 - step) * scale:.{places}f}{unit}"
    return f"{p * scale:.{places}f}{unit}"


def probability_is(what: str, p: float, digits: int = 1) -> str:
    """``'P(A better) = 84.2 %'``, or ``'P(A better) > 99.9 %'`` near certainty.

    Examples
    --------
    >>> from bayescm.plots._style import probability_is
    >>> probability_is("P(A better)", 0.842), probability_is("P(B > A)", 0.99996)
    ('P(A better) = 84.2 %', 'P(B > A) > 99.9 %')
    """
    text = format_probability(p, digits)
    if text[0] in "<>":
        return f"{what} {text[0]} {text[1:]}"
    return f"{what} = {text}"
