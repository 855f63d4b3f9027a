"""Standard suspension analyses of a corner or an axle: parallel and opposite wheel travel,
roll, steering and combined steering at several heights.

Each analysis sweeps the mechanism (:func:`loops.sweep.sweep`) and returns the trajectory
record as a :class:`SuspensionResult`: every pair variable, point and pose of the sweep,
plus ``metrics``, the analysis's inputs (``wheel_travel``, ``roll_angle``, the steering
input) followed by the metrics of :mod:`loops.suspension.metrics` (``camber``, ``toe``, ...;
``camber_left``, ``camber_right``, ... and the axle's ``roll_centre_height``, ``track``,
... for an axle). :meth:`SuspensionResult.to_csv` writes those columns in the model file's
units with a first line naming them; :meth:`SuspensionResult.to_dataframe` gives the same
table as a ``pandas.DataFrame``.

Wheel travel is the vertical motion of the wheel centre (the corner's point driver,
``Corner.travel``; the analyses add one when the model has none) or, with
``travel_at="contact-patch"`` (SHARK's convention), of the contact patch: the wheel-centre
travel that puts the patch at the requested height is found by Newton's method on the
sweep, each step's derivative from the velocity solution, to 1e-12 m. Freedoms no input
fixes (a steering rack in a travel analysis, a wheel's spin) are held at their design
values; the steering variable, when the corner has one, is a driver of every analysis (at
its design value unless steered), so that rates with respect to it are available.

Roll (:func:`roll`): the body rotates by the roll angle (ISO 8855: positive right side
down) about a fixed longitudinal axis through the axle's static kinematic roll centre, both
contact patches held on the road (their heights above it unchanged). The two wheel
travels that do this are found by Newton's method as above; the metrics are then taken
relative to the road (camber to the ground, toe, steer angle, the roll centre's height
above the road), the wheel travels relative to the body. ``roll_camber`` and
``roll_steer`` are the derivatives of camber and steer angle with respect to the roll angle
along that motion (implicit-function theorem on the contact conditions).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from mechanism.errors import ModelError, SweepInterrupted, SweepStopped
from mechanism.units import Units

from ..results import Column, SweepResult
from . import jets
from .axle import SIDES, Axle, mirror_corner, with_travel_driver
from .corner import Corner, model_size, resolve
from .metrics import (AXLE_METRICS, METRICS, ROLL_METRICS, TRAVEL_AT, Frame, Motion, _Design, _wheel,
                      axle_metrics, corner_metrics, roll_centre_point)
from .vehicle import Vehicle

__all__ = ["Suspension", "SuspensionResult", "parallel_travel", "opposite_travel", "roll", "steering",
           "combined", "ANALYSES", "NEWTON_TOLERANCE"]

#: The analyses by their command-line names.
ANALYSES = ("parallel", "opposite", "roll", "steering", "combined")
#: Contact conditions (patch height, patch travel) are met to this many metres.
NEWTON_TOLERANCE = 1e-12
#: Newton steps on the sweep before giving up (each step is one sweep; 3 or 4 suffice).
NEWTON_STEPS = 12
#: Track given in the vehicle table and the geometry's must agree within this fraction.
TRACK_AGREEMENT = 0.02
#: The metrics a roll analysis takes relative to the body (the wheel travels); the others are
#: relative to the road.
BODY_TRAVELS = ("wheel_travel", "contact_patch_travel", "wheel_centre_travel")


# ------------------------------------------------------------------ what is analysed
class Suspension:
    """A corner or an axle, with its vehicle parameters and the model file's units.

    Parameters
    ----------
    mechanism : Mechanism
    corners : dict side -> Corner (one side for a corner, both for an axle)
    vehicle : Vehicle, optional
    units : mechanism.model_file.Units, optional; the units files are written in (default SI)
    name : str, optional, for legends and messages

    The corners are checked against the mechanism at once (located ``corner.<key>``
    errors), a corner without a travel driver gets one, and the vehicle's lengths are
    checked against the model's size and its track against the geometry.
    """

    def __init__(self, mechanism, corners: dict, vehicle: Vehicle | None = None, units=None, name=None):
        if not corners or set(corners) - set(SIDES):
            raise ModelError("corners", "expected a dict side -> Corner with 'left' and/or 'right'")
        if len(corners) == 1:
            (side, corner), = corners.items()
            if corner.side != side:
                raise ModelError("corner.side", f"the corner is listed as {side} but says side = {corner.side!r}")
            mechanism, corner = with_travel_driver(mechanism, corner)
            corners = {side: corner}
        self.mechanism = mechanism
        self.corners = dict(corners)
        self.vehicle = vehicle
        self.units = Units.of(units)
        self.model = mechanism.snapshot()
        self.name = name or self.model.name
        self.resolved = {side: resolve(self.model, corner) for side, corner in self.corners.items()}
        for side, resolved in self.resolved.items():
            if resolved.travel is None:
                raise ModelError("corner.travel", f"the {side} corner has no wheel-travel driver")
        reference = _reference(self.mechanism)
        self.design = {side: _Design(self.resolved[side], c, reference) for side, c in self.corners.items()}
        self.size = model_size(self.model)
        if vehicle is not None:
            vehicle.check_against(self.size)
            if vehicle.track is not None:
                track = self.design_track()
                if abs(vehicle.track - track) > TRACK_AGREEMENT * track:
                    raise ModelError("vehicle.track", f"{vehicle.track:.6g} m, but the contact patches are "
                                     f"{track:.6g} m apart at the design pose (mirrored about the centre plane)")

    @classmethod
    def of_corner(cls, mechanism, corner: Corner, vehicle=None, units=None, name=None):
        return cls(mechanism, {corner.side: corner}, vehicle, units, name)

    @classmethod
    def of_axle(cls, axle: Axle, units=None, name=None):
        return cls(axle.mechanism, axle.corners, axle.vehicle, units, name)

    @property
    def is_axle(self) -> bool:
        return len(self.corners) == 2

    #: None for one design: its design-pose values hold at every position. A suspension
    #: whose design-pose values are per row (a design study's V x N (variant, position)
    #: rows, :class:`loops.study.suspension.VariantSuspension`) gives their number: an
    #: analysis's own sweeps at the design pose (the static roll centre) have that many rows.
    design_rows: int | None = None

    @property
    def steering(self):
        """The steering variables of the corners (one when shared, as a rack)."""
        return list(dict.fromkeys(c.steering for c in self.corners.values() if c.steering is not None))

    def axle(self) -> "Suspension":
        """This axle, or the axle made by mirroring this corner about the centre plane."""
        if self.is_axle:
            return self
        (corner,) = self.corners.values()
        return Suspension.of_axle(mirror_corner(self.mechanism, corner, self.vehicle), self.units, self.name)

    def design_track(self) -> float:
        """Lateral distance between the contact patches at the design pose, m (twice the
        half track for a corner)."""
        if self.is_axle:
            left = self.corners["left"].left
            return float((self.design["left"].patch - self.design["right"].patch) @ left)
        (side, corner), = self.corners.items()
        centre = np.array([0.0, corner.centre_plane_y, 0.0])
        return 2.0 * abs(float((self.design[side].patch - centre) @ corner.left))

    def finish(self, record, analysis, travel_at, inputs, metrics, stop):
        """What an analysis returns: its record with the ``inputs`` and ``metrics`` columns as
        a :class:`SuspensionResult`; raises SweepStopped with it when the sweep ``stop``-ped
        (SweepInterrupted when Ctrl-C stopped it: the positions reached keep their metrics)."""
        result = SuspensionResult.of(record, analysis, travel_at, self.units, inputs + metrics)
        result.suspension = self
        if stop is not None:
            kind = SweepInterrupted if isinstance(stop, KeyboardInterrupt) else SweepStopped
            raise kind(stop.reason, result, driver_values=stop.driver_values, residual=stop.residual,
                       iterations=stop.iterations)
        return result

    def __repr__(self):
        kind = "axle" if self.is_axle else f"{next(iter(self.corners))} corner"
        return f"Suspension({self.name!r}, {kind})"


def _reference(mechanism):
    from ..compiled import compile_model  # noqa: PLC0415
    from ..configuration import evaluate  # noqa: PLC0415

    system = compile_model(mechanism.snapshot())
    poses = evaluate(system, system.reference_q()).link_poses
    return lambda link: poses[system.link_index[link]]


# ------------------------------------------------------------------ the result
class SuspensionResult(SweepResult):
    """The trajectory record of an analysis with its metric columns.

    Besides everything a :class:`~loops.results.SweepResult` holds, ``metrics`` maps each
    column name to a :class:`~loops.results.Column` (SI values; ``dimension`` says how to
    scale it): the inputs first, then the metrics. ``analysis`` names the analysis,
    ``travel_at`` where wheel travel is measured, ``units`` the units its files are written
    in by default (the model file's), ``suspension`` the :class:`Suspension` analysed.
    """

    analysis: str
    travel_at: str
    units: Units

    @classmethod
    def of(cls, record, analysis, travel_at, units, columns):
        out = cls.__new__(cls)
        out.__dict__.update(record.__dict__)
        out.analysis, out.travel_at, out.units = analysis, travel_at, units
        out.metrics = {c.name: c for c in columns}
        return out

    def metric(self, name):
        """Values of metric (or input) ``name``: (N,), SI."""
        if name not in self.metrics:
            raise ModelError(f"metric {name!r}", f"not a column of this analysis (columns: {', '.join(self.metrics)})")
        return np.array(self.metrics[name].values, dtype=float)

    def columns(self, points=None):
        """The metric table's columns: the inputs, then the metrics (:attr:`metrics`); points are
        not written (``points`` is ignored)."""
        return list(self.metrics.values())

    def default_units(self):
        """The model file's units: the default of :meth:`to_csv` and :meth:`to_dataframe`."""
        return self.units

    @property
    def csv_note(self):
        """The first line's note: the analysis, the model, where wheel travel is measured."""
        name = getattr(self, "suspension", self.model).name
        return f"analysis: {self.analysis} of {name!r}, wheel travel at the {self.travel_at.replace('-', ' ')}"

    def _repr_html_(self):
        """In a notebook: a summary and the analysis's interactive page (:mod:`loops.suspension.views`)."""
        from .views import analysis_html  # noqa: PLC0415

        return analysis_html(self)




# ------------------------------------------------------------------ sweeping
@dataclass
class _Plan:
    """What one analysis sweeps: per position, the targets of each corner's travel (the wheel
    centre's or the contact patch's) and the values of the steering variables."""

    travel: dict  # side -> (N,) target travel, m
    steering: dict = field(default_factory=dict)  # variable -> (N,)


class _Stopped(Exception):
    def __init__(self, stop, record):
        super().__init__(stop.reason)
        self.stop, self.record = stop, record


def _sweep(susp, drivers, tolerance):
    """``(record, None)``, or ``(the positions reached, the stop)`` when the sweep stopped or
    Ctrl-C interrupted it (:meth:`Suspension.finish` raises it again, with the metrics)."""
    try:
        return susp.mechanism.sweep(drivers, tolerance=tolerance), None
    except SweepStopped as stop:
        return stop.partial, stop


def _patch_jets(susp, side, motion, frame_up):
    resolved, corner = susp.resolved[side], susp.corners[side]
    C = motion.point(resolved.wheel_centre)
    _, P = _wheel(C, motion.point(resolved.spin_axis_point), corner.wheel_radius, frame_up)
    return C, P


def _patch_height(susp, side, motion, up, design_patch):
    """Height of ``side``'s contact patch above its design position, ``g = (P - P_0) . u``
    (m, a jet along ``motion``; ``design_patch`` (3,), (N, 3) or a jet of them): the contact
    condition of the contact-patch travel and of the roll, in the frame of ``motion``."""
    _, P = _patch_jets(susp, side, motion, up)
    return jets.dot(P - design_patch, up)


def _solve_travel(susp, plan: _Plan, travel_at, tolerance):
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
        record, stopped = _sweep(susp, drivers, tolerance)
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
                height = _patch_height(susp, side, motions[other], up, susp.design[side].patch)
                jacobian[:, i, j] = height.d
                if i == j:
                    residual[:, i] = height.value - targets[side]
        if _largest(residual) <= NEWTON_TOLERANCE:
            return record, stop
        step = np.linalg.solve(jacobian, residual[..., None])[..., 0]
        for i, side in enumerate(sides):
            centre[side] = centre[side] - step[:, i]
    raise ModelError("travel_at", f"the contact patch could not be placed at the requested travel in "
                     f"{NEWTON_STEPS} steps (residual {_largest(residual):.3g} m)")


def _largest(residual):
    """Largest finite ``|residual|`` (0 for none): rows a design study's stopped variants left
    NaN do not count."""
    return float(np.max(np.abs(residual), initial=0.0, where=np.isfinite(residual)))


# ------------------------------------------------------------------ metrics of a record
def _suffix(susp, side):
    return f"_{side}" if susp.is_axle else ""


def _along(record):
    """``driver -> Motion`` along each driver of ``record``, each solved once."""
    cache = {}

    def get(driver):
        if driver not in cache:
            cache[driver] = Motion.of(record.along(driver))
        return cache[driver]

    return get


def _body_metrics(susp, record, travel_at, steered=False):
    """Columns of every metric (per wheel, then the axle's) of a record in the body frame."""
    columns, wheels = [], {}
    along = _along(record)
    for side, corner in susp.corners.items():
        resolved = susp.resolved[side]
        motion = along(resolved.travel)
        steer = along(corner.steering) if corner.steering in record.drivers else None
        frame = Frame.body(corner)
        values, named, extra = corner_metrics(resolved, corner, susp.design[side], motion, frame,
                                              travel_at=travel_at, vehicle=susp.vehicle, steer_motion=steer)
        wheels[side] = (values, extra)
        for name, value in values.items():
            if not susp.is_axle and name == "wheel_travel":
                continue
            columns.append(Column(name + _suffix(susp, side), value, METRICS[name], 0))
    if susp.is_axle:
        frame = Frame.body(susp.corners["left"])
        columns += _axle_columns(susp, wheels, frame, steered)
    return columns


def _axle_columns(susp, wheels, frame, steered):
    patches = {side: wheels[side][1]["patch"] for side in SIDES}
    velocities = {side: wheels[side][1]["patch_velocity"] for side in SIDES}
    steer = {side: wheels[side][0]["steer_angle"] for side in SIDES}
    steer_rates = ({side: wheels[side][0]["steer_rate"] for side in SIDES}
                   if all("steer_rate" in wheels[side][0] for side in SIDES) else None)
    design_steer = {side: susp.design[side].steer_angle for side in SIDES}
    out = axle_metrics(patches, velocities, frame, steer=steer if steered else None, steer_rates=steer_rates,
                       vehicle=susp.vehicle,
                       design_track=susp.design_track(), design_steer=design_steer)
    return [Column(name, value, AXLE_METRICS[name], 0) for name, value in out.items()]


def _check_travel_at(travel_at):
    if travel_at not in TRAVEL_AT:
        raise ModelError("travel_at", f"expected one of {', '.join(TRAVEL_AT)}, got {travel_at!r}")


def _values(values, where):
    arr = np.atleast_1d(np.asarray(values, dtype=float))
    if arr.ndim != 1 or not len(arr) or not np.all(np.isfinite(arr)):
        raise ModelError(where, "expected a finite 1-D sequence of values")
    return arr


def _steering_plan(susp, count, steer_values=None):
    """The steering variables at their design values (0), or at ``steer_values``."""
    out = {}
    for name in susp.steering:
        out[name] = np.zeros(count) if steer_values is None else steer_values
    return out


def parallel_travel(susp: Suspension, travel, *, travel_at="wheel-centre", tolerance=1e-10) -> SuspensionResult:
    """Both wheels (or the one corner) through the same wheel travel.

    Parameters
    ----------
    susp : Suspension
    travel : (N,) wheel travel, m (+ bump), at the wheel centre or the contact patch
    travel_at : {"wheel-centre", "contact-patch"}
    tolerance : closure tolerance of the sweeps (dimensionless)

    Returns
    -------
    SuspensionResult
        Columns ``wheel_travel`` and the metrics.

    Raises
    ------
    SweepStopped
        When the sweep cannot go on: ``.partial`` is the :class:`SuspensionResult` of the
        positions reached.
    """
    _check_travel_at(travel_at)
    travel = _values(travel, "travel")
    plan = _Plan({side: travel for side in susp.corners}, _steering_plan(susp, len(travel)))
    record, stop = _solve_travel(susp, plan, travel_at, tolerance)
    inputs = [Column("wheel_travel", travel[:len(record)], "length", 0)]
    return susp.finish(record, "parallel travel", travel_at, inputs, _body_metrics(susp, record, travel_at), stop)


def opposite_travel(susp: Suspension, travel, *, travel_at="wheel-centre", tolerance=1e-10) -> SuspensionResult:
    """The left wheel through ``travel``, the right one through ``-travel`` (an axle; a
    corner is mirrored into one). Columns ``wheel_travel`` (the left wheel's) and the
    metrics with ``_left``/``_right``, then the axle's."""
    _check_travel_at(travel_at)
    susp = susp.axle()
    travel = _values(travel, "travel")
    plan = _Plan({"left": travel, "right": -travel}, _steering_plan(susp, len(travel)))
    record, stop = _solve_travel(susp, plan, travel_at, tolerance)
    inputs = [Column("wheel_travel", travel[:len(record)], "length", 0)]
    return susp.finish(record, "opposite travel", travel_at, inputs, _body_metrics(susp, record, travel_at), stop)


def _steering_input(susp, rack, steering_wheel):
    names = susp.steering
    if not names:
        raise ModelError("corner.steering", "the corner has no steering variable (give [corner] steering = "
                         "the rack's pair)")
    if len(names) != 1:
        raise ModelError("corner.steering", f"the two corners steer by different variables ({', '.join(names)}): "
                         "steer them with parallel_travel and explicit drivers instead")
    (name,) = names
    if (rack is None) == (steering_wheel is None):
        raise ModelError("steering", "give either the rack travel or the steering-wheel angle")
    quantities = {}
    for pair in susp.model.pairs:
        for variable, rotational in zip(pair.variable_names(), pair.pair_type.rotational):
            quantities[variable] = "angle" if rotational else "length"
    if rack is not None:
        values = _values(rack, "rack")
        return name, values, [Column(name, values, quantities[name], 0)]
    ratio = None if susp.vehicle is None else susp.vehicle.rack_travel_per_turn
    if ratio is None:
        raise ModelError("vehicle.rack_travel_per_turn", "steering by the steering-wheel angle needs the rack "
                         "travel per turn of the steering wheel ([vehicle] rack_travel_per_turn)")
    angle = _values(steering_wheel, "steering_wheel")
    values = angle * ratio / (2.0 * np.pi)
    return name, values, [Column("steering_wheel_angle", angle, "angle", 0),
                          Column(name, values, quantities[name], 0)]


def steering(susp: Suspension, rack=None, *, steering_wheel=None, travel=0.0, travel_at="wheel-centre",
             tolerance=1e-10) -> SuspensionResult:
    """Steer at a fixed wheel travel: the steering variable through ``rack`` (its values, m
    for a rack), or the steering wheel through ``steering_wheel`` (rad), the rack moving
    ``Vehicle.rack_travel_per_turn`` per turn. Columns: the input(s), then the metrics (an
    axle adds Ackermann and, with the rack ratio, the steering ratio)."""
    _check_travel_at(travel_at)
    name, values, inputs = _steering_input(susp, rack, steering_wheel)
    height = np.full(len(values), float(travel))
    plan = _Plan({side: height for side in susp.corners}, {name: values})
    record, stop = _solve_travel(susp, plan, travel_at, tolerance)
    inputs = [Column(c.name, c.values[:len(record)], c.dimension, 0) for c in inputs]
    return susp.finish(record, "steering", travel_at, inputs, _body_metrics(susp, record, travel_at, True), stop)


def combined(susp: Suspension, travel, rack=None, *, steering_wheel=None, travel_at="wheel-centre",
             tolerance=1e-10) -> SuspensionResult:
    """Steering sweeps at several wheel travels (parallel): for each value of ``travel`` the
    whole steering input, one after the other. Columns ``wheel_travel``, the steering
    input(s), then the metrics."""
    _check_travel_at(travel_at)
    name, values, inputs = _steering_input(susp, rack, steering_wheel)
    levels = _values(travel, "travel")
    heights = np.repeat(levels, len(values))
    plan = _Plan({side: heights for side in susp.corners}, {name: np.tile(values, len(levels))})
    record, stop = _solve_travel(susp, plan, travel_at, tolerance)
    count = len(record)
    inputs = [Column("wheel_travel", heights[:count], "length", 0)] + [
        Column(c.name, np.tile(c.values, len(levels))[:count], c.dimension, 0) for c in inputs]
    return susp.finish(record, "combined travel and steering", travel_at, inputs,
                   _body_metrics(susp, record, travel_at, True), stop)


# ------------------------------------------------------------------ roll
def _rotation(axis, angle):
    """Rotations (N, 3, 3) by ``angle`` (N,) about the unit ``axis`` (3,)."""
    k = np.asarray(axis, dtype=float)
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    s, c = np.sin(angle)[:, None, None], np.cos(angle)[:, None, None]
    return np.eye(3) + s * K + (1 - c) * (K @ K)


def _design_pose(susp, tolerance):
    """The axle ``susp`` at the design pose: both wheel travels and the steering variables at
    zero, one position per design row (one for one design), as a sweep record (drivers: the
    two travels and the steering variables). The static roll centre is taken there."""
    count = 1 if susp.design_rows is None else susp.design_rows
    record, _ = _solve_travel(susp, _Plan({s: np.zeros(count) for s in SIDES}, _steering_plan(susp, count)),
                              "wheel-centre", tolerance)
    return record


def _steer_of(record, corner):
    """The steering variable's motion in ``record`` (body frame), which a virtual steering
    axis is taken from, or None when the record does not drive it."""
    return Motion.of(record.along(corner.steering)) if corner.steering in record.drivers else None


def static_roll_centre(susp, tolerance=1e-10):
    """The axle's kinematic roll centre at the design pose, m, body frame: (3,) for one
    design; (rows, 3), one per row, for a suspension with per-row design values
    (:attr:`Suspension.design_rows`: a design study's variants)."""
    susp = susp.axle()
    record = _design_pose(susp, tolerance)
    patches, velocities = {}, {}
    for side, corner in susp.corners.items():
        motion = Motion.of(record.along(susp.resolved[side].travel))
        _, _, extra = corner_metrics(susp.resolved[side], corner, susp.design[side], motion,
                                     Frame.body(corner), vehicle=susp.vehicle, steer_motion=_steer_of(record, corner))
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


def roll(susp: Suspension, roll_angle, *, travel_at="wheel-centre", tolerance=1e-10) -> SuspensionResult:
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
    _check_travel_at(travel_at)
    susp = susp.axle()
    phi = _values(roll_angle, "roll_angle")
    count = len(phi)
    # The roll axis's point per row (N, 3): one design's, or each row's own variant's.
    axis_point = np.broadcast_to(static_roll_centre(susp, tolerance), (count, 3))
    frame_body = Frame.body(susp.corners["left"])
    f, up = frame_body.forward, frame_body.up
    steering_values = _steering_plan(susp, count)
    design = susp.design
    centre = {}
    for side in SIDES:
        lateral = (design[side].patch - axis_point) @ frame_body.left  # (N,) m
        centre[side] = -lateral * np.sin(phi)
    stop = None
    for step in range(NEWTON_STEPS):
        drivers = {susp.resolved[s].travel: centre[s] for s in SIDES}
        drivers.update({n: v[:count] for n, v in steering_values.items()})
        record, stopped = _sweep(susp, drivers, tolerance)
        if stopped is not None:
            stop, count = stopped, len(record)
            phi, axis_point = phi[:count], axis_point[:count]
            centre = {s: v[:count] for s, v in centre.items()}
        if not count:
            break
        R, shift, frame_road = roll_frame(phi, axis_point, frame_body)
        motions = {s: Motion.of(record.along(susp.resolved[s].travel)).in_frame(R, shift) for s in SIDES}
        residual = np.zeros((count, 2))
        jacobian = np.zeros((count, 2, 2))
        for i, side in enumerate(SIDES):
            for j, other in enumerate(SIDES):
                height = _patch_height(susp, side, motions[other], up, design[side].patch)
                jacobian[:, i, j] = height.d
                if i == j:
                    residual[:, i] = height.value
        if _largest(residual) <= NEWTON_TOLERANCE:
            break
        delta = np.linalg.solve(jacobian, residual[..., None])[..., 0]
        for i, side in enumerate(SIDES):
            centre[side] = centre[side] - delta[:, i]
    else:
        raise ModelError("roll_angle", f"the contact patches could not be held on the road in {NEWTON_STEPS} "
                         f"steps (residual {_largest(residual):.3g} m)")
    inputs = [Column("roll_angle", phi, "angle", 0)]
    if not count:
        return susp.finish(record, "roll", travel_at, inputs, [], stop)

    # The roll motion: the frame turning about the axis, and the travels that keep the
    # patches on the road: dt/dphi = -J^-1 dg/dphi (implicit function theorem).
    frame_twist = np.concatenate([np.broadcast_to(f, (count, 3)), -np.cross(f, axis_point)], axis=1)
    road = Motion.of(record).in_frame(R, shift)
    turning = road.combined([(np.ones(count), frame_twist)])
    g_phi = np.stack([_patch_height(susp, side, turning, up, design[side].patch).d for side in SIDES], axis=1)
    travel_rate = -np.linalg.solve(jacobian, g_phi[..., None])[..., 0]
    rolling = road.combined([(np.ones(count), frame_twist)] + [(travel_rate[:, i], motions[side])
                                                               for i, side in enumerate(SIDES)])

    columns, wheels = [], {}
    roll_columns = []
    for side, corner in susp.corners.items():
        resolved = susp.resolved[side]
        steer_body = _steer_of(record, corner)
        steer = None if steer_body is None else steer_body.in_frame(R, shift)
        values, _, extra = corner_metrics(resolved, corner, design[side], motions[side], frame_road,
                                          travel_at=travel_at, vehicle=susp.vehicle, steer_motion=steer)
        body, _, _ = corner_metrics(resolved, corner, design[side], Motion.of(record.along(resolved.travel)),
                                    frame_body, travel_at=travel_at, vehicle=susp.vehicle, steer_motion=steer_body)
        for key in BODY_TRAVELS:
            if key in values:
                values[key] = body[key]
        wheels[side] = (values, extra)
        _, rolled, _ = corner_metrics(resolved, corner, design[side], rolling, frame_road, travel_at=travel_at,
                                      steer_motion=steer)
        for name, value in values.items():
            columns.append(Column(f"{name}_{side}", value, METRICS[name], 0))
        roll_columns += [Column(f"roll_camber_{side}", rolled["camber"].d, ROLL_METRICS["roll_camber"], 0),
                         Column(f"roll_steer_{side}", rolled["steer_angle"].d, ROLL_METRICS["roll_steer"], 0)]
    axle_columns = _axle_columns(susp, wheels, frame_road, False)
    return susp.finish(record, "roll", travel_at, inputs, columns + roll_columns + axle_columns, stop)
