"""Planning specs: a ``[planning]`` table instead of data, for the test set a claim needs.

A spec that plans has no data yet::

    name = "sensitivity_study"
    description = "How many positives show a sensitivity above 0.9?"

    [planning]
    claim = "tpr > 0.9"                                 # a rate, a bound (or width(tpr) < 0.1)
    design = {tpr = {mean = 0.95, concentration = 100}} # what one believes before the study
    assurance = 0.8                                     # the chance of establishing the claim
    level = 0.95                                        # P(claim | data) that establishes it
    n = [50, 100, 200]                                  # optional: the assurance at these sizes
    prior = "laplace"                                   # optional: the analysis prior

``bayescm run`` (or :meth:`PlanningSpec.run`) answers with the smallest test set that reaches
the assurance (:func:`bayescm.samplesize.required_n_claim`), the assurance at each ``n``
(:func:`bayescm.samplesize.assurance`) and the assurance curve, written as ``planning.csv`` and
``assurance.<format>`` in ``output/<name>/``.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from bayescm.io.spec_parse import SpecError, _check_keys, _where, figure_format

__all__ = ["PLANNING_KEYS", "PlanningSpec", "parse_planning"]

PLANNING_KEYS = ("claim", "design", "assurance", "level", "n", "prior")
"""Keys of a spec's ``[planning]`` table."""

TOP_KEYS = ("name", "description", "planning", "outputs")
"""Top-level keys a planning spec may have (no data: it plans the data)."""


