"""Vehicle parameters an axle's metrics need: wheelbase, centre-of-mass height, brake and drive
layout (anti-dive, anti-lift, anti-squat), track (checked against the geometry), the
steering's rack travel per steering-wheel turn (steering ratio, steering-wheel input), the
mass and its share on the front axle (the corner's static load of load cases in g).

A model file carries them as its ``[vehicle]`` table (:func:`vehicle_from_table`), lengths in
the file's units.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

from mechanism.errors import ModelError

from .corner import check_scale

__all__ = ["Vehicle", "vehicle_from_table", "STANDARD_GRAVITY"]

#: Standard gravity, m/s^2: the "g" of load cases (ISO 80000-3).
STANDARD_GRAVITY = 9.80665


@dataclass(frozen=True)
class Vehicle:
    """Vehicle parameters of one axle's analyses.

    Parameters
    ----------
    axle : {"front", "rear"}
        Which axle the corner or axle is: the anti-geometry's names and signs depend on it.
    wheelbase, cg_height : float or None
        Wheelbase and height of the centre of mass above the ground, m (anti-geometry,
        Ackermann).
    track : float or None
        Track (lateral distance between the contact patches at the design pose), m. The
        geometry fixes the track; a given one is checked against it.
    brake_front : float or None
        Share of the braking force on the front axle, 0 to 1 (anti-dive, anti-lift).
    drive_front : float or None
        Share of the driving force on the front axle, 0 to 1 (0: rear drive).
    brakes : {"outboard", "inboard"}
        This axle's brakes: outboard (in the wheel; the brake torque is reacted by the
        upright, the braking force acts at the contact patch) or inboard (reacted by the body,
        as the driving force: at the wheel centre).
    rack_travel_per_turn : float or None
        Rack travel per turn of the steering wheel, m per revolution (the "c-factor"); its
        sign is that of the rack's variable when the steering wheel turns left
        (counter-clockwise, ISO 8855's positive steering-wheel angle).
    mass : float or None
        The vehicle's mass, kg (load cases in g: :meth:`corner_load`).
    front_weight : float or None
        Share of the vehicle's weight on the front axle at rest, 0 to 1 (default 0.5).
    """

    axle: str = "front"
    wheelbase: float | None = None
    cg_height: float | None = None
    track: float | None = None
    brake_front: float | None = None
    drive_front: float | None = None
    brakes: str = "outboard"
    rack_travel_per_turn: float | None = None
    mass: float | None = None
    front_weight: float | None = None

    def __post_init__(self):
        if self.axle not in ("front", "rear"):
            raise ModelError("vehicle.axle", f"expected 'front' or 'rear', got {self.axle!r}")
        if self.brakes not in ("outboard", "inboard"):
            raise ModelError("vehicle.brakes", f"expected 'outboard' or 'inboard', got {self.brakes!r}")
        for key in _POSITIVE:
            value = getattr(self, key)
            if value is not None:
                object.__setattr__(self, key, _number(value, f"vehicle.{key}", positive=True))
        if self.mass is not None:
            object.__setattr__(self, "mass", _number(self.mass, "vehicle.mass", positive=True))
        for key in ("brake_front", "drive_front", "front_weight"):
            value = getattr(self, key)
            if value is not None:
                value = _number(value, f"vehicle.{key}")
                if not 0.0 <= value <= 1.0:
                    raise ModelError(f"vehicle.{key}", f"expected a share between 0 and 1, got {value!r}")
                object.__setattr__(self, key, value)
        if self.rack_travel_per_turn is not None:
            value = _number(self.rack_travel_per_turn, "vehicle.rack_travel_per_turn")
            if value == 0.0:
                raise ModelError("vehicle.rack_travel_per_turn", "must not be zero")
            object.__setattr__(self, "rack_travel_per_turn", value)

    @property
    def front(self) -> bool:
        return self.axle == "front"

    def brake_share(self):
        """Share of the braking force on this axle (None when ``brake_front`` is not given)."""
        if self.brake_front is None:
            return None
        return self.brake_front if self.front else 1.0 - self.brake_front

    def drive_share(self):
        """Share of the driving force on this axle (None when ``drive_front`` is not given)."""
        if self.drive_front is None:
            return None
        return self.drive_front if self.front else 1.0 - self.drive_front

    def corner_load(self, gravity=STANDARD_GRAVITY):
        """The static load on one wheel of this axle, N: ``mass * gravity * share / 2``, the share
        ``front_weight`` (default 0.5) for the front axle, its complement for the rear; None
        without ``mass``. ``gravity`` m/s^2 (default standard gravity, 9.80665)."""
        if self.mass is None:
            return None
        share = 0.5 if self.front_weight is None else self.front_weight
        return self.mass * gravity * (share if self.front else 1.0 - share) / 2.0

    def check_against(self, size):
        """Located ModelError when a length is more than 30 times off the model's ``size`` (m)."""
        for key in ("wheelbase", "cg_height", "track"):
            value = getattr(self, key)
            if value is not None:
                check_scale(value, size, f"vehicle.{key}", key)


def _number(value, where, positive=False):
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ModelError(where, f"expected a number, got {value!r}")
    x = float(value)
    if not math.isfinite(x):
        raise ModelError(where, f"non-finite value {value!r}")
    if positive and x <= 0:
        raise ModelError(where, f"must be positive, got {value!r}")
    return x


_KEYS = tuple(f.name for f in fields(Vehicle))
_LENGTHS = ("wheelbase", "cg_height", "track", "rack_travel_per_turn")
_POSITIVE = ("wheelbase", "cg_height", "track")


def vehicle_from_table(table, units, where="vehicle") -> Vehicle:
    """A :class:`Vehicle` from a model file's ``[vehicle]`` table (lengths in the file's
    length unit, ``rack_travel_per_turn`` in that unit per revolution).

    Raises
    ------
    ModelError
        Located ``<where>.<key>``.
    """
    if not isinstance(table, dict):
        raise ModelError(where, "expected a table [vehicle] of axle, wheelbase, cg_height, ...")
    values = {}
    for key, raw in table.items():
        if key not in _KEYS:
            raise ModelError(f"{where}.{key}", f"unknown key (expected {', '.join(_KEYS)})")
        if key in _LENGTHS:
            value = _number(raw, f"{where}.{key}")
            if key in _POSITIVE and value <= 0:  # said here, in the file's unit, not after conversion
                raise ModelError(f"{where}.{key}", f"must be positive, got {raw!r} {units.length}")
            values[key] = units.to_si(value, "length")
        else:
            values[key] = raw
    try:
        return Vehicle(**values)
    except ModelError as exc:
        key = exc.where.partition(".")[2]
        raise ModelError(f"{where}.{key}", exc.problem) from None
