"""Sweeps: step the drivers, predict from the velocity solution, correct with Newton.

From the reference assembly (the design pose) the drivers walk to their first requested
values, then through the rest in order, by the one continuation of
:mod:`loops.continuation`: the tangent ``dq/d(driver)`` from the factorized closure matrix
(eq. 4) predicts, Newton (eq. 3) corrects with the drivers held, and a step is accepted
only if every loop closes, the correction is small against the predicted motion (no jump
to another assembly branch) and the tangent keeps its direction (no turning point passed);
otherwise it is halved. At a change point (a parallelogram folding flat) the walk leaves
along the branch it came on. Velocities and accelerations (eq. 4 and its derivative) are
solved at every position reached.

Real freedoms that no driver fixes (a steering rack, a wheel's spin) are held at their
values (:mod:`loops.held`); ``res.held`` names them. When the walk cannot go on it raises
:class:`~mechanism.errors.SweepStopped` with every closed position reached and a reason
naming the driver value: a dead point (``B`` singular in the other variables), a value out
of reach, or a walk longer than :data:`loops.continuation.MAX_STEPS` steps. Ctrl-C raises
:class:`~mechanism.errors.SweepInterrupted`, which carries the positions reached too.
"""

from __future__ import annotations

import functools
import math
import sys

import numpy as np

from mechanism.errors import ModelError, SweepInterrupted, SweepStopped

from .compiled import compile_model
from .configuration import evaluate
from .continuation import (DEFAULT_TOLERANCE, MAX_MOTION, MAX_STEPS, MAX_TOLERANCE, MIN_TOLERANCE, SpareWalks,
                           Walk, WalkStopped, closure_tolerance)
from .held import DependentDrivers, held_freedoms
from .newton import worst_loop
from .results import MAX_RECORD_BYTES, SweepResult, record_bytes
from .rates import empty_record

__all__ = ["sweep", "driver_table", "per_position", "closure_tolerance", "MAX_TOLERANCE", "MIN_TOLERANCE",
           "MAX_POSITIONS", "SweepOutputs", "stop_reason", "progress_bar"]

#: Most positions one sweep may request.
MAX_POSITIONS = 10_000_000


def _numbers(value, where):
    """``value`` as a float array, or a located ModelError."""
    try:
        return np.array(value, dtype=float)
    except (TypeError, ValueError, OverflowError):
        raise ModelError(where, f"expected numbers, got {str(value)[:60]}") from None


def per_position(values, names, count, what):
    """Driver rates as a dict name -> (count,) array, from numbers or per-position arrays.

    ``values`` is None or a dict keyed by driver ``names``; ``what`` (``"speed"``) locates the
    ModelError for an unknown name, a wrong length, a non-number or a non-finite value.
    """
    out = {}
    if values is None:
        return out
    if not isinstance(values, dict):
        raise ModelError(what, "expected a dict of driver name -> number or values")
    for name, value in values.items():
        if name not in names:
            raise ModelError(f"{what} {name!r}", f"not a driver of this sweep (drivers: {', '.join(names)})")
        if type(value) is float and math.isfinite(value):  # a plain number: no array to make of it first
            out[name] = np.full(count, value)
            continue
        arr = _numbers(value, f"{what} {name!r}")
        if arr.ndim == 0:
            arr = np.full(count, float(arr))
        if arr.shape != (count,):
            raise ModelError(f"{what} {name!r}", f"expected a number or {count} values, got shape {arr.shape}")
        if not np.isfinite(arr).all():
            raise ModelError(f"{what} {name!r}", "non-finite value")
        out[name] = arr
    return out


def driver_table(drivers):
    """Driver names and their values as a (count, d) table, validated (located ModelErrors)."""
    if not isinstance(drivers, dict) or not drivers:
        raise ModelError("drivers", "give a dict of driver name -> values")
    arrays = {}
    for name, values in drivers.items():
        try:
            hash(name)
        except TypeError:
            raise ModelError("drivers", f"a driver name must be a string, got {type(name).__name__}") from None
        arr = _numbers(values, f"driver {name!r}")
        if arr.ndim == 0:
            arr = arr.reshape(1)
        if arr.ndim != 1 or not np.isfinite(arr).all():
            raise ModelError(f"driver {name!r}", "values must be a finite 1-D sequence")
        if not len(arr):
            raise ModelError(f"driver {name!r}", "no values given")
        if len(arr) > MAX_POSITIONS:
            raise ModelError(f"driver {name!r}", f"{len(arr)} values: at most {MAX_POSITIONS} positions per sweep")
        arrays[name] = arr
    lengths = {len(a) for a in arrays.values() if len(a) > 1}
    if len(lengths) > 1:
        raise ModelError("drivers", f"driver value arrays differ in length: {sorted(lengths)}")
    count = lengths.pop() if lengths else 1
    if len(arrays) == 1:
        return list(arrays), arr.reshape(count, 1)  # arr: _numbers' own copy
    table = np.empty((count, len(arrays)))
    for k, arr in enumerate(arrays.values()):
        table[:, k] = arr  # a single value stands for every position
    return list(arrays), table


