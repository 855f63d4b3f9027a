"""A wheel's geometry: its design-pose values, and the jets its position metrics are written on.

:class:`DesignValues` holds what the metrics measure from (the wheel centre and contact
patch at the design pose) and checks what needs the design pose; :class:`Wheel` holds, along
one :class:`~loops.suspension.motion.Motion` and in one frame, the jets of the wheel centre,
the spin axis, the contact patch and the steering axis, each computed once when a metric
first asks. The position metrics (:mod:`loops.suspension.metrics`, their definitions and
signs) are functions of a :class:`Wheel` written below: a jet out, so that their rates along
the motion (camber gain, bump steer, a design sensitivity) follow by the chain rule.

Frames and signs are ISO 8855's (:mod:`loops.suspension.metrics`): ``f`` forward, ``u`` up,
``o`` outboard; lengths m, angles rad.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from mechanism.errors import ModelError

from . import jets
from .corner import MAX_KINGPIN_TILT, Located

__all__ = ["DesignValues", "Wheel", "check_steering_axis", "toe_angle", "spin_axis_and_patch", "steering_axis"]


class DesignValues:
    """A corner's design-pose values: wheel centre and contact patch (3,), m, body frame, the
    unit spin axis (3,) (outboard), the contact patch in the upright's frame, the steer angle (rad), and the checks that need
    the design pose. With located points given per row (``r`` (R, 3): a design study's
    variants) every value is per row too.

    Parameters
    ----------
    resolved : loops.suspension.corner.Resolved
    corner : loops.suspension.corner.Corner
    reference : callable link name -> (4, 4) its pose at the design pose

    Raises
    ------
    ModelError
        ``corner.spin_axis_point`` not inboard of the wheel centre, ``corner.side`` a wheel
        centre on the other side of the centre plane, ``corner.kingpin`` an axis that is not
        a steering axis (:func:`check_steering_axis`).
    """

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
        self.spin = spin = axle / np.linalg.norm(axle, axis=-1, keepdims=True)
        toe = toe_angle(jets.constant(spin), forward, outboard).value
        self.steer_angle = -toe if corner.side == "left" else toe
        down = -(up - (spin @ up)[..., None] * spin)
        self.patch = self.centre + corner.wheel_radius * down / np.linalg.norm(down, axis=-1, keepdims=True)
        T = reference(corner.upright)
        self.patch_on_upright = (self.patch - T[:3, 3]) @ T[:3, :3]
        if resolved.kingpin is not None:
            first, second = resolved.kingpin
            lower = at(first)
            upper = lower + resolved.kingpin_axis @ reference(first.link)[:3, :3].T if second is None else at(second)
            check_steering_axis(upper - lower, "corner.kingpin", f"the kingpin {corner.kingpin!r}")


def check_steering_axis(axis, where, what):
    """Raise ModelError at ``where`` unless the steering axis ``axis`` (3,) (or (R, 3), every
    row) gives a direction and leans at most ``MAX_KINGPIN_TILT`` from the vertical;
    ``what`` names it in the message."""
    axis = np.atleast_2d(axis)
    length = np.linalg.norm(axis, axis=1)
    if not np.all(np.isfinite(length) & (length > 0.0)):
        raise ModelError(where, f"{what} gives no direction (its points coincide): not a steering axis")
    tilt = float(np.max(np.arccos(np.minimum(np.abs(axis[:, 2]) / length, 1.0))))
    if tilt > MAX_KINGPIN_TILT:
        raise ModelError(where, f"{what} leans {math.degrees(tilt):.1f} deg from the vertical (more than "
                         f"{math.degrees(MAX_KINGPIN_TILT):.0f} deg): not a steering axis")


def toe_angle(spin, forward, outboard):
    """Toe (jet, rad) of a wheel whose spin axis is ``spin`` (jet (N, 3), unit):
    ``arctan2(s.f, s.o)``, positive toe-in."""
    return jets.arctan2(jets.dot(spin, forward), jets.dot(spin, outboard))


def spin_axis_and_patch(C, inner, radius, up):
    """Spin axis ``s`` (unit, outboard) and contact patch ``P = C + R d`` (jets (N, 3)) from the
    wheel centre ``C`` and the spin-axis point ``inner`` (jets), the loaded radius ``radius``
    (m) and the frame's ``up`` (3,): ``d`` the unit vector of the wheel plane along which
    height falls fastest."""
    spin = jets.unit(C - inner)
    lift = jets.dot(spin, up).expand()
    down = jets.unit(-(up - spin * lift))
    return spin, C + down * radius


def steering_axis(resolved, motion, steer_motion, corner, frame):
    """Two jets (N, 3) on the steering axis, the second above the first by a unit vector along
    it (so: a point of the axis and its upward unit direction): through the kingpin's points
    or along its pair's axis, or the upright's instant screw axis in ``steer_motion`` for a
    virtual axis (``corner.kingpin = None``), moving with the twist's rate where that motion
    has one (METHOD.md (V1)).

    Raises
    ------
    ModelError
        ``corner.kingpin`` for a virtual axis without ``steer_motion``; ``corner.steering``
        when the steering variable does not turn the upright.
    """
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
        # origin and its direction.
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


class Wheel:
    """One wheel along one motion, in one frame: what its position metrics are written on.

    Attributes (jets along the motion, (N, 3) or (N,); computed once, when first asked)
    ---------------------------------------------------------------------------------
    C, P, spin : the wheel centre, the contact patch, the spin axis (unit, outboard)
    spin_components : the spin axis's components forward, outboard, up
    toe : toe angle
    kingpin : (a point, the upward unit direction) of the steering axis
    at_ground, at_centre : the steering axis's points at the ground plane through ``P`` and
        at the wheel centre's height
    centre_travel, patch_travel, travel : vertical displacements from the design pose of the
        wheel centre, the contact patch, and of the one ``travel_at`` names
    forward, outboard, up, side (+1 left, -1 right), design (:class:`DesignValues`),
    frame, vehicle, travel_at : as given
    """

    def __init__(self, resolved, corner, design, motion, frame, *, travel_at="wheel-centre", vehicle=None,
                 steer_motion=None):
        self.resolved, self.corner, self.design, self.motion, self.frame = resolved, corner, design, motion, frame
        self.travel_at, self.vehicle, self.steer_motion = travel_at, vehicle, steer_motion
        self.forward, self.up = frame.forward, frame.up
        # horizontal outboard: frames differ from the body's only by a roll about f
        _, self.outboard, _ = corner.axes
        self.side = 1.0 if corner.side == "left" else -1.0
        self.C = motion.point(resolved.wheel_centre)
        inner = motion.point(resolved.spin_axis_point)
        self.spin, self.P = spin_axis_and_patch(self.C, inner, corner.wheel_radius, self.up)
        self._parts = {}

    @cached_property
    def spin_components(self):
        """The spin axis's components forward, outboard, up."""
        return tuple(jets.dot(self.spin, d) for d in (self.forward, self.outboard, self.up))

    @cached_property
    def toe(self):
        return toe_angle(self.spin, self.forward, self.outboard)

    @cached_property
    def kingpin(self):
        return steering_axis(self.resolved, self.motion, self.steer_motion, self.corner, self.frame)

    @cached_property
    def kingpin_components(self):
        """The steering axis's direction forward, outboard, up."""
        _, axis = self.kingpin
        return jets.dot(axis, self.forward), jets.dot(axis, self.outboard), jets.dot(axis, self.up)

    @cached_property
    def at_ground(self):
        lower, axis = self.kingpin
        return lower + axis * (jets.dot(self.P - lower, self.up) / self.kingpin_components[2]).expand()

    @cached_property
    def at_centre(self):
        lower, axis = self.kingpin
        return lower + axis * (jets.dot(self.C - lower, self.up) / self.kingpin_components[2]).expand()

    @cached_property
    def centre_travel(self):
        return jets.dot(self.C - self.design.centre, self.up)

    @cached_property
    def patch_travel(self):
        return jets.dot(self.P - self.design.patch, self.up)

    @property
    def travel(self):
        return self.centre_travel if self.travel_at == "wheel-centre" else self.patch_travel

    def part_length(self, part):
        """Length (jet) between the ends of ``part`` (``"spring"``, ``"damper"``), or None when
        the corner has none."""
        if part not in self._parts:
            ends = getattr(self.resolved, part)
            self._parts[part] = None if ends is None else jets.norm(self.motion.point(ends[0]) -
                                                                     self.motion.point(ends[1]))
        return self._parts[part]


