"""The analysis specification object: a validated spec that fits and writes its outputs.

:func:`bayescm.io.spec.load_spec` and :func:`~bayescm.io.spec.parse_spec` build it (the format
is described in :mod:`bayescm.io.spec`); :meth:`AnalysisSpec.run` fits it and writes the result
tree, the tables and the figures (:func:`bayescm.io.runner.write_outputs`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import xarray as xr

from bayescm.core.confusion import ConfusionMatrix
from bayescm.core.files import check_folder
from bayescm.core.items import Items
from bayescm.core.scores import Scores
from bayescm.models.fitting import PRIOR_KEYWORDS

__all__ = ["AnalysisSpec"]


@dataclass(frozen=True)
class AnalysisSpec:
    """A validated analysis: data, priors, fitting options and outputs.

    Built by :func:`load_spec` (from a TOML file) or :func:`parse_spec` (from a mapping).

    Attributes
    ----------
    name : str
        Used for the default output folder ``output/<name>/``.
    data : ConfusionMatrix, dict of str -> ConfusionMatrix, Scores or Items
        One matrix, a batch (fitted as one tree with a ``classifier`` dim), labels and
        scores (the nonparametric fits of :func:`bayescm.models.scores.fit_scores`, or the
        parametric ones of ``options.method``), or an item-level evaluation log (the items
        model, NUTS).
    priors : dict
        The priors as :func:`bayescm.fit` takes them: ``prior`` (a preset for every
        parameter) and ``priors`` keyed by the model's parameters (only those given).
    options : dict
        ``draws, chains, random_seed, method, metrics, hdi_prob``, for scores
        ``threshold, fpr_range, grid_size, n_bins``, for the hierarchical model ``model, group``
        and NUTS's ``target_accept, tune`` (the hierarchical and the items model; only those
        given).
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
    decisions : dict or None
        The settings of ``[decisions]`` (:mod:`bayescm.io.spec_decisions`): decision curves,
        costs and calibration of risks, written after the fit's outputs.

    See Also
    --------
    bayescm.spec.load_spec : Reads one from a TOML file.
    bayescm.spec.parse_spec : Makes one from a mapping.

    Examples
    --------
    >>> from bayescm.io.spec import parse_spec
    >>> spec = parse_spec({"data": {"tp": 5, "fn": 1, "tn": 4, "fp": 2}}, name="toy")
    >>> spec.name, spec.tables, spec.figures
    ('toy', ('summary',), ('forest',))
    """

    name: str
    data: ConfusionMatrix | dict[str, ConfusionMatrix] | Scores | Items
    priors: dict[str, Any] = field(default_factory=dict)
    options: dict[str, Any] = field(default_factory=dict)
    tables: tuple[str, ...] = ("summary",)
    figures: tuple[str, ...] = ("forest",)
    figure_metrics: tuple[str, ...] = ()
    figure_format: str = "png"
    description: str = ""
    source: Path | None = None
    decisions: dict[str, Any] | None = None

    def fit_kwargs(self, **overrides: Any) -> dict[str, Any]:
        """Keyword arguments for :func:`bayescm.fit`, with ``overrides`` that are not None.

        Parameters
        ----------
        **overrides
            ``draws``, ``chains``, ``random_seed``, ... replacing the spec's (None: keep).

        Returns
        -------
        dict
            ``bcm.fit(spec.data, **spec.fit_kwargs())`` fits the spec.

        See Also
        --------
        fit : Fits with them.

        Examples
        --------
        >>> from bayescm.io.spec import parse_spec
        >>> spec = parse_spec({"data": {"tp": 5, "fn": 1, "tn": 4, "fp": 2},
        ...                    "options": {"draws": 1000, "seed": 3}}, name="toy")
        >>> spec.fit_kwargs(draws=200)
        {'draws': 200, 'random_seed': 3}
        """
        priors = dict(self.priors)
        keyed = {k: priors.pop(k) for k in list(priors) if k in PRIOR_KEYWORDS}
        if keyed:  # per-parameter priors go into priors={...}, fit's one way to give them
            priors["priors"] = {**priors.get("priors", {}), **keyed}
        kwargs = {**priors, **self.options}
        kwargs.update({k: v for k, v in overrides.items() if v is not None})
        return kwargs

    def fit(self, **overrides: Any) -> xr.DataTree:
        """Fit the spec's data with :func:`bayescm.fit` (no files written).

        Parameters
        ----------
        **overrides
            ``draws``, ``chains``, ``random_seed``, ``progressbar``, ... replacing the spec's.

        Returns
        -------
        xarray.DataTree
            The result of :func:`bayescm.fit`.

        See Also
        --------
        run : Fits and writes the outputs.

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

        Raises
        ------
        OutputError
            An output folder that cannot be written (a file in its place: found before the
            fit; a name too long, no permission, a full disk).

        See Also
        --------
        bayescm.io.runner.write_outputs : What is written.

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

        folder = self.output_folder(output_dir)
        if write:
            check_folder(folder)  # a file in the way is found before the fit, not after
        say = progress or (lambda message: None)
        if isinstance(self.data, Scores):
            say(f"fitting {self.name} ({self.data.n} scored items, "
                f"{len(self.data.names)} classifier(s))")
        elif isinstance(self.data, Items):
            say(f"fitting {self.name} ({self.data.n_attempts:,} outcomes of "
                f"{self.data.n_systems} system(s) on {self.data.n_items:,} items)")
        else:
            n = len(self.data) if isinstance(self.data, dict) else 1
            say(f"fitting {self.name} ({n} matrix{'es' if n > 1 else ''})")
        idata = self.fit(draws=draws, chains=chains, random_seed=random_seed,
                         progressbar=progress is not None)
        if write:
            write_outputs(self, idata, folder, progress=say)
        return idata

    def output_folder(self, output_dir: str | Path | None = None) -> Path:
        """The folder :meth:`run` writes into: ``output_dir``, else ``output/<name>``.

        Parameters
        ----------
        output_dir : str or Path, optional
            The folder asked for.

        Returns
        -------
        Path
            The folder (not created here).

        See Also
        --------
        run : Writes into it.

        Examples
        --------
        >>> from bayescm.io.spec import parse_spec
        >>> parse_spec({"data": {"tp": 5, "fn": 1, "tn": 4, "fp": 2}}, name="toy").output_folder()
        PosixPath('output/toy')
        """
        return Path("output") / self.name if output_dir is None else Path(output_dir)

    def with_options(self, **options: Any) -> AnalysisSpec:
        """A copy with some options replaced (``draws``, ``random_seed``, ...).

        Parameters
        ----------
        **options
            The options to replace.

        Returns
        -------
        AnalysisSpec
            The copy (the spec itself is unchanged).

        See Also
        --------
        fit_kwargs : What the options become.

        Examples
        --------
        >>> from bayescm.io.spec import parse_spec
        >>> spec = parse_spec({"data": {"tp": 5, "fn": 1, "tn": 4, "fp": 2}}, name="toy")
        >>> spec.with_options(draws=100).options
        {'draws': 100}
        """
        return replace(self, options={**self.options, **options})
