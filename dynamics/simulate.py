"""Forward dynamics: integrate ``M(u) u'' = f(u, u', t)`` with the loops closed at every stage.

The state integrated is ``y = (u, u', W_d, W_e, W_p)``: the independent coordinates, their
rates, and three work integrals for the energy bookkeeping (energy dissipated by the
dampers, work of the external pair and point forces, work of the prescribed drivers). The
dependent pair variables are not integrated: at every stage of every step the loops are
closed at the stage's coordinates by the one engine of :mod:`loops` (a second-order
prediction along the branch from the last accepted state, Newton on eq. 3, the branch
guard), so nothing drifts off the closure and no stage can cross to another assembly
branch unnoticed; a stage that cannot close on its branch rejects the step, which is
retried shorter. The mass matrix and forces come from the trace form (eq. 7) or Kane's
form (:mod:`dynamics.kernels.motion`).

``DOP853`` (default) and ``RK45`` step in compiled code (:mod:`dynamics.kernels.integrate`,
scipy's tableaus and error control); ``Radau``, ``BDF``, ``LSODA`` (stiff springs) and
``RK23`` are scipy's ``solve_ivp`` steppers driven from Python with the same compiled
right-hand side. After each accepted step the partition of coordinates is checked: when a
dependent variable moves more than :data:`SWITCH_RATIO` times faster than the independent
coordinates (near a dead point of those coordinates) the run continues from the same state
in better-conditioned coordinates, unless the mechanism itself is at a singular position (a
parallelogram folding flat), which every partition shares and the closure passes on its
branch. A prescribed motion that reaches a dead point, a closure that cannot be met even
with tiny steps, or a coordinate without inertia stops the run with
:class:`~mechanism.errors.SimulationStopped`, its ``.partial`` every accepted sample so far;
Ctrl-C raises :class:`~mechanism.errors.SimulationInterrupted` the same way.

Prescribed (rheonomic) coordinates: ``prescribed={"spin": f}`` with ``f(t) -> (value, rate,
second rate)`` moves a pair variable as given (a spindle at constant speed); the force it
takes is the driver's effort, and its work is booked in ``driver_work``.

Examples
--------
>>> import numpy as np
>>> from mechanism import Mechanism
>>> from dynamics import simulate
>>> m = Mechanism("pendulum")
>>> m.add_link("rod", mass=1.0, com=(0.5, 0, 0), inertia=np.diag([0, 1, 1]) / 12)
>>> m.add_pair("O", "revolute", "ground", "rod", at=(0, 0, 0), axis=(0, 0, 1))
>>> m.set_gravity((0, -9.81, 0))
>>> sim = simulate(m, t_end=0.5, q0={"O": 0.0}, t_eval=np.linspace(0, 0.5, 6), rtol=1e-10)
>>> energy = sim.energy()
>>> bool(np.ptp(energy.total) < 1e-9), round(float(sim.q("O")[-1]), 6)
(True, -1.661148)
"""

from __future__ import annotations

import math

import numpy as np

from loops.configuration import evaluate
from loops.linear import square_block_at
from mechanism.errors import ModelError, SimulationStopped, SweepStopped

from . import warm
from .equations import dynamic_model, finite_values, method_code, snapshot_of
from .run import (ENERGY_DRIFT, INTEGRATORS, MAX_STEPS, MIN_MEAN_STEP, STALL_STEPS, SWITCH_RATIO, SimulationRun,
                  check_sample_count, prescribed_at)
from .simulation_result import EnergyHistory, SimulationResult, new_samples

__all__ = ["simulate", "SimulationResult", "EnergyHistory", "INTEGRATORS", "SWITCH_RATIO", "MAX_STEPS", "STALL_STEPS",
           "MIN_MEAN_STEP", "ENERGY_DRIFT", "MAX_T_END", "check_sample_count"]

#: Tightest and loosest integration tolerances accepted.
MIN_RTOL, MAX_RTOL = 1e-14, 1e-2
#: Longest simulated time, s (11.6 days): the integrator's smallest step is 1e-14 t_end, which
#: beyond it would exceed the time scales of a mechanism's dynamics.
MAX_T_END = 1e6


