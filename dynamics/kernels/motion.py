"""The dynamics at one state, compiled: close the loops, then ``M(u) u'' = f(u, u', t)``.

The driven coordinates ``d = (u, p)`` are the independent coordinates ``u`` and the
prescribed (rheonomic) ones ``p(t)``; every other pair variable follows from the closure.

* :func:`close_stage` closes the loops at given driven values from the *anchor* (the last
  accepted state whose block was well conditioned, :mod:`dynamics.motion`): the
  second-order prediction ``q = q_a + G_a Dd + 1/2 kappa(Dd, Dd)`` along the branch
  (spherical pairs advanced as rotations), then Newton (eq. 3) with the driven values held,
  accepted only when the correction is small against the predicted motion (the branch
  guard of :mod:`loops.kernels.continuation`).
* Next to a singular position of the closure (a parallelogram chain folding flat: the
  square block's reciprocal condition below ``loops.continuation.TRUSTED_CONDITIONING``)
  the solves for the transmission and the accelerations lose their digits (errors grow
  like the condition number, and like its square for the curvature). There a stage's
  transmission ``G = G_a + kappa Dd`` and accelerations ``q'' = G d'' + kappa(d', d')``
  come from the branch's Taylor model at the anchor (DESIGN.md: the incoming tangent
  decides), and the stage is not refused: the integrator steps through such a position
  instead of creeping towards it. Such a stage's factorization is marked unusable, so it
  never becomes the anchor: neither a prediction nor a tangent comes from an
  ill-conditioned solve.
* :func:`curvature_at` gives ``kappa = d^2 q / dd_s dd_t`` at a closed state (the closure
  differentiated twice at unit rates, polarized).
* :func:`dynamics_at` evaluates, at a closed state with its transmission matrix ``G``: the
  link Jacobians ``V_i^(s)`` (partial twists, along the tree), the rates, the bias
  accelerations (eq. 4 differentiated, prescribed accelerations included), the mass matrix
  and velocity terms by the trace form (:mod:`.trace`, eq. 7) or Kane's form (:mod:`.kane`),
  the applied loads (:mod:`loops.kernels.loads`) and the independent accelerations.
* :func:`rhs` is ``y' = F(t, y)`` for ``y = (u, u', W_dissipated, W_external, W_driver)``.
"""

from __future__ import annotations

import numpy as np

from ._compile import allocating_kernel, inline_kernel, internal_kernel, kernel
from loops.kernels.arrays import copy_matrix, copy_stack, copy_vector
from loops.kernels.acceleration import bias_rhs, link_accelerations, velocity_product_terms
from loops.kernels.closure import configure
from loops.kernels.linear import factorize_block
from loops.kernels.continuation import on_branch, tangent_at
from loops.kernels.loads import applied_loads, load_values
from loops.kernels.newton import CONVERGED, apply_step, corrector, seat_spherical
from loops.kernels.state import (BRANCH_RATIO, CONDITIONING, CORRECTION, ITERATION_LIMIT, NEWTON_STEP_LIMIT, TOLERANCE,
                                 TRUSTED_CONDITIONING, VALID)
from loops.kernels.tree import tree_twists
from loops.kernels.velocity import link_velocities, solve_with_drivers

from .kane import newton_euler_terms
from .trace import trace_terms

__all__ = ["OK", "CLOSURE_FAILED", "SINGULAR", "NO_INERTIA", "close_stage", "curvature_at", "dynamics_at",
           "rhs", "solve_dense", "efforts_at_positions"]

OK, CLOSURE_FAILED, SINGULAR, NO_INERTIA = 0, 1, 2, 3



