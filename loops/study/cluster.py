"""Design studies on more than one machine: the chunks of :func:`loops.study.study.run_study`
as tasks of a Dask cluster (the ``dask`` extra: ``pip install 'kinematrix[dask]'``).

``run_study(..., scheduler="tcp://host:8786")`` (or a ``dask.distributed.Client``) runs the
nominal design here, then :func:`run_on_cluster` sends what every chunk shares (the nominal
suspension, the coordinates and the plan) to every worker once (``scatter(broadcast=True)``),
submits one task per chunk of variants (``run_chunk`` of :mod:`loops.study.study`, the same
code as a local study, so the metrics are the same to the bit) and gathers the chunks'
results in order. This module knows nothing of studies but that: the task and what it
shares are the caller's (so imports run one way, ``study`` -> ``cluster``). A chunk that
fails on a worker stops the study with a :class:`ClusterError` naming its variants; the
worker's own error is its cause.

Connecting
----------
A scheduler given by address is reached through a client of this module's own, never the
process's default client (``Client(..., set_as_default=False)``; nothing here looks one up):
a study runs the same whether or not the caller has a client of its own. Before waiting,
one line on stderr says where it connects and for how long it waits. An address that is not
one (``"garbage"``, ``"foo://bar"``) is refused at once; a scheduler that does not answer
within the timeout, or that has no worker within it, is refused then. Each is a
:class:`SchedulerError` (a :class:`~mechanism.errors.ModelError`, ``where`` = ``"scheduler"``):
one line that the command line prints before exiting with status 2. The timeout, in
seconds: ``run_study(..., scheduler_timeout=...)``, else the environment variable
``KINEMATRIX_SCHEDULER_TIMEOUT``, else :data:`DEFAULT_TIMEOUT` (10 s).

Setting up a cluster
--------------------
* Every worker imports kinematrix: install the same version on every machine (the tasks
  refer to its functions by name; the models travel by pickle).
* One task walks its chunk's variants on one thread. A worker's threads are the cluster's
  parallelism: start workers with one thread per core (``dask worker tcp://host:8786``, its
  default, or ``--nworkers N --nthreads 1``); the compiled walk releases the GIL.
* Chunk size: a task should run for seconds, so that Dask's per-task cost (milliseconds of
  scheduling, the chunk's offsets out and its metric arrays back) stays small beside it,
  and there should be several chunks per worker thread so that the faster threads take the
  rest. A corner suspension at 41 positions walks about 500 variants a second on one core
  (``run_study``'s default ``chunk_size=500``): for a cluster, ``chunk_size`` 2000 to 5000
  makes tasks of a few seconds. The chunks' results come back to this process, which needs
  the memory of the whole study (V x N values per metric).
* Compiled kernels: numba compiles the walk the first time a process calls it and keeps it
  on disk (``cache=True``, in ``__pycache__`` beside the installed kernels, or in
  ``NUMBA_CACHE_DIR``). The study's own process has compiled or loaded the kernels the chunks
  call (its nominal design runs the same code first): :func:`run_on_cluster` sends their cache
  entries to every worker with what the chunks share (:mod:`loops.kernel_shipping`, about
  2 MB for a corner's walk), and a worker whose cache lacks them writes them into its own
  cache before its first task and loads them. A new worker's first task of the README's
  study takes 0.7 to 0.8 s of its processor time, where compiling took half a minute. This
  needs the same kinematrix kernel sources, Python, numba and llvmlite on the worker and a
  CPU numba compiles alike (its name and features); otherwise, or if anything fails on the
  way, the worker compiles on its first task as before (half a minute to a minute with the GIL held:
  Dask may warn that the worker's event loop was unresponsive; the worker's other threads
  wait for it, and later tasks and restarted workers load the cache in a second). Warm such
  a cluster with a small study (a few variants per worker), or give its workers a shared,
  writable ``NUMBA_CACHE_DIR`` filled once.
"""

from __future__ import annotations

import asyncio
import math
import os
import sys
import uuid
from concurrent.futures import ThreadPoolExecutor

from mechanism.errors import KinematrixError, ModelError, one_line
from mechanism.limits import MAX_MESSAGE

__all__ = ["DEFAULT_TIMEOUT", "TIMEOUT_VARIABLE", "ClusterError", "SchedulerError", "check_address", "connect",
           "run_on_cluster", "scheduler_timeout"]

