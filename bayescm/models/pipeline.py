"""Building blocks of the result pipeline shared by ``fit`` and the analyses that derive trees.

``fit`` (fitting.py) and the functions that rebuild groups from a fitted tree (prevalence
exchange, posterior and prior predictive, paired comparisons) name axes, compute diagnostics
and draw priors the same way; this module holds those steps once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

from bayescm.core.diagnostics import ess, rhat, rhat_ess_split
from bayescm.core.lazy import LazyArrays, lazy_variable
from bayescm.core.streams import child, seed_sequence
from bayescm.metrics.metric import Metric

__all__ = ["DIAGNOSTIC_METHODS", "DIAGNOSTIC_NOTES",
           "diagnostic_variables", "lazy_diagnostic_variables", "ordered_draws", "prior_draws",
           "sample_array", "seeds", "stored_values"]

DIAGNOSTIC_METHODS = {"exact": ("split", "mean"), "nuts": ("rank", "bulk")}
DIAGNOSTIC_NOTES = {
    "exact": (
        "exact draws are independent; r_hat is the classic split R-hat (Gelman & Rubin 1992, "
        "as in the paper) and ess_mean the Geyer ESS of the raw split chains (rank-normalised "
        "where draws are not finite)"
    ),
    "nuts": "rank-normalised split R-hat and bulk ESS (Vehtari et al. 2021), as in ArviZ",
}


def seeds(random_seed: Any) -> tuple[np.random.Generator, np.random.Generator, int]:
    """Independent streams for posterior draws, prior draws and the NUTS seed.

    ``random_seed`` may also be a ready :class:`~numpy.random.SeedSequence` (see
    :mod:`bayescm.core.streams` for the rule every function follows).
    """
    seq = random_seed if isinstance(random_seed, np.random.SeedSequence) else \
        seed_sequence(random_seed)
    post, prior, nuts = (child(seq, i) for i in range(3))
    return (np.random.default_rng(post), np.random.default_rng(prior),
            int(nuts.generate_state(1)[0]))


def observed_derived(kind: Any, counts: np.ndarray, priors: Mapping[str, Any],
                     selected: list[Metric]) -> dict[str, tuple[tuple[str, ...], np.ndarray]]:
    """Every posterior variable at the observed counts: the numbers a paper reports.

    Multiclass metrics (all scale-free) are evaluated on the integer counts themselves, so a
    0/0 is exactly 0/0 and never tiny/tiny; ``theta`` is stored as counts / N. With a fixed
    prevalence the values are the plug-in at that prevalence (the observed rates put at the
    fixed shares), as :func:`bayescm.with_prevalence` reports, so they sit beside a posterior
    drawn at the same prevalence.
    """
    params, theta = kind.observed(counts, priors)
    if any(getattr(p, "fixed", False) for p in priors.values()):
        return kind.derive(params, priors, selected)
    if not getattr(kind, "scale_free", False):  # binary formulas take proportions (acc = tp + tn)
        return kind.derive(params, priors, selected, theta=theta)
    derived = kind.derive(params, priors, selected, theta=counts.astype(float))
    derived["theta"] = (derived["theta"][0], theta)
    return derived


def stored_values(kind: Any, selected: list[Metric], batch: int, chains: int, draws: int
                  ) -> float:
    """How many floats a fit stores: parameters, theta and metrics, posterior and prior."""
    k = len(kind.labels)
    metrics = sum(k if m.kind == "per_class" else 1 for m in selected)
    params = sum(k ** len(p.dims) for p in kind.parameters)
    return float(chains) * float(draws) * (batch + 1) * (metrics + params + k * k)




def diagnostic_variables(
    variables: Mapping[str, tuple[tuple[str, ...], np.ndarray, Any]], r_method: str, e_method: str
) -> dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]]:
    """R-hat and ESS of every variable, stacked along a leading ``diagnostic`` axis."""
    out = {}
    for name, (dims, arr, _) in variables.items():
        if (r_method, e_method) == ("split", "mean"):
            stacked = np.stack(rhat_ess_split(arr))
        else:
            stacked = np.stack([rhat(arr, r_method), ess(arr, e_method)])
        out[name] = (("diagnostic",) + dims[2:], stacked, {"long_name": f"diagnostics of {name}"})
    return out


def lazy_diagnostic_variables(
    variables: Mapping[str, tuple[tuple[str, ...], np.ndarray, Any]], r_method: str, e_method: str
) -> dict[str, tuple[tuple[str, ...], Any, dict[str, str]]]:
    """:func:`diagnostic_variables`, each variable's computed when first read.

    A summary of a few variables then pays for their diagnostics only, and a fit for none.
    """
    out: dict[str, tuple[tuple[str, ...], Any, dict[str, str]]] = {}
    for name, (dims, arr, attrs) in variables.items():
        one = {name: (dims, arr, attrs)}

        def compute(one: Mapping[str, Any] = one, name: str = name) -> dict[str, np.ndarray]:
            return {name: diagnostic_variables(one, r_method, e_method)[name][1]}

        source = LazyArrays(compute)
        out[name] = lazy_variable(("diagnostic",) + tuple(dims[2:]), source, name,
                                      (2,) + np.shape(arr)[2:],
                                      {"long_name": f"diagnostics of {name}"})
    return out


def prior_draws(
    kind: Any, priors: Mapping[str, Any], names: list[str] | None, counts: np.ndarray,
    rng: np.random.Generator, chains: int, draws: int,
) -> tuple[dict[str, np.ndarray] | None, bool]:
    """Prior draws of the free parameters and whether they carry a batch axis.

    Conjugate proper priors are drawn with NumPy once for the whole batch (shape
    ``(chains, draws, *param_dims)``); custom priors with PyMC's prior sampler; improper priors
    give None.
    """
    if kind.improper(priors):
        return None, False
    exact = kind.exact_prior(priors, rng, chains, draws)
    if exact is not None:
        return exact, False
    import pymc as pm

    model = kind.build_pymc(names, counts, priors)
    free = kind.free(priors)
    tree = pm.sample_prior_predictive(draws=chains * draws, model=model, var_names=free,
                                      random_seed=int(rng.integers(2**31)))
    out = {}
    for p in free:
        arr = ordered_draws(tree["prior"][p], kind, p, names is not None)
        out[p] = arr.reshape((chains, draws) + arr.shape[2:])
    return out, names is not None


def ordered_draws(da: xr.DataArray, kind: Any, name: str, batched: bool) -> np.ndarray:
    """Draws of a parameter as ``(chain, draw, [classifier], *param_dims)``."""
    order = ["chain", "draw"] + (["classifier"] if batched else []) + list(kind.param_dims(name))
    return np.asarray(da.transpose(*order).values)


def sample_array(da: xr.DataArray, kind: Any, name: str, batched: bool) -> np.ndarray:
    """Draws as ``(chain, draw, B, *param_dims)``, adding B = 1 without a batch dim."""
    arr = ordered_draws(da, kind, name, batched)
    return arr if batched else arr[:, :, None]

