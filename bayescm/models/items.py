r"""The registered kind ``"items"``: item-level evaluations with clusters, attempts and systems.

For an evaluation log (:class:`~bayescm.Items`: outcome ``y`` of system ``s`` on item ``i`` at
each attempt; items in clusters ``c(i)``) the model is a binomial GLMM on the sufficient
counts per (system, item)::

    logit p[s, i] = mu_logit[s] + u[c(i)] + v[i] + w[s, i]
    u ~ Normal(0, sd_cluster)   v ~ Normal(0, sd_item)   w ~ Normal(0, sd_system_item)
    successes[s, i] ~ Binomial(attempts[s, i], p[s, i])

written non-centred (``v = sd_item z_item`` and so on). The item effect ``v`` is shared by the
systems (correlated difficulty: differences between systems are paired), ``w`` lets them
disagree about an item, ``u`` makes the items of one cluster (a passage's questions) alike.
A log without clusters has no ``u``; a log of one system no ``w`` (it cannot be told apart from
``v`` then).

Default priors (logit scale): ``mu_logit ~ Normal(0, 3)``, each scale ``HalfNormal(2.5)``
(items of LLM benchmarks are often all-or-nothing: repeated attempts agree, which needs scales
of 2 to 4); swap them with ``priors={"sd_item": bcm.priors.HalfNormal(1), ...}`` (PreliZ and
pymc-extras priors are accepted).

The posterior holds two accuracies: ``accuracy`` (the expected accuracy on a *new* item from
the same population of items and clusters: the random effects integrated out, per draw, by
Gauss-Hermite quadrature; what a cluster-robust standard error targets) and ``accuracy_items``
(the mean of ``p[s, i]`` over *these* items: what more attempts of a fixed benchmark pin down;
it is narrower). Also ``icc_item``, ``icc_cluster`` (probability scale), ``design_effect`` and
``effective_n`` (:mod:`bayescm.models.items_estimands`), each item's ``difficulty`` (its
log-odds handicap shared by the systems), ``accuracy_diff`` and ``accuracy_items_diff`` over a
``pair`` dim (``"B - A"``: the later system minus the earlier one, for every pair), and the
``pass_items`` / ``all_items`` curves of :func:`bayescm.pass_at_k`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescm.core.items import Items
from bayescm.metrics.items import ITEM_METRICS
from bayescm.models.base import ModelKind, Parameter
from bayescm.models.registry import register

if TYPE_CHECKING:
    import pymc as pm
    import xarray as xr

__all__ = ["ITEMS_PARAMETERS", "ItemsModel"]

ITEMS_PARAMETERS = ("mu_logit", "sd_cluster", "sd_item", "sd_system_item")
"""Parameters whose priors can be swapped (``priors={name: prior}``)."""
_SUPPORT = {"mu_logit": "real", "sd_cluster": "positive", "sd_item": "positive",
            "sd_system_item": "positive"}
_LONG = {"mu_logit": "logit of the success probability on a typical item (random effects 0)",
         "sd_cluster": "standard deviation of the cluster effects (logit scale)",
         "sd_item": "standard deviation of the item effects shared by the systems (logit "
                    "scale)",
         "sd_system_item": "standard deviation of the system-by-item effects (logit scale)"}
_EXAMPLES: dict[int, Any] = {}


@register
class ItemsModel(ModelKind):
    """The registered kind ``"items"``: an item-level evaluation log (see the module notes).

    Fitted with ``bcm.fit(bcm.Items(...))`` (NUTS: nutpie on the written-out density when it
    is installed, PyMC's sampler otherwise; 4 x 1,000 draws by default).

    Parameters
    ----------
    labels : sequence of str
        The system names.
    clusters : bool
        Whether the log has clusters.
    named : bool
        Whether the systems were named (a ``system`` column): results then keep the ``system``
        dim even for one system.

    Examples
    --------
    >>> from bayescm.models.items import ItemsModel
    >>> ItemsModel.has_exact, ItemsModel(["a", "b"]).batch_dims
    (False, ('system',))
    """

    key = "items"
    standard_pipeline = False  # its own data and sampler
    own_data_model = True
    description = "an item-level evaluation fit"
    accepts_matrices = False
    default_draws = 1000
    metric_family = "items"
    parameters = tuple(Parameter(name, (), _LONG[name], None) for name in ITEMS_PARAMETERS)
    analyses = frozenset({"summary", "prob_superior", "rank_probabilities", "item_level"})
    figures = ("items_accuracy", "items_differences")
    catalogue = ITEM_METRICS

    def __init__(self, labels: Sequence[Any] = ("A",), clusters: bool = False,
                 named: bool = True, data: Items | None = None) -> None:
        super().__init__([])  # no classes: the systems are kept apart from class labels
        self.systems = [str(v) for v in labels]
        self.clusters = bool(clusters)
        self.named = bool(named)
        self.data = data

    @staticmethod
    def default_priors() -> dict[str, Any]:
        """``mu_logit ~ Normal(0, 3)`` and each scale ``HalfNormal(2.5)``.

        Examples
        --------
        >>> from bayescm.models.items import ItemsModel
        >>> ItemsModel.default_priors()["sd_item"]
        HalfNormal(sigma=2.5)
        """
        from bayescm.priors.continuous import HalfNormal, Normal

        return {"mu_logit": Normal(0.0, 3.0), "sd_cluster": HalfNormal(2.5),
                "sd_item": HalfNormal(2.5), "sd_system_item": HalfNormal(2.5)}

    @property
    def batch_dims(self) -> tuple[str, ...]:
        """The ``system`` dim."""
        return ("system",)

    def coords(self) -> dict[str, Any]:
        """No cell dims."""
        return {}

    def root_attrs(self) -> dict[str, Any]:
        """The systems, and whether the log had clusters and named systems."""
        import json

        return {"systems": json.dumps(self.systems), "has_clusters": int(self.clusters),
                "named_systems": int(self.named)}

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any], labels: Sequence[Any]) -> ItemsModel:
        """The systems, the clusters flag and the named flag."""
        import json

        systems = json.loads(attrs["systems"]) if "systems" in attrs else ["A"]
        if not isinstance(systems, list) or not systems:
            raise ValueError(f"the attribute 'systems' should list the systems, got {systems!r}")
        return cls(systems, bool(int(attrs.get("has_clusters", 0))),
                   bool(int(attrs.get("named_systems", 1))))

    @classmethod
    def accepts(cls, data: Any) -> bool:
        """An :class:`~bayescm.Items` log."""
        return isinstance(data, Items)

    @classmethod
    def from_data(cls, data: Any) -> ItemsModel:
        """The kind of an :class:`~bayescm.Items` log."""
        if not isinstance(data, Items):
            raise TypeError(f"The items model needs bcm.Items (an item-level evaluation log), "
                            f"got {type(data).__name__}.")
        return cls(data.systems, data.cluster_index is not None, data.named_systems, data)

    def select_metrics(self, selected: Sequence[Any], priors: Mapping[str, Any]) -> list[Any]:
        """None: every quantity of the catalogue is stored (they are not cell metrics)."""
        return []

    def resolve_priors(self, prior: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults merged under ``priors={...}``; only the scales the log has may be given.

        A scale's prior must keep it positive: bayescm's ``Normal`` (the whole real line) is
        refused for ``sd_*`` with the priors that fit (``HalfNormal``, ``LogNormal``).
        """
        from bayescm.priors import resolve_nuts_prior
        from bayescm.priors.continuous import Normal

        if prior is not None:
            raise ValueError("The items model's priors are set with priors={...} (keys: "
                             f"{', '.join(ITEMS_PARAMETERS)}), not prior=.")
        out = self.default_priors()
        absent = {"sd_cluster": not self.clusters, "sd_system_item": len(self.systems) < 2}
        for key, value in overrides.items():
            if value is None:
                continue
            if absent.get(key, False):
                why = ("the log has no clusters (cluster=)" if key == "sd_cluster" else
                       "one system has no system-by-item effects")
                raise ValueError(f"priors={{{key!r}: ...}}: {why}; drop that prior.")
            if _SUPPORT[key] == "positive" and isinstance(value, Normal):
                raise ValueError(f"priors={{{key!r}: {value!r}}}: {key} is a standard "
                                 "deviation (positive); give bcm.priors.HalfNormal(sigma) or "
                                 "bcm.priors.LogNormal(mu, sigma).")
            out[key] = resolve_nuts_prior(value, key, _SUPPORT[key], scalar=True)
        return {k: v for k, v in out.items() if not absent.get(k, False)}

    def build_pymc(self, names: list[str] | None, counts: np.ndarray | None,
                   priors: Mapping[str, Any]) -> pm.Model:
        """The PyMC model of the log (:func:`~bayescm.models.items_build.build_items_model`)."""
        from bayescm.models.items_build import build_items_model

        if self.data is None:
            raise ValueError("The items model is built from its log: bcm.build_model(items).")
        return build_items_model(self.data, priors)

    def observed(self, counts: Any, priors: Any) -> Any:
        """Not used: the fit computes the observed values from the log."""
        raise NotImplementedError

    def derive(self, params: Any, priors: Any, selected: Any, theta: Any = None,
               skip: Any = None) -> Any:
        """Not used: :mod:`bayescm.models.items_fit` derives the estimands."""
        raise NotImplementedError

    def fit(self, ctx: Any, options: Mapping[str, Any]) -> xr.DataTree:
        """NUTS on the log (:func:`bayescm.models.items_fit.fit_items`)."""
        from bayescm.models.items_fit import fit_items

        return fit_items(ctx, options)

    @classmethod
    def example(cls, random_seed: int = 0) -> xr.DataTree:
        """Two systems on 60 items in 15 passages, 3 attempts each (simulated), 4 x 250 draws.

        The fit is kept per seed for the process (a deep copy each call), as the hierarchical
        example.
        """
        if random_seed not in _EXAMPLES:
            from bayescm.models.fitting import fit

            _EXAMPLES[random_seed] = fit(Items(cls.example_frame(), cluster="passage",
                                               system="system", attempt="attempt"),
                                         draws=250, random_seed=random_seed)
        return _EXAMPLES[random_seed].copy(deep=True)

    @staticmethod
    def example_frame(random_seed: int = 0) -> Any:
        """The example's log: 15 passages of 4 questions, systems ``A`` and ``B``, 3 attempts.

        Examples
        --------
        >>> from bayescm.models.items import ItemsModel
        >>> frame = ItemsModel.example_frame()
        >>> frame.shape, sorted(frame.columns)
        ((360, 5), ['attempt', 'correct', 'item_id', 'passage', 'system'])
        """
        import pandas as pd
        from scipy.special import expit

        rng = np.random.default_rng(random_seed)
        passages, per, attempts = 15, 4, 3
        item = np.arange(passages * per)
        passage = item // per
        shared = rng.normal(0, 0.8, passages)[passage] + rng.normal(0, 1.5, item.size)
        rows = []
        for s, mu in (("A", 0.6), ("B", 1.2)):
            p = expit(mu + shared + rng.normal(0, 0.4, item.size))
            y = rng.random((attempts, item.size)) < p
            rows.append(pd.DataFrame({
                "item_id": np.tile([f"q{i:02d}" for i in item], attempts),
                "passage": np.tile([f"p{c:02d}" for c in passage], attempts),
                "system": s, "attempt": np.repeat(np.arange(1, attempts + 1), item.size),
                "correct": y.reshape(-1).astype(int)}))
        return pd.concat(rows, ignore_index=True)
