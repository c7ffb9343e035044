"""Parsing the sections of a TOML analysis specification: data, simulation, priors, options."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from bayescm.core.confusion import ConfusionMatrix
from bayescm.core.scores import Scores
from bayescm.core.streams import generator
from bayescm.errors import CSVFormatError, SpecError
from bayescm.io.readers import CELL_KEYS, read_matrix_csv, read_table_csv
from bayescm.priors import from_dict

TOP_KEYS = ("name", "description", "data", "simulate", "planning", "correction", "latent",
            "priors", "options", "outputs", "decisions")
SIMULATE_KEYS = ("n", "prevalence", "tpr", "tnr", "size", "seed")
DATA_FORMS = ("tp", "counts", "csv", "table", "classifiers", "dataset", "scores")
DATA_KEYS = {
    "tp": CELL_KEYS + ("labels",),
    "counts": ("counts", "labels", "positive", "ordered"),
    "csv": ("csv", "positive", "ordered"),
    "table": ("table", "id_column"),
    "classifiers": ("classifiers", "labels"),
    "dataset": ("dataset",),
    "scores": ("scores", "label", "score", "positive", "y_true"),
}
PRIOR_KEYS = ("default", "prevalence", "tpr", "tnr", "rates")
OPTION_KEYS = ("draws", "chains", "seed", "method", "metrics", "hdi_prob", "threshold",
               "fpr_range", "grid_size", "n_bins", "model", "group", "target_accept", "tune")
SCORE_OPTIONS = ("threshold", "fpr_range", "grid_size", "n_bins")
SCORE_METHODS = ("auto", "exact", "dirichlet_process", "bootstrap", "binormal", "bibeta")
"""Options of scores only (:func:`bayescm.models.scores.fit_scores`)."""
OUTPUT_KEYS = ("tables", "figures", "figure_metrics", "figure_format")
TABLES = ("summary", "informedness", "eval")
SCORE_FIGURES = ("roc", "pr", "reliability", "delta_auc")
"""Figures of scores only (:mod:`bayescm.plots`: plot_roc, plot_pr, plot_reliability,
plot_delta_auc)."""
HIERARCHICAL_FIGURES = ("sroc", "group_forest")
"""Figures of a hierarchical fit only (plot_sroc, plot_group_forest of TPR and TNR)."""
ITEMS_FIGURES = ("items_accuracy", "items_differences", "items_ranks", "pass_at_k")
"""Figures of an items fit only (plot_items_accuracy, plot_items_differences,
plot_items_ranks, plot_pass_at_k)."""
FIGURES = ("forest", "posterior", *SCORE_FIGURES, *HIERARCHICAL_FIGURES, *ITEMS_FIGURES)


def _where(source: Path | str | None) -> str:
    return f"{source}: " if source is not None else ""


def figure_format(outputs: Any, source: Any) -> str:
    """``outputs.figure_format`` of a spec, checked: png (the default), pdf or svg.

    Examples
    --------
    >>> from bayescm.io.spec_parse import figure_format
    >>> figure_format({}, None), figure_format({"figure_format": "svg"}, None)
    ('png', 'svg')
    """
    fmt = outputs.get("figure_format", "png")
    if fmt not in ("png", "pdf", "svg"):
        raise SpecError(f"{_where(source)}outputs.figure_format must be png, pdf or svg, got "
                        f"{fmt!r}.")
    return str(fmt)


def _check_keys(table: Any, allowed: tuple[str, ...], section: str, source: Any) -> None:
    if not isinstance(table, Mapping):
        raise SpecError(f"{_where(source)}[{section}] must be a table, got {table!r}.")
    unknown = [k for k in table if k not in allowed]
    if unknown:
        raise SpecError(
            f"{_where(source)}unknown key {unknown[0]!r} in [{section}]; allowed: "
            f"{', '.join(allowed)}."
        )


# ----------------------------------------------------------------------------- priors
def parse_prior(value: Any, parameter: str) -> Any:
    """Turn a TOML prior (a name or a table) into a prior object.

    The table is handed to :func:`bayescm.priors.from_dict`, the one reader of prior dicts
    (also of the priors stored in result trees).

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
    >>> from bayescm.io.spec_parse import parse_prior
    >>> parse_prior({"mean": 0.9, "concentration": 20}, "tpr")
    Beta(alpha=18.0, beta=2.0)
    >>> parse_prior({"fixed": 0.5}, "prevalence")
    Fixed(value=0.5)
    """
    if not isinstance(value, (str, Mapping)):
        raise TypeError(f"The prior of {parameter} must be a name or a table, got {value!r}.")
    return from_dict(value, parameter=parameter)


def _check_metrics(cm: ConfusionMatrix | Scores, names: Any, key: str, source: Any,
                   fitted: bool = True) -> None:
    """Names of metrics the data's kind computes (of scores: ``fitted`` -> at the threshold)."""
    if not names:
        return
    from bayescm.metrics.binary import BINARY_METRICS
    from bayescm.metrics.catalogue import resolve_metrics
    from bayescm.models import registry

    kind = registry.for_data(cm)
    catalogue = BINARY_METRICS if isinstance(cm, Scores) and fitted else kind.catalogue
    try:
        resolve_metrics(list(names), catalogue, kind.name)
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


