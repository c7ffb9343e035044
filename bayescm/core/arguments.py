"""What users pass and what they are told: unknown keywords, names, and warnings.

* :func:`keyword_checked` and :func:`reject_unknown`: an unknown keyword argument is a
  TypeError that lists the valid ones and suggests the closest (:func:`did_you_mean`);
* :func:`check_names`: names that become coordinates (classifiers, classes) are printable,
  distinct text;
* :func:`warn_user`: a warning points at the user's own line, however deep it was raised.

Examples
--------
>>> from bayescm.core.arguments import did_you_mean
>>> did_you_mean("chians", ["chains", "draws"])
" Did you mean 'chains'?"
"""

from __future__ import annotations

import difflib
import functools
import inspect
import os
import unicodedata
import warnings
from collections.abc import Callable, Iterable
from typing import Any

__all__ = ["HINTS", "check_names", "did_you_mean", "keyword_checked", "reject_unknown",
           "warn_user"]


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
    >>> from bayescm.core.arguments import warn_user
    >>> with warnings.catch_warnings(record=True) as seen:
    ...     warnings.simplefilter("always")
    ...     warn_user("look here")
    >>> seen[0].filename.endswith("validate.py")
    False
    """
    warnings.warn(message, category, skip_file_prefixes=(PACKAGE_DIR,))


# ----------------------------------------------------------------------------- keywords
def reject_unknown(given: Iterable[str], valid: Iterable[str], where: str,
                   hint: str = "") -> None:
    """Raise a TypeError naming unknown keywords of ``where`` and the valid ones.

    Examples
    --------
    >>> from bayescm.core.arguments import reject_unknown
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
    if not hint:
        hint = did_you_mean(unknown[0], valid)
    raise TypeError(f"{where} got {what}; valid keywords: {', '.join(valid)}.{hint}")


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """`` Did you mean 'x'?`` for the choices closest to a mistyped ``word``, else ``""``.

    Examples
    --------
    >>> from bayescm.core.arguments import did_you_mean
    >>> did_you_mean("jefreys", ["laplace", "jeffreys", "haldane"])
    " Did you mean 'jeffreys'?"
    >>> did_you_mean("var_names", ["var", "hdi_prob"])  # a keyword it starts with
    " Did you mean 'var'?"
    >>> did_you_mean("zzz", ["laplace"])
    ''
    """
    options = {str(c).lower(): str(c) for c in choices}
    given = str(word).lower()
    close = difflib.get_close_matches(given, list(options), n=2, cutoff=0.6) or [
        c for c in options if len(c) >= 3 and given.startswith(c + "_")][:2]
    if not close:
        return ""
    return f" Did you mean {' or '.join(repr(options[c]) for c in close)}?"


def check_names(names: Iterable[Any], what: str) -> list[str]:
    """Names as text, refused when two are equal as text or one holds a control character.

    Names become coordinates of result trees and columns of tables: a control character
    (a NUL, a newline) is dropped or mangled on the way (NumPy strips trailing NULs, so
    ``"a"`` and ``"a\\x00"`` would become one name), so it is an error here.

    Raises
    ------
    ValueError
        Duplicate names (as strings) or a control character in one.

    Examples
    --------
    >>> from bayescm.core.arguments import check_names
    >>> check_names(["a", "a\\x00"], "classifier names")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: classifier names: 'a\\x00' holds the control character '\\x00'; names must ...
    """
    out = [str(n) for n in names]
    for text in out:
        bad = next((c for c in text if unicodedata.category(c) == "Cc"), None)
        if bad is not None:
            raise ValueError(f"{what}: {text!r} holds the control character {bad!r}; names "
                             "must be printable text.")
    if len(set(out)) != len(out):
        dupes = sorted({n for n in out if out.count(n) > 1})
        raise ValueError(f"{what} must be unique as text; duplicated: {dupes}.")
    return out


HINTS = {
    "model": " model= and group= belong to bcm.fit (model='hierarchical').",
    "group": " model= and group= belong to bcm.fit (model='hierarchical').",
    "priors": " Priors keyed by parameter (priors={...}) are set in bcm.fit.",
    "seed": " Did you mean random_seed=?",
    "var_names": " var_names= chooses rows of bcm.summary; fit computes every metric unless "
                 "metrics=[...] names some.",
}


def keyword_checked[F: Callable[..., Any]](func: F) -> F:
    """Decorator: unknown keyword arguments raise a TypeError that lists the valid ones.

    Python's own message names only the bad keyword; this one also says what the function
    accepts, so a typo (``hdi_porb=``) or a keyword from another function (``priors=``)
    is easy to mend. The check is a set lookup per keyword; the signature is unchanged.

    Examples
    --------
    >>> from bayescm.core.arguments import keyword_checked
    >>> @keyword_checked
    ... def area(width, height=1.0):
    ...     return width * height
    >>> area(2, hieght=3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: area() got an unknown keyword argument 'hieght'; valid keywords: height, ...
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
                # a close keyword of this function first; else what the keyword is for
                reject_unknown(kwargs, valid, where,
                               did_you_mean(key, valid) or HINTS.get(key, ""))
        return func(*args, **kwargs)

    return wrapper  # type: ignore[return-value]
