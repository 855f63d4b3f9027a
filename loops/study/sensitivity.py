"""Design sensitivities: how every suspension metric changes with each hardpoint coordinate.

The derivatives come from the linearised closure (METHOD.md eq. 3) at every position of an
analysis, exactly as the velocities do (eq. 4), with no step size and no finite
differences. A hardpoint coordinate ``p`` (:mod:`loops.study.coordinates`) is treated as a
motion of the mechanism at fixed drivers and held variables.

What a hardpoint moves
----------------------
At the design pose every link frame is the global frame, and a pair's two frames have
their origin at the pair's centre (DESIGN.md, "Frames from points"). Moving the centre
``c`` of pair i by ``dp`` along the global unit vector ``e`` moves both frames by that
translation, which is the same as inserting two virtual joints around the pair: a slide
``(0, e)`` fixed in its first link before it, and the opposite slide fixed in its second
link after it. Per unit ``p`` the second link moves relative to the first by the twist
(global, origin-referenced, at the current position)

    Xi_p = Xi_pre + Xi_post = Ad(T_first) X - Ad(T_second) X,   X = (0, e)      (H1)

that is ``(0, R_first e - R_second e)``. A screw pair's axis component k (unit nominal
axis ``u``; the varied axis is normalised again, so ``du = e_k - u u_k``) turns both frames
about the centre by ``w = u x du``: ``X = (w, c x w)`` in (H1) (the frames' turn about the
axis itself does not change a screw pair's matrix). A point moves the road loop of a point
driver at it (its virtual pairs sit at the point; only its spherical pair gives a non-zero
twist) and every corner point located there. A spring-damper's end moves only the corner
points located there. ``Xi_p`` enters each loop exactly like a variable of pair i (same
loop sign, referred to the loop's centre), so with the drivers and held variables fixed

    B_free dq/dp = -B_p                                                          (H2)

(``B`` of eq. 3 at the position, ``B_p`` the loop rows of ``Xi_p``; on an idle link's gauge
row (:mod:`loops.passive`) ``B_p`` is ``(J_l(w)^-T u) . omega_p + w . du/dp``, the direct term
of the gauge axis ``u``, which follows the idle link's pair centres). A link's twist along
``p`` is the sum over its tree path of ``xi_c dq_c/dp`` and of the ``Xi_p`` of the pairs on
it, signed by the direction the path walks each pair. A corner point located at the varied
hardpoint (``Located.source``) also moves in its link: ``d/dp`` of ``T (r + p e)`` adds
``R_link e`` to its velocity. The metrics then follow from :func:`loops.suspension.metrics.
corner_metrics` fed with that motion (:class:`HardpointMotion`): every position metric
written as jets (camber, toe, castor, kingpin inclination, scrub radius, castor trail,
track change, wheel recession, half track, spring length, ...) gets ``d metric / dp``; the
design-pose values the metrics subtract (the wheel centre and contact patch at the design
pose) move with the hardpoint too (at the design pose ``dq/dp = 0``: the variant closes at
zero pair variables).

Rate metrics
------------
A rate metric is a ratio of derivatives along a driver ``a`` (``camber_gain = camber_a /
w_a`` with ``w`` the wheel travel); its derivative along ``p`` needs the mixed second
derivatives ``f_ap``. They come from the twice-differentiated closure (METHOD.md,
"Velocity (4) and acceleration") written for the two directions: with ``u = d_p q_a + d_a
q_p`` (the rates ``q_a`` per unit driver, ``q_p`` per unit ``p``),

    B_free u = -sum_k sign (xi_k,a' q_k,p + xi_k,p' q_k,a) - (Xi_pre,a' + Xi_post,a')   (H3)

where a twist's rate along a direction is its Lie bracket with the velocity of the body
carrying it (the first link of its pair; for the pair moved by ``p`` the body after the
virtual slide, whose velocity along ``p`` includes ``Xi_pre``), plus a Hooke pair's own
rate; the gauge rows get the rate of their row and ``2 (J_l^-T du/dp) . omega_a``. The
link sum of ``xi u`` and of those terms is the symmetric mixed acceleration ``S = d_p V_a +
d_a V_p``, and a metric's jets along ``a``, along ``p`` and along ``a + p`` (with ``S`` as
its acceleration) give ``f_ap = (f''(a+p) - f''(a) - f''(p)) / 2`` (polarisation; a jet's
second rate is a quadratic form in the twists plus a linear one in the accelerations,
so the parts left out cancel). So ``camber_gain``, ``bump_steer``, ``steer_rate``,
``motion_ratio`` and ``damper_motion_ratio`` are exact as well.

Velocity-field metrics
----------------------
The instant centres, the corner's roll centre and the anti-geometry are ratios of the
velocities, per unit wheel travel, of the upright's points
(:func:`~loops.suspension.metrics.velocity_field_metrics`), that is functions of points and
of the upright's twist ``V_a`` along the travel driver. Along p the points move as above and
the twist by its velocity rate

    d_p V_a = (S + [V_p, V_a]) / 2                                                    (H4)

(``S`` of (H3)), so the same function fed with jets along p (value and first rate) gives
their derivatives, exactly. The reaction point of outboard brakes is the upright's point at
the design contact patch, which moves with the wheel-centre and spin-axis points.

Axle metrics
------------
An axle's own metrics (:func:`~loops.suspension.metrics.axle_metrics`: the roll centre
where the two wheels' front-view lines meet, its lateral migration, the track, Ackermann
and the steering ratio) are written on the two wheels' contact patches, their velocities
in wheel travel, steer angles and steer rates, and on the design track and design steer
angles; fed with those as jets along p (the design values move with the wheel-centre and
spin-axis points) they give their derivatives the same way.

The wheel rate
--------------
``wheel_rate = k MR^2 + F rho`` (:func:`~loops.suspension.metrics.corner_metrics`: ``MR =
-L_a / w_a``, ``rho = d MR / d w = -(L_aa w_a - L_a w_aa) / w_a^3``, ``F = k (L_free - L)``,
``L`` the spring length, ``w`` the wheel-centre travel, rates along the travel driver a)
holds second rates along a, so its rate along p needs the third ``L_aap`` and ``w_aap``:
the closure differentiated a third time. Along a direction b (a coordinate p, or another
driver), with each pair's relative twist along a ``Z = V_a,second - V_a,first`` and its
own part ``Y = d_a Z - [V_a,first, Z]`` (``= xi q_aa``, the pair's variables' second rates;
read off the link accelerations ``A_a = d_a V_a``), the rate along b of ``d_a Z`` is

    d_b d_a Z = [d_b V_a,first, Z] + [V_a,first, d_b Z] + [V_b,carrier, Y] + xi x     (T1)

(``d_b V_a`` the velocity rate of (H4), ``V_b,carrier`` the velocity along b of the body
carrying the pair's twists: the first link, after the virtual slide of a moved pair, so
``V_b,first + Xi_pre``; ``x = d_b q_aa`` the unknowns). Every loop's sum of (T1) vanishes:

    B_free x = - rows of the known part of (T1)                                       (T2)

and the link sum of (T1) is every link's acceleration rate ``d_b A_a``. An idle link's gauge
row takes its known part as zero: any third rate of an idle spin closes the loops and moves
no other link, nor a point on the idle link's line, so the derivatives are the same
whichever is taken (a spring end or wheel centre off an idle link's line would follow the
spin: no wheel-rate sensitivities then). A point ``x`` of a link
(moving in it by ``R e`` per unit b when it is the moved hardpoint, as in
:class:`HardpointMotion`) then has

    x_a  = omega_a x x + v_a,          x_b = omega_b x x + v_b (+ R e)
    x_aa = omega_a' x x + v_a' + omega_a x x_a,   x_ab = d_b omega_a x x + d_b v_a + omega_a x x_b
    x_aab = d_b omega_a' x x + d_b v_a' + omega_a' x x_b + d_b omega_a x x_a + omega_a x x_ab   (T3)

(``(omega_a', v_a') = A_a``, ``(d_b omega_a', d_b v_a') = d_b A_a``), the spring's length
the rates of ``L^2 = D . D`` (``D`` its end-to-end vector) and the travel those of
``C . up``, and the wheel rate's derivative follows by the chain rule (T4). A Hooke pair's
second pin is carried by the cross, which turns with the first angle: with ``K = [xi_0,
xi_1]`` its ``d_b d_a Z`` has besides (T1)

    K (w0_b a1 + q0_ab w1_a + w0_a q1_ab) + [xi_0, K] w0_b w0_a w1_a                 (T1')

(``w = q_a`` and ``w_b`` the angles' rates, ``a1`` the second angle's second rate along a,
``q_ab`` the angles' mixed second rates: half the ``u`` of (H3) along a coordinate).

A virtual steering axis
----------------------
A corner without a kingpin (``Corner.kingpin = None``) steers about the upright's instant
screw axis in the steering motion, the line of its twist ``V_s`` per unit steering
variable: through ``omega x v_o / |omega|^2`` along ``omega / |omega|``. Its rate along p is
that line's for the twist's rate ``d_p V_s`` of (H4), so the steering-axis metrics (castor,
kingpin inclination, scrub radius, the trails and offsets) on it are differentiated as on a
kingpin, by feeding :func:`~loops.suspension.metrics.corner_metrics` the steering motion
with that rate (``Motion.twist_rate``)                                               (V1)

and in a roll, along each travel ``t_j``, with ``d_j V_s`` of ``D``.

Not available: wheel travel measured at the contact patch (sensitivities are taken at
fixed wheel-centre travel).

Roll
----
The roll analysis (:func:`loops.suspension.analyses.roll`) turns the body by ``phi`` about
the longitudinal axis ``f`` through the axle's static roll centre ``a`` and finds the two
wheel travels ``t = (t_left, t_right)`` that keep both contact patches on the road. Along a
coordinate ``p`` three things move, and all three are differentiated exactly:

(R1) The axis point. ``a`` is where the two lines through the contact patches ``P_s``,
normal in the front view to the velocities ``v_s`` of the uprights' points at the patches
in wheel travel, meet (:func:`~loops.suspension.metrics.roll_centre_point`, at the design
pose). Its rate ``a_p`` follows from that same formula on jets along p: ``P_s`` as any
point's, and ``v_s = omega_a x P_s + v_a`` with the upright's velocity rate ``d_p V_a =
(S + [V_p, V_a]) / 2`` of (H3), so ``d_p v_s = d_p omega_a x P_s + omega_a x d_p P_s +
d_p v_a``.

(R2) The road frame. A body point ``x`` is seen from the road at ``R x + (1 - R) a`` (``R``
the roll about ``f``): along p the whole road picture slides by ``tau = (1 - R) a_p`` besides
the mechanism's own motion ``Ad(R) V_p``. Metrics do not change when points, design values
and the frame's centre slide together, so the slide is applied as ``-tau`` to the design
values the metrics subtract (:meth:`_DesignJets.slid`).

(R3) The travels. The contact conditions ``g_s(t, p) = (P_s - P_s0) . u = 0`` (the roll's
own, :func:`~loops.suspension.analyses._patch_height`) give ``J t_p = -g_p`` with ``J =
dg/dt`` (as the roll's Newton steps use it) and ``g_p`` the patch heights' rates along p
at fixed travels (with (R2)). A metric's derivative along the roll solution is then

    dm/dp = m_p + sum_s m_{t_s} t_{s,p}                                             (R4)

with ``m_p`` along p at fixed travels and ``m_{t_s}`` along each travel, both seen from
the road. The wheel travels (taken relative to the body) get (R4) in the body frame
(``wheel_travel_s`` is then ``t_{s,p}``).

(R5) The roll's rates. ``roll_camber = c_phi`` along the solution (``roll_steer`` likewise);
its rate along p is the mixed derivative ``c_{phi p}``, by polarisation as in (H3), with road
twists along phi and along p

    V_phi = Phi_phi + Ad_M W,   W = sum_s t_{s,phi} V_s,   Phi_phi = (f, -f x a)
    V_p   = Phi_p + Ad_M (V_p' + sum_s t_{s,p} V_s),       Phi_p = (0, tau)

(``M`` the body's pose seen from the road, ``V_s`` the body twists per unit travel, ``V_p'``
at fixed travels) and the acceleration ``S = d_p V_phi + d_phi V_p = 2 d_p V_phi + [V_phi,
V_p]`` along both, where

    d_p V_phi = (0, -f x a_p) + [Phi_p, Ad_M W]
                + Ad_M sum_s t_{s,phi} (d_p V_s + sum_r t_{r,p} d_r V_s) + Ad_M sum_s t_{s,phi p} V_s

(``d_p V_s`` the velocity rate of (H3), ``d_r V_s`` the travels' own second rates, from the
accelerations along one travel and along two). The unknown ``t_{s,phi p}`` enter as first
rates along the travels do: the contact conditions' mixed derivative ``G + J t_{phi p} = 0``
(``G`` by polarisation without them) gives them, and ``c_{phi p} = C + sum_s c_{t_s}
t_{s,phi p}``.

(R6) The rates along a driver ``a`` (a wheel's own travel: ``camber_gain = c_a / w_a``,
``bump_steer``, the motion ratios; the steering variable: ``steer_rate = s_a``), seen from
the road at the rolled position. Along the solution ``f_a`` moves with p at fixed travels
and with the travels:

    d f_a / dp = f_ap + sum_j f_{a t_j} t_{j,p}

``f_ap`` by polarisation with ``S`` of (H3) for driver a; ``f_{a t_j}`` likewise with the
drivers' own second rates (``D`` of :func:`_driver_accelerations`: along ``a + t_j`` the
acceleration ``d_a V_j + d_j V_a``, along ``a`` twice ``d_a V_a``). The road's slide (R2) is
a translation of the whole picture, which leaves every rate along the drivers unchanged.
A ratio then follows by the quotient rule, ``d (f_a / w_a) = (d f_a w_a - f_a d w_a) /
w_a^2``.

(R7) The velocity-field metrics of each wheel (along its own travel, seen from the road)
and the axle's metrics are functions of points and of twists per unit travel; each input's
rate along the solution is its rate along p at fixed travels plus ``sum_j`` its rate along
travel ``j`` times ``t_{j,p}`` (a point's: its velocity along ``t_j``; a twist's per unit
travel ``i``: ``d_p V_i`` of (H4) and ``d_j V_i`` of ``D``, all turned into the road by
``Ad_M``), so :func:`~loops.suspension.metrics.velocity_field_metrics` and
:func:`~loops.suspension.metrics.axle_metrics` fed with those jets give the metrics' rates
along the solution. The road's slide (R2) leaves them unchanged except the roll centre's
height in the frame, ``roll_centre_z``, which moves with the road picture: ``+ tau . u``.

(R8) The wheel rate of each wheel (along its own travel, seen from the road: the length is
the same in any frame, the travel is taken along the road's up, ``R^T up`` in the body)
moves along the solution as (R4) says for each of its ingredients ``L, L_a, L_aa, w_a,
w_aa``: along p at fixed travels by (T1)-(T3), along each travel ``t_j`` by the same with
b the travel driver (no virtual slide; ``d_j V_a`` of ``D``, and for ``j = a`` the jerk
``d_a A_a``); then (T4).

So every metric of a roll is exact: the position metrics (camber and toe to the road, steer
angle, castor, kingpin inclination, scrub radius, trails, track change, half track, spring
length, the wheel travels), their rates along the drivers, the wheel rate, the
velocity-field metrics, ``roll_camber`` and ``roll_steer`` and the axle's metrics. A roll's
coordinates are its axle's (``lower_ball_left.z``: a corner is mirrored into an axle
first).
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass

import numpy as np

from mechanism.errors import ModelError
from mechanism.pairs import PairType
from mechanism.transforms import cross, dexp_inverse, lie_bracket, point_shift_matrices, transform_twists
from mechanism.units import Units

from ..configuration import constraint_matrix, evaluate
from ..linear import square_block
from ..passive import pairs_touching
from ..results import Column, write_columns
from ..suspension import jets
from ..suspension.analyses import combined, opposite_travel, parallel_travel, roll, steering
from ..suspension.axle import SIDES
from ..suspension.axle_geometry import roll_centre_point
from ..suspension.body_motion import BODY_TRAVELS, roll_frame
from ..suspension.measure import axle_metrics, corner_metrics, velocity_field_metrics
from ..suspension.metrics import AXLE_METRICS, METRICS, ROLL_METRICS
from ..suspension.motion import Frame, Motion
from ..suspension.travel import design_pose as _design_pose, patch_height as _patch_height
from ..suspension.travel import wheel_centre_and_patch as _patch_jets
from ..suspension.velocity_field import has_anti_geometry as _anti_geometry
from ..suspension.wheel import spin_axis_and_patch as _wheel, toe_angle as _toe
from .coordinates import Coordinate, coordinates
from .geometry import road_loop_pairs

__all__ = ["Sensitivities", "Influence", "HardpointMotion", "sensitivities", "sensitivities_of", "RATE_METRICS",
           "FIELD_METRICS", "ANALYSES"]

#: The analyses whose sensitivities are available.
ANALYSES = ("parallel", "opposite", "steering", "combined", "roll")

#: Rate metrics with exact sensitivities: metric -> (driver role, jet of the numerator,
#: sign). ``camber_gain = camber_a / w_a`` along the travel driver; ``steer_rate =
#: steer_angle_s`` along the steering variable (not divided).
RATE_METRICS = {
    "camber_gain": ("travel", "camber", 1.0),
    "bump_steer": ("travel", "toe", 1.0),
    "steer_rate": ("steering", "steer_angle", 1.0),
    "motion_ratio": ("travel", "spring_length", -1.0),
    "damper_motion_ratio": ("travel", "damper_length", -1.0),
}

#: The per-wheel metrics of the upright's velocity field
#: (:func:`~loops.suspension.metrics.velocity_field_metrics`).
FIELD_METRICS = ("fvic_height", "fvsa_length", "svic_height", "svsa_length", "roll_centre_height", "roll_centre_z",
                 "anti_dive", "anti_lift", "anti_squat")
#: Positions where the chosen square rows of ``B`` leave the others unsatisfied by more
#: than this (dimensionless residual over the right-hand side) are solved by least squares
#: on every row instead.
ROW_CONSISTENCY = 1e-9


# ------------------------------------------------------------------ the motion along p
class HardpointMotion(Motion):
    """A :class:`~loops.suspension.metrics.Motion` along a hardpoint coordinate: link poses,
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


