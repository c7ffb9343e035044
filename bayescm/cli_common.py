"""What the ``bayescm`` commands share: the one-line user error, argument types, output.

Tables are printed with one fixed-point format (:func:`format_table`; whole-number columns as
integers), or as CSV, or as standard JSON (NaN is ``null``, infinities the strings ``"inf"``
and ``"-inf"``). Errors are one line ``bayescm COMMAND: error: ...`` with exit code 2 (a
mistyped option, choice, prior or metric name gets a "Did you mean ...?"), and a warning is one
line ``bayescm: warning: ...`` (:func:`warnings_as_lines`), never Python's
``file:line: Category: ...`` with the source line.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import re
import secrets
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn, TextIO

import pandas as pd

from bayescm.core.arguments import did_you_mean
from bayescm.core.numtext import real_from_text, whole_from_text
from bayescm.core.validate import check_probability

__all__ = ["EXIT_USAGE", "Parser", "UsageError", "check_figure_path", "count", "decimals_for",
           "emit", "existing", "format_table", "json_value", "note_seed", "one_line",
           "parameter_prior", "positive_int", "probability", "progress", "real", "save_figure",
           "seed_for", "seed_int", "table_json", "warnings_as_lines", "whole"]

EXIT_USAGE = 2


class UsageError(Exception):
    """A user error the command line reports in one line (exit code 2)."""


_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)")


class Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (and exit code 2).

    A mistyped choice or option gets the closest valid ones ("Did you mean ...?").
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.flags: list[str] = []
        """Every option string of this parser (for suggestions; argparse adds ``-h`` in
        ``__init__``, so this comes first)."""
        self.commands: dict[str, Parser] = {}
        """The subcommands' parsers, by name (set by the ``bayescm`` parser)."""
        super().__init__(*args, **kwargs)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        """Add an argument, remembering its option strings."""
        action = super().add_argument(*args, **kwargs)
        self.flags.extend(action.option_strings)
        return action

    def error(self, message: str) -> NoReturn:
        """Exit with code 2 and ``message`` on one line."""
        found = _CHOICE.search(message)
        if found:
            hint = did_you_mean(found.group(1), re.findall(r"'([^']*)'", found.group(2)))
            message += f".{hint}" if hint else ""
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message} (see {self.prog} --help)\n")

    def unknown(self, extras: Sequence[str]) -> NoReturn:
        """Refuse arguments this (sub)command does not know, suggesting close options."""
        hints = "".join(did_you_mean(e.split("=")[0], self.flags) for e in extras
                        if e.startswith("-"))
        self.error(f"unrecognized arguments: {' '.join(extras)}.{hints}")


def one_line(text: object) -> str:
    """A message on one line (newlines and runs of spaces become single spaces)."""
    return " ".join(str(text).split())


@contextlib.contextmanager
def warnings_as_lines(stream: TextIO | None = None) -> Iterator[None]:
    """Within the block, each warning is printed as one line ``bayescm: warning: ...``.

    Python's default form (``file.py:6: PriorStrengthWarning: ...`` and the source line, e.g.
    ``sys.exit(main())``) shows a command-line user the package's internals.

    Examples
    --------
    >>> import io, warnings
    >>> from bayescm.cli_common import warnings_as_lines
    >>> out = io.StringIO()
    >>> with warnings_as_lines(out):
    ...     warnings.warn("few test items:\\n the prior shapes the rates", UserWarning)
    >>> print(out.getvalue(), end="")
    bayescm: warning: few test items: the prior shapes the rates
    """
    def show(message: Warning | str, category: type[Warning], filename: str, lineno: int,
             file: TextIO | None = None, line: str | None = None) -> None:
        print(f"bayescm: warning: {one_line(message)}", file=stream or sys.stderr, flush=True)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def seed_for(given: int | None) -> tuple[int, bool]:
    """The seed a command uses: ``given``, or a fresh one (and whether it was drawn here).

    A drawn seed is printed with the results, so ``--seed`` repeats the run exactly.

    Examples
    --------
    >>> from bayescm.cli_common import seed_for
    >>> seed_for(7)
    (7, False)
    >>> seed, drawn = seed_for(None)
    >>> drawn and 0 <= seed < 2**32
    True
    """
    if given is not None:
        return given, False
    return secrets.randbelow(2**32), True


