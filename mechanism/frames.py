"""Pair frames from design-pose geometry (mechanism/METHOD.md, "Frames from points").

At the design pose every link frame is the global frame, so a pair's two frames, one
fixed in each of its links, are plain global frames there; Pavlov fixes each by three
points (origin, a point on +X, a point on +Z), and :func:`pair_frames` chooses those
points from the pair's location and axis so the user never has to.
"""

from __future__ import annotations

import numpy as np

from .transforms import frame_from_axis, frame_from_points, translation

__all__ = ["pair_frames"]


def pair_frames(kind: str, at, axis=None, axes=None):
    """Frames ``(T_0j, T_0k)`` (4x4 each, global at the design pose) of a pair.

    * revolute, prismatic, cylindrical, helical: one frame for both links, origin ``at``,
      Z along ``axis``, X the global axis least parallel to Z made normal to it;
    * Hooke: origin at the cross centre ``at``; Z_j along the first pin, Z_k along the
      second, both X along ``t = Z_j x Z_k`` so that ``A = Rot_x(beta)`` at the design pose;
    * spherical: both frames with the global axes at ``at`` (the pair's value is then the
      rotation vector in global axes at the design pose, as DESIGN.md states).
    """
    at = np.asarray(at, dtype=float)
    if kind == "spherical":
        frame = translation(at)
        return frame, frame.copy()
    if kind == "hooke":
        pin_j, pin_k = (np.asarray(a, dtype=float) for a in axes)
        t = np.cross(pin_j, pin_k)
        frame_j = frame_from_points(at, at + t, at + pin_j)
        frame_k = frame_from_points(at, at + t, at + pin_k)
        return frame_j, frame_k
    frame = frame_from_axis(at, axis)
    return frame, frame.copy()
