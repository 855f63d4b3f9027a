"""The compiled kinematic system: link matrices along the tree, loop products, twist columns.

:class:`KinematicSystem` turns a frozen :class:`mechanism.specs.Model` into index arrays
and stacked constant matrices once, so that evaluating a configuration is a handful of
batched numpy operations:

* pair matrices ``A_p(q)`` for all pairs of one type at once (``(P, 4, 4)``);
* absolute link matrices ``T_0i`` as products along the spanning tree (eq. 5), one
  batched product per tree level: ``T_child = T_parent F_j A F_k^-1`` (forward) or its
  inverse (a pair walked from its second link to its first);
* the world pose ``W_p = T_0(first) F_j`` of each pair's frame j and the unit twists of the
  pair variables in the global frame, ``xi = Ad(W_p) S(q)``;
* per loop, the closure defect of its chord (eq. 2 written at the chord:
  ``W_c A_c`` must equal ``T_0(second) F_k``), as a rotation vector (rad) and a gap (m);
* the stacked linearized closure ``B dq = W`` (eq. 3) in twist form: the column of a
  variable is its world twist, signed by the direction the loop walks its pair, with the
  translational part taken at the chord's pair centre.

Variables are ordered pair by pair in declaration order (``variable_names``); the virtual
pairs of point drivers come last. Lengths are SI; ``scale`` is the mechanism's size (m),
used to weigh rotations against translations and to state tolerances relative to size.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from mechanism.errors import ModelError
from mechanism.points import road_loop
from mechanism.specs import GROUND
from mechanism.pairs import SCREW_BASIS, ScrewPair, Spherical, fill_screw_terms
from mechanism.transforms import (exp_so3, inverse, lie_bracket, log_so3, point_shift_matrices, transform_twists,
                                  unskew)

from .graph import mechanism_graph, spanning_tree
from .loop_basis import independent_loops
from .passive import find_gauges, gauge_rates, gauge_rows, gauge_values
from .velocity import RANK_TOLERANCE

__all__ = ["KinematicSystem", "Configuration", "compile_model"]

_IDENTITY = np.eye(4)
_IDENTITY.flags.writeable = False
_SCREW_BASIS_ROWS = SCREW_BASIS.reshape(4, 16)


@dataclass
class Configuration:
    """One evaluated configuration (the result of :meth:`KinematicSystem.evaluate`).

    Attributes
    ----------
    q : (n,) pair variables (rad or m; spherical pairs as rotation vectors)
    pair_matrices : (P, 4, 4) ``A_p(q)``
    link_poses : (L, 4, 4) ``T_0i``, global, identity at the design pose
    pair_frames : (P, 4, 4) ``W_p = T_0(first) F_j``, world pose of each pair's frame j
    twists : (n, 6) unit twists ``(omega, v)`` of the variables, global frame, origin-referenced
    rotations : (m, 3, 3) rotation blocks of the spherical pairs' matrices
    defects : closure defects (:meth:`KinematicSystem.closure_defects`), filled on first request
    chord_frames : (loops, 4, 4) ``T_0(second) F_k`` of every loop's chord, filled on first request
    gauge_swings : per gauge, the swing (3,) of its link (:mod:`loops.passive`), filled on first request
    """

    q: np.ndarray
    pair_matrices: np.ndarray
    link_poses: np.ndarray
    pair_frames: np.ndarray
    twists: np.ndarray
    rotations: np.ndarray
    defects: tuple | None = None
    chord_frames: np.ndarray | None = None
    gauge_swings: list | None = None


class KinematicSystem:
    """A model compiled for repeated evaluation.

    Parameters
    ----------
    model : mechanism.specs.Model
    with_point_drivers : bool
        Include the road loops of point drivers (False for the mobility report, which
        describes the mechanism without its virtual links).
    """

    def __init__(self, model, with_point_drivers: bool = True):
        self.model = model
        links = list(model.links)
        pairs = list(model.pairs)
        real_pairs = [p.name for p in pairs]
        if with_point_drivers:
            points = {p.name: p for p in model.points}
            for driver in model.point_drivers:
                extra_links, extra_pairs = road_loop(driver, points[driver.point])
                links += extra_links
                pairs += extra_pairs
        self.links = links
        self.pairs = pairs
        self.link_names = [link.name for link in links]
        self.link_index = {name: i for i, name in enumerate(self.link_names)}
        self.pair_index = {p.name: i for i, p in enumerate(pairs)}
        pairs_by_name = {p.name: p for p in pairs}

        graph = mechanism_graph(links, pairs)
        self.graph = graph
        self.tree, self.chords = spanning_tree(graph, GROUND, preferred=real_pairs)
        self.loops = independent_loops(self.tree, self.chords, pairs_by_name, len(links))

        self._layout_variables()
        self._stack_constants()
        self._compile_tree()
        self._compile_incidence()
        self.gauges = []
        self.scale = self._size()
        reference = self.evaluate(self.reference_q())
        if self.closure_error(reference) < 1e-8:
            # Idle spins are fixed by a gauge equation each (loops.passive).
            self.gauges = find_gauges(self, reference)
        self.nominal_rank = self._rank(reference)
        #: Degrees of freedom (idle spins excluded; road loops add none).
        self.dof = self.n - self.nominal_rank

    # ------------------------------------------------------------- compiling
    def _layout_variables(self):
        names, col_pair, rotational, slices = [], [], [], {}
        public = []
        for i, pair in enumerate(self.pairs):
            start = len(names)
            names += pair.variable_names()
            col_pair += [i] * pair.size
            rotational += list(pair.pair_type.rotational)
            public += [not pair.virtual] * pair.size
            slices[pair.name] = slice(start, start + pair.size)
        self.variable_names = names
        self.variable_index = {name: i for i, name in enumerate(names)}
        self.n = len(names)
        self.column_pair = np.array(col_pair, dtype=int)
        self.rotational = np.array(rotational, dtype=bool)
        self.public = np.array(public, dtype=bool)
        self.pair_slices = slices
        # Columns of lengths are scaled by the model size so that B is dimensionless.
        groups = {}
        for i, pair in enumerate(self.pairs):
            groups.setdefault(repr(pair.pair_type), (pair.pair_type, []))[1].append(i)
        self._groups = []
        for pair_type, members in groups.values():
            cols = np.array([np.arange(slices[self.pairs[i].name].start,
                                       slices[self.pairs[i].name].stop) for i in members], dtype=int)
            self._groups.append((pair_type, np.array(members, dtype=int), cols))
        self._varying_twists = [(pt, members, cols) for pt, members, cols in self._groups if pt.twists_vary]
        #: True when some pair's twists turn with its own variables (a Hooke pair).
        self.twists_vary = bool(self._varying_twists)
        # Screw-type pairs (revolute, prismatic, cylindrical, helical) are evaluated together:
        # their (angle, slide) are linear in q, and one product lays them out as rows
        # (g, 0, 0, s) for mechanism.pairs.fill_screw_terms.
        screw = [(i, p) for i, p in enumerate(self.pairs) if isinstance(p.pair_type, ScrewPair)]
        self._screw_members = np.array([i for i, _ in screw], dtype=int)
        self._all_screw = len(screw) == len(self.pairs)
        terms_map = np.zeros((self.n, len(screw), 4))
        for row, (i, pair) in enumerate(screw):
            cols = np.arange(slices[pair.name].start, slices[pair.name].stop)
            terms_map[cols, row, 0] = pair.pair_type.screw_coefficients[:, 0]
            terms_map[cols, row, 3] = pair.pair_type.screw_coefficients[:, 1]
        self._screw_terms_map = terms_map.reshape(self.n, -1)
        self._screw_row = {i: row for row, (i, _) in enumerate(screw)}
        self.spherical_pairs = np.array([i for i, p in enumerate(self.pairs)
                                            if isinstance(p.pair_type, Spherical)], dtype=int)
        self.spherical_columns = np.array([np.arange(slices[self.pairs[i].name].start,
                                                   slices[self.pairs[i].name].stop)
                                         for i in self.spherical_pairs], dtype=int).reshape(-1, 3)
        self._other_groups = [(pt, members, cols) for pt, members, cols in self._groups
                              if not isinstance(pt, (ScrewPair, Spherical))]
        # Pair matrices are made group by group (screw pairs, spherical pairs, then the other
        # groups), stacked, and put in pair order by one gather.
        grouped = np.concatenate([self._screw_members, self.spherical_pairs]
                                 + [members for _, members, _ in self._other_groups]).astype(int)
        self._pair_from_groups = np.argsort(grouped)
        # Twists that do not change with q are laid out once; varying ones are stacked after
        # them and put in column order the same way.
        self._constant_twists = np.zeros((self.n, 6))
        for pair_type, _, cols in self._groups:
            if not pair_type.twists_vary:
                self._constant_twists[cols.ravel()] = pair_type.twists(np.zeros(cols.shape)).reshape(-1, 6)
        varying = np.concatenate([cols.ravel() for _, _, cols in self._varying_twists] + [np.zeros(0, int)])
        constant = np.setdiff1d(np.arange(self.n), varying)
        self._constant_rows = self._constant_twists[constant]
        self._column_from_pieces = np.argsort(np.concatenate([constant, varying]))

    def _stack_constants(self):
        self.frame_j = np.array([p.frame_on_first for p in self.pairs]).reshape(-1, 4, 4)
        self.frame_k = np.array([p.frame_on_second for p in self.pairs]).reshape(-1, 4, 4)
        self.frame_k_inv = inverse(self.frame_k)
        self.first = np.array([self.link_index[p.first] for p in self.pairs], dtype=int)
        self.second = np.array([self.link_index[p.second] for p in self.pairs], dtype=int)
        self.column_carrier = self.first[self.column_pair]
        self._one_variable_per_pair = bool(np.array_equal(self.column_pair, np.arange(len(self.pairs))))

    def _compile_tree(self):
        """Tree edges in level order, with the constants of the link matrix across each.

        Across a tree edge the child's pose is ``T_child = T_parent E`` with ``E = F_j A F_k^-1``
        walked forward (parent = first link), ``E = F_k A^-1 F_j^-1`` backward. For a screw
        pair ``A^-1 = A(-g, -s)``, whose terms are ``(cos g, -sin g, 1, -s)``, so either way
        ``E = sum_i terms_i C_i`` with constants ``C_i = left (+-SCREW_BASIS[i]) right``: one
        product per evaluation. Other pairs' edges are multiplied out (and inverted).
        Poses are built in tree order (ground, then each level's children), where each
        level's children are a contiguous block.
        """
        depth = {GROUND: 0}
        levels: dict[int, list] = {}
        for edge in self.tree:
            depth[edge.child] = depth[edge.parent] + 1
            levels.setdefault(depth[edge.child], []).append(edge)
        edges = [edge for d in sorted(levels) for edge in levels[d]]
        position = {GROUND: 0} | {edge.child: i + 1 for i, edge in enumerate(edges)}
        #: Row of each link (link order) in the tree-ordered poses.
        self._link_position = np.array([position[name] for name in self.link_names], dtype=int)
        self._tree_in_link_order = bool(np.array_equal(self._link_position, np.arange(len(self.links))))
        self._first_position = self._link_position[self.first]
        self._levels = []  # (start, stop, parent rows) of every level below the first, tree rows
        start = 1 + len(levels.get(1, []))
        for d in sorted(levels)[1:]:
            stop = start + len(levels[d])
            self._levels.append((start, stop, np.array([position[e.parent] for e in levels[d]], dtype=int)))
            start = stop

        pair_ids = np.array([self.pair_index[e.pair] for e in edges], dtype=int)
        forward = np.array([e.forward for e in edges], dtype=bool)
        screw = np.array([p in self._screw_row for p in pair_ids], dtype=bool)
        frame_j_inv = inverse(self.frame_j)
        sign = np.array([1.0, -1.0, 1.0, -1.0])[:, None, None]
        rows = [self._screw_row[p] for p in pair_ids[screw]]
        constants = [self.frame_j[p] @ SCREW_BASIS @ self.frame_k_inv[p] if fwd
                     else self.frame_k[p] @ (sign * SCREW_BASIS) @ frame_j_inv[p]
                     for p, fwd in zip(pair_ids[screw], forward[screw])]
        self._tree_all_screw = bool(screw.all()) and len(self._screw_members) > 0
        if len(self._screw_members):
            # The ground's identity: the unit term times I, nothing else (any pair's terms).
            identity = np.zeros((4, 4, 4))
            identity[2] = np.eye(4)
            rows, constants = [0] + rows, [identity] + constants
        self._edge_screw_rows = np.array(rows, dtype=int)
        self._edge_screw_constants = np.array(constants).reshape(-1, 4, 16)
        # Other pairs' edges: forward ones, then backward ones, after the screw rows (or after
        # the ground's identity when there is no screw pair), put in tree order by one gather.
        other_forward = ~screw & forward
        other_backward = ~screw & ~forward
        self._edge_forward_pairs = pair_ids[other_forward]
        self._edge_forward_left = self.frame_j[self._edge_forward_pairs]
        self._edge_forward_right = self.frame_k_inv[self._edge_forward_pairs]
        self._edge_backward_pairs = pair_ids[other_backward]
        self._edge_backward_left = self.frame_j[self._edge_backward_pairs]
        self._edge_backward_right = self.frame_k_inv[self._edge_backward_pairs]
        rows_in_pieces = np.concatenate([[0], 1 + np.flatnonzero(screw), 1 + np.flatnonzero(other_forward),
                                         1 + np.flatnonzero(other_backward)]).astype(int)
        self._tree_from_pieces = np.argsort(rows_in_pieces)
        self.chord_pairs = np.array([self.pair_index[c] for c in self.chords], dtype=int)
        self._chord_second = self.second[self.chord_pairs]
        self._chord_frame_k = self.frame_k[self.chord_pairs]

    def _compile_incidence(self):
        """Signed incidence of variables in link paths (links x n) and loops (loops x n)."""
        n_links, n_pairs = len(self.links), len(self.pairs)
        path = np.zeros((n_links, n_pairs))
        for edge in self.tree:  # parents come first, so their rows are complete
            parent, child = self.link_index[edge.parent], self.link_index[edge.child]
            path[child] = path[parent]
            path[child, self.pair_index[edge.pair]] = 1.0 if edge.forward else -1.0
        loop = np.zeros((len(self.loops), n_pairs))
        for i, c in enumerate(self.chord_pairs):
            loop[i] = path[self.first[c]] - path[self.second[c]]
            loop[i, c] = 1.0
        self.link_incidence = path[:, self.column_pair]
        self.loop_incidence = loop[:, self.column_pair]
        self._loop_incidence_rows = self.loop_incidence[:, None, :]  # against (..., L, 6, n)

    def _size(self) -> float:
        """Characteristic size (m): diagonal of the box around the pair centres at the reference
        (frame j and frame k origins; link frames' origins are wherever the global origin is)."""
        config = self.evaluate(self.reference_q())
        frames_k = config.link_poses[self.second] @ self.frame_k
        centres = np.concatenate([config.pair_frames[:, :3, 3], frames_k[:, :3, 3]])
        size = float(np.linalg.norm(np.ptp(centres, axis=0)))
        return size if size > 1e-9 else 1.0

    def _rank(self, config) -> int:
        """Numerical rank of the dimensionless constraint matrix (loops and gauges) at ``config``."""
        B = self.constraint_matrix(config) * self.row_scale[:, None] * self.column_scale[None, :]
        if not B.size:
            return 0
        s = np.linalg.svd(B, compute_uv=False)
        return int(np.sum(s > RANK_TOLERANCE * max(s[0], 1.0)))

    # -------------------------------------------------------------- values
    def reference_q(self) -> np.ndarray:
        """Variables at the reference assembly: zeros at the design pose, else ``assemble``'s."""
        q = np.zeros(self.n)
        for name, values in self.model.reference:
            if name in self.pair_slices:
                q[self.pair_slices[name]] = values
        return q

    def advance(self, q, dq):
        """``q`` moved by ``dq`` along the variables' twists (re-seats spherical pairs)."""
        q_new, rotations = self.step(q, dq, exp_so3(np.asarray(q)[..., self.spherical_columns]))
        return self.seat(q_new, rotations)

    def step(self, q, dq, rotations):
        """Move by ``dq`` from ``q`` whose spherical pairs have rotation blocks ``rotations``.

        Spherical increments are rotations about frame j's axes: ``R <- exp(hat(dw)) R``
        (:meth:`mechanism.pairs.Spherical.rotate`). Returns ``(q_new, rotations_new)`` for
        :meth:`evaluate`; the spherical slots of ``q_new`` are stale until :meth:`seat`
        (iterations need only the rotation blocks, and the logarithm is costly).
        Shapes: ``q, dq (..., n)``, ``rotations (..., m, 3, 3)``.
        """
        out = q + dq
        if len(self.spherical_pairs):
            rotations = Spherical.rotate(rotations, dq[..., self.spherical_columns])
        return out, rotations

    def seat(self, q, rotations):
        """Write the spherical pairs' rotation vectors ``log(R)`` into ``q`` (in place); returns ``q``."""
        if len(self.spherical_pairs):
            q[..., self.spherical_columns] = log_so3(rotations)
        return q

    # ---------------------------------------------------------- evaluation
    def evaluate(self, q, rotations=None) -> Configuration:
        """Pair matrices, link poses (eq. 5), pair frames and world twists at ``q``.

        ``q`` is ``(n,)`` or a stack ``(..., n)``; every array of the result gets the same
        leading axes. ``rotations`` ``(..., m, 3, 3)``, when known (from :meth:`step`), spares
        re-exponentiating the spherical pairs' rotation vectors.
        """
        q = np.asarray(q, dtype=float)
        batch = q.shape[:-1]
        terms = fill_screw_terms((q @ self._screw_terms_map).reshape(batch + (len(self._screw_members), 4)))
        A = (terms @ _SCREW_BASIS_ROWS).reshape(batch + (-1, 4, 4))
        if rotations is None:
            rotations = (exp_so3(q.take(self.spherical_columns, axis=-1)) if len(self.spherical_pairs)
                         else np.zeros(batch + (0, 3, 3)))
        if not self._all_screw:
            spherical = np.zeros(batch + (len(self.spherical_pairs), 4, 4))
            spherical[..., :3, :3] = rotations
            spherical[..., 3, 3] = 1.0
            A = np.concatenate([A, spherical] + [pair_type.matrix(q.take(cols, axis=-1))
                                                 for pair_type, _, cols in self._other_groups], axis=-3)
            A = A.take(self._pair_from_groups, axis=-3)
        S = self._constant_twists
        if self._varying_twists:
            constant = (np.broadcast_to(self._constant_rows, batch + self._constant_rows.shape) if batch
                        else self._constant_rows)
            S = np.concatenate([constant] + [pair_type.twists(q.take(cols, axis=-1)).reshape(batch + (-1, 6))
                                             for pair_type, _, cols in self._varying_twists], axis=-2)
            S = S.take(self._column_from_pieces, axis=-2)
        T = self._tree_matrices(terms, A, batch)  # in tree order until the end
        for start, stop, parents in self._levels:
            T[..., start:stop, :, :] = T.take(parents, axis=-3) @ T[..., start:stop, :, :]
        W = T.take(self._first_position, axis=-3) @ self.frame_j
        if not self._tree_in_link_order:
            T = T.take(self._link_position, axis=-3)
        xi = transform_twists(W if self._one_variable_per_pair else W.take(self.column_pair, axis=-3), S)
        return Configuration(q, A, T, W, xi, rotations)

    def _tree_matrices(self, terms, A, batch):
        """Identity, then the link matrix ``E`` across every tree edge, in tree order
        (:meth:`_compile_tree`): ``(..., links, 4, 4)``, each level's poses once multiplied by
        their parents'."""
        E = (terms.take(self._edge_screw_rows, axis=-2)[..., None, :]
             @ self._edge_screw_constants).reshape(batch + (-1, 4, 4))
        if self._tree_all_screw:
            return E
        pieces = [E] if len(self._screw_members) else [np.broadcast_to(_IDENTITY, batch + (1, 4, 4))]
        if len(self._edge_forward_pairs):
            pieces.append(self._edge_forward_left @ A.take(self._edge_forward_pairs, axis=-3)
                          @ self._edge_forward_right)
        if len(self._edge_backward_pairs):
            pieces.append(inverse(self._edge_backward_left @ A.take(self._edge_backward_pairs, axis=-3)
                                  @ self._edge_backward_right))
        return np.concatenate(pieces, axis=-3).take(self._tree_from_pieces, axis=-3)

    def closure_defects(self, config: Configuration):
        """Closure defect of every loop at its chord (eq. 2): ``(rotation (..., L, 3) rad, gap (..., L, 3) m)``.

        The chord's frame k as reached through its first link, ``W_c A_c``, against the same
        frame on its second link, ``T_0(second) F_k``.
        """
        if config.defects is None:
            c = self.chord_pairs
            reached = config.pair_frames.take(c, axis=-3) @ config.pair_matrices.take(c, axis=-3)
            target = self._chord_frames(config)
            R = reached[..., :3, :3] @ target[..., :3, :3].swapaxes(-1, -2)
            # Near closure the antisymmetric part equals the rotation vector to third order
            # and costs a fraction of the logarithm; far from it (or near a half turn, where
            # sin vanishes) only the logarithm tells the truth.
            entries = R.reshape(R.shape[:-2] + (9,))
            if ((entries[..., 0] + entries[..., 4] + entries[..., 8]) > 2.9).all():
                rotation = unskew(R)
            else:
                rotation = log_so3(R)
            gap = reached[..., :3, 3] - target[..., :3, 3]
            config.defects = (rotation, gap)
        return config.defects

    def _chord_frames(self, config: Configuration) -> np.ndarray:
        """``T_0(second) F_k`` of every loop's chord, (..., L, 4, 4): cached on ``config``."""
        if config.chord_frames is None:
            config.chord_frames = config.link_poses.take(self._chord_second, axis=-3) @ self._chord_frame_k
        return config.chord_frames

    def residual(self, config: Configuration) -> np.ndarray:
        """Stacked defects ``(..., 6 L + k)``: per loop (rotation rad, gap m), then the k gauges (rad)."""
        rotation, gap = self.closure_defects(config)
        both = np.concatenate([rotation, gap], axis=-1)
        both = both.reshape(both.shape[:-2] + (-1,))
        if self.gauges:
            both = np.concatenate([both, gauge_values(self.gauges, config)], axis=-1)
        return both

    def closure_error(self, config: Configuration):
        """Largest defect relative to size, ``max(|rotation|, |gap| / scale, |gauge|)``: float, or
        (...,) for a stack."""
        batch = config.q.shape[:-1]
        if not len(self.loops):
            return np.zeros(batch) if batch else 0.0
        rotation, gap = self.closure_defects(config)
        # Division is monotonic, so the largest |gap| / scale is the largest |gap| divided.
        relative = np.concatenate([rotation, gap / self.scale], axis=-1)
        if self.gauges:
            relative = np.concatenate([relative.reshape(batch + (-1,)),
                                       gauge_values(self.gauges, config)], axis=-1)
        error = np.abs(relative).reshape(batch + (-1,)).max(axis=-1)
        return error if batch else float(error)

    def loop_centres(self, config: Configuration) -> np.ndarray:
        """Where each loop's equations take their translational part, (..., L, 3): the origin of
        its chord's frame k on the second link, the point whose gap :meth:`closure_defects`
        measures (it differs from frame j's origin by a sliding chord's slide)."""
        return self._chord_frames(config)[..., :3, 3]

    def constraint_matrix(self, config: Configuration) -> np.ndarray:
        """Linearized closure ``B`` (eq. 3) and gauges of idle spins, shape ``(..., 6 L + k, n)``."""
        B = self.loop_matrix(config)
        if self.gauges:
            B = np.concatenate([B, gauge_rows(self.gauges, config, self.link_incidence)], axis=-2)
        return B

    def loop_matrix(self, config: Configuration) -> np.ndarray:
        """Linearized closure ``B`` (eq. 3) in twist form, shape ``(..., 6 L, n)``.

        Rows per loop: rotation (3), then the velocity of the point at the chord centre (3);
        column j is the world twist of variable j signed by the loop's walk (eq. 4 in twist
        form: ``sum_j B_j q_j' = 0``), referred to the centre: ``(omega, v + omega x c)``.
        """
        columns = config.twists.swapaxes(-1, -2)[..., None, :, :]  # (..., 1, 6, n)
        B = point_shift_matrices(self.loop_centres(config)) @ columns
        B *= self._loop_incidence_rows
        return B.reshape(B.shape[:-3] + (-1, self.n))

    def velocity_product_rhs(self, config: Configuration, q_dot, terms) -> np.ndarray:
        """The rate-only part of the differentiated equations, ``(..., 6 L + k)``.

        Loops: ``sum_k xi_k' q_k'`` (``terms``, (..., n, 6)) referred to the chord centres;
        gauges: :func:`loops.passive.gauge_rates`.
        """
        rhs = self.shift_to_centres(self.loop_incidence @ terms, config)
        if self.gauges:
            rates = gauge_rates(self.gauges, config, self.link_velocities(config, q_dot),
                                self.link_incidence @ terms)
            rhs = np.concatenate([rhs, rates], axis=-1)
        return rhs

    def shift_to_centres(self, spatial, config: Configuration) -> np.ndarray:
        """Loop equations ``(..., L, 6)`` of spatial vectors referred to the chord centres, ``(..., 6 L)``.

        ``(w, v) -> (w, v + w x c)``: the same transform that gives the rows of
        :meth:`constraint_matrix` from origin-referenced twists.
        """
        shifted = point_shift_matrices(self.loop_centres(config)) @ spatial[..., None]
        return shifted.reshape(shifted.shape[:-3] + (-1,))

    # ------------------------------------------------------------ scaling
    @cached_property
    def row_scale(self) -> np.ndarray:
        """Row weights making ``B`` dimensionless: 1 for rotations and gauges, 1/scale for gaps, (6 L + k,)."""
        loops = np.tile(np.r_[np.ones(3), np.full(3, 1.0 / self.scale)], len(self.loops))
        return np.r_[loops, np.ones(len(self.gauges))]

    @cached_property
    def column_scale(self) -> np.ndarray:
        """Column weights: 1 for angles, scale for lengths (a slide of one size is one unit), (n,)."""
        return np.where(self.rotational, 1.0, self.scale)

    # --------------------------------------------------------- link motion
    def link_velocities(self, config: Configuration, q_dot) -> np.ndarray:
        """Spatial velocities ``(omega, v)`` of every link, global, origin-referenced: (..., L, 6)."""
        return self.link_incidence @ (config.twists * np.asarray(q_dot)[..., None])

    def twist_rates(self, config: Configuration, q_dot, link_velocities) -> np.ndarray:
        """``d xi_j / dt`` of every variable's world twist, (..., n, 6).

        A pair's frame j is carried by its first link, so ``xi' = [V_first, xi] + Ad(W) S'``
        (the Lie bracket with the carrier's velocity, plus the pair's own change of twist,
        non-zero only for the Hooke pair's second pin).
        """
        rates = lie_bracket(link_velocities.take(self.column_carrier, axis=-2), config.twists)
        batch = rates.shape[:-2]
        for pair_type, members, cols in self._varying_twists:
            own = pair_type.twist_rates(config.q[..., cols], np.asarray(q_dot)[..., cols])
            frames = config.pair_frames.take(self.column_pair[cols.ravel()], axis=-3)
            rates[..., cols.ravel(), :] += transform_twists(frames, own.reshape(batch + (-1, 6)))
        return rates

    def public_variables(self) -> list[str]:
        """Variables users see: every real pair variable, and point-driver variables."""
        return [name for name, shown in zip(self.variable_names, self.public) if shown]

    def driver_columns(self, names, role="driver") -> np.ndarray:
        """Column indices of the variables ``names``, validated: public, additive, distinct.

        ``role`` names them in errors (``"driver"``, ``"coordinate"``): ``ModelError`` at
        ``"<role> 'X'"`` for a name that is not a pair variable, a whole multi-variable
        pair, a spherical component (its value is a rotation vector) or a repeat.
        """
        choose, cannot = (("drive", "be driven") if role == "driver" else ("name", f"be a {role}"))
        cols = []
        for name in names:
            where = f"{role} {name!r}"
            if not isinstance(name, str) or name not in self.variable_index \
                    or not self.public[self.variable_index[name]]:
                pair = self.pairs[self.pair_index[name]] if isinstance(name, str) and name in self.pair_index else None
                if pair is not None and pair.size > 1:
                    raise ModelError(where, f"pair {name!r} has {pair.size} variables; "
                                     f"{choose} one of {', '.join(pair.variable_names())}")
                known = ", ".join(self.public_variables())
                raise ModelError(where, f"not a pair variable or point driver (known: {known})")
            col = self.variable_index[name]
            if not self.pairs[self.column_pair[col]].pair_type.additive:
                raise ModelError(where, f"a spherical-pair component cannot {cannot} "
                                 "(its value is a rotation vector); choose another pair variable")
            if col in cols:
                raise ModelError(where, "given twice")
            cols.append(col)
        return np.array(cols, dtype=int)


_CACHE: dict = {}


def compile_model(model, with_point_drivers: bool = True) -> KinematicSystem:
    """Compiled system of a frozen model, cached per (snapshot, road loops) for reuse."""
    key = (id(model), with_point_drivers)
    hit = _CACHE.get(key)
    if hit is not None and hit.model is model:
        return hit
    if len(_CACHE) > 64:
        _CACHE.clear()
    system = KinematicSystem(model, with_point_drivers)
    _CACHE[key] = system
    return system
