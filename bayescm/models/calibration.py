"""Calibration of probability scores: the reliability curve and the expected calibration error.

Part of the scores model (:mod:`bayescm.models.scores`): per equal-width score bin, the
posterior of the event rate, the ECE per draw, and the ECE that a perfectly calibrated classifier
would show on the same items (``ece_reference``), drawn from the exact distribution of each
bin's count of events.
"""

from __future__ import annotations

import numpy as np

__all__ = ["calibration_draws", "expected_calibrated_ece", "poisson_binomial_pmf"]


def calibration_draws(rng: np.random.Generator, y: np.ndarray, scores: np.ndarray, draws: int,
                      n_bins: int = 10) -> dict[str, np.ndarray]:
    """Reliability curve and expected calibration error (ECE), with a calibrated reference.

    Scores are put in ``n_bins`` equal-width bins of [0, 1]. In each bin the event rate gets a
    flat Beta(1, 1) prior, so its posterior is ``Beta(1 + k, 1 + n - k)`` for ``k`` positives of
    ``n`` items: a bin of all 0 or all 1 keeps an honest width (the bootstrap would give zero
    width there). ``ece = sum_b (n_b / N) |rate_b - mean score_b|`` per draw. Because the plug-in
    ECE is positive even for a perfectly calibrated classifier, ``ece_reference`` is the same
    statistic for labels simulated from the scores themselves (``y* ~ Bernoulli(score)``):
    calibration is in doubt when ``ece`` clearly exceeds ``ece_reference``.

    Returns
    -------
    dict
        ``reliability`` ``(draws, n_bins)`` (NaN for empty bins), ``ece``, ``ece_reference``
        ``(draws,)``, ``bin_count``, ``bin_positives``, ``bin_score`` ``(n_bins,)``.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.calibration import calibration_draws
    >>> rng = np.random.default_rng(0)
    >>> s = rng.random(500); y = rng.random(500) < s
    >>> out = calibration_draws(rng, y, s, 2000)
    >>> bool(abs(out["ece"].mean() - out["ece_reference"].mean()) < 0.03)
    True
    """
    if np.any(scores < 0) or np.any(scores > 1):
        nan = np.full(draws, np.nan)
        return {"reliability": np.full((draws, n_bins), np.nan), "ece": nan,
                "ece_reference": nan.copy(), "bin_count": np.zeros(n_bins),
                "bin_positives": np.zeros(n_bins), "bin_score": np.full(n_bins, np.nan)}
    bins = np.minimum((scores * n_bins).astype(int), n_bins - 1)
    count = np.bincount(bins, minlength=n_bins).astype(float)
    positives = np.bincount(bins, weights=y.astype(float), minlength=n_bins)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_score = np.bincount(bins, weights=scores, minlength=n_bins) / count
    share = count / count.sum()
    rate = rng.beta(1.0 + positives, 1.0 + count - positives, size=(draws, n_bins))
    used = count > 0
    ece = np.abs(rate[:, used] - mean_score[used]) @ share[used]
    # reference: labels drawn from the scores (perfect calibration), summed per bin exactly
    sim_pos = _simulated_bin_positives(rng, bins, scores, n_bins, draws)
    ref_rate = rng.beta(1.0 + sim_pos, 1.0 + count - sim_pos)
    reference = np.abs(ref_rate[:, used] - mean_score[used]) @ share[used]
    rate[:, ~used] = np.nan
    return {"reliability": rate, "ece": ece, "ece_reference": reference, "bin_count": count,
            "bin_positives": positives, "bin_score": mean_score}


def expected_calibrated_ece(scores: np.ndarray, bins: np.ndarray) -> float:
    """The observed (plug-in) ECE a perfectly calibrated classifier shows on these items.

    Each bin's count of events ``K`` is Poisson-binomial under perfect calibration (every item
    an event with probability its score), so the expected plug-in ECE is exact:
    ``sum_b (n_b / N) sum_k P(K = k) |k / n_b - mean score_b|``. It is the observed value of
    ``ece_reference``: an observed ECE near it is what calibrated scores give on this many
    items; one well above it is a sign of miscalibration.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.calibration import expected_calibrated_ece
    >>> s = np.full(100, 0.5)
    >>> round(expected_calibrated_ece(s, np.zeros(100, dtype=int)), 3)  # E|B(100, .5)/100 - .5|
    0.04
    """
    total = 0.0
    for b in np.unique(bins):
        p = scores[bins == b]
        n = p.size
        pmf = poisson_binomial_pmf(p)
        total += n * float(pmf @ np.abs(np.arange(n + 1) / n - p.mean()))
    return total / scores.size


def _simulated_bin_positives(rng: np.random.Generator, bins: np.ndarray, scores: np.ndarray,
                             n_bins: int, draws: int) -> np.ndarray:
    """Positives per bin when every item is a Bernoulli(score) event, ``(draws, n_bins)``.

    Each bin's count is a Poisson-binomial variable: drawn exactly from its probabilities
    (:func:`poisson_binomial_pmf`) by inversion, with no simulated item.
    """
    u = rng.random((draws, n_bins))
    out = np.zeros((draws, n_bins))
    for b in np.unique(bins):  # at most n_bins
        cdf = np.cumsum(poisson_binomial_pmf(scores[bins == b]))
        out[:, b] = np.minimum(np.searchsorted(cdf, u[:, b] * cdf[-1], side="right"),
                               cdf.size - 1)
    return out


def poisson_binomial_pmf(p: np.ndarray) -> np.ndarray:
    """Distribution of the number of successes of independent Bernoulli(``p_i``) events.

    The product of the items' generating polynomials ``(1 - p_i) + p_i z``, multiplied in
    pairs level by level with FFTs (``O(n log^2 n)``); rounding below 1e-16 is clipped.

    Examples
    --------
    >>> import numpy as np
    >>> from bayescm.models.calibration import poisson_binomial_pmf
    >>> poisson_binomial_pmf(np.array([0.5, 0.5])).round(3).tolist()
    [0.25, 0.5, 0.25]
    >>> pmf = poisson_binomial_pmf(np.full(1000, 0.3))
    >>> from scipy import stats
    >>> bool(np.allclose(pmf, stats.binom(1000, 0.3).pmf(np.arange(1001)), atol=1e-12))
    True
    """
    p = np.asarray(p, dtype=np.float64).reshape(-1)
    size = 1 << int(np.ceil(np.log2(max(p.size, 1))))
    polys = np.zeros((size, 2))
    polys[:, 0] = 1.0  # padding items never succeed
    polys[: p.size, 0] = 1.0 - p
    polys[: p.size, 1] = p
    while polys.shape[0] > 1:
        length = 2 * polys.shape[1] - 1
        nfft = 1 << int(np.ceil(np.log2(length)))
        spec = np.fft.rfft(polys, nfft, axis=1)
        polys = np.fft.irfft(spec[0::2] * spec[1::2], nfft, axis=1)[:, :length]
    pmf = np.clip(polys[0, : p.size + 1], 0.0, None)
    return pmf / pmf.sum()
