"""Sweeps: step the drivers, predict from the velocity solution, correct with Newton.

From the reference assembly (the design pose) the drivers walk to their first requested
values, then through the rest in order. Every step between two positions is a
continuation: the tangent ``dq/d(driver)`` from the factorized ``B`` (eq. 4) predicts,
Newton (eq. 3) corrects with the drivers held, and a step is accepted only if

* every loop closes to the tolerance,
* the correction is small against the predicted motion (no jump to another assembly
  mode), and
* the tangent keeps its direction (the sweep did not pass a turning point).

Otherwise the step is halved. When it can no longer be halved the sweep stops with
:class:`~mechanism.errors.SweepStopped`, carrying every closed position reached and a
reason that names the driver value: a dead point (``B`` singular in the other variables)
or a loop that cannot close.

Only every ``ANCHOR_SPACING``-th requested position (an anchor) is reached this way, one
after the other. The positions between two anchors lie on the path the continuation just
walked: they are predicted together by cubic Hermite interpolation between the anchors
(positions and tangents, in the chart of the first anchor), corrected together by a
batched chord-Newton iteration, and accepted only if every loop closes and the correction
is small against the prediction; any segment that fails this is walked step by step
instead. Velocities and accelerations (eq. 4 and its derivative) are then solved for all
positions at once. Batching is what makes a sweep cost tens, not hundreds, of
microseconds per position: numpy's per-call overhead is paid once per batch.
"""

from __future__ import annotations

import sys

import numpy as np

from mechanism.errors import ModelError, SweepStopped
from mechanism.transforms import log_so3

from .acceleration import solve_motion
from .closure import DEFAULT_TOLERANCE, correct_batch, newton, worst_loop
from .results import SweepResult
from .system import compile_model
from .velocity import ClosureLinearization, Factorization, free_columns

__all__ = ["sweep"]

