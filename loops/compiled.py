"""The compiled system: a frozen model turned into the arrays the kernels work on.

A :class:`CompiledSystem` is data, not behaviour (algorithms never modify it; Pinocchio's
rule): the spanning tree and loops of the link/pair graph (:mod:`loops.graph`,
:mod:`loops.loop_basis`), the variables laid out pair by pair, and two named tuples of
read-only arrays that every kernel takes:

``Topology`` (shared by every design variant of the model)
    counts ``n`` (variables), ``pairs``, ``links``, ``loops``, ``gauges``, ``spheres`` and the
    ``ground`` link's index; per pair its ``family`` (code in :data:`mechanism.pairs.FAMILIES`),
    ``parameters`` (its constants, :meth:`~mechanism.pairs.PairType.parameters`),
    ``start``/``size`` of its variables, ``first``/``second`` link and ``sphere`` (index of its
    rotation state, or -1); per variable its ``column_pair`` and ``rotational`` flag; the
    tree as ``tree_order`` (child links, parents first), ``parent``, ``tree_pair`` and
    ``forward`` (+1 when the tree walks the pair from its first link) per link; per loop
    its ``chord`` pair and its variables as ``loop_ptr``/``loop_cols``/``loop_signs``
    (the signed loop incidence: +1 when the loop walks the variable's pair from its first
    link); the ``gauge_link`` of each idle-spin gauge; ``sphere_columns`` (m, 3).
``Geometry`` (what a hardpoint changes)
    ``frame_j``/``frame_k`` (P, 4, 4) pair frames in their links' frames, ``scale`` (m, the
    mechanism's size, which makes rotations and gaps comparable), ``gauge_axis`` (G, 3) and
    ``gauge_reference`` (G, 3, 3) (:mod:`loops.passive`).

Variables are ordered pair by pair in declaration order (``variable_names``); the virtual
pairs of point drivers come last. Lengths are SI.
"""

from __future__ import annotations

import numpy as np

from mechanism.errors import ModelError
from mechanism.limits import COINCIDENT_SIZE, MAX_OFFSET_RATIO, MIN_SIZE
from mechanism.pairs import compiled_parameters
from mechanism.points import road_loop
from mechanism.specs import GROUND

from .graph import adjacency_tree, pair_adjacency
from .kernels.state import Geometry, Topology
from .loop_basis import independent_loops

__all__ = ["Topology", "Geometry", "CompiledSystem", "compile_model"]


def _frozen(values, dtype=float):
    out = np.ascontiguousarray(values, dtype=dtype)
    out.setflags(write=False)
    return out


