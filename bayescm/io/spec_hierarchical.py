"""The hierarchical model in analysis specs: its options, priors and figures, checked at load.

A spec asks for the bivariate binomial-normal model of several groups with::

    [data]
    dataset = "auditc"               # or table = "studies.csv" (id_column = "study"), or
                                     #   [data.classifiers.NAME] tables: a batch of binary matrices
    [options]
    model = "hierarchical"
    group = "study"                  # the name of the group dim (required)
    target_accept = 0.95             # NUTS options (any NUTS fit): target acceptance rate
    tune = 2000                      #   and tuning steps per chain

    [priors]                         # keyed by the model's parameters
    mu_logit_tpr = {dist = "Normal", mu = 1.5, sigma = 1.5}
    sd_logit_tpr = {dist = "HalfNormal", sigma = 0.5}
    corr_logit = {dist = "LKJ", eta = 2}
    prevalence = "jeffreys"          # as for a matrix: a proper Beta

    [outputs]
    figures = ["sroc", "group_forest"]   # the default; also "forest" (a panel per metric)

and these become ``bcm.fit(matrices, model="hierarchical", group="study", priors={...},
target_accept=..., tune=...)``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from bayescm.core.confusion import ConfusionMatrix
from bayescm.core.scores import Scores
from bayescm.errors import SpecError
from bayescm.io.spec_parse import HIERARCHICAL_FIGURES, _check_keys, _where, parse_prior

__all__ = ["check_figures", "check_model_spec", "default_figures", "models",
           "parse_model_options", "parse_pooled_priors", "pooled"]

def pooled(options: Mapping[str, Any]) -> bool:
    """Whether ``options.model`` names a kind that pools groups (it declares ``pooled_groups``).

    Examples
    --------
    >>> from bayescm.io.spec_hierarchical import pooled
    >>> pooled({"model": "hierarchical"}), pooled({})
    (True, False)
    """
    from bayescm.models import registry

    model = options.get("model", "auto")
    return model != "auto" and registry.get(str(model)).pooled_groups


def models() -> tuple[str, ...]:
    """Values of ``options.model``: ``"auto"`` (the kind the data select) or a pooling kind."""
    from bayescm.models import registry

    known = registry.keys()
    return ("auto", *(k for k in known if registry.get(k).pooled_groups))


NUTS_METHODS = ("nuts", "binormal", "bibeta")
"""Methods sampled with NUTS, which take ``target_accept`` and ``tune``."""

PRIOR_FAMILIES = {"mu_logit_tpr": ("Normal", ("mu", "sigma")),
                  "mu_logit_tnr": ("Normal", ("mu", "sigma")),
                  "sd_logit_tpr": ("HalfNormal", ("sigma",)),
                  "sd_logit_tnr": ("HalfNormal", ("sigma",)),
                  "corr_logit": ("LKJ", ("eta",)),
                  "spread": ("HalfNormal", ("sigma",)),
                  "prevalence_spread": ("HalfNormal", ("sigma",))}
"""The distribution each population parameter takes in a spec, and its numbers."""


def parse_model_options(options: Mapping[str, Any], source: Any) -> dict[str, Any]:
    """``model``, ``group``, ``target_accept`` and ``tune`` of ``[options]``, checked.

    Examples
    --------
    >>> from bayescm.io.spec_hierarchical import parse_model_options
    >>> parse_model_options({"model": "hierarchical", "group": "study", "tune": 2000}, None)
    {'model': 'hierarchical', 'group': 'study', 'tune': 2000}
    """
    where = _where(source)
    out: dict[str, Any] = {}
    model = options.get("model", "auto")
    known = models()
    if model not in known:
        pooling = ", ".join(repr(k) for k in known[1:])
        raise SpecError(f"{where}options.model must be a model that pools several groups "
                        f"({pooling}) or 'auto' (the model the data select), got {model!r}.")
    if pooled({"model": model}):
        group = options.get("group")
        if not isinstance(group, str) or not group.isidentifier():
            raise SpecError(f"{where}options.model = {model!r} needs group = \"NAME\", the "
                            "name of the group dim (an identifier such as \"study\", \"site\" "
                            f"or \"subgroup\"), got {group!r}.")
        from bayescm.models.pooled import check_group_name

        try:  # a name the result uses itself fails only after sampling otherwise
            check_group_name(group, model, ("class",))
        except ValueError as err:
            raise SpecError(f"{where}options.group: {err}") from None
        out.update(model=model, group=group)
    elif "group" in options:
        raise SpecError(f"{where}options.group names the group dim of a model that pools "
                        f"groups ({', '.join(repr(k) for k in known[1:])}); add options.model, "
                        "or drop group for a plain batch.")
    if "target_accept" in options:
        value = options["target_accept"]
        if (isinstance(value, bool) or not isinstance(value, (int, float))
                or not 0 < value < 1):
            raise SpecError(f"{where}options.target_accept must lie strictly between 0 and 1 "
                            f"(e.g. 0.95), got {value!r}.")
        out["target_accept"] = float(value)
    if "tune" in options:
        value = options["tune"]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise SpecError(f"{where}options.tune must be a whole number >= 0 (tuning steps per "
                            f"chain, e.g. 2000), got {value!r}.")
        out["tune"] = value
    return out


def check_model_spec(data: Any, options: Mapping[str, Any], source: Any) -> None:
    """Data and options that the chosen model cannot take (raises :class:`SpecError`)."""
    where = _where(source)
    method = options.get("method", "auto")
    hierarchical = pooled(options)
    nuts = [k for k in ("target_accept", "tune") if k in options]
    if nuts and not hierarchical and method not in NUTS_METHODS:
        raise SpecError(f"{where}options.{nuts[0]} tunes the NUTS sampler; give it with model = "
                        "'hierarchical' or method = 'nuts' (scores: 'binormal' or 'bibeta'). "
                        "The exact samplers (scores: dirichlet_process, bootstrap) have "
                        "nothing to tune.")
    if not hierarchical:
        return
    from bayescm.models import registry

    model = str(options["model"])
    if isinstance(data, Scores):
        raise SpecError(f"{where}options.model = {model!r} pools confusion matrices of several "
                        "groups; scores are fitted by their own models.")
    if isinstance(data, ConfusionMatrix):
        raise SpecError(f"{where}options.model = {model!r} needs several groups: a batch "
                        "([data] table = \"file.csv\", [data.classifiers.NAME] tables, or "
                        "dataset = \"auditc\"), not a single matrix.")
    kind = registry.get(model)
    try:  # the kind says which matrices it pools (binary only, or any number of classes)
        kind.from_data(data)
    except (TypeError, ValueError) as err:
        raise SpecError(f"{where}options.model = {model!r}: {err}") from None
    if not kind.has_exact and method not in ("auto", "nuts"):
        raise SpecError(f"{where}the {model} model is sampled with NUTS: options.method "
                        f"must be 'auto' or 'nuts', got {method!r}.")


def parse_pooled_priors(priors: Any, options: Mapping[str, Any], source: Any,
                        data: Any = None) -> dict[str, Any]:
    """``[priors]`` of a spec whose model pools groups, as ``fit(..., priors={...})``.

    Keys are the model's parameters. Those of the hierarchical model's population take
    their family: ``mu_logit_*`` ``{dist = "Normal", mu, sigma}``, ``sd_logit_*``
    ``{dist = "HalfNormal", sigma}``, ``corr_logit`` ``{dist = "LKJ", eta}``, the multiclass
    model's ``spread`` and ``prevalence_spread`` ``{dist = "HalfNormal", sigma}``; any other
    parameter (``prevalence``, ``rates``, or the parameters of a kind of your own) takes what
    a matrix spec takes (:func:`~bayescm.io.spec_parse.parse_prior`), checked by the kind.
    ``data`` (the spec's matrices) selects the kind the model names for them: multiclass
    matrices under ``model = "hierarchical"`` take the multiclass model's parameters.

    Examples
    --------
    >>> from bayescm.io.spec_hierarchical import parse_pooled_priors
    >>> parse_pooled_priors({"sd_logit_tpr": {"dist": "HalfNormal", "sigma": 0.5}},
    ...                     {"model": "hierarchical"}, None)
    {'priors': {'sd_logit_tpr': HalfNormal(sigma=0.5)}}
    """
    from bayescm.models import registry
    from bayescm.priors import continuous

    where = _where(source)
    kind = registry.get(str(options["model"]))
    chosen = kind(["positive", "negative"]) if data is None else kind.from_data(data)
    names = tuple(p.name for p in chosen.parameters)
    _check_keys(priors, names, "priors", source)
    if not priors:
        return {}
    out: dict[str, Any] = {}
    for key, value in priors.items():
        try:
            if key not in PRIOR_FAMILIES:
                out[key] = parse_prior(value, key)
                # the kind's own check: a proper prior, or a TypeError saying so
                chosen.resolve_priors(None, {key: out[key]})
                continue
            dist, numbers = PRIOR_FAMILIES[key]
            example = ", ".join(f"{n} = 1" for n in numbers)
            if not isinstance(value, Mapping) or value.get("dist") != dist:
                raise TypeError(f"give a table {{dist = \"{dist}\", {example}}}, got {value!r}.")
            extra = [k for k in value if k not in ("dist", *numbers)]
            if extra:
                raise ValueError(f"unknown key {extra[0]!r}; a {dist} takes {example}.")
            args = {}
            for name in numbers:
                if name not in value:
                    raise ValueError(f"the {dist} needs {name}.")
                number = value[name]
                if (isinstance(number, bool) or not isinstance(number, (int, float))
                        or not math.isfinite(number)):
                    raise ValueError(f"{name} must be a finite number, got {number!r}.")
                if name != "mu" and number <= 0:
                    raise ValueError(f"{name} must be > 0, got {number!r}.")
                args[name] = float(number)
            out[key] = getattr(continuous, dist)(**args)
        except (ValueError, TypeError) as err:
            raise SpecError(f"{where}[priors] {key}: {err}") from None
    return {"priors": out}


def default_figures(options: Mapping[str, Any]) -> list[str] | None:
    """The figures a pooling model declares (None for other models)."""
    from bayescm.models import registry

    return list(registry.get(str(options["model"])).figures) if pooled(options) else None


def check_figures(options: Mapping[str, Any], figures: tuple[str, ...], source: Any) -> None:
    """Figures of a pooled fit asked of another, and figures a pooled fit cannot draw."""
    from bayescm.models import registry

    where = _where(source)
    hierarchical = pooled(options)
    asked = [f for f in figures if f in HIERARCHICAL_FIGURES]
    if asked and not hierarchical:
        raise SpecError(f"{where}outputs.figures: {asked[0]!r} draws a hierarchical fit; set "
                        "options.model = 'hierarchical' and options.group, or drop it.")
    if not hierarchical:
        return
    model = str(options["model"])
    drawn = (*registry.get(model).figures, "forest")
    bad = [f for f in figures if f not in drawn]
    if bad:
        what = ("'posterior' draws the densities of single matrices; " if bad[0] == "posterior"
                else f"{bad[0]!r} is not a figure of this model; ")
        raise SpecError(f"{where}outputs.figures: {what}a fit of model = {model!r} has "
                        f"{', '.join(drawn)}.")
