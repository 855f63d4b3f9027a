"""The linearised closure at the N closed positions of an analysis, for the design
sensitivities: METHOD.md eq. (3) and (H2).

Every unknown the sensitivities need (the variables' rates along the drivers and the
hardpoint coordinates, their mixed second rates (H3), the third rates (T2)) solves
``B_free x = rhs`` at each position, and every link's twist along a direction is the sum of
the variables' twists times their rates, and of the moved pairs' own twists, along its tree
path. Both go through the engine's one implementation: the solve by the walk's own
factorization of the chosen block (:func:`loops.linear.solve_at_positions`), the sums by the
tree propagation of the velocities and accelerations (:func:`loops.point_kinematics.
link_twists`).
"""

from __future__ import annotations

import numpy as np

from mechanism.errors import ModelError

from ...configuration import constraint_matrix, evaluate
from ...spatial import dexp_inverse, shift_twists
from ...continuation import SINGULAR_CONDITIONING
from ...linear import least_squares_block, solve_at_positions, square_block
from ...point_kinematics import link_twists

__all__ = ["Closure", "ROW_CONSISTENCY"]

#: Positions where the chosen square rows of ``B`` leave the others unsatisfied by more
#: than this (dimensionless residual over the right-hand side) are solved by least squares
#: on every row instead.
ROW_CONSISTENCY = 1e-9


class Closure:
    """The linearised closure (eq. 3) at N closed positions, stacked.

    Parameters
    ----------
    system : the compiled system; q : (N, n) its variables at the positions; rotations :
    (N, m, 3, 3) the spherical pairs' states; driven : (d,) the driven columns (drivers and
    held variables); where : the location of errors

    Attributes: ``q``, ``rotations``; ``xi`` (N, n, 6) the variables' world twists, ``poses``
    (N, L, 4, 4), ``frames`` (N, P, 4, 4) pair frames j, ``centres`` (N, loops, 3), ``swings``
    (N, G, 3), ``B`` (N, rows, n); ``loop_pairs`` (loops, P) the signed incidence of pairs in
    loops; ``driven``, ``free`` columns; ``block`` the chosen square block of ``B``
    (:mod:`loops.linear`).

    Raises
    ------
    ModelError
        At ``where`` when the drivers and held variables fix the mechanism at no position.
    """

    def __init__(self, system, q, rotations, driven, where):
        self.system, self.q = system, np.ascontiguousarray(q, dtype=float)
        self.rotations = np.ascontiguousarray(rotations, dtype=float)
        topology = system.topology
        configs = [evaluate(system, q[i], rotations[i]) for i in range(len(q))]
        self.xi = np.stack([c.twists for c in configs])
        self.poses = np.stack([c.link_poses for c in configs])
        self.frames = np.stack([c.pair_frames for c in configs])
        self.centres = np.stack([c.centres for c in configs])
        self.swings = np.stack([c.swings for c in configs])
        self.B = np.stack([constraint_matrix(system, c) for c in configs])
        self.loops, self.gauge_links = topology.loops, np.asarray(topology.gauge_link, dtype=np.int64)
        self.gauge_axes = np.asarray(system.geometry.gauge_axis)
        self.driven = np.asarray(driven, dtype=np.int64)
        mask = np.ones(system.n, dtype=bool)
        mask[self.driven] = False
        self.free = np.flatnonzero(mask)
        self.row_scale = system.row_scale
        scaled = self.B * self.row_scale[:, None] * system.column_scale
        self.block = None
        for i in range(len(q)):
            self.block = square_block(system, scaled[i], self.driven)
            if self.block is not None:
                break
        if self.block is None:
            raise ModelError(where, "the drivers and held variables do not fix the mechanism at any position of the "
                             "analysis: no sensitivities")
        starts = np.asarray(topology.start)
        self.column_pair = np.asarray(topology.column_pair)
        self.column_start = starts
        incidence = np.zeros((topology.loops, system.n))
        for i in range(topology.loops):
            entries = slice(topology.loop_ptr[i], topology.loop_ptr[i + 1])
            incidence[i, topology.loop_cols[entries]] = topology.loop_signs[entries]
        self.loop_pairs = incidence[:, starts]
        self.first, self.second = np.asarray(topology.first), np.asarray(topology.second)
        self.column_pairs = np.zeros((system.n, topology.pairs))
        self.column_pairs[np.arange(system.n), self.column_pair] = 1.0
        # The gauge rows' vector r = J_l(w)^-T u (their rows are r . omega of the idle link).
        self.gauge_rows = dexp_inverse(self.swings, self.gauge_axes, transposed=True)

    def solve(self, rhs, where):
        """``x`` (N, n, m) with ``B_free x_free = rhs`` (rhs (N, rows, m), physical units) and the
        driven columns zero: on the chosen square rows, by least squares on every row where
        those leave the others unsatisfied (by more than :data:`ROW_CONSISTENCY`).

        Raises
        ------
        ModelError
            At ``where`` when the closure is singular at a position (a dead point).
        """
        rhs = np.asarray(rhs, dtype=float)
        x, solved = solve_at_positions(self.system, self.block, self.q, self.rotations, rhs.transpose(0, 2, 1),
                                       SINGULAR_CONDITIONING)
        if not np.all(solved):
            raise ModelError(where, "the closure is singular at a position of the analysis (a dead point of its "
                             "drivers): no sensitivities there")
        x = x.transpose(0, 2, 1)
        scale = self.row_scale[None, :, None]
        residual = np.abs((self.B @ x - rhs) * scale).max(axis=(1, 2))
        size = np.maximum(np.abs(rhs * scale).max(axis=(1, 2)), 1.0)
        inconsistent = np.flatnonzero(~(residual <= ROW_CONSISTENCY * size))
        if len(inconsistent):
            every_row = least_squares_block(self.system, self.driven)
            again, _ = solve_at_positions(self.system, every_row, self.q[inconsistent], self.rotations[inconsistent],
                                          rhs[inconsistent].transpose(0, 2, 1), 0.0)
            x[inconsistent] = again.transpose(0, 2, 1)
        return x

    def link_sum(self, rates, pair_terms):
        """Per link the sum over its tree path of ``xi_c rates_c`` and of ``pair_terms``:
        ``rates`` (N, K, n), ``pair_terms`` (N, K, P, 6) or None -> (N, K, L, 6), global,
        origin-referenced (a pair's term is its first variable's extra twist)."""
        extra = None
        if pair_terms is not None:
            extra = np.zeros(rates.shape + (6,))
            extra[:, :, self.column_start] = pair_terms
        return link_twists(self.system, self.xi, rates, extra)

    def rows_of(self, pair_terms, gauge_extra):
        """Rows (N, rows, K) of per-pair twists ``pair_terms`` (N, K, P, 6) entering every loop
        and gauge as their pairs' variables do: loops ``sum sign shift(term, centre)``, gauges
        ``r . (path sum of the terms' omega)`` plus ``gauge_extra`` (N, K, G)."""
        N, K = pair_terms.shape[:2]
        loop = self.loop_pairs @ pair_terms
        loop = shift_twists(loop, self.centres[:, None])
        rows = [loop.reshape(N, K, 6 * self.loops)]
        if len(self.gauge_links):
            omega = self.link_sum(np.zeros((N, K, self.system.n)), pair_terms)[:, :, self.gauge_links, :3]
            rows.append(np.einsum("Ngs,Nkgs->Nkg", self.gauge_rows, omega) + gauge_extra)
        return np.concatenate(rows, axis=2).transpose(0, 2, 1)
