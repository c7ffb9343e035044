"""Tables and probabilities from a result tree: ``summary``, ``probability``, ``informedness``."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import pandas as pd
import xarray as xr

from bayescm.analyses.undefined import summarise_defined
from bayescm.core import container as box
from bayescm.core.arguments import keyword_checked, warn_user
from bayescm.core.moments import moments_rhat_ess_rows, rowdot
from bayescm.core.stats import hdi_prob_for, hdi_rows
from bayescm.core.workspace import workspace
from bayescm.errors import UndefinedDrawsWarning
from bayescm.metrics import alias_table, canonical_name
from bayescm.models import registry

__all__ = ["SUMMARY_KINDS", "summary", "probability", "informedness", "resolve_var_names"]

MATRIX_VARIABLES = ("theta", "rates", "roc", "pr", "reliability", "calibration_curve",
                    "difficulty", "pass_items", "all_items")
"""Class-by-class matrices, curves and per-item variables left out of a default summary (K^2,
grid or item rows each); name them to see them."""

SUMMARY_COLUMNS = ["observed", "mean", "sd", "hdi_lower", "hdi_upper", "mu", "r_hat", "ess_mean"]


def resolve_var_names(idata: xr.DataTree, var_names: Iterable[str] | str | None,
                      group: str = "posterior", default_skip: Iterable[str] = MATRIX_VARIABLES,
                      checked: bool = False) -> list[str]:
    """Map user names (aliases allowed) to the variables of ``group``.

    Examples
    --------
    >>> import bayescm as bcm
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=5, fn=1, tn=4, fp=2), random_seed=0)
    >>> resolve_var_names(idata, ["sensitivity", "informedness"])
    ['tpr', 'bm']

    ``checked=True`` skips the check of a tree the caller has just checked.
    """
    ds = box.get_group(idata, group, checked=checked)
    present = [str(v) for v in ds.data_vars]
    if var_names is None:
        skip = set(default_skip)
        return [v for v in present if v not in skip]
    if isinstance(var_names, str):
        var_names = [var_names]
    table: dict[str, str] = {canonical_name(v): v for v in present}
    for alias, metric in alias_table(registry.kind_of(idata, checked=checked).catalogue).items():
        table.setdefault(alias, metric)
    out = []
    for name in var_names:
        if not isinstance(name, str):
            raise TypeError(f"var_names: variable and metric names must be strings, got {name!r}.")
        key = table.get(canonical_name(name))
        if key is None or key not in present:
            why = "was not computed in this fit" if key is not None else "is not a known metric"
            raise KeyError(
                f"{name!r} {why}; the {group} group has: {', '.join(present)}."
            )
        out.append(key)
    return list(dict.fromkeys(out))


def _label(name: str, dims: tuple[str, ...], coords: dict[str, np.ndarray],
           index: tuple[int, ...]) -> str:
    if not dims:
        return name
    parts = [str(coords[d][i]) for d, i in zip(dims, index, strict=True)]
    return f"{name}[{', '.join(parts)}]"


@keyword_checked
def summary(
    idata: xr.DataTree,
    var_names: Iterable[str] | str | None = None,
    hdi_prob: float | None = None,
    group: str = "posterior",
    kind: str = "all",
) -> pd.DataFrame:
    """Table of every variable: observed value, mean, sd, HDI, metric uncertainty, R-hat, ESS.

    Parameters
    ----------
    idata : xarray.DataTree
        A result of :func:`~bayescm.fit`.
    var_names : str or list of str, optional
        Variables to show (aliases such as ``"sensitivity"`` accepted); default every variable
        except the class-by-class matrices ``theta`` and ``rates`` (K^2 rows each).
    hdi_prob : float, optional
        Probability of the highest-density interval; default the tree's ``hdi_prob``
        attribute (the one it was fitted with), else ``rcParams["stats.hdi_prob"]``.
    group : str, default "posterior"
        ``"prior"`` summarises the prior draws (no observed/diagnostic columns there).
    kind : {"all", "stats", "diagnostics"}, default "all"
        Which columns, as in ArviZ's ``summary``: ``"stats"`` the observed value, mean, sd,
        HDI and MU only (no R-hat or ESS computed), ``"diagnostics"`` R-hat and ESS only.

    Returns
    -------
    pandas.DataFrame
        Indexed by variable name, ArviZ style (``"bm[8]"`` for a classifier of a batch,
        ``"tpr[cat]"`` for a class), with columns ``observed, mean, sd, hdi_lower, hdi_upper,
        mu`` (MU = HDI width), ``r_hat`` and the ESS named by its estimator: ``ess_mean``
        (Geyer ESS of the raw split chains) for independent draws (the exact path),
        ``ess_bulk`` (rank-normalised, as ArviZ) for NUTS.

    Raises
    ------
    ValueError
        An unknown ``kind``.

    See Also
    --------
    probability : The posterior probability of a range of one variable.
    informedness : Whether a classifier is better than chance.
    bayescm.plots.plot_metric : The posterior density behind a row.

    Examples
    --------
    >>> import bayescm as bcm
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), random_seed=1)
    >>> table = bcm.summary(idata, var_names=["tnr"])
    >>> table.loc["tnr", ["observed", "hdi_lower", "hdi_upper"]].round(2).tolist()  # doctest: +MC
    [0.75, 0.42, 0.94]
    >>> list(bcm.summary(idata, var_names=["tnr"], kind="diagnostics").columns)
    ['r_hat', 'ess_mean']
    """
    if kind not in SUMMARY_KINDS:
        raise ValueError(f"kind must be one of {', '.join(map(repr, SUMMARY_KINDS))}, got "
                         f"{kind!r}.")
    stats, diagnostics = kind in ("all", "stats"), kind in ("all", "diagnostics")
    box.check_tree(idata)
    prob = hdi_prob_for(hdi_prob, idata)
    names = resolve_var_names(idata, var_names, group, checked=True)
    ds = box.get_group(idata, group, checked=True)
    obs = box.get_group(idata, "observed_metrics", checked=True) if group == "posterior" and \
        box.has_group(idata, "observed_metrics") else None
    diag = box.get_group(idata, "diagnostics", checked=True) if group == "posterior" and \
        box.has_group(idata, "diagnostics") else None
    blocks: list[np.ndarray] = []
    labels: list[str] = []
    obs_vals: list[np.ndarray] = []
    rhat_vals: list[np.ndarray] = []
    ess_vals: list[np.ndarray] = []
    diag_labels = [str(d) for d in diag["diagnostic"].values] if diag is not None and \
        "diagnostic" in diag.coords else []
    ess_name = next((d for d in diag_labels if d.startswith("ess")), "ess_mean")
    index_of = {d: i for i, d in enumerate(diag_labels)}
    # independent draws' split R-hat and ESS are computed here, row-wise from the draws in one
    # pass (the diagnostics group holds the same numbers; its per-variable arrays stay unread)
    from_rows = diag is not None and diag.attrs.get("r_hat_method") == "split" and \
        diag.attrs.get("ess_method") == "mean" and "chain" in ds.dims
    coord_values: dict[str, np.ndarray] = {}  # labels of the dims rows run over (not draws)
    for name in names:
        var = ds.variables[name]  # plain Variables: no DataArray built per variable
        dims = tuple(str(d) for d in var.dims)
        sample = [d for d in dims if d in box.SAMPLE_DIMS]
        if not sample:  # e.g. p_useful of bcm.net_benefit: a summary of the draws already
            drawn = [n for n in names if "chain" in ds.variables[n].dims]
            raise ValueError(f"summary: {name!r} has no draws (no chain, draw dims); it "
                             "summarises them already. Read it from the result, or summarise "
                             f"the variables with draws: var_names={drawn[:4]}.")
        rest = tuple(d for d in dims if d not in box.SAMPLE_DIMS)
        shape = tuple(var.sizes[d] for d in rest)
        n_rest = int(np.prod(shape)) if rest else 1
        for d in rest:
            if d not in coord_values:
                coord_values[d] = ds.variables[d].values if d in ds.variables else np.arange(
                    var.sizes[d])
        coords = {d: coord_values[d] for d in rest}
        labels.extend(_label(name, rest, coords, idx) for idx in np.ndindex(*shape))
        if stats or from_rows:
            order = (*rest, *sample)
            arr = np.asarray((var if var.dims == order else var.transpose(*order)).values)
            blocks.append(arr.reshape(n_rest, -1))
        if stats:
            obs_vals.append(_aligned(obs, name, rest, shape, ds, n_rest))
        if diagnostics and not from_rows:
            rhat_vals.append(_aligned(diag, name, rest, shape, ds, n_rest,
                                      index_of.get("r_hat")))
            ess_vals.append(_aligned(diag, name, rest, shape, ds, n_rest,
                                     index_of.get(ess_name)))
    columns = [*(SUMMARY_COLUMNS[:6] if stats else []),
               *(["r_hat", ess_name] if diagnostics else [])]
    if not labels:
        return pd.DataFrame(columns=columns)
    values: dict[str, np.ndarray] = {}
    if blocks:
        values.update(_from_draws(blocks, prob, stats, diagnostics and from_rows,
                                  ds.sizes.get("chain", 1)))
        if "mean" in values:  # rows with undefined draws: summarised over the defined ones
            values = summarise_defined(blocks, values, prob, stats)
            if "undefined" in values:
                columns.append("undefined")
    if stats:
        values["observed"] = np.concatenate(obs_vals)
    if diagnostics and not from_rows:
        values["r_hat"], values["ess"] = np.concatenate(rhat_vals), np.concatenate(ess_vals)
    table = pd.DataFrame(
        np.column_stack([values["ess" if c == ess_name else c] for c in columns]),
        index=pd.Index(labels, name="variable"), columns=columns)
    table.attrs["hdi_prob"] = prob
    return table


SUMMARY_KINDS = ("all", "stats", "diagnostics")


def _from_draws(blocks: list[np.ndarray], prob: float, stats: bool, diagnostics: bool,
                chains: int) -> dict[str, np.ndarray]:
    """The columns computed from the draws: moments and HDI, and R-hat/ESS of the rows.

    The blocks are copied once into this thread's reusable work array (see
    :func:`~bayescm.core.workspace.workspace`); the HDI reads it first and the moments then
    centre it in place (no second array as large as the draws). Nothing returned refers to
    it.
    """
    if len({b.shape[1] for b in blocks}) > 1:  # pragma: no cover - groups share chain/draw
        raise ValueError("The variables of one group must have the same number of draws.")
    rows = sum(len(b) for b in blocks)
    draws = np.concatenate(blocks, out=workspace((rows, blocks[0].shape[1]),
                                                 np.result_type(*blocks)))
    out: dict[str, np.ndarray] = {}
    if stats:
        bounds = hdi_rows(draws, prob)
        out.update(hdi_lower=bounds[:, 0], hdi_upper=bounds[:, 1],
                   mu=bounds[:, 1] - bounds[:, 0])
    if diagnostics:
        out["mean"], out["sd"], out["r_hat"], out["ess"] = moments_rhat_ess_rows(
            draws.reshape(len(draws), chains, -1), overwrite=True)
    elif stats:
        with np.errstate(invalid="ignore", over="ignore"):
            out["mean"] = mean = draws.mean(axis=1)
            if draws.shape[1] > 1:
                centred = np.subtract(draws, mean[:, None], out=draws)
                out["sd"] = np.sqrt(rowdot(centred, centred) / (draws.shape[1] - 1))
            else:
                out["sd"] = np.full(len(draws), np.nan)
    return out


_hdi_rows = hdi_rows  # the name the tests know (the exact HDI of every row)


def _aligned(ds: xr.Dataset | None, name: str, rest: tuple[str, ...],
             shape: tuple[int, ...], like: xr.Dataset, n: int, diagnostic: int | None = None,
             ) -> np.ndarray:
    """Values of ``ds[name]`` (one ``diagnostic`` slice) in the order of ``rest``, flat.

    Missing values (no such group or variable, or an absent diagnostic) are NaN; a variable
    with fewer dims than ``rest`` (shared by a batch) is broadcast to them.
    """
    if ds is None or name not in ds.variables or (ds is not None and "diagnostic" in
                                                  ds.dims and diagnostic is None):
        return np.full(n, np.nan)
    var = ds.variables[name]
    if diagnostic is not None:
        var = var.isel(diagnostic=diagnostic)
    if var.dims != rest:
        if not set(var.dims) <= set(rest):
            raise ValueError(f"{name!r} has dims {var.dims}, not those of the draws {rest}.")
        var = var.set_dims(dict(zip(rest, shape, strict=True))).transpose(*rest)
    return np.asarray(var.values, dtype=float).reshape(n)


@keyword_checked
def probability(
    idata: xr.DataTree,
    var: str,
    lower: float | None = None,
    upper: float | None = None,
    group: str = "posterior",
) -> float | xr.DataArray:
    """Posterior probability that ``var`` lies between ``lower`` and ``upper``.

    Parameters
    ----------
    idata : xarray.DataTree
        A result of :func:`~bayescm.fit`.
    var : str
        Variable or metric name (aliases accepted).
    lower, upper : float, optional
        Bounds; give at least one. ``upper=0`` alone gives P(var < 0).
    group : str, default "posterior"
        Group to read (``"prior"`` for prior probabilities).

    Returns
    -------
    float or xarray.DataArray
        A number for a scalar variable, else an array over the remaining dims (e.g.
        ``classifier``). When some draws of ``var`` are undefined (NaN, e.g. a PPV of 0/0),
        the probability is over the defined draws only (NaN where none is), and an
        :class:`~bayescm.errors.UndefinedDrawsWarning` says what share was left out.

    Raises
    ------
    ValueError
        Neither ``lower`` nor ``upper``, or ``lower >= upper``.
    TypeError
        A bound that is not a number.

    See Also
    --------
    summary : Means and HDIs of every variable.
    informedness : The chances of BM above, near and below zero.
    prob_superior : The probability that one classifier beats another.

    Examples
    --------
    >>> import bayescm as bcm
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4)
    >>> p = bcm.probability(bcm.fit(cm, random_seed=0), "bm", upper=0.0)
    >>> round(p, 2)
    0.14
    """
    if lower is None and upper is None:
        raise ValueError("Give lower, upper or both, e.g. probability(idata, 'bm', upper=0).")
    for bound, label in ((lower, "lower"), (upper, "upper")):
        if bound is not None and (not isinstance(bound, (int, float, np.number))
                                  or isinstance(bound, bool) or np.isnan(bound)):
            raise TypeError(f"{label} must be a number, got {bound!r}.")
    if lower is not None and upper is not None and not lower < upper:
        raise ValueError(f"lower ({lower}) must be smaller than upper ({upper}).")
    (name,) = resolve_var_names(idata, [var], group)
    da = box.get_group(idata, group)[name]
    inside = xr.ones_like(da, dtype=bool)
    if lower is not None:
        inside = inside & (da > lower)
    if upper is not None:
        inside = inside & (da < upper)
    dims = [d for d in box.SAMPLE_DIMS if d in da.dims]
    undefined = da.isnull()
    what = (f"P({lower if lower is not None else '-inf'} < {name} < "
            f"{upper if upper is not None else 'inf'})")
    if bool(undefined.any()):  # over the defined draws only, and said so
        defined = (~undefined).sum(dims)
        with np.errstate(invalid="ignore", divide="ignore"):
            result = inside.sum(dims) / defined.where(defined > 0)
        share = undefined.mean(dims)
        worst = float(share.max())
        warn_user(f"{name} is undefined (NaN) in {_share(worst)} of the draws"
                  f"{' (in the worst row)' if share.ndim else ''}; {what} is over the "
                  "defined draws only (NaN where none is defined), not counting undefined "
                  "draws as outside the range.", UndefinedDrawsWarning)
        result.attrs = {"long_name": f"{what}, over defined draws",
                        "undefined_share": worst}
    else:
        result = inside.mean(dims)
        result.attrs = {"long_name": what}
    return float(result) if result.ndim == 0 else result


def _share(value: float) -> str:
    """A share of draws as a percentage that never reads 0 % or 100 % when it is not."""
    pct = 100.0 * value
    if 0 < pct < 0.01:
        return "<0.01 %"
    if 99.99 < pct < 100:
        return ">99.99 %"
    return f"{pct:.2f} %"


@keyword_checked
def informedness(idata: xr.DataTree, rope: float = 0.0, var: str | None = None) -> pd.DataFrame:
    """Chances that a classifier is informative, uninformative or deceptive (paper eqs. 13-14).

    ``informative = P(BM > rope)``, ``deceptive = P(BM < -rope)`` and
    ``uninformative = P(|BM| <= rope)``; with ``rope=0`` the middle class is empty and
    ``deceptive`` is the paper's r_deceptive.

    Multiclass results use the Matthews correlation coefficient (Gorodkin's R_K) instead: it is
    0 when predictions are independent of the truth, 1 for a perfect classifier, and negative
    for systematic confusion. For two classes its sign equals BM's in every draw
    (``MCC^2 = BM * MK`` and both share the sign of ``TP TN - FN FP``), so with ``rope=0`` it
    answers the paper's question exactly. Pass ``var="kappa"`` for Cohen's Kappa (0 at chance
    agreement given both marginals).

    Parameters
    ----------
    idata : xarray.DataTree
        A result of :func:`~bayescm.fit` whose posterior holds ``var``.
    rope : float, default 0.0
        Half-width of the region of practical equivalence around 0, in [0, 1).
    var : str, optional
        The chance-corrected metric; default ``"bm"`` (bookmaker informedness) for binary
        results and ``"mcc"`` for multiclass ones.

    Returns
    -------
    pandas.DataFrame
        Columns ``informative, uninformative, deceptive`` (rows sum to 1), one row per
        classifier of a batch or a single row named after ``var``.

    Raises
    ------
    TypeError
        ``rope`` that is not a number.
    ValueError
        ``rope`` outside ``[0, 1)``.

    See Also
    --------
    probability : The same kind of question for any variable and range.
    summary : The posterior of BM with its HDI.

    Notes
    -----
    Draws in which the variable is undefined (NaN) are left out of all three shares, which
    therefore still sum to 1; an :class:`~bayescm.errors.UndefinedDrawsWarning` says so.
    prob_superior : Whether one classifier beats another, rather than chance.

    Examples
    --------
    >>> import bayescm as bcm
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=28, fn=9, tn=3, fp=4)
    >>> table = bcm.informedness(bcm.fit(cm, random_seed=0), rope=0.05)
    >>> bool(abs(table.sum(axis=1).iloc[0] - 1) < 1e-12)
    True
    """
    if isinstance(rope, bool) or not isinstance(rope, (int, float, np.number)):
        raise TypeError(f"rope must be a number in [0, 1), got {rope!r}.")
    if not 0.0 <= rope < 1.0:
        raise ValueError(f"rope must lie in [0, 1), got {rope}.")
    if var is None:
        var = "bm" if registry.kind_of(idata).metric_family == "binary" else "mcc"
    (name,) = resolve_var_names(idata, [var])
    da = box.get_group(idata, "posterior")[name]
    dims = [d for d in box.SAMPLE_DIMS if d in da.dims]
    defined = da.notnull().sum(dims)
    if bool((defined < da.notnull().count(dims)).any()):
        warn_user(f"{name} is undefined (NaN) in some draws; the chances are over the defined "
                  "draws only (NaN where none is defined).", UndefinedDrawsWarning)
    per = defined.where(defined > 0)
    with np.errstate(invalid="ignore", divide="ignore"):
        informative = (da > rope).sum(dims) / per
        deceptive = (da < -rope).sum(dims) / per
        uninformative = (abs(da) <= rope).sum(dims) / per  # the rest: the three sum to 1
    frame = xr.Dataset({"informative": informative, "uninformative": uninformative,
                        "deceptive": deceptive})
    if frame["informative"].ndim == 0:
        return pd.DataFrame({k: [float(v)] for k, v in frame.items()}, index=[name])
    return frame.to_dataframe()[["informative", "uninformative", "deceptive"]]