class _DesignJets:
    """A corner's design-pose values (``_Design``) as jets along the hardpoint coordinates
    (R rows): the wheel centre, the contact patch and the steer angle move when their points
    are moved; the rest is the nominal design's."""

    def __init__(self, design, resolved, corner, moved, rows):
        pose = np.broadcast_to(np.eye(4), (rows, 4, 4))
        zero = np.zeros((rows, 6))
        at_design = HardpointMotion(lambda link: pose, lambda link: zero, lambda link: zero, moved)
        forward, outboard, up = corner.axes
        self.centre = at_design.point(resolved.wheel_centre)
        spin, self.patch = _wheel(self.centre, at_design.point(resolved.spin_axis_point), corner.wheel_radius, up)
        self.patch_on_upright = design.patch_on_upright
        self.steer_angle = _toe(spin, forward, outboard) * (-1.0 if corner.side == "left" else 1.0)

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


# ------------------------------------------------------------------ what each coordinate moves
@dataclass(frozen=True)
class _Move:
    """What coordinate ``coordinate`` moves: ``pairs`` [(pair index, X (6,))] with the body
    twist X of (H1); ``source`` and ``e`` (3,) for the points located at the hardpoint;
    ``gauge_axes`` (G, 3) the rate of each gauge's axis."""

    coordinate: Coordinate
    pairs: tuple
    source: str | None
    e: np.ndarray
    gauge_axes: np.ndarray


def _moves(system, coords, where):
    """The :class:`_Move` of each coordinate on the compiled nominal ``system``."""
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
            out.append(_Move(c, pairs, None, np.zeros(3), np.zeros((len(gauges), 3))))
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
        out.append(_Move(c, pairs, hp.name, e, axes))
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


# ------------------------------------------------------------------ the linearised closure
class _Closure:
    """The linearised closure (eq. 3) at N closed positions, stacked.

    Attributes: ``q`` (N, n) the variables, ``xi`` (N, n, 6) their twists, ``poses`` (N, L, 4, 4), ``frames`` (N, P,
    4, 4) pair frames j, ``centres`` (N, loops, 3), ``swings`` (N, G, 3), ``B`` (N, rows, n);
    ``loop_pairs`` (loops, P) and ``path_pairs`` (L, P) the signed incidence of pairs in loops
    and in links' tree paths; ``driven``, ``free`` columns.
    """

    def __init__(self, system, q, rotations, driven, where):
        self.system, self.q = system, np.asarray(q)
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
        self.row_scale, self.column_scale = system.row_scale, system.column_scale
        self.scaled = self.B * self.row_scale[:, None] * self.column_scale
        block = None
        for i in range(len(q)):
            block = square_block(system, self.scaled[i], self.driven)
            if block is not None:
                break
        if block is None:
            raise ModelError(where, "the drivers and held variables do not fix the mechanism at any position of the "
                             "analysis: no sensitivities")
        self.rows = np.flatnonzero(np.asarray(block.row_position) >= 0)
        starts = np.asarray(topology.start)
        self.column_pair = np.asarray(topology.column_pair)
        self.column_start = np.asarray(topology.start)
        incidence = np.zeros((topology.loops, system.n))
        for i in range(topology.loops):
            entries = slice(topology.loop_ptr[i], topology.loop_ptr[i + 1])
            incidence[i, topology.loop_cols[entries]] = topology.loop_signs[entries]
        self.loop_columns = incidence
        self.loop_pairs = incidence[:, starts]
        self.path_columns = np.asarray(system.link_incidence)
        self.path_pairs = self.path_columns[:, starts]
        self.first, self.second = np.asarray(topology.first), np.asarray(topology.second)
        self.column_pairs = np.zeros((system.n, topology.pairs))
        self.column_pairs[np.arange(system.n), self.column_pair] = 1.0
        # The gauge rows' vector r = J_l(w)^-T u (their rows are r . omega of the idle link).
        self.gauge_rows = dexp_inverse(self.swings, self.gauge_axes, transposed=True)

    def solve(self, rhs, where):
        """``x`` (N, n, m) with ``B_free x_free = rhs`` (rhs (N, rows, m), physical units) and the
        driven columns zero: on the chosen square rows, by least squares on every row where
        those leave the others unsatisfied."""
        N, m = rhs.shape[0], rhs.shape[2]
        scaled_rhs = rhs * self.row_scale[None, :, None]
        square = self.scaled[:, self.rows][:, :, self.free]
        try:
            y = np.linalg.solve(square, scaled_rhs[:, self.rows])
        except np.linalg.LinAlgError:
            raise ModelError(where, "the closure is singular at a position of the analysis (a dead point of its "
                             "drivers): no sensitivities there") from None
        free_block = self.scaled[:, :, self.free]
        residual = np.abs(free_block @ y - scaled_rhs).max(axis=(1, 2))
        size = np.maximum(np.abs(scaled_rhs).max(axis=(1, 2)), 1.0)
        for i in np.flatnonzero(~(residual <= ROW_CONSISTENCY * size)):
            y[i] = np.linalg.lstsq(free_block[i], scaled_rhs[i], rcond=None)[0]
        x = np.zeros((N, self.system.n, m))
        x[:, self.free] = y * self.column_scale[self.free][None, :, None]
        return x

    def link_sum(self, rates, pair_terms):
        """Per link the sum over its tree path of ``xi_c rates_c`` and of ``pair_terms``:
        ``rates`` (N, K, n), ``pair_terms`` (N, K, P, 6) or None -> (N, K, L, 6)."""
        # As matrix products (BLAS): einsum's own loops over all five indices took a sixth of an
        # optimisation's time.
        out = self.path_columns @ (rates[..., None] * self.xi[:, None])
        if pair_terms is not None:
            out += self.path_pairs @ pair_terms
        return out

    def rows_of(self, pair_terms, gauge_extra):
        """Rows (N, rows, K) of per-pair twists ``pair_terms`` (N, K, P, 6) entering every loop
        and gauge as their pairs' variables do: loops ``sum sign shift(term, centre)``, gauges
        ``r . (path sum of the terms' omega)`` plus ``gauge_extra`` (N, K, G)."""
        N, K = pair_terms.shape[:2]
        loop = self.loop_pairs @ pair_terms
        loop = np.einsum("Nirs,Nkis->Nkir", point_shift_matrices(self.centres), loop)
        rows = [loop.reshape(N, K, 6 * self.loops)]
        if len(self.gauge_links):
            omega = self.path_pairs[self.gauge_links] @ pair_terms[..., :3]
            rows.append(np.einsum("Ngs,Nkgs->Nkg", self.gauge_rows, omega) + gauge_extra)
        return np.concatenate(rows, axis=2).transpose(0, 2, 1)


