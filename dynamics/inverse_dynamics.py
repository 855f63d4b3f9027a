"""Inverse dynamics over a sweep, and the force and moment transmitted by each pair.

:func:`inverse_dynamics`: the drivers (as many as ``check().dof``) follow prescribed
values, speeds and accelerations; at each position the closure is solved (continuation
from the design pose, as in a sweep) and the generalized force each driver must supply is

    tau = M(u) u'' + h(u, u') - Q(u, u', t)

in the notation of :mod:`dynamics.lagrange` (or of the Kane form): the driver's torque
(force) in its pair variable, from the first link on the second, in addition to the
model's own loads.

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

from loops.results import SweepResult
from loops.sweep import per_position
from mechanism.errors import ModelError, SweepStopped
from mechanism.transforms import cross

from .equations import ASSEMBLY_TOLERANCE, METHODS, dynamic_model, snapshot_of
from .kane import inertia_wrenches
from .partitioning import ClosureFailed, walk, with_curvature

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
    system = dyn.system
    n_links, n_pairs = len(system.links), len(system.pairs)
    ground = system.link_index["ground"]
    moving = np.array([i for i in range(n_links) if i != ground], dtype=int)
    incidence = np.zeros((n_links, n_pairs))
    incidence[system.second, np.arange(n_pairs)] += 1.0
    incidence[system.first, np.arange(n_pairs)] -= 1.0
    scale = system.scale
    # Unknowns r = (n_o / scale, f) per pair; link rows (moment / scale, force).
    link_block = np.kron(incidence[moving], np.eye(6))
    count = len(q)
    forces = np.zeros((count, n_pairs, 3))
    moments = np.zeros((count, n_pairs, 3))
    frames = np.zeros((count, n_pairs, 4, 4))
    residual = np.zeros(count)
    rotational = system.rotational
    weights = np.where(rotational, 1.0 / scale, 1.0)
    for k in range(count):
        config = system.evaluate(q[k])
        V = system.link_velocities(config, q_dot[k]) if velocities is None else velocities[k]
        poses = config.link_poses
        inertia = inertia_wrenches(poses, V, link_accelerations[k], dyn.masses, dyn.coms, dyn.inertias)
        centres = np.einsum("lij,lj->li", poses[:, :3, :3], dyn.coms) + poses[:, :3, 3]
        weight = dyn.masses[:, None] * dyn.gravity[None, :]
        gravity = np.concatenate([cross(centres, weight), weight], axis=1)
        applied = dyn.loads.evaluate(float(t[k]), config, q_dot[k], V)
        rhs_links = (inertia - gravity - applied.link_wrenches)[moving]
        rhs_links[:, :3] /= scale
        tau = applied.pair_forces + drive[k]
        # Pair rows: xi_j . R_p = tau_j, with R_p = (scale r_m, r_f).
        pair_rows = np.zeros((system.n, n_pairs * 6))
        cols = system.column_pair[:, None] * 6 + np.arange(6)[None, :]
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


class InverseDynamicsResult:
    """Driver forces along a prescribed motion, with the motion itself.

    Attributes
    ----------
    drivers : list of str
    t : (N,) s, the times given (zeros when none were)
    stop_reason : str or None

    ``force(name)`` gives the generalized force (N m or N) driver ``name`` supplies; the
    motion reads like a sweep (``q``, ``q_dot``, ``q_ddot``, ``point``, ``pose`` ...).
    """

    def __init__(self, dyn, drivers, t, q, q_dot, q_ddot, poses, velocities, accelerations, efforts,
                 stop_reason=None):
        self._dyn = dyn
        self.model = dyn.model
        self.drivers = list(drivers)
        self.t = t
        self._q, self._q_dot, self._velocities, self._accelerations = q, q_dot, velocities, accelerations
        self._efforts = efforts
        self.stop_reason = stop_reason
        self._kinematics = SweepResult(dyn.system, self.drivers, q, q_dot, q_ddot, poses, velocities,
                                       accelerations, stop_reason)

    def __len__(self):
        return len(self.t)

    def force(self, name):
        """Generalized force (N,) driver ``name`` must supply: N m for angles, N for slides."""
        if name not in self.drivers:
            raise ModelError(f"driver {name!r}", f"not a driver (drivers: {', '.join(self.drivers)})")
        return self._efforts[:, self._dyn.system.variable_index[name]].copy()

    def power(self, name):
        """Power (W) driver ``name`` delivers: force times its rate, (N,)."""
        return self.force(name) * self.q_dot(name)

    def __getattr__(self, attribute):
        if attribute in ("q", "q_dot", "q_ddot", "point", "point_velocity", "point_acceleration", "pose",
                         "link_velocity", "link_acceleration", "columns", "variable_names", "point_names"):
            return getattr(self._kinematics, attribute)
        raise AttributeError(attribute)

    def reactions(self) -> PairReactions:
        """Force and moment transmitted by each pair along the sweep."""
        return pair_reactions(self._dyn, self._q, self._q_dot, self._accelerations, self.t, self._efforts,
                              velocities=self._velocities)


def inverse_dynamics(mechanism, drivers, speeds=None, accelerations=None, *, times=None,
                     method="lagrange") -> InverseDynamicsResult:
    """Generalized force each driver must supply for a prescribed motion over a sweep.

    Parameters
    ----------
    mechanism : mechanism.Mechanism (or its frozen snapshot)
    drivers : dict name -> (N,) values
        As many drivers as ``check().dof`` (pair variables or point drivers; rad or m from
        the design pose). The sweep walks from the design pose to the first values, then
        through the rest.
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
        reached.
    """
    if method not in METHODS:
        raise ModelError("method", f"unknown method {method!r} (expected 'lagrange' or 'kane')")
    model = snapshot_of(mechanism)
    dyn = dynamic_model(model)
    names, cols = dyn.coordinates_of(drivers, "drivers", "driver", "driver")
    arrays = []
    for name in names:
        try:
            arr = np.atleast_1d(np.array(drivers[name], dtype=float))
        except (TypeError, ValueError):
            raise ModelError(f"driver {name!r}", "values must be numbers") from None
        if arr.ndim != 1 or not np.all(np.isfinite(arr)):
            raise ModelError(f"driver {name!r}", "values must be a finite 1-D sequence")
        arrays.append(arr)
    lengths = {len(a) for a in arrays if len(a) > 1}
    if len(lengths) > 1:
        raise ModelError("drivers", f"driver value arrays differ in length: {sorted(lengths)}")
    count = lengths.pop() if lengths else 1
    table = np.column_stack([np.broadcast_to(a, (count,)) for a in arrays])
    speed = per_position(speeds, names, count, "speed")
    accel = per_position(accelerations, names, count, "acceleration")
    speed_table = np.column_stack([speed.get(n, np.zeros(count)) for n in names])
    accel_table = np.column_stack([accel.get(n, np.zeros(count)) for n in names])
    if times is None:
        t = np.zeros(count)
    else:
        t = np.array(times, dtype=float).ravel()
        if t.shape != (count,) or not np.all(np.isfinite(t)):
            raise ModelError("times", f"expected {count} finite times")

    partition = dyn.partition(cols)
    state = with_curvature(dyn.start(partition, table[0], where="drivers"))
    rows = {k: [] for k in ("q", "qd", "qdd", "T", "V", "A", "tau")}

    def result(reason=None):
        n, L = dyn.system.n, len(dyn.system.links)
        shapes = {"q": (n,), "qd": (n,), "qdd": (n,), "T": (L, 4, 4), "V": (L, 6), "A": (L, 6), "tau": (n,)}
        a = {k: np.array(v) if v else np.zeros((0,) + shapes[k]) for k, v in rows.items()}
        return InverseDynamicsResult(dyn, names, t[:len(rows["q"])], a["q"], a["qd"], a["qdd"], a["T"], a["V"],
                                     a["A"], a["tau"], reason)

    for k in range(count):
        try:
            if k:
                state = with_curvature(walk(state, table[k], ASSEMBLY_TOLERANCE, what="drivers"))
            dynamics = dyn.evaluate(state, speed_table[k], float(t[k]), method=method)
        except ClosureFailed as exc:
            at = ", ".join(f"{name} = {v:.6g}" for name, v in zip(names, table[k]))
            reason = f"inverse dynamics stopped before {at}: {exc}"
            raise SweepStopped(reason, result(reason)) from None
        tau = dynamics.efforts(accel_table[k])
        efforts = np.zeros(dyn.system.n)
        efforts[cols] = tau
        kin = dynamics.kin
        rows["q"].append(state.q.copy())
        rows["qd"].append(kin.q_dot)
        rows["qdd"].append(kin.q_ddot(accel_table[k]))
        rows["T"].append(state.config.link_poses)
        rows["V"].append(kin.velocities)
        rows["A"].append(kin.link_accelerations(accel_table[k]))
        rows["tau"].append(efforts)
    return result()