def _parse_data(data: Any, base: Path, source: Any
                ) -> ConfusionMatrix | Scores | dict[str, Any]:
    where = _where(source)
    if not isinstance(data, Mapping):
        raise SpecError(f"{where}[data] must be a table.")
    forms = [f for f in DATA_FORMS if f in data]
    if not forms:
        if any(k in data for k in CELL_KEYS):
            forms = ["tp"]
        else:
            raise SpecError(f"{where}[data] has no data: give tp/fn/tn/fp, counts, csv, table, "
                            "dataset, scores, items or [data.classifiers].")
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
        if form == "dataset":
            from bayescm.io import datasets

            if not isinstance(data["dataset"], str):
                raise SpecError(f"{where}[data] dataset must be the name of a packaged data "
                                f"set ({', '.join(datasets.DATASETS)}).")
            return datasets.load(data["dataset"])  # type: ignore[return-value]
        if form == "scores":
            return _parse_scores(data, base, source)
        if form == "table":
            id_column = data.get("id_column")
            if id_column is not None and (not isinstance(id_column, str) or not id_column):
                raise SpecError(f"{where}[data] id_column must be the name of a column of the "
                                f"table (a string), got {id_column!r}.")
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
    except (SpecError, CSVFormatError):
        raise  # a data file's error names the file, the line and the column
    except (ValueError, TypeError) as err:
        raise SpecError(f"{where}[data]: {err}") from None


def _parse_scores(data: Mapping[str, Any], base: Path, source: Any) -> Scores:
    """Scores from a CSV file (``scores = "file.csv"``, ``label``, ``score``) or inline."""
    where = _where(source)
    value = data["scores"]
    positive = data.get("positive")
    if isinstance(value, str):
        if "y_true" in data:
            raise SpecError(f"{where}[data] y_true goes with inline scores; a CSV file names its "
                            "label column: label = \"COLUMN\".")
        if not isinstance(data.get("label"), str) or "score" not in data:
            raise SpecError(f"{where}[data] scores = {value!r} (a CSV file) needs label = "
                            "\"COLUMN\" and score = [\"COLUMN\", ...].")
        columns = _names(data["score"], None, "[data] score", source)
        if not columns:
            raise SpecError(f"{where}[data] score must name at least one column.")
        return Scores.from_csv(_data_path(value, base, "scores", source), label=data["label"],
                               score=list(columns),
                               positive=None if positive is None else str(positive))
    if "label" in data or "score" in data:
        raise SpecError(f"{where}[data] label and score name the columns of a CSV file (scores "
                        "= \"file.csv\"); inline scores take y_true = [...] and scores = [...] "
                        "or a table of name = [...].")
    if "y_true" not in data:
        raise SpecError(f"{where}[data] inline scores need y_true = [...], the true label of "
                        "each item.")
    if not isinstance(value, (list, Mapping)):
        raise SpecError(f"{where}[data] scores must be a CSV file, a list of numbers or a table "
                        f"of name = [numbers], got {value!r}.")
    return Scores(data["y_true"], dict(value) if isinstance(value, Mapping) else value,
                  positive=positive)


def check_scores_spec(data: Any, priors: Mapping[str, Any], options: Mapping[str, Any],
                      source: Any) -> None:
    """Priors, methods and options that do not apply to the data (scores or matrices)."""
    where = _where(source)
    if not isinstance(data, Scores):
        given = [k for k in SCORE_OPTIONS if k in options]
        if given:
            raise SpecError(f"{where}options.{given[0]} applies to scores ([data] scores = ... "
                            "or a scores data set); drop it for confusion matrices.")
        if options.get("method") in ("dirichlet_process", "bootstrap", "binormal", "bibeta"):
            raise SpecError(f"{where}options.method = {options['method']!r} models scores; "
                            "matrices take auto, exact or nuts.")
        return
    if options.get("method", "auto") not in SCORE_METHODS:
        raise SpecError(f"{where}options.method of scores is 'auto' (= 'dirichlet_process', "
                        f"exact draws), 'bootstrap' (the Bayesian bootstrap), 'binormal' or "
                        f"'bibeta' (parametric, NUTS), got {options['method']!r}.")


