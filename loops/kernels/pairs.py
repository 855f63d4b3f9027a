"""Pair matrices ``A(q)``, unit twists ``S_k(q)`` and their rates, per pair family (METHOD.md table).

A pair's variable matrix maps frame k (on its second link) to frame j (on its first). Its
derivative follows the left convention of :mod:`mechanism.pairs`: ``dA = sum_k hat(S_k) A dq_k``
with ``S_k`` the unit twist of variable k in frame j. Three families cover every type:

* ``SCREW`` (revolute, prismatic, cylindrical, helical): ``A = Rot_z(g) Trans_z(s)`` with
  ``(g, s)`` linear in the variables, ``(g, s) = sum_k q_k (coefficients[k, 0], coefficients[k, 1])``;
  ``S_k = (0, 0, c_k0, 0, 0, c_k1)`` is constant.
* ``HOOKE``: ``A = Rot_z(phi) Rot_x(beta) Rot_z(theta)``; ``S_0 = e_z`` and ``S_1 =
  Rot_z(phi) Rot_x(beta) e_z`` (the second pin turns with the cross), whose rate is
  ``dS_1/dphi phi'``.
* ``SPHERICAL``: ``A = [[R, 0], [0, 1]]`` with ``R`` carried as the pair's state (a rotation
  matrix; its rotation vector is the pair's value); ``S_k = (e_k, 0)``, increments about
  frame j's fixed axes, so the operators never degenerate.

The family and its parameters of each pair come from the pair type
(:meth:`mechanism.pairs.PairType.compiled_parameters`).
"""

from __future__ import annotations

import math

from mechanism.pairs import HOOKE_FAMILY as HOOKE, SCREW_FAMILY as SCREW

from ._compile import inline_kernel as kernel
from .arrays import copy_matrix

__all__ = ["pair_matrix", "pair_twist", "pair_twist_rate"]


@kernel
def _screw_matrix(coefficients, q, start, size, out):
    g = 0.0
    s = 0.0
    for k in range(size):
        g += coefficients[k, 0] * q[start + k]
        s += coefficients[k, 1] * q[start + k]
    c, n = math.cos(g), math.sin(g)
    out[:, :] = 0.0
    out[0, 0] = c
    out[0, 1] = -n
    out[1, 0] = n
    out[1, 1] = c
    out[2, 2] = 1.0
    out[2, 3] = s
    out[3, 3] = 1.0


@kernel
def _hooke_matrix(beta, phi, theta, out):
    cp, sp = math.cos(phi), math.sin(phi)
    cb, sb = math.cos(beta), math.sin(beta)
    ct, st = math.cos(theta), math.sin(theta)
    # M = Rot_z(phi) Rot_x(beta); A = M Rot_z(theta).
    m00, m01, m02 = cp, -sp * cb, sp * sb
    m10, m11, m12 = sp, cp * cb, -cp * sb
    m20, m21, m22 = 0.0, sb, cb
    out[0, 0] = m00 * ct + m01 * st
    out[0, 1] = -m00 * st + m01 * ct
    out[0, 2] = m02
    out[1, 0] = m10 * ct + m11 * st
    out[1, 1] = -m10 * st + m11 * ct
    out[1, 2] = m12
    out[2, 0] = m20 * ct + m21 * st
    out[2, 1] = -m20 * st + m21 * ct
    out[2, 2] = m22
    out[0, 3] = 0.0
    out[1, 3] = 0.0
    out[2, 3] = 0.0
    out[3, 0] = 0.0
    out[3, 1] = 0.0
    out[3, 2] = 0.0
    out[3, 3] = 1.0


@kernel
def pair_matrix(family, coefficients, beta, q, start, size, rotation, out):
    """``A(q)`` of one pair into ``out`` (4, 4).

    ``coefficients`` (2, 2) and ``beta`` are the pair's parameters, ``q[start:start + size]``
    its variables, ``rotation`` (3, 3) its state when spherical (ignored otherwise).
    """
    if family == SCREW:
        _screw_matrix(coefficients, q, start, size, out)
    elif family == HOOKE:
        _hooke_matrix(beta, q[start], q[start + 1], out)
    else:
        out[:, :] = 0.0
        copy_matrix(rotation, out[:3, :3])
        out[3, 3] = 1.0


@kernel
def pair_twist(family, coefficients, beta, q, start, k, out):
    """Unit twist ``S_k`` (6,) of variable k of one pair, in frame j, into ``out``."""
    out[:] = 0.0
    if family == SCREW:
        out[2] = coefficients[k, 0]
        out[5] = coefficients[k, 1]
    elif family == HOOKE:
        if k == 0:
            out[2] = 1.0
        else:
            phi = q[start]
            sb = math.sin(beta)
            out[0] = math.sin(phi) * sb
            out[1] = -math.cos(phi) * sb
            out[2] = math.cos(beta)
    else:
        out[k] = 1.0


@kernel
def pair_twist_rate(family, beta, q, q_dot, start, k, out):
    """``dS_k/dt`` (6,) in frame j due to the pair's own motion into ``out``: zero but for the
    Hooke pair's second pin, ``dS_1/dphi phi'``. Returns False when it is zero (the callers
    skip carrying it to the world frame)."""
    out[:] = 0.0
    if family == HOOKE and k == 1:
        phi = q[start]
        rate = q_dot[start] * math.sin(beta)
        out[0] = math.cos(phi) * rate
        out[1] = math.sin(phi) * rate
        return True
    return False
