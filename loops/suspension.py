"""Suspension metrics of a wheel corner, at every position of a sweep.

A corner is described by a :class:`Corner`: which link carries the wheel (the upright,
knuckle or hub carrier), which named points give the wheel centre and the spin axis, what
the steering (kingpin) axis is, the loaded wheel radius, which side of the vehicle the
corner is on and which way the model's x axis points. :func:`suspension_metrics` turns a
:class:`~loops.results.SweepResult` into the quantities suspension packages (Adams/Car,
Lotus SHARK, OptimumKinematics, Altair MotionView's suspension design factors) report:
camber, toe, castor, kingpin inclination, kingpin offsets, castor trail, hub trail,
wheel-centre recession, track change, spring length and motion ratio, camber gain, bump
steer and the kinematic roll centre.

Axes and signs
--------------
The model's axes are the vehicle's (ISO 8855 / SAE J670): z up, x along the vehicle's
longitudinal axis, y lateral, the ground plane horizontal. ``Corner.forward`` says which
way x points (``"+x"``: x forward, y left, as ISO 8855; ``"-x"``: x rearward, y right, as
many CAD models), and ``Corner.side`` which side the corner is on. From them come three
unit vectors, all global:

* ``f``, forward (``+x`` or ``-x``);
* ``u = (0, 0, 1)``, up;
* ``o``, outboard, horizontal, pointing away from the vehicle centre plane
  (``u x f`` on the left side, ``f x u`` on the right).

Every metric is written with ``f``, ``o`` and ``u``, so a right corner mirrored from a left
one, or a model with x rearward, gives the same numbers (the tests check both). Angles
are radians, lengths metres, as everywhere in kinematrix.

Geometry of the wheel
~~~~~~~~~~~~~~~~~~~~~
* Spin axis ``s``: unit vector from ``spin_axis_point`` to the wheel centre ``C``
  (outboard).
* Wheel plane: the plane through ``C`` normal to ``s``.
* Contact patch ``P = C + R d``: ``d`` is the wheel plane's downward vertical, the unit
  vector of the wheel plane along which height falls fastest, ``d = -(u - (u.s) s) / |...|``;
  ``R`` is the loaded radius. The ground plane is the horizontal plane through ``P``.
* Steering (kingpin) axis ``k``: unit vector through the two kingpin points, oriented
  upward (``k.u > 0``).

Definitions
~~~~~~~~~~~
``camber``
    Angle between the wheel plane and the vertical (ISO 8855 camber angle; equal to
    ``-arcsin(s.u)``, computed as ``arctan2(-s.u, |s - (s.u) u|)`` for accuracy). Positive
    when the top of the wheel leans outboard.
``toe``
    Angle, in the ground plane, between the wheel's heading (the line where the wheel
    plane meets the ground plane) and the forward direction: ``arctan2(s.f, s.o)``.
    Positive for toe-in (the front of the wheel points inboard).
``castor``
    Side view (projection on the x-z plane): angle between the steering axis and the
    vertical, ``arctan2(-k.f, k.u)``. Positive when the top of the axis leans rearward.
``kingpin_inclination``
    Front view (projection on the y-z plane): ``arctan2(-k.o, k.u)``. Positive when the top
    of the axis leans inboard.
``scrub_radius``
    Kingpin offset at the ground: with ``G`` the point where the steering axis meets the
    ground plane, ``(P - G).o``, the lateral distance in the ground plane (global lateral
    axis, as the Altair/MotionView SDF reports it). Positive when ``G`` lies inboard of the
    contact patch centre.
``kingpin_offset_wheel_centre``
    Kingpin offset at the wheel centre: with ``K_c`` the point of the steering axis at the
    height of the wheel centre, ``(C - K_c).o``; positive when the axis passes inboard of
    the wheel centre.
``castor_trail``
    Castor offset at the ground, also called mechanical trail (Milliken) or caster trail:
    ``(G - P).f``, the longitudinal distance in the ground plane. Positive when the
    steering axis meets the ground ahead of the contact patch centre (the usual trail of
    positive castor).
``hub_trail``
    Castor offset at the wheel centre: ``(K_c - C).f``; positive when the steering axis
    passes ahead of the wheel centre. With zero camber and toe,
    ``castor_trail = hub_trail + R tan(castor)`` and
    ``scrub_radius = kingpin_offset_wheel_centre - R tan(kingpin_inclination)``.
``wheel_travel``
    Vertical displacement of the wheel centre from the reference assembly (the design
    pose), ``(C - C_0).u``; positive in bump (jounce).
``wheel_recession``
    Longitudinal displacement of the wheel centre from the reference assembly,
    ``-(C - C_0).f``; positive rearward.
``track_change``
    Lateral displacement of the contact patch from the reference assembly,
    ``(P - P_0).o``; positive outboard (this corner's share of the track-width change).
``half_track``
    Lateral distance of the contact patch from the vehicle centre plane
    ``y = centre_plane_y``: ``(P - (0, centre_plane_y, 0)).o``.
``camber_gain``, ``bump_steer``
    ``d(camber)/d(wheel_travel)`` and ``d(toe)/d(wheel_travel)``, rad/m. Bump steer is
    positive when the wheel toes in as it rises.
``roll_centre_height``, ``roll_centre_z``
    The kinematic roll centre from the velocity solution. In the front view (the y-z
    plane), the point of the upright that coincides with the contact patch moves with
    velocity ``v_P``; the instant centre of the wheel relative to the body lies on the
    line through ``P`` perpendicular to ``v_P``, and that line meets the vehicle centre
    plane ``y = centre_plane_y`` at the roll centre (for a corner mirrored on the other
    side the two lines meet there). ``roll_centre_z`` is its global z;
    ``roll_centre_height`` its height above the ground plane, ``roll_centre_z - P.u``, as
    packages report it (Altair SDF: roll-centre z minus the tyre-patch z). NaN where
    ``v_P`` has no vertical component (the line is parallel to the centre plane).
``spring_length``, ``motion_ratio`` (only when ``Corner.spring`` is given)
    Distance between the spring's two attachment points, and
    ``motion_ratio = -d(spring_length)/d(wheel_travel)``: spring compression per unit
    wheel bump (the installation ratio; 0.6 means the spring shortens 0.6 mm per mm of
    bump). Positive when the spring shortens in bump.

Rates come from the velocity solution, not from differences
~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
Every derivative with respect to wheel travel is a ratio of two rates at the same
position: the rate of the metric (from the point velocities, mechanism/METHOD.md eq. 6, and the
upright's angular velocity) over the wheel centre's vertical speed ``C'.u``. It is exact
to the sweep's closure tolerance at every position, with no step size. The derivative is
taken along the sweep's own motion: sweep with one driver moving (typically the point
driver ``travel`` with ``speeds={"travel": 1.0}``), or the ratios mix the motions of all
moving drivers. A sweep without ``speeds=`` has zero velocities; the rate-based metrics
(``camber_gain``, ``bump_steer``, ``motion_ratio``, roll centre) are then NaN, with a
warning.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass

import numpy as np

from mechanism.errors import ModelError

from .point_kinematics import point_positions, point_velocities
from .configuration import evaluate

__all__ = ["Corner", "suspension_metrics", "metrics_at", "contact_patch", "METRICS"]

#: The metric names :func:`suspension_metrics` returns, with their units
#: (the last two only for a corner with a spring).
METRICS = {
    "camber": "rad",
    "toe": "rad",
    "castor": "rad",
    "kingpin_inclination": "rad",
    "scrub_radius": "m",
    "kingpin_offset_wheel_centre": "m",
    "castor_trail": "m",
    "hub_trail": "m",
    "wheel_travel": "m",
    "wheel_recession": "m",
    "track_change": "m",
    "half_track": "m",
    "camber_gain": "rad/m",
    "bump_steer": "rad/m",
    "roll_centre_height": "m",
    "roll_centre_z": "m",
    "spring_length": "m",
    "motion_ratio": "1",
}

_UP = np.array([0.0, 0.0, 1.0])
_AXIS_PAIRS = ("revolute", "cylindrical")


def _name(value, where):
    if not isinstance(value, str) or not value:
        raise ModelError(where, f"expected a non-empty name, got {value!r}")
    return value


@dataclass(frozen=True)
class Corner:
    """Which parts of a mechanism make a wheel corner, and how the vehicle is oriented.

    Parameters
    ----------
    upright : str
        The link carrying the wheel (upright, knuckle, hub carrier). The roll centre uses
        the velocity of its point at the contact patch.
    wheel_centre : str
        Point name: the wheel centre (on the upright or on the wheel).
    spin_axis_point : str
        Point name: another point of the spin axis, inboard of the wheel centre.
    kingpin : (str, str) or str
        The steering axis: two names, each a point or a pair (its centre: a ball joint),
        for example ``("lower_ball", "upper_ball")``; or one revolute or cylindrical pair
        name, whose axis is the steering axis (a kingpin bearing).
    wheel_radius : float
        Loaded radius, m: the contact patch is the wheel centre moved down the wheel
        plane's vertical by this much.
    side : {"left", "right"}
        The side of the vehicle the corner is on.
    forward : {"+x", "-x"}
        Which way the model's x axis points: ``"+x"`` forward (ISO 8855: y left, z up),
        ``"-x"`` rearward (y right, z up).
    spring : (str, str) or str or None
        The spring (or damper, coil-over): two point names, or the name of a
        spring-damper of the model (``Mechanism.add_spring_damper``).
    centre_plane_y : float
        The vehicle centre plane is ``y = centre_plane_y`` (m).

    Names are looked up when the metrics are computed; a point name is taken before a
    pair name of the same spelling.
    """

    upright: str
    wheel_centre: str
    spin_axis_point: str
    kingpin: tuple | str
    wheel_radius: float
    side: str
    forward: str = "+x"
    spring: tuple | str | None = None
    centre_plane_y: float = 0.0

    def __post_init__(self):
        _name(self.upright, "corner: upright")
        _name(self.wheel_centre, "corner: wheel_centre")
        _name(self.spin_axis_point, "corner: spin_axis_point")
        if isinstance(self.kingpin, str):
            _name(self.kingpin, "corner: kingpin")
        else:
            if not isinstance(self.kingpin, (tuple, list)) or len(self.kingpin) != 2:
                raise ModelError("corner: kingpin", "give two point or pair names, or one revolute pair name; "
                                 f"got {self.kingpin!r}")
            object.__setattr__(self, "kingpin", tuple(_name(n, "corner: kingpin") for n in self.kingpin))
            if self.kingpin[0] == self.kingpin[1]:
                raise ModelError("corner: kingpin", f"the two names are the same ({self.kingpin[0]!r})")
        if self.spring is not None and not isinstance(self.spring, str):
            if not isinstance(self.spring, (tuple, list)) or len(self.spring) != 2:
                raise ModelError("corner: spring", "give two point names or a spring-damper name; "
                                 f"got {self.spring!r}")
            object.__setattr__(self, "spring", tuple(_name(n, "corner: spring") for n in self.spring))
        try:
            radius = float(self.wheel_radius)
        except (TypeError, ValueError):
            raise ModelError("corner: wheel_radius", f"expected a number, got {self.wheel_radius!r}") from None
        if not math.isfinite(radius) or radius <= 0:
            raise ModelError("corner: wheel_radius", f"expected a positive length (m), got {self.wheel_radius!r}")
        object.__setattr__(self, "wheel_radius", radius)
        if self.side not in ("left", "right"):
            raise ModelError("corner: side", f"expected 'left' or 'right', got {self.side!r}")
        if self.forward not in ("+x", "-x"):
            raise ModelError("corner: forward", f"expected '+x' or '-x', got {self.forward!r}")
        try:
            plane = float(self.centre_plane_y)
        except (TypeError, ValueError):
            raise ModelError("corner: centre_plane_y", f"expected a number, got {self.centre_plane_y!r}") from None
        if not math.isfinite(plane):
            raise ModelError("corner: centre_plane_y", f"non-finite value {self.centre_plane_y!r}")
        object.__setattr__(self, "centre_plane_y", plane)

    @property
    def axes(self):
        """Unit vectors ``(forward, outboard, up)``, global, each (3,)."""
        forward = np.array([1.0 if self.forward == "+x" else -1.0, 0.0, 0.0])
        left = np.cross(_UP, forward)
        outboard = left if self.side == "left" else -left
        return forward, outboard, _UP.copy()


# ---------------------------------------------------------------- locating points
class _Located:
    """A point fixed in a link: ``link`` name and coordinates ``r`` (3,) in the link's frame."""

    def __init__(self, link, r, what):
        self.link, self.r, self.what = link, np.asarray(r, dtype=float), what


