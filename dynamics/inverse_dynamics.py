"""Inverse dynamics over a sweep, and the force and moment transmitted by each pair.

:func:`inverse_dynamics`: the drivers (as many as ``check().dof``) follow prescribed
values, speeds and accelerations; at each position the closure is solved (continuation
from the design pose, as in a sweep) and the generalized force each driver must supply is

    tau = M(u) u'' + h(u, u') - Q(u, u', t)

in the notation of :mod:`dynamics.lagrange` (or of the Kane form): the driver's torque
(force) in its pair variable, from the first link on the second, in addition to the
model's own loads. The motion is a sweep (:func:`loops.sweep.sweep`: the one walk of the
kinematics), and the forces come from :func:`dynamics.kernels.motion.dynamics_at` with every
driver prescribed.

:func:`pair_reactions`: the force and moment transmitted by each pair, the statics' reactions
(:func:`loops.reactions.pair_reactions`, Newton-Euler on every link) with each link's inertia
wrench, minus its rate of momentum, among the loads it balances.
"""

from __future__ import annotations

import numpy as np

from loops.configuration import evaluate
from loops.kernel_arrays import kernel_array
from loops.linear import square_block_at
from loops.reactions import PairReactions
from loops.reactions import pair_reactions as loops_pair_reactions
from loops.results import Column, Trajectory
from loops.sweep import driver_table, per_position, sweep
from mechanism.errors import ModelError, SweepStopped

from .equations import ASSEMBLY_TOLERANCE, dynamic_model, method_code, snapshot_of
from .motion import new_state

__all__ = ["inverse_dynamics", "InverseDynamicsResult", "pair_reactions", "PairReactions"]


def pair_reactions(dyn, q, q_dot, link_accelerations, t, drive, velocities=None) -> PairReactions:
    """Pair wrenches along a motion: :func:`loops.reactions.pair_reactions` with each link's inertia
    wrench (METHOD.md, "Kane's form": ``-(c x m a_G + I alpha + w x I w, m a_G)``) added to its loads.

    Parameters
    ----------
    dyn : dynamics.equations.DynamicModel
    q, q_dot : (N, n) pair variables and rates at closed states
    link_accelerations : (N, L, 6) spatial accelerations ``(omega', v_o')``
    t : (N,) s, times for time-dependent loads
    drive : (N, n) driver efforts in the pair variables (added to the pairs' own loads)
    velocities : (N, L, 6), optional (computed from ``q_dot`` otherwise)
    """
    from loops.kernels.velocity import link_velocities  # noqa: PLC0415 (kernels load on first use)

    from .kernels.kane import inertia_wrench  # noqa: PLC0415

    system = dyn.system
    topology = system.topology
    count, n_links = len(q), topology.links
    if velocities is None:
        velocities = np.zeros((count, n_links, 6))
        for k in range(count):
            config = evaluate(system, q[k])
            link_velocities(topology, kernel_array(config.twists), kernel_array(q_dot[k]), velocities[k])
    inertia = np.zeros((count, n_links, 6))
    for k in range(count):
        poses = kernel_array(evaluate(system, q[k]).link_poses)
        for i in range(n_links):
            inertia_wrench(poses[i], kernel_array(velocities[k, i]), kernel_array(link_accelerations[k, i]),
                           dyn.masses[i], dyn.coms[i], dyn.inertias[i], inertia[k, i])
    return loops_pair_reactions(system, dyn.loads, dyn.weights, q, q_dot, t, drive, extra=-inertia,
                                velocities=velocities)


class InverseDynamicsResult(Trajectory):
    """Driver forces along a prescribed motion, with the motion itself (a :class:`loops.results.Trajectory`).

    Attributes
    ----------
    drivers : list of str
    t : (N,) s, the times given (zeros when none were)
    stop_reason : str or None

    ``force(name)`` gives the generalized force (N m or N) driver ``name`` supplies; the
    motion reads like a sweep (``q``, ``q_dot``, ``q_ddot``, ``point``, ``pose`` ...).
    """

    def __init__(self, dyn, sweep_result, t, efforts, stop_reason=None):
        r = sweep_result
        super().__init__(dyn.system, r.drivers, r._q, r._q_dot, r._q_ddot, r._poses, r._velocities, r._accelerations,
                         stop_reason=stop_reason, rotations=r._rotations, tangents=r._tangents)
        self._dyn = dyn
        self.t = t
        self._efforts = efforts

    def force(self, name):
        """Generalized force (N,) driver ``name`` must supply: N m for angles, N for slides."""
        if name not in self.drivers:
            raise ModelError(f"driver {name!r}", f"not a driver (drivers: {', '.join(self.drivers)})")
        return self._efforts[:, self.drivers.index(name)].copy()

    def power(self, name):
        """Power (W) driver ``name`` delivers: force times its rate, (N,)."""
        return self.force(name) * self.q_dot(name)

    def columns(self, points=None):
        """CSV columns: ``t``, the trajectory's columns, then each driver's force ``<name>_force``."""
        forces = [Column(f"{name}_force", self.force(name), "force" if not self._is_angle(name) else "force*length", 0)
                  for name in self.drivers]
        return [Column("t", self.t, "time", 0)] + super().columns(points) + forces

    def _is_angle(self, name):
        return bool(self.system.rotational[self.system.variable_index[name]])

    def reactions(self) -> PairReactions:
        """Force and moment transmitted by each pair along the sweep."""
        drive = np.zeros((len(self), self.system.n))
        cols = [self.system.variable_index[name] for name in self.drivers]
        drive[:, cols] = self._efforts
        return pair_reactions(self._dyn, self._q, self._q_dot, self._accelerations, self.t, drive,
                              velocities=self._velocities)


