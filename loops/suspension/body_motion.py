"""The body turning over the road: roll about the axle's roll axis, pitch about the vehicle's
pitch centre.

Roll (:func:`roll`): the body rotates by the roll angle (ISO 8855: positive right side
down) about a fixed longitudinal axis through the axle's static kinematic roll centre, both
contact patches held on the road (their heights above it unchanged). The two wheel travels
that do this are found by Newton's method on the sweep (:mod:`loops.suspension.travel`); the
metrics are then taken relative to the road (camber to the ground, toe, steer angle, the
roll centre's height above the road), the wheel travels relative to the body.
``roll_camber`` and ``roll_steer`` are the derivatives of camber and steer angle with respect
to the roll angle along that motion (implicit-function theorem on the contact conditions).

Pitch (:func:`pitch`): the body of a two-axle vehicle rotates by the pitch angle (ISO 8855:
positive nose down) about the lateral axis through its static kinematic pitch centre, where
the two axles' side-view lines meet (each from a contact patch through the side-view instant
centre, at the design pose; the rear axle ``Vehicle.wheelbase`` behind the front one), and
each axle's wheels travel together so that its contact patches stay on the road: front and
rear travel together, as the body pitches under braking and driving. The anti-geometry of
each axle is taken along that motion.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mechanism.errors import ModelError

from ..results import Column
from . import jets
from .axle import SIDES
from .axle_geometry import roll_centre_point
from .measure import axle_columns, corner_metrics
from .metrics import METRICS, ROLL_METRICS
from .motion import Frame, Motion
from .travel import (NEWTON_STEPS, NEWTON_TOLERANCE, check_travel_at, design_pose, input_values, largest_residual,
                     patch_height, steering_plan, sweep_drivers)
from loops.continuation import DEFAULT_TOLERANCE

__all__ = ["roll", "pitch", "static_roll_centre", "static_pitch_centre", "roll_frame", "steer_motion_of",
           "BODY_TRAVELS"]

#: The metrics a roll analysis takes relative to the body (the wheel travels); the others are
#: relative to the road.
BODY_TRAVELS = ("wheel_travel", "contact_patch_travel", "wheel_centre_travel")


def _rotation(axis, angle):
    """Rotations (N, 3, 3) by ``angle`` (N,) about the unit ``axis`` (3,)."""
    k = np.asarray(axis, dtype=float)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    s, c = np.sin(angle)[:, None, None], np.cos(angle)[:, None, None]
    return np.eye(3) + s * K + (1 - c) * (K @ K)


def steer_motion_of(record, corner):
    """The steering variable's motion in ``record`` (body frame), which a virtual steering
    axis is taken from, or None when the record does not drive it."""
    return Motion.of(record.along(corner.steering)) if corner.steering in record.drivers else None


def static_roll_centre(susp, tolerance=DEFAULT_TOLERANCE):
    """The axle's kinematic roll centre at the design pose, m, body frame: (3,) for one
    design; (rows, 3), one per row, for a suspension with per-row design values
    (:attr:`Suspension.design_rows`: a design study's variants)."""
    susp = susp.axle()
    record = design_pose(susp, tolerance)
    patches, velocities = {}, {}
    for side, corner in susp.corners.items():
        motion = Motion.of(record.along(susp.resolved[side].travel))
        _, _, extra = corner_metrics(susp.resolved[side], corner, susp.design[side], motion, Frame.body(corner),
                                     vehicle=susp.vehicle, steer_motion=steer_motion_of(record, corner))
        patches[side], velocities[side] = jets.constant(extra["patch"]), jets.constant(extra["patch_velocity"])
    centre = roll_centre_point(patches, velocities, Frame.body(susp.corners["left"])).value
    return centre[0] if susp.design_rows is None else centre


def roll_frame(phi, axis_point, body):
    """The road seen from the rolled body: the body turned by ``phi`` (N,) rad (ISO 8855) about
    the axis along ``body.forward`` through ``axis_point`` (N, 3), m, body frame. Returns the
    rotation ``R`` (N, 3, 3) and translation ``shift = a - R a`` (N, 3) with ``x_road = R
    x_body + shift`` (so the axis stays put), and the road's :class:`Frame` (its ``left`` and
    ``centre`` the body's, rolled)."""
    R = _rotation(body.forward, phi)
    shift = axis_point - np.einsum("nij,nj->ni", R, axis_point)
    road = Frame(body.forward, body.up, np.einsum("nij,j->ni", R, body.left),
                 np.einsum("nij,j->ni", R, body.centre) + shift)
    return R, shift, road


@dataclass
class _Rolled:
    """Where the roll's Newton iteration ended: the angles and axis points reached (N,), (N, 3),
    the road seen from the body (``R``, ``shift``, ``road``), each side's motion along its
    travel seen from the road, and the contact conditions' rates along the travels
    ``jacobian`` (N, 2, 2)."""

    phi: np.ndarray
    axis_point: np.ndarray
    R: np.ndarray = None
    shift: np.ndarray = None
    road: Frame = None
    motions: dict = None
    jacobian: np.ndarray = None


def _hold_patches_on_road(susp, phi, axis_point, tolerance):
    """The wheel travels that keep both contact patches on the rolled road: ``(record, stop,
    rolled)``, Newton's method on the sweep (:class:`_Rolled` where it ended)."""
    body = Frame.body(susp.corners["left"])
    count = len(phi)
    steering_values = steering_plan(susp, count)
    design = susp.design
    centre = {side: -((design[side].patch - axis_point) @ body.left) * np.sin(phi) for side in SIDES}
    rolled, stop = _Rolled(phi, axis_point), None
    for _ in range(NEWTON_STEPS):
        drivers = {susp.resolved[s].travel: centre[s] for s in SIDES}
        drivers.update({n: v[:count] for n, v in steering_values.items()})
        record, stopped = sweep_drivers(susp, drivers, tolerance)
        if stopped is not None:
            stop, count = stopped, len(record)
            rolled.phi, rolled.axis_point = rolled.phi[:count], rolled.axis_point[:count]
            centre = {s: v[:count] for s, v in centre.items()}
        if not count:
            return record, stop, rolled
        rolled.R, rolled.shift, rolled.road = roll_frame(rolled.phi, rolled.axis_point, body)
        rolled.motions = {s: Motion.of(record.along(susp.resolved[s].travel)).in_frame(rolled.R, rolled.shift)
                          for s in SIDES}
        residual = np.zeros((count, 2))
        rolled.jacobian = np.zeros((count, 2, 2))
        for i, side in enumerate(SIDES):
            for j, other in enumerate(SIDES):
                height = patch_height(susp, side, rolled.motions[other], body.up, design[side].patch)
                rolled.jacobian[:, i, j] = height.d
                if i == j:
                    residual[:, i] = height.value
        if largest_residual(residual) <= NEWTON_TOLERANCE:
            return record, stop, rolled
        delta = np.linalg.solve(rolled.jacobian, residual[..., None])[..., 0]
        for i, side in enumerate(SIDES):
            centre[side] = centre[side] - delta[:, i]
    raise ModelError("roll_angle", f"the contact patches could not be held on the road in {NEWTON_STEPS} "
                     f"steps (residual {largest_residual(residual):.3g} m)")


def _roll_columns(susp, record, rolled, travel_at):
    """The roll's metric columns: per wheel the metrics relative to the road (the wheel
    travels relative to the body), ``roll_camber`` and ``roll_steer``, then the axle's."""
    R, shift, body = rolled.R, rolled.shift, Frame.body(susp.corners["left"])
    count, f, up = len(rolled.phi), body.forward, body.up
    # The roll motion: the frame turning about the axis, and the travels that keep the
    # patches on the road: dt/dphi = -J^-1 dg/dphi (implicit function theorem).
    frame_twist = np.concatenate([np.broadcast_to(f, (count, 3)), -np.cross(f, rolled.axis_point)], axis=1)
    road = Motion.of(record).in_frame(R, shift)
    turning = road.combined([(np.ones(count), frame_twist)])
    g_phi = np.stack([patch_height(susp, side, turning, up, susp.design[side].patch).d for side in SIDES], axis=1)
    travel_rate = -np.linalg.solve(rolled.jacobian, g_phi[..., None])[..., 0]
    rolling = road.combined(
        [(np.ones(count), frame_twist)] + [(travel_rate[:, i], rolled.motions[side]) for i, side in enumerate(SIDES)])
    columns, roll_columns, wheels = [], [], {}
    for side, corner in susp.corners.items():
        resolved, design = susp.resolved[side], susp.design[side]
        steer_body = steer_motion_of(record, corner)
        steer = None if steer_body is None else steer_body.in_frame(R, shift)
        values, _, extra = corner_metrics(resolved, corner, design, rolled.motions[side], rolled.road,
                                          travel_at=travel_at, vehicle=susp.vehicle, steer_motion=steer)
        in_body, _, _ = corner_metrics(resolved, corner, design, Motion.of(record.along(resolved.travel)),
                                       Frame.body(corner), travel_at=travel_at, vehicle=susp.vehicle,
                                       steer_motion=steer_body)
        for key in BODY_TRAVELS:
            if key in values:
                values[key] = in_body[key]
        wheels[side] = (values, extra)
        _, along_roll, _ = corner_metrics(resolved, corner, design, rolling, rolled.road, travel_at=travel_at,
                                          steer_motion=steer)
        columns += [Column(f"{name}_{side}", value, METRICS[name], 0) for name, value in values.items()]
        roll_columns += [Column(f"roll_camber_{side}", along_roll["camber"].d, ROLL_METRICS["roll_camber"], 0),
                         Column(f"roll_steer_{side}", along_roll["steer_angle"].d, ROLL_METRICS["roll_steer"], 0)]
    return columns + roll_columns + axle_columns(susp, wheels, rolled.road, False)


def roll(susp, roll_angle, *, travel_at="wheel-centre", tolerance=DEFAULT_TOLERANCE):
    """Body roll about a fixed longitudinal axis through the static roll centre, both contact
    patches held on the road (see the module docstring).

    Parameters
    ----------
    susp : Suspension (a corner is mirrored into an axle); with per-row design values (a
        design study's variants, :attr:`Suspension.design_rows`) each row rolls about its
        own static roll centre and its travels are solved for its own contact patches
    roll_angle : (N,) rad, ISO 8855 (positive: right side down)

    Returns
    -------
    SuspensionResult
        Columns ``roll_angle``; per wheel the metrics relative to the road (wheel travels
        relative to the body) with ``roll_camber`` and ``roll_steer``; the axle's.
    """
    check_travel_at(travel_at)
    susp = susp.axle()
    phi = input_values(roll_angle, "roll_angle")
    # The roll axis's point per row (N, 3): one design's, or each row's own variant's.
    axis_point = np.broadcast_to(static_roll_centre(susp, tolerance), (len(phi), 3))
    record, stop, rolled = _hold_patches_on_road(susp, phi, axis_point, tolerance)
    inputs = [Column("roll_angle", rolled.phi, "angle", 0)]
    if not len(rolled.phi):
        return susp.finish(record, "roll", travel_at, inputs, [], stop)
    return susp.finish(record, "roll", travel_at, inputs, _roll_columns(susp, record, rolled, travel_at), stop)


# ------------------------------------------------------------------ pitch
def _pitched_side(susp):
    """The wheel whose contact patch holds an axle (or a corner) on the road: the left one of an
    axle (both travel alike)."""
    return "left" if "left" in susp.corners else next(iter(susp.corners))


def _side_view_line(susp, tolerance):
    """``(patch, instant centre)`` (3,) each, m, the axle's own frame: the side-view instant
    centre of its wheel at the design pose and the contact patch it is seen from."""
    side = _pitched_side(susp)
    record = design_pose(susp.axle(), tolerance) if susp.is_axle else sweep_drivers(
        susp, {susp.resolved[side].travel: np.zeros(1), **steering_plan(susp, 1)}, tolerance)[0]
    corner = susp.corners[side]
    values, _, extra = corner_metrics(susp.resolved[side], corner, susp.design[side],
                                      Motion.of(record.along(susp.resolved[side].travel)), Frame.body(corner),
                                      vehicle=susp.vehicle, steer_motion=steer_motion_of(record, corner))
    forward, _, up = corner.axes
    patch = extra["patch"][0]
    return patch, patch + values["svsa_length"][0] * forward + values["svic_height"][0] * up


def static_pitch_centre(front, rear, tolerance=DEFAULT_TOLERANCE):
    """The vehicle's kinematic pitch centre at the design pose, m, in the front axle's frame:
    where the front's and the rear's side-view lines (contact patch through side-view instant
    centre) meet, the rear ``wheelbase`` (``[vehicle]``, the front's or else the rear's) behind;
    and that offset of the rear's frame (3,)."""
    vehicle = front.vehicle if front.vehicle is not None and front.vehicle.wheelbase else rear.vehicle
    if vehicle is None or vehicle.wheelbase is None:
        raise ModelError("vehicle.wheelbase", "body pitch needs the wheelbase ([vehicle] wheelbase) to place the "
                         "rear axle behind the front one")
    forward, _, up = front.corners[_pitched_side(front)].axes
    offset = -vehicle.wheelbase * forward
    (p_f, c_f), (p_r, c_r) = _side_view_line(front, tolerance), _side_view_line(rear, tolerance)
    p_r, c_r = p_r + offset, c_r + offset
    plane = np.array([forward, up])  # side view: along, up
    a = np.column_stack([plane @ (c_f - p_f), -plane @ (c_r - p_r)])
    if abs(np.linalg.det(a)) <= 1e-12 * np.linalg.norm(a) ** 2:
        raise ModelError("rear", "the two axles' side-view lines are parallel: the vehicle has no pitch centre")
    along = np.linalg.solve(a, plane @ (p_r - p_f))[0]
    return p_f + along * (c_f - p_f), offset


def _hold_on_road(susp, theta, centre, tolerance):
    """``(record, stop, travel)``: the wheel travels (every wheel of ``susp`` alike) that keep its
    contact patch on the road when the body turns by ``theta`` (N,) about the lateral axis
    through ``centre`` (3,), the axle's frame; Newton's method on the sweep."""
    side = _pitched_side(susp)
    corner, design = susp.corners[side], susp.design[side]
    body = Frame.body(corner)
    R = _rotation(corner.left, theta)
    shift = centre - np.einsum("nij,j->ni", R, centre)
    travel = ((design.patch - centre) @ body.forward) * np.sin(theta)
    stop = None
    for _ in range(NEWTON_STEPS):
        drivers = {susp.resolved[s].travel: travel for s in susp.corners}
        drivers.update(steering_plan(susp, len(travel)))
        record, stopped = sweep_drivers(susp, drivers, tolerance)
        if stopped is not None:
            stop, count = stopped, len(record)
            travel, R, shift = travel[:count], R[:count], shift[:count]
        if not len(record):
            return record, stop, travel
        motion = Motion.of(record.along(susp.resolved[side].travel)).in_frame(R, shift)
        height = patch_height(susp, side, motion, body.up, design.patch)
        if largest_residual(height.value) <= NEWTON_TOLERANCE:
            return record, stop, travel
        travel = travel - height.value / height.d
    raise ModelError("pitch_angle", f"the contact patches could not be held on the road in {NEWTON_STEPS} steps "
                     f"(residual {largest_residual(height.value):.3g} m)")


def _axle_columns_in_pitch(susp, record, travel_at, axle):
    """The ``wheel_travel`` and anti-geometry columns of one axle along the pitch (its pitched
    wheel's, in the body frame), named with ``axle`` (``front``, ``rear``)."""
    side = _pitched_side(susp)
    corner, resolved = susp.corners[side], susp.resolved[side]
    values, _, _ = corner_metrics(resolved, corner, susp.design[side], Motion.of(record.along(resolved.travel)),
                                  Frame.body(corner), travel_at=travel_at, vehicle=susp.vehicle,
                                  steer_motion=steer_motion_of(record, corner))
    return [Column(f"{name}_{axle}", values[name], METRICS[name], 0)
            for name in ("wheel_travel", "anti_dive", "anti_lift", "anti_squat") if name in values]


def pitch(susp, pitch_angle, *, rear, travel_at="wheel-centre", tolerance=DEFAULT_TOLERANCE):
    """Body pitch of a two-axle vehicle about its static pitch centre (see the module
    docstring).

    Parameters
    ----------
    susp : Suspension, the front axle (or corner); its record is the result's
    pitch_angle : (N,) rad, ISO 8855 (positive: nose down)
    rear : Suspension, the rear axle (or corner), its frame's origin ``wheelbase`` behind the
        front's (``[vehicle] wheelbase`` of the front, else of the rear)

    Returns
    -------
    SuspensionResult
        Columns ``pitch_angle``; ``wheel_travel_front``, ``wheel_travel_rear`` (relative to the
        body); each axle's anti-geometry along the motion (``anti_dive_front``,
        ``anti_lift_front``, ``anti_lift_rear``, ``anti_squat_rear``, as its ``[vehicle]``
        gives them). The pitch centre: :func:`static_pitch_centre`.
    """
    check_travel_at(travel_at)
    theta = input_values(pitch_angle, "pitch_angle")
    centre, offset = static_pitch_centre(susp, rear, tolerance)
    axles = {"front": (susp, centre), "rear": (rear, centre - offset)}
    held = {axle: _hold_on_road(one, theta, at, tolerance) for axle, (one, at) in axles.items()}
    count = min(len(record) for record, _, _ in held.values())
    stops = [stop for _, stop, _ in held.values() if stop is not None and len(stop.partial) == count]
    for axle, (one, at) in axles.items():
        if len(held[axle][0]) > count:  # the other axle stopped first: this one to the same positions
            held[axle] = _hold_on_road(one, theta[:count], at, tolerance)
    inputs = [Column("pitch_angle", theta[:count], "angle", 0)]
    stop = stops[0] if stops else None
    if not count:
        return susp.finish(held["front"][0], "pitch", travel_at, inputs, [], stop)
    columns = [column for axle, (one, _) in axles.items()
               for column in _axle_columns_in_pitch(one, held[axle][0], travel_at, axle)]
    return susp.finish(held["front"][0], "pitch", travel_at, inputs, columns, stop)
