"""The bushing family: a compliant connection's six freedoms, and the weld that stands for it rigidly.

A bushing (:meth:`mechanism.Mechanism.add_bushing`) joins two links at a centre with its own
axes x, y, z (frame j on the first link, frame k on the second, one at the design pose). Its
six variables are three translations and a small rotation in those axes (mechanism/METHOD.md,
"The bushing family (B1)"):

    A = Trans(x e_x + y e_y + z e_z) Rot_x(a) Rot_y(b) Rot_z(c)

``"B.0"``-``"B.2"`` the displacement of the second link's centre (m) and ``"B.3"``-``"B.5"``
the turns ``a, b, c`` (rad) about the bushing's x axis, then the turned y, then the turned z
(Cardan angles: for a small rotation, the components of its rotation vector; they lock only
at a quarter turn of ``b``, which no bushing reaches). As a product of exponentials its twists
(frame j) are ``S_0..2 = (0, e_k)`` and, with ``t = (x, y, z)``,

    S_3 = (e_x, t x e_x),  S_4 = (u, t x u),  S_5 = (w, t x w),
    u = Rot_x(a) e_y,      w = Rot_x(a) Rot_y(b) e_z,

turns about the moved centre; their rates ``(u', t' x u + t x u')`` and the like (B1). Every
variable is additive (drivable, holdable, sprung). The loads of the bushing (its stiffness,
damping and preload on these six variables) are in :mod:`loops.kernels.loads`.

The **weld** (no variables, ``A = E``) is what a bushing that replaces no pair is in the rigid
variant of a model (:meth:`~mechanism.Mechanism.use_bushings`): its two links move as one.
Neither type is given to :meth:`~mechanism.Mechanism.add_pair` by users as a rule, but both
are pair types like any other (a ``"bushing"`` pair without stiffness is a free joint).
"""

from __future__ import annotations

import math

import numpy as np

from .. import _validate as check_arg
from ..errors import ModelError
from .base import PairFamily, PairType

__all__ = ["BUSHING", "Bushing", "Weld", "bushing_frame"]


def matrix(parameters, q, start, size, rotation, out):
    """``Trans(t) Rot_x(a) Rot_y(b) Rot_z(c)`` into ``out`` (4, 4) (the weld: the identity)."""
    out[:, :] = 0.0
    for i in range(4):
        out[i, i] = 1.0
    if size == 0:
        return
    ca, sa = math.cos(q[start + 3]), math.sin(q[start + 3])
    cb, sb = math.cos(q[start + 4]), math.sin(q[start + 4])
    cc, sc = math.cos(q[start + 5]), math.sin(q[start + 5])
    out[0, 0] = cb * cc
    out[0, 1] = -cb * sc
    out[0, 2] = sb
    out[1, 0] = sa * sb * cc + ca * sc
    out[1, 1] = -sa * sb * sc + ca * cc
    out[1, 2] = -sa * cb
    out[2, 0] = -ca * sb * cc + sa * sc
    out[2, 1] = ca * sb * sc + sa * cc
    out[2, 2] = ca * cb
    out[0, 3] = q[start]
    out[1, 3] = q[start + 1]
    out[2, 3] = q[start + 2]


def _turn_axis(a, b, k):
    """The axis ``n`` (frame j) of turn ``k`` (3, 4, 5) at turns ``a, b`` (rad): ``e_x``,
    ``Rot_x(a) e_y``, ``Rot_x(a) Rot_y(b) e_z`` (B1)."""
    if k == 3:
        return 1.0, 0.0, 0.0
    if k == 4:
        return 0.0, math.cos(a), math.sin(a)
    return math.sin(b), -math.sin(a) * math.cos(b), math.cos(a) * math.cos(b)


def twist(parameters, q, start, k, out):
    """``S_k`` (6,) into ``out``: a slide along axis k, or a turn about the moved centre (B1)."""
    out[:] = 0.0
    if k < 3:
        out[3 + k] = 1.0
        return
    out[0], out[1], out[2] = _turn_axis(q[start + 3], q[start + 4], k)
    x, y, z = q[start], q[start + 1], q[start + 2]
    out[3] = y * out[2] - z * out[1]
    out[4] = z * out[0] - x * out[2]
    out[5] = x * out[1] - y * out[0]


