"""One place for argument checks: every public entry point validates its input through here.

The rules, the same everywhere:

* **Counts** are exact non-negative whole numbers that fit in a signed 64-bit integer, and so do
  their sums (a cell of ``2**63 - 1`` or four cells of ``2**62`` are refused with an
  :class:`OverflowError` that states the limit, instead of wrapping around to a negative ``n``).
* **Numbers** are real numbers of a numeric type: ``True``/``False`` are not numbers here, and
  NaN, infinities and integers too large for the computation are refused with a message that
  names the argument and the range it must lie in.
* **Keywords** that a function does not know are a :class:`TypeError` that lists the ones it
  does (:func:`keyword_checked`).

Every function raises ``TypeError`` for a value of the wrong kind and ``ValueError`` for a
value of the right kind outside its range, with the argument's name in the message.
"""

from __future__ import annotations

import difflib
import functools
import inspect
import math
import numbers
import os
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

__all__ = [
    "HINTS",
    "INT64_MAX",
    "check_count_array",
    "check_int",
    "check_int_array",
    "check_probability",
    "check_real",
    "check_real_array",
    "did_you_mean",
    "keyword_checked",
    "reject_unknown",
]

INT64_MAX = int(np.iinfo(np.int64).max)
"""Largest count (and sum of counts) bayescm accepts: ``2**63 - 1``."""

def _kind(value: Any) -> str:
    return type(value).__name__


def _is_bool(value: Any) -> bool:
    return isinstance(value, (bool, np.bool_))


def check_int(value: Any, name: str, minimum: int | None = None,
              maximum: int | None = INT64_MAX, *, kind: str = "an integer") -> int:
    """An integer in ``[minimum, maximum]`` as a Python ``int``.

    Only integer types count (``int``, NumPy integers): ``5.0`` is a float, and booleans are
    not integers here. ``kind`` words the type error (e.g. ``"a positive integer"``).

    Examples
    --------
    >>> from bayescm.core.validate import check_int
    >>> check_int(5, "draws", 1)
    5
    >>> check_int(True, "draws", 1)
    Traceback (most recent call last):
    ...
    TypeError: draws must be an integer, got True (bool).
    >>> check_int(2**70, "n_max", 2)
    Traceback (most recent call last):
    ...
    ValueError: n_max must be <= 9,223,372,036,854,775,807, got 1,180,591,620,717,411,303,424.
    """
    if _is_bool(value) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be {kind}, got {value!r} ({_kind(value)}).")
    value = int(value)
    if minimum is not None and value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}.")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be <= {maximum:,}, got {value:,}.")
    return value


def check_real(value: Any, name: str, low: float = -math.inf, high: float = math.inf, *,
               low_open: bool = False, high_open: bool = False) -> float:
    """A finite real number in the interval between ``low`` and ``high``.

    ``low_open``/``high_open`` exclude the bounds. Booleans, strings, NaN and infinities are
    refused.

    Examples
    --------
    >>> from bayescm.core.validate import check_real
    >>> check_real(0.5, "prevalence", 0, 1, low_open=True, high_open=True)
    0.5
    >>> check_real(float("nan"), "margin", 0)
    Traceback (most recent call last):
    ...
    ValueError: margin must be a finite number, got nan.
    """
    if _is_bool(value) or not isinstance(value, numbers.Real):
        if isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf":
            value = value.item()
        else:
            raise TypeError(f"{name} must be a real number, got {value!r} ({_kind(value)}).")
    try:
        as_float = float(value)
    except OverflowError:
        raise ValueError(f"{name} is too large to compute with, got {value!r}.") from None
    if not math.isfinite(as_float):
        raise ValueError(f"{name} must be a finite number, got {value!r}.")
    too_low = as_float <= low if low_open else as_float < low
    too_high = as_float >= high if high_open else as_float > high
    if too_low or too_high:
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        raise ValueError(f"{name} must lie in {left}{_fmt(low)}, {_fmt(high)}{right}, "
                         f"got {value!r}.")
    return as_float


def _fmt(x: float) -> str:
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return f"{x:g}"


