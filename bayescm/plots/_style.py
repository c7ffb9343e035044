"""The look every figure shares: a colour-blind-safe palette, text sizes, readable numbers.

The palette is Okabe & Ito's, which stays distinguishable with the common colour-vision
deficiencies; the plots name their colours from it (never matplotlib's ``"C0"``, which follows
whatever colour cycle a notebook has set). Numbers in labels are written for a reader: ratios
as ``1,700`` rather than ``1.7e+03``, probabilities near certainty as ``>99.9 %`` rather than a
rounded ``100.0 %``.
"""

from __future__ import annotations

import math

from bayescm.core.config import rcParams

__all__ = ["BLUE", "GREEN", "GREY", "MIN_FONT", "OKABE_ITO", "ORANGE", "VERMILION", "power_of_ten",
           "format_probability", "palette_color", "probability_is", "readable"]

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
"""The smallest text any figure writes (points)."""


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
