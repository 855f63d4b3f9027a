"""Rigid transforms and twists in compiled code (standard layout of :mod:`mechanism.transforms`).

``T = [[R, p], [0, 0, 0, 1]]`` on column vectors; a twist is ``(omega, v)`` with ``v`` the
velocity of the body point at the origin of the frame it is written in. Products are
written out for rigid matrices (the bottom row is known), which is what makes them cheap.
Outputs never alias inputs.
"""

from __future__ import annotations

from ._compile import internal_kernel

kernel = internal_kernel(forceinline=True)

__all__ = ["rigid_product", "rigid_product_inverse_right", "rigid_inverse_product", "transform_twist",
           "shift_twist", "lie_bracket", "twist_power"]


@kernel
def rigid_product(A, B, out):
    """``out = A B`` for rigid 4x4 transforms."""
    for i in range(3):
        for j in range(3):
            out[i, j] = A[i, 0] * B[0, j] + A[i, 1] * B[1, j] + A[i, 2] * B[2, j]
        out[i, 3] = A[i, 0] * B[0, 3] + A[i, 1] * B[1, 3] + A[i, 2] * B[2, 3] + A[i, 3]
    out[3, 0] = 0.0
    out[3, 1] = 0.0
    out[3, 2] = 0.0
    out[3, 3] = 1.0


@kernel
def rigid_product_inverse_right(A, B, out):
    """``out = A B^-1`` for rigid transforms: ``[[R_A R_B^T, p_A - R_A R_B^T p_B], [0, 1]]``."""
    for i in range(3):
        for j in range(3):
            out[i, j] = A[i, 0] * B[j, 0] + A[i, 1] * B[j, 1] + A[i, 2] * B[j, 2]
    for i in range(3):
        out[i, 3] = A[i, 3] - (out[i, 0] * B[0, 3] + out[i, 1] * B[1, 3] + out[i, 2] * B[2, 3])
    out[3, 0] = 0.0
    out[3, 1] = 0.0
    out[3, 2] = 0.0
    out[3, 3] = 1.0


@kernel
def rigid_inverse_product(A, B, out):
    """``out = A^-1 B`` for rigid transforms: ``[[R_A^T R_B, R_A^T (p_B - p_A)], [0, 1]]``."""
    for i in range(3):
        for j in range(3):
            out[i, j] = A[0, i] * B[0, j] + A[1, i] * B[1, j] + A[2, i] * B[2, j]
    d0, d1, d2 = B[0, 3] - A[0, 3], B[1, 3] - A[1, 3], B[2, 3] - A[2, 3]
    for i in range(3):
        out[i, 3] = A[0, i] * d0 + A[1, i] * d1 + A[2, i] * d2
    out[3, 0] = 0.0
    out[3, 1] = 0.0
    out[3, 2] = 0.0
    out[3, 3] = 1.0


@kernel
def transform_twist(T, s, out):
    """``out = Ad(T) s``: ``omega' = R omega``, ``v' = R v + p x (R omega)``."""
    w0 = T[0, 0] * s[0] + T[0, 1] * s[1] + T[0, 2] * s[2]
    w1 = T[1, 0] * s[0] + T[1, 1] * s[1] + T[1, 2] * s[2]
    w2 = T[2, 0] * s[0] + T[2, 1] * s[1] + T[2, 2] * s[2]
    v0 = T[0, 0] * s[3] + T[0, 1] * s[4] + T[0, 2] * s[5]
    v1 = T[1, 0] * s[3] + T[1, 1] * s[4] + T[1, 2] * s[5]
    v2 = T[2, 0] * s[3] + T[2, 1] * s[4] + T[2, 2] * s[5]
    p0, p1, p2 = T[0, 3], T[1, 3], T[2, 3]
    out[0] = w0
    out[1] = w1
    out[2] = w2
    out[3] = v0 + p1 * w2 - p2 * w1
    out[4] = v1 + p2 * w0 - p0 * w2
    out[5] = v2 + p0 * w1 - p1 * w0


@kernel
def shift_twist(xi, c, out):
    """The twist ``xi`` (origin-referenced) referred to the point ``c``: ``(omega, v + omega x c)``."""
    out[0] = xi[0]
    out[1] = xi[1]
    out[2] = xi[2]
    out[3] = xi[3] + xi[1] * c[2] - xi[2] * c[1]
    out[4] = xi[4] + xi[2] * c[0] - xi[0] * c[2]
    out[5] = xi[5] + xi[0] * c[1] - xi[1] * c[0]


@kernel
def lie_bracket(a, b, out):
    """``out = [a, b] = (w_a x w_b, w_a x v_b + v_a x w_b)``: the rate of a twist ``b`` fixed in a
    body moving with twist ``a``."""
    out[0] = a[1] * b[2] - a[2] * b[1]
    out[1] = a[2] * b[0] - a[0] * b[2]
    out[2] = a[0] * b[1] - a[1] * b[0]
    out[3] = a[1] * b[5] - a[2] * b[4] + a[4] * b[2] - a[5] * b[1]
    out[4] = a[2] * b[3] - a[0] * b[5] + a[5] * b[0] - a[3] * b[2]
    out[5] = a[0] * b[4] - a[1] * b[3] + a[3] * b[1] - a[4] * b[0]


@kernel
def twist_power(twist, wrench):
    """The power ``omega . n + v . f`` of a wrench ``(n, f)`` on a twist ``(omega, v)``."""
    value = 0.0
    for r in range(6):
        value += twist[r] * wrench[r]
    return value
