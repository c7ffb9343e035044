"""Analysis specifications: a TOML file that says which matrices to fit, how, and what to write.

A specification holds the data (one matrix, a batch, or a CSV file), the priors, the fitting
options and the outputs. :func:`load_spec` reads and validates one; :meth:`AnalysisSpec.run`
fits it and writes the result tree (netCDF), the summary (CSV) and the figures into a folder.
The ready-to-run specifications in the repository's ``models/`` folder (the paper's analyses
among them) are run with ``bayescm run models/NAME.toml``.

The format, every table optional except ``[data]`` (or ``[simulate]``)::

    name = "cocaine_purity"          # default: the file name without .toml
    description = "..."

    [data]                           # exactly one of the following forms
    tp = 26                          # a binary matrix by its four cells (also fn, tn, fp),
    fn = 0                           #   optional labels = ["pos", "neg"] (positive first)
    tn = 6
    fp = 2
    # counts = [[...], ...]          # a K x K matrix, rows TRUE class, columns PREDICTED,
    #                                #   with labels = [...], positive = "...", ordered = true
    # csv = "data/matrix.csv"        # a labelled matrix file (see read_matrix_csv); positive,
    #                                #   ordered as above; paths are relative to the spec file
    # table = "data/batch.csv"       # one binary matrix per row: columns tp, fn, tn, fp and a
    #                                #   name column (id_column, default "id") -> a batch
    # [data.classifiers.NAME]        # an inline batch: one table of tp, fn, tn, fp per name
    # tp = 26 ...

    # [simulate]                     # instead of [data]: matrices drawn by bcm.simulate
    # n = [20, 100, 500]             #   samples per matrix (one size or several)
    # prevalence = 0.5               #   the true parameters (default: the paper's simulated
    # tpr = 0.8                      #   classifier, 0.5 / 0.8 / 0.6)
    # tnr = 0.6
    # size = 1                       #   matrices per n; batch names "N20" or "N20_1", ...
    # seed = 7                       #   seed of the simulation (not of the fit)

    [priors]                         # default (all parameters), prevalence, tpr, tnr, rates
    default = "laplace"              # a name: laplace, jeffreys, haldane (uniform, bayes)
    prevalence = {fixed = 0.5}       # a fixed value (a vector for multiclass)
    tpr = {mean = 0.9, concentration = 20}
    tnr = {dist = "Beta", alpha = 2, beta = 5}
    # also {successes = 26, failures = 0, weight = 0.5}, {lower = 0.7, upper = 0.9, mass = 0.95}
    # and {dist = "Dirichlet", alpha = 1} (or a vector) for multiclass

    [options]                        # passed to bcm.fit
    draws = 5000
    chains = 4
    seed = 1
    method = "auto"                  # auto, exact, nuts
    metrics = ["tpr", "tnr", "bm"]   # default: all
    hdi_prob = 0.95

    [outputs]
    tables = ["summary"]             # summary, informedness (binary only)
    figures = ["forest"]             # forest, posterior
    figure_metrics = ["bm"]          # default: the options' metrics or a short list
    figure_format = "png"

Examples
--------
>>> import bayescm as bcm
>>> from bayescm.io.spec import parse_spec
>>> spec = parse_spec({"data": {"tp": 26, "fn": 0, "tn": 6, "fp": 2},
...                    "priors": {"prevalence": {"fixed": 0.5}},
...                    "options": {"draws": 500, "seed": 1, "metrics": ["tpr", "bm"]}},
...                   name="cocaine")
>>> spec.data.cells
{'tp': 26, 'fn': 0, 'fp': 2, 'tn': 6}
>>> idata = spec.run(write=False)
>>> bcm.summary(idata, var_names=["tpr"]).loc["tpr", "hdi_upper"].round(2)
np.float64(1.0)
"""

from __future__ import annotations

import csv
import math
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
import xarray as xr

from bayescm.core.confusion import ConfusionMatrix
from bayescm.core.validate import keyword_checked
from bayescm.priors.base import Beta, Dirichlet, Fixed, resolve_prior

