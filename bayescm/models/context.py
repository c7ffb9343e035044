"""One context, one assembler: what a fit knows, and the one function that builds result trees.

:class:`FitContext` holds what a fit knows (the kind, priors, metrics, labels, batch names,
counts, draws, chains, interval probability, seed). It is built from ``fit``'s arguments
(:meth:`FitContext.from_arguments`) or read back from a result tree
(:meth:`FitContext.from_tree`), so an analysis that starts from a fitted tree (prevalence
exchange, the predictive distributions) and a refit of a loaded tree
(:func:`bayescm.refit`) need none of the original objects. :func:`assemble` turns groups and
the context into a tree with the root attributes every result carries.

Examples
--------
>>> import bayescm as bcm
>>> from bayescm.models.context import FitContext
>>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), draws=100)
>>> ctx = FitContext.from_tree(idata)
>>> ctx.kind.key, ctx.counts.tolist(), ctx.draws
('binary', [[[26, 0], [2, 6]]], 100)
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.deprecation import warn_deprecated
from bayescm.core.stats import hdi_prob_for
from bayescm.core.streams import record, seed_from_attrs, seed_sequence
from bayescm.core.validate import check_int
from bayescm.metrics.catalogue import resolve_metrics
from bayescm.metrics.metric import Metric
from bayescm.metrics.multiclass import undefined_classes
from bayescm.models import registry
from bayescm.models.base import Derived, ModelKind
from bayescm.priors import from_dict, prior_to_dict

__all__ = ["FitContext", "assemble", "checked_overrides", "diagnostic_names"]

_DERIVED_ATTRS = ("bayescm_version", "model", "priors", "hdi_prob", "labels", "metrics", "draws",
                  "chains", "positive", "ordered", "created_at", "creation_library",
                  "creation_library_version")
"""Root attributes the context writes itself (the rest is provenance carried along)."""


def diagnostic_names(method: str) -> list[str]:
    """Labels of the ``diagnostic`` dim: R-hat and the ESS named by its estimator.

    NUTS draws get the rank-normalised bulk ESS (``ess_bulk``, as ArviZ); independent draws
    (the exact and bootstrap paths) the Geyer ESS of the raw split chains (``ess_mean``).

    Examples
    --------
    >>> diagnostic_names("exact"), diagnostic_names("nuts")
    (['r_hat', 'ess_mean'], ['r_hat', 'ess_bulk'])
    """
    return ["r_hat", "ess_bulk" if method == "nuts" else "ess_mean"]


def checked_overrides(kind: ModelKind, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Per-parameter priors of a kind; a name it does not have raises a TypeError.

    Examples
    --------
    >>> from bayescm.models import registry
    >>> kind = registry.get("binary")(["yes", "no"])
    >>> checked_overrides(kind, {"rates": "laplace"})
    Traceback (most recent call last):
    ...
    TypeError: ['rates'] are not parameters of the binary model; ...
    """
    unknown = [k for k, v in overrides.items() if k not in kind.prior_arguments and v is not None]
    if unknown:
        raise TypeError(
            f"{unknown} are not parameters of the {kind.key} model; its priors are set with "
            f"priors={{...}} keyed by {', '.join(kind.prior_arguments)} (valid keys).")
    return {k: v for k, v in overrides.items() if k in kind.prior_arguments}


def decoded_priors(idata: xr.DataTree) -> dict[str, Any]:
    """The fit's priors rebuilt from the tree's attributes (:func:`bayescm.priors.from_dict`).

    A prior that cannot be rebuilt (a custom factory stored by its description, or a form this
    version does not know) stays the stored dict: it is not fixed, which is all an analysis of
    the tree needs to know of it (:func:`bayescm.refit` asks for it again).
    """
    raw = box.read_json_attr(idata, "priors") if "priors" in idata.attrs else {}
    out: dict[str, Any] = {}
    for name, spec in raw.items():
        try:
            out[name] = from_dict(spec, parameter=name)
        except (ValueError, TypeError):
            out[name] = spec
    return out


