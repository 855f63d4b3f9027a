"""Kane's form of the equations of motion: the independent cross-check (METHOD.md, "Kane's form").

From vectors, not traces. For each link i, with its centre of mass ``c_i`` (world), its
central inertia tensor turned to the current pose ``I_i = R_i I_c R_i^T`` and its partial
twists ``V_i^(r) = (w_r, v_r)``:

    partial velocity of G_i      v_r^G = v_r + w_r x c_i
    M_rs = sum_i ( m_i v_r^G . v_s^G + w_r . I_i w_s )
    h_r  = sum_i ( m_i a_G^0 . v_r^G + (I_i alpha^0 + w x I_i w) . w_r )
    Q_r  = sum_i m_i g . v_r^G

with ``a_G^0 = a_o^0 + alpha^0 x c + w x v_G`` the centre of mass's acceleration at zero
independent accelerations, from the link's spatial acceleration ``(alpha^0, a_o^0)``.
"""

from __future__ import annotations

import numpy as np

from ._compile import allocating_kernel, inline_kernel, internal_kernel
from loops.kernels.rotations import cross

__all__ = ["centre_and_inertia", "newton_euler_terms", "inertia_wrench"]


@inline_kernel
def centre_and_inertia(T, com, inertia, centre, world_inertia, RI):
    """Centre of mass (3,) and central inertia tensor (3, 3) of a link in world axes (``RI``:
    3x3 scratch)."""
    for r in range(3):
        centre[r] = T[r, 0] * com[0] + T[r, 1] * com[1] + T[r, 2] * com[2] + T[r, 3]
    for r in range(3):
        for c in range(3):
            RI[r, c] = T[r, 0] * inertia[0, c] + T[r, 1] * inertia[1, c] + T[r, 2] * inertia[2, c]
    for r in range(3):
        for c in range(3):
            world_inertia[r, c] = RI[r, 0] * T[c, 0] + RI[r, 1] * T[c, 1] + RI[r, 2] * T[c, 2]


@internal_kernel
def newton_euler_terms(poses, jacobians, velocities, bias, masses, coms, inertias, gravity, links, M, h, Q, v3, m3,
                       vG):
    """``M`` (d, d), ``h`` (d,), ``Q`` (d,) by Kane's method (same meaning as
    :func:`dynamics.kernels.trace.trace_terms`). Scratch: ``v3`` (7, 3), ``m3`` (2, 3, 3),
    ``vG`` (d, 3)."""
    d = M.shape[0]
    M[:, :] = 0.0
    h[:] = 0.0
    Q[:] = 0.0
    centre, tmp, omega, v_centre, a_centre, torque, I_omega = v3[0], v3[1], v3[2], v3[3], v3[4], v3[5], v3[6]
    I = m3[0]
    for i in links:
        m = masses[i]
        centre_and_inertia(poses[i], coms[i], inertias[i], centre, I, m3[1])
        for s in range(d):
            cross(jacobians[i, s, :3], centre, tmp)
            for r in range(3):
                vG[s, r] = jacobians[i, s, 3 + r] + tmp[r]
        for r in range(3):
            omega[r] = velocities[i, r]
        cross(omega, centre, tmp)
        for r in range(3):
            v_centre[r] = velocities[i, 3 + r] + tmp[r]
        cross(bias[i, :3], centre, tmp)
        for r in range(3):
            a_centre[r] = bias[i, 3 + r] + tmp[r]
        cross(omega, v_centre, tmp)
        for r in range(3):
            a_centre[r] += tmp[r]
        for r in range(3):
            I_omega[r] = I[r, 0] * omega[0] + I[r, 1] * omega[1] + I[r, 2] * omega[2]
        cross(omega, I_omega, tmp)
        for r in range(3):
            torque[r] = I[r, 0] * bias[i, 0] + I[r, 1] * bias[i, 1] + I[r, 2] * bias[i, 2] + tmp[r]
        for s in range(d):
            ws = jacobians[i, s, :3]
            for t in range(s + 1):
                wt = jacobians[i, t, :3]
                value = m * (vG[s, 0] * vG[t, 0] + vG[s, 1] * vG[t, 1] + vG[s, 2] * vG[t, 2])
                for r in range(3):
                    value += ws[r] * (I[r, 0] * wt[0] + I[r, 1] * wt[1] + I[r, 2] * wt[2])
                M[s, t] += value
            h[s] += (m * (a_centre[0] * vG[s, 0] + a_centre[1] * vG[s, 1] + a_centre[2] * vG[s, 2])
                     + torque[0] * ws[0] + torque[1] * ws[1] + torque[2] * ws[2])
            Q[s] += m * (gravity[0] * vG[s, 0] + gravity[1] * vG[s, 1] + gravity[2] * vG[s, 2])
    for s in range(d):
        for t in range(s):
            M[t, s] = M[s, t]


@allocating_kernel
def inertia_wrench(T, velocity, acceleration, mass, com, inertia, out):
    """Rate of momentum of a link as a wrench ``(moment about the origin, force)`` (6,):
    ``F = m a_G``, ``N_G = I alpha + w x I w``, ``N_o = N_G + c x F``."""
    centre = np.empty(3)
    I = np.empty((3, 3))
    centre_and_inertia(T, com, inertia, centre, I, np.empty((3, 3)))
    tmp = np.empty(3)
    v_centre = np.empty(3)
    a_centre = np.empty(3)
    cross(velocity[:3], centre, tmp)
    for r in range(3):
        v_centre[r] = velocity[3 + r] + tmp[r]
    cross(acceleration[:3], centre, tmp)
    for r in range(3):
        a_centre[r] = acceleration[3 + r] + tmp[r]
    cross(velocity[:3], v_centre, tmp)
    force = np.empty(3)
    for r in range(3):
        force[r] = mass * (a_centre[r] + tmp[r])
    I_omega = I @ velocity[:3]
    cross(velocity[:3], I_omega, tmp)
    moment = np.empty(3)
    for r in range(3):
        moment[r] = I[r, 0] * acceleration[0] + I[r, 1] * acceleration[1] + I[r, 2] * acceleration[2] + tmp[r]
    cross(centre, force, tmp)
    for r in range(3):
        out[r] = moment[r] + tmp[r]
        out[3 + r] = force[r]