__all__ = ["AnalysisSpec", "SpecError", "load_spec", "parse_spec", "read_matrix_csv",
           "read_table_csv"]

TOP_KEYS = ("name", "description", "data", "simulate", "priors", "options", "outputs")
SIMULATE_KEYS = ("n", "prevalence", "tpr", "tnr", "size", "seed")
DATA_FORMS = ("tp", "counts", "csv", "table", "classifiers")
CELL_KEYS = ("tp", "fn", "tn", "fp")
DATA_KEYS = {
    "tp": CELL_KEYS + ("labels",),
    "counts": ("counts", "labels", "positive", "ordered"),
    "csv": ("csv", "positive", "ordered"),
    "table": ("table", "id_column"),
    "classifiers": ("classifiers", "labels"),
}
PRIOR_KEYS = ("default", "prevalence", "tpr", "tnr", "rates")
OPTION_KEYS = ("draws", "chains", "seed", "method", "metrics", "hdi_prob")
OUTPUT_KEYS = ("tables", "figures", "figure_metrics", "figure_format")
TABLES = ("summary", "informedness")
FIGURES = ("forest", "posterior")


class SpecError(ValueError):
    """An invalid analysis specification; the message names the file and the key."""


def _where(source: Path | str | None) -> str:
    return f"{source}: " if source is not None else ""


def _check_keys(table: Any, allowed: tuple[str, ...], section: str, source: Any) -> None:
    if not isinstance(table, Mapping):
        raise SpecError(f"{_where(source)}[{section}] must be a table, got {table!r}.")
    unknown = [k for k in table if k not in allowed]
    if unknown:
        raise SpecError(
            f"{_where(source)}unknown key {unknown[0]!r} in [{section}]; allowed: "
            f"{', '.join(allowed)}."
        )


# ----------------------------------------------------------------------------- CSV readers
@keyword_checked
def read_matrix_csv(path: str | Path, positive: Any = None, ordered: bool = False
                    ) -> ConfusionMatrix:
    """Read a labelled confusion matrix from a CSV file: rows TRUE class, columns PREDICTED.

    The first row is a header whose first cell is free (e.g. ``true\\pred``) and whose other
    cells are the predicted labels; each further row starts with a true label followed by its
    counts. Both label sets must be the same (columns may come in another order; they are
    reordered to the rows' order).

    Parameters
    ----------
    path : str or Path
        The CSV file.
    positive : str, optional
        The positive class of a 2-class matrix (binary analysis); without it the matrix is
        multiclass.
    ordered : bool, default False
        Whether the classes are ordered (in the rows' order).

    Returns
    -------
    ConfusionMatrix

    Raises
    ------
    ValueError
        A malformed file (ragged rows, non-integer cells, mismatched labels), naming the line.

    Examples
    --------
    >>> import os, tempfile
    >>> from bayescm.io.spec import read_matrix_csv
    >>> path = os.path.join(tempfile.mkdtemp(), "cm.csv")
    >>> _ = open(path, "w").write("true\\\\pred,high,low\\nhigh,26,0\\nlow,2,6\\n")
    >>> read_matrix_csv(path, positive="high").cells
    {'tp': 26, 'fn': 0, 'fp': 2, 'tn': 6}
    """
    path = Path(path)
    with path.open(newline="", encoding="utf-8-sig") as fh:
        rows = [r for r in csv.reader(fh) if any(cell.strip() for cell in r)]
    if len(rows) < 3:
        raise ValueError(f"{path}: a confusion matrix CSV needs a header row of predicted "
                         "labels and at least 2 rows (one per true class).")
    header = [c.strip() for c in rows[0][1:]]
    true_labels, counts = [], []
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(header) + 1:
            raise ValueError(f"{path}, line {line}: {len(row)} cells, but the header has "
                             f"{len(header) + 1} (a true label and {len(header)} counts).")
        true_labels.append(row[0].strip())
        values = []
        for label, cell in zip(header, row[1:], strict=True):
            try:
                value: float | int = int(cell.strip())  # exact, however large
            except ValueError:
                try:
                    value = float(cell)
                except ValueError:
                    raise ValueError(f"{path}, line {line}, column {label!r}: {cell!r} is not "
                                     "a count.") from None
            if not math.isfinite(value) or value != round(value) or value < 0:
                raise ValueError(f"{path}, line {line}, column {label!r}: {cell!r} is not a "
                                 "non-negative whole number.")
            values.append(int(value))
        counts.append(values)
    if sorted(header) != sorted(true_labels) or len(set(header)) != len(header):
        raise ValueError(f"{path}: the predicted labels {header} (header) and the true labels "
                         f"{true_labels} (first column) must be the same classes.")
    order = [header.index(label) for label in true_labels]
    matrix = [[row[j] for j in order] for row in counts]  # Python ints: checked for overflow
    if positive is not None:
        positive = str(positive)
    return ConfusionMatrix(matrix, labels=true_labels, positive=positive, ordered=ordered)