# ------------------------------------------------------------------ first and second order
class _Directions:
    """Rates of every variable and link along the drivers and the hardpoint coordinates."""

    def __init__(self, closure, moves, driver_columns, where):
        self.closure, self.moves, self.where = closure, moves, where
        # Hooke pairs: their second pin turns with the first angle (T1')
        self.hooke = [p for p, pair in enumerate(closure.system.pairs) if pair.kind == "hooke"]
        system = closure.system
        N, P, K = closure.xi.shape[0], system.topology.pairs, len(moves)
        # Drivers: unit rate of one, the others (and held variables) at rest (eq. 4).
        D = len(driver_columns)
        rhs = -closure.B[:, :, driver_columns] if D else np.zeros((N, closure.B.shape[1], 0))
        q_a = closure.solve(rhs, where)
        q_a[:, driver_columns, np.arange(D)] = 1.0
        self.q_a = q_a.transpose(0, 2, 1)  # (N, D, n)
        self.V_a = closure.link_sum(self.q_a, None)  # (N, D, L, 6)
        # Hardpoints: (H1) per pair, (H2), link twists.
        self.pre = np.zeros((N, K, P, 6))
        self.post = np.zeros((N, K, P, 6))
        for j, move in enumerate(moves):
            for h, X in move.pairs:
                self.pre[:, j, h] = transform_twists(closure.poses[:, closure.first[h]], X)
                self.post[:, j, h] = -transform_twists(closure.poses[:, closure.second[h]], X)
        self.Xi = self.pre + self.post
        self.gauge_axes = np.array([m.gauge_axes for m in moves]).reshape(K, len(closure.gauge_links), 3)
        direct = np.einsum("Ngs,kgs->Nkg", closure.swings, self.gauge_axes)
        B_p = closure.rows_of(self.Xi, direct)
        self.q_p = closure.solve(-B_p, where).transpose(0, 2, 1)  # (N, K, n)
        self.V_p = closure.link_sum(self.q_p, self.Xi)  # (N, K, L, 6)
        self._mixed = {}

    def mixed(self, d):
        """``S = d_p V_a + d_a V_p`` (N, K, L, 6) for driver ``d`` (index) and every coordinate
        (H3); solved once per driver."""
        if d not in self._mixed:
            self._mixed[d] = self._solve_mixed(d)
        return self._mixed[d][0]

    def variable_rates(self, d):
        """``d_p q_a`` (N, K, n) for driver ``d`` (index): half the ``u`` of (H3), the mixed
        second rates of the variables that are coordinates (all but a spherical pair's)."""
        self.mixed(d)
        return self._mixed[d][1] / 2.0

    def velocity_rate(self, d):
        """``d/dp`` of every link's velocity per unit rate of driver ``d`` (index; the other
        drivers and the held variables at rest), for every coordinate: (N, K, L, 6), global,
        origin-referenced. It is ``(S + [V_p, V_a]) / 2`` with ``S`` of (H3), ``V_p`` the link's
        twist along p and ``V_a`` its velocity."""
        return (self.mixed(d) + lie_bracket(self.V_p, self.V_a[:, d][:, None])) / 2.0

    def velocity_jet(self, d, link):
        """Link ``link``'s (index) velocity per unit rate of driver ``d`` as a jet along every
        coordinate (N K rows): ``V_a`` and its rate ``d_p V_a`` (H4), no second rate."""
        N, K = self.V_p.shape[:2]
        value = np.repeat(self.V_a[:, d, link], K, axis=0)
        return jets.Jet(value, self.velocity_rate(d)[:, :, link].reshape(N * K, 6), np.full_like(value, np.nan))

    def along_coordinates(self, d):
        """The coordinates as a :class:`_Along` for the third rates along driver ``d``."""
        return _Along(self.V_p, self.pre, self.velocity_rate(d), self.q_p, self.variable_rates(d))

    def acceleration_rate(self, d, A_a, q_aa, along):
        """``d_b A_a`` (N, B, L, 6): the rate along the B directions of ``along`` (a
        :class:`_Along`) of every link's acceleration ``A_a = d_a V_a`` (N, L, 6, along driver
        ``d`` alone, with the variables' second rates ``q_aa`` (N, n)), from the closure
        differentiated a third time, (T1)-(T2) of the module docstring."""
        c = self.closure
        first, second = c.first, c.second
        V_a = self.V_a[:, d]  # (N, L, 6)
        Z = V_a[:, second] - V_a[:, first]  # (N, P, 6) each pair's relative twist along a
        Y = A_a[:, second] - A_a[:, first] - lie_bracket(V_a[:, first], Z)  # its own part of d_a Z
        dZ = along.rate[:, :, second] - along.rate[:, :, first]  # (N, B, P, 6)
        carrier = along.V[:, :, first] + along.pre  # the pair's twists' carrier along b (after a virtual slide)
        known = (lie_bracket(along.rate[:, :, first], Z[:, None]) + lie_bracket(V_a[:, None, first], dZ)
                 + lie_bracket(carrier, Y[:, None]))
        for p in self.hooke:
            known[:, :, p] += _hooke_terms(c.xi, c.column_start[p], self.q_a[:, d], q_aa, along)
        # Gauge rows: any third rate of an idle spin closes the loops and moves no other link
        # (T2); the one with the rows' own terms left out is taken.
        rhs = c.rows_of(known, np.zeros(known.shape[:2] + (len(c.gauge_links),)))
        x = c.solve(-rhs, self.where).transpose(0, 2, 1)
        return c.link_sum(x, known)

    def _solve_mixed(self, d):
        c = self.closure
        system = c.system
        topology = system.topology
        cols = c.column_pair
        q_a, V_a = self.q_a[:, d], self.V_a[:, d]  # (N, n), (N, L, 6)
        xi = c.xi[:, None]  # (N, 1, n, 6)
        V_a_first = V_a[:, c.first[cols]][:, None]  # (N, 1, n, 6)
        V_p_first = self.V_p[:, :, c.first[cols]] + self.pre[:, :, cols]  # (N, K, n, 6)
        terms = (lie_bracket(V_a_first, xi) * self.q_p[..., None]
                 + lie_bracket(V_p_first, xi) * q_a[:, None, :, None])
        for p, pair in enumerate(system.pairs):
            if type(pair.pair_type).twist_rates is PairType.twist_rates:
                continue  # a pair whose twists do not change with its own variables (all but Hooke)
            span = slice(topology.start[p], topology.start[p] + topology.size[p])
            q = c.q[:, span]
            rates_a = pair.pair_type.twist_rates(q[:, None], q_a[:, None, span])
            rates_p = pair.pair_type.twist_rates(q[:, None], self.q_p[:, :, span])
            W = c.frames[:, None, p, None]
            terms[:, :, span] += (transform_twists(W, rates_a) * self.q_p[:, :, span, None]
                                  + transform_twists(W, rates_p) * q_a[:, None, span, None])
        pair_terms = c.column_pairs.T @ terms
        pair_terms += (lie_bracket(V_a[:, None, c.first], self.pre) + lie_bracket(V_a[:, None, c.second], self.post))
        gauge = np.zeros(pair_terms.shape[:2] + (len(c.gauge_links),))
        if len(c.gauge_links):
            gauge = self._gauge_rates(d)
        rhs = c.rows_of(pair_terms, gauge)
        u = c.solve(-rhs, self.where).transpose(0, 2, 1)
        return c.link_sum(u, pair_terms), u

    def _gauge_rates(self, d):
        """The gauge rows' second-order terms besides ``r . S``: ``rate(w, w_p, u) . omega_a +
        rate(w, w_a, u) . omega_p + 2 (J_l^-T du/dp) . omega_a`` (N, K, G), with ``w_x =
        J_l(w)^-1 omega_x`` the rotation vector's rates (:mod:`loops.passive`)."""
        from ..kernels.rotations import dexp_inverse_transposed_rate  # noqa: PLC0415 (kernels on first use)

        c = self.closure
        w = c.swings  # (N, G, 3)
        omega_a = self.V_a[:, d][:, c.gauge_links, :3]  # (N, G, 3)
        omega_p = self.V_p[:, :, c.gauge_links, :3]  # (N, K, G, 3)
        w_a = dexp_inverse(w, omega_a)
        w_p = dexp_inverse(w[:, None], omega_p)
        N, K, G = omega_p.shape[:3]
        out = 2.0 * np.einsum("Nkgs,Ngs->Nkg", dexp_inverse(w[:, None], self.gauge_axes[None], transposed=True),
                              omega_a)
        rate, scratch = np.empty(3), np.empty((5, 3))
        for i in range(N):
            for g in range(G):
                u = np.ascontiguousarray(c.gauge_axes[g])
                dexp_inverse_transposed_rate(w[i, g], w_a[i, g], u, rate, scratch)
                along_p = rate.copy()
                for k in range(K):
                    dexp_inverse_transposed_rate(w[i, g], np.ascontiguousarray(w_p[i, k, g]), u, rate, scratch)
                    out[i, k, g] += along_p @ omega_p[i, k, g] + rate @ omega_a[i, g]
        return out


