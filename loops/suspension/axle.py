"""Axles: two corners on one body, built by mirroring one corner or from two corner models.

Mirroring (:func:`mirror_corner`) reflects a corner about the vehicle centre plane ``y =
centre_plane_y``: every hardpoint, axis, point, point driver, spring-damper, force and mass
property. A reflection turns a right-handed rotation into a left-handed one, so the
mirrored copy of a revolute (or Hooke, helical) pair's variable reads minus the original's
(its pair springs' free values and its torques change sign with it); slides keep their
sign, a helical pair's pitch changes sign. Names get ``_left`` and ``_right`` after the side
of their copy (``lower_ball_left``, ``travel_right``, a Hooke pair's ``U_left.0``).

What the two corners share is not mirrored: the links named in ``Corner.shared`` (a
steering rack, the middle of an anti-roll bar given as links and pairs) and the pairs
between them and the ground keep their names and appear once; each corner's pairs to a
shared link attach its copy to the same link. A shared pair must be its own mirror image
(a rack sliding across the car, a bar bearing on the centre plane), else the mirrored
corner would not fit it.

:func:`axle_from_corners` joins two corner models (a left and a right, for example from two
files) the same way, without mirroring: their shared links and pairs must agree.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from mechanism.errors import ModelError
from mechanism.model import Mechanism
from mechanism.specs import GROUND

from .corner import SIZE_RATIO, Corner, model_size, resolve
from .vehicle import Vehicle

__all__ = ["Axle", "mirror_corner", "axle_from_corners", "with_travel_driver", "SIDES"]

SIDES = ("left", "right")
#: Tolerance (relative to the model's size) within which shared pairs must coincide.
SHARED_TOLERANCE = 1e-9


@dataclass(frozen=True)
class Axle:
    """Two corners on one body.

    Attributes
    ----------
    mechanism : Mechanism, both corners and what they share
    corners : dict side -> Corner, the names of ``mechanism``
    vehicle : Vehicle or None
    """

    mechanism: Mechanism
    corners: dict
    vehicle: Vehicle | None = None

    @property
    def steering(self):
        """The steering variables: one shared (a rack), one per side, or none."""
        names = [c.steering for c in self.corners.values() if c.steering is not None]
        return list(dict.fromkeys(names))


def _variable(name, suffix, shared_pairs):
    base, dot, component = name.partition(".")
    if base in shared_pairs:
        return name
    return f"{base}{suffix}{dot}{component}"


class _Copy:
    """Adds one corner's copy to a builder: names suffixed, geometry mapped."""

    def __init__(self, model, suffix, mirror, plane_y, shared):
        self.model, self.suffix, self.mirror, self.plane_y = model, suffix, mirror, plane_y
        self.shared = set(shared)
        self.M = np.diag([1.0, -1.0, 1.0]) if mirror else np.eye(3)
        self.shared_pairs = {p.name for p in model.declared()
                             if not p.virtual and {p.first, p.second} <= self.shared | {GROUND}}

    def point(self, p):
        p = np.asarray(p, dtype=float)
        return np.array([p[0], 2.0 * self.plane_y - p[1], p[2]]) if self.mirror else p.copy()

    def vector(self, v):
        return self.M @ np.asarray(v, dtype=float)

    def link(self, name):
        return name if name in self.shared or name == GROUND else name + self.suffix

    def name(self, name):
        return name + self.suffix

    def variable(self, name):
        return _variable(name, self.suffix, self.shared_pairs)

    def signs(self):
        """Per pair variable: the sign relating its value to its copy's (-1 where a mirror
        changes the hand of a turn, :meth:`mechanism.pairs.PairType.mirror_signs`)."""
        out = {}
        for pair in self.model.pairs:
            out.update(zip(pair.variable_names(), pair.pair_type.mirror_signs(pair, self.M)))
        return out

    def add(self, m: Mechanism, include_shared: bool):
        model, M = self.model, self.M
        if any(p.local for p in model.pairs if not p.virtual):
            raise ModelError("corner", "mirroring needs every pair declared by global at/axis (link-local frames "
                             "cannot be mirrored)")
        for link in model.links:
            if link.name == GROUND or link.virtual:
                continue
            if link.name in self.shared and not include_shared:
                continue
            m.add_link(self.link(link.name), mass=link.mass, com=self.point(link.com),
                       inertia=M @ np.asarray(link.inertia) @ M.T)
        for pair in model.declared():
            if pair.virtual:
                continue
            if pair.name in self.shared_pairs:
                if include_shared:
                    m.add_pair(pair.name, pair.kind, pair.first, pair.second, at=pair.at, axis=pair.axis,
                               axes=pair.axes, **pair.pair_type.options())
                else:
                    self._check_symmetric(pair)
                continue
            axes = None if pair.axes is None else tuple(self.vector(a) for a in pair.axes)
            m.add_pair(self.name(pair.name), pair.kind, self.link(pair.first), self.link(pair.second),
                       at=self.point(pair.at), axis=None if pair.axis is None else self.vector(pair.axis),
                       axes=axes, **(pair.pair_type.mirror_options() if self.mirror else pair.pair_type.options()))
        for point in model.points:
            m.add_point(self.name(point.name), self.link(point.link), self.point(point.at), local=point.local)
        for driver in model.point_drivers:
            m.add_point_driver(self.name(driver.name), self.name(driver.point), self.vector(driver.direction))
        sign = self.signs()
        for spring in model.pair_springs:
            if spring.variable.partition(".")[0] in self.shared_pairs and not include_shared:
                continue
            s = sign.get(spring.variable, 1.0)
            m.add_pair_spring(self.variable(spring.variable), spring.stiffness, free_value=s * spring.free_value,
                              damping=spring.damping)
        for force in model.pair_forces:
            if force.variable.partition(".")[0] in self.shared_pairs and not include_shared:
                continue
            m.add_pair_force(self.variable(force.variable), _scaled(force.force, sign.get(force.variable, 1.0)))
        for sd in model.spring_dampers:
            m.add_spring_damper(self.name(sd.name), self.link(sd.link_a), self.point(sd.at_a),
                                self.link(sd.link_b), self.point(sd.at_b), stiffness=sd.stiffness,
                                free_length=sd.free_length, damping=sd.damping, damping_law=sd.damping_law)
        for pf in model.point_forces:
            circle = None if pf.circle is None else (M @ pf.circle[0], pf.circle[1], M @ pf.circle[2])
            m.add_point_force(self.name(pf.name), self.link(pf.link), self.point(pf.at), _mapped(pf.force, M), circle)
        # a moment is an axial vector: mirrored in y = 0 it is (-Mx, My, -Mz), det(M) M m
        for lm in model.link_moments:
            m.add_link_moment(self.name(lm.name), self.link(lm.link), _mapped(lm.moment, np.linalg.det(M) * M))
        self._add_bushings(m, include_shared)

    def _add_bushings(self, m: Mechanism, include_shared: bool):
        """The bushings, mirrored: a mirror turns the axes (x, y, z) into (M x, -M y, M z) (right-handed
        again), under which slides along y and turns about x and z change sign (turns are axial
        vectors): the rates' matrix and the preload take ``S K S`` and ``S p``,
        ``S = diag(1, -1, 1, -1, 1, -1)``. The model's variant (``use_bushings``) is kept."""
        model = self.model
        flip = np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0]) if self.mirror else np.ones(6)
        for bushing in model.bushings:
            shared = {bushing.first, bushing.second} <= self.shared | {GROUND}
            if shared and not include_shared:
                continue
            axes = [self.vector(a) * s for a, s in zip(bushing.axes, flip[:3])]
            rates = [flip[:, None] * matrix * flip[None, :]
                     for matrix in (bushing.stiffness_matrix(), bushing.damping_matrix())]
            replaces = bushing.replaces
            if replaces is not None and not (shared and replaces in self.shared_pairs):
                replaces = self.name(replaces)
            m.add_bushing(bushing.name if shared else self.name(bushing.name), self.link(bushing.first),
                          self.link(bushing.second), at=self.point(bushing.at), axes=axes, stiffness=rates[0],
                          damping=rates[1], preload=flip * bushing.preload, replaces=replaces)
        if model.bushings:
            m.use_bushings(model.use_bushings)

    def _check_symmetric(self, pair):
        size = model_size(self.model)
        tol = SHARED_TOLERANCE * (size if np.isfinite(size) and size > 0 else 1.0)
        problem = pair.pair_type.mirror_problem(pair, self.M, self.point(pair.at), tol, f"y = {self.plane_y:.6g} m")
        if problem is not None:
            raise ModelError("corner.shared", f"pair {pair.name!r} between shared links cannot serve both corners: "
                             f"{problem}")


