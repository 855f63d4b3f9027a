"""Arrays as the compiled kernels take them: float64, C-contiguous and writable.

numba compiles a kernel once per type of its arguments, and an array's type includes its
layout and whether it is read-only. The Python layer hands the kernels read-only arrays (a
:class:`loops.configuration.Configuration`'s, an equilibrium's, a result's) and slices of
stacks; passed as they are, each would compile a second version of a kernel that the walk
already calls with its own writable, contiguous scratch. :func:`kernel_array` is the one rule
by which they are made alike: a copy only where the array is not already so.

Imports no numba (the kernels' Python callers import it only when a computation starts).
"""

from __future__ import annotations

import numpy as np

__all__ = ["kernel_array"]


def kernel_array(values, shape=None) -> np.ndarray:
    """``values`` as a float64, C-contiguous, writable array, reshaped to ``shape`` when given;
    ``values`` itself when it is one already (no copy), else a copy.

    The flags are read directly rather than through :func:`numpy.require`, whose own overhead is
    most of a small call's (point kinematics runs tens of thousands of times in a design study's
    sensitivities)."""
    a = np.asarray(values, dtype=float)
    if shape is not None:
        a = a.reshape(shape)
    if not (a.flags.c_contiguous and a.flags.writeable):
        a = np.array(a, order="C")
    return a
