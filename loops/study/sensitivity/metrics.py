"""The chain rules per kind of metric (the catalogue's kinds, :mod:`loops.suspension.metrics`):
how each metric's derivative along the hardpoint coordinates follows from the motion along
them, METHOD.md "Design sensitivities".

Position metrics: the catalogue's functions fed with the motion along every coordinate
(H1), (H2): their jets' first rates. Rate metrics (kind RATE): the quotient rule on the mixed
second rates by polarisation (H3). Velocity-field metrics (kind FIELD) and the axle's (kind
AXLE): their functions fed with the twists' velocity rates (H4) and the points' rates. The
wheel rate: third rates (:mod:`.wheel_rate`). A virtual steering axis moves with its twist's
rate (V1).
"""

from __future__ import annotations

import numpy as np

from ...suspension import jets
from ...suspension.axle import SIDES
from ...suspension.measure import axle_metrics, corner_metrics, velocity_field_metrics
from ...suspension.metrics import CATALOGUE, FIELD, METRICS, RATE
from ...suspension.motion import Frame, Motion
from ...suspension.velocity_field import has_anti_geometry
from .motion import (DesignJets, HardpointMotion, flat_rows, motion_along_coordinates, motion_along_driver,
                     moved_points, repeated_rows)
from .wheel_rate import has_wheel_rate, wheel_rate_sensitivity

__all__ = ["RATE_METRICS", "FIELD_METRICS", "corner_sensitivities", "field_sensitivities", "design_patch_point",
           "rate_derivative", "axle_sensitivities"]

#: Rate metrics with exact sensitivities (kind RATE of the catalogue): metric -> (driver
#: role, the position metric whose rate it is, sign). ``camber_gain = camber_a / w_a`` along
#: the travel driver; ``steer_rate = steer_angle_s`` along the steering variable (not divided).
RATE_METRICS = {m.name: (m.along, m.rate_of, m.sign) for m in CATALOGUE if m.kind == RATE and m.sensitivities}

#: The per-wheel metrics of the upright's velocity field (kind FIELD of the catalogue,
#: :func:`~loops.suspension.measure.velocity_field_metrics`).
FIELD_METRICS = tuple(m.name for m in CATALOGUE if m.kind == FIELD and m.sensitivities)


def corner_sensitivities(susp, side, corner, closure, directions, driver_names, rates, accelerations=None):
    """``{metric: (N, k)}`` of one wheel, and the jets along every coordinate (N K rows) that
    the axle's metrics take: ``"patch"``, ``"patch_velocity"`` (None without ``rates``),
    ``"steer_angle"``, ``"steer_rate"`` (None without a steering driver), ``"design"``."""
    resolved, design = susp.resolved[side], susp.design[side]
    N, K = closure.xi.shape[0], len(directions.moves)
    rows = N * K
    moved = moved_points(directions.moves, N)
    design_jets = DesignJets(design, resolved, corner, moved, rows)
    frame = Frame.body(corner)
    pose_rows = repeated_rows(closure, closure.poses, K)
    d_index = {name: i for i, name in enumerate(driver_names)}
    steer_index = d_index.get(corner.steering) if corner.steering is not None else None

    def steer_motion(expand, axis_rates=False):
        if steer_index is None:
            return None
        motion = motion_along_driver(closure, directions, steer_index, K if expand else None)
        if axis_rates:  # the twists' rates along p (H4): a virtual steering axis moves with p (V1)
            motion = Motion(motion.pose, motion.twist, None, flat_rows(closure, directions.velocity_rate(steer_index)))
        return motion

    def run(motion, design_values, expand, wheel=None, axis_rates=False):
        _, named, points = corner_metrics(resolved, corner, design_values, motion, frame, vehicle=susp.vehicle,
                                          steer_motion=steer_motion(expand, axis_rates))
        if wheel is not None:
            wheel.update(points)
        return named

    wheel = {}
    along_p = run(motion_along_coordinates(closure, directions, moved), design_jets, True, wheel, axis_rates=True)
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
        field, jets_out["patch_velocity"] = field_sensitivities(susp, corner, resolved, closure, directions,
                                                                 roles["travel"], wheel, design_jets, frame)
        out.update({name: jet.d.reshape(N, K) for name, jet in field.items()})
    mixed = {}
    for role, d in roles.items():
        if d is None:
            continue
        V_a = directions.V_a[:, d]
        along_a = run(motion_along_driver(closure, directions, d), design, False)
        S = directions.mixed(d)
        V_ap = V_a[:, None] + directions.V_p
        both = run(HardpointMotion(pose_rows, flat_rows(closure, V_ap), flat_rows(closure, S), moved), design_jets,
                   True)
        mixed[role] = (along_a, both)
    for name, (role, numerator, sign) in RATE_METRICS.items():
        if role not in mixed or numerator not in along_p:
            continue
        along_a, both = mixed[role]

        def cross_term(key):
            return (both[key].dd.reshape(N, K) - along_p[key].dd.reshape(N, K) - along_a[key].dd[:, None]) / 2.0

        f_a, f_ap = along_a[numerator].d[:, None], cross_term(numerator)
        if role == "steering":
            out[name] = rate_derivative(role, sign, f_a, f_ap, None, None)
            rate = np.repeat(sign * f_a, K, axis=1).reshape(-1)
            jets_out[name] = jets.Jet(rate, out[name].reshape(-1), np.full_like(rate, np.nan))
            continue
        out[name] = rate_derivative(role, sign, f_a, f_ap, along_a["wheel_travel"].d[:, None],
                                     cross_term("wheel_travel"))
    if roles["travel"] is not None and accelerations is not None and has_wheel_rate(closure.system, resolved):
        out["wheel_rate"] = wheel_rate_sensitivity(closure, directions, roles["travel"], accelerations,
                                                    resolved, frame.up, moved)
    return {name: out[name] for name in METRICS if name in out}, jets_out


