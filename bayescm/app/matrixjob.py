"""The analysis of the "Confusion matrix" tab as plain data: what is fitted, and what comes out.

A :class:`MatrixJob` is everything the page's fields decide (the matrix, draws, seed, priors,
metrics, deployment prevalence), validated; :meth:`MatrixJob.run` does the work off the event
loop and returns a :class:`MatrixResult` (the fit, its summary, P(informative/deceptive), the
result at the deployment prevalence, PNG figures, warnings). The fit is exactly::

    idata = bcm.fit(cm, draws=draws, random_seed=seed, **options)  # 4 chains, exact draws
    table = bcm.summary(idata, var_names=metrics)

with ``options`` the keywords of :meth:`MatrixJob.fit_kwargs` (``prior=``, ``priors={...}``;
none when every prior is left at its default); :meth:`MatrixJob.code` prints that as Python.
Nothing here imports Panel.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from bayescm.app.parse import InputError
from bayescm.app.priorspec import prior_code

__all__ = ["BINARY_METRICS", "MAX_DRAWS", "MULTICLASS_METRICS", "MatrixJob", "MatrixResult",
           "capture_warnings"]

BINARY_METRICS = ("prevalence", "tpr", "tnr", "ppv", "npv", "acc", "bacc", "f1", "mcc", "bm")
"""Metrics shown by default for a binary matrix."""
MULTICLASS_METRICS = ("acc", "bacc", "kappa", "mcc", "tpr_macro", "ppv_macro", "f1_macro")
"""Metrics shown by default for a multiclass matrix."""
MAX_DRAWS = 100_000
"""Most draws per chain the page accepts (4 chains are drawn)."""
MAX_PANELS = 12
"""Most metric panels in one figure (the table shows every chosen metric)."""


def capture_warnings(func: Any, *args: Any, **kwargs: Any) -> tuple[Any, list[str]]:
    """Call ``func`` and return its result with the distinct warning messages it raised.

    Examples
    --------
    >>> import warnings
    >>> from bayescm.app.matrixjob import capture_warnings
    >>> capture_warnings(lambda: warnings.warn("careful", stacklevel=1) or 3)
    (3, ['careful'])
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = func(*args, **kwargs)
    seen: dict[str, None] = {}
    for w in caught:
        seen.setdefault(str(w.message), None)
    return out, list(seen)


