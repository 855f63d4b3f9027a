"""Statics, compiled: generalized forces by virtual work, the closure's multipliers, the reduced
stiffness, Newton on the reduced force and the equilibrium walk (METHOD.md (E1)-(E6), (E8)).

At a closed configuration whose square block has the driven columns ``D`` (the fixed ones:
drivers and held variables, then the ``k`` free coordinates ``u``) and the transmission
``G = dq/d(driven)`` (n, D) (eq. 4):

* the loads (:mod:`.loads`, gravity from :class:`~.state.Weights`; no damping) are link
  wrenches ``W_i`` and pair forces ``P``; by virtual work their generalized forces in the pair
  variables are ``Q = P + J^T W`` (the tree's Jacobian: variable c of the tree pair into
  link i carries ``sign xi_c . F_i``, ``F_i`` the sum of the wrenches on i's subtree), and in
  the driven columns ``g = G^T Q`` (E1);
* the closure's multipliers ``mu`` solve ``B_free^T mu = -Q_free`` (the transposed square
  block), and with them every pair's transmitted wrench ``Omega_p`` (E3): the subtree sum
  across a tree pair plus the chords' wrenches of the loops through it;
* the stiffness ``K = -dg/d(driven)`` (E4) is, column t at a time,
  ``K_st = -sum_c G_cs (xi_c,t . Omega_p + dP_c/dt + sign xi_c . dF_i/dt)`` with
  ``xi_c,t = [V_first^(t), xi_c] + Ad(W_p) S_c'`` the rate of variable c's twist along driven
  column t: the derivative of ``G`` (the closure's curvature, which the acceleration-level
  solve gives) enters through the multipliers only, ``dG_s/du_t . Q = mu . b(t, s)``, so no
  solve per pair of columns is needed; a point force's wrench moves with its point of
  application, a material point's velocity or, for a force on a circle, the rate of the
  circle's point farthest along its direction (E8), which makes ``K`` non-symmetric (LU solves
  throughout);
* :func:`settle` is Newton on the reduced force ``g_u = 0`` at fixed driven values (the
  loops closed again after every step by the corrector of :mod:`.newton`);
  :func:`.equilibrium_walk.walk_equilibria` continues the fixed values through targets,
  predicting along the equilibrium path ``du/dd = -K_uu^-1 K_ud``.
"""

from __future__ import annotations

import numpy as np

from ._compile import internal_kernel, kernel
from .arrays import copy_matrix, copy_stack, copy_vector
from .closure import configure
from .continuation import tangent_at
from .linear import band_solve_transposed, lu_factor, lu_solve
from .loads import applied_loads, application_point_rate
from .newton import CONVERGED, apply_step, corrector, seat_spherical
from .pairs import pair_twist_rate
from .points import point_position, point_velocity
from .rigid import lie_bracket, transform_twist, twist_power
from .rotations import cross, dexp_inverse, dexp_inverse_transposed_rate
from .state import (CHORD_KEPT, CORRECTED, FORCE_TOLERANCE, ITERATION_LIMIT, LOAD_SCALE, NEWTON_STEP_LIMIT, RESIDUAL,
                    SETTLE_ITERATIONS, SETTLE_STEP, SETTLED, SINGULAR_RCOND, TOLERANCE)
from .tree import tree_twists

__all__ = ["OK", "NOT_SETTLED", "NEUTRAL", "OPEN", "static_loads", "generalized_forces", "statics_here", "settle",
           "free_block", "close_held", "reset_to", "CHORD_CONTRACTION"]

#: Outcomes of :func:`settle` and :func:`walk_equilibria`: balanced; Newton did not balance the
#: forces; the free block of the stiffness is singular (a neutral equilibrium, or a fold of the
#: equilibrium path); the loops would not close.
OK, NOT_SETTLED, NEUTRAL, OPEN = 0, 1, 2, 3