class _Frames:
    """Link poses and velocities of a result (or of the reference assembly) by link name."""

    def __init__(self, poses, velocities):
        self._poses, self._velocities = poses, velocities

    def position(self, located):
        return point_positions(self._poses(located.link), located.r)

    def velocity(self, located, position):
        return point_velocities(position, self._velocities(located.link))

    def rotation(self, link):
        return self._poses(link)[..., :3, :3]


def _locate(model, name, upright, where):
    """A point or a pair centre by name: :class:`_Located` (pairs on ``upright`` when they touch it)."""
    for point in model.points:
        if point.name == name:
            return _Located(point.link, point.at, f"point {name!r}")
    for pair in model.pairs:
        if pair.name == name and not pair.virtual:
            if pair.second == upright or pair.first != upright:
                return _Located(pair.second, pair.frame_on_second[:3, 3], f"pair {name!r}")
            return _Located(pair.first, pair.frame_on_first[:3, 3], f"pair {name!r}")
    points = ", ".join(p.name for p in model.points) or "none"
    raise ModelError(where, f"{name!r} is neither a point nor a pair of {model.name!r} (points: {points})")


def _locate_point(model, name, where):
    for point in model.points:
        if point.name == name:
            return _Located(point.link, point.at, f"point {name!r}")
    points = ", ".join(p.name for p in model.points) or "none"
    raise ModelError(where, f"{name!r} is not a point of {model.name!r} (points: {points})")


