"""Paired comparison of two classifiers evaluated on the same test samples.

When classifiers A and B predict the same samples their errors are correlated (they usually fail
on the same hard cases). Two separate posteriors, one per confusion matrix, throw that away and
make the difference look more uncertain than it is. The joint model keeps it: every sample falls
into one cell ``(true class k, prediction of A l, prediction of B m)`` of a ``K x K x K`` table,

::

    p      ~ Dirichlet(alpha)                     over the K^3 cells
    counts ~ Multinomial(N, p)
    theta_A[k, l] = sum_m p[k, l, m]              (A's confusion probability matrix)
    theta_B[k, m] = sum_l p[k, l, m]              (B's)

The Dirichlet is conjugate, so the posterior ``Dirichlet(alpha + counts)`` is drawn exactly and
both classifiers' metrics (and their difference) come from the same draws. For accuracy alone a
2 x 2 agreement table (both right, only A right, only B right, both wrong) is enough:
:func:`compare_paired_counts`.

Metrics are those of the catalogue: binary metrics ``metric(tp, fn, fp, tn)`` (pass
``positive``), and multiclass overall metrics ``metric(theta)`` when the multiclass catalogue is
available (``bayescm.metrics.catalogue_for("multiclass")``). Per-class metrics are not compared
here; compare their macro averages.

Result layout (an ArviZ-schema tree): the posterior holds ``cells`` (the joint probabilities),
``theta`` with dims ``(classifier, true_class, pred_class)``, every metric with dim
``classifier`` = ``["A", "B"]`` (or the given ``names``), and ``<metric>_diff`` = A minus B. The
``comparison`` group (dim ``metric``) holds the mean and HDI of each difference and
``p_a_better``, ``p_rope`` (|difference| <= rope), ``p_b_better``, which sum to 1; "better"
follows the metric's direction (lower is better for error rates). Because the classifiers share
one joint posterior, :func:`bayescm.prob_superior` with the batch form
``prob_superior(result, "A", "B", metric=...)`` pairs the draws correctly too.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from bayescm.core import container as box
from bayescm.core.arguments import keyword_checked
from bayescm.core.counts import encode_labels
from bayescm.core.stats import hdi_prob_for
from bayescm.core.validate import check_int
from bayescm.metrics.catalogue import catalogue_for
from bayescm.metrics.metric import Metric
from bayescm.models.paired import check_pair_names, check_rope, joint_result, joint_tree
from bayescm.models.paired_prior import paired_alpha

__all__ = ["compare_paired", "compare_paired_counts", "comparison_table"]

AGREEMENT = ("both_right", "only_a_right", "only_b_right", "both_wrong")
"""Cells of the 2 x 2 agreement table of :func:`compare_paired_counts`."""


# ---------------------------------------------------------------------------- public
@keyword_checked
def compare_paired(
    y_true: Iterable[Hashable],
    pred_a: Iterable[Hashable],
    pred_b: Iterable[Hashable],
    metrics: Iterable[str | Metric] | str | Metric | None = None,
    labels: Sequence[Hashable] | None = None,
    positive: Hashable | None = None,
    prior: Any = None,
    rope: float | Mapping[str, float] = 0.0,
    draws: int = 5000,
    chains: int = 4,
    random_seed: int | np.random.Generator | None = None,
    *,
    ordered: bool = False,
    names: Sequence[str] = ("A", "B"),
    hdi_prob: float | None = None,
) -> xr.DataTree:
    """Bayesian paired comparison of two classifiers scored on the same samples.

    Fits the joint Dirichlet-multinomial model of (true class, prediction of A, prediction of
    B) described in the module notes, so both classifiers' metrics and their difference come
    from one posterior that keeps the correlation of their errors.

    Parameters
    ----------
    y_true, pred_a, pred_b : sequence of hashable
        True labels and the two classifiers' predictions for the same samples (equal lengths).
    metrics : str, Metric or list of them, optional
        Metrics to compare (aliases accepted); default the whole catalogue except per-class
        metrics.
    labels : sequence of hashable, optional
        Classes and their order; default the sorted union of the inputs.
    positive : hashable, optional
        The positive class: makes a binary analysis (required for two classes unless the
        multiclass catalogue is available).
    prior : str or Dirichlet, optional
        A named prior of :func:`~bayescm.fit` (default ``"weak"``, which is Laplace for two
        classes; ``"laplace"``, ``"jeffreys"``, ``"flat"``, ``"haldane"``): the prevalence gets
        ``fit``'s prevalence prior and each true class a Dirichlet over the (A, B) prediction
        pairs whose margins are ``fit``'s rates prior, so each classifier's marginal posterior
        is exactly ``fit``'s on its own matrix and the prior's strength does not grow like
        ``K^3`` (the former flat Dirichlet put 1,000 pseudo-counts on the cells at K = 10). Or
        ``bcm.Dirichlet(alpha)`` with a scalar or ``K^3`` values (order true, A, B): one
        Dirichlet over the cells themselves.
    rope : float or mapping of metric -> float, default 0.0
        Half-width of the region of practical equivalence for the difference A - B.
    draws, chains : int
        Posterior draws per chain and chains (exact, independent draws).
    random_seed : int or numpy Generator, optional
        Same seed, same draws.
    ordered : bool, default False
        Multiclass: whether the classes are ordered (``labels`` in their order); adds the
        weighted kappas and class-distance errors to the default metrics.
    names : pair of str, default ("A", "B")
        Coordinates of the ``classifier`` dim.
    hdi_prob : float, optional
        Probability of the HDI in the ``comparison`` group; default
        ``rcParams["stats.hdi_prob"]``.

    Returns
    -------
    xarray.DataTree
        Groups ``posterior`` (``cells``; ``theta`` and each metric with a ``classifier`` dim;
        ``<metric>_diff``), ``prior``, ``observed_data`` (``counts`` with dims ``true_class,
        pred_a, pred_b``; ``marginal_counts`` per classifier), ``observed_metrics``,
        ``diagnostics`` and ``comparison`` (dim ``metric``: ``diff_mean, diff_hdi_lower,
        diff_hdi_upper, p_a_better, p_rope, p_b_better, rope, higher_is_better``); see
        :func:`comparison_table`.

    Raises
    ------
    ValueError
        Unequal lengths, unknown metric or label, a per-class metric, a negative rope, an
        improper (Haldane) posterior, a multiclass problem without the multiclass catalogue.

    See Also
    --------
    compare_paired_counts : Accuracy from the 2 x 2 agreement table only.
    bayescm.analyses.frequentist.bootstrap : The frequentist joint bootstrap.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.comparisons.paired import compare_paired, comparison_table
    >>> y = np.array([1] * 50 + [0] * 50)
    >>> a = y.copy(); a[:10] = 1 - a[:10]            # A wrong on samples 0-9
    >>> b = y.copy(); b[:16] = 1 - b[:16]            # B wrong on 0-15: the same plus six more
    >>> res = compare_paired(y, a, b, metrics=["acc", "err"], positive=1, random_seed=0)
    >>> res["posterior"]["acc"].dims
    ('chain', 'draw', 'classifier')
    >>> table = comparison_table(res)
    >>> bool(table.loc["acc", "p_a_better"] > 0.95)
    True
    >>> table.loc["acc", "p_a_better"] == table.loc["err", "p_a_better"]
    np.True_
    """
    classes, positive, t, (a, b) = encode_labels(y_true, [pred_a, pred_b], labels, positive)
    return joint_tree(classes, t, a, b, positive=positive, ordered=bool(ordered),
                      metrics=metrics, prior=prior, draws=draws, chains=chains,
                      random_seed=random_seed, hdi_prob=hdi_prob, names=names, rope=rope)


@keyword_checked
def compare_paired_counts(
    both_right: int,
    only_a_right: int,
    only_b_right: int,
    both_wrong: int,
    *,
    rope: float = 0.0,
    prior: Any = "laplace",
    draws: int = 5000,
    chains: int = 4,
    random_seed: int | np.random.Generator | None = None,
    names: Sequence[str] = ("A", "B"),
    hdi_prob: float | None = None,
) -> xr.DataTree:
    """Paired comparison of two accuracies from the 2 x 2 agreement table alone.

    ``p ~ Dirichlet(alpha + counts)`` over the four cells (both right, only A right, only B
    right, both wrong); ``acc_A = p_both + p_onlyA``, ``acc_B = p_both + p_onlyB`` and the
    difference is ``p_onlyA - p_onlyB``: only the discordant samples inform it (the Bayesian
    counterpart of McNemar's test).

    Parameters
    ----------
    both_right, only_a_right, only_b_right, both_wrong : int
        Counts of samples in each agreement cell.
    rope : float, default 0.0
        Half-width of the region of practical equivalence for acc_A - acc_B.
    prior : str or Dirichlet, default "laplace"
        Symmetric Dirichlet over the four cells (``"laplace"`` alpha = 1, ``"jeffreys"`` 1/2,
        ``"haldane"`` 0) or ``bcm.Dirichlet`` with one or four values.
    draws, chains : int
        Posterior draws per chain and chains.
    random_seed : int or numpy Generator, optional
        Same seed, same draws.
    names : pair of str, default ("A", "B")
        Coordinates of the ``classifier`` dim.
    hdi_prob : float, optional
        Probability of the HDI in the ``comparison`` group; default
        ``rcParams["stats.hdi_prob"]``.

    Returns
    -------
    xarray.DataTree
        As :func:`compare_paired` with the single metric ``acc``; ``cells`` has the dim
        ``agreement``.

    Raises
    ------
    TypeError
        A count that is not an integer.
    ValueError
        A negative count, or all four counts 0.

    See Also
    --------
    compare_paired : The same from the labels and both classifiers' predictions.
    comparison_table : The comparison's posterior summaries as a table.
    bayescm.plots.plot_paired : Draws the difference.

    Examples
    --------
    >>> from bayescm.comparisons.paired import compare_paired_counts, comparison_table
    >>> res = compare_paired_counts(740, 10, 40, 210, rope=0.01, random_seed=0)
    >>> table = comparison_table(res)
    >>> round(float(table.loc["acc", "diff_mean"]), 3)
    -0.03
    >>> bool(table.loc["acc", "p_b_better"] > 0.95)
    True
    """
    values = {"both_right": both_right, "only_a_right": only_a_right,
              "only_b_right": only_b_right, "both_wrong": both_wrong}
    for key, v in values.items():
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
            raise TypeError(f"{key} must be a count (non-negative integer), got {v!r}.")
        if v < 0:
            raise ValueError(f"{key} must be a non-negative count, got {v}.")
    counts = np.array(list(values.values()), dtype=np.int64)
    if counts.sum() == 0:
        raise ValueError("The agreement table is empty: all four counts are 0.")
    draws = check_int(draws, "draws", 1)
    chains = check_int(chains, "chains", 1)
    hdi_prob = hdi_prob_for(hdi_prob)
    names = check_pair_names(names)
    acc = catalogue_for("binary")["acc"]
    rope_map = check_rope(rope, ["acc"])
    alpha = paired_alpha(prior, 4)

    def theta_fn(cells: np.ndarray) -> np.ndarray:
        # each classifier as a 2 x 2 matrix [[right, wrong], [0, 0]] whose tp + tn is the
        # accuracy (used only to evaluate the catalogue's accuracy; not stored)
        right_a = cells[..., 0] + cells[..., 1]
        right_b = cells[..., 0] + cells[..., 2]
        zero = np.zeros_like(right_a)
        mats = [np.stack([np.stack([r, 1.0 - r], -1), np.stack([zero, zero], -1)], -2)
                for r in (right_a, right_b)]
        return np.stack(mats, axis=-3)

    coords = {"agreement": list(AGREEMENT), "classifier": names}
    attrs = {"family": "binary", "comparison": "paired: Dirichlet over the agreement table",
             "classifiers": box.json_attr(names),
             "prior": box.json_attr({"dist": "Dirichlet", "alpha": alpha.tolist()})}
    tree = joint_result(counts, alpha, ("agreement",), coords, theta_fn, [acc], "binary", rope_map,
                 draws, chains, random_seed, hdi_prob, attrs, store_theta=False)
    return tree


@keyword_checked
def comparison_table(idata: xr.DataTree) -> pd.DataFrame:
    """The ``comparison`` group of a paired result as a table (one row per metric).

    Parameters
    ----------
    idata : xarray.DataTree
        A result of :func:`compare_paired` or :func:`compare_paired_counts`.

    Returns
    -------
    pandas.DataFrame
        Indexed by metric, with the difference's mean and HDI (``diff_mean``,
        ``diff_hdi_lower``, ``diff_hdi_upper``), ``p_a_better``, ``p_rope``, ``p_b_better``,
        the ``rope`` and whether higher is better.

    See Also
    --------
    compare_paired : The paired comparison of two classifiers on one test set.

    Examples
    --------
    >>> from bayescm.comparisons.paired import compare_paired_counts, comparison_table
    >>> table = comparison_table(compare_paired_counts(50, 5, 5, 40, random_seed=1))
    >>> list(table.columns[:3])
    ['diff_mean', 'diff_hdi_lower', 'diff_hdi_upper']
    """
    ds = box.get_group(idata, "comparison")
    return ds.to_dataframe()