@dataclass(frozen=True)
class PlanningSpec:
    """A parsed planning spec; :meth:`run` answers it.

    Examples
    --------
    >>> from bayescm.io.spec import parse_spec
    >>> spec = parse_spec({"planning": {"claim": "tpr > 0.9",
    ...                    "design": {"tpr": {"mean": 0.95, "concentration": 100}}}}, name="p")
    >>> table = spec.run(write=False)
    >>> table.index[0], int(table["n"].iloc[0]) > 0
    ('smallest n with assurance 0.8', True)
    """

    name: str
    claim: str
    design: dict[str, Any]
    assurance: float = 0.8
    level: float = 0.95
    sizes: tuple[int, ...] = ()
    prior: Any = None
    figure_format: str = "png"
    description: str = ""
    source: Any = field(default=None, compare=False)

    def output_folder(self, output_dir: str | Path | None = None) -> Path:
        """The folder the outputs go to: ``output_dir`` or ``output/<name>/``."""
        return Path(output_dir) if output_dir is not None else Path("output") / self.name

    def run(self, output_dir: str | Path | None = None, *, write: bool = True,
            progress: Callable[[str], None] | None = None) -> pd.DataFrame:
        """The smallest test set, the assurance at each given size; written unless not.

        Parameters
        ----------
        output_dir : str or Path, optional
            Folder of ``planning.csv`` and the figure; default ``output/<name>/``.
        write : bool, default True
            False: compute only.
        progress : callable, optional
            Called with a short status message before each stage.

        Returns
        -------
        pandas.DataFrame
            Rows: the smallest ``n``, then each size of ``n``; columns ``n``, ``assurance``
            and ``counts`` (what ``n`` counts: positives for a TPR).
        """
        from bayescm.analyses import samplesize

        say = progress or (lambda _: None)
        say(f"planning {self.claim!r}")
        plan = samplesize.required_n_claim(self.claim, self.assurance, self.design, self.level,
                                           self.prior)
        sizes = np.array(self.sizes or sorted({max(2, plan.n // 4), max(2, plan.n // 2),
                                               plan.n, plan.n * 2}), dtype=np.int64)
        curve = samplesize.assurance(self.claim, sizes, self.design, self.level, self.prior)
        rows = {f"smallest n with assurance {self.assurance:g}": (plan.n, plan.assurance)}
        rows.update({f"n = {int(n):,}": (int(n), float(a))
                     for n, a in zip(sizes, np.asarray(curve), strict=True)})
        table = pd.DataFrame({"n": [n for n, _ in rows.values()],
                              "assurance": [a for _, a in rows.values()],
                              "counts": plan.counts}, index=pd.Index(list(rows), name="row"))
        table.attrs["limit"] = plan.limit
        if write:
            table.attrs["written"] = self._write(table, plan, say, output_dir)
        return table

    def _write(self, table: pd.DataFrame, plan: Any, say: Callable[[str], None],
               output_dir: str | Path | None) -> dict[str, Path]:
        import matplotlib.pyplot as plt

        from bayescm.analyses import samplesize
        from bayescm.core.files import atomic_write, ensure_folder
        from bayescm.plots import plot_assurance

        folder = ensure_folder(self.output_folder(output_dir))
        written = {"planning": folder / "planning.csv",
                   "assurance": folder / f"assurance.{self.figure_format}"}
        atomic_write(written["planning"], lambda tmp: table.to_csv(tmp))
        say("drawing the assurance curve")
        top = max(plan.n, int(table["n"].max())) * 3
        grid = np.unique(np.geomspace(2, top, 40).astype(np.int64))
        curve = samplesize.assurance(self.claim, grid, self.design, self.level, self.prior)
        fig = plot_assurance(curve, target=self.assurance).get_figure(root=True)
        assert fig is not None
        atomic_write(written["assurance"], lambda tmp: fig.savefig(
            tmp, format=self.figure_format, bbox_inches="tight"))
        plt.close(fig)
        return written


def parse_planning(raw: Mapping[str, Any], name: str, source: Any = None) -> PlanningSpec:
    """A spec with a ``[planning]`` table, checked (:class:`SpecError` naming the key).

    Examples
    --------
    >>> from bayescm.io.spec_planning import parse_planning
    >>> spec = parse_planning({"planning": {"claim": "tnr > 0.8",
    ...                        "design": {"tnr": {"alpha": 90, "beta": 10}}, "n": [40, 80]}},
    ...                       "p")
    >>> spec.claim, spec.sizes, spec.design["tnr"]
    ('tnr > 0.8', (40, 80), Beta(alpha=90.0, beta=10.0))
    """
    from bayescm.analyses.samplesize.claims import Claim

    where = _where(source)
    _check_keys(raw, TOP_KEYS, "top level of a planning spec (it has no data yet)", source)
    table = raw["planning"]
    if not isinstance(table, Mapping):
        raise SpecError(f"{where}[planning] must be a table, got {table!r}.")
    _check_keys(table, PLANNING_KEYS, "planning", source)
    if "claim" not in table or "design" not in table:
        raise SpecError(f"{where}[planning] needs claim = \"tpr > 0.9\" and design = {{tpr = "
                        "{mean = 0.95, concentration = 100}}.")
    try:
        claim = Claim.parse(table["claim"]).text
    except (TypeError, ValueError) as err:
        raise SpecError(f"{where}planning.claim: {err}") from None
    design = _design(table["design"], where)
    outputs = raw.get("outputs", {})
    _check_keys(outputs, ("figure_format",), "outputs of a planning spec", source)
    fmt = figure_format(outputs, source)
    prior = table.get("prior")
    if prior is not None and prior not in ("laplace", "jeffreys", "haldane", "weak", "flat"):
        raise SpecError(f"{where}planning.prior must name a prior ('laplace', 'jeffreys', ...), "
                        f"got {prior!r}.")
    return PlanningSpec(name=str(raw.get("name", name)), claim=claim, design=design,
                        assurance=_probability(table, "assurance", 0.8, where),
                        level=_probability(table, "level", 0.95, where),
                        sizes=_sizes(table.get("n"), where), prior=prior, figure_format=fmt,
                        description=str(raw.get("description", "")), source=source)


def _probability(table: Mapping[str, Any], key: str, default: float, where: str) -> float:
    value = table.get(key, default)
    if (isinstance(value, bool) or not isinstance(value, (int, float))
            or not 0 < value < 1):
        raise SpecError(f"{where}planning.{key} must lie strictly between 0 and 1 (e.g. "
                        f"{default}), got {value!r}.")
    return float(value)


def _sizes(value: Any, where: str) -> tuple[int, ...]:
    if value is None:
        return ()
    values = value if isinstance(value, list) else [value]
    if not values or not all(isinstance(v, int) and not isinstance(v, bool) and v >= 1
                             for v in values):
        raise SpecError(f"{where}planning.n must be a whole number >= 1 or a list of them "
                        f"(e.g. [50, 100, 200]), got {value!r}.")
    return tuple(int(v) for v in values)


def _design(value: Any, where: str) -> dict[str, Any]:
    from bayescm.priors import Beta

    if not isinstance(value, Mapping) or not value:
        raise SpecError(f"{where}planning.design must be a table of priors per parameter, "
                        f"e.g. {{tpr = {{mean = 0.95, concentration = 100}}}}, got {value!r}.")
    out: dict[str, Any] = {}
    for key, spec in value.items():
        if isinstance(spec, (int, float)) and not isinstance(spec, bool):
            if not 0 < spec < 1:
                raise SpecError(f"{where}planning.design.{key}: a known value lies strictly "
                                f"between 0 and 1, got {spec!r}.")
            out[key] = float(spec)
            continue
        if not isinstance(spec, Mapping):
            raise SpecError(f"{where}planning.design.{key}: give {{mean, concentration}}, "
                            f"{{alpha, beta}} or a known value, got {spec!r}.")
        keys = set(spec)
        numbers = {k: v for k, v in spec.items()
                   if isinstance(v, (int, float)) and not isinstance(v, bool)
                   and math.isfinite(v)}
        if len(numbers) != len(spec):
            raise SpecError(f"{where}planning.design.{key}: numbers only, got {dict(spec)!r}.")
        try:
            if keys == {"mean", "concentration"}:
                out[key] = Beta.from_mean(numbers["mean"], concentration=numbers["concentration"])
            elif keys == {"alpha", "beta"}:
                out[key] = Beta(numbers["alpha"], numbers["beta"])
            else:
                raise ValueError("give {mean, concentration} or {alpha, beta}")
        except (TypeError, ValueError) as err:
            raise SpecError(f"{where}planning.design.{key}: {err}") from None
    return out
