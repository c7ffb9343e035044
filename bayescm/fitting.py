"""``fit``: from confusion matrices to a result tree with the posterior of every metric."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import xarray as xr

from . import _container as box
from ._version import __version__
from .confusion import ConfusionMatrix, as_batch
from .diagnostics import ess, rhat
from .exact import binary_posterior_parameters, draw_beta
from .metrics import BINARY_METRICS, Metric, evaluate, resolve_metrics
from .model import BINARY_PARAMETERS, binary_cells, build_model, resolve_binary_priors
from .priors import Beta, Fixed, is_conjugate, prior_to_dict
from .stats import HDI_PROB, check_prob

__all__ = ["fit"]

CELL_DIMS = ("true_class", "pred_class")
METHODS = ("auto", "exact", "nuts")
DIAGNOSTIC_METHODS = {
    "exact": ("split", "mean"),
    "nuts": ("rank", "bulk"),
}
_DIAGNOSTIC_NOTES = {
    "exact": (
        "exact draws are independent; r_hat is the classic split R-hat (Gelman & Rubin 1992, "
        "as in the paper) and ess_bulk the Geyer ESS of the raw split chains (rank-normalised "
        "where draws are not finite)"
    ),
    "nuts": "rank-normalised split R-hat and bulk ESS (Vehtari et al. 2021), as in ArviZ",
}


def _check_int(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {value!r}.")
    if value < minimum:
        raise ValueError(f"{name} must be >= {minimum}, got {value}.")
    return int(value)


def _choose_method(method: str, priors: Mapping[str, Any]) -> str:
    if method not in METHODS:
        raise ValueError(f"Unknown method {method!r}; use one of {', '.join(METHODS)}.")
    conjugate = all(is_conjugate(p) for p in priors.values())
    if method == "exact" and not conjugate:
        custom = [k for k, p in priors.items() if not is_conjugate(p)]
        raise ValueError(
            f"method='exact' needs conjugate (Beta or Fixed) priors, but {custom} have custom "
            "priors; use method='nuts' or 'auto'."
        )
    if method == "auto":
        return "exact" if conjugate else "nuts"
    return method


def _seeds(random_seed: Any) -> tuple[np.random.Generator, np.random.Generator, int]:
    if isinstance(random_seed, np.random.Generator):
        seq = random_seed.bit_generator.seed_seq
    else:
        seq = np.random.SeedSequence(random_seed)
    post, prior, nuts = seq.spawn(3)
    return (np.random.default_rng(post), np.random.default_rng(prior),
            int(nuts.generate_state(1)[0]))


def fit(
    data: ConfusionMatrix | Mapping[str, ConfusionMatrix],
    prior: Any = "laplace",
    prevalence: Any = None,
    tpr: Any = None,
    tnr: Any = None,
    *,
    method: str = "auto",
    draws: int = 5000,
    chains: int = 4,
    random_seed: int | np.random.Generator | None = None,
    metrics: Iterable[str | Metric] | str | Metric | None = None,
    hdi_prob: float = HDI_PROB,
    progressbar: bool = False,
    **sample_kwargs: Any,
) -> xr.DataTree:
    """Posterior of every metric of a confusion matrix (or a batch of them).

    Parameters
    ----------
    data : ConfusionMatrix or mapping of name -> ConfusionMatrix
        One matrix, or several of the same classes; a mapping gives one tree with a
        ``classifier`` dim (the exact path draws the whole batch in one vectorised step).
    prior : str or prior, default "laplace"
        Prior of every parameter not given separately: ``"laplace"``, ``"jeffreys"``,
        ``"haldane"``, a :class:`~bayescm.Beta`, or an object with ``create_variable(name)``.
    prevalence, tpr, tnr : prior, optional
        Per-parameter priors overriding ``prior``; ``prevalence`` may be
        :class:`~bayescm.Fixed` (a curated test set's known share of positives).
    method : {"auto", "exact", "nuts"}
        ``"exact"`` draws from the closed-form posterior (NumPy); ``"nuts"`` samples
        :func:`build_model` with PyMC; ``"auto"`` picks exact when every prior is conjugate.
    draws, chains : int
        Draws per chain and number of chains (default 4 x 5,000 = 20,000, as in the paper).
    random_seed : int or numpy Generator, optional
        Same seed, same draws.
    metrics : list of str or Metric, optional
        Metrics to compute (aliases accepted, custom :class:`~bayescm.Metric` objects too);
        default all. The parameters and ``theta`` are always stored.
    hdi_prob : float, default 0.95
        Recorded as the tree's default interval probability for :func:`summary`.
    progressbar : bool, default False
        Show PyMC's progress bar (NUTS).
    **sample_kwargs
        Passed to ``pymc.sample`` (e.g. ``tune``, ``target_accept``, ``cores``).

    Returns
    -------
    xarray.DataTree
        Groups ``posterior``, ``prior`` (absent for improper priors), ``observed_data``,
        ``observed_metrics`` (every variable evaluated at counts / N), ``diagnostics`` (R-hat and
        ESS along a ``diagnostic`` dim), ``constant_data`` (a fixed prevalence) and, for NUTS,
        ``sample_stats``. The prior group has no ``classifier`` dim: priors are shared.

    See Also
    --------
    summary, probability, informedness, build_model

    Examples
    --------
    >>> import bayescm as bcm
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    >>> idata = bcm.fit(cm, random_seed=1)
    >>> lo, hi = bcm.summary(idata, var_names=["tpr"]).loc["tpr", ["hdi_lower", "hdi_upper"]]
    >>> round(lo, 2), round(hi, 2)
    (0.9, 1.0)
    """
    names, mats = as_batch(data)
    draws = _check_int(draws, "draws", 1)
    chains = _check_int(chains, "chains", 1)
    hdi_prob = check_prob(hdi_prob)
    if not mats[0].is_binary:
        from .multiclass import fit_multiclass

        return fit_multiclass(names, mats, prior=prior, prevalence=prevalence, method=method,
                              draws=draws, chains=chains, random_seed=random_seed,
                              metrics=metrics, hdi_prob=hdi_prob, progressbar=progressbar,
                              extra={"tpr": tpr, "tnr": tnr}, **sample_kwargs)
    priors = resolve_binary_priors(prior, prevalence, tpr, tnr)
    method = _choose_method(method, priors)
    selected = resolve_metrics(metrics, BINARY_METRICS, "binary")
    fixed = isinstance(priors["prevalence"], Fixed)
    free = [p for p in BINARY_PARAMETERS if not (fixed and p == "prevalence")]
    selected = [m for m in selected if m.name not in BINARY_PARAMETERS]
    rng_post, rng_prior, nuts_seed = _seeds(random_seed)
    counts = np.stack([cm.counts for cm in mats])

    groups: dict[str, xr.Dataset] = {}
    if method == "exact":
        post = binary_posterior_parameters(counts, priors, names)
        params = {p: draw_beta(rng_post, *post[p], chains, draws) for p in free}
    else:
        model = build_model(data, prior, prevalence, tpr, tnr)
        import pymc as pm

        sample_kwargs.setdefault("compute_convergence_checks", False)
        trace = pm.sample(draws=draws, chains=chains, random_seed=nuts_seed, model=model,
                          progressbar=progressbar, **sample_kwargs)
        params = {p: np.asarray(trace["posterior"][p].values) for p in free}
        if names is None:
            params = {p: v[..., None] for p, v in params.items()}
        groups["sample_stats"] = box.get_group(trace, "sample_stats")

    batch_dims = ("classifier",) if names is not None else ()
    coords: dict[str, Any] = {"chain": np.arange(chains), "draw": np.arange(draws),
                              "true_class": mats[0].coords, "pred_class": mats[0].coords,
                              "diagnostic": ["r_hat", "ess_bulk"]}
    if names is not None:
        coords["classifier"] = names
    fixed_value = priors["prevalence"].value if fixed else None

    batch = "drop" if names is None else "keep"
    posterior_vars = _derived(params, fixed_value, selected, box.SAMPLE_DIMS, batch)
    groups["posterior"] = box.make_dataset(posterior_vars, coords, {"method": method})
    r_method, e_method = DIAGNOSTIC_METHODS[method]
    groups["diagnostics"] = box.make_dataset(
        _diagnostics(posterior_vars, r_method, e_method), coords,
        {"r_hat_method": r_method, "ess_method": e_method, "note": _DIAGNOSTIC_NOTES[method]},
    )
    prior_group = _prior_draws(priors, free, method, data, prior, prevalence, tpr, tnr,
                               rng_prior, chains, draws)
    if prior_group is not None:
        prior_params, prior_batch = prior_group
        groups["prior"] = box.make_dataset(
            _derived(prior_params, fixed_value, selected, box.SAMPLE_DIMS,
                     batch if prior_batch else "none"),
            coords, {"method": method})

    with np.errstate(divide="ignore", invalid="ignore"):
        n = counts.sum(axis=(1, 2))
        obs_cells = [counts[:, i, j] / n for i, j in ((0, 0), (0, 1), (1, 0), (1, 1))]
    obs_params = {
        "prevalence": (obs_cells[0] + obs_cells[1]),
        "tpr": BINARY_METRICS["tpr"](*obs_cells),
        "tnr": BINARY_METRICS["tnr"](*obs_cells),
    }
    obs_params = {p: v for p, v in obs_params.items() if p in free}
    groups["observed_metrics"] = box.make_dataset(
        _derived(obs_params, fixed_value, selected, (), batch, observed_cells=obs_cells),
        coords, {"note": "every posterior variable evaluated at the observed counts / N; "
                         "NaN means undefined (0/0), inf unbounded"})
    counts_out = counts[0] if names is None else counts
    groups["observed_data"] = box.make_dataset(
        {"counts": (batch_dims + CELL_DIMS, counts_out, {"long_name": "confusion matrix counts"})},
        coords)
    if fixed:
        groups["constant_data"] = box.make_dataset(
            {"prevalence": ((), np.asarray(fixed_value), {"long_name": "fixed prevalence"})},
            coords)

    attrs = {
        "bayescm_version": __version__,
        "model": "binary",
        "method": method,
        "priors": box.json_attr({k: prior_to_dict(v) for k, v in priors.items()}),
        "hdi_prob": hdi_prob,
        "positive": str(mats[0].coords[0]),
        "metrics": box.json_attr([m.name for m in selected]),
        "draws": draws,
        "chains": chains,
        "random_seed": -1 if random_seed is None or not isinstance(random_seed, int)
        else int(random_seed),
    }
    if prior_group is None:
        attrs["prior_note"] = "no prior group: an improper prior (Haldane) cannot be sampled"
    return box.make_tree(groups, attrs)


def _derived(
    params: Mapping[str, np.ndarray],
    fixed_prevalence: float | None,
    selected: list[Metric],
    lead: tuple[str, ...],
    batch: str,
    observed_cells: list[np.ndarray] | None = None,
) -> dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]]:
    """Parameters, theta and metrics as ``{name: (dims, array, attrs)}``.

    ``batch`` says what the arrays' last axis is: ``"keep"`` a ``classifier`` axis, ``"drop"``
    a length-1 batch axis of a single matrix, ``"none"`` no batch axis (shared prior draws).
    """
    tpr, tnr = params["tpr"], params["tnr"]
    prev = params["prevalence"] if fixed_prevalence is None else fixed_prevalence
    cells = observed_cells if observed_cells is not None else binary_cells(prev, tpr, tnr)
    shape = np.broadcast_shapes(*(np.shape(c) for c in cells))
    cells = [np.broadcast_to(c, shape) for c in cells]
    values: dict[str, np.ndarray] = dict(params)
    values.update(evaluate(selected, tuple(cells), shape))
    theta = np.stack([np.stack(cells[:2], axis=-1), np.stack(cells[2:], axis=-1)], axis=-2)
    values["theta"] = theta
    long_names = {m.name: m.long_name for m in BINARY_METRICS.values()}
    long_names.update({m.name: m.long_name for m in selected})
    long_names["theta"] = "confusion probability matrix"
    out = {}
    for name, arr in values.items():
        extra = CELL_DIMS if name == "theta" else ()
        if batch == "drop":
            arr = arr[(Ellipsis, 0) + (slice(None),) * len(extra)]
        dims = lead + (("classifier",) if batch == "keep" else ()) + extra
        out[name] = (dims, arr, {"long_name": long_names.get(name, name)})
    return out


def _diagnostics(
    variables: Mapping[str, tuple[tuple[str, ...], np.ndarray, Any]], r_method: str, e_method: str
) -> dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]]:
    out = {}
    for name, (dims, arr, _) in variables.items():
        stacked = np.stack([rhat(arr, r_method), ess(arr, e_method)])
        out[name] = (("diagnostic",) + dims[2:], stacked, {"long_name": f"diagnostics of {name}"})
    return out


def _prior_draws(
    priors: Mapping[str, Any], free: list[str], method: str, data: Any, prior: Any,
    prevalence: Any, tpr: Any, tnr: Any, rng: np.random.Generator, chains: int, draws: int,
) -> tuple[dict[str, np.ndarray], bool] | None:
    """Prior draws of the free parameters: (arrays, whether they carry a batch axis) or None."""
    used = [priors[p] for p in free]
    if any(isinstance(p, Beta) and not p.proper for p in used):
        return None
    if all(isinstance(p, Beta) for p in used):
        return {p: draw_beta(rng, priors[p].alpha, priors[p].beta, chains, draws) for p in free}, False
    import pymc as pm

    model = build_model(data, prior, prevalence, tpr, tnr)
    seed = int(rng.integers(2**31))
    prior_tree = pm.sample_prior_predictive(draws=chains * draws, model=model, var_names=free,
                                            random_seed=seed)
    out = {}
    batched = False
    for p in free:
        arr = np.asarray(prior_tree["prior"][p].values)  # (1, chains * draws, [classifier])
        arr = arr.reshape((chains, draws) + arr.shape[2:])
        batched = batched or arr.ndim == 3
        out[p] = arr
    if batched:
        out = {p: (a if a.ndim == 3 else np.broadcast_to(a[..., None], a.shape + (1,)))
               for p, a in out.items()}
    return out, batched
