"""Design studies on a Dask cluster (loops.study.cluster): the same table as a local study.

A local cluster of two worker processes (one thread each) runs a small study of a corner,
variants in chunks of ten, two of them past a dead point; its metrics equal the local
study's to the bit (the same code on the same chunks) and so do the reasons of the stopped
variants. The cluster is reached as a user reaches one: by its address, from Python
(``run_study(..., scheduler=address)``) and from the installed command line (``kinematrix
study ... --scheduler ADDRESS`` in a process of its own), with no client of the test process
made the default one (the defect of issue 24: ``as_completed`` looked for a default client,
which only a test fixture had). A chunk failing on a worker names its variants; an address
that is not one, a scheduler that does not answer within the timeout and a missing dask say
so in one line. The workers load the kernels from numba's on-disk cache, which the local
study (run first, in this process) fills.
"""

from __future__ import annotations

import logging
import socket
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
import pytest


from dynamics.cli import main  # noqa: E402
from installed import kinematrix  # noqa: E402
from loops.study.cluster import (DEFAULT_TIMEOUT, TIMEOUT_VARIABLE, ClusterError, SchedulerError,  # noqa: E402
                                 run_on_cluster, scheduler_timeout)
from loops.study.coordinates import coordinates  # noqa: E402
from loops.study.study import Plan, run_chunk, run_study  # noqa: E402
from loops.suspension import load_suspension  # noqa: E402
from mechanism.errors import ModelError  # noqa: E402

#: A dashboard port taken by another cluster on the machine is not these tests' concern. The
#: tests share one test process: its cluster (two worker processes, about 3 s of processor time to
#: start) and the local study are made once.
pytestmark = [pytest.mark.filterwarnings("ignore:Port .* is already in use"), pytest.mark.xdist_group("dask-cluster")]
EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
COORDS = ["lower_ball", "upper_ball.z"]
PLAN = Plan(analysis="parallel", travel=np.linspace(-0.08, 0.08, 11))
#: Offsets (m) of two variants whose walks reach a dead point inside the travel.
STOPPING = [[-0.122, -0.0549, 0.0426, 0.0694], [-0.1367, 0.0705, 0.064, -0.0781]]
#: A small vary file for the shipped corner (mm): 24 variants, in chunks of 8 on the command line.
VARY = """design = "latin-hypercube"
variants = 24
seed = 3
[[vary]]
hardpoint = "lower_ball"
range = [-4, 4]
[[vary]]
hardpoint = "upper_ball.z"
range = [-4, 4]
"""
STUDY = ["study", EXAMPLES / "double_wishbone.toml", "--vary", "vary.toml", "--analysis", "parallel",
         "--travel", "-80:80:16", "--chunk-size", "8"]


def unused_address():
    """A loopback address on which nothing listens."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return f"tcp://127.0.0.1:{probe.getsockname()[1]}"


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
def cluster(local, distributed):
    """A scheduler and two single-thread worker processes, with no client at all: a study reaches
    it by its address, as a user's does."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                  silence_logs=logging.ERROR) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def client(cluster, distributed):
    """A client of the test's own, for the tests that hand one over, never the process's default."""
    with distributed.Client(cluster, set_as_default=False) as client:
        yield client


def no_default_client():
    import dask.distributed as distributed  # noqa: PLC0415 (imported by the cluster the caller holds)

    with pytest.raises(ValueError, match="No clients found"):
        distributed.default_client()
    return True


def test_a_study_by_address_equals_the_local_study_bit_for_bit(corner, offsets, local, cluster):
    """The README's ``run_study(..., scheduler="tcp://...")``: no default client exists before or
    after, and every metric of every variant is the local study's to the bit."""
    assert no_default_client()
    remote = run_study(corner, COORDS, offsets, PLAN, chunk_size=10, scheduler=cluster.scheduler_address)
    assert no_default_client()
    assert sorted(local.reasons) == [7, 23]
    assert remote.reasons == local.reasons
    assert list(remote.metrics) == list(local.metrics)
    for name, (dimension, values) in local.metrics.items():
        assert remote.metrics[name][0] == dimension
        assert values.shape == (40, 11)
        assert np.array_equal(remote.metrics[name][1], values, equal_nan=True), name
    assert np.isnan(local.values("camber")[7]).any() and np.isfinite(local.values("camber")[0]).all()


def test_a_client_given_is_used_and_left_open(corner, offsets, local, client):
    remote = run_study(corner, COORDS, offsets, PLAN, chunk_size=10, scheduler=client)
    for name, (_, values) in local.metrics.items():
        assert np.array_equal(remote.metrics[name][1], values, equal_nan=True), name
    assert remote.reasons == local.reasons
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


