"""The workbench's analyses over many variants at once: a suspension whose rows are variants.

The analyses of :mod:`loops.suspension.analyses` work on records of rows (positions) and
on a :class:`~loops.suspension.analyses.Suspension` that sweeps and knows its design-pose
values. :class:`VariantSuspension` is such a suspension for V variants of one nominal design
at N positions each: its rows are the V x N (variant, position) pairs, variant-major; its
sweep walks every variant at once (:func:`loops.variants.sweep_variants`); its located
points and design-pose values (wheel centre, contact patch, kingpin points) are per row,
moved with the variants' hardpoints (:attr:`Suspension.design_rows` says so, and roll's
static roll centre is then one per row). So every analysis and every metric is the
workbench's own code, written once, run for a single design or for thousands.
"""

from __future__ import annotations

import numpy as np

from mechanism.errors import ModelError

from ..compiled import compile_model
from ..suspension.model import Suspension
from ..suspension.corner import Located
from ..suspension.wheel import DesignValues
from ..variants import VariantGeometry, VariantSetup, moved_hardpoints, sweep_variants

__all__ = ["VariantSuspension"]


class _Rows:
    """A :class:`~loops.variants.VariantRecord` as one record of V x N rows: link poses,
    and twists along driver ``k`` (None: the record's own motion, at rest)."""

    def __init__(self, record, k=None):
        self._record, self._k = record, k
        self.drivers, self.held = record.drivers, record.held
        self._index = record.system.link_index

    def __len__(self):
        return self._record.q.shape[0] * self._record.q.shape[1]

    def pose(self, link):
        return self._record.poses[:, :, self._index[link]].reshape(-1, 4, 4)

    def _rates(self, array, link):
        if self._k is None:
            return np.zeros((len(self), 6))
        return array[:, :, self._k, self._index[link]].reshape(-1, 6)

    def link_velocity(self, link):
        return self._rates(self._record.velocities, link)

    def link_acceleration(self, link):
        return self._rates(self._record.accelerations, link)

    def along(self, driver):
        if driver not in self.drivers:
            raise ModelError(f"driver {driver!r}", f"not a driver of this record (drivers: {', '.join(self.drivers)})")
        return _Rows(self._record, self.drivers.index(driver))


class _VariantMechanism:
    """Stands for the suspension's mechanism: ``sweep`` walks every variant (driver values
    given per row, V x N), and keeps why variants stopped (``reasons``) over the sweeps of
    one analysis."""

    def __init__(self, system, builder, offsets, workers):
        self.system, self.builder, self.offsets, self.workers = system, builder, offsets, workers
        self._setups = {}
        self.reasons = {}
        self.rejected = set()

    def reject(self, variant, reason):
        """Stop ``variant`` before its first position (its rows NaN) with ``reason``."""
        self.rejected.add(int(variant))
        self.reasons[int(variant)] = reason

    def sweep(self, drivers, tolerance):
        """Walk every variant through its rows of ``drivers`` (name -> V x N values).

        NaN values are rows a variant did not reach in an earlier sweep of the analysis (an
        analysis that sweeps again, a Newton step on the travels, goes on from a stopped
        variant's NaN rows as from a single design's shortened record): the variant stands at
        its last row given (at the design pose if none), its rows from the first NaN stay
        NaN, and the reason it stopped stands unless it stops again before them."""
        count = len(self.offsets)
        key = (tuple(drivers), tolerance)
        if key not in self._setups:
            self._setups[key] = VariantSetup(self.system, list(drivers), None, tolerance)
        rows = {name: np.array(values, dtype=float).reshape(count, -1) for name, values in drivers.items()}
        for values in rows.values():
            values[sorted(self.rejected)] = np.nan  # no position of a rejected variant
        N = next(iter(rows.values())).shape[1]
        given = np.all([np.isfinite(values) for values in rows.values()], axis=0)  # (V, N)
        ends = np.where(given.all(axis=1), N, np.argmin(given, axis=1))  # (V,) rows given before the first NaN
        short = np.flatnonzero(ends < N)
        if len(short):
            before = np.arange(N)[None] < ends[:, None]
            last = np.maximum(ends - 1, 0)
            for name, values in rows.items():
                standing = np.where(ends > 0, values[np.arange(count), last], 0.0)  # design pose: every variable 0
                rows[name] = np.where(before, values, standing[:, None])
        record = sweep_variants(self.system, self.builder, self.offsets, rows, tolerance=tolerance,
                                setup=self._setups[key], workers=self.workers)
        reasons = dict(record.reasons)
        for v in short:
            for array in (record.q, record.poses, record.velocities, record.accelerations):
                array[v, ends[v]:] = np.nan
            if record.reached[v] >= ends[v]:  # did not stop again before its first NaN row
                reasons[int(v)] = self.reasons.get(int(v), f"no values for its drivers from position {ends[v]} "
                                                  "on (the analysis could not place it there)")
        record.reached = np.minimum(record.reached, ends)
        self.reasons = dict(sorted(reasons.items()))
        return _Rows(record)


