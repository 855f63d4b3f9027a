"""Design studies on a Dask cluster (loops.study.cluster): the same table as a local study.

A local cluster of two worker processes (one thread each) runs a small study of a corner,
variants in chunks of ten, two of them past a dead point; its metrics equal the local
study's to the bit (the same code on the same chunks) and so do the reasons of the stopped
variants. A chunk failing on a worker names its variants; an unreachable scheduler and a
missing dask say so in one line. The workers load the kernels from numba's on-disk cache,
which the local study (run first, in this process) fills.
"""

from __future__ import annotations

import logging
import socket
import sys
import time
from pathlib import Path

import numpy as np
import pytest

distributed = pytest.importorskip("dask.distributed")

import dask  # noqa: E402

from loops.study.cluster import ClusterError, run_on_cluster  # noqa: E402
from loops.study.coordinates import coordinates  # noqa: E402
from loops.study.study import Plan, run_study  # noqa: E402
from loops.suspension import load_suspension  # noqa: E402
from mechanism.errors import ModelError  # noqa: E402

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
COORDS = ["lower_ball", "upper_ball.z"]
PLAN = Plan(analysis="parallel", travel=np.linspace(-0.08, 0.08, 11))
#: Offsets (m) of two variants whose walks reach a dead point inside the travel.
STOPPING = [[-0.122, -0.0549, 0.0426, 0.0694], [-0.1367, 0.0705, 0.064, -0.0781]]


@pytest.fixture(scope="module")
def corner():
    return load_suspension(EXAMPLES / "double_wishbone.toml")


@pytest.fixture(scope="module")
def offsets():
    out = np.random.default_rng(11).normal(scale=0.003, size=(40, 4))  # lower_ball x, y, z; upper_ball z
    out[[7, 23]] = STOPPING
    return out


@pytest.fixture(scope="module")
def local(corner, offsets):
    """The local study, run first: it compiles (or loads) the kernels the workers load."""
    return run_study(corner, COORDS, offsets, PLAN, chunk_size=10)


@pytest.fixture(scope="module")
def client(local):
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.ERROR) as cluster, distributed.Client(cluster) as client:
        yield client


def test_a_study_on_the_cluster_equals_the_local_study(corner, offsets, local, client):
    remote = run_study(corner, COORDS, offsets, PLAN, chunk_size=10, scheduler=client)
    assert sorted(local.reasons) == [7, 23]
    assert remote.reasons == local.reasons
    assert list(remote.metrics) == list(local.metrics)
    for name, (dimension, values) in local.metrics.items():
        assert remote.metrics[name][0] == dimension
        assert values.shape == (40, 11)
        assert np.array_equal(remote.metrics[name][1], values, equal_nan=True), name
    assert np.isnan(local.values("camber")[7]).any() and np.isfinite(local.values("camber")[0]).all()
    assert client.status == "running"  # a client given is left open


def test_by_address_the_client_opened_is_closed(corner, offsets, local, client):
    address = client.scheduler.address
    before = _clients(client)
    remote = run_study(corner, COORDS, offsets[:12], PLAN, chunk_size=5, scheduler=address)
    for name, (_, values) in local.metrics.items():
        assert np.array_equal(remote.metrics[name][1], values[:12], equal_nan=True), name
    assert remote.reasons == {7: local.reasons[7]}
    assert len(client.scheduler_info()["workers"]) == 2
    deadline = time.monotonic() + 10
    while _clients(client) > before:
        assert time.monotonic() < deadline, "the client opened by run_study stays connected"
        time.sleep(0.1)


def _clients(client):
    return client.run_on_scheduler(lambda dask_scheduler: len(dask_scheduler.clients))


def test_a_chunk_failing_on_a_worker_names_its_variants(corner, client):
    coords = coordinates(corner.model, COORDS)
    chunks = [np.zeros((5, 4)), np.zeros((5, 3))]  # the second chunk lacks a coordinate
    failed = r"^variants 5-9 \(chunk 1\): failed on the Dask cluster: IndexError"
    with pytest.raises(ClusterError, match=failed) as error:
        run_on_cluster(client, corner, coords, chunks, PLAN)
    assert (error.value.first, error.value.last, error.value.chunk) == (5, 9, 1)
    assert "\n" not in str(error.value)


def test_an_unreachable_scheduler_is_named(corner):
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        address = f"tcp://127.0.0.1:{probe.getsockname()[1]}"
    start = time.monotonic()
    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):
        with pytest.raises(ModelError, match=f"^scheduler: cannot reach the Dask scheduler at '{address}'"):
            run_on_cluster(address, corner, [], [np.zeros((1, 4))], PLAN)
    assert time.monotonic() - start < 15


def test_without_dask_the_error_says_what_to_install(corner, monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    with pytest.raises(ModelError, match=r"^scheduler: needs dask.distributed: pip install 'kinematrix\[dask\]'$"):
        run_study(corner, COORDS, np.zeros((2, 4)), PLAN, scheduler="tcp://127.0.0.1:8786")