def merged_priors(priors: Mapping[str, Any] | None, keywords: Mapping[str, Any]
                  ) -> dict[str, Any]:
    """``priors={...}`` merged with the per-parameter keywords (both for one is an error).

    The keywords (``fit(cm, tpr=...)``) are the deprecated spelling of ``priors={"tpr": ...}``:
    they still work in this release, with a DeprecationWarning.
    """
    if priors is not None and not isinstance(priors, Mapping):
        raise TypeError(f"priors must be a mapping {{parameter: prior}}, got {priors!r}.")
    both = [k for k, v in keywords.items() if v is not None and k in (priors or {})]
    if both:  # an error first: no deprecation notice for a call that fails anyway
        raise ValueError(f"The prior of {both[0]} is given twice (priors={{...}} and "
                         f"{both[0]}=); give it once.")
    given = sorted(k for k, v in keywords.items() if v is not None)
    if given:
        old = ", ".join(f"{k}=..." for k in given)
        new = ", ".join(f"{k!r}: ..." for k in given)
        warn_deprecated(f"Giving a prior as a keyword (fit({old}))",
                        f"fit(priors={{{new}}}): one way to give priors per parameter")
    if priors is None:
        return {k: v for k, v in keywords.items() if v is not None}
    return {**{k: v for k, v in keywords.items() if v is not None}, **dict(priors)}


