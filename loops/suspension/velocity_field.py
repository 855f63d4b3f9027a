"""The upright's velocity field in wheel travel, and the per-wheel metrics written on it: the
front- and side-view instant centres and swing arms, the corner's roll centre, the
anti-geometry (definitions and signs in :mod:`loops.suspension.metrics`).

Each metric is a ratio of velocities per unit wheel travel, homogeneous of degree zero in the
twist: it does not depend on what the travel is measured by. Every function below is written
once for two uses: with arrays, the metric at each position; with jets along another motion
(a hardpoint coordinate, METHOD.md (H4)), the same metric with its first rate along it.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from . import jets

__all__ = ["VelocityField", "has_anti_geometry"]


def has_anti_geometry(vehicle):
    """Whether ``vehicle`` (a :class:`~loops.suspension.vehicle.Vehicle` or None) has what the
    anti-geometry needs: a wheelbase and a centre-of-mass height."""
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


class VelocityField:
    """The upright's velocity field in wheel travel at every position (arrays, or jets along
    another motion).

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
    frame : loops.suspension.motion.Frame; outboard : (3,), the corner's horizontal outboard
    vehicle : loops.suspension.vehicle.Vehicle or None

    ``v_patch`` is the velocity of the upright's point at ``P``.
    """

    def __init__(self, twist, patch, centre_velocity, static_patch, frame, outboard, vehicle=None):
        self.twist, self.patch, self.centre_velocity, self.static_patch = twist, patch, centre_velocity, static_patch
        self.frame, self.outboard, self.vehicle = frame, outboard, vehicle
        self.forward, self.up = frame.forward, frame.up
        self.omega = twist[..., :3]
        self.v_patch = jets.material_velocity(twist, patch)

    def instant_centre(self, axis, measure):
        """``-(v_patch . measure) / ((omega x axis) . measure)``, NaN at infinity: in the view along
        ``measure x axis``, the distance from ``P`` along ``measure`` of the instant centre
        (``axis`` up: its height's counterpart, the lateral or longitudinal offset; ``axis``
        the view's horizontal: its height over ``P`` along ``measure`` = up)."""
        return jets.divide(-_along(self.v_patch, measure), _along(_across(self.omega, axis), measure))

    @cached_property
    def roll_centre_height(self):
        line = _across(self.forward, self.v_patch)  # in the front view, normal to v_patch
        reach = jets.divide(-_along(self.patch - self.frame.centre, self.frame.left), _along(line, self.frame.left))
        return reach * _along(line, self.up)

    def anti(self, braking):
        """The anti-geometry in braking (``braking``) or driving, percent: the side-view path
        slope ``dx/dz`` of the reaction point (braking: the upright's point at the design
        patch for outboard brakes, the wheel centre for inboard ones; driving: the wheel
        centre) times ``wheelbase / cg_height`` times the axle's share, times 100 (the rear
        axle takes ``-dx/dz``); None without the vehicle data or the share."""
        vehicle = self.vehicle
        if not has_anti_geometry(vehicle):
            return None
        share = vehicle.brake_share() if braking else vehicle.drive_share()
        if share is None:
            return None
        leverage = vehicle.wheelbase / vehicle.cg_height * 100.0 * (1.0 if vehicle.front else -1.0)
        if braking and vehicle.brakes == "outboard":
            reaction = jets.material_velocity(self.twist, self.static_patch)
        else:
            reaction = self.centre_velocity
        return share * leverage * jets.divide(_along(reaction, self.forward), _along(reaction, self.up))


# ------------------------------------------------------------------ the metrics
# Each takes a VelocityField and returns the metric (arrays or a jet), or None where the
# vehicle does not have it; definitions and signs in loops.suspension.metrics.
def fvic_height(field):
    return field.instant_centre(field.up, field.outboard)


def fvsa_length(field):
    return -field.instant_centre(field.outboard, field.up)


def svic_height(field):
    return field.instant_centre(field.up, field.forward)


def svsa_length(field):
    return field.instant_centre(field.forward, field.up)


def roll_centre_height(field):
    return field.roll_centre_height


def roll_centre_z(field):
    return _along(field.patch, field.up) + field.roll_centre_height


def anti_dive(field):
    return field.anti(braking=True) if field.vehicle is not None and field.vehicle.front else None


def anti_lift(field):
    if field.vehicle is None:
        return None
    return field.anti(braking=not field.vehicle.front)


def anti_squat(field):
    return field.anti(braking=False) if field.vehicle is not None and not field.vehicle.front else None
