"""Folds, seeds and runs in analysis specs: one procedure's matrices, or two procedures paired.

A cross-validation (or several training seeds) gives one confusion matrix per run. A spec gives
them under ``[data.runs]``, binary or multiclass, and they are fitted by the hierarchical model
(``bcm.fit({run: ConfusionMatrix}, model="hierarchical", group=...)``): each run's metrics, the
pooled ``<metric>_mean``, the between-run spread ``<metric>_sd`` and a new run's
``<metric>_new``::

    [data]
    labels = ["cat", "dog", "bird"]  # the classes: rows TRUE, columns PREDICTED
    # positive = "cat"               # binary matrices: the positive class (default the first)
    [data.runs]                      # one procedure: a K x K matrix per run (at least two)
    fold1 = [[40, 6, 2], [5, 30, 7], [1, 6, 33]]
    fold2 = [[38, 8, 1], [6, 28, 8], [2, 5, 34]]

    # or two procedures on the same runs, compared run by run (bcm.compare_runs):
    # [data.runs.baseline]
    # fold1 = [[...], ...]
    # [data.runs.augmented]
    # fold1 = [[...], ...]

    [options]
    model = "hierarchical"           # the default for runs (or a kind of your own that pools)
    group = "fold"                   # the name of the run dim (default "run")

    [outputs]
    compare = ["acc", "f1_macro"]    # two procedures: the scalar metrics compared run by run
                                     #   (default acc and, multiclass, f1_macro; binary bm)
    tables = ["summary", "compare"]  # compare: compare.csv, the paired differences

One procedure is an ordinary :class:`~bayescm.io.spec_analysis.AnalysisSpec` of the batch; two
are a :class:`RunsComparisonSpec`, which fits each procedure into its own folder
(``<output>/<procedure>/``) and writes ``compare.csv``: per metric, each run's difference
``A - B`` (A the first procedure), their mean and the difference of the population means, with
intervals and ``P(A better)``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd
import xarray as xr

from bayescm.core.confusion import ConfusionMatrix
from bayescm.errors import SpecError
from bayescm.io.spec_analysis import AnalysisSpec
from bayescm.io.spec_parse import _check_keys, _names, _where

__all__ = ["RunsComparisonSpec", "compare_table", "first_positive", "is_runs_data",
           "parse_runs_data", "parse_runs_spec"]

RUNS_KEYS = ("runs", "labels", "positive", "ordered")
"""The keys of ``[data]`` holding runs."""
COMPARE_TABLE = "compare"
"""The table of a comparison of two procedures (``compare.csv``)."""

Build = Callable[[Mapping[str, Any], ConfusionMatrix | dict[str, Any]], AnalysisSpec]
"""How :func:`bayescm.io.spec.parse_spec` turns a spec's raw tables and its data into a spec."""


def is_runs_data(data: Any) -> bool:
    """Whether ``[data]`` gives runs (``[data.runs]``).

    Examples
    --------
    >>> from bayescm.io.spec_runs import is_runs_data
    >>> is_runs_data({"runs": {}}), is_runs_data({"tp": 1})
    (True, False)
    """
    return isinstance(data, Mapping) and "runs" in data


