"""Pair reactions, compiled: Newton-Euler on every link at a stack of positions (METHOD.md (E7)).

The unknowns are the wrenches ``R_p = (scale r_m, r_f)`` (moment about the origin over the
system's size, force; world frame) that the first link of each pair applies to its second.
The link rows of (E7) are the graph's incidence on the moving links (``E``, (L-1, P)) times
the 6x6 identity, whatever the pose: their solutions are ``R = E^+ rhs + N Y``, ``E^+`` the
incidence's pseudo-inverse (the particular solution orthogonal to the loops) and ``N`` (P, l)
an orthonormal basis of the graph's cycles (a loop's wrench ``Y_j`` (6,) passed round it),
both fixed by the topology. Because the two parts are orthogonal, ``|R|^2 = |E^+ rhs|^2 +
|Y|^2``, and the minimum-norm solution of (E7) is the one whose loop wrenches ``Y`` are the
minimum-norm least-squares solution of the pair rows ``xi_j . (E^+ rhs + N Y)_p = tau_j``
alone: (n, 6 l) where the whole system is (6 (L-1) + n, 6 P). When the loads balance (the
statics, the inverse dynamics) this is the solution of the whole system; when they do not,
every link still balances and the pair rows take the residual.
"""

from __future__ import annotations

import numpy as np

from ._compile import allocating_inline_kernel, allocating_kernel
from .arrays import copy_matrix, copy_stack, copy_vector
from .closure import configure, world_twists
from .loads import applied_loads
from .points import point_position
from .rotations import cross, exp_so3
from .tree import tree_twists

__all__ = ["newton_euler_reactions"]


@allocating_inline_kernel
def _link_rows(topology, geometry, weights, work, extra, moving, wrenches, rhs, v3):
    """The link rows' right-hand side ``rhs`` (L-1, 6) (moments over the size): minus the applied
    ``wrenches`` (L, 6) with gravity at the centres of mass and the ``extra`` wrenches added."""
    centre, weight, moment = v3[0], v3[1], v3[2]
    for i in range(topology.links):
        point_position(work.T[i], weights.coms[i], centre)
        for r in range(3):
            weight[r] = weights.masses[i] * weights.gravity[r]
        cross(centre, weight, moment)
        for r in range(3):
            wrenches[i, r] += moment[r] + extra[i, r]
            wrenches[i, 3 + r] += weight[r] + extra[i, 3 + r]
    for a in range(moving.shape[0]):
        for r in range(6):
            rhs[a, r] = -wrenches[moving[a], r] / (geometry.scale if r < 3 else 1.0)


@allocating_inline_kernel
def _pair_rows(topology, geometry, work, efforts, spread, cycles, row_weights, rcond, rhs, R, xs, tau, M, d):
    """``R`` (P, 6) = ``E^+ rhs + N Y``, the loops' wrenches ``Y`` the minimum-norm least-squares
    solution of the weighted pair rows ``xs_j . R_p = tau_j`` (module docstring); ``xs`` (n, 6)
    and ``tau`` (n,) the rows' weighted twists and ``efforts``."""
    n, loops = topology.n, cycles.shape[1]
    for p in range(topology.pairs):
        for r in range(6):
            value = 0.0
            for a in range(rhs.shape[0]):
                value += spread[p, a] * rhs[a, r]
            R[p, r] = value
    for c in range(n):
        p = topology.column_pair[c]
        w = row_weights[c]
        for r in range(3):
            xs[c, r] = work.xi[c, r] * geometry.scale * w
            xs[c, 3 + r] = work.xi[c, 3 + r] * w
        tau[c] = efforts[c] * w
        value = tau[c]
        for r in range(6):
            value -= xs[c, r] * R[p, r]
        d[c] = value
        for j in range(loops):
            for r in range(6):
                M[c, 6 * j + r] = xs[c, r] * cycles[p, j]
    if loops > 0:
        Y = np.linalg.lstsq(M, d, rcond=rcond)[0]
        for p in range(topology.pairs):
            for j in range(loops):
                if cycles[p, j] != 0.0:
                    for r in range(6):
                        R[p, r] += cycles[p, j] * Y[6 * j + r]


