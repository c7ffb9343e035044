"""What the ``bayescm`` commands share: the one-line user error, argument types, output.

Tables are printed with one fixed-point format (:func:`format_table`), or as CSV, or as
standard JSON (NaN is ``null``, infinities the strings ``"inf"`` and ``"-inf"``).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import pandas as pd

__all__ = ["EXIT_USAGE", "Parser", "UsageError", "count", "decimals_for", "emit", "existing",
           "format_table", "json_value", "positive_int", "probability", "progress", "table_json",
           "whole"]

EXIT_USAGE = 2


class UsageError(Exception):
    """A user error the command line reports in one line (exit code 2)."""


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (and exit code 2)."""

    def error(self, message: str) -> NoReturn:
        """Exit with code 2 and ``message`` on one line."""
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def existing(path: str | Path, what: str = "file") -> Path:
    """``path`` as a Path if something is there; else a UsageError "no such file"."""
    path = Path(path)
    if not path.exists():
        raise UsageError(f"no such {what}: {path}")
    return path


def progress(enabled: bool) -> Callable[[str], None] | None:
    """A function that prints stage messages on stderr, or None when ``enabled`` is false."""
    if not enabled:
        return None

    def say(message: str) -> None:
        print(f"bayescm: {message} ...", file=sys.stderr, flush=True)

    return say


def json_value(value: Any) -> Any:
    """A number as standard JSON: NaN -> None, infinities -> ``"inf"`` / ``"-inf"``."""
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
    return value


def table_json(table: pd.DataFrame) -> dict[str, dict[str, Any]]:
    """A table as ``{row: {column: value}}`` with :func:`json_value` numbers."""
    return {str(index): {str(k): json_value(float(v)) for k, v in row.items()}
            for index, row in table.iterrows()}


def emit(table: pd.DataFrame, fmt: str, extra: dict[str, Any] | None = None) -> None:
    """Print a table as ``"table"``, ``"csv"`` or ``"json"`` (``extra`` beside ``"rows"``)."""
    if fmt == "json":
        payload = dict(extra or {})
        payload["rows"] = table_json(table)
        print(json.dumps(payload, indent=2))
    elif fmt == "csv":
        table.to_csv(sys.stdout)
    else:
        print(format_table(table))


def decimals_for(table: pd.DataFrame) -> int:
    """Decimals that show the smallest metric uncertainty (MU) with two significant digits.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayescm.cli_common import decimals_for
    >>> decimals_for(pd.DataFrame({"mu": [0.104, 0.0123]}))
    3
    >>> decimals_for(pd.DataFrame({"mu": [4e-4]}))
    5
    """
    if "mu" not in table:
        return 3
    mu = pd.to_numeric(table["mu"], errors="coerce").to_numpy(dtype=float)
    mu = mu[(mu > 0) & (mu < float("inf"))]
    if mu.size == 0:
        return 3
    return int(min(8, max(3, 1 - math.floor(math.log10(mu.min())))))


def format_table(table: pd.DataFrame) -> str:
    """One fixed-point format for every value (decimals from the MU); ESS as whole numbers.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayescm.cli_common import format_table
    >>> print(format_table(pd.DataFrame({"mean": [0.96512, 1.2e-05], "mu": [0.1, 0.05],
    ...                                  "ess_bulk": [19876.2, 20011.9]}, index=["a", "b"])))
        mean     mu ess_bulk
    a  0.965  0.100    19876
    b  0.000  0.050    20012
    """
    digits = decimals_for(table)
    out = table.copy().astype(object)
    for column in table.columns:
        values = pd.to_numeric(table[column], errors="coerce")
        if str(column).startswith("ess_"):
            out[column] = [("nan" if pd.isna(v) else f"{v:.0f}") for v in values]
        elif column == "r_hat":
            out[column] = [("nan" if pd.isna(v) else f"{v:.3f}") for v in values]
        else:
            out[column] = [("nan" if pd.isna(v) else "inf" if v == float("inf") else
                            "-inf" if v == float("-inf") else f"{v:.{digits}f}")
                           for v in values]
    return out.to_string()


def probability(text: str) -> float:
    """Argument type: a number strictly between 0 and 1."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0.0 < value < 1.0:
        raise argparse.ArgumentTypeError(f"{text} must lie strictly between 0 and 1")
    return value


def whole(text: str, minimum: int, what: str, too_small: str) -> int:
    """Argument type: a whole number >= ``minimum``."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number{what}") from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{text} {too_small}")
    return value


def positive_int(text: str) -> int:
    """Argument type: a whole number >= 1."""
    return whole(text, 1, "", "must be >= 1")


def count(text: str) -> int:
    """Argument type: a count of samples (a whole number >= 0)."""
    return whole(text, 0, " of samples", "is negative; counts are >= 0")