def _parse_simulate(table: Any, source: Any) -> dict[str, ConfusionMatrix]:
    """Matrices of :func:`bayescm.simulate` as a batch named ``N<n>`` (``N<n>_<i>``)."""
    from bayescm.analyses.simulation import simulate

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
    rng, _ = generator(seed, "[simulate] seed")
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


def _data_path(value: Any, base: Path, key: str, source: Any, section: str = "data") -> Path:
    if not isinstance(value, str):
        raise SpecError(f"{_where(source)}[{section}] {key} must be a file path string.")
    path = Path(value) if Path(value).is_absolute() else base / value
    if not path.exists():  # a folder is the reader's error ("a folder, not a CSV file")
        raise FileNotFoundError(f"{_where(source)}[{section}] {key}: no such file {path}")
    return path


def _parse_priors(priors: Any, source: Any, data: Any = None,
                  method: str = "auto") -> dict[str, Any]:
    if isinstance(data, Scores):
        return _parse_score_priors(priors, source, method)
    _check_keys(priors, PRIOR_KEYS, "priors", source)
    out = {}
    for key, value in priors.items():
        try:
            parsed = parse_prior(value, key)
        except (ValueError, TypeError) as err:
            raise SpecError(f"{_where(source)}[priors] {key}: {err}") from None
        out["prior" if key == "default" else key] = parsed
    return out


def _parse_score_priors(priors: Any, source: Any, method: str) -> dict[str, Any]:
    """``[priors]`` of a parametric scores fit, as ``fit(..., priors={...})``.

    Keyed by the method's parameters (``mu_pos``, ``sigma_pos``, ... or ``alpha_pos``, ...):
    tables ``{dist = "Normal", mu = 0, sigma = 1}``, ``HalfNormal`` or ``LogNormal``; the
    ``prevalence`` as in matrix specs. The nonparametric methods have no priors.
    """
    from bayescm.models.roc_parametric_priors import PARAMETERS, prior_from_dict

    where = _where(source)
    if not priors:
        return {}
    if method not in PARAMETERS:
        raise SpecError(f"{where}[priors] does not apply to the nonparametric fits of scores "
                        "(the Dirichlet-process default and the Bayesian bootstrap: Dirichlet "
                        "weights over the items): drop it, or set options.method = "
                        "'binormal' or 'bibeta' and key the priors by their parameters.")
    _check_keys(priors, PARAMETERS[method], "priors", source)
    out = {}
    for key, value in priors.items():
        try:
            if key == "prevalence":
                out[key] = parse_prior(value, key)
            elif isinstance(value, Mapping):
                out[key] = prior_from_dict(value)
            else:
                raise TypeError(f"give a table such as {{dist = \"Normal\", mu = 0, sigma = 1}} "
                                f"(Normal, HalfNormal or LogNormal), got {value!r}.")
        except (ValueError, TypeError) as err:
            raise SpecError(f"{where}[priors] {key}: {err}") from None
    return {"priors": out}


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
        if options["method"] not in ("nuts", *SCORE_METHODS):
            raise SpecError(f"{where}options.method must be auto, exact or nuts "
                            "(dirichlet_process, bootstrap, binormal or bibeta for scores), got "
                            f"{options['method']!r}.")
        out["method"] = options["method"]
    if "metrics" in options:
        out["metrics"] = list(_names(options["metrics"], None, "options.metrics", source))
    if "threshold" in options:
        if isinstance(options["threshold"], bool) or not isinstance(options["threshold"],
                                                                     (int, float)):
            raise SpecError(f"{where}options.threshold must be a number, got "
                            f"{options['threshold']!r}.")
        out["threshold"] = float(options["threshold"])
    for key, low in (("grid_size", 2), ("n_bins", 1)):
        if key in options:
            value = options[key]
            if isinstance(value, bool) or not isinstance(value, int) or value < low:
                raise SpecError(f"{where}options.{key} must be a whole number >= {low}, got "
                                f"{value!r}.")
            out[key] = value
    if "fpr_range" in options:
        pair = options["fpr_range"]
        if (not isinstance(pair, list) or len(pair) != 2 or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) and 0 <= v <= 1
                for v in pair) or not pair[0] < pair[1]):
            raise SpecError(f"{where}options.fpr_range must be [low, high] with 0 <= low < "
                            f"high <= 1, got {pair!r}.")
        out["fpr_range"] = (float(pair[0]), float(pair[1]))
    if "hdi_prob" in options:
        prob = options["hdi_prob"]
        if isinstance(prob, bool) or not isinstance(prob, (int, float)) or not 0 < prob < 1:
            raise SpecError(f"{where}options.hdi_prob must lie strictly between 0 and 1, got "
                            f"{prob!r}.")
        out["hdi_prob"] = float(prob)
    return out
