"""Load cases of a wheel corner: a force and a moment at the contact patch or the wheel centre.

A :class:`LoadCase` gives its force in the corner's axes: ``longitudinal`` (+ forward),
``lateral`` (+ outboard, away from the vehicle's centre plane) and ``vertical`` (+ up), what
the road (or the obstacle) applies to the tyre; in g of the corner's static load
(``unit="g"``, :meth:`loops.suspension.Vehicle.corner_load`: ``[vehicle]`` mass and
front_weight) or in N (``unit="N"``). Its moment (N m, about the forward, outboard and up
axes) acts with the force at ``at``: ``"contact-patch"`` (the patch centre of every position)
or ``"wheel-centre"``. On an axle the case is written in the left wheel's axes and both wheels
take the same force and moment in vehicle axes, as the tyres of a car in a steady manoeuvre do:
both pushed rearward in braking, up in a bump, and towards the centre of a turn in cornering
(its lateral -1 g is inboard on the left wheel, the outer one of a right-hand turn, and
outboard on the right wheel, the inner one).

The standard cases (:data:`STANDARD_CASES`), the usual design-load envelope of a passenger car
corner (each with the static 1 g vertical unless said):

============  ===========================================================  ===============
name          force (g of the corner's static load)                          at
============  ===========================================================  ===============
static        vertical 1                                                     contact patch
braking       longitudinal -1 (rearward), vertical 1                         contact patch
acceleration  longitudinal +0.5 (forward, traction-limited), vertical 1      wheel centre
cornering     lateral -1 (inboard: the outer wheel), vertical 1              contact patch
bump          vertical 3                                                     contact patch
pothole       vertical 4, longitudinal -2 (the impact, rearward)             wheel centre
combined      longitudinal -0.75, lateral -0.75, vertical 1 (braking in a    contact patch
              turn, the outer wheel)
============  ===========================================================  ===============

Braking acts at the patch with outboard brakes (the brake torque reacted by the upright) and
at the wheel centre with ``[vehicle] brakes = "inboard"`` (reacted by the body, as the drive
torque of acceleration): :func:`case_for` places it.

An own case is a :class:`LoadCase`, a dict of its fields, or on the command line a text
``"longitudinal=-0.8, vertical=1.2, at=wheel-centre, unit=g"`` (keys the fields' names,
``x, y, z`` for the force components, ``mx, my, mz`` for the moment in the file's torque unit).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields

import numpy as np

from mechanism.errors import ModelError

__all__ = ["LoadCase", "STANDARD_CASES", "case_for", "parse_case"]

PLACES = ("contact-patch", "wheel-centre")
UNITS = ("g", "N")


@dataclass(frozen=True)
class LoadCase:
    """A load at a wheel (see the module docstring).

    Parameters
    ----------
    name : str
    longitudinal, lateral, vertical : float, the force in the corner's axes (+ forward,
        + outboard, + up), in ``unit``
    moment : (3,) N m about the forward, outboard and up axes (default none)
    at : {"contact-patch", "wheel-centre"}
    unit : {"g", "N"}: g of the corner's static load, or newtons
    """

    name: str = "own"
    longitudinal: float = 0.0
    lateral: float = 0.0
    vertical: float = 0.0
    moment: tuple = (0.0, 0.0, 0.0)
    at: str = "contact-patch"
    unit: str = "g"

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ModelError("case.name", f"expected a name, got {self.name!r}")
        for key in ("longitudinal", "lateral", "vertical"):
            object.__setattr__(self, key, _number(getattr(self, key), f"case {self.name!r}: {key}"))
        moment = np.asarray(self.moment, dtype=object).ravel()
        if moment.shape != (3,):
            raise ModelError(f"case {self.name!r}: moment", f"expected 3 numbers (N m), got {self.moment!r}")
        object.__setattr__(self, "moment", tuple(_number(v, f"case {self.name!r}: moment") for v in moment))
        if self.at not in PLACES:
            raise ModelError(f"case {self.name!r}: at", f"expected one of {', '.join(PLACES)}, got {self.at!r}")
        if self.unit not in UNITS:
            raise ModelError(f"case {self.name!r}: unit", f"expected 'g' or 'N', got {self.unit!r}")

    def force_newtons(self, corner_load):
        """(longitudinal, lateral, vertical) in N; ``corner_load`` N (None: ModelError for a
        case in g, which needs the vehicle's mass)."""
        force = np.array([self.longitudinal, self.lateral, self.vertical])
        if self.unit == "N":
            return force
        if corner_load is None:
            raise ModelError("vehicle.mass", f"load case {self.name!r} is in g of the corner's static load: give "
                             "[vehicle] mass (kg) and front_weight (the front axle's share)")
        return force * corner_load


def _number(value, where):
    if isinstance(value, bool):
        raise ModelError(where, f"expected a number, got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ModelError(where, f"expected a number, got {str(value)[:40]!r}") from None
    if not math.isfinite(x):
        raise ModelError(where, f"non-finite value {value!r}")
    return x


#: The standard cases by name (the module docstring's table).
STANDARD_CASES = {c.name: c for c in (
    LoadCase("static", vertical=1.0),
    LoadCase("braking", longitudinal=-1.0, vertical=1.0),
    LoadCase("acceleration", longitudinal=0.5, vertical=1.0, at="wheel-centre"),
    LoadCase("cornering", lateral=-1.0, vertical=1.0),
    LoadCase("bump", vertical=3.0),
    LoadCase("pothole", longitudinal=-2.0, vertical=4.0, at="wheel-centre"),
    LoadCase("combined", longitudinal=-0.75, lateral=-0.75, vertical=1.0),
)}

_ALIASES = {"x": "longitudinal", "y": "lateral", "z": "vertical"}
_KEYS = tuple(f.name for f in fields(LoadCase) if f.name != "moment") + ("mx", "my", "mz") + tuple(_ALIASES)


def parse_case(text, torque_factor=1.0):
    """A :class:`LoadCase` from a standard case's name or a text ``"key=value, ..."`` (the
    module docstring); ``torque_factor`` turns the text's moments into N m (the file's torque
    unit). ModelError at ``case`` for an unknown name or a malformed text."""
    text = str(text).strip()
    if "=" not in text:
        if text not in STANDARD_CASES:
            raise ModelError("case", f"expected one of {', '.join(STANDARD_CASES)} or an own case "
                             f"'vertical=1, lateral=-0.5, at=contact-patch, unit=g', got {text!r}")
        return STANDARD_CASES[text]
    values, moment = {"name": "own"}, [0.0, 0.0, 0.0]
    for item in filter(None, (part.strip() for part in text.split(","))):
        key, sep, value = (s.strip() for s in item.partition("="))
        key = _ALIASES.get(key, key)
        if not sep or key not in _KEYS or key in values and key != "name":
            raise ModelError("case", f"{item!r}: expected key=value once each, keys {', '.join(_KEYS)}")
        if key in ("mx", "my", "mz"):
            moment["xyz".index(key[1])] = _number(value, f"case: {key}") * torque_factor
        else:
            values[key] = value
    return LoadCase(moment=tuple(moment), **values)


def case_for(case, vehicle=None) -> LoadCase:
    """The :class:`LoadCase` ``case`` names (a standard name, an own case's text, a dict of its
    fields, or a LoadCase), braking moved to the wheel centre for inboard brakes."""
    if isinstance(case, LoadCase):
        out = case
    elif isinstance(case, dict):
        try:
            out = LoadCase(**case)
        except TypeError as exc:
            raise ModelError("case", f"expected the fields of LoadCase ({str(exc)[:60]})") from None
    elif isinstance(case, str):
        out = parse_case(case)
    else:
        raise ModelError("case", f"expected a case name, a LoadCase or a dict, got {type(case).__name__}")
    if out is STANDARD_CASES["braking"] and vehicle is not None and vehicle.brakes == "inboard":
        out = LoadCase("braking", longitudinal=-1.0, vertical=1.0, at="wheel-centre")
    return out
