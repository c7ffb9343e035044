""":func:`bayescm.summarize_batch` on dask: chunks of the ``classifier`` dim as dask tasks.

The counts become an ``xarray.DataArray`` chunked along ``classifier`` with the batch's
``chunk_size``; :func:`xarray.map_blocks` turns every chunk into one task that runs
:func:`bayescm.analyses.batch_chunk.summarize_chunk`, which derives the chunk's random stream
from the seed and the chunk's index (its first classifier's position over ``chunk_size``). The
tasks therefore compute exactly what the in-process loop computes, whatever the number of
workers. Results come back a chunk at a time (``as_completed``) into one preallocated table,
so the client holds the table once, not a list of parts plus their concatenation.

dask and distributed are the optional extra ``bayescm[dask]``.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from bayescm.analyses.batch_chunk import Plan, Progress, summarize_chunk

__all__ = ["check_client", "run_on_dask"]

_EXTRA = ("client= runs summarize_batch on dask.distributed, which is not installed: "
          "pip install 'bayescm[dask]' (or scripts/setup.sh dask).")


def check_client(client: Any) -> None:
    """Refuse a ``client`` that is neither a Client, a scheduler address nor ``"local"``.

    The type is checked before dask is imported, so a wrong type is a ``TypeError`` whether or
    not the extra is installed; a right one without the extra is an ``ImportError``.

    Examples
    --------
    >>> check_client(4)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: client must be a dask.distributed.Client, ... or 'local', got int.
    """
    if isinstance(client, str):
        if client != "local" and ":" not in client:
            raise ValueError(f"client={client!r}: give 'local' (a LocalCluster on this machine) "
                             "or a scheduler address such as 'tcp://10.0.0.5:8786'.")
    elif not all(hasattr(client, a) for a in ("compute", "gather", "scheduler_info")):
        raise TypeError(f"client must be a dask.distributed.Client, a scheduler address "
                        f"('tcp://host:8786') or 'local', got {type(client).__name__}.")
    _import_distributed()


def _import_distributed() -> Any:
    try:
        import dask.array  # noqa: F401  (the extra's dask[array])
        import distributed
    except ImportError:
        raise ImportError(_EXTRA) from None
    return distributed


def _chunk_task(block: Any, plan: Plan) -> Any:
    """One task: the summaries of one chunk of classifiers (a block of the counts)."""
    import xarray as xr

    position = block["classifier"].values
    index = int(position[0]) // plan.chunk_size
    names = [str(n) for n in block["name"].values]
    values = summarize_chunk(plan, np.asarray(block.values), names, index)
    coords = {"classifier": position, "name": ("classifier", block["name"].values)}
    return xr.DataArray(values, dims=("classifier", "row", "column"), coords=coords)


def graph(plan: Plan, counts: np.ndarray, names: list[str]) -> Any:
    """The lazy table: ``(classifier, row, column)`` of ``plan.dtype``, one task per chunk."""
    import dask.array as da
    import xarray as xr

    b = counts.shape[0]
    coords = {"classifier": np.arange(b), "name": ("classifier", np.asarray(names, dtype=object))}
    data = xr.DataArray(counts, dims=("classifier", "true_class", "pred_class"),
                        coords=coords).chunk({"classifier": plan.chunk_size})
    sizes = tuple(min(plan.chunk_size, b - start) for start in range(0, b, plan.chunk_size))
    template = xr.DataArray(
        da.empty((b, plan.n_rows, plan.n_columns), dtype=plan.dtype,
                 chunks=(sizes, plan.n_rows, plan.n_columns)),
        dims=("classifier", "row", "column"), coords=coords)
    return xr.map_blocks(_chunk_task, data, args=(plan,), template=template)


def run_on_dask(plan: Plan, counts: np.ndarray, names: list[str], values: np.ndarray,
                client: Any, show: bool) -> None:
    """Run the chunks on ``client`` (a Client, an address or ``"local"``) into ``values``."""
    distributed = _import_distributed()
    own = None
    if isinstance(client, str):
        if client == "local":
            workers = max(1, min(os.cpu_count() or 1, -(-len(names) // plan.chunk_size)))
            cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                               processes=True, dashboard_address=None)
            own = distributed.Client(cluster)
        else:
            own = distributed.Client(client)
        client = own
    if not isinstance(client, distributed.Client):
        raise TypeError(f"client must be a dask.distributed.Client, a scheduler address or "
                        f"'local', got {type(client).__name__}.")
    bar = Progress(len(names), show)
    try:
        parts = graph(plan, counts, names).data.to_delayed().ravel()
        futures = client.compute(list(parts))
        starts = {f.key: i * plan.chunk_size for i, f in enumerate(futures)}
        for future in distributed.as_completed(futures):
            start = starts[future.key]
            part = future.result()
            values[start:start + part.shape[0]] = part
            future.release()
            bar.update(part.shape[0])
    finally:
        bar.close()
        if own is not None:
            cluster = own.cluster
            own.close()
            if cluster is not None:
                cluster.close()


def run_graph(plan: Plan, counts: np.ndarray, names: list[str], scheduler: str = "sync"
              ) -> np.ndarray:
    """The same graph on a local dask scheduler (``"sync"``, ``"threads"``): for tests."""
    return np.asarray(graph(plan, counts, names).compute(scheduler=scheduler).values)
