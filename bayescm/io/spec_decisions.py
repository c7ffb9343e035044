"""The ``[decisions]`` table of an analysis spec: decision curves, costs and calibration of risks.

A spec of scores that are risks (``[data]`` scores in [0, 1], the nonparametric fit) may add::

    [decisions]
    thresholds = [0.05, 0.1, 0.2, 0.3]   # or range = [0.01, 0.35, 0.01] (both ends included);
                                         #   default 0.01, 0.02, ..., 0.99 (the dcurves grid)
    cost_fp = 1                          # optional, with cost_fn: expected cost per case and the
    cost_fn = 4                          #   cost curve (Drummond & Holte)
    prevalence = 0.1                     # optional: the deployment prevalence of the cost
    calibration = true                   # optional: also fit method = "calibration" (NUTS)
    figures = ["decision_curve", "evpi"] # default: every one that applies (FIGURES)

Written next to the fit's outputs: ``net_benefit.csv`` (one row per model and threshold, see
:func:`bayescm.analyses.decision_tables.net_benefit_table`), ``expected_cost.csv`` (with
costs), ``calibration.csv`` (intercept and slope of each model) and the figures. Unknown keys,
thresholds outside (0, 1), negative or all-zero costs and data that are not risks are
``SpecError``\\ s naming the key.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from bayescm.core.scores import Scores
from bayescm.errors import SpecError
from bayescm.io.spec_parse import _check_keys, _where

__all__ = ["DECISION_FIGURES", "DECISION_KEYS", "parse_decisions", "write_decisions"]

DECISION_KEYS = ("thresholds", "range", "cost_fp", "cost_fn", "prevalence", "calibration",
                 "figures")
DECISION_FIGURES = ("decision_curve", "delta_net_benefit", "evpi", "cost_curve",
                    "calibration_curve")
"""Figures of ``[decisions]``: plot_decision_curve, plot_delta_net_benefit, plot_evpi,
plot_cost_curve, plot_calibration_curve."""


def _number(table: Mapping[str, Any], key: str, where: str) -> float:
    value = table[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise SpecError(f"{where}decisions.{key} must be a number, got {value!r}.")
    return float(value)


def parse_decisions(table: Any, data: Any, options: Mapping[str, Any],
                    source: Path | None) -> dict[str, Any]:
    """Validate ``[decisions]`` against the data and options; the settings as a dict.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.io.spec_decisions import parse_decisions
    >>> data = bcm.Scores([1, 0, 1, 0], [0.9, 0.2, 0.6, 0.4])
    >>> parse_decisions({"range": [0.1, 0.3, 0.1], "cost_fp": 1, "cost_fn": 4}, data, {},
    ...                 None)["thresholds"]
    [0.1, 0.2, 0.3]
    """
    from bayescm.analyses.cost import check_costs
    from bayescm.analyses.decision_draws import check_thresholds

    where = _where(source)
    _check_keys(table, DECISION_KEYS, "decisions", source)
    if not isinstance(data, Scores):
        raise SpecError(f"{where}[decisions] needs risks: [data] scores = ... (labels and "
                        "predicted probabilities), not confusion matrices.")
    for name, s in data.scores.items():
        if np.any(s < 0) or np.any(s > 1):
            raise SpecError(f"{where}[decisions] needs risks in [0, 1]; the scores of {name!r} "
                            f"run from {s.min():g} to {s.max():g}.")
    if options.get("method", "auto") not in ("auto", "dirichlet_process", "bootstrap"):
        raise SpecError(f"{where}[decisions] reads the item weights of the nonparametric fit; "
                        f"options.method = {options['method']!r} has none. Use "
                        "'dirichlet_process' (the default) or 'bootstrap'.")
    out: dict[str, Any] = {}
    if "thresholds" in table and "range" in table:
        raise SpecError(f"{where}decisions: give thresholds or range, not both.")
    try:
        if "range" in table:
            grid = table["range"]
            if (not isinstance(grid, list) or len(grid) != 3 or not all(
                    isinstance(v, (int, float)) and not isinstance(v, bool) for v in grid)
                    or grid[2] <= 0 or grid[1] < grid[0]):
                raise SpecError(f"{where}decisions.range must be [start, stop, step] with start "
                                f"<= stop and step > 0, got {grid!r}.")
            count = int(np.floor((grid[1] - grid[0]) / grid[2] + 1e-9)) + 1
            values = np.round(grid[0] + grid[2] * np.arange(count), 10)
            out["thresholds"] = check_thresholds(values).tolist()
        elif "thresholds" in table:
            out["thresholds"] = check_thresholds(table["thresholds"]).tolist()
    except (TypeError, ValueError) as err:
        raise SpecError(f"{where}decisions.{'range' if 'range' in table else 'thresholds'}: "
                        f"{err}") from None
    costs = [k for k in ("cost_fp", "cost_fn") if k in table]
    if len(costs) == 1:
        raise SpecError(f"{where}decisions: give both cost_fp and cost_fn (only {costs[0]}).")
    if costs:
        try:
            c_fp, c_fn, _ = check_costs(_number(table, "cost_fp", where),
                                        _number(table, "cost_fn", where), 0.0)
        except ValueError as err:
            raise SpecError(f"{where}decisions: {err}") from None
        out["cost_fp"], out["cost_fn"] = c_fp, c_fn
        metrics = options.get("metrics")
        missing = [m for m in ("tpr", "tnr", "prevalence") if metrics is not None
                   and m not in metrics]
        if missing:
            raise SpecError(f"{where}decisions: the expected cost reads the draws of tpr, tnr "
                            f"and prevalence; options.metrics leaves out {missing[0]!r}. Add "
                            "it, or leave options.metrics out.")
    if "prevalence" in table:
        if not costs:
            raise SpecError(f"{where}decisions.prevalence is the prevalence of the expected "
                            "cost; give cost_fp and cost_fn with it.")
        p = _number(table, "prevalence", where)
        if not 0 < p < 1:
            raise SpecError(f"{where}decisions.prevalence must lie strictly between 0 and 1, "
                            f"got {p:g}.")
        out["prevalence"] = p
    calibration = table.get("calibration", False)
    if not isinstance(calibration, bool):
        raise SpecError(f"{where}decisions.calibration must be true or false.")
    out["calibration"] = calibration
    applies = {"decision_curve": True, "evpi": True, "delta_net_benefit": len(data.names) > 1,
               "cost_curve": bool(costs), "calibration_curve": calibration}
    figures = table.get("figures", [f for f in DECISION_FIGURES if applies[f]])
    if not isinstance(figures, list) or not all(isinstance(f, str) for f in figures):
        raise SpecError(f"{where}decisions.figures must be a list of names.")
    for f in figures:
        if f not in DECISION_FIGURES:
            raise SpecError(f"{where}decisions.figures: unknown figure {f!r}; choose from "
                            f"{', '.join(DECISION_FIGURES)}.")
        if not applies[f]:
            need = {"delta_net_benefit": "two or more risk columns",
                    "cost_curve": "cost_fp and cost_fn", "calibration_curve": "calibration = "
                    "true"}[f]
            raise SpecError(f"{where}decisions.figures: {f!r} needs {need}.")
    out["figures"] = list(figures)
    return out


def write_decisions(settings: Mapping[str, Any], data: Any, idata: Any, folder: Path,
                    figure_format: str = "png", seed: Any = None,
                    progress: Callable[[str], None] | None = None) -> dict[str, Path]:
    """Compute the decision analyses of a fitted spec and write their tables and figures.

    Returns what was written, by kind (``"net_benefit"``, ``"decision_curve"``, ...).
    """
    from bayescm.analyses.cost import cost_curve, expected_cost
    from bayescm.analyses.decision import net_benefit
    from bayescm.analyses.decision_tables import cost_table, net_benefit_table
    from bayescm.analyses.summary import summary as summarise
    from bayescm.core.files import atomic_write
    from bayescm.models.fitting import fit

    say = progress or (lambda message: None)
    written: dict[str, Path] = {}
    nb = net_benefit(idata, thresholds=settings.get("thresholds"))
    say(f"writing {folder / 'net_benefit.csv'}")
    written["net_benefit"] = atomic_write("net_benefit.csv", net_benefit_table(nb).to_csv,
                                          root=folder)
    trees: dict[str, Any] = {"decision_curve": nb, "delta_net_benefit": nb, "evpi": nb}
    if "cost_fp" in settings:
        cost = expected_cost(idata, cost_fp=settings["cost_fp"],
                                 cost_fn=settings["cost_fn"],
                                 prevalence=settings.get("prevalence"), random_seed=seed)
        written["expected_cost"] = atomic_write("expected_cost.csv", cost_table(cost).to_csv,
                                                root=folder)
        trees["cost_curve"] = cost_curve(idata, over="cost_ratio",
                                             prevalence=settings.get("prevalence"))
    if settings.get("calibration"):
        say("fitting the calibration model (NUTS)")
        calibration = fit(data, method="calibration", random_seed=seed)
        summary = summarise(calibration, var_names=["calibration_intercept",
                                                      "calibration_slope"])
        written["calibration"] = atomic_write("calibration.csv", summary.to_csv, root=folder)
        trees["calibration_curve"] = calibration
    for name in settings.get("figures", ()):
        written[name] = _figure(name, trees[name], folder, figure_format, say)
    return written


def _figure(name: str, tree: Any, folder: Path, fmt: str, say: Callable[[str], None]) -> Path:
    from functools import partial

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bayescm import plots
    from bayescm.core.files import atomic_write

    file = f"{name}.{fmt}"
    say(f"drawing {folder / file}")
    ax = getattr(plots, f"plot_{name}")(tree)
    fig = ax.get_figure(root=True)
    try:
        return atomic_write(file, partial(fig.savefig, dpi=120, format=fmt), root=folder)
    finally:
        plt.close(fig)
