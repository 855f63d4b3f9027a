"""The Newton corrector on the closure equations (METHOD.md eq. 3), compiled.

Each step solves ``B_free dq = -W`` on the square block of :mod:`loops.linear` (``W``: the
closure defects of every loop and gauge), limits the step to ``max_step`` (dimensionless:
rad, or sizes for slides), and applies it: additive variables by ``q += dq``, spherical
pairs by a left rotation ``R <- exp(hat(dq)) R`` (their increments are rotations about
frame j's fixed axes, :mod:`mechanism.pairs`). A factorization made at a nearby
configuration is reused while it divides the defect by 20 at every step (a chord
iteration); otherwise the block is factorized where the iterate is, and if even a fresh step does not
reduce the defect it is halved (damping) up to six times.

The defect that decides convergence is the largest of all rows, the ones left out of the
square block included, relative to size (:func:`loops.kernels.closure.closure_error`): a
returned position closes every loop.

Polishing. With ``polish``, once the defect is within the tolerance the corrector takes one
more step (kept if it lowers the defect), also from a start that is within it already (a
walk's small steps predicted to second order): the position ends far below the tolerance at
the cost of one evaluation, and two solves of one position then agree (sweeps). A start
predicted so well that it lands just within the tolerance (a walk's fifth-order prediction)
may end only a chord step's contraction below it; ``polish_floor`` (relative to the
tolerance, below 1: :data:`POLISH_FLOOR`) polishes on while the defect is above it, by
Newton from where a chord step does not halve it (1.0: the one polish step), and leaves a
start already below it as it is (a fifth-order prediction usually lands there: the step
would only move the position by round-off of what the floor promises). Without
``polish``, a start already within the tolerance is left as it is (a saved assembly reloads
bit for bit). Kernels pass ``polish`` as ``bool(True)`` or ``bool(False)``, not a bare
constant, and every caller passes ``polish_floor`` (a float, no default): numba compiles a
function once per literal and once more for an omitted argument, and the corrector is
among the largest kernels.
"""

from __future__ import annotations

import numpy as np

from ._compile import internal_kernel, kernel
from .arrays import copy_matrix, copy_stack, copy_vector
from .closure import configure
from .linear import factorize_block, solve_block
from .rotations import log_so3, rotate_left, unwrap_rotation_vector
from .state import BAND_OVERFLOW, CORRECTION, ERROR, FACTORIZATIONS, ITERATIONS, PIVOT_RATIO, SQUARE, VALID

__all__ = ["CONVERGED", "NOT_CONVERGED", "SINGULAR", "corrector", "apply_step", "seat_spherical",
           "copy_work", "copy_evaluated", "copy_factor"]

CONVERGED, NOT_CONVERGED, SINGULAR = 0, 1, 2
#: Defect, relative to the tolerance, down to which the polish of a start predicted to fifth
#: order goes on (:func:`corrector`).
POLISH_FLOOR = 1e-2


@internal_kernel(forceinline=True)
def apply_step(topology, work, dq, scale):
    """``q += scale dq`` on the variables (spherical slots: rotations by the increments)."""
    for col in range(topology.n):
        work.q[col] += scale * dq[col]
    w = work.scratch.v3[1]
    for s in range(topology.spheres):
        for k in range(3):
            w[k] = scale * dq[topology.sphere_columns[s, k]]
        rotate_left(w, work.rotations[s], work.scratch.m3[1], work.scratch.m3[2])


@internal_kernel(forceinline=True)
def seat_spherical(topology, work, previous):
    """Write each spherical pair's rotation vector into ``work.q``, unwrapped to lie nearest the
    value in ``previous`` (n,) (DESIGN.md: spherical values are continuous)."""
    w, before, out = work.scratch.v3[2], work.scratch.v3[3], work.scratch.v3[4]
    for s in range(topology.spheres):
        log_so3(work.rotations[s], w)
        for k in range(3):
            before[k] = previous[topology.sphere_columns[s, k]]
        unwrap_rotation_vector(w, before, out)
        for k in range(3):
            work.q[topology.sphere_columns[s, k]] = out[k]


@internal_kernel(forceinline=True)
def copy_work(source, target):
    """Copy the state (variables and spherical rotations) of ``source`` into ``target``."""
    copy_vector(source.q, target.q)
    copy_stack(source.rotations, target.rotations)


@internal_kernel
def copy_evaluated(source, target):
    """Copy an evaluated configuration (state, pair matrices, poses, frames, twists, defects,
    chord centres and gauge swings) of ``source`` into ``target``."""
    copy_work(source, target)
    copy_stack(source.A, target.A)
    copy_stack(source.T, target.T)
    copy_stack(source.W, target.W)
    copy_matrix(source.xi, target.xi)
    copy_vector(source.defects, target.defects)
    copy_matrix(source.centres, target.centres)
    copy_matrix(source.swings, target.swings)


@kernel(forceinline=True)
def copy_factor(source, target):
    copy_matrix(source.band, target.band)
    copy_vector(source.pivots, target.pivots)
    copy_matrix(source.driven, target.driven)
    copy_vector(source.info, target.info)


