"""One simulation run (:func:`dynamics.simulate.simulate`): the states, the stepping and the samples.

A :class:`SimulationRun` holds the closed base state, the stage and end states of a step,
the sample buffer and the partition of coordinates; it steps with the compiled integrator
(:mod:`dynamics.kernels.integrate`, DOP853 and RK45) or with scipy's steppers (the rest, the
same compiled right-hand side), switches the independent coordinates when their partition
becomes ill conditioned, and ends with a :class:`~dynamics.simulation_result.SimulationResult`
or a stop (:class:`~mechanism.errors.SimulationStopped`) that keeps every physical sample.
"""

from __future__ import annotations

import sys

import numpy as np

from loops.configuration import constraint_matrix, evaluate
from loops.continuation import DEFAULT_TOLERANCE, MIN_TOLERANCE, Walk, WalkStopped
from loops.linear import singular_values
from loops.results import MAX_RECORD_BYTES, record_bytes
from mechanism.errors import ModelError, SimulationInterrupted, SimulationStopped

from .equations import no_inertia_message
from .integrate import initial_step, new_scratch, tableau
from .kernels.state import (ATOL, CONTROLS, COUNTERS, DEAD_POINT_THRESHOLD, LONGEST_STEP, NEXT_SAMPLE, REJECTED,
                            RHS_CALLS, RTOL, SHORTEST_STEP, STEP, STEP_BUDGET, STEPS, STORED, SWITCH_THRESHOLD, T_END)
from .motion import compiled, new_state, solver_params, start_kernel_calls, state_from_walk
from .simulation_result import SimulationResult, grown_samples, new_samples

__all__ = ["SimulationRun", "INTEGRATORS", "SWITCH_RATIO", "DEAD_POINT_RATIO", "MAX_STEPS", "STALL_STEPS",
           "MIN_MEAN_STEP", "ENERGY_DRIFT", "STEPS_PER_CALL", "scipy_stepper", "prescribed_at", "dropped_why",
           "check_sample_count"]

#: Integrators: compiled (DOP853, RK45: None) or scipy's steppers (the rest: the name of the
#: ``scipy.integrate`` class, imported when a run uses it).
INTEGRATORS = {"DOP853": None, "RK45": None, "RK23": "RK23", "Radau": "Radau", "BDF": "BDF", "LSODA": "LSODA"}
#: Largest scaled transmission ratio ``max |dq_dependent / du|`` before the coordinates switch.
SWITCH_RATIO = 4.0
#: Scaled transmission ratio of a prescribed coordinate taken as a dead point of its motion.
DEAD_POINT_RATIO = 1e4
#: Smallest-to-largest singular value of ``B`` below which a position counts as singular.
SINGULAR_CONDITIONING = 1e-3
#: Wall time (s) a run lasts before its progress bar appears on a terminal.
PROGRESS_DELAY = 1.0
#: Accepted steps per call of the compiled stepper (between them Python sees Ctrl-C).
STEPS_PER_CALL = 200
#: Most accepted steps one run may take (a bound on a run that cannot make progress).
MAX_STEPS = 10_000_000
#: A run stops when STALL_STEPS accepted steps in a row advance time by less than
#: STALL_STEPS x MIN_MEAN_STEP x t_end: at that pace it would need more than
#: 1 / MIN_MEAN_STEP steps, a thousand times MAX_STEPS (a step size collapsing near a
#: singular position, Zeno-like).
STALL_STEPS = 10_000
MIN_MEAN_STEP = 1e-10
#: On a stop, samples whose energy balance (total + dissipated - work of loads and drivers)
#: has moved from its initial value by more than ENERGY_DRIFT x rtol of the energies
#: involved (at least 1e-6, at most 0.1 of them; an accurate run drifts about rtol) are not
#: physical (an integration that lost its accuracy near a singular position): the partial
#: result ends before the first of them.
ENERGY_DRIFT = 100.0


def _progress_bar(t_end):
    """A progress bar over simulated time on a terminal (stderr), shown only for runs that last
    more than a second; None in pipes and CI logs."""
    if not sys.stderr.isatty():
        return None
    from tqdm import tqdm  # noqa: PLC0415

    return tqdm(total=t_end, unit="s", unit_scale=True, delay=PROGRESS_DELAY, file=sys.stderr, leave=False,
                bar_format="{l_bar}{bar}| t = {n:.3g} of {total:.3g} s [{elapsed}<{remaining}]")


