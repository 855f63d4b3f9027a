"""Passive (idle) freedoms and the gauge that keeps them at their values.

A link whose pairs all lie on one line, each allowing it to turn about that line (a tie
rod between two balls), can spin about the line without moving anything else: an idle
freedom. The loop equations do not fix it, so something else must. Minimum-norm motion
is not enough when the spin lives in spherical pairs: their increments are rotations
about fixed axes, which do not commute, so the spin reached would depend on the path and
the step sizes of a sweep.

The gauge is one holonomic equation per idle link, on one of its spherical pairs: with
``w = log(R R_ref^T)`` the pair's rotation since the reference assembly (frame j axes) and
``u`` the link's line in the same axes at the reference,

    g = w . u = 0                                                           (gauge)

("swing, no twist": the rotation since the reference has no component along the line).
Its derivative along the pair's left increments ``dR = hat(dw) R`` is

    dg = (J_l(w)^-T u) . dw,   J_l^-T = 1 + 1/2 hat(w) + c(t) hat(w)^2,
    c(t) = 1/t^2 - (1 + cos t) / (2 t sin t),   t = |w|

with ``J_l`` the left Jacobian of SO(3). Idle links whose spin lives in revolute or
cylindrical pairs need no gauge: those variables are additive, and minimum-norm motion
keeps their idle combination constant exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from mechanism.transforms import cross, exp_so3, log_so3

__all__ = ["idle_spin", "Gauge", "find_gauges", "gauge_row"]


def idle_spin(system, config, link):
    """Variable rates spinning ``link`` about the line through its pairs, nothing else moving.

    Returns ``(rates (n,), direction (3,) global)`` or None when the link's pairs are not on
    one line (two distinct centres at least) or one of them does not allow the spin.
    """
    index = system.link_index[link]
    touching = [i for i, p in enumerate(system.pairs) if index in (system.first[i], system.second[i])]
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
        cols = np.arange(system.pair_slices[system.pairs[i].name].start,
                         system.pair_slices[system.pairs[i].name].stop)
        # The pair's relative motion (second w.r.t. first) must be +-spin.
        wanted = spin if system.second[i] == index else -spin
        basis = config.twists[cols].T
        x, *_ = np.linalg.lstsq(basis, wanted, rcond=None)
        if np.linalg.norm(basis @ x - wanted) > 1e-8 * max(1.0, system.scale):
            return None
        rates[cols] = x
    return rates, direction


@dataclass(frozen=True)
class Gauge:
    """The gauge of one idle link: a spherical pair's rotation has no twist about ``axis``.

    link : name of the idle link; pair : index of the spherical pair; spherical : its row in
    the system's spherical-pair arrays; axis : (3,) the line in frame j axes at the reference;
    reference : (3, 3) the pair's rotation at the reference.
    """

    link: str
    pair: int
    spherical: int
    axis: np.ndarray
    reference: np.ndarray


def find_gauges(system, config, spherical_members) -> list[Gauge]:
    """Gauges for the idle links of ``system`` at the (closed) reference ``config``."""
    gauges = []
    for link in system.link_names:
        if system.links[system.link_index[link]].virtual or link == system.link_names[system._ground]:
            continue
        found = idle_spin(system, config, link)
        if found is None:
            continue
        _, direction = found
        index = system.link_index[link]
        for row, pair in enumerate(spherical_members):
            if index in (system.first[pair], system.second[pair]):
                frame = config.pair_frames[pair]
                axis = frame[:3, :3].T @ direction
                gauges.append(Gauge(link, int(pair), row, axis, config.rotations[row].copy()))
                break
    return gauges


def _twist_since_reference(gauge, rotations):
    """``w = log(R R_ref^T)`` of the gauge's pair: (..., 3)."""
    R = rotations[..., gauge.spherical, :, :]
    return log_so3(R @ gauge.reference.T)


def _c(theta2):
    """``c(t) = 1/t^2 - (1 + cos t)/(2 t sin t)`` from ``t^2``; series below 1e-4 (error < 1e-17)."""
    theta2 = np.asarray(theta2)
    small = np.real(theta2) < 1e-4
    safe = np.where(small, 1.0, theta2)
    t = np.sqrt(safe)
    exact = 1.0 / safe - (1.0 + np.cos(t)) / (2.0 * t * np.sin(t))
    series = 1.0 / 12.0 + theta2 / 720.0 + theta2 ** 2 / 30240.0
    return np.where(small, series, exact)


def gauge_row(w, axis):
    """``J_l(w)^-T u``: the gauge's derivative along left increments, (..., 3). Complex-safe."""
    theta2 = np.sum(w * w, axis=-1)
    w_u = cross(w, np.broadcast_to(axis, w.shape)) if np.isrealobj(w) else _cross_any(w, axis)
    w_w_u = cross(w, w_u) if np.isrealobj(w) else _cross_any(w, w_u)
    return axis + 0.5 * w_u + _c(theta2)[..., None] * w_w_u


def _cross_any(a, b):
    a, b = np.broadcast_arrays(a, b)
    return np.stack([a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
                     a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
                     a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0]], axis=-1)


def gauge_values(gauges, rotations):
    """Gauge residuals ``w . u`` (rad), (..., k)."""
    if not gauges:
        return np.zeros(rotations.shape[:-3] + (0,))
    return np.stack([_twist_since_reference(g, rotations) @ g.axis for g in gauges], axis=-1)


def gauge_rows(gauges, rotations, spherical_cols, n):
    """Rows of the linearized gauge equations over all variables, (..., k, n)."""
    rows = np.zeros(rotations.shape[:-3] + (len(gauges), n))
    for i, g in enumerate(gauges):
        rows[..., i, spherical_cols[g.spherical]] = gauge_row(_twist_since_reference(g, rotations), g.axis)
    return rows


def gauge_rates(gauges, rotations, spherical_cols, q_dot):
    """``d/dt (row) . omega`` of each gauge, (..., k): the velocity-product term of its
    acceleration equation. ``w' = J_l(w)^-1 omega``; the row's rate by a complex step
    (exact to round-off for this analytic function)."""
    if not gauges:
        return np.zeros(rotations.shape[:-3] + (0,))
    out = []
    step = 1e-30
    for g in gauges:
        w = _twist_since_reference(g, rotations)
        omega = q_dot[..., spherical_cols[g.spherical]]
        # J_l^-1 omega = omega - 1/2 w x omega + c w x (w x omega)
        w_o = cross(w, omega)
        w_dot = omega - 0.5 * w_o + _c(np.sum(w * w, axis=-1))[..., None] * cross(w, w_o)
        row_rate = np.imag(gauge_row(w + 1j * step * w_dot, g.axis)) / step
        out.append(np.sum(row_rate * omega, axis=-1))
    return np.stack(out, axis=-1)