def _scaled(force, factor):
    if factor == 1.0:
        return force
    if callable(force):
        return lambda t, f=force: factor * np.asarray(f(t))
    if isinstance(force, tuple):
        return (force[0], factor * np.asarray(force[1]))
    return factor * np.asarray(force) if np.ndim(force) else factor * float(force)


def _mapped(force, M):
    if callable(force):
        return lambda t, f=force: M @ np.asarray(f(t), dtype=float)
    if isinstance(force, tuple):
        return (force[0], np.asarray(force[1], dtype=float) @ M.T)
    return M @ np.asarray(force, dtype=float)


def _renamed_corner(corner: Corner, copy: _Copy, side):
    def point_or_pair(name):
        return name if name in copy.shared_pairs else copy.name(name)

    kingpin = corner.kingpin
    if isinstance(kingpin, str):
        kingpin = point_or_pair(kingpin)
    elif kingpin is not None:
        kingpin = tuple(point_or_pair(n) for n in kingpin)

    def ends(value):
        if value is None:
            return None
        return copy.name(value) if isinstance(value, str) else tuple(copy.name(n) for n in value)

    return replace(corner, upright=copy.link(corner.upright), wheel_centre=copy.name(corner.wheel_centre),
                   spin_axis_point=copy.name(corner.spin_axis_point), kingpin=kingpin, side=side,
                   spring=ends(corner.spring), damper=ends(corner.damper),
                   steering=None if corner.steering is None else copy.variable(corner.steering),
                   travel=None if corner.travel is None else copy.name(corner.travel))


