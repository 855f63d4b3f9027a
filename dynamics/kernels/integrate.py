"""Embedded Runge-Kutta integration of ``M(u) u'' = f(u, u', t)``, compiled, loops closed at every stage.

The state is ``y = (u, u', W_dissipated, W_external, W_driver)``: the independent
coordinates and their rates, and three work integrals for the energy bookkeeping. Every
stage of a step evaluates :func:`dynamics.kernels.motion.rhs`, which closes the loops at
the stage's coordinates along the branch, predicted from the *anchor* of the base state
(the last accepted state whose block was well conditioned: :mod:`dynamics.motion`); the
dependent pair variables are never integrated, so nothing drifts off the closure. A stage
whose closure fails the branch guard rejects the step, which is retried four times
shorter; a stage next to a singular position of the closure is evaluated on the branch's
Taylor model (:mod:`dynamics.kernels.motion`), so steps pass such positions.

Methods (the tableaus come from scipy, :mod:`dynamics.integrate`): ``DOP853`` (Dormand and
Prince's 8(5,3) pair, its error estimate and 7th-order dense output, as scipy's) and
``RK45`` (Dormand-Prince 5(4), 4th-order dense output). Step size control is scipy's:
``h *= min(10, 0.9 err^(-1/(q+1)))`` after an accepted step (no growth right after a
rejection), ``h *= max(0.2, 0.9 err^(-1/(q+1)))`` after a rejected one, with the error
measured against ``atol + rtol max(|y|, |y_new|)``.

:func:`integrate` runs accepted steps until ``t_end``, or returns early for its caller to
act: a step budget spent (Ctrl-C, progress), the output buffer full, the partition of
coordinates in need of a switch, a stop.
"""

from __future__ import annotations

import math

import numpy as np

from ._compile import inline_kernel, internal_kernel, kernel
from loops.kernels.arrays import copy_matrix, copy_stack, copy_vector
from loops.kernels.newton import copy_evaluated, copy_factor
from loops.kernels.state import VALID

from .motion import NO_INERTIA, OK, curvature_at, rhs
from .state import (ATOL, CLOSURE_FAILURES, DEAD_POINT_THRESHOLD, DOP853_KIND, LONGEST_STEP, NEXT_SAMPLE, REJECTED,
                    REJECTIONS, RHS_CALLS, RTOL, SHORTEST_STEP, STEP, STEP_BUDGET, STEPS, STORED, SWITCH_THRESHOLD,
                    T_END)

__all__ = ["DONE", "BUDGET", "FULL", "SWITCH", "STOPPED", "DEAD_POINT", "MASS_SINGULAR", "integrate",
           "evaluate_at", "renew_anchor", "copy_state", "record", "partition_health"]

DONE, BUDGET, FULL, SWITCH, STOPPED, DEAD_POINT, MASS_SINGULAR = 0, 1, 2, 3, 4, 5, 6


@internal_kernel
def copy_state(work, factor, G, target_work, target_factor, target_G):
    """Copy a closed state (its ``work``, ``factor`` and the transmission ``G`` its dynamics
    found) into the target's."""
    copy_evaluated(work, target_work)
    copy_factor(factor, target_factor)
    copy_matrix(G, target_G)


@internal_kernel
def renew_anchor(topology, geometry, block, work, factor, G, anchor, rows):
    """Make a new base state (``work``, ``factor``, ``G``) its own anchor (with its curvature)
    where its factorization is usable: the right-hand side marks it unusable below
    ``loops.continuation.TRUSTED_CONDITIONING`` (where ``G`` has errors ~ eps / rcond and the
    curvature ~ eps / rcond^2, two solves deep); elsewhere it keeps the anchor it had.
    ``anchor``: ``(q, rotations, G, curvature)``; ``rows``: scratch of
    :func:`dynamics.kernels.motion.curvature_at`."""
    if factor.info[VALID] != 0.0:
        anchor_q, anchor_rotations, anchor_G, curvature = anchor
        copy_vector(work.q, anchor_q)
        copy_stack(work.rotations, anchor_rotations)
        copy_matrix(G, anchor_G)
        curvature_at(topology, geometry, block, work, factor, G, curvature, rows)


@kernel
def evaluate_at(model, anchor, work, factor, kin, t, y, dy):
    """``dy = F(t, y)`` closing from ``anchor`` (``(q, rotations, G, curvature)`` of the base
    state) into the stage ``work``, ``factor``, ``kin`` (a counted call of the right-hand side).

    The kernels here take the parts of the states they use, taken out of the named tuples once
    per call of :func:`integrate`: numba passes every field of a named tuple as an argument of
    its own and copies the whole tuple at each use, which made up most of the compile time."""
    anchor_q, anchor_rotations, anchor_G, curvature = anchor
    return rhs(model.topology, model.geometry, model.block, model.inertia, model.loads, anchor_q, anchor_rotations,
               anchor_G, curvature, work, factor, kin, t, y, model.m, model.params, dy)