def parse_runs_data(data: Mapping[str, Any], source: Any
                    ) -> dict[str, dict[str, ConfusionMatrix]]:
    """``[data]`` with ``runs`` as ``{procedure: {run: ConfusionMatrix}}`` (one procedure: ``""``).

    Examples
    --------
    >>> from bayescm.io.spec_runs import parse_runs_data
    >>> runs = {"f1": [[8, 2], [1, 9]], "f2": [[7, 3], [2, 8]]}
    >>> got = parse_runs_data({"runs": runs, "labels": ["yes", "no"]}, None)
    >>> list(got), list(got[""]), got[""]["f2"].cells["fn"]
    ([''], ['f1', 'f2'], 3)
    """
    where = _where(source)
    _check_keys(data, RUNS_KEYS, "data", source)
    runs = data["runs"]
    if not isinstance(runs, Mapping) or not runs:
        raise SpecError(f"{where}[data.runs] must hold one matrix per run (fold1 = [[...], ...])"
                        " or one table of runs per procedure ([data.runs.NAME]).")
    tables = [isinstance(v, Mapping) for v in runs.values()]
    if any(tables) and not all(tables):
        raise SpecError(f"{where}[data.runs] mixes matrices and tables: give one matrix per run, "
                        "or one table of runs per procedure, not both.")
    if not all(tables):
        return {"": _matrices(runs, data, "data.runs", source)}
    if len(runs) != 2:
        raise SpecError(f"{where}[data.runs] compares two procedures on the same runs; it has "
                        f"{len(runs)} ({', '.join(map(str, runs))}).")
    bad = [p for p in runs if any(ch in str(p) for ch in "/\\") or str(p) in (".", "..")]
    if bad:
        raise SpecError(f"{where}[data.runs.{bad[0]}]: a procedure's name names its output "
                        "folder: no slashes.")
    out = {str(p): _matrices(r, data, f"data.runs.{p}", source) for p, r in runs.items()}
    (a, ra), (b, rb) = out.items()
    if sorted(ra) != sorted(rb):
        raise SpecError(f"{where}[data.runs]: the procedures {a!r} and {b!r} cover different runs"
                        f" ({', '.join(ra)} against {', '.join(rb)}); compare them on the same "
                        "runs.")
    return out


def _matrices(runs: Mapping[str, Any], data: Mapping[str, Any], section: str, source: Any
              ) -> dict[str, ConfusionMatrix]:
    where = _where(source)
    if not runs:
        raise SpecError(f"{where}[{section}] holds no runs.")
    out = {}
    for run, counts in runs.items():
        if not isinstance(counts, list):
            raise SpecError(f"{where}[{section}] {run}: give the run's matrix as rows of counts "
                            f"([[...], ...], rows TRUE class), got {counts!r}.")
        try:
            cm = ConfusionMatrix(counts, labels=data.get("labels"),
                                 positive=data.get("positive"),
                                 ordered=data.get("ordered", False))
            if cm.n_classes == 2 and cm.positive is None:  # two classes: binary runs
                cm = ConfusionMatrix(counts, labels=cm.labels, positive=first_positive(cm.labels))
            out[str(run)] = cm
        except (ValueError, TypeError) as err:
            raise SpecError(f"{where}[{section}] {run}: {err}") from None
        except OverflowError as err:  # stays an OverflowError, with the place
            raise OverflowError(f"{where}[{section}] {run}: {err}") from None
    shapes = {m.labels for m in out.values()}
    if len(shapes) > 1:
        raise SpecError(f"{where}[{section}]: the runs have different classes; give every run "
                        "a matrix of the same classes (and [data] labels = [...]).")
    return out


def first_positive(labels: Sequence[Hashable]) -> Hashable:
    """The positive class of two runs' classes: 1 of 0/1 classes, else the first.

    Examples
    --------
    >>> from bayescm.io.spec_runs import first_positive
    >>> first_positive([0, 1]), first_positive(["yes", "no"])
    (1, 'yes')
    """
    from bayescm.core.itemwise import default_positive

    found = default_positive(labels)
    return labels[0] if found is None else found