# ------------------------------------------------------------------ the result
@dataclass(frozen=True)
class Influence:
    """One row of :meth:`Sensitivities.ranked`: ``derivative`` of ``metric`` with respect to
    ``coordinate`` (SI per metre, or per unit of an axis component) at ``position`` (index),
    where the analysis's input was ``at`` (SI)."""

    metric: str
    coordinate: str
    derivative: float
    position: int
    at: float


class Sensitivities:
    """Derivatives of the metrics of an analysis with respect to hardpoint coordinates.

    Attributes
    ----------
    coordinates : list of loops.study.coordinates.Coordinate (k)
    values : dict metric -> (N, k): ``d metric / d coordinate`` at each position, SI per
        metre (a location) or per unit (an axis component: the change of the unit axis);
        an axle's per-wheel metrics end in ``_left`` and ``_right``
    dimensions : dict metric -> the metric's dimension (:data:`loops.suspension.METRICS`)
    inputs : list of loops.results.Column, the analysis's input(s) (``wheel_travel``, the
        rack travel, ``roll_angle``) at the N positions
    result : the nominal analysis (a SuspensionResult)
    units : mechanism.units.Units, the model file's (the default of :meth:`to_csv`)
    """

    def __init__(self, coordinates, values, dimensions, inputs, result, directions):
        self.coordinates, self.values, self.dimensions = list(coordinates), values, dimensions
        self.inputs, self.result = inputs, result
        self.units = result.suspension.units
        self._directions = directions

    def __repr__(self):
        return (f"Sensitivities({len(self.values)} metrics x {len(self.coordinates)} coordinates at "
                f"{len(self.result)} positions of the {self.result.analysis})")

    def __getitem__(self, metric):
        return self.values[self._metric(metric)]

    def _metric(self, metric):
        if metric not in self.values:
            raise ModelError(f"metric {metric!r}", f"no sensitivities of it (metrics: {', '.join(self.values)})")
        return metric

    def _link(self, link):
        system = self.result.system
        if not isinstance(link, str) or link not in system.link_index or \
                system.links[system.link_index[link]].virtual:
            raise ModelError(f"link {link!r}", f"not a link of {self.result.model.name!r}")
        return system.link_index[link]

    def link_twist(self, link):
        """The motion of ``link`` per unit of each coordinate at fixed drivers: ``(omega, v_o)``
        (N, k, 6), global, origin-referenced (rad and m per metre, or per unit of an axis
        component): ``d T / dp = hat(twist) T``."""
        return self._directions.V_p[:, :, self._link(link)].copy()

    def link_velocity_rate(self, link, driver):
        """``d/dp`` of the velocity of ``link`` per unit rate of ``driver`` (a driver of the
        analysis, the others and the held variables at rest): (N, k, 6), global,
        origin-referenced (:meth:`_Directions.velocity_rate`)."""
        index = self._link(link)
        drivers = list(self.result.drivers)
        if driver not in drivers:
            raise ModelError(f"driver {driver!r}", f"not a driver of this analysis (drivers: {', '.join(drivers)})")
        return self._directions.velocity_rate(drivers.index(driver))[:, :, index]

    def link_acceleration_rate(self, link, driver):
        """``d/dp`` of the acceleration of ``link`` per unit rate of ``driver`` squared (the other
        drivers and the held variables at rest): (N, k, 6), global, origin-referenced, from the
        closure differentiated a third time ((T1)-(T2) of the module docstring). An idle link's
        spin about its line is left free there (it moves nothing else): for an idle link only
        the part across its line is its own."""
        index = self._link(link)
        drivers = list(self.result.drivers)
        if driver not in drivers:
            raise ModelError(f"driver {driver!r}", f"not a driver of this analysis (drivers: {', '.join(drivers)})")
        d = drivers.index(driver)
        q_aa, A_a = _second_rates_along(self.result)(d)
        return self._directions.acceleration_rate(d, A_a, q_aa, self._directions.along_coordinates(d))[:, :, index]

    def ranked(self, metric=None, position=None) -> list[Influence]:
        """The most influential coordinates: for each metric (or ``metric`` alone), one row per
        coordinate with its derivative where it is largest in magnitude over the positions (or
        at ``position``, an index), sorted by that magnitude, largest first. Derivatives are
        SI per metre for locations and per unit for axis components (compare those two kinds
        with care)."""
        metrics = list(self.values) if metric is None else [self._metric(metric)]
        count = len(self.result)
        if position is not None and (isinstance(position, bool) or not isinstance(position, (int, np.integer))
                                     or not -count <= position < count):
            raise ModelError("position", f"expected a position index in [{-count}, {count}), got {position!r}")
        at = np.asarray(self.inputs[0].values, dtype=float)
        out = []
        for name in metrics:
            values = self.values[name]
            rows = []
            for j, coordinate in enumerate(self.coordinates):
                column = values[:, j]
                if position is None:
                    i = int(np.argmax(np.where(np.isfinite(column), np.abs(column), -1.0)))
                else:
                    i = int(position) % count
                rows.append(Influence(name, coordinate.name, float(column[i]), i, float(at[i])))
            rows.sort(key=lambda r: -abs(r.derivative) if math.isfinite(r.derivative) else math.inf)
            out += rows
        return out

    def columns(self) -> list[Column]:
        """The table's columns: the inputs, then ``METRIC/COORDINATE`` for every metric and
        coordinate (dimension: the metric's per length, or the metric's for an axis)."""
        out = list(self.inputs)
        for name, values in self.values.items():
            for j, coordinate in enumerate(self.coordinates):
                dimension = self.dimensions[name]
                if coordinate.dimension == "length":
                    dimension = f"{dimension}/length"
                out.append(Column(f"{name}/{coordinate.name}", values[:, j], dimension, 0))
        return out

    def to_csv(self, path=None, units=None):
        """Write :meth:`columns` to a CSV file (atomically) in ``units`` (default: the model
        file's), the first line naming them; ``path=None`` returns the text."""
        units = self.units if units is None else Units.of(units)
        note = f"sensitivities of the {self.result.analysis} of {self.result.suspension.name!r}"
        return write_columns(path, self.columns(), units, note, len(self.result))


# ------------------------------------------------------------------ public
def sensitivities(suspension, coords, travel=None, *, analysis="parallel", rack=None, roll_angle=None,
                  travel_at="wheel-centre", tolerance=1e-10, rates=True) -> Sensitivities:
    """Derivatives of every position metric (and the exact rate metrics) of an analysis with
    respect to hardpoint coordinates, at every position (see the module docstring).

    Parameters
    ----------
    suspension : loops.suspension.Suspension (a corner or an axle)
    coords : list of coordinate names (``"lower_ball.z"``, ``"lower_ball"`` for x, y, z,
        ``"upper_inner.axis.x"``) or of :class:`~loops.study.coordinates.Coordinate`
    travel : (N,) wheel travel, m, for ``"parallel"``, ``"opposite"`` and ``"combined"``;
        the fixed wheel travel (float, default 0) for ``"steering"``
    analysis : {"parallel", "opposite", "steering", "combined", "roll"}
    rack : (N,) values of the steering variable for ``"steering"`` and ``"combined"``
    roll_angle : (N,) rad (ISO 8855: positive right side down) for ``"roll"``; its
        coordinates are the axle's (a corner is mirrored into one: ``"lower_ball_left.z"``)
    travel_at : "wheel-centre" (the contact-patch convention is not available)
    tolerance : closure tolerance of the analysis's sweep
    rates : also the rate metrics (``camber_gain``, ``bump_steer``, ``steer_rate``, motion
        ratios; in roll ``roll_camber`` and ``roll_steer``) and the velocity-field metrics
        (instant centres, roll centre, anti-geometry; none in roll); False skips the
        second-order solve

    Returns
    -------
    Sensitivities

    Raises
    ------
    ModelError
        Located ``vary 'NAME'`` for a name that is not a hardpoint coordinate; ``analysis``,
        ``travel_at``, ``travel``, ``rack`` or ``roll_angle`` for inputs this does not take.
    """
    if analysis not in ANALYSES:
        raise ModelError("analysis", f"expected one of {', '.join(ANALYSES)}, got {analysis!r}")
    _check_travel_at(travel_at)
    if analysis in ("parallel", "opposite", "combined") and travel is None:
        raise ModelError("travel", f"the {analysis} analysis needs the wheel travel values")
    if analysis in ("steering", "combined") and rack is None:
        raise ModelError("rack", f"the {analysis} analysis needs the values of the steering variable")
    if analysis == "roll" and roll_angle is None:
        raise ModelError("roll_angle", "the roll analysis needs the roll angles")
    if analysis == "roll":
        result = roll(suspension, roll_angle, tolerance=tolerance)
    elif analysis == "parallel":
        result = parallel_travel(suspension, travel, tolerance=tolerance)
    elif analysis == "opposite":
        result = opposite_travel(suspension, travel, tolerance=tolerance)
    elif analysis == "steering":
        result = steering(suspension, rack, travel=0.0 if travel is None else float(travel), tolerance=tolerance)
    else:
        result = combined(suspension, travel, rack, tolerance=tolerance)
    return sensitivities_of(result, coords, rates=rates)


def _check_travel_at(travel_at):
    if travel_at != "wheel-centre":
        raise ModelError("travel_at", f"sensitivities are taken at fixed wheel-centre travel; got {travel_at!r} "
                         "(the contact-patch convention is not available)")


def sensitivities_of(result, coords, *, rates=True, only=None) -> Sensitivities:
    """:func:`sensitivities` of an analysis already run (a SuspensionResult of
    :func:`~loops.suspension.parallel_travel`, :func:`~loops.suspension.steering`, ...):
    ``coords`` names or Coordinates of its model. ``only``: the names of the metrics wanted
    (default all); a roll then skips the second-order groups (R5, R6, R7) none of them
    needs (the others may be left out too)."""
    where = "vary"
    susp = getattr(result, "suspension", None)
    if susp is None or not hasattr(result, "analysis"):
        raise ModelError("result", "expected the result of a suspension analysis (parallel_travel, steering, ...)")
    _check_travel_at(result.travel_at)
    if result.stop_reason is not None:
        raise ModelError("result", f"the analysis stopped ({result.stop_reason}): no sensitivities")
    model = result.model
    if coords and all(isinstance(c, Coordinate) for c in coords):
        coords = list(coords)
    else:
        coords = coordinates(model, coords, where)
    system = result.system
    moves = _moves(system, coords, where)
    _check_kingpin_axes(susp, coords, where)
    count = len(result)
    if not count:
        raise ModelError("result", "the analysis reached no position")
    closure = _Closure(system, result._q, result._rotations, result._driven_columns(), where)
    driver_names = list(result.drivers)
    driver_columns = np.array([system.variable_index[n] for n in driver_names], dtype=np.int64)
    directions = _Directions(closure, moves, driver_columns, where)
    values, dimensions = {}, {}
    if result.analysis == "roll":
        values = _roll_sensitivities(susp, result, closure, directions, driver_names, rates, where, only)
        dimensions = {name: AXLE_METRICS[name] if name in AXLE_METRICS else
                      {**METRICS, **ROLL_METRICS}[_wheel_metric(name)] for name in values}
    wheels = {}
    accelerations = _second_rates_along(result) if rates else None
    for side, corner in susp.corners.items() if result.analysis != "roll" else ():
        suffix = f"_{side}" if susp.is_axle else ""
        per_wheel, wheels[side] = _corner_sensitivities(susp, side, corner, closure, directions, driver_names, rates,
                                                        accelerations)
        for name, value in per_wheel.items():
            if not susp.is_axle and name == "wheel_travel":
                continue
            values[name + suffix] = value
            dimensions[name + suffix] = METRICS[name]
    if susp.is_axle and result.analysis != "roll":
        for name, value in _axle_sensitivities(susp, wheels, result.analysis, count).items():
            values[name] = value
            dimensions[name] = AXLE_METRICS[name]
    inputs = [result.metrics[name] for name in _input_names(result)]
    return Sensitivities(coords, values, dimensions, inputs, result, directions)


