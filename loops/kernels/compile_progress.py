"""One line on stderr while kernels compile: what is compiling and how far.

Installed when a kernel package's cache is new or stale (``loops.kernels._compile``: a first
run after installing, an empty ``NUMBA_CACHE_DIR``) or a cache file is damaged. numba signals
a compile (``numba:compile`` events) only when a kernel is not in its cache, so a run that
loads every kernel says nothing. The first compile of a process then prints
``kinematrix: compiling kernels, first run only``; on a terminal the same line then says,
rewritten in place, which kernel numba is compiling, how many it has compiled and the
seconds spent, and ends with the totals when the process exits. A kernel that other
kernels call is compiled inside its caller: it shows as its caller.
"""

from __future__ import annotations

import atexit
import sys
import time

from numba.core import event

__all__ = ["MESSAGE", "CompileProgress", "install", "announce"]

MESSAGE = "kinematrix: compiling kernels, first run only"


class CompileProgress(event.Listener):
    """The listener: ``stream`` is where the line goes (stderr); on a terminal it is rewritten."""

    def __init__(self, stream=None):
        self._stream = stream
        self.depth = 0
        self.compiled = 0
        self.seconds = 0.0
        self.started = None
        self.announced = False
        self.open_line = False

    @property
    def stream(self):
        return sys.stderr if self._stream is None else self._stream

    def _terminal(self) -> bool:
        isatty = getattr(self.stream, "isatty", None)
        return bool(isatty and isatty())

    def announce(self):
        """Say once that kernels compile (without the details off a terminal)."""
        if self.announced:
            return
        self.announced = True
        if self._terminal():
            self._show("")
        else:
            print(MESSAGE, file=self.stream, flush=True)

    def _show(self, what):
        self.stream.write(f"\r{MESSAGE}{what}\033[K")
        self.stream.flush()
        self.open_line = True

    def on_start(self, ev):
        self.depth += 1
        if self.depth > 1:
            return
        self.started = time.perf_counter()
        self.announce()
        if self._terminal():
            function = ev.data["dispatcher"].py_func
            name = function.__qualname__.removesuffix(".from_python")
            self._show(f": {name} ({self.compiled} compiled, {self.seconds:.0f} s)")

    def on_end(self, ev):
        self.depth -= 1
        if self.depth > 0 or self.started is None:
            return
        self.compiled += 1
        self.seconds += time.perf_counter() - self.started
        self.started = None
        if self._terminal():
            self._show(f": {self.compiled} compiled in {self.seconds:.0f} s")

    def finish(self):
        """End the line on a terminal (at exit)."""
        if self.open_line:
            self.stream.write("\n")
            self.stream.flush()
            self.open_line = False


_listener = []


def install():
    """Listen to numba's compile events for the rest of the process (once)."""
    if not _listener:
        _listener.append(CompileProgress())
        event.register("numba:compile", _listener[0])
        atexit.register(_listener[0].finish)


def announce():
    """Say that kernels compile (a damaged cache file found: its kernel compiles next)."""
    install()
    _listener[0].announce()
