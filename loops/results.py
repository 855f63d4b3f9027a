"""The one trajectory record: pair variables, their rates, link poses and point trajectories.

Sweeps (:class:`SweepResult`), simulations (:class:`dynamics.simulate.SimulationResult`)
and inverse-dynamics runs (:class:`dynamics.inverse_dynamics.InverseDynamicsResult`) all
return a :class:`Trajectory`, each adding what it has (times and energies; driver forces
and reactions). A record keeps the frozen model it was computed from, so editing the
mechanism afterwards never changes it. Arrays are SI and radians; pair angles are relative
to the design pose and continuous along the record (a revolute angle passes 2 pi, a
spherical pair's rotation vector passes a half turn, without jumps).
"""

from __future__ import annotations

import csv
import functools
import io
from dataclasses import dataclass

import numpy as np

from mechanism.atomic import write_text_atomically
from mechanism.errors import ModelError

from .kernel_arrays import kernel_array

__all__ = ["Trajectory", "SweepResult", "Column", "MAX_RECORD_BYTES", "record_bytes", "write_columns"]

#: Largest record (positions or samples, with their rates, poses and tangents) one sweep or
#: simulation may hold in memory, in bytes (2 GiB).
MAX_RECORD_BYTES = 2 * 2**30


def record_bytes(system, count, tangents=0) -> int:
    """Bytes of a record of ``count`` positions of ``system`` (with ``tangents`` columns of
    ``dq/d(driven)`` each): variables and rates, spherical rotations, link poses, velocities
    and accelerations, all float64."""
    n, links, spheres = system.n, system.topology.links, len(system.spherical_pairs)
    return 8 * int(count) * (3 * n + 9 * spheres + 28 * links + n * int(tangents))


@dataclass(frozen=True)
class Column:
    """One CSV column of a record.

    Attributes
    ----------
    name : str
        Header of the column (``"C"``, ``"P.x_dot"``, ``"camber"``).
    values : ndarray, shape (N,), SI
    dimension : str
        Dimension of the value (:func:`mechanism.units.dimension_powers`): ``"angle"``
        (rad), ``"length"`` (m), ``"time"`` (s), a compound such as ``"angle/length"``
        (camber gain, rad/m) or ``"force/length"``, or ``"dimensionless"``. The writer
        scales the column by it, so columns added by other analyses (``metrics``) get the
        file's units too.
    order : int
        0, 1, 2 for a value, its rate (``_dot``, per second) and its second rate (``_ddot``).
    """

    name: str
    values: np.ndarray
    dimension: str
    order: int


def _cells(column, units):
    """A column's CSV cells: whole numbers as written (a study's variant and position
    indices), values in ``units`` at full precision (``repr``)."""
    values = np.asarray(column.values)
    if np.issubdtype(values.dtype, np.integer):
        return [str(v) for v in values.tolist()]
    return units.texts(values.astype(float), column.dimension)


def write_columns(path, columns, units, note=None, count=0):
    """The one CSV writer of kinematrix: ``columns`` (list of :class:`Column`) in ``units``
    (see :meth:`Trajectory.to_csv`), to ``path`` atomically, or returned as text for None.
    The file begins with one comment line (:meth:`mechanism.units.Units.comment`: the units,
    ``note``, each column's unit), then the header row; ``count`` rows when there are no columns."""
    buffer = io.StringIO()
    buffer.write(units.comment([c.dimension for c in columns], note,
                               [(c.name, c.dimension, c.order) for c in columns]) + "\n")
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow([c.name for c in columns])
    cells = [_cells(c, units) for c in columns]
    if cells:
        # a number's text holds no comma, quote or line break: the csv module would quote none
        buffer.writelines(",".join(row) + "\n" for row in zip(*cells))
    else:
        writer.writerows([()] * count)
    if path is None:
        return buffer.getvalue()
    write_text_atomically(path, buffer.getvalue())
    return None


@functools.lru_cache(maxsize=256)
def _names(system, drivers):
    """A record's variable names (``drivers`` first, then the other public variables of
    ``system``) and point names, as tuples: the same for every record of one system."""
    public = system.public_variables()
    return tuple(drivers) + tuple(v for v in public if v not in drivers), tuple(p.name for p in system.model.points)


