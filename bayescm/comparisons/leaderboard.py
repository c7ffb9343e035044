"""A published leaderboard (accuracies and one test-set size) as rank probabilities and prizes."""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numpy as np
import pandas as pd

from bayescm.comparisons.ranks import (
    _TIE_RULE,
    _check_chunk,
    _RankCounter,
    _sort_float,
    _sort_float32_packed,
)
from bayescm.core.arguments import keyword_checked
from bayescm.core.resources import check_time
from bayescm.core.streams import child, seed_sequence
from bayescm.core.validate import check_int
from bayescm.priors import Beta, Fixed, resolve_prior

__all__ = ["leaderboard"]


# ---------------------------------------------------------------------------- leaderboard
def _check_scores(scores: Any) -> tuple[list[str], np.ndarray]:
    values: np.ndarray | list[Any]
    if isinstance(scores, pd.Series):
        names, values = [str(i) for i in scores.index], scores.to_numpy()
    elif isinstance(scores, Mapping):
        names, values = [str(k) for k in scores], list(scores.values())
    elif isinstance(scores, (str, bytes)) or not isinstance(scores, Iterable):
        raise TypeError(
            "scores must be the accuracies in published order: a sequence, a mapping of "
            f"name -> accuracy or a pandas Series; got {type(scores).__name__}."
        )
    else:
        values = list(scores)
        names = [str(i) for i in range(1, len(values) + 1)]
    if any(isinstance(v, (bool, np.bool_, str, bytes)) for v in values):
        raise TypeError("scores: accuracies must be numbers between 0 and 1, not booleans or "
                        "strings.")
    try:
        acc = np.asarray(values, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise TypeError("scores: accuracies must be numbers between 0 and 1.") from None
    if acc.ndim != 1 or acc.size < 2:
        raise ValueError(f"scores: a leaderboard needs at least 2 entries, got {acc.size}.")
    if len(set(names)) != len(names):
        raise ValueError("Entry names must be unique.")
    bad = ~np.isfinite(acc) | (acc < 0) | (acc > 1)
    if bad.any():
        i = int(np.argmax(bad))
        hint = " (percentages? divide by 100)" if np.nanmax(acc) <= 100 and acc[i] > 1 else ""
        raise ValueError(
            f"scores: Accuracies must lie in [0, 1]; entry {names[i]!r} has {acc[i]}{hint}."
        )
    return names, acc


MAX_N = 2**53
"""The largest test-set size: counts are exact in float64 up to 2**53."""
FLOAT32_MAX_N = 2**22
"""Up to this many test items the Beta draws are float32 (fast, packed ranking); beyond it an
accuracy's posterior spread nears float32's resolution (6e-8 near 1) and draws would tie, so
they are float64."""


def _check_n(n: Any, size: int) -> np.ndarray:
    try:
        arr = np.asarray(n)
    except OverflowError:
        arr = np.asarray(n, dtype=object)
    if arr.dtype == object and all(isinstance(v, int) and not isinstance(v, bool)
                                   for v in arr.reshape(-1).tolist()):
        if max(arr.reshape(-1).tolist(), default=0) > MAX_N:
            raise ValueError(f"n must be at most 2**53 ({MAX_N:,}) test items, got {n!r}.")
        arr = arr.astype(np.int64)
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise TypeError(f"n must be a positive integer (the test-set size), got {n!r}.")
    if arr.size and np.any(arr.astype(float) > MAX_N):
        raise ValueError(f"n must be at most 2**53 ({MAX_N:,}) test items, got {n!r}: counts "
                         "beyond it are not exact in floating point.")
    if arr.ndim > 1 or (arr.ndim == 1 and arr.size != size):
        raise ValueError(
            f"n must be one test-set size or one per entry ({size}), got shape {arr.shape}."
        )
    if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)) or np.any(arr < 1):
        raise ValueError(f"n must be a positive integer (the test-set size), got {n!r}.")
    return np.broadcast_to(arr.astype(np.int64), (size,))


