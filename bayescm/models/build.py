"""``build_model``: the PyMC model of a confusion matrix, for NUTS and for analysts to extend.

The model kinds live in their own files (:mod:`bayescm.models.binary`, three Beta-Binomials;
:mod:`bayescm.models.multiclass`, c + 1 Dirichlet-Multinomials; and the other registered kinds);
this module asks the registry for the kind of the data and builds its PyMC model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bayescm.core.arguments import keyword_checked
from bayescm.core.confusion import ConfusionMatrix
from bayescm.models import registry
from bayescm.models.base import ModelKind
from bayescm.models.context import FitContext

if TYPE_CHECKING:
    import pymc as pm

__all__ = ["build_model", "model_kind"]


def model_kind(cm: ConfusionMatrix) -> ModelKind:
    """The model kind of a confusion matrix (the registry's choice for ``model="auto"``).

    Examples
    --------
    >>> import bayescm as bcm
    >>> model_kind(bcm.ConfusionMatrix.from_counts(tp=1, fn=2, tn=3, fp=4)).key
    'binary'
    """
    return registry.for_data(cm)


@keyword_checked
def build_model(
    data: ConfusionMatrix | Mapping[str, ConfusionMatrix],
    prior: Any = None,
    *,
    priors: Mapping[str, Any] | None = None,
    model: str = "auto",
    group: str | None = None,
    **parameter_priors: Any,
) -> pm.Model:
    """Build the PyMC model of a confusion matrix (or a batch of them).

    A fresh ``pm.Model`` is returned on every call. Binary matrices get the free variables
    ``prevalence``, ``tpr`` and ``tnr``; a fixed prevalence is a constant ``pm.Data`` (not a
    random variable) and its binomial likelihood is dropped. Multiclass matrices get
    ``prevalence`` (dim ``class``) and ``rates`` (dims ``true_class, pred_class``). ``theta`` is
    a deterministic with dims ``(true_class, pred_class)``; a batch adds a leading
    ``classifier`` dim to everything.

    Parameters
    ----------
    data : ConfusionMatrix or mapping of name -> ConfusionMatrix
        One matrix or several of the same classes.
    prior : str or prior, optional
        Prior for every parameter not given separately; default Laplace (binary) or
        ``"weak"`` (K classes), as in :func:`~bayescm.fit`.
    priors : mapping of parameter name -> prior, optional
        Priors keyed by parameter, as in :func:`~bayescm.fit` (e.g. ``{"tpr": bcm.Beta(10, 2),
        "prevalence": bcm.Fixed(0.5)}``); unknown keys raise a TypeError naming the valid ones.
    model : str, default "auto"
        A registered model kind (:func:`bayescm.models.registry.keys`); ``"auto"`` picks the
        binary or multiclass model.
    group : str, optional
        The group dim's name of ``model="hierarchical"`` (as in :func:`~bayescm.fit`); only
        for that model.
    **parameter_priors
        The same per-parameter priors as keywords: ``prevalence``, ``tpr``, ``tnr`` (binary)
        or ``prevalence``, ``rates`` (multiclass); ``prevalence`` may be :class:`~bayescm.Fixed`.

    Returns
    -------
    pymc.Model
        A fresh model, not yet sampled: enter it (``with model:``) to add your own variables, or
        sample it with PyMC directly.

    Raises
    ------
    TypeError
        A prior for a parameter the model does not have.
    ValueError
        ``group`` that is not a name such as ``"site"``.

    See Also
    --------
    fit : Samples this model (NUTS) or its closed-form posterior (exact).

    Examples
    --------
    >>> import bayescm as bcm
    >>> cm = bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2)
    >>> model = bcm.build_model(cm, priors={"prevalence": bcm.Fixed(0.5)})
    >>> sorted(rv.name for rv in model.free_RVs)
    ['tnr', 'tpr']

    Several studies, partially pooled: the model's dims carry the group name, so a covariate
    (meta-regression) is a few lines in a ``with model:`` block (notebook 07 shows one):

    >>> from bayescm.models.hierarchical import HierarchicalModel
    >>> model = bcm.build_model(HierarchicalModel.example_sites(), model="hierarchical",
    ...                         group="site")
    >>> model.named_vars_to_dims["tpr"], model.named_vars_to_dims["z"]
    (('site',), ('site', 'logit'))
    """
    ctx = FitContext.from_arguments(data, model=model, prior=prior, priors=priors,
                                    keywords=parameter_priors, draws=1)
    if ctx.counts is None and not ctx.kind.own_data_model:
        raise TypeError(f"The {ctx.kind.key} model is not built from confusion matrices.")
    if group is not None:
        if not ctx.kind.pooled_groups:
            raise TypeError(f"group= names the groups of model='hierarchical'; the "
                            f"{ctx.kind.key} model has none (drop group=).")
        if not isinstance(group, str) or not group.isidentifier():
            raise ValueError(f"group must be a name such as 'site' or 'study', got {group!r}.")
        ctx.kind.group = group  # type: ignore[attr-defined]
    return ctx.kind.build_pymc(ctx.names, ctx.counts, ctx.priors)  # type: ignore[arg-type]
