"""Position analysis: Newton / least-squares iteration on the closure equations (METHOD.md eq. 3).

Each step solves ``B dq = W`` for all loops at once, with ``B`` in twist form
(:meth:`KinematicSystem.constraint_matrix`) and ``W`` the closure defects
(:meth:`KinematicSystem.residual`), rows and columns made dimensionless. The solve is a
rank-revealing least-squares one (SVD, minimum-norm step), never ``(B^T B)^-1``, because
``B`` loses rank in real mechanisms: planar loops (3 of 6 equations trivial), passive spins,
overconstrained loops (Bennett). Steps are limited in size and backtracked when the defect
grows (damping). A position is returned only when every loop closes to ``tolerance``
(dimensionless: rotation in rad, gap over the mechanism size).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mechanism.errors import ClosureError, ModelError

from .system import compile_model
from .velocity import Factorization, free_columns

__all__ = ["DEFAULT_TOLERANCE", "NewtonOutcome", "newton", "correct_batch", "solve_position", "assemble"]

#: Default closure tolerance: rotation defect (rad) and gap relative to the mechanism's size.
DEFAULT_TOLERANCE = 1e-10
#: Largest Newton step, dimensionless (rad, or sizes for slides): keeps the iteration local.
MAX_STEP = 0.5


@dataclass
class NewtonOutcome:
    """What :func:`newton` reached.

    ``factorization`` is that of ``B_free`` at the first iterate (None when no step was
    needed); ``correction`` the sum of the dimensionless step sizes (max norm).
    """

    q: np.ndarray
    config: object
    error: float
    iterations: int
    converged: bool
    correction: float = 0.0
    factorization: Factorization | None = None


def newton(system, q, driven=(), *, rotations=None, tolerance=DEFAULT_TOLERANCE, max_iterations=25,
           max_step=MAX_STEP):
    """Close the loops from ``q`` holding the ``driven`` columns; returns a :class:`NewtonOutcome`.

    ``rotations`` are the spherical pairs' rotation blocks at ``q`` when known. Never raises
    for a failure to converge: callers (sweeps, :func:`solve_position`) decide.
    """
    q = np.array(q, dtype=float)
    config = system.evaluate(q, rotations)
    error = system.closure_error(config)
    free = free_columns(system, driven)
    scale = system.column_scale[free]
    iterations, stalled, correction, first = 0, 0, 0.0, None
    # Convergence is quadratic: once within the tolerance, one more step costs little and
    # puts every returned position far below it (so two solves of one position agree). A
    # start that already closes is left exactly as it is (a saved assembly reloads bit for bit).
    target = tolerance * 1e-3 if error > tolerance else tolerance
    while error > target and iterations < max_iterations:
        iterations += 1
        factorization = Factorization(system, system.constraint_matrix(config)[..., free], free)
        first = first or factorization
        step = factorization.pinv @ -system.residual(config)
        longest = np.abs(step / scale).max(initial=0.0)
        if longest > max_step:
            step *= max_step / longest
        dq = np.zeros(system.n)
        dq[free] = step
        trial, trial_rotations = system.step(q, dq, config.rotations)
        trial_config = system.evaluate(trial, trial_rotations)
        trial_error = system.closure_error(trial_config)
        if error <= tolerance and trial_error >= error:
            break  # within the tolerance and at the round-off floor: keep what we have
        # Backtrack while the defect grows: damping far from the solution.
        for _ in range(6):
            if trial_error < error or trial_error <= target:
                break
            dq *= 0.5
            trial, trial_rotations = system.step(q, dq, config.rotations)
            trial_config = system.evaluate(trial, trial_rotations)
            trial_error = system.closure_error(trial_config)
        else:
            stalled += 1
            if stalled >= 3:
                break
        q, config, error = trial, trial_config, trial_error
        correction += np.abs(dq[free] / scale).max(initial=0.0)
    system.seat(q, config.rotations)  # config.q is q: both get the rotation vectors
    return NewtonOutcome(q, config, error, iterations, error <= tolerance, correction, first)


def correct_batch(system, q, rotations, driven, *, tolerance=DEFAULT_TOLERANCE, max_iterations=4,
                  max_step=MAX_STEP):
    """Chord-Newton correction of a stack of predicted configurations, all at once.

    ``B`` is factorized once, at the predictions, and reused by every iteration (the
    predictions of a sweep are close enough for the chord iteration to converge fast).

    Parameters
    ----------
    q : (N, n) predicted variables (spherical slots may be stale), ``rotations`` (N, m, 3, 3)
    driven : columns held fixed

    Returns
    -------
    q : (N, n) seated; config : batched Configuration; converged : (N,) bool;
    correction : (N,) sum of dimensionless step sizes; factorization : at the predictions
    """
    config = system.evaluate(q, rotations)
    free = free_columns(system, driven)
    scale = system.column_scale[free]
    factorization = Factorization(system, system.constraint_matrix(config)[..., free], free)
    correction = np.zeros(q.shape[0])
    error = system.closure_error(config)
    # Iterations are cheap in a batch: aim well below the tolerance.
    target = tolerance * 1e-3
    for _ in range(max_iterations):
        if np.all(error <= target):
            break
        step = -(factorization.pinv @ system.residual(config)[..., None])[..., 0]
        longest = np.abs(step / scale).max(axis=-1)
        step *= np.minimum(1.0, max_step / np.maximum(longest, 1e-300))[:, None]
        step[error <= target] = 0.0  # leave closed positions alone
        dq = np.zeros_like(q)
        dq[:, free] = step
        q, rotations = system.step(q, dq, rotations)
        config = system.evaluate(q, rotations)
        error = system.closure_error(config)
        correction += np.abs(step / scale).max(axis=-1)
    system.seat(q, rotations)
    return q, config, error <= tolerance, correction, factorization


def worst_loop(system, config) -> str:
    """Name of the loop with the largest dimensionless defect, with its pairs."""
    if not system.loops:
        return ""
    rotation, gap = system.closure_defects(config)
    worst = np.maximum(np.abs(rotation).max(axis=1), np.abs(gap).max(axis=1) / system.scale)
    loop = system.loops[int(np.argmax(worst))]
    return f"{loop.name}: {'-'.join(loop.pairs)}"


def solve_position(system, q0, driven=(), driver_values=None, *, tolerance=DEFAULT_TOLERANCE,
                   max_iterations=50):
    """Closed configuration near ``q0`` with the driven columns held; raises :class:`ClosureError`.

    Returns
    -------
    q : (n,) closed variables
    config : Configuration at ``q``
    """
    outcome = newton(system, q0, driven, tolerance=tolerance, max_iterations=max_iterations)
    if not outcome.converged:
        loop = worst_loop(system, outcome.config)
        values = driver_values or {}
        at = ", ".join(f"{k} = {v:.6g}" for k, v in values.items())
        raise ClosureError(
            f"{loop} cannot close{' at ' + at if at else ''}: defect {outcome.error:.3g} "
            f"(relative to size {system.scale:.4g} m) after {outcome.iterations} iterations",
            loop=loop, driver_values=values, residual=outcome.error, iterations=outcome.iterations)
    return outcome.q, outcome.config


def assemble(model, guess, *, hold=(), tolerance=DEFAULT_TOLERANCE, max_iterations=100):
    """Close every loop of ``model`` starting from rough pair values.

    Parameters
    ----------
    model : mechanism.specs.Model
    guess : dict, pair name -> value (rad/m) or values (multi-variable pairs); others start at 0
        (or at the model's reference).
    hold : names of variables kept at their guessed values (for example the driver).

    Returns
    -------
    dict pair name -> ndarray of its values at the closed assembly.
    """
    system = compile_model(model, with_point_drivers=False)
    q = system.reference_q()
    for name, value in guess.items():
        if name in system.pair_slices:
            q[system.pair_slices[name]] = value
        elif name in system.variable_index:
            q[system.variable_index[name]] = value
        else:
            raise ModelError(f"guess {name!r}", "not a pair or pair variable of the model")
    driven = system.driver_columns(hold) if hold else np.zeros(0, dtype=int)
    q, _ = solve_position(system, q, driven, {h: q[system.variable_index[h]] for h in hold},
                          tolerance=tolerance, max_iterations=max_iterations)
    return {pair.name: q[system.pair_slices[pair.name]].copy() for pair in system.pairs}
