"""Latent class specs: a ``[latent]`` table fits tests or raters without a gold standard.

Several binary tests on the same subjects (Hui-Walter), one row per subject::

    name = "two_tests"

    [latent]
    results = "two_tests.csv"        # one row per subject; paths relative to the spec
    tests = ["elisa", "pcr"]         # 0/1 columns, at least two; an empty cell: not done
    population = "herd"              # optional: a prevalence per population
    dependence = [["elisa", "pcr"]]  # optional: pairs dependent within each class

    [priors]                         # Beta priors: one for every test (population), or a
    tpr = "beta(20, 2)"              #   table per test, {elisa = "beta(20, 2)"}; the others
    tnr = {pcr = {mean = 0.98, concentration = 100}}   #   keep Beta(1, 1)

Several raters labelling the same items (Dawid-Skene), one row per rating::

    [latent]
    ratings = "ratings.csv"          # or dataset = "anesthesia"
    item = "item"                    # the columns (these are the defaults)
    rater = "rater"
    rating = "rating"
    classes = ["1", "2", "3", "4"]   # optional: the classes in order

    [priors]
    prevalence = 3                   # Dirichlet concentrations: one number or one per class
    rates = [[4.8, 1.07, 1.07], ...] # K x K, shared by the raters, or {rater = [[...]]}

    [options]                        # NUTS: draws and chains, seed, tune, target_accept
    draws = 1000

    [outputs]
    tables = ["summary", "item_classes"]     # item_classes: ratings only
    figures = ["rater_rates", "item_classes"]  # ratings; test results: "test_rates"
    figure_format = "png"

These become ``bcm.fit(bcm.TestResults.from_csv(...), priors={...}, ...)`` or
``bcm.fit(bcm.Ratings.from_csv(...), ...)``; :meth:`LatentSpec.run` writes ``<name>.nc``,
the tables (``summary.csv``; ``item_classes.csv``: each item's posterior class
probabilities and most likely class) and the figures to ``output/<name>/``. Every other key is
a :class:`~bayescm.errors.SpecError` naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from bayescm.errors import CSVFormatError, LatentClassFormatError, SpecError
from bayescm.io.spec_parse import (
    _check_keys,
    _data_path,
    _names,
    _where,
    figure_format,
    parse_prior,
)

__all__ = ["LATENT_KEYS", "LatentSpec", "item_class_table", "latent_priors", "parse_latent",
           "write_figures"]

RESULTS_KEYS = ("results", "tests", "population", "dependence")
"""Keys of ``[latent]`` for test results (one row per subject)."""
RATINGS_KEYS = ("ratings", "dataset", "item", "rater", "rating", "classes")
"""Keys of ``[latent]`` for ratings (one row per rating, or a packaged dataset)."""
LATENT_KEYS = RESULTS_KEYS + RATINGS_KEYS
"""Keys of a spec's ``[latent]`` table."""
TOP_KEYS = ("name", "description", "latent", "priors", "options", "outputs")
"""Top-level keys a latent spec may have."""
OPTION_KEYS = ("draws", "chains", "seed", "tune", "target_accept")
"""Its ``[options]``."""
PRIOR_KEYS = {"hui_walter": ("prevalence", "tpr", "tnr"),
              "dawid_skene": ("prevalence", "rates")}
"""``[priors]`` keys by model."""
TABLES = {"hui_walter": ("summary",), "dawid_skene": ("summary", "item_classes")}
"""Tables each model writes (default: all)."""
FIGURES = {"hui_walter": ("test_rates",), "dawid_skene": ("rater_rates", "item_classes")}
"""Figures each model draws (default: all)."""
FILE_KINDS = {"result": "the result tree (netCDF; bcm.load reads it)",
              "summary": "the posterior summary (CSV)",
              "item_classes": "each item's class probabilities and most likely class (CSV)",
              "test_rates": "figure (prevalence, TPR and TNR with their intervals)",
              "rater_rates": "figure (each rater's confusion matrix)",
              "item_classes_figure": "figure (each item's class probabilities)"}
"""How ``bayescm run`` describes the files of a latent spec."""


