"""``build_model``: the PyMC model of a confusion matrix, for NUTS and for analysts to extend.

The model kinds live in their own files: :mod:`bayescm.models.binary` (three Beta-Binomials) and
:mod:`bayescm.models.multiclass` (c + 1 Dirichlet-Multinomials). This module picks one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bayescm.core.confusion import ConfusionMatrix, as_batch
from bayescm.models.binary import BinaryModel, matrices_counts

__all__ = ["build_model", "model_kind"]


def model_kind(cm: ConfusionMatrix) -> Any:
    """The model kind object for a confusion matrix: binary with a positive class, else multiclass.

    Examples
    --------
    >>> import bayescm as bcm
    >>> model_kind(bcm.ConfusionMatrix.from_counts(tp=1, fn=2, tn=3, fp=4)).name
    'binary'
    """
    if cm.is_binary:
        return BinaryModel(cm.coords)
    from bayescm.models.multiclass import MulticlassModel

    return MulticlassModel(cm.coords, ordered=cm.ordered)


def build_model(
    data: ConfusionMatrix | Mapping[str, ConfusionMatrix],
    prior: Any = None,
    **parameter_priors: Any,
) -> Any:
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
    **parameter_priors
        Per-parameter priors: ``prevalence``, ``tpr``, ``tnr`` (binary) or ``prevalence``,
        ``rates`` (multiclass); ``prevalence`` may be :class:`~bayescm.Fixed`.

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
    names, mats = as_batch(data)
    kind = model_kind(mats[0])
    priors = kind.resolve_priors(prior, checked_overrides(kind, parameter_priors))
    return kind.build_pymc(names, matrices_counts(mats), priors)


def checked_overrides(kind: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
    """Per-parameter priors of a model kind; names it does not have raise a TypeError."""
    unknown = [k for k, v in overrides.items() if k not in kind.prior_arguments and v is not None]
    if unknown:
        raise TypeError(
            f"{unknown} are not parameters of the {kind.name} model; its priors are set with "
            f"{', '.join(kind.prior_arguments)} (valid keywords)."
        )
    return {k: v for k, v in overrides.items() if k in kind.prior_arguments}
