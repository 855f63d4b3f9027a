"""What the workbench analyses: a corner or an axle with its vehicle and units
(:class:`Suspension`), and what an analysis returns (:class:`SuspensionResult`): the sweep's
trajectory record with its metric columns.
"""

from __future__ import annotations

import numpy as np

from mechanism.errors import ModelError, SweepInterrupted, SweepStopped
from mechanism.units import Units

from ..results import SweepResult
from .axle import SIDES, Axle, mirror_corner, with_travel_driver
from .corner import Corner, model_size, resolve
from .vehicle import Vehicle
from .wheel import DesignValues

__all__ = ["Suspension", "SuspensionResult", "TRACK_AGREEMENT"]

#: Track given in the vehicle table and the geometry's must agree within this fraction.
TRACK_AGREEMENT = 0.02


class Suspension:
    """A corner or an axle, with its vehicle parameters and the model file's units.

    Parameters
    ----------
    mechanism : Mechanism
    corners : dict side -> Corner (one side for a corner, both for an axle)
    vehicle : Vehicle, optional
    units : mechanism.model_file.Units, optional; the units files are written in (default SI)
    name : str, optional, for legends and messages

    The corners are checked against the mechanism at once (located ``corner.<key>``
    errors), a corner without a travel driver gets one, and the vehicle's lengths are
    checked against the model's size and its track against the geometry.
    """

    def __init__(self, mechanism, corners: dict, vehicle: Vehicle | None = None, units=None, name=None):
        if not corners or set(corners) - set(SIDES):
            raise ModelError("corners", "expected a dict side -> Corner with 'left' and/or 'right'")
        if len(corners) == 1:
            (side, corner), = corners.items()
            if corner.side != side:
                raise ModelError("corner.side", f"the corner is listed as {side} but says side = {corner.side!r}")
            mechanism, corner = with_travel_driver(mechanism, corner)
            corners = {side: corner}
        self.mechanism = mechanism
        self.corners = dict(corners)
        self.vehicle = vehicle
        self.units = Units.of(units)
        self.model = mechanism.snapshot()
        self.name = name or self.model.name
        self.resolved = {side: resolve(self.model, corner) for side, corner in self.corners.items()}
        for side, resolved in self.resolved.items():
            if resolved.travel is None:
                raise ModelError("corner.travel", f"the {side} corner has no wheel-travel driver")
        reference = _reference(self.mechanism)
        self.design = {side: DesignValues(self.resolved[side], c, reference) for side, c in self.corners.items()}
        self.size = model_size(self.model)
        if vehicle is not None:
            vehicle.check_against(self.size)
            if vehicle.track is not None:
                track = self.design_track()
                if abs(vehicle.track - track) > TRACK_AGREEMENT * track:
                    raise ModelError("vehicle.track", f"{vehicle.track:.6g} m, but the contact patches are "
                                     f"{track:.6g} m apart at the design pose (mirrored about the centre plane)")

    @classmethod
    def of_corner(cls, mechanism, corner: Corner, vehicle=None, units=None, name=None):
        return cls(mechanism, {corner.side: corner}, vehicle, units, name)

    @classmethod
    def of_axle(cls, axle: Axle, units=None, name=None):
        return cls(axle.mechanism, axle.corners, axle.vehicle, units, name)

    @property
    def is_axle(self) -> bool:
        return len(self.corners) == 2

    #: None for one design: its design-pose values hold at every position. A suspension
    #: whose design-pose values are per row (a design study's V x N (variant, position)
    #: rows, :class:`loops.study.suspension.VariantSuspension`) gives their number: an
    #: analysis's own sweeps at the design pose (the static roll centre) have that many rows.
    design_rows: int | None = None

    @property
    def steering(self):
        """The steering variables of the corners (one when shared, as a rack)."""
        return list(dict.fromkeys(c.steering for c in self.corners.values() if c.steering is not None))

    def axle(self) -> "Suspension":
        """This axle, or the axle made by mirroring this corner about the centre plane."""
        if self.is_axle:
            return self
        (corner,) = self.corners.values()
        return Suspension.of_axle(mirror_corner(self.mechanism, corner, self.vehicle), self.units, self.name)

    def design_track(self) -> float:
        """Lateral distance between the contact patches at the design pose, m (twice the
        half track for a corner)."""
        if self.is_axle:
            left = self.corners["left"].left
            return float((self.design["left"].patch - self.design["right"].patch) @ left)
        (side, corner), = self.corners.items()
        centre = np.array([0.0, corner.centre_plane_y, 0.0])
        return 2.0 * abs(float((self.design[side].patch - centre) @ corner.left))

    def finish(self, record, analysis, travel_at, inputs, metrics, stop):
        """What an analysis returns: its record with the ``inputs`` and ``metrics`` columns as
        a :class:`SuspensionResult`; raises SweepStopped with it when the sweep ``stop``-ped
        (SweepInterrupted when Ctrl-C stopped it: the positions reached keep their metrics)."""
        result = SuspensionResult.of(record, analysis, travel_at, self.units, inputs + metrics)
        result.input_names = [c.name for c in inputs]
        result.suspension = self
        if stop is not None:
            kind = SweepInterrupted if isinstance(stop, KeyboardInterrupt) else SweepStopped
            raise kind(stop.reason, result, driver_values=stop.driver_values, residual=stop.residual,
                       iterations=stop.iterations)
        return result

    def __repr__(self):
        kind = "axle" if self.is_axle else f"{next(iter(self.corners))} corner"
        return f"Suspension({self.name!r}, {kind})"