def _positive(value, where, allow_infinite=False):
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ModelError(where, f"expected a number, got {str(value)[:40]!r}") from None
    if not (number > 0 and (math.isfinite(number) or (allow_infinite and number == math.inf))):
        raise ModelError(where, f"must be a positive{'' if allow_infinite else ' finite'} number, got {value!r}")
    return number


def _tolerance(value, where):
    number = _positive(value, where)
    if not MIN_RTOL <= number <= MAX_RTOL:
        raise ModelError(where, f"must lie in [{MIN_RTOL:g}, {MAX_RTOL:g}], got {value!r}")
    return number


def _prescribed(dyn, prescribed):
    """``[(column, f or number, name), ...]`` of the prescribed coordinates, validated."""
    if prescribed is None:
        return []
    if not isinstance(prescribed, dict):
        raise ModelError("prescribed", "expected a dict of coordinate name -> f(t) returning (value, rate, "
                         "second rate), or a number to hold")
    names = list(prescribed)
    cols = dyn.columns(names, "prescribed")
    out = []
    for name, col in zip(names, cols):
        f = prescribed[name]
        if not callable(f):
            try:
                f = float(f)
            except (TypeError, ValueError):
                raise ModelError(f"prescribed {name!r}", f"expected f(t) or a number, got {str(f)[:40]!r}") from None
            if not math.isfinite(f):
                raise ModelError(f"prescribed {name!r}", "non-finite value")
        out.append((int(col), f, name))
    return out


def _times(t_eval, t_end):
    if t_eval is None:
        return None
    try:
        times = np.array(t_eval, dtype=float).ravel()
    except (TypeError, ValueError):
        raise ModelError("t_eval", "expected an increasing sequence of times") from None
    if times.size == 0 or not np.all(np.isfinite(times)):
        raise ModelError("t_eval", "expected finite times")
    if np.any(np.diff(times) <= 0):
        raise ModelError("t_eval", "times must increase strictly")
    if times[0] < 0 or times[-1] > t_end * (1 + 1e-12):
        raise ModelError("t_eval", f"times must lie within [0, t_end = {t_end:g}]")
    return np.minimum(times, t_end)


def simulate(mechanism, t_end, q0=None, qd0=None, t_eval=None, rtol=1e-8, atol=None, method="DOP853", *,
             prescribed=None, formulation="lagrange", max_step=np.inf, switching=True):
    """Integrate the equations of motion from ``t = 0`` to ``t_end``.

    Parameters
    ----------
    mechanism : mechanism.Mechanism (or its frozen snapshot)
    t_end : float, s (at most :data:`MAX_T_END`)
    q0 : dict name -> value
        Initial independent coordinates (rad or m from the design pose), as many as
        ``check().dof`` minus the prescribed ones. The start is the assembly reached by
        walking them from the design pose. ``None`` or ``{}``: coordinates chosen
        automatically, starting at the design pose.
    qd0 : dict name -> rate, optional (missing rates are zero)
    t_eval : (N,) s, optional
        Times to store (within ``[0, t_end]``); default every accepted step.
    rtol, atol : float
        Integration tolerances in ``[1e-14, 1e-2]``; ``atol`` defaults to ``rtol`` (SI
        magnitudes). The closure is solved to ``1e-3 rtol`` (dimensionless, at least 1e-14).
    method : {"DOP853", "RK45", "RK23", "Radau", "BDF", "LSODA"}
        ``Radau`` or ``BDF`` for stiff springs.
    prescribed : dict name -> f(t) -> (value, rate, second rate), or a number (held)
        Rheonomic coordinates moved as given (rad, rad/s, rad/s^2 or m, m/s, m/s^2).
    formulation : {"lagrange", "kane"}
        The route to the equations (they agree to round-off).
    max_step : float, s (positive; infinite by default)
    switching : bool
        Switch the independent coordinates when their partition becomes ill conditioned.

    Returns
    -------
    SimulationResult

    Raises
    ------
    ModelError
        Bad input: wrong or too few coordinates, non-finite values, unknown method, a
        mechanism without freedom.
    SimulationStopped
        At a closure failure, a dead point of a prescribed motion or a coordinate without
        inertia; ``.partial`` is the result up to the last accepted step, ``.reason`` says
        when and why. SimulationInterrupted (Ctrl-C) likewise.
    """
    t_end = _positive(t_end, "t_end")
    if t_end > MAX_T_END:
        raise ModelError("t_end", f"{t_end:g} s is longer than the {MAX_T_END:g} s a simulation may last (its "
                         f"smallest step is 1e-14 t_end)")
    rtol = _tolerance(rtol, "rtol")
    atol = rtol if atol is None else _tolerance(atol, "atol")
    if not isinstance(method, str) or method not in INTEGRATORS:
        raise ModelError("method", f"unknown integrator {str(method)[:40]!r} (expected one of "
                         f"{', '.join(INTEGRATORS)})")
    method_code(formulation, "formulation")
    max_step = _positive(max_step, "max_step", allow_infinite=True)
    times = _times(t_eval, t_end)
    model = snapshot_of(mechanism)
    dyn = dynamic_model(model)
    if dyn.dof == 0:
        raise ModelError("mechanism", f"{model.name!r} has no degree of freedom (check().dof = 0): nothing moves")
    if times is not None:
        check_sample_count(dyn.system, len(times), "t_eval")
    driven = _prescribed(dyn, prescribed)
    prescribed_cols = [c for c, _, _ in driven]
    names, cols, values = _independent_start(dyn, q0, prescribed_cols)
    rates = finite_values(qd0, names, "qd0")
    p0 = prescribed_at(driven, 0.0)
    columns = np.r_[np.asarray(cols, dtype=np.int64), np.asarray(prescribed_cols, dtype=np.int64)].astype(np.int64)
    settings = (names, driven, formulation, rtol, atol, max_step, switching, t_end, times, method)
    if warm.cold():
        _compile_on_both_cores(dyn, columns, settings)
    try:
        walk = dyn.start(columns, np.r_[values, p0], where="q0")
    except SweepStopped as stop:
        # The start is not reached: a stopped simulation with no sample.
        empty = SimulationResult(dyn, new_samples(dyn.system, 0), 0, names, [name for _, _, name in driven], [],
                                 stop.reason, 0, 0)
        raise SimulationStopped(stop.reason, empty) from None
    run = SimulationRun(dyn, *settings)
    run._use(walk, len(names))
    return run.go(rates)


