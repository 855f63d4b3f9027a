"""Design studies on more than one machine: the chunks of :func:`loops.study.study.run_study`
as tasks of a Dask cluster (the ``dask`` extra: ``pip install 'kinematrix[dask]'``).

``run_study(..., scheduler="tcp://host:8786")`` (or a ``dask.distributed.Client``) runs the
nominal design here, then :func:`run_on_cluster` sends the nominal suspension, the
coordinates and the plan to every worker once (``scatter(broadcast=True)``), submits one
task per chunk of variants (:func:`loops.study.study.run_chunk`, the same code as a local
study, so the metrics are the same to the bit) and gathers the chunks' results in order. A
chunk that fails on a worker stops the study with a :class:`ClusterError` naming its
variants; the worker's own error is its cause.

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
  ``NUMBA_CACHE_DIR``). A worker on a machine without that cache compiles on its first task
  (half a minute to a minute with the GIL held: Dask may warn that the worker's event loop
  was unresponsive); the worker's other threads wait for it, and later tasks and restarted
  workers load the cache in a second. Warm a new cluster with a small study (a few variants
  per worker), or give the workers a shared, writable ``NUMBA_CACHE_DIR`` filled once.
  Workers on the machine where the study was started load what its nominal run compiled.
"""

from __future__ import annotations

import uuid

from mechanism.errors import KinematrixError, ModelError, _one_line
from mechanism.limits import MAX_MESSAGE

from .study import run_chunk

__all__ = ["ClusterError", "run_on_cluster"]


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
        super().__init__(_one_line(f"variants {first}-{last} (chunk {chunk}): {problem}", MAX_MESSAGE))


def _walk_chunk(suspension, coords, offsets, plan):
    """One task: a chunk on the worker thread that runs it (see the module docstring)."""
    return run_chunk(suspension, coords, offsets, plan, workers=1)


def _connect(scheduler):
    """``(client, opened)``: the ``Client`` given, or a new one on the address ``scheduler``."""
    try:
        from dask.distributed import Client  # noqa: PLC0415 (optional dependency)
    except ImportError:
        raise ModelError("scheduler", "needs dask.distributed: pip install 'kinematrix[dask]'") from None
    if isinstance(scheduler, Client):
        return scheduler, False
    if not isinstance(scheduler, str) or not scheduler.strip():
        raise ModelError("scheduler", f"expected a scheduler address ('tcp://host:8786') or a "
                         f"dask.distributed.Client, got {scheduler!r}")
    try:
        # The connection timeout is Dask's (distributed.comm.timeouts.connect, 30 s by default).
        return Client(scheduler, set_as_default=False), True
    except (OSError, TimeoutError, ValueError) as error:
        raise ModelError("scheduler", f"cannot reach the Dask scheduler at {scheduler!r}: "
                         f"{type(error).__name__}: {error}") from None


def run_on_cluster(scheduler, suspension, coords, chunks, plan) -> list:
    """The chunks of a study run on a Dask cluster: ``[run_chunk(...) per chunk]`` in order.

    Parameters
    ----------
    scheduler : the scheduler's address (``"tcp://host:8786"``) or a ``dask.distributed.Client``;
        a client given is used as it is and left open, one opened here is closed
    suspension : loops.suspension.Suspension, the nominal design
    coords : list of loops.study.coordinates.Coordinate
    chunks : list of (V_i, k) offsets, the study's variants in order
    plan : loops.study.study.Plan

    Returns
    -------
    list of ``(inputs, metrics, reasons)``, one per chunk, as :func:`loops.study.study.run_chunk`
    returns them (``reasons`` keyed by the variant's index in its chunk).

    Raises
    ------
    ModelError
        ``"scheduler"``: dask.distributed is not installed, or the scheduler cannot be reached.
    ClusterError
        A chunk failed on a worker; the first to fail, naming its variants.
    """
    client, opened = _connect(scheduler)
    from dask.distributed import as_completed  # noqa: PLC0415

    starts = [0]
    for chunk in chunks:
        starts.append(starts[-1] + len(chunk))
    futures = []
    try:
        # Sent once to every worker; a task carries only its chunk's offsets.
        shared = client.scatter([suspension, list(coords), plan], broadcast=True, hash=False)
        on_workers = dict(zip(("suspension", "coords", "plan"), shared))
        study = uuid.uuid4().hex[:8]
        futures = [client.submit(_walk_chunk, offsets=chunk, **on_workers, key=f"kinematrix-chunk-{study}-{i}",
                                 pure=False)
                   for i, chunk in enumerate(chunks)]
        index = {future.key: i for i, future in enumerate(futures)}
        outputs = [None] * len(futures)
        for future in as_completed(futures):
            i = index[future.key]
            try:
                outputs[i] = future.result()
            except Exception as error:  # the worker's error, re-raised here by Dask
                raise ClusterError(starts[i], starts[i + 1] - 1, i, f"failed on the Dask cluster: "
                                   f"{type(error).__name__}: {error}") from error
            futures[i] = None  # its result leaves the worker's memory
        return outputs
    except BaseException:
        if not opened:  # a client given goes on: stop the study's other tasks
            client.cancel([future for future in futures if future is not None])
        raise
    finally:
        if opened:
            client.close()
