"""A wheel corner: which parts of a mechanism carry the wheel, and how the vehicle is oriented.

A :class:`Corner` names the upright (knuckle, hub carrier), the points of the wheel centre
and of the spin axis, the steering (kingpin) axis, the loaded radius, the side of the
vehicle and which way the model's x axis points; optionally the spring and the damper, the
variable that steers the wheel (a rack), the wheel-travel driver and the links an axle
shares between its two corners. A model file carries the same fields as its ``[corner]``
table (:func:`corner_from_table`), lengths in the file's units, so that nothing about the
wheel is given twice.

Vehicle axes (ISO 8855; SAE J670 has y right and z down, the signs below are ISO's): z up,
x along the vehicle, y lateral, the ground plane horizontal. ``forward = "+x"`` means x
points forward (y left, as ISO 8855); ``"-x"`` means x points rearward (y right, as many CAD
models). From ``forward`` and ``side`` come three unit vectors, all global: ``f`` forward,
``u = (0, 0, 1)`` up and ``o`` outboard (horizontal, away from the vehicle centre plane).
Every metric (:mod:`loops.suspension.metrics`) is written with ``f``, ``o`` and ``u``, so a
mirrored corner, or a model with x rearward, gives the same numbers.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, fields

import numpy as np

from mechanism.errors import ModelError
from mechanism.hardpoints import point_hardpoint
from mechanism.limits import MAX_LENGTH
from mechanism.specs import GROUND

__all__ = ["Corner", "corner_from_table", "model_size", "SIZE_RATIO", "UP", "resolve"]

UP = np.array([0.0, 0.0, 1.0])

#: A length given for a corner or a vehicle (wheel radius, track, wheelbase, centre-of-mass
#: height) must lie within this factor of the model's size (the largest distance between
#: two of its hardpoints) either way: a length in mm read as m is 1000 times off.
SIZE_RATIO = 30.0

#: Largest angle between a steering axis and the vertical: beyond it the axis is not one.
MAX_KINGPIN_TILT = math.radians(45.0)


def _name(value, where):
    if not isinstance(value, str) or not value:
        raise ModelError(where, f"expected a non-empty name, got {value!r}")
    return value


def _two_names(value, where, what):
    if not isinstance(value, (tuple, list)) or len(value) != 2:
        raise ModelError(where, f"give {what}; got {value!r}")
    names = tuple(_name(n, where) for n in value)
    if names[0] == names[1]:
        raise ModelError(where, f"the two names are the same ({names[0]!r})")
    return names


@dataclass(frozen=True)
class Corner:
    """Which parts of a mechanism make a wheel corner, and how the vehicle is oriented.

    Parameters
    ----------
    upright : str
        The link carrying the wheel (upright, knuckle, hub carrier).
    wheel_centre : str
        Point name: the wheel centre, on the upright (or on the wheel, on its spin axis).
    spin_axis_point : str
        Point name: another point of the spin axis, inboard of the wheel centre.
    kingpin : (str, str), str or None
        The steering axis: two names, each a point or a pair (its centre: a ball joint),
        for example ``("lower_ball", "upper_ball")``; or one revolute or cylindrical pair,
        whose axis is the steering axis (a kingpin bearing); or None for a virtual axis
        (a multi-link): the instantaneous screw axis of the upright relative to the body
        when ``steering`` moves at fixed wheel travel (as Adams/Car's "instant axis").
    wheel_radius : float
        Loaded radius, m: the contact patch is the wheel centre moved down the wheel plane's
        vertical by this much.
    side : {"left", "right"}
        The side of the vehicle the corner is on.
    forward : {"+x", "-x"}
        ``"+x"``: x points forward (ISO 8855: y left, z up); ``"-x"``: x rearward (y right).
    spring, damper : (str, str), str or None
        Two point names, or the name of a spring-damper of the model
        (``Mechanism.add_spring_damper``). The spring's stiffness and free length (for the
        wheel rate) are those of the spring-damper it names.
    centre_plane_y : float
        The vehicle centre plane is ``y = centre_plane_y`` (m); axles mirror about it.
    steering : str or None
        The variable that steers the wheel: a rack's slide, a steering pair, a rear toe
        link's adjuster. Steering analyses drive it; rates such as d toe / d rack use it.
    travel : str or None
        The point driver of wheel travel (vertical motion of the wheel centre). Default:
        the model's point driver of ``wheel_centre`` along +z, or one the analyses add.
    shared : tuple of str
        Links that one axle shares between its two corners (a steering rack, the middle of
        an anti-roll bar); they lie on the centre plane and are not mirrored.

    Names are looked up when a mechanism is analysed (:func:`resolve`); a point name is taken
    before a pair name of the same spelling. Errors are located as ``corner.<field>``.
    """

    upright: str
    wheel_centre: str
    spin_axis_point: str
    kingpin: tuple | str | None
    wheel_radius: float
    side: str
    forward: str = "+x"
    spring: tuple | str | None = None
    centre_plane_y: float = 0.0
    damper: tuple | str | None = None
    steering: str | None = None
    travel: str | None = None
    shared: tuple = field(default=())

    def __post_init__(self):
        _name(self.upright, "corner.upright")
        _name(self.wheel_centre, "corner.wheel_centre")
        _name(self.spin_axis_point, "corner.spin_axis_point")
        if self.kingpin is None:
            if self.steering is None:
                raise ModelError("corner.kingpin", "no steering axis: give kingpin (two point or pair names, or a "
                                 "revolute pair), or steering (the variable whose motion steers the wheel: the "
                                 "upright's instantaneous screw axis is then the steering axis)")
        elif isinstance(self.kingpin, str):
            _name(self.kingpin, "corner.kingpin")
        else:
            object.__setattr__(self, "kingpin", _two_names(
                self.kingpin, "corner.kingpin", "two point or pair names, or one revolute pair name"))
        for key in ("spring", "damper"):
            value = getattr(self, key)
            if value is not None and not isinstance(value, str):
                object.__setattr__(self, key, _two_names(value, f"corner.{key}",
                                                         "two point names or a spring-damper name"))
            elif value is not None:
                _name(value, f"corner.{key}")
        for key in ("steering", "travel"):
            if getattr(self, key) is not None:
                _name(getattr(self, key), f"corner.{key}")
        if isinstance(self.shared, str) or not isinstance(self.shared, (tuple, list)):
            raise ModelError("corner.shared", f"expected a list of link names, got {self.shared!r}")
        object.__setattr__(self, "shared", tuple(_name(n, "corner.shared") for n in self.shared))
        object.__setattr__(self, "wheel_radius", _length(self.wheel_radius, "corner.wheel_radius", positive=True))
        if self.side not in ("left", "right"):
            raise ModelError("corner.side", f"expected 'left' or 'right', got {self.side!r}")
        if self.forward not in ("+x", "-x"):
            raise ModelError("corner.forward", f"expected '+x' or '-x', got {self.forward!r}")
        object.__setattr__(self, "centre_plane_y", _length(self.centre_plane_y, "corner.centre_plane_y"))

    @property
    def axes(self):
        """Unit vectors ``(forward, outboard, up)``, global, each (3,)."""
        forward = np.array([1.0 if self.forward == "+x" else -1.0, 0.0, 0.0])
        left = np.cross(UP, forward)
        outboard = left if self.side == "left" else -left
        return forward, outboard, UP.copy()

    @property
    def left(self):
        """Unit vector to the vehicle's left, global (3,)."""
        forward = np.array([1.0 if self.forward == "+x" else -1.0, 0.0, 0.0])
        return np.cross(UP, forward)


