r"""The default posterior of scored items: a Dirichlet process with mass beyond the observed scores.

The Bayesian bootstrap (:mod:`bayescm.models.roc`) is the Dirichlet-process posterior with
concentration 0: it puts all probability on the observed items, so it cannot imagine a positive
scored below every negative when none was seen. Its AUC interval then collapses onto the observed
AUC when the classes barely overlap, and onto a point mass at 1 when they are separated. Measured
by ``benchmarks/auc_coverage_study.py`` (table in ``benchmarks/coverage_table.md``: 300
simulated data sets per case at n = 40), its 95 % interval covers the true AUC only 0.48-0.72
of the time at n = 40 and AUC 0.98-0.99, over binormal, exponential and mixture truths.

The default fit (``method="dirichlet_process"``) gives each class's score distribution a
Dirichlet-process prior (Ferguson 1973; for ROC curves Gu, Ghosal & Roy 2008) with
concentration :data:`CONCENTRATION` = :math:`c` = 1.25 (the weight of one and a quarter prior
items) and a base measure that puts half its mass above and half below every observed score. A
posterior draw of a class's distribution is

.. math::

    F_c = \sum_{i \in c} w_i\, \delta_{s_i} + w_{+\infty}\, \delta_{+\infty}
          + w_{-\infty}\, \delta_{-\infty}, \qquad
    (w_i, w_{+\infty}, w_{-\infty}) \sim \mathrm{Dirichlet}(1, \dots, 1, c/2, c/2),

the Bayesian bootstrap's weights plus two *novel items*, one above and one below every score,
whose total weight is Beta(c, n_c) and whose split is Beta(c/2, c/2). Jointly over the labels
the weights are Dirichlet over the ``n`` items (1 each) and four novel atoms (c/2 = 5/8 each:
positive and negative, above and below), so the prevalence is Beta(n_pos + c, n_neg + c) and,
at any threshold, the four weighted cells are exactly Dirichlet(TP + 5/8, FN + 5/8, FP + 5/8,
TN + 5/8): the confusion-matrix model with Beta(5/8, 5/8) priors on TPR and TNR, between
Jeffreys' 1/2 and Laplace's 1, where the bootstrap gives Haldane's 0.

Why this base measure: the AUC and the ROC curve depend on the scores only through their order,
and a base measure spread ever wider (a normal of growing variance, say) puts its atoms ever
more surely outside the observed range, half above and half below: the limit is this one, and
it does not depend on the scale of the scores. A novel positive below every negative is the
overlap the data may have missed; a novel positive above them all is the separation they may
have missed, so the prior pulls the AUC toward 1/2, exactly: ``E[AUC] = 1/2 + (AUC_obs - 1/2)
n_pos n_neg / ((n_pos + c)(n_neg + c))``, and it gives the AUC a continuous posterior below 1
when the classes are separated.

Why this concentration: it is the one number of the model the data do not set, and it trades
the two ways a 95 % interval can break its promise for small samples with a high AUC. Measured
by ``benchmarks/auc_coverage_study.py`` on the same simulated data sets at 0.5, 1, 1.25 and 1.5
(binormal, exponential and mixture truths, n = 40 and 100, AUC 0.6 to 0.99; the table's
``auc-concentration`` section): at 1 (Jeffreys at every threshold) the interval over-covers
when the AUC is 0.9-0.99 (pooled 0.978 at n = 40 and 0.972 at n = 100), at 1.5 single cases
drop to 0.89, at 1.25 the pooled coverage is 0.964 and 0.959. What the default buys over the
whole grid (n = 40 to 2,000, 300 data sets per case; ``coverage_table.md``'s ``auc`` section;
the sizes 500 and 2,000 were not used to choose the concentration):
pooled per test-set size and AUC range, coverage 0.948-0.964, where the bootstrap's is 0.70 at
n = 40 and AUC 0.9-0.99 (single cases down to 0.48); single cases of the default 0.92-0.99,
within three Monte-Carlo errors of 0.93-0.97. When it misses at a high AUC its interval lies
below the truth (the pull toward 1/2); the bootstrap's lies above it.

Several classifiers scored on the same items share the draw: a novel item lies above (or below)
every observed score *of every classifier*, the comonotone limit of the base measure. Two
classifiers' AUCs keep their pairing, and the novel items add nothing to the difference of two
AUCs (it shrinks toward 0 by the factor ``(1 - w_pos) (1 - w_neg)`` of the novel weights).

Quantities of one draw: the ROC and PR curves, the AUC, the partial AUC, the average precision
and the thresholded confusion matrix all read the same class distributions, novel items
included (a novel item above every score is above every threshold). The Brier score and the
log-loss weigh the observed items only (the same draw's weights, renormalised): a proper score
of an item at an unbounded score is not defined. The reliability curve keeps its own per-bin
Beta(1, 1) model (:mod:`bayescm.models.calibration`), as under the bootstrap.

Examples
--------
>>> import numpy as np
>>> from bayescm.models.roc_dp import dirichlet_process_weights, with_novel_items
>>> y, s = with_novel_items(np.array([True, False]), np.array([0.9, 0.2]))
>>> y.tolist(), s.tolist()
([True, False, True, True, False, False], [0.9, 0.2, inf, -inf, inf, -inf])
>>> dirichlet_process_weights(np.random.default_rng(0), 5, 2).shape
(5, 6)
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["CONCENTRATION", "NOVEL", "NOVEL_LABELS", "NOVEL_SCORES",
           "dirichlet_process_weights", "with_novel_items"]

CONCENTRATION = 1.25
"""Prior weight (in items) of each class's novel mass: the Dirichlet process's concentration
(chosen by coverage: the module's docstring)."""

NOVEL_LABELS = np.array([True, True, False, False])
"""The novel atoms' classes: positive above, positive below, negative above, negative below."""

NOVEL_SCORES = np.array([np.inf, -np.inf, np.inf, -np.inf])
"""The novel atoms' scores: above or below every observed score (and every threshold)."""

NOVEL = NOVEL_LABELS.size
"""Number of novel atoms appended to the items."""


def with_novel_items(y: np.ndarray, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The items followed by the four novel atoms: labels and scores of length ``n + 4``.

    Only the order of the scores is read from the result (curves, AUC, thresholds): the
    infinities never enter a sum.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.roc_dp import with_novel_items
    >>> y, s = with_novel_items(np.array([True]), np.array([3.0]))
    >>> int(y.sum()), s[1:].tolist()
    (3, [inf, -inf, inf, -inf])
    """
    return np.r_[np.asarray(y, dtype=bool), NOVEL_LABELS], np.r_[np.asarray(scores, float),
                                                                NOVEL_SCORES]


def dirichlet_process_weights(rng: np.random.Generator, draws: int, n: int,
                              dtype: Any = np.float64, novel: np.ndarray | None = None
                              ) -> np.ndarray:
    """Unnormalised posterior weights of ``n`` items and the four novel atoms, ``(draws, n + 4)``.

    Standard exponentials (Gamma(1)) for the items and Gamma(``CONCENTRATION / 2``) for the
    novel atoms: normalised within a class they are the class's Dirichlet-process posterior,
    normalised over all columns the joint one. Every quantity here is a ratio of weighted sums,
    so the normalisation cancels.

    Parameters
    ----------
    rng : numpy.random.Generator
        The stream.
    draws, n : int
        Rows, and observed items.
    dtype : dtype, default float64
        Of the weights (the fit uses float32).
    novel : ndarray of int, optional
        The columns that hold the novel atoms (default the last four), for weights laid out in
        another order.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.roc_dp import dirichlet_process_weights
    >>> w = dirichlet_process_weights(np.random.default_rng(1), 20_000, 3)
    >>> [round(float(m), 1) for m in w.mean(axis=0)]   # Gamma(1) x 3, Gamma(5/8) x 4
    [1.0, 1.0, 1.0, 0.6, 0.6, 0.6, 0.6]
    """
    weights = rng.standard_exponential((draws, n + NOVEL), dtype=dtype)
    cols = np.arange(n, n + NOVEL) if novel is None else np.asarray(novel)
    weights[:, cols] = rng.standard_gamma(CONCENTRATION / 2, (draws, NOVEL), dtype=dtype)
    return weights
