"""The walk along the closure: predictor, corrector, branch checks, step control, compiled.

From a closed configuration ``here`` (evaluated, with the factorization of its square
block and its transmission matrix ``G = dq/d(driven)``) the driven values move towards a
target in steps. Each step predicts along the tangent (``dq = G d(driven)``, eq. 4) and,
when it continues the straight line of the steps before, along the branch's curvature too
(:func:`_predict`), corrects with Newton (:mod:`.newton`, eq. 3) holding the driven values, and
is accepted only if

* every loop closes to the tolerance,
* the correction is small against the predicted motion (``max_correction_ratio``; a larger
  one means the corrector fell onto another assembly branch), and
* the block keeps its orientation wherever both ends of the step are well conditioned
  (:func:`same_orientation`): two branches that come close without meeting (a four-bar
  near its change-point proportions) have opposite orientations, so a step that jumps
  the neck between them is refused, and halving resolves the branch's sharp turn there;
  a step that crosses a true singular position (a parallelogram folding flat, where the
  determinant vanishes on the branch itself) has an end below ``TRUSTED_CONDITIONING``
  once halving has brought it close, and passes straight through.

Otherwise the step is halved; after ``max_halvings`` halvings in a row the walk stops and
says so. A step's predicted motion is limited to ``max_motion`` (dimensionless) so that
Newton stays in its basin.

At a singular position of the closure (a parallelogram folding flat: ``B_free`` loses rank
on the branch), the tangent there is undefined: the walk keeps the tangent it arrived with
and leaves along the branch it came on (DESIGN.md: the incoming tangent decides).

The rows of a square block are chosen where the walk starts (:mod:`loops.linear`); when
some rows were left out (redundant closure equations) the block may become ill conditioned
elsewhere while the whole of ``B_free`` is not (a Bennett loop's rotation rows alone are a
spherical four-bar's, with singularities of their own). After an accepted step whose block
conditioning falls below ``rechoose_rcond`` the walk returns ``RECHOOSE`` for the caller to
choose the rows anew where it stands.

``last_G`` (2, n, d) and ``last_step`` (2, d) are the walk's memory of its last two accepted
steps, the latest first: the tangent where each started and its driven increment (zero:
none, so the prediction has that order less; the caller zeroes it wherever it puts the walk
down anew). ``curvature`` (2, n) holds the second derivatives of the variables along the
line of the steps, ``d^2 q / d sigma^2`` with ``sigma`` the distance along that line in
driven values, where the latest step ends (row 0) and where it started (row 1); ``curved``
(:data:`~.state.CURVED_FLAGS`,) says which rows are kept (``CURVED_HERE``, ``CURVED_BEFORE``)
and whether the walk records them (``RECORDING``). It starts to once a step predicted to
third order needed more than one Newton iteration (steps long for the branch's curvature: a
design study's 4 mm in wheel travel), and then records them at every position it reaches
(:func:`curvature_here`: a sweep keeps the accelerations it solves anyway when its driver
rates move along the step with no driver accelerations, over the rates squared; a walk that
solves them at unit driver rates anyway, a design study's, keeps those with
:func:`record_curvature`); with both ends known the predictor interpolates the tangent to
fourth order (:func:`_predict`). The rule depends only on the walk itself, so a study's
variant and a separate sweep of it take the same steps from the same predictions (to
round-off, the curvatures being solved at other rates).

``params``, ``counters`` and ``diagnostics`` are the small vectors of :mod:`.state`, their
entries named there (``params[TOLERANCE]``, ``counters[STEP_BUDGET]``, ...): the walk
returns ``BUDGET`` when the step budget is spent (the caller may resume: the walk restarts
from ``here``).
"""

from __future__ import annotations

import numpy as np