@internal_kernel
def solve_dense(M, b, x):
    """``x = M^-1 b`` for a small dense ``M`` (Gaussian elimination, partial pivoting; ``M`` is
    overwritten); False when a pivot vanishes (below 1e-13 of the largest diagonal entry)."""
    n = b.shape[0]
    copy_vector(b, x)
    size = 0.0
    for i in range(n):
        size = max(size, abs(M[i, i]))
    if n == 0:
        return True
    if size == 0.0:
        return False
    for j in range(n):
        p = j
        for i in range(j + 1, n):
            if abs(M[i, j]) > abs(M[p, j]):
                p = i
        if abs(M[p, j]) <= 1e-13 * size:
            return False
        if p != j:
            for c in range(n):
                M[j, c], M[p, c] = M[p, c], M[j, c]
            x[j], x[p] = x[p], x[j]
        for i in range(j + 1, n):
            f = M[i, j] / M[j, j]
            for c in range(j, n):
                M[i, c] -= f * M[j, c]
            x[i] -= f * x[j]
    for j in range(n - 1, -1, -1):
        s = x[j]
        for c in range(j + 1, n):
            s -= M[j, c] * x[c]
        x[j] = s / M[j, j]
    return True


@inline_kernel
def close_stage(topology, geometry, block, anchor_q, anchor_rotations, anchor_G, curvature, target, stage,
                stage_factor, params, result):
    """Close the loops with the driven columns at ``target`` (d,), predicted from the anchor.

    ``params`` as in :mod:`loops.kernels.continuation`; ``result`` receives the corrector's
    ``[error, iterations, correction, factorizations]``. True when closed on the branch (the
    correction guard of the walk, :func:`loops.kernels.continuation.on_branch`, with the
    noise of the closure at the block's conditioning).

    The walk also compares the block's orientation across a step; a stage does not: at a
    singular position on the branch itself (a change point with curved branches) the
    orientation flips, and refusing those stages until the last accepted state comes
    within ``TRUSTED_CONDITIONING`` of the singular position costs steps and accuracy
    (measured on change-point four-bars: energy drift up to 6.5 J instead of 5.5e-3 J).
    """
    tolerance, ratio = params[TOLERANCE], params[BRANCH_RATIO]
    driven = block.driven
    d = driven.shape[0]
    n = topology.n
    delta = stage.scratch.variables[2][:d]
    for k in range(d):
        delta[k] = target[k] - anchor_q[driven[k]]
    step = stage.scratch.variables[3]
    motion = 0.0
    for col in range(n):
        s = 0.0
        for a in range(d):
            s += anchor_G[col, a] * delta[a]
            for b in range(d):
                s += 0.5 * curvature[col, a, b] * delta[a] * delta[b]
        step[col] = s
        motion = max(motion, abs(s) / block.column_scale[col])
    copy_vector(anchor_q, stage.q)
    copy_stack(anchor_rotations, stage.rotations)
    apply_step(topology, stage, step, 1.0)
    for k in range(d):
        stage.q[driven[k]] = target[k]
    # A fresh factorization at the prediction: Newton converges quadratically from there, in
    # one or two steps, where a chord from the base would take several evaluations.
    stage_factor.info[VALID] = 0.0
    status = corrector(topology, geometry, block, stage, stage_factor, tolerance, int(params[ITERATION_LIMIT]),
                       params[NEWTON_STEP_LIMIT], bool(False),
                       result, 1.0)
    if status != CONVERGED or not on_branch(result[CORRECTION], motion, ratio, tolerance,
                                            stage_factor.info[CONDITIONING]):
        return False
    seat_spherical(topology, stage, anchor_q)
    return True


@internal_kernel
def _bias(topology, geometry, block, work, factor, q_dot, driven_accelerations, terms, V, q_ddot):
    """``q''`` (n,) for the rates ``q_dot`` and driven accelerations (eq. 4 differentiated)."""
    link_velocities(topology, work.xi, q_dot, V)
    velocity_product_terms(topology, work.q, q_dot, work.W, work.xi, V, terms, work.scratch.v6[1:4])
    rows = work.scratch.equations[0][:work.defects.shape[0]]
    bias_rhs(topology, geometry, work, V, terms, rows)
    for r in range(rows.shape[0]):
        rows[r] = -rows[r]
    solve_with_drivers(block, factor, rows, driven_accelerations, q_ddot, work.scratch.equations[1])


