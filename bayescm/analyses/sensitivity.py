"""Prior sensitivity: one matrix fitted under several priors, one tree with a ``prior_choice`` dim.

The dim is called ``prior_choice`` rather than ``prior`` so that it is never confused with the
tree's ``prior`` *group* (the prior draws): ``tree["posterior"]["tpr"].sel(prior_choice=
"jeffreys")`` is the posterior under Jeffreys priors, ``tree["prior"]["tpr"].sel(prior_choice=
"jeffreys")`` the Jeffreys prior itself.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.confusion import ConfusionMatrix
from bayescm.core.streams import seed_sequence
from bayescm.models.fitting import fit

__all__ = ["PRIOR_DIM", "prior_sensitivity"]

PRIOR_DIM = "prior_choice"
"""Name of the dim that indexes the priors compared by :func:`prior_sensitivity`."""

_STACKED = ("posterior", "prior", "diagnostics", "observed_metrics")


def prior_sensitivity(
    data: ConfusionMatrix | Mapping[str, ConfusionMatrix],
    priors: Mapping[str, Any] | Sequence[str] | None = None,
    *,
    draws: int = 5000,
    chains: int = 4,
    random_seed: int | np.random.SeedSequence | np.random.Generator | None = None,
    **fit_kwargs: Any,
) -> xr.DataTree:
    """Fit the same data under several priors and stack the results along ``prior_choice``.

    Every fit uses the same random numbers (one seed sequence, whatever form ``random_seed``
    takes: an integer, None, a SeedSequence or a Generator), so differences between the slices
    come from the priors, not from Monte Carlo noise.

    Parameters
    ----------
    data : ConfusionMatrix or mapping of name -> ConfusionMatrix
        As in :func:`~bayescm.fit`.
    priors : mapping or sequence, optional
        ``{label: spec}``, where ``spec`` is anything :func:`~bayescm.fit` takes as ``prior``
        (``"laplace"``, ``bcm.Beta(2, 2)``, ...) or a mapping of ``fit`` arguments
        (``{"prior": "laplace", "tpr": bcm.Beta(9, 1)}``); a sequence of names is shorthand
        for ``{name: name}``. Default: Laplace, Jeffreys.
    draws, chains, random_seed
        As in :func:`~bayescm.fit`.
    **fit_kwargs
        Further arguments for every fit (``metrics``, ``method``, ``prevalence``, ...).

    Returns
    -------
    xarray.DataTree
        Groups ``posterior``, ``prior``, ``diagnostics`` and ``observed_metrics`` with a
        leading ``prior_choice`` dim (a group is left out when a fit lacks it, e.g. no
        ``prior`` group for Haldane; see the ``omitted_groups`` attribute), ``observed_data``
        once. Variables missing from a fit (``prevalence`` when fixed) are NaN in its slice.
        Root attribute ``priors`` maps each choice to its serialised priors.
        :func:`~bayescm.summary` labels rows like ``tpr[jeffreys]``.

    Raises
    ------
    TypeError
        A keyword that ``prior_sensitivity`` sets itself (``prior``, ``priors``).

    See Also
    --------
    prior_predictive : What each prior implies before any data.
    bayescm.plots.plot_priors : Draws the priors side by side.
    bayescm.summary : Each prior's posterior summaries (``prior_choice`` rows).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.analyses.sensitivity import prior_sensitivity
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=5, fn=0, tn=3, fp=0)
    >>> tree = prior_sensitivity(cm, ["laplace", "jeffreys"], random_seed=0, draws=1000)
    >>> tree["posterior"]["tpr"].dims
    ('prior_choice', 'chain', 'draw')
    >>> means = tree["posterior"]["tpr"].mean(["chain", "draw"])
    >>> bool(means.sel(prior_choice="jeffreys") > means.sel(prior_choice="laplace"))
    True
    """
    specs = _specs(priors)
    for reserved in ("prior", "data", "draws", "chains", "random_seed"):
        if reserved in fit_kwargs:
            raise TypeError(f"{reserved!r} is set by prior_sensitivity; give priors via "
                            "priors={label: spec}.")
    seq = seed_sequence(random_seed)  # one sequence shared by every fit
    fits = {}
    for label, spec in specs.items():
        kwargs = dict(fit_kwargs)
        if isinstance(spec, Mapping):  # priors keyed by parameter (and perhaps a preset)
            keyed = {k: v for k, v in spec.items() if k != "prior"}
            if "prior" in spec:
                kwargs["prior"] = spec["prior"]
            if keyed:
                kwargs["priors"] = {**dict(kwargs.get("priors") or {}), **keyed}
        else:
            kwargs["prior"] = spec
        fits[label] = fit(data, draws=draws, chains=chains, random_seed=seq, **kwargs)
    labels = list(fits)
    groups: dict[str, xr.Dataset] = {}
    omitted = []
    for name in _STACKED:
        if all(box.has_group(t, name) for t in fits.values()):
            parts = [box.get_group(t, name) for t in fits.values()]
            stacked = xr.concat(parts, dim=PRIOR_DIM, join="outer", data_vars="all",
                                coords="minimal", compat="override", combine_attrs="drop")
            groups[name] = stacked.assign_coords({PRIOR_DIM: labels}).transpose(PRIOR_DIM, ...)
            groups[name].attrs.update(parts[0].attrs)
        elif any(box.has_group(t, name) for t in fits.values()):
            omitted.append(name)
    first = fits[labels[0]]
    groups["observed_data"] = box.get_group(first, "observed_data")
    attrs = box.root_attrs(first)
    attrs["priors"] = box.json_attr({lab: box.read_json_attr(t, "priors")
                                     for lab, t in fits.items()})
    attrs["method"] = box.json_attr({lab: t.attrs["method"] for lab, t in fits.items()})
    attrs["prior_choices"] = box.json_attr(labels)
    if omitted:
        attrs["omitted_groups"] = box.json_attr(omitted)
    return box.make_tree(groups, attrs)


def _specs(priors: Mapping[str, Any] | Sequence[str] | None) -> dict[str, Any]:
    if priors is None:
        return {"laplace": "laplace", "jeffreys": "jeffreys"}
    if isinstance(priors, str):
        raise TypeError(f"priors must be a mapping or a list of names, got the string {priors!r}; "
                        f"e.g. priors=[{priors!r}, 'jeffreys'].")
    if isinstance(priors, Mapping):
        specs = {str(k): v for k, v in priors.items()}
    elif isinstance(priors, Sequence) and all(isinstance(p, str) for p in priors):
        specs = {p: p for p in priors}
    else:
        raise TypeError("priors must be a mapping {label: prior} or a list of prior names, "
                        f"got {priors!r}.")
    if not specs:
        raise ValueError("priors is empty; give at least one prior to fit.")
    if len(specs) != len(list(priors)):
        raise ValueError("prior labels must be unique.")
    return specs