@dataclass(frozen=True)
class MatrixJob:
    """One analysis of the matrix tab.

    Parameters
    ----------
    matrix : ConfusionMatrix
        The test-set counts.
    draws : int, default 5000
        Draws per chain (4 chains).
    seed : int, default 1
        ``random_seed`` of :func:`bayescm.fit`.
    prior : str, optional
        The overall named prior (``prior=``); None leaves :func:`bayescm.fit`'s default.
    priors : mapping of parameter -> prior
        Priors of single parameters (``priors=``).
    metrics : tuple of str
        Metrics shown (table rows and figure panels); empty for the defaults.
    deployment : float or tuple of float, optional
        Prevalence where the classifier will be used (:func:`bayescm.with_prevalence`).
    from_cells : bool, default True
        Whether the matrix was typed as four cells (the snippet then uses ``from_counts``).
    notes : tuple of str
        Warnings raised while the matrix was read (shown with the fit's own).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.app.matrixjob import MatrixJob
    >>> job = MatrixJob(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), draws=500)
    >>> print(job.code())
    import bayescm as bcm
    cm = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    idata = bcm.fit(cm, draws=500, random_seed=1)
    metrics = ['prevalence', 'tpr', 'tnr', 'ppv', 'npv', 'acc', 'bacc', 'f1', 'mcc', 'bm']
    table = bcm.summary(idata, var_names=metrics)
    >>> result = job.run()
    >>> result.table.equals(bcm.summary(job.fit(), var_names=list(job.shown)))
    True
    """

    matrix: Any
    draws: int = 5000
    seed: int = 1
    prior: str | None = None
    priors: Mapping[str, Any] = field(default_factory=dict)
    metrics: tuple[str, ...] = ()
    deployment: float | tuple[float, ...] | None = None
    from_cells: bool = True
    notes: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not 1 <= self.draws <= MAX_DRAWS:
            raise InputError(f"draws per chain must be between 1 and {MAX_DRAWS:,}, got "
                             f"{self.draws:,}.", "settings")
        known = set(self.catalogue)
        unknown = [m for m in self.metrics if m not in known]
        if unknown:
            raise InputError(f"unknown metric {unknown[0]!r} for a {self.family} matrix; "
                             f"choose from {', '.join(self.catalogue)}.", "metrics")
        if self.matrix.is_binary and self.deployment is not None and not isinstance(
                self.deployment, float):
            raise InputError("the deployment prevalence of a binary matrix is one proportion, "
                             "e.g. 0.01.", "prevalence")

    @property
    def family(self) -> str:
        """``"binary"`` or ``"multiclass"``."""
        return "binary" if self.matrix.is_binary else "multiclass"

    @property
    def catalogue(self) -> list[str]:
        """The metrics a matrix of this family has."""
        from bayescm.metrics.catalogue import list_metrics

        return [str(v) for v in list_metrics(self.family).index]

    @property
    def shown(self) -> tuple[str, ...]:
        """The metrics shown: the chosen ones, else the family's defaults.

        A fixed prevalence is a constant, not a posterior variable, so it is left out.
        """
        from bayescm.priors import Fixed

        names = self.metrics or (BINARY_METRICS if self.matrix.is_binary else
                                 MULTICLASS_METRICS)
        if isinstance(self.priors.get("prevalence"), Fixed):
            names = tuple(m for m in names if m != "prevalence")
        return names

    @property
    def deployed_shown(self) -> tuple[str, ...]:
        """The metrics shown at the deployment prevalence (which is fixed, so not one)."""
        return tuple(m for m in self.shown if m != "prevalence")

    def fit_kwargs(self) -> dict[str, Any]:
        """The keywords of :func:`bayescm.fit` besides the matrix."""
        kwargs: dict[str, Any] = {"draws": self.draws, "random_seed": self.seed}
        if self.prior is not None:
            kwargs["prior"] = self.prior
        if self.priors:
            kwargs["priors"] = dict(self.priors)
        return kwargs

    def fit(self) -> Any:
        """The fit: ``bcm.fit(matrix, **fit_kwargs())``."""
        from bayescm.models.fitting import fit

        return fit(self.matrix, **self.fit_kwargs())

    def matrix_code(self) -> str:
        """Python that builds the matrix."""
        cm = self.matrix
        if self.from_cells and cm.is_binary:
            cells = ", ".join(f"{k}={cm.cells[k]}" for k in ("tp", "fn", "tn", "fp"))
            labels = tuple(str(v) for v in cm.labels)
            extra = "" if labels == ("positive", "negative") else f", labels={labels!r}"
            return f"bcm.ConfusionMatrix.from_counts({cells}{extra})"
        extra = f", positive={cm.positive!r}" if cm.positive is not None else ""
        extra += ", ordered=True" if cm.ordered else ""
        return (f"bcm.ConfusionMatrix({cm.counts.tolist()}, labels={list(cm.labels)!r}"
                f"{extra})")

    def code(self) -> str:
        """The analysis as a Python snippet that reproduces the page's numbers."""
        parts = [f"draws={self.draws}", f"random_seed={self.seed}"]
        if self.prior is not None:
            parts.append(f"prior={self.prior!r}")
        if self.priors:
            inner = ", ".join(f"{k!r}: {prior_code(v)}" for k, v in self.priors.items())
            parts.append(f"priors={{{inner}}}")
        lines = ["import bayescm as bcm", f"cm = {self.matrix_code()}",
                 f"idata = bcm.fit(cm, {', '.join(parts)})",
                 f"metrics = {list(self.shown)!r}",
                 "table = bcm.summary(idata, var_names=metrics)"]
        if self.deployment is not None:
            lines += [f"deployed = bcm.with_prevalence(idata, {self.deployment!r})",
                      "deployed_table = bcm.summary(deployed, var_names=[m for m in metrics "
                      "if m != 'prevalence'])"]
        return "\n".join(lines)

    def drawable(self, idata: Any) -> list[str]:
        """The shown metrics that are one density each (per-class ones are left out)."""
        post = idata["posterior"]
        names = [m for m in self.shown if m in post.data_vars
                 and set(post[m].dims) <= {"chain", "draw"}]
        return names[:MAX_PANELS]

    def run(self) -> MatrixResult:
        """Fit, summarise, exchange the prevalence and draw (seconds; runs off the event loop).

        Raises
        ------
        ValueError
            What :func:`bayescm.fit` refuses (a Haldane prior with a zero count, too little
            memory, ...), with its message.
        """
        from bayescm.analyses.prevalence import with_prevalence
        from bayescm.analyses.summary import informedness, summary
        from bayescm.app.figures import metric_grid_png

        start = time.perf_counter()

        def work() -> MatrixResult:
            idata = self.fit()
            table = summary(idata, var_names=list(self.shown))
            informed = informedness(idata)
            names = self.drawable(idata)
            figure = metric_grid_png(idata, names) if names else None
            names = [m for m in names if m != "prevalence"]
            deployed = deployed_table = deployed_figure = None
            if self.deployment is not None:
                deployed = with_prevalence(idata, self.deployment)
                deployed_table = summary(deployed, var_names=list(self.deployed_shown))
                if names:
                    deployed_figure = metric_grid_png(
                        deployed, names, title=f"at a deployment prevalence of "
                                               f"{_prevalence_text(self.deployment)}")
            return MatrixResult(self, idata, table, informed, figure, deployed, deployed_table,
                                deployed_figure)

        result, messages = capture_warnings(work)
        result.warnings = list(dict.fromkeys([*self.notes, *messages]))
        result.seconds = time.perf_counter() - start
        return result