@dataclass(frozen=True)
class LatentSpec:
    """A parsed latent class spec; :meth:`run` fits it.

    Examples
    --------
    >>> from bayescm.io.spec import parse_spec
    >>> spec = parse_spec({"latent": {"dataset": "anesthesia"},
    ...                    "priors": {"prevalence": 3}}, name="anaesthesia")
    >>> spec.model, spec.tables, spec.figures
    ('dawid_skene', ('summary', 'item_classes'), ('rater_rates', 'item_classes'))
    """

    name: str
    data: Any
    priors: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    tables: tuple[str, ...] = ()
    figures: tuple[str, ...] = ()
    figure_format: str = "png"
    description: str = ""
    source: Any = field(default=None, compare=False)

    @property
    def model(self) -> str:
        """The model key: ``"hui_walter"`` (test results) or ``"dawid_skene"`` (ratings)."""
        from bayescm.core.ratings import Ratings

        return "dawid_skene" if isinstance(self.data, Ratings) else "hui_walter"

    @property
    def function(self) -> str:
        """What ``bayescm run`` reports it fitted (the model key)."""
        return self.model

    def output_folder(self, output_dir: str | Path | None = None) -> Path:
        """The folder the outputs go to: ``output_dir`` or ``output/<name>/``."""
        return Path(output_dir) if output_dir is not None else Path("output") / self.name

    def run(self, output_dir: str | Path | None = None, *, write: bool = True,
            draws: int | None = None, random_seed: Any = None,
            progress: Callable[[str], None] | None = None) -> Any:
        """Fit the model (NUTS); write the tables and figures unless ``write=False``.

        Parameters
        ----------
        output_dir : str or Path, optional
            Folder of the outputs; default ``output/<name>/``.
        write : bool, default True
            False: fit only.
        draws : int, optional
            Overrides the spec's draws per chain.
        random_seed : int, optional
            Overrides the spec's seed.
        progress : callable, optional
            Called with a short status message before each stage.

        Returns
        -------
        xarray.DataTree
            The fit (with ``write``, also written by :meth:`write`).
        """
        import bayescm as bcm

        say = progress or (lambda _: None)
        say(f"fitting {self.model} (NUTS)")
        options = dict(self.options)
        if draws is not None:
            options["draws"] = draws
        seed = random_seed if random_seed is not None else options.get("seed")
        options.pop("seed", None)
        tree = bcm.fit(self.data, priors=self.priors or None, random_seed=seed, **options)
        if write:
            self.write(tree, output_dir, say)
        return tree

    def write(self, tree: Any, output_dir: str | Path | None = None,
              progress: Callable[[str], None] | None = None) -> dict[str, Path]:
        """Write ``<name>.nc``, the tables and the figures; the paths by kind."""
        import bayescm as bcm
        from bayescm.core.files import atomic_write, ensure_folder

        folder = ensure_folder(self.output_folder(output_dir))
        written = {"result": folder / f"{self.name}.nc"}
        bcm.save(tree, written["result"])
        for name in self.tables:
            table = bcm.summary(tree) if name == "summary" else item_class_table(tree)
            written[name] = atomic_write(folder / f"{name}.csv", table.to_csv)
        (progress or (lambda _: None))("drawing the figures")
        for name, path in zip(self.figures, write_figures(tree, self.figures, folder,
                                                          self.figure_format), strict=True):
            written[f"{name}_figure" if name in self.tables else name] = path
        return written


def item_class_table(tree: Any) -> Any:
    """Each item's posterior class probabilities and most likely class (a Dawid-Skene fit).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.io.spec_latent import item_class_table
    >>> from bayescm.models.latent_examples import tree_near_em
    >>> table = item_class_table(tree_near_em(bcm.datasets.anesthesia()))
    >>> list(table.columns), len(table)
    (['1', '2', '3', '4', 'most_likely', 'probability'], 45)
    """
    import pandas as pd

    probs = tree["posterior"]["item_class"].mean(("chain", "draw")).transpose("item", "class")
    values = np.asarray(probs.values)
    classes = [str(c) for c in probs["class"].values]
    table = pd.DataFrame(values, index=pd.Index([str(i) for i in probs["item"].values],
                                                name="item"), columns=classes)
    table["most_likely"] = np.asarray(classes, dtype=object)[values.argmax(axis=1)]
    table["probability"] = values.max(axis=1)
    return table


def _figure(tree: Any, name: str) -> Any:
    """The figure ``name`` of a latent fit."""
    from bayescm.plots import plot_item_classes, plot_rater_rates, plot_test_rates

    if name == "rater_rates":
        return plot_rater_rates(tree)
    drawn = plot_item_classes(tree) if name == "item_classes" else plot_test_rates(tree)
    return drawn.get_figure(root=True)