@keyword_checked
def read_table_csv(path: str | Path, id_column: str = "id") -> dict[str, ConfusionMatrix]:
    """Read a batch of binary matrices, one per row, with columns ``tp, fn, tn, fp``.

    Parameters
    ----------
    path : str or Path
        The CSV file; other columns are ignored.
    id_column : str, default "id"
        Column naming each classifier; when absent the rows are named 1, 2, ....

    Returns
    -------
    dict of str -> ConfusionMatrix

    Examples
    --------
    >>> import os, tempfile
    >>> from bayescm.io.spec import read_table_csv
    >>> path = os.path.join(tempfile.mkdtemp(), "batch.csv")
    >>> _ = open(path, "w").write("id,tp,fn,tn,fp\\na,5,0,3,0\\nb,10,0,3,1\\n")
    >>> read_table_csv(path)["b"].cells
    {'tp': 10, 'fn': 0, 'fp': 1, 'tn': 3}
    """
    path = Path(path)
    with path.open(newline="", encoding="utf-8-sig") as fh:
        reader = csv.DictReader(fh)
        fields = [f.strip() for f in (reader.fieldnames or [])]
        missing = [c for c in CELL_KEYS if c not in fields]
        if missing:
            raise ValueError(f"{path}: missing column(s) {', '.join(missing)}; a table of "
                             "binary matrices needs tp, fn, tn, fp.")
        out: dict[str, ConfusionMatrix] = {}
        for line, raw in enumerate(reader, start=2):
            row = {(k or "").strip(): (v or "").strip() for k, v in raw.items()}
            name = row[id_column] if id_column in fields else str(line - 1)
            if name in out:
                raise ValueError(f"{path}, line {line}: duplicate {id_column} {name!r}.")
            cells = {}
            for key in CELL_KEYS:
                try:
                    cells[key] = int(row[key])
                except ValueError:
                    raise ValueError(f"{path}, line {line}, column {key!r}: {row[key]!r} is "
                                     "not a whole number.") from None
            out[name] = ConfusionMatrix.from_counts(**cells)
    if not out:
        raise ValueError(f"{path}: no rows.")
    return out