def progress_bar(total, enabled, unit="pos", least=200):
    """A progress bar on stderr for ``total`` ``unit``s, or None; ``enabled`` None shows it
    on a terminal from ``least`` on (it appears after a second)."""
    if enabled is None:
        enabled = total >= least and sys.stderr.isatty()
    if not enabled:
        return None
    from tqdm import tqdm  # noqa: PLC0415

    return tqdm(total=total, unit=unit, file=sys.stderr, leave=False, delay=1.0)


def _describe(system, names, cols, values):
    """Driver values in the model's own units (its file's; SI for a model built in Python)."""
    return system.describe(cols, values, names)


def _check_span(system, names, driven, table):
    """Refuse, before walking, drivers that travel farther than one walk can go: at most
    MAX_STEPS continuation steps, each moving a driver at most MAX_MOTION (rad, or sizes),
    from the reference assembly through the rows of ``table``."""
    reach = MAX_STEPS * MAX_MOTION
    _, scale, start, nearest = _driven_columns(system, tuple(names))
    # The travel is at most 2 count times the largest distance from the start: within the reach, no sum needed.
    if np.abs(table - start).max() * (2 * len(table)) <= nearest:
        return
    path = np.empty((len(table) + 1, len(driven)))
    path[0] = start
    path[1:] = table
    path /= scale
    travel = np.abs(path[1:] - path[:-1]).sum(axis=0)
    worst = int(np.argmax(travel))
    if travel[worst] > reach:
        units = system.model.units
        dimension = "angle" if system.rotational[driven[worst]] else "length"
        moved = units.show(travel[worst] * scale[worst], dimension)
        raise ModelError(f"driver {names[worst]!r}", f"the sweep moves it {moved} in all, farther than one sweep walks "
                         f"({MAX_STEPS} steps of at most {MAX_MOTION:g} rad, or {MAX_MOTION:g} times the mechanism's "
                         "size for a slide: "
                         f"{units.show(reach * scale[worst], dimension)}); sweep a shorter range")


@functools.lru_cache(maxsize=256)
def _driven_columns(system, names):
    """The columns of the driver ``names`` (a tuple; :meth:`~loops.compiled.CompiledSystem.
    driver_columns`, which refuses what is no driver) with what a sweep's span check reads:
    ``(columns, their column scale, their values at the reference assembly, the smallest
    reach of a walk in their units)``, arrays read-only."""
    driven = system.driver_columns(list(names))
    scale = system.column_scale[driven]
    start = _reference(system)[0][driven]
    for array in (driven, scale, start):
        array.setflags(write=False)
    return driven, scale, start, float(MAX_STEPS * MAX_MOTION * scale.min())


def _held(system, start, driven, hold):
    """The held columns at the reference assembly ``start`` and what a sweep makes of them
    (:func:`_with_held`), cached per drivers and ``hold``; a ``hold`` that is no sequence of
    names goes to :func:`loops.held.held_freedoms` to be refused there."""
    key = None
    if hold is not None:
        try:
            key = (hold,) if isinstance(hold, str) else tuple(hold)
            hash(key)
        except TypeError:
            return _with_held(system, driven, held_freedoms(system, start, driven, hold))
    return _held_at_reference(system, np.asarray(driven, dtype=np.int64).tobytes(), key)


def _with_held(system, driven, held):
    """``(held names, the driven and held columns as int64 bytes, the held values at the reference
    assembly)`` of the ``held`` columns (a tuple, bytes and a read-only array)."""
    values = _reference(system)[0][held]
    values.setflags(write=False)
    columns = np.concatenate([driven, held]).astype(np.int64).tobytes()
    return tuple(system.variable_names[c] for c in held), columns, values


def _check_memory(system, count, tangents):
    """Refuse a sweep whose record would not fit in MAX_RECORD_BYTES."""
    size = record_bytes(system, count, tangents)
    if size > MAX_RECORD_BYTES:
        raise ModelError("drivers", f"{count} positions would take {size / 2**30:.3g} GiB of results, more than "
                         f"the {MAX_RECORD_BYTES / 2**30:g} GiB a sweep may hold: sweep fewer positions")


