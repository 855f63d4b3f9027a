"""Element-wise copies between arrays of one shape, compiled without allocating.

The kinematic kernels run without numba's reference counting (:mod:`._compile`), and an
array assignment ``a[:] = b`` needs it (numba copies ``b`` first in case the two overlap):
the kernels copy with these loops instead.
"""

from __future__ import annotations

from ._compile import inline_kernel

__all__ = ["copy_vector", "copy_matrix", "copy_stack"]


@inline_kernel
def copy_vector(source, target):
    """``target[:] = source`` for (n,) arrays."""
    for i in range(source.shape[0]):
        target[i] = source[i]


@inline_kernel
def copy_matrix(source, target):
    """``target[:, :] = source`` for (n, m) arrays."""
    for i in range(source.shape[0]):
        for j in range(source.shape[1]):
            target[i, j] = source[i, j]


@inline_kernel
def copy_stack(source, target):
    """``target[:, :, :] = source`` for (n, m, k) arrays."""
    for i in range(source.shape[0]):
        for j in range(source.shape[1]):
            for k in range(source.shape[2]):
                target[i, j, k] = source[i, j, k]
