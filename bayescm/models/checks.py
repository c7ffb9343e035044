"""Checks a fit makes before it samples: sampler options, the method, and three warnings.

:class:`PriorStrengthWarning` when a multiclass prior outweighs a tenth of a row's items,
:class:`SmallClassWarning` when averaged metrics rest on a class of fewer than 10 items, and
:class:`PrevalenceMismatchWarning` when a fixed prevalence contradicts the test set.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from bayescm.core.arguments import HINTS as _HINTS
from bayescm.core.arguments import did_you_mean, warn_user
from bayescm.core.deprecation import warn_deprecated
from bayescm.core.validate import check_int, check_real
from bayescm.errors import PrevalenceMismatchWarning, PriorStrengthWarning, SmallClassWarning
from bayescm.priors import is_conjugate
from bayescm.priors.multiclass import concentration_of

METHODS = ("auto", "exact", "nuts")


def check_prior_strength(kind: Any, priors: Mapping[str, Any], counts: np.ndarray,
                          names: list[str] | None) -> None:
    """Warn when a multiclass row's prior pseudo-counts exceed a tenth of its test items."""
    rates = priors.get("rates")
    if rates is None or not kind.parameter("rates").takes(rates):
        return
    k = counts.shape[-1]
    strength = concentration_of(rates, (k, k)).sum(axis=-1)  # (K,)
    rows = counts.sum(axis=-1)  # (B, K)
    heavy = (rows > 0) & (strength[None, :] > 0.1 * rows)
    if not heavy.any():
        return
    b, i = map(int, np.argwhere(heavy)[0])
    who = f" of classifier {names[b]!r}" if names is not None else ""
    remedy = ("more test items for the class (the 'weak' default is already the lightest named "
              "prior)" if rates.name == "weak" else "more test items for the class, or a weaker "
              "prior (prior='weak', the default, puts 4/K per row; 'flat' puts K)")
    warn_user(
        f"The {rates.name} prior puts {strength[i]:.3g} pseudo-counts in the row of class "
        f"{kind.labels[i]!r}{who}, which has {int(rows[b, i])} test items: more than a tenth, "
        f"so the prior visibly shapes that class's rates. Remedy: {remedy}.",
        PriorStrengthWarning)


SMALL_CLASS = 10
"""Fewest test items of a class for the averaged metrics' intervals to keep their promise."""


def check_small_classes(kind: Any, metrics: Any, counts: np.ndarray,
                        names: list[str] | None) -> None:
    """Warn when macro or weighted averages rest on a class of fewer than 10 test items.

    Classes without items are left out of the averages (and said so elsewhere); a class with
    1-9 items is in them, and the simulations of ``benchmarks/coverage_table.md`` show their
    intervals covering less than promised then.
    """
    if getattr(kind, "metric_family", None) != "multiclass":
        return
    averaged = [m.name for m in metrics if m.name.endswith(("_macro", "_weighted"))]
    if not averaged:
        return
    rows = counts.sum(axis=-1)  # (B, K)
    small = (rows > 0) & (rows < SMALL_CLASS)
    if not small.any():
        return
    b, i = map(int, np.argwhere(small)[0])
    who = f" of classifier {names[b]!r}" if names is not None else ""
    warn_user(
        f"Class {kind.labels[i]!r}{who} has {int(rows[b, i])} test items. With classes of fewer "
        f"than {SMALL_CLASS} items the 95 % intervals of macro and weighted averages "
        f"({', '.join(averaged[:3])}{', ...' if len(averaged) > 3 else ''}) covered the truth "
        "only 83-93 % of the time in simulation with 5 items per class, 89-94 % with 10 "
        "(benchmarks/coverage_table.md, small classes). Report the per-class values beside "
        "the averages, or label more items of the class.", SmallClassWarning)