class CompiledSystem:
    """A frozen model compiled for evaluation (see the module docstring).

    Parameters
    ----------
    model : mechanism.specs.Model
    with_point_drivers : bool
        Include the road loops of point drivers (False for the mobility report, which
        describes the mechanism without its virtual links).

    Attributes
    ----------
    model, links, pairs (virtual ones included), link_names, link_index, pair_index
    variable_names, variable_index, n, pair_slices
    rotational, public : (n,) bool, angle variables; variables users see
    loops : list of loops.loop_basis.Loop
    tree : list of loops.graph.TreeEdge
    topology : Topology; geometry : Geometry
    scale : float, m
    gauges : list of loops.passive.Gauge
    spherical_columns : (m, 3) int
    """

    def __init__(self, model, with_point_drivers: bool = True):
        self.model = model
        if not model.pairs:
            raise ModelError(f"mechanism {model.name!r}", "has no pairs: add at least one pair (add_pair) to "
                             "analyse it")
        links, pairs = list(model.links), list(model.pairs)
        real_pairs = [p.name for p in pairs]
        if with_point_drivers:
            points = {p.name: p for p in model.points}
            for driver in model.point_drivers:
                extra_links, extra_pairs = road_loop(driver, points[driver.point])
                links += extra_links
                pairs += extra_pairs
        self.links, self.pairs = links, pairs
        self.link_names = [link.name for link in links]
        self.link_index = {name: i for i, name in enumerate(self.link_names)}
        self.pair_index = {p.name: i for i, p in enumerate(pairs)}
        self.tree, self.chords = adjacency_tree(pair_adjacency(links, pairs), GROUND, preferred=real_pairs)
        self.loops = independent_loops(self.tree, self.chords, {p.name: p for p in pairs}, len(links))
        self._pairs_of = None
        self._layout_variables()
        self.topology = self._topology(gauge_links=())
        self.geometry = self._geometry(scale=1.0, gauges=())
        self.gauges = []
        from .configuration import evaluate  # noqa: PLC0415 (configuration needs this class)
        reference = evaluate(self, self.reference_q())
        _check_extent(self, reference)
        self.scale = _size(self, reference)
        self.geometry = self._geometry(self.scale, ())
        if reference.closure_error() < 1e-8:
            from .passive import find_gauges  # noqa: PLC0415
            self.gauges = find_gauges(self, evaluate(self, self.reference_q()))
            if self.gauges:
                self.topology = self._topology([g.link for g in self.gauges])
                self.geometry = self._geometry(self.scale, self.gauges)

    def _layout_variables(self):
        names, column_pair, rotational, public, slices = [], [], [], [], {}
        for i, pair in enumerate(self.pairs):
            start = len(names)
            names += pair.variable_names()
            column_pair += [i] * pair.size
            rotational += list(pair.pair_type.rotational)
            public += [not pair.virtual] * pair.size
            slices[pair.name] = slice(start, start + pair.size)
        self.variable_names = names
        self.variable_index = {name: i for i, name in enumerate(names)}
        self.n = len(names)
        self.pair_slices = slices
        self.rotational = _frozen(rotational, bool)
        self.public = _frozen(public, bool)
        self.additive = _frozen([self.pairs[p].pair_type.additive for p in column_pair], bool)
        spherical = [i for i, p in enumerate(self.pairs) if p.pair_type.rotation_state]
        self.spherical_pairs = _frozen(spherical, np.int64)
        self.spherical_columns = _frozen(
            np.array([np.arange(slices[self.pairs[i].name].start, slices[self.pairs[i].name].stop)
                      for i in spherical], dtype=np.int64).reshape(-1, 3), np.int64)
        self._column_pair = np.array(column_pair, dtype=np.int64)

    def _topology(self, gauge_links):
        pairs = self.pairs
        families, parameters = compiled_parameters([pair.pair_type for pair in pairs])
        sphere = np.full(len(pairs), -1, dtype=np.int64)
        sphere[self.spherical_pairs] = np.arange(len(self.spherical_pairs))
        n_links = len(self.links)
        parent = np.full(n_links, -1, dtype=np.int64)
        tree_pair = np.full(n_links, -1, dtype=np.int64)
        forward = np.zeros(n_links, dtype=np.int64)
        order = []
        for edge in self.tree:  # parents come first
            child = self.link_index[edge.child]
            parent[child] = self.link_index[edge.parent]
            tree_pair[child] = self.pair_index[edge.pair]
            forward[child] = 1 if edge.forward else -1
            order.append(child)
        self._depth = np.zeros(n_links, dtype=np.int64)  # links from the ground along the tree
        for child in order:
            self._depth[child] = self._depth[parent[child]] + 1
        first = np.array([self.link_index[p.first] for p in pairs], dtype=np.int64)
        second = np.array([self.link_index[p.second] for p in pairs], dtype=np.int64)
        chord = np.array([self.pair_index[c] for c in self.chords], dtype=np.int64)
        loop_ptr, loop_cols, loop_signs = [0], [], []
        for c in chord:
            # Signed loop incidence (V_first + xi_c q_c' - V_second = 0): the pairs on one
            # link's tree path and not the other's, in pair order.
            signs = _path_difference(parent, tree_pair, forward, self._depth, first[c], second[c])
            signs[c] = 1.0
            for p in sorted(signs):
                for col in range(self.pair_slices[pairs[p].name].start, self.pair_slices[pairs[p].name].stop):
                    loop_cols.append(col)
                    loop_signs.append(signs[p])
            loop_ptr.append(len(loop_cols))
        return Topology(
            n=self.n, pairs=len(pairs), links=n_links, loops=len(self.loops), gauges=len(gauge_links),
            spheres=len(self.spherical_pairs), ground=self.link_index[GROUND],
            family=_frozen(families, np.int64), parameters=_frozen(parameters),
            start=_frozen([self.pair_slices[p.name].start for p in pairs], np.int64),
            size=_frozen([p.size for p in pairs], np.int64), first=_frozen(first, np.int64),
            second=_frozen(second, np.int64), sphere=_frozen(sphere, np.int64),
            column_pair=_frozen(self._column_pair, np.int64), rotational=self.rotational,
            tree_order=_frozen(order, np.int64), parent=_frozen(parent, np.int64),
            tree_pair=_frozen(tree_pair, np.int64), forward=_frozen(forward, np.int64),
            chord=_frozen(chord, np.int64), loop_ptr=_frozen(loop_ptr, np.int64),
            loop_cols=_frozen(loop_cols, np.int64), loop_signs=_frozen(loop_signs),
            gauge_link=_frozen(list(gauge_links), np.int64), sphere_columns=self.spherical_columns)

    def pairs_of(self, link) -> np.ndarray:
        """Indices of the pairs joining link index ``link`` to another, in pair order."""
        if self._pairs_of is None:
            topology = self.topology
            ends = np.r_[topology.first, topology.second]
            owners = np.r_[np.arange(topology.pairs), np.arange(topology.pairs)]
            order = np.lexsort((owners, ends))
            bounds = np.searchsorted(ends[order], np.arange(topology.links + 1))
            self._pairs_of = [np.unique(owners[order[bounds[i]:bounds[i + 1]]]) for i in range(topology.links)]
        return self._pairs_of[link]

    def path_columns(self, link):
        """The variables on link index ``link``'s tree path from the ground and their signs (+1
        where the path walks the variable's pair from its first link): ``(cols, signs)``, cols
        increasing. The link's velocity is ``sum(signs * xi[cols] q'[cols])``."""
        topology = self.topology
        signs = _path_difference(topology.parent, topology.tree_pair, topology.forward, self._depth, link,
                                 topology.ground)
        cols, values = [], []
        for p in sorted(signs):
            cols += range(topology.start[p], topology.start[p] + topology.size[p])
            values += [signs[p]] * int(topology.size[p])
        return np.array(cols, dtype=np.int64), np.array(values)

    def _geometry(self, scale, gauges):
        return Geometry(
            frame_j=_frozen(np.array([p.frame_on_first for p in self.pairs]).reshape(-1, 4, 4)),
            frame_k=_frozen(np.array([p.frame_on_second for p in self.pairs]).reshape(-1, 4, 4)),
            scale=float(scale),
            gauge_axis=_frozen(np.array([g.axis for g in gauges]).reshape(-1, 3)),
            gauge_reference=_frozen(np.array([g.reference for g in gauges]).reshape(-1, 3, 3)))

    # ------------------------------------------------------------------ facts
    @property
    def rows(self) -> int:
        """Number of closure equations: 6 per loop, one per gauge."""
        return 6 * len(self.loops) + len(self.gauges)

    @property
    def row_scale(self) -> np.ndarray:
        """Row weights making ``B`` dimensionless: 1 for rotations and gauges, 1/scale for gaps."""
        loops = np.tile(np.r_[np.ones(3), np.full(3, 1.0 / self.scale)], len(self.loops))
        return np.r_[loops, np.ones(len(self.gauges))]

    @property
    def column_scale(self) -> np.ndarray:
        """Column weights: 1 for angles, scale for lengths (a slide of one size is one unit)."""
        return np.where(self.rotational, 1.0, self.scale)

    def reference_q(self) -> np.ndarray:
        """Variables at the reference assembly: zeros at the design pose, else ``assemble``'s."""
        q = np.zeros(self.n)
        for name, values in self.model.reference:
            if name in self.pair_slices:
                q[self.pair_slices[name]] = values
        return q

    def public_variables(self) -> list[str]:
        """Variables users see: every real pair variable, and point-driver variables."""
        return [name for name, shown in zip(self.variable_names, self.public) if shown]

    def describe(self, cols, values, names=None) -> str:
        """``"A = 90 deg, travel = 12 mm"``: variables (columns ``cols``, SI ``values``) in the
        model's own units (its file's), for messages."""
        units = self.model.units
        names = [self.variable_names[c] for c in cols] if names is None else names
        return ", ".join(f"{name} = {units.show(v, 'angle' if self.rotational[c] else 'length')}"
                         for name, c, v in zip(names, cols, values))

    def driver_columns(self, names, role="driver") -> np.ndarray:
        """Column indices of the variables ``names``, validated: public, additive, distinct.

        ``role`` names them in errors (``"driver"``, ``"coordinate"``, ``"hold"``): ModelError
        at ``"<role> 'X'"`` for a name that is not a pair variable, a whole multi-variable
        pair, a spherical component (its value is a rotation vector) or a repeat.
        """
        choose, cannot = (("drive", "be driven") if role == "driver" else ("name", f"be a {role}"))
        cols = []
        for name in names:
            where = f"{role} {name!r}"
            try:
                known_name = isinstance(name, str) and name in self.variable_index
            except TypeError:
                known_name = False
            if not known_name or not self.public[self.variable_index[name]]:
                pair = self.pairs[self.pair_index[name]] if isinstance(name, str) and name in self.pair_index else None
                if pair is not None and pair.size > 1:
                    raise ModelError(where, f"pair {name!r} has {pair.size} variables; "
                                     f"{choose} one of {', '.join(pair.variable_names())}")
                known = ", ".join(self.public_variables())
                raise ModelError(where, f"not a pair variable or point driver (known: {known})")
            col = self.variable_index[name]
            if not self.additive[col]:
                raise ModelError(where, f"a spherical-pair component cannot {cannot} "
                                 "(its value is a rotation vector); choose another pair variable")
            if col in cols:
                raise ModelError(where, "given twice")
            cols.append(col)
        return np.array(cols, dtype=np.int64)


