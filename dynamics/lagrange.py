"""Lagrange's equations in Pavlov's trace form (METHOD.md, "Dynamics (7)").

With the driven coordinates ``d`` (independent ``u`` and prescribed ``p``) and the
dependent pair variables eliminated through the closure (:mod:`dynamics.partitioning`),
each link pose is a function ``T_i(d)`` and

    C_is = dT_i/dd_s = hat(V_i^(s)) T_i            (V_i^(s): the link's partial twist)
    K    = 1/2 sum_i tr(T_i' J_i T_i'^T) = 1/2 sum_{s,t} M_st d_s' d_t'           (7)
    M_st = sum_i tr(C_is J_i C_it^T)

Lagrange's expression reduces, for each coordinate, to a single trace:

    d/dt dK/dd_s' - dK/dd_s = sum_i tr(C_is J_i T_i''^T)

(the terms in ``d/dt C_is`` and ``dC_is/dd_t`` cancel by the symmetry of second
derivatives). Splitting ``T_i'' = sum_t C_it d_t'' + T_i''|0`` with
``T_i''|0 = (hat(A_i^0) + hat(V_i)^2) T_i`` (``A_i^0``: the link's spatial acceleration at
zero independent accelerations, from the closure differentiated twice) gives the
velocity-product terms

    h_s = sum_i tr(C_is J_i (T_i''|0)^T)

and the equations ``M(u) u'' = Q(u, u', t) - h(u, u')``. Gravity enters through the
potential ``P = -sum_i G T_i J_i e``: ``Q_s^g = sum_i G C_is J_i e``.

Nothing here uses vectors of the centres of mass or inertia tensors: the Kane form
(:mod:`dynamics.kane`) does, and the two must agree.
"""

from __future__ import annotations

import numpy as np

from mechanism.transforms import twist_matrix

from .energy import gravity_generalized_forces

__all__ = ["trace_terms"]


def trace_terms(kin, J, gravity, links=None):
    """Mass matrix, velocity-product terms and gravity forces by the trace form.

    The traces are taken with the links' pseudo-inertias in the world frame,
    ``Jw_i = T_i J_i T_i^T``: with ``C_is = hat(V_i^(s)) T_i``,
    ``tr(C_is J_i C_it^T) = tr(hat(V_i^(s)) Jw_i hat(V_i^(t))^T)`` and
    ``T_i''|0 J_i C_is^T = (hat(A_i^0) + hat(V_i)^2) Jw_i hat(V_i^(s))^T``, so each link's
    pose enters once. ``C_is J_i e = hat(V_i^(s)) Jw_i e`` (``T^T e = e``).

    Parameters
    ----------
    kin : dynamics.partitioning.Kinematics
    J : (L, 4, 4) pseudo-inertias in the link frames
    gravity : (3,) m/s^2, global
    links : (k,) int, optional
        The links with mass (the others contribute nothing).

    Returns
    -------
    M : (d, d) generalized mass matrix (kg, kg m, kg m^2 entries)
    h : (d,) velocity-product (and prescribed-acceleration) terms, N or N m
    Q_gravity : (d,) generalized gravity forces ``-dP/dd``
    """
    T = kin.state.config.link_poses
    jacobians = kin.link_jacobians
    V, A0 = kin.velocities, kin.bias_accelerations
    if links is not None:
        T, jacobians, V, A0, J = T[links], jacobians[links], V[links], A0[links], J[links]
    d = jacobians.shape[1]
    # One Q-operator stack for the partial twists, the velocity and the bias acceleration.
    hats = twist_matrix(np.concatenate([jacobians, V[:, None], A0[:, None]], axis=1))
    partial, hat_V, hat_A = hats[:, :d], hats[:, d], hats[:, d + 1]
    world_J = T @ J @ np.swapaxes(T, -1, -2)            # Jw_i = T_i J_i T_i^T
    CJ = partial @ world_J[:, None]                     # hat(V_i^(s)) Jw_i = C_is J_i T_i^T
    M = np.einsum("lsik,ltik->st", CJ, partial)         # tr(C_is J_i C_it^T)
    h = np.einsum("lsik,lik->s", CJ, hat_A + hat_V @ hat_V)  # tr(C_is J_i T_i''^T), T_i'' at u'' = 0
    return 0.5 * (M + M.T), h, gravity_generalized_forces(CJ, gravity)
