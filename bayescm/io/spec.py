"""Analysis specifications: a TOML file that says which matrices to fit, how, and what to write.

A specification holds the data (one matrix, a batch, a CSV file, or labels and scores), the
priors, the fitting options and the outputs. :func:`load_spec` reads and validates one;
:meth:`AnalysisSpec.run` fits it and writes the result tree (netCDF), the summary (CSV) and
the figures into a folder. The ready-to-run specifications in the repository's ``models/``
folder (the paper's analyses among them) are run with ``bayescm run models/NAME.toml``.
Data files (``csv``, ``table``, ``scores``) follow the CSV rules of
:mod:`bayescm.core.csvtable` (UTF-8, commas, a header of unique names, even rows, strict
numbers); a data file's error is a ``CSVFormatError`` naming that file, the line and the
column. The ``name`` names the output folder and file, so it is at most 200 bytes.

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
    #                                #   name column (id_column = "study"; default "id" if the
    #                                #   header has it, else rows 1, 2, ...) -> a batch
    # [data.classifiers.NAME]        # an inline batch: one table of tp, fn, tn, fp per name
    # tp = 26 ...
    # dataset = "literature_table_s1"  # a data set shipped with the package (also "mushrooms",
    #                                #   "wordle", the batch "auditc", and the scores
    #                                #   "screening_scores"; see bcm.datasets.load)
    # scores = "data/scores.csv"     # labels and scores (bcm.Scores, fitted by a Dirichlet
    # label = "disease"              #   process by default): the label column, one score column per
    # score = ["old", "new"]         #   classifier, positive = "1" (default 1 for 0/1 labels)
    # y_true = [1, 0, 1, ...]        # or inline: the labels and scores = [...] (one classifier)
    #                                #   or scores = {old = [...], new = [...]}
    # items = "data/eval_log.csv"    # an item-level evaluation log, one row per outcome, and
    # item = "question"              #   its columns (outcome, item, cluster, system, attempt;
    # system = "model"               #   or label and prediction): the items model, with
    #                                #   [priors] keyed by its parameters (see
    #                                #   bayescm.io.spec_items); also dataset = "eval_log"

    # [simulate]                     # instead of [data]: matrices drawn by bcm.analyses.simulate
    # n = [20, 100, 500]             #   samples per matrix (one size or several)
    # prevalence = 0.5               #   the true parameters (default: the paper's simulated
    # tpr = 0.8                      #   classifier, 0.5 / 0.8 / 0.6)
    # tnr = 0.6
    # size = 1                       #   matrices per n; batch names "N20" or "N20_1", ...
    # seed = 7                       #   seed of the simulation (not of the fit)

    [priors]                         # default (all parameters), prevalence, tpr, tnr, rates
                                     #   (scores with method binormal / bibeta: mu_pos, ...)
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
    method = "auto"                  # auto, exact, nuts (scores: auto = dirichlet_process,
    #                                #   bootstrap, binormal, bibeta)
    metrics = ["tpr", "tnr", "bm"]   # default: all
    hdi_prob = 0.95
    # threshold = 0.5                # scores only: the confusion-matrix metrics' threshold,
    # fpr_range = [0.0, 0.1]         #   the partial AUC's FPR range, the points of the ROC and
    # grid_size = 201                #   PR grids and the reliability curve's bins
    # n_bins = 10
    # model = "hierarchical"         # a batch as groups of one population (partial pooling),
    # group = "study"                #   with the group dim's name; [priors] then keyed by
    # target_accept = 0.95           #   its parameters, and NUTS options (any NUTS fit):
    # tune = 2000                    #   see bayescm.io.spec_hierarchical

    [outputs]
    tables = ["summary"]             # summary, informedness (binary only), eval (a log's)
    figures = ["forest"]             # forest, posterior; for scores also roc, pr, reliability,
                                     #   delta_auc (default for scores: all that apply); for a
                                     #   hierarchical fit sroc, group_forest (the default); for
                                     #   a log items_accuracy, items_differences, items_ranks,
                                     #   pass_at_k (the default: all that apply)
    figure_metrics = ["bm"]          # default: the options' metrics or a short list
    figure_format = "png"

    [decisions]                      # risks only: decision curves, costs, calibration (see
    thresholds = [0.05, 0.1, 0.2]    #   bayescm.io.spec_decisions; range = [0.01, 0.35, 0.01],
    cost_fp = 1                      #   cost_fn, prevalence, calibration = true, figures)
    cost_fn = 4

Instead of ``[data]``, a spec may hold a ``[planning]`` table (a test set to plan,
:mod:`bayescm.io.spec_planning`), a ``[correction]`` table (a rate behind an imperfect test,
:mod:`bayescm.io.spec_correction`) or a ``[latent]`` table (tests or raters without a gold
standard, :mod:`bayescm.io.spec_latent`).

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

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bayescm.core.arguments import keyword_checked
from bayescm.core.confusion import ConfusionMatrix
from bayescm.core.csvtable import decode_csv
from bayescm.core.items import Items
from bayescm.core.scores import Scores
from bayescm.errors import CSVFormatError, SpecError
from bayescm.io.readers import read_matrix_csv, read_table_csv  # the public namespace
from bayescm.io.spec_analysis import AnalysisSpec
from bayescm.io.spec_hierarchical import (
    check_figures,
    check_model_spec,
    default_figures,
    parse_model_options,
    parse_pooled_priors,
    pooled,
)
from bayescm.io.spec_items import (
    check_items_options,
    check_items_outputs,
    default_items_figures,
    is_items_data,
    parse_items_data,
    parse_items_priors,
)
from bayescm.io.spec_parse import (
    FIGURES,
    OUTPUT_KEYS,
    SCORE_FIGURES,
    TABLES,
    TOP_KEYS,
    _check_keys,
    _check_metrics,
    _names,
    _parse_data,
    _parse_options,
    _parse_priors,
    _parse_simulate,
    _where,
    check_scores_spec,
    figure_format,
)
from bayescm.io.spec_runs import is_runs_data, parse_runs_spec
from bayescm.io.spec_strata import (
    is_strata_data,
    parse_strata_data,
    parse_strata_options,
    parse_strata_priors,
)

__all__ = ["AnalysisSpec", "SpecError", "load_spec", "parse_spec", "read_matrix_csv",
           "read_table_csv"]

MAX_NAME_BYTES = 200
"""Longest spec name: it names the output folder and the ``<name>.nc`` file (255-byte limit)."""

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
        The validated specification: call its :meth:`~bayescm.io.spec.AnalysisSpec.run` to fit
        and summarise it as the command line would.

    Raises
    ------
    FileNotFoundError
        The file (or a data file it names) does not exist.
    SpecError
        A folder, a file that is not UTF-8, invalid TOML, unknown keys, missing data or a bad
        prior table; the message names the file and the key.
    CSVFormatError
        A data file (``csv``, ``table``, ``scores``) that breaks the CSV rules of
        :mod:`bayescm.core.csvtable`; the message names that file, the line and the column.

    See Also
    --------
    parse_spec : The same from a TOML string or a mapping.
    AnalysisSpec.run : Fit and summarise the specification.

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
    if not path.exists():
        raise FileNotFoundError(f"No such specification file: {path}")
    if path.is_dir():
        raise SpecError(f"{path} is a folder; give the specification's .toml file.")
    try:
        text = decode_csv(path.read_bytes(), str(path))  # TOML is UTF-8, as CSV files are
        raw = tomllib.loads(text)
    except OSError as err:
        raise SpecError(f"{path}: cannot be read ({err.strerror or err}).") from None
    except CSVFormatError as err:
        raise SpecError(str(err).replace("(CSV) ", "")) from None
    except tomllib.TOMLDecodeError as err:
        raise SpecError(f"{path}: invalid TOML: {err}") from None
    return parse_spec(raw, name=path.stem, source=path)


@keyword_checked
def _check_name(spec_name: Any, where: str) -> None:
    """A spec's name, which names its output folder and files, or a SpecError."""
    if not isinstance(spec_name, str) or not spec_name.strip():
        raise SpecError(f"{where}'name' must be a non-empty string, got {spec_name!r}.")
    if any(ch in spec_name for ch in "/\\") or spec_name in (".", ".."):
        raise SpecError(f"{where}'name' is used as a folder name: no slashes ({spec_name!r}).")
    if len(spec_name.encode("utf-8")) > MAX_NAME_BYTES or not spec_name.isprintable():
        raise SpecError(f"{where}'name' is used as a folder and file name (output/<name>/"
                        f"<name>.nc): at most {MAX_NAME_BYTES} bytes of printable characters, "
                        f"got {len(spec_name)} characters.")


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

    Returns
    -------
    AnalysisSpec
        The validated specification.

    Raises
    ------
    SpecError
        A key that is unknown, missing or malformed (the message names it and the file).

    See Also
    --------
    load_spec : The same from a TOML file.

    Examples
    --------
    >>> from bayescm.io.spec import parse_spec
    >>> parse_spec({"data": {"counts": [[5, 1], [2, 4]], "labels": ["a", "b"]}}, name="x").data
    ConfusionMatrix([[5, 1], [2, 4]], labels=['a', 'b'])
    """
    _check_keys(raw, TOP_KEYS, "top level", source)
    where = _where(source)
    if isinstance(raw, Mapping) and "planning" in raw:  # no data yet: a test set to plan
        from bayescm.io.spec_planning import parse_planning

        analysing = [k for k in ("data", "simulate", "priors", "options") if k in raw]
        if analysing:
            raise SpecError(f"{where}a spec either plans a test set ([planning]) or analyses "
                            f"one ([data]); this one has [planning] and [{analysing[0]}]: split "
                            "it into two specs.")
        _check_name(raw.get("name", name), where)
        return parse_planning(raw, str(raw.get("name", name)), source)  # type: ignore[return-value]
    if isinstance(raw, Mapping) and "correction" in raw:  # a rate behind an imperfect test
        from bayescm.io.spec_correction import parse_correction

        analysing = [k for k in ("data", "simulate", "planning", "priors") if k in raw]
        if analysing:
            raise SpecError(f"{where}a [correction] spec takes its counts and priors in "
                            f"[correction]; this one also has [{analysing[0]}]: move them there "
                            "or split it into two specs.")
        _check_name(raw.get("name", name), where)
        return parse_correction(raw, str(raw.get("name", name)), source)  # type: ignore[return-value]
    if isinstance(raw, Mapping) and "latent" in raw:  # tests or raters, no gold standard
        from bayescm.io.spec_latent import parse_latent

        analysing = [k for k in ("data", "simulate", "planning", "correction") if k in raw]
        if analysing:
            raise SpecError(f"{where}a [latent] spec reads its test results or ratings in "
                            f"[latent]; this one also has [{analysing[0]}]: split it into two "
                            "specs.")
        _check_name(raw.get("name", name), where)
        return parse_latent(raw, str(raw.get("name", name)), source)  # type: ignore[return-value]
    spec_name = raw.get("name", name)
    _check_name(spec_name, where)
    description = raw.get("description", "")
    if not isinstance(description, str):
        raise SpecError(f"{where}'description' must be a string.")
    if "data" in raw and "simulate" in raw:
        raise SpecError(f"{where}give either [data] or [simulate], not both.")
    if "data" not in raw and "simulate" not in raw:
        raise SpecError(f"{where}missing [data] table: give tp/fn/tn/fp, counts, csv, table, "
                        "dataset, scores, items or [data.classifiers] (or simulate matrices "
                        "with [simulate]).")
    base = source.parent if source is not None else Path.cwd()
    if "data" in raw and is_strata_data(raw["data"]):
        return _strata_spec(raw, spec_name, description, source)
    if "data" in raw and is_runs_data(raw["data"]):  # folds or runs, maybe two procedures
        return parse_runs_spec(raw, spec_name, source,  # type: ignore[return-value]
                               lambda r, d: _analysis_spec(r, d, str(r.get("name", spec_name)),
                                                         description, source))
    data: ConfusionMatrix | Scores | Items | dict[str, Any]
    if "simulate" in raw:
        data = _parse_simulate(raw["simulate"], source)
    elif is_items_data(raw["data"]):
        data = parse_items_data(raw["data"], base, source)
    else:
        data = _parse_data(raw["data"], base, source)
    return _analysis_spec(raw, data, spec_name, description, source)


def _analysis_spec(raw: Mapping[str, Any], data: Any, spec_name: str, description: str,
                   source: Path | None) -> AnalysisSpec:
    """The spec of parsed data: its options, priors and outputs checked."""
    where = _where(source)
    items = isinstance(data, Items)
    if items:  # an evaluation log (a file or dataset = "eval_log"): its own options and priors
        check_items_options(raw.get("options", {}), source)
    options = _parse_options(raw.get("options", {}), source)
    options.update(parse_model_options(raw.get("options", {}), source))
    if isinstance(data, Items):
        priors = parse_items_priors(raw.get("priors", {}), data, source)
    else:
        check_model_spec(data, options, source)
        priors = (parse_pooled_priors(raw.get("priors", {}), options, source, data)
                  if pooled(options) else _parse_priors(raw.get("priors", {}), source, data,
                                                        options.get("method", "auto")))
    check_scores_spec(data, priors, options, source)
    outputs = raw.get("outputs", {})
    _check_keys(outputs, OUTPUT_KEYS, "outputs", source)
    tables = _names(outputs.get("tables", ["summary", "eval"] if items else ["summary"]),
                    TABLES, "outputs.tables", source)
    method = options.get("method", "auto")
    figures = _names(outputs.get("figures", default_figures(options) or
                                 _default_figures(data, method)), FIGURES,
                     "outputs.figures", source)
    fig_metrics = _names(outputs.get("figure_metrics", []), None, "outputs.figure_metrics",
                         source)
    check_items_outputs(data, tables, figures, fig_metrics, source)
    _check_figures(data, figures, source)
    check_figures(options, figures, source)
    if "reliability" in figures and method in ("binormal", "bibeta"):
        raise SpecError(f"{where}outputs.figures: 'reliability' needs the bootstrap or the "
                        f"Dirichlet-process fit of scores "
                        f"(a {method} fit models the scores' distributions, not their "
                        "calibration).")
    fmt = figure_format(outputs, source)
    decisions = None
    if "decisions" in raw:
        from bayescm.io.spec_decisions import parse_decisions

        decisions = parse_decisions(raw["decisions"], data, options, source)
    if isinstance(data, Items):
        return AnalysisSpec(name=spec_name, data=data, priors=priors, options=options,
                            tables=tables, figures=figures, figure_format=fmt,
                            description=description, source=source)
    first = next(iter(data.values())) if isinstance(data, dict) else data
    is_binary = isinstance(first, Scores) or first.is_binary
    _check_metrics(first, options.get("metrics"), "options.metrics", source)
    _check_metrics(first, fig_metrics or None, "outputs.figure_metrics", source, fitted=False)
    if "informedness" in tables and not is_binary:
        raise SpecError(f"{where}outputs.tables: 'informedness' needs binary matrices.")
    return AnalysisSpec(name=spec_name, data=data, priors=priors, options=options, tables=tables,
                        figures=figures, figure_metrics=fig_metrics, figure_format=fmt,
                        description=description, source=source, decisions=decisions)


def _strata_spec(raw: Mapping[str, Any], name: str, description: str, source: Path | None
                 ) -> AnalysisSpec:
    """A stratified audit's spec (:mod:`bayescm.io.spec_strata`): exact draws, its own prior."""
    data = parse_strata_data(raw["data"], source)
    given = raw.get("options", {})
    finite = parse_strata_options(given, source)
    options = {**_parse_options({k: v for k, v in given.items() if k != "finite"}, source),
               **finite}
    priors = parse_strata_priors(raw.get("priors", {}), source)
    outputs = raw.get("outputs", {})
    _check_keys(outputs, OUTPUT_KEYS, "outputs", source)
    tables = _names(outputs.get("tables", ["summary"]), ("summary",), "outputs.tables", source)
    figures = _names(outputs.get("figures", ["forest"]), ("forest", "posterior"),
                     "outputs.figures", source)
    fig_metrics = _names(outputs.get("figure_metrics", []), None, "outputs.figure_metrics",
                         source)
    fmt = figure_format(outputs, source)
    return AnalysisSpec(name=name, data=data, priors=priors, options=options, tables=tables,
                        figures=figures, figure_metrics=fig_metrics, figure_format=fmt,
                        description=description, source=source)


def _default_figures(data: Any, method: str = "auto") -> list[str]:
    """The figures a spec draws unless it names some.

    A forest of matrices; the ROC, PR and reliability curves (and ΔAUC) of scores; the
    accuracy forest and pass@k (with the differences and ranks) of an evaluation log.
    """
    if isinstance(data, Items):
        return default_items_figures(data)
    if not isinstance(data, Scores):
        return ["forest"]
    calibration = ["reliability"] if method not in ("binormal", "bibeta") else []
    return ["roc", "pr", *calibration, *(["delta_auc"] if len(data.names) > 1 else [])]


def _check_figures(data: Any, figures: tuple[str, ...], source: Path | None) -> None:
    where = _where(source)
    curves = [f for f in figures if f in SCORE_FIGURES]
    if curves and not isinstance(data, Scores):
        raise SpecError(f"{where}outputs.figures: {curves[0]!r} draws scores ([data] scores = "
                        "...); confusion matrices have forest and posterior.")
    if "delta_auc" in figures and isinstance(data, Scores) and len(data.names) < 2:
        raise SpecError(f"{where}outputs.figures: 'delta_auc' compares two classifiers; the "
                        "data have one score column.")
