"""The equilibrium walk, compiled: the continuation of the fixed values through targets along
the equilibrium path (METHOD.md (E6)), settling at every step (:func:`.statics.settle`).

At an equilibrium the path's slope is ``du/dd = -K_uu^-1 K_uf`` (the free coordinates ``u``
against the fixed values ``d``, from the reduced stiffness of :func:`.statics.statics_here`); a
step predicts along it (and, from the third target of a walk on, by the cubic through
the last two), closes the loops and settles.
"""

from __future__ import annotations

from ._compile import internal_kernel, kernel
from .arrays import copy_stack, copy_vector
from .linear import lu_factor, lu_solve
from .newton import apply_step
from .state import BRANCH_RATIO, CHORD_KEPT, HALVING_LIMIT, MOTION_LIMIT, TOLERANCE
from .statics import NEUTRAL, NOT_SETTLED, OK, OPEN, close_held, free_block, reset_to, settle, statics_here
from .tree import tree_twists

__all__ = ["walk_equilibria", "CHORD_RETRY"]


@internal_kernel(forceinline=True)
def _slope(fixed, S):
    """``S.slope`` (k, fixed) = ``du/d(fixed) = -K_uu^-1 K_uf`` along the equilibrium path (E6);
    False when ``K_uu`` is singular there."""
    k = S.lu.shape[0]
    free_block(S.K, fixed, S.lu)
    if not lu_factor(S.lu, S.pivots):
        return False
    for a in range(fixed):
        for i in range(k):
            S.du[i] = -S.K[fixed + i, a]
        lu_solve(S.lu, S.pivots, S.du)
        for i in range(k):
            S.slope[i, a] = S.du[i]
    return True


@internal_kernel(forceinline=True)
def _settled_distance(block, fixed, work, S):
    """The largest difference of ``work``'s free coordinates from ``S.predicted`` (k,), scaled."""
    distance = 0.0
    for s in range(S.predicted.shape[0]):
        col = block.driven[fixed + s]
        distance = max(distance, abs(work.q[col] - S.predicted[s]) / block.column_scale[col])
    return distance


@internal_kernel(forceinline=True)
def _record(topology, fixed, work, G, S, out, i):
    """Position i of the walk into ``out`` (:class:`~.state.EquilibriumRecord`): with the
    tangent along the path, the efforts and ``K_uu``, the motions per unit free coordinate
    (the transmission's free columns ``G_u`` and the links' twists they make, eq. 4)."""
    k = S.lu.shape[0]
    copy_vector(work.q, out.q[i])
    copy_stack(work.rotations, out.rotations[i])
    copy_stack(work.T, out.T[i])
    for col in range(topology.n):
        for a in range(fixed):
            value = G[col, a]
            for s in range(k):
                value += G[col, fixed + s] * S.slope[s, a]
            out.G[i, col, a] = value
    for a in range(fixed):
        out.efforts[i, a] = -S.forces[a]
    for s in range(k):
        for t in range(k):
            out.K[i, s, t] = S.K[fixed + s, fixed + t]
        for col in range(topology.n):
            out.free_rates[i, s, col] = G[col, fixed + s]
        tree_twists(topology, work.xi, out.free_rates[i, s], None, out.free_twists[i, s])
    copy_vector(S.info, out.info[i])


@internal_kernel(forceinline=True)
def _cubic_correction(block, fixed, work, G, S, out, i, dd):
    """Add to ``S.step`` (n,), the first-order prediction ``G_f dd + G_u (du/dd) dd`` of the
    fixed values' step ``dd`` (fixed,), the cubic Hermite correction of the free coordinates
    (E6): through the two equilibria recorded last, ``out`` rows ``i - 2`` and ``i - 1``
    (``work`` stands on the second), with their tangents ``du/dd`` (``out.G``'s free rows),
    along the line ``d(t) = d0 + t e``, ``e = d1 - d0``, at ``t = 1 + lam`` with ``lam e`` the
    step's part along ``e``; the free coordinates' correction ``du`` moves the others by
    ``G_u du``. Along the line the first-order prediction errs by ``u'' dd^2 / 2``, the cubic
    by ``u'''' dd^4 / 6``; a step across it (``lam = 0``) is not corrected."""
    n, k = G.shape[0], S.du.shape[0]
    ee, de = 0.0, 0.0
    for a in range(fixed):
        e = out.q[i - 1, block.driven[a]] - out.q[i - 2, block.driven[a]]
        ee += e * e
        de += dd[a] * e
    lam = de / max(ee, 1e-300)  # 0 for two equilibria at the same fixed values: no correction
    t = 1.0 + lam
    h00, h10 = 2.0 * t ** 3 - 3.0 * t ** 2 + 1.0, t ** 3 - 2.0 * t ** 2 + t
    h01, h11 = -2.0 * t ** 3 + 3.0 * t ** 2, t ** 3 - t ** 2
    for s in range(k):
        col = block.driven[fixed + s]
        m0, m1 = 0.0, 0.0
        for a in range(fixed):
            e = out.q[i - 1, block.driven[a]] - out.q[i - 2, block.driven[a]]
            m0 += out.G[i - 2, col, a] * e
            m1 += out.G[i - 1, col, a] * e
        u0, u1 = out.q[i - 2, col], work.q[col]
        S.du[s] = h00 * u0 + h10 * m0 + h01 * u1 + h11 * m1 - (u1 + lam * m1)
    for col in range(n):
        value = 0.0
        for s in range(k):
            value += G[col, fixed + s] * S.du[s]
        S.step[col] += value