class _Resolved:
    """A corner's names resolved against a model."""

    def __init__(self, model, corner: Corner):
        real_links = {link.name for link in model.links if not link.virtual}
        if corner.upright not in real_links:
            raise ModelError("corner: upright", f"{corner.upright!r} is not a link of {model.name!r} "
                             f"(links: {', '.join(sorted(real_links))})")
        self.wheel_centre = _locate_point(model, corner.wheel_centre, "corner: wheel_centre")
        self.spin_axis_point = _locate_point(model, corner.spin_axis_point, "corner: spin_axis_point")
        self.kingpin_axis = None
        if isinstance(corner.kingpin, str):
            pair = next((p for p in model.pairs if p.name == corner.kingpin and not p.virtual), None)
            if pair is None or pair.kind not in _AXIS_PAIRS:
                found = "not a pair" if pair is None else f"a {pair.kind} pair"
                raise ModelError("corner: kingpin", f"{corner.kingpin!r} is {found}; a single kingpin name must be "
                                 "a revolute or cylindrical pair (or give two point or pair names)")
            link, frame = ((pair.first, pair.frame_on_first) if pair.first == corner.upright
                           else (pair.second, pair.frame_on_second))
            self.kingpin = (_Located(link, frame[:3, 3], f"pair {pair.name!r}"), None)
            self.kingpin_axis = frame[:3, 2].copy()  # the pair's axis, in the link's frame
        else:
            self.kingpin = tuple(_locate(model, n, corner.upright, "corner: kingpin") for n in corner.kingpin)
        self.spring = None
        if isinstance(corner.spring, str):
            spec = next((s for s in model.spring_dampers if s.name == corner.spring), None)
            if spec is None:
                known = ", ".join(s.name for s in model.spring_dampers) or "none"
                raise ModelError("corner: spring", f"{corner.spring!r} is not a spring-damper of {model.name!r} "
                                 f"(spring-dampers: {known}); or give two point names")
            self.spring = (_Located(spec.link_a, spec.at_a, f"spring {spec.name!r} end a"),
                           _Located(spec.link_b, spec.at_b, f"spring {spec.name!r} end b"))
        elif corner.spring is not None:
            self.spring = tuple(_locate_point(model, n, "corner: spring") for n in corner.spring)

    def kingpin_points(self, frames: _Frames):
        """Two points of the steering axis, (..., 3) each."""
        first, second = self.kingpin
        lower = frames.position(first)
        if second is None:
            axis = np.einsum("...ij,j->...i", frames.rotation(first.link), self.kingpin_axis)
            return lower, lower + axis
        return lower, frames.position(second)


