"""The integrator's small state vectors, their entries named (no numba here).

:func:`dynamics.kernels.integrate.integrate` reads and updates two small arrays at every
step; as for the walk (:mod:`loops.kernels.state`), they stay arrays (one argument each, an
entry one load) and their entries are named here, for the kernel and for
:mod:`dynamics.simulate`, which sets them up and reads them back.
"""

from __future__ import annotations

__all__ = ["T_END", "RTOL", "ATOL", "LONGEST_STEP", "STEP", "STEP_BUDGET", "SWITCH_THRESHOLD", "DEAD_POINT_THRESHOLD", "REJECTED",
           "SHORTEST_STEP", "CONTROLS", "STEPS", "REJECTIONS", "RHS_CALLS", "NEXT_SAMPLE", "STORED", "CLOSURE_FAILURES",
           "COUNTERS"]

#: ``control`` (float64, :data:`CONTROLS`,): the end time (s); the relative and absolute
#: tolerances; the largest step (s); the step size (s; in: the next step to try, out: the
#: step after the last accepted one); the accepted steps one call may take; the partition's
#: switch ratio and dead-point ratio (:func:`~.integrate.partition_health`); 1 when the last
#: step was rejected (no growth right after a rejection; in and out); the smallest step (s)
#: before the integration stops.
T_END, RTOL, ATOL, LONGEST_STEP, STEP, STEP_BUDGET, SWITCH_THRESHOLD, DEAD_POINT_THRESHOLD, REJECTED, SHORTEST_STEP = range(10)
CONTROLS = 10

#: ``counters`` (int64, :data:`COUNTERS`,): accepted steps, rejected steps, evaluations of
#: the right-hand side, the next sample time to store, the samples stored, closure failures
#: in a row.
STEPS, REJECTIONS, RHS_CALLS, NEXT_SAMPLE, STORED, CLOSURE_FAILURES = range(6)
COUNTERS = 6