def _reference(mechanism):
    from ..compiled import compile_model  # noqa: PLC0415
    from ..configuration import evaluate  # noqa: PLC0415

    system = compile_model(mechanism.snapshot())
    poses = evaluate(system, system.reference_q()).link_poses
    return lambda link: poses[system.link_index[link]]


class SuspensionResult(SweepResult):
    """The trajectory record of an analysis with its metric columns.

    Besides everything a :class:`~loops.results.SweepResult` holds, ``metrics`` maps each
    column name to a :class:`~loops.results.Column` (SI values; ``dimension`` says how to
    scale it): the inputs first, then the metrics. ``analysis`` names the analysis (its
    registry title, :mod:`loops.suspension.analyses`), ``input_names`` its input columns,
    ``travel_at`` where wheel travel is measured, ``units`` the units its files are written
    in by default (the model file's), ``suspension`` the :class:`Suspension` analysed.
    """

    analysis: str
    travel_at: str
    units: Units
    input_names: list

    @classmethod
    def of(cls, record, analysis, travel_at, units, columns):
        out = cls.__new__(cls)
        out.__dict__.update(record.__dict__)
        out.analysis, out.travel_at, out.units = analysis, travel_at, units
        out.metrics = {c.name: c for c in columns}
        return out

    def metric(self, name):
        """Values of metric (or input) ``name``: (N,), SI."""
        if name not in self.metrics:
            raise ModelError(f"metric {name!r}", f"not a column of this analysis (columns: {', '.join(self.metrics)})")
        return np.array(self.metrics[name].values, dtype=float)

    def columns(self, points=None):
        """The metric table's columns: the inputs, then the metrics (:attr:`metrics`); points are
        not written (``points`` is ignored)."""
        return list(self.metrics.values())

    def default_units(self):
        """The model file's units: the default of :meth:`to_csv` and :meth:`to_dataframe`."""
        return self.units

    @property
    def csv_note(self):
        """The first line's note: the analysis, the model, where wheel travel is measured."""
        name = getattr(self, "suspension", self.model).name
        return f"analysis: {self.analysis} of {name!r}, wheel travel at the {self.travel_at.replace('-', ' ')}"

    def _repr_html_(self):
        """In a notebook: a summary and the analysis's interactive page (:mod:`loops.suspension.views`)."""
        from .views import analysis_html  # noqa: PLC0415

        return analysis_html(self)
