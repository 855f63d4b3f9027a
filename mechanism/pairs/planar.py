"""The planar pair: the second link slides in a plane of the first and turns about its normal.

``A = Trans(x e_x + y e_y) Rot_z(theta)``: variable 0 (``"P.0"``, x, m) and variable 1
(``"P.1"``, y, m) are the displacement of the pair's centre on the second link along the X
and Y axes of frame j, the plane's axes on the first link; variable 2 (``"P.2"``, theta,
rad) is the turn of the second link about the normal, right-handed. All three are zero at
the design pose and describe the second link relative to the first (DESIGN.md). Both frames
are one at the design pose: origin at the centre ``at``, Z along the normal ``axis``, X the
global axis least parallel to the normal made normal to it (as a revolute pair's).

With the slides first, the slides' twists are constant and the turn's is the rotation
about the moved centre: ``S_0 = (0, e_x)``, ``S_1 = (0, e_y)``, ``S_2 = (e_z, (y, -x, 0))``
(frame j), whose rate is ``(0, (y', -x', 0))``. ``A`` is the product of the exponentials of
``S_0 x``, ``S_1 y`` and ``S_2 theta``, so ``dS_2/dx = [S_0, S_2]`` and ``dS_2/dy = [S_1, S_2]``,
as the Hooke pair's second pin. No parameters.
"""

from __future__ import annotations

import math

import numpy as np

from .base import OneAxisPair, PairFamily

__all__ = ["PLANAR", "Planar"]


def matrix(parameters, q, start, size, rotation, out):
    """``Trans(x e_x + y e_y) Rot_z(theta)`` into ``out`` (4, 4), ``(x, y, theta) = q[start:start + 3]``."""
    x, y, theta = q[start], q[start + 1], q[start + 2]
    c, n = math.cos(theta), math.sin(theta)
    out[:, :] = 0.0
    out[0, 0] = c
    out[0, 1] = -n
    out[1, 0] = n
    out[1, 1] = c
    out[2, 2] = 1.0
    out[0, 3] = x
    out[1, 3] = y
    out[3, 3] = 1.0


def twist(parameters, q, start, k, out):
    """``S_0 = (0, e_x)``, ``S_1 = (0, e_y)``, ``S_2 = (e_z, (y, -x, 0))`` into ``out`` (6,)."""
    out[:] = 0.0
    if k == 0:
        out[3] = 1.0
    elif k == 1:
        out[4] = 1.0
    else:
        out[2] = 1.0
        out[3] = q[start + 1]
        out[4] = -q[start]


def twist_rate(parameters, q, q_dot, start, k, out):
    """``dS_2/dt = (0, (y', -x', 0))`` into ``out`` (6,) for the turn (True); False for the slides."""
    if k == 2:
        out[:] = 0.0
        out[3] = q_dot[start + 1]
        out[4] = -q_dot[start]
        return True
    return False


class Planar(OneAxisPair):
    """Planar pair: slides ``x``, ``y`` (m) in the plane normal to ``axis`` through ``at`` and a
    turn ``theta`` (rad) about the normal.

    Its normal is not a hardpoint direction: the plane's X and Y axes, which give the
    slides their meaning, follow the normal by the rule of :func:`mechanism.transforms.
    frame_from_axis`, and the design studies' derivatives turn a moved axis without it.
    """

    kind = "planar"
    size = 3
    rotational = (False, False, True)
    marker = "h"
    view_symbol = "circle-open"

    @property
    def family(self):
        return PLANAR

    def mirror_signs(self, pair, mirror):
        """The image's slides run along the mirrored plane axes up to sign, for a reflection
        across a coordinate plane (X comes from the same global axis, a reflection reverses
        ``Y = Z x X``); the turn changes hand."""
        frame = np.asarray(pair.frame_on_first, dtype=float)
        image, _ = self.frames(np.zeros(3), mirror @ frame[:3, 2])
        turn = float(np.sign(np.linalg.det(mirror)))
        return (float(np.sign((mirror @ frame[:3, 0]) @ image[:3, 0])),
                float(np.sign((mirror @ frame[:3, 1]) @ image[:3, 1])), turn)

    def mirror_problem(self, pair, mirror, image_at, tolerance, plane):
        normal = np.asarray(pair.axis, float)
        if np.linalg.norm(np.cross(normal, mirror @ normal)) > 1e-9 or \
                abs((image_at - np.asarray(pair.at, float)) @ normal) > tolerance:
            return "its plane is not its own mirror image"
        return None


PLANAR = PairFamily("planar", (Planar,), matrix, twist, twist_rate)
