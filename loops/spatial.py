"""Twists and rotations over stacked arrays for the Python layer: the kernels' maps, broadcast.

The one implementation of these maps is compiled (:mod:`loops.kernels.rigid`,
:mod:`loops.kernels.rotations`); the functions here broadcast their arguments over the
leading axes (numpy's rules), run the kernels over the rows (:mod:`loops.kernels.stacked`,
loaded on the first call, so that importing this module loads no compiler) and give the
result the broadcast shape. A twist is ``(omega, v)`` with ``v`` the velocity of the body
point at the origin of the frame it is written in (:mod:`mechanism.transforms`).
"""

from __future__ import annotations

import numpy as np

from .kernel_arrays import kernel_array

__all__ = ["transform_twists", "lie_bracket", "shift_twists", "dexp_inverse"]


def _rows(arrays, tails):
    """The arrays broadcast over their leading axes (each with its trailing shape ``tail``),
    as stacks of rows as the kernels take them (:func:`.kernel_array`: a read-only array, a
    result's, or a broadcast view would each compile a second version of the kernel); and the
    leading shape."""
    arrays = [np.asarray(a, dtype=float) for a in arrays]
    lead = np.broadcast_shapes(*(a.shape[:a.ndim - len(tail)] for a, tail in zip(arrays, tails)))
    rows = [kernel_array(a if a.shape == lead + tail else np.broadcast_to(a, lead + tail), (-1,) + tail)
            for a, tail in zip(arrays, tails)]
    return rows, lead


def transform_twists(T, xi):
    """``Ad(T) xi`` for transforms ``T`` (..., 4, 4) and twists ``xi`` (..., 6): ``(..., 6)``,
    ``omega' = R omega``, ``v' = R v + p x (R omega)``."""
    from .kernels.stacked import transform_twist_rows  # noqa: PLC0415 (kernels on first use)

    (T, xi), lead = _rows((T, xi), ((4, 4), (6,)))
    out = np.empty(xi.shape)
    transform_twist_rows(T, xi, out)
    return out.reshape(lead + (6,))


def lie_bracket(a, b):
    """``[a, b] = (w_a x w_b, w_a x v_b + v_a x w_b)`` of twists (..., 6): the rate of a twist
    ``b`` fixed in a body moving with twist ``a``."""
    from .kernels.stacked import lie_bracket_rows  # noqa: PLC0415

    (a, b), lead = _rows((a, b), ((6,), (6,)))
    out = np.empty(a.shape)
    lie_bracket_rows(a, b, out)
    return out.reshape(lead + (6,))


def shift_twists(xi, c):
    """Twists ``xi`` (..., 6) referred to the points ``c`` (..., 3, m) instead of the origin:
    ``(omega, v + omega x c)`` (the adjoint of the translation by ``-c``)."""
    from .kernels.stacked import shift_twist_rows  # noqa: PLC0415

    (xi, c), lead = _rows((xi, c), ((6,), (3,)))
    out = np.empty(xi.shape)
    shift_twist_rows(xi, c, out)
    return out.reshape(lead + (6,))


def dexp_inverse(w, v, transposed=False):
    """``J_l(w)^-1 v`` (``transposed``: ``J_l(w)^-T v``) for rotation vectors ``w`` (..., 3, rad,
    ``|w| < 2 pi``) and vectors ``v`` (..., 3). ``J_l`` is the left Jacobian of ``exp`` on SO(3):
    ``J_l(w)^-1 omega`` is the rate of ``w`` for the angular velocity ``omega`` (left increments),
    ``J_l(w)^-T u`` the gradient of ``w . u`` along left increments."""
    from .kernels.stacked import dexp_inverse_rows  # noqa: PLC0415

    (w, v), lead = _rows((w, v), ((3,), (3,)))
    out = np.empty(w.shape)
    dexp_inverse_rows(w, v, bool(transposed), out, np.empty((2, 3)))
    return out.reshape(lead + (3,))
