"""Kinetic (eq. 7) and potential energy of one configuration, compiled.

``K = 1/2 sum_i tr(T_i' J_i T_i'^T)`` with ``T_i' = hat(V_i) T_i``; gravity
``P = -sum_i G T_i J_i e`` (``-sum m_i g . c_i``), and the elastic potential of the loads
(:func:`loops.kernels.loads.elastic_potential`: pair springs, point-to-point springs,
bushings). Joules.
"""

from __future__ import annotations

import numpy as np

from ._compile import allocating_kernel as kernel
from loops.kernels.loads import elastic_potential

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
    """Gravity and elastic potential (J)."""
    total = 0.0
    for i in links:
        for r in range(3):
            moment = poses[i, r, 0] * J[i, 0, 3] + poses[i, r, 1] * J[i, 1, 3] + poses[i, r, 2] * J[i, 2, 3] \
                + poses[i, r, 3] * J[i, 3, 3]
            total -= gravity[r] * moment
    return total + elastic_potential(q, poses, loads, np.empty((2, 3)))


@kernel
def energies(poses, velocities, q, J, gravity, links, loads, kinetic, potential):
    """Kinetic and potential energy (N,) at N samples (``poses`` (N, L, 4, 4), ``velocities``
    (N, L, 6), ``q`` (N, n))."""
    for k in range(poses.shape[0]):
        kinetic[k] = kinetic_energy(poses[k], velocities[k], J, links)
        potential[k] = potential_energy(poses[k], q[k], J, gravity, links, loads)
