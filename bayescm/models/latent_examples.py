"""Trees laid out as latent class fits, from draws near the EM estimates (no NUTS).

For the figures' examples and the tests of what reads a fit: :func:`tree_near_em` passes
NumPy draws scattered around the maximum-likelihood estimates through the kind's own tree
assembly, in a fraction of a second. They are not posteriors.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["example_tree", "tree_near_em"]


def tree_near_em(data: Any, chains: int = 2, draws: int = 150, **options: Any) -> Any:
    """A tree laid out as a fit's, from NumPy draws scattered around the EM estimates.

    Not a posterior: no NUTS runs. The draws go through the kind's own tree assembly
    (:func:`~bayescm.models.hui_walter.results_tree`,
    :func:`~bayescm.models.dawid_skene.ratings_tree`), so the tree has every variable, the
    diagnostics and the attributes of a fit: what the documentation's figure examples and the
    tests of what reads a fit use, in a fraction of a second.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.latent_examples import tree_near_em
    >>> tree = tree_near_em(bcm.datasets.anesthesia())
    >>> tree.attrs["model"], tree["posterior"]["item_class"].shape
    ('dawid_skene', (2, 150, 45, 4))
    """
    import warnings

    import xarray as xr

    from bayescm.core.ratings import Ratings
    from bayescm.models.context import FitContext

    options.setdefault("random_seed", 0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ctx = FitContext.from_arguments(data, draws=draws, chains=chains, **options)
    rng = np.random.default_rng(9)
    size = (chains, draws)
    tree_of: Any
    if isinstance(data, Ratings):
        from bayescm.models.dawid_skene import dawid_skene_em, ratings_tree

        est = dawid_skene_em(data.counts, smoothing=1.0)
        out = {"prevalence": rng.dirichlet(200 * est["prevalence"] + 1, size),
               "rates": 0.2 * rng.dirichlet(np.ones(len(data.classes)),
                                            size + est["rates"].shape[:2])
               + 0.8 * est["rates"]}
        tree_of = ratings_tree
    else:
        from bayescm.models.hui_walter import results_tree
        from bayescm.models.hui_walter_build import hui_walter_em

        est = hui_walter_em(data)
        out = {k: np.clip(rng.normal(est[k], 0.01, size + est[k].shape), 0.001, 0.999)
               for k in ("prevalence", "tpr", "tnr")}
        tree_of = results_tree
    stats = xr.Dataset({"diverging": (("chain", "draw"), np.zeros(size, bool))})
    opts = {"nuts_sampler": "none (draws near the EM estimates)", "target_accept": 0.9}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return tree_of(ctx, out, stats, opts)


def example_tree() -> Any:
    """The anaesthesia ratings' tree from draws near the EM estimates (no NUTS; not a fit).

    For examples of figures: :func:`tree_near_em`.

    Examples
    --------
    >>> from bayescm.models.latent_examples import example_tree
    >>> example_tree().attrs["model"]
    'dawid_skene'
    """
    from bayescm.io.datasets import anesthesia
    return tree_near_em(anesthesia())