def write_figures(tree: Any, names: Any, folder: Path, fmt: str = "png") -> list[Path]:
    """Write the figures ``names`` of a latent fit into ``folder`` as ``<name>.<fmt>``.

    ``test_rates`` (test results: prevalence, TPR and TNR), ``rater_rates`` and ``item_classes``
    (ratings). The command line's ``--plot DIR`` and :meth:`LatentSpec.write` draw through it.

    Examples
    --------
    >>> import tempfile
    >>> from pathlib import Path
    >>> from bayescm.io.spec_latent import write_figures
    >>> from bayescm.models.latent_examples import example_tree
    >>> [p.name for p in write_figures(example_tree(), ["rater_rates"],
    ...                                Path(tempfile.mkdtemp()))]
    ['rater_rates.png']
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from bayescm.core.files import atomic_write, ensure_folder

    out = ensure_folder(folder, "figures")
    written = []
    for name in names:
        fig = _figure(tree, name)
        try:
            written.append(atomic_write(out / f"{name}.{fmt}", partial(
                fig.savefig, format=fmt, dpi=120, bbox_inches="tight")))
        finally:
            plt.close(fig)
    return written


def parse_latent(raw: Mapping[str, Any], name: str, source: Any = None) -> LatentSpec:
    """A spec with a ``[latent]`` table, checked (:class:`SpecError` naming the key).

    Examples
    --------
    >>> from bayescm.io.spec_latent import parse_latent
    >>> parse_latent({"latent": {"dataset": "anesthesia", "rating": "score"}}, "x")
    Traceback (most recent call last):
    ...
    bayescm.errors.SpecError: [latent] dataset = 'anesthesia' has its own columns; drop rating.
    """
    where = _where(source)
    _check_keys(raw, TOP_KEYS, "top level of a latent spec", source)
    table = raw["latent"]
    _check_keys(table, LATENT_KEYS, "latent", source)
    data = _data(table, source)
    model = "dawid_skene" if "tests" not in table else "hui_walter"
    priors = latent_priors(raw.get("priors", {}), model, data, source)
    options = raw.get("options", {})
    _check_keys(options, OPTION_KEYS, "options of a latent spec", source)
    for key, value in options.items():
        if key == "target_accept":
            if isinstance(value, bool) or not isinstance(value, (int, float)) \
                    or not 0.5 <= value < 1:
                raise SpecError(f"{where}options.target_accept is a probability in [0.5, 1), "
                                f"got {value!r}.")
        elif isinstance(value, bool) or not isinstance(value, int) or value < (
                1 if key in ("draws", "chains") else 0):
            raise SpecError(f"{where}options.{key} must be a whole number"
                            f"{' >= 1' if key in ('draws', 'chains') else ' >= 0'}, "
                            f"got {value!r}.")
    outputs = raw.get("outputs", {})
    _check_keys(outputs, ("tables", "figures", "figure_format"), "outputs of a latent spec",
                source)
    tables = _names(outputs.get("tables", list(TABLES[model])), TABLES[model],
                    "outputs.tables", source)
    figures = _names(outputs.get("figures", list(FIGURES[model])), FIGURES[model],
                     "outputs.figures", source)
    description = raw.get("description", "")
    if not isinstance(description, str):
        raise SpecError(f"{where}'description' must be a string.")
    return LatentSpec(name=name, data=data, priors=priors, options=dict(options),
                      tables=tables, figures=figures,
                      figure_format=figure_format(outputs, source), description=description,
                      source=source)


def _data(table: Mapping[str, Any], source: Any) -> Any:
    """The test results or ratings ``[latent]`` names, read and validated."""
    from bayescm.core.latent import TestResults
    from bayescm.core.ratings import Ratings

    where = _where(source)
    forms = [k for k in ("results", "ratings", "dataset") if k in table]
    if len(forms) != 1:
        raise SpecError(f"{where}[latent] takes one of results (a CSV of test results, with "
                        "tests), ratings (a CSV of ratings) or dataset; got "
                        f"{forms or 'none'}.")
    form = forms[0]
    allowed = RESULTS_KEYS if form == "results" else RATINGS_KEYS
    extra = [k for k in table if k not in allowed]
    if form == "dataset":
        extra = [k for k in table if k != "dataset"]
        if extra:
            raise SpecError(f"{where}[latent] dataset = {table['dataset']!r} has its own "
                            f"columns; drop {extra[0]}.")
        from bayescm.io.datasets import DATASETS

        if table["dataset"] != "anesthesia":
            raise SpecError(f"{where}[latent] dataset must be 'anesthesia' (the packaged "
                            f"ratings), got {table['dataset']!r}.")
        return DATASETS["anesthesia"]()
    if extra:
        raise SpecError(f"{where}latent.{extra[0]} does not go with {form}; with {form} give "
                        f"{', '.join(allowed)}.")
    base = source.parent if isinstance(source, Path) else Path.cwd()
    path = _data_path(table[form], base, form, source, section="latent")
    try:
        if form == "results":
            tests = table.get("tests")
            if not isinstance(tests, list) or not all(isinstance(t, str) for t in tests):
                raise SpecError(f"{where}[latent] tests lists the 0/1 columns of the tests "
                                f"(at least two strings), got {tests!r}.")
            return TestResults.from_csv(path, tests=tests,
                                        population=(_column(table, "population", "", source)
                                                    if "population" in table else None),
                                        dependence=table.get("dependence"))
        classes = table.get("classes")
        if classes is not None and not isinstance(classes, list):
            raise SpecError(f"{where}[latent] classes lists the classes in order, got "
                            f"{classes!r}.")
        return Ratings.from_csv(path, item=_column(table, "item", "item", source),
                                rater=_column(table, "rater", "rater", source),
                                rating=_column(table, "rating", "rating", source),
                                classes=classes)
    except (LatentClassFormatError, CSVFormatError, TypeError) as err:
        raise SpecError(f"{where}[latent] {form}: {err}") from None


def _column(table: Mapping[str, Any], key: str, default: str, source: Any) -> str:
    value = table.get(key, default)
    if not isinstance(value, str) or not value:
        raise SpecError(f"{_where(source)}[latent] {key} names a column (a string), got "
                        f"{value!r}.")
    return value


def latent_priors(priors: Any, model: str, data: Any, source: Any = None) -> dict[str, Any]:
    """``[priors]`` of a latent spec as ``fit(priors=...)``, checked against the data.

    Test results take ``prevalence``, ``tpr`` and ``tnr``: a Beta prior (``"beta(a, b)"``,
    a name, a table as ``[priors]`` takes it) or a table of them keyed by test (population).
    Ratings take ``prevalence`` (Dirichlet concentrations: one number or one per class) and
    ``rates`` (a K x K array of concentrations, or a table rater -> K x K array).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.io.spec_latent import latent_priors
    >>> results = bcm.TestResults.from_counts([[5, 1, 2, 9]], tests=["a", "b"])
    >>> latent_priors({"tpr": {"a": "beta(20, 2)"}}, "hui_walter", results)
    {'tpr': {'a': Beta(alpha=20.0, beta=2.0)}}
    """
    from bayescm.models.registry import for_data

    where = _where(source)
    _check_keys(priors, PRIOR_KEYS[model], "priors", source)
    out: dict[str, Any] = {}
    for key, value in priors.items():
        try:
            out[key] = (_rating_prior(key, value, data) if model == "dawid_skene"
                        else _test_prior(key, value, data))
        except (TypeError, ValueError) as err:
            raise SpecError(f"{where}[priors] {key}: {err}") from None
    try:
        for_data(data, model).resolve_priors(None, out)
    except (TypeError, ValueError) as err:
        raise SpecError(f"{where}[priors]: {err}") from None
    return out


def _test_prior(key: str, value: Any, data: Any) -> Any:
    """A Beta prior, or a table test (population) -> Beta prior."""
    from bayescm.io.spec_correction import _value

    labels = data.populations if key == "prevalence" else data.tests
    if isinstance(value, Mapping) and value and all(str(k) in labels for k in value):
        return {str(k): _value(key, v) for k, v in value.items()}
    return _value(key, value)


def _rating_prior(key: str, value: Any, data: Any) -> Any:
    """``prevalence``: concentrations or a Dirichlet table; ``rates``: K x K or per rater."""
    from bayescm.priors import Dirichlet

    if key == "prevalence":
        if isinstance(value, Mapping):
            return parse_prior(value, key)
        if isinstance(value, bool) or not isinstance(value, (int, float, list)):
            raise TypeError(f"give Dirichlet concentrations (one number or one per class: "
                            f"{data.classes}), got {value!r}.")
        return Dirichlet(value)
    if isinstance(value, Mapping):
        unknown = [k for k in value if str(k) not in data.raters]
        if unknown:
            raise ValueError(f"{unknown[0]!r} is not one of the raters {data.raters}.")
        return {str(k): _array(v) for k, v in value.items()}
    return _array(value)


def _array(value: Any) -> np.ndarray:
    if not isinstance(value, list) or isinstance(value, bool):
        raise TypeError(f"give a K x K array of concentrations ([[...], ...]), got {value!r}.")
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"give a K x K array of numbers, got {value!r}.") from None
