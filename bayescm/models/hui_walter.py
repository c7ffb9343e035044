r"""The kind ``"hui_walter"``: TPR, TNR and prevalence from several tests without a gold standard.

``bcm.fit(bcm.TestResults(frame, tests=[...], population=...))``. Every subject of population
``p`` is diseased with probability ``prevalence[p]``; given its true class, the tests'
results are independent (unless a pair is declared dependent, below), with ``tpr[t]`` and
``tnr[t]`` shared by the populations (Hui & Walter 1980). The true class is marginalised: the
counts of the ``2**T`` result patterns of each population are multinomial with cell
probabilities

.. math:: \pi_{pj} = \mathrm{prev}_p \prod_t \mathrm{tpr}_t^{r_{jt}}
   (1 - \mathrm{tpr}_t)^{1 - r_{jt}} + (1 - \mathrm{prev}_p) \prod_t
   (1 - \mathrm{tnr}_t)^{r_{jt}} \mathrm{tnr}_t^{1 - r_{jt}}

so a fit costs the same for 100 or 10 million subjects.

**Label switching.** Swapping "diseased" and "healthy" (``prev -> 1 - prev``, ``tpr <->
1 - tnr``) gives the same likelihood. The model keeps the labelling in which every test is
better than chance, ``tpr + tnr > 1`` (Youden's J > 0): ``tnr = u`` and ``tpr = 1 - u (1 - s)``
with ``u, s`` in (0, 1) (variables ``tnr_unit`` and ``tpr_share``), the Jacobian ``u`` and
the Beta priors of ``tpr`` and ``tnr`` added to the density. The prior of a test is thus its
two Beta priors restricted to ``tpr + tnr > 1``.

**Conditional dependence.** ``TestResults(..., dependence=[("a", "b")])`` makes the two tests
of a pair dependent within each class, as the covariance terms of the Hui-Walter templates of
runjags: among the positives ``P(a+, b+) = tpr_a tpr_b + cov_pos`` (and the other three cells
to match), among the negatives ``P(a-, b-) = tnr_a tnr_b + cov_neg``. Each covariance is
uniform between the bounds that keep the pair's four cells positive (stored as ``cov_pos`` and
``cov_neg``, dim ``pair``). A test may be in one pair (pairs are blocks: the pattern
probability is the product over blocks, so every cell stays positive).

**Identifiability.** The data have ``P (2**T - 1)`` degrees of freedom; the model has
``2 T + P`` parameters, plus 2 per dependent pair. With more parameters than degrees of
freedom (two tests in one population: 5 > 3) the likelihood has a ridge and the posterior is
the prior's: an :class:`~bayescm.errors.IdentifiabilityWarning` says so unless informative
priors (Beta with ``alpha + beta >= 10``) make up the difference. Two populations also need
different prevalences, which the data, not the count, decide.

Priors: ``priors={"tpr": bcm.Beta(...), "tnr": ..., "prevalence": ...}`` (default
``Beta(1, 1)`` each), or a mapping per test (``{"tpr": {"elisa": bcm.Beta(20, 2)}}``) or per
population; the tests or populations not named keep the default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bayescm.core.latent import TestResults, patterns
from bayescm.metrics.latent import LATENT_METRICS
from bayescm.models.base import ModelKind, Parameter
from bayescm.models.registry import register

__all__ = ["HUI_WALTER_PARAMETERS", "HuiWalterModel", "build_hui_walter_model",
           "check_identifiable", "hui_walter_em", "pattern_probabilities"]

HUI_WALTER_PARAMETERS = ("prevalence", "tpr", "tnr")
"""Parameters whose priors can be given (``priors={name: prior or {label: prior}}``)."""
INFORMATIVE = 10.0
"""A Beta prior with ``alpha + beta`` at least this (ten subjects' worth) counts as informative
in :func:`check_identifiable`."""
_LONG = {"prevalence": "prevalence of the condition in each population",
         "tpr": "true positive rate (sensitivity) of each test",
         "tnr": "true negative rate (specificity) of each test",
         "youden": "Youden's J of each test (tpr + tnr - 1)",
         "apparent_prevalence": "share of positive results of each test in each population",
         "cov_pos": "covariance of a dependent pair's results among the positives",
         "cov_neg": "covariance of a dependent pair's results among the negatives",
         "counts": "subjects per population and result pattern (+ positive, - negative)"}
_EXAMPLES: dict[int, Any] = {}


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
    tpr, tnr : array, shape (..., T)
    pairs : sequence of (int, int)
        Dependent pairs (disjoint), with their covariances ``cov_pos``, ``cov_neg`` of shape
        ``(..., n_pairs)``.

    Returns
    -------
    numpy.ndarray, shape (..., P, 2**T)
        Patterns in the order of :func:`~bayescm.core.latent.patterns`.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.hui_walter import pattern_probabilities
    >>> pi = pattern_probabilities(np.array([0.5]), np.array([0.9, 0.8]), np.array([0.95, 0.9]))
    >>> pi.round(4).tolist(), float(pi.sum())
    ([[0.4375, 0.0525, 0.0325, 0.4775]], 1.0)
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


def check_identifiable(results: TestResults, priors: Mapping[str, Any]) -> bool:
    """Warn (:class:`~bayescm.errors.IdentifiabilityWarning`) when the model is unidentified.

    Counts the free parameters (``2 T + P`` plus 2 per dependent pair) against the degrees of
    freedom (``P (2**T - 1)``); each informative Beta prior (``alpha + beta >=``
    :data:`INFORMATIVE`, per test or population) makes up one missing degree of freedom.

    Returns
    -------
    bool
        Whether the count is met (no warning).

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.hui_walter import check_identifiable
    >>> check_identifiable(bcm.TestResults.from_counts([[9, 1, 2, 8], [30, 2, 3, 5]],
    ...                                                tests=["a", "b"]), {})
    True
    """
    from bayescm.core.arguments import warn_user
    from bayescm.errors import IdentifiabilityWarning

    n_t, n_p = len(results.tests), len(results.populations)
    params = 2 * n_t + n_p + 2 * len(results.pairs)
    df = n_p * ((1 << n_t) - 1)
    informative = 0
    for value in priors.values():
        for prior in (value.values() if isinstance(value, Mapping) else [value]):
            if float(getattr(prior, "alpha", 0)) + float(getattr(prior, "beta", 0)) \
                    >= INFORMATIVE:
                informative += 1
    if params - informative <= df:
        return True
    pairs = f" and {2 * len(results.pairs)} dependence terms" if results.pairs else ""
    warn_user(
        f"The Hui-Walter model is not identified by these data: {params} free parameters "
        f"({2 * n_t} TPRs and TNRs, {n_p} prevalence(s){pairs}) against {df} degrees of "
        f"freedom ({n_p} population(s) x {(1 << n_t) - 1} independent result patterns), and "
        f"{informative} informative prior(s). The posterior then follows the priors however "
        "many subjects there are. Identify it with a second population with another "
        "prevalence (population=), a third test, fewer dependence pairs, or informative "
        "priors on one test's TPR and TNR (priors={'tpr': {test: bcm.Beta(...)}, 'tnr': "
        "{...}} from a validation study).", IdentifiabilityWarning)
    return False


def _beta_arrays(prior: Any, labels: list[str], key: str) -> tuple[np.ndarray, np.ndarray]:
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
    ``pair``); deterministics ``tpr``, ``tnr``, ``cov_pos``, ``cov_neg``.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.hui_walter import build_hui_walter_model
    >>> r = bcm.TestResults.from_counts([[9, 1, 2, 8], [30, 2, 3, 5]], tests=["a", "b"])
    >>> model = build_hui_walter_model(r, {})
    >>> sorted(v.name for v in model.free_RVs)
    ['prevalence', 'tnr_unit', 'tpr_share']
    """
    import pymc as pm
    import pytensor.tensor as pt

    tests, pops = results.tests, results.populations
    coords: dict[str, Any] = {"population": pops, "test": tests,
                              "pattern": results.pattern_names}
    if results.pairs:
        coords["pair"] = [f"{a} ~ {b}" for a, b in results.dependence]
    a_prev, b_prev = _beta_arrays(priors.get("prevalence", {}), pops, "prevalence")
    a_tpr, b_tpr = _beta_arrays(priors.get("tpr", {}), tests, "tpr")
    a_tnr, b_tnr = _beta_arrays(priors.get("tnr", {}), tests, "tnr")
    r = patterns(len(tests))
    single = np.ones(len(tests))
    for a, b in results.pairs:
        single[[a, b]] = 0.0
    with pm.Model(coords=coords) as model:
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
        pm.Multinomial("patterns", n=results.n_subjects, p=pi, observed=results.counts,
                       dims=("population", "pattern"))
    return model


def hui_walter_em(counts: np.ndarray, tpr: Sequence[float] = (), tnr: Sequence[float] = (),
                  iterations: int = 5000, tol: float = 1e-12) -> dict[str, np.ndarray]:
    """Maximum-likelihood estimates of the conditionally independent model by EM.

    A cross-check of the Bayesian fit (flat priors: the posterior mode). ``counts`` is
    ``(P, 2**T)``; starts at ``tpr = tnr = 0.8`` unless given.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.hui_walter import hui_walter_em
    >>> est = hui_walter_em(np.array([[528, 9, 4, 14], [367, 37, 31, 887]]))
    >>> est["tpr"].round(3).tolist(), est["prevalence"].round(3).tolist()
    ([0.968, 0.974], [0.026, 0.717])
    """
    counts = np.asarray(counts, dtype=float)
    n_t = int(np.log2(counts.shape[1]))
    r = patterns(n_t)
    se = np.asarray(tpr, dtype=float) if len(tpr) else np.full(n_t, 0.8)
    sp = np.asarray(tnr, dtype=float) if len(tnr) else np.full(n_t, 0.8)
    prev = np.full(counts.shape[0], 0.5)
    last = -np.inf
    for _ in range(iterations):
        pos = np.prod(np.where(r == 1, se, 1 - se), axis=1)
        neg = np.prod(np.where(r == 1, 1 - sp, sp), axis=1)
        num = prev[:, None] * pos[None, :]
        mix = num + (1 - prev[:, None]) * neg[None, :]
        ll = float((counts * np.log(mix)).sum())
        w = num / mix  # P(diseased | pattern, population)
        prev = (counts * w).sum(axis=1) / counts.sum(axis=1)
        d, h = counts * w, counts * (1 - w)
        se = (d.sum(axis=0) @ r) / d.sum()
        sp = (h.sum(axis=0) @ (1 - r)) / h.sum()
        if abs(ll - last) < tol:
            break
        last = ll
    return {"prevalence": prev, "tpr": se, "tnr": sp, "loglik": np.array(ll)}


@register
class HuiWalterModel(ModelKind):
    """The registered kind ``"hui_walter"``: a latent class model of binary tests.

    Fitted with ``bcm.fit(bcm.TestResults(...))`` (NUTS, 4 x 1,000 draws by default; sampler
    options ``tune``, ``target_accept``, ``cores``, ``nuts_sampler``). See the module notes
    for the model, the constraint ``tpr + tnr > 1`` and conditional dependence.

    Examples
    --------
    >>> from bayescm.models.hui_walter import HuiWalterModel
    >>> HuiWalterModel(["a", "b"], ["all"]).prior_arguments
    ('prevalence', 'tpr', 'tnr')
    """

    key = "hui_walter"
    standard_pipeline = False
    own_data_model = True
    accepts_matrices = False
    description = "a latent class fit of several tests (Hui-Walter)"
    default_draws = 1000
    parameters = (Parameter("prevalence", ("population",), _LONG["prevalence"]),
                  Parameter("tpr", ("test",), _LONG["tpr"]),
                  Parameter("tnr", ("test",), _LONG["tnr"]))
    analyses = frozenset({"summary"})
    figures = ()
    metric_family = "latent"
    catalogue = LATENT_METRICS

    def __init__(self, tests: Sequence[str], populations: Sequence[str],
                 dependence: Sequence[Sequence[str]] = (),
                 data: TestResults | None = None) -> None:
        super().__init__([])
        self.tests = [str(t) for t in tests]
        self.populations = [str(p) for p in populations]
        self.dependence = [(str(a), str(b)) for a, b in dependence]
        self.data = data

    @staticmethod
    def long_names() -> dict[str, str]:
        """Long names of the stored variables."""
        return dict(_LONG)

    def coords(self) -> dict[str, Any]:
        """The tests and populations."""
        return {"test": self.tests, "population": self.populations}

    def root_attrs(self) -> dict[str, Any]:
        """The tests, populations and dependent pairs."""
        import json

        return {"tests": json.dumps(self.tests), "populations": json.dumps(self.populations),
                "dependence": json.dumps(self.dependence)}

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any], labels: Sequence[Any]) -> HuiWalterModel:
        """The tests, populations and pairs stored by :meth:`root_attrs`."""
        import json

        return cls(json.loads(attrs["tests"]), json.loads(attrs["populations"]),
                   json.loads(attrs.get("dependence", "[]")))

    @classmethod
    def accepts(cls, data: Any) -> bool:
        """A :class:`~bayescm.TestResults`."""
        return isinstance(data, TestResults)

    @classmethod
    def from_data(cls, data: Any) -> HuiWalterModel:
        """The kind of test results."""
        if not isinstance(data, TestResults):
            raise TypeError("The Hui-Walter model needs bcm.TestResults(frame, tests=[...]), "
                            f"got {type(data).__name__}.")
        return cls(data.tests, data.populations, data.dependence, data)

    def select_metrics(self, selected: Sequence[Any], priors: Mapping[str, Any]) -> list[Any]:
        """None: the stored quantities are fixed."""
        return []

    def resolve_priors(self, prior: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """Beta priors per parameter (or per test / population); default ``Beta(1, 1)``."""
        from bayescm.priors import Beta, resolve_prior

        if prior is not None:
            raise ValueError("The Hui-Walter model's priors are set with priors={...} (keys: "
                             f"{', '.join(HUI_WALTER_PARAMETERS)}), not prior=.")
        out: dict[str, Any] = {}
        for key in HUI_WALTER_PARAMETERS:
            value = overrides.get(key)
            labels = self.populations if key == "prevalence" else self.tests
            if value is None:
                out[key] = Beta(1, 1)
            elif isinstance(value, Mapping):
                out[key] = {str(k): resolve_prior(v, key) for k, v in value.items()}
            else:
                out[key] = resolve_prior(value, key)
            _beta_arrays(out[key], labels, key)  # checks the labels and the family
        return out

    def build_pymc(self, names: Any, counts: Any, priors: Mapping[str, Any]) -> Any:
        """The PyMC model of the test results (:func:`build_hui_walter_model`)."""
        if self.data is None:
            raise ValueError("The Hui-Walter model is built from its data: "
                             "bcm.build_model(results).")
        return build_hui_walter_model(self.data, priors)

    def observed(self, counts: Any, priors: Any) -> Any:
        """Not used: the fit computes the observed values."""
        raise NotImplementedError

    def derive(self, params: Any, priors: Any, selected: Any, theta: Any = None,
               skip: Any = None) -> Any:
        """Not used: the fit derives its quantities."""
        raise NotImplementedError

    def fit(self, ctx: Any, options: Mapping[str, Any]) -> Any:
        """NUTS on the pattern counts (:func:`fit_hui_walter`)."""
        return fit_hui_walter(ctx, options)

    @classmethod
    def example(cls, random_seed: int = 0) -> Any:
        """Hui & Walter's (1980) Mantoux and Tine tests in two populations (4 x 500 draws)."""
        if random_seed not in _EXAMPLES:
            from bayescm.models.fitting import fit

            _EXAMPLES[random_seed] = fit(cls.example_data(), draws=500,
                                         random_seed=random_seed)
        return _EXAMPLES[random_seed].copy(deep=True)

    @staticmethod
    def example_data() -> TestResults:
        """The tuberculosis data of Hui & Walter (1980, Table 1): 1,877 subjects.

        Examples
        --------
        >>> from bayescm.models.hui_walter import HuiWalterModel
        >>> HuiWalterModel.example_data().counts.tolist()
        [[528, 9, 4, 14], [367, 37, 31, 887]]
        """
        return TestResults.from_counts([[528, 9, 4, 14], [367, 37, 31, 887]],
                                       tests=["mantoux", "tine"],
                                       populations=["southern_us", "ohio"])


def fit_hui_walter(ctx: Any, options: Mapping[str, Any]) -> Any:
    """Sample the Hui-Walter model of ``ctx.data`` and assemble the tree (see the module)."""
    from bayescm.models.latent_fit import check_options, latent_tree, sample_latent

    data: TestResults = ctx.data
    opts = check_options(ctx, options, "test results")
    check_identifiable(data, ctx.priors)
    if opts["initvals"] is None:  # start in the labelling the constraint keeps, mid-range
        n_t = len(data.tests)
        opts["initvals"] = {"tnr_unit": np.full(n_t, 0.85), "tpr_share": np.full(n_t, 0.8)}
    model = build_hui_walter_model(data, ctx.priors)
    names = ["prevalence", "tpr", "tnr"] + (["cov_pos", "cov_neg"] if data.pairs else [])
    draws, stats = sample_latent(model, names, ctx, opts)
    prev, tpr, tnr = draws["prevalence"], draws["tpr"], draws["tnr"]
    variables: dict[str, tuple[tuple[str, ...], np.ndarray]] = {
        "prevalence": (("population",), prev), "tpr": (("test",), tpr),
        "tnr": (("test",), tnr), "youden": (("test",), tpr + tnr - 1),
        "apparent_prevalence": (("population", "test"),
                                prev[..., :, None] * tpr[..., None, :]
                                + (1 - prev[..., :, None]) * (1 - tnr[..., None, :]))}
    coords: dict[str, Any] = {"population": data.populations, "test": data.tests,
                              "pattern": data.pattern_names}
    if data.pairs:
        coords["pair"] = [f"{a} ~ {b}" for a, b in data.dependence]
        variables["cov_pos"] = (("pair",), draws["cov_pos"])
        variables["cov_neg"] = (("pair",), draws["cov_neg"])
    share = (data.counts @ patterns(len(data.tests))) / data.n_subjects[:, None]
    return latent_tree(
        ctx, variables, coords, stats,
        observed={"counts": (("population", "pattern"), np.asarray(data.counts),
                             _LONG["counts"])},
        observed_metrics={"apparent_prevalence": (("population", "test"), share,
                                                  _LONG["apparent_prevalence"])},
        checked=names, opts=opts,
        remedy="For test results: check the IdentifiabilityWarning, give informative priors "
               "on one test, or more tuning (tune=2000).",
        n_subjects=int(data.n_subjects.sum()))
