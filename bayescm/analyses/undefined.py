"""Summaries of variables some of whose draws are undefined (NaN).

A metric can be undefined in some posterior draws and not in others (a PPV of 0/0 where a draw
has no predicted positives). Such a row is summarised over its defined draws, and the table
says what share of draws was left out (column ``undefined``); a row whose draws are all
undefined stays NaN. R-hat and ESS are not computed for partly undefined rows (the chains
would have gaps).

Examples
--------
>>> import numpy as np
>>> from bayescm.analyses.undefined import summarise_defined
>>> block = np.array([[0.1, np.nan, 0.3, 0.2]])
>>> columns = ("mean", "sd", "hdi_lower", "hdi_upper", "mu")
>>> out = summarise_defined([block], {c: np.array([np.nan]) for c in columns}, 0.95,
...                         stats=True)
>>> round(float(out["mean"][0]), 3), float(out["undefined"][0])
(0.2, 0.25)
"""

from __future__ import annotations

import numpy as np

from bayescm.core.stats import hdi_rows

__all__ = ["summarise_defined"]


def summarise_defined(blocks: list[np.ndarray], values: dict[str, np.ndarray], prob: float,
                      stats: bool) -> dict[str, np.ndarray]:
    """Fill the rows with NaN means from their defined draws; add the ``undefined`` share.

    Parameters
    ----------
    blocks : list of ndarray
        The draws, one ``(rows, draws)`` block per variable, in the table's row order.
    values : dict of str -> ndarray
        The columns computed from all draws (``mean`` at least); changed in place.
    prob : float
        The HDI probability.
    stats : bool
        Whether the table has the statistics columns (mean, sd, HDI, MU).

    Returns
    -------
    dict of str -> ndarray
        ``values``, with the partly undefined rows summarised and an ``undefined`` column
        (share of undefined draws per row) when any row has undefined draws.
    """
    suspects = np.flatnonzero(np.isnan(values["mean"]))
    if suspects.size == 0:
        return values
    starts = np.cumsum([0] + [len(b) for b in blocks])
    share = np.zeros(len(values["mean"]))
    for row in suspects:
        block = int(np.searchsorted(starts, row, side="right")) - 1
        draws = np.asarray(blocks[block][row - starts[block]], dtype=float)
        defined = draws[~np.isnan(draws)]
        share[row] = 1.0 - defined.size / draws.size
        if not stats or defined.size == 0 or defined.size == draws.size:
            continue
        values["mean"][row] = defined.mean()
        values["sd"][row] = defined.std(ddof=1) if defined.size > 1 else np.nan
        lo, hi = hdi_rows(defined[None, :], prob)[0]
        values["hdi_lower"][row], values["hdi_upper"][row], values["mu"][row] = lo, hi, hi - lo
        for column in ("r_hat", "ess"):
            if column in values:
                values[column][row] = np.nan
    if share.any():
        values["undefined"] = share
    return values
