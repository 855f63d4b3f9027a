"""Lagrange's equations in Pavlov's trace form (METHOD.md, "Dynamics (7)"), compiled.

With the driven coordinates ``d`` and the dependent pair variables eliminated through the
closure, each link pose is ``T_i(d)`` and

    C_is = dT_i/dd_s = hat(V_i^(s)) T_i            (V_i^(s): the link's partial twist)
    K    = 1/2 sum_i tr(T_i' J_i T_i'^T) = 1/2 sum_{s,t} M_st d_s' d_t'           (7)
    M_st = sum_i tr(C_is J_i C_it^T)

and for each coordinate ``d/dt dK/dd_s' - dK/dd_s = sum_i tr(C_is J_i T_i''^T)``, so with
``T_i'' = sum_t C_it d_t'' + (hat(A_i^0) + hat(V_i)^2) T_i`` the velocity-product terms are
``h_s = sum_i tr(C_is J_i ((hat(A_i^0) + hat(V_i)^2) T_i)^T)``. Gravity enters through
``P = -sum_i G T_i J_i e``: ``Q_s = sum_i G C_is J_i e``. Each trace is taken with the
world pseudo-inertia ``Jw_i = T_i J_i T_i^T`` (``C_is J_i C_it^T`` = ``hat(V^s) Jw hat(V^t)^T``),
so each link's pose enters once. Nothing here uses centres of mass or inertia tensors:
:mod:`.kane` does, and the two must agree.
"""

from __future__ import annotations


from ._compile import inline_kernel, internal_kernel

__all__ = ["twist_hat", "world_pseudo_inertia", "trace_terms"]


@inline_kernel
def twist_hat(xi, out):
    """Pavlov's Q operator of a twist: ``out = [[hat(omega), v], [0, 0]]`` (4, 4)."""
    out[:, :] = 0.0
    out[0, 1] = -xi[2]
    out[0, 2] = xi[1]
    out[1, 0] = xi[2]
    out[1, 2] = -xi[0]
    out[2, 0] = -xi[1]
    out[2, 1] = xi[0]
    out[0, 3] = xi[3]
    out[1, 3] = xi[4]
    out[2, 3] = xi[5]


@inline_kernel
def world_pseudo_inertia(T, J, out, TJ):
    """``out = T J T^T`` (4, 4): the pseudo-inertia in world axes (``TJ``: 4x4 scratch)."""
    for i in range(4):
        for j in range(4):
            s = 0.0
            for k in range(4):
                s += T[i, k] * J[k, j]
            TJ[i, j] = s
    for i in range(4):
        for j in range(4):
            s = 0.0
            for k in range(4):
                s += TJ[i, k] * T[j, k]
            out[i, j] = s


@internal_kernel
def trace_terms(poses, jacobians, velocities, bias, J, gravity, links, M, h, Q, m4, partial, CJ):
    """Mass matrix ``M`` (d, d), velocity-product terms ``h`` (d,) and gravity forces ``Q`` (d,).

    ``poses`` (L, 4, 4); ``jacobians`` (L, d, 6) partial twists; ``velocities``, ``bias``
    (L, 6) link velocities and accelerations at zero independent accelerations; ``J``
    (L, 4, 4) link-frame pseudo-inertias; ``gravity`` (3,) m/s^2; ``links`` the links with
    mass. Units: kg, kg m, kg m^2 entries; N, N m. Scratch: ``m4`` (5, 4, 4), ``partial`` and
    ``CJ`` (d, 4, 4).
    """
    d = M.shape[0]
    M[:, :] = 0.0
    h[:] = 0.0
    Q[:] = 0.0
    Jw, hat_v, hat_a, acceleration = m4[0], m4[1], m4[2], m4[3]
    for i in links:
        world_pseudo_inertia(poses[i], J[i], Jw, m4[4])
        twist_hat(velocities[i], hat_v)
        twist_hat(bias[i], hat_a)
        for r in range(4):
            for c in range(4):
                s = hat_a[r, c]
                for k in range(4):
                    s += hat_v[r, k] * hat_v[k, c]
                acceleration[r, c] = s
        for s_ in range(d):
            twist_hat(jacobians[i, s_], partial[s_])
            for r in range(4):
                for c in range(4):
                    value = 0.0
                    for k in range(4):
                        value += partial[s_, r, k] * Jw[k, c]
                    CJ[s_, r, c] = value
        for s_ in range(d):
            for t in range(s_ + 1):
                value = 0.0
                for r in range(4):
                    for c in range(4):
                        value += CJ[s_, r, c] * partial[t, r, c]
                M[s_, t] += value
            value = 0.0
            for r in range(4):
                for c in range(4):
                    value += CJ[s_, r, c] * acceleration[r, c]
            h[s_] += value
            Q[s_] += gravity[0] * CJ[s_, 0, 3] + gravity[1] * CJ[s_, 1, 3] + gravity[2] * CJ[s_, 2, 3]
    for s_ in range(d):
        for t in range(s_):
            M[t, s_] = M[s_, t]