def field_sensitivities(susp, corner, resolved, closure, directions, d, wheel, design_jets, frame):
    """The velocity-field metrics (instant centres, roll centre, anti-geometry) as jets along
    every coordinate (N K rows): :func:`~loops.suspension.measure.velocity_field_metrics` fed
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
    if has_anti_geometry(susp.vehicle):
        pose = np.repeat(closure.poses[:, index[corner.upright]], K, axis=0)
        static = design_patch_point(pose, directions.V_p[:, :, index[corner.upright]].reshape(N * K, 6),
                                     design_jets)
    _, outboard, _ = corner.axes
    return velocity_field_metrics(upright, wheel["patch_jet"], centre, static, frame, outboard, susp.vehicle)


def design_patch_point(pose, twist, design):
    """Jet along p (R rows) of the upright's point at the design contact patch (the outboard
    brakes' reaction point), from the upright's pose (R, 4, 4) and twist along p (R, 6): it
    moves with the upright and, in it, with the design patch (``design``: :class:`DesignJets`,
    R rows), which the wheel-centre and spin-axis points move."""
    point = jets.point_jet(pose, twist, None, design.patch.value)
    shift = np.einsum("nij,nj->ni", pose[:, :3, :3], design.patch.d)
    return jets.Jet(point.value, point.d + shift, point.dd)


def rate_derivative(role, sign, f_a, f_p, w_a, w_p):
    """``d/dp`` of a rate metric of :data:`RATE_METRICS` from its numerator's rate ``f_a``
    along the driver and the derivative ``f_p`` of that rate along p (and the wheel travel's,
    ``w_a`` and ``w_p``): ``sign f_p`` along the steering variable, else the quotient rule
    ``sign (f_p w_a - f_a w_p) / w_a^2``."""
    if role == "steering":
        return sign * f_p
    with np.errstate(divide="ignore", invalid="ignore"):
        return sign * (f_p * w_a - f_a * w_p) / w_a ** 2


def axle_sensitivities(susp, wheels, steered, count):
    """``{axle metric: (N, k)}``: :func:`~loops.suspension.measure.axle_metrics` fed with the
    two wheels' jets along every coordinate (the patches, their velocities in wheel travel
    with their rates (H4), the steer angles and their rates, and the design track and steer
    angles, which the wheel-centre and spin-axis points move). As the analyses take them:
    Ackermann where the analysis has it (``steered``: it steers), the roll centre with
    ``rates``."""
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
