"""Suspension corners solved from their hardpoints alone, and their metrics by hand geometry.

The reference for ``tests/test_suspension_references.py``: nothing here imports
kinematrix. A corner is its upright's rigid motion ``x -> R x + t`` since the design pose,
found by ``scipy.optimize.least_squares`` (to round-off) from five hardpoint constraints and
the wheel travel, each written out from the model file's numbers (read with ``tomllib``):

* a ball joint on an arm that turns about a fixed axis stays on its circle (2 equations);
* a ball joint on a rod (ball joints at both ends) keeps the rod's length (1 equation);
* a fixed point (a strut's top mount) stays on a line of the upright (2 equations);
* the wheel centre is ``travel`` above its design height (1 equation).

The metrics are then the textbook constructions: the spin axis from two points, the
contact patch a radius down the wheel plane, the steering axis through two ball joints (or
the instantaneous screw axis, from central differences of the poses), an instant centre
where the lines perpendicular to two points' velocities (central differences) meet in a
view, the roll centre on the line from the contact patch through it, anti-geometry from
the side-view instant centre (or the path slope), the wheel rate as the second derivative
of the spring's energy (virtual work). Units: m, rad. Left corners, x forward, y left.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

import numpy as np
from scipy.optimize import brentq, least_squares
from scipy.spatial.transform import Rotation

__all__ = ["Corner", "double_wishbone", "macpherson", "five_link", "spin_metrics", "instant_centre",
           "screw_axis", "MM"]

MM = 1e-3
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SOLVE = {"xtol": 1e-15, "ftol": 1e-15, "gtol": 1e-15, "method": "lm"}


def _file(name):
    data = tomllib.loads((EXAMPLES / name).read_text())
    pairs = {p["name"]: p for p in data["pairs"]}
    points = {p["name"]: p for p in data["points"]}
    springs = {s["name"]: s for s in data.get("spring_dampers", [])}
    return data, pairs, points, springs


def _at(table, name):
    return np.array(table[name]["at"], dtype=float) * MM


def _unit(v):
    return np.asarray(v, dtype=float) / np.linalg.norm(v)


def _circle(point, axis, ball):
    """Residuals (2) of a ball on an arm turning about the line (point, axis)."""
    axis = _unit(axis)
    r0 = ball - point
    height0 = r0 @ axis
    radius0 = np.linalg.norm(r0 - height0 * axis)

    def residual(moved, steer):
        r = moved - point
        height = r @ axis
        return [height - height0, np.linalg.norm(r - height * axis) - radius0]

    return residual, 2


def _rod(body, ball, body_motion=None):
    """Residual (1) of a rod between ``body`` (moved by ``body_motion(steer)``) and a ball."""
    length = np.linalg.norm(ball - body)

    def residual(moved, steer):
        end = body if body_motion is None else body + body_motion(steer)
        return [np.linalg.norm(moved - end) - length]

    return residual, 1


class Corner:
    """An upright held by hardpoint constraints; ``pose(travel, steer)`` -> ``(R, t)``.

    Parameters
    ----------
    constraints : list of ``(residual(moved_ball, steer), count, ball)`` plus, for a line
        through a fixed point, ``("line", fixed, base, direction)``
    centre, inner : wheel centre and spin-axis point at the design pose (3,)
    radius : loaded radius
    """

    def __init__(self, constraints, lines, centre, inner, radius, spring=None, kingpin=None):
        self.constraints, self.lines = constraints, lines
        self.centre, self.inner, self.radius = centre, inner, radius
        self.spring, self.kingpin = spring, kingpin
        self._cache = {}

    def _equations(self, x, travel, steer):
        R = Rotation.from_rotvec(x[:3]).as_matrix()
        t = x[3:]
        out = []
        for residual, _, ball in self.constraints:
            out += residual(R @ ball + t, steer)
        for fixed, base, direction, normals in self.lines:
            q, d = R @ base + t, R @ direction
            c = np.cross(fixed - q, d)
            out += [c @ normals[0], c @ normals[1]]
        out.append((R @ self.centre + t)[2] - self.centre[2] - travel)
        return out

    def pose(self, travel, steer=0.0):
        """Upright rotation (3, 3) and translation (3,) at a wheel-centre travel and steer,
        walked to from the design pose in small steps (the branch of the design pose)."""
        key = (float(travel), float(steer))
        if key in self._cache:
            return self._cache[key]
        x = np.zeros(6)
        steps = max(1, int(np.ceil(max(abs(travel) / 0.01, abs(steer) / 0.005))))
        for k in range(1, steps + 1):
            solution = least_squares(self._equations, x, args=(travel * k / steps, steer * k / steps), **SOLVE)
            x = solution.x
        assert np.abs(solution.fun).max() < 1e-13, np.abs(solution.fun).max()
        R, t = Rotation.from_rotvec(x[:3]).as_matrix(), x[3:]
        self._cache[key] = (R, t)
        return R, t

    def move(self, point, travel, steer=0.0):
        """Where the upright's design-pose point ``point`` is at (travel, steer)."""
        R, t = self.pose(travel, steer)
        return R @ point + t

    def patch(self, travel, steer=0.0, up=np.array([0.0, 0.0, 1.0]), frame=None):
        """Contact patch (3,): the wheel centre moved a radius down the wheel plane; ``frame``
        maps points first (a rotation and translation, for a rolled body)."""
        C, I = self.move(self.centre, travel, steer), self.move(self.inner, travel, steer)
        if frame is not None:
            C, I = frame(C), frame(I)
        spin = _unit(C - I)
        down = -(up - (up @ spin) * spin)
        return C + self.radius * _unit(down)

    def centre_travel_for_patch(self, patch_travel, steer=0.0):
        """The wheel-centre travel that puts the contact patch ``patch_travel`` above its
        design height (a root in wheel-centre travel, by Brent's method)."""
        base = self.patch(0.0, steer)[2]

        def gap(s):
            return self.patch(s, steer)[2] - base - patch_travel

        return brentq(gap, patch_travel - 0.01, patch_travel + 0.01, xtol=1e-15, rtol=1e-15)