def parse_runs_spec(raw: Mapping[str, Any], name: str, source: Path | None, build: Build
                    ) -> AnalysisSpec | RunsComparisonSpec:
    """A spec of runs: an :class:`AnalysisSpec` of one procedure, or two procedures compared.

    ``build(raw, data)`` checks the spec's other tables for one procedure's matrices (the
    options default to ``model = "hierarchical"``, ``group = "run"``).

    Examples
    --------
    >>> from bayescm.io.spec import parse_spec
    >>> runs = {"a": {"f1": [[8, 2], [1, 9]], "f2": [[7, 3], [2, 8]]},
    ...         "b": {"f1": [[9, 1], [1, 9]], "f2": [[8, 2], [1, 9]]}}
    >>> spec = parse_spec({"data": {"runs": runs}, "options": {"group": "fold"}}, name="cv")
    >>> list(spec.procedures), spec.compare
    (['a', 'b'], ('acc', 'bm'))
    """
    where = _where(source)
    procedures = parse_runs_data(raw["data"], source)
    options = {"model": "hierarchical", "group": "run", **raw.get("options", {})}
    outputs = dict(raw.get("outputs", {}))
    compare = outputs.pop("compare", None)
    tables = _names(outputs.get("tables", ["summary"]), None, "outputs.tables", source)
    comparing = len(procedures) == 2
    if not comparing and (compare is not None or COMPARE_TABLE in tables):
        raise SpecError(f"{where}outputs.{'compare' if compare is not None else 'tables'}: "
                        "'compare' compares two procedures ([data.runs.A] and [data.runs.B]); "
                        "these runs are one procedure's.")
    own = [t for t in tables if t != COMPARE_TABLE]
    rest = {**raw, "options": options, "outputs": {**outputs, "tables": own}}
    if not comparing:
        return build(rest, procedures[""])
    specs = {p: build({**rest, "name": f"{name}_{p}"}, runs) for p, runs in procedures.items()}
    first = next(iter(next(iter(procedures.values())).values()))
    chosen = _compare_metrics(compare, first, options, source)
    if "tables" not in outputs:
        tables = ("summary", COMPARE_TABLE)
    return RunsComparisonSpec(name=name, procedures=specs, compare=chosen,
                              tables=tuple(tables), description=str(raw.get("description", "")),
                              source=source)


def _compare_metrics(given: Any, first: ConfusionMatrix, options: Mapping[str, Any],
                     source: Any) -> tuple[str, ...]:
    """The scalar metrics compared run by run (canonical names), checked against the fit's."""
    from bayescm.metrics.catalogue import resolve_metrics
    from bayescm.models import registry

    where = _where(source)
    kind = registry.for_data(first)
    fitted = options.get("metrics")
    default = ["acc", "bm"] if first.is_binary else ["acc", "f1_macro"]
    names = list(_names(given, None, "outputs.compare", source)) if given is not None else None
    try:
        asked = resolve_metrics(names or default, kind.catalogue, kind.name)
        kept = (None if fitted is None else
                {m.name for m in resolve_metrics(list(fitted), kind.catalogue, kind.name)})
    except (ValueError, TypeError) as err:
        raise SpecError(f"{where}outputs.compare: {err}") from None
    if names is None and kept is not None:  # the default: what the fit keeps of it
        asked = [m for m in asked if m.name in kept] or [
            m for m in resolve_metrics(list(fitted), kind.catalogue, kind.name)  # type: ignore[arg-type]
            if m.kind != "per_class"]
    for m in asked:
        if m.kind == "per_class":
            raise SpecError(f"{where}outputs.compare: {m.name!r} has a value per class; compare "
                            f"a scalar metric of a run (its macro average '{m.name}_macro').")
        if kept is not None and m.name not in kept:
            raise SpecError(f"{where}outputs.compare: {m.name!r} is not among options.metrics; "
                            "add it there so the fits keep it.")
    if not asked:
        raise SpecError(f"{where}outputs.compare: options.metrics has no scalar metric to "
                        "compare; name one (e.g. 'acc').")
    return tuple(m.name for m in asked)


def compare_table(a: xr.DataTree, b: xr.DataTree, metrics: tuple[str, ...],
                  hdi_prob: float | None = None) -> pd.DataFrame:
    """:func:`bayescm.compare_runs` of each metric, stacked: the rows ``(metric, run)``.

    Examples
    --------
    >>> from bayescm.io.spec_runs import compare_table
    >>> compare_table  # doctest: +ELLIPSIS
    <function compare_table at ...>
    """
    from bayescm.comparisons.runs import compare_runs

    parts = {m: compare_runs(a, b, metric=m, hdi_prob=hdi_prob) for m in metrics}
    group = next(iter(parts.values())).index.name
    out = pd.concat(parts, names=["metric", group])
    out.attrs.update({"difference": "A - B", **next(iter(parts.values())).attrs})
    out.attrs.pop("metric", None)
    return out


