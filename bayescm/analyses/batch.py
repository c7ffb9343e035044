"""Summaries of very large batches without keeping the draws: :func:`summarize_batch`.

Users with many matrices (a leaderboard, one matrix per threshold, subgroup, site or day of a
monitored model) mostly want summaries, not thousands of draws of 30 variables per matrix.
:func:`summarize_batch` validates the batch into a :class:`Batch` (rows, columns, chunk and
block sizes, seed) and works through it in chunks of classifiers
(:func:`bayescm.analyses.batch_chunk.summarize_chunk`), each with its own random stream, the
child ``(seed, chunk index)`` of the seed, writing into one float32 table. Peak memory is one
block of draws plus the table; the same seed and chunk size give the same numbers whether the
chunks run in this process or as dask tasks on a cluster (``client=``,
:mod:`bayescm.analyses.batch_dask`).
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from bayescm.analyses.batch_chunk import (
    COLUMNS,
    FLOAT32_MAX_ITEMS,
    OPERATORS,
    Plan,
    Progress,
    summarize_chunk,
)
from bayescm.core.arguments import keyword_checked
from bayescm.core.confusion import ConfusionMatrix, as_batch
from bayescm.core.resources import check_memory
from bayescm.core.stats import hdi_prob_for
from bayescm.core.streams import record, seed_sequence
from bayescm.core.validate import check_count_array, check_int, check_real
from bayescm.metrics import alias_table, canonical_name
from bayescm.metrics.catalogue import resolve_metrics
from bayescm.metrics.metric import Metric
from bayescm.metrics.multiclass import undefined_classes
from bayescm.models.build import model_kind
from bayescm.models.checks import check_prior_strength, check_small_classes
from bayescm.models.context import checked_overrides, merged_priors
from bayescm.models.pipeline import observed_derived
from bayescm.priors import is_conjugate

__all__ = ["summarize_batch"]

_SKIP = ("theta", "rates")  # K^2 rows per classifier; named in var_names they are summarised
_CHUNK_DRAWS = 1 << 29  # bytes of float64 draws per chunk (a random stream, a dask task)
_BLOCK_DRAWS = 1 << 18  # chains x draws x K^2 per block: 16 binary matrices at 4 x 1,000


def _as_counts(matrices: Any, labels: Sequence[Any] | None, positive: Any, ordered: bool
               ) -> tuple[list[str], np.ndarray, ConfusionMatrix]:
    """Names, ``(B, K, K)`` counts and a template matrix (for the model kind)."""
    if isinstance(matrices, np.ndarray) or (hasattr(matrices, "__array__") and not isinstance(
            matrices, (Mapping, ConfusionMatrix))):
        raw = np.asarray(matrices)
        counts = check_count_array(raw.reshape(-1), "counts").reshape(raw.shape)
        if counts.ndim != 3 or counts.shape[1] != counts.shape[2] or counts.shape[0] < 1:
            raise ValueError(f"An array of matrices must have shape (B, K, K), got "
                             f"{counts.shape}.")
        template = ConfusionMatrix(np.ones(counts.shape[1:], dtype=np.int64), labels=labels,
                                   positive=positive, ordered=ordered)
        if template.is_binary and template.labels[0] != (labels or [0, 1])[0]:
            counts = counts[:, ::-1, ::-1]  # the positive class first, as ConfusionMatrix does
        return [str(i) for i in range(counts.shape[0])], np.ascontiguousarray(counts), template
    if labels is not None or positive is not None or ordered:
        raise TypeError("labels=, positive= and ordered= describe an array of counts; "
                        "ConfusionMatrix objects carry their own.")
    if isinstance(matrices, Sequence) and not isinstance(matrices, (str, bytes)):
        if not matrices:
            raise ValueError("matrices is empty; give at least one ConfusionMatrix.")
        matrices = {str(i): cm for i, cm in enumerate(matrices)}
    names, mats = as_batch(matrices)
    if names is None:
        names = ["0"]
    return names, np.stack([cm.counts for cm in mats]), mats[0]


def _resolve_name(name: Any, present: list[str], table: Mapping[str, str], what: str) -> str:
    if not isinstance(name, str):
        raise TypeError(f"{what}: variable names must be strings, got {name!r}.")
    key = name if name in present else table.get(canonical_name(name), name)
    if key not in present:
        raise ValueError(f"{what}: {name!r} is not summarised here; the variables are "
                         f"{', '.join(present)} (pass metrics= or var_names= to add it).")
    return key


def parse_probabilities(probabilities: Any, present: list[str], table: Mapping[str, str]
                        ) -> tuple[list[tuple[str, str, float]], list[str]]:
    """``{"bm": ("<", 0.0)}`` -> ``[("bm", "<", 0.0)]`` and the column ``["P(bm < 0)"]``.

    A value is one ``(operator, threshold)`` pair or a list of them; operators are ``<``,
    ``<=``, ``>``, ``>=``; names may be aliases (``"informedness"``).

    Examples
    --------
    >>> parse_probabilities({"informedness": [("<", 0), (">=", 0.5)]}, ["tpr", "bm"],
    ...                     {"informedness": "bm"})
    ([('bm', '<', 0.0), ('bm', '>=', 0.5)], ['P(bm < 0)', 'P(bm >= 0.5)'])
    """
    if probabilities is None:
        return [], []
    form = ("probabilities must be a mapping {variable: (operator, threshold)} or {variable: "
            "[(operator, threshold), ...]} with operator one of '<', '<=', '>', '>=', e.g. "
            "{'bm': ('<', 0.0)}")
    if not isinstance(probabilities, Mapping):
        raise TypeError(f"{form}; got {type(probabilities).__name__}.")
    tests: list[tuple[str, str, float]] = []
    for name, spec in probabilities.items():
        var = _resolve_name(name, present, table, "probabilities")
        pairs = [spec] if isinstance(spec, tuple) and len(spec) == 2 and isinstance(
            spec[0], str) else spec
        if not isinstance(pairs, (list, tuple)) or not pairs:
            raise ValueError(f"{form}; probabilities[{name!r}] is {spec!r}.")
        for pair in pairs:
            if (not isinstance(pair, (tuple, list)) or len(pair) != 2
                    or not isinstance(pair[0], str) or pair[0] not in OPERATORS):
                raise ValueError(f"{form}; probabilities[{name!r}] has {pair!r}.")
            if not isinstance(pair[1], numbers.Real) or isinstance(pair[1], bool):
                raise TypeError(f"probabilities[{name!r}]: the threshold must be a number, "
                                f"got {pair[1]!r}.")
            value = check_real(pair[1], f"probabilities[{name!r}] threshold")
            tests.append((var, pair[0], value))
    tests = list(dict.fromkeys(tests))
    return tests, [f"P({var} {op} {value:g})" for var, op, value in tests]


def _row_labels(plan: Plan, coords: Mapping[str, Any],
                extras: Mapping[str, tuple[str, ...]]) -> list[str]:
    labels = []
    for name, _, _, _ in plan.rows:
        dims = extras[name]
        if not dims:
            labels.append(name)
            continue
        sizes = [len(coords[d]) for d in dims]
        labels.extend(
            f"{name}[{', '.join(str(coords[d][i]) for d, i in zip(dims, idx, strict=True))}]"
            for idx in np.ndindex(*sizes))
    return labels


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
    probabilities: Mapping[str, Any] | None = None,
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
        The batch; an integer array of shape ``(B, K, K)`` (rows true, columns predicted)
        takes ``labels`` (and ``positive`` for a binary analysis); its classifiers are named
        ``"0"``, ``"1"``, ...
    metrics : list of str or Metric, optional
        Metrics to compute (default all); the parameters are always summarised.
    prior, priors
        As in :func:`bayescm.fit`; the priors must be conjugate (the draws are exact).
    draws, chains : int
        Draws per chain and chains (default 4 x 1,000).
    random_seed : int, SeedSequence or Generator, optional
        Chunk ``i`` draws from the child ``(seed, i)`` of this seed: the same seed and
        ``chunk_size`` give the same table in this process and on any number of dask workers.
    chunk_size : int, optional
        Classifiers per chunk (a random stream and, with ``client``, a dask task); default
        as many as 2^29 bytes of float64 draws hold (4,194 binary matrices at 4 x 1,000
        draws: 2^29 // (4 x 1,000 x 4 cells x 8 bytes)). Memory does
        not depend on it: a chunk is drawn and summarised a few dozen classifiers at a time.
    client : dask.distributed.Client, str, optional
        Run the chunks as dask tasks: a ``Client``, a scheduler address
        (``"tcp://host:8786"`` or ``"host:8786"``; checked before connecting, and a
        scheduler that does not answer is reported within 5 seconds), or ``"local"`` for a
        ``LocalCluster`` on this machine for the call (one single-threaded worker process per
        core). Needs ``bayescm[dask]``. dask's global settings are left as they were.
        Default: in this process.
    probabilities : mapping, optional
        Extra columns: ``{"bm": ("<", 0.0)}`` adds ``P(bm < 0)``, the posterior probability
        of the condition (as :func:`bayescm.probability`); a list of pairs gives several
        columns (``{"acc": [(">", 0.8), (">", 0.9)]}``). Operators ``<``, ``<=``, ``>``,
        ``>=``; the column is NaN in the other variables' rows.
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
        Indexed by ``(classifier, variable)`` in the input order, with the columns of
        :func:`bayescm.summary` (``observed, mean, sd, hdi_lower, hdi_upper, mu, r_hat,
        ess_mean``) and one per requested probability, as float32 (7 digits, far below the
        Monte-Carlo error; a million binary matrices take about 1 GB), or float64 when a
        matrix holds more than 2**17 items (posterior spreads below float32's resolution).
        ``attrs`` record
        ``hdi_prob``, ``draws``, ``chains``, ``chunk_size``, ``model`` and ``random_seed``.

    Raises
    ------
    ValueError
        Bad counts, names or options; a malformed scheduler address (the message says what
        is wrong with it); no scheduler answering at it
        (:class:`~bayescm.errors.SchedulerUnreachableError`, also a
        ``ConnectionError``).
    TypeError
        A ``client`` that is neither a Client, an address nor ``"local"``.
    ImportError
        ``client`` without the ``bayescm[dask]`` extra installed.

    See Also
    --------
    bayescm.fit : The same posterior with every draw kept.

    Examples
    --------
    >>> import bayescm as bcm
    >>> counts = bcm.analyses.simulate_counts(100, size=500, random_seed=0)
    >>> table = bcm.summarize_batch(counts, ["bm"], labels=["pos", "neg"], positive="pos",
    ...                             probabilities={"bm": ("<", 0.0)}, random_seed=1)
    >>> table.shape       # 500 classifiers x (prevalence, tpr, tnr and bm), 8 + 1 columns
    (2000, 9)
    >>> round(float(table.xs("bm", level="variable")["mean"].mean()), 1)   # the truth: 0.4
    0.4
    """
    if client is not None:
        from bayescm.analyses.batch_dask import check_client

        check_client(client)
    batch = prepare(matrices, metrics, prior=prior, priors=priors, draws=draws, chains=chains,
                    random_seed=random_seed, chunk_size=chunk_size,
                    probabilities=probabilities, labels=labels, positive=positive,
                    ordered=ordered, var_names=var_names, hdi_prob=hdi_prob)
    show = _stderr_is_terminal() if progressbar is None else bool(progressbar)
    plan = batch.plan
    values = np.empty((len(batch.names), plan.n_rows, plan.n_columns), dtype=plan.dtype)
    if client is None:
        _run_here(plan, batch.counts, batch.names, values, show)
    else:
        from bayescm.analyses.batch_dask import run_on_dask

        run_on_dask(plan, batch.counts, batch.names, values, client, show)
    return _table(values, batch)