from ._compile import inline_kernel, internal_kernel, kernel
from .arrays import copy_matrix, copy_stack, copy_vector
from .acceleration import bias_rhs, link_accelerations, velocity_product_terms
from .closure import configure, world_twists
from .linear import band_pivot, factorize_block, transmission
from .newton import CONVERGED, POLISH_FLOOR, apply_step, copy_factor, copy_work, corrector, seat_spherical
from .state import (BAND_OVERFLOW, BRANCH_RATIO, CONDITIONING, CONDITIONING_HERE, CORRECTION, CORRECTOR_RESULT,
                    CORRECTOR_RESULT_SIZE, CURVED_BEFORE, CURVED_HERE, DETERMINANT_SIGN, ERROR, HALVING_LIMIT,
                    ITERATION_LIMIT, ITERATIONS, LAST_ERROR, LAST_ITERATIONS, MOTION_LIMIT, NEWTON_STEP_LIMIT, REACHED,
                    RECHOOSE_RCOND, RECORDING, SINGULAR_RCOND, SQUARE, STEP_BUDGET, STEPS_TAKEN, TANGENTS, TOLERANCE,
                    TRUSTED_CONDITIONING, VALID)
from .velocity import link_velocities, solve_with_drivers

__all__ = ["OK", "STOPPED", "BUDGET", "RECHOOSE", "CLOSE", "CONTINUE", "RECORD", "RATES", "walk_to",
           "walk_positions", "rates_at", "close_here", "tangent_at", "on_branch", "same_orientation", "bend", "record_curvature",
           "curvature_here"]

OK, STOPPED, BUDGET, RECHOOSE = 0, 1, 2, 3

@internal_kernel(forceinline=True)
def on_branch(correction, motion, ratio, tolerance, conditioning):
    """The branch guard: a corrector's ``correction`` (dimensionless) is on the branch the
    prediction followed when it is small against the predicted ``motion`` (a fraction
    ``ratio`` of it) or within the noise of the closure itself. A position closed to
    ``tolerance`` is known only to about ``tolerance / conditioning`` along the nearly
    singular directions of the block (reciprocal condition ``conditioning``), so that, not
    the tolerance alone, is the noise: next to a singular position a correction of that size
    is round-off of the start, not a jump to another branch."""
    noise = tolerance / min(max(conditioning, TRUSTED_CONDITIONING), 1.0)
    return correction <= ratio * motion + 10.0 * noise


@internal_kernel(forceinline=True)
def same_orientation(block, before, after):
    """False when two LU factorizations of one square block, both trusted (reciprocal
    condition at least ``TRUSTED_CONDITIONING``), are oriented differently: the step between
    them left its branch for another one, or passed a singular position without coming close
    to it.

    With the same row exchanges at both ends each pivot (diagonal entry of U) is a
    continuous function of the block along the step, and a pivot that changes sign passed
    through zero: a singular position between the ends, unless the row exchanges changed
    and changed back in between (then halving the step finds ends whose exchanges differ).
    Comparing every pivot sees two loops that change branch at once, which leave the sign
    of the determinant alone. With different row exchanges only the signs of the
    determinants are compared."""
    if before.info[VALID] == 0.0 or after.info[VALID] == 0.0 or block.mode != SQUARE:
        return True
    if before.info[CONDITIONING] < TRUSTED_CONDITIONING or after.info[CONDITIONING] < TRUSTED_CONDITIONING:
        return True
    same_exchanges = True
    for j in range(block.size):
        if before.pivots[j] != after.pivots[j]:
            same_exchanges = False
            break
    if not same_exchanges:
        return before.info[DETERMINANT_SIGN] == after.info[DETERMINANT_SIGN]
    for j in range(block.size):
        positive = band_pivot(before.band, block.kl, block.ku, j) > 0.0
        if positive != (band_pivot(after.band, block.kl, block.ku, j) > 0.0):
            return False
    return True


@internal_kernel
def bend(span, last_step):
    """``(span . d) / (d . d)`` for a driven increment ``d`` (``last_step``) when ``span`` lies on
    its line (either way), else 0: how many of the last step the coming one is, along a line
    of driven values (a sweep's), where the tangents at the ends of the last steps tell the
    branch's curvature (:func:`_predict`)."""
    sd, ss, dd = 0.0, 0.0, 0.0
    for k in range(span.shape[0]):
        sd += span[k] * last_step[k]
        ss += span[k] * span[k]
        dd += last_step[k] * last_step[k]
    if dd == 0.0 or sd * sd < (1.0 - 1e-12) * ss * dd:
        return 0.0
    return sd / dd