def _path_difference(parent, tree_pair, forward, depth, a, b) -> dict:
    """``{pair: sign}`` of the tree pairs on link ``a``'s path from the root and not on link
    ``b``'s (sign +1 where the path walks the pair from its first link), and of those on ``b``'s
    and not ``a``'s (signs negated): the walks up from both links to their deepest common
    ancestor, as long as the loop (linear in the model's size over all its loops)."""
    signs = {}
    depth_a, depth_b = depth[a], depth[b]
    while a != b:
        if depth_a >= depth_b:
            signs[int(tree_pair[a])] = 1.0 if forward[a] > 0 else -1.0
            a, depth_a = parent[a], depth_a - 1
        else:
            signs[int(tree_pair[b])] = -1.0 if forward[b] > 0 else 1.0
            b, depth_b = parent[b], depth_b - 1
    return signs


def _centres(system, config, real_only=False):
    """Pair centres at ``config`` (frame j and frame k origins), (2P, 3) m, and their pairs."""
    frames_k = config.link_poses[system.topology.second] @ system.geometry.frame_k
    centres = np.concatenate([config.pair_frames[:, :3, 3], frames_k[:, :3, 3]])
    owners = np.tile(np.arange(len(system.pairs)), 2)
    if real_only:
        keep = np.array([not system.pairs[i].virtual for i in owners], dtype=bool)
        centres, owners = centres[keep], owners[keep]
    return centres, owners