class VariantSuspension(Suspension):
    """V variants of a nominal :class:`Suspension` at N positions each (see the module
    docstring). ``offsets`` (V, k) move the ``coords`` (:mod:`.coordinates`) from the
    nominal; ``finish`` receives what each analysis computed instead of a result record."""

    def __init__(self, nominal: Suspension, coords, offsets, positions, workers=None):
        # Not Suspension.__init__: the nominal has been built and checked; only rows differ.
        self.__dict__.update({k: v for k, v in nominal.__dict__.items()})
        self.nominal, self.coords = nominal, list(coords)
        self.offsets = np.atleast_2d(np.asarray(offsets, dtype=float))
        self.positions = int(positions)
        self.design_rows = len(self.offsets) * self.positions
        system = compile_model(nominal.model)
        self.builder = VariantGeometry(system, self.coords)
        self.mechanism = _VariantMechanism(system, self.builder, self.offsets, workers)
        moved = self._moved_values(self.offsets)
        self.resolved = {side: self._moved_resolved(r, moved, self.rows) for side, r in nominal.resolved.items()}
        # The design-pose values are the variants' own: made once per variant, then per row.
        try:
            designs = self._variant_designs(self.offsets)
        except ModelError:
            designs = self._designs_without_rejected()
        self.design = {side: self._design_rows(design) for side, design in designs.items()}
        self.finished = None

    # ---------------------------------------------------------------- rows
    def rows(self, per_variant):
        """Per-variant values (V, ...) repeated for each of their N positions: (V N, ...)."""
        return np.repeat(np.asarray(per_variant), self.positions, axis=0)

    def _variant_designs(self, offsets):
        """``{side: DesignValues}`` of the variants ``offsets`` (V, k), per variant; raises the
        ModelError of the first whose design is not one (a kingpin lying flat, ...)."""
        moved = self._moved_values(offsets)
        return {side: DesignValues(self._moved_resolved(self.nominal.resolved[side], moved, np.asarray), corner,
                                   _identity_poses) for side, corner in self.corners.items()}

    def _designs_without_rejected(self):
        """The design values with the variants whose design is not one (each tried alone) left
        out: they stop before their first position (:attr:`_VariantMechanism.rejected`, their
        reasons naming what is wrong), the nominal's values in their rows."""
        for v in range(len(self.offsets)):
            try:
                self._variant_designs(self.offsets[v:v + 1])
            except ModelError as exc:
                self.mechanism.reject(v, f"its hardpoints give no design to analyse: {exc}")
        kept = self.offsets.copy()
        kept[sorted(self.mechanism.rejected)] = 0.0
        return self._variant_designs(kept)

    def _moved_values(self, offsets):
        """``{hardpoint name: (V, 3) value}`` of every hardpoint the variants ``offsets`` move
        (axes unit)."""
        out = moved_hardpoints(self.coords, offsets)
        for i, axis in self.builder.axes_of(offsets).items():  # a vanished one: the nominal's
            out[f"{self.builder.system.pairs[i].name}.axis"] = axis / np.linalg.norm(axis, axis=1, keepdims=True)
        return out

    def _design_rows(self, design):
        """A corner's design-pose values per variant (:class:`~loops.suspension.wheel.DesignValues`,
        (V, ...) arrays) repeated for each of their positions: (V N, ...). A value that no
        variant moves (a point (3,), an angle) stays one for all rows."""
        out = _copy(design)
        for name, per_variant in (("centre", 2), ("steer_angle", 1), ("patch", 2), ("patch_on_upright", 2)):
            value = getattr(design, name)
            if np.ndim(value) == per_variant:
                setattr(out, name, self.rows(value))
        return out

    def _moved_resolved(self, resolved, moved, per):
        """``resolved`` with its located points (and kingpin axis) moved with the variants:
        ``per`` makes the rows of a (V, 3) value (:meth:`rows`, or one per variant)."""
        out = _copy(resolved)

        def move(located):
            if located is None or located.source not in moved:
                return located
            return Located(located.link, per(moved[located.source]), located.what, located.source)

        out.wheel_centre = move(resolved.wheel_centre)
        out.spin_axis_point = move(resolved.spin_axis_point)
        if resolved.kingpin is not None:
            first, second = resolved.kingpin
            out.kingpin = (move(first), move(second))
            if second is None and f"{first.source}.axis" in moved:
                out.kingpin_axis = per(moved[f"{first.source}.axis"])
        if resolved.spring is not None:
            out.spring = tuple(move(end) for end in resolved.spring)
        if resolved.damper is not None:
            out.damper = tuple(move(end) for end in resolved.damper)
        return out

    # ---------------------------------------------------------- the analyses
    def design_track(self):
        """Per row (V N,): the lateral distance between the contact patches at the design pose."""
        if self.is_axle:
            left = self.corners["left"].left
            return (self.design["left"].patch - self.design["right"].patch) @ left
        (side, corner), = self.corners.items()
        centre = np.array([0.0, corner.centre_plane_y, 0.0])
        return 2.0 * np.abs((self.design[side].patch - centre) @ corner.left)

    def axle(self):
        if self.is_axle:
            return self
        raise ModelError("analysis", "a design study of one corner runs the corner's analyses (parallel travel, "
                         "steering); study the axle model for opposite travel and roll")

    def finish(self, record, analysis, travel_at, inputs, metrics, stop):
        """Keep what an analysis computed: its input and metric columns, V x N rows each."""
        self.finished = (inputs, metrics)
        return self


def _identity_poses(link):
    return np.eye(4)


def _copy(resolved):
    out = object.__new__(type(resolved))
    out.__dict__.update(resolved.__dict__)
    return out
