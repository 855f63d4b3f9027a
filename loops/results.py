"""Results of a sweep: pair variables, their rates, link poses and point trajectories.

A :class:`SweepResult` keeps the frozen model it was computed from, so editing the
mechanism afterwards never changes it. Arrays are SI and radians; pair angles are relative
to the design pose and unwrapped along the sweep (they do not jump by 2 pi).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass

import numpy as np

from mechanism.atomic import write_text_atomically
from mechanism.errors import ModelError

from .point_kinematics import point_accelerations, point_positions, point_velocities

__all__ = ["SweepResult", "Column"]


@dataclass(frozen=True)
class Column:
    """One CSV column: ``dimension`` is ``"angle"`` (rad) or ``"length"`` (m); ``order`` 0, 1, 2
    for value, rate (``_dot``) and second rate (``_ddot``)."""

    name: str
    values: np.ndarray
    dimension: str
    order: int


class SweepResult:
    """Positions, velocities and accelerations at each sweep position.

    Attributes
    ----------
    model : mechanism.specs.Model
    drivers : list of str, the driver names, in the order given
    variable_names : list of str, public pair variables (drivers first), ``"U.0"`` style
    point_names : list of str
    stop_reason : str or None, why the sweep stopped early (None when complete)
    """

    def __init__(self, system, drivers, q, q_dot, q_ddot, poses, link_velocities,
                 link_accelerations, stop_reason=None):
        self.system = system
        self.model = system.model
        self.drivers = list(drivers)
        self._q = q
        self._q_dot = q_dot
        self._q_ddot = q_ddot
        self._poses = poses
        self._link_velocities = link_velocities
        self._link_accelerations = link_accelerations
        self.stop_reason = stop_reason
        public = system.public_variables()
        self.variable_names = self.drivers + [v for v in public if v not in self.drivers]
        self.point_names = [p.name for p in self.model.points]

    def __len__(self):
        return self._q.shape[0]

    def __repr__(self):
        state = "complete" if self.stop_reason is None else f"stopped: {self.stop_reason}"
        return f"SweepResult({len(self)} positions of {self.model.name!r}, {state})"

    # --------------------------------------------------------- variables
    def _columns_of(self, name):
        system = self.system
        if name in system.pair_slices and not system.pairs[system.pair_index[name]].virtual:
            sl = system.pair_slices[name]
            return sl if sl.stop - sl.start > 1 else sl.start
        if name in system.variable_index and system.public[system.variable_index[name]]:
            return system.variable_index[name]
        raise ModelError(f"variable {name!r}", f"not a pair variable of {self.model.name!r} "
                         f"(known: {', '.join(self.variable_names)})")

    def q(self, name):
        """Values of pair (or point-driver) variable ``name``: (N,), or (N, k) for a whole pair.

        Radians or metres relative to the design pose; a spherical pair gives its rotation
        vector (global axes at the design pose).
        """
        return self._q[:, self._columns_of(name)].copy()

    def q_dot(self, name):
        """Rates of ``name`` (rad/s, m/s); a spherical pair's is its relative angular velocity."""
        return self._q_dot[:, self._columns_of(name)].copy()

    def q_ddot(self, name):
        """Second rates of ``name`` (rad/s^2, m/s^2)."""
        return self._q_ddot[:, self._columns_of(name)].copy()

    # ------------------------------------------------------------- links
    def _link(self, link):
        if link not in self.system.link_index or self.system.links[self.system.link_index[link]].virtual:
            raise ModelError(f"link {link!r}", f"not a link of {self.model.name!r}")
        return self.system.link_index[link]

    def pose(self, link):
        """Absolute transforms ``T_0i`` of ``link``: (N, 4, 4), identity at the design pose."""
        return self._poses[:, self._link(link)].copy()

    def link_velocity(self, link):
        """Spatial velocity ``(omega, v_o)`` of ``link`` (global, origin-referenced): (N, 6)."""
        return self._link_velocities[:, self._link(link)].copy()

    def link_acceleration(self, link):
        """Spatial acceleration ``(omega', v_o')`` of ``link``: (N, 6)."""
        return self._link_accelerations[:, self._link(link)].copy()

    # ------------------------------------------------------------ points
    def _point(self, name):
        for point in self.model.points:
            if point.name == name:
                return self.system.link_index[point.link], point.at
        raise ModelError(f"point {name!r}", f"not a point of {self.model.name!r} "
                         f"(known: {', '.join(self.point_names) or 'none'})")

    def point(self, name):
        """Global coordinates of point ``name``: (N, 3) m (eq. 5)."""
        link, r = self._point(name)
        return point_positions(self._poses[:, link], r)

    def point_velocity(self, name):
        """Velocity of point ``name``: (N, 3) m/s, global (eq. 6)."""
        link, r = self._point(name)
        return point_velocities(point_positions(self._poses[:, link], r), self._link_velocities[:, link])

    def point_acceleration(self, name):
        """Acceleration of point ``name``: (N, 3) m/s^2, global."""
        link, r = self._point(name)
        positions = point_positions(self._poses[:, link], r)
        velocities = point_velocities(positions, self._link_velocities[:, link])
        return point_accelerations(positions, velocities, self._link_velocities[:, link],
                                   self._link_accelerations[:, link])

    # ---------------------------------------------------------------- CSV
    def columns(self, points=None) -> list[Column]:
        """CSV columns in order: variables (drivers first), points ``P.x P.y P.z``, then the same
        with ``_dot``, then ``_ddot``. ``points`` limits the points (default: all)."""
        system = self.system
        names = self.point_names if points is None else list(points)
        getters = ((self._q, self.point, ""), (self._q_dot, self.point_velocity, "_dot"),
                   (self._q_ddot, self.point_acceleration, "_ddot"))
        out = []
        for order, (values, point_getter, suffix) in enumerate(getters):
            for name in self.variable_names:
                col = system.variable_index[name]
                dimension = "angle" if system.rotational[col] else "length"
                out.append(Column(name + suffix, values[:, col], dimension, order))
            for name in names:
                xyz = point_getter(name)
                for axis, label in enumerate("xyz"):
                    out.append(Column(f"{name}.{label}{suffix}", xyz[:, axis], "length", order))
        return out

    def to_csv(self, path, points=None):
        """Write every column (SI units) to ``path`` atomically; see :meth:`columns`."""
        columns = self.columns(points)
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow([c.name for c in columns])
        data = np.column_stack([c.values for c in columns]) if columns else np.zeros((len(self), 0))
        for row in data:
            writer.writerow([repr(float(x)) for x in row])
        write_text_atomically(path, buffer.getvalue())
