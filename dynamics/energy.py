"""Kinetic and potential energy in Pavlov's trace form (METHOD.md, "Dynamics (7)").

For link i with absolute pose ``T_i`` (4x4, :mod:`mechanism.transforms` layout) and
pseudo-inertia ``J_i`` in its own frame (:func:`dynamics.pseudo_inertia.pseudo_inertia`):

* kinetic energy (eq. 7): ``K = 1/2 sum_i tr(T_i' J_i T_i'^T)`` with ``T_i' = hat(V_i) T_i``
  (``V_i`` the link's spatial velocity, world frame, origin-referenced);
* gravity: ``P = - sum_i G T_i J_i e`` with ``G = (g_x, g_y, g_z, 0)``, ``e = (0, 0, 0, 1)^T``,
  that is ``- sum_i m_i g . c_i``; its generalized force is ``-dP/du_s = sum_i G C_is J_i e``
  with ``C_is = dT_i/du_s``;
* pair springs: ``1/2 k (q - q_free)^2`` in each sprung pair variable;
* point-to-point springs: ``1/2 k (length - free_length)^2``.

A link's frame is the global frame at the design pose, so its centre of mass and central
inertia tensor as given (global, design pose) are its link-frame values.

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

from mechanism.transforms import twist_matrix

from .pseudo_inertia import pseudo_inertia

__all__ = [
    "link_pseudo_inertias",
    "kinetic_energy",
    "gravity_potential",
    "gravity_generalized_forces",
    "pair_spring_potential",
    "spring_damper_potential",
]


def link_pseudo_inertias(links) -> np.ndarray:
    """Pseudo-inertia ``J`` (L, 4, 4) of every link (virtual links and the ground: massless).

    Parameters
    ----------
    links : sequence of mechanism.specs.LinkSpec (mass kg, com m, inertia kg m^2 about the
        centre of mass; global at the design pose = the link frame)
    """
    if not len(links):
        return np.zeros((0, 4, 4))
    masses = np.array([link.mass for link in links], dtype=float)
    coms = np.array([link.com for link in links], dtype=float).reshape(-1, 3)
    inertias = np.array([link.inertia for link in links], dtype=float).reshape(-1, 3, 3)
    return pseudo_inertia(masses, coms, inertias)


def kinetic_energy(poses, velocities, J):
    """``K = 1/2 sum_i tr(T_i' J_i T_i'^T)`` (eq. 7), J.

    Parameters
    ----------
    poses : (..., L, 4, 4) link poses ``T_i``
    velocities : (..., L, 6) spatial velocities ``(omega, v_o)``, world frame, origin-referenced
    J : (L, 4, 4) pseudo-inertias in the link frames

    Returns
    -------
    ndarray, shape (...)
    """
    T_dot = twist_matrix(velocities) @ poses
    return 0.5 * np.einsum("...lij,ljk,...lik->...", T_dot, J, T_dot)


def gravity_potential(poses, J, gravity):
    """``P = - sum_i G T_i J_i e`` (METHOD.md), J; zero with every centre of mass at the origin.

    ``poses`` (..., L, 4, 4); ``gravity`` (3,) m/s^2, global. ``T_i J_i e`` is the link's first
    mass moment ``(m_i c_i, m_i)`` in the world frame.
    """
    moments = np.einsum("...lij,lj->...li", poses[..., :3, :], J[:, :, 3])
    return -np.einsum("...li,i->...", moments, np.asarray(gravity, dtype=float))


def gravity_generalized_forces(C_J, gravity):
    """``Q_s = sum_i G C_is J_i e`` (= -dP/du_s), from the products ``C_is J_i`` (L, d, 4, 4)
    (or ``C_is J_i T_i^T``: its last column is the same, since ``T_i^T e = e``)."""
    return np.einsum("lsi,i->s", C_J[:, :, :3, 3], np.asarray(gravity, dtype=float))


def pair_spring_potential(loads, q):
    """``sum 1/2 k (q - q_free)^2`` over the pair springs of ``loads`` (:class:`dynamics.loads.Loads`)."""
    q = np.asarray(q, dtype=float)
    if not len(loads.spring_columns):
        return np.zeros(q.shape[:-1])
    stretch = q[..., loads.spring_columns] - loads.spring_free
    return 0.5 * np.sum(loads.spring_stiffness * stretch**2, axis=-1)


def spring_damper_potential(loads, poses):
    """``sum 1/2 k (length - free_length)^2`` over the point-to-point spring-dampers, J."""
    if not loads.strut_count:
        return np.zeros(np.shape(poses)[:-3])
    Ta, Tb = poses[..., loads.strut_link_a, :, :], poses[..., loads.strut_link_b, :, :]
    a = np.einsum("...lij,lj->...li", Ta[..., :3, :3], loads.strut_point_a) + Ta[..., :3, 3]
    b = np.einsum("...lij,lj->...li", Tb[..., :3, :3], loads.strut_point_b) + Tb[..., :3, 3]
    length = np.linalg.norm(b - a, axis=-1)
    return 0.5 * np.sum(loads.strut_stiffness * (length - loads.strut_free_length) ** 2, axis=-1)