def _input_names(result):
    names = list(result.metrics)
    count = 2 if result.analysis.startswith("combined") else 1
    if result.analysis != "parallel travel" and "steering_wheel_angle" in names:
        count += 1
    return names[:count]


def _check_kingpin_axes(susp, coords, where):
    for corner in susp.corners.values():
        if isinstance(corner.kingpin, str):
            for c in coords:
                if c.hardpoint.key == "axis" and c.hardpoint.owner == corner.kingpin:
                    raise ModelError(f"{where} {c.name!r}", f"{corner.kingpin!r} is the corner's steering axis: "
                                     "sensitivities to its axis are not available (vary its centre)")


def _moved_points(moves, count):
    """``HardpointMotion.moved`` of the coordinates ``moves`` at ``count`` positions: the
    rows are (position, coordinate) pairs, position-major (count K rows)."""
    K = len(moves)
    moved = {}
    for j, move in enumerate(moves):
        if move.source is not None:
            e = moved.setdefault(move.source, np.zeros((count, K, 3)))
            e[:, j] = move.e
    return {source: e.reshape(count * K, 3) for source, e in moved.items()}


def _rows_of(closure, array, K):
    """Getter link -> ``array[:, link]`` (N, ...) repeated for the K coordinates (N K, ...)."""
    index = closure.system.link_index
    return lambda link: np.repeat(array[:, index[link]], K, axis=0)


def _flat(closure, array):
    """Getter link -> ``array[:, :, link]`` (N, K, 6) as (N K, 6) rows."""
    index = closure.system.link_index
    return lambda link: array[:, :, index[link]].reshape(-1, 6)


def _along_p(closure, directions, moved):
    """The motion along every coordinate at fixed drivers (N K rows): link twists ``V_p``, the
    moved points' own move; no second rates (zero accelerations)."""
    K = len(directions.moves)
    zeros = np.zeros((closure.xi.shape[0] * K, 6))
    return HardpointMotion(_rows_of(closure, closure.poses, K), _flat(closure, directions.V_p), lambda link: zeros,
                           moved)


def _along_driver(closure, directions, d, K=None):
    """The motion along driver ``d`` (index), the others at rest: N rows, or N K rows (each
    position repeated for the K coordinates); no second rates (zero accelerations)."""
    N = closure.xi.shape[0]
    V = directions.V_a[:, d]
    if K is None:
        index = closure.system.link_index
        zeros = np.zeros((N, 6))
        return Motion(lambda link: closure.poses[:, index[link]], lambda link: V[:, index[link]], lambda link: zeros)
    zeros = np.zeros((N * K, 6))
    return Motion(_rows_of(closure, closure.poses, K), _rows_of(closure, V, K), lambda link: zeros)


def _corner_sensitivities(susp, side, corner, closure, directions, driver_names, rates, accelerations=None):
    """``{metric: (N, k)}`` of one wheel, and the jets along every coordinate (N K rows) that
    the axle's metrics take: ``"patch"``, ``"patch_velocity"`` (None without ``rates``),
    ``"steer_angle"``, ``"steer_rate"`` (None without a steering driver), ``"design"``."""
    resolved, design = susp.resolved[side], susp.design[side]
    N, K = closure.xi.shape[0], len(directions.moves)
    rows = N * K
    moved = _moved_points(directions.moves, N)
    design_jets = _DesignJets(design, resolved, corner, moved, rows)
    frame = Frame.body(corner)
    pose_rows = _rows_of(closure, closure.poses, K)
    d_index = {name: i for i, name in enumerate(driver_names)}
    steer_index = d_index.get(corner.steering) if corner.steering is not None else None

    def steer_motion(expand, axis_rates=False):
        if steer_index is None:
            return None
        motion = _along_driver(closure, directions, steer_index, K if expand else None)
        if axis_rates:  # the twists' rates along p (H4): a virtual steering axis moves with p (V1)
            motion = Motion(motion.pose, motion.twist, None, _flat(closure, directions.velocity_rate(steer_index)))
        return motion

    def run(motion, design_values, expand, wheel=None, axis_rates=False):
        _, named, points = corner_metrics(resolved, corner, design_values, motion, frame, vehicle=susp.vehicle,
                                          steer_motion=steer_motion(expand, axis_rates))
        if wheel is not None:
            wheel.update(points)
        return named

    wheel = {}
    along_p = run(_along_p(closure, directions, moved), design_jets, True, wheel, axis_rates=True)
    out = {}
    for name, jet in along_p.items():
        if name in METRICS:
            out[name] = jet.d.reshape(N, K)
    jets_out = {"patch": wheel["patch_jet"], "patch_velocity": None, "steer_angle": along_p["steer_angle"],
                "steer_rate": None, "design": design_jets}
    if not rates:
        return out, jets_out
    roles = {"travel": d_index.get(resolved.travel), "steering": steer_index}
    if roles["travel"] is not None:
        field, jets_out["patch_velocity"] = _field_sensitivities(susp, corner, resolved, closure, directions,
                                                                 roles["travel"], wheel, design_jets, frame)
        out.update({name: jet.d.reshape(N, K) for name, jet in field.items()})
    mixed = {}
    for role, d in roles.items():
        if d is None:
            continue
        V_a = directions.V_a[:, d]
        along_a = run(_along_driver(closure, directions, d), design, False)
        S = directions.mixed(d)
        V_ap = V_a[:, None] + directions.V_p
        both = run(HardpointMotion(pose_rows, _flat(closure, V_ap), _flat(closure, S), moved), design_jets, True)
        mixed[role] = (along_a, both)
    for name, (role, numerator, sign) in RATE_METRICS.items():
        if role not in mixed or numerator not in along_p:
            continue
        along_a, both = mixed[role]

        def cross_term(key):
            return (both[key].dd.reshape(N, K) - along_p[key].dd.reshape(N, K) - along_a[key].dd[:, None]) / 2.0

        f_a, f_ap = along_a[numerator].d[:, None], cross_term(numerator)
        if role == "steering":
            out[name] = _rate_derivative(role, sign, f_a, f_ap, None, None)
            rate = np.repeat(sign * f_a, K, axis=1).reshape(-1)
            jets_out[name] = jets.Jet(rate, out[name].reshape(-1), np.full_like(rate, np.nan))
            continue
        out[name] = _rate_derivative(role, sign, f_a, f_ap, along_a["wheel_travel"].d[:, None],
                                     cross_term("wheel_travel"))
    if roles["travel"] is not None and accelerations is not None and _has_wheel_rate(closure.system, resolved):
        out["wheel_rate"] = _wheel_rate_sensitivity(closure, directions, roles["travel"], accelerations,
                                                    resolved, frame.up, moved)
    return {name: out[name] for name in METRICS if name in out}, jets_out


def _has_wheel_rate(system, resolved):
    """Whether the corner has a wheel rate with sensitivities: a spring with its rate, and
    neither spring end nor the wheel centre off the line of an idle link they sit on (there
    the metric would follow the idle spin, whose third rate (T2) leaves free)."""
    if resolved.spring is None or resolved.spring_spec is None:
        return False
    centres = np.array([p.frame_on_first[:3, 3] for p in system.pairs])
    for gauge in system.gauges:
        on_line = centres[pairs_touching(system.topology, gauge.link)[0]]
        for located in (*resolved.spring, resolved.wheel_centre):
            # at the design pose every link frame is the global frame
            if system.link_index[located.link] == gauge.link and \
                    np.abs(cross(located.r - on_line, gauge.axis)).max() > 1e-9 * system.scale:
                return False
    return True


@dataclass(frozen=True)
class _Along:
    """B directions ``b`` of the third rates along a driver ``a`` (T1): every link's twist
    ``V`` (N, B, L, 6) along b, the virtual slides' twists ``pre`` (N, B, P, 6) before the
    pairs b moves (zero along a driver), ``rate = d_b V_a`` (N, B, L, 6), and the variables'
    rates ``q`` (N, B, n) along b and mixed second rates ``q_ab`` (N, B, n) (read for the
    Hooke pairs' angles only, (T1'))."""

    V: np.ndarray
    pre: np.ndarray
    rate: np.ndarray
    q: np.ndarray
    q_ab: np.ndarray

    @classmethod
    def driver(cls, V_j, rate, q_j, q_aj):
        """Along driver j: its link twists (N, L, 6), ``d_j V_a`` (N, L, 6), the variables'
        rates ``q_j`` (N, n) and ``q_aj`` (N, n)."""
        return cls(V_j[:, None], 0.0, rate[:, None], q_j[:, None], q_aj[:, None])


def _hooke_terms(xi, start, q_a, q_aa, along):
    """(T1') The Hooke pair's terms of ``d_b d_a Z`` (N, B, 6) besides (T1): its second pin
    ``xi_1`` is carried by the cross, which turns with the first angle, so with ``K =
    [xi_0, xi_1]`` (``xi`` (N, n, 6) the variables' twists, the pair's from column ``start``)

        K (w0_b a1 + q0_ab w1_a + w0_a q1_ab) + [xi_0, K] w0_b w0_a w1_a

    (``w = q_a``, ``w_b`` the angles' rates, ``a1`` the second angle's second rate along a)."""
    xi_0, xi_1 = xi[:, start], xi[:, start + 1]
    K = lie_bracket(xi_0, xi_1)  # (N, 6)
    KK = lie_bracket(xi_0, K)
    w0a, w1a, a1 = q_a[:, start, None], q_a[:, start + 1, None], q_aa[:, start + 1, None]
    w0b, q0ab, q1ab = along.q[:, :, start], along.q_ab[:, :, start], along.q_ab[:, :, start + 1]
    first = w0b * a1 + q0ab * w1a + w0a * q1ab  # (N, B)
    return K[:, None] * first[..., None] + KK[:, None] * (w0b * w0a * w1a)[..., None]


def _point_rates(closure, V_a, A_a, along, J, located, moved):
    """A located point's derivatives along driver a and the B directions b of ``along`` (N B
    rows, 3): ``x, x_a, x_b, x_aa, x_ab, x_aab`` (T3), from its link's pose, velocity ``V_a``
    (N, L, 6), acceleration ``A_a`` (N, L, 6), twist ``V_b`` with its own move ``R e`` in the
    link when it is the moved hardpoint (``moved``, as :class:`HardpointMotion`'s), velocity
    rate ``d_b V_a`` and acceleration rate ``J = d_b A_a`` (N, B, L, 6)."""
    B = along.V.shape[1]
    link = closure.system.link_index[located.link]

    def rows(array):  # (N, ...) -> each position repeated for the B directions
        return np.repeat(array, B, axis=0)

    pose = rows(closure.poses[:, link])
    R = pose[:, :3, :3]
    V, A = rows(V_a[:, link]), rows(A_a[:, link])
    V_b, dV, dA = (array[:, :, link].reshape(-1, 6) for array in (along.V, along.rate, J))
    x = np.einsum("nij,nj->ni", R, np.broadcast_to(located.r, (len(R), 3))) + pose[:, :3, 3]
    e = moved.get(located.source) if located.source is not None else None
    own = 0.0 if e is None else np.einsum("nij,nj->ni", R, e)
    x_a = cross(V[:, :3], x) + V[:, 3:]
    x_b = cross(V_b[:, :3], x) + V_b[:, 3:] + own
    x_aa = cross(A[:, :3], x) + A[:, 3:] + cross(V[:, :3], x_a)
    x_ab = cross(dV[:, :3], x) + dV[:, 3:] + cross(V[:, :3], x_b)
    x_aab = (cross(dA[:, :3], x) + dA[:, 3:] + cross(A[:, :3], x_b) + cross(dV[:, :3], x_a)
             + cross(V[:, :3], x_ab))
    return x, x_a, x_b, x_aa, x_ab, x_aab