@internal_kernel(forceinline=True)
def _predict(block, fixed, work, G, S, out, i, dd, cubic):
    """``S.step`` (n,) = ``G_f dd + G_u (du/dd) dd`` for the fixed values' step ``dd`` (fixed,), with
    ``cubic`` corrected by :func:`_cubic_correction`; returns its largest scaled motion."""
    n, D = G.shape[0], G.shape[1]
    for col in range(n):
        value = 0.0
        for a in range(fixed):
            rate = G[col, a]
            for s in range(D - fixed):
                rate += G[col, fixed + s] * S.slope[s, a]
            value += rate * dd[a]
        S.step[col] = value
    if cubic:
        _cubic_correction(block, fixed, work, G, S, out, i, dd)
    motion = 0.0
    for col in range(n):
        motion = max(motion, abs(S.step[col]) / block.column_scale[col])
    return motion


#: After a refused chord step (:func:`settle`: the first step from a prediction, with the
#: stiffness of the equilibrium predicted from) the walk's settles factorize at once, and try a
#: chord step again at every target whose index is a multiple of this.
CHORD_RETRY = 8


@kernel
def walk_equilibria(topology, geometry, block, loads, weights, work, factor, G, S, anchor_q, anchor_rotations, ends,
                    fixed, targets, first, last, params, statics, result, out):
    """From the equilibrium at ``work`` (settled: ``S`` holds its statics), walk the ``fixed``
    driven columns through ``targets[first:last]`` (N, fixed), settling at each step, recording
    every target reached into ``out`` (E6).

    A step of the fixed values ``dd = h span`` predicts ``dq = G_f dd + G_u (du/dd) dd`` along
    the equilibrium path; its first try from an equilibrium recorded after another of this walk
    predicts the free coordinates by the cubic through both (:func:`_cubic_correction`: the
    residual left to Newton orders of magnitude smaller). The prediction (at most
    ``params[MOTION_LIMIT]``) is closed, settled, and accepted when the settled free
    coordinates lie near the predicted ones (at most ``params[BRANCH_RATIO]`` of the predicted
    motion away: no jump to another equilibrium, :func:`_settled_distance`); otherwise it is
    halved, at most ``params[HALVING_LIMIT]`` times in a row. ``anchor_q`` (n,) and
    ``anchor_rotations`` (m, 3, 3) keep a step's start, ``ends`` (3, fixed) the fixed values
    where a target's walk starts, the way to the target and a step of them. Returns ``(index,
    status)``: the first target not reached and OK, or the reason of the last refused step
    (NOT_SETTLED, NEUTRAL, OPEN) when it stopped.
    """
    D = block.driven.shape[0]
    start, span, dd = ends[0], ends[1], ends[2]
    last_status = OK
    sloped = False  # S.slope and S.lu hold the path's slope at work (the last record's)
    chord = True  # the last equilibrium's first step, with the factorization it came from, was kept
    for i in range(first, last):
        for a in range(fixed):
            start[a] = work.q[block.driven[a]]
            span[a] = targets[i, a] - start[a]
        fraction, h, halvings = 0.0, 1.0, 0
        cubic = i - 2 >= first
        while fraction < 1.0:
            h = min(h, 1.0 - fraction)
            final = fraction + h >= 1.0
            if not sloped and not _slope(fixed, S):
                return i, NEUTRAL
            sloped = True
            for a in range(fixed):
                dd[a] = h * span[a]
            motion = _predict(block, fixed, work, G, S, out, i, dd, cubic)
            if motion > params[MOTION_LIMIT]:
                h *= params[MOTION_LIMIT] / motion
                cubic = False
                continue
            copy_vector(work.q, anchor_q)
            copy_stack(work.rotations, anchor_rotations)
            apply_step(topology, work, S.step, 1.0)
            for a in range(fixed):
                work.q[block.driven[a]] = targets[i, a] if final else start[a] + (fraction + h) * span[a]
            status = OPEN
            sloped = False
            cubic = False
            if close_held(topology, geometry, block, work, factor, G, anchor_q, params, result):
                for s in range(D - fixed):
                    S.predicted[s] = work.q[block.driven[fixed + s]]
                tried = chord or i % CHORD_RETRY == 0
                status = settle(topology, geometry, block, loads, weights, work, factor, G, S, fixed, params, statics,
                                result, tried)
                if tried:
                    chord = S.info[CHORD_KEPT] != 0.0
                if status == OK and _settled_distance(block, fixed, work, S) > \
                        params[BRANCH_RATIO] * motion + 10.0 * params[TOLERANCE]:
                    status = NOT_SETTLED  # a jump to another equilibrium
            if status != OK:
                last_status = status
                halvings += 1
                reset_to(topology, geometry, block, work, factor, G, anchor_q, anchor_rotations, params)
                statics_here(topology, geometry, block, loads, weights, work, factor, G, S)
                if halvings > int(params[HALVING_LIMIT]):
                    return i, last_status
                h *= 0.5
                continue
            fraction = 1.0 if final else fraction + h
            halvings = max(halvings - 1, 0)
            h *= 2.0
        if not sloped and not _slope(fixed, S):
            return i, NEUTRAL
        sloped = True
        _record(topology, fixed, work, G, S, out, i)
    return last, OK