def spin_metrics(C, I):
    """Camber, front-view camber and toe of a left wheel from its centre and spin-axis point:
    camber = -asin(s_z) (top outboard +), toe = atan(s_x / s_y) (toe-in +)."""
    s = _unit(C - I)
    return {"camber": -np.arcsin(s[2]), "camber_front_view": np.arctan(-s[2] / s[1]), "toe": np.arctan(s[0] / s[1])}


def instant_centre(p1, v1, p2, v2, axes):
    """Where, in the view spanned by ``axes`` (two global axis indices), the lines through
    ``p1`` and ``p2`` perpendicular to their projected velocities meet: (2,) view coordinates."""
    a, b = axes
    # (X - p) . v = 0 for both points, X = (X_a, X_b)
    A = np.array([[v1[a], v1[b]], [v2[a], v2[b]]])
    rhs = np.array([p1[a] * v1[a] + p1[b] * v1[b], p2[a] * v2[a] + p2[b] * v2[b]])
    return np.linalg.solve(A, rhs)


def screw_axis(corner, travel, steer, h=1e-5):
    """The upright's instantaneous screw axis for steering at fixed travel, from central
    differences of the poses with Richardson extrapolation (steps h and 2h: error O(h^4)):
    (point on the axis (3,), unit direction (3,), pointing up)."""
    R0, t0 = corner.pose(travel, steer)
    material = R0.T @ (-t0)  # the upright's material point now at the origin

    def rates(step):
        Rp, tp = corner.pose(travel, steer + step)
        Rm, tm = corner.pose(travel, steer - step)
        omega = Rotation.from_matrix(Rp @ Rm.T).as_rotvec() / (2 * step)
        v = ((Rp @ material + tp) - (Rm @ material + tm)) / (2 * step)
        return omega, v

    (omega_h, v_h), (omega_2h, v_2h) = rates(h), rates(2 * h)
    omega, v = (4 * omega_h - omega_2h) / 3, (4 * v_h - v_2h) / 3
    point = np.cross(omega, v) / (omega @ omega)
    direction = _unit(omega)
    return point, direction if direction[2] > 0 else -direction


