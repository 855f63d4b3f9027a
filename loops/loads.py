"""Applied loads of a model, compiled into the arrays of :mod:`loops.kernels.loads`.

Loads come in two forms every formulation shares (see :mod:`loops.kernels.loads`): pair
forces in pair variables (pair springs, viscous pair dampers, external pair forces, bushings)
and wrenches on links (point forces, free link moments, point-to-point spring-dampers). The statics
(:mod:`loops.statics`) and the dynamics take them alike. Load values are numbers
(or 3-vectors), tables ``(times, values)`` interpolated linearly and held constant beyond
their ends, or functions of time ``f(t)``. Numbers and tables become arrays; functions are
registered under a key and called back from the compiled code by :func:`call_load_into`, which
checks what they return (a located one-line error naming the load and the time).

Prescribed (rheonomic) motions ``f(t) -> (value, rate, second rate)`` travel the same way.
"""

from __future__ import annotations

import itertools
import math
import weakref

import numpy as np

from mechanism.errors import ModelError

from .kernels.state import LoadArrays, Weights

__all__ = ["LoadArrays", "Weights", "compile_loads", "compile_weights", "load_function", "call_load",
           "call_load_into", "constant_motion"]


_REGISTRY: dict = {}
_KEYS = itertools.count()


def call_load(key, t):
    """Value of the registered load function ``key`` at ``t`` (s): float64 array (1,) or (3,).

    Raises the function's located ModelError.
    """
    return _REGISTRY[key](float(t))


def call_load_into(key, t, out, row, rows, columns):
    """``out[row] = call_load(key, t)``: called from compiled code (numba object mode), where
    ``out`` (rows, columns) is the kernel's array of load values.

    Raises RuntimeError when ``out`` does not have the shape the kernel saw: numba without
    reference counting hands object mode the array a view was taken from, and writing into
    it would put the value in the wrong place.
    """
    if out.shape != (rows, columns):
        raise RuntimeError(f"load values: object mode got an array of shape {out.shape}, the kernel's is "
                           f"{(rows, columns)} (a view taken inside a kernel)")
    out[row] = call_load(key, t)


def load_function(value, size, where):
    """A checked function of time returning a float (``size`` 1) or a (3,) array, from a load
    value (function, table or constant). Raises :class:`ModelError` at ``where`` when a
    function returns a non-finite value or the wrong number of components."""
    if callable(value):
        def evaluate(t):
            try:
                out = np.asarray(value(t), dtype=float)
            except (TypeError, ValueError, OverflowError) as exc:
                raise ModelError(where, f"f({t:.6g}) did not return numbers: {str(exc)[:80]}") from None
            if size == 1:
                if out.size != 1:
                    raise ModelError(where, f"f({t:.6g}) returned {out.size} values, expected one")
                out = float(out.reshape(()))
                if not math.isfinite(out):
                    raise ModelError(where, f"f({t:.6g}) is not finite")
                return out
            if out.shape != (size,) or not np.all(np.isfinite(out)):
                raise ModelError(where, f"f({t:.6g}) must return {size} finite numbers, got {str(out)[:60]}")
            return out
        return evaluate
    if isinstance(value, tuple) and len(value) == 2:
        times = np.asarray(value[0], dtype=float)
        values = np.asarray(value[1], dtype=float)
        if size == 1:
            values = values.reshape(len(times))
            return lambda t: float(np.interp(t, times, values))
        values = values.reshape(len(times), size)
        return lambda t: np.array([np.interp(t, times, values[:, k]) for k in range(size)])
    constant = np.asarray(value, dtype=float)
    if size == 1:
        number = float(constant.reshape(()))
        return lambda t: number
    constant = constant.reshape(size)
    return lambda t: constant


def constant_motion(value):
    """A prescribed motion held at ``value``: ``t -> (value, 0, 0)``."""
    return (np.zeros(1), np.array([[float(value), 0.0, 0.0]]))


