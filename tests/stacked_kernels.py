"""The one implementation of pair matrices and SO(3)/SE(3) maps, evaluated over stacked arrays for tests.

* :class:`FamilyPair`: a pair type of :mod:`mechanism.pairs` evaluated through its family's
  plain functions (as the kernels inline them, here uncompiled), with the interface of the
  numpy oracle (:mod:`oracles.pairs`): ``matrix``, ``twists``, ``operators``, ``twist_rates``,
  ``advance``, ``value_rates``.
* ``exp_so3``, ``log_so3``: the scalar kernels of :mod:`loops.kernels.rotations` looped over
  the leading axes (compiled, or plain Python with ``NUMBA_DISABLE_JIT=1``); and, as the
  Python layer has them, ``dexp_inverse``, ``transform_twists``, ``lie_bracket``,
  ``shift_twists`` (:mod:`loops.spatial`, over the kernels of :mod:`loops.kernels.stacked`).
"""

from __future__ import annotations

import numpy as np

from loops.kernel_arrays import kernel_array
from loops.spatial import dexp_inverse, lie_bracket, shift_twists, transform_twists  # noqa: F401 (tests import them here)
from oracles.transforms import twist_matrix


def _kernels():
    from loops.kernels import rotations  # noqa: PLC0415 (numba on first use)

    return rotations


def _each(function, inputs, out_shape):
    """``function(*rows, out_row)`` over the broadcast leading axes of ``inputs`` (each given with
    its own trailing shape), into a new array of trailing shape ``out_shape``."""
    arrays = [np.asarray(a, dtype=float) for a, _ in inputs]
    lead = np.broadcast_shapes(*(a.shape[:a.ndim - len(tail)] for a, (_, tail) in zip(arrays, inputs)))
    flat = [kernel_array(np.broadcast_to(a, lead + tail), (-1,) + tail) for a, (_, tail) in zip(arrays, inputs)]
    out = np.empty((int(np.prod(lead, dtype=int)),) + out_shape)
    for i in range(out.shape[0]):
        function(*(f[i] for f in flat), out[i])
    return out.reshape(lead + out_shape)


def exp_so3(w):
    """``(..., 3) -> (..., 3, 3)`` by :func:`loops.kernels.rotations.exp_so3`."""
    return _each(_kernels().exp_so3, [(w, (3,))], (3, 3))


def log_so3(R):
    """``(..., 3, 3) -> (..., 3)`` by :func:`loops.kernels.rotations.log_so3`."""
    return _each(_kernels().log_so3, [(R, (3, 3))], (3,))


class FamilyPair:
    """A pair type evaluated through its family's functions over stacked values ``(..., k)``.

    A type with a rotation state (spherical) takes its rotation from the value, ``R = exp(q)``,
    and advances it as the corrector does: ``R <- exp(dq) R``, re-seated as ``log(R)``.
    """

    def __init__(self, pair_type):
        self.pair_type = pair_type
        self.family = pair_type.family
        self.parameters = pair_type.parameters()
        for name in ("kind", "size", "rotational", "additive", "rotation_state"):
            setattr(self, name, getattr(pair_type, name))
        for name in ("beta", "pitch"):
            if hasattr(pair_type, name):
                setattr(self, name, getattr(pair_type, name))

    def __repr__(self):
        return f"FamilyPair({self.pair_type!r})"

    def _rows(self, q):
        q = np.asarray(q, dtype=float)
        return q.shape[:-1], kernel_array(q, (-1, self.size))

    def matrix(self, q):
        lead, rows = self._rows(q)
        rotations = exp_so3(rows) if self.rotation_state else np.zeros((len(rows), 3, 3))
        out = np.empty((len(rows), 4, 4))
        for i, row in enumerate(rows):
            self.family.matrix(self.parameters, row, 0, self.size, rotations[i], out[i])
        return out.reshape(lead + (4, 4))

    def twists(self, q):
        lead, rows = self._rows(q)
        out = np.empty((len(rows), self.size, 6))
        for i, row in enumerate(rows):
            for k in range(self.size):
                self.family.twist(self.parameters, row, 0, k, out[i, k])
        return out.reshape(lead + (self.size, 6))

    def operators(self, q):
        return twist_matrix(self.twists(q))

    def twist_rates(self, q, q_dot):
        lead, rows = self._rows(q)
        _, rates = self._rows(np.broadcast_to(q_dot, np.shape(q)))
        out = np.zeros((len(rows), self.size, 6))
        if self.family.twist_rate is None:  # constant twists
            return out.reshape(lead + (self.size, 6))
        for i, (row, rate) in enumerate(zip(rows, rates)):
            for k in range(self.size):
                if not self.family.twist_rate(self.parameters, row, rate, 0, k, out[i, k]):
                    out[i, k] = 0.0
        return out.reshape(lead + (self.size, 6))

    def advance(self, q, dq):
        q = np.asarray(q, dtype=float)
        if not self.rotation_state:
            return q + dq
        rotations = _kernels()
        lead, rows = self._rows(q)
        _, steps = self._rows(np.broadcast_to(dq, q.shape))
        R = exp_so3(rows)
        E, scratch = np.empty((3, 3)), np.empty((3, 3))
        for i, step in enumerate(steps):
            rotations.rotate_left(step, R[i], E, scratch)
        return log_so3(R).reshape(lead + (3,))

    def value_rates(self, q, omega):
        """Rate of a rotation-state value (rotation vector) for the angular velocity ``omega``."""
        return dexp_inverse(q, omega)
