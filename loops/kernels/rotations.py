"""Rotations in compiled code: SO(3) exponential, logarithm and its left Jacobian.

The same formulas as :mod:`mechanism.transforms` (``exp_so3``, ``log_so3``,
``dexp_inverse``), written for one 3-vector or 3x3 matrix at a time so that the kernels of
the closure can call them without allocating stacks. Angles in rad; rotation vectors are
axis times angle.
"""

from __future__ import annotations

import math


from ._compile import internal_kernel

kernel = internal_kernel(forceinline=True)
from .arrays import copy_matrix

__all__ = ["exp_so3", "log_so3", "rotate_left", "dexp_c", "dexp_c_slope", "dexp_inverse",
           "dexp_inverse_transposed_rate", "unwrap_rotation_vector", "cross"]


@kernel
def cross(a, b, out):
    """``out = a x b`` for 3-vectors (``out`` must not alias ``a`` or ``b``)."""
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]


@kernel
def exp_so3(w, R):
    """``R = exp(hat(w))`` (Rodrigues), written into ``R`` (3, 3); series below 1e-6 rad."""
    theta2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2]
    if theta2 < 1e-12:
        a = 1.0 - theta2 / 6.0
        b = 0.5 - theta2 / 24.0
        c = 1.0 - theta2 / 2.0
    else:
        theta = math.sqrt(theta2)
        c = math.cos(theta)
        a = math.sin(theta) / theta
        b = (1.0 - c) / theta2
    for i in range(3):
        for j in range(3):
            R[i, j] = b * w[i] * w[j]
        R[i, i] += c
    R[0, 1] -= a * w[2]
    R[1, 0] += a * w[2]
    R[0, 2] += a * w[1]
    R[2, 0] -= a * w[1]
    R[1, 2] -= a * w[0]
    R[2, 1] += a * w[0]


@kernel
def log_so3(R, w):
    """Rotation vector of ``R`` (angle in [0, pi]) into ``w`` (3,).

    The axis comes from the antisymmetric part, and near a half turn (where the sine
    vanishes) from the symmetric part ``R + R^T = 2 cos I + 2 (1 - cos) a a^T``, with the
    sign that agrees with the antisymmetric part.
    """
    cos = 0.5 * (R[0, 0] + R[1, 1] + R[2, 2] - 1.0)
    cos = min(1.0, max(-1.0, cos))
    s0 = 0.5 * (R[2, 1] - R[1, 2])
    s1 = 0.5 * (R[0, 2] - R[2, 0])
    s2 = 0.5 * (R[1, 0] - R[0, 1])
    sin = math.sqrt(s0 * s0 + s1 * s1 + s2 * s2)
    theta = math.atan2(sin, cos)
    if cos < -0.99:
        # Axis from the column of (R + R^T)/2 - cos I with the largest diagonal entry.
        best, largest = 0, -1.0
        for i in range(3):
            d = R[i, i] - cos
            if d > largest:
                best, largest = i, d
        a0 = 0.5 * (R[0, best] + R[best, 0])
        a1 = 0.5 * (R[1, best] + R[best, 1])
        a2 = 0.5 * (R[2, best] + R[best, 2])
        if best == 0:
            a0 -= cos
        elif best == 1:
            a1 -= cos
        else:
            a2 -= cos
        norm = math.sqrt(a0 * a0 + a1 * a1 + a2 * a2)
        a0, a1, a2 = a0 / norm, a1 / norm, a2 / norm
        if a0 * s0 + a1 * s1 + a2 * s2 < 0.0:
            a0, a1, a2 = -a0, -a1, -a2
        w[0], w[1], w[2] = theta * a0, theta * a1, theta * a2
        return
    if theta < 1e-6:
        factor = 1.0 + theta * theta / 6.0
    else:
        factor = theta / sin
    w[0], w[1], w[2] = factor * s0, factor * s1, factor * s2


@kernel
def rotate_left(dw, R, E, out):
    """``R <- exp(hat(dw)) R`` in place: an increment about the fixed (left) axes (``E``, ``out``:
    3x3 scratch)."""
    exp_so3(dw, E)
    for i in range(3):
        for j in range(3):
            out[i, j] = E[i, 0] * R[0, j] + E[i, 1] * R[1, j] + E[i, 2] * R[2, j]
    copy_matrix(out, R)


@kernel
def dexp_c(theta2):
    """``c(t) = 1/t^2 - (1 + cos t) / (2 t sin t)`` from ``t^2``; series below 1e-4 (error < 1e-17)."""
    if theta2 < 1e-4:
        return 1.0 / 12.0 + theta2 / 720.0 + theta2 * theta2 / 30240.0
    t = math.sqrt(theta2)
    return 1.0 / theta2 - (1.0 + math.cos(t)) / (2.0 * t * math.sin(t))