@internal_kernel
def static_loads(topology, geometry, loads, weights, work, S):
    """The loads at the configuration ``work`` (closed, evaluated) without damping: link wrenches
    ``S.W`` (L, 6) (point forces, spring-dampers' springs, gravity at the centres of mass) and
    pair forces ``S.P`` (n,) (pair springs, pair forces, bushings), at the load values in
    ``S``; returns the load scale ``sum_i |f_i| L + sum_c |P_c| scale_c + sum_k |M_k|`` (free
    moments ``M_k``, E9) (N m: the size of the
    loads' generalized forces per unit dimensionless motion, rad or sizes, against which force
    balance is judged)."""
    powers = S.v6[0, :2]
    applied_loads(loads, work.q, S.zero_rates, work.T, S.zero_links, S.pair_values, S.point_values, S.P, S.W,
                  powers, S.v3[:8])
    centre, weight, moment = S.v3[8], S.v3[9], S.v3[10]
    for i in weights.massive:
        point_position(work.T[i], weights.coms[i], centre)
        for r in range(3):
            weight[r] = weights.masses[i] * weights.gravity[r]
        cross(centre, weight, moment)
        for r in range(3):
            S.W[i, r] += moment[r]
            S.W[i, 3 + r] += weight[r]
    total = 0.0
    for i in range(topology.links):
        total += np.sqrt(S.W[i, 3] ** 2 + S.W[i, 4] ** 2 + S.W[i, 5] ** 2) * geometry.scale
    for col in range(topology.n):
        total += abs(S.P[col]) * (1.0 if topology.rotational[col] else geometry.scale)
    first = loads.point_links.shape[0]
    for k in range(loads.moment_links.shape[0]):  # no force: a free moment counts by itself
        moment = S.point_values[first + k]
        total += np.sqrt(moment[0] ** 2 + moment[1] ** 2 + moment[2] ** 2)
    return total


@internal_kernel(forceinline=True)
def _subtree_sums(topology, W, F):
    """``F_i = sum of W over link i's subtree`` (L, 6), children before parents."""
    copy_matrix(W, F)
    for index in range(topology.tree_order.shape[0] - 1, -1, -1):
        child = topology.tree_order[index]
        parent = topology.parent[child]
        for r in range(6):
            F[parent, r] += F[child, r]


@internal_kernel(forceinline=True)
def _tree_forces(topology, xi, P, F, Q):
    """``Q = P + J^T W`` (n,): the pair forces plus, in each tree pair's variables, the power of
    the subtree's wrenches ``F`` (L, 6) per unit rate (E1)."""
    copy_vector(P, Q)
    for child in topology.tree_order:
        p = topology.tree_pair[child]
        sign = topology.forward[child]
        for col in range(topology.start[p], topology.start[p] + topology.size[p]):
            Q[col] += sign * twist_power(xi[col], F[child])


@internal_kernel(forceinline=True)
def _reduce(G, Q, out):
    """``out = G^T Q`` (D,)."""
    for s in range(G.shape[1]):
        value = 0.0
        for col in range(G.shape[0]):
            value += G[col, s] * Q[col]
        out[s] = value


@internal_kernel
def generalized_forces(topology, geometry, loads, weights, work, G, S):
    """The loads' generalized forces ``S.Q`` (n,) and ``S.forces = G^T Q`` (D,) at ``work`` (E1);
    returns the load scale."""
    scale = static_loads(topology, geometry, loads, weights, work, S)
    _subtree_sums(topology, S.W, S.F)
    _tree_forces(topology, work.xi, S.P, S.F, S.Q)
    _reduce(G, S.Q, S.forces)
    return scale


@internal_kernel(forceinline=True)
def _multipliers(topology, block, factor, Q, mu, buffer):
    """``mu`` (rows,) with ``B_free^T mu = -Q_free`` on the chosen rows (zero on the others), by
    the transposed solve of the square block's factors: ``mu = R A^-T (C (-Q_free))`` with the
    block ``A = R B_free C`` dimensionless (E3)."""
    N = block.size
    b = buffer[:N]
    for col in block.free:
        b[block.column_position[col]] = -Q[col] * block.column_scale[col]
    band_solve_transposed(factor.band, N, block.kl, block.ku, factor.pivots, b)
    for r in range(block.row_position.shape[0]):
        rp = block.row_position[r]
        mu[r] = block.row_scale[r] * b[rp] if rp >= 0 else 0.0