@internal_kernel
def _branch_bias(topology, work, G, curvature, q_dot, rates, driven_accelerations, terms, V, q_ddot):
    """``q''`` (n,) at a position next to a singular one, from the branch's Taylor model:
    ``q'' = G d'' + kappa(d', d')`` with the curvature ``kappa`` (n, d, d) of the branch and the
    driven rates ``rates`` and accelerations (d,); link velocities ``V`` and velocity-product
    ``terms`` as :func:`_bias` leaves them."""
    link_velocities(topology, work.xi, q_dot, V)
    velocity_product_terms(topology, work.q, q_dot, work.W, work.xi, V, terms, work.scratch.v6[1:4])
    d = G.shape[1]
    for col in range(topology.n):
        value = 0.0
        for a in range(d):
            value += G[col, a] * driven_accelerations[a]
            for b in range(d):
                value += curvature[col, a, b] * rates[a] * rates[b]
        q_ddot[col] = value


@kernel
def curvature_at(topology, geometry, block, work, factor, G, curvature, rows):
    """``kappa[:, s, t] = d^2 q / dd_s dd_t`` (n, d, d) at a closed, factorized state: the closure
    differentiated twice at unit rates ``e_s`` (and ``e_s + e_t``, polarized). ``rows``
    (d + 2, n): scratch (``DynamicScratch.branch``)."""
    n, d = topology.n, G.shape[1]
    curvature[:, :, :] = 0.0
    if factor.info[VALID] == 0.0:
        return
    q_dot = work.scratch.variables[2]
    zero = rows[d + 1][:d]
    zero[:] = 0.0
    terms = work.scratch.terms
    V = work.scratch.links[1]
    pure = rows[:d]
    mixed = rows[d]
    for s in range(d):
        for col in range(n):
            q_dot[col] = G[col, s]
        _bias(topology, geometry, block, work, factor, q_dot, zero, terms, V, pure[s])
        for col in range(n):
            curvature[col, s, s] = pure[s, col]
    for s in range(d):
        for t in range(s + 1, d):
            for col in range(n):
                q_dot[col] = G[col, s] + G[col, t]
            _bias(topology, geometry, block, work, factor, q_dot, zero, terms, V, mixed)
            for col in range(n):
                value = 0.5 * (mixed[col] - pure[s, col] - pure[t, col])
                curvature[col, s, t] = value
                curvature[col, t, s] = value


