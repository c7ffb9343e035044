""":func:`bayescm.summarize_batch` on dask: chunks of the ``classifier`` dim as dask tasks.

The counts become an ``xarray.DataArray`` chunked along ``classifier`` with the batch's
``chunk_size``; :func:`xarray.map_blocks` turns every chunk into one task that runs
:func:`bayescm.analyses.batch_chunk.summarize_chunk`, which derives the chunk's random stream
from the seed and the chunk's index (its first classifier's position over ``chunk_size``). The
tasks therefore compute exactly what the in-process loop computes, whatever the number of
workers. Results come back a chunk at a time (``as_completed``) into one preallocated table,
so the client holds the table once, not a list of parts plus their concatenation.

A scheduler address is checked before anything connects (``host:port``,
``tcp://host:port``, ``tls://...``: a clear ``ValueError`` otherwise, never ``int()``'s
message), a scheduler that does not answer is reported within :data:`CONNECT_TIMEOUT_S`
seconds (:class:`SchedulerUnreachableError`, not distributed's 30 s wait), and the clients made
here are never the process's default: dask's global settings are the same after a run as
before it, whether it succeeded or failed (a failed client used to leave
``scheduler="dask.distributed"`` set, which broke later dask work in the process).

dask and distributed are the optional extra ``bayescm[dask]``.
"""

from __future__ import annotations

import copy
import os
import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from bayescm.analyses.batch_chunk import Plan, Progress, summarize_chunk
from bayescm.errors import SchedulerUnreachableError

__all__ = ["CONNECT_TIMEOUT_S", "SchedulerUnreachableError", "check_client", "parse_address",
           "run_on_dask"]

CONNECT_TIMEOUT_S = 5
"""Seconds to wait for a dask scheduler to answer before giving up."""

SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
"""Address schemes of a dask scheduler (``tcp`` when none is written)."""

_ADDRESS = re.compile(r"(?:(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*)://)?"
                      r"(?P<host>\[[0-9A-Fa-f:.]+\]|[^:/\s\[\]]+):(?P<port>[^/\s]*)/?")
_HOST = re.compile(r"\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?")


_EXTRA = ("client= runs summarize_batch on dask.distributed, which is not installed: "
          "pip install 'bayescm[dask]' (or scripts/setup.sh dask).")


def parse_address(address: str) -> tuple[str, str, int]:
    """``(scheme, host, port)`` of a scheduler address, or a ValueError saying what is wrong.

    Examples
    --------
    >>> from bayescm.analyses.batch_dask import parse_address
    >>> parse_address("10.0.0.5:8786"), parse_address("tls://sched.example.org:8786")
    (('tcp', '10.0.0.5', 8786), ('tls', 'sched.example.org', 8786))
    >>> parse_address("foo:bar")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: client='foo:bar': the port 'bar' is not a number from 1 to 65535; ...
    """
    usage = ("give 'local' (a LocalCluster on this machine), a scheduler address such as "
             "'tcp://10.0.0.5:8786' or '10.0.0.5:8786', or a dask.distributed.Client")
    found = _ADDRESS.fullmatch(address.strip())
    if found is None:
        raise ValueError(f"client={address!r} is not a scheduler address: {usage}.")
    scheme = (found.group("scheme") or "tcp").lower()
    host, port = found.group("host"), found.group("port")
    if scheme in ("http", "https"):
        raise ValueError(f"client={address!r} looks like the dashboard's address (http); the "
                         "scheduler listens on tcp://, by default on port 8786: "
                         f"tcp://{host}:8786.")
    if scheme not in SCHEMES:
        raise ValueError(f"client={address!r}: the scheme {scheme!r} is not one of dask's "
                         f"({', '.join(SCHEMES)}); {usage}.")
    if not _HOST.fullmatch(host):
        raise ValueError(f"client={address!r}: {host!r} is not a host name or IP address; "
                         f"{usage}.")
    if not (port.isascii() and port.isdigit() and 1 <= int(port[:6]) <= 65535):
        raise ValueError(f"client={address!r}: the port {port!r} is not a number from 1 to "
                         f"65535; {usage}.")
    return scheme, host.strip("[]"), int(port)


