"""summarize_batch on dask: the same table as in process, whatever runs the chunks."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import bayescm as bcm
from bayescm.analyses.batch import _run_here, prepare
from bayescm.analyses.batch_dask import check_client

COUNTS = bcm.analyses.simulate_counts(60, size=45, random_seed=0)
KW = {"labels": ["pos", "neg"], "positive": "pos", "random_seed": 3, "chunk_size": 7,
      "probabilities": {"bm": ("<", 0.2)}}


def _dask_installed() -> bool:
    try:
        import dask.array  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:
        return False
    return True


needs_dask = pytest.mark.skipif(not _dask_installed(),
                                reason="dask and distributed are not installed "
                                       "(pip install 'bayescm[dask]')")


def test_client_without_the_extra_names_it(monkeypatch):
    for module in ("dask", "dask.array", "distributed"):
        monkeypatch.setitem(sys.modules, module, None)  # import fails
    with pytest.raises(ImportError, match=r"bayescm\[dask\]"):
        check_client("local")
    with pytest.raises(ImportError, match=r"bayescm\[dask\]"):
        bcm.summarize_batch(COUNTS, client="tcp://127.0.0.1:8786", **KW)
    with pytest.raises(TypeError, match="client must be"):  # the type is checked first
        bcm.summarize_batch(COUNTS, client=object(), **KW)


@needs_dask
@pytest.mark.parametrize("scheduler", ["sync", "threads"])
def test_the_xarray_graph_equals_the_in_process_loop(scheduler):
    from bayescm.analyses.batch_dask import graph, run_graph

    batch = prepare(COUNTS, **KW)
    here = np.empty((45, batch.plan.n_rows, batch.plan.n_columns), dtype=np.float32)
    _run_here(batch.plan, batch.counts, batch.names, here, False)
    lazy = graph(batch.plan, batch.counts, batch.names)
    assert lazy.dims == ("classifier", "row", "column")
    assert lazy.chunks[0] == (7, 7, 7, 7, 7, 7, 3)  # one task per chunk of classifiers
    np.testing.assert_array_equal(run_graph(batch.plan, batch.counts, batch.names, scheduler),
                                  here)


@needs_dask
@pytest.mark.slow
def test_local_cluster_with_two_worker_processes_equals_in_process():
    from distributed import Client, LocalCluster

    here = bcm.summarize_batch(COUNTS, **KW)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1",
                      dashboard_address=None) as cluster, Client(cluster) as client:
        on_client = bcm.summarize_batch(COUNTS, client=client, **KW)
        by_address = bcm.summarize_batch(COUNTS, client=cluster.scheduler_address, **KW)
        assert len(client.scheduler_info()["workers"]) == 2
    assert on_client.equals(here)
    assert by_address.equals(here)
    three = bcm.ConfusionMatrix([[90, 8, 2], [12, 70, 8], [3, 9, 50]], labels=["a", "b", "c"])
    mats = [three] * 5
    multi_here = bcm.summarize_batch(mats, ["acc", "tpr"], random_seed=1, chunk_size=2)
    multi_local = bcm.summarize_batch(mats, ["acc", "tpr"], random_seed=1, chunk_size=2,
                                      client="local")
    assert multi_local.equals(multi_here)


@pytest.mark.parametrize("address", ["foo:bar", "host:", ":8786", "tcp://host:0",
                                     "tcp://host:65536", "http://localhost:8787",
                                     "tcp://ho st:8786", "udp://host:8786", "host"])
def test_a_malformed_address_is_refused_before_connecting(address):
    from bayescm.analyses.batch_dask import parse_address

    with pytest.raises(ValueError, match="client=") as info:
        parse_address(address)
    assert "int()" not in str(info.value) and "literal" not in str(info.value)


@pytest.mark.parametrize(("address", "parsed"), [
    ("host:8786", ("tcp", "host", 8786)), ("tcp://10.0.0.5:8786", ("tcp", "10.0.0.5", 8786)),
    ("tls://sched.example.org:8786/", ("tls", "sched.example.org", 8786)),
    ("[::1]:8786", ("tcp", "::1", 8786))])
def test_scheduler_addresses_in_every_written_form(address, parsed):
    from bayescm.analyses.batch_dask import parse_address

    assert parse_address(address) == parsed


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@needs_dask
def test_a_failed_client_answers_fast_and_leaves_dask_as_it_was(tmp_path):
    import copy
    import time

    import dask
    import dask.array as da
    import distributed  # noqa: F401  (its defaults join dask's configuration on import)

    from bayescm.analyses.batch_dask import CONNECT_TIMEOUT_S
    from bayescm.errors import SchedulerUnreachableError

    before = copy.deepcopy(dask.config.config)
    for client in ("foo:bar", f"tcp://127.0.0.1:{_free_port()}"):
        start = time.monotonic()
        with pytest.raises(ValueError, match="client="):
            bcm.summarize_batch(COUNTS, client=client, **KW)
        assert time.monotonic() - start < CONNECT_TIMEOUT_S + 1
    with pytest.raises(SchedulerUnreachableError, match="no dask scheduler"):
        bcm.summarize_batch(COUNTS, client=f"127.0.0.1:{_free_port()}", **KW)
    assert dask.config.config == before  # no scheduler left set as the process's default
    assert float(da.ones(4, chunks=2).sum().compute()) == 4.0
    fit = bcm.fit(bcm.ConfusionMatrix.from_counts(tp=26, fn=0, tn=6, fp=2), draws=50)
    assert bcm.load(bcm.save(fit, tmp_path / "fit.nc"))["posterior"]["tpr"].shape == (4, 50)
