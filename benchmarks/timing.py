"""The benchmarks' timer: the median wall time of repeated runs (these machines are shared
and noisy; medians of runs in one process are what the benchmarks compare)."""

from __future__ import annotations

import statistics
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
