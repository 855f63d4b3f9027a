"""Kinetic (eq. 7) and potential energy of one configuration, compiled.

``K = 1/2 sum_i tr(T_i' J_i T_i'^T)`` with ``T_i' = hat(V_i) T_i``; gravity
``P = -sum_i G T_i J_i e`` (``-sum m_i g . c_i``); pair springs ``1/2 k (q - q_free)^2``;
point-to-point springs ``1/2 k (length - free_length)^2``. Joules.
"""

from __future__ import annotations

import numpy as np

from ._compile import allocating_kernel as kernel
from loops.kernels.points import point_position

from .trace import twist_hat, world_pseudo_inertia

__all__ = ["kinetic_energy", "potential_energy", "energies"]


@kernel
def kinetic_energy(poses, velocities, J, links):
    """``1/2 sum_i tr(hat(V_i) Jw_i hat(V_i)^T)`` over ``links`` (J)."""
    total = 0.0
    Jw = np.empty((4, 4))
    hat_v = np.empty((4, 4))
    TJ = np.empty((4, 4))
    for i in links:
        world_pseudo_inertia(poses[i], J[i], Jw, TJ)
        twist_hat(velocities[i], hat_v)
        for r in range(4):
            for c in range(4):
                s = 0.0
                for k in range(4):
                    s += hat_v[r, k] * Jw[k, c]
                total += s * hat_v[r, c]
    return 0.5 * total


@kernel
def potential_energy(poses, q, J, gravity, links, loads):
    """Gravity, pair-spring and spring-damper potential (J)."""
    total = 0.0
    for i in links:
        for r in range(3):
            moment = poses[i, r, 0] * J[i, 0, 3] + poses[i, r, 1] * J[i, 1, 3] + poses[i, r, 2] * J[i, 2, 3] \
                + poses[i, r, 3] * J[i, 3, 3]
            total -= gravity[r] * moment
    for i in range(loads.spring_cols.shape[0]):
        stretch = q[loads.spring_cols[i]] - loads.spring_free[i]
        total += 0.5 * loads.spring_stiffness[i] * stretch * stretch
    a = np.empty(3)
    b = np.empty(3)
    for i in range(loads.strut_link_a.shape[0]):
        point_position(poses[loads.strut_link_a[i]], loads.strut_at_a[i], a)
        point_position(poses[loads.strut_link_b[i]], loads.strut_at_b[i], b)
        length = np.sqrt((b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2 + (b[2] - a[2]) ** 2)
        total += 0.5 * loads.strut_stiffness[i] * (length - loads.strut_free[i]) ** 2
    return total


@kernel
def energies(poses, velocities, q, J, gravity, links, loads, kinetic, potential):
    """Kinetic and potential energy (N,) at N samples (``poses`` (N, L, 4, 4), ``velocities``
    (N, L, 6), ``q`` (N, n))."""
    for k in range(poses.shape[0]):
        kinetic[k] = kinetic_energy(poses[k], velocities[k], J, links)
        potential[k] = potential_energy(poses[k], q[k], J, gravity, links, loads)