def stop_reason(system, names, cols, reached, wanted, stop):
    """The sentence a stopped walk's sweep gives (``SweepStopped.reason``): where it stood
    (``reached``, the driven values of ``names`` in columns ``cols``), what it could not reach
    (``wanted``) and why (``stop``, a :class:`~loops.continuation.WalkStopped`); driver
    values in the model's own units."""
    at = _describe(system, names, cols, reached)
    target = _describe(system, names, cols, wanted)
    if stop.kind == "steps":
        return (f"cannot reach {target} from {at}: the walk would take more than {MAX_STEPS} continuation "
                "steps (the requested values are too far apart)")
    if stop.kind == "dead point":
        independent = "" if len(cols) == 1 else " (or the drivers are not independent there)"
        return (f"dead point at {at}: the closure equations are singular in the other pair variables "
                f"(conditioning {stop.conditioning:.2g}){independent}, so {target} cannot be reached on this "
                "branch")
    return (f"cannot reach {target} from {at}: the loops would not close (defect {stop.error:.3g} after "
            f"{stop.iterations} Newton iterations)")


class SweepOutputs(dict):
    """Arrays of a sweep's positions (``count`` rows, ``d`` driven columns), filled by the walk
    (see :meth:`loops.continuation.Walk.positions`):
    every row up to the one the walk reached is written, the rest is never read."""

    def __init__(self, system, count, d):
        super().__init__(empty_record(system, d, count, new=np.empty)._asdict())
        self.count = count

    def result(self, system, names, held, reached, stop_reason=None):
        """The record of the first ``reached`` positions (the arrays themselves when all were)."""
        part = self if reached == self.count else {key: value[:reached].copy() for key, value in self.items()}
        return SweepResult(system, names, part["q"], part["q_dot"], part["q_ddot"], part["T"], part["V"], part["A"],
                           held=held, stop_reason=stop_reason, rotations=part["rotations"], tangents=part["G"])


@functools.lru_cache(maxsize=64)
def _reference(system):
    """The reference assembly every sweep of ``system`` starts from: ``(q0, configuration)``."""
    q0 = system.reference_q()
    q0.setflags(write=False)
    return q0, evaluate(system, q0)


@functools.lru_cache(maxsize=64)
def _reference_error(system):
    """The closure error of the reference assembly (:func:`_reference`), checked by every sweep."""
    return _reference(system)[1].closure_error()


@functools.lru_cache(maxsize=256)
def _held_at_reference(system, driven, hold):
    """:func:`loops.held.held_freedoms` at the reference assembly for the ``driven`` columns
    (int64 bytes) and the ``hold`` names (a tuple, or None), read-only."""
    driven = np.frombuffer(driven, dtype=np.int64)
    return _with_held(system, driven, held_freedoms(system, _reference(system)[1], driven,
                                                     None if hold is None else list(hold)))


@functools.lru_cache(maxsize=256)
def _walks_at_reference(system, columns, tolerance):
    """Walks standing on the reference assembly with the driven and held ``columns`` (int64
    bytes), closed and factorized (:class:`~loops.continuation.SpareWalks`): each sweep takes
    one and gives it back when done."""
    return SpareWalks(Walk(system, np.frombuffer(columns, dtype=np.int64).copy(), _reference(system)[0],
                           tolerance=tolerance))


def sweep(model, drivers, speeds=None, accelerations=None, *, hold=None, tolerance=DEFAULT_TOLERANCE,
          progress=None):
    """Position, velocity and acceleration sweep of a mechanism.

    Parameters
    ----------
    model : mechanism.specs.Model (``Mechanism.sweep`` passes its snapshot)
    drivers : dict name -> (N,) values
        Pair variables (rad, m) or point drivers (m), relative to the design pose. A single
        value is held for the whole sweep.
    speeds, accelerations : dict name -> float or (N,)
        Driver rates (rad/s, m/s) and their derivatives; drivers not named get 0.
    hold : list of str, optional
        Variables to hold at their values for the freedoms no driver fixes; the rest of them
        is chosen (:mod:`loops.held`).
    tolerance : float
        Closure tolerance, dimensionless (rotation rad, gap over the mechanism size), in
        ``[MIN_TOLERANCE, MAX_TOLERANCE]``.
    progress : bool or None
        Progress bar on stderr; None shows it for long sweeps on a terminal.

    Returns
    -------
    loops.results.SweepResult

    Raises
    ------
    SweepStopped
        At a dead point, an unreachable value or a closure failure: ``.partial`` holds every
        position reached (all closed), ``.reason`` names the driver value and the cause.
    SweepInterrupted
        On Ctrl-C, with ``.partial`` as for SweepStopped (also a KeyboardInterrupt).
    ModelError
        For drivers that are not pair variables, malformed values, an over-driven mechanism,
        held variables that cannot be held, a tolerance out of range, drivers that travel
        farther than one walk goes (:data:`~loops.continuation.MAX_STEPS` steps of at most
        :data:`~loops.continuation.MAX_MOTION`), more positions than
        :data:`MAX_POSITIONS` or a record larger than
        :data:`~loops.results.MAX_RECORD_BYTES`.
    """
    tolerance = closure_tolerance(tolerance)
    system = compile_model(model)
    names, table = driver_table(drivers)
    driven = _driven_columns(system, tuple(names))[0]
    count = len(table)
    speed = per_position(speeds, names, count, "speed")
    accel = per_position(accelerations, names, count, "acceleration")

    _check_span(system, names, driven, table)
    _check_memory(system, count, len(driven))
    held_names, columns, held_values = _held_or_stop(system, names, driven, table, hold, tolerance)
    held_names = list(held_names)
    _check_memory(system, count, len(driven) + len(held_names))
    moves = _moves(names, table, held_values, speed, accel)
    out = SweepOutputs(system, count, len(driven) + len(held_names))
    try:
        walks = _walks_at_reference(system, columns, tolerance)
    except WalkStopped as stop:
        reason = (f"the drivers {', '.join(names)} cannot move the reference assembly (it does not close, or "
                  f"the drivers and held variables do not fix its motion there: defect {stop.error:.3g})")
        raise SweepStopped(reason, SweepResult.empty(system, names, reason, held=held_names)) from None
    walk = walks.take()
    try:
        _walk_through(system, names, driven, table, walk, moves, out, held_names, progress)
    finally:
        walks.give(walk)
    return out.result(system, names, held_names, count)


