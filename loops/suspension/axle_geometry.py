"""An axle's two wheels together, and the axle metrics written on them: the roll centre, the
track, Ackermann and the steering ratio (definitions and signs in
:mod:`loops.suspension.metrics`).

Everything here works on jets: with constant jets of arrays for the metrics at each position,
with jets along another motion (a hardpoint coordinate, METHOD.md (H4), (R7)) for their
first rates along it.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

from . import jets

__all__ = ["AxleGeometry", "roll_centre_point", "STRAIGHT_AHEAD"]

#: Mean steer angle (rad) below which a position counts as straight ahead: no inner or outer
#: wheel, Ackermann NaN.
STRAIGHT_AHEAD = 1e-9


def roll_centre_point(patches, velocities, frame):
    """The axle's kinematic roll centre (N, 3), m, in ``frame``: where the two lines through the
    contact patches ``P``, each normal in the front view to its patch's velocity ``v`` in wheel
    travel (the velocity of the upright's point at the patch), meet:

        P_L + alpha w_L = P_R + beta w_R   (lateral and up components),   w = f x v

    ``patches`` and ``velocities``: dict side -> jet (N, 3) (their rates along some motion:
    the design's hardpoint coordinates, METHOD.md (R1)); returns a jet."""
    f, u = frame.forward, frame.up
    lateral = np.cross(u, f)
    P_L, P_R = patches["left"], patches["right"]
    w_L, w_R = jets.cross(f, velocities["left"]), jets.cross(f, velocities["right"])
    gap = P_R - P_L
    a11, a12 = jets.dot(w_L, lateral), -jets.dot(w_R, lateral)
    a21, a22 = jets.dot(w_L, u), -jets.dot(w_R, u)
    alpha = jets.divide(jets.dot(gap, lateral) * a22 - a12 * jets.dot(gap, u), a11 * a22 - a12 * a21)
    return P_L + w_L * alpha.expand()


def _select(mask, a, b):
    """Row-wise ``a`` where ``mask``, else ``b`` (jets or numbers)."""
    a, b = (x if isinstance(x, jets.Jet) else jets.constant(x) for x in (a, b))
    return jets.Jet(*(np.where(mask, x, y) for x, y in ((a.value, b.value), (a.d, b.d), (a.dd, b.dd))))


def _magnitude(x):
    """``|x|`` of a scalar jet (its rates take the sign of its value)."""
    return x * np.where(x.value < 0, -1.0, 1.0)


class AxleGeometry:
    """The two wheels of an axle at every position, as jets (N rows).

    Parameters
    ----------
    patches : dict side -> Jet (N, 3), the contact patches in the frame
    velocities : dict side -> Jet (N, 3), velocity in wheel travel of each upright's point at
        its contact patch, or None (no roll centre)
    frame : loops.suspension.motion.Frame (its ``left`` is the body's)
    steer : dict side -> Jet (N,), steer angles (or None: not a steering analysis)
    steer_rates : dict side -> Jet (N,), their rates per unit of the steering variable, or None
    vehicle : Vehicle or None; design_track : float or Jet, m; design_steer : dict side -> Jet
    """

    def __init__(self, patches, velocities, frame, steer, steer_rates, vehicle, design_track, design_steer):
        self.patches, self.velocities, self.frame = patches, velocities, frame
        self.steer, self.steer_rates, self.vehicle = steer, steer_rates, vehicle
        self.design_track, self.design_steer = design_track, design_steer
        self.lateral = jets.cross_product(frame.up, frame.forward)  # horizontal left in the frame

    @cached_property
    def roll_centre(self):
        return roll_centre_point(self.patches, self.velocities, self.frame)

    @cached_property
    def ackermann(self):
        """``(inner, outer, ideal)`` steer angles from the design (jets), the ideal outer one by
        ``cot a_o* = cot a_i + t / L``, NaN straight ahead; None without what it needs."""
        vehicle = self.vehicle
        if self.steer is None or vehicle is None or vehicle.wheelbase is None or self.design_track is None:
            return None
        left = self.steer["left"] - self.design_steer["left"]
        right = self.steer["right"] - self.design_steer["right"]
        mean = ((left + right) * 0.5).value
        turn = np.where(np.abs(mean) > STRAIGHT_AHEAD, np.sign(mean), 0.0)
        inner = _magnitude(_select(turn > 0, left, right))
        outer = _magnitude(_select(turn > 0, right, left))
        tan_inner = jets.sin(inner) / jets.cos(inner)
        ideal = jets.arctan2(tan_inner * vehicle.wheelbase, vehicle.wheelbase + self.design_track * tan_inner)
        ideal = _select(turn == 0, jets.Jet(np.nan, np.nan, np.nan), ideal)  # undefined, with its rates
        return inner, outer, ideal


# ------------------------------------------------------------------ the metrics
# Each takes an AxleGeometry and returns a jet, or None where the analysis or the vehicle
# does not have it; definitions and signs in loops.suspension.metrics.
def roll_centre_height(axle):
    if axle.velocities is None:
        return None
    u, lateral = axle.frame.up, axle.lateral
    P_L = axle.patches["left"]
    gap = axle.patches["right"] - P_L
    # Height above the road line through the two patches, measured normal to it (upward).
    along, rise = jets.dot(gap, lateral), jets.dot(gap, u)
    length = jets.sqrt(along * along + rise * rise)
    up_normal = np.where(along.value < 0, -1.0, 1.0)  # the normal (-rise, along) / length, turned upward
    offset = axle.roll_centre - P_L
    return (jets.dot(offset, u) * along - jets.dot(offset, lateral) * rise) * up_normal / length


def roll_centre_lateral(axle):
    if axle.velocities is None:
        return None
    return jets.dot(axle.roll_centre - axle.frame.centre, axle.frame.left)


def track(axle):
    return jets.dot(axle.patches["left"] - axle.patches["right"], axle.lateral)


def ackermann_error(axle):
    if axle.ackermann is None:
        return None
    _, outer, ideal = axle.ackermann
    return outer - ideal


def ackermann_percent(axle):
    if axle.ackermann is None:
        return None
    inner, outer, ideal = axle.ackermann
    return jets.divide(inner - outer, inner - ideal) * 100.0


def steering_ratio(axle):
    vehicle = axle.vehicle
    if axle.steer_rates is None or vehicle is None or vehicle.rack_travel_per_turn is None:
        return None
    mean_rate = (axle.steer_rates["left"] + axle.steer_rates["right"]) * 0.5
    return jets.divide(2.0 * np.pi / vehicle.rack_travel_per_turn, mean_rate)
