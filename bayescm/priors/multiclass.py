"""Priors of the multiclass model: resolving the user's choice into K-vectors and K x K rates.

A prior is asked what it means for K classes (``for_classes``, ``concentration``) instead of
being looked up in type tables: the presets know their Dirichlets (see
:mod:`bayescm.priors.presets`), a :class:`~bayescm.Dirichlet` checks its length, ``Fixed`` is only
valid for the prevalence, and any other ``create_variable`` factory is sampled with NUTS.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bayescm.priors.dirichlet import Dirichlet
from bayescm.priors.protocol import PriorSpec
from bayescm.priors.rates_by_class import RatesByClass
from bayescm.priors.resolve import resolve_prior

__all__ = ["preset_row", "resolve_multiclass_priors"]


def preset_row(prior: Any, k: int, row: int) -> np.ndarray | None:
    """Row ``row`` of a row-wise preset's rates concentration, or None for other priors.

    ``weak``: ``2 / K`` on the correct class, ``2 / K`` spread over the wrong ones;
    ``laplace``: 1 and 1; ``jeffreys``: 1/2 and 1/2 (a Beta on each row's correct rate).

    Parameters
    ----------
    prior : object
        A prior; only the row-wise presets (``weak``, ``laplace``, ``jeffreys``) have rows.
    k : int
        Number of classes.
    row : int
        The true class whose row is wanted (its correct class is entry ``row``).

    Returns
    -------
    ndarray of float, shape (k,) or None
        The concentration of that row, or None for a prior that is not a row-wise preset.

    See Also
    --------
    resolve_multiclass_priors : Builds the rates prior from such rows.
    bayescm.Weak : The multiclass default and its rows.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.priors.multiclass import preset_row
    >>> preset_row(bcm.priors.Laplace(), 3, 0).tolist()
    [1.0, 0.5, 0.5]
    """
    row_mass = getattr(prior, "row_mass", None)
    if row_mass is None or row_mass(k) is None:
        return None
    return prior.concentration(k, "rates")[row]


def conjugate_rows(value: Any, parameter: str, k: int, role: str = "prevalence") -> Any:
    """A prior for a K-vector (``role="prevalence"``) or the K x K rates (``"rates"``).

    bayescm priors convert themselves (``for_classes``): presets become Dirichlets (the row-wise
    presets a :class:`RatesByClass` for the rates); a Beta other than a preset and vectors of the
    wrong length raise. Other factories are returned as they are.
    """
    p = resolve_prior(value, parameter)
    convert = getattr(p, "for_classes", None)
    return p if convert is None else convert(k, role, parameter)


def _is_row_list(value: Any) -> bool:
    return isinstance(value, Mapping) or (isinstance(value, (list, tuple)) and len(value) > 0
                                          and not np.isscalar(value[0]))


def rates_prior(value: Any, default: Any, labels: Sequence[str]) -> Any:
    k = len(labels)
    if value is None:
        value = default
    if not _is_row_list(value):
        return conjugate_rows(value, "rates", k, role="rates")
    if isinstance(value, Mapping):
        keyed = {str(key): v for key, v in value.items()}
        unknown = sorted(set(keyed) - set(labels))
        if unknown:
            raise ValueError(f"rates priors given for unknown classes {unknown}; the classes "
                             f"are {list(labels)}.")
        rows = [keyed.get(label, default) for label in labels]
    else:
        rows = list(value)
        if len(rows) != k:
            raise ValueError(f"rates needs one prior per true class: got {len(rows)} for "
                             f"{k} classes.")
    vectors, names = [], []
    for i, (v, label) in enumerate(zip(rows, labels, strict=True)):
        parameter = f"rates[{label}]"
        p = resolve_prior(v, parameter)
        if getattr(p, "family", None) is None or getattr(p, "fixed", False):
            raise TypeError("Per-class rates priors must be Dirichlets or preset names; "
                            "give a single create_variable prior for the whole rates "
                            "matrix instead.")
        if preset_row(p, k, i) is None:
            p = p.for_classes(k, "prevalence", parameter)  # a Beta other than a preset raises
        vectors.append(p.concentration(k, "rates")[i])
        names.append(p.name)
    return RatesByClass(np.stack(vectors), names)


def resolve_multiclass_priors(labels: Sequence[str], prior: Any = None,
                              prevalence: Any = None, rates: Any = None) -> dict[str, Any]:
    """Merge the default ``prior`` with the ``prevalence`` and ``rates`` overrides, validated.

    Parameters
    ----------
    labels : sequence of str
        Class labels (their number K sets the length of every concentration vector).
    prior : str or prior, optional
        Prior of every parameter not given separately; default ``"weak"`` (see
        :class:`bayescm.Weak`). The named presets keep their meaning at every K:
        ``"laplace"`` / ``"jeffreys"`` put a uniform / Jeffreys Beta on each row's correct rate
        with the error mass spread evenly over the wrong classes (so they are the binary
        presets at K = 2); ``"weak"`` is ``"laplace"`` with its strength divided by K / 2;
        ``"flat"`` is the Dirichlet(1) on every cell; ``"haldane"`` Dirichlet(0).
    prevalence : prior, optional
        Dirichlet, preset name, ``Fixed`` vector of K class shares, or a custom factory.
    rates : prior, list or mapping, optional
        A prior for every row of the rates, or one per true class (a list of K priors or a
        ``{label: prior}`` mapping; classes left out get ``prior``).

    Returns
    -------
    dict
        ``{"prevalence": ..., "rates": ...}``.

    Raises
    ------
    ValueError
        A :class:`~bayescm.Fixed` prior for the rates, or a fixed prevalence whose length is not
        the number of classes.

    See Also
    --------
    resolve_prior : Turns one prior argument into a prior object.
    preset_row : A preset's row of the rates.
    bayescm.fit : Resolves its priors this way.

    Examples
    --------
    >>> from bayescm.priors.multiclass import resolve_multiclass_priors
    >>> chosen = resolve_multiclass_priors(["a", "b", "c"], "jeffreys", prevalence=[1, 2, 3])
    >>> chosen["prevalence"], chosen["rates"].alpha[0].tolist()
    (Dirichlet(alpha=(1.0, 2.0, 3.0)), [0.5, 0.25, 0.25])
    """
    k = len(labels)
    if getattr(prior, "fixed", False):
        raise ValueError("Fixed can only be given for the prevalence: use "
                         "prevalence=bcm.Fixed([...]).")
    base = resolve_prior("weak" if prior is None else prior, "the default prior")
    default = conjugate_rows(base, "the default prior", k)
    if prevalence is not None and not isinstance(prevalence, (str, PriorSpec)) \
            and numeric_vector(prevalence):
        prevalence = Dirichlet(prevalence)
    prev = default if prevalence is None else conjugate_rows(prevalence, "prevalence", k)
    if getattr(prev, "fixed", False) and prev.shape != (k,):
        n = int(np.prod(prev.shape))
        raise ValueError(f"The fixed prevalence has {n} entries but the matrix has "
                         f"{k} classes {list(labels)}; give one share per class.")
    return {"prevalence": prev, "rates": rates_prior(rates, base, labels)}


def numeric_vector(value: Any) -> bool:
    try:
        arr = np.asarray(value)
    except Exception:
        return False
    return arr.ndim == 1 and arr.dtype.kind in "iuf"


def concentration_of(prior: Any, shape: tuple[int, ...]) -> np.ndarray:
    """Concentration of a conjugate prior broadcast to ``shape`` (``(K,)`` or ``(K, K)``)."""
    role = "rates" if len(shape) == 2 else "prevalence"
    return np.broadcast_to(prior.concentration(shape[-1], role), shape)


def check_proper(posterior_alpha: np.ndarray, prior: Any, parameter: str, labels: Sequence[str],
                  counts_desc: str, names: list[str] | None, empty_rows: np.ndarray) -> None:
    """Raise naming the parameter, class and classifier where a posterior alpha is 0."""
    bad = posterior_alpha <= 0
    if not bad.any():
        return
    empty = empty_rows.reshape(empty_rows.shape + (1,) * (bad.ndim - 2))
    idx = np.unravel_index(int(np.argmax(bad.astype(int) + (bad & empty))), bad.shape)
    who = f" of classifier {names[idx[0]]!r}" if names is not None else ""
    cls = [labels[int(i)] for i in idx[1:]]
    where = f"{parameter}[{', '.join(map(str, cls))}]"
    why = f"{counts_desc}[{', '.join(map(str, cls))}] = 0"
    if empty_rows[idx[0], idx[1]]:
        why += f" (class {cls[0]!r} never occurs: its row is empty)"
    raise ValueError(
        f"The {getattr(prior, 'name', 'improper')} prior on {where}{who} gives an improper "
        f"posterior because {why}. Use a proper prior (e.g. prior='jeffreys' or "
        f"{parameter}='laplace')."
    )


def prevalence_variable(name: str, prior: Any, event_shape: tuple[int, ...], dims: tuple[str, ...],
                      full_shape: tuple[int, ...]) -> Any:
    """A PyMC probability vector (last axis) with ``prior``, shaped ``full_shape``.

    bayescm priors make their own variable (``create_variable(name, dims)``: a Dirichlet, or for
    a concentration with zeros a flat prior on additive log-ratios). Other factories are called
    as ``create_variable(name)`` and must produce the dims ``dims``.
    """
    import pymc as pm

    if isinstance(prior, PriorSpec):
        return prior.create_variable(name, dims=dims)
    var = prior.create_variable(name)
    made = tuple(pm.modelcontext(None).named_vars_to_dims.get(name) or ())
    if var.ndim != len(full_shape) or made != tuple(dims):
        raise ValueError(
            f"The custom prior for {name} created a variable with dims {made or None} "
            f"({var.ndim} dimension(s)); it must have dims {tuple(dims)}, e.g. "
            f"Prior('Dirichlet', a=..., dims={tuple(dims)!r}). This is checked before "
            "sampling."
        )
    return var
