"""``bcm.true_prevalence`` and ``bcm.judged_accuracy``: their checks, priors and result trees.

The model and its kinds are in :mod:`bayescm.models.corrected`, the exact draws in
:mod:`bayescm.models.corrected_draws`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from bayescm.core.arguments import check_names, keyword_checked, warn_user
from bayescm.core.validate import check_int

__all__ = ["judged_accuracy", "resolve_corrected_priors", "true_prevalence"]

_POSITIVE_WORDS = frozenset({"correct", "pass", "passed", "true", "1", "yes", "positive",
                             "right", "diseased", "case"})
"""Labels that name the positive class: a validation matrix with one second is refused."""
_RATE_FORMS = ("a bcm.Beta (or a preset name such as 'laplace'), bcm.Fixed(value) or "
               "bcm.priors.Uniform(lower, upper)")


def _rate_prior(prior: Any, name: str, allow_fixed: bool) -> Any:
    """A prior of a proportion this model can draw exactly: Beta, Uniform or Fixed."""
    from bayescm.priors import resolve_prior
    from bayescm.priors.beta import Beta
    from bayescm.priors.uniform import Uniform

    chosen = resolve_prior(prior, name)
    if isinstance(chosen, Uniform):
        if np.ndim(chosen.lower) or np.ndim(chosen.upper) or not (
                float(chosen.lower) >= 0 and float(chosen.upper) <= 1):  # type: ignore[arg-type]
            raise ValueError(f"The prior of {name} is a proportion: Uniform(lower, upper) with "
                             f"0 <= lower < upper <= 1, got {chosen!r}.")
        return chosen
    if getattr(chosen, "fixed", False):
        if not allow_fixed:
            raise ValueError(f"The {name} is what this model estimates; give it a prior "
                             f"({_RATE_FORMS.replace(', bcm.Fixed(value)', '')}), not "
                             "bcm.Fixed.")
        if np.ndim(chosen.value):
            raise ValueError(f"bcm.Fixed for {name} takes one number, got {chosen!r}.")
        return chosen
    if isinstance(chosen, Beta):
        return chosen
    raise TypeError(f"The prior of {name} must be {_RATE_FORMS}; got {chosen!r}.")


def resolve_corrected_priors(given: Mapping[str, Any], validated: bool, true_name: str
                             ) -> dict[str, Any]:
    """The priors of the true rate and the test's TPR and TNR, checked.

    The true rate defaults to a flat Beta(1, 1); the test's rates to Beta(1, 1) when a
    validation matrix updates them, and must be given otherwise (without either the apparent
    count says nothing about the truth).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.corrected_fit import resolve_corrected_priors
    >>> resolve_corrected_priors({"tpr": bcm.Fixed(0.9)}, True, "prevalence")["tnr"]
    Laplace()
    """
    from bayescm.priors.presets import Laplace

    out = {true_name: _rate_prior(given.get(true_name) or Laplace(), true_name, False)}
    for rate in ("tpr", "tnr"):
        if given.get(rate) is None and not validated:
            raise TypeError(
                f"Give the test's {rate} as a prior ({rate}=bcm.Beta(a, b), "
                f"bcm.priors.Uniform(0.6, 1), bcm.Fixed(0.9), ...) or a labelled validation "
                "matrix (validation=bcm.ConfusionMatrix, rows true); without either the "
                "apparent count says nothing about the true rate.")
        out[rate] = _rate_prior(given.get(rate) or Laplace(), rate, True)
        if not out[rate].proper and not validated:
            raise ValueError(f"The {out[rate].name} prior of {rate} is improper; without "
                             "validation counts it has no posterior. Use a proper prior.")
    if not out[true_name].proper:
        raise ValueError(f"The prior of {true_name} must be proper (e.g. 'laplace' or "
                         f"'jeffreys'), got {out[true_name]!r}.")
    return out


def _counts(positives: Any, n: Any, what: str) -> tuple[list[str] | None, np.ndarray,
                                                         np.ndarray]:
    """Systems (None for one count), the apparent counts and the totals, checked."""
    if isinstance(positives, Mapping):
        systems = check_names(positives, f"{what}: system names")
        if not systems:
            raise ValueError(f"{what} is an empty mapping; give at least one system's count.")
        if isinstance(n, Mapping):
            if set(map(str, n)) != set(systems):
                raise ValueError(f"{what} and n must name the same systems: {sorted(systems)} "
                                 f"and {sorted(map(str, n))}.")
            totals = {str(k): v for k, v in n.items()}
        else:
            totals = dict.fromkeys(systems, n)
        pairs = [(positives[k], totals[str(k)], str(k)) for k in positives]
    elif isinstance(n, Mapping):
        raise TypeError(f"n is a mapping but {what} is not; give both per system, or n as one "
                        "number shared by every system.")
    else:
        if np.ndim(positives) == 1 and not isinstance(positives, str):
            raise TypeError(f"{what} is a sequence {list(positives)}: for the counts of several "
                            "predicted classes use bcm.true_shares({class: count, ...}, "
                            "validation=...); for several populations tested with one test, a "
                            "mapping {population: count}.")
        systems, pairs = None, [(positives, n, "")]
    ks, ns = [], []
    for k, m, name in pairs:
        where = f"[{name!r}]" if name else ""
        m = check_int(m, f"n{where}", 1)
        k = check_int(k, f"{what}{where}", 0)
        if k > m:
            raise ValueError(f"{what}{where} = {k} is larger than n{where} = {m}: a count of "
                             "positive results cannot exceed the number tested.")
        ks.append(k)
        ns.append(m)
    return systems, np.array(ks, dtype=float), np.array(ns, dtype=float)


def _validation(validation: Any, what: str) -> tuple[np.ndarray, list[str]] | None:
    """The 2 x 2 counts (rows true, positive first) and labels of a validation matrix."""
    from bayescm.core.confusion import ConfusionMatrix

    if validation is None:
        return None
    if not isinstance(validation, ConfusionMatrix):
        raise TypeError(f"{what} must be a bcm.ConfusionMatrix (rows the true label, columns "
                        f"the test's result), got {type(validation).__name__}.")
    counts = np.asarray(validation.counts, dtype=float)
    if counts.shape != (2, 2):
        raise ValueError(f"{what} must be a binary matrix (2 x 2: positive, negative), got "
                         f"{counts.shape[0]} classes {list(validation.labels)}.")
    labels = [str(v) for v in validation.labels]
    first, second = (v.strip().lower() for v in labels)
    if getattr(validation, "positive", None) is None and second in _POSITIVE_WORDS and (
            first not in _POSITIVE_WORDS):
        raise ValueError(
            f"The {what}'s first row is {labels[0]!r}, but {labels[1]!r} looks like the "
            "positive (correct) class: the first row must be it. Give the matrix with "
            f"positive={labels[1]!r} (bcm.ConfusionMatrix(counts, labels=..., "
            f"positive={labels[1]!r}) puts it first).")
    return counts, labels


def _warn_impossible(ks: np.ndarray, ns: np.ndarray, tpr: float, tnr: float,
                     systems: list[str] | None, true_name: str) -> None:
    """Warn where the apparent rate lies outside ``[1 - tnr, tpr]`` (no true rate fits it)."""
    for i, (k, m) in enumerate(zip(ks, ns, strict=True)):
        rate, who = k / m, (f" of {systems[i]!r}" if systems else "")
        if 1 - tnr <= rate <= tpr:
            continue
        low = rate < 1 - tnr
        bound = f"below 1 - TNR = {1 - tnr:.3g}" if low else f"above TPR = {tpr:.3g}"
        why = ("fewer positives than the false positives alone would give" if low else
               "more positives than even an all-positive population would give")
        check = "specificity (TNR)" if low else "sensitivity (TPR)"
        warn_user(f"The apparent rate{who} {rate:.3g} ({int(k)} of {int(m)}) lies {bound} at "
                  f"the posterior means of the test's rates: no true {true_name} reproduces it "
                  f"there ({why}). The posterior of the {true_name} piles up at "
                  f"{0 if low else 1}; check the counts and the test's {check}.")


def _fit(kind_cls: Any, positives: Any, n: Any, given: dict[str, Any], validation: Any,
         draws: int, chains: int, random_seed: Any, what: str, vname: str) -> Any:
    from bayescm.core import container as box
    from bayescm.core.stats import hdi_prob_for
    from bayescm.core.streams import child, seed_sequence
    from bayescm.models.context import FitContext, assemble
    from bayescm.models.corrected_draws import GRID, Rate, draw_corrected
    from bayescm.models.pooled import diagnostics_dataset

    systems, ks, ns = _counts(positives, n, what)
    checked = _validation(validation, vname)
    counts, labels = checked if checked is not None else (np.zeros((2, 2)), [])
    kind = kind_cls(labels, systems)
    priors = resolve_corrected_priors(given, checked is not None, kind.true_name)
    draws, chains = check_int(draws, "draws", 1), check_int(chains, "chains", 1)
    from bayescm.core.resources import check_memory

    check_memory(float(draws) * chains * (8 * len(ks) + 8), "This fit",
                 ["fewer draws (draws=)", "fewer chains (chains=)"])
    for rate in ("tpr", "tnr"):
        if checked is not None and getattr(priors[rate], "fixed", False):
            warn_user(f"{rate} is fixed, so the {vname} counts do not update it.")
    tpr = Rate(priors["tpr"], counts[0, 0], counts[0, 1])
    tnr = Rate(priors["tnr"], counts[1, 1], counts[1, 0])
    for rate, r in (("tpr", tpr), ("tnr", tnr)):
        if not r.fixed and not hasattr(r.prior, "lower"):
            a, b = r.prior.posterior_params(r.successes, r.failures)
            if a <= 0 or b <= 0:
                raise ValueError(f"The {r.prior.name} prior of {rate} with these {vname} counts "
                                 "gives an improper posterior; use a proper prior.")
    ctx = FitContext(kind=kind, priors=priors, metrics=[], counts=None, names=None,
                     draws=draws, chains=chains, hdi_prob=hdi_prob_for(None), method="exact",
                     seed=seed_sequence(random_seed))
    rng = np.random.default_rng(child(ctx.seed, 0))
    out, excluded = draw_corrected(ks, ns, tpr, tnr, priors[kind.true_name], chains * draws,
                                   rng)
    _warn_impossible(ks, ns, float(out["tpr"].mean()), float(out["tnr"].mean()), systems,
                     kind.true_name)
    lead = box.SAMPLE_DIMS + (("system",) if systems else ())
    names = {"prevalence": kind.true_name, "apparent": kind.apparent_name}
    long = {p.name: p.long_name for p in kind.parameters}
    long[kind.apparent_name] = kind.catalogue[kind.apparent_name].long_name
    variables: dict[str, Any] = {}
    for key, arr in out.items():
        name = names.get(key, key)
        arr = arr.reshape(chains, draws, *arr.shape[1:])
        dims = lead if arr.ndim == 3 and systems else box.SAMPLE_DIMS
        variables[name] = (dims, arr if arr.ndim == 2 or systems else arr[..., 0],
                           {"long_name": long[name]})
    apparent = ks / ns
    youden = tpr.point + tnr.point - 1  # 0: the test says nothing, the estimate is undefined
    rg = (np.clip((apparent + tnr.point - 1) / youden, 0.0, 1.0) if youden != 0
          else np.full_like(apparent, np.nan, dtype=float))
    one = (("system",) if systems else ())
    pick = (lambda v: v) if systems else (lambda v: v[0])
    observed: dict[str, Any] = {
        kind.true_name: (one, pick(rg), {"long_name": "Rogan-Gladen estimate (apparent + "
                                         "tnr - 1) / (tpr + tnr - 1), clipped to [0, 1]; NaN when "
                                         "tpr + tnr = 1"}),
        kind.apparent_name: (one, pick(apparent), {"long_name": "observed apparent rate"}),
        "tpr": ((), tpr.point, {"long_name": "point value of tpr (validation, else prior)"}),
        "tnr": ((), tnr.point, {"long_name": "point value of tnr (validation, else prior)"})}
    coords: dict[str, Any] = {**kind.coords(), "diagnostic": ["r_hat", "ess_bulk", "ess_tail"]}
    if systems:
        coords["system"] = systems
    data: dict[str, Any] = {
        "positives": (one, pick(ks).astype(np.int64), {"long_name": f"{what} (apparent count)"}),
        "n": (one, pick(ns).astype(np.int64), {"long_name": "number tested"})}
    if checked is not None:
        data[vname] = (("true_class", "pred_class"), counts.astype(np.int64),
                       {"long_name": f"{vname} counts (rows true, columns the test's result)"})
    groups = {
        "posterior": box.make_dataset(variables, coords, {"method": "exact"}),
        "diagnostics": diagnostics_dataset(variables, coords),
        "observed_metrics": box.make_dataset(observed, coords),
        "observed_data": box.make_dataset(data, coords),
    }
    return assemble(ctx, groups, method="exact", grid=GRID, excluded_share=excluded,
                    **ctx.seed_record())


@keyword_checked
def true_prevalence(positives: Any, n: Any, *, tpr: Any = None, tnr: Any = None,
                    validation: Any = None, prevalence: Any = None, draws: int = 1000,
                    chains: int = 4, random_seed: Any = None) -> Any:
    r"""The posterior of a true prevalence from an imperfect test's apparent count.

    ``positives ~ Binomial(n, a)`` with the apparent rate ``a = p tpr + (1 - p) (1 - tnr)``;
    the test's ``tpr`` and ``tnr`` come from their priors, updated jointly by a labelled
    validation matrix if one is given, and are restricted to ``tpr + tnr > 1`` (where ``p`` is
    identified). Exact draws (``bayescm.models.corrected_draws``).

    Parameters
    ----------
    positives : int or mapping of str to int
        Positive results; a mapping ``{population: count}`` gives a ``system`` dim (one test).
    n : int or mapping of str to int
        Number tested (one number shared by every population, or a mapping).
    tpr, tnr : prior, optional
        The test's sensitivity and specificity: a :class:`~bayescm.Beta` (or a preset name),
        :class:`~bayescm.priors.Uniform` or :class:`~bayescm.Fixed`. Default Beta(1, 1) when
        ``validation`` is given; required otherwise.
    validation : ConfusionMatrix, optional
        A 2 x 2 matrix of the test on subjects of known status (rows true, positive first).
    prevalence : prior, optional
        The true prevalence's prior (Beta or Uniform); default Beta(1, 1).
    draws, chains : int, default 1000, 4
        Draws per chain and chains (independent draws, laid out as chains).
    random_seed : int or numpy Generator, optional
        Same seed, same draws.

    Returns
    -------
    xarray.DataTree
        ``posterior``: ``prevalence``, ``apparent``, ``tpr``, ``tnr``; ``observed_metrics``:
        the Rogan-Gladen estimate at the rates' point values (clipped to [0, 1]);
        ``observed_data``; ``diagnostics``. Root attribute ``excluded_share``: the prior mass of
        ``(tpr, tnr)`` with ``tpr + tnr <= 1`` that the constraint removed.

    Raises
    ------
    ValueError
        ``positives > n``, a negative count, a validation matrix that is not 2 x 2, priors
        with no mass where ``tpr + tnr > 1``, or two systems of one name.
    ResourceLimitError
        ``draws`` and ``chains`` whose draws would not fit in memory.
    TypeError
        Neither priors of the test's rates nor a validation matrix; a prior it cannot use.

    Warns
    -----
    UserWarning
        The apparent rate outside ``[1 - tnr, tpr]`` at the rates' point values.

    See Also
    --------
    judged_accuracy : The same model for a system graded by an automated judge.

    Examples
    --------
    >>> import bayescm as bcm
    >>> tree = bcm.true_prevalence(142, 742, tpr=bcm.priors.Uniform(0.6, 1),
    ...                            tnr=bcm.priors.Uniform(0.6, 1), random_seed=0)
    >>> round(float(tree["posterior"]["prevalence"].mean()), 2)  # doctest: +MC
    0.13
    """
    return _fit(_kind("true_prevalence"), positives, n,
                {"prevalence": prevalence, "tpr": tpr, "tnr": tnr}, validation, draws, chains,
                random_seed, "positives", "validation")


@keyword_checked
def judged_accuracy(passed: Any, n: Any, *, calibration: Any, tpr: Any = None,
                    tnr: Any = None, accuracy: Any = None, draws: int = 1000, chains: int = 4,
                    random_seed: Any = None) -> Any:
    r"""Systems' true accuracies from an automated judge's pass counts and its calibration.

    The judge passed ``passed`` of a system's ``n`` answers. On a calibration set labelled by
    people (rows the human label, correct first; columns the judge's verdict, pass first) it
    passed a share ``tpr`` of the correct answers and failed a share ``tnr`` of the wrong
    ones. The judged rate is ``accuracy * tpr + (1 - accuracy) * (1 - tnr)``; the judge's rates
    are shared by every system draw by draw, so two systems compared with
    :func:`~bayescm.prob_superior` count the judge's uncertainty once.

    Parameters
    ----------
    passed : int or mapping of str to int
        Answers the judge passed; a mapping ``{system: count}`` gives a ``system`` dim.
    n : int or mapping of str to int
        Answers judged (one number shared by every system, or a mapping).
    calibration : ConfusionMatrix
        The judge against human labels (2 x 2, rows the human label, correct first).
    tpr, tnr : prior, optional
        Priors of the judge's rates before the calibration set (default Beta(1, 1)).
    accuracy : prior, optional
        The true accuracy's prior (Beta or Uniform); default Beta(1, 1).
    draws, chains : int, default 1000, 4
        Draws per chain and chains.
    random_seed : int or numpy Generator, optional
        Same seed, same draws.

    Returns
    -------
    xarray.DataTree
        ``posterior``: ``accuracy``, ``judged`` (dim ``system`` for mappings), ``tpr``,
        ``tnr``; the rest as :func:`true_prevalence`.

    Raises
    ------
    ValueError
        ``passed > n``, a negative count, a calibration matrix that is not 2 x 2, or two
        systems of one name.
    ResourceLimitError
        ``draws`` and ``chains`` whose draws would not fit in memory.
    TypeError
        No calibration matrix, or a prior it cannot use.

    See Also
    --------
    true_prevalence : The same model for a screening test.
    prob_superior : Compare two systems of the result.

    Examples
    --------
    >>> import bayescm as bcm
    >>> cal = bcm.ConfusionMatrix([[110, 10], [12, 68]], labels=["correct", "incorrect"])
    >>> tree = bcm.judged_accuracy({"A": 340, "B": 310}, 500, calibration=cal, random_seed=0)
    >>> round(bcm.prob_superior(tree, "A", "B", metric="accuracy"), 2)  # doctest: +MC
    0.99
    """
    if calibration is None:
        raise TypeError("judged_accuracy needs calibration=bcm.ConfusionMatrix: the judge's "
                        "verdicts on answers labelled by people.")
    return _fit(_kind("judged_accuracy"), passed, n,
                {"accuracy": accuracy, "tpr": tpr, "tnr": tnr}, calibration, draws, chains,
                random_seed, "passed", "calibration")


def _kind(key: str) -> Any:
    from bayescm.models import registry

    return registry.get(key)
