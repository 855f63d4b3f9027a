"""Points on links: positions (METHOD.md eq. 5), velocities and accelerations (eq. 6), compiled.

A point with coordinates ``r`` in link i's frame is at ``R = T_0i r``. With the link's
spatial velocity ``V = (omega, v_o)`` (``T_0i' = hat(V) T_0i``) and acceleration
``A = (omega', v_o')`` (``T_0i'' = (hat(A) + hat(V)^2) T_0i``):

    R'  = omega x R + v_o
    R'' = omega' x R + v_o' + omega x R'

The one implementation of these equations: loads, energies, Kane's form, pair reactions and
the trajectory records all call it.
"""

from __future__ import annotations

import numpy as np

from ._compile import allocating_kernel, kernel

__all__ = ["point_position", "point_velocity", "point_acceleration", "point_trajectory"]


@kernel
def point_position(T, r, out):
    """``out = T r`` (3,), m, global (eq. 5)."""
    for i in range(3):
        out[i] = T[i, 0] * r[0] + T[i, 1] * r[1] + T[i, 2] * r[2] + T[i, 3]


@kernel
def point_velocity(position, V, out):
    """``out = omega x R + v_o`` (3,), m/s (eq. 6)."""
    out[0] = V[1] * position[2] - V[2] * position[1] + V[3]
    out[1] = V[2] * position[0] - V[0] * position[2] + V[4]
    out[2] = V[0] * position[1] - V[1] * position[0] + V[5]


@kernel
def point_acceleration(position, velocity, V, A, out):
    """``out = omega' x R + v_o' + omega x R'`` (3,), m/s^2."""
    out[0] = A[1] * position[2] - A[2] * position[1] + A[3] + V[1] * velocity[2] - V[2] * velocity[1]
    out[1] = A[2] * position[0] - A[0] * position[2] + A[4] + V[2] * velocity[0] - V[0] * velocity[2]
    out[2] = A[0] * position[1] - A[1] * position[0] + A[5] + V[0] * velocity[1] - V[1] * velocity[0]


@allocating_kernel
def point_trajectory(T, V, A, r, order, out):
    """Position (``order`` 0), velocity (1) or acceleration (2) of the point ``r`` (link frame) at
    each of N configurations of its link: ``T`` (N, 4, 4), ``V``, ``A`` (N, 6) -> ``out`` (N, 3)."""
    position = np.empty(3)
    velocity = np.empty(3)
    for k in range(T.shape[0]):
        point_position(T[k], r, position)
        if order == 0:
            out[k] = position
            continue
        point_velocity(position, V[k], velocity)
        if order == 1:
            out[k] = velocity
            continue
        point_acceleration(position, velocity, V[k], A[k], out[k])


@kernel
def positions_of(T, r, out):
    """``out[k] = T[k] r[k]`` for N poses (N, 4, 4) and link-frame points (N, 3) -> (N, 3)."""
    for k in range(T.shape[0]):
        point_position(T[k], r[k], out[k])


@kernel
def velocities_of(positions, V, out):
    """Eq. 6 at N positions (N, 3) with link velocities (N, 6) -> (N, 3)."""
    for k in range(positions.shape[0]):
        point_velocity(positions[k], V[k], out[k])


@kernel
def accelerations_of(positions, velocities, V, A, out):
    """Point accelerations at N positions -> (N, 3)."""
    for k in range(positions.shape[0]):
        point_acceleration(positions[k], velocities[k], V[k], A[k], out[k])
