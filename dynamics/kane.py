"""Kane's form of the equations of motion: the independent cross-check (METHOD.md, "Kane's form").

From vectors, not traces. For each link i, with its centre of mass ``c_i`` (world),
its central inertia tensor rotated to the current pose ``I_i = R_i I_c R_i^T`` and the
link Jacobians ``V_i^(r) = (w_r^i, v_r^i)`` of :mod:`dynamics.partitioning`:

    partial angular velocity     w_r^i
    partial velocity of G_i      v_r^Gi = v_r^i + w_r^i x c_i
    F_r  = sum_i ( v_r^Gi . m_i g + ... )                      (active: gravity here)
    F_r* = - sum_i ( m_i a_Gi . v_r^Gi + (I_i alpha_i + w_i x I_i w_i) . w_r^i )
    F_r + F_r* = 0

and splitting ``a_Gi``, ``alpha_i`` into their parts proportional to ``u''`` and the rest
gives ``M(u) u'' = F - h`` with

    M_rs = sum_i ( m_i v_r^Gi . v_s^Gi + w_r^i . I_i w_s^i )
    h_r  = sum_i ( m_i a_Gi^0 . v_r^Gi + (I_i alpha_i^0 + w_i x I_i w_i) . w_r^i )

``a_G^0 = a_o^0 + alpha^0 x c + w x v_G`` is the acceleration of the centre of mass at zero
independent accelerations (from the spatial acceleration ``(alpha^0, a_o^0)`` of the body
point at the origin). The other loads (:mod:`dynamics.loads`) are shared with Lagrange.
"""

from __future__ import annotations

import numpy as np

from mechanism.transforms import cross

__all__ = ["newton_euler_terms", "inertia_wrenches"]


def _centres_and_inertias(poses, coms, inertias):
    R = poses[:, :3, :3]
    centres = np.einsum("lij,lj->li", R, coms) + poses[:, :3, 3]
    world_inertias = R @ inertias @ np.swapaxes(R, -1, -2)
    return centres, world_inertias


def newton_euler_terms(kin, masses, coms, inertias, gravity, links=None):
    """Mass matrix, inertia (velocity-product) terms and gravity forces by Kane's method.

    Parameters
    ----------
    kin : dynamics.partitioning.Kinematics
    masses : (L,) kg; coms : (L, 3) m, link frame; inertias : (L, 3, 3) kg m^2 about the
        centre of mass, link axes
    gravity : (3,) m/s^2
    links : (k,) int, optional, the links with mass or inertia

    Returns
    -------
    M : (d, d); h : (d,); Q_gravity : (d,) (same meaning as :func:`dynamics.lagrange.trace_terms`)
    """
    poses = kin.state.config.link_poses
    jacobians = kin.link_jacobians
    V, A0 = kin.velocities, kin.bias_accelerations
    if links is not None:
        poses, jacobians, V, A0 = poses[links], jacobians[links], V[links], A0[links]
        masses, coms, inertias = masses[links], coms[links], inertias[links]
    centres, I = _centres_and_inertias(poses, coms, inertias)
    w_r = jacobians[..., :3]                                   # (L, d, 3)
    v_r = jacobians[..., 3:] + cross(w_r, centres[:, None, :])  # partial velocities of G
    M = (np.einsum("l,lrk,lsk->rs", masses, v_r, v_r)
         + np.einsum("lri,lij,lsj->rs", w_r, I, w_r))
    omega = V[:, :3]
    v_centre = V[:, 3:] + cross(omega, centres)
    alpha = A0[:, :3]
    a_centre = A0[:, 3:] + cross(alpha, centres) + cross(omega, v_centre)
    I_omega = np.einsum("lij,lj->li", I, omega)
    torque = np.einsum("lij,lj->li", I, alpha) + cross(omega, I_omega)
    h = (np.einsum("lrk,lk->r", v_r, masses[:, None] * a_centre)
         + np.einsum("lrk,lk->r", w_r, torque))
    Q_gravity = np.einsum("lrk,l,k->r", v_r, masses, np.asarray(gravity, dtype=float))
    return 0.5 * (M + M.T), h, Q_gravity


def inertia_wrenches(poses, velocities, accelerations, masses, coms, inertias):
    """Rates of momentum of every link as wrenches ``(moment about the origin, force)``, (L, 6).

    ``F = m a_G``, ``N_G = I alpha + w x I w``; about the origin ``N_o = N_G + c x F``. Used by
    the pair reactions (Newton-Euler on each link).
    """
    centres, I = _centres_and_inertias(poses, coms, inertias)
    omega, alpha = velocities[:, :3], accelerations[:, :3]
    v_centre = velocities[:, 3:] + cross(omega, centres)
    a_centre = accelerations[:, 3:] + cross(alpha, centres) + cross(omega, v_centre)
    force = masses[:, None] * a_centre
    moment = (np.einsum("lij,lj->li", I, alpha) + cross(omega, np.einsum("lij,lj->li", I, omega))
              + cross(centres, force))
    return np.concatenate([moment, force], axis=1)
