"""The items model as a PyMC model: to inspect or extend, and to sample any prior.

The same model as the written-out density of :mod:`bayescm.models.items_density`, in PyMC:
what ``bcm.build_model(items)`` returns, and what a fit samples when a prior is not one the
written-out density knows (a pymc-extras ``Prior``, another PreliZ family) or when
``nuts_sampler="pymc"`` is asked for. The counts are ``pm.Data``, so ``pm.set_data`` refits
new outcomes of the same items without building the model again.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pymc as pm

    from bayescm.core.items import Items

__all__ = ["build_items_model", "scales_of"]


def scales_of(data: Items) -> tuple[str, ...]:
    """The random-effect scales a log identifies.

    A cluster scale with clusters, the item scale always, a system-by-item scale with several
    systems.

    Examples
    --------
    >>> import pandas as pd, bayescm as bcm
    >>> from bayescm.models.items_build import scales_of
    >>> scales_of(bcm.Items(pd.DataFrame({"item_id": [1, 2], "correct": [1, 0]})))
    ('sd_item',)
    """
    out = []
    if data.cluster_index is not None:
        out.append("sd_cluster")
    out.append("sd_item")
    if data.n_systems > 1:
        out.append("sd_system_item")
    return tuple(out)


def build_items_model(data: Items, priors: Mapping[str, Any]) -> pm.Model:
    """The PyMC model of an item-level log (non-centred random effects).

    Free variables: ``mu_logit`` (dim ``system``), the scales of :func:`scales_of`, and the
    standardised effects ``z_cluster``, ``z_item``, ``z_system_item``. Deterministics:
    ``accuracy_items`` (dim ``system``) and ``difficulty`` (dim ``item``). Data: ``successes``
    and ``attempts`` (dims ``system, item``).

    Examples
    --------
    >>> import pandas as pd, bayescm as bcm
    >>> from bayescm.models.items import ItemsModel
    >>> from bayescm.models.items_build import build_items_model
    >>> items = bcm.Items(pd.DataFrame({"item_id": [1, 1, 2, 2], "system": ["a", "b"] * 2,
    ...                                 "correct": [1, 0, 1, 1]}), system="system")
    >>> model = build_items_model(items, ItemsModel.default_priors())
    >>> sorted(v.name for v in model.free_RVs)
    ['mu_logit', 'sd_item', 'sd_system_item', 'z_item', 'z_system_item']
    """
    import pymc as pm

    scales = scales_of(data)
    coords: dict[str, Any] = {"system": data.systems, "item": data.items}
    if data.clusters is not None:
        coords["cluster"] = data.clusters
    with pm.Model(coords=coords) as model:
        y = pm.Data("successes", data.successes, dims=("system", "item"))
        n = pm.Data("attempts", data.attempts, dims=("system", "item"))
        mu = priors["mu_logit"].create_variable("mu_logit", dims="system")
        item_effect = priors["sd_item"].create_variable("sd_item") * pm.Normal(
            "z_item", 0.0, 1.0, dims="item")
        if "sd_cluster" in scales:
            z_c = pm.Normal("z_cluster", 0.0, 1.0, dims="cluster")
            index = np.asarray(data.cluster_index)
            item_effect = item_effect + priors["sd_cluster"].create_variable("sd_cluster") * \
                z_c[index]
        eta = mu[:, None] + item_effect[None, :]
        if "sd_system_item" in scales:
            eta = eta + priors["sd_system_item"].create_variable("sd_system_item") * pm.Normal(
                "z_system_item", 0.0, 1.0, dims=("system", "item"))
        pm.Binomial("outcomes", n=n, logit_p=eta, observed=y, dims=("system", "item"))
        pm.Deterministic("accuracy_items", pm.math.invlogit(eta).mean(axis=1), dims="system")
        pm.Deterministic("difficulty", -item_effect, dims="item")
    return model
