"""Summaries of very large batches without keeping the draws: :func:`summarize_batch`.

Users with many matrices (a leaderboard, one matrix per threshold, subgroup, site or day of a
monitored model) mostly want summaries, not 20,000 draws of 30 variables per matrix.
:func:`summarize_batch` works through the batch in chunks of classifiers: each chunk is drawn
exactly (conjugate priors), its metrics derived, summarised (mean, sd, partition-based HDI, MU,
R-hat and ESS, requested probabilities) and its draws dropped, so peak memory depends on the
chunk size, not on the batch size. Each chunk has its own random stream, the child
``(seed, chunk index)`` of the seed, so the same seed and chunk size give the same numbers
whether the chunks run in this process, on threads or on a dask cluster (``client=``).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from bayescm.core.confusion import ConfusionMatrix, as_batch
from bayescm.core.diagnostics import rhat_ess_split
from bayescm.core.resources import check_memory
from bayescm.core.stats import hdi_prob_for
from bayescm.core.streams import child, seed_sequence
from bayescm.core.validate import check_count_array, check_int, check_real, keyword_checked
from bayescm.metrics.base import Metric, resolve_metrics
from bayescm.models.build import model_kind
from bayescm.models.context import checked_overrides, merged_priors
from bayescm.models.pipeline import observed_derived, stored_values
from bayescm.priors import is_conjugate

__all__ = ["summarize_batch"]

COLUMNS = ["observed", "mean", "sd", "hdi_lower", "hdi_upper", "mu", "r_hat", "ess_mean"]
_SKIP = ("theta", "rates")
_TARGET_VALUES = 25_000_000  # floats per chunk (~200 MB with temporaries)
_OPERATORS: dict[str, Callable[[np.ndarray, float], np.ndarray]] = {
    "<": np.less, "<=": np.less_equal, ">": np.greater, ">=": np.greater_equal}


def _as_counts(matrices: Any, labels: Sequence[Any] | None, positive: Any, ordered: bool
               ) -> tuple[list[str], np.ndarray, ConfusionMatrix]:
    """Names, ``(B, K, K)`` counts and a template matrix (for the model kind)."""
    if isinstance(matrices, np.ndarray) or (hasattr(matrices, "__array__") and not isinstance(
            matrices, (Mapping, ConfusionMatrix))):
        counts = check_count_array(np.asarray(matrices).reshape(-1), "counts").reshape(
            np.shape(matrices))
        if counts.ndim != 3 or counts.shape[1] != counts.shape[2] or counts.shape[0] < 1:
            raise ValueError(f"An array of matrices must have shape (B, K, K), got "
                             f"{counts.shape}.")
        template = ConfusionMatrix(counts.sum(axis=0) * 0 + 1, labels=labels, positive=positive,
                                   ordered=ordered)
        if template.is_binary and template.labels[0] != (labels or [0, 1])[0]:
            counts = counts[:, ::-1, ::-1]  # the positive class first, as ConfusionMatrix does
        return [str(i) for i in range(counts.shape[0])], np.ascontiguousarray(counts), template
    if labels is not None or positive is not None or ordered:
        raise TypeError("labels=, positive= and ordered= describe an array of counts; "
                        "ConfusionMatrix objects carry their own.")
    if isinstance(matrices, Sequence) and not isinstance(matrices, (str, bytes)):
        matrices = {str(i): cm for i, cm in enumerate(matrices)}
    names, mats = as_batch(matrices)
    if names is None:
        names, mats = ["0"], mats
    return names, np.stack([cm.counts for cm in mats]), mats[0]


def _probabilities(probabilities: Any) -> list[tuple[str, str, float, str]]:
    """``{"bm": ("<", 0.0)}`` -> ``[("bm", "<", 0.0, "P(bm < 0)")]``."""
    if probabilities is None:
        return []
    if not isinstance(probabilities, Mapping):
        raise TypeError("probabilities must be a mapping {metric: (operator, value)}, e.g. "
                        "{'bm': ('<', 0.0)}.")
    out = []
    for name, spec in probabilities.items():
        if (not isinstance(spec, (tuple, list)) or len(spec) != 2
                or spec[0] not in _OPERATORS):
            raise ValueError(f"probabilities[{name!r}] must be (operator, value) with operator "
                             f"one of {list(_OPERATORS)}, got {spec!r}.")
        value = check_real(spec[1], f"probabilities[{name!r}] value")
        out.append((str(name), spec[0], value, f"P({name} {spec[0]} {value:g})"))
    return out


def _rows(name: str, extra: tuple[str, ...], coords: Mapping[str, Any]) -> list[str]:
    if not extra:
        return [name]
    return [f"{name}[{', '.join(str(coords[d][i]) for d, i in zip(extra, idx, strict=True))}]"
            for idx in np.ndindex(*[len(coords[d]) for d in extra])]


def _chunk_summary(kind: Any, priors: Mapping[str, Any], selected: list[Metric],
                   counts: np.ndarray, names: list[str], seq: np.random.SeedSequence,
                   index: int, chains: int, draws: int, prob: float,
                   wanted: list[tuple[str, str, float, str]], var_names: set[str] | None
                   ) -> pd.DataFrame:
    """Draw, derive and summarise one chunk of classifiers; the draws are dropped."""
    from bayescm.analyses.summary import _hdi_rows

    rng = np.random.default_rng(child(seq, index))
    params = kind.exact_posterior(counts, priors, rng, chains, draws, names)
    derived = kind.derive(params, priors, selected, skip=counts.sum(axis=-1) == 0)
    observed = observed_derived(kind, counts, priors, selected)
    coords = kind.coords()
    m = counts.shape[0]
    frames = []
    for name, (extra, values) in derived.items():
        if (var_names is None and name in _SKIP) or (var_names is not None
                                                     and name not in var_names):
            continue
        width = int(np.prod(values.shape[3:], dtype=int))
        series = values.reshape(chains, draws, m * width)
        flat = np.ascontiguousarray(series.reshape(chains * draws, -1).T)  # (S, draws)
        bounds = _hdi_rows(flat, prob)
        with np.errstate(invalid="ignore"):
            mean, sd = flat.mean(axis=1), flat.std(axis=1, ddof=1)
        r_hat, ess = rhat_ess_split(series)
        table = {"observed": np.asarray(observed[name][1], dtype=float).reshape(m * width),
                 "mean": mean, "sd": sd, "hdi_lower": bounds[:, 0], "hdi_upper": bounds[:, 1],
                 "mu": bounds[:, 1] - bounds[:, 0], "r_hat": r_hat, "ess_mean": ess}
        for metric, op, value, column in wanted:
            if metric == name:
                with np.errstate(invalid="ignore"):
                    table[column] = _OPERATORS[op](flat, value).mean(axis=1)
        rows = _rows(name, extra, coords)
        row_index = pd.MultiIndex.from_product([names, rows], names=["classifier", "variable"])
        frame = pd.DataFrame(table, index=row_index)
        frame["_position"] = np.repeat(np.arange(m), width)
        frames.append(frame)
    # classifier-major, in the input order (variables in the fit's order within a classifier)
    out = pd.concat(frames).sort_values("_position", kind="stable")
    return out.drop(columns="_position")


@keyword_checked
def summarize_batch(
    matrices: Mapping[str, ConfusionMatrix] | Sequence[ConfusionMatrix] | np.ndarray,
    metrics: Iterable[str | Metric] | str | Metric | None = None,
    *,
    prior: Any = None,
    priors: Mapping[str, Any] | None = None,
    draws: int = 1000,
    chains: int = 4,
    random_seed: Any = None,
    chunk_size: int | None = None,
    client: Any = None,
    probabilities: Mapping[str, tuple[str, float]] | None = None,
    labels: Sequence[Any] | None = None,
    positive: Any = None,
    ordered: bool = False,
    var_names: Iterable[str] | None = None,
    hdi_prob: float | None = None,
    progressbar: bool | None = None,
) -> pd.DataFrame:
    """Summaries of every classifier of a large batch, in bounded memory.

    Parameters
    ----------
    matrices : mapping of name -> ConfusionMatrix, sequence of ConfusionMatrix, or array
        The batch; an integer array of shape ``(B, K, K)`` needs ``labels`` (and ``positive``
        for a binary analysis).
    metrics : list of str or Metric, optional
        Metrics to compute (default all); the parameters are always summarised.
    prior, priors
        As in :func:`bayescm.fit`; the priors must be conjugate (the draws are exact).
    draws, chains : int
        Draws per chain and chains (default 4 x 1,000).
    random_seed : int, SeedSequence or Generator, optional
        Chunk ``i`` draws from the child ``(seed, i)``: the same seed and ``chunk_size`` give
        the same table however the chunks are run.
    chunk_size : int, optional
        Classifiers per chunk; default about 25 million stored values per chunk.
    client : dask.distributed.Client or str, optional
        Run the chunks as dask tasks on this client (or scheduler address); ``"local"`` starts
        a ``LocalCluster`` for the call. Default: in this process.
    probabilities : mapping, optional
        Extra columns, e.g. ``{"bm": ("<", 0.0)}`` adds ``P(bm < 0)`` (operators ``<``,
        ``<=``, ``>``, ``>=``).
    labels, positive, ordered
        Classes of an array input (as in :class:`bayescm.ConfusionMatrix`).
    var_names : list of str, optional
        Variables to summarise; default all except ``theta`` and ``rates``.
    hdi_prob : float, optional
        Probability of the HDI; default ``rcParams["stats.hdi_prob"]``.
    progressbar : bool, optional
        Report progress on stderr; default when stderr is a terminal.

    Returns
    -------
    pandas.DataFrame
        Indexed by ``(classifier, variable)`` with the columns of :func:`bayescm.summary`
        (``observed, mean, sd, hdi_lower, hdi_upper, mu, r_hat, ess_mean``) and one column per
        requested probability.

    See Also
    --------
    bayescm.fit : the same posterior with every draw kept.

    Examples
    --------
    >>> import numpy as np, bayescm as bcm
    >>> counts = bcm.simulate_counts(100, size=500, random_seed=0)
    >>> table = bcm.summarize_batch(counts, ["bm"], labels=["pos", "neg"], positive="pos",
    ...                             probabilities={"bm": ("<", 0.0)}, random_seed=1)
    >>> table.shape       # 500 classifiers x (prevalence, tpr, tnr and bm)
    (2000, 9)
    >>> float(table.xs("bm", level="variable")["mean"].mean().round(1))   # the truth is 0.4
    0.4
    """
    names, counts, template = _as_counts(matrices, labels, positive, bool(ordered))
    draws = check_int(draws, "draws", 1)
    chains = check_int(chains, "chains", 1)
    prob = hdi_prob_for(hdi_prob)
    kind = model_kind(template)
    chosen = kind.resolve_priors(prior, checked_overrides(kind, merged_priors(priors, {})))
    if not all(is_conjugate(p) for p in chosen.values()):
        raise ValueError("summarize_batch draws exact (conjugate) posteriors; custom priors need "
                         "NUTS: use bcm.fit on smaller batches.")
    selected = kind.select_metrics(resolve_metrics(metrics, kind.catalogue, kind.metric_family),
                                   chosen)
    wanted = _probabilities(probabilities)
    wanted_vars = None if var_names is None else {str(v) for v in var_names}
    per_matrix = stored_values(kind, selected, 1, chains, draws) / 2
    if chunk_size is None:
        chunk_size = max(1, int(_TARGET_VALUES // per_matrix))
    chunk_size = check_int(chunk_size, "chunk_size", 1)
    check_memory(per_matrix * min(chunk_size, len(names)) * 3, "One chunk of summarize_batch",
                 ["a smaller chunk_size", "fewer draws"])
    seq = seed_sequence(random_seed)
    starts = list(range(0, len(names), chunk_size))
    jobs = [(i, a, min(a + chunk_size, len(names))) for i, a in enumerate(starts)]

    def run(job: tuple[int, int, int]) -> pd.DataFrame:
        i, a, b = job
        return _chunk_summary(kind, chosen, selected, counts[a:b], names[a:b], seq, i, chains,
                              draws, prob, wanted, wanted_vars)

    show = sys.stderr.isatty() if progressbar is None else bool(progressbar)
    if client is not None:
        parts = _run_dask(client, run, jobs, show)
    else:
        parts = []
        for done, job in enumerate(jobs, start=1):
            parts.append(run(job))
            if show:
                print(f"\rbayescm: {done}/{len(jobs)} chunks", end="", file=sys.stderr,
                      flush=True)
        if show:
            print(file=sys.stderr)
    table = pd.concat(parts)
    table.attrs.update({"hdi_prob": prob, "draws": draws, "chains": chains,
                        "chunk_size": chunk_size, "model": kind.name})
    return table


def _run_dask(client: Any, run: Callable[[Any], pd.DataFrame], jobs: list[Any], show: bool
              ) -> list[pd.DataFrame]:
    """The chunks as tasks of a dask.distributed client (``"local"``: a LocalCluster)."""
    try:
        from dask.distributed import Client, LocalCluster, progress
    except ImportError:  # pragma: no cover - depends on the extra
        raise ImportError("client= needs dask.distributed: pip install 'bayescm[dask]'.") from None
    own = None
    if isinstance(client, str):
        own = (Client(LocalCluster(n_workers=2, threads_per_worker=1, processes=True))
               if client == "local" else Client(client))
        client = own
    if not isinstance(client, Client):
        raise TypeError(f"client must be a dask.distributed.Client, a scheduler address or "
                        f"'local', got {type(client).__name__}.")
    try:
        futures = client.map(run, jobs, pure=False)
        if show:
            progress(futures)
        return client.gather(futures)
    finally:
        if own is not None:
            own.close()