@internal_kernel
def dynamics_at(topology, geometry, block, inertia, loads, work, factor, G, rates, prescribed_accelerations, m,
                kin, curvature):
    """Everything at a closed state with its transmission ``G`` (n, d) and driven ``rates`` (d,).

    With ``factor`` unusable (a position next to a singular one) the accelerations come from
    the branch ``curvature`` (n, d, d) instead of a solve (:func:`_branch_bias`); pass an
    empty (0, 0, 0) array where there is no branch to follow.

    Fills ``kin`` (see :class:`dynamics.motion.Kinematics`): ``jacobians`` (L, d, 6),
    ``q_dot``, ``q_ddot`` (n,) (at the independent accelerations found), ``V``, ``A`` (L, 6),
    ``M`` (d, d), ``h``, ``Q`` (d,), ``pair_forces`` (n,), ``wrenches`` (L, 6), ``powers``
    ``[dissipated, external, driver]``, ``accelerations`` (m,) and ``efforts`` (d,) (the
    generalized forces the drivers add: zero on the independent rows, the prescribed drivers'
    forces on the others). The load values must be in ``kin`` already. Returns OK, SINGULAR
    (the closure's block cannot be solved here) or NO_INERTIA (a singular mass matrix).
    """
    on_branch = factor.info[VALID] == 0.0
    if on_branch and curvature.shape[0] != topology.n:
        return SINGULAR
    n, d = topology.n, G.shape[1]
    jac = kin.jacobians
    for s in range(d):  # the partial velocities along each driven coordinate
        tree_twists(topology, work.xi, G[:, s], None, jac[:, s])
    for col in range(n):
        v = 0.0
        for s in range(d):
            v += G[col, s] * rates[s]
        kin.q_dot[col] = v
    scratch = kin.scratch
    driven_accelerations = scratch.d[0]
    driven_accelerations[:] = 0.0
    for k in range(d - m):
        driven_accelerations[m + k] = prescribed_accelerations[k]
    terms = work.scratch.terms
    bias = scratch.bias
    if on_branch:
        _branch_bias(topology, work, G, curvature, kin.q_dot, rates, driven_accelerations, terms, kin.V, bias)
    else:
        _bias(topology, geometry, block, work, factor, kin.q_dot, driven_accelerations, terms, kin.V, bias)
    link_accelerations(topology, work.xi, bias, terms, kin.A)
    gravity_forces = scratch.d[1]
    if inertia.method == 0:
        trace_terms(work.T, jac, kin.V, kin.A, inertia.J, inertia.gravity, inertia.massive, kin.M, kin.h,
                    gravity_forces, scratch.m4, scratch.partial, scratch.products)
    else:
        newton_euler_terms(work.T, jac, kin.V, kin.A, inertia.masses, inertia.coms, inertia.inertias,
                           inertia.gravity, inertia.massive, kin.M, kin.h, gravity_forces, scratch.v3, scratch.m3,
                           scratch.vG)
    powers = scratch.powers
    applied_loads(loads, work.q, kin.q_dot, work.T, kin.V, kin.pair_values, kin.point_values, kin.pair_forces,
                  kin.wrenches, powers, scratch.v3)
    _generalized_forces(topology, G, jac, gravity_forces, kin)
    if m:
        Muu = scratch.matrix[:m, :m]
        copy_matrix(kin.M[:m, :m], Muu)
        f = scratch.d[3][:m]
        for s in range(m):
            f[s] = kin.Q[s] - kin.h[s]
        if not solve_dense(Muu, f, kin.accelerations):
            return NO_INERTIA
    driver_power = 0.0
    for s in range(d):
        value = kin.h[s] - kin.Q[s]
        for a in range(m):
            value += kin.M[s, a] * kin.accelerations[a]
        kin.efforts[s] = value if s >= m else 0.0
        if s >= m:
            driver_power += value * rates[s]
    _add_independent_accelerations(topology, G, jac, bias, m, kin)
    kin.powers[0] = powers[0]
    kin.powers[1] = powers[1]
    kin.powers[2] = driver_power
    return OK


@internal_kernel(forceinline=True)
def _generalized_forces(topology, G, jac, gravity_forces, kin):
    """``kin.Q`` (d,): the generalized forces along each driven coordinate, gravity's
    (``gravity_forces``) plus the link wrenches through the partial velocities ``jac`` and the
    pair forces through the transmission ``G``."""
    for s in range(G.shape[1]):
        value = gravity_forces[s]
        for i in range(topology.links):
            for r in range(6):
                value += jac[i, s, r] * kin.wrenches[i, r]
        for col in range(topology.n):
            value += G[col, s] * kin.pair_forces[col]
        kin.Q[s] = value


@internal_kernel(forceinline=True)
def _add_independent_accelerations(topology, G, jac, bias, m, kin):
    """``kin.q_ddot`` (n,) and ``kin.A`` (L, 6) at the independent accelerations found
    (``kin.accelerations`` (m,)): the bias part plus the transmission's (``G``, ``jac``)."""
    for col in range(topology.n):
        value = bias[col]
        for a in range(m):
            value += G[col, a] * kin.accelerations[a]
        kin.q_ddot[col] = value
    for i in range(topology.links):
        for a in range(m):
            for r in range(6):
                kin.A[i, r] += jac[i, a, r] * kin.accelerations[a]


