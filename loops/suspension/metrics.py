"""Suspension metrics of a corner and of an axle at every position of a sweep.

Every metric below is computed for all positions at once (numpy over the positions), from
the link poses of the sweep and, for rates, from its velocity and acceleration solutions:
the metric is written once as arithmetic on jets (:mod:`loops.suspension.jets`) and its
derivatives follow by the chain rule, exact to the closure tolerance, with no step size.

Axes, frames and signs
----------------------
ISO 8855 vehicle axes (see :mod:`loops.suspension.corner`): ``f`` forward, ``u`` up, ``o``
outboard (horizontal), ``e`` the vehicle's left; the vehicle centre plane ``y =
centre_plane_y``. Angles are radians, lengths metres, as everywhere in kinematrix; the
command line and :meth:`~loops.suspension.analyses.SuspensionResult.to_csv` write them in the
model file's units. The metrics are taken in the body's frame (the model's ground), except
in a roll analysis, where the body rolls and they are taken relative to the road (see
:func:`loops.suspension.analyses.roll`).

Wheel geometry. Spin axis ``s``: unit vector from ``spin_axis_point`` to the wheel centre
``C`` (outboard). Contact patch ``P = C + R d``: ``d`` the unit vector of the wheel plane
along which height falls fastest, ``R`` the loaded radius; the ground plane is horizontal
through ``P``. Steering axis ``k``: unit vector through the two kingpin points, or along
the kingpin pair's axis, or along the upright's instantaneous screw axis for the steering
motion (a virtual axis, ``Corner.kingpin = None``: the axis about which the upright turns
relative to the body when the steering variable moves at fixed wheel travel, Adams/Car's
"instant axis" method), oriented up.

Per-wheel metrics (:data:`METRICS`; an axle adds ``_left`` and ``_right``)
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``camber``
    Angle between the wheel plane and the vertical, ``arctan2(-s.u, |s - (s.u) u|)``
    (ISO 8855 camber angle; SAE J670, Adams/Car and SHARK agree): positive when the top of
    the wheel leans outboard.
``camber_front_view``
    The wheel plane's inclination seen from the front (projected on the plane normal to
    ``f``), ``arctan2(-s.u, s.o)``: what SHARK prints in its steering table. It differs
    from ``camber`` by ``tan(front view) = tan(camber) / cos(toe)``.
``toe``
    Angle in the ground plane between the wheel's heading and ``f``, ``arctan2(s.f,
    s.o)``: positive for toe-in (the front of the wheel points inboard), ISO 8855, SAE J670
    and Adams/Car alike.
``steer_angle``
    ISO 8855 wheel steer angle: the heading's angle from ``f`` about ``u``, positive to the
    left (counter-clockwise seen from above), ``-toe`` on the left and ``+toe`` on the right.
    SAE J670 (z down) counts it positive for a right turn.
``castor``
    Side view (projection on the plane normal to ``o``): angle between the steering axis and
    the vertical, ``arctan2(-k.f, k.u)``; positive when the top of the axis leans rearward.
``kingpin_inclination``
    Front view: ``arctan2(-k.o, k.u)``; positive when the top of the axis leans inboard.
``scrub_radius``
    Kingpin offset at the ground, ``(P - G).o`` with ``G`` where the steering axis meets the
    ground plane: positive when ``G`` lies inboard of the contact patch (Adams/Car's and
    SHARK's sign; the lateral distance along the horizontal ``o``, as Altair's suspension
    design factors report it).
``kingpin_offset_wheel_centre``
    ``(C - K_c).o`` with ``K_c`` the point of the steering axis at the wheel centre's
    height: positive when the axis passes inboard of the wheel centre.
``castor_trail``
    Castor offset at the ground (mechanical trail, Milliken), ``(G - P).f``: positive when
    the axis meets the ground ahead of the contact patch.
``hub_trail``
    Castor offset at the wheel centre, ``(K_c - C).f``: positive when the axis passes ahead
    of the wheel centre. With zero camber and toe ``castor_trail = hub_trail + R
    tan(castor)`` and ``scrub_radius = kingpin_offset_wheel_centre - R
    tan(kingpin_inclination)``.
``wheel_travel``
    Vertical displacement from the design pose, ``(X - X_0).u``, of the travel point: the
    wheel centre (``travel_at="wheel-centre"``, Adams/Car's convention, the default) or the
    contact patch (``"contact-patch"``, SHARK's); positive in bump (jounce).
``contact_patch_travel`` / ``wheel_centre_travel``
    The vertical displacement of the other point (whichever ``wheel_travel`` is not).
``wheel_recession``
    ``-(C - C_0).f``: the wheel centre's longitudinal displacement, positive rearward.
``wheelbase_change``
    The contact patch's longitudinal displacement, ``(P - P_0).f`` on a front axle and
    ``-(P - P_0).f`` on a rear one (``Vehicle.axle``): positive when the wheelbase grows.
``track_change``
    ``(P - P_0).o``: positive when the contact patch moves outboard (this wheel's share of
    the change of track).
``half_track``
    Distance of the contact patch from the vehicle centre plane, positive outboard.
``camber_gain``, ``bump_steer``
    ``d camber / d wheel_travel`` and ``d toe / d wheel_travel`` (rad/m): bump steer is
    positive when the wheel toes in as it rises.
``steer_rate``
    ``d steer_angle / d steering`` at fixed wheel travel, rad per unit of the steering
    variable (rad/m for a rack), when the sweep drives the corner's steering variable.
``fvic_height``, ``fvsa_length``
    Front-view instant centre of the upright relative to the body: the point ``X`` of the
    plane through ``P`` normal to ``f`` whose velocity in wheel travel has no component in
    that plane (for a double wishbone with arms in one plane, where the arm lines meet).
    ``fvic_height = (X - P).u``; ``fvsa_length = (P - X).o``, the front-view swing-arm
    length, positive when ``X`` lies inboard of the patch. NaN when ``X`` is at infinity.
``svic_height``, ``svsa_length``
    Side-view instant centre: the same in the plane through ``P`` normal to ``o``;
    ``svsa_length = (X - P).f``, positive when ``X`` lies ahead of the contact patch (a
    front axle with anti-dive has it behind: negative).
    The vehicle's pitch centre, where the front and the rear axle's lines from the contact
    patches through their side-view instant centres meet, needs both axles: it is not
    computed here (run each axle; the two lines follow from these two metrics).
``roll_centre_height``, ``roll_centre_z``
    This corner's kinematic roll centre: the line through ``P`` perpendicular (in the front
    view) to the velocity in wheel travel of the upright's point at ``P`` (the line from
    ``P`` through the front-view instant centre) meets the vehicle centre plane there.
    ``roll_centre_z`` is its height in the frame, ``roll_centre_height`` its height above
    the ground plane through ``P`` (Altair: roll-centre z minus tyre-patch z; SHARK's
    "to ground"; its "to body" is this plus the contact patch's travel).
``anti_dive`` and ``anti_lift`` (front axle), ``anti_lift`` and ``anti_squat`` (rear axle)
    Percent, with ``Vehicle.wheelbase``, ``cg_height`` and the brake (drive) share: the
    side-view path slope ``dx/dz`` (forward per upward, in wheel travel) of the brake
    reaction point (the upright's point at the design contact patch for outboard brakes,
    the wheel centre for inboard ones) or, for the drive, of the wheel centre, times
    ``wheelbase / cg_height`` times the axle's share, times 100. Braking (front:
    ``anti_dive``, rear: ``anti_lift``): the front uses ``+dx/dz``, the rear ``-dx/dz``;
    driving (front: ``anti_lift``, rear: ``anti_squat``) likewise. 100 % means the
    brake or drive force alone carries the load transfer (no pitch of the body).
``spring_length``, ``motion_ratio``, ``wheel_rate`` (with ``Corner.spring``)
    Distance between the spring's ends; ``motion_ratio = -d spring_length / d
    wheel_travel`` (installation ratio: positive when the spring shortens in bump);
    ``wheel_rate = k MR^2 + F dMR/d wheel_travel`` (N/m) with ``k`` and the free length of
    the spring-damper named by ``Corner.spring`` and ``F = k (free_length - length)`` its
    compression force: the derivative of the vertical wheel load ``F MR`` that the spring
    carries (virtual work).
``damper_length``, ``damper_motion_ratio`` (with ``Corner.damper``)
    The same for the damper.

``roll_camber``, ``roll_steer`` (roll analyses, :data:`ROLL_METRICS`)
    ``d camber / d roll_angle`` and ``d steer_angle / d roll_angle`` along the roll motion
    (the body turning about the fixed axis, the wheels travelling so that their contact
    patches stay on the road), camber taken to the road; the roll angle is ISO 8855's
    (positive right side down; SAE J670 likewise). Milliken's roll camber and roll steer
    coefficients: per degree of roll in a file in degrees.

Axle metrics (:data:`AXLE_METRICS`)
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
``roll_centre_height``, ``roll_centre_lateral``
    The axle's kinematic roll centre: where the two wheels' lines (through each contact
    patch, perpendicular in the front view to the velocity of the upright's point there)
    meet. Height above the line through the two contact patches (the road), measured
    perpendicular to it; lateral position ``(X - Q).e`` from the vehicle centre plane,
    positive to the left (its migration). For a symmetric axle in parallel travel it lies
    on the centre plane.
``track``
    Lateral distance between the two contact patches, ``(P_left - P_right).e``.
``ackermann_error``, ``ackermann_percent`` (with ``Vehicle.wheelbase``)
    With steer angles measured from the design pose, the inner wheel (the left one in a
    left turn) at ``a_i`` and the outer at ``a_o``, the reference is ideal Ackermann for
    the wheelbase ``L`` and the design track ``t`` between the contact patches:
    ``cot a_o* = cot a_i + t / L``. ``ackermann_error = a_o - a_o*`` (positive: the
    outer wheel steers more than the ideal); ``ackermann_percent = 100 (a_i - a_o) / (a_i -
    a_o*)`` (100: ideal; 0: parallel steer). NaN straight ahead.
``steering_ratio`` (with ``Vehicle.rack_travel_per_turn``)
    ``d (steering-wheel angle) / d (mean steer angle of the two wheels)``, the steering
    wheel turning ``2 pi`` per ``rack_travel_per_turn`` of rack travel: positive when a
    left turn of the steering wheel steers the wheels left.

Differences between standards and packages
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
SAE J670 puts z down and y right: its steer angle is positive for a right turn, its
camber, toe-in, castor and kingpin inclination signs are ISO's. Adams/Car measures wheel
travel at the wheel centre (the default here) and takes a multi-link's steering axis from
the upright's instant axis, as here; Lotus SHARK measures travel at the contact patch
(``travel_at="contact-patch"``), prints the front-view camber in its steering table
(``camber_front_view``) and the roll centre height "to body" (``roll_centre_height`` plus
``contact_patch_travel``). Scrub radius and castor trail are taken along the vehicle's
horizontal axes; under large steer angles packages that take them in the wheel's own
heading report other numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mechanism.errors import ModelError

from . import jets
from .corner import MAX_KINGPIN_TILT, UP, Corner, Located, resolve

__all__ = ["METRICS", "AXLE_METRICS", "ROLL_METRICS", "TRAVEL_AT", "Frame", "Motion", "suspension_metrics",
           "metrics_at", "rates", "contact_patch", "corner_metrics", "axle_metrics", "reference_poses"]

#: Where wheel travel is measured: the wheel centre (Adams/Car) or the contact patch (SHARK).
TRAVEL_AT = ("wheel-centre", "contact-patch")

#: Per-wheel metric -> dimension (``Column.dimension``). Metrics that need something the
#: corner or the sweep may not have are left out then: ``steer_rate`` (the steering variable
#: driven), the anti-geometry (vehicle parameters), spring and damper metrics.
METRICS = {
    "camber": "angle",
    "camber_front_view": "angle",
    "toe": "angle",
    "steer_angle": "angle",
    "castor": "angle",
    "kingpin_inclination": "angle",
    "scrub_radius": "length",
    "kingpin_offset_wheel_centre": "length",
    "castor_trail": "length",
    "hub_trail": "length",
    "wheel_travel": "length",
    "contact_patch_travel": "length",
    "wheel_centre_travel": "length",
    "wheel_recession": "length",
    "wheelbase_change": "length",
    "track_change": "length",
    "half_track": "length",
    "camber_gain": "angle/length",
    "bump_steer": "angle/length",
    "steer_rate": "angle/length",
    "fvic_height": "length",
    "fvsa_length": "length",
    "svic_height": "length",
    "svsa_length": "length",
    "roll_centre_height": "length",
    "roll_centre_z": "length",
    "anti_dive": "percent",
    "anti_lift": "percent",
    "anti_squat": "percent",
    "spring_length": "length",
    "motion_ratio": "dimensionless",
    "wheel_rate": "force/length",
    "damper_length": "length",
    "damper_motion_ratio": "dimensionless",
}

#: Per-wheel metrics of a roll analysis besides :data:`METRICS`: ``d camber / d roll`` and
#: ``d steer_angle / d roll`` with the body's roll angle (ISO 8855: positive right side down).
ROLL_METRICS = {"roll_camber": "angle/angle", "roll_steer": "angle/angle"}

#: Per-wheel metrics a corner has only with a part (:func:`corner_metrics`): metric -> (the
#: part, the :class:`~loops.suspension.corner.Resolved` attribute that holds it).
PART_METRICS = {"spring_length": ("spring (corner.spring)", "spring"),
                "motion_ratio": ("spring (corner.spring)", "spring"),
                "wheel_rate": ("spring with a stiffness (corner.spring)", "spring_spec"),
                "damper_length": ("damper (corner.damper)", "damper"),
                "damper_motion_ratio": ("damper (corner.damper)", "damper")}

#: Axle metric -> dimension.
AXLE_METRICS = {
    "roll_centre_height": "length",
    "roll_centre_lateral": "length",
    "track": "length",
    "ackermann_error": "angle",
    "ackermann_percent": "percent",
    "steering_ratio": "dimensionless",
}


#: Mean steer angle (rad) below which a position counts as straight ahead: no inner or outer
#: wheel, Ackermann NaN.
STRAIGHT_AHEAD = 1e-9


def _ratio(numerator, denominator):
    """``numerator / denominator``, NaN where the denominator is zero (no warnings)."""
    numerator, denominator = np.broadcast_arrays(np.asarray(numerator, float), np.asarray(denominator, float))
    out = np.full(numerator.shape, np.nan)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


# ------------------------------------------------------------------ frames and motions
@dataclass(frozen=True)
class Frame:
    """Where the metrics are taken: ``forward`` and ``up`` unit vectors (3,), the vehicle's
    ``left`` (N, 3) or (3,) and a point ``centre`` (N, 3) or (3,) of its centre plane, all in
    the frame's coordinates. The body frame is the model's ground."""

    forward: np.ndarray
    up: np.ndarray
    left: np.ndarray
    centre: np.ndarray

    @classmethod
    def body(cls, corner: Corner):
        forward, _, up = corner.axes
        return cls(forward, up, corner.left, np.array([0.0, corner.centre_plane_y, 0.0]))


class Motion:
    """Link poses (N, 4, 4) with the twists ``(omega, v_o)`` (N, 6) and their rates (N, 6)
    of one motion, per unit of its parameter, all in one frame. ``acceleration`` may be
    None (second rates then NaN). ``twist_rate``, when given, is the twists' rate (N, 6)
    along another direction, the one a design sensitivity differentiates along (a virtual
    steering axis, the upright's instant screw axis in this motion, then moves with it)."""

    def __init__(self, pose, twist, acceleration=None, twist_rate=None):
        self._pose, self._twist, self._acceleration = pose, twist, acceleration
        self._twist_rate = twist_rate
        self._cache = {}

    @classmethod
    def of(cls, trajectory):
        """The motion a trajectory record carries (its own velocities and accelerations)."""
        return cls(trajectory.pose, trajectory.link_velocity, trajectory.link_acceleration)

    def _get(self, kind, link):
        key = (kind, link)
        if key not in self._cache:
            getter = {"pose": self._pose, "twist": self._twist, "acceleration": self._acceleration,
                      "twist_rate": self._twist_rate}[kind]
            value = None if getter is None else getter(link)
            self._cache[key] = None if value is None else np.asarray(value, dtype=float)
        return self._cache[key]

    def pose(self, link):
        return self._get("pose", link)

    def twist(self, link):
        return self._get("twist", link)

    def acceleration(self, link):
        return self._get("acceleration", link)

    def twist_rate(self, link):
        return self._get("twist_rate", link)

    def point(self, located):
        """Jet of a located point along this motion."""
        return jets.point_jet(self.pose(located.link), self.twist(located.link),
                              self.acceleration(located.link), located.r)

    def in_frame(self, rotation, translation):
        """The same motion seen in a frame where ``p' = rotation p + translation``
        (``rotation`` (N, 3, 3), ``translation`` (N, 3), fixed along the motion)."""
        R, t = rotation, translation
        M = np.zeros(R.shape[:-2] + (4, 4))
        M[..., :3, :3], M[..., :3, 3], M[..., 3, 3] = R, t, 1.0

        def twist_of(getter):
            def get(link):
                V = getter(link)
                if V is None:
                    return None
                omega = np.einsum("nij,nj->ni", R, V[:, :3])
                v = np.einsum("nij,nj->ni", R, V[:, 3:]) - jets.cross_product(omega, t)
                return np.concatenate([omega, v], axis=1)
            return get

        return Motion(lambda link: M @ self.pose(link), twist_of(self.twist), twist_of(self.acceleration),
                      twist_of(self.twist_rate))

    def combined(self, parts):
        """First-order motion ``sum_k c_k motion_k + (frame twist)``: ``parts`` is a list of
        ``(coefficient (N,), Motion or twist (N, 6))``; a bare twist applies to every link
        (a rigid motion of the whole frame). Poses are this motion's; no second rates."""
        def twist(link):
            total = np.zeros_like(self.twist(link))
            for coefficient, part in parts:
                value = part if isinstance(part, np.ndarray) else part.twist(link)
                total = total + np.asarray(coefficient)[:, None] * value
            return total

        return Motion(self.pose, twist, None)


def reference_poses(result):
    """Link poses at the reference assembly (the design pose) by link name: (4, 4) each."""
    from ..configuration import evaluate  # noqa: PLC0415

    system = result.system
    poses = evaluate(system, system.reference_q()).link_poses
    return lambda link: poses[system.link_index[link]]


# ------------------------------------------------------------------ one corner
class _Design:
    """A corner's design-pose values: wheel centre and contact patch (3,), the contact patch
    in the upright's frame, and the checks that need the design pose. With located points
    given per row (``r`` (R, 3): a design study's variants) every value is per row too."""

    def __init__(self, resolved, corner, reference):
        def at(located):
            T = reference(located.link)
            return located.r @ T[:3, :3].T + T[:3, 3]

        forward, outboard, up = corner.axes
        self.centre = at(resolved.wheel_centre)
        inner = at(resolved.spin_axis_point)
        axle = self.centre - inner
        if np.any(axle @ outboard <= 0):
            raise ModelError("corner.spin_axis_point",
                             f"{corner.spin_axis_point!r} is not inboard of {corner.wheel_centre!r} for a "
                             f"{corner.side} corner with x pointing "
                             f"{'forward' if corner.forward == '+x' else 'rearward'}")
        plane_point = np.array([0.0, corner.centre_plane_y, 0.0])
        offside = np.atleast_1d((self.centre - plane_point) @ outboard)
        if np.any(offside <= 0):
            y = np.atleast_2d(self.centre)[int(np.argmin(offside)), 1]
            raise ModelError("corner.side",
                             f"the wheel centre (y = {y:.6g} m at the design pose) is not on the "
                             f"{corner.side} of the centre plane y = {corner.centre_plane_y:.6g} m "
                             f"(forward = {corner.forward!r})")
        spin = axle / np.linalg.norm(axle, axis=-1, keepdims=True)
        toe = _toe(jets.constant(spin), forward, outboard).value
        self.steer_angle = -toe if corner.side == "left" else toe
        down = -(up - (spin @ up)[..., None] * spin)
        self.patch = self.centre + corner.wheel_radius * down / np.linalg.norm(down, axis=-1, keepdims=True)
        T = reference(corner.upright)
        self.patch_on_upright = (self.patch - T[:3, 3]) @ T[:3, :3]
        if resolved.kingpin is not None:
            first, second = resolved.kingpin
            lower = at(first)
            upper = lower + resolved.kingpin_axis @ reference(first.link)[:3, :3].T if second is None else at(second)
            _check_axis(upper - lower, "corner.kingpin", f"the kingpin {corner.kingpin!r}")


def _check_axis(axis, where, what):
    """A steering axis (3,) (or (R, 3), every row) that gives a direction and leans at most
    MAX_KINGPIN_TILT from the vertical."""
    axis = np.atleast_2d(axis)
    length = np.linalg.norm(axis, axis=1)
    if not np.all(np.isfinite(length) & (length > 0.0)):
        raise ModelError(where, f"{what} gives no direction (its points coincide): not a steering axis")
    tilt = float(np.max(np.arccos(np.minimum(np.abs(axis[:, 2]) / length, 1.0))))
    if tilt > MAX_KINGPIN_TILT:
        raise ModelError(where, f"{what} leans {math.degrees(tilt):.1f} deg from the vertical (more than "
                         f"{math.degrees(MAX_KINGPIN_TILT):.0f} deg): not a steering axis")


def _toe(spin, forward, outboard):
    """Toe (jet) of a wheel whose spin axis is ``spin`` (jet, unit): ``arctan2(s.f, s.o)``."""
    return jets.arctan2(jets.dot(spin, forward), jets.dot(spin, outboard))


def _wheel(C, inner, radius, up):
    """Spin axis ``s`` and contact patch ``P`` (jets) from the wheel centre and the spin-axis point."""
    spin = jets.unit(C - inner)
    lift = jets.dot(spin, up).expand()
    down = jets.unit(-(up - spin * lift))
    return spin, C + down * radius


def _kingpin(resolved, motion, steer_motion, corner, frame):
    """Two jets on the steering axis, the second above the first by a unit vector along it."""
    if resolved.kingpin is not None:
        first, second = resolved.kingpin
        lower = motion.point(first)
        if second is None:
            upper = motion.point(Located(first.link, first.r + resolved.kingpin_axis, "kingpin axis", first.source))
        else:
            upper = motion.point(second)
        axis = jets.unit(upper - lower)
    else:
        if steer_motion is None:
            raise ModelError("corner.kingpin", f"the virtual steering axis (kingpin = None) needs the steering "
                             f"variable {corner.steering!r} driven by the sweep (the analyses drive it)")
        # The upright's instant screw axis in the steering motion: its point nearest the
        # origin and its direction, moving with the twist's rate where the motion has one.
        value = steer_motion.twist(corner.upright)
        rate = steer_motion.twist_rate(corner.upright)
        twist = jets.Jet(value, np.full_like(value, np.nan) if rate is None else rate, np.full_like(value, np.nan))
        omega, v = twist[:, :3], twist[:, 3:]
        size = jets.dot(omega, omega)
        if np.any(size.value == 0):
            raise ModelError("corner.steering", f"moving {corner.steering!r} does not turn the upright: it does not "
                             "steer the wheel")
        lower = jets.cross(omega, v) * size.reciprocal().expand()
        axis = omega * jets.sqrt(size).reciprocal().expand()
    sign = np.where(jets.dot(axis, frame.up).value < 0, -1.0, 1.0)[:, None]
    return lower, axis * sign


def _anti_geometry(vehicle):
    """Whether ``vehicle`` has what the anti-geometry needs (wheelbase and centre-of-mass height)."""
    return vehicle is not None and vehicle.wheelbase is not None and vehicle.cg_height is not None


def _along(a, b):
    """``a . b`` (N,) of vectors ``a`` (N, 3), or their jet, with a direction ``b`` (3,)."""
    if isinstance(a, jets.Jet):
        return jets.dot(a, b)
    if np.ndim(b) == 1:  # a fixed direction (3,)
        return a @ b
    return np.einsum("ni,ni->n", a, np.broadcast_to(b, a.shape))


def _across(a, b):
    """``a x b`` of vectors (..., 3), either of them a jet."""
    if isinstance(a, jets.Jet) or isinstance(b, jets.Jet):
        return jets.cross(a, b)
    return jets.cross_product(np.broadcast_to(a, np.broadcast_shapes(np.shape(a), np.shape(b))), b)


def _over(numerator, denominator):
    """``numerator / denominator``, NaN where the denominator is zero; for jets along another
    motion, with the first rate of the quotient (no second rate: NaN)."""
    if not (isinstance(numerator, jets.Jet) or isinstance(denominator, jets.Jet)):
        return _ratio(numerator, denominator)
    n, d = (x if isinstance(x, jets.Jet) else jets.constant(x) for x in (numerator, denominator))
    value = _ratio(n.value, d.value)
    rate = _ratio(n.d * d.value - n.value * d.d, d.value ** 2)
    return jets.Jet(value, rate, np.full_like(value, np.nan))


def velocity_field_metrics(twist, patch, centre_velocity, static_patch, frame, outboard, vehicle=None):
    """The metrics of the upright's velocity field in wheel travel (module docstring): the
    front- and side-view instant centres (``fvic_height``, ``fvsa_length``, ``svic_height``,
    ``svsa_length``), this corner's roll centre (``roll_centre_height``, ``roll_centre_z``)
    and, with a vehicle, the anti-geometry. Each is a ratio of velocities, homogeneous of
    degree zero in the twist: it does not depend on what the travel is measured by.

    Written once for two uses: with arrays, the metrics at each position; with jets along
    another motion (a hardpoint coordinate, :mod:`loops.study.sensitivity`), the same
    metrics with their first rates along it (``d``).

    Parameters
    ----------
    twist : (N, 6), or its Jet
        The upright's twist ``(omega, v_o)`` per unit wheel travel, global, origin-referenced.
    patch : (N, 3), or its Jet
        Contact patch ``P``, m, in the frame.
    centre_velocity : (N, 3), or its Jet
        Velocity of the wheel centre per unit wheel travel.
    static_patch : (N, 3), its Jet, or None
        The upright's point at the design contact patch (the outboard brakes' reaction
        point); None when ``vehicle`` has no anti-geometry.
    frame : Frame; outboard : (3,), the corner's horizontal outboard unit vector
    vehicle : loops.suspension.vehicle.Vehicle or None

    Returns
    -------
    values : dict name -> (N,) or Jet
    v_patch : (N, 3) or Jet, the velocity in wheel travel of the upright's point at ``P``
    """
    forward, up = frame.forward, frame.up
    omega = twist[..., :3]
    v_patch = jets.material_velocity(twist, patch)
    out = {}
    fv_out = _over(-_along(v_patch, up), _along(_across(omega, outboard), up))
    out["fvic_height"] = _over(-_along(v_patch, outboard), _along(_across(omega, up), outboard))
    out["fvsa_length"] = -fv_out
    out["svic_height"] = _over(-_along(v_patch, forward), _along(_across(omega, up), forward))
    out["svsa_length"] = _over(-_along(v_patch, up), _along(_across(omega, forward), up))
    line = _across(forward, v_patch)  # in the front view, normal to v_patch
    reach = _over(-_along(patch - frame.centre, frame.left), _along(line, frame.left))
    out["roll_centre_height"] = reach * _along(line, up)
    out["roll_centre_z"] = _along(patch, up) + out["roll_centre_height"]
    if not _anti_geometry(vehicle):
        return out, v_patch
    leverage = vehicle.wheelbase / vehicle.cg_height * 100.0 * (1.0 if vehicle.front else -1.0)

    def slope(v):
        return _over(_along(v, forward), _along(v, up))

    brake, drive = vehicle.brake_share(), vehicle.drive_share()
    if brake is not None:
        name = "anti_dive" if vehicle.front else "anti_lift"
        reaction = jets.material_velocity(twist, static_patch) if vehicle.brakes == "outboard" else centre_velocity
        out[name] = brake * leverage * slope(reaction)
    if drive is not None:
        name = "anti_lift" if vehicle.front else "anti_squat"
        out[name] = drive * leverage * slope(centre_velocity)
    return out, v_patch


def corner_metrics(resolved, corner, design, motion, frame, *, travel_at="wheel-centre", vehicle=None,
                   steer_motion=None):
    """Per-wheel metrics (see the module docstring) of one corner.

    Parameters
    ----------
    resolved : loops.suspension.corner.Resolved
    corner : Corner
    design : the corner's design-pose values (``_Design``)
    motion : Motion
        Poses in the frame with the wheel-travel motion's twists (per unit of the travel
        driver) and, for the second rates of the wheel rate, their accelerations.
    frame : Frame
    travel_at : {"wheel-centre", "contact-patch"}
    vehicle : loops.suspension.vehicle.Vehicle or None
    steer_motion : Motion or None, the steering variable's motion (``steer_rate``, a virtual
        steering axis)

    Returns
    -------
    values : dict name -> ndarray (N,), SI, in the order of :data:`METRICS`
    jets : dict name -> Jet, the angles and lengths with their rates along ``motion``
    wheel : dict with ``"patch"`` (N, 3) and ``"patch_velocity"`` (N, 3), the velocity in
        ``motion`` of the upright's point at the contact patch (for the axle's metrics), and
        the jets along ``motion`` of the contact patch and the wheel centre (``"patch_jet"``,
        ``"centre_jet"``)
    """
    forward, up = frame.forward, frame.up
    _, outboard_body, _ = corner.axes
    outboard = outboard_body  # horizontal outboard: frames differ from the body's only by a roll about f
    side = 1.0 if corner.side == "left" else -1.0
    C = motion.point(resolved.wheel_centre)
    inner = motion.point(resolved.spin_axis_point)
    spin, P = _wheel(C, inner, corner.wheel_radius, up)
    s_f, s_o, s_u = jets.dot(spin, forward), jets.dot(spin, outboard), jets.dot(spin, up)

    out = {}
    angles = {
        "camber": jets.arctan2(-s_u, jets.sqrt(s_f * s_f + s_o * s_o)),
        "camber_front_view": jets.arctan2(-s_u, s_o),
        "toe": _toe(spin, forward, outboard),
    }
    angles["steer_angle"] = angles["toe"] * (-side)

    lower, axis = _kingpin(resolved, motion, steer_motion, corner, frame)
    k_f, k_o, k_u = jets.dot(axis, forward), jets.dot(axis, outboard), jets.dot(axis, up)
    angles["castor"] = jets.arctan2(-k_f, k_u)
    angles["kingpin_inclination"] = jets.arctan2(-k_o, k_u)
    at_ground = lower + axis * (jets.dot(P - lower, up) / k_u).expand()
    at_centre = lower + axis * (jets.dot(C - lower, up) / k_u).expand()
    lengths = {
        "scrub_radius": jets.dot(P - at_ground, outboard),
        "kingpin_offset_wheel_centre": jets.dot(C - at_centre, outboard),
        "castor_trail": jets.dot(at_ground - P, forward),
        "hub_trail": jets.dot(at_centre - C, forward),
    }
    centre_travel = jets.dot(C - design.centre, up)
    patch_travel = jets.dot(P - design.patch, up)
    travel = centre_travel if travel_at == "wheel-centre" else patch_travel
    lengths["wheel_travel"] = travel
    if travel_at == "wheel-centre":
        lengths["contact_patch_travel"] = patch_travel
    else:
        lengths["wheel_centre_travel"] = centre_travel
    lengths["wheel_recession"] = -jets.dot(C - design.centre, forward)
    front = vehicle is None or vehicle.front
    lengths["wheelbase_change"] = jets.dot(P - design.patch, forward) * (1.0 if front else -1.0)
    lengths["track_change"] = jets.dot(P - design.patch, outboard)
    lengths["half_track"] = jets.dot(P - frame.centre, frame.left) * side
    for name, jet in {**angles, **lengths}.items():
        out[name] = jet.value
    w = travel.d
    out["camber_gain"] = _ratio(angles["camber"].d, w)
    out["bump_steer"] = _ratio(angles["toe"].d, w)
    if steer_motion is not None:
        steer_C = steer_motion.point(resolved.wheel_centre)
        steer_inner = steer_motion.point(resolved.spin_axis_point)
        steer_spin, _ = _wheel(steer_C, steer_inner, corner.wheel_radius, up)
        toe = _toe(steer_spin, forward, outboard)
        out["steer_rate"] = -side * toe.d

    # Velocity field of the upright in wheel travel: instant centres, roll centre, anti-geometry.
    twist = motion.twist(corner.upright)
    static_patch = None
    if _anti_geometry(vehicle):
        upright = motion.pose(corner.upright)
        static_patch = np.einsum("nij,nj->ni", upright[:, :3, :3],
                                 np.broadcast_to(design.patch_on_upright, (len(upright), 3))) + upright[:, :3, 3]
    field, v_patch = velocity_field_metrics(twist, P.value, C.d, static_patch, frame, outboard, vehicle)
    out.update(field)

    for key, ends, spec in (("spring", resolved.spring, resolved.spring_spec), ("damper", resolved.damper, None)):
        if ends is None:
            continue
        length = jets.norm(motion.point(ends[0]) - motion.point(ends[1]))
        ratio = _ratio(-length.d, w)
        prefix = "" if key == "spring" else "damper_"
        out[f"{key}_length"] = length.value
        lengths[f"{key}_length"] = length
        out[f"{prefix}motion_ratio"] = ratio
        if spec is not None:
            # d MR / d w = (d MR / ds) / w', MR = -L'/w'  =>  d MR / ds = -(L'' w' - L' w'') / w'^2
            ratio_rate = _ratio(-(length.dd * w - length.d * travel.dd), w ** 3)
            force = spec.stiffness * (spec.free_length - length.value)
            out["wheel_rate"] = spec.stiffness * ratio ** 2 + force * ratio_rate
    ordered = {name: out[name] for name in METRICS if name in out}
    return ordered, {**angles, **lengths}, {"patch": P.value, "patch_velocity": v_patch, "patch_jet": P,
                                            "centre_jet": C}


# ------------------------------------------------------------------ records -> metrics
def _travel_motion(result, resolved):
    """The motion along which travel rates are taken: the partial derivative along the
    corner's travel driver when the sweep drives it, else the sweep's own motion."""
    if resolved.travel is not None and resolved.travel in result.drivers:
        return result.along(resolved.travel)
    return result


def _steer_motion(result, corner):
    if corner.steering is not None and corner.steering in result.drivers:
        return Motion.of(result.along(corner.steering))
    return None


def _warn_without_rates(motion_record, count):
    if count and motion_record is not None:
        import warnings  # noqa: PLC0415

        warnings.warn("the sweep carries no velocities (no speeds= given): camber_gain, bump_steer, "
                      "motion_ratio, the instant centres, the roll centre and the anti-geometry are NaN; sweep "
                      "with speeds={'travel': 1.0} or drive the corner's travel driver", UserWarning, stacklevel=3)


def suspension_metrics(result, corner: Corner, *, travel_at="wheel-centre", vehicle=None) -> dict:
    """Per-wheel suspension metrics of ``corner`` at every position of a sweep.

    Parameters
    ----------
    result : loops.results.SweepResult
        A sweep of the mechanism. Rates per wheel travel are partial derivatives along the
        corner's travel driver when the sweep drives it (``m.sweep({"travel": values})``: no
        speeds needed), else along the sweep's own motion (give ``speeds=``; constant
        speeds, zero accelerations).
    corner : Corner
    travel_at : {"wheel-centre", "contact-patch"}
        Where ``wheel_travel`` is measured, and so what the rates are per.
    vehicle : loops.suspension.vehicle.Vehicle, optional
        For the anti-geometry and the sign of ``wheelbase_change``.

    Returns
    -------
    dict
        Metric name -> ndarray, shape (N,), in the order of :data:`METRICS` (the ones the
        corner and the sweep allow). Radians, metres, rad/m, N/m, percent; definitions and
        signs in the module docstring.

    Raises
    ------
    ModelError
        Located ``corner.<field>``: a name not in the model, a spin-axis point not inboard of
        the wheel centre, a wheel centre not on ``corner.side``, a steering axis that is not
        one, a wheel radius off the model's size (see :func:`~loops.suspension.corner.resolve`).

    Examples
    --------
    >>> import numpy as np
    >>> from mechanism import load_model
    >>> from loops.suspension import Corner, suspension_metrics
    >>> model = load_model("examples/double_wishbone.toml")
    >>> bump = model.sweep({"travel": np.linspace(-0.05, 0.05, 11)})
    >>> corner = Corner(upright="upright", wheel_centre="wheel_centre", spin_axis_point="hub_inner",
    ...                 kingpin=("lower_ball", "upper_ball"), wheel_radius=0.3, side="left")
    >>> metrics = suspension_metrics(bump, corner)
    >>> round(float(np.degrees(metrics["camber_gain"][5])) * 1e-3, 4)  # deg per mm of bump
    -0.0195
    """
    if travel_at not in TRAVEL_AT:
        raise ModelError("travel_at", f"expected one of {', '.join(TRAVEL_AT)}, got {travel_at!r}")
    resolved = resolve(result.model, corner)
    design = _Design(resolved, corner, reference_poses(result))
    record = _travel_motion(result, resolved)
    if record is result and len(result) and not np.any(result.link_velocity(corner.upright)):
        _warn_without_rates(record, len(result))
    motion = Motion.of(record)
    out, _, _ = corner_metrics(resolved, corner, design, motion, Frame.body(corner), travel_at=travel_at,
                               vehicle=vehicle, steer_motion=_steer_motion(result, corner))
    return out


def rates(result, corner: Corner, driver, *, travel_at="wheel-centre", vehicle=None) -> dict:
    """Rates of the position metrics with respect to any driver of ``result``, at fixed other
    drivers (for example d toe / d rack): ``{name: d metric / d driver}`` (N,) each, for the
    angles and lengths of :data:`METRICS` (rad or m per unit of the driver), from the
    velocity solution (:meth:`~loops.results.Trajectory.along`, which names a driver the
    sweep does not have)."""
    resolved = resolve(result.model, corner)
    design = _Design(resolved, corner, reference_poses(result))
    motion = Motion.of(result.along(driver))
    steer = _steer_motion(result, corner)
    _, jet_values, _ = corner_metrics(resolved, corner, design, motion, Frame.body(corner), travel_at=travel_at,
                                   vehicle=vehicle, steer_motion=steer)
    return {name: jet.d for name, jet in jet_values.items()}


def metrics_at(result, index: int, corner: Corner, **options) -> dict:
    """The metrics of :func:`suspension_metrics` at one position: metric name -> float.

    ``index`` counts the sweep's positions (negative counts from the end).
    """
    count = len(result)
    if not isinstance(index, (int, np.integer)) or not -count <= index < count:
        raise ModelError("index", f"expected a position index in [{-count}, {count}), got {index!r}")
    return {name: float(values[index]) for name, values in suspension_metrics(result, corner, **options).items()}


def contact_patch(result, corner: Corner):
    """Contact patch centre at every position of ``result``: (N, 3) m, global."""
    resolved = resolve(result.model, corner)
    motion = Motion.of(result)
    _, P = _wheel(motion.point(resolved.wheel_centre), motion.point(resolved.spin_axis_point),
                  corner.wheel_radius, UP)
    return P.value


# ------------------------------------------------------------------ axle
def roll_centre_point(patches, velocities, frame):
    """The axle's kinematic roll centre (N, 3), m, in ``frame``: where the two lines through the
    contact patches ``P``, each normal in the front view to its patch's velocity ``v`` in wheel
    travel (the velocity of the upright's point at the patch), meet:

        P_L + alpha w_L = P_R + beta w_R   (lateral and up components),   w = f x v

    ``patches`` and ``velocities``: dict side -> jet (N, 3) (their rates along some motion:
    the design's hardpoint coordinates in :mod:`loops.study.sensitivity`); returns a jet."""
    f, u = frame.forward, frame.up
    lateral = np.cross(u, f)
    P_L, P_R = patches["left"], patches["right"]
    w_L, w_R = jets.cross(f, velocities["left"]), jets.cross(f, velocities["right"])
    gap = P_R - P_L
    a11, a12 = jets.dot(w_L, lateral), -jets.dot(w_R, lateral)
    a21, a22 = jets.dot(w_L, u), -jets.dot(w_R, u)
    alpha = _over(jets.dot(gap, lateral) * a22 - a12 * jets.dot(gap, u), a11 * a22 - a12 * a21)
    return P_L + w_L * alpha.expand()


def _select(mask, a, b):
    """Row-wise ``a`` where ``mask``, else ``b`` (jets or numbers)."""
    a, b = (x if isinstance(x, jets.Jet) else jets.constant(x) for x in (a, b))
    return jets.Jet(*(np.where(mask, x, y) for x, y in ((a.value, b.value), (a.d, b.d), (a.dd, b.dd))))


def _magnitude(x):
    """``|x|`` of a scalar jet (its rates take the sign of its value)."""
    return x * np.where(x.value < 0, -1.0, 1.0)


def axle_metrics(patches, patch_velocities, frame, steer=None, steer_rates=None, vehicle=None, design_track=None,
                 design_steer=None):
    """Axle metrics (see the module docstring) from the two wheels.

    Written once for two uses: with arrays, the metrics at each position (arrays out); with
    jets along another motion (a hardpoint coordinate, :mod:`loops.study.sensitivity`), the
    same metrics as jets whose ``d`` is their first rate along it.

    Parameters
    ----------
    patches : dict side -> (N, 3) or Jet, contact patches in the frame
    patch_velocities : dict side -> (N, 3) or Jet, velocity in wheel travel of each
        upright's point at its contact patch (or None: no roll centre)
    frame : Frame (its ``left`` is the body's)
    steer : dict side -> (N,) or Jet, steer angles, for Ackermann (or None: not a steering
        analysis)
    steer_rates : dict side -> (N,) or Jet, their rates per unit of the steering variable (or
        None)
    vehicle : Vehicle or None; design_track : float or Jet, m; design_steer : dict side ->
        float or Jet
    """
    values = [patches, patch_velocities or {}, steer or {}, steer_rates or {}, design_steer or {}]
    jetted = isinstance(design_track, jets.Jet) or any(isinstance(v, jets.Jet) for d in values for v in d.values())

    def lift(table):
        return None if table is None else {side: x if isinstance(x, jets.Jet) else jets.constant(x)
                                           for side, x in table.items()}

    out = _axle_jets(lift(patches), lift(patch_velocities), frame, lift(steer), lift(steer_rates), vehicle,
                     design_track, lift(design_steer))
    return out if jetted else {name: jet.value for name, jet in out.items()}


def _axle_jets(patches, velocities, frame, steer, steer_rates, vehicle, design_track, design_steer):
    """:func:`axle_metrics` on jets."""
    f, u = frame.forward, frame.up
    lateral = jets.cross_product(u, f)  # horizontal left in the frame
    P_L, P_R = patches["left"], patches["right"]
    gap = P_R - P_L
    out = {}
    if velocities is not None:
        X = roll_centre_point(patches, velocities, frame)
        # Height above the road line through the two patches, measured normal to it (upward).
        along, rise = jets.dot(gap, lateral), jets.dot(gap, u)
        length = jets.sqrt(along * along + rise * rise)
        up_normal = np.where(along.value < 0, -1.0, 1.0)  # the normal (-rise, along) / length, turned upward
        offset = X - P_L
        out["roll_centre_height"] = (jets.dot(offset, u) * along - jets.dot(offset, lateral) * rise) * up_normal \
            / length
        out["roll_centre_lateral"] = jets.dot(X - frame.centre, frame.left)
    out["track"] = jets.dot(P_L - P_R, lateral)
    if steer is not None and vehicle is not None and vehicle.wheelbase is not None and design_track is not None:
        left = steer["left"] - design_steer["left"]
        right = steer["right"] - design_steer["right"]
        mean = ((left + right) * 0.5).value
        turn = np.where(np.abs(mean) > STRAIGHT_AHEAD, np.sign(mean), 0.0)
        inner = _magnitude(_select(turn > 0, left, right))
        outer = _magnitude(_select(turn > 0, right, left))
        tan_inner = jets.sin(inner) / jets.cos(inner)
        ideal = jets.arctan2(tan_inner * vehicle.wheelbase, vehicle.wheelbase + design_track * tan_inner)
        ideal = _select(turn == 0, jets.Jet(np.nan, np.nan, np.nan), ideal)  # undefined, with its rates
        out["ackermann_error"] = outer - ideal
        out["ackermann_percent"] = _over(inner - outer, inner - ideal) * 100.0
    if steer_rates is not None and vehicle is not None and vehicle.rack_travel_per_turn is not None:
        mean_rate = (steer_rates["left"] + steer_rates["right"]) * 0.5
        out["steering_ratio"] = _over(2.0 * np.pi / vehicle.rack_travel_per_turn, mean_rate)
    return out