def _length(value, where, positive=False):
    if isinstance(value, bool):
        raise ModelError(where, f"expected a number, got {value!r}")
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise ModelError(where, f"expected a number, got {value!r}") from None
    if not math.isfinite(x):
        raise ModelError(where, f"non-finite value {value!r}")
    if abs(x) > MAX_LENGTH:
        raise ModelError(where, f"{x:.6g} m is beyond the {MAX_LENGTH:g} m a model's lengths may reach "
                         "(mechanism/limits.py)")
    if positive and x <= 0:
        raise ModelError(where, f"expected a positive length (m), got {value!r}")
    return x


# ------------------------------------------------------------------ the [corner] table
_CORNER_KEYS = tuple(f.name for f in fields(Corner))
_LENGTH_KEYS = ("wheel_radius", "centre_plane_y")


def corner_from_table(table, units, where="corner") -> Corner:
    """A :class:`Corner` from a model file's ``[corner]`` table.

    Parameters
    ----------
    table : dict
        The TOML table: the fields of :class:`Corner` as keys; ``kingpin``, ``spring`` and
        ``damper`` as one name or a list of two; ``shared`` a list of link names.
    units : mechanism.model_file.Units
        The file's units: ``wheel_radius`` and ``centre_plane_y`` are in its length unit.
    where : str
        Prefix of error locations, for example ``"front.toml: corner"``.

    Raises
    ------
    ModelError
        Located ``<where>.<key>`` (for example ``"front.toml: corner.wheel_radius"``): unknown
        or missing keys, values of the wrong type.
    """
    if not isinstance(table, dict):
        raise ModelError(where, "expected a table [corner] of upright, wheel_centre, spin_axis_point, kingpin, "
                         "wheel_radius, side, ...")
    for key in table:
        if key not in _CORNER_KEYS:
            raise ModelError(f"{where}.{key}", f"unknown key (expected {', '.join(_CORNER_KEYS)})")
    for key in ("upright", "wheel_centre", "spin_axis_point", "wheel_radius", "side"):
        if key not in table:
            raise ModelError(f"{where}.{key}", "missing required key")
    values = {}
    for key, raw in table.items():
        if key in _LENGTH_KEYS:
            if isinstance(raw, bool) or not isinstance(raw, (int, float)):
                raise ModelError(f"{where}.{key}", f"expected a number ({units.length}), got {raw!r}")
            values[key] = units.to_si(raw, "length")
        elif isinstance(raw, list):
            values[key] = tuple(raw)
        else:
            values[key] = raw
    values.setdefault("kingpin", None)
    try:
        return Corner(**values)
    except ModelError as exc:
        raise _relocated(exc, where) from None


