"""Tables on the page: plain HTML ``<table>`` elements with fixed decimals, and CSV downloads.

The page shows every number with four decimals (proportions, as ``bcm.summary``), ESS as whole
numbers, and undefined values as ``nan``; the first column holds the row names exactly as in
the data frame's index (for a summary: :func:`bayescm.summary`'s variable names).
"""

from __future__ import annotations

import html
import math
from typing import Any

import pandas as pd

__all__ = ["TABLE_CSS", "csv_bytes", "format_number", "table_html"]

TABLE_CSS = """
<style>
table.bcm-table { border-collapse: collapse; font-size: 13px; font-variant-numeric: tabular-nums;
  margin: 4px 0; }
table.bcm-table th, table.bcm-table td { padding: 3px 9px; border-bottom: 1px solid #d9d9d9;
  text-align: right; white-space: nowrap; }
table.bcm-table th { background: #f2f5f8; font-weight: 600; }
table.bcm-table td:first-child, table.bcm-table th:first-child { text-align: left;
  font-family: ui-monospace, Menlo, Consolas, monospace; }
div.bcm-scroll { overflow-x: auto; max-width: 100%; }
</style>
"""
"""Styles of the app's tables (they travel inside each table's HTML pane)."""


def format_number(value: Any, column: str = "", decimals: int = 4) -> str:
    """One cell as text: ``decimals`` places; ESS whole; ``nan``, ``inf``; text unchanged.

    Examples
    --------
    >>> from bayescm.app.tables import format_number
    >>> format_number(0.964747), format_number(19257.3, "ess_mean"), format_number(float("inf"))
    ('0.9647', '19257', 'inf')
    >>> format_number(-1e-9)
    '0.0000'

    """
    numeric = isinstance(value, (int, float)) or hasattr(value, "dtype")
    if isinstance(value, bool) or not numeric:
        return str(value)
    number = float(value)
    if math.isnan(number):
        return "nan"
    if math.isinf(number):
        return "inf" if number > 0 else "-inf"
    if column.startswith("ess") or column in ("n", "rule_of_thumb_n"):
        return f"{number:.0f}"
    text = f"{number:.{decimals}f}"
    return text[1:] if text.startswith("-") and not text.strip("-0.") else text


def table_html(table: pd.DataFrame, *, index_name: str | None = None, decimals: int = 4,
               caption: str | None = None) -> str:
    """A data frame as a plain HTML table (class ``bcm-table``), row names in the first column.

    Parameters
    ----------
    table : pandas.DataFrame
        The numbers; its index becomes the first column.
    index_name : str, optional
        The first column's heading; default the index's name, else ``"variable"``.
    decimals : int, default 4
        Places of every number except ESS columns.
    caption : str, optional
        A caption above the table.

    Examples
    --------
    >>> import pandas as pd
    >>> from bayescm.app.tables import table_html
    >>> out = table_html(pd.DataFrame({"mean": [0.96475]}, index=pd.Index(["tpr"],
    ...                                                                  name="variable")))
    >>> "<td>tpr</td>" in out and "<td>0.9647</td>" in out
    True
    """
    name = index_name or table.index.name or "variable"
    shown = pd.DataFrame({str(c): [format_number(v, str(c), decimals) for v in table[c]]
                          for c in table.columns}, index=table.index)
    shown.index = [str(v) for v in table.index]
    shown.index.name = str(name)
    body = shown.reset_index().to_html(index=False, classes=["bcm-table"], border=0,
                                       escape=True)
    top = f"<p><b>{html.escape(caption)}</b></p>" if caption else ""
    return f"{TABLE_CSS}{top}<div class='bcm-scroll'>{body}</div>"


def csv_bytes(table: pd.DataFrame) -> bytes:
    """The table as UTF-8 CSV with full precision (what the download buttons serve).

    Examples
    --------
    >>> import pandas as pd
    >>> from bayescm.app.tables import csv_bytes
    >>> csv_bytes(pd.DataFrame({"mean": [0.5]}, index=pd.Index(["tpr"], name="variable")))
    b'variable,mean\\ntpr,0.5\\n'
    """
    return table.to_csv(lineterminator="\n").encode("utf-8")
