"""Accelerations: the closure differentiated twice (METHOD.md, "Velocity (4) and acceleration").

    sum_k B_k q_k'' = - sum_k xi_k' q_k'

with ``xi_k'`` the rate of variable k's world twist: the Lie bracket with the velocity of the
link that carries the pair's frame j (its first link), plus the pair's own change of twist
(the Hooke pair's second pin): ``xi' = [V_first, xi] + Ad(W) S'``. Along a loop this is the
bracket sum ``- sum_{j<k} [S_j, S_k] q_j' q_k'`` of METHOD.md written per link. A gauge row's
right-hand side is the rate of its row, ``d/dt (J_l(w)^-T u) . omega``, plus its row times
the rate-only part of the link's angular acceleration. Solved with the same factorization
of ``B`` as the velocities.
"""

from __future__ import annotations

from ._compile import internal_kernel
from .pairs import pair_twist_rate
from .rigid import lie_bracket, shift_twist, transform_twist
from .rotations import dexp_inverse, dexp_inverse_transposed_rate
from .tree import tree_twists

__all__ = ["velocity_product_terms", "link_accelerations", "bias_rhs"]


@internal_kernel(forceinline=True)
def velocity_product_terms(topology, q, q_dot, W, xi, V, terms, scratch):
    """``xi_k' q_k'`` (n, 6) for every variable: the part of the accelerations due to rates alone
    (``scratch``: (3, 6))."""
    bracket, own, world = scratch[0], scratch[1], scratch[2]
    for col in range(topology.n):
        p = topology.column_pair[col]
        lie_bracket(V[topology.first[p]], xi[col], bracket)
        if pair_twist_rate(topology.family[p], topology.parameters[p], q, q_dot, topology.start[p],
                           col - topology.start[p], own):
            transform_twist(W[p], own, world)
            for r in range(6):
                bracket[r] += world[r]
        for r in range(6):
            terms[col, r] = bracket[r] * q_dot[col]


@internal_kernel(forceinline=True)
def link_accelerations(topology, xi, q_ddot, terms, A):
    """Spatial accelerations ``(omega', v_o')`` (L, 6): ``A_child = A_parent + sign sum_k (xi_k q_k''
    + xi_k' q_k')`` over the tree pair's variables (with ``q'' = 0``: the rate-only part;
    :func:`.tree.tree_twists`)."""
    tree_twists(topology, xi, q_ddot, terms, A)


@internal_kernel(forceinline=True)
def bias_rhs(topology, geometry, work, V, terms, rhs):
    """The rate-only part of the twice-differentiated closure, per row (rows,): loops
    ``sum_k sign xi_k' q_k'`` referred to their chord centres; gauges the rate of the row.
    Uses ``work.scratch``: ``v6[1]``, ``variables[3]``, ``links[0]``, ``v3[5:14]``."""
    scratch = work.scratch
    shifted = scratch.v6[1]
    for i in range(topology.loops):
        for r in range(6):
            rhs[6 * i + r] = 0.0
        for e in range(topology.loop_ptr[i], topology.loop_ptr[i + 1]):
            shift_twist(terms[topology.loop_cols[e]], work.centres[i], shifted)
            sign = topology.loop_signs[e]
            for r in range(6):
                rhs[6 * i + r] += sign * shifted[r]
    if topology.gauges == 0:
        return
    zero = scratch.variables[3]
    zero[:] = 0.0
    A0 = scratch.links[0]
    link_accelerations(topology, work.xi, zero, terms, A0)
    row, rate, w_dot, omega = scratch.v3[5], scratch.v3[6], scratch.v3[7], scratch.v3[8]
    for g in range(topology.gauges):
        link = topology.gauge_link[g]
        w = work.swings[g]
        axis = geometry.gauge_axis[g]
        for k in range(3):
            omega[k] = V[link, k]
        dexp_inverse(w, omega, False, w_dot, scratch.v3[9:11])
        dexp_inverse(w, axis, True, row, scratch.v3[9:11])
        dexp_inverse_transposed_rate(w, w_dot, axis, rate, scratch.v3[9:14])
        value = 0.0
        for k in range(3):
            value += rate[k] * omega[k] + row[k] * A0[link, k]
        rhs[6 * topology.loops + g] = value