#: Seconds to wait for a scheduler to answer, and for its first worker, unless told otherwise.
DEFAULT_TIMEOUT = 10.0
#: The environment variable that sets the timeout (seconds) where no ``scheduler_timeout`` is given.
TIMEOUT_VARIABLE = "KINEMATRIX_SCHEDULER_TIMEOUT"
#: The longest timeout accepted (s): an hour is longer than any scheduler takes to start.
MAX_TIMEOUT = 3600.0


class SchedulerError(ModelError):
    """The Dask scheduler cannot be used: dask.distributed is not installed, the address is
    not one, or nothing there answers (or has a worker) within the timeout. A user's error,
    like a model file that cannot be read: one line, ``where`` ``"scheduler"`` (or the
    timeout's name when the timeout itself is wrong)."""

    def __init__(self, problem: str, where: str = "scheduler"):
        super().__init__(where, problem)


class ClusterError(KinematrixError, RuntimeError):
    """A chunk of a study failed on a Dask worker (its error, or the worker's death).

    Attributes
    ----------
    first, last : int
        The chunk's first and last variant (rows of the study's offsets, inclusive).
    chunk : int
        The chunk's index in the study.
    """

    def __init__(self, first: int, last: int, chunk: int, problem: str):
        self.first, self.last, self.chunk = first, last, chunk
        super().__init__(one_line(f"variants {first}-{last} (chunk {chunk}): {problem}", MAX_MESSAGE))


def scheduler_timeout(timeout=None) -> float:
    """Seconds to wait for a scheduler: ``timeout`` if given, else the environment variable
    :data:`TIMEOUT_VARIABLE`, else :data:`DEFAULT_TIMEOUT`; a positive number of at most
    :data:`MAX_TIMEOUT`, else :class:`SchedulerError` naming where it came from."""
    where = "scheduler_timeout"
    if timeout is None:
        text = os.environ.get(TIMEOUT_VARIABLE, "").strip()
        if not text:
            return DEFAULT_TIMEOUT
        where = TIMEOUT_VARIABLE
        try:
            timeout = float(text)
        except ValueError:
            timeout = text
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) \
            or not 0 < timeout <= MAX_TIMEOUT:
        raise SchedulerError(f"expected seconds, more than 0 and at most {MAX_TIMEOUT:g}, got {timeout!r}", where)
    return float(timeout)


def check_address(address):
    """Refuse at once, before any connection is tried, an address Dask cannot parse (no port,
    an unknown scheme) or whose port is out of range."""
    from distributed.comm.addressing import get_address_host_port  # noqa: PLC0415 (optional dependency)

    try:
        _, port = get_address_host_port(address)
    except ValueError as error:
        raise SchedulerError(f"{address!r} is not a Dask scheduler address ('tcp://host:8786'): {error}") from None
    if not 0 < port < 65536:
        raise SchedulerError(f"{address!r} is not a Dask scheduler address ('tcp://host:8786'): port {port} is "
                             "not between 1 and 65535")


def _answers(address, timeout):
    """Wait at most ``timeout`` s for a Dask scheduler's handshake at ``address``; raises
    what ``distributed.comm.connect`` raises (OSError for no answer, TypeError for a scheme
    this installation cannot use: TLS without its configuration, UCX without ucx-py). Its own
    event loop, on a thread of its own (the caller may be inside one, as in a notebook): a
    refused address leaves no half-made ``Client`` behind, whose finaliser would stall the
    interpreter's exit for seconds and print a traceback."""
    from distributed.comm import connect as comm_connect  # noqa: PLC0415 (optional dependency)
    from distributed.security import Security  # noqa: PLC0415

    arguments = Security().get_connection_args("client")  # TLS as Dask's configuration sets it for clients

    async def handshake():
        comm = await comm_connect(address, timeout=timeout, **arguments)
        await comm.close()

    with ThreadPoolExecutor(1, thread_name_prefix="kinematrix-scheduler") as pool:
        pool.submit(asyncio.run, handshake()).result()


