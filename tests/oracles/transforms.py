"""Oracle: the numpy SO(3)/SE(3) maps kinematrix computed with before its kernels became the one
implementation (:mod:`loops.kernels.rotations`, :mod:`loops.kernels.rigid`).

Stacked arrays ``(..., 3)``, ``(..., 6)``, ``(..., 4, 4)``, written with gathers and products in
another order than the kernels' scalar loops: the tests hold the kernels to these, and these
to Rodrigues' formula, scipy's rotations and finite differences (tests/test_transforms.py).
Layout and names as :mod:`mechanism.transforms`: a twist is ``(omega, v)``, ``hat(xi) =
[[hat(omega), v], [0, 0]]``.
"""

from __future__ import annotations

import numpy as np

from mechanism.transforms import cross

__all__ = ["skew", "unskew", "twist_matrix", "twist_vector", "adjoint", "transform_twists",
           "point_shift_matrices", "lie_bracket", "exp_so3", "log_so3", "dexp_inverse"]

# Flat indices of a 3x3 matrix's antisymmetric part: unskew(S) = (S21 - S12, S02 - S20, S10 - S01) / 2
_UNSKEW_PLUS, _UNSKEW_MINUS = np.array([7, 2, 3]), np.array([5, 6, 1])

# hat(w) row by row, [[0, -w2, w1], [w2, 0, -w0], [-w1, w0, 0]], as a gather of w times a
# sign (the zero entries gather w0 and multiply it by 0, so they are +-0.0).
_SKEW_INDEX = np.array([0, 2, 1, 2, 0, 0, 1, 0, 0])
_SKEW_SIGN = np.array([0.0, -1.0, 1.0, 1.0, 0.0, -1.0, -1.0, 1.0, 0.0])
# hat(xi) = [[hat(w), v], [0, 0]] of xi = (w, v) the same way, 4x4.
_TWIST_INDEX = np.array([0, 2, 1, 3, 2, 0, 0, 4, 1, 0, 0, 5, 0, 0, 0, 0])
_TWIST_SIGN = np.array([0.0, -1.0, 1.0, 1.0, 1.0, 0.0, -1.0, 1.0, -1.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0])


def skew(w):
    """``hat(w)``: the 3x3 skew matrix with ``hat(w) x = w x x``; ``(..., 3) -> (..., 3, 3)``."""
    w = np.asarray(w, dtype=float)
    return (w.take(_SKEW_INDEX, axis=-1) * _SKEW_SIGN).reshape(w.shape[:-1] + (3, 3))


def unskew(S):
    """Inverse of :func:`skew` (antisymmetric part): ``(..., 3, 3) -> (..., 3)``."""
    S = np.asarray(S, dtype=float)
    flat = S.reshape(S.shape[:-2] + (9,))
    return 0.5 * (flat.take(_UNSKEW_PLUS, axis=-1) - flat.take(_UNSKEW_MINUS, axis=-1))


def twist_matrix(xi):
    """Pavlov's ``Q`` operator of a twist: ``(..., 6) -> (..., 4, 4)``, ``[[hat(w), v], [0, 0]]``."""
    xi = np.asarray(xi, dtype=float)
    return (xi.take(_TWIST_INDEX, axis=-1) * _TWIST_SIGN).reshape(xi.shape[:-1] + (4, 4))


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


# [[1, 0], [-hat(c), 1]] as 36 entries: skew's gather with the opposite sign in the lower
# left block, zero elsewhere, plus the identity.
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


# Row and column of each entry of a flat 3x3, and the flat identity.
_OUTER_ROW, _OUTER_COLUMN = np.repeat(np.arange(3), 3), np.tile(np.arange(3), 3)
_EYE3 = np.eye(3).ravel()


def exp_so3(w):
    """Rotation matrix of the rotation vector ``w`` (axis times angle, rad): ``(..., 3) -> (..., 3, 3)``.

    Rodrigues' formula in the form ``R = cos(t) I + (sin(t)/t) hat(w) + ((1 - cos t)/t^2) w w^T``,
    with series for small angles: accurate to round-off at every angle.
    """
    w = np.asarray(w, dtype=float)
    outer = w.take(_OUTER_ROW, axis=-1) * w.take(_OUTER_COLUMN, axis=-1)  # w w^T, flat
    theta2 = outer[..., 0] + outer[..., 4] + outer[..., 8]
    small = theta2 < 1e-12
    if small.any():
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
    R = b[..., None] * outer + (a[..., None] * w).take(_SKEW_INDEX, axis=-1) * _SKEW_SIGN  # + a hat(w)
    R += c[..., None] * _EYE3
    return R.reshape(w.shape[:-1] + (3, 3))


def log_so3(R):
    """Rotation vector (axis times angle, angle in ``[0, pi]``) of rotations ``(..., 3, 3) -> (..., 3)``.

    Well conditioned at every angle: the axis near ``pi`` comes from the symmetric part.
    """
    R = np.asarray(R, dtype=float)
    diagonal = R.reshape(R.shape[:-2] + (9,))[..., ::4]
    cos = ((diagonal[..., 0] + diagonal[..., 1] + diagonal[..., 2] - 1.0) / 2.0).clip(-1.0, 1.0)
    axis_sin = unskew(R)  # = sin(theta) * axis
    sin = np.sqrt((axis_sin * axis_sin).sum(axis=-1))
    theta = np.arctan2(sin, cos)
    small = theta < 1e-6
    if small.any():
        factor = np.where(small, 1.0 + theta**2 / 6.0, theta / np.where(small, 1.0, sin + (sin == 0)))
    else:
        factor = theta / (sin + (sin == 0))
    w = factor[..., None] * axis_sin
    near_pi = cos < -0.99
    if near_pi.any():
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
