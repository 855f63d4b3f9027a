"""Passive (idle) freedoms and the gauge that keeps them at their values.

A link whose pairs all lie on one line, each allowing it to turn about that line (a tie
rod between two balls), can spin about the line without moving anything else: an idle
freedom. The loop equations do not fix it; DESIGN.md asks that it keep its value. Minimum-
norm rates are not enough when the spin lives in spherical pairs: their increments are
rotations about fixed axes, which do not commute, so the spin reached by integrating them
would depend on the path and the step sizes of a sweep.

The gauge is one holonomic equation per idle link: the link does not twist about its own
line since the reference,

    g = w . u = 0,   w = log(R R_ref^T)                                     (gauge)

with ``R`` the link's absolute rotation, ``R_ref`` its rotation at the reference assembly
and ``u`` its line there (global axes): the link's rotation since the reference is a pure
swing. Its derivative along the link's angular velocity ``omega`` (``R' = hat(omega) R``) is

    g' = (J_l(w)^-T u) . omega,   J_l^-T = 1 + 1/2 hat(w) + c(t) hat(w)^2,
    c(t) = 1/t^2 - (1 + cos t) / (2 t sin t),   t = |w|

with ``J_l`` the left Jacobian of SO(3), and ``omega`` the sum of the twists on the link's
tree path. The gauge's value and row are computed with the closure in
:mod:`loops.kernels.closure`, its acceleration term in :mod:`loops.kernels.acceleration`. The gauge depends only on the link's own motion (not on the order of its pairs)
and is singular only where ``|w|`` reaches half a turn, that is when the link's line has
turned round to face the other way. (No gauge is free of singularities: choosing one spin
for every direction of the line would be a continuous section of SO(3) over the sphere,
which does not exist. A gauge on the link's rotation relative to a neighbour would be
singular at every half turn of that neighbour, every crank revolution of an RSSR.)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mechanism.specs import GROUND
from mechanism.transforms import cross

__all__ = ["idle_spin", "Gauge", "find_gauges", "pairs_touching", "bushing_rates", "SPIN_ENERGY"]


def pairs_touching(topology, link) -> np.ndarray:
    """Indices of the pairs joining link index ``link`` to another, in pair order."""
    return np.flatnonzero((topology.first == link) | (topology.second == link))


#: A spin deflects a bushing when its energy per unit spin squared, ``x^T K x`` with the
#: bushing's rates ``x`` (dimensionless: slides in sizes) and stiffness ``K`` (in column
#: units), exceeds this fraction of the stiffness's largest entry: above round-off.
SPIN_ENERGY = 1e-12


def bushing_rates(system) -> dict:
    """``{pair index: (6, 6) stiffness}`` of the bushings that are pairs of ``system`` (the
    compliant variant), in their variables' column units (N m per unit: rad, or sizes), so
    that ``x^T K x`` is an energy per unit dimensionless motion."""
    model = system.model
    if not getattr(model, "use_bushings", False):
        return {}
    scale = system.column_scale
    out = {}
    for bushing in model.bushings:
        index = system.pair_index.get(bushing.name)
        if index is not None:
            columns = scale[system.pair_slices[bushing.name]]
            out[index] = columns[:, None] * bushing.stiffness_matrix() * columns[None, :]
    return out


def idle_spin(system, config, link, rates_of_bushings=None):
    """Variable rates spinning ``link`` about the line through its pairs, nothing else moving.

    Returns ``(rates (n,), direction (3,) global)`` or None when the link's pairs are not on
    one line (two distinct centres at least), one of them does not allow the spin, or the
    spin deflects a bushing (``rates_of_bushings``, :func:`bushing_rates`): a tie rod between
    two bushings turns against their torsional rates, a real (elastic) freedom that the
    loads settle, not an idle one that a gauge may hold.
    """
    index = system.link_index[link]
    topology = system.topology
    touching = system.pairs_of(index)
    if len(touching) < 2:
        return None  # a link hanging on one pair has a real freedom
    centres = config.pair_frames[touching, :3, 3]
    spread = centres - centres[0]
    far = int(np.argmax(np.linalg.norm(spread, axis=1)))
    length = np.linalg.norm(spread[far])
    if length < 1e-9 * system.scale:
        return None
    direction = spread[far] / length
    off_line = spread - np.outer(spread @ direction, direction)
    if np.abs(off_line).max() > 1e-9 * system.scale:
        return None
    spin = np.r_[direction, cross(centres[0], direction)]  # unit twist about the line
    rates = np.zeros(system.n)
    for i in touching:
        cols = np.arange(topology.start[i], topology.start[i] + topology.size[i])
        # The pair's relative motion (second w.r.t. first) must be +-spin.
        wanted = spin if topology.second[i] == index else -spin
        basis = config.twists[cols].T
        x, *_ = np.linalg.lstsq(basis, wanted, rcond=None)
        if np.linalg.norm(basis @ x - wanted) > 1e-8 * max(1.0, system.scale):
            return None
        rates[cols] = x
        stiffness = (rates_of_bushings or {}).get(int(i))
        if stiffness is not None:
            dimensionless = x / system.column_scale[cols]
            if dimensionless @ stiffness @ dimensionless > SPIN_ENERGY * np.abs(stiffness).max():
                return None
    return rates, direction


@dataclass(frozen=True)
class Gauge:
    """The gauge of one idle link: ``link`` (its index), ``axis`` (3,) its line at the
    reference (global, unit), ``reference`` (3, 3) its rotation there."""

    link: int
    axis: np.ndarray
    reference: np.ndarray


def find_gauges(system, config) -> list[Gauge]:
    """Gauges for the idle links of ``system`` at the (closed) reference ``config``."""
    gauges = []
    rates_of_bushings = bushing_rates(system)
    for link in system.link_names:
        if system.links[system.link_index[link]].virtual or link == GROUND:
            continue
        found = idle_spin(system, config, link, rates_of_bushings)
        if found is not None:
            index = system.link_index[link]
            gauges.append(Gauge(index, found[1], config.link_poses[index, :3, :3].copy()))
    return gauges