class Trajectory:
    """Positions of a mechanism with their rates: the record every analysis returns.

    Parameters
    ----------
    system : loops.compiled.CompiledSystem
    drivers : list of str, the driven variables (drivers, or independent coordinates)
    q, q_dot, q_ddot : (N, n) all variables and their rates (spherical: rotation vector,
        relative angular velocity and acceleration, frame j axes)
    poses : (N, L, 4, 4) link poses; velocities, accelerations : (N, L, 6) ``(omega, v_o)``
        and their rates, global, origin-referenced
    held : list of str, variables held at their values (sweeps)
    stop_reason : str or None, why the run stopped early
    rotations : (N, m, 3, 3) spherical pairs' rotation matrices, optional
    tangents : (N, n, d) ``dq/d(driven)`` at each position, optional (for :meth:`along`)

    Attributes
    ----------
    model : mechanism.specs.Model
    variable_names : list of str, public variables, drivers first (``"U.0"`` style)
    point_names : list of str
    metrics : dict name -> Column, extra columns (suspension metrics) written after the rest
    """

    def __init__(self, system, drivers, q, q_dot, q_ddot, poses, velocities, accelerations, *, held=(),
                 stop_reason=None, rotations=None, tangents=None):
        self.system = system
        self.model = system.model
        self.drivers = list(drivers)
        self.held = list(held)
        self._q, self._q_dot, self._q_ddot = q, q_dot, q_ddot
        self._poses, self._velocities, self._accelerations = poses, velocities, accelerations
        self._rotations, self._tangents = rotations, tangents
        self.stop_reason = stop_reason
        variable_names, point_names = _names(system, tuple(self.drivers))
        self.variable_names = list(variable_names)
        self.point_names = list(point_names)
        self.metrics: dict[str, Column] = {}
        for array in (q, q_dot, q_ddot, poses, velocities, accelerations):
            array.setflags(write=False)

    def __len__(self):
        return self._q.shape[0]

    def _describe(self):
        return f"{len(self)} positions of {self.model.name!r}"

    def __repr__(self):
        state = "complete" if self.stop_reason is None else f"stopped: {self.stop_reason}"
        held = f", held {', '.join(self.held)}" if self.held else ""
        drivers = f"driven by {', '.join(self.drivers)}" if self.drivers else "no drivers"
        return f"{type(self).__name__}({self._describe()}, {drivers}{held}, {state})"

    def _repr_html_(self):
        """In a notebook: a summary and the interactive view of the record (:mod:`loops.views`)."""
        from .views.notebook import record_html  # noqa: PLC0415

        return record_html(self)

    # --------------------------------------------------------- variables
    def _columns_of(self, name):
        system = self.system
        if isinstance(name, str) and name in system.pair_slices \
                and not system.pairs[system.pair_index[name]].virtual:
            sl = system.pair_slices[name]
            return sl if sl.stop - sl.start > 1 else sl.start
        if isinstance(name, str) and name in system.variable_index and system.public[system.variable_index[name]]:
            return system.variable_index[name]
        raise ModelError(f"variable {name!r}", f"not a pair variable of {self.model.name!r} "
                         f"(known: {', '.join(self.variable_names)})")

    def q(self, name):
        """Values of pair (or point-driver) variable ``name``: (N,), or (N, k) for a whole pair.

        Radians or metres relative to the design pose; a spherical pair gives its rotation
        vector (global axes at the design pose), continuous along the record.
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
        system = self.system
        if not isinstance(link, str) or link not in system.link_index or system.links[system.link_index[link]].virtual:
            raise ModelError(f"link {link!r}", f"not a link of {self.model.name!r}")
        return system.link_index[link]

    def pose(self, link):
        """Absolute transforms ``T_0i`` of ``link``: (N, 4, 4), identity at the design pose."""
        return self._poses[:, self._link(link)].copy()

    def link_velocity(self, link):
        """Spatial velocity ``(omega, v_o)`` of ``link`` (global, origin-referenced): (N, 6)."""
        return self._velocities[:, self._link(link)].copy()

    def link_acceleration(self, link):
        """Spatial acceleration ``(omega', v_o')`` of ``link``: (N, 6)."""
        return self._accelerations[:, self._link(link)].copy()

    # ------------------------------------------------------------ points
    def _point(self, name):
        for point in self.model.points:
            if point.name == name:
                return self.system.link_index[point.link], kernel_array(point.at)
        raise ModelError(f"point {name!r}", f"not a point of {self.model.name!r} "
                         f"(known: {', '.join(self.point_names) or 'none'})")

    def _point_motion(self, name, order):
        from .kernels.points import point_trajectory  # noqa: PLC0415 (kernels load on first use)

        link, r = self._point(name)
        out = np.empty((len(self), 3))
        T, V, A = (kernel_array(a[:, link]) for a in (self._poses, self._velocities, self._accelerations))
        point_trajectory(T, V, A, r, order, out)
        return out

    def point(self, name):
        """Global coordinates of point ``name``: (N, 3) m (eq. 5)."""
        return self._point_motion(name, 0)

    def point_velocity(self, name):
        """Velocity of point ``name``: (N, 3) m/s, global (eq. 6)."""
        return self._point_motion(name, 1)

    def point_acceleration(self, name):
        """Acceleration of point ``name``: (N, 3) m/s^2, global."""
        return self._point_motion(name, 2)

    # ----------------------------------------------------- other motions
    def along(self, driver):
        """The same positions with the rates for a unit rate of ``driver`` (1 rad/s or 1 m/s) and
        the other drivers at rest (accelerations of the drivers zero): partial derivatives
        ``d/d(driver)`` of every variable and point, from the velocity solution (eq. 4)."""
        if driver not in self.drivers:
            raise ModelError(f"driver {driver!r}", f"not a driver of this record (drivers: "
                             f"{', '.join(self.drivers) or 'none'})")
        if self._tangents is None:
            raise ModelError(f"driver {driver!r}", "this record keeps no tangents")
        from .rates import motion_at_positions  # noqa: PLC0415

        k = self.drivers.index(driver)
        speeds = np.zeros((len(self), len(self.drivers) + len(self.held)))
        speeds[:, k] = 1.0
        q_dot, q_ddot, V, A = motion_at_positions(self.system, self._driven_columns(), self._q, self._rotations,
                                                  self._tangents, speeds, np.zeros_like(speeds))
        out = Trajectory(self.system, self.drivers, self._q, q_dot, q_ddot, self._poses, V, A, held=self.held,
                         stop_reason=self.stop_reason, rotations=self._rotations, tangents=self._tangents)
        return out

    def _driven_columns(self):
        system = self.system
        return np.array([system.variable_index[name] for name in self.drivers + self.held], dtype=np.int64)

    def closed_positions(self):
        """The recorded positions as the solvers hold them: ``(q, rotations, driven)``, the pair
        variables (N, n), the spherical pairs' rotation matrices (N, m, 3, 3) and the driven
        columns (d,) (the drivers, then the held variables), read-only: what the linearised
        closure at these positions is taken with (a design sensitivity)."""
        driven = self._driven_columns()
        driven.setflags(write=False)
        return self._q, self._rotations, driven

    def rates_along(self, speeds):
        """``(q_dot (N, n), q_ddot (N, n), V (N, L, 6), A (N, L, 6))``: the variables' rates and the
        links' velocities and accelerations (global, origin-referenced) at every position for
        the driven columns' ``speeds`` (N, d) (drivers, then held variables; their
        accelerations zero), from the recorded tangents (eq. 4 and its derivative): what
        :meth:`along` holds for a unit rate of one driver, for any combination of them."""
        if self._tangents is None:
            raise ModelError("speeds", "this record keeps no tangents")
        count = len(self.drivers) + len(self.held)
        speeds = np.asarray(speeds, dtype=float)
        if speeds.shape != (len(self), count):
            raise ValueError(f"speeds: expected shape ({len(self)}, {count}), got {speeds.shape}")
        from .rates import motion_at_positions  # noqa: PLC0415

        return motion_at_positions(self.system, self._driven_columns(), self._q, self._rotations, self._tangents,
                                   speeds, np.zeros_like(speeds))

    # ---------------------------------------------------------------- CSV
    def columns(self, points=None) -> list[Column]:
        """CSV columns in order: variables (drivers first), points ``P.x P.y P.z``, then the same
        with ``_dot``, then ``_ddot``, then any metrics. ``points`` limits the points (default: all)."""
        system = self.system
        names = self.point_names if points is None else list(points)
        getters = ((self._q, 0, ""), (self._q_dot, 1, "_dot"), (self._q_ddot, 2, "_ddot"))
        out = []
        for values, order, suffix in getters:
            for name in self.variable_names:
                col = system.variable_index[name]
                dimension = "angle" if system.rotational[col] else "length"
                out.append(Column(name + suffix, values[:, col], dimension, order))
            for name in names:
                xyz = self._point_motion(name, order)
                for axis, label in enumerate("xyz"):
                    out.append(Column(f"{name}.{label}{suffix}", xyz[:, axis], "length", order))
        return out + list(self.metrics.values())

    def to_csv(self, path=None, units=None, points=None):
        """Write every column (:meth:`columns`) to a CSV file, atomically, in ``units``.

        This is the one CSV writer of kinematrix (the command line calls it). The file's
        first line names its units and, at its end, each column's (``# units: length=mm
        angle=deg time=s; columns: A=deg; P.x=mm; A_dot=deg/s``), the second is the header,
        then one row per position; each number is the shortest decimal that
        reads back as exactly the value in memory, converted (:meth:`mechanism.units.Units.from_si`).
        ``pandas.read_csv(path, comment="#")`` reads it.

        Parameters
        ----------
        path : str or path-like, or None
            The file (a symbolic link is followed; the write goes through a temporary
            file in the target's folder and a rename). None returns the text instead.
        units : None, mechanism.units.Units or ("mm", "deg")
            Units of the file; default the model's own (``self.model.units``: its file's
            units, SI for a model built in Python).
        points : list of str, optional
            Points to write (default: all).

        Returns
        -------
        str or None
            The text when ``path`` is None.
        """
        return write_columns(path, self.columns(points), self._units(units), self.csv_note, len(self))

    def to_dataframe(self, points=None, units=None):
        """The columns (:meth:`columns`) as a ``pandas.DataFrame`` in ``units``, by the rule of
        :meth:`to_csv` (default: the model's own units); needs pandas (the ``pandas`` extra)."""
        try:
            import pandas  # noqa: PLC0415 (optional dependency)
        except ImportError:
            raise ModelError("to_dataframe", "needs pandas: pip install 'kinematrix[pandas]'") from None
        units = self._units(units)
        return pandas.DataFrame({c.name: units.from_si(np.asarray(c.values, dtype=float), c.dimension)
                                 for c in self.columns(points)})

    #: What a CSV file of this record says besides its units, in its first line (None: nothing).
    csv_note = None

    def default_units(self):
        """The units files of this record are written in by default: the model's own."""
        return self.model.units

    def _units(self, units):
        from mechanism.units import Units  # noqa: PLC0415

        return self.default_units() if units is None else Units.of(units)


class SweepResult(Trajectory):
    """Positions, velocities and accelerations at each requested sweep position (a
    :class:`Trajectory`); ``held`` names the variables held at their values."""

    @classmethod
    def empty(cls, system, drivers, stop_reason, held=()):
        """A record of no position (what a sweep that stopped before its first position keeps)."""
        n, links, m = system.n, system.topology.links, len(system.spherical_pairs)
        return cls(system, drivers, np.zeros((0, n)), np.zeros((0, n)), np.zeros((0, n)), np.zeros((0, links, 4, 4)),
                   np.zeros((0, links, 6)), np.zeros((0, links, 6)), held=held, stop_reason=stop_reason,
                   rotations=np.zeros((0, m, 3, 3)), tangents=np.zeros((0, n, len(drivers) + len(held))))
