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
* ``transform_twists``, ``point_shift_matrices``, ``lie_bracket`` and ``dexp_inverse`` serve
  the design studies' sensitivities only, over their stacked arrays, until those compute
  through the kernel library.
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
    "dexp_inverse",
    "transform_twists",
    "point_shift_matrices",
    "lie_bracket",
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



# p x (R omega) in transform_twists, padded to a twist (0, p x R omega): rows (p_(i+1), p_(i+2))
# gathered from the flat 4x4, rows ((R omega)_(i+2), (R omega)_(i+1)) from the flat (R omega, R v).
# The padding gathers T_00 (R omega)_0 twice, whose difference is 0.
_P_NEXT_AFTER = np.array([[0, 0, 0, 7, 11, 3], [0, 0, 0, 11, 3, 7]])
_W_AFTER_NEXT = np.array([[0, 0, 0, 2, 0, 1], [0, 0, 0, 1, 2, 0]])


def transform_twists(T, xi):
    """``Ad(T) xi`` without forming the 6x6: ``T (..., 4, 4)``, ``xi (..., 6)`` -> ``(..., 6)``.

    ``omega' = R omega``, ``v' = R v + p x (R omega)``.
    """
    T = np.asarray(T, dtype=float)
    xi = np.asarray(xi, dtype=float)
    # Rows (omega, v) times R^T: (R omega, R v) in one product, already in twist order.
    both = xi.reshape(xi.shape[:-1] + (2, 3)) @ T[..., :3, :3].swapaxes(-1, -2)
    rotated = both.reshape(both.shape[:-2] + (6,))
    flat = T.reshape(T.shape[:-2] + (16,))
    products = flat.take(_P_NEXT_AFTER, axis=-1) * rotated.take(_W_AFTER_NEXT, axis=-1)
    return rotated + (products[..., 0, :] - products[..., 1, :])


# [[1, 0], [-hat(c), 1]] as 36 entries: the gather of hat(c) row by row, [[0, -c2, c1], [c2, 0,
# -c0], [-c1, c0, 0]], with the opposite sign in the lower left block, zero elsewhere, plus the
# identity (the zero entries gather c0 and multiply it by 0, so they are +-0.0).
_SKEW_INDEX = np.array([0, 2, 1, 2, 0, 0, 1, 0, 0])
_SKEW_SIGN = np.array([0.0, -1.0, 1.0, 1.0, 0.0, -1.0, -1.0, 1.0, 0.0])
_SHIFT_INDEX = np.zeros((6, 6), dtype=int)
_SHIFT_SIGN = np.zeros((6, 6))
_SHIFT_INDEX[3:, :3] = _SKEW_INDEX.reshape(3, 3)
_SHIFT_SIGN[3:, :3] = -_SKEW_SIGN.reshape(3, 3)
_SHIFT_INDEX, _SHIFT_SIGN, _SHIFT_EYE = _SHIFT_INDEX.ravel(), _SHIFT_SIGN.ravel(), np.eye(6).ravel()


def point_shift_matrices(c):
    """``[[1, 0], [-hat(c), 1]]``: ``(..., 3) -> (..., 6, 6)``.

    Takes a twist (or any spatial vector) ``(omega, v)`` referred to the origin to the same
    one referred to the point ``c`` (m): ``(omega, v + omega x c)``. It is ``Ad`` of the
    translation by ``-c``.
    """
    c = np.asarray(c, dtype=float)
    return (c.take(_SHIFT_INDEX, axis=-1) * _SHIFT_SIGN + _SHIFT_EYE).reshape(c.shape[:-1] + (6, 6))


# [a, b] = (w1 x w2, w1 x v2 + v1 x w2) as one 12-wide difference of gathered products,
# (w1 x w2, w1 x v2, 0, v1 x w2), folded in half. The filler products are a0 b0 - a0 b0 = 0.
_BRACKET_A = np.array([1, 2, 0, 1, 2, 0, 0, 0, 0, 4, 5, 3]), np.array([2, 0, 1, 2, 0, 1, 0, 0, 0, 5, 3, 4])
_BRACKET_B = np.array([2, 0, 1, 5, 3, 4, 0, 0, 0, 2, 0, 1]), np.array([1, 2, 0, 4, 5, 3, 0, 0, 0, 1, 2, 0])


def lie_bracket(a, b):
    """``[a, b]`` of twists ``(..., 6)``: the vee of ``hat(a) hat(b) - hat(b) hat(a)``.

    ``(w1, v1), (w2, v2) -> (w1 x w2, w1 x v2 + v1 x w2)``; it is ``d/dt`` of a twist ``b``
    fixed in a body that moves with twist ``a``.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    d = a.take(_BRACKET_A[0], axis=-1) * b.take(_BRACKET_B[0], axis=-1)
    d -= a.take(_BRACKET_A[1], axis=-1) * b.take(_BRACKET_B[1], axis=-1)
    return d[..., :6] + d[..., 6:]


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


def _dexp_c(theta2):
    """``c(t) = 1/t^2 - (1 + cos t)/(2 t sin t)`` from ``t^2``; series below 1e-4 (error < 1e-17)."""
    theta2 = np.asarray(theta2)
    small = np.real(theta2) < 1e-4
    if not small.any():
        return _dexp_c_exact(theta2)
    series = 1.0 / 12.0 + theta2 / 720.0 + theta2 ** 2 / 30240.0
    return series if small.all() else np.where(small, series, _dexp_c_exact(np.where(small, 1.0, theta2)))


def _dexp_c_exact(theta2):
    t = np.sqrt(theta2)
    return 1.0 / theta2 - (1.0 + np.cos(t)) / (2.0 * t * np.sin(t))


def dexp_inverse(w, v, transposed=False):
    """``J_l(w)^-1 v`` (or ``J_l(w)^-T v``) for rotation vectors ``w`` and vectors ``v`` (..., 3).

    ``J_l`` is the left Jacobian of ``exp`` on SO(3): for ``R = exp(hat(w))``,
    ``R' R^T = hat(J_l(w) w')``. So ``J_l(w)^-1 omega`` is the rate of the rotation vector
    for the angular velocity ``omega`` (left increments), and ``J_l(w)^-T u`` the gradient of
    ``w . u`` along left increments. ``J_l^-1 v = v - 1/2 w x v + c w x (w x v)``, with
    ``c = 1/t^2 - (1 + cos t) / (2 t sin t)``, ``t = |w| < 2 pi``; the transpose flips the
    sign of the middle term. Complex-safe (complex-step derivatives).
    """
    w_v = cross(w, v)
    half = 0.5 * w_v if transposed else -0.5 * w_v
    return v + half + _dexp_c((w * w).sum(axis=-1))[..., None] * cross(w, w_v)
