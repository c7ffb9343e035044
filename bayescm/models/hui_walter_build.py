"""The Hui-Walter model's arithmetic: pattern probabilities, the PyMC model, EM.

:func:`pattern_probabilities` (NumPy, vectorised over draws) and
:func:`build_hui_walter_model` (PyMC) compute the same cell probabilities of the result
patterns; :func:`hui_walter_em` is the maximum-likelihood cross-check. The model is described
in :mod:`bayescm.models.hui_walter`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bayescm.core.latent import TestResults, patterns
from bayescm.core.latent_patterns import consistency

__all__ = ["beta_arrays", "build_hui_walter_model", "hui_walter_em", "pattern_probabilities"]


def _pair_cells(a: Any, b: Any, cov: Any) -> list[Any]:
    """The four cells (00, 01, 10, 11) of two tests' results with success rates a, b."""
    return [(1 - a) * (1 - b) + cov, (1 - a) * b - cov, a * (1 - b) - cov, a * b + cov]


def pattern_probabilities(prevalence: np.ndarray, tpr: np.ndarray, tnr: np.ndarray,
                          pairs: Sequence[tuple[int, int]] = (), cov_pos: Any = None,
                          cov_neg: Any = None) -> np.ndarray:
    """Cell probabilities of every result pattern per population, vectorised over draws.

    Parameters
    ----------
    prevalence : array, shape (..., P)
        Each population's prevalence.
    tpr, tnr : array, shape (..., T)
        Each test's rates.
    pairs : sequence of (int, int)
        Dependent pairs (disjoint).
    cov_pos, cov_neg : array, shape (..., n_pairs), optional
        Their covariances among the positives and the negatives.

    Returns
    -------
    numpy.ndarray, shape (..., P, 2**T)
        Patterns in the order of :func:`~bayescm.core.latent.patterns`.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.hui_walter_build import pattern_probabilities
    >>> pi = pattern_probabilities(np.array([0.5]), np.array([0.9, 0.8]), np.array([0.95, 0.9]))
    >>> pi.round(4).tolist(), float(pi.sum())
    ([[0.4375, 0.0875, 0.1125, 0.3625]], 1.0)
    """
    prev = np.asarray(prevalence, dtype=float)
    pos = _class_pattern_probs(np.asarray(tpr, dtype=float), pairs, cov_pos)
    neg = _class_pattern_probs(1 - np.asarray(tnr, dtype=float), pairs, cov_neg)
    return prev[..., :, None] * pos[..., None, :] + (1 - prev[..., :, None]) * neg[..., None, :]


def _class_pattern_probs(rate: np.ndarray, pairs: Sequence[tuple[int, int]],
                         cov: Any) -> np.ndarray:
    """P(pattern | class) for per-test positive rates ``rate`` (..., T): (..., 2**T)."""
    t = rate.shape[-1]
    r = patterns(t)
    single = np.ones(t, dtype=bool)
    for a, b in pairs:
        single[[a, b]] = False
    logs = (np.log(rate[..., None, :]) * r + np.log1p(-rate[..., None, :]) * (1 - r))
    out = np.exp((logs * single).sum(axis=-1))
    for k, (a, b) in enumerate(pairs):
        cells = np.stack(_pair_cells(rate[..., a], rate[..., b], np.asarray(cov)[..., k]), -1)
        out = out * cells[..., 2 * r[:, a] + r[:, b]]
    return out


def beta_arrays(prior: Any, labels: list[str], key: str) -> tuple[np.ndarray, np.ndarray]:
    """Each label's Beta ``alpha`` and ``beta`` from one prior or a mapping label -> prior.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.hui_walter_build import beta_arrays
    >>> [a.tolist() for a in beta_arrays({"b": bcm.Beta(9, 1)}, ["a", "b"], "tpr")]
    [[1.0, 9.0], [1.0, 1.0]]
    """
    a = np.ones(len(labels))
    b = np.ones(len(labels))
    entries = prior if isinstance(prior, Mapping) else {label: prior for label in labels}
    for label, value in entries.items():
        if str(label) not in labels:
            raise ValueError(f"priors={{{key!r}: {{{label!r}: ...}}}}: {label!r} is not one of "
                             f"{labels}.")
        alpha, beta = getattr(value, "alpha", None), getattr(value, "beta", None)
        if not isinstance(alpha, (int, float)) or not isinstance(beta, (int, float)) \
                or alpha <= 0 or beta <= 0:
            raise TypeError(f"priors={{{key!r}: ...}} takes Beta priors (bcm.Beta(a, b), "
                            f"'laplace', 'jeffreys') or a mapping of them, got {value!r}.")
        a[labels.index(str(label))], b[labels.index(str(label))] = alpha, beta
    return a, b