@inline_kernel
def _predict(topology, block, G, last_G, last_step, curvature, curved, span, h, step):
    """The predicted change ``step`` (n,) of the variables for the driven increment ``h span``;
    returns its size (dimensionless, max norm) and its order: 1 along the tangent, 2 with the
    quadratic term, 3 the cubic, 5 the Hermite interpolant.

    Along the line of the last step ``d0`` (``last_step[0]``; the one before, ``d1 = b d0``) the
    variables are a function of one parameter ``a`` (``x = x_here + a d0``), and the tangents
    ``t = G d0`` at ``a = 0`` (here), ``-1`` and ``-1 - b`` (``last_G``) are its first
    derivative there. The quadratic through them, integrated, predicts the step ``a = h c``
    (``c = bend(span, d0)``): ``dq = t a + (f1 + f2) a^2 / 2 + f2 a^3 / 3`` with the divided
    differences ``f1 = t(0) - t(-1)``, ``f2 = (f1 - (t(-1) - t(-1 - b)) / b) / (1 + b)``: wrong by
    ``O(a^4)`` where the tangent alone is wrong by ``O(a^2)`` (a sweep's corrector then starts
    within the tolerance or a chord iteration from it). With the curvatures at both ends of the
    last step as well (``curved``) the tangent is the quartic Hermite interpolant
    (:func:`_hermite_step`), wrong by ``O(a^6)``. Off the line, or without the memory,
    the orders it cannot have are left out; comparable steps only (``1/4 <= b <= 4``), as the
    divided differences of very unequal ones amplify round-off.
    """
    n, d = G.shape
    a = h * bend(span, last_step[0])
    b = bend(last_step[1], last_step[0]) if a != 0.0 else 0.0
    cubic = 0.25 <= b <= 4.0
    order = 1 if a == 0.0 else (3 if cubic else 2)
    if cubic and curved[CURVED_HERE] != 0.0 and curved[CURVED_BEFORE] != 0.0:
        _hermite_step(topology, G, last_G, last_step[0], curvature, a, b, step)
        order = 5
    else:
        for col in range(n):
            s = 0.0
            for k in range(d):
                s += G[col, k] * span[k]
            value = h * s
            if a != 0.0:
                t1, t0, tm = _tangents(G, last_G, last_step[0], col)
                f1 = t1 - t0
                f2 = (f1 - (t0 - tm) / b) / (1.0 + b) if cubic else 0.0
                value += 0.5 * (f1 + f2) * a * a + f2 * a * a * a / 3.0
            step[col] = value
    motion = 0.0
    for col in range(n):
        motion = max(motion, abs(step[col]) / block.column_scale[col])
    return motion, order


@inline_kernel
def _tangents(G, last_G, d0, col):
    """Variable ``col``'s tangents along ``d0`` (d,) here, one step and two steps back:
    ``(G d0, last_G[0] d0, last_G[1] d0)``."""
    t1, t0, tm = 0.0, 0.0, 0.0
    for k in range(d0.shape[0]):
        t1 += G[col, k] * d0[k]
        t0 += last_G[0, col, k] * d0[k]
        tm += last_G[1, col, k] * d0[k]
    return t1, t0, tm