# ---------------------------------------------------------------- the example corners
def double_wishbone(name="front_axle.toml"):
    """The double wishbone of ``examples/front_axle.toml`` (rack: ``steer`` m, + left)."""
    data, pairs, points, springs = _file(name)
    lower_axis = (_at(pairs, "lower_inner"), np.array(pairs["lower_inner"]["axis"], float))
    upper_axis = (_at(pairs, "upper_inner"), np.array(pairs["upper_inner"]["axis"], float))
    lower, upper = _at(pairs, "lower_ball"), _at(pairs, "upper_ball")
    rack_end, steer_ball = _at(pairs, "rack_end"), _at(pairs, "steer_ball")
    constraints = [(*_circle(*lower_axis, lower), lower), (*_circle(*upper_axis, upper), upper),
                   (*_rod(rack_end, steer_ball, lambda s: np.array([0.0, s, 0.0])), steer_ball)]
    coil = springs["coil"]
    corner = Corner(constraints, [], _at(points, "wheel_centre"), _at(points, "hub_inner"),
                    data["corner"]["wheel_radius"] * MM)
    arm_point, body_point = np.array(coil["at_a"], float) * MM, np.array(coil["at_b"], float) * MM

    def spring_length(travel, steer=0.0):
        # the lower arm's rotation follows from where it carries the ball
        point, axis = lower_axis[0], _unit(lower_axis[1])
        r0 = lower - point
        r1 = corner.move(lower, travel, steer) - point
        r0 -= (r0 @ axis) * axis
        r1 -= (r1 @ axis) * axis
        angle = np.arctan2(np.cross(r0, r1) @ axis, r0 @ r1)
        moved = Rotation.from_rotvec(axis * angle).apply(arm_point - point) + point
        return np.linalg.norm(moved - body_point)

    corner.spring = (spring_length, coil["stiffness"] / MM, coil["free_length"] * MM)
    corner.kingpin = lambda travel, steer=0.0: (corner.move(lower, travel, steer), corner.move(upper, travel, steer))
    corner.lower_axis, corner.upper_axis, corner.balls = lower_axis, upper_axis, (lower, upper)
    return corner


def macpherson(name="macpherson.toml"):
    """The MacPherson strut of ``examples/macpherson.toml``: the steering axis runs from the
    lower ball joint to the top mount; the damper from the top mount to the strut base."""
    data, pairs, points, _ = _file(name)
    lca = (_at(pairs, "lca_inner"), np.array(pairs["lca_inner"]["axis"], float))
    lower = _at(pairs, "lower_ball")
    top, base = _at(pairs, "top_mount"), _at(pairs, "strut")
    direction = _unit(np.array(pairs["strut"]["axis"], float))
    rack_end, steer_ball = _at(pairs, "rack_end"), _at(pairs, "steer_ball")
    helper = np.cross(direction, [1.0, 0.0, 0.0])
    normals = (_unit(helper), _unit(np.cross(direction, helper)))
    constraints = [(*_circle(*lca, lower), lower), (*_rod(rack_end, steer_ball), steer_ball)]
    corner = Corner(constraints, [(top, base, direction, normals)], _at(points, "wheel_centre"),
                    _at(points, "hub_inner"), data["corner"]["wheel_radius"] * MM)
    corner.kingpin = lambda travel, steer=0.0: (corner.move(lower, travel, steer), top)
    corner.damper = lambda travel, steer=0.0: np.linalg.norm(top - corner.move(base, travel, steer))
    corner.lca, corner.lower = lca, lower
    return corner


def five_link(name="five_link_rear.toml"):
    """The five-link rear of ``examples/five_link_rear.toml``: five rods; the toe rod's inner
    ball on the lateral adjuster (``steer`` m, + left)."""
    data, pairs, points, springs = _file(name)
    rods = [("upper_front_inner", "upper_front_outer"), ("upper_rear_inner", "upper_rear_outer"),
            ("lower_front_inner", "lower_front_outer"), ("spring_link_inner", "spring_link_outer")]
    constraints = [(*_rod(_at(pairs, a), _at(pairs, b)), _at(pairs, b)) for a, b in rods]
    toe_inner, toe_outer = _at(pairs, "toe_link_inner"), _at(pairs, "toe_link_outer")
    constraints.append((*_rod(toe_inner, toe_outer, lambda s: np.array([0.0, s, 0.0])), toe_outer))
    corner = Corner(constraints, [], _at(points, "wheel_centre"), _at(points, "hub_inner"),
                    data["corner"]["wheel_radius"] * MM)
    coil = springs["coil"]
    inner, outer = _at(pairs, "spring_link_inner"), _at(pairs, "spring_link_outer")
    seat, body = np.array(coil["at_a"], float) * MM, np.array(coil["at_b"], float) * MM
    fraction = np.linalg.norm(seat - inner) / np.linalg.norm(outer - inner)
    assert np.linalg.norm(inner + fraction * (outer - inner) - seat) < 1e-12  # the seat is on the rod's axis

    def spring_length(travel, steer=0.0):
        moved = inner + fraction * (corner.move(outer, travel, steer) - inner)
        return np.linalg.norm(moved - body)

    corner.spring = (spring_length, coil["stiffness"] / MM, coil["free_length"] * MM)
    return corner
