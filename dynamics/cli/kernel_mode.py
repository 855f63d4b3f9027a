"""Compiled or plain-Python kernels for one command: the command line's first run (issue 25).

numba compiles the kernels on their first use and caches them (about half a minute of
processor time for the kinematics kernels, more than a minute with the integrator's); run
as plain Python (numba's decorators return the function itself while
``numba.config.DISABLE_JIT`` is true when they run) the same kernels cost about 13 ms a
position of an axle instead of 10 us. So a small job on a cold cache (no stamp of the
current sources: a first run after an install or an upgrade, an empty ``NUMBA_CACHE_DIR``)
runs its kernels as plain Python, says so on one line of stderr, and leaves the cache as it
is: the first large job compiles them, with its progress line. What a small job is, each
command says (its ``small_job(args)``; a command without one always compiles, a design
study among them). ``KINEMATRIX_KERNELS`` overrides the choice: ``compiled``,
``interpreted`` or ``auto`` (the default). The Python API and a study's Dask workers
always compile.
"""

from __future__ import annotations

import os
import pathlib
import sys

__all__ = ["ENVIRONMENT", "MODES", "NOTICE", "choose_kernels", "requested_mode"]

#: The environment variable that overrides the choice.
ENVIRONMENT = "KINEMATRIX_KERNELS"
#: Its values; the first is the default.
MODES = ("auto", "compiled", "interpreted")
#: What stderr says when a small job on a cold cache runs its kernels as plain Python.
NOTICE = ("kinematrix: kernels not compiled yet: running them as plain Python for this small job "
          "(a larger job compiles them once, up to about a minute; KINEMATRIX_KERNELS=compiled compiles now)")
#: The module whose import gives the kernels their decorators: once loaded, the choice is made.
DECORATORS = "loops.kernels._compile"
#: The source directories of the kernel packages, the kinematics kernels first (their caches'
#: stamps chain in this order).
KINEMATICS_KERNELS = pathlib.Path(__file__).resolve().parent.parent.parent / "loops" / "kernels"
DYNAMICS_KERNELS = pathlib.Path(__file__).resolve().parent.parent / "kernels"


def requested_mode() -> str:
    """The mode ``KINEMATRIX_KERNELS`` asks for (``auto`` when unset or empty)."""
    from loops.cli.arguments import UserError

    mode = os.environ.get(ENVIRONMENT, "").strip().lower() or MODES[0]
    if mode not in MODES:
        raise UserError(f"{ENVIRONMENT}={os.environ[ENVIRONMENT]!r}: expected one of {', '.join(MODES)}")
    return mode


def choose_kernels(command, args) -> bool:
    """Make this process run the kernels as plain Python when :func:`requested_mode` says so,
    or, in ``auto``, when ``command`` (a subcommand's module) says its job ``args`` is small
    and the cache of the kernel packages it uses is cold. Must run before any kernel module
    loads: once one has (or with ``NUMBA_DISABLE_JIT`` already set), nothing changes. True
    when it switched."""
    mode = requested_mode()
    if mode == "compiled" or DECORATORS in sys.modules:
        return False
    small_job = getattr(command, "small_job", None)
    if mode == "auto" and (small_job is None or not small_job(args)):
        return False
    if mode == "auto":
        from loops.kernels.cache_stamp import stamped  # noqa: PLC0415

        packages = (KINEMATICS_KERNELS, DYNAMICS_KERNELS)[:1 + bool(getattr(command, "USES_DYNAMICS_KERNELS", False))]
        if stamped(packages):
            return False
    # numba only to switch: importing it costs 0.2 s, most of a small command's start
    import numba  # noqa: PLC0415

    if numba.config.DISABLE_JIT:
        return False
    if mode == "auto":
        print(NOTICE, file=sys.stderr)
    numba.config.DISABLE_JIT = True
    return True
