"""Where a first run's compile time goes: numba's compile events per kernel, in processor seconds.

Runs one ``kinematrix`` command (the arguments, as on the command line) in this process with a
listener on numba's ``numba:compile`` events and prints, per kernel compiled, how many times,
the processor seconds from its start to its end (``incl``: the kernels it calls and compiles
on the way included) and without them (``excl``), then the kernels called from Python (the
entry points: each compiles, and links into its own machine code, everything it calls), and
the totals. Meaningful with an empty cache: point ``NUMBA_CACHE_DIR`` at an empty directory.

Run: ``NUMBA_CACHE_DIR=$(mktemp -d) python benchmarks/compile_events.py suspension
examples/front_axle.toml --analysis parallel --travel -80:80:5 --out metrics.csv``
"""

from __future__ import annotations

import collections
import pathlib
import sys
import time

from numba.core import event


class CompileTimes(event.Listener):
    """Processor seconds per compiled kernel, with and without the kernels compiled inside it."""

    def __init__(self):
        self.open = []  # [name, start, seconds of nested compiles]
        self.inclusive = collections.Counter()
        self.exclusive = collections.Counter()
        self.count = collections.Counter()
        self.entries = []  # (name, seconds) of the compiles started from Python

    def on_start(self, ev):
        function = ev.data["dispatcher"].py_func
        self.open.append([f"{function.__module__.rsplit('.', 1)[-1]}.{function.__qualname__}",
                          time.process_time(), 0.0])

    def on_end(self, ev):
        name, start, nested = self.open.pop()
        seconds = time.process_time() - start
        self.inclusive[name] += seconds
        self.exclusive[name] += seconds - nested
        self.count[name] += 1
        if self.open:
            self.open[-1][2] += seconds
        else:
            self.entries.append((name, seconds))

    def report(self, stream):
        print(f"{'kernel':58s} {'n':>3s} {'incl s':>8s} {'excl s':>8s}", file=stream)
        for name, seconds in self.exclusive.most_common():
            print(f"{name:58s} {self.count[name]:3d} {self.inclusive[name]:8.2f} {seconds:8.2f}", file=stream)
        print("\nentry points (compiled from Python, in order):", file=stream)
        for name, seconds in self.entries:
            print(f"  {name:56s} {seconds:8.2f}", file=stream)
        print(f"\ncompiling: {sum(self.exclusive.values()):.1f} s of processor time in "
              f"{sum(self.count.values())} compiles; the process: {time.process_time():.1f} s", file=stream)


def main(argv):
    # Python puts this script's folder first on the path, and benchmarks/dynamics.py there would
    # stand in for the dynamics package
    here = str(pathlib.Path(__file__).resolve().parent)
    sys.path[:] = [entry for entry in sys.path if str(pathlib.Path(entry or ".").resolve()) != here]
    from dynamics.cli import main as kinematrix

    times = CompileTimes()
    event.register("numba:compile", times)
    try:
        status = kinematrix(argv)
    except SystemExit as stop:
        status = stop.code
    times.report(sys.stdout)
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
