r"""pass@k of an items fit: the chance that at least one (or all) of k attempts succeeds.

For a system whose success probability on an item is ``p`` and whose attempts are independent
given the item, ``k`` attempts succeed at least once with probability ``1 - (1 - p)^k``
(pass@k, Chen et al. 2021) and every time with probability ``p^k`` ("all k succeed", the
pass^k of agent benchmarks). Averaged

* over a **new item** from the population (the random effects integrated out per draw by
  Gauss-Hermite quadrature): ``pass_at_k`` and ``pass_all_k``, any ``k``;
* over **these items** (the fitted ``p[s, i]`` of each item, per draw): ``pass_at_k_items``
  and ``pass_all_k_items``, for the ``k`` the fit stores
  (:data:`bayescm.models.items_density.K_GRID`: 1 to 10, 16 and 20).

Both are posteriors, so their intervals carry the uncertainty of a small benchmark; the
observed per-item estimate of Chen et al., ``1 - C(n - c, k) / C(n, k)``, needs ``n >= k``
attempts of every item, these do not.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
import xarray as xr

from bayescm.core import container as box
from bayescm.core.arguments import keyword_checked

__all__ = ["pass_at_k"]


def _ks(k: Any) -> np.ndarray:
    values = [k] if isinstance(k, (int, np.integer)) else list(k) if isinstance(
        k, Iterable) and not isinstance(k, (str, bytes)) else None
    if values is None or not values or any(
            isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)) or v < 1
            for v in values):
        raise ValueError(f"k must be a positive integer or a list of them (e.g. k=[1, 5]), "
                         f"got {k!r}.")
    return np.array(sorted(set(int(v) for v in values)), dtype=np.int64)


@keyword_checked
def pass_at_k(idata: xr.DataTree, k: int | Iterable[int] = (1, 5)) -> xr.Dataset:
    """Posterior pass@k and "all k succeed" of every system of an items fit, over a ``k`` dim.

    Parameters
    ----------
    idata : xarray.DataTree
        A result of ``bcm.fit(bcm.Items(...))``.
    k : int or list of int, default (1, 5)
        Numbers of attempts.

    Returns
    -------
    xarray.Dataset
        Dims ``chain, draw`` (, ``system``), ``k``: ``pass_at_k`` and ``pass_all_k`` for a new
        item from the population; ``pass_at_k_items`` and ``pass_all_k_items`` over these
        items (present when every ``k`` is one the fit stores). ``pass_at_k`` at ``k = 1`` is
        the ``accuracy`` of the fit.

    Raises
    ------
    ValueError
        A result that is not an items fit, or a ``k`` that is not a positive integer.

    See Also
    --------
    bayescm.Items : The evaluation log.
    bayescm.fit : Fits it.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.items import ItemsModel
    >>> idata = ItemsModel.example()
    >>> out = bcm.pass_at_k(idata, k=[1, 5])
    >>> sorted(out.data_vars)
    ['pass_all_k', 'pass_all_k_items', 'pass_at_k', 'pass_at_k_items']
    >>> gap = out["pass_at_k"].sel(k=1) - idata["posterior"]["accuracy"]
    >>> bool(abs(gap).max() < 1e-4)
    True
    """
    from bayescm.models import registry
    from bayescm.models.items import ItemsModel
    from bayescm.models.items_density import K_GRID
    from bayescm.models.items_estimands import pass_new

    kind = registry.kind_of(idata)
    if not isinstance(kind, ItemsModel):
        raise ValueError(f"pass_at_k needs an items fit (bcm.fit(bcm.Items(...))); this is "
                         f"{kind.description or 'a ' + kind.key}.")
    ks = _ks(k)
    post = box.get_group(idata, "posterior")
    mu = post["mu_logit"]
    lead = [str(d) for d in mu.dims]
    tau2 = xr.zeros_like(mu)
    for name in ("sd_cluster", "sd_item", "sd_system_item"):
        if name in post:
            tau2 = tau2 + post[name] ** 2
    tau = np.sqrt(np.asarray(tau2.transpose(*lead).values, dtype=float))
    at_least, every = pass_new(np.asarray(mu.transpose(*lead).values, dtype=float), tau, ks)
    coords: dict[str, Any] = {d: post[d].values for d in lead if d in post.coords}
    coords["k"] = ks
    variables: dict[str, Any] = {
        "pass_at_k": ((*lead, "k"), at_least, {"long_name": "pass@k of a new item: at least "
                                                            "one of k attempts succeeds"}),
        "pass_all_k": ((*lead, "k"), every, {"long_name": "all k attempts succeed, on a new "
                                                           "item"})}
    if set(ks.tolist()) <= set(K_GRID):
        picks = [K_GRID.index(int(v)) for v in ks]
        for name, stored in (("pass_at_k_items", "pass_items"), ("pass_all_k_items",
                                                                  "all_items")):
            da = post[stored].isel(k=picks).assign_coords(k=ks)
            variables[name] = ((*lead, "k"), np.asarray(da.transpose(*lead, "k").values),
                               {"long_name": f"{post[stored].attrs.get('long_name', name)}"})
    return box.make_dataset(variables, coords, {
        "note": "pass_at_k / pass_all_k: a new item from the population (random effects "
                "integrated out); *_items: averaged over these items"})