def test_the_command_line_study_by_address_writes_the_local_table(tmp_path, cluster, monkeypatch):
    """``kinematrix study ... --scheduler ADDRESS`` (the installed command, a process of its own)
    writes the same bytes as the same study run locally (by the command line's function, in this
    process), says where it connects, and exits 0."""
    (tmp_path / "vary.toml").write_text(VARY)
    monkeypatch.chdir(tmp_path)  # vary.toml, as the command finds it
    assert main([str(argument) for argument in STUDY] + ["--out", "local.csv"]) == 0
    there = kinematrix(*STUDY, "--out", "cluster.csv", "--scheduler", cluster.scheduler_address, cwd=tmp_path)
    assert there.returncode == 0, there.stderr
    assert f"connecting to the Dask scheduler at {cluster.scheduler_address}" in there.stderr
    assert "Traceback" not in there.stderr
    table = (tmp_path / "cluster.csv").read_bytes()
    assert table == (tmp_path / "local.csv").read_bytes()
    assert len(table.splitlines()) == 2 + 24 * 11  # units line, header, 24 variants x 11 positions


def test_a_compliance_study_of_hardpoints_and_bushing_rates_on_the_cluster_is_the_local_one(client):
    """The compliance analysis's variants, one by one in each chunk (equilibria, not the batched
    walk), and bushing rates among the parameters: the cluster's table is the local one's."""
    axle = load_suspension(EXAMPLES / "front_axle_bushings.toml")
    names = ["lower_ball_left.z", "lower_front_left.ky"]
    offsets = np.array([[0.002, -1e6], [-0.001, 5e5], [0.0, 2e6]])
    plan = Plan(analysis="compliance", travel=np.array([-0.02, 0.02]))
    here = run_study(axle, names, offsets, plan, chunk_size=2)
    there = run_study(axle, names, offsets, plan, chunk_size=2, scheduler=client)
    assert here.to_csv() == there.to_csv()
    assert np.all(np.isfinite(here.values("compliance_steer_lateral_patch_left")))


def test_a_chunk_failing_on_a_worker_names_its_variants(corner, client):
    coords = coordinates(corner.model, COORDS)
    chunks = [np.zeros((5, 4)), np.zeros((5, 3))]  # the second chunk lacks a coordinate
    failed = r"^variants 5-9 \(chunk 1\): failed on the Dask cluster: IndexError"
    shared = {"suspension": corner, "coords": coords, "plan": PLAN}
    with pytest.raises(ClusterError, match=failed) as error:
        run_on_cluster(client, partial(run_chunk, workers=1), chunks, shared)
    assert (error.value.first, error.value.last, error.value.chunk) == (5, 9, 1)
    assert "\n" not in str(error.value)


def test_an_unreachable_scheduler_is_named_after_its_timeout(corner, capfd):
    """Given up after the timeout asked for (Dask's message says after how long), said first.
    Nothing listens, so the wait is the timeout: half a second."""
    address = unused_address()
    with pytest.raises(SchedulerError, match=f"^scheduler: cannot reach the Dask scheduler at '{address}'") as error:
        run_study(corner, COORDS, np.zeros((1, 4)), PLAN, scheduler=address, scheduler_timeout=0.5)
    assert isinstance(error.value, ModelError) and "\n" not in str(error.value)
    assert str(error.value).endswith(f"Timed out trying to connect to {address} after 0.5 s"), str(error.value)
    assert f"connecting to the Dask scheduler at {address} (waiting at most 0.5 s" in capfd.readouterr().err


@pytest.mark.parametrize("address, problem", [
    ("garbage", "missing port number"),
    ("foo://bar", "unknown address scheme 'foo'"),
    ("tcp://127.0.0.1:99999", "port 99999 is not between 1 and 65535"),
])
def test_an_address_that_is_not_one_is_refused_before_connecting(corner, capfd, address, problem):
    with pytest.raises(SchedulerError, match=f"^scheduler: '{address}' is not a Dask scheduler address") as error:
        run_study(corner, COORDS, np.zeros((1, 4)), PLAN, scheduler=address)
    assert problem in str(error.value)
    assert "connecting" not in capfd.readouterr().err  # refused before any wait


