"""The statics of an equilibrium record again, near its positions: what a bushing rate changes.

Two things the rates of an equilibrium with respect to a bushing's rate ``k`` (the diagonal
entry ``i`` of bushing b's stiffness, METHOD.md (C4)-(C6)) need from the statics kernels
(:mod:`loops.kernels.statics`), both at closed configurations of an
:class:`~loops.statics.EquilibriumResult` (its fixed columns held):

* :func:`rate_loads`: the reduced force and stiffness of the bushing's rate alone. The
  generalized forces (E1) and the reduced stiffness (E4) are linear in the loads, and the
  bushing's force ``p - K d`` (B2) is linear in ``K``; so ``dg/dk`` and ``dK/dk`` at a fixed pose
  are the reduced force and stiffness of a model whose only load is that bushing with the unit
  stiffness ``E_ii`` and no preload: the same kernels, exact, no step;
* :func:`shifted_equilibria`: the configurations at the free coordinates ``u + s t`` (a
  direction ``t`` per position, steps ``s``), the loops closed again by the corrector with the
  fixed values held, each with the reduced stiffness of the model's own loads there (E4, an
  analytic function of the pose): what a metric of the equilibrium's stiffness (a compliance)
  is differenced along, as a record the compliance analyses read like an equilibrium's.
"""

from __future__ import annotations

import numpy as np

from .continuation import Walk
from .kernels.state import LOAD_SCALE
from .point_kinematics import link_twists
from .statics import EquilibriumResult, statics_setup

__all__ = ["rate_loads", "shifted_equilibria"]


def _walk(setup, q, rotations):
    """A walk standing on the closed ``q`` with the statics' columns (fixed, then free)."""
    return Walk(setup.system, setup.columns, q, rotations)


def _statics_at(setup, walk, loads, weights, loaded=True):
    """The statics scratch at ``walk``'s configuration for ``loads`` and ``weights``; ``loaded``:
    holding the model's applied pair and point loads (the set-up's ``scratch``), else none."""
    from .kernels import statics as kernels  # noqa: PLC0415 (kernels load on first use)

    S = setup.scratch(walk.block, loaded)
    system = setup.system
    kernels.statics_here(system.topology, system.geometry, walk.block, loads, weights, walk.here, walk.factor,
                         walk.G, S)
    return S


def _unit_loads(setup, bushing, index):
    """The model's loads with every value zero but bushing ``bushing``'s stiffness ``E_ii``."""
    loads = setup.loads
    stiffness = np.zeros_like(loads.bushing_stiffness)
    stiffness[bushing, index, index] = 1.0
    unit = loads._replace(spring_stiffness=np.zeros_like(loads.spring_stiffness),
                          strut_stiffness=np.zeros_like(loads.strut_stiffness), bushing_stiffness=stiffness,
                          bushing_preload=np.zeros_like(loads.bushing_preload))
    weights = setup.weights._replace(gravity=np.zeros(3), massive=np.zeros(0, dtype=np.int64))
    return unit, weights


def rate_loads(record, bushing, index):
    """``(dg (N, k), dK (N, k, k))``: the change of the reduced force in the free coordinates and
    of the reduced stiffness ``K_uu`` per unit of the rate ``index`` (0..5: x, y, z, about x, y, z)
    of the bushing named ``bushing``, at each position of ``record`` held where it is (the module
    docstring; N per unit rate per rad or m, and N m per rad ... per unit rate)."""
    setup = statics_setup(record)
    names = [b.name for b in setup.model.bushings]
    unit, weights = _unit_loads(setup, names.index(bushing), index)
    q, rotations, _ = record.closed_positions()
    fixed = len(setup.fixed_columns)
    count, k = len(record), len(setup.free_columns)
    dg, dK = np.zeros((count, k)), np.zeros((count, k, k))
    for i in range(count):
        S = _statics_at(setup, _walk(setup, q[i], rotations[i]), unit, weights, loaded=False)
        dg[i] = S.forces[fixed:]
        dK[i] = S.K[fixed:, fixed:]
    return dg, dK


def shifted_equilibria(record, directions, steps) -> EquilibriumResult:
    """The configurations of ``record`` moved to the free coordinates ``u + s t`` with its fixed
    values held, for every step ``s`` of ``steps`` (S,) and position (``t = directions[i]``
    (N, k), rad or m), each with the reduced stiffness of the model's loads there (E4): an
    :class:`~loops.statics.EquilibriumResult` of ``S N`` positions, step-major (position ``i`` of
    step ``j`` is ``j N + i``). They are closed, not balanced (the model's loads do not hold
    them): their stiffness is ``-dg/du`` there, the Hessian of the potential in ``u``."""
    setup = statics_setup(record)
    q, rotations, _ = record.closed_positions()
    directions = np.asarray(directions, dtype=float)
    steps = np.asarray(steps, dtype=float)
    count, fixed = len(record), len(setup.fixed_columns)
    out = setup.record(count * len(steps))
    for i in range(count):
        start = _walk(setup, q[i], rotations[i])
        base = start.driven_values
        for j, step in enumerate(steps):
            walk = start.copy()
            target = base.copy()
            target[fixed:] += step * directions[i]
            walk.to(target)
            # a fresh walk there: its factorization and transmission made at that very pose
            here = _walk(setup, walk.here.q, walk.here.rotations)
            S = _statics_at(setup, here, setup.loads, setup.weights)
            row = j * count + i
            out.q[row], out.rotations[row], out.T[row] = here.here.q, here.here.rotations, here.here.T
            out.G[row] = here.G[:, :fixed]
            out.K[row] = S.K[fixed:, fixed:]
            out.info[row, LOAD_SCALE] = S.info[LOAD_SCALE]
            # the motions per unit free coordinate there, as the equilibrium walk records them
            out.free_rates[row] = here.G[:, fixed:].T
            out.free_twists[row] = link_twists(setup.system, here.here.xi[None], out.free_rates[row][None])[0]
    return EquilibriumResult(setup, list(record.drivers), out, count * len(steps))