def build_hui_walter_model(results: TestResults, priors: Mapping[str, Any]) -> Any:
    """The PyMC model of test results (the latent class marginalised; see the module).

    Free variables ``prevalence`` (dim ``population``), ``tnr_unit`` and ``tpr_share`` (dim
    ``test``) and, with dependent pairs, ``cov_pos_unit`` and ``cov_neg_unit`` (dim
    ``pair``); deterministics ``tpr``, ``tnr``, ``cov_pos``, ``cov_neg``. The pattern counts
    are ``pm.Data("counts")``: new results of the same tests refit without building again.

    Subjects with every test read are the multinomial ``patterns`` (as without missing
    results). Subjects with some tests missing (``results.partial_counts``, a
    ``pm.Data("partial_counts")`` with dim ``partial_pattern``) add the potential
    ``partial_patterns``: ``sum(count * log(C @ pi))``, ``C`` the fixed 0/1 matrix of the full
    patterns consistent with each partial one
    (:func:`~bayescm.core.latent_patterns.consistency`), so the missing tests are
    marginalised on the same full-pattern probabilities (dependent pairs included). It is the
    log-likelihood of the multinomials of the partial patterns up to their constant
    coefficients.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.hui_walter_build import build_hui_walter_model
    >>> r = bcm.TestResults.from_counts([[9, 1, 2, 8], [30, 2, 3, 5]], tests=["a", "b"])
    >>> model = build_hui_walter_model(r, {})
    >>> sorted(v.name for v in model.free_RVs)
    ['prevalence', 'tnr_unit', 'tpr_share']
    >>> r = bcm.TestResults.from_counts([[9, 1, 2, 8], [30, 2, 3, 5]], tests=["a", "b"],
    ...                                 partial={"+?": [4, 1]})
    >>> [v.name for v in build_hui_walter_model(r, {}).potentials]
    ['tpr_tnr_prior', 'partial_patterns']
    """
    import pymc as pm
    import pytensor.tensor as pt

    tests, pops = results.tests, results.populations
    coords: dict[str, Any] = {"population": pops, "test": tests,
                              "pattern": results.pattern_names}
    if results.pairs:
        coords["pair"] = [f"{a} ~ {b}" for a, b in results.dependence]
    a_prev, b_prev = beta_arrays(priors.get("prevalence", {}), pops, "prevalence")
    a_tpr, b_tpr = beta_arrays(priors.get("tpr", {}), tests, "tpr")
    a_tnr, b_tnr = beta_arrays(priors.get("tnr", {}), tests, "tnr")
    r = patterns(len(tests))
    single = np.ones(len(tests))
    for a, b in results.pairs:
        single[[a, b]] = 0.0
    with pm.Model(coords=coords) as model:
        counts = pm.Data("counts", np.asarray(results.counts), dims=("population", "pattern"))
        prev = pm.Beta("prevalence", alpha=a_prev, beta=b_prev, dims="population")
        unit = pm.Uniform("tnr_unit", 0.0, 1.0, dims="test")
        share = pm.Uniform("tpr_share", 0.0, 1.0, dims="test")
        tnr = pm.Deterministic("tnr", unit, dims="test")
        tpr = pm.Deterministic("tpr", 1.0 - unit * (1.0 - share), dims="test")
        pm.Potential("tpr_tnr_prior", pt.sum(
            pt.log(unit) + pm.logp(pm.Beta.dist(a_tpr, b_tpr), tpr)
            + pm.logp(pm.Beta.dist(a_tnr, b_tnr), tnr)))

        def class_probs(rate: Any, cov: Any) -> Any:
            logs = pt.log(rate)[None, :] * r + pt.log1p(-rate)[None, :] * (1 - r)
            out = pt.exp(pt.sum(logs * single, axis=1))
            for k, (i, j) in enumerate(results.pairs):
                cells = pt.stack(_pair_cells(rate[i], rate[j], cov[k]))
                out = out * cells[2 * r[:, i] + r[:, j]]
            return out

        cov_pos = cov_neg = None
        if results.pairs:
            ii = np.array([p[0] for p in results.pairs])
            jj = np.array([p[1] for p in results.pairs])
            covs = []
            for name, rate in (("cov_pos", tpr), ("cov_neg", 1.0 - tnr)):
                x, y = rate[ii], rate[jj]
                lo = pt.maximum(-x * y, -(1 - x) * (1 - y))
                hi = pt.minimum(x * (1 - y), y * (1 - x))
                w = pm.Uniform(f"{name}_unit", 0.0, 1.0, dims="pair")
                covs.append(pm.Deterministic(name, lo + (hi - lo) * w, dims="pair"))
            cov_pos, cov_neg = covs
        pos = class_probs(tpr, cov_pos)
        neg = class_probs(1.0 - tnr, cov_neg)
        pi = prev[:, None] * pos[None, :] + (1.0 - prev[:, None]) * neg[None, :]
        pm.Multinomial("patterns", n=counts.sum(axis=1), p=pi, observed=counts,
                       dims=("population", "pattern"))
        if results.partial_patterns.shape[0]:
            model.add_coord("partial_pattern", results.partial_names)
            partial = pm.Data("partial_counts", np.asarray(results.partial_counts),
                              dims=("population", "partial_pattern"))
            agree = consistency(results.partial_patterns)  # (Q, 2**T), fixed
            pm.Potential("partial_patterns",
                         pt.sum(partial * pt.log(pt.dot(pi, agree.T))))
    return model


