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

**Missing results.** A subject with some tests not done contributes the probability of its
partial pattern, the sum of the probabilities of the full patterns consistent with it (the
missing tests marginalised; valid when results are missing at random given the true class):
see :class:`~bayescm.TestResults` and
:func:`~bayescm.models.hui_walter_build.build_hui_walter_model`.

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
from bayescm.core.latent_patterns import MISSING, consistency
from bayescm.metrics.latent import LATENT_METRICS
from bayescm.models.base import ModelKind, Parameter
from bayescm.models.hui_walter_build import beta_arrays, build_hui_walter_model
from bayescm.models.registry import register

__all__ = ["HUI_WALTER_PARAMETERS", "HuiWalterModel", "check_identifiable",
           "degrees_of_freedom", "fit_hui_walter", "results_tree"]

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
         "counts": "subjects per population and result pattern (+ positive, - negative)",
         "partial_counts": "subjects with some tests missing per population and partial "
                           "pattern (? not done)"}
_EXAMPLES: dict[int, Any] = {}


def check_identifiable(results: TestResults, priors: Mapping[str, Any]) -> bool:
    """Warn (:class:`~bayescm.errors.IdentifiabilityWarning`) when the model is unidentified.

    Counts the free parameters (``2 T + P`` plus 2 per dependent pair) against the degrees of
    freedom (``P (2**T - 1)``); each informative Beta prior (``alpha + beta >=``
    :data:`INFORMATIVE`, per test or population) makes up one missing degree of freedom.
    With missing results a population's degrees of freedom are those of the patterns its
    subjects can show (:func:`degrees_of_freedom`): subjects with every test read give all
    ``2**T - 1``; a population where some test was never done gives fewer.

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
    df = int(degrees_of_freedom(results).sum())
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
        f"freedom ({n_p} population(s) x {(1 << n_t) - 1} independent result patterns"
        f"{_fewer(results, df)}), and "
        f"{informative} informative prior(s). The posterior then follows the priors however "
        "many subjects there are. Identify it with a second population with another "
        "prevalence (population=), a third test, fewer dependence pairs, or informative "
        "priors on one test's TPR and TNR (priors={'tpr': {test: bcm.Beta(...)}, 'tnr': "
        "{...}} from a validation study).", IdentifiabilityWarning)
    return False


def degrees_of_freedom(results: TestResults) -> np.ndarray:
    """Each population's degrees of freedom: the patterns its subjects' read tests can show.

    The rank of the stacked maps from the ``2**T`` full-pattern probabilities to the
    probabilities of the patterns seen (one block per set of tests read in the population:
    the identity for subjects with every test read), minus one for their sum. Without
    missing results every population has ``2**T - 1``.

    Examples
    --------
    >>> import bayescm as bcm
    >>> from bayescm.models.hui_walter import degrees_of_freedom
    >>> r = bcm.TestResults.from_counts([[9, 1, 2, 8], [0, 0, 0, 0]], tests=["a", "b"],
    ...                                 partial={"+?": [0, 5], "-?": [0, 7]})
    >>> degrees_of_freedom(r).tolist()
    [3, 1]
    """
    n_t = len(results.tests)
    full = patterns(n_t)
    partial, seen = results.partial_patterns, results.partial_counts
    out = np.zeros(len(results.populations), dtype=np.int64)
    for p in range(len(results.populations)):
        if results.counts[p].sum() > 0:
            out[p] = (1 << n_t) - 1
            continue
        masks = np.unique(partial[seen[p] > 0] != MISSING, axis=0)
        rows = np.unique(np.concatenate([np.where(m, full, MISSING) for m in masks]), axis=0)
        out[p] = np.linalg.matrix_rank(consistency(rows)) - 1
    return out


def _fewer(results: TestResults, df: int) -> str:
    n_p, n_t = len(results.populations), len(results.tests)
    if df == n_p * ((1 << n_t) - 1):
        return ""
    return "; fewer, as some populations have no subject with every test read"


@register
class HuiWalterModel(ModelKind):
    """The registered kind ``"hui_walter"``: a latent class model of binary tests.

    Fitted with ``bcm.fit(bcm.TestResults(...))`` (NUTS, 4 x 1,000 draws by default; sampler
    options ``tune``, ``target_accept``, ``cores``, ``nuts_sampler`` (default ``"pymc"``:
    faster than nutpie for this small model, see
    :func:`~bayescm.models.latent_fit.check_options`), ``initvals``). See the module notes
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
    analyses = frozenset({"summary", "test_rates"})
    figures = ("test_rates",)
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
            beta_arrays(out[key], labels, key)  # checks the labels and the family
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
    from bayescm.models.latent_fit import check_options, sample_latent

    data: TestResults = ctx.data
    opts = check_options(ctx, options, "test results", prefer="pymc")
    check_identifiable(data, ctx.priors)
    if opts["initvals"] is None:  # start in the labelling the constraint keeps, mid-range
        n_t = len(data.tests)
        opts["initvals"] = {"tnr_unit": np.full(n_t, 0.85), "tpr_share": np.full(n_t, 0.8)}
    model = build_hui_walter_model(data, ctx.priors)
    names = ["prevalence", "tpr", "tnr"] + (["cov_pos", "cov_neg"] if data.pairs else [])
    draws, stats = sample_latent(model, names, ctx, opts)
    return results_tree(ctx, draws, stats, opts)


def results_tree(ctx: Any, draws: Mapping[str, np.ndarray], stats: Any,
                 opts: Mapping[str, Any]) -> Any:
    """The tree of a Hui-Walter fit from draws ``(chain, draw, ...)`` of its parameters.

    Derives ``youden`` and ``apparent_prevalence``, then
    :func:`~bayescm.models.latent_fit.latent_tree` (diagnostics, convergence check).
    """
    from bayescm.models.latent_fit import latent_tree

    data: TestResults = ctx.data
    names = ["prevalence", "tpr", "tnr"] + (["cov_pos", "cov_neg"] if data.pairs else [])
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
    observed = {"counts": (("population", "pattern"), np.asarray(data.counts), _LONG["counts"])}
    if data.partial_patterns.shape[0]:
        coords["partial_pattern"] = data.partial_names
        observed["partial_counts"] = (("population", "partial_pattern"),
                                      np.asarray(data.partial_counts), _LONG["partial_counts"])
    with np.errstate(invalid="ignore", divide="ignore"):  # a test not done in a population
        share = data.positives / data.tested
    return latent_tree(
        ctx, variables, coords, stats, observed=observed,
        observed_metrics={"apparent_prevalence": (("population", "test"), share,
                                                  _LONG["apparent_prevalence"])},
        checked=names, opts=opts,
        remedy="For test results: check the IdentifiabilityWarning, give informative priors "
               "on one test, or more tuning (tune=2000).",
        n_subjects=int(data.n_subjects.sum()))