#: Largest predicted motion in one continuation step (rad, or sizes for slides).
MAX_MOTION = 0.3
#: Correction over predicted motion above which a step is taken as a branch jump.
MAX_CORRECTION_RATIO = 0.3
#: Conditioning of ``B`` (smallest over largest singular value) taken as a dead point.
DEAD_POINT_CONDITIONING = 1e-3
#: Fewest halvings before a sweep gives up on a step (the step is then ~1e-9 of its span).
MAX_HALVINGS = 30
#: Requested positions between two anchors of the sequential continuation, plus one.
ANCHOR_SPACING = 16
#: Largest correction (dimensionless) after which the factorization of ``B`` at a batch
#: prediction still serves the rates: refinement shrinks its error as (relative change)^4.
REUSE_CORRECTION = 1e-4


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
        arr = _numbers(value, f"{what} {name!r}")
        if arr.ndim == 0:
            arr = np.full(count, float(arr))
        if arr.shape != (count,):
            raise ModelError(f"{what} {name!r}", f"expected a number or {count} values, got shape {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ModelError(f"{what} {name!r}", "non-finite value")
        out[name] = arr
    return out


def _numbers(value, where):
    """``value`` as a float array, or a located ModelError."""
    try:
        return np.array(value, dtype=float)
    except (TypeError, ValueError):
        raise ModelError(where, f"expected numbers, got {value!r}") from None


def _driver_table(drivers):
    if not isinstance(drivers, dict) or not drivers:
        raise ModelError("drivers", "give a dict of driver name -> values")
    arrays = {}
    for name, values in drivers.items():
        arr = np.atleast_1d(_numbers(values, f"driver {name!r}"))
        if arr.ndim != 1 or not np.all(np.isfinite(arr)):
            raise ModelError(f"driver {name!r}", "values must be a finite 1-D sequence")
        if not len(arr):
            raise ModelError(f"driver {name!r}", "no values given")
        arrays[name] = arr
    lengths = {len(a) for a in arrays.values() if len(a) > 1}
    if len(lengths) > 1:
        raise ModelError("drivers", f"driver value arrays differ in length: {sorted(lengths)}")
    count = lengths.pop() if lengths else 1
    return list(arrays), np.column_stack([np.broadcast_to(a, (count,)) for a in arrays.values()])


class _Anchor:
    """A closed position reached by continuation: variables, rotations and tangent."""

    def __init__(self, state):
        q, config, lin = state
        self.q, self.rotations, self.lin = q, config.rotations, lin
        self.tangent = lin.tangent()


def _full_tangent(system, anchor, span, driven):
    """``dq/ds`` along a segment whose drivers change by ``span`` for s in [0, 1]: (n,)."""
    t = np.zeros(system.n)
    t[driven] = span
    t[anchor.lin.free] = anchor.tangent @ span
    return t


def _segment_parameters(start, end, values):
    """Position ``s`` in (0, 1) of each driver row of ``values`` on the line start -> end, or None
    when the rows are not on that line in increasing order."""
    span = end - start
    length = span @ span
    if length == 0:
        return None
    s = (values - start) @ span / length
    off_line = values - (start + s[:, None] * span)
    if np.abs(off_line).max(initial=0.0) > 1e-12 * (1 + np.abs(values).max()):
        return None
    if np.any(np.diff(np.r_[0.0, s, 1.0]) <= 0):
        return None
    return s


def _hermite_predictions(system, a, b, s, driven):
    """Cubic Hermite predictions between anchors ``a`` and ``b`` at parameters ``s``: (q, rotations).

    Written in the chart of ``a``: increments from ``a`` along the variables' twists, so the
    spherical pairs interpolate rotations, not rotation vectors.
    """
    span = b.q[driven] - a.q[driven]
    to_b = b.q - a.q
    if len(system.spherical_pairs):
        relative = b.rotations @ np.swapaxes(a.rotations, -1, -2)
        to_b[system.spherical_columns] = log_so3(relative)
    t_a = _full_tangent(system, a, span, driven)
    t_b = _full_tangent(system, b, span, driven)
    s = s[:, None]
    h10 = s ** 3 - 2 * s ** 2 + s
    h01 = -2 * s ** 3 + 3 * s ** 2
    h11 = s ** 3 - s ** 2
    increments = h10 * t_a + h01 * to_b + h11 * t_b
    count = len(s)
    q = np.broadcast_to(a.q, (count, system.n))
    rotations = np.broadcast_to(a.rotations, (count,) + a.rotations.shape)
    return system.step(q, increments, rotations)


class _Stop(Exception):
    """Raised inside a continuation: the last closed state and the failed attempt."""

    def __init__(self, q, config, lin, failed):
        super().__init__()
        self.q, self.config, self.lin = q, config, lin
        self.failed_config, self.error, self.iterations = failed.config, failed.error, failed.iterations


def _units(system, col):
    return "rad" if system.rotational[col] else "m"


def _describe(system, names, driven, values):
    return ", ".join(f"{name} = {v:.6g} {_units(system, c)}" for name, c, v in zip(names, driven, values))


def _scaled_motion(system, dq):
    return np.abs(dq / system.column_scale).max(initial=0.0)


def _continue_to(system, state, target, driven, names, tolerance):
    """Walk the drivers from their current values to ``target``; returns the new state.

    ``state`` is ``(q, config, linearization)`` at a closed position. Raises
    :class:`_Stop` when a step can no longer be halved.
    """
    q, config, lin = state
    start = q[driven].copy()
    span = target - start
    if not np.any(span):
        return state
    fraction, h = 0.0, 1.0
    halvings = 0
    tangent = lin.tangent()
    while fraction < 1.0:
        h = min(h, 1.0 - fraction)
        step = span * h
        dq = np.zeros(system.n)
        dq[driven] = step
        dq[lin.free] = tangent @ step
        motion = _scaled_motion(system, dq)
        if motion > MAX_MOTION:  # shorten before trying: keeps Newton in its basin
            h *= MAX_MOTION / motion
            continue
        predicted, rotations = system.step(q, dq, config.rotations)
        if fraction + h >= 1.0:
            predicted[driven] = target  # land exactly on the requested value
        outcome = newton(system, predicted, driven, rotations=rotations, tolerance=tolerance,
                         max_iterations=10)
        accepted = outcome.converged
        if accepted:
            accepted = outcome.correction <= MAX_CORRECTION_RATIO * motion + 10 * tolerance
        if accepted:
            new_lin = ClosureLinearization(system, outcome.config, driven, outcome.factorization)
            new_tangent = new_lin.tangent()
            # Same branch: the motion per unit driver keeps its direction.
            before = (tangent @ span) / system.column_scale[lin.free]
            after = (new_tangent @ span) / system.column_scale[new_lin.free]
            accepted = before @ after + (span / system.column_scale[driven]) @ (span / system.column_scale[driven]) > 0
        if not accepted:
            halvings += 1
            h *= 0.5
            if halvings > MAX_HALVINGS:
                raise _Stop(q, config, lin, outcome)
            continue
        q, config, lin, tangent = outcome.q, outcome.config, new_lin, new_tangent
        fraction = 1.0 if fraction + h >= 1.0 else fraction + h
        halvings = max(halvings - 1, 0)
        h *= 2.0
    q = q.copy()
    return q, config, lin


def _progress(total, enabled):
    if enabled is None:
        enabled = total >= 200 and sys.stderr.isatty()
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a declared dependency
        return None
    return tqdm(total=total, unit="pos", file=sys.stderr, leave=False, delay=1.0)


def sweep(model, drivers, speeds=None, accelerations=None, *, tolerance=DEFAULT_TOLERANCE, progress=None):
    """Position, velocity and acceleration sweep of a mechanism.

    Parameters
    ----------
    model : mechanism.specs.Model (``Mechanism.sweep`` passes its snapshot)
    drivers : dict name -> (N,) values
        Pair variables (rad, m) or point drivers (m), relative to the design pose. A single
        value is held for the whole sweep.
    speeds, accelerations : dict name -> float or (N,)
        Driver rates (rad/s, m/s) and their derivatives; drivers not named get 0.
    tolerance : float
        Closure tolerance, dimensionless (rotation rad, gap over the mechanism size).
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
    ModelError
        For drivers that are not pair variables, or malformed values.
    """
    system = compile_model(model)
    names, table = _driver_table(drivers)
    driven = system.driver_columns(names)
    if len(driven) > system.dof:
        raise ModelError("drivers", f"{len(driven)} drivers ({', '.join(names)}) for a mechanism with "
                         f"{system.dof} degree(s) of freedom: it is over-driven")
    count = len(table)
    speed = per_position(speeds, names, count, "speed")
    accel = per_position(accelerations, names, count, "acceleration")
    speed_table = np.column_stack([speed.get(n, np.zeros(count)) for n in names])
    accel_table = np.column_stack([accel.get(n, np.zeros(count)) for n in names])

    q0 = system.reference_q()
    outcome = newton(system, q0, driven, tolerance=tolerance, max_iterations=50)
    if not outcome.converged:
        loop = worst_loop(system, outcome.config)
        reason = (f"the reference assembly does not close ({loop}, defect {outcome.error:.3g}); "
                  "call Mechanism.assemble() first")
        raise SweepStopped(reason, _result(system, names, [], [], speed_table, accel_table, reason),
                           loop=loop, residual=outcome.error, iterations=outcome.iterations)
    start = (outcome.q, outcome.config, ClosureLinearization(system, outcome.config, driven))

    walk = _Walk(system, names, driven, table, tolerance, start, _progress(count, progress))
    try:
        walk.run()
    finally:
        if walk.bar is not None:
            walk.bar.close()
    if walk.stop is None:
        reached = sorted(walk.closed)
        assert reached == list(range(count))
    else:
        index, stop = walk.stop
        reached = list(range(index))  # the positions before the stop, all of them closed
    q = [walk.closed[k][0] for k in reached]
    rotations = [walk.closed[k][1] for k in reached]
    known = [walk.factorizations.get(k) for k in reached]
    if walk.stop is None:
        return _result(system, names, q, rotations, speed_table, accel_table, known=known)
    reason = _stop_reason(system, names, driven, stop.q[driven], table[index], stop)
    partial = _result(system, names, q, rotations, speed_table[:len(q)], accel_table[:len(q)], reason,
                      known=known)
    raise SweepStopped(reason, partial, loop=worst_loop(system, stop.failed_config) or None,
                       driver_values=dict(zip(names, table[index])), residual=stop.error,
                       iterations=stop.iterations)


class _Walk:
    """The sweep's path: anchors by continuation, the positions between them in batches.

    ``closed`` maps a requested position's index to ``(q, rotations)``; ``stop`` is
    ``(index, _Stop)`` for the first position that could not be reached.
    """

    def __init__(self, system, names, driven, table, tolerance, start, bar):
        self.system, self.names, self.driven = system, names, driven
        self.table, self.tolerance, self.bar = table, tolerance, bar
        self.state = self.start = start
        self.closed = {}
        self.factorizations = {}  # index -> (stacked factorization, row) from the batch
        self.stop = None

    def run(self):
        count = len(self.table)
        indices = list(range(0, count, ANCHOR_SPACING))
        if indices[-1] != count - 1:
            indices.append(count - 1)
        # 1. Anchors (position 0 first), one after the other, by continuation.
        anchors = []
        failed = None
        for index in indices:
            try:
                self.state = _continue_to(self.system, self.state, self.table[index], self.driven,
                                          self.names, self.tolerance)
            except _Stop as stop:
                failed = (index, stop)
                break
            anchors.append((index, _Anchor(self.state)))
            self.closed[index] = (anchors[-1][1].q, anchors[-1][1].rotations)
            self._advance_bar(1)
        # 2. Every position between two anchors, in one batch; segments that fail are walked.
        segments = [(a, b, range(i + 1, j)) for (i, a), (j, b) in zip(anchors, anchors[1:]) if j > i + 1]
        for a, _, between in self._batch(segments):
            self.state = self._state_of(a)
            if not self._one_by_one(between):
                return  # the walk stops there; the positions after it are dropped
        # 3. After a failed anchor: how far do the requested positions before it go?
        if failed is not None:
            last = anchors[-1][0] if anchors else -1
            self.state = self._state_of(anchors[-1][1]) if anchors else self.start
            if self._one_by_one(range(last + 1, failed[0])):
                self.stop = failed
        self._advance_bar(count - len(anchors))

    def _state_of(self, anchor):
        config = self.system.evaluate(anchor.q, anchor.rotations)
        return anchor.q, config, anchor.lin

    def _advance_bar(self, steps):
        if self.bar is not None:
            self.bar.update(steps)

    def _one_by_one(self, indices):
        """Continuation through ``indices`` in order; False (with ``stop`` set) at a failure."""
        for index in indices:
            try:
                self.state = _continue_to(self.system, self.state, self.table[index], self.driven,
                                          self.names, self.tolerance)
            except _Stop as stop:
                self.stop = (index, stop)
                return False
            q, config, _ = self.state
            self.closed[index] = (q, config.rotations)
        return True

    def _batch(self, segments):
        """Predict and correct the positions of all ``segments`` together.

        ``segments`` are ``(anchor a, anchor b, indices between)``. Returns the segments that
        could not be done this way (not on a straight driver path, or a position that did not
        close or moved too far from its prediction), to be walked instead.
        """
        system, driven = self.system, self.driven
        rows, starts, owners, walk = [], [], [], []
        for number, (a, b, between) in enumerate(segments):
            s = _segment_parameters(a.q[driven], b.q[driven], self.table[list(between)])
            if s is None:
                walk.append((a, b, between))
                continue
            q, rotations = _hermite_predictions(system, a, b, s, driven)
            rows.append((q, rotations))
            starts.append(np.broadcast_to(a.q, q.shape))
            owners += [number] * len(between)
        if not rows:
            return sorted(walk, key=lambda segment: segment[2].start)
        q = np.concatenate([r[0] for r in rows])
        rotations = np.concatenate([r[1] for r in rows])
        owners = np.array(owners)
        indices = np.concatenate([list(segments[k][2]) for k in sorted(set(owners))])
        q[:, driven] = self.table[indices]
        predicted_motion = np.abs((q - np.concatenate(starts)) / system.column_scale).max(axis=-1)
        q, config, converged, correction, factorization = correct_batch(system, q, rotations, driven,
                                                                        tolerance=self.tolerance)
        good = converged & (correction <= MAX_CORRECTION_RATIO * predicted_motion + 10 * self.tolerance)
        for number in sorted(set(owners)):
            mine = owners == number
            if np.all(good[mine]):
                for row in np.flatnonzero(mine):
                    self.closed[int(indices[row])] = (q[row], config.rotations[row])
                    if correction[row] <= REUSE_CORRECTION:
                        # B at the prediction, a hair from here: refined, it serves the rates.
                        self.factorizations[int(indices[row])] = (factorization, row)
            else:
                walk.append(segments[number])
        # Walked in position order, so a failure leaves every earlier position closed.
        return sorted(walk, key=lambda segment: segment[2].start)


def _result(system, names, q, rotations, speed_table, accel_table, stop_reason=None, known=None):
    """Result for closed positions ``q`` (list of (n,)), with velocities and accelerations
    solved for all of them at once.

    ``known[i]`` is ``(stacked factorization, row)`` of ``B`` near position i (the batch's, at
    its prediction) or None; positions without one are factorized afresh.
    """
    n, n_links = system.n, len(system.links)
    if not q:
        empty = np.zeros((0, n))
        return SweepResult(system, names, empty, empty, empty, np.zeros((0, n_links, 4, 4)),
                           np.zeros((0, n_links, 6)), np.zeros((0, n_links, 6)), stop_reason)
    q = np.array(q)
    config = system.evaluate(q, np.array(rotations))
    driven = system.driver_columns(names)
    known = known or [None] * len(q)
    fresh = np.array([i for i, k in enumerate(known) if k is None], dtype=int)
    pieces = []
    if len(fresh):
        B = system.constraint_matrix(config)[fresh]
        free = free_columns(system, driven)
        pieces.append((Factorization(system, B[..., free], free), fresh))
    for source in {id(k[0]): k[0] for k in known if k is not None}.values():
        positions = np.array([i for i, k in enumerate(known) if k is not None and k[0] is source], dtype=int)
        rows = np.array([known[i][1] for i in positions], dtype=int)
        pieces.append((source.rows(rows), positions))
    factorization = Factorization.gather(pieces, len(q)) if len(fresh) < len(q) else None
    lin = ClosureLinearization(system, config, driven, factorization)
    motion = solve_motion(lin, config, speed_table[:len(q)], accel_table[:len(q)])
    return SweepResult(system, names, q, motion.q_dot, motion.q_ddot, config.link_poses,
                       motion.link_velocities, motion.link_accelerations, stop_reason)


def _stop_reason(system, names, driven, reached, target, stop):
    at = _describe(system, names, driven, reached)
    wanted = _describe(system, names, driven, target)
    if stop.lin.conditioning < DEAD_POINT_CONDITIONING:
        independent = "" if len(driven) == 1 else " (or the drivers are not independent there)"
        return (f"dead point at {at}: the closure equations are singular in the other pair variables "
                f"(conditioning {stop.lin.conditioning:.2g}){independent}, so {wanted} cannot be reached "
                "on this branch")
    return (f"cannot reach {wanted} from {at}: {worst_loop(system, stop.failed_config) or 'the loops'} "
            f"would not close (defect {stop.error:.3g}) in {stop.iterations} iterations")