@inline_kernel
def _attempt(model, tableau, anchor, stage_work, stage_factor, stage_kin, end_work, end_factor, end_kin, t, y, f, h, K,
             y_new, f_new, ys, counters):
    """One step of the tableau from ``(t, y, f)``, the stages closed into ``stage_*``; ``end_*``
    holds the closed state at ``t + h`` (``ys`` (N,) scratch).

    The stages and the end go through one call of :func:`evaluate_at` (the end is the last
    stage, with the weights ``B``): each call site of that large kernel costs about a second
    of compiling."""
    stages = tableau.stages
    n = y.shape[0]
    copy_vector(f, K[0])
    status = OK
    for s in range(1, stages + 1):
        end = s == stages
        weights = tableau.B if end else tableau.A[s]
        point = y_new if end else ys
        for i in range(n):
            acc = 0.0
            for j in range(s):
                acc += weights[j] * K[j, i]
            point[i] = y[i] + h * acc
        counters[RHS_CALLS] += 1
        work, factor, kin = (end_work, end_factor, end_kin) if end else (stage_work, stage_factor, stage_kin)
        status = evaluate_at(model, anchor, work, factor, kin, t + (h if end else tableau.C[s] * h), point, K[s])
        if status != OK:
            return status
    copy_vector(K[stages], f_new)
    return status


@internal_kernel
def _error_norm(tableau, K, y, y_new, h, rtol, atol):
    n = y.shape[0]
    rows = K.shape[0]
    if tableau.kind == DOP853_KIND:
        e5 = 0.0
        e3 = 0.0
        for i in range(n):
            a = 0.0
            b = 0.0
            for j in range(rows):
                a += K[j, i] * tableau.E5[j]
                b += K[j, i] * tableau.E3[j]
            scale = atol + max(abs(y[i]), abs(y_new[i])) * rtol
            e5 += (a / scale) ** 2
            e3 += (b / scale) ** 2
        if e5 == 0.0 and e3 == 0.0:
            return 0.0
        return abs(h) * e5 / math.sqrt((e5 + 0.01 * e3) * n)
    total = 0.0
    for i in range(n):
        a = 0.0
        for j in range(rows):
            a += K[j, i] * tableau.E5[j]
        total += (h * a / (atol + max(abs(y[i]), abs(y_new[i])) * rtol)) ** 2
    return math.sqrt(total / n)


@inline_kernel
def _dense_coefficients(model, tableau, anchor, work, factor, kin, t, y, y_new, f, f_new, h, K, KX, F, ys, counters):
    """Coefficients ``F`` of the dense output over the step just accepted (DOP853: three more
    stages, closed into ``work``, ``factor``, ``kin``; RK45: the ``P`` matrix). Returns the
    status of the extra stages."""
    n = y.shape[0]
    if tableau.kind == DOP853_KIND:
        rows = K.shape[0]
        copy_matrix(K, KX[:rows])
        for e in range(tableau.A_EXTRA.shape[0]):
            s = rows + e
            for i in range(n):
                acc = 0.0
                for j in range(s):
                    acc += tableau.A_EXTRA[e, j] * KX[j, i]
                ys[i] = y[i] + h * acc
            counters[RHS_CALLS] += 1
            status = evaluate_at(model, anchor, work, factor, kin, t + tableau.C_EXTRA[e] * h, ys, KX[s])
            if status != OK:
                return status
        for i in range(n):
            delta = y_new[i] - y[i]
            F[0, i] = delta
            F[1, i] = h * f[i] - delta
            F[2, i] = 2.0 * delta - h * (f_new[i] + f[i])
        for r in range(tableau.D.shape[0]):
            for i in range(n):
                acc = 0.0
                for j in range(KX.shape[0]):
                    acc += tableau.D[r, j] * KX[j, i]
                F[3 + r, i] = h * acc
        return OK
    for r in range(tableau.D.shape[1]):
        for i in range(n):
            acc = 0.0
            for j in range(K.shape[0]):
                acc += K[j, i] * tableau.D[j, r]
            F[r, i] = acc
    return OK


@internal_kernel
def _dense_value(tableau, F, y, h, x, out):
    """``y(t_old + x h)`` from the dense-output coefficients."""
    n = y.shape[0]
    if tableau.kind == DOP853_KIND:
        out[:] = 0.0
        powers = F.shape[0]
        for k in range(powers):
            f = F[powers - 1 - k]
            factor = x if k % 2 == 0 else 1.0 - x
            for i in range(n):
                out[i] = (out[i] + f[i]) * factor
        for i in range(n):
            out[i] += y[i]
        return
    for i in range(n):
        acc = 0.0
        p = x
        for r in range(F.shape[0]):
            acc += F[r, i] * p
            p *= x
        out[i] = y[i] + h * acc