def inverse_dynamics(mechanism, drivers, speeds=None, accelerations=None, *, times=None,
                     method="lagrange") -> InverseDynamicsResult:
    """Generalized force each driver must supply for a prescribed motion over a sweep.

    Parameters
    ----------
    mechanism : mechanism.Mechanism (or its frozen snapshot)
    drivers : dict name -> (N,) values
        As many drivers as ``check().dof`` (pair variables or point drivers; rad or m from
        the design pose). The motion walks from the design pose to the first values, then
        through the rest, as a sweep does (:func:`loops.sweep.sweep`).
    speeds, accelerations : dict name -> number or (N,), optional (missing: zero)
    times : (N,) s, optional
        Times at which time-dependent loads are evaluated (default 0 at every position).
    method : {"lagrange", "kane"}

    Returns
    -------
    InverseDynamicsResult

    Raises
    ------
    ModelError
        Wrong drivers (names, count), malformed values.
    SweepStopped
        When the drivers cannot reach a value (dead point); ``.partial`` holds the positions
        reached with their forces (SweepInterrupted on Ctrl-C likewise).
    """
    method_code(method)
    model = snapshot_of(mechanism)
    dyn = dynamic_model(model)
    names, cols = dyn.coordinates_of(drivers, "drivers", "driver", "driver")
    _, table = driver_table(drivers)
    count = len(table)
    if times is None:
        t = np.zeros(count)
    else:
        try:
            t = np.array(times, dtype=float).ravel()
        except (TypeError, ValueError):
            raise ModelError("times", f"expected {count} finite times") from None
        if t.shape != (count,) or not np.all(np.isfinite(t)):
            raise ModelError("times", f"expected {count} finite times")
    speed = per_position(speeds, names, count, "speed")
    accel = per_position(accelerations, names, count, "acceleration")
    speed_table = np.column_stack([speed.get(n, np.zeros(count)) for n in names])
    accel_table = np.column_stack([accel.get(n, np.zeros(count)) for n in names])
    inertia = dyn.inertia(method)

    def with_forces(result, reason=None):
        efforts = _efforts(dyn, result, inertia, speed_table[:len(result)], accel_table[:len(result)],
                           t[:len(result)])
        return InverseDynamicsResult(dyn, result, t[:len(result)], efforts, reason)

    try:
        motion = sweep(model, drivers, speeds=speeds, accelerations=accelerations, tolerance=ASSEMBLY_TOLERANCE)
    except SweepStopped as stop:
        stop.partial = with_forces(stop.partial, stop.reason)
        raise
    return with_forces(motion)


def _efforts(dyn, result, inertia, speeds, accelerations, times):
    """Driver forces (N, d) at the positions of a sweep result of all the mechanism's freedoms."""
    from .kernels.motion import efforts_at_positions  # noqa: PLC0415

    count = len(result)
    d = len(result.drivers)
    out = np.zeros((count, d))
    if not count:
        return out
    system = dyn.system
    driven = np.array([system.variable_index[name] for name in result.drivers], dtype=np.int64)
    config = evaluate(system, result._q[0], result._rotations[0])
    block = square_block_at(system, config, driven)
    if block is None:
        block = square_block_at(system, evaluate(system, result._q[-1], result._rotations[-1]), driven)
    state = new_state(system, block, dyn.loads, 0, result._q[0], result._rotations[0])
    reached = efforts_at_positions(system.topology, system.geometry, block, inertia, dyn.loads, state,
                                   np.ascontiguousarray(result._q), np.ascontiguousarray(result._rotations),
                                   np.ascontiguousarray(result._tangents), np.ascontiguousarray(speeds, dtype=float),
                                   np.ascontiguousarray(accelerations, dtype=float),
                                   np.ascontiguousarray(times, dtype=float), out)
    out[reached:] = np.nan
    return out
