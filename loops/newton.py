"""Position analysis: closing the loops by Newton's method on eq. (3), from Python.

The corrector itself is the compiled :func:`loops.kernels.newton.corrector`; this module
gives it what a caller has (a guess, driven columns) and turns its outcome into a closed
:class:`~loops.configuration.Configuration` or a located :class:`~mechanism.errors.ClosureError`.

:func:`solve_position` closes from a nearby start with the square block of
:mod:`loops.linear` (the sweeps' corrector); :func:`assemble` closes a model declared by
rough link-local frames from rough pair values, with the least-squares backend (every row,
minimum-norm steps, damping): far from the closure, rows that are dependent there are not
dependent yet, and the freedoms nobody holds should move as little as possible.
"""

from __future__ import annotations

import numpy as np

from mechanism.errors import ClosureError, ModelError

from .compiled import compile_model
from .configuration import evaluate, new_work
from .continuation import DEFAULT_TOLERANCE, MAX_NEWTON_STEP, closure_tolerance, iteration_count
from .kernels.state import CORRECTOR_RESULT_SIZE, ERROR, ITERATIONS
from .linear import least_squares_block, new_factor

__all__ = ["solve_position", "assemble", "worst_loop"]


def worst_loop(system, config) -> str:
    """Name of the loop with the largest dimensionless defect, with its pairs ("" without loops)."""
    if not system.loops:
        return ""
    defects = np.abs(config.defects[:6 * len(system.loops)].reshape(-1, 2, 3))
    worst = np.maximum(defects[:, 0].max(axis=1), defects[:, 1].max(axis=1) / system.scale)
    loop = system.loops[int(np.argmax(worst))]
    return f"{loop.name}: {'-'.join(loop.pairs)}"


def solve_position(system, q0, driven=(), driver_values=None, *, tolerance=DEFAULT_TOLERANCE, max_iterations=100):
    """Closed configuration near ``q0`` (n,) with the ``driven`` columns held (least squares,
    minimum-norm steps); raises :class:`ClosureError` naming the worst loop when it does not close.

    Returns the :class:`~loops.configuration.Configuration` reached.
    """
    from .kernels.newton import CONVERGED, corrector, seat_spherical  # noqa: PLC0415

    block = least_squares_block(system, driven)
    work = new_work(system, q0)
    previous = work.q.copy()
    result = np.zeros(CORRECTOR_RESULT_SIZE)
    status = corrector(system.topology, system.geometry, block, work, new_factor(block), float(tolerance),
                       int(max_iterations), MAX_NEWTON_STEP, False, result, 1.0)
    seat_spherical(system.topology, work, previous)
    config = evaluate(system, work.q, work.rotations)
    if status != CONVERGED:
        loop = worst_loop(system, config)
        values = driver_values or {}
        at = system.describe([system.variable_index[k] for k in values], list(values.values()), list(values))
        raise ClosureError(
            f"{loop or 'the loops'} cannot close{' at ' + at if at else ''}: defect {result[ERROR]:.3g} "
            f"(relative to size {system.scale:.4g} m) after {int(result[ITERATIONS])} iterations",
            loop=loop or None, driver_values=values, residual=float(result[ERROR]), iterations=int(result[ITERATIONS]))
    return config


def assemble(model, guess, *, hold=(), tolerance=DEFAULT_TOLERANCE, max_iterations=100):
    """Close every loop of ``model`` starting from rough pair values.

    Parameters
    ----------
    model : mechanism.specs.Model
    guess : dict, pair name -> value (rad/m) or values (multi-variable pairs); others start at 0
        (or at the model's reference).
    hold : names of variables kept at their guessed values (for example the driver).
    tolerance : float, closure tolerance in ``[MIN_TOLERANCE, MAX_TOLERANCE]`` (dimensionless)
    max_iterations : int, at most :data:`loops.continuation.MAX_ITERATIONS`

    Returns
    -------
    dict pair name -> ndarray of its values at the closed assembly.
    """
    tolerance = closure_tolerance(tolerance)
    max_iterations = iteration_count(max_iterations)
    system = compile_model(model, with_point_drivers=False)
    q = system.reference_q()
    if not isinstance(guess, dict):
        raise ModelError("guess", f"expected a dict of pair name -> value(s), got {type(guess).__name__}")
    for name, value in guess.items():
        where = f"guess {name!r}"
        if not isinstance(name, str) or (name not in system.pair_slices and name not in system.variable_index):
            raise ModelError(where, "not a pair or pair variable of the model")
        try:
            values = np.array(value, dtype=float)
        except (TypeError, ValueError):
            raise ModelError(where, f"expected a number or numbers, got {str(value)[:60]}") from None
        if not np.all(np.isfinite(values)):
            raise ModelError(where, "non-finite value")
        target = system.pair_slices[name] if name in system.pair_slices else system.variable_index[name]
        try:
            q[target] = values
        except ValueError:
            raise ModelError(where, f"expected {np.size(q[target])} value(s), got {values.size}") from None
    if isinstance(hold, str):
        hold = [hold]
    driven = system.driver_columns(list(hold), role="hold") if hold else np.zeros(0, dtype=np.int64)
    config = solve_position(system, q, driven, {h: q[system.variable_index[h]] for h in hold},
                            tolerance=tolerance, max_iterations=max_iterations)
    return {pair.name: config.q[system.pair_slices[pair.name]].copy() for pair in system.pairs}