def _check_prizes(prizes: Any, size: int) -> np.ndarray | None:
    if prizes is None:
        return None
    try:
        arr = np.asarray(prizes, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"prizes must be amounts for ranks 1, 2, ..., got {prizes!r}.") from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError("prizes must be a non-empty list of amounts for ranks 1, 2, ....")
    if not np.all(np.isfinite(arr)) or np.any(arr < 0):
        raise ValueError(f"prizes must be finite and non-negative, got {arr.tolist()}.")
    if arr.size > size:
        raise ValueError(f"There are {arr.size} prizes but only {size} entries.")
    return arr


def _check_positive_int(value: Any, name: str) -> int:
    return check_int(value, name, 1, kind="a positive integer")


def _leaderboard_prior(prior: Any) -> Beta:
    if isinstance(prior, Fixed):
        raise ValueError("The accuracy cannot be fixed; use a Beta prior such as 'laplace'.")
    p = resolve_prior(prior, "accuracy")
    if not isinstance(p, Beta):
        raise TypeError(
            f"leaderboard needs a Beta prior on the accuracy (a name or bcm.Beta), got {p!r}."
        )
    return p


@keyword_checked
def leaderboard(
    scores: Sequence[float] | Mapping[str, float] | pd.Series,
    n: int | Sequence[int],
    prizes: Sequence[float] | None = None,
    draws: int = 20_000,
    random_seed: int | np.random.Generator | None = None,
    *,
    prior: Any = "laplace",
    top: int = 10,
    chunk_size: int | None = None,
    threads: int | None = None,
) -> pd.DataFrame:
    """Probabilistic leaderboard from published accuracies and the test-set size (paper Fig. 5).

    A public leaderboard gives each entry's accuracy and (at best) the test-set size ``n``. The
    number of correct predictions is ``k = round(acc * n)`` and, with a ``Beta(a, b)`` prior,
    the accuracy's posterior is ``Beta(k + a, n - k + b)`` (paper Eq. 5). Each draw of all
    accuracies is a synthetic leaderboard; counting ranks gives P(rank), P(best) and the
    expected rank, and ``prizes`` weighted by the rank probabilities give each entry's
    expected prize.

    Draws are float32 Beta variates (ratios of Gamma variates) made and ranked in chunks, on
    several threads, each chunk with its own random stream spawned from ``random_seed`` (so the
    result does not depend on ``threads``). Ranking sorts packed (value, entry) integer keys.

    Parameters
    ----------
    scores : sequence of float, mapping of name -> float, or pandas Series
        Accuracies in [0, 1], in published order (best first on a usual leaderboard).
    n : int or sequence of int
        Test-set size (e.g. the private leaderboard's), or one per entry.
    prizes : sequence of float, optional
        Prize amounts for ranks 1, 2, ... (non-negative, at most one per entry).
    draws : int, default 20000
        Synthetic leaderboards.
    random_seed : int or numpy Generator, optional
        Same seed, same table.
    prior : str or Beta, default "laplace"
        Prior of each accuracy (``"jeffreys"``, ``bcm.Beta(a, b)``, ...).
    top : int, default 10
        Number of ``p_rank_<r>`` columns (capped at the number of entries).
    chunk_size : int, optional
        Draws per chunk; default about a million draws x entries.
    threads : int, optional
        Worker threads; default ``min(4, os.cpu_count())``.

    Returns
    -------
    pandas.DataFrame
        One row per entry in published order (index: the names, or 1, 2, ... for a sequence),
        columns ``published_rank, accuracy, correct, p_rank_1 .. p_rank_<top>, p_best,
        expected_rank`` and, with prizes, ``prize`` (as published, by position) and
        ``expected_prize`` (sum over ranks of P(rank) x prize; the column sums to the prize
        money).

    Raises
    ------
    ValueError
        Accuracies outside [0, 1], ``n`` not a positive integer, negative prizes or more prizes
        than entries, a Haldane prior with an accuracy of 0 or 1.

    See Also
    --------
    rank_probabilities : The same for a batch fitted from confusion matrices.

    Examples
    --------
    Three entries separated by a few tenths of a per cent on 15,123 test images:

    >>> from bayescm.comparisons import leaderboard
    >>> table = leaderboard({"x": 0.9871, "y": 0.9856, "z": 0.9849}, n=15123,
    ...                     prizes=[10000, 2000, 1000], draws=4000, random_seed=0)
    >>> table["correct"].tolist(), table["p_best"].round(2).tolist()  # doctest: +MC
    ([14928, 14905, 14895], [0.84, 0.11, 0.04])
    >>> round(float(table["expected_prize"].sum()))
    13000
    """
    names, acc = _check_scores(scores)
    size = acc.size
    n_arr = _check_n(n, size)
    prize_arr = _check_prizes(prizes, size)
    draws = _check_positive_int(draws, "draws")
    top = min(_check_positive_int(top, "top"), size)
    p = _leaderboard_prior(prior)
    check_time(float(draws) * size * 2, "This leaderboard", [
        "fewer draws (20,000 draws give P(rank) to about +-0.007)"], seconds_per_value=1e-8)
    correct = np.rint(acc * n_arr).astype(np.int64)
    a = correct + p.alpha
    b = n_arr - correct + p.beta
    if np.any(a <= 0) or np.any(b <= 0):
        i = int(np.argmax((a <= 0) | (b <= 0)))
        raise ValueError(
            f"The {p.name} prior gives an improper posterior for entry {names[i]!r} (accuracy "
            f"{acc[i]}, {correct[i]} of {n_arr[i]} correct); use prior='laplace' or 'jeffreys'."
        )
    max_rank = max(top, 0 if prize_arr is None else prize_arr.size)
    step = _check_chunk(chunk_size, size)
    n_threads = min(4, os.cpu_count() or 1) if threads is None else _check_positive_int(
        threads, "threads")
    sizes = [min(step, draws - lo) for lo in range(0, draws, step)]
    seq = seed_sequence(random_seed)
    seeds = [child(seq, i) for i in range(len(sizes))]
    dtype = np.float32 if int(n_arr.max()) <= FLOAT32_MAX_N else np.float64
    a_d, b_d = a.astype(dtype), b.astype(dtype)

    def run(job: tuple[int, np.random.SeedSequence]) -> _RankCounter:
        m, seed = job
        rng = np.random.default_rng(seed)
        g_a = rng.standard_gamma(a_d, size=(m, size), dtype=dtype)
        g_b = rng.standard_gamma(b_d, size=(m, size), dtype=dtype)
        g_b += g_a
        np.divide(g_a, g_b, out=g_a)
        counter = _RankCounter(size, max_rank)
        counter.add(*(_sort_float32_packed(g_a, non_negative=True) if dtype == np.float32
                      else _sort_float(g_a)))
        return counter

    jobs = list(zip(sizes, seeds, strict=True))
    if n_threads > 1 and len(jobs) > 1:
        with ThreadPoolExecutor(n_threads) as pool:
            parts = list(pool.map(run, jobs))
    else:
        parts = [run(job) for job in jobs]
    total = parts[0]
    for part in parts[1:]:
        total.merge(part)
    prob, expected = total.result()

    table = pd.DataFrame(
        {"published_rank": np.arange(1, size + 1), "accuracy": acc, "correct": correct},
        index=pd.Index(names, name="entry"),
    )
    for j in range(top):
        table[f"p_rank_{j + 1}"] = prob[:, j]
    table["p_best"] = prob[:, 0]
    table["expected_rank"] = expected
    if prize_arr is not None:
        published = np.zeros(size)
        published[: prize_arr.size] = prize_arr
        table["prize"] = published
        table["expected_prize"] = prob[:, : prize_arr.size] @ prize_arr
    table.attrs.update({"n": n_arr.tolist() if np.ndim(n) else int(n_arr[0]), "draws": draws,
                        "prior": p.to_dict(), "tie_rule": _TIE_RULE})
    return table
