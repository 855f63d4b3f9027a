"""The spherical (ball) pair: three rotations about a common centre, without gimbal lock.

``A = [[R, 0], [0, 1]]`` with the rotation ``R`` carried by the kernels as the pair's state:
its increments are small rotations about frame j's fixed axes, ``R <- exp(hat(dw)) R``, so
its twists are the three constant generators ``S_k = (e_k, 0)`` at every orientation and
never degenerate (an Euler-angle set locks at the design pose, DESIGN.md). Its value is the
rotation vector of ``R`` (axis times angle, in frame j's axes, which are the global axes at
the design pose), re-seated after each converged step and unwrapped along a record
(:mod:`loops.kernels.newton`); its ``q_dot`` is the relative angular velocity in the same
axes, not the rate of the rotation vector. No parameters.
"""

from __future__ import annotations

import numpy as np

from ..errors import ModelError
from ..transforms import translation
from .base import PairFamily, PairType

__all__ = ["SPHERICAL", "Spherical"]


def matrix(parameters, q, start, size, rotation, out):
    """``[[R, 0], [0, 1]]`` into ``out`` (4, 4), ``R = rotation`` (3, 3), the pair's state."""
    out[:, :] = 0.0
    for i in range(3):
        for j in range(3):
            out[i, j] = rotation[i, j]
    out[3, 3] = 1.0


def twist(parameters, q, start, k, out):
    """``S_k = (e_k, 0)`` into ``out`` (6,)."""
    out[:] = 0.0
    out[k] = 1.0


class Spherical(PairType):
    """Spherical (ball) pair: its value is the rotation vector of the second link relative to
    the first, in global axes at the design pose."""

    kind = "spherical"
    size = 3
    rotational = (True, True, True)
    additive = False
    rotation_state = True
    marker = "^"
    view_symbol = "diamond"

    @property
    def family(self):
        return SPHERICAL

    @classmethod
    def read_axes(cls, where, kind, axis, axes):
        if axis is not None or axes is not None:
            raise ModelError(f"{where}: axis", "a spherical pair takes no axis")
        return None, None, {}

    def frames(self, at, axis=None, axes=None):
        """Both frames with the global axes at ``at`` (the value is then the rotation vector in
        global axes at the design pose, as DESIGN.md states)."""
        frame = translation(np.asarray(at, dtype=float))
        return frame, frame.copy()

    def mirror_signs(self, pair, mirror):
        """A rotation vector is an axial vector: its mirror image is ``det(M) M w``, component
        by component for a reflection across a coordinate plane (``M`` diagonal, as the
        workbench's): ``(-1, 1, -1)`` across ``y = c``."""
        return tuple(float(np.sign(np.linalg.det(mirror))) * np.diag(mirror))


#: The spherical family (increments about frame j's fixed axes: constant twists, no twist rate).
SPHERICAL = PairFamily("spherical", (Spherical,), matrix, twist, None)