@allocating_inline_kernel
def _residual_norm(topology, moving, rhs, R, xs, tau):
    """The norm of (E7)'s residual at ``R``: pair rows weighted, link rows as ``rhs``."""
    total = 0.0
    for c in range(topology.n):
        value = -tau[c]
        p = topology.column_pair[c]
        for r in range(6):
            value += xs[c, r] * R[p, r]
        total += value * value
    for a in range(moving.shape[0]):
        link = moving[a]
        for r in range(6):
            value = -rhs[a, r]
            for p in range(topology.pairs):
                if topology.second[p] == link:
                    value += R[p, r]
                if topology.first[p] == link:
                    value -= R[p, r]
            total += value * value
    return np.sqrt(total)


@allocating_kernel
def newton_euler_reactions(topology, geometry, loads, weights, work, q, rotations, have_rotations, rates, velocities,
                           have_velocities, pair_values, point_values, drive, extra, moving, spread, cycles,
                           row_weights, rcond, forces, moments, frames, residual):
    """The pair wrenches of (E7) at every position i (the module docstring).

    Parameters
    ----------
    topology, geometry, loads, weights : the compiled system's and its loads' arrays
    work : a :class:`~.state.Work` of the system (overwritten)
    q : (N, n) closed positions; rotations : (N, m, 3, 3) their spherical states, used when
        ``have_rotations`` (otherwise made from the rotation vectors in ``q``)
    rates : (N, n) pair rates; velocities : (N, L, 6) the link twists, used when
        ``have_velocities`` (otherwise made from ``rates`` along the tree)
    pair_values : (N, nf, 1), point_values : (N, np, 3) the time-dependent loads' values
    drive : (N, n) driver efforts added to the pair forces; extra : (N, L, 6) more wrenches on
        the links (N m about the origin, N)
    moving : (L-1,) the moving links; spread : (P, L-1) the incidence's pseudo-inverse;
        cycles : (P, l) the orthonormal cycle basis; row_weights : (n,) the pair rows' weights
    rcond : relative cut of the small singular values of the pair rows (least squares)
    forces, moments : (N, P, 3) out: N, and N m about the pair centre, global
    frames : (N, P, 4, 4) out: the pair frames j; residual : (N,) out: the norm of (E7)'s
        residual, link rows in N and N (m over the size), pair rows weighted
    """
    n, L, P = topology.n, topology.links, topology.pairs
    V = np.zeros((L, 6))
    pair_forces = np.zeros(n)
    wrenches = np.zeros((L, 6))
    powers = np.zeros(2)
    v3 = np.zeros((8, 3))
    rhs = np.zeros((moving.shape[0], 6))
    R = np.zeros((P, 6))
    xs = np.zeros((n, 6))
    tau = np.zeros(n)
    M = np.zeros((n, 6 * cycles.shape[1]))
    d = np.zeros(n)
    for k in range(q.shape[0]):
        copy_vector(q[k], work.q)
        if have_rotations:
            copy_stack(rotations[k], work.rotations)
        else:
            for s in range(topology.sphere_columns.shape[0]):
                for r in range(3):
                    v3[3, r] = q[k, topology.sphere_columns[s, r]]
                exp_so3(v3[3], work.rotations[s])
        configure(topology, geometry, work)
        world_twists(topology, geometry, work)
        if have_velocities:
            copy_matrix(velocities[k], V)
        else:
            tree_twists(topology, work.xi, rates[k], None, V)
        applied_loads(loads, work.q, rates[k], work.T, V, pair_values[k], point_values[k], pair_forces, wrenches,
                      powers, v3)
        _link_rows(topology, geometry, weights, work, extra[k], moving, wrenches, rhs, v3)
        for c in range(n):
            pair_forces[c] += drive[k, c]
        _pair_rows(topology, geometry, work, pair_forces, spread, cycles, row_weights, rcond, rhs, R, xs, tau, M, d)
        residual[k] = _residual_norm(topology, moving, rhs, R, xs, tau)
        copy_stack(work.W, frames[k])
        centre, force, moment = v3[0], v3[1], v3[2]
        for p in range(P):
            for r in range(3):
                forces[k, p, r] = R[p, 3 + r]
                force[r] = R[p, 3 + r]
                centre[r] = work.W[p, r, 3]
            cross(centre, force, moment)
            for r in range(3):
                moments[k, p, r] = R[p, r] * geometry.scale - moment[r]
