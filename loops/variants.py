"""Batched variants of any mechanism: one topology, a geometry per variant, walked at once.

A variant moves hardpoints (coordinates of :mod:`mechanism.hardpoints`, offsets added to
their nominal values); its topology is the nominal model's, so only the arrays of
:class:`loops.compiled.Geometry` change. :class:`VariantGeometry` builds them for all
variants together, stacked along a leading axis, without building, validating or compiling
a model per variant. They equal what :func:`loops.compiled.compile_model` makes of
``Mechanism.moved(...)`` (the tests compare them):

* at the design pose a pair's two frames are global frames with their origin at the pair's
  centre (DESIGN.md, "Frames from points"), so moving the centre moves both origins; a
  point driver's road loop sits at its point; a new axis gives new frame rotations
  (:func:`mechanism.transforms.frame_from_axis`);
* the mechanism's size (the diagonal of the box around the pair centres) and the gauge
  axes of idle links (the line through their pair centres, :mod:`loops.passive`) follow the
  centres.

:func:`sweep_variants` walks every variant from its design pose through the same driver
values, the variants in parallel on every core (:func:`loops.kernels.variants.walk_variants`),
each closed to the tolerance of a single sweep and kept on its branch by the same walk. It
records, per variant and position, the variables, the link poses and, per driver at unit
rate with the other drivers at rest, the link velocities and accelerations.

A variant the compiled walk cannot finish (a dead point, a position out of reach, a design
pose that does not close, a square block that needs new rows) is walked again alone by the
single-model walk of :func:`loops.sweep.sweep` (which chooses rows anew where it must), so
that it stops exactly where a separate sweep of that variant stops and with the same
reason; its rows past the stop are NaN. It never stops the others.

What only suspensions make of the records (metrics per variant) is the design studies'
(:mod:`loops.study`).
"""

from __future__ import annotations

import copy
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from mechanism.errors import ModelError
from mechanism.limits import COINCIDENT_SIZE
from mechanism.transforms import frame_from_axis

from .compiled import Geometry
from .configuration import evaluate, new_work
from .continuation import DEFAULT_TOLERANCE, MAX_STEPS, Walk, WalkStopped, closure_tolerance, walk_parameters
from .held import DependentDrivers, held_freedoms
from .kernels.state import (CURVED_FLAGS, STEP_BUDGET, WALK_COUNTERS, WALK_DIAGNOSTICS, VariantRecordArrays,
                            WalkState)
from .linear import SquareBlock, new_factor, square_block_at
from .passive import pairs_touching
from .rates import motion_at_positions
from .sweep import SweepOutputs, stop_reason

__all__ = ["VariantGeometry", "VariantRecord", "VariantSetup", "sweep_variants", "variant_system", "road_loop_pairs",
           "moved_hardpoints", "VANISHED_AXIS"]

#: Length below which a moved screw axis (before it is made a unit vector) has vanished.
VANISHED_AXIS = 1e-9


def road_loop_pairs(system) -> dict:
    """``{point name: [pair indices]}``: the pairs of each point driver's road loop (the
    driver's own slide and its virtual pairs, after the model's pairs), all at its point."""
    drivers = {d.name: d for d in system.model.point_drivers}
    out = {}
    for i in range(len(system.model.pairs), len(system.pairs)):
        out.setdefault(drivers[system.pairs[i].name.split("<", 1)[0]].point, []).append(i)
    return out


def _vanished(axis):
    """(V,) True where a moved axis (V, 3) is shorter than :data:`VANISHED_AXIS` or not finite."""
    return ~(np.linalg.norm(axis, axis=1) > VANISHED_AXIS)


def moved_hardpoints(coords, offsets) -> dict:
    """``{hardpoint name: new value}`` for one variant's ``offsets`` (k,) (SI), as
    :meth:`mechanism.Mechanism.moved` takes them: (3,) each; for a stack of variants'
    ``offsets`` (V, k), (V, 3) each. Axes are the nominal unit axis plus the offsets (not
    normalised again)."""
    offsets = np.asarray(offsets, dtype=float)
    out = {}
    for j, coordinate in enumerate(coords):
        hp = coordinate.hardpoint
        if hp.name not in out:
            out[hp.name] = np.broadcast_to(hp.value, offsets.shape[:-1] + (3,)).copy()
        out[hp.name][..., coordinate.component] += offsets[..., j]
    return out