def test_the_timeout_is_ten_seconds_unless_told(monkeypatch):
    """run_study's ``scheduler_timeout``, else the environment variable, else 10 s; a timeout
    that is not a positive number of seconds is named where it came from."""
    monkeypatch.delenv(TIMEOUT_VARIABLE, raising=False)
    assert scheduler_timeout() == DEFAULT_TIMEOUT == 10.0
    monkeypatch.setenv(TIMEOUT_VARIABLE, "2.5")
    assert scheduler_timeout() == 2.5
    assert scheduler_timeout(4) == 4.0
    monkeypatch.setenv(TIMEOUT_VARIABLE, "soon")
    with pytest.raises(SchedulerError, match=f"^{TIMEOUT_VARIABLE}: expected seconds, .* got 'soon'$"):
        scheduler_timeout()
    for bad in (0, -1, float("nan"), float("inf"), 1e9, True, "3"):
        with pytest.raises(SchedulerError, match="^scheduler_timeout: expected seconds"):
            scheduler_timeout(bad)


def test_a_scheduler_that_does_not_answer_is_one_line_from_the_command_line(tmp_path):
    """``--scheduler tcp://127.0.0.1:1`` (nothing listens): first a line saying where it connects
    and how long it waits, then the error in one line after the timeout
    (``KINEMATRIX_SCHEDULER_TIMEOUT=0.5`` here: the wait is the timeout, as nothing answers; 10 s by
    default), exit 2, no traceback, and nothing left for the interpreter's exit to stall on (no
    half-made client)."""
    (tmp_path / "vary.toml").write_text(VARY)
    done = kinematrix(*STUDY, "--out", "study.csv", "--scheduler", "tcp://127.0.0.1:1", cwd=tmp_path,
                      env={TIMEOUT_VARIABLE: "0.5"})
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2, done.stderr
    assert lines[0].startswith("kinematrix: connecting to the Dask scheduler at tcp://127.0.0.1:1 (waiting at "
                               "most 0.5 s"), lines
    assert lines[-1].startswith("kinematrix: error: scheduler: cannot reach the Dask scheduler at "
                                "'tcp://127.0.0.1:1'"), lines
    assert lines[-1].endswith("after 0.5 s"), lines
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    assert not (tmp_path / "study.csv").exists()


@pytest.mark.parametrize("address, message", [
    ("garbage", "scheduler: 'garbage' is not a Dask scheduler address ('tcp://host:8786'): missing port number in "
                "address 'garbage'"),
    ("tls://127.0.0.1:1", "scheduler: cannot connect to the Dask scheduler at 'tls://127.0.0.1:1': TypeError: TLS "
                          "expects a `ssl_context` argument"),
])
def test_an_address_dask_cannot_use_is_one_line_from_the_command_line_and_no_stall(tmp_path, address, message):
    """``--scheduler garbage`` (refused before any connection is tried: its one line, at once) or a
    TLS address with no TLS configuration: one line, exit 2, and no half-made client whose
    ``Client.__del__`` stalled the exit (60 s, the issue measured) and printed a traceback."""
    (tmp_path / "vary.toml").write_text(VARY)
    done = kinematrix(*STUDY, "--out", "study.csv", "--scheduler", address, cwd=tmp_path, timeout=30)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(f"kinematrix: error: {message}"), done.stderr
    if address == "garbage":
        assert done.stderr.splitlines() == [f"kinematrix: error: {message}"], done.stderr
    assert "Traceback" not in done.stderr and "Exception ignored" not in done.stderr
    assert ("connecting" in done.stderr) == address.startswith("tls:")
    assert not (tmp_path / "study.csv").exists()


def test_a_scheduler_with_no_worker_is_named(corner, distributed):
    """A study sent to a scheduler that has no worker would wait for ever: refused after the timeout."""
    with distributed.LocalCluster(n_workers=0, processes=False, protocol="tcp://", host="127.0.0.1",
                                  dashboard_address=None, silence_logs=logging.ERROR) as empty:
        address = empty.scheduler_address
        with pytest.raises(SchedulerError, match=f"^scheduler: the Dask scheduler at '{address}' has no worker "
                                                 r"\(waited 1 s\): start one with 'dask worker"):
            run_study(corner, COORDS, np.zeros((1, 4)), PLAN, scheduler=address, scheduler_timeout=1)


def test_without_dask_the_error_says_what_to_install(corner, monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    with pytest.raises(ModelError, match=r"^scheduler: needs dask.distributed: pip install 'kinematrix\[dask\]'$"):
        run_study(corner, COORDS, np.zeros((2, 4)), PLAN, scheduler="tcp://127.0.0.1:8786")


def test_the_study_modules_import_one_way():
    """``loops.study.study`` imports ``loops.study.cluster``, which imports nothing of the study
    (no cycle) and no private name of another module."""
    source = (Path(__file__).resolve().parents[1] / "loops" / "study" / "cluster.py").read_text()
    imports = [line for line in source.splitlines() if line.lstrip().startswith(("import ", "from "))]
    assert not [line for line in imports if "study" in line or line.lstrip().startswith("from .")], imports
    assert not [line for line in imports if " import _" in line or ", _" in line], imports
