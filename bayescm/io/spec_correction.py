"""Correction specs: a ``[correction]`` table for a rate seen through an imperfect test or judge.

A screening test's apparent count, an automated judge's pass counts, or a classifier's
predicted class counts on unlabelled items::

    name = "screening_survey"

    [correction]
    positives = 142                      # or {north = 142, south = 60}: populations, one test
    n = 742                              # one number, or a table like positives
    tpr = "uniform(0.6, 1)"              # beta(a, b), uniform(l, u), fixed(v), a name, or a
    tnr = {mean = 0.9, concentration = 40}  #   prior table (as [priors] takes them)
    validation = {tp = 45, fn = 5, tn = 190, fp = 10}   # optional: the test on known status

    # a judge: passed = {A = 340, B = 310}, n = 500,
    #          calibration = {counts = [[110, 10], [12, 68]], labels = ["correct", "incorrect"]}
    # K classes: predicted = {cat = 250, dog = 220, fox = 130},
    #            validation = {counts = [[40, 6, 4], [5, 42, 3], [2, 8, 40]],
    #                          labels = ["cat", "dog", "fox"]}   (or rates = a K x K array)

    [options]
    draws = 1000
    chains = 4
    seed = 1

``bayescm run`` (or :meth:`CorrectionSpec.run`) fits :func:`bayescm.true_prevalence`,
:func:`bayescm.judged_accuracy` or :func:`bayescm.true_shares` (which one follows from the
keys) and writes the result ``<name>.nc``, ``summary.csv`` and ``corrected.<format>``
(:func:`bayescm.plots.plot_corrected`) to ``output/<name>/``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bayescm.io.spec_parse import SpecError, _check_keys, _where, figure_format

__all__ = ["CORRECTION_KEYS", "CorrectionSpec", "parse_correction"]

CORRECTION_KEYS = ("positives", "passed", "predicted", "n", "tpr", "tnr", "prevalence",
                   "accuracy", "validation", "calibration", "rates")
"""Keys of a spec's ``[correction]`` table."""
TOP_KEYS = ("name", "description", "correction", "options", "outputs")
"""Top-level keys a correction spec may have."""
OPTION_KEYS = ("draws", "chains", "seed")
"""Its ``[options]``."""
_FORMS = {"positives": ("true_prevalence", ("positives", "n", "tpr", "tnr", "prevalence",
                                            "validation")),
          "passed": ("judged_accuracy", ("passed", "n", "tpr", "tnr", "accuracy",
                                         "calibration")),
          "predicted": ("true_shares", ("predicted", "validation", "rates", "prevalence"))}
"""What each form's count key fits, and the keys that form takes."""


