"""Homogeneous 4x4 transforms: the builders the model needs, and the one place that fixes the layout.

The SO(3)/SE(3) maps the analyses compute with (exponential, logarithm and its Jacobian,
twist transforms and brackets) are the compiled kernels' (:mod:`loops.kernels.rotations`,
:mod:`loops.kernels.rigid`): the model builds frames and never needs them.

Layout
------
Standard ``T = [[R, p], [0, 0, 0, 1]]`` acting on column vectors ``(x, y, z, 1)``.
Pavlov writes the homogeneous coordinate first, ``(1, x, y, z)``; his matrices are
the same operators with rows and columns permuted: ``T_pavlov = P T P^T`` with
``P`` the cyclic permutation that moves index 3 to 0 (:func:`to_pavlov`,
:func:`from_pavlov`). Nothing else in kinematrix uses his layout.

Names and conventions
---------------------
* ``T_a_b`` is the pose of frame b in frame a: ``r_a = T_a_b r_b`` (mechanism/METHOD.md eq. 1).
* A twist is the 6-vector ``xi = (omega, v)``: angular velocity, then the velocity
  of the body point that is momentarily at the origin of the frame the twist is
  expressed in. Its 4x4 form ``hat(xi) = [[hat(omega), v], [0, 0]]`` is Pavlov's
  ``Q`` operator: for a pair whose matrix is ``A(q)``, ``dA/dq = hat(xi) A``.
* Every function accepts stacked arrays ``(..., 4, 4)``, ``(..., 3)``, ``(..., 6)``.
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "rotation_about_x",
    "rotation_about_y",
    "rotation_about_z",
    "translation",
    "translation_along_z",
    "homogeneous",
    "inverse",
    "cross",
    "frame_from_points",
    "frame_from_axis",
    "dh_transform",
    "to_pavlov",
    "from_pavlov",
]

_PAVLOV_ORDER = np.array([3, 0, 1, 2])
_BOTTOM_ROW = np.array([0.0, 0.0, 0.0, 1.0])


def _eye4(shape):
    out = np.zeros(shape + (4, 4))
    out[..., 0, 0] = out[..., 1, 1] = out[..., 2, 2] = out[..., 3, 3] = 1.0
    return out


def _planar_rotation(angle, i, j):
    angle = np.asarray(angle, dtype=float)
    c, s = np.cos(angle), np.sin(angle)
    T = _eye4(angle.shape)
    T[..., i, i] = c
    T[..., j, j] = c
    T[..., i, j] = -s
    T[..., j, i] = s
    return T


def rotation_about_x(angle):
    """``Rot_x(angle)``, shape ``angle.shape + (4, 4)``; angle in rad, right-handed."""
    return _planar_rotation(angle, 1, 2)


def rotation_about_y(angle):
    """``Rot_y(angle)``, shape ``angle.shape + (4, 4)``; angle in rad, right-handed."""
    return _planar_rotation(angle, 2, 0)


def rotation_about_z(angle):
    """``Rot_z(angle)``, shape ``angle.shape + (4, 4)``; angle in rad, right-handed."""
    return _planar_rotation(angle, 0, 1)


def translation(p):
    """Pure translation by ``p`` (shape ``(..., 3)``, m); returns ``(..., 4, 4)``."""
    p = np.asarray(p, dtype=float)
    T = _eye4(p.shape[:-1])
    T[..., :3, 3] = p
    return T


def translation_along_z(s):
    """``Trans_z(s)``: slide ``s`` (m) along Z; shape ``s.shape + (4, 4)``."""
    s = np.asarray(s, dtype=float)
    T = _eye4(s.shape)
    T[..., 2, 3] = s
    return T


def homogeneous(R, p):
    """``[[R, p], [0, 1]]`` from rotations ``(..., 3, 3)`` and positions ``(..., 3)``."""
    R = np.asarray(R, dtype=float)
    p = np.asarray(p, dtype=float)
    shape = np.broadcast_shapes(R.shape[:-2], p.shape[:-1])
    T = _eye4(shape)
    T[..., :3, :3] = R
    T[..., :3, 3] = p
    return T


def inverse(T):
    """Inverse of rigid transforms ``(..., 4, 4)``: ``[[R^T, -R^T p], [0, 1]]``."""
    T = np.asarray(T, dtype=float)
    # The transpose already has R^T in place; its bottom row (p^T, 1) becomes (0, 0, 0, 1).
    out = T.swapaxes(-1, -2).copy()
    out[..., :3, 3:] = out[..., :3, :3] @ -T[..., :3, 3:]
    out[..., 3, :] = _BOTTOM_ROW
    return out


# Cross products by components, ``(a x b)_i = a_(i+1) b_(i+2) - a_(i+2) b_(i+1)``. The
# products are gathered with ``ndarray.take``, which costs a fraction of fancy indexing or
# ``np.take``: these functions run thousands of times per simulation on tiny arrays, where
# the count of numpy calls is the cost.
_NEXT = np.array([1, 2, 0])
_AFTER = np.array([2, 0, 1])


def cross(a, b):
    """``a x b`` over the last axis of ``(..., 3)`` arrays (broadcasting); real, or complex
    (complex-step derivatives)."""
    a = np.asarray(a)
    b = np.asarray(b)
    if a.dtype.kind not in "fc":
        a = a.astype(float)
    out = a.take(_NEXT, axis=-1) * b.take(_AFTER, axis=-1)
    out -= a.take(_AFTER, axis=-1) * b.take(_NEXT, axis=-1)
    return out



def frame_from_points(origin, on_x, on_z):
    """Pavlov's frame from three global points (mechanism/METHOD.md, "Frames from points").

    ``e_x = (x - o)/|x - o|``, ``e_z = (z - o)/|z - o|``, ``e_y = e_z x e_x``; ``e_x`` is made
    exactly orthogonal to ``e_z`` (Gram-Schmidt) so drawings with small errors still give a
    rigid frame. Points ``(..., 3)``; returns ``T_0k`` ``(..., 4, 4)``.
    """
    o = np.asarray(origin, dtype=float)
    ez = np.asarray(on_z, dtype=float) - o
    ez = ez / np.linalg.norm(ez, axis=-1, keepdims=True)
    ex = np.asarray(on_x, dtype=float) - o
    ex = ex - ez * np.sum(ex * ez, axis=-1, keepdims=True)
    ex = ex / np.linalg.norm(ex, axis=-1, keepdims=True)
    return homogeneous(np.stack([ex, cross(ez, ex), ez], axis=-1), o)


def frame_from_axis(origin, axis, x_hint=None):
    """Frame with origin ``origin`` and Z along ``axis`` (global, any length > 0).

    X is ``x_hint`` projected normal to Z when given; otherwise the deterministic choice is
    the global axis (X, then Y, then Z) least parallel to Z, projected. Vectors ``(..., 3)``;
    returns ``(..., 4, 4)``.
    """
    ez = np.asarray(axis, dtype=float)
    ez = ez / np.linalg.norm(ez, axis=-1, keepdims=True)
    if x_hint is None:
        x_hint = np.eye(3)[np.argmin(np.abs(ez), axis=-1)]
    hint = np.asarray(x_hint, dtype=float)
    origin = np.asarray(origin, dtype=float)
    return frame_from_points(origin, origin + hint, origin + ez)


def dh_transform(a=0.0, alpha=0.0, d=0.0, theta=0.0):
    """Denavit-Hartenberg link transform ``Rot_z(theta) Trans_z(d) Trans_x(a) Rot_x(alpha)``.

    Classic convention: from pair frame i-1 to pair frame i. Lengths in m, angles in rad.
    """
    T = rotation_about_z(theta) @ translation_along_z(d)
    return T @ translation(np.array([a, 0.0, 0.0])) @ rotation_about_x(alpha)


def to_pavlov(T):
    """Pavlov's layout (homogeneous coordinate first) of standard transforms ``(..., 4, 4)``."""
    T = np.asarray(T)
    return T[..., _PAVLOV_ORDER, :][..., :, _PAVLOV_ORDER]


def from_pavlov(T):
    """Standard layout from Pavlov's ``(1, x, y, z)`` layout; inverse of :func:`to_pavlov`."""
    inv = np.argsort(_PAVLOV_ORDER)
    T = np.asarray(T)
    return T[..., inv, :][..., :, inv]
