"""The parameters a design study varies: one component of one hardpoint, or one bushing rate.

``"lower_ball.z"`` is the z coordinate of the pair ``lower_ball``'s centre; ``"lower_ball"``
alone stands for its three coordinates; ``"upper_inner.axis.x"`` is a component of a screw
pair's axis; ``"lower_front.z"`` the height of bushing ``lower_front``'s centre (hardpoint
names: :mod:`mechanism.hardpoints`). Offsets are added to the nominal values: metres for
locations, and for an axis the change of its unit direction (the varied axis is normalised
again).

``"lower_front.kz"`` is a bushing rate (:class:`BushingRate`): the diagonal entry of bushing
``lower_front``'s stiffness along (``.kx``, ``.ky``, ``.kz``, N/m) or about (``.krx``, ``.kry``,
``.krz``, N m/rad) its axes; its offsets are N/m or N m/rad (a model file's N/mm, N mm/deg in
a vary file). The suffix is never a coordinate's ``x``, ``y``, ``z``, so the two kinds of name
cannot clash (:func:`is_bushing_rate`); :func:`parameters` reads both.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mechanism.bushings import RATE_NAMES
from mechanism.errors import ModelError
from mechanism.hardpoints import hardpoints_of

from ..suspension.model import Suspension
from ..variants import moved_hardpoints  # the engine's (batched variants of any mechanism)

__all__ = ["Coordinate", "coordinates", "moved_hardpoints", "AXES", "BushingRate", "bushing_rates", "is_bushing_rate",
           "parameters", "moved_suspension", "RATE_SUFFIXES"]

AXES = "xyz"
#: The suffixes of a bushing's six rates, in its stiffness matrix's order.
RATE_SUFFIXES = tuple(f"k{name}" for name in RATE_NAMES)


@dataclass(frozen=True)
class Coordinate:
    """Component ``component`` (0, 1, 2) of the hardpoint ``hardpoint``
    (:class:`mechanism.hardpoints.Hardpoint`); ``name`` is ``"HARDPOINT.x"``."""

    name: str
    hardpoint: object
    component: int

    @property
    def nominal(self) -> float:
        return float(self.hardpoint.value[self.component])

    @property
    def dimension(self) -> str:
        """``"length"`` for a location, ``"direction"`` for an axis component (dimensionless)."""
        return "direction" if self.hardpoint.is_direction else "length"


def coordinates(model, names, where="vary") -> list[Coordinate]:
    """The coordinates ``names`` (see the module docstring) of a model snapshot, in order.

    Raises a ModelError at ``"<where> 'NAME'"`` for a name that is not a hardpoint or a
    coordinate of one, or a coordinate named twice.
    """
    known = hardpoints_of(model)
    out, seen = [], set()
    if isinstance(names, str) or not hasattr(names, "__iter__"):
        raise ModelError(where, f"expected a list of hardpoint coordinates, got {str(names)[:60]!r}")
    for name in names:
        if not isinstance(name, str):
            raise ModelError(where, f"a coordinate name must be a string, got {name!r}")
        base, _, last = name.rpartition(".")
        if name in known:
            parts = [(known[name], i) for i in range(3)]
        elif base in known and last in AXES and len(last) == 1:
            parts = [(known[base], AXES.index(last))]
        else:
            hint = ", ".join(list(known)[:12]) + (", ..." if len(known) > 12 else "")
            raise ModelError(f"{where} {name!r}", f"not a hardpoint of {model.name!r} or one of its coordinates "
                             f"(HARDPOINT.x, .y, .z; hardpoints: {hint})")
        for hardpoint, component in parts:
            label = f"{hardpoint.name}.{AXES[component]}"
            if label in seen:
                raise ModelError(f"{where} {name!r}", f"coordinate {label!r} named twice")
            seen.add(label)
            out.append(Coordinate(label, hardpoint, component))
    if not out:
        raise ModelError(where, "no coordinates to vary")
    return out


@dataclass(frozen=True)
class BushingRate:
    """The diagonal entry ``index`` (0..5: x, y, z, about x, y, z) of bushing ``bushing``'s
    stiffness; ``name`` is ``"BUSHING.kx"`` ...; ``nominal`` SI (N/m, N m/rad)."""

    name: str
    bushing: str
    index: int
    nominal: float

    @property
    def dimension(self) -> str:
        """``"linear_stiffness"`` or ``"angular_stiffness"`` (:mod:`mechanism.units`)."""
        return "linear_stiffness" if self.index < 3 else "angular_stiffness"


def is_bushing_rate(name) -> bool:
    """Whether ``name`` has a bushing rate's form ``"NAME.kx"`` ... (not whether it exists)."""
    return isinstance(name, str) and name.rpartition(".")[2] in RATE_SUFFIXES and "." in name