def connect(scheduler, timeout=None):
    """``(client, opened)``: the ``dask.distributed.Client`` given (``opened`` False), or a new
    one on the address ``scheduler`` (``opened`` True; the caller closes it), not the process's
    default, once the scheduler has answered and has a worker.

    Raises
    ------
    SchedulerError
        dask.distributed is not installed; ``scheduler`` is neither an address nor a client;
        the address is not one; nothing answers there, or no worker joins, within
        :func:`scheduler_timeout` seconds.
    """
    try:
        from dask.distributed import Client  # noqa: PLC0415 (optional dependency)
    except ImportError:
        raise SchedulerError("needs dask.distributed: pip install 'kinematrix[dask]'") from None
    if isinstance(scheduler, Client):
        return scheduler, False
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise SchedulerError(f"expected a scheduler address ('tcp://host:8786') or a dask.distributed.Client, "
                             f"got {scheduler!r}")
    seconds = scheduler_timeout(timeout)
    check_address(scheduler)
    print(f"kinematrix: connecting to the Dask scheduler at {scheduler} (waiting at most {seconds:g} s, "
          f"{TIMEOUT_VARIABLE})", file=sys.stderr, flush=True)
    try:
        _answers(scheduler, seconds)
        client = Client(scheduler, set_as_default=False, timeout=seconds)
    except (OSError, TimeoutError) as error:
        raise SchedulerError(f"cannot reach the Dask scheduler at {scheduler!r}: {type(error).__name__}: "
                             f"{error}") from None
    except (TypeError, ValueError) as error:  # a scheme this installation cannot use (TLS unconfigured, UCX)
        raise SchedulerError(f"cannot connect to the Dask scheduler at {scheduler!r}: {type(error).__name__}: "
                             f"{error}") from None
    try:
        client.wait_for_workers(1, timeout=seconds)
    except (OSError, TimeoutError):
        client.close()
        raise SchedulerError(f"the Dask scheduler at {scheduler!r} has no worker (waited {seconds:g} s): start "
                             f"one with 'dask worker {scheduler}'") from None
    return client, True


def run_on_cluster(scheduler, task, chunks, shared, *, timeout=None, done=None) -> list:
    """``[task(offsets=chunk, **shared) for chunk in chunks]``, each call a task of a Dask cluster.
    The cache entries of the kernels this process has compiled or loaded go to every worker
    with ``shared``, for the workers whose cache lacks them (:mod:`loops.kernel_shipping`).

    Parameters
    ----------
    scheduler : the scheduler's address (``"tcp://host:8786"``) or a ``dask.distributed.Client``;
        a client given is used as it is and left open, one opened here is closed
    task : callable importable by name on the workers (``functools.partial`` of one too),
        called with the keyword ``offsets`` (the chunk) and those of ``shared``
    chunks : list of (V_i, k) offsets, the study's variants in order
    shared : dict of keyword arguments every task takes (sent to every worker once)
    timeout : seconds to wait for a scheduler given by address (:func:`scheduler_timeout`)
    done : callable ``done(V_i)`` called as each chunk's result arrives (a progress bar's
        ``update``), or None

    Returns
    -------
    list of the tasks' results, one per chunk, in the chunks' order.

    Raises
    ------
    SchedulerError
        See :func:`connect`.
    ClusterError
        A chunk failed on a worker; the first to fail, naming its variants.
    """
    client, opened = connect(scheduler, timeout)
    from dask.distributed import as_completed  # noqa: PLC0415

    from loops.kernel_shipping import kernels_to_ship, run_with_kernels  # noqa: PLC0415

    starts = [0]
    for chunk in chunks:
        starts.append(starts[-1] + len(chunk))
    futures = []
    try:
        # Sent once to every worker; a task carries only its chunk's offsets.
        names = list(shared)
        values = [shared[n] for n in names]
        kernels = kernels_to_ship()  # the compiled kernels this process holds, for workers without them
        if kernels is not None:
            values.append(kernels)
        on_workers = client.scatter(values, broadcast=True, hash=False)
        run, first = (task, ()) if kernels is None else (run_with_kernels, (on_workers.pop(), task))
        on_workers = dict(zip(names, on_workers))
        study = uuid.uuid4().hex[:8]
        futures = [client.submit(run, *first, offsets=chunk, **on_workers, key=f"kinematrix-chunk-{study}-{i}",
                                 pure=False) for i, chunk in enumerate(chunks)]
        index = {future.key: i for i, future in enumerate(futures)}
        outputs = [None] * len(futures)
        # This client's own loop: as_completed would otherwise look for the process's default client.
        for future in as_completed(futures, loop=client.loop):
            i = index[future.key]
            try:
                outputs[i] = future.result()
            except Exception as error:  # the worker's error, re-raised here by Dask
                raise ClusterError(starts[i], starts[i + 1] - 1, i, f"failed on the Dask cluster: "
                                   f"{type(error).__name__}: {error}") from error
            futures[i] = None  # its result leaves the worker's memory
            if done is not None:
                done(starts[i + 1] - starts[i])
        return outputs
    except BaseException:
        if not opened:  # a client given goes on: stop the study's other tasks
            client.cancel([future for future in futures if future is not None])
        raise
    finally:
        if opened:
            client.close()