def _prevalence_text(value: float | tuple[float, ...]) -> str:
    if isinstance(value, tuple):
        return "(" + ", ".join(f"{v:g}" for v in value) + ")"
    return f"{value:g}"


@dataclass
class MatrixResult:
    """What one run of the matrix tab produced.

    Attributes
    ----------
    job : MatrixJob
    idata : xarray.DataTree
        The fit.
    table : pandas.DataFrame
        ``bcm.summary(idata, var_names=job.shown)``.
    informed : pandas.DataFrame
        :func:`bayescm.informedness` (BM for binary, MCC for multiclass).
    figure : bytes or None
        PNG of the metric posteriors.
    deployed, deployed_table, deployed_figure
        The result at the deployment prevalence, its summary and figure (None without one).
    warnings : list of str
        Warnings of the fit (a strong prior, an empty matrix, ...).
    seconds : float
        Time taken.
    """

    job: MatrixJob
    idata: Any
    table: pd.DataFrame
    informed: pd.DataFrame
    figure: bytes | None
    deployed: Any = None
    deployed_table: pd.DataFrame | None = None
    deployed_figure: bytes | None = None
    warnings: list[str] = field(default_factory=list)
    seconds: float = 0.0

    def sentence(self) -> str:
        """P(informative) and P(deceptive) in words.

        Examples
        --------
        >>> import bayescm as bcm
        >>> from bayescm.app.matrixjob import MatrixJob
        >>> job = MatrixJob(bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4),
        ...                 draws=2000, seed=0)
        >>> job.run().sentence()  # doctest: +ELLIPSIS
        'P(informative) = 0.8... (BM > 0); P(deceptive) = 0.1... (BM < 0, worse than guessing).'
        """
        row = self.informed.iloc[0]
        var = "BM" if self.job.matrix.is_binary else "MCC"
        sizes = self.idata["posterior"].sizes
        n = int(sizes["chain"] * sizes["draw"])
        return (f"{claim('P(informative)', row['informative'], n, f'{var} > 0')}; "
                f"{claim('P(deceptive)', row['deceptive'], n, f'{var} < 0, worse than guessing')}"
                ".")


def claim(name: str, p: float, n: int, condition: str) -> str:
    """A probability estimated from ``n`` draws, never printed as a certain 0 or 1.

    When every draw (or none) meets the condition, the estimate is 1 (0) but the posterior
    probability is only known to lie above ``1 - 3 / n`` (below ``3 / n``): the rule of three,
    the 95 % bound on a proportion that none of ``n`` trials showed.

    Examples
    --------
    >>> from bayescm.app.matrixjob import claim
    >>> claim("P(informative)", 0.8123, 8000, "BM > 0")
    'P(informative) = 0.8123 (BM > 0)'
    >>> claim("P(informative)", 1.0, 8000, "BM > 0")
    'P(informative) > 0.9996 (BM > 0 in all 8,000 draws)'
    >>> claim("P(deceptive)", 0.0, 8000, "BM < 0")
    'P(deceptive) < 0.0004 (BM < 0 in none of 8,000 draws)'
    """
    if p >= 1.0:
        return f"{name} > {1 - 3 / n:.4f} ({condition} in all {n:,} draws)"
    if p <= 0.0:
        return f"{name} < {3 / n:.4f} ({condition} in none of {n:,} draws)"
    return f"{name} = {p:.4f} ({condition})"
