"""Points on links: positions (METHOD.md eq. 5), velocities and accelerations (eq. 6).

A point with coordinates ``r`` in link i's frame is at ``R = T_0i r``. With the link's
spatial velocity ``(omega, v_o)`` (``T_0i' = hat(V) T_0i``) and acceleration
``(omega', v_o')`` (``T_0i'' = (hat(V') + hat(V)^2) T_0i``):

    R'  = omega x R + v_o
    R'' = omega' x R + v_o' + omega x R'

All functions broadcast over leading axes (a sweep's N positions).
"""

from __future__ import annotations

import numpy as np

from mechanism.transforms import cross

__all__ = ["point_positions", "point_velocities", "point_accelerations"]


def point_positions(poses, r):
    """``T r``: poses ``(..., 4, 4)``, link-frame coordinates ``r`` (3,) m -> ``(..., 3)`` m, global."""
    r = np.asarray(r, dtype=float)
    return np.einsum("...ij,j->...i", poses[..., :3, :3], r) + poses[..., :3, 3]


def point_velocities(positions, link_velocities):
    """``omega x R + v_o``: positions ``(..., 3)``, spatial velocities ``(..., 6)`` -> m/s ``(..., 3)``."""
    return cross(link_velocities[..., :3], positions) + link_velocities[..., 3:]


def point_accelerations(positions, velocities, link_velocities, link_accelerations):
    """``omega' x R + v_o' + omega x R'`` -> m/s^2 ``(..., 3)``."""
    return (cross(link_accelerations[..., :3], positions) + link_accelerations[..., 3:]
            + cross(link_velocities[..., :3], velocities))