@dataclass(frozen=True)
class CorrectionSpec:
    """A parsed correction spec; :meth:`run` fits it.

    Examples
    --------
    >>> from bayescm.io.spec import parse_spec
    >>> spec = parse_spec({"correction": {"positives": 142, "n": 742,
    ...                                   "tpr": "uniform(0.6, 1)", "tnr": "uniform(0.6, 1)"},
    ...                    "options": {"seed": 0, "draws": 200}}, name="survey")
    >>> spec.function, sorted(spec.arguments)
    ('true_prevalence', ['n', 'positives', 'tnr', 'tpr'])
    >>> round(float(spec.run(write=False)["posterior"]["prevalence"].mean()), 1)
    0.1
    """

    name: str
    function: str
    arguments: dict[str, Any]
    options: dict[str, Any] = field(default_factory=dict)
    figure_format: str = "png"
    description: str = ""
    source: Any = field(default=None, compare=False)

    def output_folder(self, output_dir: str | Path | None = None) -> Path:
        """The folder the outputs go to: ``output_dir`` or ``output/<name>/``."""
        return Path(output_dir) if output_dir is not None else Path("output") / self.name

    def run(self, output_dir: str | Path | None = None, *, write: bool = True,
            draws: int | None = None, random_seed: Any = None,
            progress: Callable[[str], None] | None = None) -> Any:
        """Fit the correction; write ``summary.csv`` and the figure unless ``write=False``.

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
        say(f"fitting {self.function}")
        options = dict(self.options)
        if draws is not None:
            options["draws"] = draws
        seed = random_seed if random_seed is not None else options.pop("seed", None)
        options.pop("seed", None)
        tree = getattr(bcm, self.function)(**self.arguments, **options, random_seed=seed)
        if write:
            self.write(tree, output_dir, say)
        return tree

    def write(self, tree: Any, output_dir: str | Path | None = None,
              progress: Callable[[str], None] | None = None) -> dict[str, Path]:
        """Write ``<name>.nc``, ``summary.csv`` and ``corrected.<format>``; the paths by kind."""
        import matplotlib.pyplot as plt

        import bayescm as bcm
        from bayescm.core.files import atomic_write, ensure_folder
        from bayescm.plots import plot_corrected

        folder = ensure_folder(self.output_folder(output_dir))
        written = {"result": folder / f"{self.name}.nc", "summary": folder / "summary.csv",
                   "corrected": folder / f"corrected.{self.figure_format}"}
        bcm.save(tree, written["result"])
        table = bcm.summary(tree)
        atomic_write(written["summary"], lambda tmp: table.to_csv(tmp))
        (progress or (lambda _: None))("drawing the apparent and corrected rates")
        fig = plot_corrected(tree).get_figure(root=True)
        assert fig is not None
        atomic_write(written["corrected"], lambda tmp: fig.savefig(
            tmp, format=self.figure_format, bbox_inches="tight"))
        plt.close(fig)
        return written


def parse_correction(raw: Mapping[str, Any], name: str, source: Any = None) -> CorrectionSpec:
    """A spec with a ``[correction]`` table, checked (:class:`SpecError` naming the key).

    Examples
    --------
    >>> from bayescm.io.spec_correction import parse_correction
    >>> spec = parse_correction({"correction": {"passed": {"A": 340, "B": 310}, "n": 500,
    ...     "calibration": {"counts": [[110, 10], [12, 68]],
    ...                     "labels": ["correct", "incorrect"]}}}, "judge")
    >>> spec.function, list(spec.arguments["calibration"].labels)
    ('judged_accuracy', ['correct', 'incorrect'])
    """
    where = _where(source)
    _check_keys(raw, TOP_KEYS, "top level of a correction spec", source)
    table = raw["correction"]
    _check_keys(table, CORRECTION_KEYS, "correction", source)
    forms = [k for k in _FORMS if k in table]
    if len(forms) != 1:
        raise SpecError(f"{where}[correction] takes one of positives (a screening test), "
                        "passed (an automated judge) or predicted (class counts of a "
                        f"classifier); got {forms or 'none'}.")
    function, allowed = _FORMS[forms[0]]
    extra = [k for k in table if k not in allowed]
    if extra:
        raise SpecError(f"{where}correction.{extra[0]} does not go with {forms[0]}; with "
                        f"{forms[0]} give {', '.join(allowed)}.")
    if function != "true_shares" and "n" not in table:
        raise SpecError(f"{where}[correction] needs n, the number tested (or judged).")
    arguments: dict[str, Any] = {}
    for key, value in table.items():
        try:
            arguments[key] = _value(key, value)
        except (TypeError, ValueError) as err:
            raise SpecError(f"{where}correction.{key}: {err}") from None
    options = raw.get("options", {})
    _check_keys(options, OPTION_KEYS, "options of a correction spec", source)
    for key, value in options.items():
        if isinstance(value, bool) or not isinstance(value, int) or value < (
                0 if key == "seed" else 1):
            raise SpecError(f"{where}options.{key} must be a whole number"
                            f"{'' if key == 'seed' else ' >= 1'}, got {value!r}.")
    outputs = raw.get("outputs", {})
    _check_keys(outputs, ("figure_format",), "outputs of a correction spec", source)
    fmt = figure_format(outputs, source)
    return CorrectionSpec(name=name, function=function, arguments=arguments,
                          options=dict(options), figure_format=fmt,
                          description=str(raw.get("description", "")), source=source)


def _value(key: str, value: Any) -> Any:
    """One ``[correction]`` value as the function takes it."""
    if key in ("positives", "passed", "predicted", "n"):
        if isinstance(value, Mapping):
            return {str(k): _count(v) for k, v in value.items()}
        return _count(value)
    if key in ("validation", "calibration"):
        return _matrix(value)
    if key == "rates":
        return value
    if key == "prevalence" and isinstance(value, list):  # K classes: a Dirichlet
        from bayescm.priors import Dirichlet

        return Dirichlet(value)
    from bayescm.cli_correct import rate_prior

    if isinstance(value, str):
        import argparse

        try:
            return rate_prior(value)
        except argparse.ArgumentTypeError as err:
            raise ValueError(str(err)) from None
    from bayescm.io.spec_parse import parse_prior

    return parse_prior(value, key)


def _count(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"a count is a whole number >= 0, got {value!r}")
    return int(value)


def _matrix(value: Any) -> Any:
    from bayescm.core.confusion import ConfusionMatrix

    if not isinstance(value, Mapping):
        raise ValueError(f"give {{tp, fn, tn, fp}} or {{counts = [[...]], labels = [...]}}, "
                         f"got {value!r}")
    if set(value) == {"tp", "fn", "tn", "fp"}:
        return ConfusionMatrix.from_counts(tp=_count(value["tp"]), fn=_count(value["fn"]),
                                           tn=_count(value["tn"]), fp=_count(value["fp"]))
    if "counts" in value and set(value) <= {"counts", "labels", "positive"}:
        return ConfusionMatrix(value["counts"], labels=value.get("labels"),
                               positive=value.get("positive"))
    raise ValueError(f"give {{tp, fn, tn, fp}} or {{counts = [[...]], labels = [...]}}, got "
                     f"the keys {sorted(value)}")