def _moves(names, table, held_values, speed, accel):
    """The walk's targets, rates and second rates, each (count, d + h) C-contiguous: the driver
    ``table`` (count, d) then the ``held_values`` (h,) on every row; the ``speed`` and ``accel``
    of the drivers named there (dicts name -> (count,)), zero elsewhere."""
    count, d = table.shape
    targets, rates, second = np.zeros((3, count, d + len(held_values)))
    targets[:, :d] = table
    if len(held_values):
        targets[:, d:] = held_values
    for k, name in enumerate(names):
        if name in speed:
            rates[:, k] = speed[name]
        if name in accel:
            second[:, k] = accel[name]
    return targets, rates, second


def _held_or_stop(system, names, driven, table, hold, tolerance):
    """The held columns of a sweep from the reference assembly (:func:`_reference`), as
    :func:`_with_held` gives them; raises SweepStopped (with an empty result) when that
    assembly does not close or the drivers do not move it independently there."""
    start = _reference(system)[1]
    error = _reference_error(system)
    if error > max(tolerance, 1e-8):
        loop = worst_loop(system, start)
        reason = (f"the reference assembly does not close ({loop}, defect {error:.3g}); "
                  "call Mechanism.assemble() first")
        raise SweepStopped(reason, SweepResult.empty(system, names, reason), loop=loop, residual=error)
    try:
        return _held(system, start, driven, hold)
    except DependentDrivers:
        at = _describe(system, names, driven, start.q[driven])
        reason = (f"dead point at {at}: the drivers do not move the mechanism independently there (a driver at "
                  f"its turning point, or drivers that are not independent), so "
                  f"{_describe(system, names, driven, table[0])} cannot be reached")
        raise SweepStopped(reason, SweepResult.empty(system, names, reason),
                           driver_values=dict(zip(names, table[0]))) from None


def _walk_through(system, names, driven, table, walk, moves, out, held_names, progress):
    """Walk through every position (``moves``: the driven targets, rates and second rates, one row
    a position), recording into ``out``; raises SweepStopped at a stop and SweepInterrupted on
    Ctrl-C, each with the positions reached."""
    count = len(table)
    bar = progress_bar(count, progress)
    index = 0
    try:
        while True:
            try:
                index, done = walk.positions(*moves, index, out)
            except WalkStopped as stop:
                index = walk.reached
                reason = stop_reason(system, names, driven, walk.driven_values[:len(names)], table[index], stop)
                partial = out.result(system, names, held_names, index, reason)
                raise SweepStopped(reason, partial, loop=None, driver_values=dict(zip(names, table[index])),
                                   residual=stop.error, iterations=stop.iterations) from None
            if bar is not None:
                bar.update(index - bar.n)
            if done:
                break
    except KeyboardInterrupt:
        index = max(index, walk.reached)
        reached = _describe(system, names, driven, table[index - 1]) if index else "the design pose"
        reason = f"interrupted (Ctrl-C) after {index} of {count} positions, at {reached}"
        raise SweepInterrupted(reason, out.result(system, names, held_names, index, reason),
                               driver_values=dict(zip(names, table[max(index - 1, 0)]))) from None
    finally:
        if bar is not None:
            bar.close()