def check_sample_count(system, count, where="t_eval"):
    """A located ModelError when ``count`` stored samples of ``system`` would exceed
    :data:`loops.results.MAX_RECORD_BYTES`."""
    size = record_bytes(system, count)
    if size > MAX_RECORD_BYTES:
        raise ModelError(where, f"{count} times would take {size / 2**30:.3g} GiB of samples, more than the "
                         f"{MAX_RECORD_BYTES / 2**30:g} GiB a simulation may hold")


def scipy_stepper(method):
    """scipy's ``OdeSolver`` class of ``method`` (one of scipy's in :data:`INTEGRATORS`), imported
    when a run uses it: ``scipy.integrate`` costs a start 0.4 s of processor time that the
    compiled methods do without."""
    from scipy import integrate  # noqa: PLC0415

    return getattr(integrate, INTEGRATORS[method])


def prescribed_at(prescribed, t):
    """Values of the prescribed coordinates at ``t`` (k,)."""
    values = []
    for _, f, name in prescribed:
        if callable(f):
            out = np.asarray(f(t), dtype=float).ravel()
            if out.shape != (3,) or not np.all(np.isfinite(out)):
                raise ModelError(f"prescribed {name!r}", f"f({t:.6g}) must return 3 finite numbers "
                                 f"(value, rate, second rate), got {str(out)[:60]}")
            values.append(out[0])
        else:
            values.append(f)
    return np.array(values, dtype=float)


def dropped_why(run, kept):
    """Why the first dropped sample is not physical, for the stop reason."""
    drift, involved = run._drift
    if drift > 0.0:
        return f"from t = {run.out.t[kept]:.6g} s on, whose energy balance drifted by {drift:.3g} J of {involved:.3g} J"
    return f"from t = {run.out.t[kept]:.6g} s on, not closed or not finite"