def bushing_rates(model, names, where="vary") -> list[BushingRate]:
    """The bushing rates ``names`` of a model snapshot, in order; ModelError at
    ``"<where> 'NAME'"`` for a bushing or rate the model does not have (a rigid model, with no
    bushing, said so), or one named twice."""
    known = {b.name: b for b in model.bushings}
    out, seen = [], set()
    for name in names:
        base, _, suffix = name.rpartition(".") if isinstance(name, str) else ("", "", "")
        if not known and suffix in RATE_SUFFIXES:
            raise ModelError(f"{where} {name!r}".strip(), f"{model.name!r} is a rigid model, with no bushings: no "
                             "bushing rate to vary (add [[bushings]] tables, or Mechanism.add_bushing)")
        if base not in known or suffix not in RATE_SUFFIXES:
            hint = ", ".join(list(known)[:8]) or "none"
            raise ModelError(f"{where} {name!r}".strip(), f"not a bushing rate of {model.name!r} (BUSHING.kx, .ky, "
                             f".kz, .krx, .kry, .krz; bushings: {hint})")
        if name in seen:
            raise ModelError(f"{where} {name!r}".strip(), f"bushing rate {name!r} named twice")
        seen.add(name)
        index = RATE_SUFFIXES.index(suffix)
        out.append(BushingRate(name, base, index, float(known[base].stiffness_matrix()[index, index])))
    return out


def parameters(model, names, where="vary") -> list:
    """The hardpoint coordinates (:class:`Coordinate`, :func:`coordinates`) and bushing rates
    (:class:`BushingRate`, :func:`bushing_rates`) ``names`` of a model snapshot, in the order
    named (a hardpoint's three coordinates in its place); ModelError as those, and for a
    parameter named twice."""
    if isinstance(names, str) or not hasattr(names, "__iter__"):
        raise ModelError(where, f"expected a list of hardpoint coordinates, got {str(names)[:60]!r}")
    out = []
    for name in names:
        out += bushing_rates(model, [name], where) if is_bushing_rate(name) else coordinates(model, [name], where)
    seen = set()
    for parameter in out:
        if parameter.name in seen:
            kind = "bushing rate" if isinstance(parameter, BushingRate) else "coordinate"
            raise ModelError(f"{where} {parameter.name!r}", f"{kind} {parameter.name!r} named twice")
        seen.add(parameter.name)
    if not out:
        raise ModelError(where, "no coordinates to vary")
    return out


def moved_suspension(suspension, coords, offsets):
    """``suspension`` (a :class:`~loops.suspension.Suspension`) with its parameters ``coords``
    (:class:`Coordinate` and :class:`BushingRate`) moved by ``offsets`` (k,) SI: a moved copy of its
    mechanism (:meth:`mechanism.Mechanism.moved`, each varied bushing rate its nominal plus the
    offset); ``suspension`` is unchanged."""
    offsets = np.asarray(offsets, dtype=float)
    hardpoints = [j for j, c in enumerate(coords) if not isinstance(c, BushingRate)]
    moved = suspension.mechanism.moved(moved_hardpoints([coords[j] for j in hardpoints], offsets[hardpoints]))
    for j, rate in enumerate(coords):
        if isinstance(rate, BushingRate):
            stiffness = moved.bushings[rate.bushing].stiffness_matrix().copy()
            stiffness[rate.index, rate.index] = rate.nominal + offsets[j]
            moved.set_bushing_stiffness(rate.bushing, stiffness)
    return Suspension(moved, suspension.corners, suspension.vehicle, suspension.units, suspension.name)