class _Tables:
    """Collects loads as (key, table) rows: a callback key or -1, and the table rows."""

    def __init__(self, width):
        self.width = width
        self.keys, self.ptr, self.times, self.values = [], [0], [], []

    def add(self, value, size, where, owner):
        if callable(value):
            checked = load_function(value, size, where)
            key = next(_KEYS)
            _REGISTRY[key] = lambda t, f=checked, s=size: np.atleast_1d(np.asarray(f(t), dtype=np.float64))
            weakref.finalize(owner, _REGISTRY.pop, key, None)
            self.keys.append(key)
            times, values = np.zeros(1), np.zeros((1, self.width))
        else:
            self.keys.append(-1)
            if isinstance(value, tuple) and len(value) == 2:
                times = np.asarray(value[0], dtype=float)
                values = np.asarray(value[1], dtype=float).reshape(len(times), self.width)
            else:
                times = np.zeros(1)
                values = np.asarray(value, dtype=float).reshape(1, self.width)
        self.times.append(times)
        self.values.append(values)
        self.ptr.append(self.ptr[-1] + len(times))

    def arrays(self):
        times = np.concatenate(self.times) if self.times else np.zeros(0)
        values = np.concatenate(self.values) if self.values else np.zeros((0, self.width))
        return (np.array(self.keys, dtype=np.int64), np.array(self.ptr, dtype=np.int64), times,
                np.ascontiguousarray(values, dtype=float))


def compile_loads(system, model, owner, prescribed=()) -> LoadArrays:
    """The :class:`LoadArrays` of ``model``'s loads against its compiled ``system``.

    ``prescribed`` is a list of ``(column, f or number, name)``: motions moved as given.
    ``owner`` is the object whose lifetime the registered callbacks share.
    """
    springs = list(model.pair_springs)
    forces = _Tables(1)
    for f in model.pair_forces:
        forces.add(f.force, 1, f"pair force on {f.variable!r}", owner)
    points = _Tables(3)
    for f in model.point_forces:
        points.add(f.force, 3, f"point force {f.name!r}", owner)
    for f in model.link_moments:  # their rows follow the point forces' (LoadArrays)
        points.add(f.moment, 3, f"link moment {f.name!r}", owner)
    motions = _Tables(3)
    for _, f, name in prescribed:
        if callable(f):
            motions.add(f, 3, f"prescribed {name!r}", owner)
        else:
            motions.add(constant_motion(f), 3, f"prescribed {name!r}", owner)
    struts = list(model.spring_dampers)
    bushings = list(model.bushings) if model.use_bushings else []
    index = system.variable_index
    link = system.link_index
    return LoadArrays(
        np.array([index[s.variable] for s in springs], dtype=np.int64),
        np.array([s.stiffness for s in springs], dtype=float), np.array([s.free_value for s in springs], dtype=float),
        np.array([s.damping for s in springs], dtype=float),
        np.array([index[f.variable] for f in model.pair_forces], dtype=np.int64), *forces.arrays(),
        np.array([link[f.link] for f in model.point_forces], dtype=np.int64),
        np.array([f.at for f in model.point_forces], dtype=float).reshape(-1, 3), *points.arrays(),
        np.array([c for c, _, _ in prescribed], dtype=np.int64), *motions.arrays(),
        np.array([link[s.link_a] for s in struts], dtype=np.int64),
        np.array([link[s.link_b] for s in struts], dtype=np.int64),
        np.array([s.at_a for s in struts], dtype=float).reshape(-1, 3),
        np.array([s.at_b for s in struts], dtype=float).reshape(-1, 3),
        np.array([s.stiffness for s in struts], dtype=float), np.array([s.free_length for s in struts], dtype=float),
        np.array([s.damping for s in struts], dtype=float),
        np.array([system.pair_slices[b.name].start for b in bushings], dtype=np.int64),
        np.array([b.stiffness_matrix() for b in bushings], dtype=float).reshape(-1, 6, 6),
        np.array([b.damping_matrix() for b in bushings], dtype=float).reshape(-1, 6, 6),
        np.array([b.preload for b in bushings], dtype=float).reshape(-1, 6),
        np.array([s.damping_law == "quadratic" for s in struts], dtype=np.bool_),
        np.array([_circle(f.circle) for f in model.point_forces], dtype=float).reshape(-1, 7),
        np.array([link[f.link] for f in model.link_moments], dtype=np.int64))


def _circle(circle):
    """A point force's row of ``LoadArrays.point_circle``: axis, radius, toward; zeros for none."""
    if circle is None:
        return np.zeros(7)
    axis, radius, toward = circle
    return np.r_[axis, radius, toward]


def compile_weights(system, model) -> Weights:
    """The :class:`Weights` of ``model``'s links (its compiled ``system``'s order; virtual links
    weigh nothing)."""
    links = system.links
    masses = np.array([link.mass for link in links], dtype=float)
    coms = np.array([link.com for link in links], dtype=float).reshape(-1, 3)
    gravity = np.asarray(model.gravity, dtype=float)
    massive = np.flatnonzero(masses > 0.0).astype(np.int64) if np.any(gravity != 0.0) else np.zeros(0, np.int64)
    return Weights(masses, coms, gravity.copy(), massive)