class SimulationRun:
    """One simulation: the states, the stepping and the samples."""

    def __init__(self, dyn, names, prescribed, formulation, rtol, atol, max_step, switching, t_end, times, method):
        self.dyn, self.system = dyn, dyn.system
        self.prescribed = prescribed
        self.loads = dyn.loads_with(prescribed)
        self.inertia = dyn.inertia(formulation)
        self.tolerance = min(DEFAULT_TOLERANCE, max(MIN_TOLERANCE, 1e-3 * rtol))
        self.params = solver_params(self.tolerance)
        self.rtol, self.atol, self.max_step, self.switching = rtol, atol, max_step, switching
        self.t_end, self.method = t_end, method
        self.samples = np.zeros(0) if times is None else times
        self.coordinates = list(names)
        self.switches = []
        self.counters = np.zeros(COUNTERS)
        self.out = new_samples(self.system, len(times) if times is not None else 256)
        self.switch_threshold = SWITCH_RATIO if switching else np.inf
        self._window = (0, 0.0)  # (accepted steps, time) where the current progress window began

    def _allocate(self, block, m):
        """States and compiled model for the square ``block`` (its driven columns, the ``m``
        independent ones first)."""
        self.m = m
        self.block = block
        self.base = new_state(self.system, block, self.loads, m)
        self.stage = new_state(self.system, block, self.loads, m)
        self.end = new_state(self.system, block, self.loads, m)
        self.model = compiled(self.system, block, self.inertia, self.loads, self.params, m)

    def _use(self, walk, m):
        """Set the partition of ``walk`` (its driven columns, independent ones first), its state the base."""
        self._allocate(walk.block, m)
        self.base = state_from_walk(walk, self.loads, m)

    # ------------------------------------------------------------------ kernels
    def _evaluate_arguments(self, t, y, state, dy):
        base = self.base
        anchor = (base.anchor_q, base.anchor_rotations, base.anchor_G, base.curvature)
        return self.model, anchor, state.work, state.factor, state.kin, float(t), y, dy

    def _evaluate(self, t, y, state):
        from .kernels.integrate import evaluate_at  # noqa: PLC0415

        # contiguous: scipy's steppers may pass a strided view, for which numba would compile the
        # right-hand side a second time
        y = np.ascontiguousarray(y, dtype=float)
        dy = np.zeros_like(y)
        self.counters[RHS_CALLS] += 1
        return evaluate_at(*self._evaluate_arguments(t, y, state, dy)), dy

    def _record_arguments(self, t, y, state, row):
        return self.block.driven, self.m, state.work, state.kin, float(t), y, self.out, int(row)

    def _integrate_arguments(self, method, t_state, y, f, control, scratch):
        return (self.model, method, self.base, self.stage, self.end, t_state, y, f, self.samples, self.out, control,
                self.counters, scratch)

    def _control(self, first_step):
        """The compiled integrator's control vector (:func:`dynamics.kernels.integrate.integrate`)."""
        control = np.zeros(CONTROLS)
        control[T_END], control[RTOL], control[ATOL] = self.t_end, self.rtol, self.atol
        control[LONGEST_STEP] = self.max_step
        control[STEP], control[STEP_BUDGET] = first_step, STEPS_PER_CALL
        control[SWITCH_THRESHOLD], control[DEAD_POINT_THRESHOLD] = self.switch_threshold, DEAD_POINT_RATIO
        control[REJECTED], control[SHORTEST_STEP] = 0.0, 1e-14 * max(self.t_end, 1.0)
        return control

    def compile_kernels(self):
        """Compile (or load from numba's cache) the kernels this run calls, for its argument types,
        without running them: the start's copy and curvature, the right-hand side, the record and
        the compiled integrator (:func:`_compile_on_both_cores`). Returns ``[(kernel, signature)]``."""
        from numba import typeof  # noqa: PLC0415

        from .kernels import integrate as k  # noqa: PLC0415

        calls = start_kernel_calls(self.system, self.block, self.base.factor, self.base)
        y = np.zeros(2 * self.m + 3)
        calls += [(k.evaluate_at, self._evaluate_arguments(0.0, y, self.stage, np.zeros_like(y))),
                  (k.record, self._record_arguments(0.0, y, self.end, 0))]
        if INTEGRATORS[self.method] is None:
            method = tableau(self.method)
            calls.append((k.integrate, self._integrate_arguments(method, np.zeros(1), y, y.copy(), self._control(0.0),
                                                                 new_scratch(method, len(y)))))
        compiled = []
        for kernel, arguments in calls:
            signature = tuple(typeof(a) for a in arguments)
            kernel.compile(signature)
            compiled.append((kernel, signature))
        return compiled

    def _grow(self):
        """Room for more samples (every accepted step stored), within MAX_RECORD_BYTES."""
        capacity = 2 * len(self.out.t) + 1
        if record_bytes(self.system, capacity) > MAX_RECORD_BYTES:
            capacity = MAX_RECORD_BYTES // record_bytes(self.system, 1)
            if capacity <= len(self.out.t):
                t = self.out.t[len(self.out.t) - 1]
                self._stop(f"stopped at t = {t:.6g} s: {len(self.out.t)} samples fill the "
                           f"{MAX_RECORD_BYTES / 2**30:g} GiB a simulation may hold (give t_eval= to store fewer)")
        self.out = grown_samples(self.out, capacity)

    def _record(self, t, y, state):
        from .kernels.integrate import record  # noqa: PLC0415

        row = int(self.counters[STORED])
        if row >= len(self.out.t):
            self._grow()
        record(*self._record_arguments(t, y, state, row))
        self.counters[STORED] += 1

    def _accept(self, t, y):
        """Make the closed state at ``(t, y)`` (in ``end``) the base."""
        from .kernels.integrate import copy_state, renew_anchor  # noqa: PLC0415

        end, base = self.end, self.base
        copy_state(end.work, end.factor, end.kin.G, base.work, base.factor, base.G)
        anchor = (base.anchor_q, base.anchor_rotations, base.anchor_G, base.curvature)
        renew_anchor(self.model.topology, self.model.geometry, self.model.block, base.work, base.factor, base.G, anchor,
                     base.kin.scratch.branch)

    # ------------------------------------------------------------------- stops
    def _check_progress(self, t):
        """Stop a run that cannot make progress: MAX_STEPS accepted steps in all, or STALL_STEPS in
        a row that advance time by less than STALL_STEPS x MIN_MEAN_STEP x t_end."""
        steps = int(self.counters[STEPS])
        if steps >= MAX_STEPS:
            self._stop(f"stopped at t = {t:.6g} s after {MAX_STEPS} steps, the most a run may take")
        window_steps, window_t = self._window
        if steps - window_steps < STALL_STEPS:
            return
        advance = t - window_t
        if advance < STALL_STEPS * MIN_MEAN_STEP * self.t_end:
            names = ", ".join(self.coordinates)
            self._stop(f"the step size collapsed at t = {t:.6g} s: {steps - window_steps} steps advanced time by "
                       f"only {advance:.3g} s (in coordinates {names}, near a singular position of them"
                       + ("" if self.switching else "; switching=False keeps them") + ")")
        self._window = (steps, t)

    def _result(self, reason=None):
        return SimulationResult(self.dyn, self.out, int(self.counters[STORED]), self.coordinates,
                                [name for _, _, name in self.prescribed], self.switches, reason,
                                int(self.counters[RHS_CALLS]), int(self.counters[STEPS]))

    def _stop(self, reason):
        """Raise SimulationStopped with the accepted samples that are closed and physical (see
        :meth:`_physical`), ``reason`` saying when and why (and what was dropped)."""
        kept, dropped = self._physical()
        if dropped:
            reason += f"; the last {dropped} sample(s), {dropped_why(self, kept)}, were dropped"
        self.counters[STORED] = kept
        raise SimulationStopped(reason, self._result(reason))

    def _physical(self):
        """``(kept, dropped)``: the stored samples before the first one that is not closed, not
        finite, or whose energy balance drifted by more than ENERGY_DRIFT x rtol (within [1e-6,
        0.1]) of the energies involved."""
        count = int(self.counters[STORED])
        if not count:
            return 0, 0
        result = self._result()
        finite = np.all(np.isfinite(result._q), axis=1) & np.all(np.isfinite(result._q_dot), axis=1)
        closed = np.array([evaluate(self.system, q, r).closure_error() <= 1e3 * self.tolerance
                           for q, r in zip(result._q, result._rotations)], dtype=bool)
        with np.errstate(all="ignore"):
            energy = result.energy()
            terms = np.column_stack([np.abs(energy.kinetic), np.abs(energy.potential - energy.potential[0]),
                                     np.abs(energy.dissipated), np.abs(energy.external_work),
                                     np.abs(energy.driver_work)])
            involved = np.maximum.accumulate(terms.sum(axis=1))
            drift = np.abs(energy.balance - energy.balance[0])
            allowed = min(max(ENERGY_DRIFT * self.rtol, 1e-6), 0.1)
            physical = np.isfinite(drift) & (drift <= allowed * involved + 1e-12)
        good = finite & closed & physical
        kept = count if good.all() else int(np.argmin(good))
        self._drift = (float(drift[kept]) if kept < count else 0.0, float(involved[kept]) if kept < count else 0.0)
        return kept, count - kept

    def _status_stop(self, status, t, h):
        from .kernels import integrate as k  # noqa: PLC0415

        names = ", ".join(self.coordinates)
        if status == k.STOPPED and self.prescribed and self._prescribed_ratio() > 100.0:
            status = k.DEAD_POINT  # the closure fails where a prescribed motion can no longer be followed
        if status == k.DEAD_POINT:
            prescribed = ", ".join(name for _, _, name in self.prescribed)
            self._stop(f"dead point at t = {t:.6g} s: the prescribed motion of {prescribed} cannot be followed "
                       f"(transmission ratio {self._prescribed_ratio():.3g} and growing)")
        if status == k.MASS_SINGULAR:
            self._stop(f"at t = {t:.6g} s: {no_inertia_message(self.dyn, self.block.driven, self.end.kin.M)}")
        self._stop(f"closure failure at t = {t:.6g} s: the loops would not close on their branch even with steps "
                   f"of {h:.3g} s (in coordinates {names}; near a singular position)")

    # -------------------------------------------------------------------- runs
    def go(self, rates):
        m = self.m
        y = np.r_[self.base.work.q[self.block.driven[:m]], rates, np.zeros(3)]
        status, f = self._evaluate(0.0, y, self.end)
        if status != 0:
            if status == 3:  # the model cannot be simulated at all: a mistake in it, not a stop on the way
                raise ModelError("q0", no_inertia_message(self.dyn, self.block.driven, self.end.kin.M))
            self._stop("the initial state cannot be evaluated (a singular position)")
        if not len(self.samples) or self.samples[0] == 0.0:
            self._record(0.0, y, self.end)
            if len(self.samples):
                self.counters[NEXT_SAMPLE] = 1
        bar = _progress_bar(self.t_end)
        try:
            if INTEGRATORS[self.method] is None:
                self._compiled(y, f, bar)
            else:
                self._scipy(y, bar)
        except KeyboardInterrupt:
            reached = self.out.t[int(self.counters[STORED]) - 1] if self.counters[STORED] else 0.0
            reason = f"interrupted (Ctrl-C) at t = {reached:.6g} s after {int(self.counters[STEPS])} steps"
            raise SimulationInterrupted(reason, self._result(reason)) from None
        finally:
            if bar is not None:
                bar.close()
        return self._result()

    def _compiled(self, y, f, bar):
        from .kernels import integrate as k  # noqa: PLC0415

        method = tableau(self.method)
        scratch = new_scratch(method, len(y))
        t_state = np.zeros(1)
        first = initial_step(method, 0.0, y, f, self.t_end, self.rtol, self.atol, self.max_step,
                             lambda t, point: self._evaluate(t, point, self.stage))
        control = self._control(first)
        while True:
            self._check_progress(t_state[0])
            status = k.integrate(*self._integrate_arguments(method, t_state, y, f, control, scratch))
            if bar is not None:
                bar.update(t_state[0] - bar.n)
            if status == k.DONE:
                return
            if status == k.BUDGET:
                continue
            if status == k.FULL:
                self._grow()
                continue
            if status == k.SWITCH:
                switched = self._maintain(t_state[0], y)
                if switched is not None:
                    y[:] = switched
                    status, f_new = self._evaluate(t_state[0], y, self.end)
                    if status != 0:
                        self._status_stop(status, t_state[0], control[STEP])
                    f[:] = f_new
                control[SWITCH_THRESHOLD] = self.switch_threshold
                continue
            self._status_stop(status, t_state[0], control[STEP])

    def _scipy(self, y, bar):
        """Stepping with a scipy ``OdeSolver`` (stiff methods), the compiled right-hand side."""
        from .kernels import integrate as k  # noqa: PLC0415

        solver_class = scipy_stepper(self.method)

        class _Failed(Exception):
            """The right-hand side could not be evaluated; ``args[0]`` is the stop status."""

            def __init__(self, status):
                super().__init__(k.MASS_SINGULAR if status == 3 else k.STOPPED)

        def fun(t, state):
            status, dy = self._evaluate(t, state, self.stage)
            if status != 0:
                raise _Failed(status)
            return dy

        def start(t, y0, first_step=None):
            """A new stepper at ``(t, y0)``; it evaluates ``fun`` (and, for the implicit methods, a
            finite-difference Jacobian) at once, which may fail near a singular position."""
            options = dict(rtol=self.rtol, atol=self.atol, max_step=self.max_step)
            if first_step is not None:
                options["first_step"] = min(first_step, self.t_end - t)
            try:
                return solver_class(fun, t, y0, self.t_end, **options)
            except _Failed as failed:
                self._status_stop(failed.args[0], t, first_step if first_step is not None else 0.0)

        solver = start(0.0, y)
        failures = 0
        while solver.status == "running":
            self._check_progress(solver.t)
            t_old, y_old = solver.t, solver.y.copy()
            try:
                message = solver.step()
            except _Failed as failed:
                failures += 1
                h = (getattr(solver, "h_abs", None) or self.t_end * 1e-3) / 4.0
                if failures > 8 or h < 1e-14 * max(self.t_end, 1.0):
                    self._status_stop(failed.args[0], t_old, h)
                solver = start(t_old, y_old, first_step=h)
                continue
            if solver.status == "failed":
                self._stop(f"integration failed at t = {solver.t:.6g} s: {message}")
            failures = 0
            t_new, y_new = solver.t, solver.y.copy()
            status, _ = self._evaluate(t_new, y_new, self.end)
            if status != 0:
                h = (t_new - t_old) / 4.0
                solver = start(t_old, y_old, first_step=h)
                continue
            if len(self.samples):
                dense = None
                while (self.counters[NEXT_SAMPLE] < len(self.samples)
                       and self.samples[int(self.counters[NEXT_SAMPLE])] <= t_new):
                    ts = self.samples[int(self.counters[NEXT_SAMPLE])]
                    if ts == t_new:
                        self._record(ts, y_new, self.end)
                    else:
                        dense = dense or solver.dense_output()
                        ys = np.asarray(dense(ts), dtype=float)
                        status, _ = self._evaluate(ts, ys, self.stage)
                        if status != 0:
                            self._status_stop(status, ts, t_new - t_old)
                        self._record(ts, ys, self.stage)
                    self.counters[NEXT_SAMPLE] += 1
            else:
                self._record(t_new, y_new, self.end)
            self._accept(t_new, y_new)
            self.counters[STEPS] += 1
            if bar is not None:
                bar.update(t_new - bar.n)
            health = k.partition_health(self.block, self.base.G, self.m, self.switch_threshold, DEAD_POINT_RATIO)
            if health == 2:
                self._status_stop(k.DEAD_POINT, t_new, t_new - t_old)
            if health == 1:
                switched = self._maintain(t_new, y_new)
                if switched is not None and solver.status == "running":
                    solver = start(t_new, switched, first_step=t_new - t_old)

    def _maintain(self, t, y):
        """After a switch request at the base state (time ``t``, state ``y``): new independent
        coordinates and the new state vector, or None when no better ones exist here (the
        request threshold then rises, so the same request does not repeat)."""
        system, m = self.system, self.m
        base = self.base
        block = self.block
        scale = system.column_scale
        ratio = float(np.max(np.abs(base.G[block.free][:, :m]) * scale[block.driven[:m]][None, :]
                             / scale[block.free][:, None], initial=0.0))
        self.switch_threshold = max(self.switch_threshold, 2.0 * ratio)
        config = evaluate(system, base.work.q, base.work.rotations)
        s = singular_values(constraint_matrix(system, config, scaled=True))
        rank = system.n - (self.dyn.dof + self.dyn.passive - len(system.gauges))
        if 0 < rank <= len(s) and s[0] > 0 and s[rank - 1] < SINGULAR_CONDITIONING * s[0]:
            return None  # a singular position of the mechanism itself: every partition is ill conditioned
        prescribed = list(block.driven[m:])
        chosen = self.dyn.switch_candidates(base.G[:, :m], prescribed, m)
        if set(chosen) == set(block.driven[:m]):
            return None
        try:
            walk = Walk(system, np.r_[chosen, prescribed].astype(np.int64), base.work.q, base.work.rotations,
                        tolerance=self.tolerance)
        except WalkStopped:
            return None
        new_scale = scale[walk.block.free][:, None]
        new_ratio = float(np.max(np.abs(walk.G[walk.block.free][:, :m]) * scale[chosen][None, :] / new_scale,
                                 initial=0.0))
        if new_ratio >= 0.5 * ratio or new_ratio > SWITCH_RATIO:
            return None
        old = list(self.coordinates)
        rates_driven = np.r_[y[m:2 * m], self._prescribed_rates(t)]
        q_dot = base.G @ rates_driven
        self.coordinates = [system.variable_names[c] for c in chosen]
        self.switches.append((float(t), old, list(self.coordinates)))
        self.switch_threshold = SWITCH_RATIO if self.switching else np.inf
        self._use(walk, m)
        return np.r_[walk.here.q[chosen], q_dot[chosen], y[2 * m:]]

    def _prescribed_ratio(self):
        """Largest scaled transmission ratio of a prescribed coordinate at the base state."""
        block, m = self.block, self.m
        scale = self.system.column_scale
        G = self.base.G[block.free][:, m:]
        return float(np.max(np.abs(G) * scale[block.driven[m:]][None, :] / scale[block.free][:, None], initial=0.0))

    def _prescribed_rates(self, t):
        rates = []
        for _, f, _ in self.prescribed:
            rates.append(float(np.asarray(f(t), dtype=float).ravel()[1]) if callable(f) else 0.0)
        return np.array(rates, dtype=float)

