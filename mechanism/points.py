"""Point drivers: Pavlov's "road loop" of massless virtual links and pairs.

Driving a point's displacement (wheel travel) is not a pair variable of the real
mechanism. Pavlov adds a loop that makes it one: from the ground, three prismatic pairs
in series along ``direction`` and two directions normal to it, then a spherical pair at
the point onto the point's link. The first slide is the driver variable; the other two
slides and the ball take up whatever the mechanism does, so the loop adds six variables
and six closure equations and changes no mobility but the one the driver removes.
"""

from __future__ import annotations

import numpy as np

from .pairs import make_pair_type
from .specs import GROUND, LinkSpec, PairSpec

__all__ = ["road_loop", "virtual_name"]


def virtual_name(driver: str, part: str) -> str:
    """Name of a virtual link or pair of a driver's road loop (never a valid user name clash)."""
    return f"{driver}<{part}>"


def _normal_directions(direction):
    d = np.asarray(direction, dtype=float)
    helper = np.eye(3)[int(np.argmin(np.abs(d)))]
    e1 = np.cross(d, helper)
    e1 /= np.linalg.norm(e1)
    return e1, np.cross(d, e1)


def road_loop(driver, point) -> tuple[list[LinkSpec], list[PairSpec]]:
    """Virtual links and pairs that make ``driver`` (a PointDriverSpec) a pair variable.

    Parameters
    ----------
    driver : PointDriverSpec
    point : PointSpec
        The driven point (global at the design pose).

    Returns
    -------
    links : three massless virtual links
    pairs : prismatic ``driver.name`` (ground -> slide 1, along ``direction``), two normal
        prismatic pairs, and a spherical pair at the point onto ``point.link``.
    """
    at = point.at
    e1, e2 = _normal_directions(driver.direction)
    names = [virtual_name(driver.name, f"slide {i}") for i in (1, 2, 3)]
    links = [LinkSpec(n, virtual=True) for n in names]
    chain = [GROUND] + names
    pairs = []
    for i, (axis, pair_name) in enumerate(zip(
            (driver.direction, e1, e2),
            (driver.name, virtual_name(driver.name, "normal 1"), virtual_name(driver.name, "normal 2")))):
        slide = make_pair_type("prismatic")
        frame_j, frame_k = slide.frames(at, axis)
        pairs.append(PairSpec(pair_name, slide, chain[i], chain[i + 1],
                              frame_j, frame_k, at=at, axis=axis, virtual=i > 0))
    ball = make_pair_type("spherical")
    frame_j, frame_k = ball.frames(at)
    pairs.append(PairSpec(virtual_name(driver.name, "ball"), ball,
                          names[-1], point.link, frame_j, frame_k, at=at, virtual=True))
    return links, pairs
