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

A dispatch is generated from the registry as Python source, an ``if``/``elif`` on the
family code calling each family's compiled function (a family whose twists are constant has
no ``twist_rate``), and compiled like every kernel: inlined into the kernels that call it
(numba's ``inline="always"``), it costs a pair the comparisons of the families before its
own and its family's arithmetic, as hand-written code would, and compiles as fast. Its
source is filed under this module (numba caches a function under its source file); the
callers' on-disk cache holds the inlined code, and :mod:`._compile` renews it when a family
module or the registry changes (its digest covers :mod:`mechanism.pairs`).
"""

from __future__ import annotations

from types import FunctionType

import numpy as np

from mechanism.pairs import FAMILIES, family_code

from ._compile import inline_kernel, kernel

__all__ = ["pair_matrix", "pair_twist", "pair_twist_rate", "twist_rates"]


def _family_kernel(function):
    """``function`` of a family compiled (inlined into its callers), every helper of its own
    module that it calls compiled with it: a family's functions are plain Python, so a helper
    they share is a plain function in the module's globals, which compiled code cannot call.
    The helpers are bound into a copy of the function's globals; the module keeps its own."""
    helpers = {name: _family_kernel(value) for name, value in function.__globals__.items()
               if name in function.__code__.co_names and isinstance(value, FunctionType)
               and value.__module__ == function.__module__}
    if helpers:
        function = FunctionType(function.__code__, {**function.__globals__, **helpers},
                                function.__name__, function.__defaults__, function.__closure__)
    return inline_kernel(function)


def _dispatch(name, arguments, otherwise):
    """The compiled ``pair_<name>(family, <arguments>)``: the function ``name`` of the family
    whose code is ``family``, returning what it returns (``otherwise`` for a family without
    it)."""
    functions, lines = {}, [f"def pair_{name}(family, {arguments}):"]
    for code, family in enumerate(FAMILIES):
        function = getattr(family, name)
        if function is None:
            continue
        functions[f"{family.name}_{name}"] = _family_kernel(function)
        lines += [f"    {'elif' if len(functions) > 1 else 'if'} family == {code}:",
                  f"        return {family.name}_{name}({arguments})"]
    lines.append(f"    return {otherwise}")
    exec(compile("\n".join(lines), __file__, "exec"), functions)  # noqa: S102 (source built above)
    return inline_kernel(functions[f"pair_{name}"])


pair_matrix = _dispatch("matrix", "parameters, q, start, size, rotation, out", None)
pair_twist = _dispatch("twist", "parameters, q, start, k, out", None)
pair_twist_rate = _dispatch("twist_rate", "parameters, q, q_dot, start, k, out", False)


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
    # copies, writable and contiguous: a read-only or broadcast argument would compile a second
    # version of the kernel
    _twist_rates_each(family_code(pair_type), pair_type.parameters(), size,
                      np.array(q.reshape(-1, size), order="C"), np.array(q_dot.reshape(-1, size), order="C"),
                      out.reshape(-1, size, 6))
    return out
