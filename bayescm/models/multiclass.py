"""The multiclass model (Tötsch & Hoffmann 2021, "c + 1 multinomials"): K + 1 Dirichlets.

::

    prevalence ~ Dirichlet(alpha_prev)        row sums ~ Multinomial(N, prevalence)
    rates[k]   ~ Dirichlet(alpha_rates[k])    counts[k, :] ~ Multinomial(row sum k, rates[k])
    theta[k, l] = prevalence[k] * rates[k, l]

With Dirichlet priors the posterior is K + 1 independent Dirichlets,
``prevalence ~ Dirichlet(alpha_prev + row sums)`` and ``rates[k] ~ Dirichlet(alpha_rates[k] +
counts[k])``, which the exact path draws with NumPy for a whole batch at once. For K = 2 with the
positive class first this is the binary model: ``rates[0] = (tpr, 1 - tpr)`` and
``rates[1] = (1 - tnr, tnr)``. A class that never occurs (an empty row) keeps its prior row.

Priors: ``"laplace"`` = Dirichlet(1), ``"jeffreys"`` = Dirichlet(1/2), ``"haldane"`` =
Dirichlet(0) (improper: every count it needs must be positive), any :class:`~bayescm.Dirichlet`,
``Fixed`` class shares for the prevalence, one prior per true class for the rates (a list or a
``{label: prior}`` mapping, e.g. Dirichlets built from an earlier study's rows), or any object
with ``create_variable(name)`` (sampled with NUTS). A :class:`~bayescm.Beta` other than the three
presets is rejected: a Beta is a prior for one proportion, and its two parameters do not say how
to spread the concentration over K classes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from bayescm.core.exact import draw_dirichlet
from bayescm.metrics.base import Metric, evaluate
from bayescm.metrics.multiclass import MULTICLASS_METRICS, ORDERED_ONLY, OneVsRest
from bayescm.priors.base import (
    Beta,
    Dirichlet,
    Fixed,
    Flat,
    Haldane,
    Jeffreys,
    Laplace,
    Weak,
    is_conjugate,
    resolve_prior,
)

__all__ = ["MulticlassModel", "RatesByClass", "resolve_multiclass_priors"]

PARAMETERS = ("prevalence", "rates")
CELL_DIMS = ("true_class", "pred_class")
_PRESET_ALPHA = {Laplace: 1.0, Jeffreys: 0.5, Haldane: 0.0, Flat: 1.0}
"""Per-cell concentration of the symmetric presets' prevalence (Weak: 2 / K)."""
_ROW_PRESETS = {Weak: None, Laplace: 1.0, Jeffreys: 0.5}
"""Presets that put their mass on each row's correct rate: (diagonal, off-diagonal total)."""


class PresetDirichlet(Dirichlet):
    """An objective preset (``laplace``, ``jeffreys``, ``haldane``) as a symmetric Dirichlet.

    Examples
    --------
    >>> from bayescm.models.multiclass import PresetDirichlet
    >>> PresetDirichlet("jeffreys", 0.5).to_dict()
    {'dist': 'Dirichlet', 'name': 'jeffreys', 'alpha': 0.5}
    """

    def __init__(self, preset: str, alpha: float) -> None:
        super().__init__(alpha, _allow_zero=True)
        object.__setattr__(self, "_preset", preset)

    @property
    def name(self) -> str:
        """The preset's name."""
        return self._preset  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        return f"Dirichlet({self.alpha:g}) [{self.name}]"


class RatesByClass:
    """One conjugate prior per true class for the multiclass ``rates`` (rows of a K x K alpha).

    Parameters
    ----------
    alpha : array-like, shape (K, K)
        Row ``k`` is the Dirichlet concentration of ``rates[k]``; entries >= 0.
    names : sequence of str
        Name of each row's prior (for messages and serialisation).

    Examples
    --------
    >>> from bayescm.models.multiclass import RatesByClass
    >>> RatesByClass([[2, 1], [1, 1]], ["dirichlet", "laplace"]).proper
    True
    """

    conjugate = True

    def __init__(self, alpha: Any, names: Sequence[str], label: str = "by_class") -> None:
        arr = np.asarray(alpha, dtype=float)
        if arr.ndim != 2 or arr.shape[0] != arr.shape[1] or np.any(arr < 0):
            raise ValueError(f"alpha must be a square non-negative matrix, got {arr.tolist()}.")
        self.alpha = arr
        self.names = list(names)
        self.label = label

    @property
    def name(self) -> str:
        """Short name used in messages and serialisation."""
        return self.label

    @property
    def proper(self) -> bool:
        """Whether every concentration is positive."""
        return bool(np.all(self.alpha > 0))

    def to_dict(self) -> dict[str, Any]:
        """Serialise to a JSON-compatible dict."""
        return {"dist": "Dirichlet", "name": self.label, "alpha": self.alpha.tolist(),
                "rows": self.names}

    def __repr__(self) -> str:
        return f"RatesByClass({self.alpha.tolist()})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, RatesByClass):
            return NotImplemented
        return bool(np.array_equal(self.alpha, other.alpha)) and self.names == other.names

    __hash__ = None  # type: ignore[assignment]