def _relocated(exc, where):
    """``exc`` (located ``corner.<key>``) located under ``where`` instead."""
    key = exc.where.partition(".")[2] if exc.where.startswith("corner.") else exc.where
    return ModelError(f"{where}.{key}" if key else where, exc.problem)


# ------------------------------------------------------------------ resolving names
#: Point differences :func:`model_size` holds at a time (a few MB).
_DIFFERENCES = 2**16


def model_size(model) -> float:
    """Largest distance between two hardpoints (pair centres and points) of ``model``, m."""
    points = [np.asarray(p.at, dtype=float) for p in model.pairs if p.at is not None and not p.virtual]
    points += [np.asarray(p.at, dtype=float) for p in model.points if not p.local]
    if len(points) < 2:
        return float("nan")
    xyz = np.array(points)
    # Blocks of rows against all points: memory in proportion to the model, not its square.
    rows = max(1, _DIFFERENCES // len(xyz))
    largest = 0.0
    for start in range(0, len(xyz), rows):
        span = xyz[start:start + rows, None, :] - xyz[None, :, :]
        largest = max(largest, float(np.sqrt((span ** 2).sum(-1)).max()))
    return largest


def check_scale(value, size, where, what, unit_hint=""):
    """A located ModelError when ``value`` (m) is more than :data:`SIZE_RATIO` times off ``size``."""
    if not (math.isfinite(size) and size > 0):
        return
    ratio = value / size
    if 1.0 / SIZE_RATIO <= ratio <= SIZE_RATIO:
        return
    hint = f"; is it in the wrong unit{unit_hint}?" if unit_hint is not None else ""
    raise ModelError(where, f"{what} {value:.6g} m is {ratio:.3g} times the size of the model ({size:.6g} m between "
                     f"its farthest hardpoints), more than {SIZE_RATIO:g} times off{hint}")


class Located:
    """A point fixed in a link: ``link`` name and coordinates ``r`` (3,) in the link's frame;
    ``source`` is the name of the hardpoint it is (:mod:`mechanism.hardpoints`), if any (a
    design study moves it with the hardpoint; ``r`` may then be (N, 3), one per row)."""

    def __init__(self, link, r, what, source=None):
        self.link, self.r, self.what, self.source = link, np.asarray(r, dtype=float), what, source


class Resolved:
    """A corner's names resolved against a model (see :func:`resolve`).

    Attributes
    ----------
    wheel_centre, spin_axis_point : Located
    kingpin : (Located, Located), (Located, axis (3,) link frame) for a kingpin pair, or None
    spring, damper : (Located, Located) or None; ``spring_spec`` the spring-damper record or None
    travel : str or None, the wheel-travel point driver (None: the analyses add one)
    """

    def __init__(self, model, corner: Corner):
        self.model, self.corner = model, corner
        real_links = {link.name for link in model.links if not link.virtual}
        if corner.upright not in real_links:
            raise ModelError("corner.upright", f"{corner.upright!r} is not a link of {model.name!r} "
                             f"(links: {', '.join(sorted(real_links - {GROUND}))})")
        if corner.upright == GROUND:
            raise ModelError("corner.upright", "the upright cannot be the ground (the body): name the link that "
                             "carries the wheel")
        self.wheel_links = self._wheel_links(model, corner.upright)
        self.wheel_centre = self._on_wheel(_locate_point(model, corner.wheel_centre, "corner.wheel_centre"),
                                           "corner.wheel_centre")
        self.spin_axis_point = self._on_wheel(_locate_point(model, corner.spin_axis_point,
                                                            "corner.spin_axis_point"), "corner.spin_axis_point")
        self.kingpin_axis = None
        self.kingpin = None
        if isinstance(corner.kingpin, str):
            pair = next((p for p in model.pairs if p.name == corner.kingpin and not p.virtual), None)
            if pair is None or not pair.pair_type.turns_about_axis or corner.upright not in (pair.first, pair.second):
                found = ("not a pair" if pair is None else f"a {pair.kind} pair" if not pair.pair_type.turns_about_axis
                         else f"a pair between {pair.first!r} and {pair.second!r}, not on the upright")
                raise ModelError("corner.kingpin", f"{corner.kingpin!r} is {found}; a single kingpin name must be "
                                 "a revolute or cylindrical pair of the upright (or give two point or pair names)")
            link, frame = ((pair.first, pair.frame_on_first) if pair.first == corner.upright
                           else (pair.second, pair.frame_on_second))
            self.kingpin = (Located(link, frame[:3, 3], f"pair {pair.name!r}", pair.name), None)
            self.kingpin_axis = frame[:3, 2].copy()
        elif corner.kingpin is not None:
            self.kingpin = tuple(self._kingpin_point(model, n) for n in corner.kingpin)
        self.spring, self.spring_spec = self._ends(model, corner.spring, "corner.spring")
        self.damper, _ = self._ends(model, corner.damper, "corner.damper")
        variables = _scalar_variables(model)
        replaced = [b.name for b in model.bushings if b.replaces == corner.steering]
        if corner.steering is not None and corner.steering not in variables and replaced:
            raise ModelError("corner.steering", f"{corner.steering!r} is replaced by bushing {replaced[0]!r} in the "
                             f"compliant variant, which then has no steering variable: the steering pair stays rigid "
                             f"(drop replaces = {corner.steering!r} from bushing {replaced[0]!r})")
        if corner.steering is not None and corner.steering not in variables:
            raise ModelError("corner.steering", f"{corner.steering!r} is not a pair variable of {model.name!r} "
                             f"that can steer (one-variable pairs and Hooke components: {', '.join(variables)})")
        self.travel = self._travel(model, corner)
        for link in corner.shared:
            if link not in real_links or link == GROUND:
                raise ModelError("corner.shared", f"{link!r} is not a link of {model.name!r}")
            if link in self.wheel_links:
                raise ModelError("corner.shared", f"{link!r} carries the wheel; it cannot be shared by two corners")

    @staticmethod
    def _wheel_links(model, upright):
        """The upright and the links spinning on it: a wheel hangs on the upright by one revolute
        pair (its hub) and on nothing else."""
        out = {upright}
        real = [p for p in model.pairs if not p.virtual]
        for pair in real:
            if not pair.pair_type.is_hinge or upright not in (pair.first, pair.second):
                continue
            other = pair.second if pair.first == upright else pair.first
            if other != GROUND and all(p is pair for p in real if other in (p.first, p.second)):
                out.add(other)
        return out

    def _on_wheel(self, located, where):
        if located.link not in self.wheel_links:
            raise ModelError(where, f"{located.what} is on link {located.link!r}, which is neither the upright "
                             f"{self.corner.upright!r} nor a wheel spinning on it")
        return located

    def _kingpin_point(self, model, name):
        # Any link: a MacPherson strut's axis runs through the top mount, a point of the body.
        return _locate(model, name, self.corner.upright, "corner.kingpin")

    @staticmethod
    def _ends(model, value, where):
        if value is None:
            return None, None
        if isinstance(value, str):
            spec = next((s for s in model.spring_dampers if s.name == value), None)
            if spec is None:
                known = ", ".join(s.name for s in model.spring_dampers) or "none"
                raise ModelError(where, f"{value!r} is not a spring-damper of {model.name!r} (spring-dampers: "
                                 f"{known}); or give two point names")
            return (Located(spec.link_a, spec.at_a, f"spring-damper {spec.name!r} end a", f"{spec.name}.at_a"),
                    Located(spec.link_b, spec.at_b, f"spring-damper {spec.name!r} end b", f"{spec.name}.at_b")), spec
        ends = tuple(_locate_point(model, n, where) for n in value)
        if ends[0].link == ends[1].link:
            raise ModelError(where, f"both ends are on link {ends[0].link!r}: the length would never change")
        return ends, None

    @staticmethod
    def _travel(model, corner):
        if corner.travel is not None:
            driver = next((d for d in model.point_drivers if d.name == corner.travel), None)
            if driver is None:
                known = ", ".join(d.name for d in model.point_drivers) or "none"
                raise ModelError("corner.travel", f"{corner.travel!r} is not a point driver of {model.name!r} "
                                 f"(point drivers: {known})")
            if driver.point != corner.wheel_centre or float(np.dot(driver.direction, UP)) < 1.0 - 1e-12:
                raise ModelError("corner.travel", f"{corner.travel!r} must drive the wheel centre "
                                 f"{corner.wheel_centre!r} along +z")
            return driver.name
        for driver in model.point_drivers:
            if driver.point == corner.wheel_centre and float(np.dot(driver.direction, UP)) >= 1.0 - 1e-12:
                return driver.name
        return None


def _scalar_variables(model):
    out = []
    for pair in model.pairs:
        if pair.virtual or not pair.pair_type.additive:
            continue
        out += pair.variable_names()
    return out


def _locate(model, name, upright, where):
    """A point or a pair centre by name (pairs on ``upright`` when they touch it; a pair a bushing
    replaces in the compliant variant is found as declared, its centre on the same links)."""
    for point in model.points:
        if point.name == name:
            return Located(point.link, point.at, f"point {name!r}", _point_source(model, point))
    for pair in model.declared() + model.pairs:
        if pair.name == name and not pair.virtual:
            source = None if pair.local else pair.name
            if pair.second == upright or pair.first != upright:
                return Located(pair.second, pair.frame_on_second[:3, 3], f"pair {name!r}", source)
            return Located(pair.first, pair.frame_on_first[:3, 3], f"pair {name!r}", source)
    points = ", ".join(p.name for p in model.points) or "none"
    raise ModelError(where, f"{name!r} is neither a point nor a pair of {model.name!r} (points: {points})")


def _point_source(model, point):
    """The hardpoint name of a point (:mod:`mechanism.hardpoints`); None for a local point."""
    if point.local:
        return None
    return point_hardpoint(point.name, {p.name for p in model.pairs})


def _locate_point(model, name, where):
    for point in model.points:
        if point.name == name:
            return Located(point.link, point.at, f"point {name!r}", _point_source(model, point))
    points = ", ".join(p.name for p in model.points) or "none"
    raise ModelError(where, f"{name!r} is not a point of {model.name!r} (points: {points})")


def resolve(model, corner: Corner) -> Resolved:
    """``corner``'s names looked up in ``model`` (a snapshot), with the checks that need it.

    Checks, each a :class:`ModelError` located at the corner's key: the upright is a link
    other than the ground; the wheel centre and the spin-axis point are points of the
    upright (or of a wheel spinning on it); the kingpin names points or pairs of the
    upright, or one revolute or cylindrical pair of it; spring and damper name a
    spring-damper or two points on different links; steering names a pair variable;
    travel names a point driver of the wheel centre along +z; the wheel radius is within
    :data:`SIZE_RATIO` of the model's size.
    """
    resolved = Resolved(model, corner)
    check_scale(corner.wheel_radius, model_size(model), "corner.wheel_radius", "wheel_radius")
    return resolved
