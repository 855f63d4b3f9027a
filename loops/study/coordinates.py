"""The coordinates a design study varies: one component of one hardpoint each.

``"lower_ball.z"`` is the z coordinate of the pair ``lower_ball``'s centre; ``"lower_ball"``
alone stands for its three coordinates; ``"upper_inner.axis.x"`` is a component of a screw
pair's axis (hardpoint names: :mod:`mechanism.hardpoints`). Offsets are added to the
nominal values: metres for locations, and for an axis the change of its unit direction
(the varied axis is normalised again).
"""

from __future__ import annotations

from dataclasses import dataclass

from mechanism.errors import ModelError
from mechanism.hardpoints import hardpoints_of

from ..variants import moved_hardpoints  # the engine's (batched variants of any mechanism)

__all__ = ["Coordinate", "coordinates", "moved_hardpoints", "AXES"]

AXES = "xyz"


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