@inline_kernel
def rhs(topology, geometry, block, inertia, loads, anchor_q, anchor_rotations, anchor_G, curvature, stage,
        stage_factor, kin, t, y, m, params, dy):
    """``dy = F(t, y)`` for ``y = (u (m), u' (m), three work integrals)``; ``stage``,
    ``stage_factor`` and ``kin`` hold the closed state and its dynamics afterwards (the stage
    is predicted from the anchor, see :func:`close_stage`).

    Returns OK, CLOSURE_FAILED (the loops do not close on the branch from the base),
    SINGULAR or NO_INERTIA; ``dy`` is valid only with OK.
    """
    load_values(loads, t, kin.pair_values, kin.point_values, kin.prescribed)
    d = block.driven.shape[0]
    target = kin.scratch.d[4]
    rates = kin.scratch.d[5]
    for a in range(m):
        target[a] = y[a]
        rates[a] = y[m + a]
    for k in range(d - m):
        target[m + k] = kin.prescribed[k, 0]
        rates[m + k] = kin.prescribed[k, 1]
    result = kin.scratch.result
    if not close_stage(topology, geometry, block, anchor_q, anchor_rotations, anchor_G, curvature, target, stage,
                       stage_factor, params, result):
        return CLOSURE_FAILED
    if not tangent_at(topology, geometry, block, stage, stage_factor, kin.G, anchor_G, TRUSTED_CONDITIONING, d):
        # Next to a singular position: the tangent of the branch's Taylor model at the anchor.
        for col in range(topology.n):
            for a in range(d):
                value = anchor_G[col, a]
                for b in range(d):
                    value += curvature[col, a, b] * (target[b] - anchor_q[block.driven[b]])
                kin.G[col, a] = value
    prescribed_accelerations = kin.scratch.d[6][:d - m]
    for k in range(d - m):
        prescribed_accelerations[k] = kin.prescribed[k, 2]
    status = dynamics_at(topology, geometry, block, inertia, loads, stage, stage_factor, kin.G, rates,
                         prescribed_accelerations, m, kin, curvature)
    if status != OK:
        return status
    for a in range(m):
        dy[a] = y[m + a]
        dy[m + a] = kin.accelerations[a]
    dy[2 * m] = kin.powers[0]
    dy[2 * m + 1] = kin.powers[1]
    dy[2 * m + 2] = kin.powers[2]
    for a in range(dy.shape[0]):
        if not np.isfinite(dy[a]):
            return SINGULAR
    return OK


@allocating_kernel
def efforts_at_positions(topology, geometry, block, inertia, loads, state, q, rotations, G, speeds, accelerations,
                         times, efforts):
    """Inverse dynamics at N closed positions: the generalized forces (N, d) the drivers must add
    for their ``speeds`` and ``accelerations`` (N, d) along the tangents ``G`` (N, n, d), loads at
    ``times`` (N,). Every driven coordinate is prescribed (``m = 0``). Returns the index of the
    first position that could not be evaluated (a singular position), or N."""
    work, factor, kin = state.work, state.factor, state.kin
    for i in range(q.shape[0]):
        copy_vector(q[i], work.q)  # loops, not slice assignments: no shape check (and its message) to compile
        copy_stack(rotations[i], work.rotations)
        configure(topology, geometry, work)
        factorize_block(topology, geometry, block, work, factor)
        copy_matrix(G[i], kin.G)
        load_values(loads, times[i], kin.pair_values, kin.point_values, kin.prescribed)
        # int(0), not 0: numba would compile dynamics_at once more for the literal.
        status = dynamics_at(topology, geometry, block, inertia, loads, work, factor, kin.G, speeds[i],
                             accelerations[i], int(0), kin, np.zeros((0, 0, 0)))
        if status != OK:
            return i
        efforts[i] = kin.efforts
    return q.shape[0]