@kernel
def dexp_c_slope(theta2):
    """``c'(t) / t`` (so that ``dc/dt = t * slope``), from ``t^2``; series below 1e-4."""
    if theta2 < 1e-4:
        return 1.0 / 360.0 + theta2 / 7560.0
    t = math.sqrt(theta2)
    s, c = math.sin(t), math.cos(t)
    # d/dt [(1 + cos t) / (2 t sin t)] = -(1 + cos t)(sin t + t) / (2 t^2 sin^2 t) after
    # simplifying sin^2 t + cos t + cos^2 t = 1 + cos t.
    df = -(1.0 + c) * (s + t) / (2.0 * theta2 * s * s)
    return (-2.0 / (theta2 * t) - df) / t


@kernel
def dexp_inverse(w, v, transposed, out, scratch):
    """``J_l(w)^-1 v`` (``transposed``: ``J_l(w)^-T v``) into ``out`` (3,).

    ``J_l^-1 v = v - 1/2 w x v + c(t) w x (w x v)``; the transpose flips the middle sign.
    ``J_l^-1 omega`` is the rate of the rotation vector ``w`` for the angular velocity
    ``omega`` (left increments); valid for ``|w| < 2 pi``. ``scratch``: (2, 3).
    """
    wv = scratch[0]
    wwv = scratch[1]
    cross(w, v, wv)
    cross(w, wv, wwv)
    c = dexp_c(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])
    half = 0.5 if transposed else -0.5
    for i in range(3):
        out[i] = v[i] + half * wv[i] + c * wwv[i]


@kernel
def dexp_inverse_transposed_rate(w, w_dot, u, out, scratch):
    """``d/dt [J_l(w)^-T u]`` for constant ``u``, into ``out`` (3,).

    ``J_l^-T u = u + 1/2 w x u + c(t) w x (w x u)``, so its rate is
    ``1/2 w' x u + c' t' w x (w x u) + c (w' x (w x u) + w x (w' x u))`` with
    ``t t' = w . w'``. ``scratch``: (5, 3).
    """
    theta2 = w[0] * w[0] + w[1] * w[1] + w[2] * w[2]
    c = dexp_c(theta2)
    slope = dexp_c_slope(theta2)  # dc/dt = t slope, so c' t' = slope (t t') = slope (w . w')
    ww = w[0] * w_dot[0] + w[1] * w_dot[1] + w[2] * w_dot[2]
    wu, wwu, dwu, a, b = scratch[0], scratch[1], scratch[2], scratch[3], scratch[4]
    cross(w, u, wu)
    cross(w, wu, wwu)
    cross(w_dot, u, dwu)
    cross(w_dot, wu, a)
    cross(w, dwu, b)
    for i in range(3):
        out[i] = 0.5 * dwu[i] + slope * ww * wwu[i] + c * (a[i] + b[i])


@kernel
def unwrap_rotation_vector(w, previous, out):
    """The rotation vector of the same rotation as ``w`` nearest ``previous``, into ``out``.

    A rotation by ``t`` about the unit axis ``a`` is also one by ``t + 2 pi k`` about ``a``
    for every integer ``k``: along a sweep the value is kept continuous (like a revolute
    angle that passes 2 pi) by choosing ``k``, the one whose value lies nearest the
    previous one (``k`` near ``(previous . a - t) / 2 pi``).
    """
    theta = math.sqrt(w[0] * w[0] + w[1] * w[1] + w[2] * w[2])
    if theta < 1e-12:
        # The identity: whole turns about the previous value's own axis.
        norm = math.sqrt(previous[0] ** 2 + previous[1] ** 2 + previous[2] ** 2)
        k = int(math.floor(norm / (2.0 * math.pi) + 0.5))
        for i in range(3):
            out[i] = w[i] + (previous[i] / norm * 2.0 * math.pi * k if k != 0 else 0.0)
        return
    along = (previous[0] * w[0] + previous[1] * w[1] + previous[2] * w[2]) / theta
    centre = int(math.floor((along - theta) / (2.0 * math.pi) + 0.5))
    best = 1e300
    for k in range(centre - 1, centre + 2):
        factor = 1.0 + 2.0 * math.pi * k / theta
        d = 0.0
        for i in range(3):
            d += (factor * w[i] - previous[i]) ** 2
        if d < best:
            best = d
            for i in range(3):
                out[i] = factor * w[i]
