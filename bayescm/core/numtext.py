"""Numbers written as text, read strictly: the one parser of CSV cells and of the app's fields.

Python's ``int`` and ``float`` read more than a person means by a number (``1_000``, ``nan``,
``infinity``, non-ASCII digits) and ``int`` stops at 4,300 digits with a message about a limit
the user never set. The rules here:

* **accepted**: an optional sign, ASCII digits with an optional decimal point and an optional
  exponent (``12``, ``+12``, ``-0.5``, ``.5``, ``1e3``, ``2.5E-4``); spaces around the number
  are ignored;
* **refused, with the reason**: empty text, digit grouping (``1_000``, ``1,000``, ``1'000``,
  ``1 000``), a decimal comma (``0,9``), NaN and infinities, hexadecimal (``0x1A``), non-ASCII
  digits, anything else;
* a **whole number** is exact however many digits it has (``9223372036854775807``), a decimal
  such as ``12.0`` or ``1e3`` is whole when its value is, and its size is checked before it is
  converted, so a 5,000-digit number is refused at once with the limit it exceeds;
* a **real number** is finite: ``1e999`` is refused, not read as infinity.

Errors are :class:`NumberTextError` (a ``ValueError``) whose message says what is wrong with
the text, not where it was: the callers add the place (a file's line and column, the app's
field).
"""

from __future__ import annotations

import decimal
import math
import re

from bayescm.core.validate import INT64_MAX
from bayescm.errors import NumberTextError

__all__ = ["NumberTextError", "real_from_text", "whole_from_text"]

_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_NOT_FINITE = re.compile(r"[+-]?(?:nan|inf|infinity)", re.IGNORECASE)
_DECIMAL_COMMA = re.compile(r"[+-]?[0-9]*,[0-9]+", re.ASCII)
_GROUPED = re.compile(r"[+-]?[0-9]{1,3}(?:(?:[,'’][0-9]{3})+(?:\.[0-9]*)?|(?:\.[0-9]{3}){2,})")
_PREFIXED = re.compile(r"[+-]?0[xXoObB][0-9A-Fa-f_]+")


def _why(text: str) -> str:
    """Why ``text`` (stripped, not a number) is not one, when a near miss explains it."""
    if "," in text and _GROUPED.fullmatch(text):  # 1,000: a thousands or a decimal comma
        return ("a comma: write decimals with a point (0.9) and thousands without separators "
                "(1000, not 1,000)")
    if _DECIMAL_COMMA.fullmatch(text):
        return "a decimal comma; write decimals with a point (0.9)"
    if _GROUPED.fullmatch(text):
        return "digit grouping; write the digits alone (1000000, not 1'000'000 or 1.000.000)"
    if "_" in text and _NUMBER.fullmatch(text.replace("_", "")):
        return "an underscore; write the digits alone (1000, not 1_000)"
    if any(ch.isspace() for ch in text) and _NUMBER.fullmatch("".join(text.split())):
        return "a space inside; write the digits together (1000, not 1 000)"
    if _PREFIXED.fullmatch(text):
        return "hexadecimal, octal and binary are not read; write decimal digits"
    if not text.isascii() and any(ch.isdigit() for ch in text):
        return "non-ASCII characters; write the digits 0-9"
    if text.endswith("%") and _NUMBER.fullmatch(text[:-1].strip()):
        return "a percent sign; write the proportion (0.95, not 95 %)"
    return ""  # a word or other text: nothing to explain


def _number_text(text: str) -> str:
    """``text`` stripped if it is a number in the accepted syntax, else a NumberTextError."""
    if not isinstance(text, str):
        raise TypeError(f"expected text, got {type(text).__name__}.")
    stripped = text.strip()
    if not stripped:
        raise NumberTextError("is empty: write a number", "empty")
    if _NUMBER.fullmatch(stripped):
        return stripped
    if _NOT_FINITE.fullmatch(stripped):
        raise NumberTextError(f"{stripped!r} is not a finite number: NaN and infinity are not "
                              "read as numbers here", "not_finite")
    shown = stripped if len(stripped) <= 40 else stripped[:37] + "..."
    why = _why(stripped)
    raise NumberTextError(f"{shown!r} is not a number{': ' + why if why else ''}", "syntax")


def real_from_text(text: str) -> float:
    """A finite real number written as text (see the module's rules).

    Parameters
    ----------
    text : str
        The text; spaces around the number are ignored.

    Returns
    -------
    float
        The number.

    Raises
    ------
    NumberTextError
        Text that is not a number, or a number beyond the range of a float (``1e999``).
    TypeError
        Something that is not text.

    Examples
    --------
    >>> from bayescm.core.numtext import real_from_text
    >>> real_from_text(" 2.5e-1 ")
    0.25
    >>> real_from_text("1_000")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bayescm.errors.NumberTextError: '1_000' is not a number: an underscore; write ...
    """
    stripped = _number_text(text)
    value = float(stripped)
    if not math.isfinite(value):
        shown = stripped if len(stripped) <= 40 else f"a number of {len(stripped):,} characters"
        raise NumberTextError(f"{shown} is too large: beyond about 1.8e308, the largest "
                              "floating-point number", "too_large")
    return value


def whole_from_text(text: str, maximum: int = INT64_MAX) -> int:
    """A whole number written as text, exact however long, at most ``maximum`` in size.

    ``12``, ``12.0`` and ``1.2e1`` are twelve; ``12.5`` is not whole. The size is checked
    before the digits are converted.

    Parameters
    ----------
    text : str
        The text; spaces around the number are ignored.
    maximum : int, default 2**63 - 1
        Largest absolute value accepted.

    Returns
    -------
    int
        The number (negative ones too: callers check their own range).

    Raises
    ------
    NumberTextError
        Text that is not a number, a fraction, or a number larger than ``maximum``.
    TypeError
        Something that is not text.

    Examples
    --------
    >>> from bayescm.core.numtext import whole_from_text
    >>> whole_from_text("9223372036854775807"), whole_from_text("1e3")
    (9223372036854775807, 1000)
    >>> whole_from_text("9" * 5000)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    bayescm.errors.NumberTextError: a number of 5,000 digits is larger than 9,223,372,...
    """
    stripped = _number_text(text)
    try:
        value = decimal.Decimal(stripped)
    except decimal.InvalidOperation:  # pragma: no cover - the pattern admits valid text only
        raise NumberTextError(f"{stripped!r} is not a number", "syntax") from None
    shown = stripped if len(stripped) <= 40 else (
        f"a number of {sum(ch.isdigit() for ch in stripped):,} digits")
    if value != 0 and value.adjusted() >= len(str(maximum)):
        raise NumberTextError(f"{shown} is larger than {maximum:,}", "too_large")
    if value != value.to_integral_value():
        raise NumberTextError(f"{shown} is not a whole number", "fraction")
    number = int(value)
    if abs(number) > maximum:
        raise NumberTextError(f"{shown} is larger than {maximum:,}", "too_large")
    return number
