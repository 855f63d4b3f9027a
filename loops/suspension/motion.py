"""Where and along what the suspension metrics are taken: frames and motions.

A :class:`Frame` is where metrics are measured (the body's, or the road's in a roll); a
:class:`Motion` is link poses with their twists and twist rates per unit of one parameter
(a driver, a hardpoint coordinate), all in one frame, from which every point jet of
:mod:`loops.suspension.jets` follows (METHOD.md eqs. 5, 6).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import jets
from .corner import Corner

__all__ = ["Frame", "Motion", "reference_poses"]


@dataclass(frozen=True)
class Frame:
    """Where the metrics are taken: ``forward`` and ``up`` unit vectors (3,), the vehicle's
    ``left`` (N, 3) or (3,) and a point ``centre`` (N, 3) or (3,) of its centre plane, all in
    the frame's coordinates. The body frame is the model's ground."""

    forward: np.ndarray
    up: np.ndarray
    left: np.ndarray
    centre: np.ndarray

    @classmethod
    def body(cls, corner: Corner):
        forward, _, up = corner.axes
        return cls(forward, up, corner.left, np.array([0.0, corner.centre_plane_y, 0.0]))


class Motion:
    """Link poses (N, 4, 4) with the twists ``(omega, v_o)`` (N, 6) and their rates (N, 6)
    of one motion, per unit of its parameter, all in one frame. ``acceleration`` may be
    None (second rates then NaN). ``twist_rate``, when given, is the twists' rate (N, 6)
    along another direction, the one a design sensitivity differentiates along (a virtual
    steering axis, the upright's instant screw axis in this motion, then moves with it)."""

    def __init__(self, pose, twist, acceleration=None, twist_rate=None):
        self._pose, self._twist, self._acceleration = pose, twist, acceleration
        self._twist_rate = twist_rate
        self._cache = {}

    @classmethod
    def of(cls, trajectory):
        """The motion a trajectory record carries (its own velocities and accelerations)."""
        return cls(trajectory.pose, trajectory.link_velocity, trajectory.link_acceleration)

    def _get(self, kind, link):
        key = (kind, link)
        if key not in self._cache:
            getter = {"pose": self._pose, "twist": self._twist, "acceleration": self._acceleration,
                      "twist_rate": self._twist_rate}[kind]
            value = None if getter is None else getter(link)
            self._cache[key] = None if value is None else np.asarray(value, dtype=float)
        return self._cache[key]

    def pose(self, link):
        return self._get("pose", link)

    def twist(self, link):
        return self._get("twist", link)

    def acceleration(self, link):
        return self._get("acceleration", link)

    def twist_rate(self, link):
        return self._get("twist_rate", link)

    def point(self, located):
        """Jet of a located point along this motion."""
        return jets.point_jet(self.pose(located.link), self.twist(located.link),
                              self.acceleration(located.link), located.r)

    def in_frame(self, rotation, translation):
        """The same motion seen in a frame where ``p' = rotation p + translation``
        (``rotation`` (N, 3, 3), ``translation`` (N, 3), fixed along the motion)."""
        R, t = rotation, translation
        M = np.zeros(R.shape[:-2] + (4, 4))
        M[..., :3, :3], M[..., :3, 3], M[..., 3, 3] = R, t, 1.0

        def twist_of(getter):
            def get(link):
                V = getter(link)
                if V is None:
                    return None
                omega = np.einsum("nij,nj->ni", R, V[:, :3])
                v = np.einsum("nij,nj->ni", R, V[:, 3:]) - jets.cross_product(omega, t)
                return np.concatenate([omega, v], axis=1)
            return get

        return Motion(lambda link: M @ self.pose(link), twist_of(self.twist), twist_of(self.acceleration),
                      twist_of(self.twist_rate))

    def combined(self, parts):
        """First-order motion ``sum_k c_k motion_k + (frame twist)``: ``parts`` is a list of
        ``(coefficient (N,), Motion or twist (N, 6))``; a bare twist applies to every link
        (a rigid motion of the whole frame). Poses are this motion's; no second rates."""
        def twist(link):
            total = np.zeros_like(self.twist(link))
            for coefficient, part in parts:
                value = part if isinstance(part, np.ndarray) else part.twist(link)
                total = total + np.asarray(coefficient)[:, None] * value
            return total

        return Motion(self.pose, twist, None)


def reference_poses(result):
    """Link poses at the reference assembly (the design pose) by link name: (4, 4) each."""
    from ..configuration import evaluate  # noqa: PLC0415

    system = result.system
    poses = evaluate(system, system.reference_q()).link_poses
    return lambda link: poses[system.link_index[link]]