@dataclasses.dataclass
class FitContext:
    """What a fit knows: the kind, its priors and metrics, the data and the sampling settings.

    Attributes
    ----------
    kind : ModelKind
        The model kind bound to the class labels.
    priors : dict
        Every parameter's prior (resolved).
    metrics : list of Metric
        The metrics computed besides the parameters.
    counts : numpy.ndarray or None
        Observed counts, shape ``(B, K, K)`` (None for kinds fitted from other data).
    names : list of str or None
        Batch (classifier) names; None for a single matrix.
    draws, chains : int
        Draws per chain and chains.
    hdi_prob : float
        The result's default interval probability.
    method : str
        ``"auto"``, ``"exact"`` or ``"nuts"`` (kinds may have their own).
    seed : numpy.random.SeedSequence
        The seed sequence every stream of the fit derives from.
    data : object
        The input as given (kept for kinds fitted from other data, e.g. scores).
    provenance : dict
        Root attributes read from a tree that the context does not derive (method, seed
        record, notes); carried into trees derived from it.
    """

    kind: ModelKind
    priors: dict[str, Any]
    metrics: list[Metric]
    counts: np.ndarray | None
    names: list[str] | None
    draws: int
    chains: int
    hdi_prob: float
    method: str = "auto"
    seed: np.random.SeedSequence = dataclasses.field(default_factory=np.random.SeedSequence)
    data: Any = None
    provenance: dict[str, Any] = dataclasses.field(default_factory=dict)

    # ------------------------------------------------------------ building
    @classmethod
    def from_arguments(cls, data: Any, *, model: str = "auto", prior: Any = None,
                       priors: Mapping[str, Any] | None = None,
                       keywords: Mapping[str, Any] | None = None, metrics: Any = None,
                       draws: int | None = None, chains: int = 4, hdi_prob: float | None = None,
                       method: str = "auto", random_seed: Any = None) -> FitContext:
        """The context of ``fit(data, ...)``: the kind, resolved priors and metrics, counts."""
        from bayescm.core.confusion import as_batch

        kind = registry.for_data(data, model)
        names, counts = None, None
        if kind.accepts_matrices:
            names, mats = as_batch(data)
            counts = np.stack([cm.counts for cm in mats])
        keywords = dict(keywords or {})
        checked_overrides(kind, keywords)  # a name that is no parameter: an error, not a
        # deprecated spelling of a prior (merged_priors would warn about it first)
        overrides = checked_overrides(kind, merged_priors(priors, keywords))
        resolved = kind.resolve_priors(prior, overrides)
        selected = kind.select_metrics(
            resolve_metrics(metrics, kind.catalogue, kind.metric_family), resolved)
        return cls(kind=kind, priors=resolved, metrics=selected, counts=counts, names=names,
                   draws=check_int(kind.default_draws if draws is None else draws, "draws", 1),
                   chains=check_int(chains, "chains", 1),
                   hdi_prob=hdi_prob_for(hdi_prob), method=method,
                   seed=seed_sequence(random_seed), data=data)

    @classmethod
    def from_tree(cls, idata: xr.DataTree, analysis: str | None = None,
                  metrics: Iterable[str | Metric] | str | Metric | None = None,
                  remedy: str = "") -> FitContext:
        """The context a result tree was made with (checked for ``analysis`` if given).

        Custom metrics cannot be rebuilt from a tree (their functions are not stored): when the
        fit had some and ``metrics`` is not given, a ValueError says how to pass them.
        """
        kind = registry.kind_of(idata, analysis, remedy)
        attrs = box.root_attrs(idata)
        priors = decoded_priors(idata)
        what = analysis or "this analysis"
        if metrics is None and "metrics" in attrs:
            names = box.read_json_attr(idata, "metrics")
            custom = [n for n in names if n not in kind.catalogue]
            if custom:
                raise ValueError(
                    f"The fit computed the custom metrics {custom}, whose functions are not "
                    f"stored in the tree, so {what} cannot recompute them. Pass metrics=[...] "
                    f"with the bcm.metrics.Metric objects (and any built-in names) to recompute, "
                    f"e.g. "
                    f"metrics=['ppv', my_metric], or metrics='all' for the built-in ones only.")
            metrics = names
        selected = kind.select_metrics(
            resolve_metrics(metrics, kind.catalogue, kind.metric_family), priors)
        ds = box.get_group(idata, "posterior" if box.has_group(idata, "posterior") else "prior")
        names_ = [str(v) for v in ds["classifier"].values] if "classifier" in ds.dims else None
        counts = None
        observed = (box.get_group(idata, "observed_data") if box.has_group(idata, "observed_data")
                    else None)
        if observed is not None and "counts" in observed:  # a calibration fit stores none
            da = observed["counts"]
            order = (["classifier"] if names_ is not None else []) + ["true_class",
                                                                     "pred_class"]
            counts = np.array(da.transpose(*order).values)
            counts = counts if names_ is not None else counts[None]
        seed = seed_from_attrs(attrs) or np.random.SeedSequence()
        return cls(kind=kind, priors=priors, metrics=selected, counts=counts, names=names_,
                   draws=int(attrs.get("draws", ds.sizes["draw"])),
                   chains=int(attrs.get("chains", ds.sizes["chain"])),
                   hdi_prob=hdi_prob_for(None, idata),
                   method=str(attrs.get("method", "auto")), seed=seed,
                   provenance={k: v for k, v in attrs.items() if k not in _DERIVED_ATTRS})

    def replace(self, **changes: Any) -> FitContext:
        """A copy with some fields changed."""
        return dataclasses.replace(self, **changes)

    # ------------------------------------------------------------ reading
    @property
    def batched(self) -> bool:
        """Whether the fit is a batch (a ``classifier`` dim)."""
        return self.names is not None

    @property
    def labels(self) -> list[str]:
        """Class labels in row order."""
        return self.kind.labels

    def coords(self, chains: int | None = None, draws: int | None = None) -> dict[str, Any]:
        """Coordinates of every dim a group of this fit can have."""
        coords: dict[str, Any] = {"chain": np.arange(self.chains if chains is None else chains),
                                  "draw": np.arange(self.draws if draws is None else draws),
                                  "diagnostic": diagnostic_names(self.method),
                                  **self.kind.coords()}
        if self.names is not None:
            coords["classifier"] = list(self.names)
        return coords

    def undefined(self) -> dict[str, np.ndarray] | None:
        """Per averaged metric, ``(B, K)``: True where it is undefined at the observed counts.

        The classes every average leaves out, observed and posterior alike
        (:func:`~bayescm.metrics.multiclass.undefined_classes`); None without counts.
        """
        if self.counts is None or self.counts.shape[-1] < 2:
            return None
        return undefined_classes(self.counts)

    def name_variables(self, derived: Derived, lead: tuple[str, ...], batch: str = "auto"
                       ) -> dict[str, tuple[tuple[str, ...], np.ndarray, dict[str, Any]]]:
        """Dims and long names of derived arrays whose axes are ``lead`` + batch + extra.

        ``batch``: ``"keep"`` the ``classifier`` axis, ``"drop"`` a length-1 axis of a single
        matrix (removed), ``"none"`` absent (a shared prior); ``"auto"``: keep for a batch,
        drop otherwise.
        """
        if batch == "auto":
            batch = "keep" if self.batched else "drop"
        long_names = {m.name: m.long_name for m in self.kind.catalogue.values()}
        long_names.update({m.name: m.long_name for m in self.metrics})
        long_names.update(self.kind.parameter_long_names)
        long_names["theta"] = "confusion probability matrix (rows true, columns predicted)"
        out = {}
        for name, (extra, arr) in derived.items():
            if batch == "drop":
                arr = arr[(slice(None),) * len(lead) + (0,)]
            dims = lead + (("classifier",) if batch == "keep" else ()) + extra
            out[name] = (dims, arr, {"long_name": long_names.get(name, name)})
        return out

    def root_attrs(self, **extra: Any) -> dict[str, Any]:
        """Root attributes: provenance, the kind and what rebuilds it, priors, metrics."""
        from bayescm._version import __version__

        attrs: dict[str, Any] = {
            **self.provenance,
            "bayescm_version": __version__,
            "model": self.kind.key,
            "priors": box.json_attr({k: prior_to_dict(v) for k, v in self.priors.items()}),
            "hdi_prob": self.hdi_prob,
            "metrics": box.json_attr([m.name for m in self.metrics]),
            "draws": self.draws,
            "chains": self.chains,
            **self.kind.root_attrs(),
        }
        if self.kind.labels:
            attrs["labels"] = box.json_attr(self.kind.labels)
        attrs.update(extra)
        return attrs

    def seed_record(self) -> dict[str, Any]:
        """The seed as root attributes (so ``random_seed=`` can redraw the fit)."""
        return record(self.seed)

    def matrices(self) -> Any:
        """The input matrices rebuilt from the counts (a mapping for a batch)."""
        from bayescm.core.confusion import ConfusionMatrix

        if self.counts is None:
            raise ValueError(f"A {self.kind.key} result holds no confusion matrices to refit.")
        positive = self.kind.root_attrs().get("positive")
        ordered = bool(getattr(self.kind, "ordered", False))

        def one(c: np.ndarray) -> ConfusionMatrix:
            return ConfusionMatrix(c, labels=self.kind.labels, positive=positive,
                                   ordered=ordered)

        if self.names is None:
            return one(self.counts[0])
        return {n: one(c) for n, c in zip(self.names, self.counts, strict=True)}