def _spring_rates(closure, directions, d, A_a, q_aa, along, resolved, up, moved):
    """The wheel rate's ingredients along driver a (the travel driver ``d``) and the B
    directions of ``along`` (T4), each (N, B): the spring length ``L`` and its rates ``L_a,
    L_b, L_aa, L_ab, L_aab`` (from ``L^2 = D . D``, D the spring's end-to-end vector,
    differentiated), the wheel-centre travel's ``w_a, w_aa, w_ab, w_aab`` along ``up`` (3,) or
    (N, 3) one per position."""
    N, B = along.V.shape[:2]
    J = directions.acceleration_rate(d, A_a, q_aa, along)
    V_a = directions.V_a[:, d]
    ends = [_point_rates(closure, V_a, A_a, along, J, end, moved) for end in resolved.spring]
    D, D_a, D_b, D_aa, D_ab, D_aab = (one - two for one, two in zip(*ends))
    centre = _point_rates(closure, V_a, A_a, along, J, resolved.wheel_centre, moved)
    up = np.repeat(np.broadcast_to(up, (N, 3)), B, axis=0)

    def dot(u, v):
        return np.einsum("ni,ni->n", u, v)

    L = np.sqrt(dot(D, D))
    L_a, L_b = dot(D, D_a) / L, dot(D, D_b) / L
    L_aa = (dot(D_a, D_a) + dot(D, D_aa) - L_a ** 2) / L
    L_ab = (dot(D_b, D_a) + dot(D, D_ab) - L_b * L_a) / L
    L_aab = (2.0 * dot(D_a, D_ab) + dot(D_b, D_aa) + dot(D, D_aab) - 2.0 * L_a * L_ab - L_b * L_aa) / L
    out = {"L": L, "L_a": L_a, "L_b": L_b, "L_aa": L_aa, "L_ab": L_ab, "L_aab": L_aab}
    for name, part in zip(("w_a", "w_aa", "w_ab", "w_aab"), (centre[1], centre[3], centre[4], centre[5])):
        out[name] = dot(part, up)
    return {name: value.reshape(N, B) for name, value in out.items()}


def _wheel_rate_derivative(spec, at, dL, dL_a, dL_aa, dw_a, dw_aa):
    """``d wheel_rate`` (T4) from the values ``at`` (:func:`_spring_rates`' ``L, L_a, L_aa, w_a,
    w_aa``) and the derivatives along p of the same five: the wheel rate of
    :func:`~loops.suspension.metrics.corner_metrics`, ``k MR^2 + F rho`` with ``MR = -L_a /
    w_a``, ``rho = -(L_aa w_a - L_a w_aa) / w_a^3``, ``F = k (L_free - L)``, differentiated."""
    L, L_a, L_aa, w_a, w_aa = at
    k = spec.stiffness
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = -L_a / w_a
        ratio_p = -(dL_a * w_a - L_a * dw_a) / w_a ** 2
        top = L_aa * w_a - L_a * w_aa
        top_p = dL_aa * w_a + L_aa * dw_a - dL_a * w_aa - L_a * dw_aa
        rho = -top / w_a ** 3
        rho_p = -(top_p * w_a - 3.0 * top * dw_a) / w_a ** 4
    return 2.0 * k * ratio * ratio_p - k * dL * rho + k * (spec.free_length - L) * rho_p


def _wheel_rate_sensitivity(closure, directions, d, accelerations, resolved, up, moved):
    """``d wheel_rate / dp`` (N, k) along the travel driver ``d`` (T4) at fixed drivers, the
    travel taken along ``up`` (3,)."""
    q_aa, A_a = accelerations(d)
    r = _spring_rates(closure, directions, d, A_a, q_aa, directions.along_coordinates(d), resolved, up, moved)
    at = (r["L"], r["L_a"], r["L_aa"], r["w_a"], r["w_aa"])
    return _wheel_rate_derivative(resolved.spring_spec, at, r["L_b"], r["L_ab"], r["L_aab"], r["w_ab"], r["w_aab"])


def _field_sensitivities(susp, corner, resolved, closure, directions, d, wheel, design_jets, frame):
    """The velocity-field metrics (instant centres, roll centre, anti-geometry) as jets along
    every coordinate (N K rows): :func:`~loops.suspension.metrics.velocity_field_metrics` fed
    with the upright's twist per unit of the travel driver ``d`` and its rate along p, ``d_p
    V_a`` (H4), and the points along p (the contact patch, the wheel centre, the upright's
    point at the design patch, which moves with the design patch). Returns them and the
    jet of the patch's velocity in wheel travel."""
    index = closure.system.link_index
    N, K = closure.xi.shape[0], len(directions.moves)
    upright = directions.velocity_jet(d, index[corner.upright])
    centre = jets.material_velocity(directions.velocity_jet(d, index[resolved.wheel_centre.link]),
                                    wheel["centre_jet"])
    static = None
    if _anti_geometry(susp.vehicle):
        pose = np.repeat(closure.poses[:, index[corner.upright]], K, axis=0)
        static = _design_patch_point(pose, directions.V_p[:, :, index[corner.upright]].reshape(N * K, 6),
                                     design_jets)
    _, outboard, _ = corner.axes
    return velocity_field_metrics(upright, wheel["patch_jet"], centre, static, frame, outboard, susp.vehicle)


def _design_patch_point(pose, twist, design):
    """Jet along p (R rows) of the upright's point at the design contact patch (the outboard
    brakes' reaction point), from the upright's pose (R, 4, 4) and twist along p (R, 6): it
    moves with the upright and, in it, with the design patch (``design``: :class:`_DesignJets`,
    R rows), which the wheel-centre and spin-axis points move."""
    point = jets.point_jet(pose, twist, None, design.patch.value)
    shift = np.einsum("nij,nj->ni", pose[:, :3, :3], design.patch.d)
    return jets.Jet(point.value, point.d + shift, point.dd)


def _rate_derivative(role, sign, f_a, f_p, w_a, w_p):
    """``d/dp`` of a rate metric of :data:`RATE_METRICS` from its numerator's rate ``f_a``
    along the driver and the derivative ``f_p`` of that rate along p (and the wheel travel's,
    ``w_a`` and ``w_p``): ``sign f_p`` along the steering variable, else the quotient rule
    ``sign (f_p w_a - f_a w_p) / w_a^2``."""
    if role == "steering":
        return sign * f_p
    with np.errstate(divide="ignore", invalid="ignore"):
        return sign * (f_p * w_a - f_a * w_p) / w_a ** 2


def _axle_sensitivities(susp, wheels, analysis, count):
    """``{axle metric: (N, k)}``: :func:`~loops.suspension.metrics.axle_metrics` fed with the
    two wheels' jets along every coordinate (the patches, their velocities in wheel travel
    with their rates (H4), the steer angles and their rates, and the design track and steer
    angles, which the wheel-centre and spin-axis points move). As the analyses take them:
    Ackermann in the steering and combined analyses, the roll centre with ``rates``."""
    steered = analysis == "steering" or analysis.startswith("combined")
    velocities = {side: wheels[side]["patch_velocity"] for side in SIDES}
    rates = {side: wheels[side]["steer_rate"] for side in SIDES}
    design = {side: wheels[side]["design"] for side in SIDES}
    # Suspension.design_track: the lateral distance between the design contact patches.
    design_track = jets.dot(design["left"].patch - design["right"].patch, susp.corners["left"].left)
    out = axle_metrics({side: wheels[side]["patch"] for side in SIDES},
                       None if any(v is None for v in velocities.values()) else velocities,
                       Frame.body(susp.corners["left"]),
                       steer={side: wheels[side]["steer_angle"] for side in SIDES} if steered else None,
                       steer_rates=None if any(r is None for r in rates.values()) else rates,
                       vehicle=susp.vehicle, design_track=design_track,
                       design_steer={side: design[side].steer_angle for side in SIDES})
    return {name: jet.d.reshape(count, -1) for name, jet in out.items()}


# ------------------------------------------------------------------ roll
def _wheel_metric(name):
    """A per-wheel metric's name without its side (``camber_left`` -> ``camber``)."""
    return name.removesuffix("_left").removesuffix("_right") if isinstance(name, str) else name


def _roll_axis(susp, moves, where):
    """The roll axis's point ``a`` (3,), the axle's static roll centre (m, body frame), and its
    rates ``a_p`` (k, 3) along the coordinates (R1)."""
    record = _design_pose(susp, 1e-10)  # the design closes at zero pair variables: no iteration
    system, names = record.system, list(record.drivers)
    closure = _Closure(system, record._q, record._rotations, record._driven_columns(), where)
    columns = np.array([system.variable_index[n] for n in names], dtype=np.int64)
    directions = _Directions(closure, moves, columns, where)
    along_p = _along_p(closure, directions, _moved_points(moves, 1))
    body = Frame.body(susp.corners["left"])
    patches, velocities = {}, {}
    for side in SIDES:
        _, patches[side] = _patch_jets(susp, side, along_p, body.up)
        d, upright = names.index(susp.resolved[side].travel), system.link_index[susp.corners[side].upright]
        velocities[side] = jets.material_velocity(directions.velocity_jet(d, upright), patches[side])
    centre = roll_centre_point(patches, velocities, body)
    return centre.value[0], centre.d


def _motion_along(result, drivers):
    """The variables' second rates ``q_ddot`` (N, n) and the link velocities and accelerations
    ``V, A`` (N, L, 6), global, at the positions of ``result`` along the unit rates of
    ``drivers`` (indices; the other drivers at rest)."""
    from ..continuation import motion_at_positions  # noqa: PLC0415

    columns = result._driven_columns()
    speeds = np.zeros((len(result), len(columns)))
    speeds[:, list(drivers)] = 1.0
    _, q_ddot, V, A = motion_at_positions(result.system, columns, result._q, result._rotations, result._tangents,
                                          speeds, np.zeros_like(speeds))
    return q_ddot, V, A


def _second_rates_along(result):
    """Getter driver index -> ``(q_aa (N, n), A_a (N, L, 6))``, the variables' second rates and
    the link accelerations along that driver alone (for the wheel rate's third rates, (T4)),
    each computed once."""
    cache = {}

    def get(d):
        if d not in cache:
            cache[d] = _motion_along(result, [d])[::2]
        return cache[d]

    return get


