"""The kind ``"hierarchical_multiclass"``: runs, folds or seeds of a multiclass classifier, pooled.

``bcm.fit({fold: ConfusionMatrix}, model="hierarchical", group="fold")`` with matrices of more
than two classes fits this kind (the binary matrices go to the bivariate model of
:mod:`bayescm.models.hierarchical`). The model, for runs ``g`` and true classes ``k``:

- each run's prediction rates of class ``k`` are Dirichlet around the population's,
  ``r_gk ~ Dirichlet(c_k m_k)`` with ``c_k = 1 / spread_k^2``; each run's class shares likewise,
  ``p_g ~ Dirichlet(c_p pi)`` with ``c_p = 1 / prevalence_spread^2``;
- the counts are multinomial given them, so with the runs' rates integrated out a run's row is
  Dirichlet-multinomial: NUTS samples only the population (``rates`` = ``m``, ``prevalence`` =
  ``pi``, ``spread``, ``prevalence_spread``), whatever the number of items;
- given a population draw, each run's rates are Dirichlet(``c_k m_k + n_gk``) exactly (conjugate),
  drawn with NumPy.

``spread_k`` is roughly the between-run SD of a rate in units of ``sqrt(m (1 - m))``: 0.05 means
an accuracy near 0.9 varies by about 0.015 from run to run. Its default prior,
HalfNormal(0.2), leaves room for runs that differ by several points and for runs that agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescm.metrics.multiclass import MULTICLASS_METRICS
from bayescm.models.base import ModelKind, Parameter
from bayescm.models.registry import register

if TYPE_CHECKING:
    import pymc as pm

__all__ = ["MULTICLASS_HIERARCHICAL_PARAMETERS", "MulticlassHierarchicalModel", "default_spread"]

MULTICLASS_HIERARCHICAL_PARAMETERS = ("prevalence", "rates", "spread", "prevalence_spread")
"""Parameters whose priors can be swapped (``priors={name: prior}``)."""

CELL_DIMS = ("true_class", "pred_class")


def default_spread() -> Any:
    """The default prior of ``spread`` and ``prevalence_spread``: HalfNormal(0.2).

    Examples
    --------
    >>> from bayescm.models.hierarchical_multiclass import default_spread
    >>> default_spread()
    HalfNormal(sigma=0.2)
    """
    from bayescm.priors import HalfNormal

    return HalfNormal(0.2)


@register
class MulticlassHierarchicalModel(ModelKind):
    """Multiclass matrices of several runs (folds, seeds, sites), partially pooled.

    Fitted with ``bcm.fit(matrices, model="hierarchical", group="fold")`` when the matrices
    have more than two classes (NUTS on the population, 4 x 1,000 draws by default); priors
    are keyed by :data:`MULTICLASS_HIERARCHICAL_PARAMETERS`. Its result holds every multiclass
    metric per run (dim named by ``group``), at the population (``<metric>_mean``), for a new
    run (``<metric>_new``) and the between-run SD of each scalar metric (``<metric>_sd``).

    Examples
    --------
    >>> from bayescm.models.hierarchical_multiclass import MulticlassHierarchicalModel
    >>> MulticlassHierarchicalModel.has_exact, MulticlassHierarchicalModel.pooled_groups
    (False, True)
    """

    key = "hierarchical_multiclass"
    standard_pipeline = False
    accepts_matrices = True
    description = "a hierarchical (partially pooled) fit of multiclass runs"
    default_draws = 1000
    metric_family = "multiclass"
    parameters = (
        Parameter("prevalence", ("class",), "class prevalence (share of each true class)",
                  None),
        Parameter("rates", CELL_DIMS, "prediction rates: P(predicted class | true class)",
                  None),
        Parameter("spread", ("true_class",),
                  "between-run spread of each class's rates (1 / sqrt(concentration))", None),
        Parameter("prevalence_spread", (), "between-run spread of the class shares", None),
    )
    analyses = frozenset({"summary", "informedness", "prob_superior", "rank_probabilities"})
    figures = ("group_forest",)
    pooled_groups = True
    catalogue = MULTICLASS_METRICS

    def __init__(self, labels: Sequence[Any], group: str | None = None,
                 ordered: bool = False) -> None:
        super().__init__(labels)
        self.group = group
        self.ordered = bool(ordered)

    @classmethod
    def from_data(cls, data: Any) -> MulticlassHierarchicalModel:
        """Multiclass matrices keyed by run name."""
        from bayescm.core.confusion import as_batch

        if not isinstance(data, Mapping):
            raise TypeError("model='hierarchical' needs a mapping {run name: ConfusionMatrix}, "
                            f"got {type(data).__name__}.")
        _, mats = as_batch(data)
        if len(mats) < 2:
            raise ValueError("model='hierarchical' pools several runs; give at least two "
                             "matrices.")
        return cls(mats[0].coords, ordered=mats[0].ordered)

    @property
    def batch_dims(self) -> tuple[str, ...]:
        """The group dim (named by the user)."""
        return (self.group or "classifier",)

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any], labels: Sequence[Any]
                   ) -> MulticlassHierarchicalModel:
        """Labels, the group dim's name and the ``ordered`` flag."""
        return cls(labels, group=attrs.get("group"), ordered=bool(attrs.get("ordered", 0)))

    def root_attrs(self) -> dict[str, Any]:
        """The group dim's name and ``ordered``."""
        out: dict[str, Any] = {"group": self.group} if self.group else {}
        return {**out, **({"ordered": 1} if self.ordered else {})}

    def coords(self) -> dict[str, Any]:
        """Coordinates of the class dims."""
        return {"true_class": self.labels, "pred_class": self.labels, "class": self.labels}

    def resolve_priors(self, prior: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """The population's priors: multiclass Dirichlets (default ``"weak"``) and spreads.

        ``prior=`` a preset sets ``prevalence`` and ``rates`` as for a single matrix;
        ``priors={"spread": bcm.priors.HalfNormal(0.1)}`` (or a PreliZ or pymc-extras prior
        on the positive reals) sets a spread.
        """
        from bayescm.priors import resolve_nuts_prior
        from bayescm.priors.multiclass import resolve_multiclass_priors

        out = resolve_multiclass_priors(self.labels, prior, overrides.get("prevalence"),
                                        overrides.get("rates"))
        for name in ("prevalence", "rates"):
            if getattr(out[name], "fixed", False) or not getattr(out[name], "proper", True):
                raise TypeError(f"The population's {name} needs a proper Dirichlet prior (e.g. "
                                f"'weak', 'laplace', bcm.Dirichlet(...)), got {out[name]!r}.")
        for name in ("spread", "prevalence_spread"):
            given = overrides.get(name)
            out[name] = default_spread() if given is None else resolve_nuts_prior(
                given, name, "positive", scalar=True)
        return out

    def build_pymc(self, names: list[str] | None, counts: np.ndarray,
                   priors: Mapping[str, Any]) -> pm.Model:
        """The population model of ``(G, K, K)`` counts (see the module docstring)."""
        from bayescm.models.hierarchical_multiclass_fit import build_multiclass_hierarchical

        return build_multiclass_hierarchical(list(names or range(len(counts))), counts,
                                             self.group or "classifier", self.labels, priors)

    def observed(self, counts: np.ndarray, priors: Mapping[str, Any]
                 ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Each run's observed class shares and rates, and ``theta = counts / N``."""
        from bayescm.models.multiclass import MulticlassModel

        return MulticlassModel(self.labels).observed(counts, {})

    def derive(self, params: Mapping[str, np.ndarray], priors: Mapping[str, Any],
               selected: Sequence[Any], theta: np.ndarray | None = None,
               skip: Any = None) -> Any:
        """Metrics of runs given their ``prevalence`` and ``rates`` (the multiclass model's)."""
        from bayescm.models.multiclass import MulticlassModel
        from bayescm.priors import Weak

        return MulticlassModel(self.labels, ordered=self.ordered).derive(
            params, {"prevalence": Weak()}, selected, theta, skip)

    def select_metrics(self, selected: Sequence[Any], priors: Mapping[str, Any]) -> list[Any]:
        """The multiclass model's choice (ordered-only metrics need ordered classes)."""
        from bayescm.models.multiclass import MulticlassModel

        return MulticlassModel(self.labels, ordered=self.ordered).select_metrics(
            selected, {})

    def fit(self, ctx: Any, options: Mapping[str, Any]) -> Any:
        """NUTS on the population, then every run's rates in closed form, then the tree."""
        from bayescm.models.hierarchical_multiclass_fit import fit_multiclass_hierarchical
        from bayescm.models.pooled import check_group_name

        options = dict(options)
        self.group = check_group_name(options.pop("group", None), "hierarchical",
                                      (*MULTICLASS_HIERARCHICAL_PARAMETERS, "class"))
        if ctx.method not in ("auto", "nuts"):
            raise ValueError(f"The hierarchical model is sampled with NUTS; "
                             f"method={ctx.method!r} is not available for it.")
        return fit_multiclass_hierarchical(ctx, self.group, options)

    @classmethod
    def example(cls, random_seed: int = 0) -> Any:
        """Five folds of a three-class classifier, 2 x 500 NUTS draws (PyMC's sampler)."""
        from bayescm.core.confusion import ConfusionMatrix
        from bayescm.models.fitting import fit

        rows = [[[40, 6, 2], [5, 30, 7], [1, 6, 33]], [[38, 8, 1], [6, 28, 8], [2, 5, 34]],
                [[42, 4, 3], [4, 33, 5], [1, 8, 30]], [[37, 7, 3], [7, 29, 6], [0, 6, 35]],
                [[41, 5, 2], [5, 31, 6], [2, 4, 34]]]
        folds = {f"fold{i + 1}": ConfusionMatrix(r, labels=["a", "b", "c"])
                 for i, r in enumerate(rows)}
        return fit(folds, model="hierarchical", group="fold", draws=500, tune=500, chains=2,
                   nuts_sampler="pymc", cores=1, random_seed=random_seed)