class VariantGeometry:
    """Builds the stacked geometry of variants of one compiled system.

    Parameters
    ----------
    system : loops.compiled.CompiledSystem of the nominal model (pairs declared globally)
    coords : list of hardpoint coordinates (:class:`loops.study.Coordinate`: a ``hardpoint``
        (:class:`mechanism.hardpoints.Hardpoint`) and the ``component`` it varies)
    """

    def __init__(self, system, coords):
        model = system.model
        local = [p.name for p in model.pairs if p.local]
        if local or any(np.any(values) for _, values in model.reference):
            raise ModelError("vary", f"a design study needs every pair declared by global at/axis at a design pose "
                             f"that closes (pairs with link-local frames: {', '.join(local) or 'none'})")
        self.system, self.coords = system, list(coords)
        self.centres = np.array([p.frame_on_first[:3, 3] for p in system.pairs])  # (P, 3) design-pose centres
        self._at_point = road_loop_pairs(system)
        self._touching = []
        for gauge in system.gauges:
            if not np.allclose(gauge.reference, np.eye(3)):
                raise ModelError("vary", "a design study needs the reference assembly at the design pose")
            self._touching.append(pairs_touching(system.topology, gauge.link))

    def _moved(self, offsets):
        """``(hardpoint, (V, 3) value)`` of each hardpoint the variants move."""
        hardpoints = {c.hardpoint.name: c.hardpoint for c in self.coords}
        return [(hardpoints[name], value) for name, value in moved_hardpoints(self.coords, offsets).items()]

    def centres_of(self, offsets):
        """Pair centres (V, P, 3) of the variants with ``offsets`` (V, k) (SI)."""
        offsets = np.atleast_2d(np.asarray(offsets, dtype=float))
        centres = np.repeat(self.centres[None], len(offsets), axis=0)
        for hp, value in self._moved(offsets):
            if hp.key != "at":
                continue
            if hp.table == "pairs":
                centres[:, self.system.pair_index[hp.owner]] = value
            elif hp.table == "points":
                centres[:, self._at_point.get(hp.owner, [])] = value[:, None]
        return centres

    def axes_of(self, offsets):
        """``{pair index: (V, 3) new axis}`` (not normalised) for the pairs whose axis varies; a
        variant whose offsets make an axis vanish keeps the nominal axis there (it is not
        walked: :meth:`unbuildable`)."""
        offsets = np.atleast_2d(np.asarray(offsets, dtype=float))
        out = {}
        for hp, axis in self._moved(offsets):
            if hp.key != "axis":
                continue
            bad = _vanished(axis)
            i = self.system.pair_index[hp.owner]
            if bad.any():
                axis = axis.copy()
                axis[bad] = self.system.geometry.frame_j[i, :3, 2]  # the pair's z: its nominal axis
            out[i] = axis
        return out

    def unbuildable(self, offsets) -> dict:
        """``{variant: reason}`` for the variants that cannot be built: offsets that make a
        screw axis vanish (shorter than :data:`VANISHED_AXIS`, or not finite)."""
        offsets = np.atleast_2d(np.asarray(offsets, dtype=float))
        reasons = {}
        for hp, axis in self._moved(offsets):
            if hp.key != "axis":
                continue
            for v in np.flatnonzero(_vanished(axis)):
                reasons.setdefault(int(v), f"the variant cannot be built: its offsets make the axis of {hp.owner!r} "
                                           "vanish")
        return reasons

    def geometries(self, offsets) -> Geometry:
        """The :class:`~loops.compiled.Geometry` of every variant, each field with a leading
        variant axis (``scale`` (V,))."""
        offsets = np.atleast_2d(np.asarray(offsets, dtype=float))
        count = len(offsets)
        base = self.system.geometry
        centres = self.centres_of(offsets)
        frame_j = np.repeat(base.frame_j[None], count, axis=0)
        frame_k = np.repeat(base.frame_k[None], count, axis=0)
        for i, axis in self.axes_of(offsets).items():
            frame_j[:, i] = frame_from_axis(centres[:, i], axis)
            frame_k[:, i] = frame_j[:, i]
        frame_j[:, :, :3, 3] = centres
        frame_k[:, :, :3, 3] = centres
        size = np.linalg.norm(np.ptp(centres, axis=1), axis=1)
        scale = np.where(size > COINCIDENT_SIZE, size, 1.0)
        gauge_axis = np.zeros((count, len(self._touching), 3))
        for g, touching in enumerate(self._touching):
            spread = centres[:, touching] - centres[:, touching[:1]]
            lengths = np.linalg.norm(spread, axis=2)
            far = np.argmax(lengths, axis=1)
            rows = np.arange(count)
            gauge_axis[:, g] = spread[rows, far] / lengths[rows, far][:, None]
        gauge_reference = np.repeat(base.gauge_reference[None], count, axis=0)
        return Geometry(*_read_only(frame_j, frame_k, scale, gauge_axis, gauge_reference))

    def blocks(self, block, scale) -> SquareBlock:
        """``block`` (the nominal's rows and ordering) with the row and column weights of each
        variant's ``scale`` (V,): ``row_scale`` (V, rows), ``column_scale`` (V, n)."""
        system = self.system
        gaps = np.tile(np.r_[np.zeros(3), np.ones(3)], len(system.loops))
        gaps = np.r_[gaps, np.zeros(len(system.gauges))].astype(bool)
        row_scale = np.where(gaps[None], 1.0 / scale[:, None], 1.0)
        column_scale = np.where(system.rotational[None], 1.0, scale[:, None])
        row_scale, column_scale = _read_only(row_scale, column_scale)
        return block._replace(row_scale=row_scale, column_scale=column_scale)