# ---------------------------------------------------------------- geometry
def _dot(a, b):
    return np.einsum("...i,...i->...", a, b)


def _unit(v):
    return v / np.linalg.norm(v, axis=-1, keepdims=True)


def _wheel_geometry(centre, inner, radius):
    """Spin axis ``s`` (..., 3), axle length (...,) and contact patch (..., 3)."""
    axle = centre - inner
    length = np.linalg.norm(axle, axis=-1)
    spin = axle / length[..., None]
    downward = -(_UP - _dot(spin, _UP)[..., None] * spin)
    downward = _unit(downward)
    return spin, length, centre + radius * downward


def _axis_at_height(point, axis, height):
    """Where the line ``point + t axis`` reaches z = ``height``: (..., 3)."""
    t = (height - point[..., 2]) / axis[..., 2]
    return point + t[..., None] * axis


def _ratio(numerator, denominator):
    """``numerator / denominator``, NaN where the denominator is exactly zero."""
    out = np.full(np.broadcast(numerator, denominator).shape, np.nan)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def contact_patch(result, corner: Corner):
    """Contact patch centre at every position of ``result``: (N, 3) m, global.

    The wheel centre moved by ``corner.wheel_radius`` down the wheel plane's vertical
    (see the module docstring).
    """
    resolved = _Resolved(result.model, corner)
    frames = _Frames(result.pose, result.link_velocity)
    _, _, patch = _wheel_geometry(frames.position(resolved.wheel_centre),
                                  frames.position(resolved.spin_axis_point), corner.wheel_radius)
    return patch


