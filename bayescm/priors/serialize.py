"""Priors to dicts and back: one registry of forms, one entry point :func:`from_dict`.

Every bayescm prior has ``to_dict()``; :func:`from_dict` rebuilds it exactly (same type, same
repr). The same registry reads the short forms of a TOML analysis specification
(``{mean = 0.9, concentration = 20}``, ...) and the dicts stored in saved result trees by
earlier versions, so there is one prior dialect. Each form is a ``(matches, build)`` pair tried
in order; when none matches, a :class:`PriorFormError` names the keys seen and the forms known.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any

from bayescm.errors import PriorFormError
from bayescm.priors.beta import Beta
from bayescm.priors.continuous import LKJ, HalfNormal, LogNormal, Normal
from bayescm.priors.dirichlet import Dirichlet, PresetDirichlet
from bayescm.priors.external import PreliZPrior
from bayescm.priors.fixed import Fixed
from bayescm.priors.presets import PRIOR_NAMES
from bayescm.priors.rates_by_class import RatesByClass
from bayescm.priors.resolve import resolve_prior
from bayescm.priors.uniform import Uniform

__all__ = ["PRIOR_FORMS", "PriorFormError", "from_dict", "prior_to_dict", "register_prior_form"]


@dataclass(frozen=True)
class _Context:
    """Where a dict comes from, for messages: ``parameter`` is e.g. ``"tpr"`` or None."""

    parameter: str | None

    @property
    def what(self) -> str:
        return f"the prior of {self.parameter}" if self.parameter else "the prior"

    def need(self, data: Mapping[str, Any], required: set[str], optional: set[str], form: str,
             ignore: frozenset[str] = frozenset({"dist"})) -> None:
        keys = set(data) - ignore
        missing = required - keys
        if missing:
            raise ValueError(f"{self.what.capitalize()} ({form}) needs "
                             f"{', '.join(sorted(missing))}.")
        extra = keys - required - optional
        if extra:
            raise ValueError(f"Unknown key {sorted(extra)[0]!r} in {self.what} ({form}); "
                             f"allowed: {', '.join(sorted(required | optional)) or 'none'}.")

    def number(self, data: Mapping[str, Any], key: str, default: float | None = None) -> float:
        value = data.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            where = f"{self.parameter}.{key}" if self.parameter else key
            raise TypeError(f"{where} must be a number, got {value!r}.")
        return float(value)


Build = Callable[[Mapping[str, Any], _Context], Any]


@dataclass(frozen=True)
class PriorForm:
    """One way to write a prior as a dict: a predicate and a builder, and a label for messages."""

    label: str
    matches: Callable[[Mapping[str, Any]], bool]
    build: Build


PRIOR_FORMS: list[PriorForm] = []
"""The registry :func:`from_dict` tries in order (extend it with :func:`register_prior_form`)."""


def register_prior_form(label: str, matches: Callable[[Mapping[str, Any]], bool],
                        build: Build) -> None:
    """Add a form to :func:`from_dict` (tried after the built-in ones).

    Parameters
    ----------
    label : str
        How the form is written, for the error that lists the known forms.
    matches : callable
        ``matches(data) -> bool``: whether a dict has this form (exceptions count as no).
    build : callable
        ``build(data, context) -> prior``; ``context.need(...)`` and ``context.number(...)``
        check keys and numbers with messages that name the parameter.

    See Also
    --------
    from_dict : Uses the registered forms.
    prior_to_dict : The other direction.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.priors import from_dict, register_prior_form
    >>> register_prior_form("{odds = o}", lambda d: set(d) == {"odds"},
    ...                     lambda d, ctx: bcm.Beta(ctx.number(d, "odds"), 1.0))
    >>> from_dict({"odds": 3})
    Beta(alpha=3.0, beta=1.0)
    >>> _ = PRIOR_FORMS.pop()  # doctest cleanup
    """
    PRIOR_FORMS.append(PriorForm(label, matches, build))


def _dist(data: Mapping[str, Any]) -> str | None:
    dist = data.get("dist")
    return dist.lower() if isinstance(dist, str) else None


def _named(data: Mapping[str, Any], default: str) -> str:
    name = data.get("name", default)
    return name.lower() if isinstance(name, str) else ""


# ----------------------------------------------------------------------------- builders
def _custom(data: Mapping[str, Any], ctx: _Context) -> Any:
    raise ValueError(
        f"{ctx.what.capitalize()} was a custom prior object ({data.get('dist')}: "
        f"{data.get('repr')}); only its description was stored, so it cannot be rebuilt. Pass "
        "the prior object again, e.g. bcm.fit(cm, tpr=my_prior) or priors={'tpr': my_prior}.")


def _pymc_extras(data: Mapping[str, Any], ctx: _Context) -> Any:
    try:
        import pymc_extras.prior  # noqa: F401  (registers the Prior forms)
        from pymc_extras.deserialize import deserialize
    except ImportError:
        raise ValueError(f"{ctx.what.capitalize()} is a pymc-extras Prior ({dict(data)!r}); "
                         "install pymc-extras to rebuild it.") from None
    plain = {k: v for k, v in data.items() if k != "name"}
    try:
        return deserialize(plain)
    except Exception as exc:
        raise ValueError(f"pymc-extras could not rebuild {ctx.what} from {plain!r}: "
                         f"{exc}") from None


def _preliz(data: Mapping[str, Any], ctx: _Context) -> PreliZPrior:
    ctx.need(data, {"kind", "params"}, {"name"}, "dist = 'PreliZ'")
    if not isinstance(data["params"], Mapping):
        raise TypeError(f"params of {ctx.what} must be a table of parameters.")
    return PreliZPrior(str(data["kind"]), data["params"])


def _fixed(data: Mapping[str, Any], ctx: _Context) -> Fixed:
    ctx.need(data, {"value"}, {"name"}, "dist = 'Fixed'")
    return Fixed(data["value"])


def _rates(data: Mapping[str, Any], ctx: _Context) -> RatesByClass:
    ctx.need(data, {"alpha", "rows"}, {"name"}, "dist = 'Dirichlet' with rows")
    return RatesByClass(data["alpha"], data["rows"], label=data.get("name", "by_class"))


def _preset(data: Mapping[str, Any], ctx: _Context) -> Any:
    """A preset by name: ``{dist = "Beta", name = "jeffreys", ...}`` or the Dirichlet form."""
    preset = PRIOR_NAMES[_named(data, "")]()
    if _dist(data) == "dirichlet":
        ctx.need(data, {"alpha"}, {"name"}, f"dist = 'Dirichlet', name = {preset.name!r}")
        alpha = ctx.number(data, "alpha")
        if preset._cell is not None and alpha != preset._cell:
            raise ValueError(f"The {preset.name} preset's Dirichlet has alpha "
                             f"{preset._cell:g}, not {alpha:g}.")
        return PresetDirichlet(preset.name, alpha)
    ctx.need(data, set(), {"name", "alpha", "beta"}, f"dist = 'Beta', name = {preset.name!r}")
    given = tuple(ctx.number(data, k) for k in ("alpha", "beta") if k in data)
    if given and given != (preset.alpha, preset.beta)[:len(given)]:
        raise ValueError(f"The {preset.name} preset is Beta({preset.alpha:g}, {preset.beta:g}), "
                         f"not {dict(data)!r}.")
    return preset


def _dirichlet(data: Mapping[str, Any], ctx: _Context) -> Dirichlet:
    ctx.need(data, {"alpha"}, {"name"}, "dist = 'Dirichlet'")
    return Dirichlet(data["alpha"])


def _beta(data: Mapping[str, Any], ctx: _Context) -> Beta:
    ctx.need(data, {"alpha", "beta"}, {"name"}, "dist = 'Beta'")
    return Beta(ctx.number(data, "alpha"), ctx.number(data, "beta"))


def _preset_by_dist(data: Mapping[str, Any], ctx: _Context) -> Any:
    ctx.need(data, set(), set(), f"dist = {data['dist']!r}")
    return resolve_prior(data["dist"], ctx.parameter or "the prior")


def _short_fixed(data: Mapping[str, Any], ctx: _Context) -> Fixed:
    ctx.need(data, {"fixed"}, set(), "fixed")
    return Fixed(data["fixed"])


def _from_mean(data: Mapping[str, Any], ctx: _Context) -> Beta:
    ctx.need(data, {"mean", "concentration"}, set(), "concentration and mean")
    return Beta.from_mean(ctx.number(data, "mean"), ctx.number(data, "concentration"))


def _from_counts(data: Mapping[str, Any], ctx: _Context) -> Beta:
    ctx.need(data, {"successes", "failures"}, {"weight"}, "failures and successes")
    return Beta.from_counts(ctx.number(data, "successes"), ctx.number(data, "failures"),
                            ctx.number(data, "weight", 1.0))


def _from_interval(data: Mapping[str, Any], ctx: _Context) -> Beta:
    ctx.need(data, {"lower", "upper"}, {"mass"}, "lower and upper")
    return Beta.from_interval(ctx.number(data, "lower"), ctx.number(data, "upper"),
                              ctx.number(data, "mass", 0.95))


_PYMC_EXTRAS_KEYS = {"dist", "kwargs", "dims", "centered", "transform"}


def _is_pymc_distribution(name: Any) -> bool:
    import pymc as pm

    return isinstance(name, str) and isinstance(getattr(pm, name, None), type) \
        and issubclass(getattr(pm, name), pm.Distribution)


def _continuous(data: Mapping[str, Any], ctx: _Context) -> Any:
    return _CONTINUOUS[str(_dist(data))][0].from_dict(data)


_CONTINUOUS = {cls.dist.lower(): (cls, {f.name for f in fields(cls)})
               for cls in (Normal, HalfNormal, LogNormal, LKJ, Uniform)}
"""The continuous priors by lower-case ``dist``, with their parameter names."""


def _has(*keys: str) -> Callable[[Mapping[str, Any]], bool]:
    return lambda d: "dist" not in d and set(keys) <= set(d)


_BUILT_IN = [  # tried in this order; the first that matches builds
    # the short forms of a TOML specification (no dist)
    PriorForm("{fixed = v}", _has("fixed"), _short_fixed),
    PriorForm("{mean = m, concentration = c}", _has("mean", "concentration"), _from_mean),
    PriorForm("{successes = s, failures = f, weight = w}", _has("successes", "failures"),
              _from_counts),
    PriorForm("{lower = l, upper = u, mass = 0.95}", _has("lower", "upper"), _from_interval),
    # pymc-extras before the dist forms: its {dist = "Beta", kwargs} or {dist = "Laplace"}
    PriorForm("a pymc-extras Prior {dist, kwargs, ...}",
              lambda d: "kwargs" in d or d.get("name") in ("Prior", "Censored", "Scaled")
              or {"class", "data"} <= set(d), _pymc_extras),
    PriorForm("{dist = 'Uniform', lower, upper}", lambda d: _dist(d) == "uniform"
              and bool({"lower", "upper"} & set(d)), _continuous),
    PriorForm("{dist = <preset name>} (weak, laplace, jeffreys, haldane, flat)",
              lambda d: _dist(d) in PRIOR_NAMES, _preset_by_dist),
    # what to_dict() writes (and result trees store)
    PriorForm("{dist = 'Beta', alpha, beta}",
              lambda d: _dist(d) == "beta" and _named(d, "beta") == "beta", _beta),
    PriorForm("{dist = 'Dirichlet', alpha}",
              lambda d: _dist(d) == "dirichlet" and _named(d, "dirichlet") == "dirichlet"
              and "rows" not in d, _dirichlet),
    PriorForm("{dist = 'Beta' or 'Dirichlet', name = <preset>, ...}",
              lambda d: _dist(d) in ("beta", "dirichlet") and _named(d, "") in PRIOR_NAMES
              and "rows" not in d, _preset),
    PriorForm("{dist = 'Dirichlet', name, alpha, rows} (one row per true class)",
              lambda d: _dist(d) == "dirichlet" and "rows" in d, _rates),
    PriorForm("{dist = 'Fixed', value}", lambda d: _dist(d) == "fixed", _fixed),
    PriorForm("{dist = 'PreliZ', kind, params}", lambda d: _dist(d) == "preliz", _preliz),
    PriorForm("a stored custom prior {dist, name = 'custom', repr} (not rebuildable)",
              lambda d: d.get("name") == "custom" and "repr" in d, _custom),
    PriorForm("{dist = 'Normal' | 'HalfNormal' | 'LogNormal' | 'LKJ' | 'Uniform', <its "
              "parameters>}",
              lambda d: _dist(d) in _CONTINUOUS and "kwargs" not in d
              and bool(set(d) - {"dist", "name"})  # {dist = "Normal"} alone: pymc-extras's
              and set(d) - {"dist", "name"} <= _CONTINUOUS[str(_dist(d))][1], _continuous),
    PriorForm("a pymc-extras Prior without parameters {dist = <PyMC distribution>}",
              lambda d: set(d) <= _PYMC_EXTRAS_KEYS and _is_pymc_distribution(d["dist"]),
              _pymc_extras),
]
PRIOR_FORMS.extend(_BUILT_IN)


def from_dict(data: Mapping[str, Any] | str, *, parameter: str | None = None) -> Any:
    """Rebuild a prior from its dict: ``to_dict()`` output, a tree's attributes or a TOML form.

    Parameters
    ----------
    data : mapping or str
        A dict of one of the forms in :data:`PRIOR_FORMS` (or a preset name).
    parameter : str, optional
        The parameter the prior is for; named in error messages.

    Returns
    -------
    prior
        ``from_dict(p.to_dict()) == p`` for every bayescm prior; pymc-extras ``Prior`` dicts
        are handed to ``pymc_extras.deserialize``.

    Raises
    ------
    PriorFormError
        When no form matches (the message lists the keys seen and the forms known). Other
        ValueErrors and TypeErrors name a missing key, an unknown key or a bad value.
    TypeError
        Data that is not a mapping, or a ``dist`` that is not a string.

    See Also
    --------
    prior_to_dict : The other direction.
    register_prior_form : Adds a form it can read.
    bayescm.refit : Rebuilds a saved result's priors this way.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.priors import from_dict
    >>> from_dict({"dist": "Beta", "name": "jeffreys", "alpha": 0.5, "beta": 0.5})
    Jeffreys()
    >>> from_dict({"mean": 0.9, "concentration": 20})
    Beta(alpha=18.0, beta=2.0)
    >>> from_dict(bcm.Fixed([0.2, 0.8]).to_dict()) == bcm.Fixed([0.2, 0.8])
    True
    """
    ctx = _Context(parameter)
    if isinstance(data, str):
        return resolve_prior(data, parameter or "the prior")
    if not isinstance(data, Mapping):
        raise TypeError(f"{ctx.what.capitalize()} must be a name or a table (dict), got "
                        f"{data!r}.")
    if "dist" in data and not isinstance(data["dist"], str):
        where = f"{parameter}.dist" if parameter else "dist"
        raise TypeError(f"{where} must be a string, got {data['dist']!r}.")
    for form in PRIOR_FORMS:
        try:
            found = bool(form.matches(data))
        except Exception:
            found = False
        if found:
            return form.build(data, ctx)
    seen = ", ".join(sorted(map(str, data))) or "none"
    dist = f"; dist = {data['dist']!r}" if "dist" in data else ""
    known = "; ".join(f.label for f in PRIOR_FORMS)
    raise PriorFormError(f"Cannot read {ctx.what} from {dict(data)!r} (keys: {seen}{dist}): no "
                         f"known form matches. Known forms: a preset name; {known}.")


def prior_to_dict(prior: Any) -> dict[str, Any]:
    """Serialise any prior, including third-party factories, for the result's attributes.

    A factory without a usable ``to_dict`` is stored as ``{"dist": <type>, "name": "custom",
    "repr": ...}``, a description that :func:`from_dict` refuses to rebuild (saying so).

    Parameters
    ----------
    prior : object
        Any prior object.

    Returns
    -------
    dict
        The prior's own ``to_dict()``, or a ``"custom"`` description.

    See Also
    --------
    from_dict : Rebuilds the prior.
    register_prior_form : Lets a third-party prior round-trip.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.priors import prior_to_dict
    >>> prior_to_dict(bcm.priors.Laplace())
    {'dist': 'Beta', 'name': 'laplace', 'alpha': 1.0, 'beta': 1.0}
    """
    if hasattr(prior, "to_dict"):
        try:
            out = dict(prior.to_dict())
        except Exception:
            out = {}
        if out:
            out.setdefault("name", type(prior).__name__)
            return out
    return {"dist": type(prior).__name__, "name": "custom", "repr": repr(prior)}