@kernel
def record(driven, m, work, kin, t, y, out, row):
    """Store the closed state ``work`` with its dynamics ``kin`` as sample ``row`` (``driven``:
    the block's driven columns, the first ``m`` independent)."""
    out.t[row] = t
    copy_vector(work.q, out.q[row])
    copy_stack(work.rotations, out.rotations[row])
    copy_vector(kin.q_dot, out.q_dot[row])
    copy_vector(kin.q_ddot, out.q_ddot[row])
    copy_stack(work.T, out.T[row])
    copy_matrix(kin.V, out.V[row])
    copy_matrix(kin.A, out.A[row])
    out.work[row, 0] = y[2 * m]
    out.work[row, 1] = y[2 * m + 1]
    out.work[row, 2] = y[2 * m + 2]
    out.drive[row, :] = 0.0
    for k in range(m, driven.shape[0]):
        out.drive[row, driven[k]] = kin.efforts[k]


@internal_kernel
def partition_health(block, G, m, switch_ratio, dead_ratio):
    """0 when the coordinates are fine, 1 when an independent one should be switched (a dependent
    variable moves more than ``switch_ratio`` times faster, scaled), 2 at a dead point of a
    prescribed motion (ratio above ``dead_ratio``)."""
    worst_free, worst_prescribed = 0.0, 0.0
    for col in block.free:
        for a in range(block.driven.shape[0]):
            value = abs(G[col, a]) * block.column_scale[block.driven[a]] / block.column_scale[col]
            if a < m:
                worst_free = max(worst_free, value)
            else:
                worst_prescribed = max(worst_prescribed, value)
    if worst_prescribed > dead_ratio:
        return 2
    if m and worst_free > switch_ratio:
        return 1
    return 0


@kernel
def integrate(model, tableau, base, stage, end, t_state, y, f, samples, out, control, counters, scratch):
    """Accepted steps from ``(t_state[0], y, f)`` towards ``control[T_END]``.

    ``control`` and ``counters``: the vectors of :mod:`.state` (the first call's ``control[STEP]``
    is the first step, :func:`dynamics.integrate.initial_step`). ``samples`` (S,): the times to
    store (empty: every accepted step) into ``out`` (:class:`dynamics.simulation_result.Samples`,
    room for every sample when given, else at least one: FULL when full). ``scratch``: the
    stages' arrays (:class:`dynamics.integrate.IntegratorScratch`). ``base``: the closed state
    at ``t_state[0]`` with its curvature. Returns DONE, BUDGET, FULL, SWITCH, STOPPED,
    DEAD_POINT or MASS_SINGULAR; ``t_state``, ``y``, ``f``, ``base``, ``control[STEP]`` are left
    at the last accepted step.
    """
    # The parts of the states, taken out of their named tuples once (see evaluate_at).
    base_work, base_factor, base_G, base_kin = base.work, base.factor, base.G, base.kin
    anchor = (base.anchor_q, base.anchor_rotations, base.anchor_G, base.curvature)
    stage_work, stage_factor, stage_kin = stage.work, stage.factor, stage.kin
    end_work, end_factor, end_kin = end.work, end.factor, end.kin
    driven, m = model.block.driven, model.m
    t = t_state[0]
    t_end, rtol, atol, max_step = control[T_END], control[RTOL], control[ATOL], control[LONGEST_STEP]
    h, budget = control[STEP], int(control[STEP_BUDGET])
    rejected = control[REJECTED] != 0.0
    K, KX, F = scratch.K, scratch.KX, scratch.F
    y_new, f_new, ys, dummy = scratch.vectors[0], scratch.vectors[1], scratch.vectors[2], scratch.vectors[3]
    exponent = -1.0 / (tableau.error_order + 1)
    taken = 0
    capacity = out.t.shape[0]
    every_step = samples.shape[0] == 0
    status = DONE
    while t < t_end:
        if taken >= budget or (every_step and int(counters[STORED]) >= capacity):
            status = BUDGET if taken >= budget else FULL
            break
        h = min(h, max_step, t_end - t)
        if t + h > t_end - 1e-12 * max(abs(t_end), 1.0):
            h = t_end - t
        outcome = _attempt(model, tableau, anchor, stage_work, stage_factor, stage_kin, end_work, end_factor, end_kin,
                           t, y, f, h, K, y_new, f_new, ys, counters)
        if outcome == NO_INERTIA:
            control[STEP] = h
            return MASS_SINGULAR
        error = _error_norm(tableau, K, y, y_new, h, rtol, atol) if outcome == OK else np.nan
        if outcome != OK or not (error < 1.0):
            h = _shorter(counters, h, outcome != OK, error, exponent)
            rejected = True
            if h < control[SHORTEST_STEP]:
                control[STEP] = h
                return STOPPED
            continue
        counters[CLOSURE_FAILURES] = 0
        if every_step:
            record(driven, m, end_work, end_kin, t + h, y_new, out, int(counters[STORED]))
            counters[STORED] += 1
        elif _store_samples(model, tableau, anchor, stage_work, stage_factor, stage_kin, end_work, end_kin, driven, m,
                            t, h, y, y_new, f, f_new, K, KX, F, ys, dummy, samples, out, counters) != OK:
            # A sample inside the step could not be closed: retry the step shorter (the
            # samples it stored are taken again).
            counters[REJECTIONS] += 1
            h *= 0.25
            rejected = True
            continue
        # Accept: the closed state at t + h becomes the base.
        t = t + h
        _accept(model, y_new, f_new, end_work, end_factor, end_kin, y, f, base_work, base_factor, base_G, base_kin,
                anchor)
        counters[STEPS] += 1
        taken += 1
        factor = 10.0 if error == 0.0 else min(10.0, 0.9 * error ** exponent)
        h *= min(1.0, factor) if rejected else factor
        rejected = False
        t_state[0] = t
        health = partition_health(model.block, base_G, m, control[SWITCH_THRESHOLD], control[DEAD_POINT_THRESHOLD])
        if health != 0:
            control[STEP] = h
            if health == 1:
                control[REJECTED] = 0.0
            return DEAD_POINT if health == 2 else SWITCH
    control[STEP] = h
    control[REJECTED] = 1.0 if rejected else 0.0
    return status