# ----------------------------------------------------------------------------- priors
def _number(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{what} must be a number, got {value!r}.")
    return float(value)


def parse_prior(value: Any, parameter: str) -> Any:
    """Turn a TOML prior (a name or a table) into a prior object.

    Parameters
    ----------
    value : str or mapping
        A name (``"laplace"``, ``"jeffreys"``, ``"haldane"``), or a table: ``{fixed = v}``,
        ``{mean = m, concentration = c}``, ``{successes = s, failures = f, weight = w}``,
        ``{lower = l, upper = u, mass = 0.95}``, ``{dist = "Beta", alpha = a, beta = b}``,
        ``{dist = "Dirichlet", alpha = a}`` or ``{dist = "laplace"}`` (any name).
    parameter : str
        The parameter it is for (error messages).

    Examples
    --------
    >>> from bayescm.io.spec import parse_prior
    >>> parse_prior({"mean": 0.9, "concentration": 20}, "tpr")
    Beta(alpha=18.0, beta=2.0)
    >>> parse_prior({"fixed": 0.5}, "prevalence")
    Fixed(value=0.5)
    """
    if isinstance(value, str):
        return resolve_prior(value, parameter)
    if not isinstance(value, Mapping):
        raise TypeError(f"The prior of {parameter} must be a name or a table, got {value!r}.")
    keys = set(value)
    forms: list[tuple[set[str], set[str], Callable[[], Any]]] = [
        ({"fixed"}, set(), lambda: Fixed(value["fixed"])),
        ({"mean", "concentration"}, set(), lambda: Beta.from_mean(
            _number(value["mean"], f"{parameter}.mean"),
            _number(value["concentration"], f"{parameter}.concentration"))),
        ({"successes", "failures"}, {"weight"}, lambda: Beta.from_counts(
            _number(value["successes"], f"{parameter}.successes"),
            _number(value["failures"], f"{parameter}.failures"),
            _number(value.get("weight", 1.0), f"{parameter}.weight"))),
        ({"lower", "upper"}, {"mass"}, lambda: Beta.from_interval(
            _number(value["lower"], f"{parameter}.lower"),
            _number(value["upper"], f"{parameter}.upper"),
            _number(value.get("mass", 0.95), f"{parameter}.mass"))),
    ]
    if "dist" in keys:
        dist = value["dist"]
        if not isinstance(dist, str):
            raise TypeError(f"{parameter}.dist must be a string, got {dist!r}.")
        rest = keys - {"dist"}
        if dist.lower() == "beta":
            _need(rest, {"alpha", "beta"}, set(), parameter, "dist = 'Beta'")
            return Beta(_number(value["alpha"], f"{parameter}.alpha"),
                        _number(value["beta"], f"{parameter}.beta"))
        if dist.lower() == "dirichlet":
            _need(rest, {"alpha"}, set(), parameter, "dist = 'Dirichlet'")
            return Dirichlet(value["alpha"])
        if dist.lower() == "fixed":
            _need(rest, {"value"}, set(), parameter, "dist = 'Fixed'")
            return Fixed(value["value"])
        _need(rest, set(), set(), parameter, f"dist = {dist!r}")
        return resolve_prior(dist, parameter)
    for required, optional, make in forms:
        if required <= keys:
            _need(keys, required, optional, parameter, " and ".join(sorted(required)))
            return make()
    raise ValueError(
        f"Cannot read the prior of {parameter} from {dict(value)!r}: use a name, "
        "{fixed = v}, {mean = m, concentration = c}, {successes = s, failures = f}, "
        "{lower = l, upper = u}, or {dist = 'Beta', alpha = a, beta = b}."
    )


def _need(keys: set[str], required: set[str], optional: set[str], parameter: str, form: str
          ) -> None:
    missing = required - keys
    if missing:
        raise ValueError(f"The prior of {parameter} ({form}) needs {', '.join(sorted(missing))}.")
    extra = keys - required - optional
    if extra:
        raise ValueError(f"Unknown key {sorted(extra)[0]!r} in the prior of {parameter} "
                         f"({form}); allowed: {', '.join(sorted(required | optional))}.")


# ----------------------------------------------------------------------------- the spec
@dataclass(frozen=True)
class AnalysisSpec:
    """A validated analysis: data, priors, fitting options and outputs.

    Built by :func:`load_spec` (from a TOML file) or :func:`parse_spec` (from a mapping).

    Attributes
    ----------
    name : str
        Used for the default output folder ``output/<name>/``.
    data : ConfusionMatrix or dict of str -> ConfusionMatrix
        One matrix, or a batch (fitted as one tree with a ``classifier`` dim).
    priors : dict
        Keyword arguments of :func:`bayescm.fit`: ``prior``, ``prevalence``, ``tpr``, ``tnr``,
        ``rates`` (only those given).
    options : dict
        ``draws, chains, random_seed, method, metrics, hdi_prob`` (only those given).
    tables, figures : tuple of str
        Outputs to write besides the netCDF file.
    figure_metrics : tuple of str
        Metrics shown in the figures (empty: the options' metrics or a short default list).
    figure_format : str
        File extension of the figures (``png``, ``pdf``, ``svg``).
    description : str
        Free text.
    source : Path or None
        The file it was read from.

    Examples
    --------
    >>> from bayescm.io.spec import parse_spec
    >>> spec = parse_spec({"data": {"tp": 5, "fn": 1, "tn": 4, "fp": 2}}, name="toy")
    >>> spec.name, spec.tables, spec.figures
    ('toy', ('summary',), ('forest',))
    """

    name: str
    data: ConfusionMatrix | dict[str, ConfusionMatrix]
    priors: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    tables: tuple[str, ...] = ("summary",)
    figures: tuple[str, ...] = ("forest",)
    figure_metrics: tuple[str, ...] = ()
    figure_format: str = "png"
    description: str = ""
    source: Path | None = None

    def fit_kwargs(self, **overrides: Any) -> dict[str, Any]:
        """Keyword arguments for :func:`bayescm.fit`, with ``overrides`` that are not None.

        Examples
        --------
        >>> from bayescm.io.spec import parse_spec
        >>> spec = parse_spec({"data": {"tp": 5, "fn": 1, "tn": 4, "fp": 2},
        ...                    "options": {"draws": 1000, "seed": 3}}, name="toy")
        >>> spec.fit_kwargs(draws=200)
        {'draws': 200, 'random_seed': 3}
        """
        kwargs = {**self.priors, **self.options}
        kwargs.update({k: v for k, v in overrides.items() if v is not None})
        return kwargs

    def fit(self, **overrides: Any) -> xr.DataTree:
        """Fit the spec's data with :func:`bayescm.fit` (no files written).

        Parameters
        ----------
        **overrides
            ``draws``, ``chains``, ``random_seed``, ``progressbar``, ... replacing the spec's.

        Examples
        --------
        >>> from bayescm.io.spec import parse_spec
        >>> spec = parse_spec({"data": {"tp": 5, "fn": 1, "tn": 4, "fp": 2}}, name="toy")
        >>> spec.fit(draws=100, chains=2)["posterior"]["tpr"].shape
        (2, 100)
        """
        from bayescm.models.fitting import fit

        return fit(self.data, **self.fit_kwargs(**overrides))

    def run(
        self,
        output_dir: str | Path | None = None,
        *,
        write: bool = True,
        draws: int | None = None,
        chains: int | None = None,
        random_seed: int | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> xr.DataTree:
        """Fit the spec and write its outputs; return the result tree.

        Parameters
        ----------
        output_dir : str or Path, optional
            Folder for the outputs; default ``output/<name>/`` under the current directory.
        write : bool, default True
            False: only fit, write nothing.
        draws, chains, random_seed : int, optional
            Override the spec's options (e.g. few draws for a quick check).
        progress : callable, optional
            Called with a short status message before each stage (the CLI prints them on a
            terminal).

        Returns
        -------
        xarray.DataTree
            The result of :func:`bayescm.fit`.

        See Also
        --------
        bayescm.io.runner.write_outputs : what is written.

        Examples
        --------
        >>> import os, tempfile
        >>> from bayescm.io.spec import parse_spec
        >>> spec = parse_spec({"data": {"tp": 5, "fn": 1, "tn": 4, "fp": 2},
        ...                    "outputs": {"figures": []}}, name="toy")
        >>> out = tempfile.mkdtemp()
        >>> _ = spec.run(out, draws=200)
        >>> sorted(os.listdir(out))
        ['summary.csv', 'toy.nc']
        """
        from bayescm.io.runner import write_outputs

        say = progress or (lambda message: None)
        n = len(self.data) if isinstance(self.data, dict) else 1
        say(f"fitting {self.name} ({n} matrix{'es' if n > 1 else ''})")
        idata = self.fit(draws=draws, chains=chains, random_seed=random_seed,
                         progressbar=progress is not None)
        if write:
            folder = Path("output") / self.name if output_dir is None else Path(output_dir)
            write_outputs(self, idata, folder, progress=say)
        return idata

    def with_options(self, **options: Any) -> AnalysisSpec:
        """A copy with some options replaced (``draws``, ``random_seed``, ...).

        Examples
        --------
        >>> from bayescm.io.spec import parse_spec
        >>> spec = parse_spec({"data": {"tp": 5, "fn": 1, "tn": 4, "fp": 2}}, name="toy")
        >>> spec.with_options(draws=100).options
        {'draws': 100}
        """
        return replace(self, options={**self.options, **options})


@keyword_checked
def load_spec(path: str | Path) -> AnalysisSpec:
    """Read and validate an analysis specification (TOML).

    Parameters
    ----------
    path : str or Path
        The ``.toml`` file; data paths in it are relative to its folder.

    Returns
    -------
    AnalysisSpec

    Raises
    ------
    FileNotFoundError
        The file (or a data file it names) does not exist.
    SpecError
        Invalid TOML, unknown keys, missing data or a bad prior table; the message names the
        file and the key.

    See Also
    --------
    parse_spec, AnalysisSpec.run

    Examples
    --------
    >>> import os, tempfile
    >>> from bayescm.io.spec import load_spec
    >>> path = os.path.join(tempfile.mkdtemp(), "toy.toml")
    >>> _ = open(path, "w").write("[data]\\ntp = 26\\nfn = 0\\ntn = 6\\nfp = 2\\n")
    >>> load_spec(path).name
    'toy'
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"No such specification file: {path}")
    try:
        with path.open("rb") as fh:
            raw = tomllib.load(fh)
    except tomllib.TOMLDecodeError as err:
        raise SpecError(f"{path}: invalid TOML: {err}") from None
    return parse_spec(raw, name=path.stem, source=path)


@keyword_checked
def parse_spec(raw: Mapping[str, Any], name: str | None = None, source: Path | None = None
               ) -> AnalysisSpec:
    """Validate a specification given as a mapping (the parsed TOML).

    Parameters
    ----------
    raw : mapping
        Tables ``data`` or ``simulate`` (one is required), ``priors``, ``options``,
        ``outputs``; keys ``name``, ``description``.
    name : str, optional
        Name when ``raw`` has none (the file name for :func:`load_spec`).
    source : Path, optional
        The file, for messages and for resolving relative data paths.

    Examples
    --------
    >>> from bayescm.io.spec import parse_spec
    >>> parse_spec({"data": {"counts": [[5, 1], [2, 4]], "labels": ["a", "b"]}}, name="x").data
    ConfusionMatrix([[5, 1], [2, 4]], labels=['a', 'b'])
    """
    _check_keys(raw, TOP_KEYS, "top level", source)
    where = _where(source)
    spec_name = raw.get("name", name)
    if not isinstance(spec_name, str) or not spec_name.strip():
        raise SpecError(f"{where}'name' must be a non-empty string, got {spec_name!r}.")
    if any(ch in spec_name for ch in "/\\") or spec_name in (".", ".."):
        raise SpecError(f"{where}'name' is used as a folder name: no slashes ({spec_name!r}).")
    description = raw.get("description", "")
    if not isinstance(description, str):
        raise SpecError(f"{where}'description' must be a string.")
    if "data" in raw and "simulate" in raw:
        raise SpecError(f"{where}give either [data] or [simulate], not both.")
    if "data" not in raw and "simulate" not in raw:
        raise SpecError(f"{where}missing [data] table: give tp/fn/tn/fp, counts, csv, table or "
                        "[data.classifiers] (or simulate matrices with [simulate]).")
    base = source.parent if source is not None else Path.cwd()
    if "simulate" in raw:
        data = _parse_simulate(raw["simulate"], source)
    else:
        data = _parse_data(raw["data"], base, source)
    priors = _parse_priors(raw.get("priors", {}), source)
    options = _parse_options(raw.get("options", {}), source)
    outputs = raw.get("outputs", {})
    _check_keys(outputs, OUTPUT_KEYS, "outputs", source)
    tables = _names(outputs.get("tables", ["summary"]), TABLES, "outputs.tables", source)
    figures = _names(outputs.get("figures", ["forest"]), FIGURES, "outputs.figures", source)
    fig_metrics = _names(outputs.get("figure_metrics", []), None, "outputs.figure_metrics",
                         source)
    fmt = outputs.get("figure_format", "png")
    if fmt not in ("png", "pdf", "svg"):
        raise SpecError(f"{where}outputs.figure_format must be png, pdf or svg, got {fmt!r}.")
    first = next(iter(data.values())) if isinstance(data, dict) else data
    is_binary = first.is_binary
    _check_metrics(first, options.get("metrics"), "options.metrics", source)
    _check_metrics(first, fig_metrics or None, "outputs.figure_metrics", source)
    if "informedness" in tables and not is_binary:
        raise SpecError(f"{where}outputs.tables: 'informedness' needs binary matrices.")
    return AnalysisSpec(name=spec_name, data=data, priors=priors, options=options, tables=tables,
                        figures=figures, figure_metrics=fig_metrics, figure_format=fmt,
                        description=description, source=source)


def _check_metrics(cm: ConfusionMatrix, names: Any, key: str, source: Any) -> None:
    if not names:
        return
    from bayescm.metrics.base import resolve_metrics
    from bayescm.models.build import model_kind

    kind = model_kind(cm)
    try:
        resolve_metrics(list(names), kind.catalogue, kind.name)
    except (ValueError, TypeError) as err:
        raise SpecError(f"{_where(source)}{key}: {err}") from None


def _names(value: Any, allowed: tuple[str, ...] | None, key: str, source: Any
           ) -> tuple[str, ...]:
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise SpecError(f"{_where(source)}{key} must be a list of strings, got {value!r}.")
    if allowed is not None:
        bad = [v for v in value if v not in allowed]
        if bad:
            raise SpecError(f"{_where(source)}{key}: unknown {bad[0]!r}; use "
                            f"{', '.join(allowed)}.")
    return tuple(value)


def _parse_data(data: Any, base: Path, source: Any) -> ConfusionMatrix | dict[str, Any]:
    where = _where(source)
    if not isinstance(data, Mapping):
        raise SpecError(f"{where}[data] must be a table.")
    forms = [f for f in DATA_FORMS if f in data]
    if not forms:
        if any(k in data for k in CELL_KEYS):
            forms = ["tp"]
        else:
            raise SpecError(f"{where}[data] has no data: give tp/fn/tn/fp, counts, csv, table "
                            "or [data.classifiers].")
    if len(forms) > 1:
        raise SpecError(f"{where}[data] gives both {forms[0]!r} and {forms[1]!r}; use one form.")
    form = forms[0]
    _check_keys(data, DATA_KEYS[form], "data", source)
    try:
        if form == "tp":
            missing = [k for k in CELL_KEYS if k not in data]
            if missing:
                raise SpecError(f"{where}[data] is missing {', '.join(missing)}.")
            labels = data.get("labels", ["positive", "negative"])
            return ConfusionMatrix.from_counts(**{k: _count(data[k], k, source)
                                                  for k in CELL_KEYS}, labels=labels)
        if form == "counts":
            return ConfusionMatrix(data["counts"], labels=data.get("labels"),
                                   positive=data.get("positive"),
                                   ordered=data.get("ordered", False))
        if form == "csv":
            return read_matrix_csv(_data_path(data["csv"], base, "csv", source),
                                   positive=data.get("positive"),
                                   ordered=data.get("ordered", False))
        if form == "table":
            id_column = data.get("id_column", "id")
            return read_table_csv(_data_path(data["table"], base, "table", source), id_column)
        classifiers = data["classifiers"]
        if not isinstance(classifiers, Mapping) or not classifiers:
            raise SpecError(f"{where}[data.classifiers] must hold one table per classifier.")
        out = {}
        for cname, cells in classifiers.items():
            _check_keys(cells, CELL_KEYS, f"data.classifiers.{cname}", source)
            missing = [k for k in CELL_KEYS if k not in cells]
            if missing:
                raise SpecError(f"{where}[data.classifiers.{cname}] is missing "
                                f"{', '.join(missing)}.")
            out[str(cname)] = ConfusionMatrix.from_counts(
                **{k: _count(cells[k], f"{cname}.{k}", source) for k in CELL_KEYS},
                labels=data.get("labels", ["positive", "negative"]))
        return out
    except SpecError:
        raise
    except (ValueError, TypeError) as err:
        raise SpecError(f"{where}[data]: {err}") from None


def _parse_simulate(table: Any, source: Any) -> dict[str, ConfusionMatrix]:
    """Matrices of :func:`bayescm.simulate` as a batch named ``N<n>`` (``N<n>_<i>``)."""
    from bayescm.analyses.simulate import simulate

    where = _where(source)
    _check_keys(table, SIMULATE_KEYS, "simulate", source)
    if "n" not in table:
        raise SpecError(f"{where}[simulate] needs n (samples per matrix, one or a list).")
    sizes = table["n"] if isinstance(table["n"], list) else [table["n"]]
    if not sizes or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in sizes):
        raise SpecError(f"{where}[simulate] n must be a positive whole number or a list of them, "
                        f"got {table['n']!r}.")
    if len(set(sizes)) != len(sizes):
        raise SpecError(f"{where}[simulate] n has repeated sizes: {sizes}.")
    size = table.get("size", 1)
    seed = table.get("seed")
    for key, value, low in (("size", size, 1), ("seed", seed, 0)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)
                                  or value < low):
            raise SpecError(f"{where}[simulate] {key} must be a whole number >= {low}, got "
                            f"{value!r}.")
    truth = {k: table[k] for k in ("prevalence", "tpr", "tnr") if k in table}
    rng = np.random.default_rng(seed)
    out: dict[str, ConfusionMatrix] = {}
    try:
        for n in sizes:
            if size == 1:
                out[f"N{n}"] = simulate(n, **truth, random_seed=rng)
            else:
                batch = simulate(n, **truth, size=size, random_seed=rng)
                out.update({f"N{n}_{i + 1}": cm for i, cm in enumerate(batch.values())})
    except (ValueError, TypeError) as err:
        raise SpecError(f"{where}[simulate]: {err}") from None
    return out


def _count(value: Any, key: str, source: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpecError(f"{_where(source)}[data] {key} must be a whole number, got {value!r}.")
    if value < 0:
        raise SpecError(f"{_where(source)}[data] {key} must be >= 0, got {value}.")
    return value


def _data_path(value: Any, base: Path, key: str, source: Any) -> Path:
    if not isinstance(value, str):
        raise SpecError(f"{_where(source)}[data] {key} must be a file path string.")
    path = Path(value) if Path(value).is_absolute() else base / value
    if not path.is_file():
        raise FileNotFoundError(f"{_where(source)}[data] {key}: no such file {path}")
    return path


def _parse_priors(priors: Any, source: Any) -> dict[str, Any]:
    _check_keys(priors, PRIOR_KEYS, "priors", source)
    out = {}
    for key, value in priors.items():
        try:
            parsed = parse_prior(value, key)
        except (ValueError, TypeError) as err:
            raise SpecError(f"{_where(source)}[priors] {key}: {err}") from None
        out["prior" if key == "default" else key] = parsed
    return out


def _parse_options(options: Any, source: Any) -> dict[str, Any]:
    _check_keys(options, OPTION_KEYS, "options", source)
    where = _where(source)
    out: dict[str, Any] = {}
    for key in ("draws", "chains", "seed"):
        if key in options:
            value = options[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < (
                    0 if key == "seed" else 1):
                raise SpecError(f"{where}options.{key} must be a positive whole number, got "
                                f"{value!r}.")
            out["random_seed" if key == "seed" else key] = value
    if "method" in options:
        if options["method"] not in ("auto", "exact", "nuts"):
            raise SpecError(f"{where}options.method must be auto, exact or nuts, got "
                            f"{options['method']!r}.")
        out["method"] = options["method"]
    if "metrics" in options:
        out["metrics"] = list(_names(options["metrics"], None, "options.metrics", source))
    if "hdi_prob" in options:
        prob = options["hdi_prob"]
        if isinstance(prob, bool) or not isinstance(prob, (int, float)) or not 0 < prob < 1:
            raise SpecError(f"{where}options.hdi_prob must lie strictly between 0 and 1, got "
                            f"{prob!r}.")
        out["hdi_prob"] = float(prob)
    return out
