"""Kinetic and potential energy in Pavlov's trace form (mechanism/METHOD.md, "Dynamics (7)").

For link i with absolute pose ``T_i`` (4x4, :mod:`mechanism.transforms` layout) and
pseudo-inertia ``J_i`` in its own frame (:func:`dynamics.pseudo_inertia.pseudo_inertia`):

* kinetic energy (eq. 7): ``K = 1/2 sum_i tr(T_i' J_i T_i'^T)`` with ``T_i' = hat(V_i) T_i``
  (``V_i`` the link's spatial velocity, world frame, origin-referenced);
* gravity: ``P = - sum_i G T_i J_i e`` with ``G = (g_x, g_y, g_z, 0)``, ``e = (0, 0, 0, 1)^T``,
  that is ``- sum_i m_i g . c_i``.

The formulas are the compiled ones of :mod:`dynamics.kernels.energy`; these functions take
stacked arrays.

Examples
--------
>>> import numpy as np
>>> from dynamics.energy import kinetic_energy
>>> from dynamics.pseudo_inertia import pseudo_inertia
>>> J = pseudo_inertia(2.0, (0.0, 0.0, 0.0), np.diag([0.1, 0.1, 0.1]))[None]
>>> V = np.array([[0.0, 0.0, 1.0, 3.0, 0.0, 0.0]])          # spin 1 rad/s, move 3 m/s
>>> round(float(kinetic_energy(np.eye(4)[None], V, J)), 12)  # 1/2 m v^2 + 1/2 I w^2
9.05
"""

from __future__ import annotations

import numpy as np

from loops.kernel_arrays import kernel_array

from .pseudo_inertia import pseudo_inertia

__all__ = ["link_pseudo_inertias", "kinetic_energy", "gravity_potential"]


def link_pseudo_inertias(links) -> np.ndarray:
    """Pseudo-inertia ``J`` (L, 4, 4) of every link (virtual links and the ground: massless)."""
    if not len(links):
        return np.zeros((0, 4, 4))
    masses = np.array([link.mass for link in links], dtype=float)
    coms = np.array([link.com for link in links], dtype=float).reshape(-1, 3)
    inertias = np.array([link.inertia for link in links], dtype=float).reshape(-1, 3, 3)
    return pseudo_inertia(masses, coms, inertias)


def _stacked(poses, velocities, J):
    """The arguments as the kernels take them (:func:`loops.kernel_arrays.kernel_array`: a
    result's read-only poses would compile a second version of the kernel), stacked."""
    poses = np.asarray(poses, dtype=float)
    shape = poses.shape[:-3]
    flat_poses = kernel_array(poses, (-1,) + poses.shape[-3:])
    flat_velocities = None if velocities is None else kernel_array(velocities, (-1,) + poses.shape[-3:-2] + (6,))
    links = np.arange(len(J), dtype=np.int64)
    return shape, flat_poses, flat_velocities, kernel_array(J), links


def kinetic_energy(poses, velocities, J):
    """``K = 1/2 sum_i tr(T_i' J_i T_i'^T)`` (eq. 7), J: poses (..., L, 4, 4), velocities
    (..., L, 6) ``(omega, v_o)``, J (L, 4, 4) -> (...)."""
    from .kernels.energy import kinetic_energy as kernel  # noqa: PLC0415 (kernels load on first use)

    shape, poses, velocities, J, links = _stacked(poses, velocities, J)
    return np.array([kernel(p, v, J, links) for p, v in zip(poses, velocities)]).reshape(shape)


def gravity_potential(poses, J, gravity):
    """``P = - sum_i G T_i J_i e``, J: poses (..., L, 4, 4), gravity (3,) m/s^2 -> (...)."""
    poses = np.asarray(poses, dtype=float)
    moments = np.einsum("...lij,lj->...li", poses[..., :3, :], np.asarray(J, dtype=float)[:, :, 3])
    return -np.einsum("...li,i->...", moments, np.asarray(gravity, dtype=float))
