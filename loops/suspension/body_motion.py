"""The body turning over the road: roll about the axle's roll axis.

Roll (:func:`roll`): the body rotates by the roll angle (ISO 8855: positive right side
down) about a fixed longitudinal axis through the axle's static kinematic roll centre, both
contact patches held on the road (their heights above it unchanged). The two wheel travels
that do this are found by Newton's method on the sweep (:mod:`loops.suspension.travel`); the
metrics are then taken relative to the road (camber to the ground, toe, steer angle, the
roll centre's height above the road), the wheel travels relative to the body.
``roll_camber`` and ``roll_steer`` are the derivatives of camber and steer angle with respect
to the roll angle along that motion (implicit-function theorem on the contact conditions).
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

__all__ = ["roll", "static_roll_centre", "roll_frame", "steer_motion_of", "BODY_TRAVELS"]

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


def static_roll_centre(susp, tolerance=1e-10):
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


def roll(susp, roll_angle, *, travel_at="wheel-centre", tolerance=1e-10):
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