@inline_kernel
def _hermite_coefficients(G, last_G, d0, curvature, reach, b, col):
    """Newton coefficients ``(c0, ..., c4)`` of the quartic ``t(x)`` (the tangent of variable
    ``col`` along ``d0``, per unit ``x``) with ``t`` at ``x = 0, -1, -1 - b`` and its derivative
    ``t' = curvature |d0|^2`` (``reach = |d0|^2``) at ``0`` and ``-1``: on the confluent nodes
    ``0, 0, -1, -1, -1 - b``, ``t = c0 + c1 x + c2 x^2 + c3 x^2 (x + 1) + c4 x^2 (x + 1)^2``."""
    here, before, first = _tangents(G, last_G, d0, col)
    rate_here = curvature[0, col] * reach
    rate_before = curvature[1, col] * reach
    chord = here - before                               # t[0, -1]
    c2 = rate_here - chord                              # t[0, 0, -1]
    middle = chord - rate_before                        # t[0, -1, -1]
    last = (rate_before - (before - first) / b) / b     # t[-1, -1, -1 - b]
    c3 = c2 - middle
    c4 = (c3 - (middle - last) / (1.0 + b)) / (1.0 + b)
    return here, rate_here, c2, c3, c4


@inline_kernel
def _hermite_step(topology, G, last_G, d0, curvature, a, b, step):
    """``step`` (n,) = the integral of the quartic Hermite tangent (:func:`_hermite_coefficients`)
    from 0 to ``a``; for a spherical pair's three columns (rotations composed on the left, not
    added) the second term of the Magnus expansion of the rotation to order ``a^4``,
    ``-a^3/12 t x t' - a^4/24 t x t''`` at ``x = 0``, is added to the integral."""
    reach = 0.0
    for k in range(d0.shape[0]):
        reach += d0[k] * d0[k]
    a2 = a * a
    a3 = a2 * a
    a4 = a3 * a
    w3 = a3 / 3.0
    w4 = a4 / 4.0 + w3
    w5 = a4 * a / 5.0 + a4 / 2.0 + w3
    for col in range(G.shape[0]):
        c0, c1, c2, c3, c4 = _hermite_coefficients(G, last_G, d0, curvature, reach, b, col)
        step[col] = c0 * a + c1 * a2 / 2.0 + c2 * w3 + c3 * w4 + c4 * w5
    for s in range(topology.spheres):
        x, y, z = topology.sphere_columns[s, 0], topology.sphere_columns[s, 1], topology.sphere_columns[s, 2]
        tx, rx, sx = _tangent_rates(G, last_G, d0, curvature, reach, b, x)
        ty, ry, sy = _tangent_rates(G, last_G, d0, curvature, reach, b, y)
        tz, rz, sz = _tangent_rates(G, last_G, d0, curvature, reach, b, z)
        step[x] -= a3 / 12.0 * (ty * rz - tz * ry) + a4 / 24.0 * (ty * sz - tz * sy)
        step[y] -= a3 / 12.0 * (tz * rx - tx * rz) + a4 / 24.0 * (tz * sx - tx * sz)
        step[z] -= a3 / 12.0 * (tx * ry - ty * rx) + a4 / 24.0 * (tx * sy - ty * sx)


@internal_kernel(forceinline=True)
def _tangent_rates(G, last_G, d0, curvature, reach, b, col):
    """``(t, t', t'')`` of the Hermite tangent of variable ``col`` at ``x = 0`` (here)."""
    c0, c1, c2, c3, c4 = _hermite_coefficients(G, last_G, d0, curvature, reach, b, col)
    return c0, c1, 2.0 * (c2 + c3 + c4)


@internal_kernel(forceinline=True)
def record_curvature(last_step, rates, q_ddot, curvature, curved):
    """Keep ``q_ddot`` (n,), the accelerations solved for the driven ``rates`` (d,) with no driven
    accelerations, as the curvature where the latest step ends, when the walk records
    curvatures (``curved[RECORDING]``) and that step moved the driven values along ``rates``
    (either way): ``q_ddot`` is quadratic in the rates, so ``q_ddot / |rates|^2`` is
    ``d^2 q / d sigma^2`` along the step's line (eq. 4 differentiated once more; unit
    ``rates``, a design study's, keep ``q_ddot`` as it is)."""
    if curved[RECORDING] == 0.0 or curved[CURVED_HERE] != 0.0 or bend(rates, last_step[0]) == 0.0:
        return
    norm = 0.0
    for k in range(rates.shape[0]):
        norm += rates[k] * rates[k]
    for col in range(q_ddot.shape[0]):
        if not np.isfinite(q_ddot[col]):  # a singular position: no accelerations
            return
    for col in range(q_ddot.shape[0]):
        curvature[0, col] = q_ddot[col] / norm
    curved[CURVED_HERE] = 1.0


