"""Taking the catalogue's metrics (:mod:`loops.suspension.metrics`): of one corner along a
motion, of the upright's velocity field, of an axle, and of a sweep record.

:func:`corner_metrics`, :func:`velocity_field_metrics` and :func:`axle_metrics` run the
catalogue's functions in its order on a :class:`~loops.suspension.wheel.Wheel`, a
:class:`~loops.suspension.velocity_field.VelocityField` and an
:class:`~loops.suspension.axle_geometry.AxleGeometry`; the analyses
(:mod:`loops.suspension.analyses`) and the design sensitivities call them with arrays or
with jets along another motion. :func:`suspension_metrics`, :func:`rates`,
:func:`metrics_at` and :func:`contact_patch` take a corner's metrics from any sweep record.
"""

from __future__ import annotations

import numpy as np

from mechanism.errors import ModelError

from ..results import Column
from . import jets
from .axle import SIDES
from .axle_geometry import AxleGeometry
from .corner import UP, Corner, resolve
from .metrics import AXLE, AXLE_METRICS, CATALOGUE, FIELD, METRICS, POSITION, RATE, TRAVEL_AT, WHEEL_RATE
from .motion import Frame, Motion, reference_poses
from .velocity_field import VelocityField, has_anti_geometry
from .wheel import DesignValues, Wheel, spin_axis_and_patch

__all__ = ["corner_metrics", "velocity_field_metrics", "axle_metrics", "suspension_columns", "axle_columns",
           "suspension_metrics", "rates", "metrics_at", "contact_patch"]


def _of_kind(*kinds):
    return tuple(m for m in CATALOGUE if m.kind in kinds)


_POSITION, _RATE, _FIELD, _WHEEL_RATE, _AXLE = (_of_kind(k) for k in (POSITION, RATE, FIELD, WHEEL_RATE, AXLE))


def corner_metrics(resolved, corner, design, motion, frame, *, travel_at="wheel-centre", vehicle=None,
                   steer_motion=None):
    """Per-wheel metrics (:mod:`loops.suspension.metrics`) of one corner.

    Parameters
    ----------
    resolved : loops.suspension.corner.Resolved
    corner : Corner
    design : the corner's design-pose values (:class:`~loops.suspension.wheel.DesignValues`)
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
    jets : dict name -> Jet, the position metrics with their rates along ``motion``
    wheel : dict with ``"patch"`` (N, 3) and ``"patch_velocity"`` (N, 3), the velocity in
        ``motion`` of the upright's point at the contact patch (for the axle's metrics), and
        the jets along ``motion`` of the contact patch and the wheel centre (``"patch_jet"``,
        ``"centre_jet"``)
    """
    wheel = Wheel(resolved, corner, design, motion, frame, travel_at=travel_at, vehicle=vehicle,
                  steer_motion=steer_motion)
    named = {}
    for metric in _POSITION:
        jet = metric.function(wheel)
        if jet is not None:
            named[metric.name] = jet
    out = {name: jet.value for name, jet in named.items()}
    out.update(_rate_metrics(wheel, named, steer_motion))

    # Velocity field of the upright in wheel travel: instant centres, roll centre, anti-geometry.
    twist = motion.twist(corner.upright)
    static_patch = None
    if has_anti_geometry(vehicle):
        upright = motion.pose(corner.upright)
        static_patch = np.einsum("nij,nj->ni", upright[:, :3, :3],
                                 np.broadcast_to(design.patch_on_upright, (len(upright), 3))) + upright[:, :3, 3]
    _, outboard, _ = corner.axes
    field, v_patch = velocity_field_metrics(twist, wheel.P.value, wheel.C.d, static_patch, frame, outboard, vehicle)
    out.update(field)
    for metric in _WHEEL_RATE:
        value = metric.function(wheel)
        if value is not None:
            out[metric.name] = value
    ordered = {name: out[name] for name in METRICS if name in out}
    return ordered, named, {"patch": wheel.P.value, "patch_velocity": v_patch, "patch_jet": wheel.P,
                            "centre_jet": wheel.C}


def _rate_metrics(wheel, named, steer_motion):
    """The rate metrics (:data:`~loops.suspension.metrics.RATE`) whose position metric the
    corner has: along the wheel travel, ``sign d f / d w``; along the steering variable (when
    ``steer_motion`` is given), ``sign d f / d s`` of the wheel along it."""
    out = {}
    steered = None
    for metric in _RATE:
        if metric.along == "steering":
            if steer_motion is None:
                continue
            if steered is None:
                steered = Wheel(wheel.resolved, wheel.corner, wheel.design, steer_motion, wheel.frame,
                                travel_at=wheel.travel_at, vehicle=wheel.vehicle, steer_motion=steer_motion)
            out[metric.name] = metric.sign * _position(steered, metric.rate_of).d
        elif metric.rate_of in named:
            out[metric.name] = jets.divide(metric.sign * named[metric.rate_of].d, wheel.travel.d)
    return out


def _position(wheel, name):
    """The position metric ``name`` (a jet) of ``wheel``."""
    return next(m for m in _POSITION if m.name == name).function(wheel)


