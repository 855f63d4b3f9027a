"""The screw family: pairs that turn about and slide along one axis (revolute, prismatic,
cylindrical, helical).

``A = Rot_z(g) Trans_z(s)`` with the angle ``g`` (rad) and the slide ``s`` (m) linear in the
variables, ``(g, s) = sum_k q_k (c_k0, c_k1)``; the unit twists are constant,
``S_k = (0, 0, c_k0, 0, 0, c_k1)``, so ``hat(S_k) A = A hat(S_k)`` (Pavlov's ``Q_rev``,
``Q_pri``; mechanism/METHOD.md, table). A type is its coefficient rows ``(c_k0, c_k1)``
(:attr:`ScrewPair.screw_coefficients`), which are its parameters in the kernels, flattened.
Both frames are one: Z along the axis through the centre.
"""

from __future__ import annotations

import math

import numpy as np

from .. import _validate as check_arg
from ..errors import ModelError
from .base import PARAMETER_COUNT, OneAxisPair, PairFamily

__all__ = ["SCREW", "ScrewPair", "Revolute", "Prismatic", "Cylindrical", "Helical"]


def matrix(parameters, q, start, size, rotation, out):
    """``Rot_z(g) Trans_z(s)`` into ``out`` (4, 4), ``g = sum_k parameters[2k] q_k`` (rad) and
    ``s = sum_k parameters[2k + 1] q_k`` (m)."""
    g = 0.0
    s = 0.0
    for k in range(size):
        g += parameters[2 * k] * q[start + k]
        s += parameters[2 * k + 1] * q[start + k]
    c, n = math.cos(g), math.sin(g)
    out[:, :] = 0.0
    out[0, 0] = c
    out[0, 1] = -n
    out[1, 0] = n
    out[1, 1] = c
    out[2, 2] = 1.0
    out[2, 3] = s
    out[3, 3] = 1.0


def twist(parameters, q, start, k, out):
    """``S_k = (0, 0, c_k0, 0, 0, c_k1)`` into ``out`` (6,)."""
    out[:] = 0.0
    out[2] = parameters[2 * k]
    out[5] = parameters[2 * k + 1]


class ScrewPair(OneAxisPair):
    """A pair whose matrix is ``Rot_z(g) Trans_z(s)`` with ``(g, s)`` linear in its variables.

    ``screw_coefficients`` (k, 2): row i gives ``(dg/dq_i, ds/dq_i)`` (rad and m per unit of
    variable i).
    """

    screw_coefficients = np.array([[1.0, 0.0]])
    axis_hardpoint = True

    @property
    def family(self):
        return SCREW

    def parameters(self):
        out = np.zeros(PARAMETER_COUNT)
        out[:2 * self.size] = self.screw_coefficients.ravel()
        return out

    def mirror_problem(self, pair, mirror, image_at, tolerance, plane):
        axis = np.asarray(pair.axis, float)
        if np.linalg.norm(np.cross(axis, mirror @ axis)) > 1e-9 or \
                np.linalg.norm(np.cross(image_at - np.asarray(pair.at, float), axis)) > tolerance:
            return "its axis is not its own mirror image"
        return None


class Revolute(ScrewPair):
    """Revolute pair: ``A = Rot_z(g)``, g right-handed about the common Z (rad)."""

    kind = "revolute"
    marker = "o"
    turns_about_axis = True


class Prismatic(ScrewPair):
    """Prismatic pair: ``A = Trans_z(s)``, slide s along the common Z (m)."""

    kind = "prismatic"
    rotational = (False,)
    screw_coefficients = np.array([[0.0, 1.0]])
    marker = "s"
    view_symbol = "square"

    def mirror_problem(self, pair, mirror, image_at, tolerance, plane):
        if np.linalg.norm(np.cross(pair.axis, mirror @ pair.axis)) > 1e-9:
            return "its slide is not parallel to its mirror image"
        return None


class Cylindrical(ScrewPair):
    """Cylindrical pair: ``A = Rot_z(g) Trans_z(s)``; variables (g rad, s m)."""

    kind = "cylindrical"
    size = 2
    rotational = (True, False)
    screw_coefficients = np.eye(2)
    marker = "D"
    view_symbol = "diamond-open"
    turns_about_axis = True


class Helical(ScrewPair):
    """Helical (screw) pair: ``A = Rot_z(g) Trans_z(pitch g / 2 pi)``; one variable g (rad).

    Parameters
    ----------
    pitch : float
        Advance per turn along +Z, m/rev (negative for a left-hand thread).
    """

    kind = "helical"
    marker = "*"
    view_symbol = "cross"
    option_quantities = {"pitch": "pitch"}

    def __init__(self, pitch: float):
        self.pitch = float(pitch)
        self.screw_coefficients = np.array([[1.0, self.pitch / (2.0 * np.pi)]])

    @classmethod
    def read_options(cls, where, kind, pitch):
        if pitch is None:
            raise ModelError(f"{where}: pitch", "a helical pair needs pitch= (m per turn)")
        return {"pitch": check_arg.number(pitch, f"{where}: pitch", is_length=True)}

    def options(self):
        return {"pitch": self.pitch}

    def mirror_options(self):
        return {"pitch": -self.pitch}

    def mirror_problem(self, pair, mirror, image_at, tolerance, plane):
        return "a helical pair changes hand in a mirror"

    def __repr__(self):
        return f"Helical(pitch={self.pitch!r})"


#: The screw family (its twists are constant: no twist rate).
SCREW = PairFamily("screw", (Revolute, Prismatic, Cylindrical, Helical), matrix, twist, None)