def with_travel_driver(mechanism: Mechanism, corner: Corner):
    """``(mechanism, corner)`` with a wheel-travel point driver (the wheel centre along +z):
    the model's own when it has one, else a copy of the mechanism with one added, named
    ``wheel_travel`` (``corner.travel`` names it in the returned corner)."""
    model = mechanism.snapshot()
    resolved = resolve(model, corner)
    if resolved.travel is not None:
        return mechanism, replace(corner, travel=resolved.travel)
    taken = {p.name for p in model.pairs} | {d.name for d in model.point_drivers}
    name = next(n for n in ("wheel_travel", "wheel_travel_driver", "wheel_travel_0") if n not in taken)
    copy = Mechanism(model.name)
    _Copy(model, "", False, 0.0, ()).add(copy, include_shared=True)
    copy.set_gravity(model.gravity)
    copy.add_point_driver(name, corner.wheel_centre, (0.0, 0.0, 1.0))
    return copy, replace(corner, travel=name)


def mirror_corner(mechanism: Mechanism, corner: Corner, vehicle: Vehicle | None = None) -> Axle:
    """The axle made of ``corner`` and its mirror image about the centre plane.

    Parameters
    ----------
    mechanism : Mechanism, one corner (the body is its ground)
    corner : Corner, with ``shared`` naming what both corners share
    vehicle : Vehicle, optional

    Returns
    -------
    Axle
        Its mechanism is named after the corner's with " axle"; the corner's own copy keeps
        its side (names suffixed ``_left`` or ``_right`` after it), the mirrored copy takes
        the other.
    """
    mechanism, corner = with_travel_driver(mechanism, corner)
    model = mechanism.snapshot()
    _check_centre_plane(model, corner)
    other = "right" if corner.side == "left" else "left"
    axle = Mechanism(f"{model.name} axle", units=model.units)  # messages in the file's units
    axle.set_gravity(model.gravity)
    copies = {corner.side: _Copy(model, f"_{corner.side}", False, corner.centre_plane_y, corner.shared),
              other: _Copy(model, f"_{other}", True, corner.centre_plane_y, corner.shared)}
    copies[corner.side].add(axle, include_shared=True)
    copies[other].add(axle, include_shared=False)
    corners = {side: _renamed_corner(corner, copies[side], side) for side in SIDES}
    return Axle(axle, corners, vehicle)


