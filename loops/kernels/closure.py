"""Link poses (eq. 5), closure defects (eq. 2) and the linearized closure ``B`` (eq. 3), compiled.

Every function takes the frozen arrays of :class:`loops.compiled.CompiledSystem`:
``topology`` (integers and pair parameters, shared by every design variant) and
``geometry`` (pair frames, size, gauges: what a hardpoint changes), see
:mod:`loops.compiled` for their fields. A configuration is the pair variables ``q`` (n,)
with the spherical pairs' rotation matrices ``rotations`` (m, 3, 3) as their state.

* Pair matrices ``A_p`` (P, 4, 4) by family (:mod:`.pairs`).
* Link poses ``T_0i`` (L, 4, 4) along the spanning tree, parents first: across a tree
  pair walked from its first link, ``T_child = T_parent F_j A F_k^-1``; walked from its
  second link, ``T_child = T_parent (F_j A F_k^-1)^-1`` (eq. 5).
* Pair frames ``W_p = T_0(first) F_j`` (P, 4, 4), and the world twist of every variable
  ``xi = Ad(W_p) S_k(q)`` (n, 6): the velocity of the pair's second link relative to its
  first per unit rate.
* The closure defect of each loop at its chord c (eq. 2 written at the chord): frame k as
  reached through the first link, ``W_c A_c``, against the same frame on the second link,
  ``T_0(second) F_k``: rotation ``log(R_reached R_target^T)`` (rad) and gap (m). Then one
  gauge defect per idle link (:mod:`loops.passive`): ``w . u`` with ``w = log(R R_ref^T)``.
* ``B`` (eq. 3) in twist form, stored by loop: for loop i and each of its variables (the
  entries ``loop_ptr[i]:loop_ptr[i + 1]`` of ``loop_cols``), the 6 rows ``sign * (omega, v +
  omega x c_i)`` with ``c_i`` the chord's frame-k origin, the point whose gap is measured;
  gauge rows are dense over the variables, ``(J_l(w)^-T u) . omega`` along the link's path.
"""

from __future__ import annotations


from ._compile import inline_kernel, internal_kernel, kernel
from .pairs import pair_matrix, pair_twist
from .rigid import rigid_product, rigid_product_inverse_right, shift_twist, transform_twist
from .rotations import dexp_inverse, log_so3

__all__ = ["evaluate", "world_twists", "closure_defects", "closure_error", "loop_jacobian", "gauge_rows",
           "edge_matrix", "configure"]


@inline_kernel
def edge_matrix(topology, geometry, A, p, out, tmp):
    """``F_j A_p F_k^-1`` of pair p (the pose of its second link in its first link's frame)."""
    rigid_product(geometry.frame_j[p], A[p], tmp)
    rigid_product_inverse_right(tmp, geometry.frame_k[p], out)


@internal_kernel(forceinline=True)
def evaluate(topology, geometry, work):
    """Pair matrices ``A`` (P, 4, 4), link poses ``T`` (L, 4, 4, eq. 5) and the chords' pair
    frames ``W`` into ``work``, at its ``q`` (n,) and spherical states ``rotations``. The other
    pairs' frames are needed by the twists only, and :func:`world_twists` makes them: a
    Newton iteration evaluates the defects alone."""
    q, rotations, A, T, W = work.q, work.rotations, work.A, work.T, work.W
    dummy = work.scratch.m3[0]
    for p in range(topology.pairs):
        s = topology.sphere[p]
        pair_matrix(topology.family[p], topology.parameters[p], q, topology.start[p],
                    topology.size[p], rotations[s] if s >= 0 else dummy, A[p])
    ground = topology.ground
    T[ground, :, :] = 0.0
    for i in range(4):
        T[ground, i, i] = 1.0
    edge = work.scratch.m4[0]
    tmp = work.scratch.m4[1]
    for child in topology.tree_order:
        p = topology.tree_pair[child]
        edge_matrix(topology, geometry, A, p, edge, tmp)
        parent = topology.parent[child]
        if topology.forward[child] > 0:
            rigid_product(T[parent], edge, T[child])
        else:
            rigid_product_inverse_right(T[parent], edge, T[child])
    for i in range(topology.loops):
        c = topology.chord[i]
        rigid_product(T[topology.first[c]], geometry.frame_j[c], W[c])


