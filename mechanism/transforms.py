"""Homogeneous 4x4 transforms, twists and the SO(3)/SE(3) exponential and logarithm.

The one place that fixes the matrix layout for the whole package.

Layout
------
Standard ``T = [[R, p], [0, 0, 0, 1]]`` acting on column vectors ``(x, y, z, 1)``.
Pavlov writes the homogeneous coordinate first, ``(1, x, y, z)``; his matrices are
the same operators with rows and columns permuted: ``T_pavlov = P T P^T`` with
``P`` the cyclic permutation that moves index 3 to 0 (:func:`to_pavlov`,
:func:`from_pavlov`). Nothing else in kinematrix uses his layout.

Names and conventions
---------------------
* ``T_a_b`` is the pose of frame b in frame a: ``r_a = T_a_b r_b`` (METHOD.md eq. 1).
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
    "skew",
    "unskew",
    "twist_matrix",
    "twist_vector",
    "adjoint",
    "transform_twists",
    "lie_bracket",
    "exp_so3",
    "log_so3",
    "frame_from_points",
    "frame_from_axis",
    "dh_transform",
    "to_pavlov",
    "from_pavlov",
]

_PAVLOV_ORDER = np.array([3, 0, 1, 2])
_BOTTOM_ROW = np.array([0.0, 0.0, 0.0, 1.0])
# (row, column) pairs of a 3x3 matrix's antisymmetric part: unskew(S)_i = (S[a_i, b_i] - S[b_i, a_i]) / 2
_SKEW_A, _SKEW_B = np.array([2, 0, 1]), np.array([1, 2, 0])


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
    out = np.empty_like(T)
    Rt = np.swapaxes(T[..., :3, :3], -1, -2)
    out[..., :3, :3] = Rt
    out[..., :3, 3:] = -(Rt @ T[..., :3, 3:])
    out[..., 3, :] = _BOTTOM_ROW
    return out


def cross(a, b):
    """``a x b`` over the last axis of ``(..., 3)`` arrays (broadcasting).

    Written out by components: ``np.cross`` spends most of its time moving axes, and this is
    on the solver's hot path.
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    a0, a1, a2 = a[..., 0], a[..., 1], a[..., 2]
    b0, b1, b2 = b[..., 0], b[..., 1], b[..., 2]
    out = np.empty(a.shape if a.shape == b.shape else np.broadcast_shapes(a.shape, b.shape))
    out[..., 0] = a1 * b2 - a2 * b1
    out[..., 1] = a2 * b0 - a0 * b2
    out[..., 2] = a0 * b1 - a1 * b0
    return out


def skew(w):
    """``hat(w)``: the 3x3 skew matrix with ``hat(w) x = w x x``; ``(..., 3) -> (..., 3, 3)``."""
    w = np.asarray(w, dtype=float)
    S = np.zeros(w.shape[:-1] + (3, 3))
    S[..., 0, 1] = -w[..., 2]
    S[..., 0, 2] = w[..., 1]
    S[..., 1, 0] = w[..., 2]
    S[..., 1, 2] = -w[..., 0]
    S[..., 2, 0] = -w[..., 1]
    S[..., 2, 1] = w[..., 0]
    return S


def unskew(S):
    """Inverse of :func:`skew` (antisymmetric part): ``(..., 3, 3) -> (..., 3)``."""
    S = np.asarray(S, dtype=float)
    return 0.5 * (S[..., _SKEW_A, _SKEW_B] - S[..., _SKEW_B, _SKEW_A])


def twist_matrix(xi):
    """Pavlov's ``Q`` operator of a twist: ``(..., 6) -> (..., 4, 4)``, ``[[hat(w), v], [0, 0]]``."""
    xi = np.asarray(xi, dtype=float)
    Q = np.zeros(xi.shape[:-1] + (4, 4))
    Q[..., :3, :3] = skew(xi[..., :3])
    Q[..., :3, 3] = xi[..., 3:]
    return Q


def twist_vector(Q):
    """Inverse of :func:`twist_matrix`: ``(..., 4, 4) -> (..., 6)``."""
    Q = np.asarray(Q, dtype=float)
    return np.concatenate([unskew(Q[..., :3, :3]), Q[..., :3, 3]], axis=-1)


def adjoint(T):
    """Adjoint ``Ad(T)`` (6x6, for twists ``(omega, v)``): ``hat(Ad(T) xi) = T hat(xi) T^-1``."""
    T = np.asarray(T, dtype=float)
    R = T[..., :3, :3]
    Ad = np.zeros(T.shape[:-2] + (6, 6))
    Ad[..., :3, :3] = R
    Ad[..., 3:, 3:] = R
    Ad[..., 3:, :3] = skew(T[..., :3, 3]) @ R
    return Ad


def transform_twists(T, xi):
    """``Ad(T) xi`` without forming the 6x6: ``T (..., 4, 4)``, ``xi (..., 6)`` -> ``(..., 6)``.

    ``omega' = R omega``, ``v' = R v + p x (R omega)``.
    """
    R = T[..., :3, :3]
    p = T[..., :3, 3]
    both = R @ np.stack([xi[..., :3], xi[..., 3:]], axis=-1)  # (..., 3, 2): R omega, R v
    w = both[..., 0]
    return np.concatenate([w, both[..., 1] + cross(p, w)], axis=-1)


_NEXT = np.array([1, 2, 0, 1, 2, 0])       # omega components i+1, twice
_AFTER = np.array([2, 0, 1, 2, 0, 1])      # omega components i+2, twice
_B_AFTER = np.array([2, 0, 1, 5, 3, 4])    # b's (omega, v) components i+2
_B_NEXT = np.array([1, 2, 0, 4, 5, 3])     # b's (omega, v) components i+1
_V_NEXT, _V_AFTER = np.array([4, 5, 3]), np.array([5, 3, 4])