# ------------------------------------------------------------------ the position metrics
# Each takes a Wheel and returns a jet (or None where the corner has no such metric); its
# definition and sign are in loops.suspension.metrics.
def camber(w):
    s_f, s_o, s_u = w.spin_components
    return jets.arctan2(-s_u, jets.sqrt(s_f * s_f + s_o * s_o))


def camber_front_view(w):
    _, s_o, s_u = w.spin_components
    return jets.arctan2(-s_u, s_o)


def toe(w):
    return w.toe


def steer_angle(w):
    return w.toe * (-w.side)


def castor(w):
    k_f, _, k_u = w.kingpin_components
    return jets.arctan2(-k_f, k_u)


def kingpin_inclination(w):
    _, k_o, k_u = w.kingpin_components
    return jets.arctan2(-k_o, k_u)


def scrub_radius(w):
    return jets.dot(w.P - w.at_ground, w.outboard)


def kingpin_offset_wheel_centre(w):
    return jets.dot(w.C - w.at_centre, w.outboard)


def castor_trail(w):
    return jets.dot(w.at_ground - w.P, w.forward)


def hub_trail(w):
    return jets.dot(w.at_centre - w.C, w.forward)


def wheel_travel(w):
    return w.travel


def contact_patch_travel(w):
    return w.patch_travel if w.travel_at == "wheel-centre" else None


def wheel_centre_travel(w):
    return w.centre_travel if w.travel_at != "wheel-centre" else None


def wheel_recession(w):
    return -jets.dot(w.C - w.design.centre, w.forward)


def wheelbase_change(w):
    front = w.vehicle is None or w.vehicle.front
    return jets.dot(w.P - w.design.patch, w.forward) * (1.0 if front else -1.0)


def track_change(w):
    return jets.dot(w.P - w.design.patch, w.outboard)


def half_track(w):
    return jets.dot(w.P - w.frame.centre, w.frame.left) * w.side


def spring_length(w):
    return w.part_length("spring")


def damper_length(w):
    return w.part_length("damper")


def wheel_rate(w):
    """``k MR^2 + F dMR/dw`` (N/m, values only) from the spring's length jet: ``MR = -L'/w'``,
    ``dMR/dw = (dMR/ds) / w' = -(L'' w' - L' w'') / w'^3``, ``F = k (L_free - L)``; None without a
    spring with its stiffness."""
    spec = w.resolved.spring_spec
    length = w.part_length("spring")
    if spec is None or length is None:
        return None
    travel = w.travel
    ratio = jets.divide(-length.d, travel.d)
    ratio_rate = jets.divide(-(length.dd * travel.d - length.d * travel.dd), travel.d ** 3)
    force = spec.stiffness * (spec.free_length - length.value)
    return spec.stiffness * ratio ** 2 + force * ratio_rate
