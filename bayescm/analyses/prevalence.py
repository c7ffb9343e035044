"""Exchanging the prevalence: a classifier's metrics at the prevalence where it will be deployed.

The model separates what the *test set* contributes (the prevalence) from what the *classifier*
contributes (TPR and TNR, or the multiclass prediction rates). Metrics such as PPV, NPV,
accuracy or F1 depend on both, so a test set curated to 50 % positives says little about the
PPV of a screening test applied where 1 % are positive (paper, section "Model").
:func:`with_prevalence` keeps the posterior of the classifier-intrinsic parameters, replaces the
prevalence with the deployment prevalence (a number, a prior or draws) and recomputes ``theta``
and every metric with the model kind's own ``derive`` and the metric catalogue.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.arguments import keyword_checked
from bayescm.core.exact import draw_beta, draw_dirichlet
from bayescm.core.streams import generator
from bayescm.metrics.metric import Metric
from bayescm.models import registry
from bayescm.models.context import FitContext, assemble
from bayescm.models.pipeline import DIAGNOSTIC_METHODS, diagnostic_variables, sample_array
from bayescm.priors import Beta, Dirichlet, Fixed, prior_to_dict, resolve_prior
from bayescm.priors.protocol import Family

__all__ = ["with_prevalence"]


class _Deployment:
    """The new prevalence: a Fixed value, or draws from a prior or given by the user."""

    def __init__(self, spec: Any, kind: Any) -> None:
        self.kind = kind
        self.k = len(kind.labels)
        self.multiclass = kind.parameter("prevalence").family is Family.DIRICHLET
        self.fixed: Fixed | None = None
        self.prior: Any = None
        self.draws: np.ndarray | None = None
        self.description: dict[str, Any]
        self._parse(spec)

    def _parse(self, spec: Any) -> None:
        if isinstance(spec, xr.DataArray):
            self._set_draws(spec.transpose("chain", "draw", ...).values
                            if "chain" in spec.dims else spec.values)
            return
        if isinstance(spec, str):
            spec = resolve_prior(spec, "the deployment prevalence")
        if isinstance(spec, Fixed):
            self._set_fixed(spec.value)
            return
        if isinstance(spec, Beta):
            if self.multiclass:
                raise TypeError(
                    "A multiclass prevalence is a vector of class shares: give a sequence of "
                    f"{self.k} shares that sum to 1, a bcm.Dirichlet, or draws."
                )
            if not spec.proper:
                raise ValueError("The deployment prevalence needs a proper prior; the Haldane "
                                 "prior cannot be sampled.")
            self.prior = spec
            self.description = prior_to_dict(spec)
            return
        if isinstance(spec, Dirichlet):
            if not self.multiclass:
                raise TypeError("A binary prevalence is one proportion: give a number, a "
                                "bcm.Beta, or draws (bcm.Dirichlet is for multiclass results).")
            if not spec.proper:
                raise ValueError("The deployment prevalence needs a proper Dirichlet prior.")
            spec.vector(self.k)  # raises on a wrong length
            self.prior = spec
            self.description = prior_to_dict(spec)
            return
        if isinstance(spec, bool) or not _numeric(spec):
            raise TypeError(
                f"prevalence must be a number{' vector' if self.multiclass else ''}, a prior "
                f"({'bcm.Dirichlet' if self.multiclass else 'bcm.Beta'}) or an array of draws, "
                f"got {spec!r}."
            )
        arr = np.asarray(spec, dtype=float)
        if arr.ndim == 0 and self.multiclass:
            self._set_fixed(arr.item())  # raises: a multiclass prevalence is a vector
        if (arr.ndim == 0 and not self.multiclass) or (
                self.multiclass and arr.ndim == 1 and arr.size == self.k):
            self._set_fixed(arr.item() if arr.ndim == 0 else arr)
            return
        self._set_draws(arr)

    def _set_fixed(self, value: Any) -> None:
        if self.multiclass and np.ndim(value) == 0:
            raise ValueError(
                f"A multiclass prevalence is a vector of {self.k} class shares summing to 1, "
                f"got the single number {value}."
            )
        if not self.multiclass and np.ndim(value) != 0:
            raise ValueError("A binary prevalence is one number in (0, 1); use an array of "
                             "draws of shape (chain, draw) for an uncertain prevalence.")
        try:
            self.fixed = Fixed(value)
        except ValueError as exc:
            raise ValueError(f"Invalid deployment prevalence: {exc}") from None
        self.description = self.fixed.to_dict()

    def _set_draws(self, arr: np.ndarray) -> None:
        arr = np.asarray(arr, dtype=float)
        if not np.all(np.isfinite(arr)) or np.any(arr < 0) or np.any(arr > 1):
            raise ValueError("Prevalence draws must be finite proportions in [0, 1].")
        if self.multiclass:
            if arr.ndim < 2 or arr.shape[-1] != self.k:
                raise ValueError(
                    f"Multiclass prevalence draws need a last axis of {self.k} classes, got "
                    f"shape {arr.shape}."
                )
            if not np.allclose(arr.sum(axis=-1), 1.0, atol=1e-6):
                raise ValueError("Each multiclass prevalence draw must sum to 1 over classes.")
        self.draws = arr
        self.description = {"dist": "draws", "name": "draws", "size": int(arr.size)}

    def sample(self, rng: np.random.Generator, chains: int, draws: int) -> np.ndarray | None:
        """Prevalence draws shaped ``(chains, draws)`` (+ class axis), or None if fixed."""
        if self.fixed is not None:
            return None
        if self.prior is not None:
            if self.multiclass:
                return draw_dirichlet(rng, self.prior.vector(self.k), chains, draws)
            return draw_beta(rng, self.prior.alpha, self.prior.beta, chains, draws)
        arr = self.draws
        assert arr is not None
        event = (self.k,) if self.multiclass else ()
        lead = arr.shape[: arr.ndim - len(event)]
        if lead == (chains, draws):
            return arr
        if lead == (chains * draws,):
            return arr.reshape((chains, draws) + event)
        raise ValueError(
            f"Prevalence draws of shape {arr.shape} do not match the {chains} chains x {draws} "
            f"draws of the result; give shape {(chains, draws) + event} or "
            f"{(chains * draws,) + event}, or a prior such as "
            f"{'bcm.Dirichlet' if self.multiclass else 'bcm.Beta'} to draw from."
        )

    def point(self, batch: int) -> np.ndarray | None:
        """A point value for the observed-metrics group: the fixed value or the mean."""
        if self.fixed is not None:
            return None
        if self.prior is not None:
            mean = (self.prior.vector(self.k) / self.prior.vector(self.k).sum()
                    if self.multiclass else np.asarray(self.prior.mean))
        else:
            assert self.draws is not None
            axes = tuple(range(self.draws.ndim - (1 if self.multiclass else 0)))
            mean = self.draws.mean(axis=axes)
        return np.broadcast_to(mean, (batch,) + np.shape(mean)).copy()

    def prior_for_derive(self, old: Any) -> Any:
        return self.fixed if self.fixed is not None else {"dist": "deployment"}


def _numeric(value: Any) -> bool:
    try:
        arr = np.asarray(value)
    except Exception:
        return False
    return arr.dtype.kind in "iuf"


@keyword_checked
def with_prevalence(
    idata: xr.DataTree,
    prevalence: Any,
    *,
    metrics: Iterable[str | Metric] | str | Metric | None = None,
    random_seed: int | np.random.Generator | None = None,
) -> xr.DataTree:
    """The result at another prevalence: classifier posterior kept, every metric recomputed.

    TPR and TNR (multiclass: the rates ``P(pred | true)``) are properties of the classifier and
    keep their posterior draws; the prevalence is replaced by the deployment prevalence, and
    ``theta`` and all metrics are derived again draw by draw. PPV at the new prevalence ``pi``
    is therefore Bayes' rule, ``pi TPR / (pi TPR + (1 - pi)(1 - TNR))``, for each draw.

    Parameters
    ----------
    idata : xarray.DataTree
        A result of :func:`~bayescm.fit` (binary or multiclass, single or batch).
    prevalence : float, sequence, prior or array of draws
        * a number in (0, 1) (binary) or a vector of class shares summing to 1 (multiclass),
          or :class:`~bayescm.Fixed`: a known prevalence (stored in ``constant_data``, as
          ``fit`` does with a fixed prevalence);
        * a :class:`~bayescm.Beta` (binary) or :class:`~bayescm.Dirichlet` (multiclass) prior:
          an uncertain prevalence, drawn independently of the classifier's parameters;
        * draws, shape ``(chain, draw)`` or ``(chain * draw,)`` (plus a class axis for
          multiclass), or a DataArray with ``chain`` and ``draw`` dims (e.g. the posterior
          prevalence of another fit).

        One deployment prevalence applies to every classifier of a batch (prior draws are
        shared, so classifiers are compared in the same population).
    metrics : list of str or Metric, optional
        Metrics to recompute; default the fit's. Custom :class:`~bayescm.Metric` objects are not
        stored in the tree: if the fit had some, pass them here (an error says so otherwise).
    random_seed : int or numpy Generator, optional
        Seed for the prevalence draws of a prior.

    Returns
    -------
    xarray.DataTree
        A new tree with the same groups: ``posterior`` (intrinsic parameters unchanged, the new
        prevalence, ``theta`` and metrics), ``prior`` (the same for the prior draws),
        ``diagnostics``, ``observed_metrics`` (observed rates at the deployment prevalence, or
        its mean for a prior or draws), ``observed_data`` (the test-set counts) and
        ``constant_data`` for a fixed value. Root attributes ``deployment_prevalence`` and
        ``test_set_prevalence`` record both; ``priors`` carries the deployment prevalence.
        A ``posterior_predictive`` group of the input is dropped (it belonged to the test set).

    Raises
    ------
    ValueError
        A prevalence outside (0, 1), a vector that does not sum to 1, draws of the wrong shape,
        or custom metrics in the fit without ``metrics=``.

    See Also
    --------
    bayescm.fit : ``prevalence=bcm.Fixed(...)`` for a curated test set.

    Examples
    --------
    A screening test with TPR and TNR near 0.9 on a 50/50 test set, deployed at 1 % prevalence:

    >>> import bayescm as bcm
    >>> from bayescm.analyses.prevalence import with_prevalence
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=90, fn=10, tn=90, fp=10)
    >>> idata = bcm.fit(cm, priors={"prevalence": bcm.Fixed(0.5)}, random_seed=0, draws=1000)
    >>> deployed = with_prevalence(idata, 0.01)
    >>> round(float(idata["posterior"]["ppv"].mean()), 1)
    0.9
    >>> round(float(deployed["posterior"]["ppv"].mean()), 2)
    0.08
    """
    kind = registry.kind_of(idata, "with_prevalence",
                            remedy="Use the fit of one classifier's matrix instead.")
    if kind.pooled_groups:  # per-group, pooled and new-group rates
        from bayescm.analyses.prevalence_groups import groups_with_prevalence

        rng, _ = generator(random_seed)
        return groups_with_prevalence(idata, _Deployment(prevalence, kind), rng,
                                      None if metrics is None else list(
                                          [metrics] if isinstance(metrics, (str, Metric))
                                          else metrics))
    ctx = FitContext.from_tree(idata, "with_prevalence", metrics,
                               remedy="Use the fit of one classifier's matrix instead.")
    kind = ctx.kind
    rng, _ = generator(random_seed)
    deployment = _Deployment(prevalence, kind)
    priors = {**ctx.priors,
              "prevalence": deployment.prior_for_derive(ctx.priors.get("prevalence"))}
    selected = ctx.metrics
    intrinsic = [p for p in kind.prior_arguments if p != "prevalence"]

    post = box.get_group(idata, "posterior")
    batched = ctx.batched
    coords = ctx.coords(post.sizes["chain"], post.sizes["draw"])
    groups = {name: box.copy_group(idata, name) for name in idata.children
              if name not in {"posterior_predictive", "posterior", "prior", "observed_metrics"}}

    post_vars = _exchange(ctx, post, priors, deployment, rng, intrinsic, batched, ctx.undefined())
    method = str(post.attrs.get("method", ctx.method))
    attrs = {**post.attrs, "deployment_prevalence": box.json_attr(deployment.description)}
    groups["posterior"] = box.make_dataset(post_vars, coords, attrs)
    r_method, e_method = DIAGNOSTIC_METHODS.get(method, DIAGNOSTIC_METHODS["exact"])
    old_diag = groups.get("diagnostics")
    groups["diagnostics"] = box.make_dataset(
        diagnostic_variables(post_vars, r_method, e_method), coords,
        old_diag.attrs if old_diag is not None else {})

    if box.has_group(idata, "prior"):
        prior_ds = box.get_group(idata, "prior")
        prior_batched = "classifier" in prior_ds.dims
        groups["prior"] = box.make_dataset(
            _exchange(ctx, prior_ds, priors, deployment, rng, intrinsic, prior_batched),
            ctx.coords(prior_ds.sizes["chain"], prior_ds.sizes["draw"]), prior_ds.attrs)

    assert ctx.counts is not None
    obs_params, _ = kind.observed(ctx.counts, priors)
    point = deployment.point(ctx.counts.shape[0])
    if point is not None:
        obs_params["prevalence"] = point
    groups["observed_metrics"] = box.make_dataset(
        ctx.name_variables(kind.derive(obs_params, priors, selected), ()), coords,
        {"note": "observed rates (counts) at the deployment prevalence "
                 + ("" if point is None else "(its mean) ")
                 + "; NaN means undefined (0/0), inf unbounded"})

    constant = {str(k): v.variable for k, v in groups.pop("constant_data", xr.Dataset()).items()
                if k != "prevalence"}
    if deployment.fixed is not None:
        constant["prevalence"] = xr.Variable(kind.param_dims("prevalence"),
                                             np.asarray(deployment.fixed.value),
                                             {"long_name": "fixed deployment prevalence"})
    groups["constant_data"] = box.make_dataset(
        {k: (tuple(str(d) for d in v.dims), v.values, v.attrs) for k, v in constant.items()},
        coords)
    if not constant:
        del groups["constant_data"]  # nothing fixed: the assembler must not add the test set's

    fit_priors = {k: prior_to_dict(v) for k, v in ctx.priors.items()}
    return assemble(ctx.replace(priors={k: v for k, v in ctx.priors.items()
                                        if k != "prevalence"}), groups,
                    test_set_prevalence=box.json_attr(fit_priors.get("prevalence")),
                    deployment_prevalence=box.json_attr(deployment.description),
                    priors=box.json_attr({**fit_priors, "prevalence": deployment.description}))


def _exchange(ctx: FitContext, ds: xr.Dataset, priors: dict[str, Any],
              deployment: _Deployment, rng: np.random.Generator, intrinsic: list[str],
              batched: bool, skip: Any = None) -> dict[str, Any]:
    """Derive ``theta`` and metrics from ``ds``'s intrinsic draws and the new prevalence."""
    missing = [p for p in intrinsic if p not in ds]
    if missing:
        raise ValueError(f"The result lacks the classifier parameters {missing}; "
                         "with_prevalence needs a tree from bcm.fit.")
    chains, draws = ds.sizes["chain"], ds.sizes["draw"]
    params = {p: np.array(sample_array(ds[p], ctx.kind, p, batched))  # own copy
              for p in intrinsic}
    new = deployment.sample(rng, chains, draws)
    if new is not None:
        batch = next(iter(params.values())).shape[2]
        new = np.expand_dims(new, 2)  # shared by the whole batch
        params["prevalence"] = np.broadcast_to(
            new, new.shape[:2] + (batch,) + new.shape[3:]).copy()
    return ctx.name_variables(ctx.kind.derive(params, priors, ctx.metrics, skip=skip),
                              box.SAMPLE_DIMS, "keep" if batched else "drop")