def lie_bracket(a, b):
    """``[a, b]`` of twists ``(..., 6)``: the vee of ``hat(a) hat(b) - hat(b) hat(a)``.

    ``(w1, v1), (w2, v2) -> (w1 x w2, w1 x v2 + v1 x w2)``; it is ``d/dt`` of a twist ``b``
    fixed in a body that moves with twist ``a``. The three cross products are written as
    one index computation on the stacked vectors (this is on the solver's hot path).
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    out = a[..., _NEXT] * b[..., _B_AFTER] - a[..., _AFTER] * b[..., _B_NEXT]
    out[..., 3:] += a[..., _V_NEXT] * b[..., _AFTER[:3]] - a[..., _V_AFTER] * b[..., _NEXT[:3]]
    return out


def exp_so3(w):
    """Rotation matrix of the rotation vector ``w`` (axis times angle, rad): ``(..., 3) -> (..., 3, 3)``.

    Rodrigues' formula in the form ``R = cos(t) I + (sin(t)/t) hat(w) + ((1 - cos t)/t^2) w w^T``,
    with series for small angles: accurate to round-off at every angle.
    """
    w = np.asarray(w, dtype=float)
    theta2 = np.einsum("...i,...i->...", w, w)
    small = theta2 < 1e-12
    if np.any(small):
        safe2 = np.where(small, 1.0, theta2)
        theta = np.sqrt(safe2)
        a = np.where(small, 1.0 - theta2 / 6.0, np.sin(theta) / theta)
        b = np.where(small, 0.5 - theta2 / 24.0, (1.0 - np.cos(theta)) / safe2)
        c = np.where(small, 1.0 - theta2 / 2.0, np.cos(theta))
    else:
        theta = np.sqrt(theta2)
        c = np.cos(theta)
        a = np.sin(theta) / theta
        b = (1.0 - c) / theta2
    R = b[..., None, None] * (w[..., :, None] * w[..., None, :])
    aw = a[..., None] * w
    R[..., 0, 0] += c
    R[..., 1, 1] += c
    R[..., 2, 2] += c
    R[..., 0, 1] -= aw[..., 2]
    R[..., 1, 0] += aw[..., 2]
    R[..., 0, 2] += aw[..., 1]
    R[..., 2, 0] -= aw[..., 1]
    R[..., 1, 2] -= aw[..., 0]
    R[..., 2, 1] += aw[..., 0]
    return R


def log_so3(R):
    """Rotation vector (axis times angle, angle in ``[0, pi]``) of rotations ``(..., 3, 3) -> (..., 3)``.

    Well conditioned at every angle: the axis near ``pi`` comes from the symmetric part.
    """
    R = np.asarray(R, dtype=float)
    cos = np.clip((np.trace(R, axis1=-2, axis2=-1) - 1.0) / 2.0, -1.0, 1.0)
    axis_sin = unskew(R)  # = sin(theta) * axis
    sin = np.linalg.norm(axis_sin, axis=-1)
    theta = np.arctan2(sin, cos)
    small = theta < 1e-6
    factor = np.where(small, 1.0 + theta**2 / 6.0, theta / np.where(small, 1.0, sin + (sin == 0)))
    w = factor[..., None] * axis_sin
    near_pi = cos < -0.99
    if np.any(near_pi):
        # sin is tiny near pi: take the axis from R + R^T = 2 cos I + 2 (1 - cos) a a^T.
        Rn = R[near_pi]
        c = cos[near_pi]
        M = (Rn + np.swapaxes(Rn, -1, -2)) / 2.0 - c[:, None, None] * np.eye(3)
        col = np.argmax(np.diagonal(M, axis1=-2, axis2=-1), axis=-1)
        a = M[np.arange(len(col)), :, col]
        a /= np.linalg.norm(a, axis=-1, keepdims=True)
        # Pick the sign that agrees with the antisymmetric part (sin theta * axis).
        sign = np.where(np.einsum("...i,...i->...", a, axis_sin[near_pi]) < 0, -1.0, 1.0)
        w = np.array(w, copy=True)
        w[near_pi] = (sign * theta[near_pi])[:, None] * a
    return w


def frame_from_points(origin, on_x, on_z):
    """Pavlov's frame from three global points (METHOD.md, "Frames from points").

    ``e_x = (x - o)/|x - o|``, ``e_z = (z - o)/|z - o|``, ``e_y = e_z x e_x``; ``e_x`` is made
    exactly orthogonal to ``e_z`` (Gram-Schmidt) so drawings with small errors still give a
    rigid frame. Returns ``T_0k`` (4x4).
    """
    o = np.asarray(origin, dtype=float)
    ez = np.asarray(on_z, dtype=float) - o
    ez = ez / np.linalg.norm(ez)
    ex = np.asarray(on_x, dtype=float) - o
    ex = ex - ez * (ex @ ez)
    ex = ex / np.linalg.norm(ex)
    return homogeneous(np.column_stack([ex, cross(ez, ex), ez]), o)


def frame_from_axis(origin, axis, x_hint=None):
    """Frame with origin ``origin`` and Z along ``axis`` (global, any length > 0).

    X is ``x_hint`` projected normal to Z when given; otherwise the deterministic choice is
    the global axis (X, then Y, then Z) least parallel to Z, projected. Returns 4x4.
    """
    ez = np.asarray(axis, dtype=float)
    ez = ez / np.linalg.norm(ez)
    if x_hint is None:
        x_hint = np.eye(3)[int(np.argmin(np.abs(ez)))]
    hint = np.asarray(x_hint, dtype=float)
    return frame_from_points(origin, np.asarray(origin, dtype=float) + hint,
                             np.asarray(origin, dtype=float) + ez)


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