@kernel(forceinline=True)
def world_twists(topology, geometry, work):
    """Every pair frame ``W_p = T_0(first) F_j`` (P, 4, 4) and the world twist of every
    variable, ``xi = Ad(W_p) S_k(q)`` (n, 6), into ``work``: the velocity of the pair's second
    link relative to its first per unit rate. Needed by the Jacobian and the rates only (not
    by the defects), so computed where those are, after :func:`evaluate`."""
    q, T, W, xi = work.q, work.T, work.W, work.xi
    for p in range(topology.pairs):
        rigid_product(T[topology.first[p]], geometry.frame_j[p], W[p])
    unit = work.scratch.v6[0]
    for col in range(topology.n):
        p = topology.column_pair[col]
        pair_twist(topology.family[p], topology.parameters[p], q, topology.start[p],
                   col - topology.start[p], unit)
        transform_twist(W[p], unit, xi[col])


@internal_kernel(forceinline=True)
def closure_defects(topology, geometry, work):
    """Defects ``(6 L + G,)``: per loop (rotation rad, gap m), then the gauges (rad) (eq. 2).

    Also fills ``centres`` (L, 3), each loop's chord frame-k origin (where its gap and the
    translational rows of ``B`` are taken), and ``swings`` (G, 3), the rotation vector of
    each idle link since the reference (:mod:`loops.passive`). All into ``work``.
    """
    A, T, W, defects, centres, swings = work.A, work.T, work.W, work.defects, work.centres, work.swings
    reached = work.scratch.m4[0]
    target = work.scratch.m4[1]
    relative = work.scratch.m3[0]
    w = work.scratch.v3[0]
    for i in range(topology.loops):
        c = topology.chord[i]
        rigid_product(W[c], A[c], reached)
        rigid_product(T[topology.second[c]], geometry.frame_k[c], target)
        for r in range(3):
            for s in range(3):
                relative[r, s] = (reached[r, 0] * target[s, 0] + reached[r, 1] * target[s, 1]
                                  + reached[r, 2] * target[s, 2])
        log_so3(relative, w)
        for r in range(3):
            defects[6 * i + r] = w[r]
            defects[6 * i + 3 + r] = reached[r, 3] - target[r, 3]
            centres[i, r] = target[r, 3]
    base = 6 * topology.loops
    for g in range(topology.gauges):
        link = topology.gauge_link[g]
        reference = geometry.gauge_reference[g]
        for r in range(3):
            for s in range(3):
                relative[r, s] = (T[link, r, 0] * reference[s, 0] + T[link, r, 1] * reference[s, 1]
                                  + T[link, r, 2] * reference[s, 2])
        log_so3(relative, swings[g])
        axis = geometry.gauge_axis[g]
        defects[base + g] = swings[g, 0] * axis[0] + swings[g, 1] * axis[1] + swings[g, 2] * axis[2]


@internal_kernel(forceinline=True)
def closure_error(topology, geometry, defects):
    """Largest defect relative to size: ``max(|rotation|, |gap| / scale, |gauge|)``."""
    error = 0.0
    for i in range(topology.loops):
        for r in range(3):
            error = max(error, abs(defects[6 * i + r]), abs(defects[6 * i + 3 + r]) / geometry.scale)
    for g in range(topology.gauges):
        error = max(error, abs(defects[6 * topology.loops + g]))
    return error


@kernel(forceinline=True)
def loop_jacobian(topology, xi, centres, blocks):
    """The loop rows of ``B`` (eq. 3, twist form) by loop entry: ``blocks`` (nnz, 6)."""
    for i in range(topology.loops):
        for e in range(topology.loop_ptr[i], topology.loop_ptr[i + 1]):
            shift_twist(xi[topology.loop_cols[e]], centres[i], blocks[e])
            sign = topology.loop_signs[e]
            for r in range(6):
                blocks[e, r] *= sign


@kernel(forceinline=True)
def gauge_rows(topology, geometry, xi, swings, rows, scratch):
    """Gauge rows of ``B`` (G, n): ``(J_l(w)^-T u) . omega_j`` for the variables on the idle
    link's tree path (signed by the direction the path walks each pair), zero elsewhere.
    ``scratch``: (3, 3)."""
    rows[:, :] = 0.0
    r = scratch[0]
    for g in range(topology.gauges):
        dexp_inverse(swings[g], geometry.gauge_axis[g], True, r, scratch[1:])
        link = topology.gauge_link[g]
        while link != topology.ground:
            p = topology.tree_pair[link]
            sign = topology.forward[link]
            for col in range(topology.start[p], topology.start[p] + topology.size[p]):
                rows[g, col] = sign * (xi[col, 0] * r[0] + xi[col, 1] * r[1] + xi[col, 2] * r[2])
            link = topology.parent[link]


@kernel
def configure(topology, geometry, work):
    """Evaluate the configuration held in ``work`` (its ``q`` and ``rotations``): pair matrices,
    poses, the chords' frames and defects into ``work``'s arrays (the other frames and the
    twists: :func:`world_twists`); returns the closure error."""
    evaluate(topology, geometry, work)
    closure_defects(topology, geometry, work)
    return closure_error(topology, geometry, work.defects)
