"""Pseudo-inertia matrices of rigid links and the trace form of the kinetic energy.

The pseudo-inertia matrix of a link is the second moment of its mass distribution in
homogeneous coordinates (mechanism/METHOD.md, "Dynamics (7)"): with ``r = (x, y, z, 1)`` a body
point in the link frame,

.. math::

    J = \\int r r^T \\, dm
      = \\begin{bmatrix} S + m c c^T & m c \\\\ m c^T & m \\end{bmatrix},
    \\qquad S = \\tfrac12 \\operatorname{tr}(I_c) \\, 1 - I_c,

where ``m`` is the mass, ``c`` the centre of mass and ``I_c`` the inertia tensor about
the centre of mass, both in link axes, and ``S = \\int (r - c)(r - c)^T dm`` the central
second moment. The layout is the standard one of :mod:`mechanism.transforms` (the
homogeneous coordinate last), so the mass sits at ``J[3, 3]``; Pavlov's matrices carry
it at ``J[0, 0]`` (:func:`mechanism.transforms.to_pavlov` converts).

A link moving with absolute pose ``T(t)`` has kinetic energy ``K = 1/2 tr(T' J T'^T)``
(Pavlov eq. 7, :func:`kinetic_energy_trace`). Every function accepts stacked inputs
(leading axes broadcast) so a whole mechanism or a whole time history is one call.

Examples
--------
>>> import numpy as np
>>> J = pseudo_inertia(2.0, (0.5, 0.0, 0.0), np.diag([0.0, 1 / 6, 1 / 6]))
>>> float(J[3, 3]), float(J[0, 3])
(2.0, 1.0)
>>> mass, com, inertia = inertia_from_pseudo(J)
>>> float(mass), com.tolist()
(2.0, [0.5, 0.0, 0.0])
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "pseudo_inertia",
    "inertia_from_pseudo",
    "transform_pseudo_inertia",
    "kinetic_energy_trace",
]


def _as_float(value, name: str) -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name}: expected numbers, got {value!r}") from None
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name}: non-finite entry")
    return arr


def _require_trailing(arr: np.ndarray, shape: tuple, name: str, expected: str) -> None:
    if arr.ndim < len(shape) or arr.shape[-len(shape):] != shape:
        raise ValueError(f"{name}: expected shape {expected}, got {arr.shape}")


def pseudo_inertia(mass, com, inertia) -> np.ndarray:
    """Pseudo-inertia matrix ``J`` of rigid bodies (mechanism/METHOD.md, "Dynamics (7)").

    Parameters
    ----------
    mass : float or ndarray, shape (...), kg
        Mass; zero is allowed (a massless link, ``J`` is then ``[[S, 0], [0, 0]]``).
    com : ndarray, shape (..., 3), m
        Centre of mass in the frame ``J`` is wanted in (the link frame).
    inertia : ndarray, shape (..., 3, 3), kg m^2
        Inertia tensor about the centre of mass, in the axes of that frame.

    Returns
    -------
    ndarray, shape (..., 4, 4), float64
        ``J = [[S + m c c^T, m c], [m c^T, m]]`` with ``S = tr(I_c)/2 * 1 - I_c``
        (kg, kg m, kg m^2 blocks); the leading axes broadcast over the three inputs.

    Raises
    ------
    ValueError
        Wrong trailing shape, non-finite entry, negative mass or a non-symmetric
        inertia tensor; the message names the argument.

    Notes
    -----
    ``S = \\int (r - c)(r - c)^T dm`` because ``I_c = tr(S) 1 - S`` and hence
    ``tr(I_c) = 2 tr(S)``. Physically admissible inputs (principal moments obeying
    the triangle inequality) give a positive semidefinite ``J``.
    """
    m = _as_float(mass, "mass")
    c = _as_float(com, "com")
    inertia_c = _as_float(inertia, "inertia")
    _require_trailing(c, (3,), "com", "(..., 3)")
    _require_trailing(inertia_c, (3, 3), "inertia", "(..., 3, 3)")
    if np.any(m < 0):
        raise ValueError(f"mass: must be >= 0, got {m.min()!r}")
    scale = max(float(np.abs(inertia_c).max(initial=0.0)), 1e-300)
    if not np.allclose(inertia_c, np.swapaxes(inertia_c, -1, -2), rtol=0.0, atol=1e-12 * scale):
        raise ValueError("inertia: the inertia tensor is not symmetric")

    shape = np.broadcast_shapes(m.shape, c.shape[:-1], inertia_c.shape[:-2])
    m = np.broadcast_to(m, shape)
    c = np.broadcast_to(c, shape + (3,))
    inertia_c = np.broadcast_to(inertia_c, shape + (3, 3))

    half_trace = 0.5 * np.trace(inertia_c, axis1=-2, axis2=-1)
    central_second_moment = half_trace[..., None, None] * np.eye(3) - inertia_c
    first_moment = m[..., None] * c  # m c, kg m

    J = np.zeros(shape + (4, 4))
    J[..., :3, :3] = central_second_moment + first_moment[..., :, None] * c[..., None, :]
    J[..., :3, 3] = first_moment
    J[..., 3, :3] = first_moment
    J[..., 3, 3] = m
    return J


def inertia_from_pseudo(J):
    """Mass, centre of mass and central inertia tensor from pseudo-inertia matrices.

    The inverse of :func:`pseudo_inertia`.

    Parameters
    ----------
    J : ndarray, shape (..., 4, 4)
        Pseudo-inertia matrices, standard layout (mass at ``J[..., 3, 3]``).

    Returns
    -------
    mass : ndarray, shape (...), kg
    com : ndarray, shape (..., 3), m
        ``J[:3, 3] / m``; zeros where the mass is zero.
    inertia : ndarray, shape (..., 3, 3), kg m^2
        About the centre of mass: ``I_c = tr(S) 1 - S`` with
        ``S = J[:3, :3] - m c c^T`` (for zero mass ``S = J[:3, :3]``).

    Raises
    ------
    ValueError
        Wrong trailing shape, non-finite entries or a negative mass.
    """
    J = _as_float(J, "J")
    _require_trailing(J, (4, 4), "J", "(..., 4, 4)")
    mass = J[..., 3, 3].copy()
    if np.any(mass < 0):
        raise ValueError(f"J: negative mass J[3, 3] = {mass.min()!r}")
    first_moment = J[..., :3, 3]
    massive = mass > 0
    safe_mass = np.where(massive, mass, 1.0)
    com = np.where(massive[..., None], first_moment / safe_mass[..., None], 0.0)
    central_second_moment = J[..., :3, :3] - mass[..., None, None] * (com[..., :, None] * com[..., None, :])
    trace = np.trace(central_second_moment, axis1=-2, axis2=-1)
    inertia = trace[..., None, None] * np.eye(3) - central_second_moment
    return mass, com, inertia


def transform_pseudo_inertia(transform, J) -> np.ndarray:
    """Pseudo-inertia expressed in another frame: ``J_a = T_a_b J_b T_a_b^T``.

    Parameters
    ----------
    transform : ndarray, shape (..., 4, 4)
        ``T_a_b``, the pose of frame b (in which ``J`` is given) in frame a, so that a
        body point's coordinates map as ``r_a = T_a_b r_b`` (mechanism/METHOD.md eq. 1).
    J : ndarray, shape (..., 4, 4)
        Pseudo-inertia in frame b.

    Returns
    -------
    ndarray, shape (..., 4, 4)
        ``\\int r_a r_a^T dm`` in frame a. With ``T`` a link's absolute pose this is the
        link's pseudo-inertia in ground axes; for a pure translation it is the
        parallel-axis theorem in homogeneous form.
    """
    T = _as_float(transform, "transform")
    J = _as_float(J, "J")
    _require_trailing(T, (4, 4), "transform", "(..., 4, 4)")
    _require_trailing(J, (4, 4), "J", "(..., 4, 4)")
    return T @ J @ np.swapaxes(T, -1, -2)


def kinetic_energy_trace(T_dot, J) -> np.ndarray:
    """Kinetic energy ``K = 1/2 tr(T' J T'^T)`` of rigid links (Pavlov eq. 7).

    Parameters
    ----------
    T_dot : ndarray, shape (..., 4, 4)
        Time derivative of each link's absolute pose ``T`` (1/s and m/s blocks), for
        instance ``hat(V) T`` with ``V`` the spatial twist in ground axes.
    J : ndarray, shape (..., 4, 4)
        Pseudo-inertia of each link in its own frame (:func:`pseudo_inertia`).

    Returns
    -------
    ndarray, shape (...), J (joule)
        One energy per stacked link/sample; sum over the link axis for a mechanism.

    Notes
    -----
    A particle at ``r`` (link frame) moves with ``R' = T' r``, so
    ``dK = 1/2 |R'|^2 dm = 1/2 tr(T' r r^T T'^T) dm``; integrating over the body gives
    ``1/2 tr(T' J T'^T) = 1/2 m v_c^2 + 1/2 w^T I_c w``.
    """
    T_dot = _as_float(T_dot, "T_dot")
    J = _as_float(J, "J")
    _require_trailing(T_dot, (4, 4), "T_dot", "(..., 4, 4)")
    _require_trailing(J, (4, 4), "J", "(..., 4, 4)")
    return 0.5 * np.einsum("...ij,...jk,...ik->...", T_dot, J, T_dot)