@internal_kernel(forceinline=True)
def _pair_wrenches(topology, geometry, work, S):
    """Every pair's transmitted wrench ``S.Omega`` (P, 6), such that ``xi_c . Omega_p + P_c`` is
    the effort column c takes (zero on free columns, minus the driven effort on driven ones):
    across a tree pair the subtree's applied wrenches and the gauges' couples ``mu_g r_g`` on
    its links, plus, for every loop through the pair, its chord's wrench ``(mu_w + c x mu_v,
    mu_v)`` (the loop's multipliers, referred to the origin from the loop's centre ``c``) with
    the loop's sign (E3). ``S.F`` is overwritten with the subtree sums with the couples."""
    copy_matrix(S.W, S.F)
    base = 6 * topology.loops
    r = S.v3[11]
    for g in range(topology.gauges):
        dexp_inverse(work.swings[g], geometry.gauge_axis[g], True, r, S.v3[12:14])
        link = topology.gauge_link[g]
        for k in range(3):
            S.F[link, k] += S.mu[base + g] * r[k]
    for index in range(topology.tree_order.shape[0] - 1, -1, -1):
        child = topology.tree_order[index]
        parent = topology.parent[child]
        for k in range(6):
            S.F[parent, k] += S.F[child, k]
    S.Omega[:, :] = 0.0
    for child in topology.tree_order:
        p = topology.tree_pair[child]
        for k in range(6):
            S.Omega[p, k] = topology.forward[child] * S.F[child, k]
    chord = S.v6[1]
    for i in range(topology.loops):
        c = work.centres[i]
        mu = S.mu[6 * i:6 * i + 6]
        chord[0] = mu[0] + c[1] * mu[5] - c[2] * mu[4]
        chord[1] = mu[1] + c[2] * mu[3] - c[0] * mu[5]
        chord[2] = mu[2] + c[0] * mu[4] - c[1] * mu[3]
        for k in range(3):
            chord[3 + k] = mu[3 + k]
        for e in range(topology.loop_ptr[i], topology.loop_ptr[i + 1]):
            col = topology.loop_cols[e]
            p = topology.column_pair[col]
            if col == topology.start[p]:
                for k in range(6):
                    S.Omega[p, k] += topology.loop_signs[e] * chord[k]


@internal_kernel(forceinline=True)
def _load_rates(topology, loads, weights, work, S):
    """The loads' rates along the motion of link velocities ``S.V`` and variable rates ``S.rates``
    (no damping): wrenches ``S.dW`` (L, 6) and pair forces ``S.dP`` (n,) (E4)."""
    S.dW[:, :] = 0.0
    S.dP[:] = 0.0
    x, x_dot, f, m = S.v3[0], S.v3[1], S.v3[2], S.v3[3]
    for i in weights.massive:
        point_position(work.T[i], weights.coms[i], x)
        point_velocity(x, S.V[i], x_dot)
        for r in range(3):
            f[r] = weights.masses[i] * weights.gravity[r]
        cross(x_dot, f, m)
        for r in range(3):
            S.dW[i, r] += m[r]
    for j in range(loads.point_links.shape[0]):
        # the point of application's own rate: a material point's velocity, or a circle's
        # point's, which slides over its link (E8)
        link = loads.point_links[j]
        application_point_rate(work.T[link], loads.point_at[j], loads.point_circle[j], S.V[link], x, x_dot,
                               S.v3[4:8])
        cross(x_dot, S.point_values[j], m)
        for r in range(3):
            S.dW[link, r] += m[r]
    _strut_rates(loads, work, S)
    for j in range(loads.spring_cols.shape[0]):
        col = loads.spring_cols[j]
        S.dP[col] -= loads.spring_stiffness[j] * S.rates[col]
    _bushing_rates(loads, S.rates, S.dP)


