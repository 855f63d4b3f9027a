"""The force and moment each pair transmits: Newton-Euler on every link (METHOD.md (E7)).

The one implementation of pair reactions: the statics (:func:`loops.statics.equilibrium`)
calls it with the applied loads alone, the dynamics (:func:`dynamics.inverse_dynamics`,
:meth:`dynamics.SimulationResult.reactions`) with the links' inertia wrenches added.

The unknowns are the wrenches ``R_p = (n_o, f)`` (moment about the origin, force; world
frame) that the first link of each pair applies to its second link. Every moving link
balances them against the wrenches applied to it (gravity at its centre of mass, point
forces, spring-dampers, and any ``extra`` wrench such as minus its rate of momentum),

    sum_{p: second = i} R_p - sum_{p: first = i} R_p = -(W_i^gravity + W_i^applied + W_i^extra),

and each pair transmits, along each of its own freedoms j, exactly the generalized force
in that variable (spring, damper, pair force, bushing, driver): ``xi_j . R_p = tau_j``. The
system is solved in the least-squares, minimum-norm sense (moments weighed by the mechanism
size): redundant constraints (a planar loop's out-of-plane components) make some reaction
components indeterminate, and minimum norm shares them out evenly. Results are given at the
pair centre, in global axes and in the pair's frame on its first link (frame j).
"""

from __future__ import annotations

import numpy as np

from mechanism.errors import ModelError
from mechanism.transforms import cross

from .configuration import evaluate

__all__ = ["PairReactions", "pair_reactions", "gravity_wrenches"]


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
    residual : (N,) norm of the Newton-Euler residual (N; small when the loads and motion are
        consistent)
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


def gravity_wrenches(weights, poses) -> np.ndarray:
    """Gravity on every link, ``(c x m g, m g)`` (L, 6) (N m about the origin, N; global) at the
    link poses ``poses`` (L, 4, 4), ``c`` the centre of mass."""
    centres = np.einsum("lij,lj->li", poses[:, :3, :3], weights.coms) + poses[:, :3, 3]
    weight = weights.masses[:, None] * weights.gravity[None, :]
    return np.concatenate([cross(centres, weight), weight], axis=1)


def _balance_rows(system):
    """The link rows of the Newton-Euler system: the signed incidence of pairs on the moving
    links, one 6x6 identity block per entry ((6 moving links, 6 pairs))."""
    topology = system.topology
    incidence = np.zeros((topology.links, topology.pairs))
    incidence[topology.second, np.arange(topology.pairs)] += 1.0
    incidence[topology.first, np.arange(topology.pairs)] -= 1.0
    moving = np.array([i for i in range(topology.links) if i != topology.ground], dtype=int)
    return moving, np.kron(incidence[moving], np.eye(6))


def pair_reactions(system, loads, weights, q, q_dot, t, drive, extra=None, velocities=None,
                   rotations=None) -> PairReactions:
    """Pair wrenches by Newton-Euler on each link (see the module docstring).

    Parameters
    ----------
    system : loops.compiled.CompiledSystem
    loads : loops.loads.LoadArrays; weights : loops.loads.Weights
    q, q_dot : (N, n) pair variables and rates at closed states
    t : (N,) s, times for time-dependent loads
    drive : (N, n) driver efforts in the pair variables (added to the pairs' own loads)
    extra : (N, L, 6), optional, more wrenches on the links (N m about the origin, N; global):
        the dynamics' minus rates of momentum
    velocities : (N, L, 6), optional (computed from ``q_dot`` otherwise)
    rotations : (N, m, 3, 3), optional, the spherical states (from ``q`` otherwise)
    """
    from .kernels.loads import applied_loads, load_values  # noqa: PLC0415 (kernels load on first use)
    from .kernels.velocity import link_velocities  # noqa: PLC0415

    topology = system.topology
    n_links, n_pairs = topology.links, topology.pairs
    moving, link_block = _balance_rows(system)
    scale = system.scale
    count = len(q)
    forces = np.zeros((count, n_pairs, 3))
    moments = np.zeros((count, n_pairs, 3))
    frames = np.zeros((count, n_pairs, 4, 4))
    residual = np.zeros(count)
    weights_of_rows = np.where(system.rotational, 1.0 / scale, 1.0)
    pair_values = np.zeros((len(loads.force_cols), 1))
    point_values = np.zeros((len(loads.point_links), 3))
    prescribed = np.zeros((len(loads.prescribed_cols), 3))
    pair_forces, wrenches, powers = np.zeros(system.n), np.zeros((n_links, 6)), np.zeros(2)
    scratch = np.zeros((8, 3))
    cols = topology.column_pair[:, None] * 6 + np.arange(6)[None, :]
    for k in range(count):
        config = evaluate(system, q[k], None if rotations is None else rotations[k])
        rates = np.ascontiguousarray(q_dot[k], dtype=float)
        if velocities is None:
            V = np.zeros((n_links, 6))
            link_velocities(topology, np.ascontiguousarray(config.twists), rates, V)
        else:
            V = np.ascontiguousarray(velocities[k])
        poses = np.ascontiguousarray(config.link_poses)
        load_values(loads, float(t[k]), pair_values, point_values, prescribed)
        applied_loads(loads, np.ascontiguousarray(config.q), rates, poses, V, pair_values, point_values, pair_forces,
                      wrenches, powers, scratch)
        applied = gravity_wrenches(weights, poses) + wrenches
        if extra is not None:
            applied = applied + extra[k]
        rhs_links = -applied[moving]
        rhs_links[:, :3] /= scale
        tau = pair_forces + drive[k]
        # Pair rows: xi_j . R_p = tau_j, with R_p = (scale r_m, r_f).
        pair_rows = np.zeros((system.n, n_pairs * 6))
        twist_scaled = np.concatenate([config.twists[:, :3] * scale, config.twists[:, 3:]], axis=1)
        np.put_along_axis(pair_rows, cols, twist_scaled * weights_of_rows[:, None], axis=1)
        A = np.vstack([link_block, pair_rows])
        b = np.concatenate([rhs_links.ravel(), tau * weights_of_rows])
        solution, *_ = np.linalg.lstsq(A, b, rcond=1e-10)
        residual[k] = float(np.linalg.norm(A @ solution - b))
        r = solution.reshape(n_pairs, 6)
        force = r[:, 3:]
        moment_origin = r[:, :3] * scale
        forces[k] = force
        moments[k] = moment_origin - cross(config.pair_frames[:, :3, 3], force)
        frames[k] = config.pair_frames
    real = [i for i, p in enumerate(system.pairs) if not p.virtual]
    return PairReactions(np.asarray(t, dtype=float), [system.pairs[i].name for i in real], forces[:, real],
                         moments[:, real], frames[:, real], residual)
