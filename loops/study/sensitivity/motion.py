"""What a hardpoint coordinate moves: the motion model of METHOD.md (H1).

A coordinate ``p`` (:mod:`loops.study.coordinates`) moves the frames of the pairs at the
hardpoint (:class:`Move`: the body twist ``X`` of (H1) per pair, and the axes of the idle
links' gauges), the corner points located there (:class:`HardpointMotion`: a point that
also moves in its link) and the design-pose values the metrics subtract
(:class:`DesignJets`). The motions along the coordinates and along the drivers that the
metrics are fed with are built from link poses and twists stacked over positions and
coordinates (rows position-major: N positions x K coordinates).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from mechanism.errors import ModelError
from mechanism.transforms import cross

from ...passive import pairs_touching
from ...suspension import jets
from ...suspension.motion import Motion
from ...suspension.wheel import spin_axis_and_patch, toe_angle
from ..coordinates import Coordinate
from ...variants import road_loop_pairs

__all__ = ["HardpointMotion", "DesignJets", "Move", "moves", "moved_points", "repeated_rows", "flat_rows",
           "motion_along_coordinates", "motion_along_driver"]


class HardpointMotion(Motion):
    """A :class:`~loops.suspension.motion.Motion` along a hardpoint coordinate: link poses,
    twists and accelerations as a Motion's, plus the points that are the moved hardpoint.

    ``moved`` maps a hardpoint name (``Located.source``) to ``e`` (R, 3), the point's
    displacement in its link's frame per unit of the motion's parameter (the global unit
    vector of the coordinate at the design pose, where link frames are global; zero rows
    where the row's coordinate is another one). Such a point ``p = T (r + s e)`` has

        p' = omega x p + v_o + R e,   p'' = omega' x p + v_o' + omega x p' + omega x (R e)

    (a point's second rate along a motion whose parameter also moves it in its link; with
    p' including ``R e``, the link's point term of :func:`~loops.suspension.jets.point_jet`
    and the rate of ``R e`` give ``omega x (R e)`` twice).
    """

    def __init__(self, pose, twist, acceleration, moved):
        super().__init__(pose, twist, acceleration)
        self.moved = moved

    def point(self, located):
        jet = super().point(located)
        e = self.moved.get(located.source) if located.source is not None else None
        if e is None:
            return jet
        R = self.pose(located.link)[:, :3, :3]
        shift = np.einsum("nij,nj->ni", R, e)
        omega = self.twist(located.link)[:, :3]
        return jets.Jet(jet.value, jet.d + shift, jet.dd + 2.0 * jets.cross_product(omega, shift))

    def in_frame(self, rotation, translation):
        """:meth:`Motion.in_frame`, the moved points still moving with their hardpoint."""
        seen = super().in_frame(rotation, translation)
        return HardpointMotion(seen.pose, seen.twist, seen.acceleration, self.moved)


class DesignJets:
    """A corner's design-pose values (``_Design``) as jets along the hardpoint coordinates
    (R rows): the wheel centre, the contact patch and the steer angle move when their points
    are moved; the rest is the nominal design's."""

    def __init__(self, design, resolved, corner, moved, rows):
        pose = np.broadcast_to(np.eye(4), (rows, 4, 4))
        zero = np.zeros((rows, 6))
        at_design = HardpointMotion(lambda link: pose, lambda link: zero, lambda link: zero, moved)
        forward, outboard, up = corner.axes
        self.centre = at_design.point(resolved.wheel_centre)
        spin, self.patch = spin_axis_and_patch(self.centre, at_design.point(resolved.spin_axis_point),
                                               corner.wheel_radius, up)
        self.patch_on_upright = design.patch_on_upright
        self.steer_angle = toe_angle(spin, forward, outboard) * (-1.0 if corner.side == "left" else 1.0)

    def slid(self, rate):
        """These values for a motion whose every point, the frame's centre with them, moves by
        ``rate`` (rows, 3) per unit coordinate more than the motion's twists say (a frame
        sliding under the mechanism): a metric of points, design values and the frame's centre
        does not change when all of them move together, so the design values move by ``-rate``
        instead: ``d -= rate`` for the wheel centre and the contact patch."""
        out = copy.copy(self)
        out.centre = jets.Jet(self.centre.value, self.centre.d - rate, self.centre.dd)
        out.patch = jets.Jet(self.patch.value, self.patch.d - rate, self.patch.dd)
        return out


@dataclass(frozen=True)
class Move:
    """What coordinate ``coordinate`` moves: ``pairs`` [(pair index, X (6,))] with the body
    twist X of (H1); ``source`` and ``e`` (3,) for the points located at the hardpoint;
    ``gauge_axes`` (G, 3) the rate of each gauge's axis."""

    coordinate: Coordinate
    pairs: tuple
    source: str | None
    e: np.ndarray
    gauge_axes: np.ndarray


def moves(system, coords, where):
    """The :class:`Move` of each coordinate on the compiled nominal ``system``."""
    model = system.model
    if any(np.any(values) for _, values in model.reference):
        raise ModelError(where, f"a design study needs the design pose of {model.name!r} to close at zero pair "
                         "variables (it was assembled from guesses)")
    at_point = road_loop_pairs(system)
    centres = np.array([p.frame_on_first[:3, 3] for p in system.pairs])
    gauges = []
    for gauge in system.gauges:
        touching = pairs_touching(system.topology, gauge.link)
        spread = centres[touching] - centres[touching[0]]
        far = int(np.argmax(np.linalg.norm(spread, axis=1)))
        gauges.append((touching[0], touching[far], float(np.linalg.norm(spread[far])), gauge.axis))
    out = []
    for c in coords:
        hp = c.hardpoint
        e = np.eye(3)[c.component]
        label = f"{where} {c.name!r}"
        if hp.key == "axis":
            if hp.owner not in system.pair_index:
                raise ModelError(label, f"{hp.owner!r} is not a pair of {model.name!r}")
            h = system.pair_index[hp.owner]
            u = hp.value
            w = cross(u, e - u * u[c.component])
            pairs = ((h, np.r_[w, cross(centres[h], w)]),)
            out.append(Move(c, pairs, None, np.zeros(3), np.zeros((len(gauges), 3))))
            continue
        if hp.table == "pairs":
            moved = [system.pair_index[hp.owner]]
        elif hp.table == "points":
            moved = at_point.get(hp.owner, [])
        else:
            moved = []
        pairs = tuple((h, np.r_[np.zeros(3), e]) for h in moved)
        axes = np.zeros((len(gauges), 3))
        for g, (first, far, length, axis) in enumerate(gauges):
            shift = (e if far in moved else 0.0) - (e if first in moved else 0.0)
            axes[g] = (shift - axis * (axis @ shift)) / length if np.any(shift) else 0.0
        out.append(Move(c, pairs, hp.name, e, axes))
    for move in out:
        _keeps_idle_freedoms(system, move, gauges, centres, label=f"{where} {move.coordinate.name!r}")
    return out


def _keeps_idle_freedoms(system, move, gauges, centres, label):
    """Raise when ``move`` takes an idle link's pairs off its line (to first order): a pair
    centre off the line, or a screw pair's axis across it. The variant would then have a
    real freedom where the design has an idle spin (which its sweep holds, a different
    motion): the design is not a regular point of the family and has no derivative there."""
    for g, (first, far, length, axis) in enumerate(gauges):
        link = system.gauges[g].link
        touching = pairs_touching(system.topology, link)
        zero = np.zeros(3)
        dc = {h: X[3:] for h, X in move.pairs if not np.any(X[:3])}
        turn = {h: X[:3] for h, X in move.pairs if np.any(X[:3])}
        du = move.gauge_axes[g]
        for i in touching:
            offset = centres[i] - centres[first]
            off_line = cross(dc.get(i, zero) - dc.get(first, zero), axis) + cross(offset, du)
            pair = system.pairs[i]
            across = np.zeros(3)
            if pair.kind != "spherical":
                a = pair.frame_on_first[:3, 2]
                across = cross(cross(turn.get(i, zero), a), axis) + cross(a, du)
            if max(np.abs(off_line).max() / length, np.abs(across).max()) > 1e-9:
                raise ModelError(label, f"it takes pair {pair.name!r} off the line of link "
                                 f"{system.link_names[link]!r}, whose idle spin the design has: the moved design "
                                 "would have a real freedom there (a variable its sweep holds), so the design has "
                                 "no derivative with respect to it (that line's pair centres and axes must stay "
                                 "on one line)")


def moved_points(moves, count):
    """``HardpointMotion.moved`` of the coordinates ``moves`` at ``count`` positions: the
    rows are (position, coordinate) pairs, position-major (count K rows)."""
    K = len(moves)
    moved = {}
    for j, move in enumerate(moves):
        if move.source is not None:
            e = moved.setdefault(move.source, np.zeros((count, K, 3)))
            e[:, j] = move.e
    return {source: e.reshape(count * K, 3) for source, e in moved.items()}


def repeated_rows(closure, array, K):
    """Getter link -> ``array[:, link]`` (N, ...) repeated for the K coordinates (N K, ...)."""
    index = closure.system.link_index
    return lambda link: np.repeat(array[:, index[link]], K, axis=0)


def flat_rows(closure, array):
    """Getter link -> ``array[:, :, link]`` (N, K, 6) as (N K, 6) rows."""
    index = closure.system.link_index
    return lambda link: array[:, :, index[link]].reshape(-1, 6)


def motion_along_coordinates(closure, directions, moved):
    """The motion along every coordinate at fixed drivers (N K rows): link twists ``V_p``, the
    moved points' own move; no second rates (zero accelerations)."""
    K = len(directions.moves)
    zeros = np.zeros((closure.xi.shape[0] * K, 6))
    return HardpointMotion(repeated_rows(closure, closure.poses, K), flat_rows(closure, directions.V_p),
                           lambda link: zeros, moved)


def motion_along_driver(closure, directions, d, K=None):
    """The motion along driver ``d`` (index), the others at rest: N rows, or N K rows (each
    position repeated for the K coordinates); no second rates (zero accelerations)."""
    N = closure.xi.shape[0]
    V = directions.V_a[:, d]
    if K is None:
        index = closure.system.link_index
        zeros = np.zeros((N, 6))
        return Motion(lambda link: closure.poses[:, index[link]], lambda link: V[:, index[link]], lambda link: zeros)
    zeros = np.zeros((N * K, 6))
    return Motion(repeated_rows(closure, closure.poses, K), repeated_rows(closure, V, K), lambda link: zeros)
