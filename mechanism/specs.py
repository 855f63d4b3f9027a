"""The model as plain data: frozen records of links, pairs, points, drivers and loads.

A :class:`mechanism.Mechanism` is a builder that validates and collects these records;
:meth:`~mechanism.Mechanism.snapshot` freezes them into a :class:`Model`, which every
analysis takes and every result keeps, so editing the builder never changes an old result.
State (pair values, speeds) is never stored here.

Geometry convention: every vector is global, at the design pose, in SI units, unless the
pair was declared with link-local frames (``PairSpec.local``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Union

import numpy as np

from .pairs import PairType
from .units import SI, Units

__all__ = [
    "GROUND",
    "DAMPING_LAWS",
    "LinkSpec",
    "PairSpec",
    "PointSpec",
    "PointDriverSpec",
    "PairSpringSpec",
    "PairForceSpec",
    "SpringDamperSpec",
    "PointForceSpec",
    "LinkMomentSpec",
    "BushingSpec",
    "Model",
]

GROUND = "ground"

#: The laws of a spring-damper's damper: force ``c v`` or ``c v |v|`` (``v`` the rate of its length).
DAMPING_LAWS = ("linear", "quadratic")

#: A load given as a constant, a function of time ``f(t)``, or a table ``(times, values)``.
LoadValue = Union[float, np.ndarray, Callable[[float], Any], tuple]


@dataclass(frozen=True)
class LinkSpec:
    """A rigid link.

    mass : kg; com : (3,) m, global at the design pose; inertia : (3, 3) kg m^2 about the
    centre of mass, global axes at the design pose. ``virtual`` links are the massless
    links of a point driver's road loop.
    """

    name: str
    mass: float = 0.0
    com: np.ndarray = field(default_factory=lambda: np.zeros(3))
    inertia: np.ndarray = field(default_factory=lambda: np.zeros((3, 3)))
    virtual: bool = False


@dataclass(frozen=True)
class PairSpec:
    """A kinematic pair between ``first`` and ``second`` link.

    ``frame_on_first`` (frame j) and ``frame_on_second`` (frame k) are 4x4 poses of the pair
    frames in their links' frames. For pairs declared by global geometry the link frames
    are the global frame at the design pose, the pair matrix there is the identity except
    for a Hooke pair's fixed tilt, and ``at``/``axis``/``axes`` keep what the user gave.
    """

    name: str
    pair_type: PairType
    first: str
    second: str
    frame_on_first: np.ndarray
    frame_on_second: np.ndarray
    at: np.ndarray | None = None
    axis: np.ndarray | None = None
    axes: tuple | None = None
    local: bool = False
    virtual: bool = False

    @property
    def kind(self) -> str:
        return self.pair_type.kind

    @property
    def size(self) -> int:
        return self.pair_type.size

    def variable_names(self) -> list[str]:
        """``["B"]`` for one variable, ``["U.0", "U.1"]`` for several."""
        if self.size == 1:
            return [self.name]
        return [f"{self.name}.{i}" for i in range(self.size)]


@dataclass(frozen=True)
class PointSpec:
    """A named point on a link: ``at`` (3,) m, global at the design pose (link frame if local)."""

    name: str
    link: str
    at: np.ndarray
    local: bool = False


@dataclass(frozen=True)
class PointDriverSpec:
    """Drives the displacement of ``point`` along unit ``direction`` from the design pose (m)."""

    name: str
    point: str
    direction: np.ndarray


@dataclass(frozen=True)
class PairSpringSpec:
    """Spring-damper inside a pair variable: ``-stiffness (q - free_value) - damping q'``."""

    variable: str
    stiffness: float
    free_value: float = 0.0
    damping: float = 0.0


@dataclass(frozen=True)
class PairForceSpec:
    """External generalized force (N or N m) in a pair variable: number, f(t) or table."""

    variable: str
    force: LoadValue


@dataclass(frozen=True)
class SpringDamperSpec:
    """Point-to-point spring-damper between two links (attachment points global, design pose).

    Tension force ``stiffness (length - free_length) + damper force`` pulls the points together;
    the damper force is ``damping length'`` (``damping_law`` "linear", N s/m) or ``damping
    length' |length'|`` ("quadratic", N s^2/m^2: a hydraulic orifice).
    """

    name: str
    link_a: str
    at_a: np.ndarray
    link_b: str
    at_b: np.ndarray
    stiffness: float
    free_length: float
    damping: float = 0.0
    damping_law: str = "linear"


