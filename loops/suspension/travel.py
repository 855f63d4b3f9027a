"""Placing the wheels: sweeps of a suspension whose wheel travels meet a contact condition.

An analysis asks for wheel travel at the wheel centre (the corner's point driver: one sweep)
or at the contact patch (SHARK's convention), and a roll for both contact patches on the
rolled road. The wheel-centre travels that do it are found by Newton's method on the sweep,
each step's derivative from the velocity solution (:func:`patch_height` along each travel
driver), to :data:`NEWTON_TOLERANCE`.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mechanism.errors import ModelError, SweepStopped

from . import jets
from .axle import SIDES
from .metrics import TRAVEL_AT
from .motion import Motion
from .wheel import spin_axis_and_patch

__all__ = ["TravelPlan", "NEWTON_TOLERANCE", "NEWTON_STEPS", "sweep_drivers", "wheel_centre_and_patch",
           "patch_height", "solve_travel", "largest_residual", "steering_plan", "design_pose", "check_travel_at",
           "input_values"]

#: Contact conditions (patch height, patch travel) are met to this many metres.
NEWTON_TOLERANCE = 1e-12
#: Newton steps on the sweep before giving up (each step is one sweep; 3 or 4 suffice).
NEWTON_STEPS = 12


def check_travel_at(travel_at):
    """Raise ModelError at ``travel_at`` unless it is one of :data:`~loops.suspension.metrics.TRAVEL_AT`."""
    if travel_at not in TRAVEL_AT:
        raise ModelError("travel_at", f"expected one of {', '.join(TRAVEL_AT)}, got {travel_at!r}")


def input_values(values, where):
    """An analysis's input values as a finite 1-D array (N,) of reals, or ModelError (a
    ValueError) at ``where``: a complex value is refused, not cut to its real part."""
    if np.iscomplexobj(values):
        raise ModelError(where, "complex values: expected real numbers")
    arr = np.atleast_1d(np.asarray(values, dtype=float))
    if arr.ndim != 1 or not len(arr) or not np.all(np.isfinite(arr)):
        raise ModelError(where, "expected a finite 1-D sequence of values")
    return arr


@dataclass
class TravelPlan:
    """What one analysis sweeps: per position, the targets of each corner's travel (the wheel
    centre's or the contact patch's) and the values of the steering variables."""

    travel: dict  # side -> (N,) target travel, m
    steering: dict = field(default_factory=dict)  # variable -> (N,)


def sweep_drivers(susp, drivers, tolerance):
    """``(record, stop)``: the suspension's mechanism swept through ``drivers`` (name -> (N,)
    values), and the SweepStopped (its ``partial`` the record) or None; also when Ctrl-C
    interrupted it (:meth:`Suspension.finish` raises it again, with the metrics)."""
    try:
        return susp.mechanism.sweep(drivers, tolerance=tolerance), None
    except SweepStopped as stop:
        return stop.partial, stop


def wheel_centre_and_patch(susp, side, motion, frame_up):
    """Jets (N, 3) along ``motion`` of ``side``'s wheel centre and contact patch, the patch
    taken with ``frame_up`` (3,) as the frame's up."""
    resolved, corner = susp.resolved[side], susp.corners[side]
    C = motion.point(resolved.wheel_centre)
    _, P = spin_axis_and_patch(C, motion.point(resolved.spin_axis_point), corner.wheel_radius, frame_up)
    return C, P


def patch_height(susp, side, motion, up, design_patch):
    """Height of ``side``'s contact patch above its design position, ``g = (P - P_0) . u``
    (m, a jet along ``motion``; ``design_patch`` (3,), (N, 3) or a jet of them): the contact
    condition of the contact-patch travel and of the roll, in the frame of ``motion``."""
    _, P = wheel_centre_and_patch(susp, side, motion, up)
    return jets.dot(P - design_patch, up)


def solve_travel(susp, plan: TravelPlan, travel_at, tolerance):
    """Sweep with each corner's wheel-centre travel chosen so that its travel point (wheel
    centre or contact patch) is at the plan's target: returns ``(record, stop)``."""
    sides = list(susp.corners)
    targets = {side: np.asarray(plan.travel[side], dtype=float) for side in sides}
    count = len(next(iter(targets.values())))
    steering = {name: np.broadcast_to(np.asarray(values, dtype=float), (count,)) for name, values in
                plan.steering.items()}
    centre = {side: targets[side].copy() for side in sides}
    stop = None
    for _ in range(NEWTON_STEPS):
        drivers = {susp.resolved[s].travel: centre[s] for s in sides}
        drivers.update(steering)
        record, stopped = sweep_drivers(susp, drivers, tolerance)
        if stopped is not None:
            stop = stopped
            count = len(record)
            targets = {s: v[:count] for s, v in targets.items()}
            centre = {s: v[:count] for s, v in centre.items()}
            steering = {n: v[:count] for n, v in steering.items()}
        if travel_at == "wheel-centre" or not count:
            return record, stop
        up = np.array([0.0, 0.0, 1.0])
        motions = {s: Motion.of(record.along(susp.resolved[s].travel)) for s in sides}
        residual = np.zeros((count, len(sides)))
        jacobian = np.zeros((count, len(sides), len(sides)))
        for i, side in enumerate(sides):
            for j, other in enumerate(sides):
                height = patch_height(susp, side, motions[other], up, susp.design[side].patch)
                jacobian[:, i, j] = height.d
                if i == j:
                    residual[:, i] = height.value - targets[side]
        if largest_residual(residual) <= NEWTON_TOLERANCE:
            return record, stop
        step = np.linalg.solve(jacobian, residual[..., None])[..., 0]
        for i, side in enumerate(sides):
            centre[side] = centre[side] - step[:, i]
    raise ModelError("travel_at", f"the contact patch could not be placed at the requested travel in "
                     f"{NEWTON_STEPS} steps (residual {largest_residual(residual):.3g} m)")


def largest_residual(residual):
    """Largest finite ``|residual|`` (0 for none): rows a design study's stopped variants left
    NaN do not count."""
    return float(np.max(np.abs(residual), initial=0.0, where=np.isfinite(residual)))


def steering_plan(susp, count, steer_values=None):
    """The steering variables at their design values (0), or at ``steer_values``: name ->
    (count,) values."""
    out = {}
    for name in susp.steering:
        out[name] = np.zeros(count) if steer_values is None else steer_values
    return out


def design_pose(susp, tolerance):
    """The axle ``susp`` at the design pose: both wheel travels and the steering variables at
    zero, one position per design row (one for one design), as a sweep record (drivers: the
    two travels and the steering variables). The static roll centre is taken there."""
    count = 1 if susp.design_rows is None else susp.design_rows
    record, _ = solve_travel(susp, TravelPlan({s: np.zeros(count) for s in SIDES}, steering_plan(susp, count)),
                             "wheel-centre", tolerance)
    return record
