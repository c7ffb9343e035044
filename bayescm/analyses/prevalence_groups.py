"""The prevalence exchange of a hierarchical (several groups) fit: metrics where it is deployed.

:func:`bayescm.with_prevalence` sends hierarchical trees here. Each group keeps its TPR and TNR
draws and gets the deployment prevalence; the pooled (``*_mean``) and new-group (``*_new``)
TPR and TNR get it too, so ``ppv_new`` and ``npv_new`` answer "what PPV should a new site
expect where 2 % are positive?". Every metric is derived again by the binary model.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.metrics.metric import Metric
from bayescm.priors import Beta

__all__ = ["groups_with_prevalence"]

_ROWS = {"mean": "pooled (at the centre of the groups)", "new": "a new group"}


def groups_with_prevalence(idata: xr.DataTree, deployment: Any, rng: np.random.Generator,
                           metrics: Sequence[str | Metric] | None) -> xr.DataTree:
    """Per-group, pooled and new-group metrics at ``deployment`` (a parsed prevalence).

    Called by :func:`bayescm.with_prevalence` (which parses the prevalence and checks the
    arguments); the tree keeps every group of the fit but ``posterior`` (recomputed),
    ``observed_metrics`` (the observed rates at the deployment prevalence) and the diagnostics
    of the recomputed variables.
    """
    from bayescm.metrics import resolve_metrics
    from bayescm.models.binary import BinaryModel
    from bayescm.models.hierarchical_build import POPULATION_VARIABLES
    from bayescm.models.pooled import diagnostics_dataset

    attrs = box.root_attrs(idata)
    group = str(attrs["group"])
    labels = box.read_json_attr(idata, "labels")
    kind = BinaryModel(labels)
    post = box.get_group(idata, "posterior")
    chains, draws = post.sizes["chain"], post.sizes["draw"]
    names = [str(v) for v in post[group].values]
    if metrics is None:
        metrics = box.read_json_attr(idata, "metrics") if "metrics" in attrs else None
    selected = [m for m in resolve_metrics(metrics, kind.catalogue, "binary")
                if m.name not in ("prevalence", "tpr", "tnr")]

    def rates(which: str) -> np.ndarray:  # (chain, draw, G + 2): groups, pooled, new
        per_group = post[which].transpose("chain", "draw", group).values
        extra = [post[f"{which}_{row}"].transpose("chain", "draw").values[..., None]
                 for row in _ROWS]
        return np.concatenate([per_group, *extra], axis=2)

    params = {"tpr": rates("tpr"), "tnr": rates("tnr")}
    width = params["tpr"].shape[2]
    fixed = deployment.fixed
    new = deployment.sample(rng, chains, draws)
    priors: dict[str, Any] = {"prevalence": fixed if fixed is not None else Beta(1, 1),
                              "tpr": Beta(1, 1), "tnr": Beta(1, 1)}
    if new is not None:
        params["prevalence"] = np.repeat(np.asarray(new, dtype=float)[..., None], width, axis=2)
    derived = kind.derive(params, priors, selected)
    variables: dict[str, Any] = {}
    long = {m.name: m.long_name for m in kind.catalogue.values()}
    for name, (extra, values) in derived.items():
        if name in ("theta", "tpr", "tnr") or extra:  # TPR and TNR are the fit's, copied below
            continue
        values = np.asarray(values)
        variables[name] = (("chain", "draw", group), np.ascontiguousarray(values[..., :-2]),
                           {"long_name": long.get(name, name)})
        if name == "prevalence":
            continue
        for k, row in enumerate(_ROWS):
            variables[f"{name}_{row}"] = (
                ("chain", "draw"), np.ascontiguousarray(values[..., width - 2 + k]),
                {"long_name": f"{long.get(name, name)}, {_ROWS[row]}"})
    recomputed = dict(variables)
    for name in ("tpr", "tnr", *POPULATION_VARIABLES, "sroc"):  # unchanged by the prevalence
        if name in post:
            da = post[name]
            variables[name] = (tuple(map(str, da.dims)), np.array(da.values), dict(da.attrs))
    coords = {str(k): np.asarray(v.values) for k, v in post.coords.items()}
    groups = {name: box.copy_group(idata, name) for name in idata.children
              if name not in ("posterior", "observed_metrics", "diagnostics", "prior",
                              "posterior_predictive")}
    groups["posterior"] = box.make_dataset(variables, coords, {
        **post.attrs, "deployment_prevalence": box.json_attr(deployment.description)})
    diag = box.get_group(idata, "diagnostics")
    fresh = diagnostics_dataset(  # only for what was derived again; the rest is the fit's
        recomputed, {**coords, **{str(k): np.asarray(v.values) for k, v in diag.coords.items()}})
    kept = [k for k in diag.data_vars if k in variables and k not in recomputed]
    groups["diagnostics"] = xr.merge([diag[kept].copy(deep=True), fresh],
                                     combine_attrs="override")
    counts = box.get_group(idata, "observed_data")["counts"].transpose(group, ...).values
    obs_params, _ = kind.observed(counts, {"prevalence": None})
    point = deployment.point(len(names))
    obs_params["prevalence"] = (np.full(len(names), float(fixed.value)) if fixed is not None
                                else np.asarray(point, dtype=float))
    observed = kind.derive(obs_params, {**priors, "prevalence": Beta(1, 1)}, selected)
    groups["observed_metrics"] = box.make_dataset(
        {k: ((group, *extra), v, {"long_name": long.get(k, k)})
         for k, (extra, v) in observed.items()}, coords,
        {"note": "observed per-group rates (counts) at the deployment prevalence"
                 + ("" if fixed is not None else " (its mean)")})
    fit_priors = box.read_json_attr(idata, "priors") if "priors" in attrs else {}
    root = {**attrs, "metrics": box.json_attr([m.name for m in selected]),
            "test_set_prevalence": box.json_attr(fit_priors.get("prevalence")),
            "deployment_prevalence": box.json_attr(deployment.description),
            "priors": box.json_attr({**fit_priors, "prevalence": deployment.description})}
    return box.make_tree(groups, root, owned=True)
