"""The Hooke (universal) pair: two pins crossing at right angles (or at any fixed angle).

``A = Rot_z(phi) Rot_x(beta) Rot_z(theta)``: ``phi`` (variable 0) turns about the pin on the
first link (frame j's Z), ``theta`` (variable 1) about the pin on the second (frame k's Z),
``beta`` is the fixed angle from the first pin to the second about their common normal
``t = Z_j x Z_k`` (pi/2 for a cross). Both frames have their origin at the cross centre and X
along ``t``, so that ``A = Rot_x(beta)`` at the design pose (mechanism/METHOD.md, "Frames
from points"). The twists are the two pins, ``S_0 = (e_z, 0)`` and
``S_1 = (Rot_z(phi) Rot_x(beta) e_z, 0)``: the second pin turns with the cross, at
``dS_1/dt = dS_1/dphi phi'``. Parameters in the kernels: ``(beta, 0, 0, 0)``.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _validate as check_arg
from ..errors import ModelError
from ..transforms import frame_from_points
from .base import PARAMETER_COUNT, PairFamily, PairType

__all__ = ["HOOKE", "Hooke"]


def matrix(parameters, q, start, size, rotation, out):
    """``Rot_z(phi) Rot_x(beta) Rot_z(theta)`` into ``out`` (4, 4); ``beta = parameters[0]``."""
    beta, phi, theta = parameters[0], q[start], q[start + 1]
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


def twist(parameters, q, start, k, out):
    """``S_0 = (e_z, 0)``, ``S_1 = (Rot_z(phi) Rot_x(beta) e_z, 0)`` into ``out`` (6,)."""
    out[:] = 0.0
    if k == 0:
        out[2] = 1.0
    else:
        beta, phi = parameters[0], q[start]
        sb = math.sin(beta)
        out[0] = math.sin(phi) * sb
        out[1] = -math.cos(phi) * sb
        out[2] = math.cos(beta)


def twist_rate(parameters, q, q_dot, start, k, out):
    """``dS_1/dphi phi'`` into ``out`` (6,) for the second pin (True); False for the first."""
    if k == 1:
        out[:] = 0.0
        phi = q[start]
        rate = q_dot[start] * math.sin(parameters[0])
        out[0] = math.cos(phi) * rate
        out[1] = math.sin(phi) * rate
        return True
    return False


class Hooke(PairType):
    """Hooke (universal) pair; ``beta`` (rad) is the angle from the first pin to the second."""

    kind = "hooke"
    aliases = ("universal",)
    size = 2
    rotational = (True, True)
    marker = "X"
    view_symbol = "x"

    def __init__(self, beta: float = np.pi / 2):
        self.beta = float(beta)

    @property
    def family(self):
        return HOOKE

    def parameters(self):
        out = np.zeros(PARAMETER_COUNT)
        out[0] = self.beta
        return out

    @classmethod
    def read_axes(cls, where, kind, axis, axes):
        if axes is None:
            raise ModelError(f"{where}: axes", "a Hooke pair needs axes=(pin_on_first, pin_on_second)")
        if axis is not None:
            raise ModelError(f"{where}: axis", "a Hooke pair takes axes=, not axis=")
        if not isinstance(axes, (tuple, list)) or len(axes) != 2:
            raise ModelError(f"{where}: axes", "expected two pin directions")
        pins = (check_arg.direction(axes[0], f"{where}: axes[0]"), check_arg.direction(axes[1], f"{where}: axes[1]"))
        cross = np.linalg.norm(np.cross(*pins))
        if cross < 1e-6:
            raise ModelError(f"{where}: axes", "the two pins are parallel")
        return None, pins, {"beta": float(np.arctan2(cross, pins[0] @ pins[1]))}

    def frames(self, at, axis=None, axes=None):
        at = np.asarray(at, dtype=float)
        pin_j, pin_k = (np.asarray(a, dtype=float) for a in axes)
        t = np.cross(pin_j, pin_k)
        return frame_from_points(at, at + t, at + pin_j), frame_from_points(at, at + t, at + pin_k)

    def __repr__(self):
        return f"Hooke(beta={self.beta!r})"


HOOKE = PairFamily("hooke", (Hooke,), matrix, twist, twist_rate)
