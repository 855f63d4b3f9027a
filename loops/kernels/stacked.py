"""The kernels' twist and rotation maps looped over stacks of rows, callable from Python.

Each takes C-contiguous stacks whose first axis runs over the rows, and writes ``out``;
:mod:`loops.spatial` broadcasts the Python layer's arrays into such stacks. The arithmetic is
that of :mod:`.rigid` and :mod:`.rotations` (the one implementation of these maps).
"""

from __future__ import annotations

from ._compile import kernel
from .rigid import lie_bracket, shift_twist, transform_twist
from .rotations import dexp_inverse

__all__ = ["transform_twist_rows", "lie_bracket_rows", "shift_twist_rows", "dexp_inverse_rows"]


@kernel
def transform_twist_rows(T, xi, out):
    """``out[i] = Ad(T[i]) xi[i]``: ``T`` (M, 4, 4), ``xi`` and ``out`` (M, 6)."""
    for i in range(xi.shape[0]):
        transform_twist(T[i], xi[i], out[i])


@kernel
def lie_bracket_rows(a, b, out):
    """``out[i] = [a[i], b[i]]``: (M, 6) each."""
    for i in range(a.shape[0]):
        lie_bracket(a[i], b[i], out[i])


@kernel
def shift_twist_rows(xi, c, out):
    """``out[i]`` = the twist ``xi[i]`` (M, 6) referred to the point ``c[i]`` (M, 3)."""
    for i in range(xi.shape[0]):
        shift_twist(xi[i], c[i], out[i])


@kernel
def dexp_inverse_rows(w, v, transposed, out, scratch):
    """``out[i] = J_l(w[i])^-1 v[i]`` (``transposed``: ``J_l(w[i])^-T v[i]``): (M, 3) each;
    ``scratch`` (2, 3)."""
    for i in range(w.shape[0]):
        dexp_inverse(w[i], v[i], transposed, out[i], scratch)