def _reference_frames(result):
    """Link poses at the reference assembly (the design pose), by link name."""
    system = result.system
    poses = evaluate(system, system.reference_q()).link_poses
    return _Frames(lambda link: poses[system.link_index[link]], None)


def suspension_metrics(result, corner: Corner) -> dict:
    """Suspension metrics of ``corner`` at every position of a sweep.

    Parameters
    ----------
    result : loops.results.SweepResult
        A sweep of the mechanism, with driver speeds for the rate-based metrics
        (``m.sweep({"travel": values}, speeds={"travel": 1.0})``).
    corner : Corner

    Returns
    -------
    dict
        Metric name -> ndarray, shape (N,): the names of :data:`METRICS` (``spring_length``
        and ``motion_ratio`` only when the corner has a spring). Radians, metres, rad/m;
        definitions and signs in the module docstring.

    Raises
    ------
    ModelError
        When a name of ``corner`` is not in the model, when the spin-axis point is not
        inboard of the wheel centre, or when the wheel centre is not on ``corner.side``
        of the centre plane (at the reference assembly).

    Examples
    --------
    >>> import numpy as np
    >>> from mechanism import load_model
    >>> from loops.suspension import Corner, suspension_metrics
    >>> model = load_model("examples/double_wishbone.toml")
    >>> bump = model.sweep({"travel": np.linspace(-0.05, 0.05, 11)}, speeds={"travel": 1.0})
    >>> corner = Corner(upright="upright", wheel_centre="wheel_centre", spin_axis_point="hub_inner",
    ...                 kingpin=("lower_ball", "upper_ball"), wheel_radius=0.3, side="left")
    >>> metrics = suspension_metrics(bump, corner)
    >>> metrics["camber"].shape
    (11,)
    """
    resolved = _Resolved(result.model, corner)
    forward, outboard, up = corner.axes
    frames = _Frames(result.pose, result.link_velocity)

    # Design pose: the reference for travel, recession and track change; and the checks.
    reference = _reference_frames(result)
    centre_0 = reference.position(resolved.wheel_centre)
    inner_0 = reference.position(resolved.spin_axis_point)
    _, _, patch_0 = _wheel_geometry(centre_0, inner_0, corner.wheel_radius)
    if _dot(centre_0 - inner_0, outboard) <= 0:
        raise ModelError("corner: spin_axis_point",
                         f"{corner.spin_axis_point!r} is not inboard of {corner.wheel_centre!r} for a "
                         f"{corner.side} corner with x pointing {'forward' if corner.forward == '+x' else 'rearward'}")
    plane_point = np.array([0.0, corner.centre_plane_y, 0.0])
    if _dot(centre_0 - plane_point, outboard) <= 0:
        raise ModelError("corner: side",
                         f"the wheel centre (y = {centre_0[1]:.6g} m at the design pose) is not on the "
                         f"{corner.side} of the centre plane y = {corner.centre_plane_y:.6g} m "
                         f"(forward = {corner.forward!r})")

    centre = frames.position(resolved.wheel_centre)
    inner = frames.position(resolved.spin_axis_point)
    spin, axle_length, patch = _wheel_geometry(centre, inner, corner.wheel_radius)
    spin_f, spin_o, spin_u = _dot(spin, forward), _dot(spin, outboard), _dot(spin, up)
    horizontal = np.linalg.norm(spin - spin_u[:, None] * up, axis=-1)

    out = {
        "camber": np.arctan2(-spin_u, horizontal),
        "toe": np.arctan2(spin_f, spin_o),
    }

    lower, upper = resolved.kingpin_points(frames)
    axis = upper - lower
    if np.any(np.linalg.norm(axis, axis=-1) == 0):
        raise ModelError("corner: kingpin", "the two kingpin points coincide")
    axis = _unit(axis) * np.where(_dot(axis, up) < 0, -1.0, 1.0)[:, None]
    out["castor"] = np.arctan2(-_dot(axis, forward), _dot(axis, up))
    out["kingpin_inclination"] = np.arctan2(-_dot(axis, outboard), _dot(axis, up))
    with np.errstate(divide="ignore", invalid="ignore"):  # a horizontal axis meets no plane
        at_ground = _axis_at_height(lower, axis, patch[:, 2])
        at_centre = _axis_at_height(lower, axis, centre[:, 2])
    out["scrub_radius"] = _dot(patch - at_ground, outboard)
    out["kingpin_offset_wheel_centre"] = _dot(centre - at_centre, outboard)
    out["castor_trail"] = _dot(at_ground - patch, forward)
    out["hub_trail"] = _dot(at_centre - centre, forward)

    out["wheel_travel"] = _dot(centre - centre_0, up)
    out["wheel_recession"] = -_dot(centre - centre_0, forward)
    out["track_change"] = _dot(patch - patch_0, outboard)
    out["half_track"] = _dot(patch - plane_point, outboard)

    # Rates (mechanism/METHOD.md eq. 6), divided by the wheel centre's vertical speed.
    centre_rate = frames.velocity(resolved.wheel_centre, centre)
    inner_rate = frames.velocity(resolved.spin_axis_point, inner)
    travel_rate = _dot(centre_rate, up)
    if len(travel_rate) and not np.any(travel_rate):
        warnings.warn("the sweep carries no velocities (no speeds= given): camber_gain, bump_steer, "
                      "motion_ratio and the roll centre are NaN; sweep with speeds={'travel': 1.0}",
                      UserWarning, stacklevel=2)
    axle_rate = centre_rate - inner_rate
    spin_rate = (axle_rate - _dot(spin, axle_rate)[:, None] * spin) / axle_length[:, None]
    spin_rate_f, spin_rate_o, spin_rate_u = (_dot(spin_rate, forward), _dot(spin_rate, outboard),
                                             _dot(spin_rate, up))
    camber_rate = -spin_rate_u / horizontal
    toe_rate = (spin_rate_f * spin_o - spin_f * spin_rate_o) / (spin_f ** 2 + spin_o ** 2)
    out["camber_gain"] = _ratio(camber_rate, travel_rate)
    out["bump_steer"] = _ratio(toe_rate, travel_rate)

    # Roll centre: front view, the line through P normal to the velocity of the upright's
    # point at P, met with the centre plane y = centre_plane_y:
    #   (y_c - P_y) v_y + (z - P_z) v_z = 0.
    patch_rate = point_velocities(patch, result.link_velocity(corner.upright))
    height = _ratio((patch[:, 1] - corner.centre_plane_y) * patch_rate[:, 1], patch_rate[:, 2])
    out["roll_centre_height"] = height
    out["roll_centre_z"] = patch[:, 2] + height

    if resolved.spring is not None:
        end_a, end_b = resolved.spring
        a, b = frames.position(end_a), frames.position(end_b)
        span = a - b
        length = np.linalg.norm(span, axis=-1)
        length_rate = _dot(span, frames.velocity(end_a, a) - frames.velocity(end_b, b)) / length
        out["spring_length"] = length
        out["motion_ratio"] = _ratio(-length_rate, travel_rate)
    return out


def metrics_at(result, index: int, corner: Corner) -> dict:
    """The metrics of :func:`suspension_metrics` at one position: metric name -> float.

    ``index`` counts the sweep's positions (negative counts from the end).
    """
    count = len(result)
    if not isinstance(index, (int, np.integer)) or not -count <= index < count:
        raise ModelError("index", f"expected a position index in [{-count}, {count}), got {index!r}")
    return {name: float(values[index]) for name, values in suspension_metrics(result, corner).items()}
