"""Twists along the spanning tree (METHOD.md eq. 5 differentiated), compiled: the one propagation.

A link's absolute matrix is its parent's times the tree pair's, so its twist (velocity,
acceleration, or partial velocity along one driven coordinate) is its parent's plus the
tree pair's contribution, in global axes at the origin:

    out_child = out_parent + sign sum_k (xi_k rate_k + extra_k)

over the tree pair's variables ``k`` (``sign`` +1 when the tree walks the pair from its first
link, ``xi_k`` its world twist). Velocities take ``rate = q'`` and no ``extra``; accelerations
``rate = q''`` and ``extra = xi_k' q_k'`` (the rate-only part, :mod:`.acceleration`); the
partial velocities of the dynamics one column of the transmission matrix at a time
(:mod:`dynamics.kernels.motion`).
"""

from __future__ import annotations

from ._compile import internal_kernel
from .arrays import copy_vector

__all__ = ["tree_twists"]


@internal_kernel(forceinline=True)
def tree_twists(topology, xi, rates, extra, out):
    """``out`` (L, 6): every link's twist ``(omega, v_o)`` from the variables' ``rates`` (n,) and,
    unless ``extra`` is None, the variables' ``extra`` twists (n, 6); the ground's is zero."""
    out[topology.ground, :] = 0.0
    for child in topology.tree_order:
        p = topology.tree_pair[child]
        sign = topology.forward[child]
        copy_vector(out[topology.parent[child]], out[child])
        for col in range(topology.start[p], topology.start[p] + topology.size[p]):
            rate = rates[col]
            if extra is None:
                for r in range(6):
                    out[child, r] += sign * (xi[col, r] * rate)
            else:
                for r in range(6):
                    out[child, r] += sign * (xi[col, r] * rate + extra[col, r])