def constant_data(ctx: FitContext, coords: Mapping[str, Any]) -> xr.Dataset | None:
    """The ``constant_data`` group of fixed parameters (a fixed prevalence), or None."""
    fixed = {p: v for p, v in ctx.priors.items() if getattr(v, "fixed", False)}
    if not fixed:
        return None
    return box.make_dataset(
        {p: (ctx.kind.param_dims(p), np.asarray(v.value), {"long_name": f"fixed {p}"})
         for p, v in fixed.items()}, coords)


def observed_data(ctx: FitContext, coords: Mapping[str, Any] | xr.Coordinates) -> xr.Dataset:
    """The ``observed_data`` group: the counts."""
    assert ctx.counts is not None
    dims = (("classifier",) if ctx.batched else ()) + ("true_class", "pred_class")
    return box.make_dataset(
        {"counts": (dims, ctx.counts if ctx.batched else ctx.counts[0],
                    {"long_name": "confusion matrix counts (rows true, columns predicted)"})},
        coords)


def assemble(ctx: FitContext, groups: Mapping[str, xr.Dataset], *, owned: bool = False,
             **attrs: Any) -> xr.DataTree:
    """The result tree of ``groups`` with the context's root attributes.

    Adds ``observed_data`` (the counts) and ``constant_data`` (fixed parameters) when the
    groups lack them; ``attrs`` add to or override the root attributes. ``owned=True``: the
    groups were made for this tree and are held by nothing else (see
    :func:`~bayescm.core.container.make_tree`).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.context import FitContext, assemble
    >>> idata = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=5, fn=1, tn=4, fp=2), draws=50)
    >>> ctx = FitContext.from_tree(idata)
    >>> tree = assemble(ctx, {"posterior": idata["posterior"].to_dataset()})
    >>> sorted(tree.children)
    ['observed_data', 'posterior']
    """
    out = dict(groups)
    coords = ctx.coords()
    if "observed_data" not in out and ctx.counts is not None:
        out["observed_data"] = observed_data(ctx, coords)
    if "constant_data" not in out:
        fixed = constant_data(ctx, coords)
        if fixed is not None:
            out["constant_data"] = fixed
    return box.make_tree(out, ctx.root_attrs(**attrs), owned=owned)