def _driver_accelerations(result, drivers):
    """``D[k][j] = d_k V_j`` (N, L, 6), global: the rate along driver ``drivers[k]`` of every
    link's velocity per unit rate of driver ``drivers[j]`` (the other drivers at rest), at the
    positions of ``result``. The accelerations along one driver are ``D[j][j]``; along the sum
    of two they add the symmetric ``S_kj = D[k][j] + D[j][k]``, and ``D[k][j] - D[j][k] =
    [V_k, V_j]`` (the twists' integrability, as in (H3))."""
    single = [_motion_along(result, [j])[1:] for j in drivers]
    D = [[single[j][1] if j == k else None for j in range(len(drivers))] for k in range(len(drivers))]
    for k in range(len(drivers)):
        for j in range(k + 1, len(drivers)):
            S = _motion_along(result, [drivers[k], drivers[j]])[2] - single[k][1] - single[j][1]
            bracket = lie_bracket(single[k][0], single[j][0])
            D[k][j], D[j][k] = (S + bracket) / 2.0, (S - bracket) / 2.0
    return D


class _Roll:
    """The roll solution's rates along the coordinates at every position (module docstring,
    "Roll"): the axis (R1), the road frame (R2), the travels (R3), the metrics (R4) and the
    roll's rates (R5).

    Attributes: ``axis`` (3,) the static roll centre, m, body frame, and ``axis_rate`` (K, 3)
    its rates; ``R`` (N, 3, 3), ``shift`` (N, 3) the body seen from the road (``x_road = R x +
    shift``); ``slide`` (N, K, 3) the road picture's slide ``(1 - R) a_p``; ``J`` (N, 2, 2) the
    contact conditions' rates along the travels (left, right); ``travel_rate`` (N, 2, K) the
    travels' rates ``t_p`` along the solution, m per metre (or per unit axis component).
    """

    def __init__(self, susp, result, closure, directions, driver_names, where):
        self.susp, self.result, self.closure, self.directions = susp, result, closure, directions
        self.driver_names = driver_names
        N, K = self.N, self.K = closure.xi.shape[0], len(directions.moves)
        self.body = body = Frame.body(susp.corners["left"])
        self.axis, self.axis_rate = _roll_axis(susp, directions.moves, where)  # (R1)
        R, shift, self.road = roll_frame(result.metric("roll_angle"), np.broadcast_to(self.axis, (N, 3)), body)
        self.R, self.shift = R, shift
        self.M = np.zeros((N, 4, 4))  # the body's pose seen from the road
        self.M[:, :3, :3], self.M[:, :3, 3], self.M[:, 3, 3] = R, shift, 1.0
        self.slide = (self.axis_rate[None] - np.einsum("nij,kj->nki", R, self.axis_rate))  # (R2) (N, K, 3)
        self.road_rows = Frame(body.forward, body.up, np.repeat(self.road.left, K, axis=0),
                               np.repeat(self.road.centre, K, axis=0))
        self.moved = _moved_points(directions.moves, N)
        self.along_p = _along_p(closure, directions, self.moved)
        self.travels = [driver_names.index(susp.resolved[side].travel) for side in SIDES]
        self.along_t = [_along_driver(closure, directions, d) for d in self.travels]
        self.design_p = {side: _DesignJets(susp.design[side], susp.resolved[side], susp.corners[side], self.moved,
                                           N * K) for side in SIDES}
        # (R3): g_p + J t_p = 0, J[i, j] = d g_i / d t_j
        g_p = np.stack([self.height(side, self.on_road(self.along_p, True), self.slid(side)).d.reshape(N, K)
                        for side in SIDES], axis=1)
        self.J = np.stack([np.stack([self.height(side, self.on_road(m, False)).d for m in self.along_t], axis=1)
                           for side in SIDES], axis=1)
        self.travel_rate = -np.linalg.solve(self.J, g_p)  # (N, 2, K)
        self._along_travels = {}
        self._steer_rates = {}

    def on_road(self, motion, rows):
        """A body motion seen from the road (N rows, or N K rows)."""
        R, shift = (np.repeat(self.R, self.K, axis=0), np.repeat(self.shift, self.K, axis=0)) if rows else \
            (self.R, self.shift)
        return motion.in_frame(R, shift)

    def slid(self, side):
        """``side``'s design values along p seen from the road, its slide (R2) included."""
        return self.design_p[side].slid(self.slide.reshape(-1, 3))

    def height(self, side, motion, design=None):
        """The contact condition ``g`` of ``side`` along ``motion`` (a jet), against the nominal
        design patch or ``design``'s."""
        patch = self.susp.design[side].patch if design is None else design.patch
        return _patch_height(self.susp, side, motion, self.body.up, patch)

    def steer(self, side, rows, seen, rate=None):
        """The steering variable's motion (for a virtual steering axis), seen by ``seen``, with
        its twists' rate ``rate`` (a getter link -> (rows, 6)) along the jets' direction."""
        steering = self.susp.corners[side].steering
        if steering not in self.driver_names:
            return None
        motion = _along_driver(self.closure, self.directions, self.driver_names.index(steering),
                               self.K if rows else None)
        if rate is not None:
            motion = Motion(motion.pose, motion.twist, None, rate)
        return seen(motion, rows)

    def steer_rates(self, side):
        """(V1) for a virtual steering axis seen from the road: the steering motion's twists'
        rates along p (getter, N K rows) and along each travel (getters, N rows), or None when
        ``side`` has a kingpin (or no steering variable)."""
        corner = self.susp.corners[side]
        if corner.kingpin is not None or corner.steering not in self.driver_names:
            return None
        s = self.driver_names.index(corner.steering)
        if s not in self._steer_rates:
            index = self.closure.system.link_index
            D = _driver_accelerations(self.result, self.travels + [s])  # D[j][-1] = d_{t_j} V_s
            self._steer_rates[s] = (_flat(self.closure, self.directions.velocity_rate(s)),
                                    [lambda link, j=j: D[j][-1][:, index[link]] for j in range(len(self.travels))])
        return self._steer_rates[s]

    def along_travels(self, side):
        """``side``'s metric jets along each travel seen from the road (N rows each), once."""
        if side not in self._along_travels:
            rates = self.steer_rates(side)
            self._along_travels[side] = [self.metrics(side, self.on_road(m, False), self.susp.design[side],
                                                      self.road, False, self.on_road,
                                                      None if rates is None else rates[1][j])
                                         for j, m in enumerate(self.along_t)]
        return self._along_travels[side]

    def metrics(self, side, motion, design, frame, rows, seen, steer_rate=None):
        """``corner_metrics``' jets of ``side`` along ``motion`` (rows: N K, else N); a virtual
        steering axis moves with ``steer_rate`` (:meth:`steer`)."""
        corner = self.susp.corners[side]
        return corner_metrics(self.susp.resolved[side], corner, design, motion, frame, vehicle=self.susp.vehicle,
                              steer_motion=self.steer(side, rows, seen, steer_rate))[1]

    def position_rates(self):
        """``{metric_side: (N, k)}``: (R4) for every position metric, in the road frame, the
        wheel travels in the body frame."""
        N, K = self.N, self.K

        def in_body(motion, rows):
            return motion

        def rates(side, frame_rows, seen, design_along_p, named_t):
            steer_rates = self.steer_rates(side)
            named_p = self.metrics(side, seen(self.along_p, True), design_along_p, frame_rows, True, seen,
                                   None if steer_rates is None else steer_rates[0])
            return {name: jet.d.reshape(N, K) + sum(t[name].d[:, None] * self.travel_rate[:, j]
                                                    for j, t in enumerate(named_t))
                    for name, jet in named_p.items() if name in METRICS}

        out = {}
        for side in SIDES:
            values = rates(side, self.road_rows, self.on_road, self.slid(side), self.along_travels(side))
            body_t = [self.metrics(side, m, self.susp.design[side], self.body, False, in_body) for m in self.along_t]
            body_values = rates(side, self.body, in_body, self.design_p[side], body_t)
            values.update({key: body_values[key] for key in BODY_TRAVELS if key in values})
            out.update({f"{name}_{side}": values[name] for name in METRICS if name in values})
        return out

    def roll_rates(self):
        """``{roll_camber_side, roll_steer_side: (N, k)}``: (R5)."""
        N, K, c = self.N, self.K, self.closure
        f = self.body.forward
        M = self.M
        poses = M[:, None] @ c.poses  # (N, L, 4, 4) seen from the road
        frame_phi = np.r_[f, -np.cross(f, self.axis)]  # the frame's twist per unit roll
        frame_p = np.concatenate([np.zeros((N, K, 3)), self.slide], axis=2)  # per unit p (R2)
        # the travels' rates along the roll at fixed p: g_phi + J t_phi = 0
        turning = Motion(lambda link: poses[:, c.system.link_index[link]], lambda link: np.broadcast_to(
            frame_phi, (N, 6)), lambda link: np.zeros((N, 6)))
        g_phi = np.stack([self.height(side, turning).d for side in SIDES], axis=1)
        t_phi = -np.linalg.solve(self.J, g_phi[..., None])[..., 0]  # (N, 2)
        V_t = self.directions.V_a[:, self.travels]  # (N, 2, L, 6), body
        body_phi = np.einsum("nj,njls->nls", t_phi, V_t)
        V_phi = frame_phi + transform_twists(M[:, None], body_phi)  # (N, L, 6)
        V_p = frame_p[:, :, None] + transform_twists(M[:, None, None], self.directions.V_p + np.einsum(
            "njk,njls->nkls", self.travel_rate, V_t))  # (N, K, L, 6)
        # d_p V_phi without the travels' second rates t_{phi p}: the axis's rate, the frame's
        # slide turning the body's twist, the body twist's own rate along the solution
        D = _driver_accelerations(self.result, self.travels)
        body_rate = sum(t_phi[:, j, None, None, None] * (
            self.directions.velocity_rate(d) + sum(self.travel_rate[:, k, :, None, None] * D[k][j][:, None]
                                                   for k in range(len(self.travels))))
            for j, d in enumerate(self.travels))
        axis_turn = np.concatenate([np.zeros((K, 3)), -np.cross(f, self.axis_rate)], axis=1)
        rate_phi = (axis_turn[None, :, None] + lie_bracket(frame_p[:, :, None], transform_twists(M[:, None], body_phi)
                                                          [:, None]) + transform_twists(M[:, None, None], body_rate))
        S = 2.0 * rate_phi + lie_bracket(V_phi[:, None], V_p)  # d_p V_phi + d_phi V_p, t_{phi p} left out

        index = c.system.link_index
        rows_zero, zero = np.zeros((N * K, 6)), np.zeros((N, 6))
        pose_rows = _rows_of(c, poses, K)
        along_phi = Motion(lambda link: poses[:, index[link]], lambda link: V_phi[:, index[link]], lambda link: zero)
        along_p = HardpointMotion(pose_rows, _flat(c, V_p), lambda link: rows_zero, self.moved)
        both = HardpointMotion(pose_rows, _flat(c, V_phi[:, None] + V_p), _flat(c, S), self.moved)

        def mixed(jet_phi, jet_p, jet_both):
            """``f_{phi p}`` (N, K) by polarisation, t_{phi p} left out."""
            return (jet_both.dd.reshape(N, K) - jet_p.dd.reshape(N, K) - jet_phi.dd[:, None]) / 2.0

        G = np.stack([mixed(self.height(side, along_phi), self.height(side, along_p, self.design_p[side]),
                            self.height(side, both, self.design_p[side])) for side in SIDES], axis=1)
        t_phi_p = -np.linalg.solve(self.J, G)  # (N, 2, K), (R5)
        out = {}

        def seen(motion, rows):
            return self.on_road(motion, rows)

        for side in SIDES:
            design = self.design_p[side]
            jets_phi = self.metrics(side, along_phi, self.susp.design[side], self.road, False, seen)
            jets_p = self.metrics(side, along_p, design, self.road_rows, True, seen)
            jets_both = self.metrics(side, both, design, self.road_rows, True, seen)
            jets_t = self.along_travels(side)
            for name, metric in (("roll_camber", "camber"), ("roll_steer", "steer_angle")):
                out[f"{name}_{side}"] = mixed(jets_phi[metric], jets_p[metric], jets_both[metric]) + sum(
                    jets_t[j][metric].d[:, None] * t_phi_p[:, j] for j in range(len(self.travels)))
        return out


    def driver_rates(self):
        """``{metric_side: (N, k)}``: (R6) the rate metrics along the wheel travels and the
        steering variable, differentiated along the roll solution."""
        N, K, c, dirs = self.N, self.K, self.closure, self.directions
        index = c.system.link_index
        steering = [self.driver_names.index(corner.steering) for corner in self.susp.corners.values()
                    if corner.steering in self.driver_names]
        drivers = sorted(set(self.travels) | set(steering))
        at = {d: i for i, d in enumerate(drivers)}
        D = _driver_accelerations(self.result, drivers)
        zero = np.zeros_like(dirs.V_a[:, 0])

        def along(twists, accelerations):
            """Body motion (N rows) with link twists and accelerations (N, L, 6)."""
            return Motion(lambda link: c.poses[:, index[link]], lambda link: twists[:, index[link]],
                          lambda link: accelerations[:, index[link]])

        def second(a, j):
            """``d_a d_j V`` summed symmetrically: the acceleration along drivers a + j."""
            return D[at[a]][at[j]] + D[at[j]][at[a]]

        out = {}
        for side in SIDES:
            design = self.design_p[side]

            def jets_of(motion, rows=False):
                seen = self.on_road(motion, rows)
                return self.metrics(side, seen, design if rows else self.susp.design[side],
                                    self.road_rows if rows else self.road, rows, self.on_road)

            along_p = jets_of(self.along_p, True)
            roles = {"travel": self.travels[SIDES.index(side)], "steering": None}
            steer_name = self.susp.corners[side].steering
            if steer_name in self.driver_names:
                roles["steering"] = self.driver_names.index(steer_name)
            for name, (role, numerator, sign) in RATE_METRICS.items():
                a = roles[role]
                if a is None or numerator not in along_p:
                    continue
                V_a = dirs.V_a[:, a]
                jets_a = jets_of(along(V_a, zero))
                both = jets_of(HardpointMotion(_rows_of(c, c.poses, K), _flat(c, V_a[:, None] + dirs.V_p),
                                               _flat(c, dirs.mixed(a)), self.moved), True)
                along_t = [jets_of(along(dirs.V_a[:, t], zero)) for t in self.travels]
                twice = [jets_of(along(V_a + dirs.V_a[:, t], second(a, t)) if t != a else along(V_a, D[at[a]][at[a]]))
                         for t in self.travels]

                def total(key):
                    """``d/dp`` of ``key``'s rate along a on the solution: ``f_ap + sum_j f_{a t_j}
                    t_{j,p}`` (N, K), mixed derivatives by polarisation."""
                    f_ap = (both[key].dd.reshape(N, K) - along_p[key].dd.reshape(N, K) - jets_a[key].dd[:, None]) / 2.0
                    for j, t in enumerate(self.travels):
                        f_at = twice[j][key].dd if t == a else (twice[j][key].dd - jets_a[key].dd - along_t[j][key].dd) / 2.0
                        f_ap = f_ap + f_at[:, None] * self.travel_rate[:, j]
                    return f_ap

                w = (None, None) if role == "steering" else (jets_a["wheel_travel"].d[:, None], total("wheel_travel"))
                out[f"{name}_{side}"] = _rate_derivative(role, sign, jets_a[numerator].d[:, None], total(numerator),
                                                         *w)
        return out


    def field_rates(self, driver_rates):
        """``{metric: (N, k)}``: (R7) the velocity-field metrics per side and the axle's metrics
        (roll centre, track, steering ratio from the rates ``driver_rates`` of (R6)) along the
        roll solution, from their inputs' total rates."""
        N, K, c, dirs = self.N, self.K, self.closure, self.directions
        index = c.system.link_index
        D = _driver_accelerations(self.result, self.travels)
        M = self.M
        rate_t = self.travel_rate  # (N, 2, K)
        nan = np.full((N * K, 6), np.nan)

        def total(value, along_p, along_t):
            """A jet (N K rows) of ``value`` (N, ...) with its rate along the solution, from its
            rate along p at fixed travels (N, K, ...) and along each travel (N, ...)."""
            d = along_p + sum(along_t[j][:, None] * rate_t[:, j].reshape((N, K) + (1,) * (value.ndim - 1))
                              for j in range(len(self.travels)))
            rows = np.repeat(value, K, axis=0)
            return jets.Jet(rows, d.reshape(rows.shape), nan[:, :rows.shape[1]])

        out, wheels = {}, {}
        for i, side in enumerate(SIDES):
            corner, resolved = self.susp.corners[side], self.susp.resolved[side]
            at_p = self.wheel(side, self.on_road(self.along_p, True), self.design_p[side], self.road_rows, True)
            at_t = [self.wheel(side, self.on_road(m, False), self.susp.design[side], self.road, False)
                    for m in self.along_t]

            def point(key):
                return total(at_t[0][key].value, at_p[key].d.reshape(N, K, 3), [w[key].d for w in at_t])

            def twist(link):
                """The link's twist per unit of this side's travel, seen from the road, (R7)."""
                l = index[link]
                own = transform_twists(M, dirs.V_a[:, self.travels[i], l])
                return total(own, transform_twists(M[:, None], dirs.velocity_rate(self.travels[i])[:, :, l]),
                             [transform_twists(M, D[j][i][:, l]) for j in range(len(self.travels))])

            static = None
            if _anti_geometry(self.susp.vehicle):
                up_link = index[corner.upright]
                pose = M @ c.poses[:, up_link]
                on_p = _design_patch_point(np.repeat(pose, K, axis=0), transform_twists(
                    np.repeat(M, K, axis=0), dirs.V_p[:, :, up_link].reshape(N * K, 6)), self.design_p[side])
                r = self.susp.design[side].patch_on_upright
                on_t = [jets.point_jet(pose, transform_twists(M, dirs.V_a[:, t, up_link]), None, r).d
                        for t in self.travels]
                static = total(on_p.value[::K], on_p.d.reshape(N, K, 3), on_t)
            centre = jets.material_velocity(twist(resolved.wheel_centre.link), point("centre_jet"))
            _, outboard, _ = corner.axes
            field, v_patch = velocity_field_metrics(twist(corner.upright), point("patch_jet"), centre, static,
                                                    self.road_rows, outboard, self.susp.vehicle)
            for name, jet in field.items():
                out[f"{name}_{side}"] = jet.d.reshape(N, K)
            # The road's slide (R2) moves the roll centre with the road picture: its height in
            # the frame (the others are relative) takes it.
            out[f"roll_centre_z_{side}"] = out[f"roll_centre_z_{side}"] + self.slide @ self.body.up
            wheels[side] = (point("patch_jet"), v_patch)
        steer_rates = None
        if all(f"steer_rate_{side}" in driver_rates for side in SIDES):
            values = {side: self.result.metric(f"steer_rate_{side}") for side in SIDES}
            steer_rates = {side: jets.Jet(np.repeat(values[side], K), driver_rates[f"steer_rate_{side}"].reshape(-1),
                                          nan[:, 0]) for side in SIDES}
        axle = axle_metrics({side: wheels[side][0] for side in SIDES}, {side: wheels[side][1] for side in SIDES},
                            self.road_rows, steer_rates=steer_rates, vehicle=self.susp.vehicle)
        out.update({name: jet.d.reshape(N, K) for name, jet in axle.items()})
        return out

    def wheel_rates(self):
        """``{wheel_rate_side: (N, k)}``: (R8) the wheel rate along each wheel's own travel, seen
        from the road, differentiated along the roll solution."""
        dirs = self.directions
        D = _driver_accelerations(self.result, self.travels)
        q_aa = [_motion_along(self.result, [t])[0] for t in self.travels]
        up = np.einsum("nji,j->ni", self.R, self.body.up)  # the road's up in the body frame
        out = {}
        for i, side in enumerate(SIDES):
            resolved = self.susp.resolved[side]
            if not _has_wheel_rate(self.closure.system, resolved):
                continue
            a = self.travels[i]
            at_p = _spring_rates(self.closure, dirs, a, D[i][i], q_aa[i], dirs.along_coordinates(a), resolved, up,
                                 self.moved)
            at_t = []
            for j, t in enumerate(self.travels):
                # q_aj: half the second rates along a + t less those along a and along t (a
                # Hooke pair's angles are coordinates: their mixed rates are symmetric)
                q_at = q_aa[i] if j == i else (_motion_along(self.result, [a, t])[0] - q_aa[i] - q_aa[j]) / 2.0
                along = _Along.driver(dirs.V_a[:, t], D[j][i], dirs.q_a[:, t], q_at)
                at_t.append(_spring_rates(self.closure, dirs, a, D[i][i], q_aa[i], along, resolved, up, {}))

            def total(key):
                """(R4) for one ingredient: along p at fixed travels, plus along each travel."""
                return at_p[key] + sum(t[key] * self.travel_rate[:, j] for j, t in enumerate(at_t))

            at = (at_t[0]["L"], at_t[0]["L_a"], at_t[0]["L_aa"], at_t[0]["w_a"], at_t[0]["w_aa"])
            out[f"wheel_rate_{side}"] = _wheel_rate_derivative(resolved.spring_spec, at, total("L_b"), total("L_ab"),
                                                               total("L_aab"), total("w_ab"), total("w_aab"))
        return out

    def wheel(self, side, motion, design, frame, rows):
        """``corner_metrics``' point jets of ``side`` (contact patch, wheel centre) along
        ``motion``."""
        corner = self.susp.corners[side]
        return corner_metrics(self.susp.resolved[side], corner, design, motion, frame, vehicle=self.susp.vehicle,
                              steer_motion=self.steer(side, rows, self.on_road))[2]