def check_probability(value: Any, name: str) -> float:
    """A probability strictly between 0 and 1 (interval masses, power, shares).

    Examples
    --------
    >>> from bayescm.core.validate import check_probability
    >>> check_probability(0.95, "hdi_prob")
    0.95
    >>> check_probability("0.9", "hdi_prob")
    Traceback (most recent call last):
    ...
    TypeError: hdi_prob must be a real number, got '0.9' (str).
    """
    try:
        return check_real(value, name, 0.0, 1.0, low_open=True, high_open=True)
    except ValueError:
        raise ValueError(f"{name} must lie strictly between 0 and 1, got {value!r}.") from None


def _numeric_array(value: Any, name: str) -> np.ndarray:
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be numbers, got the string {value!r}.")
    if np.ma.isMaskedArray(value):
        if np.ma.getmaskarray(value).any():
            raise ValueError(f"{name} is a masked array with masked entries; a masked value "
                             "is missing, not a number: fill or drop it first "
                             "(e.g. value.filled(0) or value.compressed()).")
        value = np.ma.getdata(value)
    try:
        arr = np.asarray(value)
    except (ValueError, TypeError) as exc:  # ragged nesting and the like
        raise ValueError(f"{name} could not be read as an array: {exc}") from None
    if arr.dtype == object:  # Python ints beyond int64, Decimals, mixed types
        flat = arr.reshape(-1).tolist()
        if any(_is_bool(v) or not isinstance(v, numbers.Real) for v in flat):
            bad = next(v for v in flat if _is_bool(v) or not isinstance(v, numbers.Real))
            raise TypeError(f"{name} must be numbers, got {bad!r} ({_kind(bad)}).")
        return arr
    if arr.dtype == bool:
        raise TypeError(f"{name} must be numbers, got booleans.")
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be numbers, got an array of dtype {arr.dtype}.")
    return arr


def check_count_array(value: Any, name: str = "counts") -> np.ndarray:
    """Exact non-negative whole numbers whose total fits in int64, as an int64 array.

    Refuses booleans, non-numbers, NaN, infinities, fractions, negative values, masked entries,
    and any cell or total above ``2**63 - 1`` (an :class:`OverflowError` that states the limit).
    Integral floats are accepted only where they are exact (below ``2**53``).

    Examples
    --------
    >>> from bayescm.core.validate import check_count_array
    >>> check_count_array([[3, 1.0], [0, 5]]).tolist()
    [[3, 1], [0, 5]]
    >>> check_count_array([[2**62, 2**62], [2**62, 2**62]])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ...
    OverflowError: counts sum to 18446744073709551616, more than 2**63 - 1 ...
    """
    arr = _numeric_array(value, name)
    if arr.dtype == object:
        flat = arr.reshape(-1).tolist()
        for v in flat:
            if isinstance(v, numbers.Integral):
                continue
            try:
                f = float(v)
            except OverflowError:
                raise OverflowError(f"{name} contain {v!r}, more than 2**63 - 1 = "
                                    f"{INT64_MAX}.") from None
            if math.isnan(f):
                raise ValueError(f"{name} contain NaN; every cell must be a non-negative whole "
                                 "number.")
            if not math.isfinite(f):
                raise ValueError(f"{name} contain infinite values; every cell must be a finite "
                                 "count.")
            if f != round(f):
                raise ValueError(f"{name} must be whole numbers, got the fractional value "
                                 f"{v!r}; a confusion matrix counts samples.")
            if abs(f) >= 2.0**53:
                raise OverflowError(
                    f"{name} hold {f:g} as a float, which is not an exact count (floats are "
                    "exact only below 2**53, and counts stop at 2**63 - 1); pass integers.")
        ints = [int(v) for v in flat]
        return _checked_ints(np.array(ints, dtype=object).reshape(arr.shape), ints, name)
    if arr.dtype.kind == "f":
        if np.isnan(arr).any():
            raise ValueError(f"{name} contain NaN; every cell must be a non-negative whole "
                             "number (a missing count is not 0: fill it deliberately).")
        if np.isinf(arr).any():
            raise ValueError(f"{name} contain infinite values; every cell must be a finite "
                             "count.")
        frac = arr != np.round(arr)
        if frac.any():
            raise ValueError(f"{name} must be whole numbers, got the fractional value "
                             f"{arr[frac].ravel()[0]!r}; a confusion matrix counts samples.")
        if np.any(np.abs(arr) >= 2.0**53):
            big = arr[np.abs(arr) >= 2.0**53].ravel()[0]
            raise OverflowError(
                f"{name} hold {big:g} as a float, which is not an exact count (floats are exact "
                "only below 2**53, and counts stop at 2**63 - 1); pass integers.")
        ints = [int(v) for v in arr.reshape(-1).tolist()]
        return _checked_ints(arr, ints, name)
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) > INT64_MAX:
        ints = [int(v) for v in arr.reshape(-1).tolist()]
        return _checked_ints(arr, ints, name)
    if arr.size and int(arr.min()) < 0:
        raise ValueError(f"{name} must be non-negative, got {int(arr.min())}.")
    out = arr.astype(np.int64)
    # the total in exact integer arithmetic only when float says it could be near the limit
    if out.size and float(out.sum(dtype=np.float64)) >= 2.0**62:
        _check_total(sum(int(v) for v in out.reshape(-1).tolist()), name)
    return out