@internal_kernel(forceinline=True)
def _strut_rates(loads, work, S):
    """The spring-dampers' springs: tension ``T = k (l - l0)`` along ``e = (b - a) / l`` on end a,
    its opposite on end b; rates ``f_a' = k l' e + T ((b' - a') - e l') / l`` and the moments'
    ``a' x f_a + a x f_a'`` (E4)."""
    a, b, va, vb, fa, dfa, m = S.v3[0], S.v3[1], S.v3[2], S.v3[3], S.v3[4], S.v3[5], S.v3[6]
    for j in range(loads.strut_link_a.shape[0]):
        la, lb = loads.strut_link_a[j], loads.strut_link_b[j]
        point_position(work.T[la], loads.strut_at_a[j], a)
        point_position(work.T[lb], loads.strut_at_b[j], b)
        point_velocity(a, S.V[la], va)
        point_velocity(b, S.V[lb], vb)
        length = np.sqrt((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2 + (b[2] - a[2]) ** 2)
        rate = 0.0
        for r in range(3):
            rate += (b[r] - a[r]) / length * (vb[r] - va[r])
        tension = loads.strut_stiffness[j] * (length - loads.strut_free[j])
        for r in range(3):
            e = (b[r] - a[r]) / length
            fa[r] = tension * e
            dfa[r] = loads.strut_stiffness[j] * rate * e + tension * ((vb[r] - va[r]) - e * rate) / length
        cross(va, fa, m)
        for r in range(3):
            S.dW[la, r] += m[r]
        cross(a, dfa, m)
        for r in range(3):
            S.dW[la, r] += m[r]
            S.dW[la, 3 + r] += dfa[r]
        cross(vb, fa, m)
        for r in range(3):
            S.dW[lb, r] -= m[r]
        cross(b, dfa, m)
        for r in range(3):
            S.dW[lb, r] -= m[r]
            S.dW[lb, 3 + r] -= dfa[r]


@internal_kernel(forceinline=True)
def _bushing_rates(loads, rates, dP):
    """The bushings' pair forces' rates along the increments ``rates`` (n,): ``dP = -K rates``
    on each bushing's six columns (B3)."""
    for b in range(loads.bushing_start.shape[0]):
        c = loads.bushing_start[b]
        K = loads.bushing_stiffness[b]
        for row in range(6):
            value = 0.0
            for j in range(6):
                value -= K[row, j] * rates[c + j]
            dP[c + row] += value


@internal_kernel(forceinline=True)
def _gauge_couple_rates(topology, geometry, work, S):
    """The gauges' couples ``mu_g r_g`` move with their links: ``mu_g dr_g/dt`` (``r_g = J_l(w)^-T u``,
    ``w' = J_l(w)^-1 omega``) added to ``S.dW`` on the gauge links."""
    base = 6 * topology.loops
    w_dot, dr = S.v3[11], S.v3[12]
    for g in range(topology.gauges):
        link = topology.gauge_link[g]
        dexp_inverse(work.swings[g], S.V[link, :3], False, w_dot, S.v3[13:15])
        dexp_inverse_transposed_rate(work.swings[g], w_dot, geometry.gauge_axis[g], dr, S.v3[0:5])
        for k in range(3):
            S.dW[link, k] += S.mu[base + g] * dr[k]


@internal_kernel
def _stiffness(topology, geometry, loads, weights, work, G, S):
    """``S.K`` (D, D) = ``-d(G^T Q)/d(driven)`` (E4), from ``S.Omega`` and ``S.mu`` at ``work``."""
    n, D = G.shape[0], G.shape[1]
    bracket, own, world = S.v6[1], S.v6[2], S.v6[3]
    for t in range(D):
        for col in range(n):
            S.rates[col] = G[col, t]
        tree_twists(topology, work.xi, S.rates, None, S.V)
        _load_rates(topology, loads, weights, work, S)
        _gauge_couple_rates(topology, geometry, work, S)
        _subtree_sums(topology, S.dW, S.dF)
        active = True
        for col in range(n):
            p = topology.column_pair[col]
            if col == topology.start[p]:
                # A pair whose first link stands still and whose variables do not move along t
                # (the other side of an axle, another loop) has no twist rate: Z is its dP.
                active = False
                for r in range(6):
                    active = active or S.V[topology.first[p], r] != 0.0
                for c in range(topology.start[p], topology.start[p] + topology.size[p]):
                    active = active or S.rates[c] != 0.0
            if not active:
                S.Z[col, t] = S.dP[col]
                continue
            lie_bracket(S.V[topology.first[p]], work.xi[col], bracket)
            if pair_twist_rate(topology.family[p], topology.parameters[p], work.q, S.rates, topology.start[p],
                               col - topology.start[p], own):
                transform_twist(work.W[p], own, world)
                for r in range(6):
                    bracket[r] += world[r]
            S.Z[col, t] = twist_power(bracket, S.Omega[p]) + S.dP[col]
        for child in topology.tree_order:
            p = topology.tree_pair[child]
            sign = topology.forward[child]
            for col in range(topology.start[p], topology.start[p] + topology.size[p]):
                S.Z[col, t] += sign * twist_power(work.xi[col], S.dF[child])
    # Row by row of G and Z: contiguous inner loops and G's zeros skipped (the same sums, in
    # the same order, as the dot products of G's and Z's columns).
    for s in range(D):
        for t in range(D):
            S.K[s, t] = 0.0
    for col in range(n):
        for s in range(D):
            g = G[col, s]
            if g != 0.0:
                for t in range(D):
                    S.K[s, t] -= g * S.Z[col, t]


@kernel
def statics_here(topology, geometry, block, loads, weights, work, factor, G, S):
    """Everything at the closed, factorized configuration ``work`` with its transmission ``G``
    (n, D): the generalized forces ``S.Q``, ``S.forces`` (D,), the multipliers ``S.mu``, the
    pairs' wrenches ``S.Omega`` and the stiffness ``S.K`` (D, D); returns the load scale."""
    scale = generalized_forces(topology, geometry, loads, weights, work, G, S)
    _multipliers(topology, block, factor, S.Q, S.mu, S.buffer)
    _pair_wrenches(topology, geometry, work, S)
    _stiffness(topology, geometry, loads, weights, work, G, S)
    S.info[LOAD_SCALE] = scale
    return scale


@internal_kernel(forceinline=True)
def _residual(block, fixed, S, scale):
    """The largest reduced force in the free coordinates, times their column scales, over the
    load ``scale`` (dimensionless), and the 2-norm of the same (the merit of a Newton step)."""
    largest, total = 0.0, 0.0
    scale = max(scale, 1e-300)
    for s in range(fixed, block.driven.shape[0]):
        value = abs(S.forces[s]) * block.column_scale[block.driven[s]] / scale
        largest = max(largest, value)
        total += value * value
    return largest, np.sqrt(total)


@internal_kernel(forceinline=True)
def free_block(K, fixed, lu):
    """The free coordinates' block of ``K`` into ``lu`` (k, k)."""
    k = lu.shape[0]
    for i in range(k):
        for j in range(k):
            lu[i, j] = K[fixed + i, fixed + j]


@internal_kernel
def reset_to(topology, geometry, block, work, factor, G, q, rotations, params):
    """Put ``work`` at the closed configuration ``q`` (n,), ``rotations`` (m, 3, 3) saved before a
    refused step, evaluated and factorized again, with its transmission ``G``."""
    copy_vector(q, work.q)
    copy_stack(rotations, work.rotations)
    configure(topology, geometry, work)
    tangent_at(topology, geometry, block, work, factor, G, G, params[SINGULAR_RCOND], G.shape[1])


@internal_kernel
def close_held(topology, geometry, block, work, factor, G, previous, params, result):
    """Close the loops at ``work`` with the driven columns held, re-seat the spherical states
    (nearest ``previous`` (n,)), factorize and make the transmission ``G``; False when the loops
    do not close or the block is singular there."""
    status = corrector(topology, geometry, block, work, factor, params[TOLERANCE], int(params[ITERATION_LIMIT]),
                       params[NEWTON_STEP_LIMIT], bool(True), result, 1.0)
    if status != CONVERGED:
        return False
    seat_spherical(topology, work, previous)
    return tangent_at(topology, geometry, block, work, factor, G, G, params[SINGULAR_RCOND], G.shape[1])


#: A step taken with an earlier factorization of ``K_uu`` (a chord step) that leaves more than
#: this fraction of the reduced forces' norm has the next step factorize the stiffness anew.
CHORD_CONTRACTION = 0.1


@kernel
def settle(topology, geometry, block, loads, weights, work, factor, G, S, fixed, params, statics, result, chord):
    """Newton on the reduced force ``g_u = 0`` at the driven values of ``work`` (E5): the first
    ``fixed`` driven columns stay, the others are the free coordinates. Each step solves
    ``K_uu du = g_u``, moves along ``dq = G_u du`` (at most ``statics[SETTLE_STEP]``), closes the
    loops again and is halved (up to eight times) while the reduced forces do not shrink.

    The stiffness is the costly part (a pass over the variables per driven column, E4), so a
    step reuses the last factorization of ``K_uu`` in ``S.lu`` while that contracts the reduced
    forces by at least :data:`CHORD_CONTRACTION` (a chord step; refused, not halved but taken
    again with the stiffness there); with ``chord`` the first step uses the ``S.lu`` given (the
    walk's, of the equilibrium it predicted from). The equilibrium's stiffness is made there.

    Returns OK (``S`` then holds the statics at the equilibrium: forces, stiffness, ``info``),
    NOT_SETTLED, NEUTRAL (``K_uu`` singular) or OPEN; ``S.info[CORRECTED]`` sums the steps' sizes,
    ``S.info[CHORD_KEPT]`` is 0 when the first step, with the ``S.lu`` given, was refused.
    ``S.saved_q``, ``S.saved_rotations`` keep a step's start.
    """
    k = block.driven.shape[0] - fixed
    tolerance = statics[FORCE_TOLERANCE]
    corrected = 0.0
    S.info[SETTLED], S.info[CHORD_KEPT] = 0.0, 1.0
    limit = int(statics[SETTLE_ITERATIONS])
    fresh = not chord
    for iteration in range(limit + 1):
        if fresh:
            scale = statics_here(topology, geometry, block, loads, weights, work, factor, G, S)
        else:
            scale = generalized_forces(topology, geometry, loads, weights, work, G, S)
        largest, merit = _residual(block, fixed, S, scale)
        S.info[RESIDUAL] = largest
        S.info[CORRECTED] = corrected
        if largest <= tolerance:
            if not fresh:
                statics_here(topology, geometry, block, loads, weights, work, factor, G, S)
            S.info[SETTLED] = 1.0
            return OK
        if iteration == limit:
            break
        if fresh:
            free_block(S.K, fixed, S.lu)
            if not lu_factor(S.lu, S.pivots):
                return NEUTRAL
        for i in range(k):
            S.du[i] = S.forces[fixed + i]
        lu_solve(S.lu, S.pivots, S.du)
        motion = 0.0
        for col in range(topology.n):
            value = 0.0
            for i in range(k):
                value += G[col, fixed + i] * S.du[i]
            S.step[col] = value
            motion = max(motion, abs(value) / block.column_scale[col])
        alpha = min(1.0, statics[SETTLE_STEP] / motion) if motion > 0.0 else 1.0
        copy_vector(work.q, S.saved_q)
        copy_stack(work.rotations, S.saved_rotations)
        accepted = False
        trial_merit = merit
        for _ in range(9):
            apply_step(topology, work, S.step, alpha)
            if close_held(topology, geometry, block, work, factor, G, S.saved_q, params, result):
                trial_scale = generalized_forces(topology, geometry, loads, weights, work, G, S)
                trial_largest, trial_merit = _residual(block, fixed, S, trial_scale)
                if trial_merit < (1.0 - 1e-4 * alpha) * merit or trial_largest <= tolerance:
                    accepted = True
                    break
            reset_to(topology, geometry, block, work, factor, G, S.saved_q, S.saved_rotations, params)
            if not fresh:
                break
            alpha *= 0.5
        if not accepted:
            if not fresh:
                if iteration == 0:
                    S.info[CHORD_KEPT] = 0.0
                fresh = True
                continue
            statics_here(topology, geometry, block, loads, weights, work, factor, G, S)
            return NOT_SETTLED
        corrected += alpha * motion
        fresh = trial_merit > CHORD_CONTRACTION * merit
    return NOT_SETTLED
