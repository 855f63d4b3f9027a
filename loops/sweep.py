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
"""

from __future__ import annotations

import sys

import numpy as np

from mechanism.errors import ModelError, SweepStopped

from .acceleration import solve_motion
from .closure import DEFAULT_TOLERANCE, newton, worst_loop
from .results import SweepResult
from .system import compile_model
from .velocity import ClosureLinearization

__all__ = ["sweep"]

#: Largest predicted motion in one continuation step (rad, or sizes for slides).
MAX_MOTION = 0.15
#: Correction over predicted motion above which a step is taken as a branch jump.
MAX_CORRECTION_RATIO = 0.3
#: Conditioning of ``B`` (smallest over largest singular value) taken as a dead point.
DEAD_POINT_CONDITIONING = 1e-3
#: Fewest halvings before a sweep gives up on a step (the step is then ~1e-9 of its span).
MAX_HALVINGS = 30


def _per_position(values, names, count, what):
    """Dict of name -> (count,) arrays from scalars or arrays; unknown names rejected."""
    out = {}
    for name, value in (values or {}).items():
        if name not in names:
            raise ModelError(f"{what} {name!r}", f"not a driver of this sweep (drivers: {', '.join(names)})")
        arr = np.array(value, dtype=float)
        if arr.ndim == 0:
            arr = np.full(count, float(arr))
        if arr.shape != (count,):
            raise ModelError(f"{what} {name!r}", f"expected a number or {count} values, got shape {arr.shape}")
        if not np.all(np.isfinite(arr)):
            raise ModelError(f"{what} {name!r}", "non-finite value")
        out[name] = arr
    return out


def _driver_table(drivers):
    if not isinstance(drivers, dict) or not drivers:
        raise ModelError("drivers", "give a dict of driver name -> values")
    arrays = {}
    for name, values in drivers.items():
        arr = np.atleast_1d(np.array(values, dtype=float))
        if arr.ndim != 1 or not np.all(np.isfinite(arr)):
            raise ModelError(f"driver {name!r}", "values must be a finite 1-D sequence")
        arrays[name] = arr
    lengths = {len(a) for a in arrays.values() if len(a) > 1}
    if len(lengths) > 1:
        raise ModelError("drivers", f"driver value arrays differ in length: {sorted(lengths)}")
    count = lengths.pop() if lengths else 1
    return list(arrays), np.column_stack([np.broadcast_to(a, (count,)) for a in arrays.values()])


class _Recorder:
    """Collects closed positions with their rates; builds (partial) results."""

    def __init__(self, system, names):
        self.system, self.names = system, names
        self.rows = {key: [] for key in ("q", "qd", "qdd", "T", "V", "A")}

    def add(self, config, motion):
        self.rows["q"].append(config.q)
        self.rows["qd"].append(motion.q_dot)
        self.rows["qdd"].append(motion.q_ddot)
        self.rows["T"].append(config.link_poses)
        self.rows["V"].append(motion.link_velocities)
        self.rows["A"].append(motion.link_accelerations)

    def result(self, stop_reason=None):
        system = self.system
        n, n_links = system.n, len(system.links)
        shapes = {"q": (n,), "qd": (n,), "qdd": (n,), "T": (n_links, 4, 4), "V": (n_links, 6), "A": (n_links, 6)}
        arrays = {k: np.array(v) if v else np.zeros((0,) + shapes[k]) for k, v in self.rows.items()}
        return SweepResult(system, self.names, arrays["q"], arrays["qd"], arrays["qdd"], arrays["T"],
                           arrays["V"], arrays["A"], stop_reason)


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


class _Stop(Exception):
    """Raised inside a continuation: the last closed state and the failed attempt."""

    def __init__(self, q, config, lin, failed):
        super().__init__()
        self.q, self.config, self.lin = q, config, lin
        self.failed_config, self.error, self.iterations = failed.config, failed.error, failed.iterations


def _progress(total, enabled):
    if enabled is None:
        enabled = total >= 200 and sys.stderr.isatty()
    if not enabled:
        return None
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm is a declared dependency
        return None
    return tqdm(total=total, unit="pos", file=sys.stderr, leave=False)


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
    count = len(table)
    speed = _per_position(speeds, names, count, "speed")
    accel = _per_position(accelerations, names, count, "acceleration")
    speed_table = np.column_stack([speed.get(n, np.zeros(count)) for n in names])
    accel_table = np.column_stack([accel.get(n, np.zeros(count)) for n in names])

    recorder = _Recorder(system, names)
    q0 = system.reference_q()
    outcome = newton(system, q0, driven, tolerance=tolerance, max_iterations=50)
    if not outcome.converged:
        loop = worst_loop(system, outcome.config)
        reason = (f"the reference assembly does not close ({loop}, defect {outcome.error:.3g}); "
                  "call Mechanism.assemble() first")
        raise SweepStopped(reason, recorder.result(reason), loop=loop, residual=outcome.error,
                           iterations=outcome.iterations)
    state = (outcome.q, outcome.config, ClosureLinearization(system, outcome.config, driven))
    bar = _progress(count, progress)
    try:
        for k in range(count):
            try:
                state = _continue_to(system, state, table[k], driven, names, tolerance)
            except _Stop as stop:
                reached = stop.q[driven]
                reason = _stop_reason(system, names, driven, reached, table[k], stop)
                partial = recorder.result(reason)
                raise SweepStopped(reason, partial, loop=worst_loop(system, stop.failed_config) or None,
                                   driver_values=dict(zip(names, table[k])), residual=stop.error,
                                   iterations=stop.iterations) from None
            q, config, lin = state
            recorder.add(config, solve_motion(lin, config, speed_table[k], accel_table[k]))
            if bar is not None:
                bar.update(1)
    finally:
        if bar is not None:
            bar.close()
    return recorder.result()


def _stop_reason(system, names, driven, reached, target, stop):
    at = _describe(system, names, driven, reached)
    wanted = _describe(system, names, driven, target)
    if stop.lin.conditioning < DEAD_POINT_CONDITIONING:
        return (f"dead point at {at}: the closure equations are singular in the other pair variables "
                f"(conditioning {stop.lin.conditioning:.2g}), so {wanted} cannot be reached on this branch")
    return (f"cannot reach {wanted} from {at}: {worst_loop(system, stop.failed_config) or 'the loops'} "
            f"would not close (defect {stop.error:.3g}) in {stop.iterations} iterations")
