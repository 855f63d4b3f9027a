"""The linearised equilibrium: how far a small load moves a mechanism at rest (its compliance).

At every position of an :class:`~loops.statics.EquilibriumResult` the response to a small
extra load is linear in it (METHOD.md, "Compliance" (C1)-(C3)): the load's reduced force in
the free coordinates ``dg_u`` (by virtual work on the links' twists per unit free coordinate,
the same tree sums as the velocities, eq. 4), the equilibrium's shift ``du = K_uu^-1 dg_u``
with the analytic reduced stiffness the equilibrium already holds (E4), and the motion it
makes, ``dq = G_u du`` with the links' twists per unit load. No load is applied and no
equilibrium solved again: exact at zero load, with no step size.

:func:`load_response` returns that motion per unit of each load; the suspension workbench's
compliance analyses (:mod:`loops.suspension.compliance`) feed it to the metrics' jets.
"""

from __future__ import annotations

import numpy as np

__all__ = ["load_response", "LoadResponse"]


class LoadResponse:
    """The motion per unit of each load at every position (C2).

    Attributes
    ----------
    rates : (N, K, n) the pair variables' change per unit load (rad or m per N or N m)
    twists : (N, K, L, 6) every link's small motion ``(omega, v_o)`` per unit load, global,
        origin-referenced (rad and m per N or N m)
    free_twists : (N, k, L, 6) the links' twists per unit free coordinate at fixed drivers
    reduced : (N, K, k) the loads' reduced forces ``dg_u`` per unit load (C1)
    """

    def __init__(self, rates, twists, free_twists, reduced):
        self.rates, self.twists, self.free_twists, self.reduced = rates, twists, free_twists, reduced


def load_response(record, wrenches) -> LoadResponse:
    """The equilibrium's motion per unit of each of K small loads (METHOD.md (C1)-(C2)).

    Parameters
    ----------
    record : loops.statics.EquilibriumResult, stable at every position
    wrenches : (N, K, L, 6) the loads on the links, per unit load: ``(n_o, f)`` (moment about the
        origin N m, force N), global; a force ``F`` at ``r`` is ``(r x F, F)``

    Returns
    -------
    LoadResponse

    Raises
    ------
    ValueError
        ``wrenches`` of another shape.
    """
    wrenches = np.asarray(wrenches, dtype=float)
    system = record.system
    count, links = len(record), system.topology.links
    if wrenches.ndim != 4 or wrenches.shape[0] != count or wrenches.shape[2:] != (links, 6):
        raise ValueError(f"wrenches: expected shape ({count}, K, {links}, 6), got {wrenches.shape}")
    G, V = record.free_rates, record.free_twists  # the equilibrium walk's own, made with K_uu
    k = V.shape[1]
    flat = V.reshape(count, k, links * 6)
    reduced = wrenches.reshape(count, -1, links * 6) @ flat.transpose(0, 2, 1)                # (C1) (N, K, k)
    # K_uu is regular: an equilibrium whose K_uu is singular (neutral) stops before it is returned
    shift = np.linalg.solve(np.asarray(record.stiffness, dtype=float), reduced.transpose(0, 2, 1))   # (C2) (N, k, K)
    step = shift.transpose(0, 2, 1)
    rates = step @ G
    twists = (step @ flat).reshape(count, -1, links, 6)
    return LoadResponse(rates, twists, V, reduced)