@inline_kernel
def curvature_here(topology, geometry, block, here, factor, G, last_step, spare, curvature, curved, speeds,
                   accelerations, q_ddot):
    """Keep the curvature where the latest step ends (see :func:`record_curvature`) when the walk
    records them and it is not kept yet: from the accelerations ``q_ddot`` (n,) just solved at
    the driven ``speeds`` and ``accelerations`` (d,) when those move along the step with no
    driven accelerations (a sweep's), else solved for unit driven rates along the step, none
    driven. ``spare``: a Work whose scratch is free."""
    if curved[RECORDING] == 0.0 or curved[CURVED_HERE] != 0.0:
        return
    d = last_step.shape[1]
    resting = True
    for k in range(d):
        resting = resting and accelerations[k] == 0.0
    if resting:
        record_curvature(last_step, speeds, q_ddot, curvature, curved)
        if curved[CURVED_HERE] != 0.0:
            return
    direction = spare.scratch.variables[2][:d]
    zeros = spare.scratch.variables[3][:d]
    norm = 0.0
    for k in range(d):
        norm += last_step[0, k] * last_step[0, k]
    if norm == 0.0:
        return
    norm = np.sqrt(norm)
    for k in range(d):
        direction[k] = last_step[0, k] / norm
        zeros[k] = 0.0
    rates_at(topology, geometry, block, here, factor, G, direction, zeros, spare.scratch.variables[0],
             spare.scratch.variables[1], spare.scratch.links[0], spare.scratch.links[1])
    record_curvature(last_step, direction, spare.scratch.variables[1], curvature, curved)


@internal_kernel(forceinline=True)
def tangent_at(topology, geometry, block, work, factor, G, incoming, singular_rcond, tangents):
    """Factorize at the closed ``work`` and set ``G`` to its transmission matrix (its first
    ``tangents`` columns: :func:`~.linear.transmission`); at a singular position keep ``incoming``
    (the tangent the walk arrived with) and mark the factorization unusable. Returns True when
    the position is regular."""
    factorize_block(topology, geometry, block, work, factor)
    if factor.info[CONDITIONING] < singular_rcond or factor.info[BAND_OVERFLOW] != 0.0:
        copy_matrix(incoming, G)
        factor.info[VALID] = 0.0
        return False
    transmission(block, factor, G, work.scratch.equations[1], tangents)
    return True