def _checked_ints(arr: np.ndarray, ints: list[int], name: str) -> np.ndarray:
    negative = [v for v in ints if v < 0]
    if negative:
        raise ValueError(f"{name} must be non-negative, got {negative[0]}.")
    big = [v for v in ints if v > INT64_MAX]
    if big:
        raise OverflowError(f"{name} contain {big[0]}, more than 2**63 - 1 = {INT64_MAX}; "
                            "bayescm counts in signed 64-bit integers.")
    _check_total(sum(ints), name)
    return np.array(ints, dtype=np.int64).reshape(np.shape(arr))


def _check_total(total: int, name: str) -> None:
    if total > INT64_MAX:
        raise OverflowError(f"{name} sum to {total}, more than 2**63 - 1 = {INT64_MAX}; "
                            "bayescm counts in signed 64-bit integers.")


def check_int_array(value: Any, name: str, minimum: int = 0, maximum: int = INT64_MAX
                    ) -> np.ndarray:
    """Whole numbers (a scalar or an array) in ``[minimum, maximum]`` as int64.

    Examples
    --------
    >>> from bayescm.core.validate import check_int_array
    >>> check_int_array([10, 100.0], "n", 1).tolist()
    [10, 100]
    """
    arr = _numeric_array(value, name)
    if arr.dtype == object or arr.dtype.kind == "f":
        try:
            as_float = arr.astype(float)
        except OverflowError:
            raise ValueError(f"{name} must be <= {maximum:,}, got {value!r}.") from None
        if not np.all(np.isfinite(as_float)):
            raise ValueError(f"{name} must be finite whole numbers, got {value!r}.")
        if np.any(as_float != np.round(as_float)):
            bad = as_float[as_float != np.round(as_float)].ravel()[0]
            raise ValueError(f"{name} must be whole numbers, got {bad!r}.")
        if np.any(as_float > maximum) or (arr.dtype == object and any(
                int(v) > maximum for v in arr.reshape(-1).tolist())):
            raise ValueError(f"{name} must be <= {maximum:,}, got {value!r}.")
        if np.any(as_float < minimum):
            raise ValueError(f"{name} must be >= {minimum}, got {value!r}.")
        return np.array([int(v) for v in arr.reshape(-1).tolist()],
                        dtype=np.int64).reshape(arr.shape)
    if arr.dtype.kind == "u" and arr.size and int(arr.max()) > min(maximum, INT64_MAX):
        raise ValueError(f"{name} must be <= {maximum:,}, got {int(arr.max()):,}.")
    if arr.size and (int(arr.min()) < minimum or int(arr.max()) > maximum):
        bad = int(arr.min()) if int(arr.min()) < minimum else int(arr.max())
        bound = f">= {minimum}" if bad < minimum else f"<= {maximum:,}"
        raise ValueError(f"{name} must be {bound}, got {bad:,}.")
    return arr.astype(np.int64)


def check_real_array(value: Any, name: str, low: float = -math.inf, high: float = math.inf, *,
                     low_open: bool = False, high_open: bool = False) -> np.ndarray:
    """Finite real numbers (a scalar or an array) within the bounds, as float64.

    Examples
    --------
    >>> from bayescm.core.validate import check_real_array
    >>> check_real_array([0.1, 0.2], "mu", 0, 1, low_open=True).tolist()
    [0.1, 0.2]
    """
    arr = _numeric_array(value, name)
    try:
        out = arr.astype(float)
    except (OverflowError, TypeError, ValueError):
        raise ValueError(f"{name} is too large to compute with, got {value!r}.") from None
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{name} must be finite numbers, got {value!r}.")
    too_low = out <= low if low_open else out < low
    too_high = out >= high if high_open else out > high
    if np.any(too_low | too_high):
        left = "(" if low_open else "["
        right = ")" if high_open else "]"
        bad = out[too_low | too_high].ravel()[0]
        raise ValueError(f"{name} must lie in {left}{_fmt(low)}, {_fmt(high)}{right}, "
                         f"got {bad!r}.")
    return out


