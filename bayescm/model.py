"""The statistical model of the binary confusion matrix (Tötsch & Hoffmann 2021, Fig. 1).

::

    prevalence ~ prior_prevalence      n_pos = TP + FN ~ Binomial(N, prevalence)  (dropped if fixed)
    tpr        ~ prior_tpr             TP ~ Binomial(TP + FN, tpr)
    tnr        ~ prior_tnr             TN ~ Binomial(TN + FP, tnr)
    theta      = [[prevalence * tpr,            prevalence * (1 - tpr)],
                  [(1 - prevalence) * (1 - tnr), (1 - prevalence) * tnr]]

This file holds the model twice, in the two forms the package needs: :func:`build_model` writes
it as a PyMC model (for NUTS and for analysts who extend it), and :func:`binary_cells` computes
``theta`` from parameter draws with NumPy (for the exact sampler and for every metric).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from .confusion import ConfusionMatrix, as_batch
from .priors import Beta, Fixed, Haldane, is_conjugate, resolve_prior

__all__ = ["BINARY_PARAMETERS", "build_model", "binary_cells", "resolve_binary_priors"]

BINARY_PARAMETERS = ("prevalence", "tpr", "tnr")


def resolve_binary_priors(
    prior: Any = "laplace", prevalence: Any = None, tpr: Any = None, tnr: Any = None
) -> dict[str, Any]:
    """Merge the default ``prior`` with per-parameter overrides and validate them.

    Examples
    --------
    >>> from bayescm.model import resolve_binary_priors
    >>> resolve_binary_priors("jeffreys", tpr="laplace")
    {'prevalence': Jeffreys(), 'tpr': Laplace(), 'tnr': Jeffreys()}
    """
    if isinstance(prior, Fixed):
        raise ValueError("Fixed can only be given for the prevalence: use prevalence=bcm.Fixed(...).")
    base = resolve_prior(prior, "the default prior")
    chosen = {"prevalence": prevalence, "tpr": tpr, "tnr": tnr}
    out: dict[str, Any] = {}
    for name, value in chosen.items():
        p = base if value is None else resolve_prior(value, name)
        if isinstance(p, Fixed) and name != "prevalence":
            raise ValueError(
                f"Only the prevalence can be fixed, not {name}; give {name} a Beta prior "
                "(e.g. bcm.Beta.from_mean(0.9, concentration=1000) for a near-certain value)."
            )
        if isinstance(p, Fixed) and not isinstance(p.value, float):
            raise ValueError("A binary model's fixed prevalence is a single number in (0, 1).")
        if not isinstance(p, (Beta, Fixed)) and is_conjugate(p):
            raise TypeError(f"{type(p).__name__} is not a prior for the binary model's {name}.")
        out[name] = p
    return out


def binary_cells(prevalence: Any, tpr: Any, tnr: Any) -> tuple[Any, Any, Any, Any]:
    """Cell probabilities ``(tp, fn, fp, tn)`` from the parameters (NumPy, broadcasting).

    Examples
    --------
    >>> from bayescm.model import binary_cells
    >>> [round(c, 2) for c in binary_cells(0.5, 0.8, 0.6)]
    [0.4, 0.1, 0.2, 0.3]
    """
    neg = 1.0 - prevalence
    return prevalence * tpr, prevalence * (1.0 - tpr), neg * (1.0 - tnr), neg * tnr


def _rv(name: str, prior: Any, dims: tuple[str, ...], n_batch: int | None) -> Any:
    import pymc as pm

    if isinstance(prior, Fixed):
        return pm.Data(name, np.full(n_batch, prior.value) if n_batch else prior.value, dims=dims)
    if isinstance(prior, Haldane):  # Beta(0, 0) is a flat prior on the log-odds
        logodds = pm.Flat(f"{name}_logodds", dims=dims)
        return pm.Deterministic(name, pm.math.sigmoid(logodds), dims=dims)
    if isinstance(prior, Beta):
        return pm.Beta(name, alpha=prior.alpha, beta=prior.beta, dims=dims)
    var = prior.create_variable(name)
    expected = 1 if n_batch else 0
    if var.ndim != expected:
        want = "the `classifier` dim (e.g. Prior(..., dims='classifier'))" if n_batch else "a scalar"
        raise ValueError(
            f"The custom prior for {name} created a variable with {var.ndim} dimension(s); "
            f"it must be {want}."
        )
    return var


def build_model(
    data: ConfusionMatrix | Mapping[str, ConfusionMatrix],
    prior: Any = "laplace",
    prevalence: Any = None,
    tpr: Any = None,
    tnr: Any = None,
) -> Any:
    """Build the PyMC model of a binary confusion matrix (or a batch of them).

    A fresh ``pm.Model`` is returned on every call. Free variables are ``prevalence``, ``tpr`` and
    ``tnr`` (a fixed prevalence is a constant ``pm.Data``, not a random variable, and its
    binomial likelihood is dropped); ``theta`` is a deterministic with dims
    ``(true_class, pred_class)``, led by ``classifier`` for a batch.

    Parameters
    ----------
    data : ConfusionMatrix or mapping of name -> ConfusionMatrix
        Binary matrices (with a positive class).
    prior : str or prior, default "laplace"
        Prior for every parameter not given separately.
    prevalence, tpr, tnr : str, prior, or object with ``create_variable``, optional
        Per-parameter priors; ``prevalence`` may be :class:`~bayescm.Fixed`.

    Returns
    -------
    pymc.Model

    See Also
    --------
    fit : samples this model (NUTS) or its closed-form posterior (exact).

    Examples
    --------
    >>> import bayescm as bcm
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    >>> model = bcm.build_model(cm, prevalence=bcm.Fixed(0.5))
    >>> sorted(rv.name for rv in model.free_RVs)
    ['tnr', 'tpr']
    """
    import pymc as pm
    import pytensor.tensor as pt

    names, mats = as_batch(data)
    if not mats[0].is_binary:
        raise NotImplementedError(
            "build_model currently handles binary matrices; pass positive=... for a 2x2 matrix."
        )
    priors = resolve_binary_priors(prior, prevalence, tpr, tnr)
    counts = np.stack([cm.counts for cm in mats])  # (B, 2, 2)
    tp, fn, fp, tn = counts[:, 0, 0], counts[:, 0, 1], counts[:, 1, 0], counts[:, 1, 1]
    labels = mats[0].coords
    coords: dict[str, Any] = {"true_class": labels, "pred_class": labels}
    dims: tuple[str, ...] = ()
    if names is None:
        tp, fn, fp, tn = (int(v[0]) for v in (tp, fn, fp, tn))
    else:
        coords["classifier"] = names
        dims = ("classifier",)
    n_batch = len(names) if names is not None else None
    with pm.Model(coords=coords) as model:
        prev = _rv("prevalence", priors["prevalence"], dims, n_batch)
        tpr_rv = _rv("tpr", priors["tpr"], dims, n_batch)
        tnr_rv = _rv("tnr", priors["tnr"], dims, n_batch)
        if not isinstance(priors["prevalence"], Fixed):
            pm.Binomial("n_pos", n=np.add(np.add(tp, fn), np.add(fp, tn)), p=prev,
                        observed=np.add(tp, fn), dims=dims)
        pm.Binomial("tp", n=np.add(tp, fn), p=tpr_rv, observed=tp, dims=dims)
        pm.Binomial("tn", n=np.add(tn, fp), p=tnr_rv, observed=tn, dims=dims)
        cells = binary_cells(prev, tpr_rv, tnr_rv)
        theta = pt.stack([pt.stack(cells[:2], axis=-1), pt.stack(cells[2:], axis=-1)], axis=-2)
        pm.Deterministic("theta", theta, dims=dims + ("true_class", "pred_class"))
    return model
