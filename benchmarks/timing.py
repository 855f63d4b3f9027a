"""The benchmarks' timer: the median wall time of repeated runs (these machines are shared
and noisy; medians of runs in one process are what the benchmarks compare)."""

from __future__ import annotations

import json
import os
import pathlib
import statistics
import subprocess
import sys
import time


def median_time(run, repeats):
    """Median wall time (s) of ``repeats`` calls of ``run()``."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def median_cpu_time(run, repeats):
    """Median processor time (s, this process's, every thread's) of ``repeats`` calls of
    ``run()``: what a run costs when the shared machine's other work inflates the wall time."""
    times = []
    for _ in range(repeats):
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return statistics.median(times)


def in_checkout(directory, expression, *arguments):
    """The JSON value of the Python ``expression`` evaluated with the packages of the checkout
    ``directory`` (a subprocess, so that its modules are the ones imported; the benchmarks'
    scripts importable by name). There ``sys.argv[1]`` is ``directory`` and ``sys.argv[3:]`` are
    ``arguments`` (as text)."""
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2]); "
            f"print(json.dumps({expression}))")
    env = dict(os.environ, PYTHONPATH=str(directory))
    done = subprocess.run([sys.executable, "-c", code, str(directory), str(pathlib.Path(__file__).parent),
                           *map(str, arguments)], capture_output=True, text=True, env=env, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])