def check_fixed_prevalence(priors: Mapping[str, Any], counts: np.ndarray,
                            names: list[str] | None) -> None:
    """Warn when a fixed prevalence is far from the test set's own class shares.

    A fixed prevalence describes how the test set was composed; evaluating a classifier at
    another population's prevalence is :func:`bayescm.with_prevalence`'s job.
    """
    fixed = priors.get("prevalence")
    if not getattr(fixed, "fixed", False):
        return
    assert fixed is not None  # a missing prior has no "fixed" and returned above
    from scipy import stats  # only fits with a fixed prevalence need it
    share = np.atleast_1d(np.asarray(fixed.value, dtype=float))
    rows = counts.sum(axis=2)  # (B, K)
    if share.size == 1:
        share = np.array([share[0], 1 - share[0]])
    for i, row in enumerate(rows):
        n = int(row.sum())
        if n == 0:
            continue
        if share.size == 2:
            p = stats.binomtest(int(row[0]), n, float(share[0])).pvalue
        else:
            p = stats.chisquare(row, n * share).pvalue
        if p < 1e-3:
            who = f"classifier {names[i]!r}: " if names is not None else ""
            observed = ", ".join(f"{v:.0%}" for v in row / n)
            wanted = ", ".join(f"{v:.0%}" for v in share)
            warn_user(
                f"{who}the test set's class shares ({observed}) are implausible under the fixed "
                f"prevalence ({wanted}); p = {p:.1g}. Fixed describes how the test set was "
                "composed. To evaluate the classifier at another population's prevalence, fit "
                "without Fixed and use bcm.with_prevalence(idata, ...).",
                PrevalenceMismatchWarning)
            return


_SET_BY_FIT = ("draws", "chains", "random_seed", "progressbar", "return_inferencedata")
_NOT_FOR_FIT = ("var_names", "trace", "idata_kwargs", "callback", "backend", "mp_ctx",
                "progressbar_theme")
"""``pymc.sample`` parameters that shape its output, which ``fit`` assembles itself: they are
unknown keywords of ``fit``, not sampler options (``var_names`` belongs to ``summary``)."""

_INT_OPTIONS = {"tune": 0, "cores": 1, "max_treedepth": 1, "early_max_treedepth": 1,
                "jitter_max_retries": 0, "n_init": 1, "blas_cores": 1}
"""Whole-number sampler options and their least values."""
_POSITIVE_OPTIONS = ("step_scale", "max_energy_error", "gamma", "k", "t0")
_BOOL_OPTIONS = ("discard_tuned_samples", "compute_convergence_checks", "keep_warning_stat",
                 "quiet", "adapt_step_size")
INITS = ("auto", "adapt_diag", "jitter+adapt_diag", "jitter+adapt_diag_grad", "adapt_full",
         "jitter+adapt_full", "advi+adapt_diag", "advi", "advi_map", "map")
"""Values of ``init=`` (PyMC's initialisation methods)."""


def check_option_values(options: Mapping[str, Any]) -> None:
    """Refuse sampler options whose values PyMC would reject late or misuse silently.

    Checked before anything is compiled: ``target_accept`` in (0, 1); ``tune``, ``cores``,
    ``max_treedepth`` and the other counts whole numbers within range; the step's scales
    positive; flags booleans; ``init`` one of PyMC's methods.

    Raises
    ------
    TypeError
        A value of the wrong type (``cores="x"``).
    ValueError
        A value out of range (``target_accept=2.0``, ``tune=-5``).

    Examples
    --------
    >>> from bayescm.models.checks import check_option_values
    >>> check_option_values({"target_accept": 2.0})
    Traceback (most recent call last):
    ...
    ValueError: target_accept must lie in (0, 1), got 2.0.
    """
    for key, value in options.items():
        if key == "target_accept":
            check_real(value, key, 0.0, 1.0, low_open=True, high_open=True)
        elif key in _INT_OPTIONS:
            check_int(value, key, _INT_OPTIONS[key], 10**6 if key == "tune" else 2**15)
        elif key in _POSITIVE_OPTIONS:
            check_real(value, key, 0.0, low_open=True)
        elif key in _BOOL_OPTIONS and not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"{key} must be True or False, got {value!r}.")
        elif key == "init" and value not in INITS:
            raise ValueError(f"init must be one of {', '.join(map(repr, INITS))}, got "
                             f"{value!r}.{did_you_mean(str(value), INITS)}")
    step = options.get("nuts")
    if isinstance(step, Mapping):
        check_option_values(step)