def preset_row(prior: Any, k: int, row: int) -> np.ndarray | None:
    """Row ``row`` of a row-wise preset's rates concentration, or None for other priors.

    ``weak``: ``2 / K`` on the correct class, ``2 / K`` spread over the wrong ones;
    ``laplace``: 1 and 1; ``jeffreys``: 1/2 and 1/2 (a Beta on each row's correct rate).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.multiclass import preset_row
    >>> preset_row(bcm.Laplace(), 3, 0).tolist()
    [1.0, 0.5, 0.5]
    """
    kind = type(prior)
    if kind not in _ROW_PRESETS:
        return None
    mass = 2.0 / k if kind is Weak else _ROW_PRESETS[kind]
    out = np.full(k, mass / (k - 1))
    out[row] = mass
    return out


def _conjugate(value: Any, parameter: str, k: int, role: str = "prevalence") -> Any:
    """A prior for a K-vector (``role="prevalence"``) or the K x K rates (``"rates"``).

    Presets become Dirichlets (the row-wise presets a :class:`RatesByClass` for the rates); a
    Beta other than a preset and vectors of the wrong length raise.
    """
    p = resolve_prior(value, parameter)
    if role == "rates" and type(p) in _ROW_PRESETS:
        return RatesByClass(np.stack([preset_row(p, k, i) for i in range(k)]), [p.name] * k,
                            label=p.name)
    if type(p) is Weak:
        return PresetDirichlet(p.name, 2.0 / k)
    if type(p) in _PRESET_ALPHA:
        return PresetDirichlet(p.name, _PRESET_ALPHA[type(p)])
    if isinstance(p, Beta):
        raise TypeError(
            f"{p!r} is a prior for one proportion (binary matrices) and cannot be the prior of "
            f"the multiclass {parameter}; use bcm.Dirichlet(alpha) with a scalar or one "
            f"concentration per class ({k} classes), or 'weak', 'laplace', 'jeffreys', 'flat', "
            "'haldane'."
        )
    if isinstance(p, Dirichlet):
        try:
            p.vector(k)
        except ValueError as exc:
            raise ValueError(f"Prior of {parameter}: {exc}") from None
    return p