@dataclass(frozen=True)
class RunsComparisonSpec:
    """Two procedures on the same runs: a spec of each, and the metrics compared run by run.

    Built by :func:`~bayescm.io.spec.parse_spec` from ``[data.runs.A]`` and ``[data.runs.B]``.

    Attributes
    ----------
    name : str
        The output folder's default name.
    procedures : dict of str -> AnalysisSpec
        The two procedures' specs, in the spec's order (A first).
    compare : tuple of str
        Scalar metrics compared run by run (:func:`bayescm.compare_runs`).
    tables : tuple of str
        ``"summary"`` (each procedure's, in its folder) and ``"compare"`` (``compare.csv``).
    description : str
        Free text.
    source : Path or None
        The file it was read from.

    Examples
    --------
    >>> from bayescm.io.spec import parse_spec
    >>> runs = {"a": {"f1": [[8, 2], [1, 9]], "f2": [[7, 3], [2, 8]]},
    ...         "b": {"f1": [[9, 1], [1, 9]], "f2": [[8, 2], [1, 9]]}}
    >>> spec = parse_spec({"data": {"runs": runs}}, name="cv")
    >>> spec.procedures["b"].options["group"], spec.tables
    ('run', ('summary', 'compare'))
    """

    name: str
    procedures: dict[str, AnalysisSpec]
    compare: tuple[str, ...]
    tables: tuple[str, ...] = ("summary", COMPARE_TABLE)
    description: str = ""
    source: Path | None = None

    @property
    def options(self) -> dict[str, Any]:
        """The fitting options (the same for both procedures)."""
        return next(iter(self.procedures.values())).options

    def output_folder(self, output_dir: str | Path | None = None) -> Path:
        """The folder :meth:`run` writes into: ``output_dir``, else ``output/<name>``."""
        return Path("output") / self.name if output_dir is None else Path(output_dir)

    def run(self, output_dir: str | Path | None = None, *, write: bool = True,
            draws: int | None = None, chains: int | None = None,
            random_seed: int | None = None, progress: Callable[[str], None] | None = None
            ) -> dict[str, xr.DataTree]:
        """Fit both procedures (independent streams of one seed) and write their outputs.

        Each procedure's outputs go to ``<folder>/<procedure>/``; ``compare.csv`` (when
        ``tables`` has it) to the folder.

        Returns
        -------
        dict of str -> xarray.DataTree
            The two fits, by procedure.
        """
        from bayescm.core.files import atomic_write, check_folder
        from bayescm.core.streams import child, seed_sequence

        folder = self.output_folder(output_dir)
        if write:
            check_folder(folder)
        seed = random_seed if random_seed is not None else self.options.get("random_seed")
        root = seed_sequence(seed)
        trees = {}
        for i, (procedure, spec) in enumerate(self.procedures.items()):
            sub = spec.with_options(random_seed=child(root, i))
            trees[procedure] = sub.run(folder / procedure, write=write, draws=draws,
                                       chains=chains, progress=progress)
        if write and COMPARE_TABLE in self.tables:
            table = self.comparison(trees)
            atomic_write(folder / "compare.csv", lambda tmp: table.to_csv(tmp))
        return trees

    def comparison(self, trees: Mapping[str, xr.DataTree]) -> pd.DataFrame:
        """The run-by-run differences ``A - B`` of :attr:`compare` (:func:`compare_table`)."""
        a, b = (trees[p] for p in self.procedures)
        return compare_table(a, b, self.compare, self.options.get("hdi_prob"))