@inline_kernel
def _shorter(counters, h, failed, error, exponent):
    """The next step after a rejected one of ``h``: a quarter when the loops would not close on
    the branch (``failed``: or a stage fell on a singular position), else scipy's factor for
    the ``error``; counts the rejection."""
    counters[REJECTIONS] += 1
    if failed:
        counters[CLOSURE_FAILURES] += 1
        return h * 0.25
    return h * (0.2 if not np.isfinite(error) else max(0.2, 0.9 * error ** exponent))


@inline_kernel
def _accept(model, y_new, f_new, end_work, end_factor, end_kin, y, f, base_work, base_factor, base_G, base_kin, anchor):
    """The closed state at the end of an accepted step becomes the base (its own anchor where
    its factorization is usable: :func:`renew_anchor`)."""
    copy_vector(y_new, y)
    copy_vector(f_new, f)
    copy_state(end_work, end_factor, end_kin.G, base_work, base_factor, base_G)
    renew_anchor(model.topology, model.geometry, model.block, base_work, base_factor, base_G, anchor,
                 base_kin.scratch.branch)


@inline_kernel
def _store_samples(model, tableau, anchor, stage_work, stage_factor, stage_kin, end_work, end_kin, driven, m, t, h, y,
                   y_new, f, f_new, K, KX, F, ys, dummy, samples, out, counters):
    """Store the samples that fall in the step just taken from ``t`` to ``t + h``: the end state
    at its own time, the others closed at the dense output's values. Returns OK, or the status
    of the first that cannot be closed, the samples counters put back as before the step."""
    have_dense = False
    first_sample, first_row = counters[NEXT_SAMPLE], counters[STORED]
    status = OK
    while counters[NEXT_SAMPLE] < samples.shape[0] and samples[int(counters[NEXT_SAMPLE])] <= t + h:
        ts = samples[int(counters[NEXT_SAMPLE])]
        if ts == t + h:
            record(driven, m, end_work, end_kin, ts, y_new, out, int(counters[STORED]))
        else:
            if not have_dense:
                status = _dense_coefficients(model, tableau, anchor, stage_work, stage_factor, stage_kin, t,
                                             y, y_new, f, f_new, h, K, KX, F, ys, counters)
                if status != OK:
                    break
                have_dense = True
            _dense_value(tableau, F, y, h, (ts - t) / h, ys)
            counters[RHS_CALLS] += 1
            status = evaluate_at(model, anchor, stage_work, stage_factor, stage_kin, ts, ys, dummy)
            if status != OK:
                break
            record(driven, m, stage_work, stage_kin, ts, ys, out, int(counters[STORED]))
        counters[NEXT_SAMPLE] += 1
        counters[STORED] += 1
    if status != OK:
        counters[NEXT_SAMPLE] = first_sample
        counters[STORED] = first_row
    return status