def note_seed(command: str, seed: int, drawn: bool, fmt: str) -> None:
    """For CSV output (no room on stdout), name a drawn seed on stderr."""
    if drawn and fmt == "csv":
        print(f"bayescm {command}: seed {seed} (--seed {seed} repeats this run)",
              file=sys.stderr)


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
    """One fixed-point format for every value (decimals from the MU); whole numbers as such.

    Integer columns (sizes, counts, ranks) print as integers, ESS rounded to whole numbers,
    R-hat with 3 decimals, every other number with the decimals of :func:`decimals_for`.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayescm.cli_common import format_table
    >>> print(format_table(pd.DataFrame({"mean": [0.96512, 1.2e-05], "mu": [0.1, 0.05],
    ...                                  "ess_bulk": [19876.2, 20011.9], "n": [379, 20]},
    ...                                 index=["a", "b"])))
        mean     mu ess_bulk    n
    a  0.965  0.100    19876  379
    b  0.000  0.050    20012   20
    """
    digits = decimals_for(table)
    out = table.copy().astype(object)
    for column in table.columns:
        values = pd.to_numeric(table[column], errors="coerce")
        if table[column].dtype.kind in "iu":  # counts, sizes, ranks: whole numbers
            out[column] = [f"{int(v)}" for v in table[column]]
        elif str(column).startswith("ess_"):
            out[column] = [("nan" if pd.isna(v) else f"{v:.0f}") for v in values]
        elif column == "r_hat":
            out[column] = [("nan" if pd.isna(v) else f"{v:.3f}") for v in values]
        else:
            out[column] = [("nan" if pd.isna(v) else "inf" if v == float("inf") else
                            "-inf" if v == float("-inf") else f"{v:.{digits}f}")
                           for v in values]
    return out.to_string()


def real(text: str) -> float:
    """Argument type: a finite number, read strictly (no ``1_000``, ``nan``, ``inf``)."""
    try:
        return real_from_text(text)
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def probability(text: str) -> float:
    """Argument type: a number strictly between 0 and 1 (the package's one check)."""
    value = real(text)
    try:
        return check_probability(value, "the value")
    except (TypeError, ValueError):
        raise argparse.ArgumentTypeError(f"{text} must lie strictly between 0 and 1") from None


def whole(text: str, minimum: int, what: str, too_small: str, maximum: int = 2**63 - 1
          ) -> int:
    """Argument type: a whole number >= ``minimum``, read strictly (no ``1_000``)."""
    try:
        value = whole_from_text(text, maximum)
    except ValueError as err:
        if getattr(err, "kind", "") == "too_large":
            raise argparse.ArgumentTypeError(f"{text} is larger than {maximum:,}") from None
        reason = ("" if getattr(err, "kind", "") == "fraction" else
                  f" ({str(err).split(': ', 1)[-1]})")
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number{what}{reason}"
                                         ) from None
    if value < minimum:
        raise argparse.ArgumentTypeError(f"{text} {too_small}")
    return value


def positive_int(text: str) -> int:
    """Argument type: a whole number >= 1."""
    return whole(text, 1, "", "must be >= 1")


def count(text: str) -> int:
    """Argument type: a count of samples (a whole number >= 0)."""
    return whole(text, 0, " of samples", "is negative; counts are >= 0")


def seed_int(text: str) -> int:
    """Argument type: a random seed (a whole number >= 0)."""
    return whole(text, 0, "", "is negative; a seed is >= 0", maximum=2**128)


def parameter_prior(text: str) -> tuple[str, Any]:
    """Argument type: ``PARAM=PRIOR`` of ``--priors``, a prior name or a JSON table, as a spec's.

    Examples
    --------
    >>> from bayescm.cli_common import parameter_prior
    >>> parameter_prior('tpr={"mean": 0.9, "concentration": 20}')
    ('tpr', Beta(alpha=18.0, beta=2.0))
    >>> parameter_prior("tnr=jeffreys")
    ('tnr', Jeffreys())
    """
    from bayescm.io.spec_parse import parse_prior

    name, sep, value = text.partition("=")
    name, value = name.strip(), value.strip()
    if not sep or not name.isidentifier() or not value:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not PARAM=PRIOR (e.g. tpr=jeffreys or "
            "prevalence='{\"fixed\": 0.5}')")
    spec: Any = value
    if value.startswith("{"):
        try:
            spec = json.loads(value)
        except json.JSONDecodeError as err:
            raise argparse.ArgumentTypeError(f"the prior of {name} is not valid JSON: "
                                             f"{err.msg}") from None
    try:
        return name, parse_prior(spec, name)
    except (TypeError, ValueError) as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def check_figure_path(path: str) -> None:
    """A ``--plot`` path that can be written, in a format matplotlib writes (else an error)."""
    from matplotlib.figure import Figure

    from bayescm.core.files import check_file

    check_file(path, "posteriors.png")
    suffix = Path(path).suffix.lstrip(".").lower() or "png"
    formats = Figure().canvas.get_supported_filetypes()
    if suffix not in formats:
        raise UsageError(f"--plot {path}: figures are written as {', '.join(sorted(formats))}; "
                         f"not .{suffix}.{did_you_mean(suffix, formats)}")


def save_figure(fig: Any, path: str) -> None:
    """Write ``fig`` to ``path`` atomically, in the format its suffix names, and close it."""
    import matplotlib.pyplot as plt

    from bayescm.core.files import atomic_write

    suffix = Path(path).suffix.lstrip(".").lower() or "png"
    try:
        atomic_write(path, lambda tmp: fig.savefig(tmp, dpi=120, format=suffix))
    finally:
        plt.close(fig)