def check_client(client: Any) -> None:
    """Refuse a ``client`` that is neither a Client, a scheduler address nor ``"local"``.

    The type and the address are checked before dask is imported, so a wrong one is a
    ``TypeError`` or ``ValueError`` whether or not the extra is installed; a right one without
    the extra is an ``ImportError``.

    Examples
    --------
    >>> check_client(4)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    TypeError: client must be a dask.distributed.Client, ... or 'local', got int.
    """
    if isinstance(client, str):
        if client != "local":
            parse_address(client)
    elif not all(hasattr(client, a) for a in ("compute", "gather", "scheduler_info")):
        raise TypeError(f"client must be a dask.distributed.Client, a scheduler address "
                        f"('tcp://host:8786') or 'local', got {type(client).__name__}.")
    _import_distributed()


def _reachable(address: str) -> None:
    """Refuse at once an address where nothing listens (distributed would retry for 30 s)."""
    scheme, host, port = parse_address(address)
    if scheme == "ucx":  # not a TCP socket: distributed's own timeout applies
        return
    try:
        with socket.create_connection((host, port), timeout=CONNECT_TIMEOUT_S):
            pass
    except OSError as err:
        reason = ("no answer within " f"{CONNECT_TIMEOUT_S} s" if isinstance(err, TimeoutError)
                  else err.strerror or str(err))
        raise SchedulerUnreachableError(
            f"client={address!r}: no dask scheduler answers at {host}:{port} ({reason}); start "
            "one (dask scheduler), or check the address, the port and the firewall.") from None


@contextmanager
def _config_kept() -> Iterator[None]:
    """Keep dask's global configuration as it was, whatever happens inside."""
    import dask

    saved = copy.deepcopy(dask.config.config)
    try:
        yield
    finally:
        if dask.config.config != saved:
            dask.config.config.clear()
            dask.config.config.update(saved)


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
    """Run the chunks on ``client`` (a Client, an address or ``"local"``) into ``values``.

    dask's global configuration is restored afterwards, and the clients made here are never
    set as the process's default.
    """
    distributed = _import_distributed()
    with _config_kept():
        _run(distributed, plan, counts, names, values, client, show)


def _run(distributed: Any, plan: Plan, counts: np.ndarray, names: list[str],
         values: np.ndarray, client: Any, show: bool) -> None:
    own = None
    if isinstance(client, str):
        if client == "local":
            workers = max(1, min(os.cpu_count() or 1, -(-len(names) // plan.chunk_size)))
            cluster = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                               processes=True, dashboard_address=None)
            own = distributed.Client(cluster, set_as_default=False)
        else:
            _reachable(client)
            try:
                own = distributed.Client(client, timeout=CONNECT_TIMEOUT_S,
                                         set_as_default=False)
            except Exception as err:  # refused, timed out, or not a scheduler that answered
                raise SchedulerUnreachableError(
                    f"client={client!r}: no dask scheduler answered there ("
                    f"{type(err).__name__}: {str(err)[:200]}); check the address, the port "
                    "(the scheduler's, 8786 by default, not the dashboard's) and that the "
                    "scheduler is running.") from None
        client = own
    if not isinstance(client, distributed.Client):
        raise TypeError(f"client must be a dask.distributed.Client, a scheduler address or "
                        f"'local', got {type(client).__name__}.")
    bar = Progress(len(names), show)
    try:
        parts = graph(plan, counts, names).data.to_delayed().ravel()
        futures = client.compute(list(parts))
        starts = {f.key: i * plan.chunk_size for i, f in enumerate(futures)}
        for future in distributed.as_completed(futures, loop=client.loop):
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