def _read_only(*arrays):
    """``arrays`` contiguous and read-only, as the nominal system's geometry and block are
    (:mod:`loops.compiled`, :mod:`loops.linear`): numba types a read-only array apart from a
    writable one, so the batched walk then calls the single walk's compiled kernels (its
    corrector, factorization, step) with the types they were compiled for, where writable
    arrays would compile that whole chain a second time."""
    out = tuple(np.ascontiguousarray(a) for a in arrays)
    for a in out:
        a.setflags(write=False)
    return out


def _stacked(value, count):
    """``count`` copies of a named tuple of arrays (nested ones too), stacked on a new first axis."""
    if isinstance(value, tuple):
        return type(value)(*(_stacked(v, count) for v in value))
    return np.repeat(np.asarray(value)[None], count, axis=0)


def variant_system(system, geometry, v):
    """A shallow copy of the compiled ``system`` carrying variant ``v`` of the stacked ``geometry``."""
    out = copy.copy(system)
    out.scale = float(geometry.scale[v])
    out.geometry = type(geometry)(*(np.ascontiguousarray(field[v]) for field in geometry))._replace(scale=out.scale)
    return out


@dataclass
class VariantRecord:
    """The positions of V variants along N driver values (arrays with leading axes (V, N)).

    q : (V, N, n); poses : (V, N, L, 4, 4); velocities, accelerations : (V, N, D, L, 6) the
    link twists ``(omega, v_o)`` and their rates per unit rate of each driver ``drivers[k]``
    (global, origin-referenced); status : (V,) 0 for a variant that reached every position;
    reached : (V,) positions reached; reasons : {variant: sentence} for those that stopped.
    Rows past a stop are NaN.
    """

    system: object
    drivers: list
    held: list
    q: np.ndarray
    poses: np.ndarray
    velocities: np.ndarray
    accelerations: np.ndarray
    reached: np.ndarray
    reasons: dict

    @property
    def complete(self) -> np.ndarray:
        """(V,) bool, the variants that reached every position."""
        return self.reached == self.q.shape[1]