@dataclass(frozen=True)
class Batch:
    """A prepared batch: names, ``(B, K, K)`` counts, the plan, row labels and extra columns."""

    names: list[str]
    counts: np.ndarray
    plan: Plan
    rows: list[str]
    columns: list[str]


def prepare(matrices: Any, metrics: Any = None, *, prior: Any = None,
            priors: Mapping[str, Any] | None = None, draws: int = 1000, chains: int = 4,
            random_seed: Any = None, chunk_size: int | None = None, probabilities: Any = None,
            labels: Sequence[Any] | None = None, positive: Any = None, ordered: bool = False,
            var_names: Iterable[str] | None = None, hdi_prob: float | None = None) -> Batch:
    """Validate :func:`summarize_batch`'s arguments into a :class:`Batch` (nothing drawn).

    Examples
    --------
    >>> import bayescm as bcm
    >>> batch = prepare(bcm.analyses.simulate_counts(50, size=3, random_seed=0), ["informedness"],
    ...                 labels=["p", "n"], positive="p", probabilities={"bm": ("<", 0)})
    >>> batch.names, batch.rows, batch.columns
    (['0', '1', '2'], ['prevalence', 'tpr', 'tnr', 'bm'], ['P(bm < 0)'])
    """
    names, counts, template = _as_counts(matrices, labels, positive, bool(ordered))
    draws = check_int(draws, "draws", 1)
    chains = check_int(chains, "chains", 1)
    prob = hdi_prob_for(hdi_prob)
    if chunk_size is not None:
        chunk_size = check_int(chunk_size, "chunk_size", 1)
    kind = model_kind(template)
    chosen = kind.resolve_priors(prior, checked_overrides(kind, merged_priors(priors, {})))
    if not all(is_conjugate(p) for p in chosen.values()):
        raise ValueError("summarize_batch draws exact (conjugate) posteriors; custom priors need "
                         "NUTS: use bcm.fit on smaller batches.")
    selected = kind.select_metrics(resolve_metrics(metrics, kind.catalogue, kind.metric_family),
                                   chosen)
    check_prior_strength(kind, chosen, counts, names)
    check_small_classes(kind, selected, counts, names)
    plan, rows, columns = _plan(kind, chosen, selected, counts, chains, draws, prob,
                                random_seed, chunk_size, var_names, probabilities)
    return Batch(names, counts, plan, rows, columns)


