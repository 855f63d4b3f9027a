"""Pair matrices ``A(q)``, unit twists ``S_k(q)`` and their rates, compiled from the pair families.

The arithmetic is the families' own (:mod:`mechanism.pairs`, one module per family: plain
functions in the subset of Python numba compiles); this module compiles each family's
functions and builds, from the registry :data:`mechanism.pairs.FAMILIES`, one dispatch per
function over the pair's family code (its place in the registry, ``topology.family``):

``pair_matrix(family, parameters, q, start, size, rotation, out)``
    ``A`` (4, 4) of a pair whose variables are ``q[start:start + size]``, constants
    ``parameters`` (``topology.parameters[p]``) and rotation state ``rotation`` (3, 3; read by
    the spherical family only).
``pair_twist(family, parameters, q, start, k, out)``
    ``S_k`` (6,) of its variable k, in frame j: ``dA = sum_k hat(S_k) A dq_k``.
``pair_twist_rate(family, parameters, q, q_dot, start, k, out)``
    ``dS_k/dt`` (6,) due to the pair's own motion; returns False when it is zero (the callers
    skip carrying it to the world frame).

:func:`twist_rates` evaluates the rates of one pair type at many configurations from Python.

A dispatch is a chain of compiled closures, one per family, each testing its code and
otherwise calling the next; all are inlined into the kernels that call them (numba's
``inline="always"``), so a pair costs the comparisons of the families before its own and the
family's arithmetic, as a hand-written ``if``/``elif`` would. The callers' on-disk cache
holds the inlined code; :mod:`._compile` renews it when a family module changes (its digest
covers :mod:`mechanism.pairs`).
"""

from __future__ import annotations

import numpy as np

from mechanism.pairs import FAMILIES, family_code

from ._compile import inline_kernel, kernel

__all__ = ["pair_matrix", "pair_twist", "pair_twist_rate", "twist_rates"]


@inline_kernel
def _no_matrix(family, parameters, q, start, size, rotation, out):
    """End of the chain: a code no family has leaves ``out`` as it is."""


@inline_kernel
def _no_twist(family, parameters, q, start, k, out):
    """End of the chain: a code no family has leaves ``out`` as it is."""


@inline_kernel
def _no_twist_rate(family, parameters, q, q_dot, start, k, out):
    """End of the chain: a code no family has moves no twist."""
    return False


def _matrix_link(code, matrix, otherwise):
    @inline_kernel
    def pair_matrix(family, parameters, q, start, size, rotation, out):
        if family == code:
            matrix(parameters, q, start, size, rotation, out)
        else:
            otherwise(family, parameters, q, start, size, rotation, out)
    return pair_matrix


def _twist_link(code, twist, otherwise):
    @inline_kernel
    def pair_twist(family, parameters, q, start, k, out):
        if family == code:
            twist(parameters, q, start, k, out)
        else:
            otherwise(family, parameters, q, start, k, out)
    return pair_twist


def _twist_rate_link(code, twist_rate, otherwise):
    @inline_kernel
    def pair_twist_rate(family, parameters, q, q_dot, start, k, out):
        if family == code:
            return twist_rate(parameters, q, q_dot, start, k, out)
        return otherwise(family, parameters, q, q_dot, start, k, out)
    return pair_twist_rate


def _dispatch(link, end, name):
    """The chain over every family of the registry, the first family tested first."""
    chain = end
    for code in range(len(FAMILIES) - 1, -1, -1):
        chain = link(code, inline_kernel(getattr(FAMILIES[code], name)), chain)
    return chain


pair_matrix = _dispatch(_matrix_link, _no_matrix, "matrix")
pair_twist = _dispatch(_twist_link, _no_twist, "twist")
pair_twist_rate = _dispatch(_twist_rate_link, _no_twist_rate, "twist_rate")


@kernel
def _twist_rates_each(family, parameters, size, q, q_dot, out):
    for i in range(q.shape[0]):
        for k in range(size):
            if not pair_twist_rate(family, parameters, q[i], q_dot[i], 0, k, out[i, k]):
                for r in range(6):
                    out[i, k, r] = 0.0


def twist_rates(pair_type, q, q_dot):
    """``dS_k/dt`` of a pair type at stacked values ``q`` and rates ``q_dot`` (broadcasting
    ``(..., k)`` each), frame j: ``(..., k, 6)``. The Python layer's way to the compiled twist
    rates over many configurations (the design studies' sensitivities)."""
    q, q_dot = np.broadcast_arrays(np.asarray(q, dtype=float), np.asarray(q_dot, dtype=float))
    size = pair_type.size
    out = np.empty(q.shape + (6,))
    _twist_rates_each(family_code(pair_type), pair_type.parameters(), size,
                      np.ascontiguousarray(q.reshape(-1, size)), np.ascontiguousarray(q_dot.reshape(-1, size)),
                      out.reshape(-1, size, 6))
    return out