def _roll_sensitivities(susp, result, closure, directions, driver_names, rates, where, only=None):
    """``{metric_side: (N, k)}`` of a roll analysis (module docstring, "Roll"); with ``only``
    (metric names), the second-order groups only where one of them needs it."""
    wanted = None if only is None else {_wheel_metric(name) for name in only}

    def needs(*groups):
        return rates and (wanted is None or any(wanted & set(group) for group in groups))

    solution = _Roll(susp, result, closure, directions, driver_names, where)
    out = solution.position_rates()
    if needs(ROLL_METRICS):
        out.update(solution.roll_rates())
    if needs(("wheel_rate",)):
        out.update(solution.wheel_rates())
    driver_rates = solution.driver_rates() if needs(RATE_METRICS, ("steering_ratio",)) else {}
    out.update(driver_rates)
    if needs(FIELD_METRICS, AXLE_METRICS):
        out.update(solution.field_rates(driver_rates))
    return {name: out[name] for name in sorted(out, key=_roll_order)}


def _roll_order(name):
    """Metrics in the order of METRICS per side, then the roll's own, then the axle's (as the
    roll's columns)."""
    base, _, side = name.rpartition("_")
    if side not in SIDES:
        return (len(SIDES), list(AXLE_METRICS).index(name) if name in AXLE_METRICS else len(AXLE_METRICS))
    order = list(METRICS) + list(ROLL_METRICS)
    return (SIDES.index(side), order.index(base) if base in order else len(order))