@dataclass(frozen=True)
class PointForceSpec:
    """Force at a link point; the vector (N, global axes) is a constant, f(t) or table.
    ``circle``: None (the force acts at the link's point ``at``), or ``(axis, radius, toward)``
    (unit vectors, global at the design pose; m): it acts at the point of the circle about
    ``at`` (normal ``axis``, both moving with the link) farthest along the fixed ``toward``
    (METHOD.md (E8): a wheel's contact patch)."""

    name: str
    link: str
    at: np.ndarray
    force: LoadValue
    circle: tuple | None = None


@dataclass(frozen=True)
class LinkMomentSpec:
    """A free moment (a pure couple) on a link: the vector (N m, global axes) is a constant,
    f(t) or table; it does not turn with the link (METHOD.md (E9))."""

    name: str
    link: str
    moment: LoadValue


def _six_by_six(values) -> np.ndarray:
    """A bushing's rates as its (6, 6) matrix: the diagonal of 6 given rates, or the matrix given."""
    values = np.asarray(values, dtype=float)
    return np.diag(values) if values.shape == (6,) else values.reshape(6, 6)


@dataclass(frozen=True)
class BushingSpec:
    """A compliant connection between ``first`` and ``second`` link (METHOD.md, "The bushing family").

    ``at`` (3,) m, global at the design pose; ``axes`` (3, 3) its x, y and z directions (rows,
    unit, right-handed; global at the design pose): its frames on both links. ``stiffness`` and
    ``damping`` as given, 6 rates (translations along its axes N/m and N s/m, then turns about
    them N m/rad and N m s/rad) or a (6, 6) symmetric matrix; ``preload`` (6,) N and N m, the
    force and moment on the second link at no deflection. ``replaces`` names the rigid pair it
    stands for in the compliant variant (or None).
    """

    name: str
    first: str
    second: str
    at: np.ndarray
    axes: np.ndarray
    stiffness: np.ndarray
    damping: np.ndarray
    preload: np.ndarray
    replaces: str | None = None

    def stiffness_matrix(self) -> np.ndarray:
        """(6, 6) N/m, N m/rad, in its axes (translations first)."""
        return _six_by_six(self.stiffness)

    def damping_matrix(self) -> np.ndarray:
        """(6, 6) N s/m, N m s/rad, in its axes."""
        return _six_by_six(self.damping)


@dataclass(frozen=True)
class Model:
    """Frozen model: what analyses take and results keep.

    ``reference`` maps pair names to their values at the reference assembly (zeros at the
    design pose; what :meth:`~mechanism.Mechanism.assemble` found for link-local models).
    ``units`` are the model's own units (its file's ``[units]``; SI for a model built in
    Python): the default units of every file written from it and of the values in its
    messages. Values in the model are SI whatever ``units`` says.

    ``pairs`` are the pairs the analyses see: in the compliant variant (``use_bushings``) the
    declared pairs but those the bushings replace, then the bushings (pairs of the bushing
    type); in the rigid variant the declared pairs, then the bushings that replace nothing as
    welds. ``declared_pairs`` are the rigid pairs as declared (None: ``pairs``).
    """

    name: str
    links: tuple
    pairs: tuple
    points: tuple
    point_drivers: tuple
    pair_springs: tuple
    pair_forces: tuple
    spring_dampers: tuple
    point_forces: tuple
    gravity: np.ndarray
    reference: tuple  # ((pair name, values ndarray), ...)
    units: Units = SI
    bushings: tuple = ()
    use_bushings: bool = False
    declared_pairs: tuple | None = None
    link_moments: tuple = ()

    def link(self, name: str) -> LinkSpec:
        return next(link for link in self.links if link.name == name)

    def declared(self) -> tuple:
        """The rigid pairs as declared (what a model file holds): ``declared_pairs``, or ``pairs``
        for a model without bushings."""
        return self.pairs if self.declared_pairs is None else self.declared_pairs

    def pair(self, name: str) -> PairSpec:
        return next(p for p in self.pairs if p.name == name)

    def point(self, name: str) -> PointSpec:
        return next(p for p in self.points if p.name == name)
