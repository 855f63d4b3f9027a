"""What a 3-D view draws of a mechanism, as plain arrays: the outline of each link, its pairs,
points, spring-dampers and wheels, in the coordinates of the link that carries them.

Nothing here imports plotly: this module turns a frozen model (:class:`mechanism.specs.Model`)
into vertex lists that :mod:`loops.views.scene` hands to the page. A vertex is a pair
``(link, r)``: ``r`` (3,) m in the link's frame, so that its global position at a sweep
position is ``T_0i r`` (eq. 5) with the link's pose ``T_0i`` there. For a model given by
global geometry the link frames are the global frame at the design pose (DESIGN.md), so
``r`` is the design-pose hardpoint itself.

Examples
--------
>>> from mechanism import load_model
>>> from loops.views.geometry import link_outlines
>>> outlines = link_outlines(load_model("examples/four_bar.toml").snapshot())
>>> [(link, [label for label, _ in nodes]) for link, nodes in outlines.items() if link == "crank"]
[('crank', ['A', 'B'])]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

__all__ = ["link_outlines", "pair_centres", "Wheel", "wheel_rim", "plane_normal", "model_extent",
           "PLANAR_TOLERANCE"]

#: Points whose spread off their best-fit plane is below this fraction of their extent lie in
#: that plane (a planar mechanism is then looked at face-on).
PLANAR_TOLERANCE = 1e-9


def link_outlines(model) -> dict:
    """``{link: [(label, r (3,) m)]}``: the nodes each real link is drawn through, in its frame.

    The nodes of a link are the centres of its pairs (in the order the model lists them),
    then its points; each label names the pair or point. The ground is included (its nodes
    are the fixed pivots); virtual links (a point driver's road loop) are not.
    """
    nodes = {link.name: [] for link in model.links if not link.virtual}
    for pair in model.pairs:
        if pair.virtual:
            continue
        for link, frame in ((pair.first, pair.frame_on_first), (pair.second, pair.frame_on_second)):
            if link in nodes:
                nodes[link].append((pair.name, np.asarray(frame, dtype=float)[:3, 3].copy()))
    for point in model.points:
        if point.link in nodes:
            nodes[point.link].append((point.name, np.asarray(point.at, dtype=float).copy()))
    return nodes


def pair_centres(model) -> list:
    """``[(pair, kind, first link, centre r (3,), axis (3,))]`` of every real pair, on its first
    link: the centre and the unit axis (the pair frame's z) in that link's frame."""
    out = []
    for pair in model.pairs:
        if pair.virtual:
            continue
        frame = np.asarray(pair.frame_on_first, dtype=float)
        out.append((pair.name, pair.kind, pair.first, frame[:3, 3].copy(), frame[:3, 2].copy()))
    return out


@dataclass(frozen=True)
class Wheel:
    """A wheel drawn as a disc on its spin axis.

    Attributes
    ----------
    link : str, the link that carries the wheel (the upright)
    centre : (3,) m, the wheel centre in that link's frame
    axis : (3,) unit vector, the spin axis in that link's frame
    radius : float, m
    label : str, for hover text
    """

    link: str
    centre: np.ndarray
    axis: np.ndarray
    radius: float
    label: str = "wheel"


def wheel_rim(wheel: Wheel, segments=48) -> np.ndarray:
    """``(segments + 1, 3)`` m: the rim of ``wheel`` as a closed polygon in its link's frame
    (the circle of its radius about the centre, in the plane normal to the spin axis)."""
    axis = np.asarray(wheel.axis, dtype=float)
    axis = axis / np.linalg.norm(axis)
    helper = np.eye(3)[int(np.argmin(np.abs(axis)))]
    u = np.cross(axis, helper)
    u /= np.linalg.norm(u)
    v = np.cross(axis, u)
    angle = np.linspace(0.0, 2.0 * math.pi, segments + 1)
    return wheel.centre + wheel.radius * (np.cos(angle)[:, None] * u + np.sin(angle)[:, None] * v)


def plane_normal(points):
    """The unit normal of the plane that holds every row of ``points`` (M, 3), within
    :data:`PLANAR_TOLERANCE` of their extent, or None when they are not planar (or too few)."""
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    points = points[np.all(np.isfinite(points), axis=1)]
    if len(points) < 3:
        return None
    centred = points - points.mean(axis=0)
    extent = float(np.abs(centred).max())
    if extent == 0.0:
        return None
    _, singular, vt = np.linalg.svd(centred, full_matrices=False)
    if len(singular) < 3 or singular[-1] > PLANAR_TOLERANCE * extent * math.sqrt(len(points)):
        return None
    normal = vt[-1]
    return normal / np.linalg.norm(normal)


def model_extent(points) -> float:
    """The largest side of the box around ``points`` (M, 3) (1 when they are fewer than two
    distinct points): the size that scales markers, pair axes and the axis triad."""
    points = np.asarray(points, dtype=float).reshape(-1, 3)
    points = points[np.all(np.isfinite(points), axis=1)]
    if not len(points):
        return 1.0
    size = float((points.max(axis=0) - points.min(axis=0)).max())
    return size if size > 0.0 else 1.0
