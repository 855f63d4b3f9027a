"""Velocities from the differentiated closure (METHOD.md eq. 4), compiled.

``sum_k B_k q_k' = 0`` with the driven rates moved to the right: on the square block of
:mod:`loops.linear`, ``B_free q_free' = -B_driven q_driven'``, that is ``q' = G q_driven'``
with the transmission matrix ``G`` (:func:`loops.kernels.linear.transmission`). Link
velocities follow along the tree (:mod:`.tree`): a child link moves with its parent plus the
relative twist of the pair between them.
"""

from __future__ import annotations

from ._compile import inline_kernel, internal_kernel
from .linear import scaled_rhs, solution_at, solve_scaled
from .tree import tree_twists

__all__ = ["solve_with_drivers", "link_velocities"]


@inline_kernel
def solve_with_drivers(block, factor, rhs, driven_values, x, buffer):
    """``x`` (n,) with ``x[driven] = driven_values`` and ``B_free x_free = rhs - B_driven driven_values``
    on the chosen rows of ``rhs`` (rows,); physical units (eq. 4 with ``rhs = 0``). ``buffer``:
    scratch at least rows long."""
    d = block.driven.shape[0]
    b = scaled_rhs(block, rhs, buffer)
    for k in range(d):
        value = driven_values[k] / block.column_scale[block.driven[k]]
        x[block.driven[k]] = driven_values[k]
        if value != 0.0:
            for i in range(b.shape[0]):
                b[i] -= factor.driven[i, k] * value
    solve_scaled(block, factor, b)
    for col in block.free:
        x[col] = solution_at(block, factor, b, block.column_position[col]) * block.column_scale[col]


@internal_kernel(forceinline=True)
def link_velocities(topology, xi, q_dot, V):
    """Spatial velocities ``(omega, v_o)`` (L, 6) of every link, global, origin-referenced:
    ``V_child = V_parent + sign sum_k xi_k q_k'`` over the tree pair's variables (:func:`.tree.tree_twists`)."""
    tree_twists(topology, xi, q_dot, None, V)