@internal_kernel(forceinline=True)
def walk_to(topology, geometry, block, here, factor, G, trial, trial_factor, new_G, last_G, last_step, curvature,
            curved, target, params, counters, diagnostics):
    """Walk the driven values of ``here`` to ``target`` (d,); returns OK, STOPPED, BUDGET or
    RECHOOSE (the walk's entry point :func:`walk_positions` and the batched walk of variants).

    ``here``/``factor``/``G`` and the memory ``last_G``/``last_step``/``curvature`` are updated at every
    accepted step; ``trial``, ``trial_factor`` and ``new_G`` are scratch of the same shapes.

    A step is tried in ``here`` itself, its start kept in ``trial`` (variables and spherical
    states) and its factorization made in ``trial_factor``: a refused step puts the start back
    and evaluates it again (:func:`_evaluated_again`) before the walk returns from it; an
    accepted one copies only its factorization into ``factor``. Refused steps are rare, so
    this copies the least; the two buffers keep their roles (swapping them would make every
    field of their named tuples a value the compiled loop carries from step to step)."""
    tolerance, max_motion, ratio = params[TOLERANCE], params[MOTION_LIMIT], params[BRANCH_RATIO]
    max_halvings, iterations = int(params[HALVING_LIMIT]), int(params[ITERATION_LIMIT])
    max_step, singular_rcond = params[NEWTON_STEP_LIMIT], params[SINGULAR_RCOND]
    tangents = int(params[TANGENTS])
    driven = block.driven
    d = driven.shape[0]
    start, span = trial.scratch.variables[2][:d], trial.scratch.variables[3][:d]
    if not _span_to(here, driven, target, start, span):
        return OK
    step = here.scratch.variables[2]
    result = diagnostics[CORRECTOR_RESULT:CORRECTOR_RESULT + CORRECTOR_RESULT_SIZE]
    fraction, h, halvings = 0.0, 1.0, 0
    refused = False  # here holds a refused step's start, not evaluated
    while fraction < 1.0:
        if counters[STEPS_TAKEN] >= counters[STEP_BUDGET]:
            if refused:
                _evaluated_again(topology, geometry, here)
            return BUDGET
        h = min(h, 1.0 - fraction)
        last = fraction + h >= 1.0
        motion, order = _predict(topology, block, G, last_G, last_step, curvature, curved, span, h, step)
        if motion > max_motion:
            h *= max_motion / motion
            continue
        counters[STEPS_TAKEN] += 1
        copy_work(here, trial)  # the start, to go back to
        apply_step(topology, here, step, 1.0)
        for k in range(d):
            here.q[driven[k]] = target[k] if last else start[k] + (fraction + h) * span[k]
        copy_factor(factor, trial_factor)
        status = corrector(topology, geometry, block, here, trial_factor, tolerance, iterations, max_step, bool(True),
                           result, POLISH_FLOOR if order == 5 else 1.0)
        diagnostics[LAST_ERROR] = result[ERROR]
        diagnostics[LAST_ITERATIONS] = result[ITERATIONS]
        accepted = status == CONVERGED and on_branch(result[CORRECTION], motion, ratio, tolerance,
                                                     trial_factor.info[CONDITIONING] if trial_factor.info[VALID] != 0.0
                                                     else factor.info[CONDITIONING])
        regular = False
        if accepted:
            seat_spherical(topology, here, trial.q)
            regular = tangent_at(topology, geometry, block, here, trial_factor, new_G, G, singular_rcond, tangents)
            if regular and factor.info[VALID] != 0.0:
                accepted = same_orientation(block, factor, trial_factor)
        if not accepted:
            copy_work(trial, here)
            refused = True
            halvings += 1
            h *= 0.5
            if halvings > max_halvings:
                _evaluated_again(topology, geometry, here)
                diagnostics[CONDITIONING_HERE] = factor.info[CONDITIONING] if factor.info[VALID] != 0.0 else 0.0
                return STOPPED
            continue
        refused = False
        _remember_step(factor, trial_factor, G, new_G, last_G, last_step, curvature, curved, span, h, regular,
                       order == 3 and result[ITERATIONS] > 1.0)
        fraction = 1.0 if last else fraction + h
        halvings = max(halvings - 1, 0)
        h *= 2.0
        if factor.info[VALID] != 0.0 and factor.info[CONDITIONING] < params[RECHOOSE_RCOND]:
            diagnostics[CONDITIONING_HERE] = factor.info[CONDITIONING]
            return RECHOOSE
    diagnostics[CONDITIONING_HERE] = factor.info[CONDITIONING] if factor.info[VALID] != 0.0 else 0.0
    return OK


@internal_kernel(forceinline=True)
def _span_to(here, driven, target, start, span):
    """The driven values where ``here`` stands into ``start`` (d,) and the way to ``target`` into
    ``span`` (d,); False when there is no way to go."""
    moving = False
    for k in range(driven.shape[0]):
        start[k] = here.q[driven[k]]
        span[k] = target[k] - start[k]
        moving = moving or span[k] != 0.0
    return moving