@internal_kernel(forceinline=True)
def _restore(topology, geometry, work, saved_q, saved_rotations):
    """Put ``work`` back at the iterate saved before a step, evaluated again."""
    copy_vector(saved_q, work.q)
    copy_stack(saved_rotations, work.rotations)
    configure(topology, geometry, work)


@internal_kernel(forceinline=True)
def _newton_step(block, factor, work, dq, rhs):
    """The Newton step ``dq`` (n,) of ``B_free dq = -W`` at ``work`` (free entries; driven ones
    zero); returns its size (dimensionless, max norm)."""
    dq[:] = 0.0
    for r in range(work.defects.shape[0]):
        rhs[r] = -work.defects[r]
    solve_block(block, factor, rhs, dq, work.scratch.equations[1])
    longest = 0.0
    for col in block.free:
        longest = max(longest, abs(dq[col]) / block.column_scale[col])
    return longest


@internal_kernel(forceinline=True)
def _damped(topology, geometry, work, dq, scale, saved_q, saved_rotations, error, trial):
    """A fresh step that did not halve the defect, halved (from the saved iterate) while the
    defect grows, at most six times; returns ``(defect, scale)`` where it ends."""
    halvings = 0
    while trial >= error and halvings < 6:
        halvings += 1
        scale *= 0.5
        copy_vector(saved_q, work.q)
        copy_stack(saved_rotations, work.rotations)
        apply_step(topology, work, dq, scale)
        trial = configure(topology, geometry, work)
    return trial, scale


@internal_kernel
def corrector(topology, geometry, block, work, factor, tolerance, max_iterations, max_step, polish, result,
              polish_floor):
    """Close the loops from the configuration in ``work`` with the driven columns held.

    ``factor`` is a factorization of the block at a nearby configuration to start from
    (``factor.info[VALID] == 0``: none); it is updated when refactorized. On return ``work``
    holds the last iterate, evaluated, with the spherical slots of ``q`` stale (see
    :func:`seat_spherical`), and ``result`` (:data:`~.state.CORRECTOR_RESULT_SIZE`,) holds the
    corrector's result (:mod:`.state`: error, iterations, correction, factorizations).
    ``polish`` and ``polish_floor``: see the module docstring. Returns CONVERGED,
    NOT_CONVERGED or SINGULAR (the block lost rank at an iterate).
    """
    error = configure(topology, geometry, work)
    polished = not polish or (polish_floor < 1.0 and error <= polish_floor * tolerance)
    dq, saved_q, saved_rotations = work.scratch.variables[0], work.scratch.variables[1], work.scratch.rotations
    rhs = work.scratch.equations[0]
    iterations, factorizations, stalls = 0, 0, 0
    correction, fresh, status = 0.0, False, NOT_CONVERGED
    while iterations < max_iterations:
        if not np.isfinite(error):
            break
        polishing = error <= tolerance
        if polishing and polished:
            break
        if factor.info[VALID] == 0.0:
            factorize_block(topology, geometry, block, work, factor)
            factorizations += 1
            fresh = True
            if block.mode == SQUARE and (factor.info[PIVOT_RATIO] == 0.0 or factor.info[BAND_OVERFLOW] != 0.0):
                factor.info[VALID] = 0.0
                status = SINGULAR
                break
        iterations += 1
        longest = _newton_step(block, factor, work, dq, rhs)
        scale = max_step / longest if longest > max_step else 1.0
        copy_vector(work.q, saved_q)
        copy_stack(work.rotations, saved_rotations)
        apply_step(topology, work, dq, scale)
        trial = configure(topology, geometry, work)
        if polishing:
            polished = True
            if trial < error:
                correction += scale * longest
                slow = trial >= 0.5 * error
                error = trial
                if error > polish_floor * tolerance and not (slow and fresh):
                    polished = False  # not far enough below the tolerance yet: polish on,
                    if slow:
                        factor.info[VALID] = 0.0  # by Newton from here when the chord is slow
                    fresh = False
                    continue
            else:  # at the round-off floor already
                _restore(topology, geometry, work, saved_q, saved_rotations)
            break
        if trial < 0.5 * error:
            correction += scale * longest
            if not fresh and trial > 0.05 * error:
                factor.info[VALID] = 0.0  # a chord converging slowly: Newton from here on
            error = trial
            fresh = False
            continue
        if not fresh:
            # A stale factorization that no longer halves the defect: refactorize here.
            _restore(topology, geometry, work, saved_q, saved_rotations)
            factor.info[VALID] = 0.0
            continue
        trial, scale = _damped(topology, geometry, work, dq, scale, saved_q, saved_rotations, error, trial)
        if trial >= error:
            stalls += 1
            if stalls >= 3:
                error = trial
                break
        correction += scale * longest
        error = trial
        factor.info[VALID] = 0.0  # refactorize at the new iterate
    if status != SINGULAR and error <= tolerance:
        status = CONVERGED
    result[ERROR], result[ITERATIONS] = error, iterations
    result[CORRECTION], result[FACTORIZATIONS] = correction, factorizations
    return status