# ----------------------------------------------------------------------------- warnings
PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep
"""The package's folder: frames inside it are skipped when a warning names its line."""


def warn_user(message: str, category: type[Warning] = UserWarning) -> None:
    """Issue a warning attributed to the user's line: the first caller outside bayescm.

    However deep inside the package the warning is raised, it points at the call the user
    wrote (``warnings.warn``'s ``skip_file_prefixes``), so refactoring never moves it.

    Examples
    --------
    >>> import warnings
    >>> from bayescm.core.validate import warn_user
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     warn_user("look here")
    >>> seen[0].filename.endswith("validate.py")
    False
    """
    warnings.warn(message, category, skip_file_prefixes=(PACKAGE_DIR,))


# ----------------------------------------------------------------------------- names
def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` Did you mean 'x'?`` for the choices closest to a mistyped ``word``, else ``""``.

    Examples
    --------
    >>> from bayescm.core.validate import did_you_mean
    >>> did_you_mean("jefreys", ["laplace", "jeffreys", "haldane"])
    " Did you mean 'jeffreys'?"
    >>> did_you_mean("zzz", ["laplace"])
    ''
    """
    options = {str(c).lower(): str(c) for c in choices}
    close = difflib.get_close_matches(str(word).lower(), list(options), n=2, cutoff=0.6)
    if not close:
        return ""
    return f" Did you mean {' or '.join(repr(options[c]) for c in close)}?"


# ----------------------------------------------------------------------------- keywords
def reject_unknown(given: Iterable[str], valid: Iterable[str], where: str,
                   hint: str = "") -> None:
    """Raise a TypeError naming unknown keywords of ``where`` and the valid ones.

    Examples
    --------
    >>> from bayescm.core.validate import reject_unknown
    >>> reject_unknown(["bogus"], ["draws", "chains"], "fit()")
    Traceback (most recent call last):
    ...
    TypeError: fit() got an unknown keyword argument 'bogus'; valid keywords: chains, draws.
    """
    valid = sorted(set(valid))
    unknown = [k for k in given if k not in valid]
    if not unknown:
        return
    what = (f"an unknown keyword argument {unknown[0]!r}" if len(unknown) == 1 else
            f"unknown keyword arguments {', '.join(map(repr, unknown))}")
    hint = hint or did_you_mean(unknown[0], valid)
    raise TypeError(f"{where} got {what}; valid keywords: {', '.join(valid)}.{hint}")


HINTS = {
    "model": " model= and group= belong to bcm.fit (model='hierarchical').",
    "group": " model= and group= belong to bcm.fit (model='hierarchical').",
    "priors": " Priors keyed by parameter (priors={...}) are set in bcm.fit.",
    "seed": " Did you mean random_seed=?",
}


def keyword_checked[F: Callable[..., Any]](func: F) -> F:
    """Decorator: unknown keyword arguments raise a TypeError that lists the valid ones.

    Python's own message names only the bad keyword; this one also says what the function
    accepts, so a typo (``hdi_porb=``) or a keyword from another function (``priors=``)
    is easy to mend. The check is a set lookup per keyword; the signature is unchanged.

    Examples
    --------
    >>> from bayescm.core.validate import keyword_checked
    >>> @keyword_checked
    ... def area(width, height=1.0):
    ...     return width * height
    >>> area(2, hieght=3)  # doctest: +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    TypeError: area() got an unknown keyword argument 'hieght'; valid keywords: height,
    width. Did you mean 'height'?
    """
    sig = inspect.signature(func)
    kinds = (inspect.Parameter.POSITIONAL_OR_KEYWORD, inspect.Parameter.KEYWORD_ONLY)
    valid = frozenset(p.name for p in sig.parameters.values() if p.kind in kinds)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in sig.parameters.values()):
        return func  # the function checks its own **kwargs
    where = f"{func.__qualname__.removesuffix('.__init__')}()"

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        for key in kwargs:
            if key not in valid:
                reject_unknown(kwargs, valid, where, HINTS.get(key, ""))
        return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