@internal_kernel(forceinline=True)
def _remember_step(factor, trial_factor, G, new_G, last_G, last_step, curvature, curved, span, h, regular, long):
    """Take an accepted step of ``h span``: its factorization and tangent become the walk's, and
    the memory of the last steps moves on. Steps are remembered only between regular ends (a
    singular one keeps the incoming tangent, whose difference from the next is no
    curvature); ``long``: the step, predicted to third order, needed more than one Newton
    iteration, so the walk records curvatures from now on."""
    remembered = regular and factor.info[VALID] != 0.0
    for k in range(span.shape[0]):
        last_step[1, k] = last_step[0, k] if remembered else 0.0
        last_step[0, k] = h * span[k] if remembered else 0.0
    copy_vector(curvature[0], curvature[1])
    curved[CURVED_BEFORE] = curved[CURVED_HERE] if remembered else 0.0
    curved[CURVED_HERE] = 0.0  # where this step ends: known once its accelerations are solved
    if long:
        curved[RECORDING] = 1.0
    copy_factor(trial_factor, factor)
    copy_matrix(last_G[0], last_G[1])
    copy_matrix(G, last_G[0])
    copy_matrix(new_G, G)


@internal_kernel
def _evaluated_again(topology, geometry, work):
    """Evaluate ``work`` at its variables and spherical states again, everything an accepted
    step leaves evaluated (:func:`configure`, then the frames and twists): the same numbers,
    as the same arithmetic on the same state."""
    configure(topology, geometry, work)
    world_twists(topology, geometry, work)


@internal_kernel
def rates_at(topology, geometry, block, here, factor, G, speeds, accelerations, q_dot, q_ddot, V, A):
    """Velocities (eq. 4) and accelerations at the closed ``here`` for the driven rates.

    ``q' = G speeds``; ``q''`` from the twice-differentiated closure on the factorization of
    ``here``. At a singular position (``factor`` unusable) the velocities follow the branch
    tangent ``G`` and the accelerations are undefined (NaN).
    """
    n = topology.n
    for col in range(n):
        s = 0.0
        for k in range(speeds.shape[0]):
            s += G[col, k] * speeds[k]
        q_dot[col] = s
    link_velocities(topology, here.xi, q_dot, V)
    terms = here.scratch.terms
    velocity_product_terms(topology, here.q, q_dot, here.W, here.xi, V, terms, here.scratch.v6[1:4])
    if factor.info[VALID] == 0.0:
        q_ddot[:] = np.nan
    else:
        rhs = here.scratch.equations[0][:here.defects.shape[0]]
        bias_rhs(topology, geometry, here, V, terms, rhs)
        for r in range(rhs.shape[0]):
            rhs[r] = -rhs[r]
        solve_with_drivers(block, factor, rhs, accelerations, q_ddot, here.scratch.equations[1])
    link_accelerations(topology, here.xi, q_ddot, terms, A)


#: What the one compiled walk (:func:`walk_positions`) does, its ``mode``: close ``here`` where it
#: stands (:func:`close_here`; returns ``(0, the corrector's status)``, the corrector's result in
#: ``diagnostics[CORRECTOR_RESULT:]``); walk through the targets recording nothing (a walk to one
#: target); walk through them recording every position reached; or record the rates at positions
#: already closed (the record's ``q``, ``rotations`` and ``G``, see :func:`walk_positions`).
CLOSE, CONTINUE, RECORD, RATES = range(4)


