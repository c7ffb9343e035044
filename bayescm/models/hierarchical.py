r"""Several test sets, sites or subgroups: the bivariate binomial-normal model (partial pooling).

For groups :math:`g = 1 \dots G` (sites, studies, subgroups, months) with binary matrices
:math:`(TP_g, FN_g, FP_g, TN_g)` this is the bivariate random-effects model of diagnostic
test-accuracy meta-analysis (Reitsma et al. 2005; Chu & Cole 2006), fitted straight from the
counts, with no continuity correction::

    (logit TPR_g, logit TNR_g) ~ Normal2(mu, Sigma)
    Sigma = [[s_t^2, r s_t s_n], [r s_t s_n, s_n^2]]
    TP_g ~ Binomial(TP_g + FN_g, TPR_g)        TN_g ~ Binomial(TN_g + FP_g, TNR_g)
    prevalence_g ~ Beta(1, 1)                  TP_g + FN_g ~ Binomial(N_g, prevalence_g)

written non-centred (``logit = mu + L z_g`` with ``z_g ~ Normal(0, I)`` and ``L`` the Cholesky
factor of Sigma) for NUTS. Default priors are weakly informative on the logit scale:
``mu ~ Normal(0, 2)`` (most mass for rates between 2 % and 98 %), ``s ~ HalfNormal(1)`` (a
between-group SD of 1 on the logit scale is large), and an LKJ(2) prior on the correlation
(``(r + 1) / 2 ~ Beta(2, 2)``, mildly favouring small correlations).

The posterior holds the shrunken per-group ``tpr``, ``tnr``, ``prevalence`` (dim: the group dim
the user names) and every binary metric per group; the pooled ``tpr_mean``, ``tnr_mean`` (the
rates at the centre, ``invlogit(mu)``); ``tpr_new``, ``tnr_new`` for a new group drawn from the
population of groups; the between-group ``sd_logit_tpr``, ``sd_logit_tnr`` and ``corr_logit``;
and the summary ROC curve ``sroc`` (the conditional mean of logit TPR given logit FPR) over the
grid ``sroc_fpr`` (the metric ``fpr`` of each group is a variable, so the grid has its own name).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from bayescm.metrics.base import BINARY_METRICS
from bayescm.models.base import ModelKind, Parameter
from bayescm.models.hierarchical_priors import (
    HIERARCHICAL_PARAMETERS,
    LKJ,
    HalfNormal,
    Normal,
    default_priors,
    resolve_priors,
)
from bayescm.models.registry import register

if TYPE_CHECKING:
    import pymc as pm

__all__ = ["HIERARCHICAL_PARAMETERS", "LKJ", "HalfNormal", "HierarchicalModel", "Normal",
           "build_hierarchical_model", "default_priors", "resolve_priors", "sroc_draws"]


def build_hierarchical_model(names: Sequence[str], counts: np.ndarray, group: str,
                             priors: Mapping[str, Any] | None = None) -> pm.Model:
    """The PyMC model of ``(G, 2, 2)`` binary counts over the group dim ``group``.

    Free variables: ``mu_logit_tpr``, ``mu_logit_tnr``, ``sd_logit_tpr``, ``sd_logit_tnr``, the
    correlation's ``corr_logit_beta``, the standardised effects ``z`` (dims ``group, logit``),
    ``prevalence`` (dim ``group``) and ``z_new`` for a new group. Deterministics: ``tpr``,
    ``tnr`` (dim ``group``), ``corr_logit``, ``tpr_mean``, ``tnr_mean``, ``tpr_new``,
    ``tnr_new``. Add covariates (meta-regression) by extending the model in a ``with`` block.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.hierarchical import build_hierarchical_model
    >>> counts = np.array([[[20, 5], [3, 30]], [[15, 2], [6, 40]]])
    >>> model = build_hierarchical_model(["a", "b"], counts, "site")
    >>> model.named_vars_to_dims["tpr"]
    ('site',)
    """
    import pymc as pm
    import pytensor.tensor as pt

    chosen = resolve_priors(priors)
    counts = np.asarray(counts, dtype=np.int64)
    tp, fn, fp, tn = counts[:, 0, 0], counts[:, 0, 1], counts[:, 1, 0], counts[:, 1, 1]
    coords = {group: list(names), "logit": ["tpr", "tnr"]}
    with pm.Model(coords=coords) as model:
        mu_t = chosen["mu_logit_tpr"].create_variable("mu_logit_tpr")
        mu_n = chosen["mu_logit_tnr"].create_variable("mu_logit_tnr")
        s_t = chosen["sd_logit_tpr"].create_variable("sd_logit_tpr")
        s_n = chosen["sd_logit_tnr"].create_variable("sd_logit_tnr")
        r = chosen["corr_logit"].create_variable("corr_logit")
        z = pm.Normal("z", 0.0, 1.0, dims=(group, "logit"))
        logit_t = mu_t + s_t * z[:, 0]
        logit_n = mu_n + s_n * (r * z[:, 0] + pt.sqrt(1.0 - r * r) * z[:, 1])
        tpr = pm.Deterministic("tpr", pm.math.invlogit(logit_t), dims=group)
        tnr = pm.Deterministic("tnr", pm.math.invlogit(logit_n), dims=group)
        prior_prev = chosen["prevalence"]
        prev = pm.Beta("prevalence", alpha=prior_prev.alpha, beta=prior_prev.beta, dims=group)
        pm.Binomial("n_pos", n=tp + fn + fp + tn, p=prev, observed=tp + fn, dims=group)
        pm.Binomial("tp", n=tp + fn, p=tpr, observed=tp, dims=group)
        pm.Binomial("tn", n=tn + fp, p=tnr, observed=tn, dims=group)
        pm.Deterministic("tpr_mean", pm.math.invlogit(mu_t))
        pm.Deterministic("tnr_mean", pm.math.invlogit(mu_n))
        z_new = pm.Normal("z_new", 0.0, 1.0, dims="logit")
        pm.Deterministic("tpr_new", pm.math.invlogit(mu_t + s_t * z_new[0]))
        pm.Deterministic("tnr_new", pm.math.invlogit(
            mu_n + s_n * (r * z_new[0] + pt.sqrt(1.0 - r * r) * z_new[1])))
    return model


def sroc_draws(mu_t: np.ndarray, mu_n: np.ndarray, s_t: np.ndarray, s_n: np.ndarray,
               r: np.ndarray, fpr_grid: np.ndarray) -> np.ndarray:
    """Summary ROC curves: ``E[logit TPR | logit FPR]`` per draw, on ``fpr_grid``.

    With ``logit FPR = -logit TNR`` the pair is bivariate normal with means ``(mu_t, -mu_n)``
    and correlation ``-r``, so the conditional mean is
    ``mu_t - r (s_t / s_n) (logit FPR + mu_n)`` (Reitsma et al. 2005).

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.hierarchical import sroc_draws
    >>> curve = sroc_draws(np.array([1.0]), np.array([2.0]), np.array([0.5]), np.array([0.5]),
    ...                    np.array([0.0]), np.array([0.1, 0.5]))
    >>> np.round(curve, 3).tolist()   # no correlation: a flat curve at invlogit(1)
    [[0.731, 0.731]]
    """
    from scipy.special import expit, logit

    lf = logit(np.clip(fpr_grid, 1e-9, 1 - 1e-9))[None, :]
    slope = (-r * s_t / s_n)[:, None]
    return expit(mu_t[:, None] + slope * (lf + mu_n[:, None]))


GROUP_VARIABLES = ("tpr", "tnr", "prevalence")
POPULATION_VARIABLES = ("tpr_mean", "tnr_mean", "tpr_new", "tnr_new", "sd_logit_tpr",
                        "sd_logit_tnr", "corr_logit", "mu_logit_tpr", "mu_logit_tnr")
_LONG = {
    "tpr_mean": "pooled true positive rate (at the centre of the groups)",
    "tnr_mean": "pooled true negative rate (at the centre of the groups)",
    "tpr_new": "true positive rate of a new group",
    "tnr_new": "true negative rate of a new group",
    "sd_logit_tpr": "between-group standard deviation of logit TPR",
    "sd_logit_tnr": "between-group standard deviation of logit TNR",
    "corr_logit": "between-group correlation of logit TPR and logit TNR",
    "mu_logit_tpr": "mean logit TPR", "mu_logit_tnr": "mean logit TNR",
    "sroc": "summary ROC curve: E[TPR | FPR] over the groups",
}


def fit_hierarchical(ctx: Any, group: str, *, progressbar: bool, options: Mapping[str, Any]
                     ) -> Any:
    """Sample :func:`build_hierarchical_model` with NUTS and assemble the result tree.

    Called through ``bcm.fit(matrices, model="hierarchical", group=...)``
    (:meth:`HierarchicalModel.fit` validates the arguments); ``ctx`` is the fit's
    :class:`~bayescm.models.context.FitContext`.
    """
    import pymc as pm
    import xarray as xr

    from bayescm.core import container as box
    from bayescm.core.diagnostics import ess, rhat
    from bayescm.core.streams import child
    from bayescm.models.binary import BinaryModel
    from bayescm.models.context import assemble

    names, counts, draws, chains = ctx.names, ctx.counts, ctx.draws, ctx.chains
    seed, selected, chosen = ctx.seed, ctx.metrics, ctx.priors

    if group in ("chain", "draw", "classifier", "sroc_fpr", "logit", "diagnostic", "true_class",
                 "pred_class") or group in HIERARCHICAL_PARAMETERS or group in GROUP_VARIABLES:
        raise ValueError(f"group={group!r} is a name bayescm uses for another dim or variable; "
                         "choose another (e.g. 'study', 'site', 'subgroup').")
    model = build_hierarchical_model(names, counts, group, chosen)
    kwargs = {"target_accept": 0.9, **dict(options)}
    trace = pm.sample(draws=draws, chains=chains, model=model, progressbar=progressbar,
                      random_seed=int(child(seed, 0).generate_state(1)[0]),
                      compute_convergence_checks=False, **kwargs)
    post = trace["posterior"]

    def arr(name: str) -> np.ndarray:
        da = post[name]
        order = ["chain", "draw"] + [d for d in da.dims if d not in ("chain", "draw")]
        return np.asarray(da.transpose(*order).values, dtype=float)

    kind = BinaryModel(ctx.kind.labels)
    params = {p: arr(p) for p in GROUP_VARIABLES}  # (chain, draw, G)
    from bayescm.priors import Beta

    derive_priors = {"prevalence": Beta(1, 1), "tpr": Beta(1, 1), "tnr": Beta(1, 1)}
    derived = kind.derive(params, derive_priors, list(selected))
    variables = ctx.name_variables(derived, box.SAMPLE_DIMS, "keep")
    variables = {k: (tuple(group if d == "classifier" else d for d in dims), v, a)
                 for k, (dims, v, a) in variables.items()}
    for name in POPULATION_VARIABLES:
        variables[name] = (box.SAMPLE_DIMS, arr(name), {"long_name": _LONG[name]})
    fpr_grid = np.linspace(0.0, 1.0, 101)
    flat = {k: arr(k).reshape(-1) for k in ("mu_logit_tpr", "mu_logit_tnr", "sd_logit_tpr",
                                              "sd_logit_tnr", "corr_logit")}
    sroc = sroc_draws(flat["mu_logit_tpr"], flat["mu_logit_tnr"], flat["sd_logit_tpr"],
                      flat["sd_logit_tnr"], flat["corr_logit"], fpr_grid)
    variables["sroc"] = (box.SAMPLE_DIMS + ("sroc_fpr",), sroc.reshape(chains, draws, -1),
                         {"long_name": _LONG["sroc"]})
    coords = {"chain": np.arange(chains), "draw": np.arange(draws), group: list(names),
              "true_class": kind.labels, "pred_class": kind.labels, "sroc_fpr": fpr_grid,
              "diagnostic": ["r_hat", "ess_bulk", "ess_tail"]}
    groups: dict[str, xr.Dataset] = {
        "posterior": box.make_dataset(variables, coords, {"method": "nuts"})}
    diag = {}
    for name, (dims, values, _) in variables.items():
        if name in ("theta", "sroc"):
            continue
        tail = _ess_tail(values)
        diag[name] = (("diagnostic",) + dims[2:], np.stack([rhat(values, "rank"),
                                                            ess(values, "bulk"), tail]),
                      {"long_name": f"diagnostics of {name}"})
    groups["diagnostics"] = box.make_dataset(diag, coords, {
        "r_hat_method": "rank", "ess_method": "bulk",
        "note": "rank-normalised split R-hat, bulk and tail ESS (Vehtari et al. 2021)"})
    groups["sample_stats"] = box.get_group(trace, "sample_stats", foreign=True)
    obs_params, obs_theta = kind.observed(counts, derive_priors)
    observed = ctx.name_variables(kind.derive(obs_params, derive_priors, list(selected),
                                              theta=obs_theta), (), "keep")
    groups["observed_metrics"] = box.make_dataset(
        {k: (tuple(group if d == "classifier" else d for d in dims), v, a)
         for k, (dims, v, a) in observed.items()}, coords,
        {"note": "every per-group variable at the group's observed counts / N (unpooled)"})
    groups["observed_data"] = box.make_dataset(
        {"counts": ((group, "true_class", "pred_class"), counts,
                    {"long_name": "confusion matrix counts of each group"})}, coords)
    tree = assemble(ctx, groups, method="nuts", target_accept=kwargs["target_accept"],
                    **ctx.seed_record())
    _warn_divergences(groups["sample_stats"], kwargs["target_accept"])
    return tree


def _ess_tail(values: np.ndarray) -> np.ndarray:
    """Tail ESS (minimum of the 5 % and 95 % quantile ESS, as ArviZ) over the trailing dims."""
    from arviz_stats.base import array_stats

    return np.asarray(array_stats.ess(values, method="tail", prob=(0.05, 0.95), chain_axis=0,
                                      draw_axis=1))


def _warn_divergences(stats: Any, target_accept: float) -> None:
    from bayescm.core.validate import warn_user

    n = int(np.asarray(stats["diverging"].values).sum())
    if n:
        warn_user(
            f"{n} divergent transitions: the sampler met a region of the posterior it could not "
            "follow, so the draws may be biased. Remedies: a higher target_accept (now "
            f"{target_accept}; try 0.95 or 0.99), more tuning (tune=2000), or a stronger prior "
            "on the between-group scales (priors={'sd_logit_tpr': "
            "bcm.hierarchical.HalfNormal(0.5), ...}).", UserWarning)


@register
class HierarchicalModel(ModelKind):
    """The registered kind ``"hierarchical"``: binary matrices of several groups, partially pooled.

    Fitted with ``bcm.fit(matrices, model="hierarchical", group="study")`` (NUTS, 4 x 1,000
    draws by default); priors are keyed by :data:`HIERARCHICAL_PARAMETERS` in ``priors={...}``.

    Examples
    --------
    >>> from bayescm.models.hierarchical import HierarchicalModel
    >>> HierarchicalModel.has_exact, HierarchicalModel.default_draws
    (False, 1000)
    """

    key = "hierarchical"
    description = "a hierarchical (partially pooled) fit"
    default_draws = 1000
    parameters = tuple(Parameter(name, (), _LONG.get(name, "prevalence of each group"), None)
                       for name in HIERARCHICAL_PARAMETERS)
    analyses = frozenset({"summary", "informedness", "prob_superior", "rank_probabilities"})
    catalogue = BINARY_METRICS

    def __init__(self, labels: Sequence[Any], group: str | None = None) -> None:
        super().__init__(labels)
        self.group = group

    @classmethod
    def from_data(cls, data: Any) -> HierarchicalModel:
        """Binary matrices keyed by group name."""
        from bayescm.core.confusion import as_batch

        if not isinstance(data, Mapping):
            raise TypeError("model='hierarchical' needs a mapping {group name: binary "
                            f"ConfusionMatrix}}, got {type(data).__name__}.")
        _, mats = as_batch(data)
        if not mats[0].is_binary:
            raise ValueError("model='hierarchical' pools binary matrices (give each a positive "
                             "class); multiclass pooling is not available.")
        return cls(mats[0].coords)

    @classmethod
    def from_attrs(cls, attrs: Mapping[str, Any], labels: Sequence[Any]) -> HierarchicalModel:
        """Labels and the group dim's name."""
        return cls(labels, group=attrs.get("group"))

    def root_attrs(self) -> dict[str, Any]:
        """The positive class and the group dim's name."""
        return {"positive": self.labels[0], **({"group": self.group} if self.group else {})}

    @classmethod
    def example(cls, random_seed: int = 0) -> Any:
        """Six sites of one diagnostic test (one with a zero cell), 4 x 500 NUTS draws."""
        from bayescm.core.confusion import ConfusionMatrix
        from bayescm.models.fitting import fit

        cells = {"A": (45, 5, 8, 92), "B": (30, 6, 12, 70), "C": (60, 4, 9, 120),
                 "D": (18, 5, 3, 40), "E": (25, 0, 10, 66), "F": (40, 9, 6, 85)}
        sites = {k: ConfusionMatrix.from_counts(tp=tp, fn=fn, fp=fp, tn=tn)
                 for k, (tp, fn, fp, tn) in cells.items()}
        return fit(sites, model="hierarchical", group="site", draws=500, tune=500,
                   random_seed=random_seed)

    def select_metrics(self, selected: Sequence[Any], priors: Mapping[str, Any]) -> list[Any]:
        """Binary metrics besides the per-group prevalence, TPR and TNR (always stored)."""
        return [m for m in selected if m.name not in ("prevalence", "tpr", "tnr")]

    def resolve_priors(self, prior: Any, overrides: Mapping[str, Any]) -> dict[str, Any]:
        """Defaults merged under ``priors={...}``; a single ``prior=`` has no meaning here."""
        if prior is not None:
            raise ValueError("The hierarchical model's priors are set with priors={...} (keys: "
                             f"{', '.join(HIERARCHICAL_PARAMETERS)}), not prior=.")
        return resolve_priors(overrides)

    def build_pymc(self, names: list[str] | None, counts: np.ndarray,
                   priors: Mapping[str, Any]) -> pm.Model:
        """The PyMC model (:func:`build_hierarchical_model`) over the group dim."""
        return build_hierarchical_model(names or [], counts, self.group or "group", priors)

    def observed(self, counts: np.ndarray, priors: Mapping[str, Any]) -> Any:
        """Unpooled per-group point values (as the binary model)."""
        from bayescm.models.binary import BinaryModel

        return BinaryModel(self.labels).observed(counts, {"prevalence": None})

    def derive(self, params: Mapping[str, np.ndarray], priors: Mapping[str, Any],
               selected: Sequence[Any], theta: np.ndarray | None = None,
               skip: np.ndarray | None = None) -> Any:
        """Per-group binary metrics from per-group prevalence, TPR and TNR."""
        from bayescm.models.binary import BinaryModel
        from bayescm.priors import Laplace

        flat = {"prevalence": Laplace(), "tpr": Laplace(), "tnr": Laplace()}
        return BinaryModel(self.labels).derive(params, flat, selected, theta=theta)

    def fit(self, ctx: Any, options: Mapping[str, Any]) -> Any:
        """NUTS on the non-centred model, then the per-group, pooled and new-group outputs."""
        from bayescm.models.checks import sampler_options

        options = dict(options)
        group = options.pop("group", None)
        if not isinstance(group, str) or not group.isidentifier():
            raise ValueError(f"model='hierarchical' needs group='name' naming the group dim "
                             f"(e.g. 'site', 'study', 'subgroup'), got group={group!r}.")
        if ctx.method not in ("auto", "nuts"):
            raise ValueError(f"The hierarchical model is sampled with NUTS; "
                             f"method={ctx.method!r} is not available for it.")
        progressbar = bool(options.pop("progressbar", False))
        # validated like every NUTS fit, naming the sampler (PyMC's unless nutpie is asked for)
        options = sampler_options("nuts", options.pop("sampler_kwargs", None), options)
        self.group = group
        return fit_hierarchical(ctx, group, progressbar=progressbar, options=options)
