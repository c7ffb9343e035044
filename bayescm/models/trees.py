"""Private helpers shared by the analyses that read a fitted tree and derive new groups.

They rebuild, from a result tree alone, what :func:`bayescm.fit` knew while fitting: the model
kind, the batch names, the metric selection and which parameters were fixed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.metrics.base import Metric, resolve_metrics
from bayescm.models.binary import BinaryModel
from bayescm.models.pipeline import name_variables
from bayescm.priors import from_dict

Derived = Mapping[str, tuple[tuple[str, ...], np.ndarray]]


def kind_of(idata: xr.DataTree) -> Any:
    """The model kind object (binary or multiclass) of a result tree."""
    box.check_tree(idata)
    attrs = box.root_attrs(idata)
    if "labels" not in attrs or "model" not in attrs:
        raise ValueError("The tree lacks the 'model' and 'labels' attributes written by bcm.fit; "
                         "pass a result of bcm.fit.")
    labels = box.read_json_attr(idata, "labels")
    post = box.get_group(idata, "posterior") if box.has_group(idata, "posterior") else None
    if post is not None and "prior_choice" in post.dims:
        raise ValueError(
            "This is a prior_sensitivity result (a prior_choice dim): the analysis applies to one "
            "fit. Fit the data under the prior you want (bcm.fit(cm, prior=...)) and apply it "
            "to that result.")
    if attrs["model"] not in ("binary", "multiclass") or "comparison" in attrs:
        what = "a paired comparison" if "comparison" in attrs else f"a {attrs['model']!r} result"
        raise ValueError(f"This analysis needs a binary or multiclass fit of bcm.fit; this is "
                         f"{what}. Use the fit of one classifier's matrix instead.")
    if attrs["model"] == "binary":
        return BinaryModel(labels)
    from bayescm.models.multiclass import MulticlassModel

    return MulticlassModel(labels, ordered=bool(attrs.get("ordered", 0)))


def batch_names(ds: xr.Dataset) -> list[str] | None:
    """Classifier names of a batch, or None for a single matrix."""
    return [str(v) for v in ds["classifier"].values] if "classifier" in ds.dims else None


def decoded_priors(idata: xr.DataTree) -> dict[str, Any]:
    """The fit's priors rebuilt from the tree's attributes (:func:`bayescm.priors.from_dict`).

    A prior that cannot be rebuilt (a custom factory stored by its description, or a form this
    version does not know) stays the stored dict: the derivations only need to know which
    parameters were fixed.
    """
    raw = box.read_json_attr(idata, "priors") if "priors" in idata.attrs else {}
    out: dict[str, Any] = {}
    for name, spec in raw.items():
        try:
            out[name] = from_dict(spec, parameter=name)
        except (ValueError, TypeError):
            out[name] = spec
    return out


def selected_metrics(idata: xr.DataTree, kind: Any, priors: Mapping[str, Any],
                     metrics: Iterable[str | Metric] | str | Metric | None, what: str
                     ) -> list[Metric]:
    """Metrics to recompute: ``metrics`` if given, else the fit's (built-in ones only).

    Custom metrics cannot be rebuilt from the tree (their functions are not stored); when the
    fit had some and ``metrics`` is not given, raise an error that says how to pass them.
    """
    if metrics is None:
        names = box.read_json_attr(idata, "metrics") if "metrics" in idata.attrs else None
        if names is not None:
            custom = [n for n in names if n not in kind.catalogue]
            if custom:
                raise ValueError(
                    f"The fit computed the custom metrics {custom}, whose functions are not "
                    f"stored in the tree, so {what} cannot recompute them. Pass metrics=[...] "
                    "with the bcm.Metric objects (and any built-in names) to recompute, e.g. "
                    f"metrics=['ppv', my_metric], or metrics='all' for the built-in ones only."
                )
        metrics = names
    return kind.select_metrics(resolve_metrics(metrics, kind.catalogue, kind.name), priors)


def named(derived: Derived, lead: tuple[str, ...], batched: bool, kind: Any,
          selected: list[Metric]) -> dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, str]]]:
    """Dims and long names of derived arrays that carry a batch axis (length 1 if unbatched)."""
    return name_variables(derived, lead, "keep" if batched else "drop", kind, selected)


def coords_of(idata: xr.DataTree, kind: Any, ds: xr.Dataset) -> dict[str, Any]:
    """Coordinates for new datasets: sample dims of ``ds``, class dims, classifier names."""
    coords: dict[str, Any] = {"chain": ds["chain"].values, "draw": ds["draw"].values,
                              "diagnostic": ["r_hat", "ess_bulk"], **kind.coords()}
    names = batch_names(ds)
    if names is not None:
        coords["classifier"] = names
    return coords


def counts_of(idata: xr.DataTree, batched: bool) -> np.ndarray:
    """Observed counts as ``(B, K, K)``."""
    counts = box.get_group(idata, "observed_data")["counts"]
    order = (["classifier"] if batched else []) + ["true_class", "pred_class"]
    arr = np.asarray(counts.transpose(*order).values)
    return arr if batched else arr[None]