NUTS_SAMPLERS = ("pymc", "nutpie", "numpyro", "blackjax")
"""Values of ``nuts_sampler=``: PyMC's own NUTS (the default) or an external implementation."""

_HANDED_TO_NUTPIE = ("max_treedepth",)
"""Step options PyMC hands an external sampler only inside ``nuts=`` (it moves
``target_accept`` there itself and renames ``max_treedepth`` to nutpie's ``maxdepth``)."""


def sampler_options(method: str, sampler_kwargs: Mapping[str, Any] | None,
                     nuts_options: Mapping[str, Any]) -> dict[str, Any]:
    """Validated ``pymc.sample`` options; none are allowed on the exact path.

    On the NUTS path the result always names the sampler: ``nuts_sampler="pymc"`` unless the
    caller chose another (PyMC would otherwise switch to nutpie whenever it is installed, so the
    same seed would give other draws on another machine). For ``nuts_sampler="nutpie"``,
    ``max_treedepth`` moves into ``nuts=``, the only way PyMC hands it to an external sampler
    (``target_accept`` PyMC moves itself).

    Examples
    --------
    >>> from bayescm.models.checks import sampler_options
    >>> sampler_options("nuts", None, {"tune": 500})
    {'tune': 500, 'nuts_sampler': 'pymc'}
    >>> sampler_options("exact", None, {})
    {}
    """
    if sampler_kwargs is not None and not isinstance(sampler_kwargs, Mapping):
        raise TypeError(f"sampler_kwargs must be a mapping of pymc.sample options, got "
                        f"{sampler_kwargs!r}.")
    if sampler_kwargs is not None:
        warn_deprecated("fit(sampler_kwargs={...})", "the options as keywords, fit(..., "
                        "tune=2000, target_accept=0.95): one way to give sampler options")
    options = {**dict(sampler_kwargs or {}), **dict(nuts_options)}
    if not options:
        return {"nuts_sampler": "pymc"} if method == "nuts" else {}
    taken = [k for k in options if k in _SET_BY_FIT]
    if taken:
        hint = "".join(dict.fromkeys(_HINTS.get(k, "") for k in taken))
        raise TypeError(f"fit() got the keyword argument(s) {taken}, which fit sets itself; "
                        "pass draws=, chains=, random_seed=, progressbar= as fit's own "
                        f"arguments.{hint}")
    unknown = [k for k in options if k not in nuts_option_names()]
    if unknown:
        own = ("data, prior, prevalence, tpr, tnr, rates, method, draws, chains, random_seed, "
               "metrics, hdi_prob, progressbar, sampler_kwargs, priors, model, group")
        hint = _HINTS.get(unknown[0], "") or did_you_mean(
            unknown[0], [*own.split(", "), *nuts_option_names()])
        raise TypeError(
            f"fit() got an unknown keyword argument {unknown[0]!r}; valid keywords: {own}, "
            "and pymc.sample options for method='nuts' (e.g. tune, target_accept, cores, "
            f"max_treedepth).{hint}")
    check_option_values(options)
    if method == "exact":
        raise ValueError(
            f"The keyword arguments {sorted(options)} are NUTS sampler options, but this fit "
            "uses the exact "
            "(closed-form) sampler, which has none. Drop them, or pass method='nuts' to sample "
            "with PyMC.")
    return _nuts_backend(options) if method == "nuts" else options


