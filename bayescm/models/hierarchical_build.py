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

from bayescm.models.hierarchical_priors import resolve_priors

if TYPE_CHECKING:
    import pymc as pm

__all__ = ["GROUP_VARIABLES", "POPULATION_VARIABLES", "build_hierarchical_model", "sroc_draws"]


def build_hierarchical_model(names: Sequence[str], counts: np.ndarray, group: str,
                             priors: Mapping[str, Any] | None = None) -> pm.Model:
    """The PyMC model of ``(G, 2, 2)`` binary counts over the group dim ``group``.

    Free variables: ``mu_logit_tpr``, ``mu_logit_tnr``, ``sd_logit_tpr``, ``sd_logit_tnr``, the
    correlation's ``corr_logit_beta``, the standardised effects ``z`` (dims ``group, logit``),
    ``prevalence`` (dim ``group``) and ``z_new`` for a new group. Deterministics: ``tpr``,
    ``tnr`` (dim ``group``), ``corr_logit``, ``tpr_mean``, ``tnr_mean``, ``tpr_new``,
    ``tnr_new``. Data (``pm.Data``, dim ``group``): ``n_positive``, ``n_negative``,
    ``tp_count``, ``tn_count``. Add covariates (meta-regression) by extending the model in a
    ``with`` block.

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
        # the counts as data: pm.set_data (or nutpie's with_data) refits new counts of the
        # same groups without building or compiling the model again
        n_pos = pm.Data("n_positive", tp + fn, dims=group)
        n_neg = pm.Data("n_negative", tn + fp, dims=group)
        pm.Binomial("n_pos", n=n_pos + n_neg, p=prev, observed=n_pos, dims=group)
        pm.Binomial("tp", n=n_pos, p=tpr, observed=pm.Data("tp_count", tp, dims=group),
                    dims=group)
        pm.Binomial("tn", n=n_neg, p=tnr, observed=pm.Data("tn_count", tn, dims=group),
                    dims=group)
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
LONG_NAMES = {
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


