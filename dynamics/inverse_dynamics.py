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

:func:`pair_reactions`: Newton-Euler on every link. The unknowns are the wrenches
``R_p = (n_o, f)`` (moment about the origin, force; world frame) that the first link of
each pair applies to its second link. Every moving link balances them against its rate
of momentum and the applied loads (gravity, point forces, spring-dampers),

    sum_{p: second = i} R_p - sum_{p: first = i} R_p = (c_i x m_i a_Gi + I_i alpha_i + w_i x I_i w_i,
                                                        m_i a_Gi) - W_i^applied,

and each pair transmits, along each of its own freedoms j, exactly the generalized force
in that variable (spring, damper, pair force, driver): ``xi_j . R_p = tau_j``. The system
is solved in the least-squares, minimum-norm sense (moments weighed by the mechanism size):
redundant constraints (a planar loop's out-of-plane components) make some reaction
components indeterminate, and minimum norm shares them out evenly. Results are given at
the pair centre, in global axes and in the pair's frame on its first link (frame j).
"""

from __future__ import annotations

import numpy as np

from loops.configuration import evaluate
from loops.linear import square_block_at
from loops.results import Column, Trajectory
from loops.sweep import driver_table, per_position, sweep
from mechanism.errors import ModelError, SweepStopped
from mechanism.transforms import cross

from .equations import ASSEMBLY_TOLERANCE, dynamic_model, method_code, snapshot_of
from .motion import new_state

__all__ = ["inverse_dynamics", "InverseDynamicsResult", "pair_reactions", "PairReactions"]


class PairReactions:
    """Force and moment transmitted by each pair at a series of states.

    The wrench is the one the pair's first link applies to its second link (the second
    applies the opposite). ``force`` (N) and ``moment`` (N m, about the pair centre) in
    global axes; ``*_local`` in the axes of the pair's frame on its first link (frame j:
    Z along the pair axis).

    Attributes
    ----------
    t : (N,) s (or the sweep's times)
    pairs : list of str, the real pairs
    residual : (N,) norm of the Newton-Euler residual (N; small when the motion is consistent)
    """

    def __init__(self, t, pairs, forces, moments, frames, residual):
        self.t = t
        self.pairs = list(pairs)
        self._forces, self._moments, self._frames = forces, moments, frames
        self.residual = residual

    def _index(self, pair):
        if pair not in self.pairs:
            raise ModelError(f"pair {pair!r}", f"not a pair of the model (known: {', '.join(self.pairs)})")
        return self.pairs.index(pair)

    def force(self, pair):
        """(N, 3) N, global axes."""
        return self._forces[:, self._index(pair)].copy()

    def moment(self, pair):
        """(N, 3) N m about the pair centre, global axes."""
        return self._moments[:, self._index(pair)].copy()

    def frame(self, pair):
        """(N, 4, 4) pose of the pair's frame j (on its first link), global."""
        return self._frames[:, self._index(pair)].copy()

    def force_local(self, pair):
        """(N, 3) N in the pair's frame j axes."""
        i = self._index(pair)
        return np.einsum("nji,nj->ni", self._frames[:, i, :3, :3], self._forces[:, i])

    def moment_local(self, pair):
        """(N, 3) N m about the pair centre, in the pair's frame j axes."""
        i = self._index(pair)
        return np.einsum("nji,nj->ni", self._frames[:, i, :3, :3], self._moments[:, i])


def pair_reactions(dyn, q, q_dot, link_accelerations, t, drive, velocities=None) -> PairReactions:
    """Pair wrenches by Newton-Euler on each link (see the module docstring).

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
    from .kernels.loads import applied_loads, load_values  # noqa: PLC0415

    system = dyn.system
    topology = system.topology
    n_links, n_pairs = topology.links, topology.pairs
    ground = topology.ground
    moving = np.array([i for i in range(n_links) if i != ground], dtype=int)
    incidence = np.zeros((n_links, n_pairs))
    incidence[topology.second, np.arange(n_pairs)] += 1.0
    incidence[topology.first, np.arange(n_pairs)] -= 1.0
    scale = system.scale
    # Unknowns r = (n_o / scale, f) per pair; link rows (moment / scale, force).
    link_block = np.kron(incidence[moving], np.eye(6))
    count = len(q)
    forces = np.zeros((count, n_pairs, 3))
    moments = np.zeros((count, n_pairs, 3))
    frames = np.zeros((count, n_pairs, 4, 4))
    residual = np.zeros(count)
    weights = np.where(system.rotational, 1.0 / scale, 1.0)
    loads = dyn.loads
    pair_values = np.zeros((len(loads.force_cols), 1))
    point_values = np.zeros((len(loads.point_links), 3))
    prescribed = np.zeros((len(loads.prescribed_cols), 3))
    pair_forces, wrenches, powers = np.zeros(system.n), np.zeros((n_links, 6)), np.zeros(2)
    inertia = np.zeros((n_links, 6))
    scratch = np.zeros((8, 3))
    for k in range(count):
        config = evaluate(system, q[k])
        if velocities is None:
            V = np.zeros((n_links, 6))
            link_velocities(topology, np.ascontiguousarray(config.twists), np.ascontiguousarray(q_dot[k]), V)
        else:
            V = np.ascontiguousarray(velocities[k])
        poses = np.ascontiguousarray(config.link_poses)
        for i in range(n_links):
            inertia_wrench(poses[i], V[i], np.ascontiguousarray(link_accelerations[k, i]), dyn.masses[i], dyn.coms[i],
                           dyn.inertias[i], inertia[i])
        centres = np.einsum("lij,lj->li", poses[:, :3, :3], dyn.coms) + poses[:, :3, 3]
        weight = dyn.masses[:, None] * dyn.gravity[None, :]
        gravity = np.concatenate([cross(centres, weight), weight], axis=1)
        load_values(loads, float(t[k]), pair_values, point_values, prescribed)
        applied_loads(loads, np.ascontiguousarray(config.q), np.ascontiguousarray(q_dot[k]), poses, V, pair_values,
                      point_values, pair_forces, wrenches, powers, scratch)
        rhs_links = (inertia - gravity - wrenches)[moving]
        rhs_links[:, :3] /= scale
        tau = pair_forces + drive[k]
        # Pair rows: xi_j . R_p = tau_j, with R_p = (scale r_m, r_f).
        pair_rows = np.zeros((system.n, n_pairs * 6))
        cols = topology.column_pair[:, None] * 6 + np.arange(6)[None, :]
        twist_scaled = np.concatenate([config.twists[:, :3] * scale, config.twists[:, 3:]], axis=1)
        np.put_along_axis(pair_rows, cols, twist_scaled * weights[:, None], axis=1)
        A = np.vstack([link_block, pair_rows])
        b = np.concatenate([rhs_links.ravel(), tau * weights])
        solution, *_ = np.linalg.lstsq(A, b, rcond=1e-10)
        residual[k] = float(np.linalg.norm(A @ solution - b))
        r = solution.reshape(n_pairs, 6)
        force = r[:, 3:]
        moment_origin = r[:, :3] * scale
        centre = config.pair_frames[:, :3, 3]
        forces[k] = force
        moments[k] = moment_origin - cross(centre, force)
        frames[k] = config.pair_frames
    real = [i for i, p in enumerate(system.pairs) if not p.virtual]
    return PairReactions(np.asarray(t, dtype=float), [system.pairs[i].name for i in real], forces[:, real],
                         moments[:, real], frames[:, real], residual)


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