class VariantSetup:
    """What every sweep of a set of variants shares, whatever their offsets: the drivers, the
    held columns, the nominal design pose and square block, the walk's parameters. A design
    study makes one per set of drivers and hands it to every chunk's :func:`sweep_variants`."""

    def __init__(self, system, names, hold, tolerance):
        self.system = system
        self.names = list(names)
        self.driven = system.driver_columns(self.names)
        self.q0 = system.reference_q()
        start = evaluate(system, self.q0)
        if start.closure_error() > max(tolerance, 1e-8):
            raise ModelError("model", f"the design pose of {system.model.name!r} does not close (defect "
                             f"{start.closure_error():.3g}): a design study starts every variant there")
        try:
            held = held_freedoms(system, start, self.driven, hold)
        except DependentDrivers:
            raise ModelError("drivers", f"the drivers {', '.join(self.names)} do not move the nominal design "
                             "independently at its design pose") from None
        self.held = [system.variable_names[c] for c in held]
        self.columns = np.r_[self.driven, held].astype(np.int64)
        self.block = square_block_at(system, start, self.columns)
        if self.block is None:
            raise ModelError("drivers", f"the drivers {', '.join(self.names)} and held variables do not fix the "
                             "nominal design's motion at its design pose")
        self.rotations0 = start.rotations.copy()
        self.tolerance = tolerance
        # The held columns never move: the walk makes no tangents along them.
        self.params = walk_parameters(tolerance, len(self.names), system, self.block)


def _in_threads(function, arguments, count, workers):
    """``function(*arguments, first, last)`` over ``count`` variants split into ranges, one
    thread per core (the kernel releases the GIL)."""
    workers = max(1, min(workers or os.cpu_count() or 1, count))
    bounds = np.linspace(0, count, workers + 1).astype(int)
    if workers == 1:
        function(*arguments, 0, count)
        return
    with ThreadPoolExecutor(workers) as pool:
        jobs = [pool.submit(function, *arguments, int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:])]
        for job in jobs:
            job.result()


def sweep_variants(system, builder, offsets, drivers, *, hold=None, tolerance=DEFAULT_TOLERANCE, setup=None,
                   workers=None):
    """Sweep every variant through the same or its own driver values.

    Parameters
    ----------
    system : loops.compiled.CompiledSystem, the nominal model's
    builder : VariantGeometry
    offsets : (V, k) the variants' coordinate offsets (SI)
    drivers : dict name -> (N,) values shared by the variants, or (V, N) one row per variant
    hold : variables to hold (as :func:`loops.sweep.sweep`)
    tolerance : closure tolerance (dimensionless)
    workers : threads (default: one per core)

    Returns
    -------
    VariantRecord
    """
    from .kernels import variants as kernels  # noqa: PLC0415 (kernels load on first use)

    tolerance = closure_tolerance(tolerance)
    offsets = np.atleast_2d(np.asarray(offsets, dtype=float))
    count = len(offsets)
    names = list(drivers)
    setup = setup or VariantSetup(system, names, hold, tolerance)
    targets = _targets(setup, drivers, count)
    N, d = targets.shape[1], len(setup.columns)
    geometries = builder.geometries(offsets)
    blocks = builder.blocks(setup.block, geometries.scale)
    n, links, D = system.n, system.topology.links, len(names)
    here = _stacked(new_work(system, setup.q0, setup.rotations0), count)
    trial = _stacked(new_work(system, setup.q0, setup.rotations0), count)
    factor = _stacked(new_factor(setup.block), count)
    trial_factor = _stacked(new_factor(setup.block), count)
    G, new_G, last_G = np.zeros((count, n, d)), np.zeros((count, n, d)), np.zeros((count, 2, n, d))
    last_step = np.zeros((count, 2, d))
    curvature, curved = np.zeros((count, 2, n)), np.zeros((count, CURVED_FLAGS))
    counters = np.zeros((count, WALK_COUNTERS), dtype=np.int64)
    counters[:, STEP_BUDGET] = MAX_STEPS
    diagnostics = np.zeros((count, WALK_DIAGNOSTICS))
    status, reached = np.zeros(count, dtype=np.int64), np.zeros(count, dtype=np.int64)
    # Every row of a variant that finishes is written; a variant that does not is walked again
    # below, its rows set to NaN first: the outputs start empty, not NaN, as filling tens of MB
    # that the walk overwrites anyway is a large share of a study.
    out_q = np.empty((count, N, n))
    out_T, out_V, out_A = _link_major((count, N), links, D)
    unit_speeds = np.eye(D, d)
    unbuildable = builder.unbuildable(offsets)
    for v in unbuildable:
        counters[v, STEP_BUDGET] = 0  # no step: the kernel leaves it at once
    walks = WalkState(here, factor, G, trial, trial_factor, new_G, last_G, last_step, curvature, curved)
    arguments = (system.topology, geometries, blocks, walks, setup.q0, setup.rotations0, targets, unit_speeds,
                 setup.params, counters, diagnostics, status, reached, VariantRecordArrays(out_q, out_T, out_V, out_A))
    _in_threads(kernels.walk_variants, arguments, count, workers)
    reasons = dict(unbuildable)
    for v in unbuildable:
        reached[v] = 0
        for target in (out_q, out_T, out_V, out_A):
            target[v] = np.nan
    for v in np.flatnonzero(status != 0):
        if v in unbuildable:
            continue
        out = _walk_alone(setup, variant_system(system, geometries, int(v)), targets[v], unit_speeds)
        reached[v], reason = out[0], out[1]
        k = slice(0, reached[v])
        for target, values in zip((out_q, out_T, out_V, out_A), out[2:]):
            target[v] = np.nan
            target[v, k] = values
        if reason is not None:
            reasons[int(v)] = reason
    return VariantRecord(system, names, setup.held, out_q, out_T, out_V, out_A, reached, reasons)