def _nuts_backend(options: dict[str, Any]) -> dict[str, Any]:
    """Name the NUTS implementation and hand nutpie the step options it understands."""
    sampler = options.setdefault("nuts_sampler", "pymc")
    if sampler not in NUTS_SAMPLERS:
        raise ValueError(f"nuts_sampler={sampler!r} is not a NUTS implementation PyMC knows; use "
                         f"one of {', '.join(map(repr, NUTS_SAMPLERS))} ('pymc', the default, "
                         "or 'nutpie', faster: pip install 'bayescm[nutpie]').")
    step = options.get("nuts", {})
    if not isinstance(step, Mapping):
        raise TypeError(f"nuts= must be a mapping of NUTS step options, got {step!r}.")
    if sampler != "nutpie":
        return options
    require_nutpie()
    other = sorted(k for k in options if k in _PYMC_STEP_ONLY)
    if other:
        raise ValueError(
            f"{other} are options of PyMC's own NUTS, which nutpie does not take (PyMC would "
            "drop them silently); drop them, or use nuts_sampler='pymc'.")
    handed = {k: options.pop(k) for k in _HANDED_TO_NUTPIE if k in options}
    if handed:
        options["nuts"] = {**handed, **dict(step)}
    return options


_PYMC_STEP_ONLY = ("early_max_treedepth", "step_scale", "adapt_step_size", "max_energy_error",
                   "gamma", "k", "t0")


def require_nutpie() -> None:
    """Raise an ImportError naming the ``nutpie`` extra unless a nutpie PyMC can use is installed.

    Examples
    --------
    >>> from bayescm.models.checks import require_nutpie
    >>> try:
    ...     require_nutpie()
    ... except ImportError as err:
    ...     assert "bayescm[nutpie]" in str(err)
    """
    import importlib.metadata
    import importlib.util

    from pymc.sampling import mcmc

    wanted = tuple(getattr(mcmc, "NUTPIE_MIN_VERSION", (0,)))
    need = ".".join(map(str, wanted))
    remedy = (f"install it with pip install 'bayescm[nutpie]' (or pip install 'nutpie>={need}', "
              "conda install -c conda-forge nutpie), or use nuts_sampler='pymc'")
    if importlib.util.find_spec("nutpie") is None:
        raise ImportError(f"nuts_sampler='nutpie' needs the nutpie package, which is not "
                          f"installed: {remedy}.")
    version = importlib.metadata.version("nutpie")
    have = tuple(int("".join(c for c in part if c.isdigit()) or 0)
                 for part in version.split(".")[:3])
    if have < wanted:
        raise ImportError(f"nuts_sampler='nutpie': this PyMC needs nutpie >= {need}, but "
                          f"{version} is installed; {remedy}.")


def nuts_option_names() -> frozenset[str]:
    """Options ``pymc.sample`` accepts (its own parameters and the NUTS step's).

    ``nuts_sampler`` (``"pymc"`` or ``"nutpie"``, see :data:`NUTS_SAMPLERS`) chooses the NUTS
    implementation; ``nuts`` is a mapping of options for it.

    Examples
    --------
    >>> from bayescm.models.checks import nuts_option_names
    >>> {"nuts_sampler", "target_accept", "tune", "nuts"} <= nuts_option_names()
    True
    """
    import inspect

    import pymc as pm

    own = set(inspect.signature(pm.sample).parameters) - {"kwargs", "step", "model"} - set(
        _SET_BY_FIT) - set(_NOT_FOR_FIT)
    nuts = {"target_accept", "max_treedepth", "early_max_treedepth", "step_scale",
            "adapt_step_size", "max_energy_error", "gamma", "k", "t0", "nuts", "nuts_sampler"}
    return frozenset(own | nuts)


def choose_method(method: str, priors: Mapping[str, Any], has_exact: bool = True) -> str:
    """The sampler: ``"exact"`` where the kind has one and every prior is conjugate, else NUTS."""
    if method not in METHODS:
        raise ValueError(f"Unknown method {method!r}; use one of {', '.join(METHODS)}.")
    if method == "exact" and not has_exact:
        raise ValueError("This model has no exact (closed-form) sampler; use method='nuts' or "
                         "'auto'.")
    conjugate = has_exact and all(is_conjugate(p) for p in priors.values())
    if method == "exact" and not conjugate:
        custom = [k for k, p in priors.items() if not is_conjugate(p)]
        raise ValueError(
            f"method='exact' needs conjugate priors (Beta, Dirichlet or Fixed), but {custom} "
            "have custom priors; use method='nuts' or 'auto'."
        )
    if method == "auto":
        return "exact" if conjugate else "nuts"
    return method