def _independent_start(dyn, q0, prescribed_cols):
    """The independent coordinates and their start: ``(names, columns, values)``, those of ``q0``
    (validated: as many as the freedoms the prescribed columns leave) or, without ``q0``, chosen
    automatically at the design pose."""
    count = dyn.dof - len(prescribed_cols)
    if count < 0:
        raise ModelError("prescribed", f"{len(prescribed_cols)} prescribed coordinates for {dyn.dof} degree(s) of "
                         "freedom")
    if q0 is not None and not isinstance(q0, dict):
        raise ModelError("q0", f"expected a dict of coordinate name -> value, got {type(q0).__name__}")
    if not q0:
        cols = dyn.automatic_coordinates(count, prescribed_cols)
        return [dyn.system.variable_names[c] for c in cols], cols, dyn.system.reference_q()[cols]
    names = list(q0)
    if len(names) != count:
        extra = f" besides the {len(prescribed_cols)} prescribed" if prescribed_cols else ""
        raise ModelError("q0", f"expected {count} independent coordinate(s){extra} (check().dof = "
                         f"{dyn.dof}), got {len(names)}: {', '.join(map(str, names))}")
    cols = dyn.columns(names, "q0")
    overlap = set(cols) & set(prescribed_cols)
    if overlap:
        raise ModelError("q0", f"{dyn.system.variable_names[overlap.pop()]!r} is also prescribed")
    return names, cols, finite_values(q0, names, "q0")


def _compile_on_both_cores(dyn, columns, settings):
    """A first simulation (:mod:`dynamics.warm`): the walk's kernels compile in a second process
    while this one compiles the integrator's for this run's argument types (the block the walk
    will find at the design pose gives them); then the walk finds its kernels in the cache.
    With the second process disabled (:data:`dynamics.warm.DISABLE`: another process compiles
    the walk, as the test command's compile phase does) the integrator's kernels are compiled
    first all the same; on one core the walk goes first (a start that fails says so at once)."""
    if not warm.start() and not warm.disabled():
        return
    system = dyn.system
    block = square_block_at(system, evaluate(system, system.reference_q()), columns)
    if block is not None:  # else the walk stops at the design pose and says why
        run = SimulationRun(dyn, *settings)
        run._allocate(block, len(settings[0]))
        run.compile_kernels()
    warm.wait()