def _link_major(rows, links, drivers):
    """Empty poses (V, N, L, 4, 4) and twists (V, N, D, L, 6), stored link by link (views of
    (L, V, N, 4, 4) and (D, L, V, N, 6) arrays): a metric reads one link's poses or twists at
    every row (a design study's suspension metrics), and finds them contiguous, without a
    copy."""
    poses = np.empty((links,) + rows + (4, 4)).transpose(1, 2, 0, 3, 4)
    twists = [np.empty((drivers, links) + rows + (6,)).transpose(2, 3, 0, 1, 4) for _ in range(2)]
    return poses, twists[0], twists[1]


def _targets(setup, drivers, count):
    """Driven values (V, N, d): the drivers' (shared or per variant), then the held columns'."""
    columns = []
    for name in setup.names:
        values = np.asarray(drivers[name], dtype=float)
        if values.ndim == 1:
            values = np.broadcast_to(values, (count, len(values)))
        if values.ndim != 2 or values.shape[0] != count or not np.all(np.isfinite(values)):
            raise ModelError(f"driver {name!r}", f"expected finite values (N,) or ({count}, N), got shape "
                             f"{values.shape}")
        columns.append(values)
    lengths = {c.shape[1] for c in columns}
    if len(lengths) != 1:
        raise ModelError("drivers", f"driver value arrays differ in length: {sorted(lengths)}")
    N = lengths.pop()
    held_count = len(setup.columns) - len(setup.names)
    held = np.broadcast_to(setup.q0[setup.columns[len(setup.names):]], (count, N, held_count))
    return np.ascontiguousarray(np.concatenate([np.stack(columns, axis=2), held], axis=2))


def _walk_alone(setup, system, targets, unit_speeds):
    """One variant by the single-model walk (rows chosen anew where needed), as a separate
    sweep of it walks: ``(reached, reason or None, q, T, V, A)``."""
    names, count, d = setup.names, len(targets), len(setup.columns)
    out = SweepOutputs(system, count, d)
    zeros = np.zeros((count, d))
    reason = None
    try:
        walk = Walk(system, setup.columns, setup.q0, tolerance=setup.tolerance)
    except WalkStopped as stop:
        reason = (f"the design pose does not close for this variant, or the drivers do not fix its motion there "
                  f"(defect {stop.error:.3g})")
        return 0, reason, out["q"][:0], out["T"][:0], np.zeros((0, len(names), system.topology.links, 6)), \
            np.zeros((0, len(names), system.topology.links, 6))
    index = 0
    while True:
        try:
            index, done = walk.positions(np.ascontiguousarray(targets), zeros, zeros, index, out)
        except WalkStopped as stop:
            index = walk.reached
            reason = stop_reason(system, names, setup.driven, walk.driven_values[:len(names)],
                                 targets[index, :len(names)], stop)
            break
        if done:
            break
    k = slice(0, index)
    V = np.zeros((index, len(names), system.topology.links, 6))
    A = np.zeros_like(V)
    for j in range(len(names)):
        speeds = np.zeros((index, d))
        speeds[:, j] = unit_speeds[j, j]
        _, _, V[:, j], A[:, j] = motion_at_positions(system, setup.columns, out["q"][k], out["rotations"][k],
                                                     out["G"][k], speeds, np.zeros_like(speeds))
    return index, reason, out["q"][k], out["T"][k], V, A
