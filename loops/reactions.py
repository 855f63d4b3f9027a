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
components indeterminate, and minimum norm shares them out evenly. The link rows depend on the
graph alone (:func:`link_rows`), so the compiled solve
(:func:`loops.kernels.reactions.newton_euler_reactions`, all positions in one call) is a small
least-squares problem in the loops' wrenches per position (METHOD.md (E7)); where the loads do
not balance, every link still balances and the pair rows take the residual. Results are given
at the pair centre, in global axes and in the pair's frame on its first link (frame j).
"""

from __future__ import annotations

import functools

import numpy as np

from mechanism.errors import ModelError
from mechanism.transforms import cross

from .configuration import new_work
from .kernel_arrays import kernel_array

__all__ = ["PairReactions", "pair_reactions", "gravity_wrenches", "link_rows", "RCOND"]

#: Singular values of the pair rows below this fraction of the largest are taken as zero (the
#: indeterminate components of redundant constraints, shared out by the minimum norm).
RCOND = 1e-10


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


@functools.lru_cache(maxsize=64)
def link_rows(system):
    """The link rows of (E7) by the graph alone: the moving links (L-1,), the pseudo-inverse of
    the pairs' signed incidence on them (P, L-1) and an orthonormal basis of its null space, the
    graph's cycles (P, loops) (one per compiled system: they are frozen)."""
    topology = system.topology
    incidence = np.zeros((topology.links, topology.pairs))
    incidence[topology.second, np.arange(topology.pairs)] += 1.0
    incidence[topology.first, np.arange(topology.pairs)] -= 1.0
    moving = np.array([i for i in range(topology.links) if i != topology.ground], dtype=np.int64)
    rows = incidence[moving]
    _, s, vt = np.linalg.svd(rows)
    rank = int(np.sum(s > 1e-9 * s[0])) if len(s) else 0
    return moving, np.ascontiguousarray(np.linalg.pinv(rows)), np.ascontiguousarray(vt[rank:].T)


def _load_values(loads, t):
    """The time-dependent loads' values at every time ``t`` (N,): pair forces (N, nf, 1) and
    point forces (N, np, 3), each distinct time evaluated once."""
    from .kernels.loads import load_values  # noqa: PLC0415 (kernels load on first use)

    times, where = np.unique(np.asarray(t, dtype=float), return_inverse=True)
    pair_values = np.zeros((len(times), len(loads.force_cols), 1))
    point_values = np.zeros((len(times), len(loads.point_keys), 3))
    prescribed = np.zeros((len(loads.prescribed_cols), 3))
    for i, time in enumerate(times):
        load_values(loads, float(time), pair_values[i], point_values[i], prescribed)
    return np.ascontiguousarray(pair_values[where.ravel()]), np.ascontiguousarray(point_values[where.ravel()])


def pair_reactions(system, loads, weights, q, q_dot, t, drive, extra=None, velocities=None,
                   rotations=None) -> PairReactions:
    """Pair wrenches by Newton-Euler on each link (see the module docstring), compiled:
    :func:`loops.kernels.reactions.newton_euler_reactions`.

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
    from .kernels.reactions import newton_euler_reactions  # noqa: PLC0415 (kernels load on first use)

    topology = system.topology
    n_links, n_pairs = topology.links, topology.pairs
    count = len(q)
    moving, spread, cycles = link_rows(system)
    q = kernel_array(q, (count, system.n))
    pair_values, point_values = _load_values(loads, t)
    m = len(system.spherical_pairs)
    forces = np.zeros((count, n_pairs, 3))
    moments = np.zeros((count, n_pairs, 3))
    frames = np.zeros((count, n_pairs, 4, 4))
    residual = np.zeros(count)
    newton_euler_reactions(
        topology, system.geometry, loads, weights, new_work(system), q,
        np.zeros((count, m, 3, 3)) if rotations is None else kernel_array(rotations),
        rotations is not None, kernel_array(q_dot, (count, system.n)),
        np.zeros((count, n_links, 6)) if velocities is None else kernel_array(velocities),
        velocities is not None, pair_values, point_values, kernel_array(drive),
        np.zeros((count, n_links, 6)) if extra is None else kernel_array(extra),
        moving, spread, cycles, np.where(system.rotational, 1.0 / system.scale, 1.0), RCOND, forces, moments,
        frames, residual)
    real = [i for i, p in enumerate(system.pairs) if not p.virtual]
    return PairReactions(np.asarray(t, dtype=float), [system.pairs[i].name for i in real], forces[:, real],
                         moments[:, real], frames[:, real], residual)