def _stderr_is_terminal() -> bool:
    try:
        return bool(sys.stderr.isatty())
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


def _plan(kind: Any, chosen: Mapping[str, Any], selected: list[Metric], counts: np.ndarray,
          chains: int, draws: int, prob: float, random_seed: Any, chunk_size: int | None,
          var_names: Iterable[str] | None, probabilities: Any
          ) -> tuple[Plan, list[str], list[str]]:
    """The rows, columns, chunk and block sizes and seed of a batch."""
    shapes = observed_derived(kind, counts[:1], chosen, selected)  # names and class dims
    present = list(shapes)
    table = alias_table(kind.catalogue)
    if var_names is None:
        wanted = [v for v in present if v not in _SKIP]
    else:
        if isinstance(var_names, str):
            var_names = [var_names]
        wanted = list(dict.fromkeys(_resolve_name(v, present, table, "var_names")
                                    for v in var_names))
    tests, columns = parse_probabilities(probabilities, wanted, table)
    metric_of = {m.name: m for m in selected}
    params = {p.name for p in kind.parameters}
    rows, offset = [], 0
    for name in wanted:
        width = int(np.prod(shapes[name][1].shape[1:], dtype=int))
        metric = metric_of.get(name) or kind.catalogue.get(name)
        narrow = name in params or name == "theta" or (
            metric is not None and metric.info.proportional)
        rows.append((name, width, offset, not narrow))
        offset += width
    k2 = counts.shape[1] ** 2
    per_matrix = chains * draws * offset
    if chunk_size is None:  # a function of the arguments only: it fixes the random streams
        chunk_size = max(1, _CHUNK_DRAWS // (chains * draws * k2 * 8))
    block = max(1, min(chunk_size, _BLOCK_DRAWS // (chains * draws * k2)))
    check_memory(3.0 * per_matrix * block, "One block of summarize_batch",
                 ["fewer draws (draws=, chains=)", "only the metrics you need (metrics=[...])"])
    plan = Plan(kind, dict(chosen), tuple(selected), chains, draws, prob,
                seed_sequence(random_seed), chunk_size, block, tuple(rows),
                tuple(tests), kind.elementwise,
                _affine_relations(kind, chosen, selected, rows, counts.shape[1]),
                np.float64 if counts.size and int(counts.sum(axis=(1, 2)).max()) >
                FLOAT32_MAX_ITEMS else np.float32)
    extras = {name: shapes[name][0] for name in wanted}
    return plan, _row_labels(plan, kind.coords(), extras), columns


def _affine_relations(kind: Any, chosen: Mapping[str, Any], selected: list[Metric],
                      rows: list[tuple[str, int, int, bool]], k: int
                      ) -> tuple[tuple[str, str, float, float], ...]:
    """Variables that are exact affine images ``y = a + b x`` of an earlier one.

    FNR is 1 - TPR, the error rate 1 - accuracy, BM is 2 BACC - 1: such a variable's mean,
    sd, HDI, R-hat and ESS follow from its source's, so a chunk checks the relation on every
    draw (it may fail where a metric is undefined) and skips its own summaries. Found here on
    64 draws of a probe matrix (5 in every cell), for float32 (bounded) variables only.
    """
    probe = np.full((1, k, k), 5, dtype=np.int64)
    params = kind.exact_posterior(probe, chosen, np.random.default_rng(0), 1, 64, None)
    derived = kind.derive(params, chosen, selected, skip=undefined_classes(probe))
    found: list[tuple[str, str, float, float]] = []
    sources: list[tuple[str, int, np.ndarray]] = []
    for name, width, _, wide in rows:
        if wide:
            continue
        y = np.asarray(derived[name][1], dtype=float).reshape(64, width)
        for source, w, x in sources:
            if w != width or not (np.isfinite(x).all() and np.isfinite(y).all()):
                continue
            spread = x.var(axis=0)
            if (spread <= 1e-12).any():
                continue
            b = float(np.round(((x - x.mean(axis=0)) * y).mean(axis=0)[0] / spread[0], 9))
            a = float(np.round(y.mean() - b * x.mean(), 9))
            if b != 0 and np.abs(y - (a + b * x)).max() <= 1e-9:
                found.append((name, source, a, b))
                break
        else:
            sources.append((name, width, y))
    return tuple(found)


def _run_here(plan: Plan, counts: np.ndarray, names: list[str], values: np.ndarray,
              show: bool) -> None:
    """The chunks one after the other in this process."""
    bar = Progress(len(names), show)
    try:
        for index, start in enumerate(range(0, len(names), plan.chunk_size)):
            stop = min(start + plan.chunk_size, len(names))
            summarize_chunk(plan, counts[start:stop], names[start:stop], index,
                            out=values[start:stop], progress=bar.update)
    finally:
        bar.close()


def _table(values: np.ndarray, batch: Batch) -> pd.DataFrame:
    """The DataFrame over ``values`` (no copy), indexed by (classifier, variable)."""
    b, v, s = values.shape
    plan = batch.plan
    levels: list[Any] = [pd.Index(batch.names), pd.Index(batch.rows)]
    codes: list[Any] = [np.repeat(np.arange(b, dtype=np.int32), v),  # no int64 temporaries
                        np.tile(np.arange(v, dtype=np.int16), b)]
    index = pd.MultiIndex(levels=levels, codes=codes, names=["classifier", "variable"],
                          verify_integrity=False)
    frame = pd.DataFrame(values.reshape(b * v, s), index=index, columns=COLUMNS + batch.columns,
                         copy=False)
    frame.attrs.update({"hdi_prob": plan.prob, "draws": plan.draws, "chains": plan.chains,
                        "chunk_size": plan.chunk_size, "model": plan.kind.key,
                        **record(plan.seq)})
    return frame