def twist_rate(parameters, q, q_dot, start, k, out):
    """``dS_k/dt = (n', t' x n + t x n')`` (6,) for a turn (True), ``n`` its axis; False for a slide."""
    if k < 3:
        return False
    a, b = q[start + 3], q[start + 4]
    da, db = q_dot[start + 3], q_dot[start + 4]
    n0, n1, n2 = _turn_axis(a, b, k)
    if k == 3:
        d0, d1, d2 = 0.0, 0.0, 0.0
    elif k == 4:
        d0, d1, d2 = 0.0, -math.sin(a) * da, math.cos(a) * da
    else:
        d0 = math.cos(b) * db
        d1 = -math.cos(a) * math.cos(b) * da + math.sin(a) * math.sin(b) * db
        d2 = -math.sin(a) * math.cos(b) * da - math.cos(a) * math.sin(b) * db
    x, y, z = q[start], q[start + 1], q[start + 2]
    vx, vy, vz = q_dot[start], q_dot[start + 1], q_dot[start + 2]
    out[0], out[1], out[2] = d0, d1, d2
    out[3] = vy * n2 - vz * n1 + y * d2 - z * d1
    out[4] = vz * n0 - vx * n2 + z * d0 - x * d2
    out[5] = vx * n1 - vy * n0 + x * d1 - y * d0
    return True


def bushing_frame(at, axes) -> np.ndarray:
    """The bushing's frame (4, 4): origin ``at`` (3,), columns its unit x, y, z axes (``axes``
    (3, 3), rows x, y, z, checked by :func:`check_axes`)."""
    frame = np.eye(4)
    frame[:3, :3] = np.asarray(axes, dtype=float).T
    frame[:3, 3] = np.asarray(at, dtype=float)
    return frame


def check_axes(axes, where) -> np.ndarray:
    """``axes`` (3 directions x, y, z; None: the global axes) as unit rows (3, 3), refused
    (located ModelError) unless they are perpendicular to 1e-6 and right-handed."""
    if axes is None:
        return np.eye(3)
    try:
        count = len(axes)
    except TypeError:
        count = -1
    if count != 3:
        raise ModelError(where, "expected three directions (x, y, z)")
    rows = np.array([check_arg.direction(a, f"{where}[{i}]") for i, a in enumerate(axes)])
    for i, j in ((0, 1), (0, 2), (1, 2)):
        if abs(rows[i] @ rows[j]) > 1e-6:
            raise ModelError(where, f"directions {'xyz'[i]} and {'xyz'[j]} are not perpendicular")
    if np.linalg.det(rows) < 0:
        raise ModelError(where, "x, y, z are left-handed (z must be x cross y)")
    return rows


class Bushing(PairType):
    """Six freedoms in the bushing's axes: slides ``.0``-``.2`` (m), turns ``.3``-``.5`` (rad).

    ``axes=`` its x, y, z directions (default: global); the frames on both links are the
    bushing's frame at its centre."""

    kind = "bushing"
    size = 6
    rotational = (False, False, False, True, True, True)
    marker = "p"
    view_symbol = "circle-open"

    @property
    def family(self):
        return BUSHING

    @classmethod
    def read_axes(cls, where, kind, axis, axes):
        if axis is not None:
            raise ModelError(f"{where}: axis", f"a {kind} takes axes=(x, y, z), not an axis")
        return None, tuple(map(tuple, check_axes(axes, f"{where}: axes"))), {}

    def frames(self, at, axis=None, axes=None):
        frame = bushing_frame(at, np.eye(3) if axes is None else axes)
        return frame, frame.copy()

    def mirror_problem(self, pair, mirror, image_at, tolerance, plane):
        return "a bushing is not mirrored (declare each side's)"


class Weld(Bushing):
    """No freedom: the bushing of the rigid variant that replaces no pair (its links move as one)."""

    kind = "weld"
    size = 0
    rotational = ()
    marker = "P"
    view_symbol = "square-open"


#: The bushing family (its turns' twists move with the slides and the earlier turns).
BUSHING = PairFamily("bushing", (Bushing, Weld), matrix, twist, twist_rate)
