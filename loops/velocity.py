"""Velocities from the differentiated closure (METHOD.md eq. 4): ``sum_k B_k q_k' = 0``.

With the drivers' columns moved to the right-hand side, ``B_free q_free' = -B_driven q_driven'``
is solved in the least-squares, minimum-norm sense through a rank-revealing SVD of the
dimensionless ``B`` (rows and columns weighed by :attr:`KinematicSystem.row_scale` and
:attr:`~KinematicSystem.column_scale`). Minimum norm is what keeps freedoms that no driver
fixes (a tie rod's spin, a wheel on its hub) at rest. The same factorization serves the
acceleration solve and the sweep's predictor, and a sweep reuses the one its Newton step
made a few micro-radians away, refined iteratively against the exact ``B`` (each refinement
pass multiplies the error by the relative change of ``B``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["RANK_TOLERANCE", "Factorization", "ClosureLinearization", "solve_velocity"]

#: Singular values below this fraction of the largest are taken as exact rank defects.
RANK_TOLERANCE = 1e-9
#: Iterative-refinement passes when a factorization from a nearby configuration is reused.
REFINEMENT_PASSES = 3


class Factorization:
    """Pseudo-inverse of a block ``B[:, free]`` through the SVD of its dimensionless form.

    Attributes
    ----------
    rank : int, numerical rank
    conditioning : float, the singular value of rank ``system.nominal_rank`` (the rank at a
        regular position) over the largest; tends to zero at a dead point of the drivers.
    """

    def __init__(self, system, B_free, free):
        rows, cols = system.row_scale, system.column_scale[free]
        expected = system.nominal_rank
        scaled = B_free * rows[:, None] * cols[None, :]
        batch = scaled.shape[:-2]
        k = min(scaled.shape[-2:])
        if k:
            U, s, Vt = np.linalg.svd(scaled, full_matrices=False)
        else:
            U = np.zeros(batch + (scaled.shape[-2], 0))
            s = np.zeros(batch + (0,))
            Vt = np.zeros(batch + (0, scaled.shape[-1]))
        largest = s[..., :1] if k else np.zeros(batch + (1,))
        keep = s > RANK_TOLERANCE * np.maximum(largest, 1.0)
        rank = keep.sum(axis=-1)
        # Against the rank the block has at a regular position (the system's nominal rank),
        # so that a singular value lost exactly at a dead point counts as zero.
        if 0 < expected <= k:
            smallest = s[..., expected - 1]
        else:
            smallest = np.zeros(batch) if expected > k else np.ones(batch)
        conditioning = np.where(largest[..., 0] > 0, smallest / np.where(largest[..., 0] > 0, largest[..., 0], 1.0), 0.0)
        self.rank = int(rank) if not batch else rank
        self.conditioning = float(conditioning) if not batch else conditioning
        inverse_s = np.where(keep, 1.0 / np.where(keep, s, 1.0), 0.0)
        # Pseudo-inverse in scaled units, mapped back: x = C pinv(R B C) R rhs.
        V = np.swapaxes(Vt, -1, -2) * inverse_s[..., None, :]
        self.pinv = (cols[:, None] * V) @ (np.swapaxes(U, -1, -2) * rows[None, :])


    @classmethod
    def gather(cls, pieces, count):
        """One stacked factorization of ``count`` configurations from ``pieces``: pairs of a
        stacked factorization and the (k,) positions its rows go to."""
        out = cls.__new__(cls)
        shape = pieces[0][0].pinv.shape[-2:]
        out.pinv = np.empty((count,) + shape)
        out.rank = np.empty(count, dtype=int)
        out.conditioning = np.empty(count)
        for factorization, positions in pieces:
            out.pinv[positions] = factorization.pinv
            out.rank[positions] = factorization.rank
            out.conditioning[positions] = factorization.conditioning
        return out

    def rows(self, which):
        """The factorizations of some of a stack's configurations (``which``: index array)."""
        out = Factorization.__new__(Factorization)
        out.pinv = self.pinv[which]
        out.rank = np.asarray(self.rank)[which] if np.ndim(self.rank) else self.rank
        out.conditioning = np.asarray(self.conditioning)[which] if np.ndim(self.conditioning) else self.conditioning
        return out


class ClosureLinearization:
    """``B`` (eq. 3) at one configuration, split into driven and free columns, ready to solve.

    Parameters
    ----------
    system : KinematicSystem
    config : Configuration
    driven : (d,) int, column indices of driven variables
    factorization : Factorization, optional
        Of ``B_free`` at a nearby configuration (a Newton iterate): reused with iterative
        refinement instead of a new SVD.

    Attributes
    ----------
    B : (6 L, n) the constraint matrix
    free : (n - d,) int, columns solved for
    rank, conditioning : from the factorization
    """

    def __init__(self, system, config, driven, factorization=None):
        self.system = system
        self.B = system.constraint_matrix(config)
        self.driven = np.asarray(driven, dtype=int)
        self.free = free_columns(system, self.driven)
        self._B_free = self.B[..., self.free]
        self._B_driven = self.B[..., self.driven]
        self._refine = factorization is not None
        self.factorization = factorization or Factorization(system, self._B_free, self.free)
        self.rank = self.factorization.rank
        self.conditioning = self.factorization.conditioning

    def solve(self, rhs):
        """Least-squares, minimum-norm ``x`` of ``B_free x = rhs`` for right-hand sides ``(..., 6 L, m)``."""
        pinv = self.factorization.pinv
        x = pinv @ rhs
        if self._refine:
            for _ in range(REFINEMENT_PASSES):
                x = x + pinv @ (rhs - self._B_free @ x)
        return x

    def solve_vector(self, rhs):
        """:meth:`solve` for one right-hand side per configuration, ``(..., 6 L) -> (..., n - d)``."""
        return self.solve(rhs[..., None])[..., 0]

    def driver_terms(self, driver_values):
        """``B_driven @ values`` for driver rates ``(..., d)``: ``(..., 6 L)``."""
        return (self._B_driven @ np.asarray(driver_values, dtype=float)[..., None])[..., 0]

    def tangent(self):
        """``dq_free / d(driver)`` for unit driver rates: (..., n - d, d)."""
        return self.solve(-self._B_driven)


def free_columns(system, driven) -> np.ndarray:
    """Columns other than ``driven``, in order."""
    mask = np.ones(system.n, dtype=bool)
    mask[np.asarray(driven, dtype=int)] = False
    return np.flatnonzero(mask)


def solve_velocity(linearization: ClosureLinearization, driver_speeds) -> np.ndarray:
    """All variable rates ``q'`` (..., n) for the given driver rates (..., d) (eq. 4).

    Spherical pairs' rates are relative angular velocities (rad/s, frame j axes).
    """
    system = linearization.system
    speeds = np.asarray(driver_speeds, dtype=float)
    q_dot = np.zeros(linearization.B.shape[:-2] + (system.n,))
    q_dot[..., linearization.driven] = speeds
    q_dot[..., linearization.free] = linearization.solve_vector(-linearization.driver_terms(speeds))
    return q_dot