def _rates_prior(value: Any, default: Any, labels: Sequence[str]) -> Any:
    k = len(labels)
    if value is None:
        value = default
    if isinstance(value, Mapping) or (isinstance(value, (list, tuple)) and len(value) > 0
                                      and not np.isscalar(value[0])):
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
            p = resolve_prior(v, f"rates[{label}]")
            row = preset_row(p, k, i)
            if row is None:
                p = _conjugate(p, f"rates[{label}]", k)
                if not isinstance(p, Dirichlet):
                    raise TypeError("Per-class rates priors must be Dirichlets or preset names; "
                                    "give a single create_variable prior for the whole rates "
                                    "matrix instead.")
                row = p.vector(k)
            vectors.append(row)
            names.append(p.name)
        return RatesByClass(np.stack(vectors), names)
    p = _conjugate(value, "rates", k, role="rates")
    if isinstance(p, Fixed):
        raise ValueError("Only the prevalence can be fixed, not the rates; give the rates a "
                         "Dirichlet prior (a large concentration for a near-certain value).")
    return p


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

    Examples
    --------
    >>> from bayescm.models.multiclass import resolve_multiclass_priors
    >>> chosen = resolve_multiclass_priors(["a", "b", "c"], "jeffreys", prevalence=[1, 2, 3])
    >>> chosen["prevalence"], chosen["rates"].alpha[0].tolist()
    (Dirichlet(alpha=(1.0, 2.0, 3.0)), [0.5, 0.25, 0.25])
    """
    k = len(labels)
    if isinstance(prior, Fixed):
        raise ValueError("Fixed can only be given for the prevalence: use "
                         "prevalence=bcm.Fixed([...]).")
    base = resolve_prior("weak" if prior is None else prior, "the default prior")
    default = _conjugate(base, "the default prior", k)
    if prevalence is not None and not isinstance(prevalence, (str, Fixed, Dirichlet, Beta)) \
            and _numeric_vector(prevalence):
        prevalence = Dirichlet(prevalence)
    prev = default if prevalence is None else _conjugate(prevalence, "prevalence", k)
    if isinstance(prev, Fixed):
        value = np.atleast_1d(np.asarray(prev.value, dtype=float))
        if value.size != k:
            raise ValueError(f"The fixed prevalence has {value.size} entries but the matrix has "
                             f"{k} classes {list(labels)}; give one share per class.")
    return {"prevalence": prev, "rates": _rates_prior(rates, base, labels)}


def _numeric_vector(value: Any) -> bool:
    try:
        arr = np.asarray(value)
    except Exception:
        return False
    return arr.ndim == 1 and arr.dtype.kind in "iuf"


def _alpha(prior: Any, shape: tuple[int, ...]) -> np.ndarray:
    """Concentration of a conjugate prior broadcast to ``shape`` (``(K,)`` or ``(K, K)``)."""
    if isinstance(prior, RatesByClass):
        return prior.alpha
    return np.broadcast_to(prior.vector(shape[-1]), shape)


def _check_proper(posterior_alpha: np.ndarray, prior: Any, parameter: str, labels: Sequence[str],
                  counts_desc: str, names: list[str] | None, empty_rows: np.ndarray) -> None:
    """Raise naming the parameter, class and classifier where a posterior alpha is 0."""
    bad = posterior_alpha <= 0
    if not bad.any():
        return
    empty = empty_rows.reshape(empty_rows.shape + (1,) * (bad.ndim - 2))
    idx = np.unravel_index(int(np.argmax(bad.astype(int) + (bad & empty))), bad.shape)
    who = f" of classifier {names[idx[0]]!r}" if names is not None else ""
    cls = [labels[i] for i in idx[1:]]
    where = f"{parameter}[{', '.join(map(str, cls))}]"
    why = f"{counts_desc}[{', '.join(map(str, cls))}] = 0"
    if empty_rows[idx[0], idx[1]]:
        why += f" (class {cls[0]!r} never occurs: its row is empty)"
    raise ValueError(
        f"The {getattr(prior, 'name', 'improper')} prior on {where}{who} gives an improper "
        f"posterior because {why}. Use a proper prior (e.g. prior='jeffreys' or "
        f"{parameter}='laplace')."
    )


def _simplex_variable(name: str, prior: Any, event_shape: tuple[int, ...], dims: tuple[str, ...],
                      full_shape: tuple[int, ...]) -> Any:
    """A PyMC probability vector (last axis) with ``prior``, shaped ``full_shape``.

    Proper Dirichlets are ``pm.Dirichlet``. A concentration with zeros (Haldane) is written as a
    flat prior on additive log-ratios, whose density on the simplex is ``prod p^-1`` =
    Dirichlet(0), plus a potential ``sum(alpha log p)`` for the positive entries.
    """
    import pymc as pm
    import pytensor.tensor as pt

    if not is_conjugate(prior):
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
    alpha = np.broadcast_to(_alpha(prior, event_shape), full_shape)
    if np.all(alpha > 0):
        return pm.Dirichlet(name, a=alpha, dims=dims)
    logratio = pm.Flat(f"{name}_logratio", shape=full_shape[:-1] + (full_shape[-1] - 1,))
    full = pt.concatenate([logratio, pt.zeros(full_shape[:-1] + (1,))], axis=-1)
    value = pm.Deterministic(name, pt.special.softmax(full, axis=-1), dims=dims)
    if np.any(alpha > 0):
        pm.Potential(f"{name}_prior", pt.sum(alpha * pt.log(value)))
    return value


class MulticlassModel:
    """The multiclass model kind (K >= 2 classes, no positive class): K + 1 Dirichlets.

    Provides the interface :func:`bayescm.fit` drives (see
    :class:`bayescm.models.binary.BinaryModel`).

    Parameters
    ----------
    labels : sequence of str
        Class labels in row order.
    ordered : bool, default False
        Whether the classes are ordered (adds weighted Kappa and class-distance errors).

    Examples
    --------
    >>> import bayescm as bcm
    >>> cm = bcm.ConfusionMatrix([[5, 1, 0], [2, 6, 1], [0, 1, 4]], labels=["a", "b", "c"])
    >>> idata = bcm.fit(cm, random_seed=0, draws=500)
    >>> idata["posterior"]["tpr"].dims
    ('chain', 'draw', 'class')
    """

    name = "multiclass"
    scale_free = True  # every metric is invariant to the scale of theta (counts work)
    parameters = PARAMETERS
    prior_arguments = ("prevalence", "rates")
    parameter_long_names: ClassVar[dict[str, str]] = {
        "prevalence": "class prevalence (share of each true class)",
        "rates": "prediction rates: P(predicted class | true class)",
    }

    def __init__(self, labels: Sequence[str], ordered: bool = False) -> None:
        self.labels = list(labels)
        self.ordered = bool(ordered)
        self.catalogue: dict[str, Metric] = MULTICLASS_METRICS

    def coords(self) -> dict[str, Any]:
        """Coordinates of the class dims."""
        return {"true_class": self.labels, "pred_class": self.labels, "class": self.labels}

    def resolve_priors(self, prior: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """Priors of ``prevalence`` and ``rates`` (see :func:`resolve_multiclass_priors`)."""
        return resolve_multiclass_priors(self.labels, prior, overrides.get("prevalence"),
                                         overrides.get("rates"))

    @staticmethod
    def free(priors: Mapping[str, Any]) -> list[str]:
        """Parameters that are sampled (not fixed)."""
        return [p for p in PARAMETERS if not isinstance(priors[p], Fixed)]

    @staticmethod
    def param_dims(name: str) -> tuple[str, ...]:
        """Dims of a parameter beyond sample and batch dims."""
        return ("class",) if name == "prevalence" else CELL_DIMS

    def exact_posterior(
        self, counts: np.ndarray, priors: Mapping[str, Any], rng: np.random.Generator,
        chains: int, draws: int, names: list[str] | None,
    ) -> dict[str, np.ndarray]:
        """Independent posterior draws for ``(B, K, K)`` counts.

        ``prevalence`` has shape ``(chains, draws, B, K)`` and ``rates`` ``(chains, draws, B, K,
        K)``. Raises a ``ValueError`` naming the parameter, class (and classifier) when an
        improper prior meets a zero count.
        """
        k = counts.shape[-1]
        counts = counts.astype(float)
        rows = counts.sum(axis=-1)
        out = {}
        if "prevalence" in self.free(priors):
            a = _alpha(priors["prevalence"], (k,)) + rows
            _check_proper(a, priors["prevalence"], "prevalence", self.labels, "row sum", names,
                          rows == 0)
            out["prevalence"] = draw_dirichlet(rng, a, chains, draws)
        a = _alpha(priors["rates"], (k, k)) + counts
        _check_proper(a, priors["rates"], "rates", self.labels, "counts", names, rows == 0)
        out["rates"] = draw_dirichlet(rng, a, chains, draws)
        return out

    def exact_prior(self, priors: Mapping[str, Any], rng: np.random.Generator, chains: int,
                    draws: int) -> dict[str, np.ndarray] | None:
        """Prior draws with NumPy (no batch axis), or None if they need PyMC or are improper."""
        k = len(self.labels)
        free = self.free(priors)
        used = [priors[p] for p in free]
        if not all(isinstance(p, (Dirichlet, RatesByClass)) and p.proper for p in used):
            return None
        shapes = {"prevalence": (k,), "rates": (k, k)}
        return {p: draw_dirichlet(rng, _alpha(priors[p], shapes[p]), chains, draws)
                for p in free}

    @staticmethod
    def improper(priors: Mapping[str, Any]) -> bool:
        """Whether any sampled parameter has an improper (zero-concentration) prior."""
        return any(is_conjugate(p) and not p.proper for p in priors.values())

    def build_pymc(self, names: list[str] | None, counts: np.ndarray,
                   priors: Mapping[str, Any]) -> Any:
        """The PyMC model for ``(B, K, K)`` counts (``names`` None: a single matrix)."""
        import pymc as pm

        k = counts.shape[-1]
        batch = np.asarray(counts, dtype=float)
        for p, shape, desc in (("prevalence", (k,), "row sum"), ("rates", (k, k), "counts")):
            prior = priors[p]
            if is_conjugate(prior) and not isinstance(prior, Fixed) and not prior.proper:
                data = batch.sum(axis=-1) if p == "prevalence" else batch
                _check_proper(_alpha(prior, shape) + data, prior, p, self.labels, desc, names,
                              batch.sum(axis=-1) == 0)
        coords: dict[str, Any] = self.coords()
        dims: tuple[str, ...] = ()
        counts = np.asarray(counts)
        if names is None:
            counts = counts[0]
        else:
            coords["classifier"] = names
            dims = ("classifier",)
        rows = counts.sum(axis=-1)
        with pm.Model(coords=coords) as model:
            prior = priors["prevalence"]
            if isinstance(prior, Fixed):
                value = np.broadcast_to(np.asarray(prior.value), rows.shape)
                prev = pm.Data("prevalence", value, dims=dims + ("class",))
            else:
                prev = _simplex_variable("prevalence", prior, (k,), dims + ("class",), rows.shape)
                pm.Multinomial("class_counts", n=rows.sum(axis=-1), p=prev, observed=rows,
                               dims=dims + ("class",))
            rates = _simplex_variable("rates", priors["rates"], (k, k), dims + CELL_DIMS,
                                     counts.shape)
            pm.Multinomial("counts", n=rows, p=rates, observed=counts, dims=dims + CELL_DIMS)
            pm.Deterministic("theta", prev[..., :, None] * rates, dims=dims + CELL_DIMS)
        return model

    def observed(self, counts: np.ndarray, priors: Mapping[str, Any]
                 ) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Point estimates of the free parameters and ``theta = counts / N``, per classifier.

        The observed rates of a class that never occurs are NaN (0/0: undefined).
        """
        counts = counts.astype(float)
        rows = counts.sum(axis=-1)
        with np.errstate(divide="ignore", invalid="ignore"):
            theta = counts / counts.sum(axis=(-2, -1))[..., None, None]
            params = {"prevalence": rows / rows.sum(axis=-1, keepdims=True),
                      "rates": counts / rows[..., None]}
        return {p: params[p] for p in self.free(priors)}, theta

    def derive(self, params: Mapping[str, np.ndarray], priors: Mapping[str, Any],
               selected: Sequence[Metric], theta: np.ndarray | None = None,
               skip: np.ndarray | None = None
               ) -> dict[str, tuple[tuple[str, ...], np.ndarray]]:
        """Parameters, ``theta`` and metrics as ``{name: (extra_dims, array)}``.

        Built-in metrics share one set of one-vs-rest cells; custom metrics get ``theta``.
        ``skip`` (``(B, K)``, True for classes without test items) leaves those classes out of
        the macro and weighted averages and the balanced accuracy, as the observed values must
        (their recall is 0/0): observed and posterior averages then cover the same classes.
        """
        if theta is None:
            fixed = priors["prevalence"]
            prev = (np.asarray(fixed.value, dtype=float) if isinstance(fixed, Fixed)
                    else params["prevalence"])
            theta = prev[..., :, None] * params["rates"]
        shape = theta.shape[:-2]
        out: dict[str, tuple[tuple[str, ...], np.ndarray]] = {
            name: (self.param_dims(name), arr) for name, arr in params.items()}
        builtin = [m for m in selected if MULTICLASS_METRICS.get(m.name) is m]
        custom = [m for m in selected if MULTICLASS_METRICS.get(m.name) is not m]
        cells = OneVsRest(theta)
        if skip is not None and np.any(skip):
            cells.skip = np.asarray(skip, dtype=bool)
        values = evaluate(builtin, (cells,), shape)
        values.update(evaluate(custom, (theta,), shape))
        for m in selected:
            out[m.name] = (("class",) if m.kind == "per_class" else (), values[m.name])
        out["theta"] = (CELL_DIMS, theta)
        return out

    def select_metrics(self, selected: Sequence[Metric], priors: Mapping[str, Any]
                       ) -> list[Metric]:
        """Metrics computed besides the parameters (which are always stored).

        Ordered-only metrics (weighted Kappa, class distances) are dropped from the default
        selection of unordered classes and raise an error when asked for by name.
        """
        chosen = [m for m in selected if m.name not in PARAMETERS]
        if self.ordered:
            return chosen
        everything = list(MULTICLASS_METRICS.values())
        ordered = [m.name for m in selected if MULTICLASS_METRICS.get(m.name) is m
                   and m.name in ORDERED_ONLY]
        if ordered and list(selected) != everything:
            raise ValueError(
                f"{ordered} need ordered classes; create the matrix with "
                "bcm.ConfusionMatrix(counts, labels=[...], ordered=True) (labels in their order)."
            )
        return [m for m in chosen if m.name not in ORDERED_ONLY or MULTICLASS_METRICS.get(
            m.name) is not m]
