"""States of the dynamics: closed configurations with the partition of their coordinates.

The dynamics is written in the *driven* coordinates ``d = (u, p)``: ``m`` independent
coordinates ``u`` (as many as the mechanism's degrees of freedom, less the prescribed
ones) and the prescribed coordinates ``p(t)``. Every other pair variable is dependent and
follows from the closure, solved by the one engine of :mod:`loops`: the square block of
``B`` for the driven columns (:mod:`loops.linear`), the walk (:mod:`loops.continuation`) to
reach a start, the Newton corrector and branch guard at every stage
(:mod:`dynamics.kernels.motion`).

A :class:`State` is a closed configuration with its factorization, transmission matrix
``G = dq/dd`` (Pavlov's transmission ratios) and the :class:`Kinematics` of its last
evaluation; the integrator's accepted state also carries its *anchor*: the last accepted
state whose square block was well conditioned, with its ``G`` and the second derivatives
``kappa`` of the dependent variables there (the branch's Taylor model, which predicts every
stage; next to a singular position it also gives the tangent, see
:mod:`dynamics.kernels.motion`). A :class:`Compiled` bundles what the kernels need for one
partition.
"""

from __future__ import annotations

import numpy as np

from loops.configuration import new_work
from loops.continuation import walk_parameters
from loops.linear import new_factor

from .kernels.state import Compiled, DynamicScratch, Inertia, Kinematics, State

__all__ = ["Inertia", "Kinematics", "State", "Compiled", "new_kinematics", "new_state", "state_from_walk",
           "start_kernel_calls", "compiled", "solver_params"]



def solver_params(tolerance):
    """Walk and corrector parameters (:mod:`loops.kernels.continuation`) at ``tolerance``: the
    walk's own (:func:`loops.continuation.walk_parameters`), rows never chosen anew."""
    return walk_parameters(tolerance)


def new_kinematics(system, loads, d, m) -> Kinematics:
    n, links = system.n, system.topology.links
    return Kinematics(np.zeros((n, d)), np.zeros((links, d, 6)), np.zeros(n), np.zeros(n), np.zeros((links, 6)),
                      np.zeros((links, 6)), np.zeros((d, d)), np.zeros(d), np.zeros(d), np.zeros(n),
                      np.zeros((links, 6)), np.zeros(3), np.zeros(m), np.zeros(d),
                      np.zeros((len(loads.force_cols), 1)), np.zeros((len(loads.point_keys), 3)),
                      np.zeros((len(loads.prescribed_cols), 3)),
                      DynamicScratch(np.zeros((5, 4, 4)), np.zeros((2, 3, 3)), np.zeros((8, 3)), np.zeros((d, 4, 4)),
                                     np.zeros((d, 4, 4)), np.zeros((d, 3)), np.zeros(n), np.zeros((7, max(d, 1))),
                                     np.zeros((d, d)), np.zeros(4), np.zeros(2), np.zeros((d + 2, n))))


def new_state(system, block, loads, m, q=None, rotations=None) -> State:
    """An empty :class:`State` (scratch for stages, or to be filled)."""
    d = len(block.driven)
    work = new_work(system, q, rotations)
    return State(work, new_factor(block), np.zeros((system.n, d)), new_kinematics(system, loads, d, m),
                 work.q.copy(), work.rotations.copy(), np.zeros((system.n, d)), np.zeros((system.n, d, d)))


def start_kernel_calls(system, block, factor_from, state):
    """The kernel calls that make ``state`` a start: the factorization copied from ``factor_from``
    (a Factor), then the curvature at the state (it is its own anchor); ``(kernel, arguments)``."""
    from loops.kernels.newton import copy_factor  # noqa: PLC0415 (kernels load on first use)

    from .kernels.motion import curvature_at  # noqa: PLC0415

    return [(copy_factor, (factor_from, state.factor)),
            (curvature_at, (system.topology, system.geometry, block, state.work, state.factor, state.G,
                            state.curvature, state.kin.scratch.branch))]


def state_from_walk(walk, loads, m) -> State:
    """The :class:`State` where a :class:`loops.continuation.Walk` stands (copies), its own
    anchor (with its curvature)."""
    system = walk.system
    state = new_state(system, walk.block, loads, m, walk.here.q, walk.here.rotations)
    for name in ("A", "T", "W", "xi", "defects", "centres", "swings"):
        getattr(state.work, name)[...] = getattr(walk.here, name)
    (copy, copy_arguments), (curvature, curvature_arguments) = start_kernel_calls(system, walk.block, walk.factor,
                                                                                  state)
    copy(*copy_arguments)
    state.G[:] = walk.G
    state.anchor_G[:] = walk.G
    curvature(*curvature_arguments)
    return state


def compiled(system, block, inertia, loads, params, m) -> Compiled:
    return Compiled(system.topology, system.geometry, block, inertia, loads, params, int(m))