def _extent(centres) -> float:
    """Diagonal of the box around ``centres`` (m); 0 for none."""
    return float(np.linalg.norm(np.ptp(centres, axis=0))) if len(centres) else 0.0


def _size(system, config) -> float:
    """Characteristic size (m): diagonal of the box around the pair centres at the reference;
    1 m when they all meet at one point."""
    size = _extent(_centres(system, config)[0])
    return size if size > COINCIDENT_SIZE else 1.0


def _check_extent(system, config):
    """The limits of mechanism/limits.py on the pair centres at the reference assembly: a
    mechanism spans at least MIN_SIZE (or its pairs meet at one point), and its pair centres
    lie within MAX_OFFSET_RATIO sizes of the origin (farther out the closure, solved to a
    fraction of the size, would lose its digits to round-off)."""
    centres, owners = _centres(system, config, real_only=True)
    if not len(centres) or not np.all(np.isfinite(centres)):
        return
    size = _extent(centres)
    name = system.model.name
    if COINCIDENT_SIZE <= size < MIN_SIZE:
        raise ModelError(f"mechanism {name!r}", f"its pair centres span {size:.3g} m; a mechanism must span at "
                         f"least {MIN_SIZE:g} m, or have all its pairs meet at one point")
    scale = size if size >= COINCIDENT_SIZE else 1.0
    distances = np.linalg.norm(centres, axis=1)
    worst = int(np.argmax(distances))
    if distances[worst] > MAX_OFFSET_RATIO * scale:
        pair = system.pairs[owners[worst]]
        where = f"pair {pair.name!r}" + ("" if pair.local else ": at")
        raise ModelError(where, f"its centre lies {distances[worst]:.3g} m from the origin, "
                         f"{distances[worst] / scale:.3g} times the mechanism's size ({scale:.3g} m); pair centres "
                         f"must lie within {MAX_OFFSET_RATIO:g} sizes of the origin (put the origin near the "
                         "mechanism)")


_CACHE: dict = {}


def compile_model(model, with_point_drivers: bool = True) -> CompiledSystem:
    """Compiled system of a frozen model, cached per (snapshot, road loops) for reuse."""
    key = (id(model), with_point_drivers)
    hit = _CACHE.get(key)
    if hit is not None and hit.model is model:
        return hit
    if len(_CACHE) > 64:
        _CACHE.clear()
    system = CompiledSystem(model, with_point_drivers)
    _CACHE[key] = system
    return system