def hui_walter_em(counts: np.ndarray | TestResults, tpr: Sequence[float] = (),
                  tnr: Sequence[float] = (), iterations: int = 5000, tol: float = 1e-12, *,
                  partial_patterns: np.ndarray | None = None,
                  partial_counts: np.ndarray | None = None) -> dict[str, np.ndarray]:
    """Maximum-likelihood estimates of the conditionally independent model by EM.

    A cross-check of the Bayesian fit (flat priors: the posterior mode). ``counts`` is
    ``(P, 2**T)``, or a :class:`~bayescm.TestResults` (its counts and partial patterns);
    starts at ``tpr = tnr = 0.8`` unless given. Subjects with some tests missing are
    ``partial_patterns`` ``(Q, T)`` (-1 for a test not done) and ``partial_counts``
    ``(P, Q)``: the E-step spreads each over the full patterns consistent with it and the two
    classes (the missing tests marginalised, as in the PyMC model).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.hui_walter_build import hui_walter_em
    >>> est = hui_walter_em(np.array([[528, 9, 4, 14], [367, 37, 31, 887]]))
    >>> est["tpr"].round(3).tolist(), est["prevalence"].round(3).tolist()
    ([0.966, 0.969], [0.027, 0.717])
    >>> import bayescm as bcm
    >>> partly = bcm.TestResults.from_counts([[528, 9, 4, 14], [367, 37, 31, 887]],
    ...                                      tests=["mantoux", "tine"],
    ...                                      partial={"?-": [300, 200], "?+": [10, 500]})
    >>> hui_walter_em(partly)["prevalence"].round(3).tolist()
    [0.025, 0.722]
    """
    if isinstance(counts, TestResults):
        partial_patterns, partial_counts = counts.partial_patterns, counts.partial_counts
        counts = counts.counts
    counts = np.asarray(counts, dtype=float)
    n_t = int(np.log2(counts.shape[1]))
    r = patterns(n_t)
    if partial_patterns is None or partial_counts is None:
        partial_patterns = np.zeros((0, n_t), dtype=np.int64)
        partial_counts = np.zeros((counts.shape[0], 0))
    agree = consistency(np.asarray(partial_patterns).reshape(-1, n_t))  # (Q, 2**T)
    seen = np.asarray(partial_counts, dtype=float).reshape(counts.shape[0], -1)
    size = counts.sum(axis=1) + seen.sum(axis=1)
    se = np.asarray(tpr, dtype=float) if len(tpr) else np.full(n_t, 0.8)
    sp = np.asarray(tnr, dtype=float) if len(tnr) else np.full(n_t, 0.8)
    prev = np.full(counts.shape[0], 0.5)
    last = -np.inf
    for _ in range(iterations):
        pos = np.prod(np.where(r == 1, se, 1 - se), axis=1)
        neg = np.prod(np.where(r == 1, 1 - sp, sp), axis=1)
        num = prev[:, None] * pos[None, :]
        mix = num + (1 - prev[:, None]) * neg[None, :]
        some = mix @ agree.T  # each partial pattern's probability, (P, Q)
        ll = float((counts * np.log(mix)).sum() + (seen * np.log(some)).sum())
        # expected subjects per (population, full pattern): read, plus the partial patterns'
        # share of each consistent full pattern; then P(diseased | full pattern, population)
        spread = counts + mix * ((seen / some) @ agree)
        w = num / mix
        d, h = spread * w, spread * (1 - w)
        prev = d.sum(axis=1) / size
        se = (d.sum(axis=0) @ r) / d.sum()
        sp = (h.sum(axis=0) @ (1 - r)) / h.sum()
        if abs(ll - last) < tol:
            break
        last = ll
    return {"prevalence": prev, "tpr": se, "tnr": sp, "loglik": np.array(ll)}
