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
from mechanism.pairs import ScrewPair, Spherical, screw_matrices
from mechanism.transforms import cross, exp_so3, inverse, lie_bracket, log_so3, skew, transform_twists, unskew

from .graph import mechanism_graph, spanning_tree
from .loop_basis import independent_loops
from .passive import find_gauges, gauge_rates, gauge_rows, gauge_values
from .velocity import RANK_TOLERANCE

__all__ = ["KinematicSystem", "Configuration", "compile_model"]

_DIAGONAL = np.arange(3)


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
    """

    q: np.ndarray
    pair_matrices: np.ndarray
    link_poses: np.ndarray
    pair_frames: np.ndarray
    twists: np.ndarray
    rotations: np.ndarray  # (m, 3, 3) rotation blocks of the spherical pairs' matrices
    defects: tuple | None = None  # closure defects, filled on first request


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
        # their (angle, slide) are linear in q.
        screw = [(i, p) for i, p in enumerate(self.pairs) if isinstance(p.pair_type, ScrewPair)]
        self._screw_members = np.array([i for i, _ in screw], dtype=int)
        self._screw_map = np.zeros((2, len(screw), self.n))
        for row, (i, pair) in enumerate(screw):
            cols = np.arange(slices[pair.name].start, slices[pair.name].stop)
            self._screw_map[:, row, cols] = pair.pair_type.screw_coefficients.T
        self.spherical_pairs = np.array([i for i, p in enumerate(self.pairs)
                                            if isinstance(p.pair_type, Spherical)], dtype=int)
        self.spherical_columns = np.array([np.arange(slices[self.pairs[i].name].start,
                                                   slices[self.pairs[i].name].stop)
                                         for i in self.spherical_pairs], dtype=int).reshape(-1, 3)
        self._other_groups = [(pt, members, cols) for pt, members, cols in self._groups
                              if not isinstance(pt, (ScrewPair, Spherical))]
        # Twists that do not change with q are laid out once.
        self._constant_twists = np.zeros((self.n, 6))
        for pair_type, _, cols in self._groups:
            if not pair_type.twists_vary:
                self._constant_twists[cols.ravel()] = pair_type.twists(np.zeros(cols.shape)).reshape(-1, 6)

    def _stack_constants(self):
        self.frame_j = np.array([p.frame_on_first for p in self.pairs]).reshape(-1, 4, 4)
        self.frame_k = np.array([p.frame_on_second for p in self.pairs]).reshape(-1, 4, 4)
        self.frame_k_inv = inverse(self.frame_k)
        self.first = np.array([self.link_index[p.first] for p in self.pairs], dtype=int)
        self.second = np.array([self.link_index[p.second] for p in self.pairs], dtype=int)
        self.column_carrier = self.first[self.column_pair]

    def _compile_tree(self):
        depth = {GROUND: 0}
        levels: dict[int, list] = {}
        for edge in self.tree:
            depth[edge.child] = depth[edge.parent] + 1
            levels.setdefault(depth[edge.child], []).append(edge)
        self._levels = []
        for d in sorted(levels):
            edges = levels[d]
            self._levels.append((
                np.array([self.link_index[e.parent] for e in edges], dtype=int),
                np.array([self.link_index[e.child] for e in edges], dtype=int),
                np.array([self.pair_index[e.pair] for e in edges], dtype=int),
                np.array([not e.forward for e in edges], dtype=bool),
                any(not e.forward for e in edges),
            ))
        self._ground = self.link_index[GROUND]
        self.chord_pairs = np.array([self.pair_index[c] for c in self.chords], dtype=int)

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
        A = np.zeros(batch + (len(self.pairs), 4, 4))
        if len(self._screw_members):
            if q.ndim == 1:
                angle_slide = self._screw_map @ q
            else:
                angle_slide = np.einsum("kpn,...n->k...p", self._screw_map, q)
            A[..., self._screw_members, :, :] = screw_matrices(angle_slide[0], angle_slide[1])
        if rotations is None:
            rotations = (exp_so3(q[..., self.spherical_columns]) if len(self.spherical_pairs)
                         else np.zeros(batch + (0, 3, 3)))
        if len(self.spherical_pairs):
            A[..., self.spherical_pairs, :3, :3] = rotations
            A[..., self.spherical_pairs, 3, 3] = 1.0
        for pair_type, members, cols in self._other_groups:
            A[..., members, :, :] = pair_type.matrix(q[..., cols])
        S = self._constant_twists
        if self._varying_twists:
            S = np.array(np.broadcast_to(S, batch + S.shape))
            for pair_type, members, cols in self._varying_twists:
                S[..., cols.ravel(), :] = pair_type.twists(q[..., cols]).reshape(batch + (-1, 6))
        # Link matrix across each pair: T_first^-1 T_second = F_j A F_k^-1.
        across = self.frame_j @ A @ self.frame_k_inv
        T = np.empty(batch + (len(self.links), 4, 4))
        T[..., self._ground, :, :] = np.eye(4)
        for parents, children, pair_ids, backward, any_backward in self._levels:
            M = across[..., pair_ids, :, :]
            if any_backward:
                M[..., backward, :, :] = inverse(M[..., backward, :, :])
            T[..., children, :, :] = T[..., parents, :, :] @ M
        W = T[..., self.first, :, :] @ self.frame_j
        xi = transform_twists(W[..., self.column_pair, :, :], S)
        return Configuration(q, A, T, W, xi, rotations)

    def closure_defects(self, config: Configuration):
        """Closure defect of every loop at its chord (eq. 2): ``(rotation (..., L, 3) rad, gap (..., L, 3) m)``.

        The chord's frame k as reached through its first link, ``W_c A_c``, against the same
        frame on its second link, ``T_0(second) F_k``.
        """
        if config.defects is None:
            c = self.chord_pairs
            reached = config.pair_frames[..., c, :, :] @ config.pair_matrices[..., c, :, :]
            target = config.link_poses[..., self.second[c], :, :] @ self.frame_k[c]
            R = reached[..., :3, :3] @ np.swapaxes(target[..., :3, :3], -1, -2)
            # Near closure the antisymmetric part equals the rotation vector to third order
            # and costs a fraction of the logarithm; far from it (or near a half turn, where
            # sin vanishes) only the logarithm tells the truth.
            if np.all(R[..., _DIAGONAL, _DIAGONAL].sum(axis=-1) > 2.9):
                rotation = unskew(R)
            else:
                rotation = log_so3(R)
            gap = reached[..., :3, 3] - target[..., :3, 3]
            config.defects = (rotation, gap)
        return config.defects

    def residual(self, config: Configuration) -> np.ndarray:
        """Stacked defects ``(..., 6 L + k)``: per loop (rotation rad, gap m), then the k gauges (rad)."""
        rotation, gap = self.closure_defects(config)
        both = np.concatenate([rotation, gap], axis=-1)
        both = both.reshape(both.shape[:-2] + (-1,))
        if self.gauges:
            both = np.concatenate([both, gauge_values(self.gauges, config.link_poses)], axis=-1)
        return both

    def closure_error(self, config: Configuration):
        """Largest defect relative to size, ``max(|rotation|, |gap| / scale, |gauge|)``: float, or
        (...,) for a stack."""
        batch = config.q.shape[:-1]
        if not len(self.loops):
            return np.zeros(batch) if batch else 0.0
        rotation, gap = self.closure_defects(config)
        error = np.maximum(np.abs(rotation).max(axis=(-2, -1)), np.abs(gap).max(axis=(-2, -1)) / self.scale)
        if self.gauges:
            error = np.maximum(error, np.abs(gauge_values(self.gauges, config.link_poses)).max(axis=-1))
        return error if batch else float(error)

    def loop_centres(self, config: Configuration) -> np.ndarray:
        """Where each loop's equations take their translational part, (..., L, 3): the origin of
        its chord's frame k on the second link, the point whose gap :meth:`closure_defects`
        measures (it differs from frame j's origin by a sliding chord's slide)."""
        c = self.chord_pairs
        frames = config.link_poses[..., self.second[c], :, :] @ self.frame_k[c]
        return frames[..., :3, 3]

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
        form: ``sum_j B_j q_j' = 0``).
        """
        omega, v = config.twists[..., :3], config.twists[..., 3:]
        centres = self.loop_centres(config)
        inc = self.loop_incidence[:, :, None]
        # omega x c as rows: omega^T hat(c), one product per loop.
        at_centre = v[..., None, :, :] + omega[..., None, :, :] @ skew(centres)
        B = np.concatenate([inc * omega[..., None, :, :], inc * at_centre], axis=-1)
        B = np.swapaxes(B, -1, -2)
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
        centres = self.loop_centres(config)
        w, v = spatial[..., :3], spatial[..., 3:]
        shifted = np.concatenate([w, v + cross(w, centres)], axis=-1)
        return shifted.reshape(shifted.shape[:-2] + (-1,))

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
        rates = lie_bracket(link_velocities[..., self.column_carrier, :], config.twists)
        batch = rates.shape[:-2]
        for pair_type, members, cols in self._varying_twists:
            own = pair_type.twist_rates(config.q[..., cols], np.asarray(q_dot)[..., cols])
            frames = config.pair_frames[..., np.repeat(members, cols.shape[1]), :, :]
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