def _check_centre_plane(model, corner):
    """The centre plane a corner is mirrored about lies within SIZE_RATIO of the model's size
    from its wheel centre (farther, the mirrored corner would be out of the model's reach, a
    length in the wrong unit)."""
    size = model_size(model)
    centre = resolve(model, corner).wheel_centre.r  # link frames are global at the design pose
    distance = abs(float(centre[1]) - corner.centre_plane_y)
    if np.isfinite(size) and distance > SIZE_RATIO * size:
        raise ModelError("corner.centre_plane_y", f"y = {corner.centre_plane_y:.6g} m is {distance:.6g} m from the "
                         f"wheel centre, {distance / size:.3g} times the size of the model ({size:.6g} m), more than "
                         f"{SIZE_RATIO:g} times: is it in the wrong unit?")


def axle_from_corners(left: tuple, right: tuple, vehicle: Vehicle | None = None, name=None) -> Axle:
    """An axle from a left and a right corner model: ``left`` and ``right`` are
    ``(Mechanism, Corner)``. Names get ``_left``/``_right``; the links both corners list in
    ``shared`` appear once, and the pairs between them and the ground must be the same in
    both models (type, centre, axis)."""
    (m_left, c_left), (m_right, c_right) = left, right
    for side, corner in (("left", c_left), ("right", c_right)):
        if corner.side != side:
            raise ModelError("corner.side", f"the {side} corner of an axle says side = {corner.side!r}")
    if c_left.centre_plane_y != c_right.centre_plane_y:
        raise ModelError("corner.centre_plane_y", f"the two corners disagree about the centre plane "
                         f"({c_left.centre_plane_y:.6g} m and {c_right.centre_plane_y:.6g} m)")
    if set(c_left.shared) != set(c_right.shared):
        raise ModelError("corner.shared", f"the two corners share different links ({sorted(c_left.shared)} and "
                         f"{sorted(c_right.shared)})")
    m_left, c_left = with_travel_driver(m_left, c_left)
    m_right, c_right = with_travel_driver(m_right, c_right)
    model_left, model_right = m_left.snapshot(), m_right.snapshot()
    same = model_left.units == model_right.units
    axle = Mechanism(name or f"{model_left.name} + {model_right.name}", units=model_left.units if same else None)
    axle.set_gravity(model_left.gravity)
    copies = {"left": _Copy(model_left, "_left", False, c_left.centre_plane_y, c_left.shared),
              "right": _Copy(model_right, "_right", False, c_right.centre_plane_y, c_right.shared)}
    _check_same_shared(copies["left"], copies["right"])
    copies["left"].add(axle, include_shared=True)
    copies["right"].add(axle, include_shared=False)
    corners = {"left": _renamed_corner(c_left, copies["left"], "left"),
               "right": _renamed_corner(c_right, copies["right"], "right")}
    return Axle(axle, corners, vehicle)


def _check_same_shared(a: _Copy, b: _Copy):
    pairs_a = {p.name: p for p in a.model.pairs if p.name in a.shared_pairs}
    pairs_b = {p.name: p for p in b.model.pairs if p.name in b.shared_pairs}
    if set(pairs_a) != set(pairs_b):
        raise ModelError("corner.shared", f"the two corners' shared pairs differ ({sorted(pairs_a)} and "
                         f"{sorted(pairs_b)})")
    for name, p in pairs_a.items():
        q = pairs_b[name]
        same = (p.kind == q.kind and (p.first, p.second) == (q.first, q.second)
                and np.allclose(p.at, q.at, rtol=0, atol=1e-12)
                and (p.axis is None) == (q.axis is None)
                and (p.axis is None or np.allclose(p.axis, q.axis, rtol=0, atol=1e-12)))
        if not same:
            raise ModelError("corner.shared", f"shared pair {name!r} differs between the two corner models")
