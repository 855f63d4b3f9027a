"""Hardpoint names: how a design study and a hardpoint table address the points of a model.

A hardpoint is a global design-pose location a model gives (:class:`~mechanism.specs.Model`):
a pair's centre (``at``), a point (``at``) or a spring-damper's end (``at_a``, ``at_b``); the
axis of a pair whose type says so (:attr:`~mechanism.pairs.PairType.axis_hardpoint`: the
screw pairs, revolute, prismatic, cylindrical, helical) is a hardpoint direction.
Names, as in the hardpoint tables of :mod:`loops.suspension.hardpoints`:

* ``PAIR`` a pair's centre, ``PAIR.axis`` its axis;
* ``POINT`` a point (``points.POINT`` when a pair has the same name);
* ``SPRING.at_a`` and ``SPRING.at_b`` a spring-damper's ends;
* ``BUSHING`` a bushing's centre (``bushings.BUSHING`` when a point has the same name); a
  bushing has no axis hardpoint (its axes are its own, :class:`~mechanism.specs.BushingSpec`).

Pairs declared with link-local frames and local points have no hardpoints (their
coordinates are not global at the design pose).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["Hardpoint", "hardpoints_of", "point_hardpoint", "bushing_hardpoint"]


@dataclass(frozen=True)
class Hardpoint:
    """One hardpoint: its ``name``, the ``table`` (``"pairs"``, ``"points"``,
    ``"spring_dampers"``, ``"bushings"``), the ``owner``'s name and ``key`` (``"at"``, ``"axis"``, ``"at_a"``,
    ``"at_b"``) of the record holding it, and its ``value`` (3,) (m, or a unit direction)."""

    name: str
    table: str
    owner: str
    key: str
    value: np.ndarray

    @property
    def is_direction(self) -> bool:
        return self.key == "axis"


def point_hardpoint(point_name, pair_names) -> str:
    """The hardpoint name of the point ``point_name``: itself, or ``points.NAME`` when one of
    ``pair_names`` is the same (a pair's centre takes the plain name)."""
    return f"points.{point_name}" if point_name in pair_names else point_name


def bushing_hardpoint(bushing_name, point_names) -> str:
    """The hardpoint name of the bushing ``bushing_name``'s centre: itself, or
    ``bushings.NAME`` when one of ``point_names`` is the same (a point keeps its plain name)."""
    return f"bushings.{bushing_name}" if bushing_name in point_names else bushing_name


def hardpoints_of(model) -> dict[str, Hardpoint]:
    """Every hardpoint of a model snapshot by name (see the module docstring), in the model's
    order: pairs' centres and axes, points, spring-dampers' ends, bushings' centres."""
    out = {}
    pair_names = {p.name for p in model.declared()}
    for pair in model.declared():
        if pair.virtual or pair.local:
            continue
        out[pair.name] = Hardpoint(pair.name, "pairs", pair.name, "at", np.asarray(pair.at, dtype=float))
        if pair.pair_type.axis_hardpoint:
            axis = np.asarray(pair.axis, dtype=float)
            out[f"{pair.name}.axis"] = Hardpoint(f"{pair.name}.axis", "pairs", pair.name, "axis",
                                                 axis / np.linalg.norm(axis))
    for point in model.points:
        if point.local:
            continue
        name = point_hardpoint(point.name, pair_names)
        out[name] = Hardpoint(name, "points", point.name, "at", np.asarray(point.at, dtype=float))
    for spring in model.spring_dampers:
        for key in ("at_a", "at_b"):
            name = f"{spring.name}.{key}"
            out[name] = Hardpoint(name, "spring_dampers", spring.name, key, np.asarray(getattr(spring, key), float))
    point_names = {point.name for point in model.points}
    for bushing in model.bushings:
        name = bushing_hardpoint(bushing.name, point_names)
        out[name] = Hardpoint(name, "bushings", bushing.name, "at", np.asarray(bushing.at, dtype=float))
    return out
