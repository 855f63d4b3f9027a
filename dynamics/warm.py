"""A first simulation compiles on both cores: the walk's kernels in a second process.

numba compiles a process's kernels one after the other, and a simulation's first run needs
two families of them: the walk that assembles its start (:mod:`loops.kernels.continuation`)
and the integrator with the dynamics it evaluates (:mod:`dynamics.kernels.integrate`),
about a minute in all in one process. When the integrator's kernels are not in numba's
cache, :func:`dynamics.simulate.simulate` calls :func:`start`, which walks a built-in
four-bar in a second process (compiling and caching the walk's kernels: their argument
types do not depend on the mechanism, whose sizes are data), while the simulation compiles
the integrator's kernels for its own argument types; :func:`wait` then lets it walk with the
kernels the second process left in the cache.

On a machine with one core there is nothing to gain and nothing is started. A second
process that fails, or runs longer than :data:`WAIT_LIMIT`, costs only its time: the walk
compiles what it does not find in the cache, as it would without it.
"""

from __future__ import annotations

import atexit
import os
import subprocess
import sys

__all__ = ["cold", "disabled", "start", "wait", "WAIT_LIMIT", "walk_four_bar"]

#: Seconds :func:`wait` waits for the second process (it takes about half a minute).
WAIT_LIMIT = 300.0
#: Set in the second process (and by whoever wants no second process).
DISABLE = "KINEMATRIX_NO_WARM_UP"

_process = None


def cold() -> bool:
    """True when numba's cache holds no compiled integrator (the JIT on): a first simulation."""
    if os.environ.get("NUMBA_DISABLE_JIT", "0") not in ("", "0"):
        return False
    from .kernels.integrate import integrate  # noqa: PLC0415 (loads numba; the simulation needs it anyway)

    try:
        index = integrate._cache._cache_file._index_path  # numba's cache index of the kernel
    except AttributeError:  # not a cached numba dispatcher (a test's stand-in)
        return False
    return not os.path.exists(index)


def disabled() -> bool:
    """True when :data:`DISABLE` is set: no second process, the walk's kernels are (being)
    compiled elsewhere (the second process itself, another process of the user's)."""
    return bool(os.environ.get(DISABLE))


def start():
    """Start the second process (at most one per process; none on one core or when
    :func:`disabled`). True when it was started."""
    global _process
    if _process is not None or disabled() or (os.cpu_count() or 1) < 2:
        return False
    try:
        _process = subprocess.Popen([sys.executable, "-c", "from dynamics.warm import walk_four_bar; walk_four_bar()"],
                                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                    env=dict(os.environ, **{DISABLE: "1"}))
    except OSError:
        return False
    atexit.register(_stop)
    return True


def wait():
    """Wait for the second process, if one is running (at most :data:`WAIT_LIMIT` seconds)."""
    if _process is None:
        return
    try:
        _process.wait(timeout=WAIT_LIMIT)
    except subprocess.TimeoutExpired:
        _stop()


def _stop():
    if _process is not None and _process.poll() is None:
        _process.kill()
        _process.wait()


def walk_four_bar():
    """The second process's work: close a planar four-bar at its design pose and walk its crank
    (the kernel of :class:`loops.continuation.Walk`: ``walk_positions``, closing and walking)."""
    import numpy as np  # noqa: PLC0415

    from loops.compiled import compile_model  # noqa: PLC0415
    from loops.continuation import Walk  # noqa: PLC0415
    from mechanism import Mechanism  # noqa: PLC0415

    m = Mechanism("warm-up four-bar")
    for link in ("crank", "coupler", "rocker"):
        m.add_link(link)
    m.add_pair("A", "revolute", "ground", "crank", at=(0, 0, 0), axis=(0, 0, 1))
    m.add_pair("B", "revolute", "crank", "coupler", at=(1, 0, 0), axis=(0, 0, 1))
    m.add_pair("C", "revolute", "coupler", "rocker", at=(3, 2, 0), axis=(0, 0, 1))
    m.add_pair("D", "revolute", "rocker", "ground", at=(4, 0, 0), axis=(0, 0, 1))
    system = compile_model(m.snapshot())
    walk = Walk(system, np.array([system.variable_index["A"]]))
    walk.to(np.array([0.1]))
