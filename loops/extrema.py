"""Extreme positions of an output along a driver: rocker limits, top and bottom dead centres.

An output variable ``y(x)`` of a one-driver sweep is stationary where ``dy/dx = 0``. With a
unit driver speed and no driver acceleration the sweep's rates are exactly
``q_dot(y) = dy/dx`` and ``q_ddot(y) = d2y/dx2`` (eq. 4 and its derivative), so Newton's
method on ``dy/dx`` needs no finite differences.
"""

from __future__ import annotations

import numpy as np

from mechanism.errors import ClosureError

__all__ = ["stationary_points"]


def stationary_points(mechanism, driver, output, guesses, *, tolerance=1e-12, max_iterations=20):
    """Driver values where ``output`` is stationary, by Newton's method from ``guesses``.

    Parameters
    ----------
    mechanism : Mechanism
    driver : str, the driver (rad or m)
    output : str, a scalar pair variable
    guesses : (k,) driver values near the extremes (for example the arg-min and arg-max of a
        coarse sweep)
    tolerance : float, on the Newton step (driver units)

    Returns
    -------
    values : (k,) driver values at the extremes
    result : SweepResult at those values (with unit driver speed)

    Raises
    ------
    ClosureError
        If Newton has not converged after ``max_iterations`` steps (an output with no
        stationary point near a guess, or a second derivative that vanishes there).
    """
    x = np.atleast_1d(np.asarray(guesses, dtype=float))
    for iteration in range(max_iterations):
        result = mechanism.sweep({driver: x}, speeds={driver: 1.0})
        curvature = result.q_ddot(output)
        if np.any(np.abs(curvature) < 1e-300):
            raise ClosureError(f"{output!r} has no curvature at {driver} = {np.array2string(x, precision=6)}: "
                               "not an extreme", driver_values={driver: x}, iterations=iteration)
        step = result.q_dot(output) / curvature
        x = x - step
        if np.all(np.abs(step) <= tolerance * np.maximum(1.0, np.abs(x))):
            return x, mechanism.sweep({driver: x}, speeds={driver: 1.0})
    raise ClosureError(f"no stationary point of {output!r} found near {driver} = {np.array2string(x, precision=6)} "
                       f"after {max_iterations} Newton steps", driver_values={driver: x},
                       iterations=max_iterations)