@kernel
def walk_positions(topology, geometry, block, walk, targets, speeds, accelerations, first, mode, params, counters,
                   diagnostics, out):
    """The walk's one compiled entry point: the ``mode`` (:data:`CLOSE`, :data:`CONTINUE`,
    :data:`RECORD`, :data:`RATES`) says what it does, so that the corrector, the factorization
    and the rates are compiled once for all of them (one compile of the walk for a first command:
    each entry point links and optimizes its own copy of everything it calls).

    ``RECORD``: walk ``walk`` (a :class:`~.state.WalkState`) through ``targets[first:]`` (N, d) in
    order, recording every position reached into ``out`` (a :class:`~.state.WalkRecord`):
    position i's variables, rotations, rates at the driven ``speeds`` and ``accelerations`` (N, d),
    link poses, velocities, accelerations and tangent ``G`` go to row i. ``CONTINUE``: the same
    walk, recording nothing (``out`` may hold no rows). ``RATES``: at each closed position
    ``out.q[i]``, ``out.rotations[i]`` (i from ``first`` to N, N the rows of ``targets``, which are
    not read) the rates along the tangent ``out.G[i]`` for ``speeds[i]`` and ``accelerations[i]``
    into ``out.q_dot``, ``out.q_ddot``, ``out.V``, ``out.A`` (eq. 4 and its derivative, see
    :func:`rates_at`), each position evaluated and factorized in ``walk.here`` and
    ``walk.factor`` (singular below ``params[SINGULAR_RCOND]``). ``CLOSE``: :func:`close_here`.

    Returns ``(index, status)``: the first index not reached (N when all were) and OK,
    STOPPED, BUDGET or RECHOOSE (``CLOSE``: 0 and the corrector's status).
    """
    here, factor, G, trial, trial_factor, new_G, last_G, last_step, curvature, curved = walk
    out_q, out_rotations, out_q_dot, out_q_ddot, out_T, out_V, out_A, out_G = out
    if mode == CLOSE:
        result = diagnostics[CORRECTOR_RESULT:CORRECTOR_RESULT + CORRECTOR_RESULT_SIZE]
        return 0, close_here(topology, geometry, block, here, factor, G, new_G, params, result)
    count = targets.shape[0]
    status, i = OK, first
    while i < count:
        tangent = G
        if mode == RATES:
            tangent = out_G[i]
            _factorized_at(topology, geometry, block, here, factor, out_q[i], out_rotations[i],
                           params[SINGULAR_RCOND])
        else:
            status = walk_to(topology, geometry, block, here, factor, G, trial, trial_factor, new_G, last_G,
                             last_step, curvature, curved, targets[i], params, counters, diagnostics)
            if status != OK:
                break
            if mode == CONTINUE:
                i += 1
                continue
            copy_vector(here.q, out_q[i])
            copy_stack(here.rotations, out_rotations[i])
            copy_stack(here.T, out_T[i])
            copy_matrix(G, out_G[i])
        rates_at(topology, geometry, block, here, factor, tangent, speeds[i], accelerations[i], out_q_dot[i],
                 out_q_ddot[i], out_V[i], out_A[i])
        if mode == RECORD:
            curvature_here(topology, geometry, block, here, factor, G, last_step, trial, curvature, curved,
                           speeds[i], accelerations[i], out_q_ddot[i])
        i += 1
    if mode == RECORD:
        diagnostics[REACHED] = i
    return i, status


@internal_kernel
def close_here(topology, geometry, block, here, factor, G, new_G, params, result):
    """Close ``here`` in place by Newton from where it is (the driven values held), then factorize
    and set ``G``; returns the corrector's status (``result``: its error, iterations, ...)."""
    factor.info[VALID] = 0.0
    status = corrector(topology, geometry, block, here, factor, params[TOLERANCE], int(params[ITERATION_LIMIT]) * 5,
                       params[NEWTON_STEP_LIMIT], bool(False),
                       result, 1.0)
    if status == CONVERGED:
        previous = here.scratch.variables[3]
        copy_vector(here.q, previous)
        seat_spherical(topology, here, previous)
        configure(topology, geometry, here)
        new_G[:, :] = 0.0
        tangent_at(topology, geometry, block, here, factor, G, new_G, params[SINGULAR_RCOND], int(params[TANGENTS]))
    return status


@internal_kernel(forceinline=True)
def _factorized_at(topology, geometry, block, work, factor, q, rotations, singular_rcond):
    """``work`` evaluated at the closed position ``q`` (n,), ``rotations`` (m, 3, 3) and its block
    factorized into ``factor`` (unusable below ``singular_rcond``)."""
    copy_vector(q, work.q)
    copy_stack(rotations, work.rotations)
    configure(topology, geometry, work)
    factorize_block(topology, geometry, block, work, factor)
    if factor.info[CONDITIONING] < singular_rcond or factor.info[BAND_OVERFLOW] != 0.0:
        factor.info[VALID] = 0.0
