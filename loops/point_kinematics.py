"""Points on links over stacks of configurations: eqs. 5 and 6 for arrays with leading axes,
and link twists summed along the spanning tree.

Thin wrappers of the compiled :mod:`loops.kernels.points` (the one implementation of the
equations) for arrays of any leading shape: poses ``(..., 4, 4)``, spatial velocities and
accelerations ``(..., 6)``, positions ``(..., 3)``; and of the tree propagation of twists
(:func:`loops.kernels.acceleration.link_accelerations`) for stacks of positions and rates.
"""

from __future__ import annotations

import numpy as np

from .kernel_arrays import kernel_array

__all__ = ["point_positions", "point_velocities", "point_accelerations", "link_twists"]


def _flat(a, width):
    """``a`` as a stack of ``width``-shaped entries as the kernels take it (:func:`kernel_array`),
    and the leading shape."""
    a = np.asarray(a, dtype=float)
    return kernel_array(a, (-1,) + width), a.shape[:a.ndim - len(width)]


def _to(a, shape):
    """``a`` broadcast to ``shape``, or as it is when it has that shape already (a design study's
    sensitivities call these functions tens of thousands of times on small stacks)."""
    a = np.asarray(a, dtype=float)
    return a if a.shape == shape else np.broadcast_to(a, shape)


def point_positions(poses, r):
    """``T r`` (eq. 5): poses ``(..., 4, 4)``, link-frame coordinates ``r`` (3,), or one point per
    pose ``(..., 3)`` (a design study's variants), m -> ``(..., 3)`` m."""
    from .kernels.points import positions_of  # noqa: PLC0415 (kernels load on first use)

    T, shape = _flat(poses, (4, 4))
    R, _ = _flat(_to(r, shape + (3,)), (3,))
    out = np.empty((len(T), 3))
    positions_of(T, R, out)
    return out.reshape(shape + (3,))


def point_velocities(positions, link_velocities):
    """``omega x R + v_o`` (eq. 6): positions ``(..., 3)``, spatial velocities ``(..., 6)`` -> m/s."""
    from .kernels.points import velocities_of  # noqa: PLC0415

    P, shape = _flat(positions, (3,))
    V, _ = _flat(_to(link_velocities, shape + (6,)), (6,))
    out = np.empty((len(P), 3))
    velocities_of(P, V, out)
    return out.reshape(shape + (3,))


def point_accelerations(positions, velocities, link_velocities, link_accelerations):
    """``omega' x R + v_o' + omega x R'`` -> m/s^2 ``(..., 3)``."""
    from .kernels.points import accelerations_of  # noqa: PLC0415

    P, shape = _flat(positions, (3,))
    Pd, _ = _flat(velocities, (3,))
    V, _ = _flat(_to(link_velocities, shape + (6,)), (6,))
    A, _ = _flat(_to(link_accelerations, shape + (6,)), (6,))
    out = np.empty((len(P), 3))
    accelerations_of(P, Pd, V, A, out)
    return out.reshape(shape + (3,))


def link_twists(system, twists, rates, extra=None):
    """Every link's twist ``(omega, v_o)`` summed along the spanning tree (the one propagation of
    the velocities and accelerations, "Velocity (4) and acceleration" in METHOD.md):
    ``V_child = V_parent + sign sum_k (xi_k rate_k + extra_k)`` over the tree pair's variables.

    Parameters
    ----------
    system : the compiled system
    twists : (N, n, 6) the variables' world twists ``xi`` at N positions, origin-referenced
    rates : (N, K, n) K sets of the variables' rates per position (rad or m per unit)
    extra : (N, K, n, 6) twists added with each variable's (a pair's own term: give it on the
        pair's first variable), or None

    Returns
    -------
    (N, K, L, 6) the links' twists, global, origin-referenced; the ground's zero
    """
    from .kernels.at_positions import tree_twists_at_positions  # noqa: PLC0415

    rates = np.ascontiguousarray(rates, dtype=float)
    extra = np.zeros(rates.shape + (6,)) if extra is None else np.ascontiguousarray(extra, dtype=float)
    out = np.empty(rates.shape[:2] + (system.topology.links, 6))
    tree_twists_at_positions(system.topology, np.ascontiguousarray(twists, dtype=float), rates, extra, out)
    return out
