"""What the design sensitivities return: :class:`Sensitivities`, the derivatives of every
metric of an analysis with respect to hardpoint coordinates at every position, with their
ranking (:class:`Influence`), their table and the links' motions along the coordinates.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from mechanism.errors import ModelError
from mechanism.units import Units

from ...results import Column, write_columns
from .driver_rates import second_rates_along

__all__ = ["Sensitivities", "Influence"]


@dataclass(frozen=True)
class Influence:
    """One row of :meth:`Sensitivities.ranked`: ``derivative`` of ``metric`` with respect to
    ``coordinate`` (SI per metre, or per unit of an axis component) at ``position`` (index),
    where the analysis's input was ``at`` (SI)."""

    metric: str
    coordinate: str
    derivative: float
    position: int
    at: float


class Sensitivities:
    """Derivatives of the metrics of an analysis with respect to hardpoint coordinates.

    Attributes
    ----------
    coordinates : list of loops.study.coordinates.Coordinate (k)
    values : dict metric -> (N, k): ``d metric / d coordinate`` at each position, SI per
        metre (a location) or per unit (an axis component: the change of the unit axis);
        an axle's per-wheel metrics end in ``_left`` and ``_right``
    dimensions : dict metric -> the metric's dimension (:data:`loops.suspension.METRICS`)
    inputs : list of loops.results.Column, the analysis's input(s) (``wheel_travel``, the
        rack travel, ``roll_angle``) at the N positions
    result : the nominal analysis (a SuspensionResult)
    units : mechanism.units.Units, the model file's (the default of :meth:`to_csv`)
    """

    def __init__(self, coordinates, values, dimensions, inputs, result, directions):
        self.coordinates, self.values, self.dimensions = list(coordinates), values, dimensions
        self.inputs, self.result = inputs, result
        self.units = result.suspension.units
        self._directions = directions

    def __repr__(self):
        return (f"Sensitivities({len(self.values)} metrics x {len(self.coordinates)} coordinates at "
                f"{len(self.result)} positions of the {self.result.analysis})")

    def __getitem__(self, metric):
        return self.values[self._metric(metric)]

    def _metric(self, metric):
        if metric not in self.values:
            raise ModelError(f"metric {metric!r}", f"no sensitivities of it (metrics: {', '.join(self.values)})")
        return metric

    def _link(self, link):
        system = self.result.system
        if not isinstance(link, str) or link not in system.link_index or \
                system.links[system.link_index[link]].virtual:
            raise ModelError(f"link {link!r}", f"not a link of {self.result.model.name!r}")
        return system.link_index[link]

    def link_twist(self, link):
        """The motion of ``link`` per unit of each coordinate at fixed drivers: ``(omega, v_o)``
        (N, k, 6), global, origin-referenced (rad and m per metre, or per unit of an axis
        component): ``d T / dp = hat(twist) T``."""
        return self._directions.V_p[:, :, self._link(link)].copy()

    def link_velocity_rate(self, link, driver):
        """``d/dp`` of the velocity of ``link`` per unit rate of ``driver`` (a driver of the
        analysis, the others and the held variables at rest): (N, k, 6), global,
        origin-referenced (:meth:`Directions.velocity_rate`)."""
        index = self._link(link)
        drivers = list(self.result.drivers)
        if driver not in drivers:
            raise ModelError(f"driver {driver!r}", f"not a driver of this analysis (drivers: {', '.join(drivers)})")
        return self._directions.velocity_rate(drivers.index(driver))[:, :, index]

    def link_acceleration_rate(self, link, driver):
        """``d/dp`` of the acceleration of ``link`` per unit rate of ``driver`` squared (the other
        drivers and the held variables at rest): (N, k, 6), global, origin-referenced, from the
        closure differentiated a third time (METHOD.md (T1)-(T2)). An idle link's
        spin about its line is left free there (it moves nothing else): for an idle link only
        the part across its line is its own."""
        index = self._link(link)
        drivers = list(self.result.drivers)
        if driver not in drivers:
            raise ModelError(f"driver {driver!r}", f"not a driver of this analysis (drivers: {', '.join(drivers)})")
        d = drivers.index(driver)
        q_aa, A_a = second_rates_along(self.result)(d)
        return self._directions.acceleration_rate(d, A_a, q_aa, self._directions.along_coordinates(d))[:, :, index]

    def ranked(self, metric=None, position=None) -> list[Influence]:
        """The most influential coordinates: for each metric (or ``metric`` alone), one row per
        coordinate with its derivative where it is largest in magnitude over the positions (or
        at ``position``, an index), sorted by that magnitude, largest first. Derivatives are
        SI per metre for locations and per unit for axis components (compare those two kinds
        with care)."""
        metrics = list(self.values) if metric is None else [self._metric(metric)]
        count = len(self.result)
        if position is not None and (isinstance(position, bool) or not isinstance(position, (int, np.integer))
                                     or not -count <= position < count):
            raise ModelError("position", f"expected a position index in [{-count}, {count}), got {position!r}")
        at = np.asarray(self.inputs[0].values, dtype=float)
        out = []
        for name in metrics:
            values = self.values[name]
            rows = []
            for j, coordinate in enumerate(self.coordinates):
                column = values[:, j]
                if position is None:
                    i = int(np.argmax(np.where(np.isfinite(column), np.abs(column), -1.0)))
                else:
                    i = int(position) % count
                rows.append(Influence(name, coordinate.name, float(column[i]), i, float(at[i])))
            rows.sort(key=lambda r: -abs(r.derivative) if math.isfinite(r.derivative) else math.inf)
            out += rows
        return out

    def columns(self) -> list[Column]:
        """The table's columns: the inputs, then ``METRIC/COORDINATE`` for every metric and
        coordinate (dimension: the metric's per length, or the metric's for an axis)."""
        out = list(self.inputs)
        for name, values in self.values.items():
            for j, coordinate in enumerate(self.coordinates):
                dimension = self.dimensions[name]
                if coordinate.dimension == "length":
                    dimension = f"{dimension}/length"
                elif coordinate.dimension != "direction":  # a bushing rate: per N/m or N m/rad
                    dimension = f"{dimension}/{coordinate.dimension}"
                out.append(Column(f"{name}/{coordinate.name}", values[:, j], dimension, 0))
        return out

    def to_csv(self, path=None, units=None):
        """Write :meth:`columns` to a CSV file (atomically) in ``units`` (default: the model
        file's), the first line naming them; ``path=None`` returns the text."""
        units = self.units if units is None else Units.of(units)
        note = f"sensitivities of the {self.result.analysis} of {self.result.suspension.name!r}"
        return write_columns(path, self.columns(), units, note, len(self.result))