def velocity_field_metrics(twist, patch, centre_velocity, static_patch, frame, outboard, vehicle=None):
    """The metrics of the upright's velocity field in wheel travel (kind FIELD of the
    catalogue: the instant centres, the corner's roll centre and, with a vehicle, the
    anti-geometry), with arrays, or with jets along another motion (METHOD.md (H4)); the
    arguments are :class:`~loops.suspension.velocity_field.VelocityField`'s.

    Returns
    -------
    values : dict name -> (N,) or Jet
    v_patch : (N, 3) or Jet, the velocity in wheel travel of the upright's point at ``patch``
    """
    field = VelocityField(twist, patch, centre_velocity, static_patch, frame, outboard, vehicle)
    out = {}
    for metric in _FIELD:
        value = metric.function(field)
        if value is not None:
            out[metric.name] = value
    return out, field.v_patch


def axle_metrics(patches, patch_velocities, frame, steer=None, steer_rates=None, vehicle=None, design_track=None,
                 design_steer=None):
    """Axle metrics (kind AXLE of the catalogue) from the two wheels.

    Written once for two uses: with arrays, the metrics at each position (arrays out); with
    jets along another motion (a hardpoint coordinate, METHOD.md (H4)), the same metrics as
    jets whose ``d`` is their first rate along it.

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

    axle = AxleGeometry(lift(patches), lift(patch_velocities), frame, lift(steer), lift(steer_rates), vehicle,
                        design_track, lift(design_steer))
    out = {}
    for metric in _AXLE:
        value = metric.function(axle)
        if value is not None:
            out[metric.name] = value
    return out if jetted else {name: jet.value for name, jet in out.items()}


def _along(record):
    """``driver -> Motion`` along each driver of ``record``, each solved once."""
    cache = {}

    def get(driver):
        if driver not in cache:
            cache[driver] = Motion.of(record.along(driver))
        return cache[driver]

    return get


def suspension_columns(susp, record, travel_at, steered=False):
    """Columns of every metric of a suspension's sweep ``record`` in the body frame: per wheel
    (an axle's with ``_left`` and ``_right``; a corner's without ``wheel_travel``, which is
    its input), then the axle's (Ackermann with ``steered``)."""
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
        suffix = f"_{side}" if susp.is_axle else ""
        for name, value in values.items():
            if not susp.is_axle and name == "wheel_travel":
                continue
            columns.append(Column(name + suffix, value, METRICS[name], 0))
    if susp.is_axle:
        frame = Frame.body(susp.corners["left"])
        columns += axle_columns(susp, wheels, frame, steered)
    return columns


def axle_columns(susp, wheels, frame, steered):
    """Columns of the axle's metrics in ``frame`` from its wheels' ``(values, wheel)`` of
    :func:`corner_metrics` (side -> pair); Ackermann with ``steered``."""
    patches = {side: wheels[side][1]["patch"] for side in SIDES}
    velocities = {side: wheels[side][1]["patch_velocity"] for side in SIDES}
    steer = {side: wheels[side][0]["steer_angle"] for side in SIDES}
    steer_rates = ({side: wheels[side][0]["steer_rate"] for side in SIDES}
                   if all("steer_rate" in wheels[side][0] for side in SIDES) else None)
    design_steer = {side: susp.design[side].steer_angle for side in SIDES}
    out = axle_metrics(patches, velocities, frame, steer=steer if steered else None, steer_rates=steer_rates,
                       vehicle=susp.vehicle, design_track=susp.design_track(), design_steer=design_steer)
    return [Column(name, value, AXLE_METRICS[name], 0) for name, value in out.items()]


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
    design = DesignValues(resolved, corner, reference_poses(result))
    record = _travel_motion(result, resolved)
    if record is result and len(result) and not np.any(result.link_velocity(corner.upright)):
        _warn_without_rates(record, len(result))
    motion = Motion.of(record)
    out, _, _ = corner_metrics(resolved, corner, design, motion, Frame.body(corner), travel_at=travel_at,
                               vehicle=vehicle, steer_motion=_steer_motion(result, corner))
    return out


def rates(result, corner, driver, *, travel_at="wheel-centre", vehicle=None) -> dict:
    """Rates of the position metrics with respect to any driver of ``result``, at fixed other
    drivers (for example d toe / d rack): ``{name: d metric / d driver}`` (N,) each, for the
    angles and lengths of :data:`METRICS` (rad or m per unit of the driver), from the
    velocity solution (:meth:`~loops.results.Trajectory.along`, which names a driver the
    sweep does not have).

    ``corner`` is a :class:`~loops.suspension.corner.Corner` of ``result``'s model, or the
    :class:`~loops.suspension.model.Suspension` analysed (a corner or an axle: every wheel's
    rates, an axle's named ``toe_left``, ``toe_right``, ...; its vehicle unless ``vehicle``
    is given). Example: ``rates(steering(front, rack), front, "rack_travel")["toe_left"]``,
    d toe / d rack of the left wheel, rad/m.
    """
    if hasattr(corner, "corners"):  # a Suspension: each wheel, an axle's with its side
        vehicle = corner.vehicle if vehicle is None else vehicle
        out = {}
        for side, one in corner.corners.items():
            suffix = f"_{side}" if len(corner.corners) == 2 else ""
            for name, value in rates(result, one, driver, travel_at=travel_at, vehicle=vehicle).items():
                out[name + suffix] = value
        return out
    resolved = resolve(result.model, corner)
    design = DesignValues(resolved, corner, reference_poses(result))
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
    _, P = spin_axis_and_patch(motion.point(resolved.wheel_centre), motion.point(resolved.spin_axis_point),
                               corner.wheel_radius, UP)
    return P.value


