"""Sweeps of many design variants at once (the compiled walk over a variant axis).

:func:`sweep_variants` walks every variant of a model from its design pose through the same
driver values, the variants in parallel on every core (:func:`loops.kernels.variants.
walk_variants`), each closed to the tolerance of a single sweep and kept on its branch by
the same walk. It records, per variant and position, the variables, the link poses and,
per driver at unit rate with the other drivers at rest, the link velocities and
accelerations: everything the suspension metrics and their rates are made of.

A variant the compiled walk cannot finish (a dead point, a position out of reach, a design
pose that does not close, a square block that needs new rows) is walked again alone by the
single-model walk of :func:`loops.sweep.sweep` (which chooses rows anew where it must), so
that it stops exactly where a separate sweep of that variant stops and with the same
reason; its rows past the stop are NaN. It never stops the others.
"""

from __future__ import annotations

import copy
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from mechanism.errors import ModelError

from ..configuration import constraint_matrix, evaluate, new_work
from ..continuation import (DEFAULT_TOLERANCE, MAX_STEPS, Walk, WalkStopped, closure_tolerance, motion_at_positions,
                            walk_parameters)
from ..held import DependentDrivers, held_freedoms
from ..linear import new_factor, square_block

__all__ = ["VariantRecord", "sweep_variants", "variant_system"]


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


class _Setup:
    """What every chunk of a study shares: drivers, held columns, the nominal square block."""

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
        self.block = square_block(system, constraint_matrix(system, start, scaled=True), self.columns)
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
    builder : loops.study.geometry.VariantGeometry
    offsets : (V, k) the variants' coordinate offsets (SI)
    drivers : dict name -> (N,) values shared by the variants, or (V, N) one row per variant
    hold : variables to hold (as :func:`loops.sweep.sweep`)
    tolerance : closure tolerance (dimensionless)
    workers : threads (default: one per core)

    Returns
    -------
    VariantRecord
    """
    from ..kernels import variants as kernels  # noqa: PLC0415 (kernels load on first use)

    tolerance = closure_tolerance(tolerance)
    offsets = np.atleast_2d(np.asarray(offsets, dtype=float))
    count = len(offsets)
    names = list(drivers)
    setup = setup or _Setup(system, names, hold, tolerance)
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
    curvature, curved = np.zeros((count, 2, n)), np.zeros((count, 3))
    counters = np.zeros((count, 2), dtype=np.int64)
    counters[:, 1] = MAX_STEPS
    diagnostics = np.zeros((count, 8))
    status, reached = np.zeros(count, dtype=np.int64), np.zeros(count, dtype=np.int64)
    # Every row of a variant that finishes is written; a variant that does not is walked again
    # below, its rows set to NaN first. (Filling tens of MB with NaN beforehand cost a sixth
    # of a study.)
    out_q = np.empty((count, N, n))
    out_T, out_V, out_A = _link_major((count, N), links, D)
    unit_speeds = np.eye(D, d)
    unbuildable = builder.unbuildable(offsets)
    for v in unbuildable:
        counters[v, 1] = 0  # no step: the kernel leaves it at once
    arguments = (system.topology, geometries, blocks, here, factor, G, trial, trial_factor, new_G, last_G, last_step,
                 curvature, curved, setup.q0, setup.rotations0, targets, unit_speeds, setup.params, counters,
                 diagnostics, status, reached, out_q, out_T, out_V, out_A)
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
    every row (:class:`loops.study.suspension.VariantSuspension`), and finds them contiguous,
    where a copy of each took a fifth of the metrics' time."""
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
    held = np.broadcast_to(setup.q0[setup.columns[len(setup.names):]], (count, N, len(setup.columns) - len(setup.names)))
    return np.ascontiguousarray(np.concatenate([np.stack(columns, axis=2), held], axis=2))


def _walk_alone(setup, system, targets, unit_speeds):
    """One variant by the single-model walk (rows chosen anew where needed), as a separate
    sweep of it walks: ``(reached, reason or None, q, T, V, A)``."""
    from ..sweep import _Outputs, _stop_reason  # noqa: PLC0415

    names, count, d = setup.names, len(targets), len(setup.columns)
    out = _Outputs(system, count, d)
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
            reason = _stop_reason(system, names, setup.driven, walk.driven_values[:len(names)], targets[index, :len(names)],
                                  stop)
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
